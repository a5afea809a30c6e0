//! Unit tests of the routers: the deployed router's worked example, ties, the recent
//! term (its decay and its place in the cost), the overlap weight, the consistent-hash
//! ring, session affinity, sticky and spill.

use super::*;
use crate::config::TieBreak;

fn ask<'a>(block_ids: &'a [u64], full_blocks: usize, hits: &'a [u32]) -> Ask<'a> {
    Ask {
        block_ids,
        full_blocks,
        session: None,
        hits,
        prompt_tokens: 0,
        new_blocks: &[],
        now_us: 0,
    }
}

fn view(active_blocks: u64) -> ReplicaView {
    ReplicaView {
        active_blocks,
        ..ReplicaView::default()
    }
}

fn kv_router(replicas: u32, weight: f64) -> Router {
    kv_router_ties(replicas, weight, TieBreak::Random, 42)
}

fn kv_router_ties(replicas: u32, weight: f64, tie_break: TieBreak, seed: u64) -> Router {
    Router::new(
        &Config {
            instances: replicas,
            overlap_weight: weight,
            tie_break,
            seed,
            ..Config::default()
        },
        0,
    )
}

fn lowest() -> Ties {
    Ties::new(TieBreak::Lowest, 0, 0)
}

#[test]
fn deployed_routers_worked_example() {
    // A 10-block prompt, weight 1.0: W0 has 8 hits and 6 active blocks (cost 8), W1
    // has 0 hits and 1 active block (cost 11); W0 wins.
    let prompt: Vec<u64> = (0..10).collect();
    let views = [view(6), view(1)];
    let mut router = kv_router(2, 1.0);
    let mut log = Vec::new();
    assert_eq!(
        router
            .pick(ask(&prompt, 10, &[8, 0]), &views, Some(&mut log))
            .0,
        0
    );
    assert_eq!(log[0].cost, 8.0);
    assert_eq!(log[1].cost, 11.0);
    assert_eq!(log[0].hit_blocks, 8);
}

#[test]
fn ties_go_to_less_load_then_by_the_tie_rule() {
    let prompt: Vec<u64> = (0..4).collect();
    // Cost 2 + 3 = 5 on the warm replica, 4 + 1 = 5 on the cold one: equal cost, the
    // cold one carries less load, under either rule.
    let views = [view(3), view(1)];
    for rule in TieBreak::ALL {
        let mut router = kv_router_ties(2, 1.0, rule, 42);
        assert_eq!(router.pick(ask(&prompt, 4, &[2, 0]), &views, None).0, 1);
    }
    // Three replicas of equal cost (4 + 1) and equal load: `lowest` takes W0.
    let same = [view(1); 3];
    let first_pick = |rule, seed| {
        kv_router_ties(3, 1.0, rule, seed)
            .pick(ask(&prompt, 4, &[0, 0, 0]), &same, None)
            .0
    };
    assert_eq!(first_pick(TieBreak::Lowest, 42), 0);
    // `random`, worked by hand from the tie stream's own draws: W1 takes W0's place when
    // a draw below 2 is 0, then W2 takes the place of the one held when a draw below 3
    // is 0.
    for seed in 0..20 {
        let mut stream = crate::rng::Rng::fork_nth(seed, Stream::Ties, 0);
        let mut expected = 0;
        if stream.below(2) == 0 {
            expected = 1;
        }
        if stream.below(3) == 0 {
            expected = 2;
        }
        assert_eq!(first_pick(TieBreak::Random, seed), expected, "seed {seed}");
    }
    // Over 600 seeds each replica wins about a third (200 ± 45), not W0 every time.
    let mut wins = [0u32; 3];
    for seed in 0..600 {
        wins[first_pick(TieBreak::Random, seed)] += 1;
    }
    assert!(wins.iter().all(|w| (155..=245).contains(w)), "{wins:?}");
}

