//! Unit tests of the planner's searches, checks and arithmetic, against a stand-in
//! runner whose latencies are simple functions worked by hand.

use super::*;
use crate::config::{Config, Policy};
use crate::report::Summary;

/// The headline of plans of which one at least met the targets (the targets and the most
/// replicas are only read when none did).
fn headline(plans: &[PolicyPlan]) -> String {
    assert!(plans.iter().any(|p| p.at_min.is_some()));
    super::headline(plans, &slo_ttft(1.0), 64, &Knobs::CLI)
}

/// A runner whose p99 TTFT is `ttft(instances, rate_scale, seed)` ms, with 1000 output
/// tokens over 10 s and nothing rejected.
struct Fake<F: Fn(u32, f64, u64) -> f64>(F);

impl<F: Fn(u32, f64, u64) -> f64> Runner for Fake<F> {
    fn run(&self, cfg: &Config, rate_scale: f64) -> Result<Summary, String> {
        Ok(Summary {
            requests: 100,
            ttft_ms_p99: (self.0)(cfg.instances, rate_scale, cfg.seed),
            tpot_ms_p99: 5.0,
            e2e_ms_p99: 1000.0,
            output_tokens: 1000,
            makespan_s: 10.0,
            ..Summary::default()
        })
    }
    fn base_rate(&self, cfg: &Config) -> (f64, &'static str) {
        (cfg.request_rate, "req/s")
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

fn limits() -> PlanLimits {
    PlanLimits {
        max_replicas: 64,
        seeds: 1,
        exhaustive: false,
        gpus_per_replica: 1,
        gpu_hour_usd: 2.5,
    }
}

fn sizes(plan: &PolicyPlan) -> Vec<u32> {
    plan.points.iter().map(|p| p.instances).collect()
}

#[test]
fn bracketing_finds_the_fewest_replicas_and_verifies_them() {
    // TTFT = 1000 / n ms against 150 ms: 1000/7 = 142.9 meets, 1000/6 = 166.7 fails.
    let fake = Fake(|n, s, _| 1000.0 * s / n as f64);
    let base = Config::default();
    let plan = plan_policy(&base, Policy::Kv, &slo_ttft(150.0), &limits(), &fake).unwrap();
    assert_eq!(plan.min_replicas, Some(7));
    assert!(plan.verified);
    // Doubling 1, 2, 4 (fail), 8 (meets); bisection 6 (fail), 7 (meets); 8 is the +1.
    assert_eq!(sizes(&plan), [1, 2, 4, 6, 7, 8]);
    assert!(plan.non_monotone.is_empty());
    let at = plan.at_min.as_ref().unwrap();
    assert_eq!((at.instances, at.meets), (7, true));
    assert_eq!(at.cost.gpus, 7);
    assert_eq!(at.cost.usd_per_hour, 17.5);
    assert_eq!(plan.policy, "kv");
}

#[test]
fn an_answer_of_one_and_no_answer() {
    let easy = Fake(|_, _, _| 10.0);
    let plan = plan_policy(
        &Config::default(),
        Policy::Random,
        &slo_ttft(50.0),
        &limits(),
        &easy,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, Some(1));
    assert!(plan.verified, "1 replica: nothing below it to fail");
    assert_eq!(sizes(&plan), [1, 2]);
    let never = Fake(|_, _, _| 500.0);
    let mut l = limits();
    l.max_replicas = 20;
    let plan = plan_policy(
        &Config::default(),
        Policy::Random,
        &slo_ttft(50.0),
        &l,
        &never,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, None);
    assert!(!plan.verified);
    assert!(plan.at_min.is_none());
    // Doubling stops at the largest fleet allowed: 1, 2, 4, 8, 16, 20.
    assert_eq!(sizes(&plan), [1, 2, 4, 8, 16, 20]);
}

#[test]
fn an_inversion_right_above_the_answer_is_reported() {
    // Meets at 2, fails at 3 and 4, meets from 5 on.
    let fake = Fake(|n, _, _| if n == 2 || n >= 5 { 10.0 } else { 500.0 });
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(50.0),
        &limits(),
        &fake,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, Some(2));
    assert_eq!(sizes(&plan), [1, 2, 3]);
    assert_eq!(plan.non_monotone, vec![[2, 3]]);
}

#[test]
fn exhaustive_search_finds_what_bracketing_cannot() {
    // Meets only at 3 and from 8 on. Bracketing never tries 3 (1, 2, 4 fail; 8 meets;
    // 6, 7 fail), so it answers 8, verified against 7; the exhaustive search answers 3
    // and reports every inversion after it.
    let fake = Fake(|n, _, _| if n == 3 || n >= 8 { 10.0 } else { 500.0 });
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(50.0),
        &limits(),
        &fake,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, Some(8));
    assert_eq!(sizes(&plan), [1, 2, 4, 6, 7, 8, 9]);
    assert!(plan.non_monotone.is_empty());
    let mut l = limits();
    l.exhaustive = true;
    l.max_replicas = 10;
    let plan = plan_policy(&Config::default(), Policy::Kv, &slo_ttft(50.0), &l, &fake).unwrap();
    assert_eq!(plan.min_replicas, Some(3));
    assert!(plan.verified);
    assert_eq!(sizes(&plan), (1..=10).collect::<Vec<_>>());
    assert_eq!(plan.non_monotone, vec![[3, 4], [3, 5], [3, 6], [3, 7]]);
}

