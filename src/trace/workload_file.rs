//! The plain workload file parser (CSV with a header, or JSONL): arrival, prompt and
//! output lengths, no block ids (so no content reuse).
//!
//! Columns (CSV header names, or JSONL keys; case-insensitive in CSV), exactly one of
//! each role:
//! - arrival: `timestamp` or `arrival_ms` (milliseconds), `arrival_s` (seconds),
//!   `arrival_us` (microseconds); integer or decimal;
//! - prompt: `input_length` or `prompt_tokens`;
//! - output: `output_length` or `output_tokens`.
//!
//! Other columns or keys are ignored (a Mooncake line is a valid JSONL workload line,
//! its `hash_ids` dropped). CSV rows are read with the `csv` crate, one row a line: a cell
//! may be wrapped in double quotes and then hold commas and doubled quotes (`"a, ""b"""`),
//! as spreadsheets write them; every row has as many cells as the header.

use std::io::BufRead;

use serde::Deserialize;

use super::collect::{Collector, Parsed, TimeUnit, MS, SECONDS, US};
use super::lines::LineReader;
use super::scalar::{from_json_line, Scalar};
use super::{TraceError, TraceOptions, WorkloadFormat};
use crate::Request;

const ARRIVAL_COLUMNS: [(&str, TimeUnit); 4] = [
    ("timestamp", MS),
    ("arrival_ms", MS),
    ("arrival_s", SECONDS),
    ("arrival_us", US),
];
const PROMPT_COLUMNS: [&str; 2] = ["input_length", "prompt_tokens"];
const OUTPUT_COLUMNS: [&str; 2] = ["output_length", "output_tokens"];

/// Reads a workload file as a stream; see the module notes for the columns.
pub fn parse_workload_file<R: BufRead>(
    reader: R,
    file: &str,
    format: WorkloadFormat,
    opts: &TraceOptions,
) -> Result<Vec<Request>, TraceError> {
    opts.validate(file)?;
    let mut lines = LineReader::new(reader, file);
    let mut requests = Collector::new(file, opts);
    let header = match format {
        WorkloadFormat::Csv => Some(read_header(&mut lines, file)?),
        WorkloadFormat::Jsonl => None,
    };
    while !requests.is_full() {
        let Some((line_no, text)) = lines.next_line()? else {
            break;
        };
        let parsed = match &header {
            Some(header) => header.row(text),
            None => jsonl_line(text),
        };
        let parsed = parsed.map_err(|m| TraceError::at(file, line_no, m))?;
        requests.push(line_no, parsed, lines.bytes_read())?;
    }
    requests.finish()
}

/// Where each role sits in a CSV row.
struct Header {
    cells: usize,
    arrival: (usize, &'static str, TimeUnit),
    prompt: (usize, &'static str),
    output: (usize, &'static str),
}

fn read_header<R: BufRead>(lines: &mut LineReader<R>, file: &str) -> Result<Header, TraceError> {
    let Some((line_no, text)) = lines.next_line()? else {
        return Err(TraceError::whole(
            file,
            "no requests: the input is empty or has only blank lines",
        ));
    };
    Header::parse(text).map_err(|m| TraceError::at(file, line_no, m))
}

impl Header {
    fn parse(text: &str) -> Result<Header, String> {
        let names: Vec<String> = csv_cells(text)?
            .iter()
            .map(|c| c.trim().to_ascii_lowercase())
            .collect();
        let arrival_names = ARRIVAL_COLUMNS.map(|(name, _)| name);
        let arrival = find_role(&names, &arrival_names, "arrival")?;
        let unit = ARRIVAL_COLUMNS[arrival.1].1;
        let prompt = find_role(&names, &PROMPT_COLUMNS, "prompt")?;
        let output = find_role(&names, &OUTPUT_COLUMNS, "output")?;
        Ok(Header {
            cells: names.len(),
            arrival: (arrival.0, arrival_names[arrival.1], unit),
            prompt: (prompt.0, PROMPT_COLUMNS[prompt.1]),
            output: (output.0, OUTPUT_COLUMNS[output.1]),
        })
    }

    fn row(&self, text: &str) -> Result<Parsed, String> {
        let record = csv_cells(text)?;
        let cells: Vec<&str> = record.iter().collect();
        if cells.len() != self.cells {
            return Err(format!(
                "{} cells, but the header has {} columns",
                cells.len(),
                self.cells
            ));
        }
        let cell = |index: usize, name: &str| {
            let value = Scalar::from_cell(cells[index]);
            (value, format!("column `{name}`"))
        };
        let (value, what) = cell(self.arrival.0, self.arrival.1);
        let time = value.time(&what)?;
        let (value, what) = cell(self.prompt.0, self.prompt.1);
        let prompt_tokens = value.length(&what)?;
        let (value, what) = cell(self.output.0, self.output.1);
        let output_tokens = value.length(&what)?;
        Ok(Parsed {
            time,
            unit: self.arrival.2,
            prompt_tokens,
            output_tokens,
            block_ids: Vec::new(),
        })
    }
}

/// The cells of one CSV line (quotes undone by the `csv` crate).
fn csv_cells(text: &str) -> Result<csv::StringRecord, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    match reader.records().next() {
        Some(Ok(record)) => Ok(record),
        Some(Err(e)) => Err(format!("not a CSV row: {e}")),
        None => Ok(csv::StringRecord::new()),
    }
}

/// (position in the header, index in `accepted`) of the one column that plays `role`.
fn find_role(names: &[String], accepted: &[&str], role: &str) -> Result<(usize, usize), String> {
    let found: Vec<(usize, usize)> = names
        .iter()
        .enumerate()
        .filter_map(|(pos, name)| accepted.iter().position(|a| a == name).map(|i| (pos, i)))
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "the header has no {role} column: name one of {}",
            accepted.join(", ")
        )),
        [a, b, ..] => Err(format!(
            "the header has two {role} columns, `{}` and `{}`: keep one",
            accepted[a.1], accepted[b.1]
        )),
    }
}