#[test]
fn recent_term_decays_per_pick() {
    let views = [view(0); 2];
    let mut router = kv_router(2, 1.0);
    let prompt: Vec<u64> = (0..10).collect();
    assert_eq!(router.pick(ask(&prompt, 10, &[0, 0]), &views, None).0, 0);
    assert_eq!(router.recent, vec![10.0, 0.0]);
    assert_eq!(router.pick(ask(&prompt, 10, &[0, 0]), &views, None).0, 1);
    assert_eq!(router.recent, vec![10.0 * 0.97, 10.0]);
    // A hit lowers the charge to the missed blocks only.
    assert_eq!(router.pick(ask(&prompt, 10, &[7, 0]), &views, None).0, 0);
    assert!((router.recent[0] - (10.0 * 0.97 * 0.97 + 3.0)).abs() < 1e-12);
    // An id-less request charges 1.
    router.pick(ask(&[], 0, &[0, 0]), &views, None);
    assert!((router.recent[1] - (10.0 * 0.97 * 0.97 + 1.0)).abs() < 1e-12);
}

#[test]
fn prefix_aware_is_stable_and_spreads_prefixes() {
    let views = [view(0); 8];
    let mut router = Router::new(
        &Config {
            instances: 8,
            routing: Policy::PrefixAware,
            ..Config::default()
        },
        0,
    );
    let hits = [0u32; 8];
    let mut homes = Vec::new();
    for _ in 0..2 {
        homes.push(
            (0..400u64)
                .map(|p| router.pick(ask(&[p * 7], 1, &hits), &views, None).0)
                .collect::<Vec<usize>>(),
        );
    }
    assert_eq!(homes[0], homes[1]);
    for r in 0..8 {
        let n = homes[0].iter().filter(|&&h| h == r).count();
        assert!(
            (20..=90).contains(&n),
            "replica {r} got {n} of 400 prefixes"
        );
    }
}

#[test]
fn sticky_follows_the_session_then_spills() {
    let mut router = Router::new(
        &Config {
            instances: 3,
            routing: Policy::Sticky,
            spill_queue: 2,
            ..Config::default()
        },
        0,
    );
    let ids = [1u64, 2];
    let a = |session| Ask {
        block_ids: &ids,
        full_blocks: 2,
        session: Some(session),
        hits: &[0, 0, 0],
        prompt_tokens: 0,
        new_blocks: &[],
        now_us: 0,
    };
    let idle = [view(0); 3];
    let (first, reason) = router.pick(a(9), &idle, None);
    assert_eq!(reason, Reason::Policy, "a first turn has no home yet");
    assert_eq!(router.pick(a(9), &idle, None), (first, Reason::Sticky));
    let mut busy = idle;
    busy[first].waiting = 2;
    busy[(first + 1) % 3].running = 1;
    let (spilled, reason) = router.pick(a(9), &busy, None);
    assert_eq!(reason, Reason::Spill);
    assert_eq!(spilled, (first + 2) % 3, "the least busy replica");
    // Without a session, affinity follows the longest cached prefix.
    let prefix = Ask {
        block_ids: &ids,
        full_blocks: 2,
        session: None,
        hits: &[0, 2, 1],
        prompt_tokens: 0,
        new_blocks: &[],
        now_us: 0,
    };
    assert_eq!(router.pick(prefix, &idle, None), (1, Reason::Sticky));
}

