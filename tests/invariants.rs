//! The accounting invariants over random valid configs: every policy with its
//! parameters, both workloads, queue capacities including 0, timeouts, bounded caches,
//! every engine, every router view with predict on route and several routers, all
//! together, in colocated and split fleets (both pool sizes, every decode routing, the
//! skip threshold, fast and slow links, and a decode-bound shape where prefilled requests
//! queue for a decode replica), under both admission rules (tight caches that preempt
//! included). Each run is checked by `kvfleet::fuzzing::run`: every
//! request ends exactly once (requests = completed + rejected + timed out, and the
//! report's ledger is clean); completed requests have TTFT <= timeout; hit rates in
//! [0, 1]; cached <= prompt tokens; per-replica sums equal fleet totals; a split fleet's
//! pool identities (prefill.requests + skipped = requests, decode.requests = transfers -
//! late + skipped) and each pool ending what it took in; percentiles monotone; no NaN or
//! null where a number is due; the queue and affinity rules in the decision log; the same
//! seed gives the same bytes.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::config::{
    Admission, ArrivalModel, Autoscale, Config, DecodeRouting, Policy, RouterView, SglangMiss,
    WorkloadKind,
};
use kvfleet::sim::Unended;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, fuzzing, params, Report};
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
                        // Unbounded, the two rules run alike; bounded, both are run.
                        let rules = if bounded {
                            &Admission::ALL[..]
                        } else {
                            &[Admission::Preempt]
                        };
                        for &admission in rules {
                            let cfg = Config {
                                admission,
                                ..small(routing, workload, queue, timeout, bounded)
                            };
                            params::validate(&cfg).unwrap();
                            fuzzing::run(&cfg);
                        }
                    }
                }
            }
        }
    }
}

/// The `preempt` admission rule in caches from the smallest the longest request fits in
/// to a few blocks more, colocated and split (2 prefill, 1 decode replica), every policy,
/// both workloads, with and without a timeout: requests preempt one another (checked:
/// the runs do preempt), yet each ends exactly once and the counts add up.
#[test]
fn preemption_in_tight_caches_keeps_the_invariants() {
    let mut preempted = 0;
    for routing in Policy::ALL {
        for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
            for timeout in [None, Some(150.0)] {
                for (spare, split) in [(0, false), (5, false), (5, true)] {
                    let mut cfg = Config {
                        admission: Admission::Preempt,
                        max_batch: 8,
                        block_size: 64,
                        output_len: 300,
                        turn_output_len: 200,
                        ..small(routing, workload, None, timeout, false)
                    };
                    if split {
                        cfg.instances = 3;
                        cfg.prefill_instances = Some(2);
                        cfg.decode_instances = Some(1);
                    }
                    cfg.kv_blocks = Some(needed_blocks(&cfg) + spare);
                    params::validate(&cfg).unwrap();
                    fuzzing::run(&cfg);
                    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
                    preempted += r.summary.preemption.unwrap().preemptions;
                }
            }
        }
    }
    assert!(preempted > 20, "{preempted} preemptions in all");
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

/// Every policy and view (predict on route included) in a split fleet of 2 prefill and
/// 2 decode replicas, each decode routing in turn, with one router and with three.
#[test]
fn every_router_view_in_a_split_fleet_keeps_the_invariants() {
    let views = [
        (RouterView::Exact, 0.0, 0.0, 30.0),
        (RouterView::Offline, 0.0, 0.0, 30.0),
        (RouterView::Snapshot, 20.0, 10.0, 30.0),
    ];
    for (k, routing) in Policy::ALL.into_iter().enumerate() {
        for (view, refresh, lag, ttl) in views {
            for routers in [1, 3] {
                let cfg = Config {
                    router_view: view,
                    router_refresh_ms: refresh,
                    kv_event_lag_ms: lag,
                    router_predict_ttl_ms: ttl,
                    routers,
                    instances: 4,
                    prefill_instances: Some(2),
                    decode_instances: Some(2),
                    decode_routing: DecodeRouting::ALL[k % DecodeRouting::ALL.len()],
                    ..small(routing, WorkloadKind::Pool, Some(2), None, false)
                };
                params::validate(&cfg).unwrap();
                fuzzing::run(&cfg);
            }
        }
    }
}

