//! What the router knows: the four-request example worked by hand (requests waiting at a
//! replica count as load from dispatch; the seed's offline pass caches each pick at once),
//! and the seed's example under the seed's own method against a restatement of its pass.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashSet;

use kvfleet::sim::Decision;
use kvfleet::workload::Synthetic;
use kvfleet::{api, params, Config, Request, RouterView, TieBreak};

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
            block_ids: block_ids.into(),
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
    //    admitted requests, it saw 10.) Replica 1: 10 + 10 + 9.7.
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

#[test]
fn four_requests_offline_caches_each_pick_at_once() {
    // The seed's pass, worked by hand: cost = missed blocks + recent, no in-flight term,
    // and each pick's blocks count as cached on its replica at once.
    // A: 10 and 10, a tie: replica 0. recent = [10, 0]; replica 0 holds A's blocks.
    // B: replica 0 = 10 + 10 = 20, replica 1 = 10: replica 1. recent = [9.7, 10].
    // C: replica 0 = 10 + 9.7 = 19.7, replica 1 = 10 + 10 = 20: replica 0.
    //    recent = [9.7 x 0.97 + 10, 9.7] = [19.409, 9.7].
    // D (A's content): replica 0 shows all 10 blocks, cost 0 + 19.409; replica 1 costs
    //    10 + 9.7 = 19.7: replica 0, by 0.291.
    let cfg = Config {
        router_view: RouterView::Offline,
        ..two_replicas()
    };
    let d = decisions(&cfg);
    let chosen: Vec<u32> = d.iter().map(|d| d.chosen).collect();
    assert_eq!(chosen, [0, 1, 0, 0]);
    let recent_c0 = 10.0 * 0.97 * 0.97 + 10.0;
    assert_costs(&terms(&d[1]), &[(0, 0, 0, 20.0), (1, 0, 0, 10.0)], "B");
    assert_costs(&terms(&d[2]), &[(0, 0, 0, 19.7), (1, 0, 0, 20.0)], "C");
    assert_costs(
        &terms(&d[3]),
        &[(0, 10, 0, recent_c0), (1, 0, 0, 10.0 + 9.7)],
        "D",
    );
    // The truth at D's pick: nothing computed yet, A running and C waiting on replica 0.
    let c = &d[3].candidates[0];
    assert_eq!(
        (
            c.true_hit_blocks,
            c.true_active_blocks,
            c.true_waiting,
            c.true_running
        ),
        (0, 20, 1, 1)
    );
    assert_eq!((c.waiting, c.running), (0, 0), "offline sees no load");
    // In the timed run D waits behind A's prefill (5,120 tokens, one step under the
    // 8,192-token budget), then reuses 9 of A's blocks (the last prompt token is always
    // recomputed: floor(5119 / 512) = 9).
    assert_eq!(d[3].cached_blocks, Some(9));
    assert_eq!(d[2].cached_blocks, Some(0));
}

/// The seed's routing pass restated independently: no timing; cost = weight x
/// missed full blocks + recent; ties to the lower recent, then the lower index; recent
/// decays x0.97 per pick and the pick adds its missed blocks; each pick's full blocks are
/// cached at once, never evicted. Returns the picks and the requests with a hit.
fn seed_pass(requests: &[Request], replicas: usize, weight: f64, bs: u32) -> (Vec<u32>, usize) {
    let mut cached: Vec<HashSet<u64>> = vec![HashSet::new(); replicas];
    let mut recent = vec![0.0f64; replicas];
    let (mut picks, mut hit_requests) = (Vec::new(), 0);
    for r in requests {
        let full = (r.prompt_tokens / bs) as usize;
        let ids = &r.block_ids[..full];
        let hits = |w: usize| ids.iter().take_while(|id| cached[w].contains(id)).count();
        let cost = |w: usize| weight * (full - hits(w)) as f64 + recent[w];
        let best = (1..replicas).fold(0, |b, w| {
            let (cw, cb) = (cost(w), cost(b));
            if cw < cb || (cw == cb && recent[w] < recent[b]) {
                w
            } else {
                b
            }
        });
        let hit = hits(best);
        hit_requests += (hit > 0) as usize;
        for x in &mut recent {
            *x *= 0.97;
        }
        recent[best] += (full - hit) as f64;
        cached[best].extend(ids.iter().copied());
        picks.push(best as u32);
    }
    (picks, hit_requests)
}

