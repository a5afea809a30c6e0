//! `kvfleet calibrate --requests FILE`: read per-request measurements, fit the linear
//! engine by simulation (`kvfleet::calibrate::search`, its replays spread over threads
//! with rayon, progress on standard error, Ctrl-C stops with the best so far), print the
//! coefficients, the per-quantile errors and the distance, and write the fit as JSON;
//! or, with --generate-requests, write a request log from a preset's engine.

use std::io::Write;

use kvfleet::calibrate::read_requests;
use kvfleet::calibrate::replay::{Replica, QUANTILES};
use kvfleet::calibrate::request_sample::{generate_requests, to_csv, RequestSampleSpec};
use kvfleet::calibrate::requests::RequestFormat;
use kvfleet::calibrate::search::{search, Flow, Problem, SearchOptions, NAMES};
use kvfleet::calibrate::RequestFit;
use kvfleet::timing::{EnginePreset, Timing};
use rayon::prelude::*;

use crate::args::CalibrateCmd;
use crate::output::{create, print};

fn replica(cmd: &CalibrateCmd) -> Replica {
    Replica {
        max_batch: cmd.max_batch,
        max_batched_tokens: cmd.max_batched_tokens,
        ..Replica::default()
    }
}

/// Runs the fit of `path`.
pub fn run(cmd: &CalibrateCmd, path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let format = cmd.format.unwrap_or_else(|| RequestFormat::guess(&text));
    let log = read_requests(&text, path, format, cmd.request_rate)?;
    let problem = Problem::new(&log.requests, replica(cmd));
    let start = cmd.start.timing();
    let opts = SearchOptions {
        max_evaluations: cmd.max_evaluations,
        ..SearchOptions::from(start)
    };
    let bar = crate::progress::Progress::new("calibrate", false);
    let catch = crate::interrupt::Catch::start();
    let evaluate = |batch: &[Timing]| batch.par_iter().map(|t| problem.score(t)).collect();
    let found = search(&problem, &opts, &evaluate, &mut |p| {
        bar.update(p.evaluations as f64 / p.max_evaluations as f64);
        if catch.interrupted() {
            Flow::Stop
        } else {
            Flow::Go
        }
    });
    drop(catch);
    bar.finish();
    let n = log.requests.len();
    let fitted = RequestFit::of(&problem, found, log.assumptions, n, start);
    print(&report(path, format, cmd.start, &fitted))?;
    if let Some(out) = &cmd.calibrate_json {
        let json = serde_json::to_string_pretty(&fitted).expect("a fit serialises");
        let mut file = create(out)?;
        writeln!(file, "{json}")
            .and_then(|_| file.flush())
            .map_err(crate::output::write_error(out))?;
    }
    Ok(())
}

fn format_name(f: RequestFormat) -> &'static str {
    match f {
        RequestFormat::Vllm => "vLLM result",
        RequestFormat::Sglang => "SGLang result",
        RequestFormat::Csv => "CSV",
    }
}

fn coefficients(t: &Timing) -> [f64; 4] {
    [
        t.step_fixed_us,
        t.prefill_token_us,
        t.decode_seq_us,
        t.kv_read_token_ns,
    ]
}

fn pct(e: f64) -> String {
    if e.is_finite() {
        format!("{:+.1}%", e * 100.0)
    } else {
        "-".to_string()
    }
}

fn ms(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        "-".to_string()
    }
}

