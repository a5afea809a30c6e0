//! Reading a Mooncake trace held in memory on several threads: the text is cut at line
//! ends into pieces, each piece is read by `parse_line` on a thread of its own as a stream
//! that knows its first line number, and the pieces' requests then go through the one
//! `Collector` in file order. The requests, and the first error (the same message on the
//! same line), are those `parse_mooncake` gives on the same bytes: a piece stops at its
//! first error, and the merge reports an error only once every line before it has
//! gone through the collector's own checks.

use super::collect::{Collector, Parsed};
use super::mooncake::parse_line;
use super::slices::SliceLines;
use super::{TraceError, TraceOptions};
use crate::Request;

/// One line read by a piece: its number, the bytes read up to its end, and its request
/// or the error that ends the piece.
type Item = (u64, u64, Result<Parsed, TraceError>);

/// Reads the Mooncake trace `text` (the whole file `file`) with up to `threads` threads;
/// the result is the same as `parse_mooncake(text, file, opts)`. With one thread, on
/// wasm32, or when `max_requests` would stop the reading before the text's last line
/// (the pieces would read past it), it reads on the calling thread.
pub fn parse_mooncake_text(
    text: &[u8],
    file: &str,
    opts: &TraceOptions,
    threads: usize,
) -> Result<Vec<Request>, TraceError> {
    if cfg!(target_arch = "wasm32") || threads <= 1 || stops_early(text, opts) {
        return super::parse_mooncake(text, file, opts);
    }
    opts.validate(file)?;
    let pieces = cut(text, threads);
    let read = read_pieces(&pieces, file, opts.block_size);
    let mut requests = Collector::new(file, opts);
    for (line_no, bytes_read, parsed) in read.into_iter().flatten() {
        if requests.is_full() {
            break;
        }
        requests.push(line_no, parsed?, bytes_read)?;
    }
    requests.finish()
}

/// Whether `max_requests` is below the lines of `text`, so that it may stop the reading.
fn stops_early(text: &[u8], opts: &TraceOptions) -> bool {
    opts.max_requests.is_some_and(|max| {
        let lines = line_feeds(text) + 1;
        u64::from(max) < lines
    })
}

/// A piece of the text: its bytes, and the lines and bytes before it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece<'t> {
    text: &'t [u8],
    lines_before: u64,
    bytes_before: u64,
}

/// Cuts `text` into `count` pieces of about equal size, each ending just after a line
/// feed (the last at the end of the text), with the lines before each.
fn cut(text: &[u8], count: usize) -> Vec<Piece<'_>> {
    let mut pieces = Vec::with_capacity(count);
    let (mut start, mut lines_before) = (0usize, 0u64);
    for k in 1..=count {
        let target = (text.len() / count * k).max(start);
        let end = if k == count {
            text.len()
        } else {
            text[target..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |at| target + at + 1)
        };
        let piece = &text[start..end];
        pieces.push(Piece {
            text: piece,
            lines_before,
            bytes_before: start as u64,
        });
        if k < count {
            lines_before += line_feeds(piece);
        }
        start = end;
    }
    pieces
}

/// The line feeds in `bytes`, eight bytes at a time: each word adds a 1 to the byte of a
/// running sum for each of its bytes that is a line feed, and every 255 words (before a
/// byte could overflow) the eight bytes are summed.
fn line_feeds(bytes: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut total = 0u64;
    for block in bytes.chunks(255 * 8) {
        let mut sums = 0u64;
        let mut words = block.chunks_exact(8);
        for word in words.by_ref() {
            let x = u64::from_le_bytes(word.try_into().expect("eight bytes"))
                ^ (u64::from(b'\n') * ONES);
            // The high bit of each byte of `x` that is not 0 (no carry leaves a byte).
            let nonzero = ((x & (0x7F * ONES)) + 0x7F * ONES) | x;
            sums += (!nonzero >> 7) & ONES;
        }
        let pairs = (sums & 0x00FF_00FF_00FF_00FF) + ((sums >> 8) & 0x00FF_00FF_00FF_00FF);
        total += pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48;
        total += words.remainder().iter().filter(|&&b| b == b'\n').count() as u64;
    }
    total
}

/// Reads every piece, each on a thread of its own but the first, which the calling thread
/// reads; a piece whose thread cannot start is read here too.
fn read_pieces(pieces: &[Piece<'_>], file: &str, block_size: u32) -> Vec<Vec<Item>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = pieces[1..]
            .iter()
            .map(|&piece| {
                std::thread::Builder::new()
                    .name("trace-piece".into())
                    .spawn_scoped(scope, move || read_piece(piece, file, block_size))
                    .map_err(|_| piece)
            })
            .collect();
        let mut read = vec![read_piece(pieces[0], file, block_size)];
        for handle in handles {
            read.push(match handle {
                Ok(running) => running.join().expect("a trace piece's reader panicked"),
                Err(piece) => read_piece(piece, file, block_size),
            });
        }
        read
    })
}

/// The lines of one piece, up to and including its first error.
fn read_piece(piece: Piece<'_>, file: &str, block_size: u32) -> Vec<Item> {
    let mut lines = SliceLines::after(piece.text, file, piece.lines_before, piece.bytes_before);
    let mut items = Vec::new();
    loop {
        let (line_no, parsed) = match lines.next_line() {
            Ok(None) => break,
            Ok(Some((line_no, text))) => (
                line_no,
                parse_line(text, block_size).map_err(|m| TraceError::at(file, line_no, m)),
            ),
            Err(e) => (e.line.unwrap_or_default(), Err(e)),
        };
        let failed = parsed.is_err();
        items.push((line_no, lines.bytes_read(), parsed));
        if failed {
            break;
        }
    }
    items
}

#[cfg(test)]
mod tests;
