//! The JSON report's reference is generated from the report's types: the book's chapter
//! (`docs/src/json-report.md`, below its marker) and the schema files beside it
//! (`report.schema.json`, `sweep.schema.json`) are regenerated and must not differ
//! (`KVFLEET_BLESS=1 cargo test --features schema --test report_reference`, or
//! `cargo xtask docs`, rewrites them). Real outputs of the CLI (a colocated run, a
//! sessions run, a split fleet, a trace replay, a run with a finding, a run where nothing
//! completes, a sweep)
//! are checked against the schema: every key they write is in it, with its type (`null`
//! only where the schema allows it), and every field of the schema is written by one of
//! them.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use kvfleet::schema::{fields, reference_markdown, report_schema, sweep_schema};
use serde_json::Value;

/// The line after which the chapter is generated; everything above it is prose.
const MARKER: &str = "<!-- generated: the report's fields, from its types -->";

fn docs(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/src")
        .join(file)
}

/// Compares `path` with `want`, or rewrites it under `KVFLEET_BLESS`.
fn check(path: &Path, have: &str, want: &str) {
    if std::env::var_os("KVFLEET_BLESS").is_some() {
        std::fs::write(path, want).expect("the docs are writable");
        return;
    }
    assert!(
        have == want,
        "{} differs from the report's types: regenerate it with \
         KVFLEET_BLESS=1 cargo test --features schema --test report_reference \
         (or cargo xtask docs)",
        path.display()
    );
}

#[test]
fn the_chapter_and_the_schema_files_are_the_report_s_types() {
    let path = docs("json-report.md");
    let text = std::fs::read_to_string(&path).expect("the chapter exists");
    let cut = text
        .find(MARKER)
        .expect("the chapter has the generated marker")
        + MARKER.len();
    check(
        &path,
        &text,
        &format!("{}\n{}", &text[..cut], reference_markdown()),
    );
    for (file, schema) in [
        ("report.schema.json", report_schema()),
        ("sweep.schema.json", sweep_schema()),
    ] {
        let path = docs(file);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        let want = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        check(&path, &have, &want);
    }
}

/// The chapter names each field of the schema in a row of its type's table, and each
/// null-able field's type says so: a field added to a type without the chapter fails.
#[test]
fn the_chapter_has_a_row_for_every_field() {
    let text = std::fs::read_to_string(docs("json-report.md")).unwrap();
    for schema in [report_schema(), sweep_schema()] {
        for (path, s) in schema_paths(&schema) {
            let field = path
                .rsplit(['.', ']'])
                .next()
                .unwrap()
                .trim_start_matches('[');
            let row = format!("| `{field}` | ");
            assert!(text.contains(&row), "no row for {path} in json-report.md");
            if allows_null(&schema, s) {
                let nullable = text
                    .lines()
                    .filter(|l| l.starts_with(&row))
                    .any(|l| l.contains("null"));
                assert!(nullable, "{path} may be null but no row of it says so");
            }
        }
    }
}

/// Every field path of a schema (`summary.ttft_ms_p99`, `per_instance[].pool`), with its
/// schema.
fn schema_paths(root: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    walk_schema(root, root, "", &mut out);
    out
}

fn walk_schema<'a>(root: &'a Value, s: &'a Value, path: &str, out: &mut Vec<(String, &'a Value)>) {
    let s = resolve(root, s);
    if s["type"] == "array" || s["type"][0] == "array" {
        return walk_schema(root, &s["items"], &format!("{path}[]"), out);
    }
    for branch in s["anyOf"].as_array().into_iter().flatten() {
        walk_schema(root, branch, path, out);
    }
    // A map (`seeds.summary`): its values' fields, under `*` for any key.
    if s["additionalProperties"].is_object() {
        walk_schema(root, &s["additionalProperties"], &format!("{path}.*"), out);
    }
    for (field, fs) in fields(s) {
        let at = if path.is_empty() {
            field.to_string()
        } else {
            format!("{path}.{field}")
        };
        out.push((at.clone(), fs));
        walk_schema(root, fs, &at, out);
    }
}

/// `s`, or the definition its `$ref` names.
fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => &root["$defs"][name],
        None => s,
    }
}

