//! The fleet's shared KV tier worked by hand: a prefix one replica evicted is loaded by
//! another over its network link (the load's time charged before the prefill), and a
//! demotion chain HBM -> CPU tier -> shared tier whose two loads run at once. Then
//! properties: a shared tier of 0 blocks reports byte for byte as none; with an unbounded
//! shared tier every block ever computed is reached again (its request's leading run,
//! computed here by an independent model of the fleet's caches); and a shared tier keeps
//! every request ending once under every policy. The book's Mooncake comparison is
//! measured in tests/mooncake_comparison.rs.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashSet;

use kvfleet::sim::Decision;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, fuzzing, params, Admission, Config, Policy, Request, WorkloadKind};

/// Replicas of 3 blocks of 4 tokens; a step costs 1,000 µs plus 100 µs per prefill
/// token. A block is 4 tokens x 1,000 B = 4,000 B. The network link moves 1 GB/s (1,000
/// B per µs) after a fixed 100 µs per load.
fn config(instances: u32, shared_kv_blocks: Option<u64>) -> Config {
    Config {
        instances,
        routing: Policy::RoundRobin,
        block_size: 4,
        kv_blocks: Some(3),
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 100.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        kv_bytes_per_token: Some(1000),
        shared_kv_blocks,
        shared_gbps: 1.0,
        shared_latency_us: 100.0,
        ..Config::default()
    }
}

