//! Trace sources (Mooncake JSONL, workload CSV/JSONL): streaming parsers, export and analysis.
//!
//! Every parser reads its input line by line from a `BufRead` (one reused buffer), so
//! memory grows with the requests, not with the text, and produces the same thing: a
//! `Vec<Request>` in arrival order with `id` = position. The rules they share:
//!
//! - arrival µs = round(time × unit / `arrival_speedup`) (exact integer arithmetic when
//!   the time is an integer and the speedup is 1);
//! - lengths are whole numbers ≥ 1 (a prompt has a last token to compute, a request
//!   generates at least one token: both real Mooncake traces have `output_length` ≥ 1);
//! - blank lines are skipped; line numbers are 1-based physical lines of the file;
//! - times that go backwards are an error naming both times, unless `sort_arrivals` is
//!   set, in which case the list is sorted stably by arrival and renumbered;
//! - `max_requests` stops reading after that many requests (the first N lines, before
//!   any sort);
//! - an input that yields no request is an error.

mod analyze;
mod collect;
mod export;
mod lines;
mod mooncake;
mod pieces;
mod quick;
mod scalar;
mod slices;
mod workload_file;

use std::fmt;

pub use analyze::{analyze, TraceAnalysis};
pub use export::export_mooncake;
pub use mooncake::parse_mooncake;
pub use pieces::parse_mooncake_text;
pub use workload_file::parse_workload_file;

/// Tokens per block of a Mooncake trace's `hash_ids`.
pub const MOONCAKE_BLOCK_SIZE: u32 = 512;

/// How a trace is read: block size, time scaling, truncation, ordering.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceOptions {
    /// Tokens per block (`--des-block-size`); must match the trace's blocks.
    pub block_size: u32,
    /// Divides arrival times: 2 replays twice as fast, 0.001 stretches 1000 times.
    pub arrival_speedup: f64,
    /// Read only the first N requests (`--des-max-requests`).
    pub max_requests: Option<u32>,
    /// Sort by arrival instead of failing when times go backwards (`--des-sort-arrivals`).
    pub sort_arrivals: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            block_size: MOONCAKE_BLOCK_SIZE,
            arrival_speedup: 1.0,
            max_requests: None,
            sort_arrivals: false,
        }
    }
}

impl TraceOptions {
    /// Checks the options themselves; the error names the flag and the value.
    fn validate(&self, file: &str) -> Result<(), TraceError> {
        let fail = |message: String| Err(TraceError::whole(file, message));
        if self.block_size == 0 {
            return fail("--des-block-size must be >= 1, got 0".to_string());
        }
        if !(self.arrival_speedup.is_finite() && self.arrival_speedup > 0.0) {
            return fail(format!(
                "--des-arrival-speedup must be a finite number > 0, got {}",
                self.arrival_speedup
            ));
        }
        if self.max_requests == Some(0) {
            return fail("--des-max-requests must be >= 1, got 0".to_string());
        }
        Ok(())
    }
}

/// A trace that cannot be read: the file, the 1-based line (when one is to blame) and
/// what is wrong. Displays as `FILE:LINE: message` or `FILE: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The name the caller gave for the input (a path, or a label such as an upload).
    pub file: String,
    /// 1-based physical line number, when one line is to blame.
    pub line: Option<u64>,
    /// What is wrong, naming the field and the value.
    pub message: String,
}

impl TraceError {
    fn at(file: &str, line: u64, message: impl Into<String>) -> TraceError {
        TraceError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }

    fn whole(file: &str, message: impl Into<String>) -> TraceError {
        TraceError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// The syntax of a plain workload file (arrival, prompt and output lengths, no ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadFormat {
    /// Comma-separated values with a header line naming the columns.
    Csv,
    /// One JSON object per line, with the same keys as the CSV columns.
    Jsonl,
}

impl WorkloadFormat {
    /// Guesses the format from a file name: `.csv` is CSV, `.jsonl`, `.ndjson` and
    /// `.json` are JSONL; anything else is `None`.
    pub fn from_path(path: &str) -> Option<WorkloadFormat> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".csv") {
            Some(WorkloadFormat::Csv)
        } else if [".jsonl", ".ndjson", ".json"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        {
            Some(WorkloadFormat::Jsonl)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_display_with_and_without_line() {
        assert_eq!(
            TraceError::at("a.jsonl", 3, "bad").to_string(),
            "a.jsonl:3: bad"
        );
        assert_eq!(
            TraceError::whole("a.jsonl", "bad").to_string(),
            "a.jsonl: bad"
        );
    }

    #[test]
    fn options_are_validated() {
        let bad = |opts: TraceOptions| opts.validate("f").unwrap_err().message;
        let base = TraceOptions::default();
        assert!(base.validate("f").is_ok());
        for speedup in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let message = bad(TraceOptions {
                arrival_speedup: speedup,
                ..base.clone()
            });
            assert!(message.contains("--des-arrival-speedup"), "{message}");
        }
        let zero_block = TraceOptions {
            block_size: 0,
            ..base.clone()
        };
        assert!(bad(zero_block).contains("--des-block-size"));
        let zero_max = TraceOptions {
            max_requests: Some(0),
            ..base
        };
        assert!(bad(zero_max).contains("--des-max-requests"));
    }

    #[test]
    fn format_from_path() {
        assert_eq!(
            WorkloadFormat::from_path("w.CSV"),
            Some(WorkloadFormat::Csv)
        );
        assert_eq!(
            WorkloadFormat::from_path("w.jsonl"),
            Some(WorkloadFormat::Jsonl)
        );
        assert_eq!(WorkloadFormat::from_path("w.txt"), None);
    }
}