fn allows_null(root: &Value, s: &Value) -> bool {
    let s = resolve(root, s);
    let types = match &s["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    types.contains(&"null")
        || s["anyOf"]
            .as_array()
            .is_some_and(|b| b.iter().any(|x| allows_null(root, x)))
}

/// Whether `v` is of the JSON type `t`.
fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_u64() || v.is_i64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

/// Checks `v` against the schema `s` at `path`: its type, its allowed values, and its
/// keys (each in the schema; each required one present). Paths it writes go to `seen`;
/// what does not conform goes to `bad`.
fn conform(
    root: &Value,
    s: &Value,
    v: &Value,
    path: &str,
    seen: &mut BTreeSet<String>,
    bad: &mut Vec<String>,
) {
    let s = resolve(root, s);
    if s == &Value::Bool(true) {
        return;
    }
    if let Some(branches) = s["anyOf"].as_array().or(s["oneOf"].as_array()) {
        let fits = branches.iter().any(|b| {
            let mut errs = Vec::new();
            conform(root, b, v, path, &mut BTreeSet::new(), &mut errs);
            errs.is_empty()
        });
        if !fits {
            bad.push(format!("{path}: {v} fits none of its types"));
        }
        for b in branches {
            conform(root, b, v, path, seen, &mut Vec::new());
        }
        return;
    }
    if let Some(c) = s.get("const") {
        if c != v {
            bad.push(format!("{path}: {v} is not {c}"));
        }
    }
    if let Some(values) = s["enum"].as_array() {
        if !values.contains(v) {
            bad.push(format!("{path}: {v} is not one of {values:?}"));
        }
    }
    let types: Vec<&str> = match &s["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() && !types.iter().any(|t| is_type(v, t)) {
        bad.push(format!("{path}: {v} is not {types:?}"));
        return;
    }
    match v {
        Value::Array(items) => {
            for x in items {
                conform(root, &s["items"], x, &format!("{path}[]"), seen, bad);
            }
        }
        Value::Object(map) => {
            let props = fields(s);
            for (k, x) in map {
                let at = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let any_key = &s["additionalProperties"];
                match props.iter().find(|(f, _)| f == k) {
                    Some((_, fs)) => {
                        seen.insert(at.clone());
                        conform(root, fs, x, &at, seen, bad);
                    }
                    None if any_key.is_object() => {
                        conform(root, any_key, x, &format!("{path}.*"), seen, bad)
                    }
                    None => bad.push(format!("{at}: not in the schema")),
                }
            }
            for r in s["required"].as_array().into_iter().flatten() {
                if !map.contains_key(r.as_str().unwrap()) {
                    bad.push(format!("{path}.{r}: required, missing"));
                }
            }
        }
        _ => {}
    }
}

/// The JSON the CLI writes to standard output with `args`.
fn cli_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the kvfleet binary runs");
    assert!(
        out.status.success(),
        "kvfleet {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the CLI writes JSON")
}

/// The first `n` requests of the conversation trace, in a file of their own.
fn trace_head(n: usize) -> String {
    let all = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/mooncake/conversation_trace.jsonl"),
    )
    .unwrap();
    let head: Vec<&str> = all.lines().take(n).collect();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_reference_trace.jsonl");
    std::fs::write(&path, head.join("\n") + "\n").unwrap();
    path.to_string_lossy().into_owned()
}

/// Checks `outputs` against `schema`; returns the paths they wrote.
fn check_outputs(schema: &Value, outputs: &[(&str, Value)]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (name, v) in outputs {
        let mut bad = Vec::new();
        conform(schema, schema, v, "", &mut seen, &mut bad);
        assert!(
            bad.is_empty(),
            "the {name} output does not fit the schema: {bad:#?}"
        );
    }
    seen
}

