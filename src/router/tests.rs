//! Unit tests of the routers: the deployed router's worked example, ties, the recent
//! term's decay, the consistent-hash ring, sticky and spill.

use super::*;

fn ask<'a>(block_ids: &'a [u64], full_blocks: usize, hits: &'a [u32]) -> Ask<'a> {
    Ask {
        block_ids,
        full_blocks,
        session: None,
        hits,
    }
}

fn view(active_blocks: u64) -> ReplicaView {
    ReplicaView {
        active_blocks,
        ..ReplicaView::default()
    }
}

fn kv_router(replicas: u32, weight: f64) -> Router {
    Router::new(
        &Config {
            instances: replicas,
            overlap_weight: weight,
            ..Config::default()
        },
        0,
    )
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
fn ties_go_to_less_load_then_lower_index() {
    let prompt: Vec<u64> = (0..4).collect();
    // Cost 2 + 3 = 5 on the warm replica, 4 + 1 = 5 on the cold one: equal cost, the
    // cold one carries less load.
    let views = [view(3), view(1)];
    assert_eq!(
        kv_router(2, 1.0)
            .pick(ask(&prompt, 4, &[2, 0]), &views, None)
            .0,
        1
    );
    let same = [view(1); 3];
    assert_eq!(
        kv_router(3, 1.0)
            .pick(ask(&prompt, 4, &[0, 0, 0]), &same, None)
            .0,
        0
    );
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
    };
    assert_eq!(router.pick(prefix, &idle, None), (1, Reason::Sticky));
}
