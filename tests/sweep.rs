//! Sweeps: point by point equal to single runs, independent of the thread count; and the
//! bench command in quick mode (it must keep running; no timing is asserted).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{kvfleet, tmp};

use kvfleet::sweep::{plan, SweepRow};
use kvfleet::{api, Config};

#[test]
fn each_sweep_point_equals_its_single_run() {
    let json = tmp("points.json");
    let (code, out, err) = kvfleet(&[
        "--des-sweep",
        "instances=1:6",
        "--des-sweep-json",
        &json,
        "--des-num-requests",
        "120",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("instances") && out.lines().count() >= 8,
        "{out}"
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    assert_eq!(rows.len(), 6);
    for (i, row) in rows.iter().enumerate() {
        let n = (i + 1).to_string();
        let single = tmp(&format!("single-{n}.json"));
        let (code, _, err) = kvfleet(&[
            "--des-instances",
            &n,
            "--des-num-requests",
            "120",
            "--des-report-json",
            &single,
        ]);
        assert_eq!(code, 0, "{err}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&single).unwrap()).unwrap();
        std::fs::remove_file(&single).ok();
        assert_eq!(row["param"], "instances");
        assert_eq!(row["value"], i + 1);
        assert_eq!(
            report["config"]["instances"],
            i + 1,
            "the swept value was applied"
        );
        for key in row_columns() {
            let want = match key {
                "task_s_mean" => serde_json::Value::Null,
                _ => report["summary"][key].clone(),
            };
            assert_eq!(row[key], want, "instances={n}: {key}");
        }
    }
}

/// The sweep row's result columns (all but `param` and `value`), from the CSV header.
fn row_columns() -> Vec<&'static str> {
    let all: Vec<&str> = kvfleet::sweep::CSV_HEADER.split(',').collect();
    assert_eq!(all.len(), 14);
    all[2..].to_vec()
}

#[test]
fn thread_count_changes_no_number() {
    let (one, four) = (tmp("t1.csv"), tmp("t4.csv"));
    for (threads, path) in [("1", &one), ("4", &four)] {
        let (code, _, err) = kvfleet(&[
            "--des-sweep",
            "overlap-weight=0:4:0.5",
            "--des-threads",
            threads,
            "--des-sweep-csv",
            path,
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let (a, b) = (
        std::fs::read_to_string(&one).unwrap(),
        std::fs::read_to_string(&four).unwrap(),
    );
    std::fs::remove_file(&one).ok();
    std::fs::remove_file(&four).ok();
    assert_eq!(a, b);
    assert_eq!(a.lines().count(), 10, "header and 9 points");
}

#[test]
fn library_sweep_rows_match_run_json() {
    // Each point's config carries the swept value (and only it differs from the base),
    // and its row equals the summary of a run of that config through the JSON API,
    // column by column; a sessions sweep fills the task column from the task report.
    let base = Config {
        num_requests: 80,
        ..Config::default()
    };
    let sessions = Config {
        workload: kvfleet::WorkloadKind::Sessions,
        num_sessions: 6,
        turns: 3,
        ..Config::default()
    };
    for (base, spec) in [
        (&base, "routing=kv,prefix_aware,round_robin,random,sticky"),
        (&sessions, "instances=1,3"),
    ] {
        let (param, points) = plan(base, spec).unwrap();
        for p in points {
            let mut expect = serde_json::to_value(base).unwrap();
            expect[&param] = p.value.clone();
            assert_eq!(serde_json::to_value(&p.config).unwrap(), expect, "{spec}");
            let report = api::synthetic_simulation(&p.config).unwrap().into_report();
            let row = serde_json::to_value(SweepRow::of(&param, &p.value, &report)).unwrap();
            let again: serde_json::Value = serde_json::from_str(
                &api::run_json(&serde_json::to_string(&p.config).unwrap()).unwrap(),
            )
            .unwrap();
            assert_eq!(again["config"][&param], p.value);
            for key in row_columns() {
                let want = match key {
                    "task_s_mean" if base.workload == kvfleet::WorkloadKind::Sessions => {
                        again["sessions"]["task_s"]["mean"].clone()
                    }
                    "task_s_mean" => serde_json::Value::Null,
                    _ => again["summary"][key].clone(),
                };
                assert_eq!(row[key], want, "{spec} at {}: {key}", p.value);
            }
            if base.workload == kvfleet::WorkloadKind::Sessions {
                assert!(row["task_s_mean"].as_f64().unwrap() > 0.0);
            }
        }
    }
}

#[test]
fn bad_sweeps_fail_clearly() {
    let (code, out, err) = kvfleet(&["--des-sweep", "instances=0:2"]);
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(
        err.contains("--des-sweep instances=0:2") && err.contains("got 0"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--des-sweep", "warp=1:2"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("unknown parameter") && err.contains("overlap-weight"),
        "{err}"
    );
}

#[test]
fn bench_quick_runs_every_scenario() {
    let (code, out, err) = kvfleet(&["bench", "--quick"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario"))
        .collect();
    assert_eq!(rows.len(), 10, "{out}");
    assert!(out.contains("conversation trace, kv, 8 replicas"));
    assert!(out.contains("synthetic 1e6 req, 64 replicas"));
    assert!(out.contains("3 prompts of 1e5 tokens, a token a step, 1 replica"));
}

#[test]
fn sweep_specs_cannot_wrap_or_skip_the_point_limit() {
    let base = Config::default();
    // (1 - 0) / 1e-320 is infinite: the point count wrapped to 0 and the sweep "ran".
    let err = plan(&base, "overlap-weight=0:1:1e-320").unwrap_err();
    assert!(err.contains("at most 1000"), "{err}");
    let (code, out, err) = kvfleet(&["--des-sweep", "overlap-weight=0:1:1e-320"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("at most 1000"), "{err}");
    // A list of 1001 values is as many points as a range of 1001.
    let list: Vec<String> = (0..1001).map(|i| i.to_string()).collect();
    let err = plan(&base, &format!("seed={}", list.join(","))).unwrap_err();
    assert!(err.contains("1001 points; at most 1000"), "{err}");
    let list: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    assert_eq!(
        plan(&base, &format!("seed={}", list.join(",")))
            .unwrap()
            .1
            .len(),
        1000
    );
}

#[test]
fn a_trace_sweep_is_validated_against_the_trace() {
    // The fixture's requests need at most 3 blocks. A single replay runs with 2 blocks of
    // cache (refusing what can never fit) or 5, so the sweep over kv-blocks=2,5 must
    // too, with the single runs' numbers; it was checked against the synthetic
    // defaults, whose 4096 + 256-token requests need 9 blocks.
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mooncake_small.jsonl"
    );
    let csv = tmp("trace-kv.csv");
    let (code, out, err) = kvfleet(&[
        "--des-mooncake-trace",
        trace,
        "--des-sweep",
        "kv-blocks=2,5",
        "--des-sweep-csv",
        &csv,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::remove_file(&csv).ok();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 2);
    for (row, blocks) in rows.iter().zip(["2", "5"]) {
        let single = tmp(&format!("trace-kv-{blocks}.json"));
        let (code, _, err) = kvfleet(&[
            "--des-mooncake-trace",
            trace,
            "--des-kv-blocks",
            blocks,
            "--des-report-json",
            &single,
        ]);
        assert_eq!(code, 0, "{err}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&single).unwrap()).unwrap();
        std::fs::remove_file(&single).ok();
        let cells: Vec<&str> = row.split(',').collect();
        let column = |name: &str| {
            let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
            cells[header.iter().position(|h| *h == name).unwrap()]
        };
        assert_eq!(column("value"), blocks);
        let hit: f64 = column("hit_rate_tokens").parse().unwrap();
        assert_eq!(hit, report["summary"]["hit_rate_tokens"].as_f64().unwrap());
        assert_eq!(
            column("rejected"),
            report["summary"]["rejected"].to_string()
        );
    }
}

#[test]
fn bench_ratios_quick_prints_each_pair_and_the_medians() {
    let (code, out, err) = kvfleet(&["bench", "--ratios", "--quick", "--large", "--pairs", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("kvfleet bench --ratios --quick --large --pairs 3 ("),
        "{out}"
    );
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| pair"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    // Three rows of 64 against 16 (8 cells), then three of 1e7 against 1e6 (9 cells).
    assert_eq!(rows.len(), 6, "{out}");
    let orders: Vec<&str> = rows[..3].iter().map(|r| r[1]).collect();
    assert_eq!(orders, ["16, 64", "64, 16", "16, 64"]);
    // Each 1e7 run's "after" 1e6 run is the next pair's "before".
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), if i < 3 { 8 } else { 9 }, "{out}");
        assert_eq!(r[0], ((i % 3) + 1).to_string());
    }
    assert_eq!(rows[3][3], rows[4][1]);
    assert_eq!(rows[4][3], rows[5][1]);
    // Each wall ratio is the printed times' ratio (time per request, equal request counts),
    // within what the printed rounding (0.05 ms, 0.0005) allows.
    let num = |s: &str| s.parse::<f64>().expect("a number");
    let within = |ratio: &str, top: f64, bottom: f64| {
        let (lo, hi) = (
            (top - 0.05) / (bottom + 0.05),
            (top + 0.05) / (bottom - 0.05),
        );
        let r = num(ratio);
        assert!(
            r >= lo - 0.0005 && r <= hi + 0.0005,
            "{r} not in {lo}..{hi}"
        );
    };
    for r in &rows[..3] {
        within(r[4], num(r[3]), num(r[2]));
    }
    for r in &rows[3..] {
        within(r[4], num(r[2]), (num(r[1]) + num(r[3])) / 2.0);
    }
    assert!(out.contains("\n64/16 wall ratio: median "), "{out}");
    assert!(out.contains("\n4000/2000 wall ratio: median "), "{out}");
}

#[test]
fn bench_ratios_around_divides_each_large_run_by_blocks_of_small_runs() {
    let (code, out, err) = kvfleet(&[
        "bench", "--ratios", "--quick", "--large", "--pairs", "2", "--around", "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("kvfleet bench --ratios --quick --large --pairs 2 --around 3 ("),
        "{out}"
    );
    assert!(
        out.contains("against the mean of the 3 2000-request runs before it and the 3 after it"),
        "{out}"
    );
    assert!(
        out.contains("| pair | before (mean): wall ms | big: wall ms | after (mean): wall ms |"),
        "{out}"
    );
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| pair"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    // The block after the first large run is the block before the second.
    assert_eq!(rows[2][3], rows[3][1]);
    assert_eq!(rows[2][7], rows[3][5]);
    let num = |s: &str| s.parse::<f64>().expect("a number");
    for r in &rows[2..] {
        let (before, big, after, ratio) = (num(r[1]), num(r[2]), num(r[3]), num(r[4]));
        let mean = (before + after) / 2.0;
        let (lo, hi) = ((big - 0.05) / (mean + 0.05), (big + 0.05) / (mean - 0.05));
        assert!(
            ratio >= lo - 0.0005 && ratio <= hi + 0.0005,
            "{ratio} not in {lo}..{hi}"
        );
    }
}

#[test]
fn bench_around_needs_ratios_large_and_a_count_from_1_to_20() {
    for args in [
        &["bench", "--ratios", "--around", "3"][..],
        &["bench", "--large", "--around", "3"],
        &["bench", "--ratios", "--large", "--around", "0"],
        &["bench", "--ratios", "--large", "--around", "21"],
        &["bench", "--ratios", "--large", "--around", "x"],
    ] {
        let (code, out, err) = kvfleet(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("--around") || err.contains("--large") || err.contains("--ratios"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.is_empty(), "{out}");
    }
}

#[test]
fn bench_pairs_needs_ratios_and_a_count_from_1_to_100() {
    for args in [
        &["bench", "--pairs", "3"][..],
        &["bench", "--ratios", "--pairs", "0"],
        &["bench", "--ratios", "--pairs", "101"],
        &["bench", "--ratios", "--pairs", "x"],
    ] {
        let (code, out, err) = kvfleet(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("--pairs"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.is_empty(), "{out}");
    }
}

#[test]
fn a_pool_sweep_has_no_task_mean() {
    // The pool workload has no tasks: their mean time is over nothing, null, not 0.
    let (code, out, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--des-sweep",
        "instances=1:2",
        "--des-sweep-json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let start = out.find('[').expect("the JSON rows");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out[start..]).unwrap();
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert!(row["task_s_mean"].is_null(), "{row}");
    }
}

/// A sweep's point (`Job::point_json`): the full report (`report_json`) field for field,
/// but for its time series and latency distributions, which come empty; at 64 replicas it
/// is a small part of the full text.
#[test]
fn a_points_json_is_the_report_without_its_series() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/conversation_trace.jsonl"
    ))
    .unwrap();
    let first: String = text.lines().take(400).map(|l| format!("{l}\n")).collect();
    let trace = api::ParsedTrace::parse(&first, "conversation_trace.jsonl", 512).unwrap();
    let cfg = Config {
        instances: 64,
        ..Config::default()
    };
    let full_text = api::Job::parsed_trace_config(&cfg, &trace)
        .unwrap()
        .report_json();
    let point_text = api::Job::parsed_trace_config(&cfg, &trace)
        .unwrap()
        .point_json();
    let full: serde_json::Value = serde_json::from_str(&full_text).unwrap();
    let point: serde_json::Value = serde_json::from_str(&point_text).unwrap();
    let (full, point) = (full.as_object().unwrap(), point.as_object().unwrap());
    assert_eq!(
        full.keys().collect::<Vec<_>>(),
        point.keys().collect::<Vec<_>>()
    );
    for (k, v) in full {
        if k == "series" || k == "latency_cdf" {
            let arrays = point[k].as_object().unwrap();
            assert!(!arrays.is_empty(), "{k}");
            for (name, a) in arrays {
                if !v[name].is_array() {
                    continue; // a scalar of the series (its window length), not a column
                }
                assert_eq!(a, &serde_json::json!([]), "{k}.{name} is empty");
                assert_ne!(
                    &v[name],
                    &serde_json::json!([]),
                    "the full {k}.{name} is not"
                );
            }
        } else {
            assert_eq!(&point[k], v, "{k}");
        }
    }
    assert!(
        point_text.len() * 5 < full_text.len(),
        "{} bytes against {}",
        point_text.len(),
        full_text.len()
    );
    // Either call takes the run; a later call gives the same text.
    let mut job = api::Job::parsed_trace_config(&cfg, &trace).unwrap();
    assert_eq!(job.point_json(), point_text);
    assert_eq!(job.report_json(), point_text);
}

#[test]
fn bench_hero_quick_runs_every_point() {
    let json = tmp("hero.json");
    let (code, out, err) = kvfleet(&["bench", "--hero", "1", "--quick", "--json", &json]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("300 requests parsed")
            && out.contains("60 runs a round (20 counts x 3 policies)"),
        "{out}"
    );
    assert!(
        out.contains("round 1: ") && out.contains("median of 1: "),
        "{out}"
    );
    hero_json_is_the_printed_median(&out, &std::fs::read_to_string(&json).unwrap());
    let _ = std::fs::remove_file(&json);
}

/// `--json`'s figures are the median the text prints (to a tenth of a ms): its total and
/// parts, the three points at 256 and at 4 replicas, and the counts from 96 up summed.
fn hero_json_is_the_printed_median(out: &str, json: &str) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let num = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {json}"));
    let median = out
        .lines()
        .find(|l| l.starts_with("median of 1: "))
        .unwrap();
    let printed: Vec<f64> = median
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    // "median of 1: T ms CPU (prepare P, simulate S, report R)"
    assert_eq!(
        printed[1..],
        [
            num("total_ms"),
            num("prepare_ms"),
            num("simulate_ms"),
            num("json_ms")
        ]
    );
    let counts = out
        .lines()
        .find(|l| l.starts_with("its three points"))
        .unwrap();
    let per_count: Vec<(u32, f64)> = counts
        .split_once("ms CPU: ")
        .unwrap()
        .1
        .split(", ")
        .map(|p| {
            let (n, ms) = p.split_once(": ").unwrap();
            (n.parse().unwrap(), ms.parse().unwrap())
        })
        .collect();
    let ms_at = |n: u32| per_count.iter().find(|(x, _)| *x == n).unwrap().1;
    assert_eq!(num("at_256_ms"), ms_at(256));
    assert_eq!(num("at_4_ms"), ms_at(4));
    let from_96: f64 = per_count
        .iter()
        .filter(|(x, _)| *x >= 96)
        .map(|(_, ms)| ms)
        .sum();
    assert!(
        (num("from_96_ms") - from_96).abs() < 0.3,
        "{from_96} in {json}"
    );
    assert_eq!(num("rounds"), 1.0);
    assert!(num("json_mb") > 0.0, "{json}");
}
