//! The step log readers: CSV with a header (read with the `csv` crate: quoted cells,
//! `#` comment lines, columns in any order, other columns ignored) or JSONL (one object
//! a line, other keys ignored). Each error names the file, the line and the column.

use serde::Deserialize;

use super::Step;

/// The columns (CSV header names, case-insensitive, or JSONL keys) every log needs.
pub const COLUMNS: [&str; 4] = ["prefill_tokens", "decode_seqs", "kv_tokens_read", "step_us"];

/// The longest step a log may hold, microseconds (a day): larger is a unit mistake.
const MAX_STEP_US: f64 = 86_400e6;

/// Time columns in another unit, named in the error that asks for microseconds.
const OTHER_UNITS: [&str; 4] = ["step_ms", "step_s", "step_ns", "duration_ms"];

/// Reads a step log: JSONL when its first non-blank, non-comment line starts with `{`,
/// CSV otherwise.
pub fn read_steps(text: &str, name: &str) -> Result<Vec<Step>, String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    let Some(first) = first else {
        return Err(format!("{name}: no steps: the log is empty"));
    };
    if first.starts_with('{') {
        read_jsonl(text, name)
    } else {
        read_csv(text, name)
    }
}

fn at(name: &str, line: u64, message: impl std::fmt::Display) -> String {
    format!("{name}:{line}: {message}")
}

/// Where each column sits in a CSV row.
fn header_positions(header: &csv::StringRecord) -> Result<[usize; 4], String> {
    let names: Vec<String> = header
        .iter()
        .map(|c| c.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    let mut out = [0; 4];
    for (slot, column) in out.iter_mut().zip(COLUMNS) {
        let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == column).collect();
        *slot = match found.as_slice() {
            [one] => *one,
            [] => return Err(missing_column(column, &names)),
            _ => return Err(format!("the header has two `{column}` columns: keep one")),
        };
    }
    Ok(out)
}

fn missing_column(column: &str, names: &[String]) -> String {
    let other_unit = names.iter().find(|n| OTHER_UNITS.contains(&n.as_str()));
    match other_unit {
        Some(unit) if column == "step_us" => format!(
            "the header has `{unit}` but no `step_us`: give each step's duration in \
             microseconds, in a column named step_us"
        ),
        _ => format!(
            "the header has no `{column}` column (it needs {})",
            COLUMNS.join(", ")
        ),
    }
}

fn read_csv(text: &str, name: &str) -> Result<Vec<Step>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| csv_error(name, &e))?.clone();
    let header_line = header.position().map_or(1, |p| p.line());
    let columns = header_positions(&header).map_err(|m| at(name, header_line, m))?;
    let mut steps = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(name, &e))?;
        let line = record.position().map_or(0, |p| p.line());
        let cells = columns.map(|i| record.get(i).unwrap_or(""));
        steps.push(step_of(cells.map(Cell::Text)).map_err(|m| at(name, line, m))?);
    }
    Ok(steps)
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

/// A JSONL line's keys that matter; any JSON value, checked by `step_of`.
#[derive(Deserialize)]
struct JsonStep {
    prefill_tokens: Option<serde_json::Value>,
    decode_seqs: Option<serde_json::Value>,
    kv_tokens_read: Option<serde_json::Value>,
    step_us: Option<serde_json::Value>,
}

fn read_jsonl(text: &str, name: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed: JsonStep = serde_json::from_str(line)
            .map_err(|e| at(name, line_no, format!("not a JSON object: {e}")))?;
        let values = [
            parsed.prefill_tokens,
            parsed.decode_seqs,
            parsed.kv_tokens_read,
            parsed.step_us,
        ];
        let cells = values.map(|v| v.map_or(Cell::Missing, Cell::Json));
        steps.push(step_of(cells).map_err(|m| at(name, line_no, m))?);
    }
    Ok(steps)
}

/// One cell of a row, before it is checked.
enum Cell<'a> {
    Text(&'a str),
    Json(serde_json::Value),
    Missing,
}

impl Cell<'_> {
    /// The cell as a number, or a message naming `column`.
    fn number(&self, column: &str) -> Result<f64, String> {
        let value = match self {
            Cell::Text(text) => crate::decimal::finite_f64(text.trim()),
            Cell::Json(serde_json::Value::Number(n)) => n.as_f64(),
            Cell::Json(serde_json::Value::String(s)) => crate::decimal::finite_f64(s.trim()),
            Cell::Json(_) => None,
            Cell::Missing => return Err(format!("missing `{column}`")),
        };
        match value {
            Some(v) if v.is_finite() => Ok(v),
            _ => Err(format!(
                "`{column}` is not a number: {}",
                crate::echo::shown(&self.shown())
            )),
        }
    }

    fn shown(&self) -> String {
        match self {
            Cell::Text(text) => format!("\"{text}\""),
            Cell::Json(v) => v.to_string(),
            Cell::Missing => String::new(),
        }
    }

    /// The cell as a count: a whole number >= 0.
    fn count(&self, column: &str) -> Result<u64, String> {
        let v = self.number(column)?;
        if v < 0.0 || v.fract() != 0.0 || v > 1e15 {
            return Err(format!(
                "`{column}` must be a whole number >= 0, got {}",
                crate::echo::shown(&self.shown())
            ));
        }
        Ok(v as u64)
    }
}

fn step_of(cells: [Cell; 4]) -> Result<Step, String> {
    let [prefill, decode, kv, time] = cells;
    let step_us = time.number("step_us")?;
    if step_us <= 0.0 || step_us > MAX_STEP_US {
        return Err(format!(
            "`step_us` must be a duration > 0 and at most {} microseconds (a day), got {}",
            crate::echo::number(MAX_STEP_US),
            crate::echo::number(step_us)
        ));
    }
    Ok(Step {
        prefill_tokens: prefill.count("prefill_tokens")?,
        decode_seqs: decode.count("decode_seqs")?,
        kv_tokens_read: kv.count("kv_tokens_read")?,
        step_us,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_takes_quoted_cells_comments_and_any_order() {
        let text = "# generated\nstep_us,note,\"decode_seqs\",kv_tokens_read,prefill_tokens\n\
                    6100,\"a, b\",2,300,0\n";
        let steps = read_steps(text, "s.csv").unwrap();
        assert_eq!(
            steps,
            vec![Step {
                prefill_tokens: 0,
                decode_seqs: 2,
                kv_tokens_read: 300,
                step_us: 6100.0
            }]
        );
    }

    #[test]
    fn jsonl_lines() {
        let text = "{\"prefill_tokens\": 5, \"decode_seqs\": 0, \"kv_tokens_read\": 0, \"step_us\": 7.5, \"x\": 1}\n";
        assert_eq!(read_steps(text, "s.jsonl").unwrap()[0].step_us, 7.5);
    }
}
