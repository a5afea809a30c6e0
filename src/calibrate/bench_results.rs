//! The per-request arrays of `vllm bench serve --save-result --save-detailed` (one JSON
//! object) and of SGLang's `bench_serving --output-details` (a JSON line per run): read
//! into `Measured` requests, with arrival times from `start_times`, the rate given, or the
//! file's `request_rate`.

use serde::Deserialize;

use super::requests::{
    at, measured_of, rate_assumption, spaced_us, Measured, Raw, RequestFormat, RequestLog,
};

/// The per-request arrays of a benchmark result (times in seconds); other keys ignored.
#[derive(Deserialize)]
struct BenchRecord {
    input_lens: Option<Vec<serde_json::Value>>,
    output_lens: Option<Vec<serde_json::Value>>,
    ttfts: Option<Vec<serde_json::Value>>,
    itls: Option<Vec<serde_json::Value>>,
    errors: Option<Vec<serde_json::Value>>,
    start_times: Option<Vec<serde_json::Value>>,
    request_rate: Option<serde_json::Value>,
}

/// The record to read and where it is: vLLM's one object, or SGLang's last line that has
/// per-request arrays.
fn bench_record(
    text: &str,
    name: &str,
    format: RequestFormat,
) -> Result<(BenchRecord, Vec<String>), String> {
    let text = text.trim_start_matches('\u{feff}');
    if format == RequestFormat::Vllm {
        let record: BenchRecord = serde_json::from_str(text).map_err(|e| {
            at(
                name,
                e.line() as u64,
                format!("not a vLLM result (one JSON object): {e}"),
            )
        })?;
        return Ok((record, Vec::new()));
    }
    let mut last = None;
    let mut runs = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: BenchRecord = serde_json::from_str(line).map_err(|e| {
            at(
                name,
                i as u64 + 1,
                format!("not an SGLang result line (JSON): {e}"),
            )
        })?;
        runs += 1;
        if record.ttfts.is_some() {
            last = Some((i + 1, record));
        }
    }
    let (line, record) = last.ok_or_else(|| {
        format!("{name}: no line has per-request results (`ttfts`): run bench_serving with --output-details")
    })?;
    let said = if runs > 1 {
        vec![format!(
            "{runs} runs in the file: read the last with per-request results (line {line})"
        )]
    } else {
        Vec::new()
    };
    Ok((record, said))
}

pub(super) fn read_bench(
    text: &str,
    name: &str,
    format: RequestFormat,
    rate_per_s: Option<f64>,
) -> Result<RequestLog, String> {
    let (record, mut assumptions) = bench_record(text, name, format)?;
    let flag = match format {
        RequestFormat::Vllm => "vllm bench serve --save-result --save-detailed",
        _ => "bench_serving --output-details",
    };
    let need = |v: Option<Vec<serde_json::Value>>, key: &str| {
        v.ok_or_else(|| format!("{name}: no `{key}`: write the result with {flag}"))
    };
    let input = need(record.input_lens, "input_lens")?;
    let output = need(record.output_lens, "output_lens")?;
    let ttfts = need(record.ttfts, "ttfts")?;
    let itls = need(record.itls, "itls")?;
    let n = input.len();
    for (key, len) in [
        ("output_lens", output.len()),
        ("ttfts", ttfts.len()),
        ("itls", itls.len()),
    ] {
        if len != n {
            return Err(format!(
                "{name}: `{key}` has {len} entries but `input_lens` has {n}: one per request"
            ));
        }
    }
    let starts = record.start_times.filter(|s| s.len() == n);
    let rate = match (&starts, rate_per_s) {
        (Some(_), _) => None,
        (None, Some(r)) => {
            assumptions.push(rate_assumption(r, "--request-rate"));
            Some(r)
        }
        (None, None) => {
            let r = file_rate(record.request_rate.as_ref()).ok_or_else(|| {
                format!(
                    "{name}: no `start_times` and no `request_rate`: give the rate the \
                     requests were sent at with --request-rate"
                )
            })?;
            assumptions.push(rate_assumption(r, "the file's request_rate"));
            Some(r)
        }
    };
    let first_start = starts.as_ref().map(|s| {
        s.iter()
            .filter_map(serde_json::Value::as_f64)
            .fold(f64::INFINITY, f64::min)
    });
    let errors = record.errors.unwrap_or_default();
    let mut requests = Vec::new();
    let mut failed = 0;
    for i in 0..n {
        let failed_here = errors
            .get(i)
            .and_then(serde_json::Value::as_str)
            .is_some_and(|e| !e.is_empty());
        if failed_here {
            failed += 1;
            continue;
        }
        let arrival_us = match (&starts, first_start) {
            (Some(s), Some(first)) => {
                let t = json_number(&s[i], "start_times")?;
                libm::round((t - first) * 1e6) as u64
            }
            _ => spaced_us(i, rate.unwrap_or(f64::INFINITY)),
        };
        let m = bench_request(&input[i], &output[i], &ttfts[i], &itls[i], arrival_us)
            .map_err(|m| format!("{name}: request {} (record {} of {n}): {m}", i + 1, i + 1))?;
        requests.push(m);
    }
    if failed > 0 {
        assumptions.push(format!(
            "{failed} failed requests (a non-empty `errors` entry) left out"
        ));
    }
    Ok(RequestLog {
        requests,
        assumptions,
    })
}

/// The file's `request_rate`: a number > 0, or "inf" (every request at once).
fn file_rate(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64().filter(|r| *r > 0.0),
        serde_json::Value::String(s) if s == "inf" => Some(f64::INFINITY),
        _ => None,
    }
}

fn json_number(v: &serde_json::Value, key: &str) -> Result<f64, String> {
    v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
        format!(
            "`{key}` is not a number: {}",
            crate::echo::shown(&v.to_string())
        )
    })
}

/// One request of a benchmark result: TTFT from `ttfts` (s), TPOT as the sum of its
/// inter-token gaps over output tokens − 1 (s), as the benchmarks define it.
fn bench_request(
    input: &serde_json::Value,
    output: &serde_json::Value,
    ttft: &serde_json::Value,
    itl: &serde_json::Value,
    arrival_us: u64,
) -> Result<Measured, String> {
    let output_tokens = json_number(output, "output_lens")?;
    let gaps = itl
        .as_array()
        .ok_or_else(|| "`itls` entry is not a list of gaps".to_string())?;
    let mut itl_sum_s = 0.0;
    for g in gaps {
        itl_sum_s += json_number(g, "itls")?;
    }
    let tpot_ms =
        (output_tokens > 1.0 && !gaps.is_empty()).then(|| itl_sum_s * 1e3 / (output_tokens - 1.0));
    let raw = Raw {
        prompt: json_number(input, "input_lens")?,
        output: output_tokens,
        ttft_ms: json_number(ttft, "ttfts")? * 1e3,
        tpot_ms,
        cached: None,
    };
    measured_of(raw, arrival_us)
}
