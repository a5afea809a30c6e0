//! String-in, string-out entry points shared by the CLI, the wasm bindings and the tests.
//! Errors are plain messages that name the field (or file and line) and what is allowed.

/// The crate version, as printed by `kvfleet --version` and shown by the page.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Every tunable parameter with its default, limits, step, unit and help text, as a JSON
/// array (the page builds its controls from it).
pub fn params_json() -> String {
    "[]".to_string()
}

/// The default configuration as a JSON object (the seed's example).
pub fn defaults_json() -> String {
    serde_json::to_string(&crate::Config::default()).expect("config serialises")
}

/// Runs a synthetic workload described by a JSON config (missing keys take defaults) and
/// returns the report as JSON.
pub fn run_json(config_json: &str) -> Result<String, String> {
    let _ = config_json;
    Err("not implemented yet".to_string())
}

/// Replays a Mooncake JSONL trace (given as text) under a JSON config and returns the
/// report as JSON. `name` is used in error messages ("NAME:LINE: what is wrong").
pub fn run_trace_json(config_json: &str, trace_text: &str, name: &str) -> Result<String, String> {
    let _ = (config_json, trace_text, name);
    Err("not implemented yet".to_string())
}

/// A run that can be advanced a slice at a time, so a caller (the page's worker) can show
/// progress and cancel between slices.
pub struct Job {
    _private: (),
}

impl Job {
    /// Prepares a synthetic run from a JSON config.
    pub fn synthetic(config_json: &str) -> Result<Job, String> {
        let _ = config_json;
        Err("not implemented yet".to_string())
    }

    /// Prepares a Mooncake trace replay (trace given as JSONL text).
    pub fn trace(config_json: &str, trace_text: &str, name: &str) -> Result<Job, String> {
        let _ = (config_json, trace_text, name);
        Err("not implemented yet".to_string())
    }

    /// Processes up to `max_events` events; returns true once the run has finished.
    pub fn advance(&mut self, max_events: u32) -> bool {
        let _ = max_events;
        true
    }

    /// Share of the work done, 0.0 to 1.0.
    pub fn progress(&self) -> f64 {
        1.0
    }

    /// The report as JSON (runs to the end first if needed).
    pub fn report_json(&mut self) -> String {
        "{}".to_string()
    }
}
