//! The wasm32 edge: `wasm-bindgen` exports over `crate::api`, with the same names in JS.
//! Errors become `JsError`s carrying the core's message (which names the field).
//! The TypeScript types of `run` and `runTrace` (`Config`, `Report` and their parts) are
//! derived from the Rust types (`tsify`, on wasm32 only): each derive writes its declaration,
//! doc comments as JSDoc, into the kvfleet.d.ts wasm-bindgen generates.

use crate::api;
use config_in::{config_arg, config_of};
use wasm_bindgen::prelude::*;

mod config_in;

/// Runs once when the module is instantiated: a panic's message and location go to the
/// browser console (console_error_panic_hook) and are kept for `last_panic`, so the worker
/// that reports the trap can quote them.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
    }));
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The message and location of the panic that trapped the module (empty if none did).
#[wasm_bindgen]
pub fn last_panic() -> String {
    LAST_PANIC.with(|p| p.borrow().clone())
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

/// A report as a plain JavaScript object, with `null` for statistics over nothing, exactly
/// as in the JSON (`run_json`): it is that JSON, parsed by the browser. Measured against
/// serde-wasm-bindgen's json-compatible serializer (tests/wasm_report_out.rs), this is the
/// faster way out, and that serializer would write NaN, not `null`.
fn object_of(report: &crate::Report) -> Result<JsValue, JsError> {
    js_sys::JSON::parse(&report.to_json())
        .map_err(|_| JsError::new("the report's JSON did not parse"))
}

/// Runs a synthetic workload from a config object; returns the report as an object.
#[wasm_bindgen(unchecked_return_type = "Report")]
pub fn run(
    #[wasm_bindgen(unchecked_param_type = "Partial<Config>")] config: JsValue,
) -> Result<JsValue, JsError> {
    let cfg = config_of(config)?;
    let sim = api::synthetic_simulation(&cfg).map_err(|m| JsError::new(&m))?;
    object_of(&sim.into_report())
}

/// Replays a Mooncake JSONL trace (as text) under a config object; returns the report as an
/// object. `name` names the trace in errors ("NAME:LINE: what is wrong").
#[wasm_bindgen(js_name = runTrace, unchecked_return_type = "Report")]
pub fn run_trace(
    #[wasm_bindgen(unchecked_param_type = "Partial<Config>")] config: JsValue,
    trace_text: &str,
    name: &str,
) -> Result<JsValue, JsError> {
    let cfg = config_of(config)?;
    object_of(&api::trace_report(&cfg, trace_text, name).map_err(|m| JsError::new(&m))?)
}

/// A run advanced a slice at a time (progress and cancel between slices).
#[wasm_bindgen]
pub struct Job {
    inner: api::Job,
}

#[wasm_bindgen]
impl Job {
    /// Prepares a synthetic run from a config: an object (read as `run` reads it) or JSON
    /// text.
    pub fn synthetic(
        #[wasm_bindgen(unchecked_param_type = "Partial<Config> | string")] config: JsValue,
    ) -> Result<Job, JsError> {
        let cfg = config_arg(config)?;
        api::Job::synthetic_config(&cfg)
            .map(|inner| Job { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// Prepares a Mooncake trace replay (trace given as JSONL text; config as JSON text).
    pub fn trace(config_json: &str, trace_text: &str, name: &str) -> Result<Job, JsError> {
        api::Job::trace(config_json, trace_text, name)
            .map(|inner| Job { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// Prepares a replay of a trace parsed earlier (`Trace.parse`), without parsing it; the
    /// config as an object or JSON text.
    pub fn from_trace(
        #[wasm_bindgen(unchecked_param_type = "Partial<Config> | string")] config: JsValue,
        trace: &Trace,
    ) -> Result<Job, JsError> {
        let cfg = config_arg(config)?;
        api::Job::parsed_trace_config(&cfg, &trace.inner)
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

    /// The report as JSON without its time series and latency distributions (a sweep's
    /// point: summary, config, findings, per replica).
    pub fn point_json(&mut self) -> String {
        self.inner.point_json()
    }

    /// Keeps the decision records of requests `first .. first + count` (before the first
    /// `advance`; at most 10,000).
    pub fn record_decisions(&mut self, first: u32, count: u32) -> Result<(), JsError> {
        self.inner
            .record_decisions(first, count)
            .map_err(|m| JsError::new(&m))
    }

    /// The logged decisions as a JSON array (runs to the end first if needed).
    pub fn decisions_json(&mut self) -> String {
        self.inner.decisions_json()
    }
}

/// Traps the module on purpose: the page's tests use it to check that a trap (out of memory,
/// a panic) shows its real error and that a fresh worker then runs normally.
#[wasm_bindgen]
pub fn debug_trap() {
    panic!("debug_trap: a trap requested on purpose");
}

/// Both break-and-fix lessons (story, broken config, goal checks, hints, fixes) as JSON.
#[wasm_bindgen]
pub fn lessons_json() -> String {
    api::lessons_json()
}

/// A lesson's interview answers and short check, rendered and verified by runs, as JSON.
#[wasm_bindgen]
pub fn lesson_material_json(id: &str) -> Result<String, JsError> {
    api::lesson_material_json(id, None).map_err(|m| JsError::new(&m))
}

/// `lesson_material_json` for a lesson that replays a built-in trace, parsed earlier;
/// `on_diagram`, when given, is called with the figure's JSON as soon as its runs are done
/// (before the interview's and the check's runs).
#[wasm_bindgen]
pub fn lesson_material_trace_json(
    id: &str,
    trace: &Trace,
    on_diagram: Option<js_sys::Function>,
) -> Result<String, JsError> {
    let mut hand = |d: String| {
        if let Some(f) = &on_diagram {
            // What the page does with it is the page's: an exception there is not the run's.
            let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&d));
        }
    };
    api::lesson_material_json_with(id, Some(&trace.inner), &mut hand).map_err(|m| JsError::new(&m))
}

/// The points of a sweep spec over a JSON config, as JSON `{param, points: [{value, config}]}`.
#[wasm_bindgen]
pub fn sweep_plan_json(config_json: &str, spec: &str) -> Result<String, JsError> {
    api::sweep_plan_json(config_json, spec).map_err(|m| JsError::new(&m))
}

/// A Mooncake trace parsed once and kept for many runs.
#[wasm_bindgen]
pub struct Trace {
    inner: api::ParsedTrace,
}

#[wasm_bindgen]
impl Trace {
    /// Parses a Mooncake JSONL trace (as text) with blocks of `block_size` tokens; errors
    /// name the line ("NAME:LINE: what is wrong").
    pub fn parse(trace_text: &str, name: &str, block_size: u32) -> Result<Trace, JsError> {
        api::ParsedTrace::parse(trace_text, name, block_size)
            .map(|inner| Trace { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// The number of requests.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when the trace holds no request (a parsed trace never does).
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The block size it was parsed with.
    pub fn block_size(&self) -> u32 {
        self.inner.block_size()
    }
}

/// Plans one routing policy: the fewest replicas that meet the targets, and the goodput.
/// `spec_json` is `{"slo": {...}, "limits": {...}}`. Returns the plan JSON.
#[wasm_bindgen]
pub fn plan_policy_json(
    config_json: &str,
    policy: &str,
    spec_json: &str,
) -> Result<String, JsError> {
    api::plan_policy_json(config_json, policy, spec_json, None).map_err(|m| JsError::new(&m))
}

/// `plan_policy_json` over a trace parsed earlier.
#[wasm_bindgen]
pub fn plan_policy_trace_json(
    config_json: &str,
    policy: &str,
    spec_json: &str,
    trace: &Trace,
) -> Result<String, JsError> {
    api::plan_policy_json(config_json, policy, spec_json, Some(&trace.inner))
        .map_err(|m| JsError::new(&m))
}

/// The cheapest mix of two or more presets for one routing policy: `spec_json` is
/// `{"slo", "limits", "presets": [{"preset", "gpu_hour_usd"}, ...]}`. Returns
/// `{"mix": MixPlan, "headline": TEXT}`.
#[wasm_bindgen]
pub fn plan_mix_json(config_json: &str, policy: &str, spec_json: &str) -> Result<String, JsError> {
    api::plan_mix_json(config_json, policy, spec_json, None).map_err(|m| JsError::new(&m))
}

/// `plan_mix_json` over a trace parsed earlier.
#[wasm_bindgen]
pub fn plan_mix_trace_json(
    config_json: &str,
    policy: &str,
    spec_json: &str,
    trace: &Trace,
) -> Result<String, JsError> {
    api::plan_mix_json(config_json, policy, spec_json, Some(&trace.inner))
        .map_err(|m| JsError::new(&m))
}

/// The static fleet of `replicas` against the config's scaler, on the same workload.
/// Returns the comparison JSON.
#[wasm_bindgen]
pub fn plan_autoscale_json(
    config_json: &str,
    replicas: u32,
    spec_json: &str,
) -> Result<String, JsError> {
    api::plan_autoscale_json(config_json, replicas, spec_json, None).map_err(|m| JsError::new(&m))
}

/// `plan_autoscale_json` over a trace parsed earlier.
#[wasm_bindgen]
pub fn plan_autoscale_trace_json(
    config_json: &str,
    replicas: u32,
    spec_json: &str,
    trace: &Trace,
) -> Result<String, JsError> {
    api::plan_autoscale_json(config_json, replicas, spec_json, Some(&trace.inner))
        .map_err(|m| JsError::new(&m))
}

/// Every engine preset with its hardware and KV capacity at `block_size`, as JSON.
#[wasm_bindgen]
pub fn presets_json(block_size: u32) -> String {
    api::presets_json(block_size)
}

/// The planner's headline over a JSON array of policy plans and the spec they were planned
/// to (when none met the targets: the best reached, naming the page's controls).
#[wasm_bindgen]
pub fn plan_headline(plans_json: &str, spec_json: &str) -> Result<String, JsError> {
    api::plan_headline(plans_json, spec_json).map_err(|m| JsError::new(&m))
}

/// The policy the planner's headline names over a JSON array of policy plans ("" for none).
#[wasm_bindgen]
pub fn plan_cheapest(plans_json: &str) -> Result<String, JsError> {
    api::plan_cheapest(plans_json).map_err(|m| JsError::new(&m))
}

/// The policies tied on cost with the one the headline names, itself first (a JSON array).
#[wasm_bindgen]
pub fn plan_tied(plans_json: &str) -> Result<String, JsError> {
    api::plan_tied(plans_json).map_err(|m| JsError::new(&m))
}

/// Runs a synthetic workload (JSON config) on `seeds` seeds (`--des-seeds`); the report
/// as JSON, with its `seeds` section when there are several.
#[wasm_bindgen]
pub fn run_seeds_json(config_json: &str, seeds: u32) -> Result<String, JsError> {
    api::run_seeds_json(config_json, seeds).map_err(|m| JsError::new(&m))
}

/// The spread of one figure over K seeds (`noise::spread`) as JSON.
#[wasm_bindgen]
pub fn spread_json(values: &[f64]) -> Result<String, JsError> {
    api::spread_json(values).map_err(|m| JsError::new(&m))
}

/// Fits a step log (CSV or JSONL text, `name` for messages) in `form` (`linear` |
/// `polynomial`), the polynomial's utilisation over `kv_capacity_tokens` (or none); the fit
/// as JSON, the numbers `kvfleet calibrate --calibrate-json` writes.
#[wasm_bindgen]
pub fn calibrate_json(
    text: &str,
    name: &str,
    form: &str,
    kv_capacity_tokens: Option<f64>,
) -> Result<String, JsError> {
    api::calibrate_json(text, name, form, kv_capacity_tokens).map_err(|m| JsError::new(&m))
}

/// A request log's fit by simulation, driven a batch at a time by the page's workers
/// (`calibrate::request_search`): the same fit as `kvfleet calibrate --requests FILE`.
#[wasm_bindgen]
pub struct RequestSearch {
    inner: crate::calibrate::request_search::RequestSearch,
}

#[wasm_bindgen]
impl RequestSearch {
    /// Reads a request log (text; `name` for messages) and prepares the search from the
    /// preset `start`'s engine with at most `max_evaluations` replays.
    pub fn open(
        text: &str,
        name: &str,
        start: &str,
        max_evaluations: u32,
    ) -> Result<RequestSearch, JsError> {
        crate::calibrate::request_search::RequestSearch::open(text, name, start, max_evaluations)
            .map(|inner| RequestSearch { inner })
            .map_err(|m| JsError::new(&m))
    }

    /// Requests in the log.
    pub fn requests(&self) -> usize {
        self.inner.requests()
    }

    /// The next batch: four coefficients per candidate; empty once the search has ended.
    pub fn next_batch(&mut self) -> Vec<f64> {
        self.inner.next_batch()
    }

    /// One candidate's score (a replay of the log), as numbers for `tell`.
    pub fn score(&self, coefficients: &[f64]) -> Result<Vec<f64>, JsError> {
        self.inner.score(coefficients).map_err(|m| JsError::new(&m))
    }

    /// The batch's scores, in order; true when a step has just finished (`progress`).
    pub fn tell(&mut self, scores: &[f64]) -> Result<bool, JsError> {
        self.inner
            .tell(scores)
            .map(|p| p.is_some())
            .map_err(|m| JsError::new(&m))
    }

    /// Replays made, the most allowed, the best distance, the simplex's spread.
    pub fn progress(&self) -> Vec<f64> {
        let p = self.inner.progress();
        vec![
            p.evaluations as f64,
            p.max_evaluations as f64,
            p.distance,
            p.factor,
        ]
    }

    /// Stops the search: the fit is the best so far.
    pub fn stop(&mut self) {
        self.inner.stop()
    }

    /// The fit (the best so far while it runs) as JSON; undefined before the start is scored.
    pub fn fit_json(&self) -> Option<String> {
        self.inner.fit_json()
    }
}
