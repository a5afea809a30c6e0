//! The disaggregated fleet's edges, each worked by hand: the skip rule's count of cached
//! tokens (the last prompt token is always computed), a transfer that lands exactly at
//! the caller's timeout, least-KV decode routing once a transfer has landed, decode
//! round robin over three replicas, doneness while a transfer is on the wire, and the
//! order of two prefill steps that end in the same microsecond.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::{Decision, Simulation};
use kvfleet::timing::EnginePreset;
use kvfleet::workload::Request;
use kvfleet::{api, ArrivalModel, Config, DecodeRouting, Policy, Report, TieBreak};

/// A custom engine whose step is 1000 µs + 1 µs per prefill token + 10 µs per decoding
/// sequence, and a link of 1 GB/s (1000 bytes per µs) after a 1000 µs setup, 1000 KV
/// bytes per token: a prompt of P tokens prefills in 1000 + P µs and crosses in
/// 1000 + P µs. Requests 1 s apart, one prefill replica.
fn edge(decode: u32) -> Config {
    Config {
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 1.0,
        decode_seq_us: 10.0,
        kv_read_token_ns: 0.0,
        num_requests: 1,
        input_len: 1000,
        output_len: 2,
        num_prefixes: 0,
        prefix_len: 0,
        block_size: 16,
        arrival_model: ArrivalModel::Deterministic,
        request_rate: 1.0,
        routing: Policy::RoundRobin,
        instances: 1 + decode,
        prefill_instances: Some(1),
        decode_instances: Some(decode),
        kv_transfer_gbps: 1.0,
        kv_transfer_base_us: 1000.0,
        kv_bytes_per_token: Some(1000),
        ..Config::default()
    }
}

