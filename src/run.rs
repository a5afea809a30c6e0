//! Running the simulator: a config parsed and validated, a synthetic workload or a
//! replayed trace simulated, whole or a slice at a time, into a report. Below the entry
//! points of `api` and the modules that run configs (lessons, plan, sweep); `api`
//! re-exports it.

use std::sync::Arc;

use crate::config::Config;
use crate::config::WorkloadKind;
use crate::params;
use crate::report::Report;
use crate::sessions::Sessions;
use crate::sim::Simulation;
use crate::trace::{self, TraceOptions};
use crate::workload::{IdHint, IterSource, Request, Synthetic};

/// The crate version, as printed by `kvfleet --version` and shown by the page.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Every tunable parameter with its default, limits, step, unit and help text, as a JSON
/// array (the page builds its controls from it).
pub fn params_json() -> String {
    serde_json::to_string(&params::specs()).expect("params serialise")
}

/// The default configuration as a JSON object (the seed's example).
pub fn defaults_json() -> String {
    serde_json::to_string(&Config::default()).expect("config serialises")
}

/// Parses a JSON config; missing keys take their defaults, unknown keys are errors.
pub fn parse_config(config_json: &str) -> Result<Config, String> {
    // serde's message echoes an unknown key or a bad value whole: cut it to a readable size.
    serde_json::from_str(config_json)
        .map_err(|e| crate::echo::cut_long_lines(&format!("invalid config: {e}"), 400))
}

/// A synthetic simulation (prefix pool or sessions) of a config, validated first.
pub fn synthetic_simulation(cfg: &Config) -> Result<Simulation<'static>, String> {
    let popularity = params::validate(cfg).map_err(|e| e.to_string())?;
    if cfg.workload == WorkloadKind::Sessions {
        return Ok(Simulation::new(
            cfg,
            Box::new(Sessions::new(cfg)),
            "sessions",
        ));
    }
    let source = Synthetic::new(cfg, popularity);
    let total = source.remaining() as u64;
    Ok(Simulation::new(
        cfg,
        Box::new(IterSource::new(source, total)),
        "synthetic",
    ))
}

/// A replay of `requests` (already parsed) under a config whose fleet fields are valid.
pub fn replay_simulation(
    cfg: &Config,
    requests: Vec<Request>,
    name: &str,
) -> Result<Simulation<'static>, String> {
    params::validate_replay(cfg, &requests, name)?;
    let hint = IdHint::of(&requests);
    let total = requests.len() as u64;
    Ok(validated_replay_simulation(
        cfg,
        requests.into_iter(),
        total,
        hint,
        name,
    ))
}

/// `replay_simulation` for a caller that has just had `params::validate_replay` accept
/// this config and these `total` requests (in arrival order, their ids described by
/// `hint`), so they are not checked twice: the CLI, which validates before it starts the
/// trace summary and the export, and hands the requests over as they are pulled.
pub fn validated_replay_simulation<I: Iterator<Item = Request> + 'static>(
    cfg: &Config,
    requests: I,
    total: u64,
    hint: IdHint,
    name: &str,
) -> Simulation<'static> {
    let source = IterSource::new(requests, total);
    let mut sim = Simulation::new(cfg, Box::new(source), name);
    sim.presize_ids(hint);
    sim
}

/// Runs a synthetic workload described by a JSON config (missing keys take defaults) and
/// returns the report as JSON.
pub fn run_json(config_json: &str) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    Ok(synthetic_simulation(&cfg)?.into_report().to_json())
}

fn parse_trace_text(cfg: &Config, trace_text: &str, name: &str) -> Result<Vec<Request>, String> {
    let opts = TraceOptions {
        block_size: cfg.block_size,
        ..TraceOptions::default()
    };
    trace::parse_mooncake(trace_text.as_bytes(), name, &opts).map_err(|e| e.to_string())
}

/// Replays a Mooncake JSONL trace (given as text) under a JSON config and returns the
/// report as JSON. `name` is used in error messages ("NAME:LINE: what is wrong").
pub fn run_trace_json(config_json: &str, trace_text: &str, name: &str) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    Ok(trace_report(&cfg, trace_text, name)?.to_json())
}

/// Replays a Mooncake JSONL trace (given as text) under a config; returns the report.
pub fn trace_report(cfg: &Config, trace_text: &str, name: &str) -> Result<Report, String> {
    let requests = parse_trace_text(cfg, trace_text, name)?;
    Ok(replay_simulation(cfg, requests, name)?.into_report())
}

/// A trace parsed once and kept for many runs (the page's worker parses an upload once per
/// block size, then every slider step replays the parsed requests). Its runs share the
/// requests' block ids and the hint of their ids, computed once.
pub struct ParsedTrace {
    requests: Arc<[Request]>,
    hint: IdHint,
    pub(crate) name: String,
    block_size: u32,
}

impl ParsedTrace {
    /// Parses a Mooncake JSONL trace (as text) with blocks of `block_size` tokens.
    pub fn parse(trace_text: &str, name: &str, block_size: u32) -> Result<ParsedTrace, String> {
        let opts = TraceOptions {
            block_size,
            ..TraceOptions::default()
        };
        let requests =
            trace::parse_mooncake(trace_text.as_bytes(), name, &opts).map_err(|e| e.to_string())?;
        Ok(ParsedTrace {
            hint: IdHint::of(&requests),
            requests: requests.into(),
            name: name.to_string(),
            block_size,
        })
    }

    /// The number of requests.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// True when the trace holds no request (a parsed trace never does).
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The block size it was parsed with.
    pub fn block_size(&self) -> u32 {
        self.block_size
    }

