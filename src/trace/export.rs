//! Writing a request list as Mooncake JSONL, so that `parse_mooncake` reads it back
//! exactly (same arrivals to the µs, lengths and ids; ids renumbered by position).
//!
//! Per line: `timestamp` in ms (an integer when the arrival is a whole ms, else a
//! decimal with 3 places, exact to the µs below 2^52 µs, about 142 years),
//! `input_length`, `output_length`, `hash_ids`, and `block_size` only when it is not 512. Requests without ids get an
//! empty `hash_ids` list, which `parse_mooncake` reads back as "no content": no fake
//! ids are invented, since fresh ids would change what the router charges.

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::MOONCAKE_BLOCK_SIZE;
use crate::Request;

/// Writes `requests` as Mooncake JSONL. Fails with `InvalidInput`, before writing the
/// offending line, for what `parse_mooncake` would reject: a block size of 0, a zero
/// length, or an id count that is neither 0 nor `ceil(prompt_tokens / block_size)`.
/// The requests may be a slice or any iterator (a synthetic generator is written as it
/// yields, without holding the list).
pub fn export_mooncake<W: Write, R: Borrow<Request>>(
    requests: impl IntoIterator<Item = R>,
    block_size: u32,
    mut out: W,
) -> io::Result<()> {
    if block_size == 0 {
        return Err(invalid("block size must be >= 1, got 0".to_string()));
    }
    let mut line = String::new();
    for request in requests {
        let request = request.borrow();
        check(request, block_size).map_err(invalid)?;
        line.clear();
        format_line(&mut line, request, block_size);
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn check(request: &Request, block_size: u32) -> Result<(), String> {
    let id = request.id;
    if request.prompt_tokens == 0 || request.output_tokens == 0 {
        return Err(format!(
            "request {id}: prompt and output lengths must be >= 1, got {} and {}",
            request.prompt_tokens, request.output_tokens
        ));
    }
    let expected = request.prompt_tokens.div_ceil(block_size) as usize;
    let got = request.block_ids.len();
    if got != 0 && got != expected {
        return Err(format!(
            "request {id}: {got} block ids for {} prompt tokens at block size {block_size} \
             (expected {expected})",
            request.prompt_tokens
        ));
    }
    Ok(())
}

/// One JSON line, in the field order and spacing of the Mooncake release.
fn format_line(line: &mut String, request: &Request, block_size: u32) {
    let ms = request.arrival_us / 1000;
    let us = request.arrival_us % 1000;
    // Writing to a String cannot fail.
    let _ = if us == 0 {
        write!(line, "{{\"timestamp\": {ms}")
    } else {
        write!(line, "{{\"timestamp\": {ms}.{us:03}")
    };
    let _ = write!(
        line,
        ", \"input_length\": {}, \"output_length\": {}, \"hash_ids\": [",
        request.prompt_tokens, request.output_tokens
    );
    for (index, id) in request.block_ids.iter().enumerate() {
        let sep = if index == 0 { "" } else { ", " };
        let _ = write!(line, "{sep}{id}");
    }
    line.push(']');
    if block_size != MOONCAKE_BLOCK_SIZE {
        let _ = write!(line, ", \"block_size\": {block_size}");
    }
    line.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(arrival_us: u64, prompt_tokens: u32, block_ids: Vec<u64>) -> Request {
        Request {
            id: 0,
            arrival_us,
            prompt_tokens,
            output_tokens: 3,
            block_ids: block_ids.into(),
            session: None,
            output_block_ids: Vec::new(),
        }
    }

    fn text(requests: &[Request], block_size: u32) -> String {
        let mut out = Vec::new();
        export_mooncake(requests, block_size, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_the_mooncake_layout() {
        let line = text(&[request(2_000, 513, vec![7, 8])], 512);
        assert_eq!(
            line,
            "{\"timestamp\": 2, \"input_length\": 513, \"output_length\": 3, \"hash_ids\": [7, 8]}\n"
        );
    }

    #[test]
    fn sub_ms_arrivals_and_other_block_sizes() {
        let line = text(&[request(1_234_005, 20, vec![1, 2])], 16);
        assert!(line.starts_with("{\"timestamp\": 1234.005,"), "{line}");
        assert!(line.ends_with(", \"block_size\": 16}\n"), "{line}");
    }

    #[test]
    fn refuses_what_the_parser_would_reject() {
        let mut out = Vec::new();
        let err = export_mooncake(&[request(0, 1025, vec![1])], 512, &mut out).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("expected 3"));
        assert!(export_mooncake(&[request(0, 5, vec![])], 0, &mut out).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn a_zero_output_or_a_zero_prompt_alone_is_refused() {
        // Either length at 0 is enough for the parser to reject the line, so for export.
        let no_output = Request {
            output_tokens: 0,
            ..request(0, 5, vec![])
        };
        let no_prompt = request(0, 0, vec![]);
        for (bad, want) in [
            (
                no_output,
                "request 0: prompt and output lengths must be >= 1, got 5 and 0",
            ),
            (
                no_prompt,
                "request 0: prompt and output lengths must be >= 1, got 0 and 3",
            ),
        ] {
            let mut out = Vec::new();
            let err = export_mooncake([bad], 512, &mut out).unwrap_err();
            assert_eq!(
                (err.kind(), err.to_string()),
                (io::ErrorKind::InvalidInput, want.to_string())
            );
            assert!(out.is_empty());
        }
    }
}
