#![cfg(not(target_arch = "wasm32"))]
//! Trace parsers: good files, every kind of bad input with its line number, options
//! (block size, speedup, max requests, sorting), garbage that must not panic, streaming.

use std::io::{BufReader, Read};

use kvfleet::trace::{parse_mooncake, parse_workload_file, TraceOptions, WorkloadFormat};
use kvfleet::Request;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn mooncake(text: &str, opts: &TraceOptions) -> Result<Vec<Request>, kvfleet::trace::TraceError> {
    parse_mooncake(text.as_bytes(), "t.jsonl", opts)
}

fn mooncake_err(text: &str) -> (Option<u64>, String) {
    let err = mooncake(text, &TraceOptions::default()).unwrap_err();
    assert_eq!(err.file, "t.jsonl");
    (err.line, err.message)
}

const GOOD: &str =
    r#"{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}"#;

#[test]
fn small_mooncake_file() {
    let requests = mooncake(&fixture("mooncake_small.jsonl"), &TraceOptions::default()).unwrap();
    assert_eq!(requests.len(), 4);
    let arrivals: Vec<u64> = requests.iter().map(|r| r.arrival_us).collect();
    assert_eq!(arrivals, [0, 0, 3_000, 7_250]);
    assert_eq!(requests[1].block_ids[..], [0, 1, 2]);
    assert_eq!(requests[3].prompt_tokens, 513);
    assert!(requests.iter().enumerate().all(|(i, r)| r.id as usize == i));
}

#[test]
fn bad_lines_name_their_line_and_problem() {
    let cases: [(&str, &str); 9] = [
        ("{\"timestamp\": 0, ", "invalid JSON"),
        ("not json", "invalid JSON"),
        (
            r#"{"input_length": 600, "output_length": 5, "hash_ids": [1, 2]}"#,
            "missing field `timestamp`",
        ),
        (
            r#"{"timestamp": 0, "output_length": 5, "hash_ids": [1, 2]}"#,
            "missing field `input_length`",
        ),
        (
            r#"{"timestamp": 0, "input_length": 600, "output_length": 5}"#,
            "missing field `hash_ids`",
        ),
        (
            r#"{"timestamp": -1, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}"#,
            "timestamp must be a number >= 0, got -1",
        ),
        (
            r#"{"timestamp": 0, "input_length": -600, "output_length": 5, "hash_ids": [1, 2]}"#,
            "input_length must be a whole number >= 1, got -600",
        ),
        (
            r#"{"timestamp": 0, "input_length": 600, "output_length": 0, "hash_ids": [1, 2]}"#,
            "output_length must be >= 1, got 0",
        ),
        (
            r#"{"timestamp": 0, "input_length": 600.5, "output_length": 5, "hash_ids": [1, 2]}"#,
            "got 600.5",
        ),
    ];
    for (bad, want) in cases {
        let text = format!("{GOOD}\n\n{bad}\n{GOOD}\n");
        let (line, message) = mooncake_err(&text);
        assert_eq!(line, Some(3), "{bad}");
        assert!(message.contains(want), "{bad}: {message}");
    }
}

#[test]
fn id_count_mismatch_says_expected_and_got() {
    let bad = r#"{"timestamp": 1, "input_length": 1025, "output_length": 5, "hash_ids": [1, 2]}"#;
    let (line, message) = mooncake_err(&format!("{GOOD}\n{bad}\n"));
    assert_eq!(line, Some(2));
    assert!(message.contains("has 2 ids"), "{message}");
    assert!(message.contains("ceil(1025 / 512) = 3"), "{message}");
}

