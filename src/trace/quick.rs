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
        let field = s.field()?;
        s.expect(b':')?;
        match field {
            Field::Timestamp => line.timestamp = seen.first(0, s.integer())?,
            Field::InputLength => line.input_length = seen.first(1, s.integer())?,
            Field::OutputLength => line.output_length = seen.first(2, s.integer())?,
            Field::HashIds => {
                seen.first(3, Some(0))?;
                let hint = line.input_length.div_ceil(u64::from(block_size.max(1)));
                line.hash_ids = s.ids(hint.min(1 << 16) as usize)?;
            }
            Field::BlockSize => line.block_size = Some(seen.first(4, s.integer())?),
        }
        match s.next_byte()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    (s.rest_is_blank() && seen.required()).then_some(line)
}

/// The fields the fast path reads.
enum Field {
    Timestamp,
    InputLength,
    OutputLength,
    HashIds,
    BlockSize,
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

    /// The field a key names, with its closing quote consumed: the key must be one of
    /// the five names exactly (any other key, or one with an escape, is declined).
    fn field(&mut self) -> Option<Field> {
        let rest = &self.bytes[self.at..];
        let (field, quoted): (_, &[u8]) = match rest.first()? {
            b't' => (Field::Timestamp, b"timestamp\""),
            b'i' => (Field::InputLength, b"input_length\""),
            b'o' => (Field::OutputLength, b"output_length\""),
            b'h' => (Field::HashIds, b"hash_ids\""),
            b'b' => (Field::BlockSize, b"block_size\""),
            _ => return None,
        };
        if !rest.starts_with(quoted) {
            return None;
        }
        self.at += quoted.len();
        Some(field)
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
            let (at, after_id) = plain_run(self.bytes, self.at, &mut ids);
            self.at = at;
            if !after_id {
                ids.push(self.integer()?);
            }
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

/// Reads the run of plain ids from `at` on, each of 1 to 7 digits without a leading zero
/// and followed by `, ` or by what ends the run, while eight bytes are left for the next
/// id: the position after the run, and whether it ends just after an id (else at the
/// start of the next one, which the run did not read).
fn plain_run(bytes: &[u8], mut at: usize, ids: &mut Vec<u64>) -> (usize, bool) {
    let last_word = bytes.len().saturating_sub(8);
    while at <= last_word && bytes.len() >= 8 {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
        let Some((value, digits)) = digits_of(word) else {
            break;
        };
        if digits > 1 && word as u8 == b'0' {
            break;
        }
        ids.push(value);
        at += digits;
        if bytes.get(at..at + 2) != Some(b", ") {
            return (at, true);
        }
        at += 2;
    }
    (at, false)
}

/// The leading decimal digits of eight bytes (the first byte lowest), when there are 1
/// to 7 of them: their value and count.
fn digits_of(word: u64) -> Option<(u64, usize)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 and, with 6 added, still 3: each byte
    // becomes 0x33 exactly then. A carry or borrow only runs to the bytes after a
    // non-digit, which are not read.
    let high = word & (0xF0 * ONES);
    let high_plus_six = word.wrapping_add(6 * ONES) & (0xF0 * ONES);
    let non_digits = (high | (high_plus_six >> 4)) ^ (0x33 * ONES);
    let count = non_digits.trailing_zeros() as usize / 8;
    if count == 0 || count == 8 {
        return None;
    }
    // The digits' values, moved up so that the number fills the top bytes, then pairs,
    // quads and the eight combined (each step: high part x 10^k + low part).
    let values = word.wrapping_sub(0x30 * ONES) << (8 * (8 - count));
    let pairs = (values.wrapping_mul(10 << 8 | 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let quads = (pairs.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    let all = quads.wrapping_mul(10_000 << 32 | 1) >> 32;
    Some((all, count))
}

#[cfg(test)]
mod tests;
