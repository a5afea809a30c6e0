//! Per-request measurements for the fit by simulation: the measured request, the formats,
//! the checks every reader applies, and the plain CSV reader
//! (`arrival_s,prompt_tokens,output_tokens,ttft_ms,tpot_ms`, optional `cached_tokens`).
//! Each error names the file and the line; what a file does not say is assumed, and each
//! assumption is returned in words. `request_files` picks the reader.

/// The longest TTFT or TPOT a log may hold, milliseconds (a day): larger is a unit mistake.
const MAX_MS: f64 = 86_400e3;

/// One measured request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// When it was sent, microseconds from the first request.
    pub arrival_us: u64,
    /// Prompt length, tokens.
    pub prompt_tokens: u32,
    /// Prompt tokens the server found cached, if the log says.
    pub cached_tokens: Option<u32>,
    /// Tokens generated (at least 1).
    pub output_tokens: u32,
    /// Time to first token, milliseconds.
    pub ttft_ms: f64,
    /// Time per output token after the first, milliseconds (`None` for one-token answers).
    pub tpot_ms: Option<f64>,
}

/// Which file shape to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestFormat {
    /// `vllm bench serve --save-result --save-detailed` (one JSON object).
    Vllm,
    /// `python -m sglang.bench_serving --output-file F --output-details` (JSONL, a run a line).
    Sglang,
    /// `arrival_s,prompt_tokens,output_tokens,ttft_ms,tpot_ms[,cached_tokens]`.
    Csv,
}

impl RequestFormat {
    /// Parses `vllm`, `sglang` or `csv`.
    pub fn parse(text: &str) -> Result<RequestFormat, String> {
        match text.trim() {
            "vllm" => Ok(RequestFormat::Vllm),
            "sglang" => Ok(RequestFormat::Sglang),
            "csv" => Ok(RequestFormat::Csv),
            other => Err(format!(
                "format: expected vllm, sglang or csv, got \"{}\"",
                crate::echo::shown(other)
            )),
        }
    }

    /// The format a file's text looks like: JSON when it starts with `{` (vLLM's one
    /// object, or SGLang's lines), CSV otherwise.
    pub fn guess(text: &str) -> RequestFormat {
        let first = text.trim_start().trim_start_matches('\u{feff}');
        if !first.starts_with('{') {
            return RequestFormat::Csv;
        }
        let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
        if lines > 1 && serde_json::from_str::<serde_json::Value>(text).is_err() {
            RequestFormat::Sglang
        } else {
            RequestFormat::Vllm
        }
    }
}

/// A read request log: the requests in arrival order, and what was assumed.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestLog {
    /// The requests that completed, in arrival order.
    pub requests: Vec<Measured>,
    /// What the file did not say and the reader assumed, in words.
    pub assumptions: Vec<String>,
}

pub(super) fn at(name: &str, line: u64, message: impl std::fmt::Display) -> String {
    format!("{name}:{line}: {message}")
}

/// Arrival times for `n` requests sent evenly at `rate_per_s` (all at 0 when infinite).
pub(super) fn spaced_us(i: usize, rate_per_s: f64) -> u64 {
    if rate_per_s.is_infinite() {
        0
    } else {
        libm::round(i as f64 * 1e6 / rate_per_s) as u64
    }
}

pub(super) fn rate_assumption(rate_per_s: f64, source: &str) -> String {
    if rate_per_s.is_infinite() {
        format!("no arrival times in the file: every request sent at once ({source})")
    } else {
        format!(
            "no arrival times in the file: requests sent evenly at {} req/s ({source})",
            crate::echo::number(rate_per_s)
        )
    }
}

// ---- CSV ----

/// The CSV columns, in the order `row_of` takes them (`cached_tokens` optional).
const CSV_COLUMNS: [&str; 6] = [
    "arrival_s",
    "prompt_tokens",
    "output_tokens",
    "ttft_ms",
    "tpot_ms",
    "cached_tokens",
];

/// Time columns in another unit than kvfleet's (column, the unit it wants, names in
/// other units): named in the error, so a log in seconds is not read as one without times.
const OTHER_UNITS: [(&str, &str, [&str; 2]); 3] = [
    ("arrival_s", "seconds", ["arrival_ms", "arrival_us"]),
    ("ttft_ms", "milliseconds", ["ttft_s", "ttft_us"]),
    ("tpot_ms", "milliseconds", ["tpot_s", "tpot_us"]),
];

/// The error for a time column given in another unit instead of `column`'s, if one is.
fn other_unit(column: &str, names: &[String]) -> Option<String> {
    let (_, unit, others) = OTHER_UNITS.iter().find(|(c, _, _)| *c == column)?;
    let found = names.iter().find(|n| others.contains(&n.as_str()))?;
    Some(format!(
        "the header has `{found}` but no `{column}`: give it in {unit}, in a column named {column}"
    ))
}

fn csv_positions(header: &csv::StringRecord) -> Result<[Option<usize>; 6], String> {
    let names: Vec<String> = header
        .iter()
        .map(|c| c.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    let mut out = [None; 6];
    for (k, column) in CSV_COLUMNS.iter().enumerate() {
        let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == *column).collect();
        out[k] = match found.as_slice() {
            [one] => Some(*one),
            [] => match other_unit(column, &names) {
                Some(wrong_unit) => return Err(wrong_unit),
                None if k == 0 || k == 5 => None,
                None => {
                    return Err(format!(
                        "the header has no `{column}` column (it needs {}; arrival_s and \
                         cached_tokens are optional)",
                        CSV_COLUMNS[..5].join(", ")
                    ))
                }
            },
            _ => return Err(format!("the header has two `{column}` columns: keep one")),
        };
    }
    Ok(out)
}