/// 9 prompt tokens (2 full blocks `a`, `b` and a partial one), 1 output token.
fn request(id: u32, arrival_us: u64, a: u64, b: u64) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens: 9,
        output_tokens: 1,
        block_ids: vec![a, b, 100 + id as u64].into(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

fn run(cfg: &Config, requests: Vec<Request>) -> (kvfleet::Report, Vec<Decision>) {
    let mut sim = api::replay_simulation(cfg, requests, "worked").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (sim.into_report(), d)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// A (1, 2) and B (5, 6) at 0, D (11, 12) at 2,000 µs, E (1, 2 again) at 2,500 µs.
fn four() -> Vec<Request> {
    vec![
        request(0, 0, 1, 2),
        request(1, 0, 5, 6),
        request(2, 2000, 11, 12),
        request(3, 2500, 1, 2),
    ]
}

// By hand. Two replicas, round robin: A and D on replica 0, B and E on replica 1. Each
// request holds ceil((9 + 1) / 4) = 3 blocks, a whole cache.
//
// t=0      A (replica 0) and B (replica 1) prefill 9 tokens: 1000 + 900 = 1900 µs.
// t=1900   Both end; 1, 2 stay cached on replica 0, 5, 6 on replica 1 (evictable).
// t=2000   D is admitted on replica 0: its 3 blocks evict 2 then 1 (tail first), which
//          replica 0 writes to the shared tier (2 x 4000 B).
// t=2500   E on replica 1: no HBM hit there; at most (9 - 1) / 4 = 2 blocks reusable,
//          and 1, 2 are in the shared tier: one load of 8000 B over replica 1's link,
//          100 + 8000 / 1000 = 108 µs, 2500..2608. Admitting E evicts 6 then 5, which
//          replica 1 writes to the shared tier. E computes nothing until 2608.
// t=2608   E prefills its last token: 1000 + 100 = 1100 µs, to 3708: TTFT 1208 µs.
// Without the shared tier E prefills all 9 tokens at 2500: TTFT 1900 µs.
#[test]
fn a_prefix_another_replica_evicted_is_loaded_from_the_shared_tier() {
    let (r, d) = run(&config(2, Some(10)), four());
    assert_eq!(d.iter().map(|x| x.chosen).collect::<Vec<_>>(), [0, 1, 0, 1]);
    assert_eq!(d[3].cached_blocks, Some(2));
    assert!(close(d[3].admit_s.unwrap(), 0.0025), "{:?}", d[3].admit_s);
    assert!(close(d[3].ttft_ms.unwrap(), 1.208), "{:?}", d[3].ttft_ms);
    let s = r
        .summary
        .shared_tier
        .as_ref()
        .expect("a shared tier reports");
    // 2 blocks x 4 tokens from the shared tier, none from HBM; 8 of 36 prompt tokens.
    assert_eq!(
        (s.hbm_hit_tokens, s.cpu_hit_tokens, s.shared_hit_tokens),
        (0, 0, 8)
    );
    assert!(close(s.shared_hit_rate_tokens, 8.0 / 36.0));
    assert_eq!(
        r.summary.cached_tokens, 8,
        "the token hit rate counts any tier"
    );
    assert_eq!((s.loads, s.loaded_bytes), (1, 8000));
    assert!(close(s.load_ms, 0.108), "{}", s.load_ms);
    assert!(close(s.load_wait_ms, 0.0), "{}", s.load_wait_ms);
    // Written: 2, 1 by replica 0 and 6, 5 by replica 1; nothing dropped.
    assert_eq!((s.demoted_bytes, s.shared_evictions), (16_000, 0));
    let per: Vec<_> = r
        .per_instance
        .iter()
        .map(|p| p.shared_tier.clone())
        .collect();
    let (p0, p1) = (per[0].as_ref().unwrap(), per[1].as_ref().unwrap());
    assert_eq!((p0.shared_hit_tokens, p0.demoted_bytes), (0, 8000));
    assert_eq!(
        (p1.shared_hit_tokens, p1.loads, p1.demoted_bytes),
        (8, 1, 8000)
    );
    let text = kvfleet::report::text::render(&r);
    assert!(
        text.contains("Shared tier: 0 tok from HBM, 0 from CPU, 8 loaded from the shared tier (22.2% of prompt tokens) in 1 loads"),
        "{text}"
    );
}

// A shared tier of 1 block. At 2000 replica 0 writes 2 then 1: storing 1 drops 2. E
// finds block 1 there and not block 2: a run of 1 block, 100 + 4000 / 1000 = 104 µs
// (2500..2604), then it prefills 9 - 4 = 5 tokens, 1000 + 500 = 1500 µs: first token at
// 4104, TTFT 1604 µs. Admitting E, replica 1 writes 6 (dropping 1) then 5 (dropping 6).
#[test]
fn a_full_shared_tier_drops_its_least_recently_used_block_and_the_run_stops_there() {
    let (r, d) = run(&config(2, Some(1)), four());
    assert_eq!(d[3].cached_blocks, Some(1));
    assert!(close(d[3].ttft_ms.unwrap(), 1.604), "{:?}", d[3].ttft_ms);
    let s = r.summary.shared_tier.as_ref().unwrap();
    assert_eq!((s.shared_hit_tokens, s.loaded_bytes), (4, 4000));
    assert!(close(s.load_ms, 0.104), "{}", s.load_ms);
    // Replica 0's writes dropped 1 block, replica 1's 2.
    let dropped: Vec<u64> = r
        .per_instance
        .iter()
        .map(|p| p.shared_tier.as_ref().unwrap().shared_evictions)
        .collect();
    assert_eq!((dropped, s.shared_evictions), (vec![1, 2], 3));
    let text = kvfleet::report::text::render(&r);
    assert!(text.contains("shared evictions 3"), "{text}");
}

#[test]
fn without_the_shared_tier_the_other_replicas_prefix_is_prefilled() {
    let (r, d) = run(&config(2, None), four());
    assert_eq!(d[3].cached_blocks, Some(0));
    assert!(close(d[3].ttft_ms.unwrap(), 1.9), "{:?}", d[3].ttft_ms);
    assert!(r.summary.shared_tier.is_none());
    assert!(r.per_instance.iter().all(|p| p.shared_tier.is_none()));
}

// The chain, on one replica with a CPU tier of 1 block (1 GB/s, 100 µs per load) above a
// shared tier of 10 (1 GB/s, 200 µs). A (1, 2) and B (5, 6) at 0, C (1, 2) at 2,000 µs.
//
// t=1900   A ends; B's admission evicts 2 then 1 from HBM into the CPU tier: storing 1
//          drops 2 (least recently written), which goes on to the shared tier.
// t=3800   B ends. C: no HBM hit; block 1 is in the CPU tier (a load of 100 + 4 = 104
//          µs over PCIe, 3800..3904) and block 2 in the shared tier (200 + 4 = 204 µs over
//          the network, 3800..4004): the two run at once, so C waits until 4004. Admitting
//          C evicts 6 then 5 into the emptied CPU tier: storing 5 drops 6 to the shared
//          tier.
// t=4004   C prefills its last token, 1100 µs: first token at 5104, TTFT 3104 µs.
#[test]
fn a_block_demoted_hbm_to_cpu_to_shared_is_loaded_from_both_tiers_at_once() {
    let cfg = Config {
        cpu_kv_blocks: Some(1),
        cpu_load_gbps: 1.0,
        cpu_load_base_us: 100.0,
        shared_latency_us: 200.0,
        ..config(1, Some(10))
    };
    let three = vec![
        request(0, 0, 1, 2),
        request(1, 0, 5, 6),
        request(2, 2000, 1, 2),
    ];
    let (r, d) = run(&cfg, three);
    assert_eq!(d[2].cached_blocks, Some(2));
    assert!(close(d[2].ttft_ms.unwrap(), 3.104), "{:?}", d[2].ttft_ms);
    let s = r.summary.shared_tier.as_ref().unwrap();
    assert_eq!(
        (s.hbm_hit_tokens, s.cpu_hit_tokens, s.shared_hit_tokens),
        (0, 4, 4)
    );
    assert!(close(s.load_ms, 0.204), "{}", s.load_ms);
    // Written to the shared tier: 2 and 6.
    assert_eq!((s.demoted_bytes, s.shared_evictions), (8000, 0));
    let t = r.summary.cpu_tier.as_ref().unwrap();
    // The CPU tier's own split leaves the shared tier's tokens out of HBM's.
    assert_eq!((t.hbm_hit_tokens, t.cpu_hit_tokens), (0, 4));
    assert!(close(t.load_ms, 0.104), "{}", t.load_ms);
    // HBM evicted 2, 1, 6, 5; the CPU tier dropped 2 and 6 (to the shared tier).
    assert_eq!((t.hbm_evictions, t.cpu_evictions), (4, 2));
}

// A block loaded from a tier is resident in HBM once the request's first chunk runs: a
// later request on the same replica finds it there. Replica 1 after E (above): E's
// blocks 1, 2 are cached in its HBM; F (1, 2) on replica 1 at 10,000 µs hits them in HBM
// and loads nothing.
#[test]
fn a_loaded_block_is_then_a_hit_in_hbm() {
    let mut five = four();
    five.push(request(4, 10_000, 20, 21));
    five.push(request(5, 10_000, 1, 2));
    let (r, d) = run(&config(2, Some(10)), five);
    assert_eq!((d[5].chosen, d[5].cached_blocks), (1, Some(2)));
    let s = r.summary.shared_tier.unwrap();
    assert_eq!((s.loads, s.hbm_hit_tokens, s.shared_hit_tokens), (1, 8, 8));
}

/// A pool workload in caches just large enough: evictions happen, so the shared tier
/// has work to do.
fn tight(routing: Policy, workload: WorkloadKind, admission: Admission) -> Config {
    Config {
        instances: 3,
        routing,
        workload,
        num_requests: 60,
        request_rate: 40.0,
        input_len: 1500,
        output_len: 40,
        num_prefixes: 6,
        prefix_len: 1024,
        num_sessions: 4,
        turns: 3,
        turn_input_len: 300,
        turn_output_len: 40,
        system_prompt_len: 1024,
        range_ratio: 0.0,
        block_size: 64,
        admission,
        // The longest request: a third turn of 1024 + 3 x (300 + 40) tokens, 33 blocks.
        kv_blocks: Some(40),
        ..Config::default()
    }
}

#[test]
fn a_shared_tier_of_zero_reports_byte_for_byte_as_none() {
    for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
        for cpu in [None, Some(8)] {
            let none = Config {
                cpu_kv_blocks: cpu,
                ..tight(Policy::Kv, workload, Admission::Reserve)
            };
            let zero = Config {
                shared_kv_blocks: Some(0),
                shared_gbps: 3.0,
                ..none.clone()
            };
            let a = api::synthetic_simulation(&none).unwrap().into_report();
            let b = api::synthetic_simulation(&zero).unwrap().into_report();
            assert!(a.summary.evictions > 0, "the cache must evict");
            let json = |r: &kvfleet::Report| {
                let mut v = serde_json::to_value(r).unwrap();
                // The config echoes the (inert) bandwidth; the results must not differ.
                v["config"]["shared_gbps"] = serde_json::Value::Null;
                v["config"]["shared_kv_blocks"] = serde_json::Value::Null;
                v.to_string()
            };
            assert_eq!(json(&a), json(&b));
            let plain = Config {
                shared_kv_blocks: Some(0),
                ..none.clone()
            };
            let c = api::synthetic_simulation(&plain).unwrap().into_report();
            assert_eq!(a.to_json(), c.to_json());
        }
    }
}

/// Three full blocks drawn from a tree of prefixes (ids encode the path, so equal ids
/// mean equal content up to there), a unique partial block; 13 prompt tokens and 1
/// output token: 4 blocks of 4, a whole cache of 4 blocks. Arrivals 1 s apart, so each
/// request ends before the next arrives.
fn tree_requests(seed: u64, n: u32) -> Vec<Request> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut draw = |k: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % k + 1
    };
    (0..n)
        .map(|id| {
            let a = draw(3);
            let b = a * 10 + draw(3);
            let c = b * 10 + draw(2);
            Request {
                id,
                arrival_us: id as u64 * 1_000_000,
                prompt_tokens: 13,
                output_tokens: 1,
                block_ids: vec![a, b, c, 1_000_000 + id as u64].into(),
                session: None,
                output_block_ids: Vec::new(),
            }
        })
        .collect()
}

