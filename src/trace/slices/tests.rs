//! `SliceLines` against `LineReader` on the same bytes: every line, its number, the bytes
//! read after it and the first error must be the same.

use super::*;
use crate::rng::splitmix64;
use crate::trace::lines::LineReader;

/// A line read, with the bytes read after it, or the error that ended the reading.
type Step = Result<(u64, String, u64), TraceError>;

fn by_slices(text: &[u8], lines_before: u64, bytes_before: u64) -> Vec<Step> {
    let mut lines = SliceLines::after(text, "t", lines_before, bytes_before);
    let mut steps = Vec::new();
    loop {
        match lines.next_line() {
            Ok(None) => return steps,
            Ok(Some((no, line))) => steps.push(Ok((no, line.to_string(), lines.bytes_read()))),
            Err(e) => {
                steps.push(Err(e));
                return steps;
            }
        }
    }
}

fn by_reader(text: &[u8], lines_before: u64, bytes_before: u64) -> Vec<Step> {
    let mut lines = LineReader::after(text, "t", lines_before, bytes_before);
    let mut steps = Vec::new();
    loop {
        match lines.next_line() {
            Ok(None) => return steps,
            Ok(Some((no, line))) => steps.push(Ok((no, line.to_string(), lines.bytes_read()))),
            Err(e) => {
                steps.push(Err(e));
                return steps;
            }
        }
    }
}

fn same(text: &[u8]) {
    for (lines_before, bytes_before) in [(0, 0), (1, 7), (41, 9000)] {
        assert_eq!(
            by_slices(text, lines_before, bytes_before),
            by_reader(text, lines_before, bytes_before),
            "{:?} after {lines_before} lines",
            String::from_utf8_lossy(&text[..text.len().min(120)])
        );
    }
}

/// Fragments that make lines, blanks, line ends, marks and bad bytes.
const FRAGMENTS: [&[u8]; 16] = [
    b"{\"a\": 1}",
    b"x",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\r\n",
    "\u{feff}".as_bytes(),
    "\u{a0}".as_bytes(),
    "\u{2028}".as_bytes(),
    "é".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\x0b\x0c",
    b"0123456789abcdef",
    b"\n\n",
];

#[test]
fn random_texts_read_as_the_line_reader_reads_them() {
    let mut state = 16;
    for _ in 0..20_000 {
        state = splitmix64(state);
        let count = (state % 24) as usize;
        let mut text = Vec::new();
        for _ in 0..count {
            state = splitmix64(state);
            text.extend_from_slice(FRAGMENTS[(state % FRAGMENTS.len() as u64) as usize]);
        }
        same(&text);
    }
}

#[test]
fn hand_picked_texts_read_as_the_line_reader_reads_them() {
    for text in [
        &b""[..],
        b"\n",
        b"\n\n\n",
        b"a",
        b"a\n",
        b"\xef\xbb\xbf\xef\xbb\xbfa\r\r\n\n  \nb\nc",
        b"a\n\xef\xbb\xbfb\n",
        b"a\rb\rc\r",
        b"ok\n\xff\xfe\n",
        b"  \n\xff\n",
        b"ab\n\n  \r\ncd",
        "\u{a0}\u{2028}\n\u{3000}x\n".as_bytes(),
    ] {
        same(text);
    }
}

#[test]
fn the_line_cap_and_a_character_across_it_read_as_the_line_reader_reads_them() {
    let cap = MAX_LINE_BYTES;
    let x = |n: usize| vec![b'x'; n];
    let with = |mut v: Vec<u8>, tail: &[u8]| {
        v.extend_from_slice(tail);
        v
    };
    for text in [
        x(cap),
        with(x(cap), b"\n"),
        with(x(cap), b"\r\nnext\n"),
        x(cap + 1),
        with(x(cap + 1), b"\n"),
        with(with(b"ok\n".to_vec(), &x(cap + 5)), b"\n"),
        // A two-byte character whose second byte is past the cap: the bytes read end
        // inside it, so the UTF-8 check fails before the cap's.
        with(x(cap), "é\n".as_bytes()),
        with(x(cap - 1), "é\n".as_bytes()),
        with(x(cap - 1), b"\xff\n"),
    ] {
        same(&text);
    }
}

#[test]
fn the_line_feed_search_finds_the_first_one_at_every_offset() {
    let mut state = 3;
    for _ in 0..5_000 {
        state = splitmix64(state);
        let len = (state % 40) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state = splitmix64(state);
                [
                    b'\n',
                    b'\x0b',
                    b'\x09',
                    b'\x8a',
                    b'\xff',
                    b'\0',
                    b'1',
                    b'\n' ^ 0x80,
                ][(state % 8) as usize]
            })
            .collect();
        assert_eq!(
            line_feed(&bytes),
            bytes.iter().position(|&b| b == b'\n'),
            "{bytes:?}"
        );
    }
}

#[test]
fn a_plain_line_is_ascii_without_a_carriage_return_up_to_a_line_feed_in_whole_words() {
    let mut state = 5;
    for _ in 0..20_000 {
        state = splitmix64(state);
        let len = (state % 40) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state = splitmix64(state);
                if state % 4 != 0 {
                    return b'a' + (state >> 8) as u8 % 26;
                }
                [
                    b'\n', b'\r', b'\x0c', b'\x8a', b'\x8d', b'\xff', b'\0', b' ',
                ][(state >> 3) as usize % 8]
            })
            .collect();
        let words = len / 8 * 8;
        let want = bytes[..words]
            .iter()
            .position(|&b| b == b'\n')
            .filter(|&at| bytes[..at].iter().all(|&b| b.is_ascii() && b != b'\r'));
        assert_eq!(plain_line(&bytes), want, "{bytes:?}");
    }
}
