//! The wasm32 edge: `wasm-bindgen` exports over `crate::api`, with the same names in JS.
//! Errors become `JsError`s carrying the core's message (which names the field).

use crate::api;
use wasm_bindgen::prelude::*;

/// Runs once when the module is instantiated: panics go to the browser console with a
/// Rust backtrace-style message instead of "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version (shown by the page).
#[wasm_bindgen]
pub fn version() -> String {
    api::version().to_string()
}

/// Every tunable parameter with default, limits, step, unit and help, as a JSON array.
#[wasm_bindgen]
pub fn params_json() -> String {
    api::params_json()
}

/// The default configuration as a JSON object.
#[wasm_bindgen]
pub fn defaults_json() -> String {
    api::defaults_json()
}

/// Runs a synthetic workload from a JSON config; returns the report as JSON.
#[wasm_bindgen]
pub fn run_json(config_json: &str) -> Result<String, JsError> {
    api::run_json(config_json).map_err(|m| JsError::new(&m))
}

/// Replays a Mooncake JSONL trace (as text) under a JSON config; returns the report as JSON.
#[wasm_bindgen]
pub fn run_trace_json(config_json: &str, trace_text: &str, name: &str) -> Result<String, JsError> {
    api::run_trace_json(config_json, trace_text, name).map_err(|m| JsError::new(&m))
}

/// A run advanced a slice at a time (progress and cancel between slices).
#[wasm_bindgen]
pub struct Job {
    inner: api::Job,
}

#[wasm_bindgen]
impl Job {
    /// Prepares a synthetic run from a JSON config.
    pub fn synthetic(config_json: &str) -> Result<Job, JsError> {
        api::Job::synthetic(config_json)
            .map(|inner| Job { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// Prepares a Mooncake trace replay (trace given as JSONL text).
    pub fn trace(config_json: &str, trace_text: &str, name: &str) -> Result<Job, JsError> {
        api::Job::trace(config_json, trace_text, name)
            .map(|inner| Job { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// Processes up to `max_events` events; returns true once the run has finished.
    pub fn advance(&mut self, max_events: u32) -> bool {
        self.inner.advance(max_events)
    }

    /// Share of the work done, 0.0 to 1.0.
    pub fn progress(&self) -> f64 {
        self.inner.progress()
    }

    /// The report as JSON (runs to the end first if needed).
    pub fn report_json(&mut self) -> String {
        self.inner.report_json()
    }
}

/// Both break-and-fix lessons (story, broken config, goal checks, hints, fixes) as JSON.
#[wasm_bindgen]
pub fn lessons_json() -> String {
    api::lessons_json()
}

/// The points of a sweep spec over a JSON config, as JSON `{param, points: [{value, config}]}`.
#[wasm_bindgen]
pub fn sweep_plan_json(config_json: &str, spec: &str) -> Result<String, JsError> {
    api::sweep_plan_json(config_json, spec).map_err(|m| JsError::new(&m))
}