/// The independent model of an unbounded shared tier under round robin, each request
/// running alone and filling its replica's cache: a replica's HBM holds its last
/// request's 3 full blocks; every block a replica held before is in the shared tier.
/// A request's hit is the leading run of its 3 blocks found in its replica's HBM or the
/// shared tier.
fn expected_hits(requests: &[Request], instances: usize) -> Vec<u32> {
    let mut hbm: Vec<Vec<u64>> = vec![Vec::new(); instances];
    let mut shared: HashSet<u64> = HashSet::new();
    let mut hits = Vec::new();
    for (k, req) in requests.iter().enumerate() {
        let r = k % instances;
        let full = &req.block_ids[..3];
        let reach = |id: &u64| hbm[r].contains(id) || shared.contains(id);
        hits.push(full.iter().take_while(|id| reach(id)).count() as u32);
        shared.extend(hbm[r].iter().filter(|id| !full.contains(id)));
        hbm[r] = full.to_vec();
    }
    hits
}

#[test]
fn with_an_unbounded_shared_tier_every_computed_block_is_reached_again() {
    for instances in [1u32, 2, 3] {
        for seed in 0..6 {
            let requests = tree_requests(seed, 40);
            let want = expected_hits(&requests, instances as usize);
            let cfg = Config {
                kv_blocks: Some(4),
                shared_kv_blocks: Some(1_000_000_000),
                ..config(instances, None)
            };
            let (r, d) = run(&cfg, requests.clone());
            let got: Vec<u32> = d.iter().map(|x| x.cached_blocks.unwrap()).collect();
            assert_eq!(got, want, "instances {instances}, seed {seed}");
            assert!(r.summary.shared_tier.unwrap().shared_hit_tokens > 0);
            // With one replica every block computed before is reached: the hit is the
            // leading run of blocks any earlier request held.
            if instances == 1 {
                let mut seen: HashSet<u64> = HashSet::new();
                for (req, &h) in requests.iter().zip(&got) {
                    let run = req.block_ids[..3]
                        .iter()
                        .take_while(|id| seen.contains(id))
                        .count();
                    assert_eq!(h as usize, run, "seed {seed}");
                    seen.extend(&req.block_ids[..3]);
                }
            }
        }
    }
}