fn run_logged(cfg: &Config) -> (Vec<Decision>, Report) {
    let mut sim = api::synthetic_simulation(cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (d, sim.into_report())
}

/// Requests each replica served, decode replicas only (the prefill replica is index 0).
fn decode_requests(r: &Report) -> Vec<u64> {
    r.per_instance[1..].iter().map(|x| x.requests).collect()
}

#[test]
fn a_prompt_of_whole_blocks_still_computes_its_last_block() {
    // Two requests on one 992-token prefix and nothing else: 62 whole blocks. The second
    // finds all 62 on the prefill replica, but the engine recomputes the block holding
    // the last prompt token, so only 991 / 16 = 61 blocks (976 tokens) count as cached:
    // 16 tokens left to compute. It skips the prefill pool only when the threshold is
    // above 16.
    for (threshold, skips) in [(16, 0), (17, 1)] {
        let cfg = Config {
            num_requests: 2,
            input_len: 992,
            num_prefixes: 1,
            prefix_len: 992,
            disagg_min_uncached_tokens: threshold,
            ..edge(1)
        };
        let (d, r) = run_logged(&cfg);
        let p = r.pools.as_ref().unwrap();
        assert_eq!(p.skipped_prefill, skips, "threshold {threshold}");
        assert_eq!(p.transfers.count, 2 - skips, "threshold {threshold}");
        assert_eq!(r.summary.completed, 2);
        if skips == 0 {
            // On the prefill replica: 61 blocks hit, one step of 1000 + 16 µs, then the
            // transfer of all 992 tokens: 1000 + 992 µs. TTFT 3008 µs.
            assert_eq!(d[1].cached_blocks, Some(61));
            assert_eq!(d[1].ttft_ms, Some(3.008));
        }
    }
}

#[test]
fn a_transfer_that_lands_exactly_at_the_timeout_is_in_time() {
    // One 1000-token request: prefill 2000 µs, transfer 2000 µs, first token at 4000 µs.
    // A 4 ms timeout is met (late means strictly after); 3.999 ms is missed, and the
    // prefill replica still lets the prompt go.
    for (timeout_ms, late) in [(4.0, 0), (3.999, 1)] {
        let cfg = Config {
            timeout_ms: Some(timeout_ms),
            ..edge(1)
        };
        let (d, r) = run_logged(&cfg);
        let p = r.pools.as_ref().unwrap();
        assert_eq!(p.transfers.count, 1, "timeout {timeout_ms}");
        assert_eq!(p.transfers.late, late, "timeout {timeout_ms}");
        assert_eq!(r.summary.timed_out, late, "timeout {timeout_ms}");
        assert_eq!(r.summary.completed, 1 - late, "timeout {timeout_ms}");
        assert_eq!(d[0].timed_out, late == 1);
        if late == 0 {
            assert_eq!(d[0].ttft_ms, Some(4.0));
        }
    }
}

#[test]
fn least_kv_forgets_a_transfer_once_it_lands() {
    // Two decode replicas, requests 1 s apart that finish long before the next arrives.
    // Each time both decode replicas hold nothing and expect nothing, so under
    // `tie_break: lowest` the tie goes to the lower index: replica 1 serves both. (A
    // transfer still counted as incoming after it landed would send the second to
    // replica 2.) How the default rule draws such ties: tests/tie_break.rs.
    let cfg = Config {
        num_requests: 2,
        decode_routing: DecodeRouting::LeastKv,
        tie_break: TieBreak::Lowest,
        ..edge(2)
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(r.summary.completed, 2);
    assert_eq!(decode_requests(&r), vec![2, 0]);
}

#[test]
fn decode_round_robin_cycles_through_three_replicas() {
    // Seven requests take decode replicas 1, 2, 3, 1, 2, 3, 1 in turn.
    let cfg = Config {
        num_requests: 7,
        decode_routing: DecodeRouting::RoundRobin,
        ..edge(3)
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(decode_requests(&r), vec![3, 2, 2]);
    let cfg = Config {
        num_requests: 5,
        ..cfg
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(decode_requests(&r), vec![2, 2, 1]);
}

#[test]
fn the_run_is_not_done_while_a_transfer_is_on_the_wire() {
    // One request: event 1 is its arrival, event 2 the prefill step's end, which puts
    // the prompt on the link. Nothing else is pending then but the transfer.
    let mut sim = api::synthetic_simulation(&edge(1)).unwrap();
    assert!(!sim.advance(2), "two events cannot finish the run");
    assert!(!sim.is_done(), "a transfer is still on the wire");
    assert!(sim.progress() < 1.0);
    sim.run_to_end();
    assert!(sim.is_done());
    assert_eq!(sim.progress(), 1.0);
    let r = sim.into_report();
    assert_eq!(r.summary.completed, 1);
    assert_eq!(r.pools.as_ref().unwrap().transfers.count, 1);
}

fn request(id: u32, arrival_us: u64, prompt_tokens: u32) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens,
        output_tokens: 3,
        block_ids: Default::default(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

#[test]
fn steps_ending_in_the_same_microsecond_run_in_the_order_they_were_scheduled() {
    // Two prefill replicas by round robin, two decode replicas by round robin; three
    // tokens out, so two decode steps of 1010 µs each.
    // R0 (16 tokens, t 0) on prefill 0 ends at 1016 µs and takes decode replica 2,
    // where it lands at 2032 and decodes until 4052.
    // R1 (1016 tokens, t 1000) on prefill 1: its step, scheduled at 1000 µs, ends at
    // 1000 + 1000 + 1016 = 3016 µs. R2 (16 tokens, t 2000) on prefill 0: its step,
    // scheduled later (2000 µs), ends at 2000 + 1000 + 16 = 3016 µs too. The earlier
    // scheduled step ends first, so R1 takes decode replica 3 and R2 replica 2.
    // R2 lands on replica 2 at 3016 + 1016 = 4032, waits for R0's step to end at 4052,
    // and finishes at 4052 + 2 x 1010 = 6072: e2e 4072 µs. (On the idle replica 3 it
    // would finish at 6052.) R1 lands on the idle replica 3 at 3016 + 2016 = 5032 and
    // finishes at 7052: e2e 6052 µs.
    let cfg = Config {
        instances: 4,
        prefill_instances: Some(2),
        decode_instances: Some(2),
        decode_routing: DecodeRouting::RoundRobin,
        ..edge(2)
    };
    let requests = vec![
        request(0, 0, 16),
        request(1, 1000, 1016),
        request(2, 2000, 16),
    ];
    let mut sim: Simulation = api::replay_simulation(&cfg, requests, "three").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    let e2e_ms: Vec<Option<f64>> = d.iter().map(|x| x.e2e_ms).collect();
    assert_eq!(e2e_ms, vec![Some(4.052), Some(6.052), Some(4.072)]);
    assert_eq!(decode_requests(&sim.into_report())[1..], [2, 1]);
}