#[test]
fn the_recent_term_is_part_of_the_cost_not_only_of_the_tie_break() {
    // First pick: 10 missed blocks charged to W0 (recent 10). Second request, no hits
    // anywhere, W1 carries 5 active blocks: cost W0 = 10 + 0 + 10 = 20 against
    // W1 = 10 + 5 + 0 = 15, so W1 wins; without the recent term W0 (10) would.
    let mut router = kv_router(2, 1.0);
    let prompt: Vec<u64> = (0..10).collect();
    assert_eq!(
        router
            .pick(ask(&prompt, 10, &[0, 0]), &[view(0); 2], None)
            .0,
        0
    );
    let mut log = Vec::new();
    let views = [view(0), view(5)];
    let other: Vec<u64> = (100..110).collect();
    let (chosen, _) = router.pick(ask(&other, 10, &[0, 0]), &views, Some(&mut log));
    assert_eq!(chosen, 1);
    // The recent term was 10 then decayed once at the second pick's charge, after
    // the log was written: the log shows the terms the pick saw.
    assert_eq!((log[0].cost, log[1].cost), (20.0, 15.0));
    assert_eq!((log[0].recent, log[1].recent), (10.0, 0.0));
}

#[test]
fn the_overlap_weight_scales_only_the_missed_blocks() {
    // Weight 3, a 6-block prompt: W0 holds 4 (2 missed) with 7 active blocks, W1 none
    // with 1: cost W0 = 3 x 2 + 7 = 13, W1 = 3 x 6 + 1 = 19.
    let prompt: Vec<u64> = (0..6).collect();
    let mut log = Vec::new();
    let mut router = kv_router(2, 3.0);
    let views = [view(7), view(1)];
    let (chosen, reason) = router.pick(ask(&prompt, 6, &[4, 0]), &views, Some(&mut log));
    assert_eq!((chosen, reason), (0, Reason::Policy));
    assert_eq!((log[0].cost, log[1].cost), (13.0, 19.0));
    assert_eq!(
        router.recent,
        vec![2.0, 0.0],
        "W0 computes its 2 missed blocks"
    );
}

/// A router for `replicas` replicas with session affinity `percent` over round robin.
fn affinity_router(replicas: u32, percent: f64) -> Router {
    Router::new(
        &Config {
            instances: replicas,
            routing: Policy::RoundRobin,
            session_affinity: Some(percent),
            seed: 7,
            ..Config::default()
        },
        0,
    )
}

/// Share of `n` later picks of one session that went back to its replica as sticky.
fn sticky_share(percent: f64, n: u32) -> f64 {
    let mut router = affinity_router(4, percent);
    let ids = [1u64, 2];
    let a = Ask {
        block_ids: &ids,
        full_blocks: 2,
        session: Some(3),
        hits: &[0; 4],
        prompt_tokens: 0,
        new_blocks: &[],
        now_us: 0,
    };
    let idle = [view(0); 4];
    let (mut last, _) = router.pick(a, &idle, None);
    let mut sticky = 0;
    for _ in 0..n {
        let (chosen, reason) = router.pick(a, &idle, None);
        if reason == Reason::Sticky {
            sticky += 1;
            assert_eq!(
                chosen, last,
                "a sticky pick goes to the session's last replica"
            );
        }
        last = chosen;
    }
    sticky as f64 / n as f64
}

#[test]
fn affinity_sends_back_its_share_of_requests_asymmetric_shares_too() {
    // Each later pick is sticky with probability P: over 20,000 picks the share has a
    // standard deviation of at most sqrt(0.25 / 20,000) = 0.0035; 0.015 is over 4 of
    // them (seed 7). An inverted draw would give 1 - P, which only 50 % cannot tell.
    for percent in [20.0, 50.0, 80.0] {
        let share = sticky_share(percent, 20_000);
        let want = percent / 100.0;
        assert!(
            (share - want).abs() < 0.015,
            "affinity {percent}%: {share} sticky (seed 7)"
        );
    }
    assert_eq!(sticky_share(0.0, 1000), 0.0);
    assert_eq!(sticky_share(100.0, 1000), 1.0);
}

