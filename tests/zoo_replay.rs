//! Over every decision of a replay of each real trace, the zoo policy's pick agrees with
//! its rule, recomputed here from the logged terms and the request list alone: each
//! formula written out again, SGLang's trees and AIBrix's table rebuilt from the picks,
//! p2c's draws redrawn from the router's stream, and every tie redrawn from the run's tie
//! stream by Dynamo's reservoir rule (the k-th equal of the best so far, scanning by
//! index, takes its place when a draw below k is 0).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;

use kvfleet::rng::{Rng, Stream};
use kvfleet::router::Candidate;
use kvfleet::sim::Decision;
use kvfleet::trace::{parse_mooncake, TraceOptions};
use kvfleet::{api, Config, Policy, Request};

const REPLICAS: usize = 8;
const TRACES: [&str; 2] = ["synthetic", "conversation"];

fn trace(name: &str) -> Vec<Request> {
    let path = format!(
        "{}/data/mooncake/{name}_trace.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let reader = BufReader::new(File::open(&path).unwrap());
    parse_mooncake(reader, &path, &TraceOptions::default()).unwrap()
}

fn decisions(routing: Policy, requests: &[Request]) -> (Config, Vec<Decision>) {
    let cfg = Config {
        instances: REPLICAS as u32,
        routing,
        ..Config::default()
    };
    let mut sim = api::replay_simulation(&cfg, requests.to_vec(), "trace").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    assert_eq!(d.len(), requests.len());
    (cfg, d)
}

fn load(c: &Candidate) -> u32 {
    c.waiting + c.running
}

/// The first index of the lowest value.
fn first_min(xs: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x < xs[best] {
            best = i;
        }
    }
    best
}

/// The tie stream of the run's one router.
fn tie_stream(cfg: &Config) -> Rng {
    Rng::fork_nth(cfg.seed, Stream::Ties, 0)
}

/// The lowest value's index, equals by the reservoir draw from `ties`.
fn drawn_min(xs: &[f64], ties: &mut Rng) -> usize {
    let (mut best, mut equals) = (0, 1);
    for (i, &x) in xs.iter().enumerate().skip(1) {
        if x < xs[best] {
            (best, equals) = (i, 1);
        } else if x == xs[best] {
            equals += 1;
            if ties.below(equals) == 0 {
                best = i;
            }
        }
    }
    best
}

/// One of `equals` (ascending) by the reservoir draw from `ties`.
fn drawn_among(equals: &[usize], ties: &mut Rng) -> usize {
    let mut chosen = equals[0];
    for (k, &r) in equals.iter().enumerate().skip(1) {
        if ties.below(k as u64 + 1) == 0 {
            chosen = r;
        }
    }
    chosen
}

/// Decisions whose pick was not the lowest index of its equals, to see that the draw is
/// exercised: a pick and a lower-indexed candidate of the same value.
fn passed_over(xs: &[f64], chosen: usize) -> bool {
    xs[..chosen].contains(&xs[chosen])
}

fn leading(set: &HashSet<u64>, ids: &[u64]) -> u32 {
    ids.iter().take_while(|id| set.contains(id)).count() as u32
}

#[test]
fn least_loaded_and_p2c_agree_with_their_rules() {
    for name in TRACES {
        let requests = trace(name);
        let (cfg, d) = decisions(Policy::LeastLoaded, &requests);
        let mut ties = tie_stream(&cfg);
        let mut drawn = 0;
        for x in &d {
            let loads: Vec<f64> = x.candidates.iter().map(|c| load(c) as f64).collect();
            assert_eq!(
                x.chosen as usize,
                drawn_min(&loads, &mut ties),
                "{name} {}",
                x.id
            );
            drawn += usize::from(passed_over(&loads, x.chosen as usize));
        }
        assert!(
            drawn > 0,
            "{name}: least_loaded never passed over a lower index"
        );
        let (cfg, d) = decisions(Policy::P2c, &requests);
        let mut rng = Rng::fork(cfg.seed, Stream::Router);
        let mut ties = tie_stream(&cfg);
        for x in &d {
            let a = rng.below(REPLICAS as u64) as usize;
            let mut b = rng.below(REPLICAS as u64 - 1) as usize;
            if b >= a {
                b += 1;
            }
            let (lo, hi) = (a.min(b), a.max(b));
            let c = &x.candidates;
            let want = match load(&c[hi]).cmp(&load(&c[lo])) {
                std::cmp::Ordering::Less => hi,
                std::cmp::Ordering::Greater => lo,
                std::cmp::Ordering::Equal => drawn_among(&[lo, hi], &mut ties),
            };
            assert_eq!(x.chosen as usize, want, "{name} {}", x.id);
            for (r, cand) in c.iter().enumerate() {
                assert_eq!(cand.excluded, r != a && r != b);
            }
        }
    }
}

