//! Browser tests of the wasm bindings: round-trip, error messages, native == wasm.
#![cfg(target_arch = "wasm32")]

use kvfleet::wasm;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The report of the default config, produced natively by the core's golden test.
const GOLDEN_DEFAULT_REPORT: &str = include_str!("golden/seed_example.json");

/// The message of a `JsError` as JS sees it (`err.message`).
fn js_message(err: wasm_bindgen::JsError) -> String {
    let value: JsValue = err.into();
    value
        .dyn_into::<js_sys::Error>()
        .expect("a JsError reaches JS as an Error")
        .message()
        .into()
}

#[wasm_bindgen_test]
fn version_and_defaults_round_trip() {
    let v = wasm::version();
    assert!(!v.is_empty(), "version is empty");
    // The version as Cargo.toml states it, read from the manifest's text (not from the
    // constant the binding returns).
    let manifest = include_str!("../Cargo.toml");
    let stated = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Cargo.toml states a version");
    assert_eq!(v, stated);
    assert_eq!(v.split('.').count(), 3, "semver: {v}");

    let defaults: serde_json::Value =
        serde_json::from_str(&wasm::defaults_json()).expect("defaults_json is JSON");
    let obj = defaults
        .as_object()
        .expect("defaults_json is a JSON object");
    assert!(obj.contains_key("seed"), "defaults lack `seed`: {defaults}");

    let params: serde_json::Value =
        serde_json::from_str(&wasm::params_json()).expect("params_json is JSON");
    assert!(params.is_array(), "params_json is not an array: {params}");
}

