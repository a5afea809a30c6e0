//! Line-by-line reading of a trace through one reused buffer, with 1-based line numbers.

use std::io::{BufRead, Read};

use super::TraceError;
use crate::limits::MAX_LINE_BYTES;

/// Reads lines from a `BufRead` without holding more than one line of text, and refuses
/// a line longer than `MAX_LINE_BYTES` before reading more of it.
pub(super) struct LineReader<'f, R> {
    reader: R,
    file: &'f str,
    buf: String,
    line_no: u64,
    bytes_read: u64,
}

impl<'f, R: BufRead> LineReader<'f, R> {
    pub(super) fn new(reader: R, file: &'f str) -> Self {
        Self::after(reader, file, 0, 0)
    }

    /// A reader of the part of `file` that follows its first `lines_before` lines
    /// (`bytes_before` bytes): line numbers and bytes read count on from there.
    pub(super) fn after(reader: R, file: &'f str, lines_before: u64, bytes_before: u64) -> Self {
        LineReader {
            reader,
            file,
            buf: String::new(),
            line_no: lines_before,
            bytes_read: bytes_before,
        }
    }

    /// Bytes read so far.
    pub(super) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The next line that is not blank, with its number, stripped of the line ending
    /// (and of a byte-order mark on line 1); `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> Result<Option<(u64, &str)>, TraceError> {
        loop {
            self.buf.clear();
            self.line_no += 1;
            let limit = MAX_LINE_BYTES as u64 + 1;
            let read = (&mut self.reader)
                .take(limit)
                .read_line(&mut self.buf)
                .map_err(|e| {
                    let what = match e.kind() {
                        std::io::ErrorKind::InvalidData => "not valid UTF-8 text".to_string(),
                        _ => format!("cannot read: {e}"),
                    };
                    TraceError::at(self.file, self.line_no, what)
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.bytes_read += read as u64;
            if read as u64 == limit && !self.buf.ends_with('\n') {
                return Err(TraceError::at(self.file, self.line_no, too_long_message()));
            }
            if !self.buf.trim().is_empty() {
                break;
            }
        }
        let mut text = self.buf.trim_end_matches(['\n', '\r']);
        if self.line_no == 1 {
            text = text.trim_start_matches('\u{feff}');
        }
        check_hidden(text).map_err(|m| TraceError::at(self.file, self.line_no, m))?;
        Ok(Some((self.line_no, text)))
    }
}

/// The error for a line longer than `MAX_LINE_BYTES`.
pub(super) fn too_long_message() -> String {
    format!(
        "the line is longer than {} MiB, the most a trace line may hold \
         (is this a trace file?)",
        MAX_LINE_BYTES >> 20
    )
}

/// Characters no trace line may hold, which a message would otherwise not show: a
/// byte-order mark after line 1, or a carriage return inside the line (CR-only line
/// endings make the whole file one line).
pub(super) fn check_hidden(text: &str) -> Result<(), &'static str> {
    if text.starts_with('\u{feff}') {
        return Err(
            "the line starts with a byte-order mark (U+FEFF), which only the \
                    first line of a file may have (were two files joined?): remove it",
        );
    }
    if text.contains('\r') {
        return Err(
            "the line holds a carriage return (CR) that does not end it: the file \
                    seems to use CR-only line endings (classic Mac); save it with LF or \
                    CRLF line endings",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(text: &[u8]) -> Vec<(u64, String)> {
        let mut reader = LineReader::new(text, "t");
        let mut out = Vec::new();
        while let Some((no, line)) = reader.next_line().unwrap() {
            out.push((no, line.to_string()));
        }
        out
    }

    #[test]
    fn skips_blank_lines_and_counts_physical_lines() {
        let lines = all_lines(b"\xef\xbb\xbfa\r\n\n  \nb\nc");
        let want = [(1, "a"), (4, "b"), (5, "c")];
        let want: Vec<(u64, String)> = want.iter().map(|(n, s)| (*n, s.to_string())).collect();
        assert_eq!(lines, want);
    }

    #[test]
    fn a_line_beyond_the_cap_is_refused_without_reading_on() {
        // An endless line of NUL bytes (what /dev/zero gives): one cap's worth is read,
        // then the error names line 2.
        let zeros = std::io::repeat(0).take(10 * MAX_LINE_BYTES as u64);
        let mut reader = LineReader::new(std::io::BufReader::new(b"ok\n".chain(zeros)), "z");
        assert!(reader.next_line().unwrap().is_some());
        let err = reader.next_line().unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(
            err.message.contains("longer than 16 MiB"),
            "{}",
            err.message
        );
        assert!(reader.bytes_read() <= 3 + MAX_LINE_BYTES as u64 + 1);
        let exact = format!("{}\n", "x".repeat(MAX_LINE_BYTES));
        let mut reader = LineReader::new(exact.as_bytes(), "x");
        assert_eq!(reader.next_line().unwrap().unwrap().1.len(), MAX_LINE_BYTES);
    }

    #[test]
    fn a_late_byte_order_mark_and_lone_carriage_returns_are_named() {
        let mut reader = LineReader::new(&b"a\n\xef\xbb\xbfb\n"[..], "t");
        assert!(reader.next_line().unwrap().is_some());
        let err = reader.next_line().unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(
            err.message.contains("byte-order mark (U+FEFF)"),
            "{}",
            err.message
        );
        let mut reader = LineReader::new(&b"a\rb\rc\r"[..], "t");
        let err = reader.next_line().unwrap_err();
        assert_eq!(err.line, Some(1));
        assert!(
            err.message.contains("CR-only line endings"),
            "{}",
            err.message
        );
    }

    #[test]
    fn invalid_utf8_is_an_error_with_its_line() {
        let mut reader = LineReader::new(&b"ok\n\xff\xfe\n"[..], "t");
        assert!(reader.next_line().unwrap().is_some());
        let err = reader.next_line().unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("UTF-8"));
    }

    #[test]
    fn invalid_utf8_is_named_as_such_and_other_read_failures_as_read_failures() {
        let mut reader = LineReader::new(&b"\xff\xfe\n"[..], "t");
        let err = reader.next_line().unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (Some(1), "not valid UTF-8 text")
        );
        /// A source that fails as a broken disk or pipe would.
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        let mut reader = LineReader::new(std::io::BufReader::new(Broken), "t");
        let err = reader.next_line().unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (Some(1), "cannot read: disk on fire")
        );
    }

    #[test]
    fn bytes_read_counts_every_byte_of_the_lines_read_blank_ones_included() {
        // "ab\n" is 3 bytes; then the blank "\n" (1) and "  \r\n" (4) are skipped and
        // "cd" (2) is read: 3 + 1 + 4 + 2 = 10. The end of the input adds nothing.
        let mut reader = LineReader::new(&b"ab\n\n  \r\ncd"[..], "t");
        assert_eq!(reader.bytes_read(), 0);
        assert_eq!(reader.next_line().unwrap(), Some((1, "ab")));
        assert_eq!(reader.bytes_read(), 3);
        assert_eq!(reader.next_line().unwrap(), Some((4, "cd")));
        assert_eq!(reader.bytes_read(), 10);
        assert_eq!(reader.next_line().unwrap(), None);
        assert_eq!(reader.bytes_read(), 10);
    }
}
