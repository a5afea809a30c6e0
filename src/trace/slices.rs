//! The lines of a trace held in memory, as slices of it: what `LineReader` gives on the
//! same bytes (line numbers, blank lines skipped, line ends and a first-line byte-order
//! mark stripped, the line-length cap, the same errors on the same lines, bytes read),
//! without copying each line into a buffer.

use super::lines::check_hidden;
use super::TraceError;
use crate::limits::MAX_LINE_BYTES;

/// Reads lines from a byte slice, the part of `file` after its first `lines_before` lines.
pub(super) struct SliceLines<'t, 'f> {
    rest: &'t [u8],
    file: &'f str,
    line_no: u64,
    bytes_read: u64,
}

impl<'t, 'f> SliceLines<'t, 'f> {
    /// The lines of `text`, which follows the first `lines_before` lines (`bytes_before`
    /// bytes) of `file`: line numbers and bytes read count on from there.
    pub(super) fn after(
        text: &'t [u8],
        file: &'f str,
        lines_before: u64,
        bytes_before: u64,
    ) -> Self {
        SliceLines {
            rest: text,
            file,
            line_no: lines_before,
            bytes_read: bytes_before,
        }
    }

    /// Bytes read so far.
    pub(super) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The next line that is not blank, with its number, stripped of the line ending
    /// (and of a byte-order mark on line 1); `None` at the end of the text.
    pub(super) fn next_line(&mut self) -> Result<Option<(u64, &'t str)>, TraceError> {
        let line = loop {
            self.line_no += 1;
            if let Some(line) = self.take_plain_line() {
                if line.as_bytes()[0] > b' ' {
                    return Ok(Some((self.line_no, &line[..line.len() - 1])));
                }
                if !line.trim().is_empty() {
                    break line;
                }
                continue;
            }
            let Some(line) = self.take_line()? else {
                return Ok(None);
            };
            if !line.trim().is_empty() {
                break line;
            }
        };
        let mut text = line.trim_end_matches(['\n', '\r']);
        if self.line_no == 1 {
            text = text.trim_start_matches('\u{feff}');
        }
        check_hidden(text).map_err(|m| TraceError::at(self.file, self.line_no, m))?;
        Ok(Some((self.line_no, text)))
    }

    /// The next physical line with its line feed when it is plain ASCII without a carriage
    /// return (the usual line, needing none of `take_line`'s checks), else `None`, with
    /// nothing taken.
    fn take_plain_line(&mut self) -> Option<&'t str> {
        let len = plain_line(self.rest)? + 1;
        let (line, rest) = self.rest.split_at(len);
        self.rest = rest;
        self.bytes_read += len as u64;
        // SAFETY: `plain_line` found only ASCII bytes before the line feed, so the line
        // is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(line) })
    }

    /// The next physical line with its line feed, as `read_line` through a reader capped
    /// at `MAX_LINE_BYTES + 1` bytes reads it: the UTF-8 check first, over the bytes read,
    /// then the cap.
    fn take_line(&mut self) -> Result<Option<&'t str>, TraceError> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let limit = MAX_LINE_BYTES + 1;
        let window = &self.rest[..self.rest.len().min(limit)];
        let len = line_feed(window).map_or(window.len(), |at| at + 1);
        let (line, rest) = self.rest.split_at(len);
        let line = std::str::from_utf8(line)
            .map_err(|_| TraceError::at(self.file, self.line_no, "not valid UTF-8 text"))?;
        self.rest = rest;
        self.bytes_read += len as u64;
        if len == limit && !line.ends_with('\n') {
            return Err(TraceError::at(
                self.file,
                self.line_no,
                super::lines::too_long_message(),
            ));
        }
        Ok(Some(line))
    }
}

/// The position of the first line feed in `bytes`, found eight bytes at a time, when the
/// bytes before it are ASCII other than a carriage return and it lies within the
/// line-length cap; `None` otherwise (no line feed in whole words, a non-ASCII byte or a
/// carriage return first), and then `take_line` reads the line.
fn plain_line(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    for (k, word) in bytes.chunks_exact(8).take(MAX_LINE_BYTES / 8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let feeds = zeros(word ^ (u64::from(b'\n') * ONES));
        // Either mark is exact up to the first byte it marks: enough to tell whether a
        // carriage return or a high bit comes before the first line feed.
        let odd = zeros(word ^ (u64::from(b'\r') * ONES)) | (word & HIGHS);
        if feeds == 0 {
            if odd != 0 {
                return None;
            }
            continue;
        }
        let before = (feeds & feeds.wrapping_neg()) - 1;
        if odd & before != 0 {
            return None;
        }
        return Some(8 * k + feeds.trailing_zeros() as usize / 8);
    }
    None
}

/// The position of the first line feed in `bytes`, eight bytes at a time.
fn line_feed(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    for (k, word) in words.by_ref().enumerate() {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let x = word ^ (u64::from(b'\n') * ONES);
        // A zero byte of `x` (a line feed) sets its high bit here; bytes above the first
        // zero may be marked falsely (a borrow), never the ones below it.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(8 * k + zero.trailing_zeros() as usize / 8);
        }
    }
    let tail = words.remainder();
    let done = bytes.len() - tail.len();
    tail.iter().position(|&b| b == b'\n').map(|at| done + at)
}

#[cfg(test)]
mod tests;
