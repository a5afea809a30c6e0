#![cfg(not(target_arch = "wasm32"))]
//! `kvfleet plan --plan-autoscale`: the static fleet the plan sized against an autoscaled
//! one on the same schedule. Every figure printed is checked against two independent
//! ordinary runs of the two configs (`kvfleet` with the run flags a user would type), and
//! the SLO attainment against the runs' per-request log.

mod common;

use common::{kvfleet, tmp};
use serde_json::Value;

/// A load step the static fleet must be sized for at its peak.
const WORKLOAD: [&str; 6] = [
    "--request-rate-schedule",
    "0s:4,60s:20,150s:4",
    "--des-num-requests",
    "2400",
    "--des-routing",
    "kv",
];

fn json_of(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::remove_file(path).ok();
    serde_json::from_str(&text).unwrap()
}

/// An ordinary run: its JSON report, and the share of its completed requests (decision
/// records with a TTFT) whose TTFT was at most `target_ms`.
fn run(name: &str, extra: &[&str], target_ms: f64) -> (Value, f64) {
    let (report, log) = (tmp(&format!("{name}.json")), tmp(&format!("{name}.jsonl")));
    let mut args = WORKLOAD.to_vec();
    args.extend(extra);
    args.extend(["--des-report-json", &report, "--des-decisions", &log]);
    let (code, _, err) = kvfleet(&args);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    let ttfts: Vec<f64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).unwrap()["ttft_ms"].as_f64())
        .collect();
    let met = ttfts.iter().filter(|&&t| t <= target_ms).count();
    (json_of(&report), met as f64 / ttfts.len() as f64)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

#[test]
fn the_comparison_is_two_ordinary_runs_of_the_two_configs() {
    let out = tmp("plan-autoscale.json");
    let mut args = vec!["plan"];
    args.extend(WORKLOAD);
    args.extend([
        "--slo-ttft-p99-ms",
        "1000",
        "--plan-routing",
        "kv",
        "--plan-autoscale",
        "kpa",
        "--plan-json",
        &out,
    ]);
    let (code, text, err) = kvfleet(&args);
    assert_eq!(code, 0, "{err}");
    let plan = json_of(&out);
    let n = plan["policies"][0]["min_replicas"].as_u64().unwrap();
    let c = &plan["autoscale"];
    assert_eq!(c["policy"], "kv");
    let n_flag = n.to_string();
    // The static fleet: n replicas, the run's TTFT target as its SLO.
    let (s, s_met) = run(
        "static",
        &["--des-instances", &n_flag, "--des-slo-ttft-ms", "1000"],
        1000.0,
    );
    // The autoscaled fleet: the KPA from 1 replica up to n.
    let (a, a_met) = run(
        "kpa",
        &[
            "--des-autoscale",
            "kpa",
            "--des-instances",
            "1",
            "--des-min-instances",
            "1",
            "--des-max-instances",
            &n_flag,
            "--des-slo-ttft-ms",
            "1000",
        ],
        1000.0,
    );
    let price = 3.49; // the H100's assumed list price, $ per GPU-hour
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    // GPU-hours by hand: the static fleet's n one-GPU replicas from 0 to the run's end (its
    // last sample); the autoscaled one's billed replica time.
    let end_s = s["series"]["t_s"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_f64()
        .unwrap();
    let static_gpu_h = n as f64 * end_s / 3600.0;
    let scaled_gpu_h = f(&a["autoscale"], "replica_seconds") / 3600.0;
    assert!(close(scaled_gpu_h, f(&a["summary"], "gpu_hours")));
    let want = [
        ("static", &s, static_gpu_h, s_met, 1, n),
        ("autoscaled", &a, scaled_gpu_h, a_met, 1, n),
    ];
    for (key, r, gpu_h, met, lo, hi) in want {
        let row = &c[key];
        assert!(close(f(row, "gpu_hours"), gpu_h), "{key}: {row}");
        assert!(close(f(row, "cost_usd"), gpu_h * price), "{key}: {row}");
        assert_eq!(
            f(row, "ttft_ms_p99"),
            f(&r["summary"], "ttft_ms_p99"),
            "{key}"
        );
        assert_eq!(
            f(row, "hit_rate_tokens"),
            f(&r["summary"], "hit_rate_tokens"),
            "{key}"
        );
        // Attainment: the plan's figure is the run's, and the run's is its log's share.
        assert_eq!(
            f(row, "slo_attained"),
            f(&r["summary"], "slo_attained"),
            "{key}"
        );
        assert!(
            close(f(row, "slo_attained"), met),
            "{key}: {} vs {met}",
            row["slo_attained"]
        );
        let p99_misses = f(&r["summary"], "ttft_ms_p99") > 1000.0;
        let misses: Vec<&str> = row["misses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(
            misses.contains(&"ttft_p99"),
            p99_misses,
            "{key}: {misses:?}"
        );
        let lo_hi = (
            row["min_replicas"].as_u64().unwrap(),
            row["max_replicas"].as_u64().unwrap(),
        );
        assert_eq!(lo_hi, (if key == "static" { n } else { lo }, hi), "{key}");
    }
    // The static fleet is the plan's answer, so it meets the target on this seed.
    assert!(f(&s["summary"], "ttft_ms_p99") <= 1000.0);
    // The answer names the cheaper fleet and each verdict, as the runs show.
    let answer = c["answer"].as_str().unwrap();
    let (sc, ac) = (static_gpu_h * price, scaled_gpu_h * price);
    let cheaper = if ac < sc {
        "The autoscaled fleet"
    } else {
        "The static fleet is cheaper"
    };
    assert!(answer.starts_with(cheaper), "{answer}");
    assert!(
        answer.contains(&format!("${:.3}", sc)) && answer.contains(&format!("${:.3}", ac)),
        "{answer}"
    );
    assert!(
        answer.contains("The static fleet meets the targets"),
        "{answer}"
    );
    let scaled_meets =
        f(&a["summary"], "ttft_ms_p99") <= 1000.0 && !a["summary"]["overloaded"].as_bool().unwrap();
    assert_eq!(
        answer.contains("the autoscaled one meets the targets"),
        scaled_meets,
        "{answer}"
    );
    // The text prints the same rows and answer.
    assert!(text.contains(&format!("  {answer}\n")), "{text}");
    let row_of = |words: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(words))
            .unwrap()
            .to_string()
    };
    let st = row_of(&format!("static, {n} replicas"));
    assert!(
        st.contains(&format!("{static_gpu_h:.3}")) && st.contains(&format!("{:.3}", sc)),
        "{st}"
    );
    let kp = row_of(&format!("kpa, 1–{n} replicas"));
    assert!(
        kp.contains(&format!("{scaled_gpu_h:.3}"))
            && kp.contains(&format!("{:.1}%", 100.0 * a_met)),
        "{kp}"
    );
}