#[test]
fn every_seed_must_meet() {
    // Seed 42 meets at any size; seed 43 needs 4 replicas.
    let fake = Fake(|n, _, seed| if seed == 43 && n < 4 { 500.0 } else { 10.0 });
    let mut l = limits();
    let one = plan_policy(&Config::default(), Policy::Kv, &slo_ttft(50.0), &l, &fake).unwrap();
    assert_eq!(one.min_replicas, Some(1));
    l.seeds = 2;
    let two = plan_policy(&Config::default(), Policy::Kv, &slo_ttft(50.0), &l, &fake).unwrap();
    assert_eq!(two.min_replicas, Some(4));
    // The worst p99 over the seeds is reported; tokens and time are summed.
    let below = two.points.iter().find(|p| p.instances == 2).unwrap();
    assert_eq!(below.measured.ttft_ms_p99, 500.0);
    assert_eq!(
        (below.measured.output_tokens, below.measured.makespan_s),
        (2000, 20.0)
    );
}

#[test]
fn goodput_brackets_the_rate_to_one_percent() {
    // 4 replicas, TTFT = 25 ms x scale against 100 ms: scale 4 meets exactly, above fails.
    let fake = Fake(|n, s, _| 100.0 * s / n as f64);
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(100.0),
        &limits(),
        &fake,
    )
    .unwrap();
    let g = plan.goodput.unwrap();
    assert_eq!((g.instances, g.rate_scale, g.at_limit), (4, 4.0, false));
    // The point reported is the one at that scale: TTFT 25 x 4 = 100 ms.
    assert_eq!((g.at.rate_scale, g.at.measured.ttft_ms_p99), (4.0, 100.0));
    // The default config offers 6 req/s: 24 req/s sustained.
    assert_eq!((g.rate, g.rate_unit), (24.0, "req/s"));
    // 1, 2, 4 meet, 8 fails; then 6, 5, 4.5, 4.25, 4.125, 4.0625, 4.03125 all fail and
    // the bracket [4, 4.03125] is within 1 %.
    let scales: Vec<f64> = g.points.iter().map(|p| p.rate_scale).collect();
    assert_eq!(
        scales,
        [1.0, 2.0, 4.0, 4.03125, 4.0625, 4.125, 4.25, 4.5, 5.0, 6.0, 8.0]
    );
    // A fleet that fails at every scale down to 1/1024 has no goodput; one that meets at
    // 1024x is at the limit.
    let never = Fake(|_, _, _| 1e9);
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(100.0),
        &limits(),
        &never,
    )
    .unwrap();
    assert!(plan.goodput.is_none());
    let always = Fake(|_, _, _| 1.0);
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(100.0),
        &limits(),
        &always,
    )
    .unwrap();
    let g = plan.goodput.unwrap();
    assert_eq!((g.rate_scale, g.at_limit), (1024.0, true));
}

