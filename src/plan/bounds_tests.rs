//! Unit tests of the planner's bounds and its disaggregated search: GPU counts and prices
//! that cannot wrap or overflow, seeds that stay in range, and a split fleet's answer with
//! its prefill:decode split, against a stand-in runner worked by hand.

use std::cell::RefCell;

use super::*;
use crate::config::{Config, Policy};
use crate::report::Summary;

/// The headline of plans of which one at least met the targets (the targets and the most
/// replicas are only read when none did).
fn headline(plans: &[PolicyPlan]) -> String {
    assert!(plans.iter().any(|p| p.at_min.is_some()));
    super::headline(plans, &slo_ttft(1.0), 64, &Knobs::CLI)
}

fn limits() -> PlanLimits {
    PlanLimits {
        max_replicas: 64,
        seeds: 1,
        exhaustive: false,
        gpus_per_replica: 1,
        gpu_hour_usd: 2.5,
    }
}

fn slo_ttft(ms: f64) -> Slo {
    Slo {
        ttft_p99_ms: Some(ms),
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 0.0,
        sustained: true,
    }
}

/// 1,000,000 output tokens over 3600 s: $/M tokens equals the fleet's $/h.
fn served() -> Measured {
    Measured {
        ttft_ms_p99: 1.0,
        tpot_ms_p99: 1.0,
        e2e_ms_p99: 1.0,
        rejected_share: 0.0,
        hit_rate_tokens: 0.0,
        output_tokens: 1_000_000,
        makespan_s: 3600.0,
        overloaded: false,
    }
}

#[test]
fn gpus_per_replica_is_bounded_and_the_count_cannot_wrap() {
    let mut l = limits();
    // 2^31 GPUs per replica times 2 replicas wrapped to 0 GPUs at $0.00/h.
    l.gpus_per_replica = 1 << 31;
    assert_eq!(
        l.validate().unwrap_err(),
        "--plan-gpus-per-replica: invalid count: got 2147483648; allowed: 1 to 1024 GPUs \
         per replica"
    );
    assert_eq!(
        cost(2, &served(), &l).gpus,
        u32::MAX,
        "saturates, never wraps"
    );
    l.gpus_per_replica = 0;
    assert!(l
        .validate()
        .unwrap_err()
        .contains("got 0; allowed: 1 to 1024"));
    // The largest allowed fleet: 256 replicas x 1024 GPUs = 262,144 GPUs, x $10,000.
    l.gpus_per_replica = 1024;
    l.gpu_hour_usd = 10_000.0;
    assert!(l.validate().is_ok());
    let c = cost(256, &served(), &l);
    assert_eq!((c.gpus, c.usd_per_hour), (262_144, 2_621_440_000.0));
    assert_eq!(c.usd_per_m_tokens, 2_621_440_000.0);
}

#[test]
fn a_price_too_high_to_print_is_refused() {
    let mut l = limits();
    // 2 GPUs x 1e308 dollars is inf: the table printed "$inf/h".
    for bad in [1e308, 10_000.01] {
        l.gpu_hour_usd = bad;
        assert_eq!(
            l.validate().unwrap_err(),
            format!(
                "--gpu-hour-usd: invalid price: got {bad:?}; allowed: 0 to 10000 dollars per \
                 GPU-hour"
            )
        );
    }
}

#[test]
fn every_seed_a_plan_runs_stays_in_range() {
    let top: u64 = 1 << 53;
    let mut l = limits();
    l.seeds = 2;
    let at = |seed: u64| Config {
        seed,
        ..Config::default()
    };
    // Seeds 2^53 and 2^53 + 1: the message quotes the seed given, not the one derived.
    let err = check_plan(&at(top), &l).unwrap_err();
    assert_eq!(
        err,
        "--seed: invalid seed with --plan-seeds 2: got 9007199254740992; allowed: 0 to \
         9007199254740991 (each point runs on seeds --seed to --seed + 1, and a seed is at \
         most 2^53 = 9007199254740992)"
    );
    assert!(check_plan(&at(top - 1), &l).is_ok());
    // 16 seeds: the last first seed is 2^53 - 15.
    l.seeds = 16;
    assert!(check_plan(&at(top - 15), &l).is_ok());
    assert!(check_plan(&at(top - 14), &l)
        .unwrap_err()
        .contains("allowed: 0 to 9007199254740977 "));
}