#[test]
fn a_shared_tier_keeps_every_request_ending_once_under_every_policy() {
    let mut loaded = 0;
    for routing in Policy::ALL {
        for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
            for admission in Admission::ALL {
                for (cpu, shared) in [(None, 4), (None, 100_000), (Some(4), 16)] {
                    let cfg = Config {
                        cpu_kv_blocks: cpu,
                        shared_kv_blocks: Some(shared),
                        ..tight(routing, workload, admission)
                    };
                    params::validate(&cfg).unwrap();
                    fuzzing::run(&cfg);
                    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
                    let s = r.summary.shared_tier.unwrap();
                    assert_eq!(
                        s.hbm_hit_tokens + s.cpu_hit_tokens + s.shared_hit_tokens,
                        r.summary.cached_tokens
                    );
                    loaded += s.loads;
                }
            }
        }
    }
    assert!(loaded > 50, "{loaded} loads in all");
}

// What the router sees. Two replicas with CPU tiers of 10 blocks, no shared tier, `kv`
// routing with overlap weight 2. A (1, 2) goes to replica 0 and B (5, 6) to replica 1
// (replica 0 is loaded); D (11, 12) at 2,000 µs to replica 0 (the lower recent load:
// A's charge has decayed once more than B's), whose admission demotes 1, 2 to its CPU
// tier. E (1, 2) at 4,000 µs, both replicas idle. Recent loads (x 0.97 per pick, then
// the pick's 2 blocks): replica 0 (2 x 0.97) x 0.97 + 2 = 3.8818,
// replica 1 2 x 0.97 = 1.94. Counting HBM only, neither holds E's prefix: costs
// 2 x 2 + 3.8818 = 7.8818 and 2 x 2 + 1.94 = 5.94, replica 1 wins and E prefills all 9
// tokens. Counting every tier, replica 0 holds both of E's blocks (in its CPU tier):
// 2 x 0 + 3.8818 against 5.94, so E goes there and loads them.
#[test]
fn a_router_that_sees_the_tiers_sends_the_prefix_where_it_was_offloaded() {
    let picks = |tiers: kvfleet::RouterTiers| {
        let cfg = Config {
            routing: Policy::Kv,
            overlap_weight: 2.0,
            cpu_kv_blocks: Some(10),
            cpu_load_gbps: 1.0,
            cpu_load_base_us: 100.0,
            router_tiers: tiers,
            ..config(2, None)
        };
        let mut requests = four();
        requests[3].arrival_us = 4000;
        let (r, d) = run(&cfg, requests);
        let chosen: Vec<u32> = d.iter().map(|x| x.chosen).collect();
        assert_eq!(chosen[..3], [0, 1, 0]);
        let seen: Vec<u32> = d[3].candidates.iter().map(|c| c.hit_blocks).collect();
        let cost: Vec<f64> = d[3].candidates.iter().map(|c| c.cost).collect();
        let want = if tiers == kvfleet::RouterTiers::All {
            [3.8818, 5.94]
        } else {
            [7.8818, 5.94]
        };
        assert!(
            close(cost[0], want[0]) && close(cost[1], want[1]),
            "{cost:?}"
        );
        (
            d[3].chosen,
            d[3].cached_blocks,
            seen,
            r.summary.cached_tokens,
        )
    };
    assert_eq!(
        picks(kvfleet::RouterTiers::Hbm),
        (1, Some(0), vec![0, 0], 0)
    );
    assert_eq!(
        picks(kvfleet::RouterTiers::All),
        (0, Some(2), vec![2, 0], 8)
    );
}
