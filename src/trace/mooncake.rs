//! The Mooncake JSONL parser: `timestamp` (ms), `input_length`, `output_length`,
//! `hash_ids` (one id per 512-token block), and kvfleet's optional `block_size`.
//!
//! Choices:
//! - extra fields are ignored; `timestamp` may be an integer or a float (ms);
//! - a line without `block_size` has 512-token blocks, so `--des-block-size` must be 512
//!   (ids are never re-cut to another size); a line with `"block_size": N` (written by
//!   `export_mooncake` when N ≠ 512) needs `--des-block-size N`;
//! - `len(hash_ids)` must be `ceil(input_length / block_size)`, except that an empty
//!   `hash_ids` is accepted and means "content unknown" (no reuse possible): that is how
//!   `export_mooncake` writes requests that have no ids, such as those of a plain
//!   workload file, so that replaying the export reproduces the run. `analyze` flags them.

use std::io::BufRead;

use serde::Deserialize;

use super::collect::{Collector, Parsed, MS};
use super::lines::LineReader;
use super::quick::{self, QuickLine};
use super::scalar::{from_json_line, HashIds, Scalar};
use super::{TraceError, TraceOptions, MOONCAKE_BLOCK_SIZE};
use crate::Request;

/// The fields of one line that matter; all optional so that a missing one gets a
/// message naming it.
#[derive(Deserialize)]
struct Line {
    timestamp: Option<Scalar>,
    input_length: Option<Scalar>,
    output_length: Option<Scalar>,
    hash_ids: Option<HashIds>,
    block_size: Option<Scalar>,
}

/// Reads a Mooncake JSONL trace as a stream; see the module notes for the rules.
pub fn parse_mooncake<R: BufRead>(
    reader: R,
    file: &str,
    opts: &TraceOptions,
) -> Result<Vec<Request>, TraceError> {
    opts.validate(file)?;
    let mut lines = LineReader::new(reader, file);
    let mut requests = Collector::new(file, opts);
    while !requests.is_full() {
        let Some((line_no, text)) = lines.next_line()? else {
            break;
        };
        let parsed =
            parse_line(text, opts.block_size).map_err(|m| TraceError::at(file, line_no, m))?;
        requests.push(line_no, parsed, lines.bytes_read())?;
    }
    requests.finish()
}

/// Checks one line and returns its request: read by the fast path when the line has the
/// usual shape, else by serde_json (every error comes from serde_json or the checks).
pub(super) fn parse_line(text: &str, block_size: u32) -> Result<Parsed, String> {
    let line = match quick::scan(text, block_size) {
        Some(fast) => Line::from(fast),
        None => from_json_line(text)?,
    };
    checked(line, block_size)
}

/// serde_json alone: the reference the fast path is tested against.
#[cfg(test)]
pub(super) fn parse_line_serde(text: &str, block_size: u32) -> Result<Parsed, String> {
    checked(from_json_line(text)?, block_size)
}

impl From<QuickLine> for Line {
    fn from(q: QuickLine) -> Line {
        Line {
            timestamp: Some(Scalar::Int(q.timestamp)),
            input_length: Some(Scalar::Int(q.input_length)),
            output_length: Some(Scalar::Int(q.output_length)),
            hash_ids: Some(HashIds(Ok(q.hash_ids))),
            block_size: q.block_size.map(Scalar::Int),
        }
    }
}

/// The field checks, the same whichever parser read the line.
fn checked(line: Line, block_size: u32) -> Result<Parsed, String> {
    let time = required(line.timestamp, "timestamp")?.time("timestamp")?;
    let prompt_tokens = required(line.input_length, "input_length")?.length("input_length")?;
    let output_tokens = required(line.output_length, "output_length")?.length("output_length")?;
    check_block_size(line.block_size, block_size)?;
    let block_ids = required(line.hash_ids, "hash_ids")?.0?;
    check_id_count(block_ids.len(), prompt_tokens, block_size)?;
    Ok(Parsed {
        time,
        unit: MS,
        prompt_tokens,
        output_tokens,
        block_ids,
    })
}

fn required<T>(value: Option<T>, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing field `{field}` (or it is null)"))
}

/// The line's block size (512 unless it says otherwise) must be the run's.
fn check_block_size(declared: Option<Scalar>, block_size: u32) -> Result<(), String> {
    match declared {
        None if block_size == MOONCAKE_BLOCK_SIZE => Ok(()),
        None => Err(format!(
            "Mooncake hash_ids are {MOONCAKE_BLOCK_SIZE}-token blocks, but --des-block-size \
             is {block_size}; run with --des-block-size {MOONCAKE_BLOCK_SIZE} (the ids cannot \
             be re-cut to another block size)"
        )),
        Some(value) => {
            let declared = value.length("block_size")?;
            if declared == block_size {
                Ok(())
            } else {
                Err(format!(
                    "this line's hash_ids are {declared}-token blocks (\"block_size\": \
                     {declared}), but --des-block-size is {block_size}; run with \
                     --des-block-size {declared}"
                ))
            }
        }
    }
}

/// One id per block, the last one possibly partial; an empty list means "no content".
fn check_id_count(got: usize, prompt_tokens: u32, block_size: u32) -> Result<(), String> {
    let expected = prompt_tokens.div_ceil(block_size) as usize;
    if got == 0 || got == expected {
        return Ok(());
    }
    Err(format!(
        "hash_ids has {got} ids, but input_length {prompt_tokens} needs \
         ceil({prompt_tokens} / {block_size}) = {expected} (one id per {block_size}-token \
         block, the last one partial)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Result<Parsed, String> {
        parse_line(text, 512)
    }

    #[test]
    fn reads_a_line_and_ignores_extra_fields() {
        let parsed = line(
            r#"{"timestamp": 7, "input_length": 513, "output_length": 3, "hash_ids": [4, 9], "x": [1]}"#,
        )
        .unwrap();
        assert_eq!(parsed.prompt_tokens, 513);
        assert_eq!(parsed.output_tokens, 3);
        assert_eq!(parsed.block_ids[..], [4, 9]);
    }

    #[test]
    fn names_missing_and_bad_fields() {
        let err = line(r#"{"input_length": 5, "output_length": 1, "hash_ids": [1]}"#);
        assert!(err.unwrap_err().contains("missing field `timestamp`"));
        let err =
            line(r#"{"timestamp": 0, "input_length": -5, "output_length": 1, "hash_ids": [1]}"#);
        assert!(err
            .unwrap_err()
            .contains("input_length must be a whole number"));
        let err = line(
            r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1, "a"]}"#,
        );
        assert!(err.unwrap_err().contains("hash_ids[1]"));
        let err = line(r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": 3}"#);
        assert!(err.unwrap_err().contains("hash_ids as an array"));
    }

    #[test]
    fn id_count_must_match_the_prompt() {
        let err = line(
            r#"{"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": [1, 2]}"#,
        );
        let err = err.unwrap_err();
        assert!(err.contains("has 2 ids") && err.contains("= 3"), "{err}");
        let empty =
            line(r#"{"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": []}"#);
        assert!(empty.unwrap().block_ids.is_empty());
    }

    #[test]
    fn block_size_must_match() {
        let plain = r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#;
        let err = parse_line(plain, 256).unwrap_err();
        assert!(
            err.contains("--des-block-size is 256") && err.contains("512-token"),
            "{err}"
        );
        let own = r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1], "block_size": 16}"#;
        assert!(parse_line(own, 16).is_ok());
        assert!(parse_line(own, 512)
            .unwrap_err()
            .contains("--des-block-size 16"));
    }
}