/// A run of a split fleet of 2 prefill replicas and 1 decode replica in which short
/// prompts skip the prefill pool, long ones are transferred, and some time out.
fn split_run() -> (Config, Report) {
    let cfg = Config {
        instances: 3,
        prefill_instances: Some(2),
        decode_instances: Some(1),
        disagg_min_uncached_tokens: 1000,
        range_ratio: 0.8,
        num_prefixes: 0,
        ..small(Policy::Kv, WorkloadKind::Pool, None, Some(400.0), false)
    };
    let report = api::synthetic_simulation(&cfg).unwrap().into_report();
    (cfg, report)
}

fn check(cfg: &Config, r: &Report) {
    fuzzing::check_report(cfg, r, &r.to_json(), None);
}

#[test]
fn a_split_run_skips_transfers_and_keeps_the_invariants() {
    let (cfg, r) = split_run();
    let pools = r.pools.as_ref().expect("a split fleet has a pools report");
    assert!(
        pools.skipped_prefill > 0 && pools.transfers.count > 0,
        "{pools:?}"
    );
    assert!(pools.skipped_prefill < r.summary.requests);
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "prefill.requests")]
fn one_more_request_in_the_prefill_pool_breaks_its_identity() {
    let (cfg, mut r) = split_run();
    r.pools.as_mut().unwrap().prefill.requests += 1;
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "decode.requests")]
fn one_request_fewer_in_the_decode_pool_breaks_its_identity() {
    let (cfg, mut r) = split_run();
    r.pools.as_mut().unwrap().decode.requests -= 1;
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "per-replica requests")]
fn a_late_transfer_too_many_breaks_the_per_replica_sum() {
    let (cfg, mut r) = split_run();
    r.pools.as_mut().unwrap().transfers.late += 1;
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "ended exactly once")]
fn a_request_left_in_flight_breaks_exactly_once() {
    let (cfg, mut r) = split_run();
    r.unended = Some(Unended {
        count: 1,
        ..Unended::default()
    });
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "!= completed")]
fn a_completion_missing_from_the_summary_breaks_exactly_once() {
    let (cfg, mut r) = split_run();
    r.summary.completed -= 1;
    check(&cfg, &r);
}

