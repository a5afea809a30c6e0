//! A fast path for the usual shape of a Mooncake line: one flat object holding only the
//! known fields, each a plain non-negative integer or, for `hash_ids`, an array of them.
//!
//! It either reads a line exactly as serde_json would (same values) or declines with
//! `None`, and the caller then reads the line with serde_json. Every error, and every
//! unusual line (floats, strings, extra fields, escapes, a duplicate key, a number with a
//! leading zero or more than 19 digits), therefore goes through the one full parser, with
//! its messages and line numbers. `tests` checks both real traces line by line and
//! thousands of corrupted lines against serde_json.

/// The fields of a line the fast path read; the same checks as serde_json's then apply.
#[derive(Debug, Default, PartialEq)]
pub(super) struct QuickLine {
    pub(super) timestamp: u64,
    pub(super) input_length: u64,
    pub(super) output_length: u64,
    pub(super) hash_ids: Vec<u64>,
    pub(super) block_size: Option<u64>,
}

/// Reads `text` if it has the usual shape, else `None`. `block_size` only sizes the id
/// list up front.
pub(super) fn scan(text: &str, block_size: u32) -> Option<QuickLine> {
    let mut s = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut seen = Seen::default();
    let mut line = QuickLine::default();
    s.expect(b'{')?;
    loop {
        s.expect(b'"')?;
        let key = s.key()?;
        s.expect(b':')?;
        match key {
            b"timestamp" => line.timestamp = seen.first(0, s.integer())?,
            b"input_length" => line.input_length = seen.first(1, s.integer())?,
            b"output_length" => line.output_length = seen.first(2, s.integer())?,
            b"hash_ids" => {
                seen.first(3, Some(0))?;
                let hint = line.input_length.div_ceil(u64::from(block_size.max(1)));
                line.hash_ids = s.ids(hint.min(1 << 16) as usize)?;
            }
            b"block_size" => line.block_size = Some(seen.first(4, s.integer())?),
            _ => return None,
        }
        match s.next_byte()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    (s.rest_is_blank() && seen.required()).then_some(line)
}

/// Which fields were read: a second sighting of one declines the line, since serde
/// reports a duplicate field.
#[derive(Default)]
struct Seen([bool; 5]);

impl Seen {
    fn first(&mut self, slot: usize, value: Option<u64>) -> Option<u64> {
        if self.0[slot] {
            return None;
        }
        self.0[slot] = true;
        value
    }

    /// The four fields a line must have (`block_size` is optional).
    fn required(&self) -> bool {
        self.0[..4].iter().all(|&s| s)
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// JSON's whitespace.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Scanner<'a> {
    fn skip_blank(&mut self) {
        while self.bytes.get(self.at).is_some_and(|&b| is_blank(b)) {
            self.at += 1;
        }
    }

    /// The next byte after any whitespace, consumed.
    fn next_byte(&mut self) -> Option<u8> {
        self.skip_blank();
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn expect(&mut self, want: u8) -> Option<()> {
        (self.next_byte()? == want).then_some(())
    }

    /// A key's bytes up to its closing quote; a key with an escape is declined.
    fn key(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        let len = self.bytes[start..].iter().position(|&b| b == b'"')?;
        let key = &self.bytes[start..start + len];
        self.at = start + len + 1;
        (!key.contains(&b'\\')).then_some(key)
    }

    /// A non-negative integer as JSON writes it (no leading zero), of at most 19 digits,
    /// so it fits a u64 as serde_json reads it. What follows it is checked by the caller,
    /// which accepts only whitespace, `,`, `]` or `}`, so a fraction or an exponent is
    /// declined there.
    fn integer(&mut self) -> Option<u64> {
        self.skip_blank();
        let rest = &self.bytes[self.at..];
        let (mut value, mut digits) = (0u64, 0usize);
        while let Some(d) = rest.get(digits).map(|b| b.wrapping_sub(b'0')) {
            if d > 9 {
                break;
            }
            // Wraps only past 19 digits, which are declined below.
            value = value.wrapping_mul(10).wrapping_add(u64::from(d));
            digits += 1;
        }
        if digits == 0 || digits > 19 || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        self.at += digits;
        Some(value)
    }

    /// `[id, id, ...]` of integers (possibly empty).
    fn ids(&mut self, capacity: usize) -> Option<Vec<u64>> {
        self.expect(b'[')?;
        let mut ids = Vec::with_capacity(capacity);
        self.skip_blank();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(ids);
        }
        loop {
            ids.push(self.integer()?);
            match self.next_byte()? {
                b',' => {}
                b']' => return Some(ids),
                _ => return None,
            }
        }
    }

    fn rest_is_blank(&mut self) -> bool {
        self.skip_blank();
        self.at == self.bytes.len()
    }
}

#[cfg(test)]
mod tests;
