//! Nothing lost in a split fleet, each case worked by hand: predict on route over the
//! prefill pool (it used to index past the routers' predictions), and a decode replica
//! that admits a prefilled one-token request and retires it in the same step boundary
//! (the slot and blocks it freed used to go to nobody, leaving the next request waiting
//! on an idle replica for ever).
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::Simulation;
use kvfleet::timing::EnginePreset;
use kvfleet::workload::Request;
use kvfleet::{api, ArrivalModel, Config, Policy, Report, RouterView};

/// A custom engine whose step is 1000 µs + 1 µs per prefill token + 10 µs per decoding
/// sequence, and a link of 1000 bytes per µs after a 1000 µs setup, 1000 KV bytes per
/// token: a 1000-token prompt prefills in 2000 µs and crosses in 2000 µs. One slot per
/// replica, one prefill and one decode replica.
fn split() -> Config {
    Config {
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 1.0,
        decode_seq_us: 10.0,
        kv_read_token_ns: 0.0,
        block_size: 16,
        arrival_model: ArrivalModel::Deterministic,
        routing: Policy::RoundRobin,
        instances: 2,
        prefill_instances: Some(1),
        decode_instances: Some(1),
        max_batch: 1,
        kv_transfer_gbps: 1.0,
        kv_transfer_base_us: 1000.0,
        kv_bytes_per_token: Some(1000),
        ..Config::default()
    }
}

fn request(id: u32, arrival_us: u64, output_tokens: u32) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens: 1000,
        output_tokens,
        block_ids: Default::default(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

/// Per request: (TTFT, end-to-end), µs.
fn run(cfg: &Config, requests: Vec<Request>) -> (Vec<(u64, u64)>, Report) {
    let mut sim: Simulation = api::replay_simulation(cfg, requests, "three").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let us = |ms: Option<f64>| (ms.expect("the request completed") * 1000.0).round() as u64;
    let times = sim
        .take_decisions()
        .iter()
        .map(|d| (us(d.ttft_ms), us(d.e2e_ms)))
        .collect();
    (times, sim.into_report())
}

fn three() -> Vec<Request> {
    vec![request(0, 0, 10), request(1, 1, 1), request(2, 2, 1)]
}

#[test]
fn one_token_answers_waiting_behind_a_long_one_all_finish_when_the_slot_frees() {
    // Prefill, one at a time: R0 0-2000, R1 2000-4000, R2 4000-6000; each crosses the
    // link in 2000 µs, landing at 4000, 6000 and 8000 (the first token's time).
    // Decode: R0 runs its 9 remaining tokens at 1010 µs each, 4000-13090. R1 and R2 wait
    // for the one slot. At 13090 R0 ends; R1 is admitted with its one token already out
    // and ends at once, and the slot it frees goes to R2, which ends at once too.
    let (times, r) = run(&split(), three());
    assert_eq!(times, [(4000, 13090), (5999, 13089), (7998, 13088)]);
    assert_eq!(r.summary.completed, 3);
    assert!(r.unended.is_none(), "{:?}", r.unended);
}

#[test]
fn the_same_when_kv_room_not_the_slot_holds_them_back() {
    // 64 blocks per replica, slots unbounded: a request needs 63 blocks on a prefill
    // replica (1000 tokens) and 64 on a decode replica (1000 + 10 tokens), so each
    // replica holds one request at a time. The prefill replica keeps R0's blocks until
    // its transfer lands at 4000, so R1 prefills 4000-6000 and lands at 8000; R2
    // prefills 8000-10000 and lands at 12000. Decode: R0 4000-13090 as before; then R1
    // and R2 in turn, both at 13090.
    let cfg = Config {
        max_batch: 64,
        kv_blocks: Some(64),
        ..split()
    };
    let (times, r) = run(&cfg, three());
    assert_eq!(times, [(4000, 13090), (7999, 13089), (11998, 13088)]);
    assert_eq!(r.summary.completed, 3);
    assert!(r.unended.is_none(), "{:?}", r.unended);
}

#[test]
fn conditional_disaggregation_under_load_ends_every_request() {
    // The run an outside check found losing 45 of 300: short answers, half the prompts
    // short enough to skip the prefill pool, one decode replica behind.
    let cfg = Config {
        prefill_instances: Some(2),
        decode_instances: Some(1),
        instances: 3,
        output_len: 1,
        range_ratio: 0.5,
        kv_blocks: Config::default().engine.kv_blocks(512),
        request_rate: 100.0,
        disagg_min_uncached_tokens: 3000,
        max_batch: 16,
        num_requests: 300,
        ..Config::default()
    };
    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
    let s = &r.summary;
    assert_eq!(s.requests, 300);
    assert_eq!(s.completed + s.rejected + s.timed_out, 300);
    assert!(r.unended.is_none(), "{:?}", r.unended);
}

#[test]
fn predict_on_route_extends_the_prefill_pool_s_hits_in_a_split_fleet() {
    // Two prefill replicas and one decode replica, a router that sees cache contents only
    // in snapshots refreshed every 10 s, and predictions kept 10 s: the second request
    // of the same 64-block prompt sees all 62 of its scorable blocks (the last prompt
    // token's block is never reused) predicted on the replica the first went to, though
    // neither replica has reported anything.
    let cfg = Config {
        routing: Policy::Kv,
        instances: 3,
        prefill_instances: Some(2),
        decode_instances: Some(1),
        max_batch: 8,
        router_view: RouterView::Snapshot,
        router_refresh_ms: 10_000.0,
        router_predict_ttl_ms: 10_000.0,
        ..split()
    };
    let ids: Vec<u64> = (100..163).collect();
    let requests = (0..2)
        .map(|i| Request {
            block_ids: ids.as_slice().into(),
            ..request(i, i as u64, 3)
        })
        .collect();
    let mut sim = api::replay_simulation(&cfg, requests, "two").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    let first = d[0].chosen as usize;
    let seen: Vec<u32> = d[1].candidates.iter().map(|c| c.hit_blocks).collect();
    let truth: Vec<u32> = d[1].candidates.iter().map(|c| c.true_hit_blocks).collect();
    let mut want = vec![0, 0];
    want[first] = 62;
    assert_eq!(seen, want, "the router's view: predicted blocks only");
    assert_eq!(truth, [0, 0], "nothing computed yet");
    assert_eq!(sim.into_report().summary.completed, 2);
}