/// A disaggregated fleet of 2 prefill and 2 decode replicas.
fn split_base() -> Config {
    Config {
        instances: 4,
        prefill_instances: Some(2),
        decode_instances: Some(2),
        ..Config::default()
    }
}

/// A runner whose p99 TTFT is 100 ms when the prefill pool has at least 2 replicas and
/// the decode pool at least 5, else 1000 ms; it records every (prefill, decode) it ran.
struct Pools(RefCell<Vec<(u32, u32)>>);

impl Runner for Pools {
    fn run(&self, cfg: &Config, _rate_scale: f64) -> Result<Summary, String> {
        let (p, d) = (
            cfg.prefill_instances.unwrap(),
            cfg.decode_instances.unwrap(),
        );
        assert_eq!(p + d, cfg.instances);
        self.0.borrow_mut().push((p, d));
        Ok(Summary {
            requests: 100,
            ttft_ms_p99: if p >= 2 && d >= 5 { 100.0 } else { 1000.0 },
            output_tokens: 1000,
            makespan_s: 10.0,
            ..Summary::default()
        })
    }
    fn base_rate(&self, cfg: &Config) -> (f64, &'static str) {
        (cfg.request_rate, "req/s")
    }
}

#[test]
fn a_split_fleet_is_planned_with_its_prefill_decode_split() {
    let runner = Pools(RefCell::new(Vec::new()));
    let plan = plan_policy(
        &split_base(),
        Policy::Kv,
        &slo_ttft(150.0),
        &limits(),
        &runner,
    )
    .unwrap();
    // 2 + 5 = 7 is the fewest; at 6 no split has both (1:5 lacks a prefill, 2:4 a decode).
    assert_eq!(plan.min_replicas, Some(7));
    assert!(plan.verified);
    let at = plan.at_min.as_ref().unwrap();
    assert_eq!(
        (at.prefill_instances, at.decode_instances),
        (Some(2), Some(5))
    );
    assert_eq!((at.cost.gpus, at.cost.usd_per_hour), (7, 17.5));
    // Doubling from 2: 2, 4, 8 (meets); bisecting: 6 fails, 7 meets; 8 is the one above.
    let sizes: Vec<u32> = plan.points.iter().map(|p| p.instances).collect();
    assert_eq!(sizes, [2, 4, 6, 7, 8]);
    // At 8, 2:6 and 3:5 meet alike; the fewer prefill replicas break the tie.
    let eight = &plan.points[4];
    assert_eq!((eight.prefill_instances, eight.meets), (Some(2), true));
    // Every split of each size was tried, n - 1 of them: 1 + 3 + 7 + 5 + 6 = 22 runs in
    // the order 2, 4, 8, 6, 7; then the goodput on the 2:2 fleet as given, which misses at
    // the rate x1 and at each of 10 halvings down to 1/1024: 11 runs.
    let runs = runner.0.borrow();
    assert_eq!(runs.len(), 22 + 11);
    assert_eq!(runs[..4], [(1, 1), (1, 3), (2, 2), (3, 1)]);
    assert_eq!(
        runs[4..11],
        [(1, 7), (2, 6), (3, 5), (4, 4), (5, 3), (6, 2), (7, 1)]
    );
    assert!(runs[22..].iter().all(|&pd| pd == (2, 2)));
    assert!(plan.goodput.is_none(), "2:2 misses at every rate");
    let json = serde_json::to_value(at).unwrap();
    assert_eq!(
        (
            json["prefill_instances"].as_u64(),
            json["decode_instances"].as_u64()
        ),
        (Some(2), Some(5))
    );
    assert!(headline(std::slice::from_ref(&plan))
        .starts_with("Cheapest: kv on 7 replicas (2 prefill + 5 decode, 7 GPUs) at $17.50/h"));
}

#[test]
fn a_split_fleet_needs_room_for_two_replicas() {
    let fake = Pools(RefCell::new(Vec::new()));
    let err = plan_policy(
        &split_base(),
        Policy::Kv,
        &slo_ttft(150.0),
        &PlanLimits {
            max_replicas: 1,
            ..limits()
        },
        &fake,
    )
    .unwrap_err();
    assert!(
        err.starts_with(
            "--plan-max-replicas: invalid count: got 1; allowed: 2 to 256 for a \
             disaggregated fleet"
        ),
        "{err}"
    );
    assert!(fake.0.borrow().is_empty(), "refused before any run");
}
