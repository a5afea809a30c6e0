//! The CLI's inputs: the config of the flags (a lesson's with `--preset`) and the trace
//! or workload file, read whole or streamed.

use std::fs::File;
use std::io::BufReader;

use clap::parser::ValueSource;
use clap::ArgMatches;
use kvfleet::lessons::{self, Lesson};
use kvfleet::params;
use kvfleet::trace::{self, TraceOptions, WorkloadFormat};
use kvfleet::{Config, ConfigError, Request};

use crate::args::{KvBlocks, QueueLimit, RunArgs};

/// A config error with the flag's name (`--des-...`) in front.
pub(crate) fn flag_error(e: ConfigError) -> String {
    let flag = params::specs()
        .into_iter()
        .find(|s| s.name == e.field)
        .map_or(e.field.clone(), |s| s.flag.to_string());
    format!("{flag}: {e}")
}

fn open(path: &str) -> Result<BufReader<File>, String> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| format!("cannot read {path}: {e}"))
}

/// The largest Mooncake trace read whole and on several threads; a larger one, or one
/// that is not a plain file, streams through one buffer.
const WHOLE_READ_MAX_BYTES: u64 = 64 << 20;

/// Reads the Mooncake trace at `path`: a plain file of at most `WHOLE_READ_MAX_BYTES`
/// whole (mapped, `mapped.rs`), its lines parsed on up to 4 threads (the same requests and errors as the
/// stream, see `trace::parse_mooncake_text`); anything else as a stream.
pub(crate) fn parse_mooncake_file(path: &str, opts: &TraceOptions) -> Result<Vec<Request>, String> {
    let whole =
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= WHOLE_READ_MAX_BYTES);
    if let Some(text) = whole.then(|| crate::mapped::file_bytes(path)).flatten() {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        return trace::parse_mooncake_text(&text, path, opts, threads).map_err(|e| e.to_string());
    }
    trace::parse_mooncake(open(path)?, path, opts).map_err(|e| e.to_string())
}

fn trace_options(a: &RunArgs, cfg: &Config) -> TraceOptions {
    TraceOptions {
        // The run's block size: the flag's, or a lesson's (`--preset`) when the flag is not given.
        block_size: cfg.block_size,
        arrival_speedup: a.arrival_speedup,
        max_requests: a.max_requests,
        sort_arrivals: a.sort_arrivals,
    }
}

/// Reads the trace or workload file, if one was given.
pub(crate) fn read_trace(
    a: &RunArgs,
    cfg: &Config,
    lesson: Option<&Lesson>,
) -> Result<Option<(Vec<Request>, String)>, String> {
    let opts = trace_options(a, cfg);
    if let Some(path) = &a.mooncake_trace {
        let reqs = parse_mooncake_file(path, &opts)?;
        return Ok(Some((reqs, base_name(path))));
    }
    if let Some(path) = &a.workload_file {
        let format = WorkloadFormat::from_path(path).ok_or_else(|| {
            format!("--des-workload-file: cannot tell the format of {path}: name it .csv or .jsonl")
        })?;
        let reqs = trace::parse_workload_file(open(path)?, path, format, &opts)
            .map_err(|e| e.to_string())?;
        return Ok(Some((reqs, base_name(path))));
    }
    // A lesson on a built-in trace replays it (embedded in the binary).
    if let Some(l) = lesson.filter(|l| !l.trace.is_empty()) {
        let text = crate::builtin::text(l.trace)
            .ok_or_else(|| format!("--preset {}: no built-in trace {}", l.id, l.trace))?;
        let reqs =
            trace::parse_mooncake(text.as_bytes(), l.trace, &opts).map_err(|e| e.to_string())?;
        return Ok(Some((reqs, l.trace.to_string())));
    }
    Ok(None)
}