fn offline_seed_example(seed: u64) -> (f64, f64, f64) {
    // The pass above breaks ties by index, as `tie_break: lowest` does; pick for pick
    // they agree under it. The default draws among equals instead: offline, the equals
    // are replicas that are alike (none holds the prefix, equal recent terms), so the
    // draw relabels replicas but hits exactly as often (checked below).
    let cfg = Config {
        seed,
        router_view: RouterView::Offline,
        tie_break: TieBreak::Lowest,
        ..Config::default()
    };
    let popularity = params::validate(&cfg).unwrap();
    let requests: Vec<Request> = Synthetic::new(&cfg, popularity).collect();
    let (picks, pass_hits) = seed_pass(&requests, 4, 1.0, 512);
    let mut sim = api::synthetic_simulation(&cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let chosen: Vec<u32> = sim.take_decisions().iter().map(|d| d.chosen).collect();
    assert_eq!(
        chosen, picks,
        "seed {seed}: the simulator's offline picks are the pass's"
    );
    let s = sim.into_report().summary;
    // At 6 req/s no request reaches a replica while its prefix is still being computed
    // there, so the timed run hits exactly where the pass does.
    assert_eq!(s.hit_requests, pass_hits as u64, "seed {seed}");
    let drawn = Config {
        tie_break: TieBreak::Random,
        ..cfg.clone()
    };
    let d = api::synthetic_simulation(&drawn)
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(d.hit_requests, pass_hits as u64, "seed {seed}, ties drawn");
    (
        s.hit_rate_requests,
        s.hit_rate_instance_min,
        s.hit_rate_instance_max,
    )
}

#[test]
fn offline_reproduces_the_seeds_figure() {
    let (rate, lo, hi) = offline_seed_example(42);
    // Measured: 89.0% of requests, per instance 86-92% (the seed: 89.5%, 88-90%).
    assert!((0.88..=0.91).contains(&rate), "seed 42: {rate}");
    assert!(lo >= 0.85 && hi <= 0.93, "per instance {lo}-{hi}");
    let rates: Vec<f64> = (1..=20).map(|s| offline_seed_example(s).0).collect();
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    // Measured: 88.8% on average, 88.0-90.0%, exactly 89.5% on 5 seeds (as a
    // restatement over exported workloads found).
    assert!(
        (0.88..=0.90).contains(&mean),
        "mean over seeds 1-20: {mean}"
    );
    assert_eq!(rates.iter().filter(|&&r| r == 0.895).count(), 5);
    // The exact view on the same workload: 85.0%, the in-flight term outweighing a miss.
    let exact = api::synthetic_simulation(&Config::default())
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(exact.hit_rate_requests, 0.85);
}

/// Configs of every new mode whose reports are kept as goldens; the wasm test
/// (`tests/wasm_api.rs`) runs the same configs in Chromium and compares byte for byte.
const MODE_GOLDENS: [(&str, &str); 4] = [
    ("offline", r#"{"router_view":"offline"}"#),
    (
        "snapshot",
        r#"{"router_view":"snapshot","kv_event_lag_ms":20,"router_predict_ttl_ms":200,"arrival_model":"gamma","burstiness":0.3}"#,
    ),
    (
        "routers",
        r#"{"router_view":"snapshot","routers":4,"router_refresh_ms":100,"arrival_model":"gamma","burstiness":0.3,"num_requests":400,"instances":8}"#,
    ),
    (
        "sessions",
        r#"{"workload":"sessions","num_sessions":20,"turns":4,"routing":"sticky","routers":3,"router_view":"snapshot","spill_queue":2}"#,
    ),
];

#[test]
fn every_mode_is_byte_identical_across_runs_and_matches_its_golden() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/views");
    for (name, config) in MODE_GOLDENS {
        let first = api::run_json(config).unwrap();
        assert_eq!(
            api::run_json(config).unwrap(),
            first,
            "{name}: a second run"
        );
        let path = format!("{dir}/{name}.json");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &first).unwrap();
        }
        let golden = std::fs::read_to_string(&path).unwrap();
        assert!(
            first == golden,
            "{name}: report changed; rerun with UPDATE_GOLDEN=1 if intended"
        );
    }
}

/// The page's decision table: a `Job` logging requests 40..60 of a four-router snapshot run.
const DECISIONS_CONFIG: &str = r#"{"router_view":"snapshot","routers":4,"router_refresh_ms":100,"arrival_model":"gamma","burstiness":0.3,"num_requests":400,"instances":8}"#;

#[test]
fn a_job_logs_a_range_of_decisions_as_the_full_log_has_them() {
    let mut job = api::Job::synthetic(DECISIONS_CONFIG).unwrap();
    job.record_decisions(40, 20).unwrap();
    while !job.advance(1000) {}
    let range = job.decisions_json();
    let cfg = api::parse_config(DECISIONS_CONFIG).unwrap();
    let mut sim = api::synthetic_simulation(&cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let all = sim.take_decisions();
    assert_eq!(range, serde_json::to_string(&all[40..60]).unwrap());
    assert_eq!(
        job.report_json(),
        sim.into_report().to_json(),
        "logging changes no number"
    );
    // Routers take arrivals in turn, and some candidate saw a stale value.
    let logged: Vec<serde_json::Value> = serde_json::from_str(&range).unwrap();
    let routers: Vec<u64> = logged
        .iter()
        .map(|d| d["router"].as_u64().unwrap())
        .collect();
    assert_eq!(routers[..4], [0, 1, 2, 3]);
    assert!(all.iter().any(|d| d
        .candidates
        .iter()
        .any(|c| c.waiting != c.true_waiting || c.active_blocks != c.true_active_blocks)));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/views");
    let path = format!("{dir}/decisions.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &range).unwrap();
    }
    assert!(
        range == std::fs::read_to_string(&path).unwrap(),
        "decisions changed"
    );
    let err = api::Job::synthetic("{}")
        .unwrap()
        .record_decisions(0, 10_001)
        .unwrap_err();
    assert_eq!(
        err,
        "decisions: invalid count: got 10001; allowed: 0 to 10000 records"
    );
}