/// The keys of a JSONL workload line that matter.
#[derive(Deserialize)]
struct JsonLine {
    timestamp: Option<Scalar>,
    arrival_ms: Option<Scalar>,
    arrival_s: Option<Scalar>,
    arrival_us: Option<Scalar>,
    input_length: Option<Scalar>,
    prompt_tokens: Option<Scalar>,
    output_length: Option<Scalar>,
    output_tokens: Option<Scalar>,
}

fn jsonl_line(text: &str) -> Result<Parsed, String> {
    let line: JsonLine = from_json_line(text)?;
    let arrivals = [
        line.timestamp,
        line.arrival_ms,
        line.arrival_s,
        line.arrival_us,
    ];
    let (index, value) = one_key(arrivals, &ARRIVAL_COLUMNS.map(|(name, _)| name), "arrival")?;
    let (name, unit) = ARRIVAL_COLUMNS[index];
    let time = value.time(name)?;
    let prompts = [line.input_length, line.prompt_tokens];
    let (index, value) = one_key(prompts, &PROMPT_COLUMNS, "prompt")?;
    let prompt_tokens = value.length(PROMPT_COLUMNS[index])?;
    let outputs = [line.output_length, line.output_tokens];
    let (index, value) = one_key(outputs, &OUTPUT_COLUMNS, "output")?;
    let output_tokens = value.length(OUTPUT_COLUMNS[index])?;
    Ok(Parsed {
        time,
        unit,
        prompt_tokens,
        output_tokens,
        block_ids: Vec::new(),
    })
}

/// The one present key among the aliases of a role.
fn one_key<const N: usize>(
    values: [Option<Scalar>; N],
    names: &[&str; N],
    role: &str,
) -> Result<(usize, Scalar), String> {
    let mut present = values
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)));
    match (present.next(), present.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(format!(
            "missing {role} field: give one of {}",
            names.join(", ")
        )),
        (Some(a), Some(b)) => Err(format!(
            "two {role} fields, `{}` and `{}`: keep one",
            names[a.0], names[b.0]
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_finds_roles_in_any_order() {
        let header = Header::parse("Output_Tokens, note, arrival_s ,\"prompt_tokens\"").unwrap();
        assert_eq!(header.cells, 4);
        assert_eq!(header.arrival.0, 2);
        assert_eq!(header.prompt.0, 3);
        assert_eq!(header.output.0, 0);
        let parsed = header.row("7,hello, 1.5 ,100").unwrap();
        assert_eq!(parsed.time.scaled_us(parsed.unit.us, 1.0), Some(1_500_000));
        assert_eq!((parsed.prompt_tokens, parsed.output_tokens), (100, 7));
    }

    #[test]
    fn a_quoted_cell_may_hold_commas_and_quotes() {
        let header = Header::parse(r#""note, free text",timestamp,input_length,output_length"#);
        let header = header.unwrap();
        assert_eq!((header.cells, header.arrival.0), (4, 1));
        // The third cell is `2,5"`: one cell, and not a number.
        let err = header
            .row(r#""a, ""quoted"", b",1000,"2,5""",7"#)
            .unwrap_err();
        assert!(err.contains("input_length"), "{err}");
        let parsed = header.row(r#""a, ""quoted"", b",1000,25,7"#).unwrap();
        assert_eq!((parsed.prompt_tokens, parsed.output_tokens), (25, 7));
    }

    #[test]
    fn header_errors() {
        let err = Header::parse("input_length,output_length").err().unwrap();
        assert!(err.contains("no arrival column"), "{err}");
        let err = Header::parse("timestamp,arrival_s,input_length,output_length");
        assert!(err.err().unwrap().contains("two arrival columns"));
    }

    #[test]
    fn jsonl_keys() {
        let parsed = jsonl_line(r#"{"arrival_us": 5, "prompt_tokens": 9, "output_tokens": 2}"#);
        let parsed = parsed.unwrap();
        assert_eq!(parsed.time.scaled_us(parsed.unit.us, 1.0), Some(5));
        let err = jsonl_line(
            r#"{"timestamp": 5, "arrival_s": 1, "input_length": 9, "output_length": 2}"#,
        );
        assert!(err.err().unwrap().contains("two arrival fields"));
        let err = jsonl_line(r#"{"timestamp": 5, "output_length": 2}"#);
        assert!(err.err().unwrap().contains("missing prompt field"));
    }
}