#[test]
fn dynamo_costs_are_the_formula_and_the_lowest_wins() {
    for name in TRACES {
        let requests = trace(name);
        let (cfg, d) = decisions(Policy::Dynamo, &requests);
        let mut ties = tie_stream(&cfg);
        let mut drawn = 0;
        let mut prefilling = 0;
        for x in &d {
            let prompt = requests[x.id as usize].prompt_tokens as f64;
            let mut costs = Vec::new();
            for c in &x.candidates {
                let term = |n: &str| c.terms.iter().find(|t| t.name == n).unwrap().value;
                let queued = term("active_prefill_tokens");
                let new_blocks = term("new_blocks");
                assert!(new_blocks <= x.request_blocks as f64);
                if c.active_blocks == 0 {
                    assert_eq!(new_blocks, x.request_blocks as f64);
                }
                if queued > 0.0 {
                    prefilling += 1;
                }
                // 1 x max(0, (queued + prompt) / 512 - 1 x cached) + active + new + 0 x requests
                let prefill = ((queued + prompt) / 512.0 - c.hit_blocks as f64).max(0.0);
                let want = prefill + c.active_blocks as f64 + new_blocks;
                assert!(
                    (c.cost - want).abs() < 1e-9,
                    "{name} {}: {} vs {want}",
                    x.id,
                    c.cost
                );
                costs.push(want);
            }
            assert_eq!(
                x.chosen as usize,
                drawn_min(&costs, &mut ties),
                "{name} {}",
                x.id
            );
            drawn += usize::from(passed_over(&costs, x.chosen as usize));
        }
        assert!(prefilling > 0, "{name}: the prefill term is exercised");
        assert!(drawn > 0, "{name}: dynamo never passed over a lower index");
    }
}

#[test]
fn sglang_picks_follow_the_tree_rule_rebuilt_from_the_picks() {
    for name in TRACES {
        let requests = trace(name);
        let (_, d) = decisions(Policy::Sglang, &requests);
        let mut trees: Vec<HashSet<u64>> = vec![HashSet::new(); REPLICAS];
        let mut rules = [0usize; 3];
        for x in &d {
            let ids = &requests[x.id as usize].block_ids[..x.request_blocks as usize];
            let matched: Vec<u32> = trees.iter().map(|t| leading(t, ids)).collect();
            let loads: Vec<f64> = x.candidates.iter().map(|c| load(c) as f64).collect();
            for (c, &m) in x.candidates.iter().zip(&matched) {
                assert_eq!(c.hit_blocks, m, "{name} {}", x.id);
            }
            let (lo, hi) = (
                loads.iter().cloned().fold(f64::MAX, f64::min),
                loads.iter().cloned().fold(0.0, f64::max),
            );
            let best = first_min(&matched.iter().map(|&m| -(m as f64)).collect::<Vec<_>>());
            let rate = if ids.is_empty() {
                0.0
            } else {
                matched[best] as f64 / ids.len() as f64
            };
            let (want, rule) = if hi - lo > 64.0 && hi > 1.5 * lo {
                (first_min(&loads), 0)
            } else if rate > 0.3 {
                (best, 1)
            } else {
                (first_min(&loads), 2)
            };
            rules[rule] += 1;
            assert_eq!(x.chosen as usize, want, "{name} {}", x.id);
            assert_eq!(x.rule, Some(["imbalanced", "match", "miss"][rule]));
            trees[want].extend(ids.iter().copied());
        }
        assert!(rules[1] > 0 && rules[2] > 0, "{name}: {rules:?}");
    }
}