#[test]
fn empty_inputs_are_errors() {
    for text in ["", "\n\n  \n"] {
        let err = mooncake(text, &TraceOptions::default()).unwrap_err();
        assert_eq!(err.line, None);
        assert!(err.message.contains("no requests"), "{}", err.message);
        assert!(err.to_string().starts_with("t.jsonl: "));
        let csv = parse_workload_file(
            text.as_bytes(),
            "w.csv",
            WorkloadFormat::Csv,
            &TraceOptions::default(),
        );
        assert!(csv.unwrap_err().message.contains("no requests"));
    }
    let header_only = "timestamp,input_length,output_length\n";
    let csv = parse_workload_file(
        header_only.as_bytes(),
        "w.csv",
        WorkloadFormat::Csv,
        &TraceOptions::default(),
    );
    assert!(csv.unwrap_err().message.contains("no requests"));
}

#[test]
fn block_size_mismatch_is_explained() {
    let opts = TraceOptions {
        block_size: 256,
        ..TraceOptions::default()
    };
    let err = mooncake(GOOD, &opts).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("t.jsonl:1: "), "{text}");
    assert!(text.contains("--des-block-size is 256"), "{text}");
    assert!(text.contains("512-token blocks"), "{text}");
    // A line that declares its own block size is read at that size only.
    let own = r#"{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2, 3], "block_size": 256}"#;
    assert_eq!(mooncake(own, &opts).unwrap()[0].block_ids.len(), 3);
    let err = mooncake(own, &TraceOptions::default()).unwrap_err();
    assert!(
        err.message.contains("--des-block-size 256"),
        "{}",
        err.message
    );
}

#[test]
fn max_requests_stops_reading() {
    // The garbage after the second request is never read.
    let text = format!("{GOOD}\n{GOOD}\nthis is not json\n");
    let opts = TraceOptions {
        max_requests: Some(2),
        ..TraceOptions::default()
    };
    assert_eq!(mooncake(&text, &opts).unwrap().len(), 2);
    assert_eq!(mooncake_err(&text).0, Some(3));
}

#[test]
fn arrival_speedup_scales_times() {
    let text = "{\"timestamp\": 1000, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}\n\
                {\"timestamp\": 1500.5, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}\n";
    let at = |speedup: f64| -> Vec<u64> {
        let opts = TraceOptions {
            arrival_speedup: speedup,
            ..TraceOptions::default()
        };
        mooncake(text, &opts)
            .unwrap()
            .iter()
            .map(|r| r.arrival_us)
            .collect()
    };
    assert_eq!(at(1.0), [1_000_000, 1_500_500]);
    assert_eq!(at(2.0), [500_000, 750_250]);
    assert_eq!(at(0.001), [1_000_000_000, 1_500_500_000]);
    for bad in [0.0, -2.0, f64::NAN] {
        let opts = TraceOptions {
            arrival_speedup: bad,
            ..TraceOptions::default()
        };
        assert!(mooncake(text, &opts)
            .unwrap_err()
            .message
            .contains("--des-arrival-speedup"));
    }
}

#[test]
fn backwards_times_error_or_sort() {
    let line = |ts: u64, tokens: u32| {
        format!("{{\"timestamp\": {ts}, \"input_length\": {tokens}, \"output_length\": 1, \"hash_ids\": [{tokens}]}}\n")
    };
    let text = [line(5, 1), line(9, 2), line(3, 3), line(9, 4)].concat();
    let (no, message) = mooncake_err(&text);
    assert_eq!(no, Some(3));
    assert!(
        message.contains("3 ms here, after 9 ms on line 2"),
        "{message}"
    );
    assert!(message.contains("--des-sort-arrivals"), "{message}");
    let opts = TraceOptions {
        sort_arrivals: true,
        ..TraceOptions::default()
    };
    let sorted = mooncake(&text, &opts).unwrap();
    let order: Vec<(u32, u64, u32)> = sorted
        .iter()
        .map(|r| (r.id, r.arrival_us, r.prompt_tokens))
        .collect();
    // Stable: the two requests at 9 ms keep their file order.
    assert_eq!(
        order,
        [(0, 3_000, 3), (1, 5_000, 1), (2, 9_000, 2), (3, 9_000, 4)]
    );
}

