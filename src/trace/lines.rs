//! Line-by-line reading of a trace through one reused buffer, with 1-based line numbers.

use std::io::BufRead;

use super::TraceError;

/// Reads lines from a `BufRead` without holding more than one line of text.
pub(super) struct LineReader<'f, R> {
    reader: R,
    file: &'f str,
    buf: String,
    line_no: u64,
}

impl<'f, R: BufRead> LineReader<'f, R> {
    pub(super) fn new(reader: R, file: &'f str) -> Self {
        LineReader {
            reader,
            file,
            buf: String::new(),
            line_no: 0,
        }
    }

    /// The next line that is not blank, with its number, stripped of the line ending
    /// (and of a byte-order mark on line 1); `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> Result<Option<(u64, &str)>, TraceError> {
        loop {
            self.buf.clear();
            self.line_no += 1;
            let read = self.reader.read_line(&mut self.buf).map_err(|e| {
                let what = match e.kind() {
                    std::io::ErrorKind::InvalidData => "not valid UTF-8 text".to_string(),
                    _ => format!("cannot read: {e}"),
                };
                TraceError::at(self.file, self.line_no, what)
            })?;
            if read == 0 {
                return Ok(None);
            }
            if !self.buf.trim().is_empty() {
                break;
            }
        }
        let mut text = self.buf.trim_end_matches(['\n', '\r']);
        if self.line_no == 1 {
            text = text.trim_start_matches('\u{feff}');
        }
        Ok(Some((self.line_no, text)))
    }
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
    fn invalid_utf8_is_an_error_with_its_line() {
        let mut reader = LineReader::new(&b"ok\n\xff\xfe\n"[..], "t");
        assert!(reader.next_line().unwrap().is_some());
        let err = reader.next_line().unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("UTF-8"));
    }
}