/// What the comparison cannot run is refused by name before the plan.
#[test]
fn the_comparison_refuses_what_it_cannot_run() {
    for (extra, want) in [
        (vec!["--plan-autoscale", "off"], "expected kpa"),
        (
            vec!["--plan-autoscale", "kpa", "--des-autoscale", "kpa"],
            "--des-autoscale",
        ),
        (
            vec!["--plan-autoscale", "slo", "--plan-routing", "round_robin"],
            "add it to --plan-routing",
        ),
    ] {
        let mut args = vec![
            "plan",
            "--slo-ttft-p99-ms",
            "500",
            "--des-num-requests",
            "50",
        ];
        args.extend(extra.iter().copied());
        let (code, _, err) = kvfleet(&args);
        assert_ne!(code, 0, "{extra:?}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
}

/// Under the `slo` scaler a target the plan does not set is the scaler's own default (ITL
/// 50 ms), for both runs alike: the static fleet's attainment is an ordinary run's with the
/// same two targets.
#[test]
fn under_the_slo_scaler_both_runs_count_the_same_targets() {
    let out = tmp("plan-autoscale-slo.json");
    let (code, text, err) = kvfleet(&[
        "plan",
        "--des-num-requests",
        "200",
        "--slo-ttft-p99-ms",
        "400",
        "--plan-routing",
        "kv",
        "--plan-autoscale",
        "slo",
        "--plan-json",
        &out,
    ]);
    assert_eq!(code, 0, "{err}");
    let plan = json_of(&out);
    let c = &plan["autoscale"];
    assert_eq!(
        (c["slo_ttft_ms"].as_f64(), c["slo_itl_ms"].as_f64()),
        (Some(400.0), Some(50.0))
    );
    assert!(
        text.contains("SLO met: completed requests with TTFT <= 400 ms and TPOT <= 50.0 ms."),
        "{text}"
    );
    let n = plan["policies"][0]["min_replicas"]
        .as_u64()
        .unwrap()
        .to_string();
    let report = tmp("plan-autoscale-slo-static.json");
    let (code, _, err) = kvfleet(&[
        "--des-num-requests",
        "200",
        "--des-routing",
        "kv",
        "--des-instances",
        &n,
        "--des-slo-ttft-ms",
        "400",
        "--des-slo-itl-ms",
        "50",
        "--des-report-json",
        &report,
    ]);
    assert_eq!(code, 0, "{err}");
    let r = json_of(&report);
    assert_eq!(c["static"]["slo_attained"], r["summary"]["slo_attained"]);
    assert_eq!(c["autoscaled"]["fleet"], "slo");
}