#[test]
fn workload_csv_and_jsonl_agree() {
    let opts = TraceOptions::default();
    let csv = parse_workload_file(
        fixture("workload.csv").as_bytes(),
        "w.csv",
        WorkloadFormat::Csv,
        &opts,
    )
    .unwrap();
    let jsonl = parse_workload_file(
        fixture("workload.jsonl").as_bytes(),
        "w.jsonl",
        WorkloadFormat::Jsonl,
        &opts,
    );
    let jsonl = jsonl.unwrap();
    assert_eq!(csv.len(), 3);
    assert_eq!(csv[1].arrival_us, 500_000);
    assert_eq!(jsonl[2].arrival_us, 1_250_500);
    for (a, b) in csv.iter().zip(&jsonl) {
        assert_eq!(
            (a.id, a.prompt_tokens, a.output_tokens),
            (b.id, b.prompt_tokens, b.output_tokens)
        );
        assert!(a.block_ids.is_empty() && b.block_ids.is_empty());
    }
}

#[test]
fn a_spreadsheets_quoted_cells_are_read_as_one_cell_each() {
    // As a spreadsheet exports a workload with a free-text column: quotes around a cell
    // that holds commas or quotes, and around numbers too.
    let text = "\"note, free text\",arrival_s,prompt_tokens,output_tokens\n\
                \"summarise, then answer\",0.5,100,7\n\
                \"say \"\"hi\"\", twice\",\"1.25\",\"2048\",3\n";
    let opts = TraceOptions::default();
    let got = parse_workload_file(text.as_bytes(), "w.csv", WorkloadFormat::Csv, &opts).unwrap();
    let rows: Vec<_> = got
        .iter()
        .map(|r| (r.arrival_us, r.prompt_tokens, r.output_tokens))
        .collect();
    assert_eq!(rows, [(500_000, 100, 7), (1_250_000, 2048, 3)]);
    // A number written with a thousands separator is one cell, and not a number: its line.
    let bad = "arrival_s,prompt_tokens,output_tokens\n0,10,1\n1,\"1,024\",5\n";
    let err = parse_workload_file(bad.as_bytes(), "w.csv", WorkloadFormat::Csv, &opts);
    let err = err.unwrap_err();
    assert_eq!(err.line, Some(3));
    assert!(err.message.contains("prompt_tokens"), "{}", err.message);
}

#[test]
fn csv_errors_name_line_and_column() {
    let opts = TraceOptions::default();
    let csv = |text: &str| {
        parse_workload_file(text.as_bytes(), "w.csv", WorkloadFormat::Csv, &opts).unwrap_err()
    };
    let err = csv("timestamp,input_length,output_length\n0,10,1\n5,ten,1\n");
    assert_eq!(err.line, Some(3));
    assert!(
        err.message.contains("column `input_length`") && err.message.contains("\"ten\""),
        "{}",
        err.message
    );
    let err = csv("timestamp,input_length,output_length\n0,10,1\n,10,1\n");
    assert!(
        err.message.contains("column `timestamp`") && err.message.contains("empty cell"),
        "{}",
        err.message
    );
    let err = csv("timestamp,input_length,output_length\n0,10\n");
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("2 cells"), "{}", err.message);
    let err = csv("time,input_length,output_length\n0,10,1\n");
    assert_eq!(err.line, Some(1));
    assert!(err.message.contains("no arrival column"), "{}", err.message);
    let err = csv("arrival_ms,input_length,output_length\n10,10,1\n5,10,1\n");
    assert!(
        err.message.contains("5 ms here, after 10 ms on line 2"),
        "{}",
        err.message
    );
}