#[test]
fn round_robin_cycles_and_least_busy_breaks_ties_low() {
    let mut router = Router::new(
        &Config {
            instances: 3,
            routing: Policy::RoundRobin,
            ..Config::default()
        },
        0,
    );
    let idle = [view(0); 3];
    let picks: Vec<usize> = (0..7)
        .map(|_| router.pick(ask(&[9], 1, &[0; 3]), &idle, None).0)
        .collect();
    assert_eq!(picks, vec![0, 1, 2, 0, 1, 2, 0]);
    let mut views = [view(0); 3];
    views[0].running = 2;
    views[1].waiting = 1;
    views[2].running = 1;
    assert_eq!(
        least_busy(&views, &mut lowest()),
        1,
        "1 busy on W1 and W2: the lower index under `lowest`"
    );
    // Under `random` W1 and W2 share the spills (W0, busier, never gets one).
    let mut ties = Ties::new(TieBreak::Random, 42, 0);
    let mut wins = [0u32; 3];
    for _ in 0..400 {
        wins[least_busy(&views, &mut ties)] += 1;
    }
    assert!(wins[0] == 0 && (160..=240).contains(&wins[1]), "{wins:?}");
    views[1].waiting = 3;
    assert_eq!(least_busy(&views, &mut lowest()), 2);
}

#[test]
fn prefix_affinity_prefers_the_longest_hit_then_the_least_busy() {
    // Requests without a session under full affinity go to the replica holding the most
    // leading blocks; on equal hits, to the one with fewer waiting + running (3 on W0,
    // 2 on W2: W2, whatever the mix of waiting and running).
    let mut router = Router::new(
        &Config {
            instances: 3,
            routing: Policy::Sticky,
            tie_break: TieBreak::Lowest,
            ..Config::default()
        },
        0,
    );
    let ids = [1u64, 2, 3];
    let mut views = [view(0); 3];
    views[0].running = 3;
    views[2].waiting = 1;
    views[2].running = 1;
    let prefix = |hits: &'static [u32]| Ask {
        block_ids: &ids,
        full_blocks: 3,
        session: None,
        hits,
        prompt_tokens: 0,
        new_blocks: &[],
        now_us: 0,
    };
    assert_eq!(
        router.pick(prefix(&[2, 1, 2]), &views, None),
        (2, Reason::Sticky)
    );
    assert_eq!(
        router.pick(prefix(&[1, 3, 2]), &views, None),
        (1, Reason::Sticky)
    );
    // Fewer hits never win on load (W1 is idle but holds 1 of W0's 2), and on equal
    // hits the later, busier replica does not displace the earlier, idler one (W1 idle
    // against W2 with 2).
    assert_eq!(
        router.pick(prefix(&[2, 1, 0]), &views, None),
        (0, Reason::Sticky)
    );
    assert_eq!(
        router.pick(prefix(&[0, 2, 2]), &views, None),
        (1, Reason::Sticky)
    );
    // Equal hits and equal load: the lower index under `lowest`; under `random` W0 or
    // W1, each about half the time, never W2 (which holds none).
    let idle = [view(0); 3];
    assert_eq!(
        router.pick(prefix(&[1, 1, 0]), &idle, None),
        (0, Reason::Sticky)
    );
    let mut random = Router::new(
        &Config {
            instances: 3,
            routing: Policy::Sticky,
            ..Config::default()
        },
        0,
    );
    let mut wins = [0u32; 3];
    for _ in 0..400 {
        wins[random.pick(prefix(&[1, 1, 0]), &idle, None).0] += 1;
    }
    assert!(wins[2] == 0 && (160..=240).contains(&wins[0]), "{wins:?}");
    // Nobody holds the prefix: no affinity target, the policy (round robin) decides.
    let (first, reason) = router.pick(prefix(&[0, 0, 0]), &views, None);
    assert_eq!(reason, Reason::Policy);
    let (second, _) = router.pick(prefix(&[0, 0, 0]), &views, None);
    assert_eq!((first, second), (0, 1));
}