#[test]
fn llm_d_picks_are_the_highest_weighted_sum() {
    for name in TRACES {
        let requests = trace(name);
        let (cfg, d) = decisions(Policy::LlmD, &requests);
        let mut ties = tie_stream(&cfg);
        for x in &d {
            let c = &x.candidates;
            let held: Vec<u32> = c.iter().map(|c| c.hit_blocks).filter(|&h| h > 0).collect();
            let (hmin, hmax) = (
                held.iter().min().copied().unwrap_or(0),
                held.iter().max().copied().unwrap_or(0),
            );
            let (qmin, qmax) = (
                c.iter().map(|c| c.waiting).min().unwrap(),
                c.iter().map(|c| c.waiting).max().unwrap(),
            );
            let scores: Vec<f64> = c
                .iter()
                .map(|c| {
                    let prefix = if c.hit_blocks == 0 {
                        0.0
                    } else if hmin == hmax {
                        1.0
                    } else {
                        (c.hit_blocks - hmin) as f64 / (hmax - hmin) as f64
                    };
                    let queue = if qmin == qmax {
                        1.0
                    } else {
                        (qmax - c.waiting) as f64 / (qmax - qmin) as f64
                    };
                    // Unbounded caches: utilisation 0, kv score 1.
                    3.0 * prefix + 2.0 * queue + 2.0 * 1.0
                })
                .collect();
            for (cand, s) in c.iter().zip(&scores) {
                assert!((cand.score.unwrap() - s).abs() < 1e-9, "{name} {}", x.id);
            }
            let neg: Vec<f64> = scores.iter().map(|s| -s).collect();
            assert_eq!(
                x.chosen as usize,
                drawn_min(&neg, &mut ties),
                "{name} {}",
                x.id
            );
        }
    }
}

#[test]
fn aibrix_picks_follow_its_rule_with_the_table_rebuilt_from_the_picks() {
    for name in TRACES {
        let requests = trace(name);
        let (cfg, d) = decisions(Policy::Aibrix, &requests);
        let mut ties = tie_stream(&cfg);
        let mut table: Vec<HashSet<u64>> = vec![HashSet::new(); REPLICAS];
        let mut rules = [0usize; 3];
        for x in &d {
            let ids = &requests[x.id as usize].block_ids[..x.request_blocks as usize];
            let loads: Vec<f64> = x.candidates.iter().map(|c| load(c) as f64).collect();
            let pct: Vec<u32> = table
                .iter()
                .map(|t| {
                    if ids.is_empty() {
                        0
                    } else {
                        leading(t, ids) * 100 / ids.len() as u32
                    }
                })
                .collect();
            let n = REPLICAS as f64;
            let mean = loads.iter().sum::<f64>() / n;
            let sigma = (loads.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n).sqrt();
            let (lo, hi) = (
                loads.iter().cloned().fold(f64::MAX, f64::min),
                loads.iter().cloned().fold(0.0, f64::max),
            );
            let mut want = None;
            let rule = if hi - lo > 8.0 {
                0
            } else {
                // Highest percent, then lowest load, within mean + sigma; then one of the
                // replicas of that percent and load, drawn.
                for r in 0..REPLICAS {
                    if pct[r] == 0 || loads[r] > mean + sigma {
                        continue;
                    }
                    let better = match want {
                        None => true,
                        Some(w) => pct[r] > pct[w] || (pct[r] == pct[w] && loads[r] < loads[w]),
                    };
                    if better {
                        want = Some(r);
                    }
                }
                if let Some(w) = want {
                    let equals: Vec<usize> = (0..REPLICAS)
                        .filter(|&r| pct[r] == pct[w] && loads[r] == loads[w])
                        .collect();
                    want = Some(drawn_among(&equals, &mut ties));
                    1
                } else {
                    2
                }
            };
            let want = want.unwrap_or_else(|| drawn_min(&loads, &mut ties));
            rules[rule] += 1;
            assert_eq!(x.chosen as usize, want, "{name} {}", x.id);
            assert_eq!(x.rule, Some(["imbalanced", "match", "fallback"][rule]));
            table[want].extend(ids.iter().copied());
        }
        assert!(rules[1] > 0 && rules[2] > 0, "{name}: {rules:?}");
    }
}

