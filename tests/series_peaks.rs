#![cfg(not(target_arch = "wasm32"))]
//! The queue chart's series agrees with the per-replica table: each replica's highest
//! `series.queue_peak` is its `peak_queue`, on runs long enough that the sampling grid
//! coarsened many times (the conversation trace), where the point-sampled `series.queue`
//! steps over the peak (a first-time reader saw "Peak queue 12" beside a chart that never
//! passed 7).

mod common;

use common::{kvfleet, tmp};
use serde_json::Value;

/// The JSON report of the CLI run with `args` (plus the report flag).
fn report(name: &str, args: &[&str]) -> Value {
    let out = tmp(&format!("{name}.json"));
    let mut all = args.to_vec();
    all.extend(["--des-report-json", out.as_str()]);
    let (code, _, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    serde_json::from_str(&text).unwrap()
}

fn column(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// Per replica: (the table's peak_queue, the highest queue_peak, the highest point sample).
fn peaks(r: &Value) -> Vec<(u64, u64, u64)> {
    let s = &r["series"];
    r["per_instance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let i = p["index"].as_u64().unwrap() as usize;
            let peak = column(&s["queue_peak"][i]);
            let point = column(&s["queue"][i]);
            assert_eq!(peak.len(), point.len(), "replica {i}: one peak per sample");
            for (k, (a, b)) in peak.iter().zip(&point).enumerate() {
                assert!(
                    a >= b,
                    "replica {i}, sample {k}: peak {a} below the depth {b}"
                );
            }
            let top = |v: &[u64]| v.iter().copied().max().unwrap_or(0);
            (p["peak_queue"].as_u64().unwrap(), top(&peak), top(&point))
        })
        .collect()
}

fn trace() -> String {
    format!(
        "{}/data/mooncake/conversation_trace.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_series_peak_is_the_tables_peak_on_the_trace() {
    let t = trace();
    let mut stepped_over = 0;
    for routing in ["kv", "round_robin", "prefix_aware"] {
        for n in ["4", "8"] {
            let r = report(
                &format!("trace-{routing}-{n}"),
                &[
                    "--des-mooncake-trace",
                    &t,
                    "--des-instances",
                    n,
                    "--des-routing",
                    routing,
                ],
            );
            let points = r["series"]["t_s"].as_array().unwrap().len();
            assert!(points >= 100, "{routing} x{n}: {points} samples");
            for (i, (table, peak, point)) in peaks(&r).into_iter().enumerate() {
                assert_eq!(
                    peak, table,
                    "{routing} x{n}, replica {i}: series peak {peak}, table {table}"
                );
                stepped_over += (point < table) as u32;
            }
        }
    }
    // The point samples alone miss some peaks: the reason the chart reads queue_peak.
    assert!(
        stepped_over > 0,
        "no run where the point samples missed a peak"
    );
}

#[test]
fn the_series_peak_is_the_tables_peak_on_synthetic_and_disaggregated_runs() {
    let runs: [&[&str]; 4] = [
        &[],
        &[
            "--des-instances",
            "2",
            "--request-rate",
            "40",
            "--des-num-requests",
            "2000",
        ],
        &[
            "--des-routing",
            "prefix_aware",
            "--des-num-requests",
            "3000",
            "--request-rate",
            "30",
        ],
        &[
            "--des-prefill-instances",
            "2",
            "--des-decode-instances",
            "2",
            "--des-num-requests",
            "1500",
            "--request-rate",
            "25",
        ],
    ];
    for (k, args) in runs.iter().enumerate() {
        let r = report(&format!("synthetic-{k}"), args);
        let rows = peaks(&r);
        assert!(
            rows.iter().any(|&(t, _, _)| t > 0),
            "run {k} {args:?}: some queue formed"
        );
        for (i, (table, peak, _)) in rows.into_iter().enumerate() {
            assert_eq!(peak, table, "run {k} {args:?}, replica {i}");
        }
    }
}
