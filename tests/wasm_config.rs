//! Browser tests of `run` and `runTrace` taking a config *object* (read by serde-wasm-bindgen,
//! not through JSON text): the same report as `run_json` of the same config, unknown keys and
//! bad values refused with a message naming them, `undefined` keys taking their defaults.
#![cfg(target_arch = "wasm32")]

use kvfleet::wasm;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn js_message(err: wasm_bindgen::JsError) -> String {
    let value: JsValue = err.into();
    value
        .dyn_into::<js_sys::Error>()
        .expect("a JsError reaches JS as an Error")
        .message()
        .into()
}

/// A JS object built by the browser's own JSON parser.
fn object(json: &str) -> JsValue {
    js_sys::JSON::parse(json).expect("test JSON parses")
}

/// The report JSON text as the browser writes it once parsed (JS prints `1.0` as `1`).
fn canonical(json: &str) -> String {
    text_of(&object(json))
}

/// The report object as the browser's JSON text (keys in the report's order).
fn text_of(report: &JsValue) -> String {
    js_sys::JSON::stringify(report)
        .expect("a report stringifies")
        .as_string()
        .expect("a string")
}

const CONFIG: &str =
    r#"{"instances":3,"routing":"round_robin","num_requests":400,"seed":7,"kv_blocks":null}"#;

#[wasm_bindgen_test]
fn an_object_config_gives_the_report_of_its_json_text() {
    let from_object = wasm::run(object(CONFIG)).unwrap_or_else(|e| panic!("{}", js_message(e)));
    let from_text = wasm::run_json(CONFIG).unwrap_or_else(|e| panic!("{}", js_message(e)));
    assert!(
        text_of(&from_object) == canonical(&from_text),
        "run(object) differs from run_json(text)"
    );
    let summary = js_sys::Reflect::get(&from_object, &"config".into()).unwrap();
    let seed = js_sys::Reflect::get(&summary, &"seed".into()).unwrap();
    assert_eq!(seed.as_f64(), Some(7.0), "the object's seed was used");
}

/// A one-request Mooncake trace.
const TRACE: &str =
    r#"{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [0, 1]}"#;

#[wasm_bindgen_test]
fn unknown_keys_and_bad_values_are_refused_by_name() {
    let cases = [
        (r#"{"no_such_key":1}"#, "unknown field `no_such_key`"),
        (r#"{"routing":"bogus"}"#, "unknown variant `bogus`"),
        (r#"{"instances":"four"}"#, "invalid type: string \"four\""),
        (r#"{"instances":0}"#, "instances"),
        (r#"{"instances":2.5}"#, "2.5"),
        ("[1]", "invalid type: sequence, expected struct Config"),
        ("5", "expected struct Config"),
    ];
    for (json, wanted) in cases {
        let err = wasm::run(object(json)).expect_err(json);
        let msg = js_message(err);
        assert!(msg.contains(wanted), "{json}: {msg:?} lacks {wanted:?}");
        let err = wasm::run_trace(object(json), TRACE, "t.jsonl").expect_err(json);
        let msg = js_message(err);
        assert!(
            msg.contains(wanted),
            "runTrace {json}: {msg:?} lacks {wanted:?}"
        );
    }
    // The unknown key's message lists what is allowed.
    let msg = js_message(wasm::run(object(r#"{"no_such_key":1}"#)).unwrap_err());
    assert!(
        msg.contains("expected one of") && msg.contains("`seed`"),
        "{msg}"
    );
}

#[wasm_bindgen_test]
fn an_undefined_key_takes_its_default() {
    // `{instances: undefined}` as JS code writes it: JSON.stringify dropped such keys, and so
    // must the object reader.
    let config = object(r#"{"num_requests":200}"#);
    js_sys::Reflect::set(&config, &"instances".into(), &JsValue::UNDEFINED).unwrap();
    let report = wasm::run(config).unwrap_or_else(|e| panic!("{}", js_message(e)));
    let expected = wasm::run_json(r#"{"num_requests":200}"#).unwrap();
    assert!(
        text_of(&report) == canonical(&expected),
        "an undefined key changed the run"
    );
}

#[wasm_bindgen_test]
fn a_job_takes_an_object_or_json_text_alike() {
    let run_to_end = |mut job: wasm::Job| {
        while !job.advance(10_000) {}
        job.report_json()
    };
    let from_object =
        wasm::Job::synthetic(object(CONFIG)).unwrap_or_else(|e| panic!("{}", js_message(e)));
    let from_text =
        wasm::Job::synthetic(CONFIG.into()).unwrap_or_else(|e| panic!("{}", js_message(e)));
    let expected = wasm::run_json(CONFIG).unwrap();
    assert!(
        run_to_end(from_object) == expected,
        "Job.synthetic(object) differs from run_json"
    );
    assert!(
        run_to_end(from_text) == expected,
        "Job.synthetic(text) differs from run_json"
    );

    let trace =
        wasm::Trace::parse(TRACE, "t.jsonl", 512).unwrap_or_else(|e| panic!("{}", js_message(e)));
    let job = wasm::Job::from_trace(object(r#"{"instances":2}"#), &trace)
        .unwrap_or_else(|e| panic!("{}", js_message(e)));
    let expected = wasm::run_trace_json(r#"{"instances":2}"#, TRACE, "t.jsonl").unwrap();
    assert!(
        run_to_end(job) == expected,
        "Job.from_trace(object) differs from run_trace_json"
    );

    let err = wasm::Job::synthetic(object(r#"{"no_such_key":1}"#))
        .err()
        .expect("an unknown key is refused");
    assert!(js_message(err).contains("unknown field `no_such_key`"));
    let err = wasm::Job::from_trace(object(r#"{"instances":0}"#), &trace)
        .err()
        .expect("0 instances is refused");
    assert!(js_message(err).contains("instances"));
}

#[wasm_bindgen_test]
fn a_number_json_cannot_carry_is_refused_by_name() {
    // NaN and Infinity reach the reader as numbers (JSON text made them `null`): the range
    // check still names the field.
    for (key, value) in [("request_rate", f64::NAN), ("timeout_ms", f64::INFINITY)] {
        let config = object("{}");
        js_sys::Reflect::set(&config, &key.into(), &value.into()).unwrap();
        let msg = js_message(wasm::run(config).expect_err(key));
        assert!(msg.contains(key), "{key} = {value}: {msg:?}");
    }
}