/// The text report: what was assumed, the coefficients, each quantile's error, the
/// distance, and the flags that run the fitted engine.
pub fn report(path: &str, format: RequestFormat, start: EnginePreset, f: &RequestFit) -> String {
    let r = &f.replica;
    let mut out = format!(
        "kvfleet calibrate --requests: {path}, {} requests ({}), fit by simulation on one \
         replica (max batch {}, {} tokens per step)\n",
        f.requests,
        format_name(format),
        r.max_batch,
        r.max_batched_tokens
    );
    for a in &f.assumptions {
        out.push_str(&format!("  assumed: {a}\n"));
    }
    out.push_str(&format!(
        "  searched from {}'s engine (--start)\n  {:<20} {:>14} {:>14}  unit\n",
        start.name(),
        "coefficient",
        "start",
        "fitted"
    ));
    let units = ["µs", "µs", "µs", "ns"];
    let (s, e) = (coefficients(&f.start_engine), coefficients(&f.engine));
    for k in 0..4 {
        out.push_str(&format!(
            "  {:<20} {:>14.3} {:>14.3}  {}\n",
            NAMES[k], s[k], e[k], units[k]
        ));
    }
    out.push_str(&quantile_table(f));
    let ended = match f.ended {
        kvfleet::calibrate::search::Ended::Converged => "converged",
        kvfleet::calibrate::search::Ended::Budget => "stopped at --max-evaluations",
        kvfleet::calibrate::search::Ended::Stopped => "stopped by Ctrl-C (best so far)",
    };
    let errors = f.fit.ttft_rel_err.len() + f.fit.tpot_rel_err.len();
    out.push_str(&format!(
        "  distance (RMS of the {errors} relative errors): {} (start {}), {} replays, {ended}\n",
        pct(f.fit.distance).trim_start_matches('+'),
        pct(f.start_distance).trim_start_matches('+'),
        f.evaluations
    ));
    let t = &f.engine;
    out.push_str(&format!(
        "  as an engine: --des-engine custom --des-step-fixed-us {} --des-prefill-token-us {} \
         --des-decode-seq-us {} --des-kv-read-token-ns {} (or --des-engine-file with \
         --calibrate-json's file)\n",
        round6(t.step_fixed_us),
        round6(t.prefill_token_us),
        round6(t.decode_seq_us),
        round6(t.kv_read_token_ns)
    ));
    out
}

fn round6(x: f64) -> f64 {
    let digits = 6 - (x.abs().log10().floor() as i32 + 1);
    let scale = 10f64.powi(digits.max(0));
    (x * scale).round() / scale
}

fn quantile_table(f: &RequestFit) -> String {
    let mut out = format!(
        "  {:<8} {:>12} {:>12} {:>7}   {:>12} {:>12} {:>7}\n",
        "quantile", "TTFT meas.", "simulated", "error", "TPOT meas.", "simulated", "error"
    );
    for (k, q) in QUANTILES.iter().enumerate() {
        let tpot = |v: &Vec<f64>| v.get(k).copied().unwrap_or(f64::NAN);
        out.push_str(&format!(
            "  p{:<7} {:>9} ms {:>9} ms {:>7}   {:>9} ms {:>9} ms {:>7}\n",
            (q * 100.0).round(),
            ms(f.measured_ttft_ms[k]),
            ms(f.fit.ttft_ms[k]),
            pct(f.fit.ttft_rel_err[k]),
            ms(tpot(&f.measured_tpot_ms)),
            ms(tpot(&f.fit.tpot_ms)),
            pct(tpot(&f.fit.tpot_rel_err)),
        ));
    }
    out
}

/// Writes a request log generated on `preset`'s engine (the CSV `--requests` reads).
pub fn write_sample(cmd: &CalibrateCmd, preset: EnginePreset) -> Result<(), String> {
    let noise_pct = cmd.noise_pct_or(0.0)?;
    let spec = RequestSampleSpec {
        noise: noise_pct / 100.0,
        seed: cmd.seed,
        ..RequestSampleSpec::default()
    };
    let log = generate_requests(&preset.timing(), &spec, &replica(cmd))?;
    let comment = format!(
        "GENERATED by kvfleet, not measured: `kvfleet calibrate --generate-requests {} \
         --noise-pct {noise_pct} --seed {}`\n{} requests, Poisson at {} req/s, prompts {} \
         and outputs {} tokens on average (0.2x to 1.8x), replayed on one replica of {}'s \
         engine (max batch {}, {} tokens per step); TTFT and TPOT times 1 + N(0, 1) x {} %",
        preset.name(),
        cmd.seed,
        spec.requests,
        spec.rate_per_s,
        spec.mean_prompt_tokens,
        spec.mean_output_tokens,
        preset.name(),
        cmd.max_batch,
        cmd.max_batched_tokens,
        noise_pct
    );
    print(&to_csv(&log, &comment))
}