pub(super) fn read_csv(
    text: &str,
    name: &str,
    rate_per_s: Option<f64>,
) -> Result<RequestLog, String> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| csv_error(name, &e))?.clone();
    let header_line = header.position().map_or(1, |p| p.line());
    let columns = csv_positions(&header).map_err(|m| at(name, header_line, m))?;
    let mut assumptions = Vec::new();
    if columns[0].is_none() {
        let rate = rate_per_s.ok_or_else(|| {
            at(
                name,
                header_line,
                "no `arrival_s` column: give the arrival times, or the rate the requests \
                 were sent at with --request-rate",
            )
        })?;
        assumptions.push(rate_assumption(rate, "--request-rate"));
    }
    let mut requests = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| csv_error(name, &e))?;
        let line = record.position().map_or(0, |p| p.line());
        let cell = |k: usize| columns[k].map(|c| record.get(c).unwrap_or(""));
        let row = csv_row(&cell, i, rate_per_s).map_err(|m| at(name, line, m))?;
        requests.push(row);
    }
    Ok(RequestLog {
        requests,
        assumptions,
    })
}

/// One CSV row (cells by `CSV_COLUMNS` index; `None`: no such column).
fn csv_row<'a>(
    cell: &dyn Fn(usize) -> Option<&'a str>,
    i: usize,
    rate_per_s: Option<f64>,
) -> Result<Measured, String> {
    let number = |k: usize| -> Result<Option<f64>, String> {
        match cell(k) {
            None => Ok(None),
            Some("") if k == 4 || k == 5 => Ok(None),
            Some(text) => parsed(text, CSV_COLUMNS[k]).map(Some),
        }
    };
    let arrival_us = match number(0)? {
        Some(s) => arrival_of(s)?,
        None => spaced_us(i, rate_per_s.unwrap_or(f64::INFINITY)),
    };
    let raw = Raw {
        prompt: number(1)?.unwrap_or(0.0),
        output: number(2)?.unwrap_or(0.0),
        ttft_ms: number(3)?.unwrap_or(0.0),
        tpot_ms: number(4)?,
        cached: number(5)?,
    };
    measured_of(raw, arrival_us)
}

fn parsed(text: &str, column: &str) -> Result<f64, String> {
    crate::decimal::finite_f64(text.trim()).ok_or_else(|| {
        format!(
            "`{column}` is not a number: \"{}\"",
            crate::echo::shown(text)
        )
    })
}

fn arrival_of(arrival_s: f64) -> Result<u64, String> {
    if !(0.0..=1e9).contains(&arrival_s) {
        return Err(format!(
            "`arrival_s` must be a time >= 0, in seconds, got {}",
            crate::echo::number(arrival_s)
        ));
    }
    Ok(libm::round(arrival_s * 1e6) as u64)
}

/// A request's numbers before they are checked (times in ms, counts as read).
pub(super) struct Raw {
    pub(super) prompt: f64,
    pub(super) output: f64,
    pub(super) ttft_ms: f64,
    pub(super) tpot_ms: Option<f64>,
    pub(super) cached: Option<f64>,
}

fn count(v: f64, column: &str, least: f64) -> Result<u32, String> {
    if v < least || v.fract() != 0.0 || v > u32::MAX as f64 {
        return Err(format!(
            "`{column}` must be a whole number >= {least}, got {}",
            crate::echo::number(v)
        ));
    }
    Ok(v as u32)
}

fn duration_ms(v: f64, column: &str) -> Result<f64, String> {
    if !(v > 0.0 && v <= MAX_MS) {
        return Err(format!(
            "`{column}` must be a duration > 0 and at most {} ms (a day), got {}",
            crate::echo::number(MAX_MS),
            crate::echo::number(v)
        ));
    }
    Ok(v)
}

pub(super) fn measured_of(raw: Raw, arrival_us: u64) -> Result<Measured, String> {
    let prompt_tokens = count(raw.prompt, "prompt_tokens", 1.0)?;
    let output_tokens = count(raw.output, "output_tokens", 1.0)?;
    let cached_tokens = match raw.cached {
        Some(c) => Some(count(c, "cached_tokens", 0.0)?),
        None => None,
    };
    if let Some(c) = cached_tokens.filter(|&c| c > prompt_tokens) {
        return Err(format!(
            "`cached_tokens` ({c}) is more than `prompt_tokens` ({prompt_tokens})"
        ));
    }
    let ttft_ms = duration_ms(raw.ttft_ms, "ttft_ms")?;
    let tpot_ms = match (output_tokens, raw.tpot_ms) {
        (1, _) => None,
        (_, Some(t)) => Some(duration_ms(t, "tpot_ms")?),
        (_, None) => {
            return Err(format!(
                "`tpot_ms` is missing, but the request generated {output_tokens} tokens"
            ))
        }
    };
    Ok(Measured {
        arrival_us,
        prompt_tokens,
        cached_tokens,
        output_tokens,
        ttft_ms,
        tpot_ms,
    })
}

fn csv_error(name: &str, e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => at(
            name,
            pos.as_ref().map_or(0, |p| p.line()),
            format!("{len} cells, but the header has {expected_len} columns"),
        ),
        csv::ErrorKind::Utf8 { pos, .. } => {
            at(name, pos.as_ref().map_or(0, |p| p.line()), "not UTF-8 text")
        }
        _ => format!("{name}: {e}"),
    }
}