#[test]
fn real_reports_fit_the_schema_and_write_every_field() {
    let json = ["--des-report-json", "-", "--des-num-requests", "60"];
    let with = |extra: &[&str]| cli_json(&[&json[..], extra].concat());
    let trace = trace_head(60);
    let reports = [
        ("colocated", with(&[])),
        (
            // 200 requests: 60 are too few for the uneven-load finding.
            "hot prefix (a finding)",
            cli_json(&[
                "--des-report-json",
                "-",
                "--des-num-requests",
                "200",
                "--des-routing",
                "prefix_aware",
                "--des-prefix-popularity",
                "hot:0.9",
            ]),
        ),
        (
            "sessions",
            with(&[
                "--des-workload",
                "sessions",
                "--des-num-sessions",
                "4",
                "--des-turns",
                "3",
                "--request-rate-schedule",
                "0s:1~2s:3",
            ]),
        ),
        (
            "split fleet",
            with(&[
                "--des-prefill-instances",
                "2",
                "--des-decode-instances",
                "2",
                "--des-decode-routing",
                "round_robin",
                "--des-kv-transfer-gbps",
                "100",
                "--des-kv-transfer-base-us",
                "20",
                "--des-kv-bytes-per-token",
                "131072",
                "--des-disagg-min-uncached-tokens",
                "64",
            ]),
        ),
        ("trace replay", with(&["--des-mooncake-trace", &trace])),
        // The default rule, `preempt`, in a cache small enough to preempt.
        ("preemption", with(&["--des-kv-blocks", "40"])),
        ("nothing completed", with(&["--des-timeout-ms", "1"])),
        ("three seeds", with(&["--des-seeds", "3"])),
        (
            "router CPU",
            with(&[
                "--des-routers",
                "2",
                "--des-router-vcpu",
                "1",
                "--des-router-cpu-us-fixed",
                "300000",
                "--des-router-cpu-us-per-block",
                "2",
                "--des-router-queue",
                "3",
            ]),
        ),
        (
            "autoscaled, kpa",
            with(&[
                "--des-instances",
                "2",
                "--des-autoscale",
                "kpa",
                "--des-min-instances",
                "1",
                "--des-max-instances",
                "6",
                "--des-startup-s",
                "1",
                "--des-kpa-target",
                "0.5",
                "--des-kpa-stable-window-s",
                "10",
                "--des-kpa-panic-window-pct",
                "20",
                "--des-kpa-panic-threshold-pct",
                "150",
                "--des-kpa-max-scale-up-rate",
                "2",
                "--des-kpa-max-scale-down-rate",
                "3",
            ]),
        ),
        (
            "autoscaled, slo",
            with(&[
                "--des-autoscale",
                "slo",
                "--des-slo-ttft-ms",
                "20",
                "--des-slo-itl-ms",
                "5",
                "--des-slo-interval-s",
                "2",
                "--des-slo-scale-down-pct",
                "50",
            ]),
        ),
        (
            "polynomial engine, lowest ties",
            with(&[
                "--des-tie-break",
                "lowest",
                "--des-engine",
                "custom",
                "--des-prefill-poly-ms",
                "16,0.015,0",
                "--des-decode-poly-ms",
                "5.7,0,0",
            ]),
        ),
        (
            "CPU tier",
            with(&[
                "--des-kv-blocks",
                "40",
                "--des-cpu-kv-blocks",
                "200",
                "--des-cpu-load-gbps",
                "32",
                "--des-cpu-load-base-us",
                "20",
            ]),
        ),
        (
            "mixed fleet, one GPU's price overridden",
            with(&[
                "--des-fleet",
                "1:llama3-8b-h100,1:llama3-8b-mi300x",
                "--des-gpu-hour-usd",
                "llama3-8b-mi300x=2.1",
            ]),
        ),
        (
            "shared tier, a router that sees it",
            with(&[
                "--des-kv-blocks",
                "40",
                "--des-shared-kv-blocks",
                "100",
                "--des-shared-gbps",
                "12.5",
                "--des-shared-latency-us",
                "30",
                "--des-router-tiers",
                "all",
            ]),
        ),
        (
            "whole reservation",
            with(&["--des-admission", "reserve", "--des-kv-blocks", "40"]),
        ),
    ];
    let schema = report_schema();
    let seen = check_outputs(&schema, &reports);
    // A request that did not end exactly once is a simulator bug: no real run writes
    // `unended`.
    let unwritten: Vec<String> = schema_paths(&schema)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| !seen.contains(p) && !p.starts_with("unended"))
        .collect();
    assert!(unwritten.is_empty(), "no real report writes {unwritten:?}");
    let nulls = reports[6].1["summary"]["ttft_ms_p99"].clone();
    assert!(
        nulls.is_null(),
        "the run where nothing completes has null statistics"
    );

    let sweep = cli_json(&[
        "--des-sweep",
        "instances=1,2",
        "--des-sweep-json",
        "-",
        "--des-num-requests",
        "30",
    ]);
    let schema = sweep_schema();
    let seen = check_outputs(&schema, &[("sweep", sweep)]);
    let unwritten: Vec<String> = schema_paths(&schema)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| !seen.contains(p))
        .collect();
    assert!(unwritten.is_empty(), "no sweep row writes {unwritten:?}");
}
