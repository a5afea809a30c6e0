//! The report going out, measured both ways in Chromium (an ignored test: a measurement, not
//! a check). On the conversation trace's report under the default config: (a) serde-wasm-bindgen's
//! json-compatible serializer building the JS object, against (b) the report's JSON text and
//! the browser's `JSON.parse` (what `run` and `runTrace` do). Medians of 41 runs (taking turns) (each the
//! mean of 20 conversions) after a warm-up, printed; docs/src/performance.md records them.
//!
//!     cargo test --release --target wasm32-unknown-unknown --test wasm_report_out -- --include-ignored --nocapture
#![cfg(target_arch = "wasm32")]

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

const TRACE: &str = include_str!("../data/mooncake/conversation_trace.jsonl");
const RUNS: usize = 41;
/// Each run converts the report this many times (one conversion is a fraction of a
/// millisecond, near the browser clock's grain); the figure is the time of one.
const BATCH: usize = 20;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Milliseconds of one call of each of `fa` and `fb`, for each of RUNS runs of BATCH calls
/// after a warm-up; the two take turns, so that both meet the same garbage collections.
fn times(mut fa: impl FnMut() -> JsValue, mut fb: impl FnMut() -> JsValue) -> (Vec<f64>, Vec<f64>) {
    let batch = |f: &mut dyn FnMut() -> JsValue| {
        let t = now();
        for _ in 0..BATCH {
            assert!(f().is_object());
        }
        (now() - t) / BATCH as f64
    };
    batch(&mut fa);
    batch(&mut fb);
    (0..RUNS).map(|_| (batch(&mut fa), batch(&mut fb))).unzip()
}

#[wasm_bindgen_test]
#[ignore]
fn report_out_json_text_against_serde_wasm_bindgen() {
    let cfg = kvfleet::Config::default();
    let report = kvfleet::api::trace_report(&cfg, TRACE, "conversation_trace.jsonl")
        .expect("the conversation trace replays");
    let json_len = report.to_json().len();
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let (via_swb, via_json) = times(
        || report.serialize(&serializer).expect("serialises"),
        || js_sys::JSON::parse(&report.to_json()).expect("the JSON parses"),
    );
    let line = format!(
        "report out ({} requests, {} bytes of JSON): (a) serde-wasm-bindgen json_compatible median {:.3} ms, \
         (b) JSON text + JSON.parse median {:.3} ms ({RUNS} runs of {BATCH} each)",
        report.summary.requests,
        json_len,
        median(via_swb.clone()),
        median(via_json.clone()),
    );
    web_sys_log(&line);
    web_sys_log(&format!(
        "(a) runs: {via_swb:.3?}\n(b) runs: {via_json:.3?}"
    ));
}

fn web_sys_log(s: &str) {
    wasm_bindgen_test::console_log!("{s}");
}