/// `--des-fleet` replaces `--des-engine` and sets the capacity per preset: refuses the
/// flags that would contradict it, by name.
fn check_fleet_flags(a: &RunArgs, matches: &ArgMatches) -> Result<(), String> {
    if a.fleet.is_none() {
        return Ok(());
    }
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    if given("engine") || a.engine_file.is_some() {
        return Err(
            "--des-fleet: each group names its preset; leave out --des-engine and \
             --des-engine-file"
                .to_string(),
        );
    }
    if a.kv_blocks == Some(KvBlocks::Unbounded) {
        return Err(
            "--des-kv-blocks unbounded: a mixed fleet's replicas hold their presets' \
             KV (auto); give a number of blocks for every replica, or leave it out"
                .to_string(),
        );
    }
    Ok(())
}

fn base_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The config of the flags; with `--preset`, the lesson's broken state with the flags
/// given explicitly on the command line applied on top.
pub(crate) fn config(
    a: &RunArgs,
    matches: &ArgMatches,
) -> Result<(Config, Option<Lesson>), String> {
    if a.kv_blocks == Some(KvBlocks::Auto) && a.engine.hardware().is_none() {
        return Err(format!(
            "--des-kv-blocks auto: the {} engine has no hardware to derive KV capacity from; \
             give a number of blocks, or pick a hardware preset ({})",
            a.engine.name(),
            kvfleet::timing::EnginePreset::names()
        ));
    }
    if a.kv_blocks == Some(KvBlocks::Auto) && a.engine_file.is_some() {
        return Err(
            "--des-kv-blocks auto: a fitted engine (--des-engine-file) has no hardware to \
             derive KV capacity from; give a number of blocks"
                .to_string(),
        );
    }
    check_fleet_flags(a, matches)?;
    let Some(id) = &a.preset else {
        return Ok((with_engine_file(a, a.config())?, None));
    };
    let names: Vec<&str> = lessons::lessons().iter().map(|l| l.id).collect();
    let lesson = lessons::lesson(id).ok_or_else(|| {
        format!(
            "--preset: unknown lesson \"{}\"; allowed: {}",
            kvfleet::echo::shown(id),
            names.join(", ")
        )
    })?;
    let given = serde_json::to_value(a.config()).expect("config serialises");
    let explicit: serde_json::Map<String, serde_json::Value> = given
        .as_object()
        .expect("an object")
        .iter()
        .filter(|(key, _)| {
            matches.ids().any(|id| {
                id.as_str() == key.as_str()
                    && matches.value_source(key) == Some(ValueSource::CommandLine)
            })
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut explicit = explicit;
    // An unset queue is left out of the config's JSON: given as `unbounded` on the command
    // line, it clears the lesson's queue.
    if a.router_queue == Some(QueueLimit(None)) {
        explicit.insert("router_queue".to_string(), serde_json::Value::Null);
    }
    if a.queue_capacity == Some(QueueLimit(None)) {
        explicit.insert("queue_capacity".to_string(), serde_json::Value::Null);
    }
    let cfg = lessons::apply(&lessons::broken_config(&lesson), &explicit.into())?;
    Ok((with_engine_file(a, cfg)?, Some(lesson)))
}

/// `cfg` running the engine of `--des-engine-file` (a calibration's JSON), if given: the
/// custom engine with the file's coefficients.
fn with_engine_file(a: &RunArgs, mut cfg: Config) -> Result<Config, String> {
    let Some(path) = &a.engine_file else {
        return Ok(cfg);
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--des-engine-file: cannot read {path}: {e}"))?;
    let t = kvfleet::calibrate::engine_of_file(&text, path)
        .map_err(|e| format!("--des-engine-file: {e}"))?;
    cfg.engine = kvfleet::timing::EnginePreset::Custom;
    cfg.step_fixed_us = t.step_fixed_us;
    cfg.prefill_token_us = t.prefill_token_us;
    cfg.decode_seq_us = t.decode_seq_us;
    cfg.kv_read_token_ns = t.kv_read_token_ns;
    cfg.prefill_poly_ms = t.prefill_poly_ms;
    cfg.decode_poly_ms = t.decode_poly_ms;
    Ok(cfg)
}
