//! The fast path against serde_json: every line of both real traces, hand-made unusual
//! lines, and seeded corruptions of real lines must read the same (same request or the
//! same error message), and the fast path must actually take the real lines.

use super::scan;
use crate::rng::splitmix64;
use crate::trace::mooncake::{parse_line, parse_line_serde};

fn real_trace(name: &str) -> String {
    let path = format!("{}/data/mooncake/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Both parsers give the same answer for `text`.
fn agree(text: &str, block_size: u32) {
    assert_eq!(
        parse_line(text, block_size),
        parse_line_serde(text, block_size),
        "the line: {text:?}"
    );
}

#[test]
fn every_line_of_both_real_traces_reads_the_same_and_takes_the_fast_path() {
    for name in ["conversation_trace.jsonl", "synthetic_trace.jsonl"] {
        let text = real_trace(name);
        let mut lines = 0;
        for line in text.lines() {
            let fast = scan(line, 512).unwrap_or_else(|| panic!("{name}: declined {line:?}"));
            assert!(!fast.hash_ids.is_empty());
            agree(line, 512);
            lines += 1;
        }
        let expected = if name.starts_with("conv") {
            12031
        } else {
            3993
        };
        assert_eq!(lines, expected, "{name}");
    }
}

#[test]
fn a_plain_line_is_read_field_by_field() {
    let q = scan(
        "{\"hash_ids\":[7,0, 18446744073709551],\t\"output_length\" : 3,\"timestamp\":0,\
         \"input_length\":1025,\"block_size\":512}  ",
        512,
    )
    .unwrap();
    assert_eq!(q.timestamp, 0);
    assert_eq!(q.input_length, 1025);
    assert_eq!(q.output_length, 3);
    assert_eq!(q.hash_ids, vec![7, 0, 18_446_744_073_709_551]);
    assert_eq!(q.block_size, Some(512));
}

/// Lines the fast path must decline, each for its own reason, and that serde_json either
/// rejects or reads differently from a plain integer.
const DECLINED: &[&str] = &[
    r#"{"timestamp": 1.5, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 1e3, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 01, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": -0, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": -5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": "5", "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": null, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1, "a"]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1.0]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": 3}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1,]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1],}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]} x"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1}"#,
    r#"{"timestamp": 0, "timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1], "x": [1]}"#,
    r#"{"time\u0073tamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": 18446744073709551615, "output_length": 1, "hash_ids": [1]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [99999999999999999999]}"#,
    r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1] "block_size": 16}"#,
    "\u{a0}{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}",
    "[1, 2]",
    "{}",
    "",
];

#[test]
fn unusual_lines_are_left_to_serde_json_and_read_the_same() {
    for line in DECLINED {
        assert_eq!(scan(line, 512), None, "{line}");
        agree(line, 512);
    }
}

/// Lines the fast path reads whose checks fail: the errors come from the shared checks.
#[test]
fn checks_fail_the_same_on_lines_the_fast_path_reads() {
    let lines = [
        r#"{"timestamp": 0, "input_length": 0, "output_length": 1, "hash_ids": [1]}"#,
        r#"{"timestamp": 0, "input_length": 5, "output_length": 0, "hash_ids": [1]}"#,
        r#"{"timestamp": 0, "input_length": 4294967296, "output_length": 1, "hash_ids": [1]}"#,
        r#"{"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": [1, 2]}"#,
        r#"{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1], "block_size": 16}"#,
        r#"{"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": []}"#,
    ];
    for line in lines {
        assert!(scan(line, 512).is_some(), "{line}");
        agree(line, 512);
        agree(line, 16);
    }
    assert!(parse_line(lines[0], 512)
        .unwrap_err()
        .contains(">= 1, got 0"));
}

/// Seeded edits of real lines: deletions, insertions and replacements with bytes that
/// matter to JSON. Whatever the fast path accepts, serde_json must read the same way.
#[test]
fn corrupted_real_lines_read_the_same_as_with_serde_json() {
    const ALPHABET: &[u8] = b"{}[],:\"0123456789-.eE \tnul\\x";
    let text = real_trace("synthetic_trace.jsonl");
    let lines: Vec<&str> = text.lines().take(400).collect();
    let mut state = 42u64;
    let mut draw = |n: usize| {
        state = splitmix64(state);
        (state % n as u64) as usize
    };
    let (mut accepted, mut declined) = (0, 0);
    for round in 0..6000 {
        let line = lines[round % lines.len()];
        let mut bytes: Vec<u8> = line.as_bytes()[..line.len().min(300)].to_vec();
        if line.len() > 300 {
            bytes.extend_from_slice(b"]}");
        }
        for _ in 0..=draw(3) {
            let at = draw(bytes.len() + 1);
            let byte = ALPHABET[draw(ALPHABET.len())];
            match draw(3) {
                0 if at < bytes.len() => drop(bytes.remove(at)),
                1 if at < bytes.len() => bytes[at] = byte,
                _ => bytes.insert(at, byte),
            }
        }
        let edited = String::from_utf8(bytes).expect("ASCII edits of ASCII");
        agree(&edited, 512);
        match scan(&edited, 512) {
            Some(_) => accepted += 1,
            None => declined += 1,
        }
    }
    // Both paths were exercised: some edits keep a valid plain line, most break it.
    assert!(accepted > 300 && declined > 3000, "{accepted} {declined}");
}