    /// The name it was parsed under (a file name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// An error unless `cfg` uses the block size parsed with.
    fn check_block_size(&self, cfg: &Config) -> Result<(), String> {
        if cfg.block_size != self.block_size {
            return Err(format!(
                "{}: parsed with block_size {}, but the config has {}; parse it again",
                self.name, self.block_size, cfg.block_size
            ));
        }
        Ok(())
    }

    /// The requests for a run of `cfg`, which must use the block size parsed with.
    pub(crate) fn requests_for(&self, cfg: &Config) -> Result<Vec<Request>, String> {
        self.check_block_size(cfg)?;
        Ok(self.requests.to_vec())
    }

    /// A replay of the requests under `cfg` (validated first), each request handed over
    /// as the run reaches it.
    fn simulation(&self, cfg: &Config) -> Result<Simulation<'static>, String> {
        self.check_block_size(cfg)?;
        params::validate_replay(cfg, &self.requests, &self.name)?;
        let requests = Arc::clone(&self.requests);
        let each = (0..requests.len()).map(move |i| requests[i].clone());
        let total = self.requests.len() as u64;
        Ok(validated_replay_simulation(
            cfg, each, total, self.hint, &self.name,
        ))
    }
}

/// A run that can be advanced a slice at a time, so a caller (the page's worker) can show
/// progress and cancel between slices.
pub struct Job {
    sim: Option<Simulation<'static>>,
    report: Option<String>,
    decisions: Option<String>,
}

/// Most decisions a `Job` logs (a page shows a window of them, not a whole run).
pub const MAX_JOB_DECISIONS: u32 = 10_000;

impl Job {
    /// Prepares a synthetic run from a JSON config.
    pub fn synthetic(config_json: &str) -> Result<Job, String> {
        Job::synthetic_config(&parse_config(config_json)?)
    }

    /// Prepares a synthetic run from a config read already (the wasm edge reads JS objects).
    pub fn synthetic_config(cfg: &Config) -> Result<Job, String> {
        Ok(Job {
            sim: Some(synthetic_simulation(cfg)?),
            report: None,
            decisions: None,
        })
    }

    /// Prepares a Mooncake trace replay (trace given as JSONL text).
    pub fn trace(config_json: &str, trace_text: &str, name: &str) -> Result<Job, String> {
        let cfg = parse_config(config_json)?;
        let requests = parse_trace_text(&cfg, trace_text, name)?;
        Ok(Job {
            sim: Some(replay_simulation(&cfg, requests, name)?),
            report: None,
            decisions: None,
        })
    }

    /// Prepares a replay of a trace parsed earlier (no parsing here).
    pub fn parsed_trace(config_json: &str, trace: &ParsedTrace) -> Result<Job, String> {
        Job::parsed_trace_config(&parse_config(config_json)?, trace)
    }

    /// `parsed_trace` with a config read already.
    pub fn parsed_trace_config(cfg: &Config, trace: &ParsedTrace) -> Result<Job, String> {
        Ok(Job {
            sim: Some(trace.simulation(cfg)?),
            report: None,
            decisions: None,
        })
    }

    /// Processes up to `max_events` events; returns true once the run has finished.
    pub fn advance(&mut self, max_events: u32) -> bool {
        match self.sim.as_mut() {
            Some(sim) => sim.advance(max_events as u64),
            None => true,
        }
    }

    /// Share of the work done, 0.0 to 1.0.
    pub fn progress(&self) -> f64 {
        self.sim.as_ref().map_or(1.0, |s| s.progress())
    }

    /// Keeps the decision records of requests `first .. first + count` (call before the
    /// first `advance`); at most `MAX_JOB_DECISIONS` of them.
    pub fn record_decisions(&mut self, first: u32, count: u32) -> Result<(), String> {
        if count > MAX_JOB_DECISIONS {
            return Err(format!(
                "decisions: invalid count: got {count}; allowed: 0 to {MAX_JOB_DECISIONS} records"
            ));
        }
        if let Some(sim) = self.sim.as_mut() {
            sim.record_decisions_range(first, count);
        }
        Ok(())
    }

    /// The report as JSON (runs to the end first if needed).
    pub fn report_json(&mut self) -> String {
        self.finish(false)
    }

    /// The report as JSON without its time series and latency distributions (runs to the
    /// end first): what a sweep's point reads (summary, config, findings, per replica), in
    /// a fraction of the text at many replicas; every other field is the full report's.
    /// Whichever of this and `report_json` is called first takes the run; later calls of
    /// either return the same text.
    pub fn point_json(&mut self) -> String {
        self.finish(true)
    }

    /// Runs to the end, once, and keeps the report's text (without its series and latency
    /// distributions for a `point`) and the decisions logged; returns the report's text.
    fn finish(&mut self, point: bool) -> String {
        if let Some(mut sim) = self.sim.take() {
            sim.run_to_end();
            if sim.decisions().is_some() {
                let records = sim.take_decisions();
                self.decisions =
                    Some(serde_json::to_string(&records).expect("decisions serialise"));
            }
            let mut report = sim.into_report();
            if point {
                report.series = Default::default();
                report.latency_cdf = Default::default();
            }
            self.report = Some(report.to_json());
        }
        self.report.clone().unwrap_or_default()
    }

    /// The logged decisions as a JSON array, in request order (runs to the end first if
    /// needed; `[]` when none were asked for).
    pub fn decisions_json(&mut self) -> String {
        self.report_json();
        self.decisions.clone().unwrap_or_else(|| "[]".to_string())
    }
}

/// The report of one run of `cfg`: the synthetic workload, or a replay of `trace`.
pub fn report_of(cfg: &Config, trace: Option<&ParsedTrace>) -> Result<Report, String> {
    let sim = match trace {
        None => synthetic_simulation(cfg)?,
        Some(t) => t.simulation(cfg)?,
    };
    Ok(sim.into_report())
}
