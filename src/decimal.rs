//! Finite numbers read from text (sweep specs, the popularity and llm-d weight settings,
//! CSV trace cells) exactly as `str::parse::<f64>` reads them, but through serde_json's
//! correctly rounded float reader, so the page's wasm carries one float parser and one set
//! of power tables, not two: `str::parse::<f64>` in its place reads the same numbers (the
//! tests check it to the bit) but adds 12,497 bytes to the gzipped wasm (core's `dec2flt`
//! and its table; the book's "Performance" chapter, "Plain code and its cost").

/// `text` as `text.parse::<f64>()` reads it when that gives a finite number, to the bit
/// (`-0` is −0.0); `None` for everything else: bad syntax, `inf`, `NaN`, and numbers too
/// large for an `f64`. Like `parse`, it takes no surrounding spaces.
pub fn finite_f64(text: &str) -> Option<f64> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude: f64 = serde_json::from_str(&json_number(unsigned)?).ok()?;
    let value = if negative { -magnitude } else { magnitude };
    value.is_finite().then_some(value)
}

/// An unsigned number in Rust's float syntax (`12`, `007`, `1.`, `.5`, `1.5e-3`, `2E+7`)
/// rewritten in JSON's (`12`, `7`, `1`, `0.5`, `1.5e-3`, `2E+7`): the same value, since
/// only redundant zeros and points go. `None` when `text` is not such a number.
fn json_number(text: &str) -> Option<String> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !all_digits(whole) || !all_digits(fraction) || whole.len() + fraction.len() == 0 {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 1);
    let whole = whole.trim_start_matches('0');
    out.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
    if let Some(exponent) = exponent {
        let digits = exponent[1..]
            .strip_prefix(['+', '-'])
            .unwrap_or(&exponent[1..]);
        if digits.is_empty() || !all_digits(digits) {
            return None;
        }
        out.push_str(exponent);
    }
    Some(out)
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests;
