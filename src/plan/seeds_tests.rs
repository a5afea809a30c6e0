//! The planner over several seeds: a point's figures carry their spread over the seeds
//! (`noise::spread`, as `--des-seeds` reports it), worked by hand on a stand-in runner.

use super::*;
use crate::config::{Config, Policy};
use crate::report::Summary;

/// Seeds 42, 43, 44 give p99 TTFT 100, 110, 120 ms, token hit rates 0.2, 0.5, 0.8 and
/// makespans 10, 12, 14 s (1000 output tokens each).
struct BySeed;

impl Runner for BySeed {
    fn run(&self, cfg: &Config, _rate_scale: f64) -> Result<Summary, String> {
        let k = (cfg.seed - 42) as f64;
        Ok(Summary {
            requests: 100,
            ttft_ms_p99: 100.0 + 10.0 * k,
            tpot_ms_p99: 5.0,
            e2e_ms_p99: 1000.0,
            hit_rate_tokens: 0.2 + 0.3 * k,
            output_tokens: 1000,
            makespan_s: 10.0 + 2.0 * k,
            ..Summary::default()
        })
    }
    fn base_rate(&self, cfg: &Config) -> (f64, &'static str) {
        (cfg.request_rate, "req/s")
    }
}

fn three_seeds() -> PlanLimits {
    PlanLimits {
        max_replicas: 4,
        seeds: 3,
        exhaustive: false,
        gpus_per_replica: 1,
        gpu_hour_usd: 2.5,
    }
}

fn slo() -> Slo {
    Slo {
        ttft_p99_ms: Some(150.0),
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 0.0,
        sustained: true,
    }
}

/// p99 TTFT: the target checks the worst, 120 ms; its spread is mean 110, s = 10,
/// half-width 4.30265273 × 10 / √3 = 24.8414 ms. Hit rate: the mean of all three,
/// (0.2 + 0.5 + 0.8) / 3 = 0.5 (pairing them up would give ((0.2 + 0.5) / 2 + 0.8) / 2
/// = 0.575). Price per seed: 1 GPU × $2.5/h × makespan / 3600 / 1000 tokens × 10⁶ =
/// $6.9444, $8.3333, $9.7222: mean $8.3333, s = 1.388889, half-width 3.4502.
#[test]
fn a_point_over_three_seeds_carries_each_figures_spread() {
    let cfg = Config {
        seed: 42,
        instances: 1,
        ..Config::default()
    };
    let plan = plan_policy(&cfg, Policy::Kv, &slo(), &three_seeds(), &BySeed).unwrap();
    let p = plan.at_min.expect("1 replica meets 150 ms");
    assert_eq!(p.measured.ttft_ms_p99, 120.0);
    assert!(
        (p.measured.hit_rate_tokens - 0.5).abs() < 1e-12,
        "{}",
        p.measured.hit_rate_tokens
    );
    let s = p.seeds.expect("a spread over three seeds");
    assert_eq!(s.ttft_ms_p99.values, vec![100.0, 110.0, 120.0]);
    assert!((s.ttft_ms_p99.mean - 110.0).abs() < 1e-12);
    assert!(
        (s.ttft_ms_p99.half_width() - 24.8414).abs() < 1e-4,
        "{:?}",
        s.ttft_ms_p99
    );
    assert!((s.usd_per_m_tokens.mean - 8.3333).abs() < 1e-4);
    assert!(
        (s.usd_per_m_tokens.half_width() - 3.4502).abs() < 1e-4,
        "{:?}",
        s.usd_per_m_tokens
    );
}

/// One seed: no spread.
#[test]
fn a_point_on_one_seed_has_no_spread() {
    let cfg = Config {
        seed: 42,
        instances: 1,
        ..Config::default()
    };
    let limits = PlanLimits {
        seeds: 1,
        ..three_seeds()
    };
    let plan = plan_policy(&cfg, Policy::Kv, &slo(), &limits, &BySeed).unwrap();
    assert!(plan.at_min.unwrap().seeds.is_none());
}