#[test]
fn cost_arithmetic_worked_by_hand() {
    // 3 replicas of 4 GPUs at $2.50 per GPU-hour: 12 GPUs, $30/h. 100,000 output tokens
    // over 360 s: the fleet costs $30 x 0.1 h = $3 for them, $30 per million.
    let m = Measured {
        ttft_ms_p99: 1.0,
        tpot_ms_p99: 1.0,
        e2e_ms_p99: 1.0,
        rejected_share: 0.0,
        hit_rate_tokens: 0.5,
        output_tokens: 100_000,
        makespan_s: 360.0,
        overloaded: false,
    };
    let mut l = limits();
    l.gpus_per_replica = 4;
    let c = cost(3, &m, &l);
    assert_eq!((c.gpus, c.usd_per_hour), (12, 30.0));
    assert!(
        (c.usd_per_m_tokens - 30.0).abs() < 1e-9,
        "{}",
        c.usd_per_m_tokens
    );
    let none = Measured {
        output_tokens: 0,
        ..m
    };
    assert!(cost(3, &none, &l).usd_per_m_tokens.is_nan());
}

#[test]
fn targets_and_what_misses_them() {
    let slo = Slo {
        ttft_p99_ms: Some(100.0),
        tpot_p99_ms: Some(10.0),
        e2e_p99_ms: None,
        max_rejected: 0.05,
        sustained: true,
    };
    let s = Summary {
        requests: 200,
        rejected: 6,
        timed_out: 5,
        ttft_ms_p99: 100.0,
        tpot_ms_p99: 10.5,
        e2e_ms_p99: 1e9,
        ..Summary::default()
    };
    let m = Measured::of(&s);
    // (6 + 5) / 200 = 5.5 % unserved > 5 %; TTFT exactly at its target meets.
    assert_eq!(m.rejected_share, 0.055);
    assert_eq!(slo.misses(&m), ["tpot_p99", "rejected"]);
    // A growing backlog misses unless it is allowed.
    let growing = Measured {
        overloaded: true,
        ..m.clone()
    };
    assert_eq!(slo.misses(&growing), ["tpot_p99", "rejected", "overloaded"]);
    let allowed = Slo {
        sustained: false,
        ..slo
    };
    assert_eq!(allowed.misses(&growing), ["tpot_p99", "rejected"]);
    let nothing = Measured {
        ttft_ms_p99: f64::NAN,
        ..m.clone()
    };
    assert!(
        slo.misses(&nothing).contains(&"ttft_p99".to_string()),
        "unmeasured misses"
    );
    assert!(slo.validate().is_ok());
    let none = Slo {
        ttft_p99_ms: None,
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 1.0,
        sustained: true,
    };
    assert!(none.validate().unwrap_err().contains("no target given"));
    let rejected_only = Slo {
        max_rejected: 0.0,
        ..none
    };
    assert!(rejected_only.validate().is_ok());
    let bad = Slo {
        ttft_p99_ms: Some(-1.0),
        ..slo
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .starts_with("--slo-ttft-p99-ms: invalid target: got -1"));
    // 0 ms is no target either: the bound is strict.
    let zero = Slo {
        tpot_p99_ms: Some(0.0),
        ..slo
    };
    assert_eq!(
        zero.validate().unwrap_err(),
        "--slo-tpot-p99-ms: invalid target: got 0; allowed: a number of ms > 0"
    );
    // A spec that leaves `sustained` out asks for a sustained fleet.
    let sent: Slo = serde_json::from_str(r#"{"ttft_p99_ms": 500, "max_rejected": 0.01}"#).unwrap();
    assert!(sent.sustained && sent.tpot_p99_ms.is_none());
    let bad = Slo {
        max_rejected: 1.5,
        ..slo
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .starts_with("--slo-max-rejected: invalid share"));
    let mut l = limits();
    assert!(l.validate().is_ok());
    l.max_replicas = 0;
    assert!(l.validate().unwrap_err().contains("allowed: 1 to 256"));
    l.max_replicas = 8;
    l.seeds = 0;
    assert!(l.validate().unwrap_err().starts_with("--plan-seeds"));
    l.seeds = 1;
    l.gpu_hour_usd = f64::NAN;
    assert!(l.validate().unwrap_err().starts_with("--gpu-hour-usd"));
}

#[test]
fn the_headline_names_the_cheapest_and_the_saving() {
    let fake_rr = Fake(|n, s, _| 1000.0 * s / n as f64);
    let fake_kv = Fake(|n, s, _| 500.0 * s / n as f64);
    let base = Config::default();
    let slo = slo_ttft(150.0);
    let rr = plan_policy(&base, Policy::RoundRobin, &slo, &limits(), &fake_rr).unwrap();
    let kv = plan_policy(&base, Policy::Kv, &slo, &limits(), &fake_kv).unwrap();
    // round robin needs 7 (1000/7 <= 150), kv 4 (500/4 = 125; 500/3 = 167 fails):
    // $17.50 against $10.00 an hour, 3 replicas and $7.50 (43%) saved.
    assert_eq!(kv.min_replicas, Some(4));
    assert_eq!(
        headline(&[rr.clone(), kv.clone()]),
        "Cheapest: kv on 4 replicas (4 GPUs) at $10.00/h, $27.78 per million output tokens, \
         meeting the targets.\nAgainst round_robin (7 replicas, $17.50/h), kv saves 3 \
         replicas, $7.50/h (43%)."
    );
    // Round robin alone: nothing to compare it with, so no details.
    assert_eq!(
        headline(std::slice::from_ref(&rr)),
        "Cheapest: round_robin on 7 replicas (7 GPUs) at $17.50/h, $48.61 per million output \
         tokens, meeting the targets."
    );
    // A tie on cost, at the same $/M tokens (the same makespan and tokens), goes to the
    // lower p99 TTFT at the answer: at 4 replicas kv's is 500 / 4 = 125 ms, this one's
    // 400 / 4 = 100 ms.
    let fake_kv2 = Fake(|n, s, _| 400.0 * s / n as f64 + if n < 4 { 1000.0 } else { 0.0 });
    let mut kv2 = plan_policy(&base, Policy::Dynamo, &slo, &limits(), &fake_kv2).unwrap();
    assert_eq!(kv2.min_replicas, Some(4));
    kv2.policy = "dynamo".into();
    assert_eq!(
        headline(&[rr.clone(), kv.clone(), kv2]),
        "Cheapest: dynamo on 4 replicas (4 GPUs) at $10.00/h, $27.78 per million output \
         tokens, meeting the targets; tied on cost with kv, dynamo has the lower p99 TTFT.\n\
         Tied at $10.00/h with kv. Both cost the same per million output tokens to within \
         0.5% ($27.78), so the lower p99 TTFT decides between them. dynamo has the lower p99 \
         TTFT of the two: 100 ms against 125 ms. Against round_robin (7 replicas, \
         $17.50/h), dynamo saves 3 replicas, $7.50/h (43%)."
    );
    // Tied on cost, p99 TTFT and goodput (the same runs): the name decides, kv before
    // round_robin.
    let same = plan_policy(&base, Policy::Kv, &slo, &limits(), &fake_rr).unwrap();
    assert!(headline(&[rr.clone(), same]).ends_with(
        " kv and round_robin have the same p99 TTFT, 143 ms, and the same goodput; kv comes \
         first by name. Against round_robin (7 replicas, $17.50/h), kv saves nothing: both \
         cost the same per hour."
    ));
    let never = Fake(|_, _, _| 1e9);
    let mut l = limits();
    l.max_replicas = 4;
    let rr_none = plan_policy(&base, Policy::RoundRobin, &slo, &l, &never).unwrap();
    assert!(headline(&[rr_none.clone(), kv])
        .ends_with("\nround_robin does not meet the targets within the largest fleet tried."));
    // No policy met: the one sentence, in the CLI's words (src/plan/headline/none_met.rs).
    let none = super::headline(&[rr_none], &slo, l.max_replicas, &Knobs::CLI);
    assert!(
        none.starts_with("No policy meets the targets on up to 4 replicas: the lowest p99 TTFT"),
        "{none}"
    );
}

#[test]
fn two_seeds_combine_into_the_worse_target_the_sums_and_the_mean_hit_rate() {
    let a = Measured {
        ttft_ms_p99: 120.0,
        tpot_ms_p99: f64::NAN,
        e2e_ms_p99: 900.0,
        rejected_share: 0.01,
        hit_rate_tokens: 0.4,
        output_tokens: 1000,
        makespan_s: 10.0,
        overloaded: false,
    };
    let b = Measured {
        ttft_ms_p99: 80.0,
        tpot_ms_p99: 30.0,
        e2e_ms_p99: 1100.0,
        rejected_share: 0.0,
        hit_rate_tokens: 0.6,
        output_tokens: 3000,
        makespan_s: 12.5,
        overloaded: true,
    };
    let w = a.worst(&b);
    // The worse of each target; one seed that measured nothing (NaN) makes it unmeasured.
    assert_eq!((w.ttft_ms_p99, w.e2e_ms_p99), (120.0, 1100.0));
    assert!(w.tpot_ms_p99.is_nan() && b.worst(&a).tpot_ms_p99.is_nan());
    assert_eq!(w.rejected_share, 0.01);
    // (0.4 + 0.6) / 2; the sums of tokens and time; overloaded on either seed.
    assert!(
        (w.hit_rate_tokens - 0.5).abs() < 1e-12,
        "{}",
        w.hit_rate_tokens
    );
    assert_eq!(
        (w.output_tokens, w.makespan_s, w.overloaded),
        (4000, 22.5, true)
    );
    assert!(!a.worst(&a).overloaded);
}

#[test]
fn a_price_must_be_finite_and_not_negative() {
    let mut l = limits();
    for bad in [-1.0, f64::INFINITY, f64::NAN] {
        l.gpu_hour_usd = bad;
        assert!(
            l.validate().unwrap_err().starts_with("--gpu-hour-usd"),
            "{bad}"
        );
    }
    l.gpu_hour_usd = 0.0;
    assert!(l.validate().is_ok(), "a free GPU is allowed");
}

#[test]
fn a_headline_row_reads_the_answer_only_when_there_is_one() {
    let with = serde_json::json!({
        "policy": "kv",
        "at_min": { "instances": 3, "cost": { "gpus": 6, "usd_per_hour": 15.0, "usd_per_m_tokens": 2.25 },
                    "measured": { "ttft_ms_p99": 81.5 } },
        "goodput": { "rate": 7.5 },
    });
    let row = HeadlineRow::of_json(&with);
    assert_eq!(row.policy, "kv");
    assert_eq!(row.answer, Some((3, 6, 15.0, 2.25)));
    assert_eq!(row.goodput_rate, 7.5);
    assert_eq!(row.ttft_ms_p99, 81.5);
    let without = serde_json::json!({ "policy": "random", "at_min": null, "goodput": null });
    let row = HeadlineRow::of_json(&without);
    assert_eq!(row.answer, None);
    assert_eq!(row.goodput_rate, f64::NEG_INFINITY);
    assert!(row.ttft_ms_p99.is_nan());
}

/// Four requests of 600 prompt tokens (two 512-token blocks, the first shared) arriving
/// at 1, 2, 3.5 and 5.000001 s.
fn four_requests() -> Vec<crate::workload::Request> {
    [1_000_000, 2_000_000, 3_500_000, 5_000_001]
        .iter()
        .enumerate()
        .map(|(i, &at)| crate::workload::Request {
            id: i as u32,
            arrival_us: at,
            prompt_tokens: 600,
            output_tokens: 3,
            block_ids: [7, 100 + i as u64].into(),
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect()
}

fn summary_json(s: &Summary) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn the_trace_runner_speeds_arrivals_up_and_reads_its_rate_from_the_span() {
    let runner = runners::TraceRunner {
        requests: four_requests(),
        name: "four".to_string(),
    };
    // (n - 1) / (last - first) = 3 / 4.000001 s.
    let (rate, unit) = runner.base_rate(&Config::default());
    assert_eq!(unit, "req/s");
    assert!((rate - 3.0 / 4.000001).abs() < 1e-12, "{rate}");
    // Twice as fast: each arrival halved, rounded to the µs (2,500,000.5 -> 2,500,001).
    let fast: Vec<u64> = runner.scaled(2.0).iter().map(|r| r.arrival_us).collect();
    assert_eq!(fast, [500_000, 1_000_000, 1_750_000, 2_500_001]);
    assert_eq!(runner.scaled(1.0), four_requests());
    // A run at scale 2 is the replay of the requests with those arrivals, set by hand.
    let cfg = Config {
        instances: 2,
        ..Config::default()
    };
    let mut by_hand = four_requests();
    for (r, at) in by_hand.iter_mut().zip(fast) {
        r.arrival_us = at;
    }
    let want = crate::api::replay_simulation(&cfg, by_hand, "four")
        .unwrap()
        .into_report()
        .summary;
    let got = runner.run(&cfg, 2.0).unwrap();
    assert_eq!(got.requests, 4);
    assert_eq!(summary_json(&got), summary_json(&want));
    // One arrival instant has no rate, for one request or two at once (not 1 / 0 s).
    let one = runners::TraceRunner {
        requests: four_requests()[..1].to_vec(),
        name: "one".to_string(),
    };
    assert!(one.base_rate(&cfg).0.is_nan());
    let mut together = four_requests()[..2].to_vec();
    together[1].arrival_us = together[0].arrival_us;
    let two = runners::TraceRunner {
        requests: together,
        name: "two".to_string(),
    };
    assert!(two.base_rate(&cfg).0.is_nan());
}

#[test]
fn the_synthetic_runner_scales_the_rate_of_its_workload_within_its_limits() {
    let runner = runners::SyntheticRunner;
    let pool = Config {
        request_rate: 4.0,
        num_requests: 40,
        ..Config::default()
    };
    // request_rate's slider runs from 0.01 to 100,000 req/s: scales 0.0025 to 25,000.
    assert_eq!(runner.scale_limits(&pool), (0.01 / 4.0, 100_000.0 / 4.0));
    let doubled = Config {
        request_rate: 8.0,
        ..pool.clone()
    };
    let want = crate::api::synthetic_simulation(&doubled)
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(
        summary_json(&runner.run(&pool, 2.0).unwrap()),
        summary_json(&want)
    );
    let tasks = Config {
        workload: crate::config::WorkloadKind::Sessions,
        session_rate: 0.5,
        num_sessions: 6,
        ..Config::default()
    };
    assert_eq!(runner.base_rate(&tasks), (0.5, "tasks/s"));
    assert_eq!(runner.scale_limits(&tasks), (0.001 / 0.5, 1000.0 / 0.5));
    let faster = Config {
        session_rate: 1.5,
        ..tasks.clone()
    };
    let want = crate::api::synthetic_simulation(&faster)
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(
        summary_json(&runner.run(&tasks, 3.0).unwrap()),
        summary_json(&want)
    );
}

#[test]
fn goodput_halves_down_to_1_in_1024_and_no_size_above_the_largest_is_tried() {
    // TTFT = 512 ms x scale against 1 ms: met at scale 1/512 and below only, nine halvings
    // down; the bracket [1/512, 1/256] narrows to 1 % above 1/512.
    let slow = Fake(|_, s, _| 512.0 * s);
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(1.0),
        &limits(),
        &slow,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, None);
    let g = plan.goodput.expect("met at 1/512");
    assert!(
        g.rate_scale >= 1.0 / 512.0 && g.rate_scale < 1.01 / 512.0,
        "{}",
        g.rate_scale
    );
    let halvings: Vec<f64> = g
        .points
        .iter()
        .map(|p| p.rate_scale)
        .filter(|&s| s >= 1.0 / 256.0)
        .collect();
    assert_eq!(halvings.len(), 9, "1, 1/2, ..., 1/256: {halvings:?}");
    // TTFT = 1000 / n ms against 150 ms needs 7 replicas; with 7 the largest allowed, the
    // check one size above the answer is skipped: no point beyond 7.
    let fake = Fake(|n, s, _| 1000.0 * s / n as f64);
    let seven = PlanLimits {
        max_replicas: 7,
        ..limits()
    };
    let plan = plan_policy(
        &Config::default(),
        Policy::Kv,
        &slo_ttft(150.0),
        &seven,
        &fake,
    )
    .unwrap();
    assert_eq!(plan.min_replicas, Some(7));
    assert!(sizes(&plan).iter().all(|&n| n <= 7), "{:?}", sizes(&plan));
}

/// `sort_small` orders like the standard library's stable sort, ties kept in their order:
/// keys with many repeats (NaN and infinities among them, as `total_cmp` orders them), each
/// tagged with its position, sorted both ways.
#[test]
fn sort_small_orders_as_the_stable_sort_does() {
    let keys = [
        3.0,
        -1.0,
        f64::NAN,
        3.0,
        0.0,
        f64::INFINITY,
        -1.0,
        2.5,
        0.0,
        3.0,
    ];
    for n in 0..=keys.len() {
        for rot in 0..n.max(1) {
            let mut v: Vec<(f64, usize)> =
                (0..n).map(|i| (keys[(i + rot) % n.max(1)], i)).collect();
            let mut want = v.clone();
            want.sort_by(|a, b| a.0.total_cmp(&b.0));
            sort_small(&mut v, |a, b| a.0.total_cmp(&b.0));
            let got: Vec<usize> = v.iter().map(|p| p.1).collect();
            let want: Vec<usize> = want.iter().map(|p| p.1).collect();
            assert_eq!(got, want, "n {n} rotation {rot}");
        }
    }
}
