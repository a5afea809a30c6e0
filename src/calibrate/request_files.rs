//! Reads a per-request log in any of its formats: the plain CSV (`requests`),
//! `vllm bench serve --save-result --save-detailed` JSON and SGLang's
//! `bench_serving --output-file F --output-details` JSONL (`bench_results`), sorted by
//! arrival from time 0, with what was assumed.

use super::bench_results::read_bench;
use super::requests::{read_csv, RequestFormat, RequestLog};

/// Reads a request log. `rate_per_s` gives arrival times to a file without them
/// (evenly spaced; `f64::INFINITY`: all at once).
pub fn read_requests(
    text: &str,
    name: &str,
    format: RequestFormat,
    rate_per_s: Option<f64>,
) -> Result<RequestLog, String> {
    if let Some(rate) = rate_per_s {
        if rate.is_nan() || rate <= 0.0 {
            return Err(format!("--request-rate must be > 0, got {rate}"));
        }
    }
    let mut log = match format {
        RequestFormat::Csv => read_csv(text, name, rate_per_s)?,
        RequestFormat::Vllm | RequestFormat::Sglang => read_bench(text, name, format, rate_per_s)?,
    };
    if log.requests.is_empty() {
        return Err(format!("{name}: no completed requests in the log"));
    }
    log.requests.sort_by_key(|r| r.arrival_us);
    let first = log.requests[0].arrival_us;
    for r in &mut log.requests {
        r.arrival_us -= first;
    }
    if log.requests.iter().all(|r| r.cached_tokens.is_none()) {
        log.assumptions.push(
            "no cached tokens given: prompts share no prefix (every prompt token is computed)"
                .to_string(),
        );
    }
    Ok(log)
}