#[test]
fn garbage_never_panics() {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"timestamp\"",
        "\"input_length\"",
        "\"output_length\"",
        "\"hash_ids\"",
        "\"block_size\"",
        "-1",
        "0",
        "1e999",
        "18446744073709551616",
        "3.5",
        "null",
        "true",
        "\"x\"",
        " ",
        "\n",
        "\u{feff}",
        "\\",
        "\"",
        "512",
    ];
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let opts = TraceOptions::default();
        let _ = mooncake(&text, &opts);
        let _ = parse_workload_file(text.as_bytes(), "g", WorkloadFormat::Csv, &opts);
        let _ = parse_workload_file(text.as_bytes(), "g", WorkloadFormat::Jsonl, &opts);
    }
    let deep = "[".repeat(100_000);
    assert!(mooncake(&format!("{{\"hash_ids\": {deep}"), &TraceOptions::default()).is_err());
    let huge = r#"{"timestamp": 1e300, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#;
    assert!(mooncake(huge, &TraceOptions::default())
        .unwrap_err()
        .message
        .contains("too large"));
}

/// Yields `lines` Mooncake lines on demand, never holding more than one in memory.
struct GeneratedTrace {
    next_line: u64,
    lines: u64,
    pad_bytes: usize,
    pending: Vec<u8>,
    offset: usize,
}

impl Read for GeneratedTrace {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.offset == self.pending.len() {
            if self.next_line == self.lines {
                return Ok(0);
            }
            let n = self.next_line;
            self.pending = format!(
                "{{\"timestamp\": {n}, \"input_length\": 1500, \"output_length\": 7, \"hash_ids\": [0, {}, {}], \"pad\": \"{}\"}}\n",
                2 * n + 1,
                2 * n + 2,
                "x".repeat(self.pad_bytes)
            )
            .into_bytes();
            self.offset = 0;
            self.next_line += 1;
        }
        let take = (self.pending.len() - self.offset).min(buf.len());
        buf[..take].copy_from_slice(&self.pending[self.offset..self.offset + take]);
        self.offset += take;
        Ok(take)
    }
}

#[test]
fn streams_from_a_reader() {
    let requests = parse_generated(50_000, 200);
    assert_eq!(requests.len(), 50_000);
    assert_eq!(requests[49_999].block_ids[..], [0, 99_999, 100_000]);
    assert_eq!(requests[49_999].arrival_us, 49_999_000);
}

fn parse_generated(lines: u64, pad_bytes: usize) -> Vec<Request> {
    let reader = GeneratedTrace {
        next_line: 0,
        lines,
        pad_bytes,
        pending: Vec::new(),
        offset: 0,
    };
    parse_mooncake(
        BufReader::new(reader),
        "generated",
        &TraceOptions::default(),
    )
    .unwrap()
}

/// About 100 MB of text (100,000 lines of about 1 kB) for measuring peak memory by hand:
/// `/usr/bin/time -v target/release/deps/trace_parse-* --ignored --exact stream_100_mb`.
#[test]
#[ignore]
fn stream_100_mb() {
    let requests = parse_generated(100_000, 900);
    assert_eq!(requests.len(), 100_000);
}

#[test]
fn an_arrival_of_exactly_2_pow_62_us_is_refused_and_one_less_is_kept() {
    // The simulator's clock ends at 2^62 = 4611686018427387904 µs: times must stay below.
    let jsonl = |arrival_us: u64| {
        let line =
            format!(r#"{{"arrival_us": {arrival_us}, "prompt_tokens": 3, "output_tokens": 1}}"#);
        parse_workload_file(
            line.as_bytes(),
            "w.jsonl",
            WorkloadFormat::Jsonl,
            &TraceOptions::default(),
        )
    };
    let kept = jsonl(4_611_686_018_427_387_903).unwrap();
    assert_eq!(kept[0].arrival_us, 4_611_686_018_427_387_903);
    let err = jsonl(4_611_686_018_427_387_904).unwrap_err();
    assert_eq!(err.line, Some(1));
    assert!(
        err.message
            .starts_with("time 4611686018427387904 µs is too large: once scaled to µs (speedup 1)"),
        "{}",
        err.message
    );
}
