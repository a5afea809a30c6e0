//! The accounting invariants over random valid configs: every policy, both workloads,
//! queue capacities including 0, timeouts, bounded caches, every router view and
//! several routers. Each run is checked by
//! `kvfleet::fuzzing::run`: requests = completed + rejected + timed out; completed
//! requests have TTFT <= timeout; hit rates in [0, 1]; cached <= prompt tokens;
//! per-replica sums equal fleet totals; percentiles monotone; no NaN or null where a
//! number is due; the queue and affinity rules in the decision log; the same seed gives
//! the same bytes.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::config::{ArrivalModel, Config, Policy, RouterView, WorkloadKind};
use kvfleet::{fuzzing, params};
use proptest::prelude::*;

/// The smallest cache the longest request fits in.
fn needed_blocks(cfg: &Config) -> u64 {
    let (prompt, output) = match cfg.workload {
        WorkloadKind::Pool => params::max_lengths(cfg),
        WorkloadKind::Sessions => params::session_max_lengths(cfg),
    };
    (prompt + output).div_ceil(cfg.block_size as u64)
}

/// A small run of `routing` on `workload` under the given admission settings.
fn small(
    routing: Policy,
    workload: WorkloadKind,
    queue_capacity: Option<u32>,
    timeout_ms: Option<f64>,
    bounded: bool,
) -> Config {
    let mut cfg = Config {
        routing,
        workload,
        queue_capacity,
        timeout_ms,
        num_requests: 40,
        request_rate: 40.0,
        instances: 3,
        max_batch: 2,
        input_len: 1500,
        output_len: 30,
        prefix_len: 1024,
        num_sessions: 5,
        turns: 4,
        session_rate: 10.0,
        turn_input_len: 300,
        turn_output_len: 40,
        think_time_ms: 20.0,
        system_prompt_len: 1024,
        spill_queue: 1,
        ..Config::default()
    };
    if bounded {
        cfg.kv_blocks = Some(needed_blocks(&cfg) + 3);
    }
    cfg
}

#[test]
fn every_policy_workload_and_admission_setting_keeps_the_invariants() {
    for routing in Policy::ALL {
        for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
            for queue in [None, Some(0), Some(2)] {
                for timeout in [None, Some(120.0)] {
                    for bounded in [false, true] {
                        let cfg = small(routing, workload, queue, timeout, bounded);
                        params::validate(&cfg).unwrap();
                        fuzzing::run(&cfg);
                    }
                }
            }
        }
    }
}

/// Every view mode (a live snapshot and a stale one), with one router and with three.
#[test]
fn every_router_view_and_router_count_keeps_the_invariants() {
    let views = [
        (RouterView::Exact, 0.0, 0.0, 0.0),
        (RouterView::Exact, 0.0, 0.0, 30.0),
        (RouterView::Offline, 0.0, 0.0, 0.0),
        (RouterView::Snapshot, 0.0, 0.0, 0.0),
        (RouterView::Snapshot, 20.0, 10.0, 30.0),
    ];
    for routing in Policy::ALL {
        for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
            for (view, refresh, lag, ttl) in views {
                for routers in [1, 3] {
                    let cfg = Config {
                        router_view: view,
                        router_refresh_ms: refresh,
                        kv_event_lag_ms: lag,
                        router_predict_ttl_ms: ttl,
                        routers,
                        ..small(routing, workload, Some(2), None, false)
                    };
                    params::validate(&cfg).unwrap();
                    fuzzing::run(&cfg);
                }
            }
        }
    }
}

fn policy() -> impl Strategy<Value = Policy> {
    prop::sample::select(Policy::ALL.to_vec())
}

fn arrival() -> impl Strategy<Value = ArrivalModel> {
    prop::sample::select(vec![
        ArrivalModel::Poisson,
        ArrivalModel::Deterministic,
        ArrivalModel::Gamma,
    ])
}

prop_compose! {
    fn random_config()(
        seed in 0u64..(1 << 53),
        routing in policy(),
        sessions in prop::bool::weighted(0.3),
        instances in 1u32..6,
        num_requests in 1u32..60,
        rate in 0.5f64..400.0,
        arrival_model in arrival(),
        burstiness in 0.1f64..4.0,
        input_len in 1u32..5000,
        output_len in 1u32..300,
        range_ratio in prop::sample::select(vec![0.0, 0.2, 0.8]),
        num_prefixes in 0u32..10,
        block_size in prop::sample::select(vec![16u32, 64, 128, 512]),
        max_batch in 1u32..8,
        budget in prop::sample::select(vec![64u32, 512, 8192]),
        queue in prop::option::of(0u32..4),
        timeout in prop::option::of(1.0f64..3000.0),
        spare_blocks in prop::option::of(0u64..50),
        affinity in prop::option::of(0.0f64..100.0),
        spill in 0u32..4,
        turns in 1u32..6,
        tasks in 1u32..8,
        turn_input in 1u32..800,
        think in 0.0f64..500.0,
        view in prop::sample::select(vec![RouterView::Exact, RouterView::Offline, RouterView::Snapshot]),
        refresh in prop::sample::select(vec![0.0, 5.0, 50.0]),
        lag in prop::sample::select(vec![0.0, 20.0]),
        ttl in prop::sample::select(vec![0.0, 100.0]),
        routers in 1u32..4,
    ) -> Config {
        let shortest = (input_len as f64 * (1.0 - range_ratio)).floor() as u32;
        let mut cfg = Config {
            seed,
            routing,
            workload: if sessions { WorkloadKind::Sessions } else { WorkloadKind::Pool },
            instances,
            num_requests,
            request_rate: rate,
            arrival_model,
            burstiness,
            input_len,
            output_len,
            range_ratio,
            num_prefixes,
            prefix_len: (shortest / 2).max(1),
            block_size,
            max_batch,
            max_batched_tokens: budget,
            queue_capacity: queue,
            timeout_ms: timeout,
            session_affinity: affinity,
            spill_queue: spill,
            turns,
            num_sessions: tasks,
            turn_input_len: turn_input,
            turn_output_len: output_len.min(200),
            think_time_ms: think,
            system_prompt_len: 512,
            router_view: view,
            router_refresh_ms: refresh,
            kv_event_lag_ms: lag,
            router_predict_ttl_ms: ttl,
            routers,
            ..Config::default()
        };
        cfg.kv_blocks = spare_blocks.map(|spare| needed_blocks(&cfg) + spare);
        cfg
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_valid_configs_keep_the_invariants(cfg in random_config()) {
        prop_assert!(params::validate(&cfg).is_ok(), "{:?}", params::validate(&cfg));
        fuzzing::run(&cfg);
    }
}