#[test]
#[should_panic(expected = "per-replica preemptions")]
fn a_preemption_missing_from_the_summary_breaks_its_sum() {
    let mut cfg = Config {
        admission: Admission::Preempt,
        max_batch: 8,
        block_size: 64,
        output_len: 300,
        instances: 1,
        ..small(Policy::RoundRobin, WorkloadKind::Pool, None, None, false)
    };
    cfg.kv_blocks = Some(needed_blocks(&cfg) + 5);
    let mut r = api::synthetic_simulation(&cfg).unwrap().into_report();
    let p = r.summary.preemption.as_mut().unwrap();
    assert!(p.preemptions > 0, "the run preempts");
    p.preemptions -= 1;
    check(&cfg, &r);
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
        input_len in prop_oneof![1u32..600, 1u32..5000],
        output_len in prop_oneof![1u32..4, 1u32..300],
        range_ratio in prop::sample::select(vec![0.0, 0.2, 0.8, 0.8]),
        num_prefixes in 0u32..10,
        block_size in prop::sample::select(vec![16u32, 64, 128, 512]),
        max_batch in prop_oneof![Just(1u32), 1u32..8],
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
        ttl in prop::sample::select(vec![0.0, 2.0, 100.0]),
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

prop_compose! {
    /// The deployed routers' parameters, the sessions' start rate and the engine.
    fn zoo_config()(
        cfg in random_config(),
        temperature in prop::sample::select(vec![0.0, 0.0, 0.05, 1.0, 100.0]),
        credit in prop::sample::select(vec![1.0, 0.0, 0.5]),
        miss in prop::sample::select(vec![SglangMiss::Load, SglangMiss::Tree]),
        weights in prop::sample::select(vec!["3,2,2", "1,1,1", "1,0,0", "0,1,0", "0,0,1"]),
        overlap_weight in prop::sample::select(vec![1.0, 0.0, 4.0]),
        session_rate in prop::sample::select(vec![1.0, 0.2, 20.0]),
        engine in prop::sample::select(EnginePreset::ALL.to_vec()),
        admission in prop::sample::select(Admission::ALL.to_vec()),
    ) -> Config {
        Config {
            dynamo_temperature: temperature,
            dynamo_overlap_credit: credit,
            sglang_miss: miss,
            llmd_weights: weights.to_string(),
            overlap_weight,
            session_rate,
            engine,
            admission,
            ..cfg
        }
    }
}

/// A split fleet's settings, drawn apart from the rest of the config.
#[derive(Clone, Debug)]
struct Split {
    prefill: u32,
    decode: u32,
    decode_routing: DecodeRouting,
    skip_tokens: u32,
    gbps: f64,
    base_us: f64,
    bytes_per_token: u64,
    /// Short answers (this mean, lengths spread +-80 %, so some of one token: done as
    /// soon as a decode replica admits them) among longer ones.
    short_output: Option<u32>,
    /// The decode pool the bottleneck: short prompts with short answers arriving fast
    /// at 2 or more prefill replicas, a fast link, one decode replica with 1 or 2 slots,
    /// so prefilled requests queue there.
    decode_bound: bool,
}

prop_compose! {
    /// 1 to 3 prefill and 1 to 2 decode replicas, every decode routing, a skip threshold
    /// (most often none), a fast or slow link, short answers for half, decode-bound for
    /// half.
    fn split_settings()(
        prefill in 1u32..4,
        decode in 1u32..3,
        decode_routing in prop::sample::select(DecodeRouting::ALL.to_vec()),
        skip_tokens in prop::sample::select(vec![0u32, 0, 0, 1, 64, 1024, 100_000]),
        gbps in prop::sample::select(vec![50.0, 50.0, 1.0, 0.01]),
        base_us in prop::sample::select(vec![50.0, 0.0, 5000.0]),
        bytes_per_token in prop::sample::select(vec![131_072u64, 1000, 1]),
        short_output in prop::option::of(2u32..4),
        decode_bound in prop::bool::weighted(0.5),
    ) -> Split {
        Split { prefill, decode, decode_routing, skip_tokens, gbps, base_us, bytes_per_token, short_output, decode_bound }
    }
}

/// `cfg` as a split fleet, its cache (if bounded) keeping its spare blocks.
fn split_fleet(cfg: Config, s: Split) -> Config {
    let spare = cfg.kv_blocks.map(|blocks| blocks - needed_blocks(&cfg));
    let cfg = if s.decode_bound {
        decode_bound(cfg)
    } else {
        cfg
    };
    let short = s.short_output.or(s.decode_bound.then_some(2));
    let (output_len, range_ratio) =
        short.map_or((cfg.output_len, cfg.range_ratio), |len| (len, 0.8));
    let (prefill, decode, gbps, base_us) = match s.decode_bound {
        true => (s.prefill.max(2), 1, s.gbps.max(50.0), s.base_us.min(50.0)),
        false => (s.prefill, s.decode, s.gbps, s.base_us),
    };
    let mut split = Config {
        instances: prefill + decode,
        prefill_instances: Some(prefill),
        decode_instances: Some(decode),
        decode_routing: s.decode_routing,
        disagg_min_uncached_tokens: s.skip_tokens,
        kv_transfer_gbps: gbps,
        kv_transfer_base_us: base_us,
        kv_bytes_per_token: Some(s.bytes_per_token),
        output_len,
        turn_output_len: output_len.min(200),
        range_ratio,
        ..cfg
    };
    let shortest = (split.input_len as f64 * (1.0 - range_ratio)).floor() as u32;
    split.prefix_len = split.prefix_len.min(shortest.max(1));
    split.kv_blocks = spare.map(|spare| needed_blocks(&split) + spare);
    split
}

/// Short prompts at 100 requests/s or more, 16 requests or more, 1 or 2 slots per
/// replica.
fn decode_bound(cfg: Config) -> Config {
    Config {
        input_len: cfg.input_len.min(100),
        turn_input_len: cfg.turn_input_len.min(50),
        system_prompt_len: 0,
        request_rate: cfg.request_rate.max(100.0),
        num_requests: cfg.num_requests.max(16),
        max_batch: cfg.max_batch.min(2),
        ..cfg
    }
}

prop_compose! {
    /// The routers' own CPU: half the runs a free router, else 1 to 3 cores per router,
    /// CPU times from nothing to longer than the gap between arrivals, and maybe a
    /// bounded router queue.
    fn router_cpu_settings()(
        vcpu in prop::option::of(1u32..4),
        fixed_us in prop::sample::select(vec![0.0, 20.0, 700.0, 30_000.0]),
        per_block_us in prop::sample::select(vec![0.0, 1.0, 40.0]),
        queue in prop::option::of(0u32..3),
    ) -> (Option<u32>, f64, f64, Option<u32>) {
        (vcpu, fixed_us, per_block_us, queue)
    }
}

prop_compose! {
    /// An autoscaler (a third of the runs each: off, KPA, SLO), bounds around the starting
    /// size, a start-up from none to longer than a run, and aggressive knobs so that
    /// short runs scale both ways.
    fn autoscale_settings()(
        scaler in prop::sample::select(vec![Autoscale::Off, Autoscale::Kpa, Autoscale::Slo]),
        min in 1u32..3,
        extra in 0u32..4,
        startup_s in prop::sample::select(vec![0.0, 0.01, 0.5, 30.0]),
        target in prop::sample::select(vec![0.5, 2.0, 50.0]),
        slo_ttft_ms in prop::sample::select(vec![5.0, 500.0]),
    ) -> (Autoscale, u32, u32, f64, f64, f64) {
        (scaler, min, extra, startup_s, target, slo_ttft_ms)
    }
}

/// Every setting, half the fleets split, half with a CPU tier (of 0 to 1,000 blocks),
/// half the routers with cores, and an autoscaler on the colocated fleets it can resize.
fn widened_config() -> impl Strategy<Value = Config> {
    let tier = prop::option::of(prop::sample::select(vec![0u64, 1, 8, 1000]));
    (
        zoo_config(),
        prop::option::of(split_settings()),
        tier,
        router_cpu_settings(),
        autoscale_settings(),
    )
        .prop_map(|(cfg, s, tier, (vcpu, fixed_us, per_block_us, queue), a)| {
            let (scaler, min, extra, startup_s, target, slo_ttft_ms) = a;
            let scalable = s.is_none()
                && tier.is_none_or(|t| t == 0)
                && cfg.router_view != RouterView::Offline;
            let cfg = match scalable && scaler != Autoscale::Off {
                false => cfg,
                true => Config {
                    autoscale: scaler,
                    min_instances: Some(min.min(cfg.instances)),
                    max_instances: Some(cfg.instances + extra),
                    startup_s: Some(startup_s),
                    kpa_target: target,
                    kpa_stable_window_s: 6.0,
                    slo_ttft_ms: Some(slo_ttft_ms),
                    slo_interval_s: 1.0,
                    ..cfg
                },
            };
            let cfg = Config {
                cpu_kv_blocks: tier,
                // A custom engine names no model: the tier's loads need the bytes per token.
                kv_bytes_per_token: cfg.kv_bytes_per_token.or(tier.map(|_| 4096)),
                router_vcpu: vcpu,
                router_cpu_us_fixed: fixed_us,
                router_cpu_us_per_block: per_block_us,
                router_queue: queue,
                ..cfg
            };
            match s {
                Some(s) => split_fleet(cfg, s),
                None => cfg,
            }
        })
}

/// Every setting in a split fleet.
fn split_config() -> impl Strategy<Value = Config> {
    (zoo_config(), split_settings()).prop_map(|(cfg, s)| split_fleet(cfg, s))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every feature, half the fleets split.
    #[test]
    fn random_valid_configs_keep_the_invariants(cfg in widened_config()) {
        prop_assert!(params::validate(&cfg).is_ok(), "{:?}", params::validate(&cfg));
        fuzzing::run(&cfg);
    }

    /// Every feature in a split fleet: the pool identities and that each request ends
    /// exactly once.
    #[test]
    fn random_split_fleets_keep_the_invariants(cfg in split_config()) {
        prop_assert!(params::validate(&cfg).is_ok(), "{:?}", params::validate(&cfg));
        fuzzing::run(&cfg);
    }
}
