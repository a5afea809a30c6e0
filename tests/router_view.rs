//! What the router knows: the four-request example worked by hand (requests waiting at a
//! replica count as load from dispatch; the seed's offline pass caches each pick at once).
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::Decision;
use kvfleet::{api, Config, Request};

/// Four requests at t = 0 on 2 replicas, 5,120-token prompts (10 full blocks of 512) and 4
/// output tokens: A, B and C with their own content, D with A's.
fn four_requests() -> Vec<Request> {
    let prompt = |first: u64| (first..first + 10).collect::<Vec<u64>>();
    [prompt(0), prompt(10), prompt(20), prompt(0)]
        .into_iter()
        .enumerate()
        .map(|(id, block_ids)| Request {
            id: id as u32,
            arrival_us: 0,
            prompt_tokens: 5120,
            output_tokens: 4,
            block_ids,
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect()
}

fn decisions(cfg: &Config) -> Vec<Decision> {
    let mut sim = api::replay_simulation(cfg, four_requests(), "four").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    sim.take_decisions()
}

fn two_replicas() -> Config {
    Config {
        instances: 2,
        ..Config::default()
    }
}

/// (replica, hit_blocks, active_blocks, cost) of every candidate.
fn terms(d: &Decision) -> Vec<(u32, u32, u64, f64)> {
    d.candidates
        .iter()
        .map(|c| (c.replica, c.hit_blocks, c.active_blocks, c.cost))
        .collect()
}

fn assert_costs(got: &[(u32, u32, u64, f64)], want: &[(u32, u32, u64, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0, g.1, g.2), (w.0, w.1, w.2), "{what}: {got:?}");
        assert!((g.3 - w.3).abs() < 1e-9, "{what}: cost {} != {}", g.3, w.3);
    }
}

#[test]
fn four_requests_exact_view_counts_waiting_requests() {
    // Worked by hand, weight 1: cost = missed blocks + active blocks + recent, where
    // recent decays x0.97 per pick and the pick adds the blocks it missed (10 here).
    // A: both idle, cost 10 and 10: a tie goes to replica 0. recent = [10, 0].
    // B: replica 0 = 10 + 10 (A, running) + 10 = 30, replica 1 = 10: replica 1.
    //    recent = [9.7, 10].
    // C: replica 0 = 10 + 10 + 9.7 = 29.7, replica 1 = 10 + 10 + 10 = 30: replica 0, where
    //    it waits (A's prefill step is running). recent = [9.7 x 0.97 + 10, 9.7].
    // D: A's blocks are not computed yet, so no hits. Replica 0 holds A (running) and C
    //    (waiting): 20 distinct blocks, cost 10 + 20 + 19.409 = 49.409. (Counting only
    //    admitted requests, the bug of issue 11, it saw 10.) Replica 1: 10 + 10 + 9.7.
    let d = decisions(&two_replicas());
    let chosen: Vec<u32> = d.iter().map(|d| d.chosen).collect();
    assert_eq!(chosen, [0, 1, 0, 1]);
    let recent_c0 = 10.0 * 0.97 * 0.97 + 10.0;
    assert_costs(&terms(&d[0]), &[(0, 0, 0, 10.0), (1, 0, 0, 10.0)], "A");
    assert_costs(&terms(&d[1]), &[(0, 0, 10, 30.0), (1, 0, 0, 10.0)], "B");
    assert_costs(&terms(&d[2]), &[(0, 0, 10, 29.7), (1, 0, 10, 30.0)], "C");
    assert_costs(
        &terms(&d[3]),
        &[(0, 0, 20, 10.0 + 20.0 + recent_c0), (1, 0, 10, 29.7)],
        "D",
    );
    let c = &d[3].candidates[0];
    assert_eq!(
        (c.waiting, c.running),
        (1, 1),
        "C waits behind A on replica 0"
    );
    // D runs on replica 1, which never held A's blocks: nothing is cached anywhere.
    assert!(d.iter().all(|d| d.cached_blocks == Some(0)));
}
