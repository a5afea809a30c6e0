//! Entry points for fuzzing (the cargo-fuzz targets in `fuzz/` and the stable property
//! tests both call them): each feeds its bytes to one surface of the simulator and
//! panics when an invariant breaks, not only when something else panics.
//!
//! - `mooncake`, `workload_csv`, `workload_jsonl`: a parse either fails with a
//!   `FILE[:LINE]: message` of bounded length naming a line that exists, or yields
//!   requests in arrival order with ids by position, valid lengths and id counts, times
//!   within the clock, which export and re-parse to themselves and, when small, replay
//!   with every run invariant kept;
//! - `config_json`: a config either fails to parse or validate, or runs (cut to a few
//!   dozen requests) keeping every run invariant, twice to the same bytes (the stable
//!   tests also feed it configs that `config` draws over every setting);
//! - `sweep_spec`: a spec either fails with a `--des-sweep` message of bounded length or
//!   gives at most 1000 valid points;
//! - `job`: a sliced `Job` of a config drawn from the bytes (`config`: every setting,
//!   split fleets included) equals `run_json`, and the run keeps every invariant;
//! - `sticky_spill`: a sessions run under session affinity with spill keeps the sticky
//!   and spill rules in its decision log.

mod configs;
mod decision_rules;
mod ensure;
mod invariants;
mod pools;
mod preemption;
mod shared;
mod slo;
mod tier;

pub use configs::{config, Draws};
pub use invariants::check_report;

use crate::config::{Config, Policy, WorkloadKind};
use crate::trace::{self, TraceError, TraceOptions, WorkloadFormat};
use crate::{api, params, sweep, Request};

/// Longest error message allowed (a long echo is a bug).
const MAX_MESSAGE_CHARS: usize = 1200;

/// Most requests replayed from a fuzzed trace.
const MAX_REPLAYED: usize = 64;

/// A Mooncake JSONL trace.
pub fn mooncake(data: &[u8]) {
    let opts = options(data);
    let parsed = trace::parse_mooncake(data, "fuzz.jsonl", &opts);
    check_parse(data, parsed, &opts, true);
}

/// A workload CSV file.
pub fn workload_csv(data: &[u8]) {
    let opts = options(data);
    let parsed = trace::parse_workload_file(data, "fuzz.csv", WorkloadFormat::Csv, &opts);
    check_parse(data, parsed, &opts, false);
}

/// A workload JSONL file.
pub fn workload_jsonl(data: &[u8]) {
    let opts = options(data);
    let parsed = trace::parse_workload_file(data, "fuzz.jsonl", WorkloadFormat::Jsonl, &opts);
    check_parse(data, parsed, &opts, false);
}

/// Options chosen by the input's length, so each input always reads the same way.
fn options(data: &[u8]) -> TraceOptions {
    TraceOptions {
        sort_arrivals: data.len() % 2 == 1,
        arrival_speedup: [1.0, 1.0, 2.0, 0.001][data.len() / 2 % 4],
        ..TraceOptions::default()
    }
}

fn check_parse(
    data: &[u8],
    parsed: Result<Vec<Request>, TraceError>,
    opts: &TraceOptions,
    mooncake: bool,
) {
    match parsed {
        Err(e) => check_trace_error(data, &e),
        Ok(requests) => {
            check_requests(&requests, opts.block_size);
            if mooncake {
                check_round_trip(&requests, opts.block_size);
            }
            if requests.len() <= MAX_REPLAYED {
                replay(requests);
            }
        }
    }
}

fn check_trace_error(data: &[u8], e: &TraceError) {
    let text = e.to_string();
    assert!(text.starts_with(&format!("{}:", e.file)), "{text}");
    assert!(!e.message.is_empty(), "an empty message");
    assert!(
        text.chars().count() <= MAX_MESSAGE_CHARS,
        "a long message: {text}"
    );
    if let Some(line) = e.line {
        let lines = data.split(|&b| b == b'\n').count() as u64;
        assert!(line >= 1 && line <= lines, "line {line} of {lines}: {text}");
    }
}

/// Arrival order, ids by position, lengths >= 1, one id per block (or none), times
/// within the clock.
fn check_requests(requests: &[Request], block_size: u32) {
    assert!(
        !requests.is_empty(),
        "an empty list is an error, not a trace"
    );
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(r.id as usize, i, "ids by position");
        assert!(r.prompt_tokens >= 1 && r.output_tokens >= 1);
        let ids = r.block_ids.len();
        assert!(ids == 0 || ids == r.prompt_tokens.div_ceil(block_size) as usize);
        assert!(r.arrival_us < crate::limits::MAX_TIME_US);
        if i > 0 {
            assert!(requests[i - 1].arrival_us <= r.arrival_us, "arrival order");
        }
    }
}