#[wasm_bindgen_test]
fn bad_config_is_a_js_error_naming_the_field() {
    let err = wasm::run_json(r#"{"instances":0}"#).expect_err("0 instances must be rejected");
    let msg = js_message(err);
    assert!(
        msg.contains("instances"),
        "message does not name the field: {msg:?}"
    );

    let err = wasm::Job::synthetic(r#"{"instances":0}"#.into())
        .err()
        .expect("a Job with 0 instances must be rejected");
    let msg = js_message(err);
    assert!(
        msg.contains("instances"),
        "message does not name the field: {msg:?}"
    );
}

#[wasm_bindgen_test]
fn default_report_equals_native_golden() {
    let report = wasm::run_json("{}").unwrap_or_else(|e| panic!("run_json: {}", js_message(e)));
    // The golden file may end with a newline; the report itself is compared byte for byte.
    let golden = GOLDEN_DEFAULT_REPORT
        .strip_suffix('\n')
        .unwrap_or(GOLDEN_DEFAULT_REPORT);
    assert!(
        report == golden,
        "wasm report differs from tests/golden/seed_example.json (native); \
         first difference at byte {}",
        report
            .bytes()
            .zip(golden.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(report.len().min(golden.len()))
    );
}

#[wasm_bindgen_test]
fn job_in_slices_equals_one_shot_run() {
    let one_shot = wasm::run_json("{}").unwrap_or_else(|e| panic!("run_json: {}", js_message(e)));
    let mut job = wasm::Job::synthetic("{}".into())
        .unwrap_or_else(|e| panic!("Job::synthetic: {}", js_message(e)));
    let mut last = job.progress();
    let mut slices = 0;
    while !job.advance(1000) {
        let p = job.progress();
        assert!(
            (last..=1.0).contains(&p),
            "progress went from {last} to {p}"
        );
        last = p;
        slices += 1;
        assert!(slices < 1_000_000, "job never finished");
    }
    assert_eq!(job.progress(), 1.0);
    assert!(
        job.report_json() == one_shot,
        "sliced Job report differs from run_json"
    );
}

/// Every new router mode, run in Chromium, against the native goldens written
/// by `tests/router_view.rs` (same configs).
#[wasm_bindgen_test]
fn every_router_mode_equals_its_native_golden() {
    let modes: [(&str, &str, &str); 4] = [
        (
            "offline",
            r#"{"router_view":"offline"}"#,
            include_str!("golden/views/offline.json"),
        ),
        (
            "snapshot",
            r#"{"router_view":"snapshot","kv_event_lag_ms":20,"router_predict_ttl_ms":200,"arrival_model":"gamma","burstiness":0.3}"#,
            include_str!("golden/views/snapshot.json"),
        ),
        (
            "routers",
            r#"{"router_view":"snapshot","routers":4,"router_refresh_ms":100,"arrival_model":"gamma","burstiness":0.3,"num_requests":400,"instances":8}"#,
            include_str!("golden/views/routers.json"),
        ),
        (
            "sessions",
            r#"{"workload":"sessions","num_sessions":20,"turns":4,"routing":"sticky","routers":3,"router_view":"snapshot","spill_queue":2}"#,
            include_str!("golden/views/sessions.json"),
        ),
    ];
    for (name, config, golden) in modes {
        let report = wasm::run_json(config).unwrap_or_else(|e| panic!("{name}: {}", js_message(e)));
        assert!(
            report == golden,
            "{name}: wasm differs from the native golden at byte {}",
            report
                .bytes()
                .zip(golden.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(report.len().min(golden.len()))
        );
    }
}

/// A `Job` logging a range of decisions (the page's decision table) in Chromium, against
/// the native golden written by `tests/router_view.rs`.
#[wasm_bindgen_test]
fn job_decisions_equal_the_native_golden() {
    let config = r#"{"router_view":"snapshot","routers":4,"router_refresh_ms":100,"arrival_model":"gamma","burstiness":0.3,"num_requests":400,"instances":8}"#;
    let mut job =
        wasm::Job::synthetic(config.into()).unwrap_or_else(|e| panic!("{}", js_message(e)));
    job.record_decisions(40, 20)
        .unwrap_or_else(|e| panic!("{}", js_message(e)));
    while !job.advance(1000) {}
    let decisions = job.decisions_json();
    assert!(
        decisions == include_str!("golden/views/decisions.json"),
        "wasm decisions differ from the native golden"
    );
}

/// Disaggregated prefill and decode in Chromium: the same bytes as the native
/// goldens written by `tests/disagg.rs` (same configs).
#[wasm_bindgen_test]
fn disaggregated_runs_equal_their_native_goldens() {
    let runs: [(&str, &str, &str); 2] = [
        (
            "split",
            r#"{"instances":8,"prefill_instances":3,"decode_instances":5,"request_rate":24,"num_requests":400}"#,
            include_str!("golden/disagg/split.json"),
        ),
        (
            "conditional",
            r#"{"instances":4,"prefill_instances":2,"decode_instances":2,"request_rate":40,"num_requests":300,"disagg_min_uncached_tokens":2500,"kv_transfer_gbps":8,"queue_capacity":4,"timeout_ms":900,"max_batch":16,"decode_routing":"round_robin"}"#,
            include_str!("golden/disagg/conditional.json"),
        ),
    ];
    for (name, config, golden) in runs {
        let report = wasm::run_json(config).unwrap_or_else(|e| panic!("{name}: {}", js_message(e)));
        assert!(report.contains("\"pools\":{"), "{name}: no pools");
        assert!(
            report == golden,
            "{name}: wasm differs from the native golden at byte {}",
            report
                .bytes()
                .zip(golden.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(report.len().min(golden.len()))
        );
    }
}

/// The sample step log fitted by the wasm build gives the CLI's numbers, to the bit:
/// tests/golden/calibrate_sample.json is what `kvfleet calibrate --calibrate-json` writes
/// for it (tests/calibrate.rs checks that side).
#[wasm_bindgen_test]
fn calibration_in_wasm_gives_the_clis_numbers() {
    use kvfleet::calibrate::{calibrate_json, Form, Options};
    let log = include_str!("../data/kvfleet/steps_generated_llama3-8b-h100.csv");
    let golden: serde_json::Value =
        serde_json::from_str(include_str!("golden/calibrate_sample.json")).unwrap();
    let fit = calibrate_json(log, "steps.csv", Form::Linear, Options::default()).unwrap();
    let fit: serde_json::Value = serde_json::from_str(&fit).unwrap();
    assert_eq!(fit["predicted_us"].as_array().unwrap().len(), 600);
    assert_eq!(fit, golden);
}