#[test]
fn dynamo_discounts_the_blocks_already_in_flight_on_a_replica() {
    // A: 8 blocks (4,096 tokens) with a 2,000-token answer, at 0: a tie, so replica 0
    // (the lower index, under `tie_break: lowest`).
    // B at 2 s, while A still decodes: A's 8 blocks and 1 more. On replica 0, 8 of B's 9
    // blocks are in flight (A's), so new_blocks is 1; on replica 1 it is 9. Costs: replica 0,
    // max(0, 4,608 / 512 - 8 cached) + A's active blocks + 1; replica 1, 9 + 0 + 9 = 18.
    // Without the discount replica 0 would cost 1 + active + 9 >= 18 and lose the tie.
    let request = |id: u32, arrival_us: u64, block_ids: Vec<u64>, output_tokens: u32| Request {
        id,
        arrival_us,
        prompt_tokens: 512 * block_ids.len() as u32,
        output_tokens,
        block_ids: block_ids.into(),
        session: None,
        output_block_ids: Vec::new(),
    };
    let requests = vec![
        request(0, 0, (1..=8).collect(), 2000),
        request(1, 2_000_000, (1..=9).collect(), 10),
        request(2, 2_000_001, vec![100, 101], 10),
    ];
    let cfg = Config {
        instances: 2,
        routing: Policy::Dynamo,
        tie_break: kvfleet::TieBreak::Lowest,
        ..Config::default()
    };
    let mut sim = api::replay_simulation(&cfg, requests, "two").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    assert_eq!(d[0].chosen, 0);
    let term = |c: &Candidate, n: &str| c.terms.iter().find(|t| t.name == n).unwrap().value;
    let (on_a, other) = (&d[1].candidates[0], &d[1].candidates[1]);
    assert_eq!(
        (term(on_a, "new_blocks"), term(other, "new_blocks")),
        (1.0, 9.0)
    );
    // A's prefill ended long before: the router counts none left on either replica.
    assert_eq!(term(on_a, "active_prefill_tokens"), 0.0);
    assert_eq!(term(other, "active_prefill_tokens"), 0.0);
    // A's prompt plus the tokens it generated in 2 s: 8 to 12 blocks.
    let active = on_a.active_blocks as f64;
    assert!((8.0..=12.0).contains(&active), "{active}");
    assert_eq!(on_a.cost, 1.0 + active + 1.0);
    assert_eq!(other.cost, 18.0);
    assert_eq!(d[1].chosen, 0);
    // C, 1 µs later, while B prefills on replica 0: the router counts B's uncached
    // 4,608 - 4,096 = 512 tokens there as prefill still to do, and none on replica 1.
    let (c0, c1) = (&d[2].candidates[0], &d[2].candidates[1]);
    assert_eq!(term(c0, "active_prefill_tokens"), 512.0);
    assert_eq!(term(c1, "active_prefill_tokens"), 0.0);
    assert_eq!(
        c0.cost,
        (512.0 + 1024.0) / 512.0 + c0.active_blocks as f64 + 2.0
    );
}

#[test]
fn rule_policies_log_cost_0_for_the_pick_and_1_for_the_others() {
    // The decision log's format where no cost is minimised: llm_d's scores, and the
    // `match` branch of sglang and aibrix (their other branches log the minimised load or
    // tree size). The cost column then marks the pick: 0 for it, 1 for the others.
    let requests = trace("synthetic");
    for policy in [Policy::LlmD, Policy::Sglang, Policy::Aibrix] {
        let (_, d) = decisions(policy, &requests);
        let marked: Vec<&Decision> = d
            .iter()
            .filter(|x| policy == Policy::LlmD || x.rule == Some("match"))
            .collect();
        assert!(
            marked.len() > 100,
            "{policy:?}: {} marked decisions",
            marked.len()
        );
        for x in marked {
            for (r, c) in x.candidates.iter().enumerate() {
                let want = if r == x.chosen as usize { 0.0 } else { 1.0 };
                assert_eq!(c.cost, want, "{policy:?} {}: replica {r}", x.id);
            }
        }
    }
}
