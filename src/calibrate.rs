//! Calibration: fit the engine's step-time coefficients (`timing::Timing`) to a log of
//! measured engine steps, by non-negative least squares, in the linear form
//! (`step_fixed_us`, `prefill_token_us`, `decode_seq_us`, `kv_read_token_ns`) or the
//! polynomial form (`prefill_poly_ms`, `decode_poly_ms`), with standard errors, R²,
//! residuals and warnings for coefficients the log cannot identify.
//!
//! ```text
//! step log text --read--> [Step] --fit (form, KV capacity)--> Fit --engine--> Timing
//!   (CSV | JSONL)          read                                 fit, nnls
//! ```
//! `sample` writes a step log from a preset with stated noise (the shipped sample and
//! the checks' ground truth).
//!
//! From per-request measurements (TTFT, TPOT), where queueing makes a direct fit wrong,
//! the fit is by simulation:
//!
//! ```text
//! request log --requests--> [Measured] --replay (per candidate engine)--> quantiles
//!   (CSV | vLLM | SGLang)     read         replay        --search--> RequestFit
//! ```
//! `request_sample` writes a request log from a known engine (the checks' ground truth).

mod bench_results;
mod design;
mod fit;
mod nnls;
mod read;
pub mod replay;
mod request_files;
pub mod request_sample;
pub mod request_search;
pub mod requests;
pub mod sample;
pub mod search;

use serde::{Deserialize, Serialize};

pub use fit::fit;
pub use read::read_steps;
pub use request_files::read_requests;

use crate::timing::Timing;

/// One measured engine step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// New prompt tokens the step computed (prefill), tokens.
    pub prefill_tokens: u64,
    /// Sequences that decoded a token in the step.
    pub decode_seqs: u64,
    /// KV tokens the decoding sequences' attention read (their context), tokens.
    pub kv_tokens_read: u64,
    /// The step's measured duration, microseconds.
    pub step_us: f64,
}

/// Which coefficients to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// `step_fixed_us + prefill_token_us·T + decode_seq_us·D + kv_read_token_ns·KV/1000`.
    Linear,
    /// `[T > 0]·(c0 + c1·T + c2·T²) + [D > 0]·(d0 + d1·u + d2·u²)` ms, u = KV / capacity.
    Polynomial,
}

impl Form {
    /// Parses `linear` or `polynomial`.
    pub fn parse(text: &str) -> Result<Form, String> {
        match text.trim() {
            "linear" => Ok(Form::Linear),
            "polynomial" => Ok(Form::Polynomial),
            other => Err(format!(
                "form: expected linear or polynomial, got \"{}\"",
                crate::echo::shown(other)
            )),
        }
    }
}

/// One fitted coefficient.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coefficient {
    /// The engine setting's name (`step_fixed_us`, `prefill_poly_ms[1]`, ...).
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// The fitted value (0 when the log cannot identify it).
    pub value: f64,
    /// Its standard error; `null` when held at 0 by the non-negativity bound or not
    /// identified.
    pub se: Option<f64>,
    /// Whether the log identifies it.
    pub identified: bool,
}

/// A fit of a step log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// The form fitted.
    pub form: Form,
    /// Steps in the log.
    pub steps: usize,
    /// The KV capacity the polynomial's utilisation is taken over, tokens (`null`: not
    /// given; the linear form does not use it).
    pub kv_capacity_tokens: Option<f64>,
    /// The coefficients, in the engine's order.
    pub coefficients: Vec<Coefficient>,
    /// 1 − residual sum of squares / total sum of squares (`null` when every step took
    /// the same time).
    pub r2: Option<f64>,
    /// Root mean square of the residuals, microseconds.
    pub rmse_us: f64,
    /// What the log cannot tell, and fits that break the engine's rules.
    pub warnings: Vec<String>,
    /// The fitted engine: a `custom` engine's settings (the file `--des-engine-file` reads).
    pub engine: Timing,
    /// Each step's measured duration, microseconds, in the log's order (columnar).
    pub measured_us: Vec<f64>,
    /// Each step's duration as the fit predicts it, microseconds (its residual is
    /// measured − predicted).
    pub predicted_us: Vec<f64>,
}

/// Options of a fit.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Options {
    /// The KV capacity, tokens, the log's replica had (for the polynomial form's
    /// utilisation); `None`: the decode polynomial's d1, d2 are not fitted.
    pub kv_capacity_tokens: Option<f64>,
}

/// Reads a step log (`name` for messages; CSV, or JSONL when the first non-blank line
/// starts with `{`) and fits it; the fit as JSON, with the per-step columns.
pub fn calibrate_json(text: &str, name: &str, form: Form, opts: Options) -> Result<String, String> {
    let steps = read_steps(text, name)?;
    let fitted = fit(&steps, form, opts)?;
    Ok(serde_json::to_string(&fitted).expect("a fit serialises"))
}

/// A fit by simulation of a request log: the engine found, and how close its replay's
/// TTFT and TPOT quantiles come to the measured ones (the file `--des-engine-file` reads).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RequestFit {
    /// Requests replayed.
    pub requests: usize,
    /// What the log did not say and was assumed.
    pub assumptions: Vec<String>,
    /// The replica replayed on (the engine's limits).
    pub replica: replay::Replica,
    /// The quantiles compared.
    pub quantiles: Vec<f64>,
    /// Measured TTFT at each quantile, ms.
    pub measured_ttft_ms: Vec<f64>,
    /// Measured TPOT at each quantile, ms.
    pub measured_tpot_ms: Vec<f64>,
    /// The engine the search started from.
    pub start_engine: Timing,
    /// The start's distance.
    pub start_distance: f64,
    /// The fitted engine's quantiles, their relative errors and the distance.
    pub fit: search::Score,
    /// Replays made.
    pub evaluations: u32,
    /// Why the search ended.
    pub ended: search::Ended,
    /// The fitted engine: a `custom` engine's settings.
    pub engine: Timing,
}

impl RequestFit {
    /// The fit of `problem` that `found` reached, with the log's `assumptions`.
    pub fn of(
        problem: &search::Problem,
        found: search::Found,
        assumptions: Vec<String>,
        requests: usize,
        start: Timing,
    ) -> RequestFit {
        RequestFit {
            requests,
            assumptions,
            replica: problem.replica(),
            quantiles: replay::QUANTILES.to_vec(),
            measured_ttft_ms: problem.measured_ttft_ms().to_vec(),
            measured_tpot_ms: problem.measured_tpot_ms().to_vec(),
            start_engine: start,
            start_distance: found.start_score.distance,
            fit: found.score,
            evaluations: found.evaluations,
            ended: found.ended,
            engine: found.engine,
        }
    }
}

/// The `engine` of a calibration file (`--calibrate-json`'s output), the settings of a
/// `custom` engine.
#[derive(Deserialize)]
struct EngineFile {
    engine: Timing,
}

/// Reads the engine out of a calibration file's text (`name` for messages).
pub fn engine_of_file(text: &str, name: &str) -> Result<Timing, String> {
    let file: EngineFile = serde_json::from_str(text).map_err(|e| {
        format!("{name}: not a calibration file (`kvfleet calibrate --calibrate-json`): {e}")
    })?;
    let t = file.engine;
    let linear = [
        t.step_fixed_us,
        t.prefill_token_us,
        t.decode_seq_us,
        t.kv_read_token_ns,
    ];
    if linear.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(format!(
            "{name}: engine: the four linear coefficients must be finite and >= 0"
        ));
    }
    Ok(t)
}