#[test]
fn the_log_scores_kv_picks_by_cost_and_other_picks_zero_for_the_chosen() {
    // The decision log's convention: under kv's own choice every candidate carries its
    // kv cost; any other pick (another policy, or a sticky or spilled one under kv)
    // marks the chosen replica 0 and the others 1.
    let ids = [1u64, 2];
    let idle = [view(0); 3];
    let costs = |router: &mut Router, session| {
        let mut log = Vec::new();
        let a = Ask {
            block_ids: &ids,
            full_blocks: 2,
            session,
            hits: &[0, 0, 0],
            prompt_tokens: 0,
            new_blocks: &[],
            now_us: 0,
        };
        let (chosen, reason) = router.pick(a, &idle, Some(&mut log));
        let c: Vec<f64> = log.iter().map(|c| c.cost).collect();
        (chosen, reason, c)
    };
    let mut rr = Router::new(
        &Config {
            instances: 3,
            routing: Policy::RoundRobin,
            ..Config::default()
        },
        0,
    );
    costs(&mut rr, None);
    assert_eq!(
        costs(&mut rr, None),
        (1, Reason::Policy, vec![1.0, 0.0, 1.0])
    );
    let mut kv = Router::new(
        &Config {
            instances: 3,
            session_affinity: Some(100.0),
            tie_break: TieBreak::Lowest,
            ..Config::default()
        },
        0,
    );
    // First turn: kv's own pick, scored 2 missed + 0 load on every replica.
    assert_eq!(
        costs(&mut kv, Some(4)),
        (0, Reason::Policy, vec![2.0, 2.0, 2.0])
    );
    // Second turn: back to replica 0 by affinity, not by cost.
    assert_eq!(
        costs(&mut kv, Some(4)),
        (0, Reason::Sticky, vec![0.0, 1.0, 1.0])
    );
}

/// The `kv` pick is the least (cost, load, index) of the candidates' own costs
/// (`kv_cost`) under `lowest`, and one of the least (cost, load) under `random`, on
/// random fleets crowded with ties: loads from a few values, recent terms that are small
/// fractions, weights that round a cold cost's sum (1e16) or zero it.
#[test]
fn kv_pick_is_the_least_cost_then_load_then_by_the_tie_rule() {
    let mut state = 7u64;
    let mut next = |m: u64| {
        state += 1;
        splitmix64(state) % m
    };
    for round in 0..1_000 {
        let replicas = 1 + next(70) as usize;
        let weight = [0.0, 0.5, 1.0, 3.0, 1e16][round % 5];
        let rule = TieBreak::ALL[round % 2];
        let mut router = kv_router_ties(replicas as u32, weight, rule, round as u64);
        let full = next(6) as usize;
        let views: Vec<ReplicaView> = (0..replicas).map(|_| view(next(4) * 2)).collect();
        let hits: Vec<u32> = (0..replicas)
            .map(|_| match next(4) {
                0 => next(full as u64 + 1) as u32,
                _ => 0,
            })
            .collect();
        for r in 0..replicas {
            router.recent[r] = [0.0, 0.25, 2.0, 0.1][next(4) as usize];
        }
        let prompt: Vec<u64> = (0..full as u64).collect();
        let mut expected = 0;
        let key = |r: usize| {
            let cost = router.kv_cost(full, hits[r] as usize, &views[r], r);
            (cost, router.load(&views[r], r))
        };
        let keys: Vec<(f64, f64)> = (0..replicas).map(key).collect();
        for r in 1..replicas {
            let ((c, l), (bc, bl)) = (keys[r], keys[expected]);
            if c < bc || (c == bc && l < bl) {
                expected = r;
            }
        }
        let got = router.pick(ask(&prompt, full, &hits), &views, None).0;
        match rule {
            TieBreak::Lowest => assert_eq!(got, expected, "round {round}: {hits:?} {views:?}"),
            TieBreak::Random => {
                assert_eq!(
                    keys[got], keys[expected],
                    "round {round}: {hits:?} {views:?}"
                )
            }
        }
    }
}