/// Ids of every length from 1 to 20 digits, with and without leading zeros, after each
/// separator, near the end of the line and far from it (whole words or the slow path):
/// the fast path reads them as serde_json does, and declines what serde_json reads
/// otherwise.
#[test]
fn ids_of_every_length_and_spacing_read_as_serde_json_reads_them() {
    let mut state = 7u64;
    for round in 0..4000 {
        let mut ids = Vec::new();
        for _ in 0..1 + round % 5 {
            state = splitmix64(state);
            let (digits, keep_zero) = (1 + (state % 20) as usize, state >> 62 == 0);
            let mut id: String = (0..digits)
                .map(|_| {
                    state = splitmix64(state);
                    char::from(b'0' + (state % 10) as u8)
                })
                .collect();
            if !keep_zero && id.starts_with('0') && id.len() > 1 {
                id.replace_range(..1, "1");
            }
            ids.push(id);
        }
        let separator = [", ", ",", " , ", ",  ", "\t,"][(state >> 60) as usize % 5];
        let count = ids.len();
        let line = format!(
            r#"{{"timestamp": 0, "input_length": {}, "output_length": 1, "hash_ids": [{}]}}"#,
            count * 512,
            ids.join(separator)
        );
        agree(&line, 512);
        let serde = parse_line_serde(&line, 512);
        if let (Some(fast), Ok(parsed)) = (scan(&line, 512), &serde) {
            assert_eq!(fast.hash_ids, parsed.block_ids, "{line}");
        }
    }
}

/// Every word of 1 to 7 leading digits gives their value; 0 or 8 give `None`.
#[test]
fn digits_of_a_word_are_its_leading_digits() {
    let mut state = 11u64;
    for _ in 0..20_000 {
        state = splitmix64(state);
        let bytes: [u8; 8] = std::array::from_fn(|k| {
            let draw = (state >> (8 * k)) as u8;
            if draw.is_multiple_of(4) {
                [b'/', b':', b' ', b',', b']', 0xff, 0xfa, 0x00][usize::from(draw >> 5)]
            } else {
                b'0' + draw % 10
            }
        });
        let count = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let value = bytes[..count]
            .iter()
            .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
        let want = (1..=7).contains(&count).then_some((value, count));
        assert_eq!(
            super::digits_of(u64::from_le_bytes(bytes)),
            want,
            "{bytes:?}"
        );
    }
}

/// The run of plain ids reads every id it can (it is the fast path's fast path), stopping
/// only where its rules say: a leading zero, eight digits, fewer than eight bytes left.
#[test]
fn a_run_of_plain_ids_reads_what_its_rules_allow() {
    let run = |text: &str| {
        let mut ids = Vec::new();
        let (at, after_id) = super::plain_run(text.as_bytes(), 0, &mut ids);
        (ids, at, after_id)
    };
    // Eight bytes exactly: one id of 7 digits, then the end of the run.
    assert_eq!(run("1234567]"), (vec![1_234_567], 7, true));
    // Ids of 1 to 7 digits, 0 among them, each followed by ", ", while eight bytes remain.
    let text = "0, 12, 7, 100, 3, 9999999, 5, 0, 0, 0]";
    let (ids, at, after_id) = run(text);
    assert_eq!(ids, vec![0, 12, 7, 100, 3, 9_999_999, 5, 0]);
    // "0, 0, 0]" was eight bytes, so its first id was read; it stopped at the start of the
    // next, with five bytes left.
    assert_eq!((&text[at..], after_id), ("0, 0]", false));
    // A leading zero or eight digits stop the run before the id, which serde's rules read.
    assert_eq!(run("7, 01, 2, 3, 4]"), (vec![7], 3, false));
    assert_eq!(run("7, 12345678, 2]"), (vec![7], 3, false));
    // Fewer than eight bytes: nothing read.
    assert_eq!(run("1, 2]"), (vec![], 0, false));
}

/// An integer of 19 digits fits a u64 as serde_json reads it and takes the fast path; one
/// of 20 digits is declined (serde_json reads or rejects it).
#[test]
fn integers_of_up_to_19_digits_take_the_fast_path() {
    let line = |t: &str| {
        format!(r#"{{"timestamp": {t}, "input_length": 5, "output_length": 1, "hash_ids": [1]}}"#)
    };
    let q = scan(&line("9999999999999999999"), 512).expect("19 digits");
    assert_eq!(q.timestamp, 9_999_999_999_999_999_999);
    assert_eq!(scan(&line("10000000000000000000"), 512), None);
    agree(&line("10000000000000000000"), 512);
}
