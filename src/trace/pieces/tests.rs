//! The threaded read against the one-thread stream: on both real traces and on texts with
//! errors placed on line 1, on the last line, at the cuts and in two pieces at once, the
//! requests or the first error (message and line) must be the same for every thread count.

use super::*;
use crate::rng::splitmix64;
use crate::trace::parse_mooncake;

fn real_trace(name: &str) -> Vec<u8> {
    let path = format!("{}/data/mooncake/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `text` reads the same with 1 to 5 threads as with the one-thread stream; returns that.
fn same_every_way(text: &[u8], opts: &TraceOptions) -> Result<Vec<Request>, TraceError> {
    let streamed = parse_mooncake(text, "t.jsonl", opts);
    for threads in 1..=5 {
        let threaded = parse_mooncake_text(text, "t.jsonl", opts, threads);
        assert_eq!(
            threaded,
            streamed,
            "{threads} threads on {:?}",
            String::from_utf8_lossy(&text[..text.len().min(200)])
        );
    }
    streamed
}

/// The first `n` lines of the conversation trace, each ending in a line feed.
fn real_lines(n: usize) -> Vec<String> {
    let text = String::from_utf8(real_trace("conversation_trace.jsonl")).unwrap();
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

#[test]
fn both_real_traces_read_the_same_on_every_thread_count() {
    for (name, count) in [
        ("conversation_trace.jsonl", 12_031),
        ("synthetic_trace.jsonl", 3_993),
    ] {
        let requests = same_every_way(&real_trace(name), &TraceOptions::default()).unwrap();
        assert_eq!(requests.len(), count, "{name}");
    }
}

#[test]
fn the_cuts_end_at_line_feeds_and_count_the_lines_before() {
    let text = b"a\nbb\n\nccc\nd".as_slice();
    for count in 1..=6 {
        let pieces = cut(text, count);
        assert_eq!(pieces.len(), count);
        let joined: Vec<u8> = pieces.iter().flat_map(|p| p.text.to_vec()).collect();
        assert_eq!(joined, text, "{count} pieces cover the text in order");
        let (mut lines, mut bytes) = (0u64, 0u64);
        for (k, p) in pieces.iter().enumerate() {
            assert_eq!(
                (p.lines_before, p.bytes_before),
                (lines, bytes),
                "piece {k}"
            );
            let at_end = bytes as usize + p.text.len() == text.len();
            assert!(
                at_end || p.text.last() == Some(&b'\n'),
                "piece {k} of {count} ends a line or the text"
            );
            lines += p.text.iter().filter(|&&b| b == b'\n').count() as u64;
            bytes += p.text.len() as u64;
        }
    }
    // Two pieces of this text: the middle (byte 5) falls on "\n" after "bb".
    let two = cut(text, 2);
    assert_eq!(
        (two[0].text, two[1].text),
        (&b"a\nbb\n\n"[..], &b"ccc\nd"[..])
    );
    assert_eq!(two[1].lines_before, 3);
}

#[test]
fn an_error_on_the_first_or_last_line_or_at_a_cut_is_the_same_error() {
    let lines = real_lines(40);
    let bad_lines: &[&str] = &[
        "{\"timestamp\": 1, \"input_length\": 0}\n",
        "not json\n",
        "\u{feff}{\"timestamp\": 1}\n",
        "{\"timestamp\": 1, \"input_length\": 100, \"output_length\": 1, \"hash_ids\": [1, 2]}\n",
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\r\r\n",
        "a\rb\n",
    ];
    for bad in bad_lines {
        for at in [0, 1, 19, 20, 21, 39, 40] {
            let mut text = lines.clone();
            text.insert(at, bad.to_string());
            let err = same_every_way(text.concat().as_bytes(), &TraceOptions::default());
            if let Err(e) = err {
                assert_eq!(e.line, Some(at as u64 + 1), "{bad:?} at {at}: {e}");
            }
        }
    }
}

#[test]
fn the_earlier_of_two_errors_wins_whichever_check_finds_it() {
    let lines = real_lines(30);
    let parse_error = "{\"timestamp\": 5, \"input_length\": 1}\n".to_string();
    // Time 0 after the trace's first 10 lines (at 0) has risen to 3000 ms: a time that
    // goes backwards, which only the collector sees, not the piece that read it.
    let backwards = lines[0].clone();
    for (first, second) in [
        (parse_error.clone(), backwards.clone()),
        (backwards.clone(), parse_error.clone()),
    ] {
        for (a, b) in [(11, 25), (14, 16), (12, 29)] {
            let mut text = lines.clone();
            text.insert(b, second.clone());
            text.insert(a, first.clone());
            let err = same_every_way(text.concat().as_bytes(), &TraceOptions::default())
                .expect_err("two bad lines");
            assert_eq!(err.line, Some(a as u64 + 1), "{err}");
        }
    }
}

#[test]
fn blank_lines_crlf_invalid_utf8_and_empty_inputs_read_the_same() {
    let lines = real_lines(12);
    let texts: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n\n  \n\t\n".to_vec(),
        format!("\u{feff}{}", lines.concat()).into_bytes(),
        lines.concat().replace('\n', "\r\n").into_bytes(),
        lines.join("\n  \n\n").into_bytes(),
        lines.concat().trim_end().as_bytes().to_vec(),
        [
            lines[..6].concat().as_bytes(),
            b"\xff\xfe\n",
            lines[6..].concat().as_bytes(),
        ]
        .concat(),
    ];
    for text in &texts {
        same_every_way(text, &TraceOptions::default()).ok();
    }
    // The same options' checks, and the sort, apply to the threaded read.
    let mut shuffled = lines.clone();
    shuffled.swap(2, 11);
    let text = shuffled.concat().into_bytes();
    let sorting = TraceOptions {
        sort_arrivals: true,
        arrival_speedup: 3.0,
        ..TraceOptions::default()
    };
    assert!(same_every_way(&text, &sorting).is_ok());
    assert!(same_every_way(&text, &TraceOptions::default()).is_err());
    let capped = TraceOptions {
        max_requests: Some(5),
        sort_arrivals: true,
        ..TraceOptions::default()
    };
    assert_eq!(same_every_way(&text, &capped).unwrap().len(), 5);
    // A cap at or above the lines (12 here, the last without a line feed) reads them all,
    // on threads; one below stops at the cap.
    for (max, len) in [(12, 12), (13, 12), (11, 11)] {
        let cap = TraceOptions {
            max_requests: Some(max),
            sort_arrivals: true,
            ..TraceOptions::default()
        };
        let text = shuffled.concat().trim_end().to_string().into_bytes();
        assert_eq!(stops_early(&text, &cap), max < 12, "cap {max}");
        assert_eq!(same_every_way(&text, &cap).unwrap().len(), len, "cap {max}");
    }
    let zero_block = TraceOptions {
        block_size: 0,
        ..TraceOptions::default()
    };
    assert!(same_every_way(&text, &zero_block).is_err());
}

#[test]
fn seeded_damage_anywhere_in_the_text_reads_the_same() {
    const ALPHABET: &[u8] = b"{}[],:\"0123456789-.eE \t\r\n\\x";
    let clean = real_lines(24).concat().into_bytes();
    let mut state = 7u64;
    let mut draw = |n: usize| {
        state = splitmix64(state);
        (state % n as u64) as usize
    };
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..600 {
        let mut bytes = clean.clone();
        for _ in 0..=draw(2) {
            let at = draw(bytes.len());
            match draw(3) {
                0 => drop(bytes.remove(at)),
                1 => bytes[at] = ALPHABET[draw(ALPHABET.len())],
                _ => bytes.insert(at, ALPHABET[draw(ALPHABET.len())]),
            }
        }
        match same_every_way(&bytes, &TraceOptions::default()) {
            Ok(_) => ok += 1,
            Err(_) => failed += 1,
        }
    }
    assert!(ok > 20 && failed > 200, "{ok} read, {failed} refused");
}

/// The line-feed count against a plain count: lengths around the 8-byte words and the
/// 255-word blocks, all line feeds (each byte of the sum at its most), none, and random
/// bytes.
#[test]
fn line_feeds_are_counted_as_a_plain_count_counts_them() {
    let mut state = 9u64;
    let block = 255 * 8;
    for len in [0, 1, 7, 8, 9, block - 1, block, block + 1, 3 * block + 17] {
        for fill in [b'\n', b'x'] {
            let bytes = vec![fill; len];
            let want = if fill == b'\n' { len as u64 } else { 0 };
            assert_eq!(line_feeds(&bytes), want, "{len} of {fill}");
        }
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state = splitmix64(state);
                [b'\n', b'\r', b'a', 0x8a][(state % 4) as usize]
            })
            .collect();
        let want = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(line_feeds(&bytes), want, "{len} random");
    }
}