/// Exporting and re-parsing gives the same requests (times are written in ms with 3
/// decimals, exact to the µs below 2^52 µs, about 142 years).
fn check_round_trip(requests: &[Request], block_size: u32) {
    if requests.iter().any(|r| r.arrival_us >= 1 << 52) {
        return;
    }
    let mut text = Vec::new();
    trace::export_mooncake(requests, block_size, &mut text).expect("a parsed list exports");
    let opts = TraceOptions {
        block_size,
        ..TraceOptions::default()
    };
    let again = trace::parse_mooncake(text.as_slice(), "export", &opts).expect("re-parses");
    assert_eq!(again, requests, "export then parse changes the requests");
}

/// Replays `requests` on a small fleet, if the limits allow, and checks the run.
fn replay(requests: Vec<Request>) {
    let cfg = Config {
        instances: 2,
        max_batch: 4,
        queue_capacity: Some(2),
        timeout_ms: Some(5000.0),
        ..Config::default()
    };
    let Ok(sim) = api::replay_simulation(&cfg, requests, "fuzz") else {
        return;
    };
    let report = sim.into_report();
    check_report(&cfg, &report, &report.to_json(), None);
}

/// A config as JSON (the page's and the wasm API's input).
pub fn config_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cfg) = api::parse_config(text) else {
        return;
    };
    if let Err(e) = params::validate(&cfg) {
        let text = e.to_string();
        assert!(text.starts_with("invalid "), "{text}");
        assert!(
            text.chars().count() <= MAX_MESSAGE_CHARS,
            "a long message: {text}"
        );
        return;
    }
    run(&shrunk(cfg));
}

/// The config cut to a few dozen requests (a fuzzed one may ask for millions).
fn shrunk(cfg: Config) -> Config {
    Config {
        num_requests: cfg.num_requests.min(48),
        num_sessions: cfg.num_sessions.min(6),
        turns: cfg.turns.min(5),
        ..cfg
    }
}

/// Runs a synthetic config with its decision log, checks every invariant, and runs it
/// again to the same bytes. Invalid configs are skipped.
pub fn run(cfg: &Config) {
    let Ok(mut sim) = api::synthetic_simulation(cfg) else {
        return;
    };
    sim.record_decisions();
    sim.run_to_end();
    let decisions = sim.take_decisions();
    let report = sim.into_report();
    let json = report.to_json();
    check_report(cfg, &report, &json, Some(&decisions));
    let again = api::synthetic_simulation(cfg).expect("valid once, valid twice");
    assert!(
        again.into_report().to_json() == json,
        "same seed, other bytes"
    );
}

/// A sweep spec over a small default config.
pub fn sweep_spec(data: &[u8]) {
    let spec = String::from_utf8_lossy(data);
    let base = Config {
        num_requests: 20,
        ..Config::default()
    };
    match sweep::plan(&base, &spec) {
        Err(e) => {
            assert!(e.starts_with("--des-sweep"), "{e}");
            // The list of sweepable parameters grows with the model; what must stay
            // short is the rest: the part that echoes the spec.
            let echoed = e.split("; allowed: ").next().unwrap_or(&e);
            assert!(
                echoed.chars().count() <= MAX_MESSAGE_CHARS,
                "a long message: {e}"
            );
        }
        Ok((_, points)) => {
            assert!(!points.is_empty() && points.len() <= sweep::MAX_POINTS);
            for p in points.iter().take(3) {
                params::validate(&p.config).expect("every point validates");
            }
        }
    }
}

/// A `Job` of a config drawn from the bytes, advanced in slices the bytes choose,
/// gives `run_json`'s bytes.
pub fn job(data: &[u8]) {
    let mut draws = Draws::new(data);
    let cfg = config(&mut draws);
    if params::validate(&cfg).is_err() {
        return;
    }
    let json = serde_json::to_string(&cfg).expect("config serialises");
    let mut job = api::Job::synthetic(&json).expect("a valid config makes a job");
    let mut last = 0.0;
    while !job.advance(draws.byte() as u32 % 50 + 1) {
        let progress = job.progress();
        assert!(
            (last..=1.0).contains(&progress),
            "progress {last} -> {progress}"
        );
        last = progress;
    }
    let sliced = job.report_json();
    assert!(
        sliced == api::run_json(&json).expect("runs"),
        "a sliced job differs"
    );
    run(&cfg);
}

/// Sessions under session affinity with a spill threshold, from the bytes.
pub fn sticky_spill(data: &[u8]) {
    let mut draws = Draws::new(data);
    let mut cfg = config(&mut draws);
    cfg.workload = WorkloadKind::Sessions;
    cfg.routing = draws.pick(&[
        Policy::Sticky,
        Policy::Sticky,
        Policy::Kv,
        Policy::PrefixAware,
    ]);
    cfg.session_affinity = draws.maybe(&[50.0, 100.0]);
    cfg.spill_queue = draws.range(1, 4);
    cfg.max_batch = draws.pick(&[1, 2]);
    cfg.num_sessions = draws.range(2, 8);
    cfg.kv_blocks = None;
    run(&cfg);
}
