//! Field values as read (JSON values or CSV cells) and their checks into lengths, times
//! and block ids, with messages that name the field and the value.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One field's value before it is checked: any JSON value, or a CSV cell.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Scalar {
    Int(u64),
    Neg(i64),
    Float(f64),
    /// Anything else, described for an error message (`"abc"`, `null`, `an array`).
    Other(String),
}

/// A time as written: a non-negative integer or a finite non-negative float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Number {
    Int(u64),
    Float(f64),
}

/// Floats are shown as written in form (`1.0`, `2.5`, `1e20`), never expanded to
/// hundreds of digits, and never mistaken for integers.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(v) => write!(f, "{v}"),
            Number::Float(v) => write!(f, "{v:?}"),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::Neg(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::Other(what) => f.write_str(what),
        }
    }
}

/// Quotes a text value for a message, cut to a readable length, invisible characters
/// shown.
fn quoted(text: &str) -> String {
    format!("\"{}\"", crate::echo::shown(text))
}

impl Scalar {
    /// Reads a CSV cell (surrounding spaces and one pair of double quotes removed).
    pub(super) fn from_cell(cell: &str) -> Scalar {
        let trimmed = cell.trim();
        let text = trimmed
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(trimmed)
            .trim();
        if text.is_empty() {
            return Scalar::Other("an empty cell".to_string());
        }
        if let Ok(v) = text.parse::<u64>() {
            return Scalar::Int(v);
        }
        if let Ok(v) = text.parse::<i64>() {
            return Scalar::Neg(v);
        }
        match crate::decimal::finite_f64(text) {
            Some(v) => Scalar::Float(v),
            None => Scalar::Other(quoted(text)),
        }
    }

    /// A token count: a whole number from 1 to u32::MAX.
    pub(super) fn length(&self, field: &str) -> Result<u32, String> {
        let too_big = || Err(format!("{field} must be <= {}, got {self}", u32::MAX));
        match *self {
            Scalar::Int(0) => Err(format!("{field} must be >= 1, got 0")),
            Scalar::Int(v) if v <= u64::from(u32::MAX) => Ok(v as u32),
            Scalar::Int(_) => too_big(),
            Scalar::Float(v) if v.fract() == 0.0 && v >= 1.0 => {
                if v <= u32::MAX as f64 {
                    Ok(v as u32)
                } else {
                    too_big()
                }
            }
            Scalar::Float(0.0) => Err(format!("{field} must be >= 1, got {self}")),
            _ => Err(format!("{field} must be a whole number >= 1, got {self}")),
        }
    }

    /// A time: a non-negative number (integer or float).
    pub(super) fn time(&self, field: &str) -> Result<Number, String> {
        match *self {
            Scalar::Int(v) => Ok(Number::Int(v)),
            Scalar::Float(v) if v >= 0.0 => Ok(Number::Float(v)),
            _ => Err(format!("{field} must be a number >= 0, got {self}")),
        }
    }
}

impl Number {
    /// round(self × `unit_us` / `speedup`) in µs, or `None` when it does not fit a u64.
    pub(super) fn scaled_us(self, unit_us: u64, speedup: f64) -> Option<u64> {
        if let (Number::Int(v), true) = (self, speedup == 1.0) {
            return v.checked_mul(unit_us);
        }
        let raw = match self {
            Number::Int(v) => v as f64,
            Number::Float(v) => v,
        };
        let us = (raw * unit_us as f64 / speedup).round();
        // 2^64 as f64; `as` saturates, so the bound keeps the value exact in range.
        (us.is_finite() && us < 18_446_744_073_709_551_616.0).then_some(us as u64)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Int(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(u64::try_from(v).map_or(Scalar::Neg(v), Scalar::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Other(quoted(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Other(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other("null".to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an array".to_string()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an object".to_string()))
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Scalar, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

/// A `hash_ids` array: the ids, or a message about the first element that is not a
/// non-negative integer (the rest of the array is still consumed).
pub(super) struct HashIds(pub(super) Result<Vec<u64>, String>);

struct HashIdsVisitor;

impl<'de> Visitor<'de> for HashIdsVisitor {
    type Value = HashIds;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("hash_ids as an array of non-negative integer block ids")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HashIds, A::Error> {
        let mut ids = Vec::with_capacity(seq.size_hint().unwrap_or(16));
        let mut bad = None;
        while let Some(value) = seq.next_element::<Scalar>()? {
            match (value, &bad) {
                (Scalar::Int(id), None) => ids.push(id),
                (_, Some(_)) => {}
                (other, None) => bad = Some((ids.len(), other)),
            }
        }
        Ok(HashIds(match bad {
            None => Ok(ids),
            Some((index, value)) => Err(format!(
                "hash_ids[{index}] must be a non-negative integer id, got {value}"
            )),
        }))
    }
}

impl<'de> Deserialize<'de> for HashIds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HashIds, D::Error> {
        deserializer.deserialize_seq(HashIdsVisitor)
    }
}

/// Parses one JSON object line into `T`, with a message that says what is wrong and
/// at which column (the line number is the caller's).
pub(super) fn from_json_line<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    if !text.trim_start().starts_with('{') {
        return Err(format!(
            "invalid JSON: expected an object {{...}}, got `{}`",
            crate::echo::shown(text.trim())
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let what = full.strip_suffix(&suffix).unwrap_or(&full);
        match e.classify() {
            serde_json::error::Category::Data => format!("{what} (column {})", e.column()),
            _ => format!("invalid JSON: {what} (column {})", e.column()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_parse_to_scalars() {
        assert_eq!(Scalar::from_cell(" 12 "), Scalar::Int(12));
        assert_eq!(Scalar::from_cell("\"7\""), Scalar::Int(7));
        assert_eq!(Scalar::from_cell("-3"), Scalar::Neg(-3));
        assert_eq!(Scalar::from_cell("1.5"), Scalar::Float(1.5));
        assert!(matches!(Scalar::from_cell("inf"), Scalar::Other(_)));
        assert!(matches!(Scalar::from_cell("NaN"), Scalar::Other(_)));
        assert_eq!(Scalar::from_cell(""), Scalar::Other("an empty cell".into()));
        assert_eq!(Scalar::from_cell("abc"), Scalar::Other("\"abc\"".into()));
    }

    #[test]
    fn lengths_must_be_whole_and_positive() {
        assert_eq!(Scalar::Int(5).length("x"), Ok(5));
        assert_eq!(Scalar::Float(5.0).length("x"), Ok(5));
        assert!(Scalar::Int(0)
            .length("x")
            .unwrap_err()
            .contains(">= 1, got 0"));
        assert!(Scalar::Neg(-2).length("x").unwrap_err().contains("got -2"));
        assert!(Scalar::Float(2.5)
            .length("x")
            .unwrap_err()
            .contains("got 2.5"));
        assert!(Scalar::Int(1 << 40).length("x").is_err());
        // 1e20 is a whole float beyond u32: named as written, not saturated to u64::MAX.
        assert_eq!(
            Scalar::Float(1e20).length("input_length").unwrap_err(),
            "input_length must be <= 4294967295, got 1e20"
        );
        assert_eq!(Scalar::Float(1.0).to_string(), "1.0");
        assert_eq!(Scalar::from_cell(&"9".repeat(300)).to_string(), "1e300");
    }

    #[test]
    fn times_scale_and_round() {
        assert_eq!(Number::Int(1500).scaled_us(1000, 1.0), Some(1_500_000));
        assert_eq!(
            Number::Float(1234.567).scaled_us(1000, 1.0),
            Some(1_234_567)
        );
        assert_eq!(Number::Int(1000).scaled_us(1000, 2.0), Some(500_000));
        assert_eq!(Number::Int(3).scaled_us(1000, 0.001), Some(3_000_000));
        assert_eq!(Number::Int(u64::MAX).scaled_us(1000, 1.0), None);
        assert_eq!(Number::Float(1e300).scaled_us(1000, 1.0), None);
        assert!(Scalar::Neg(-1).time("t").is_err());
        assert!(Scalar::Float(-0.5).time("t").is_err());
    }

    #[test]
    fn json_errors_say_what_and_where() {
        let err = from_json_line::<Probe>("{\"a\": ").unwrap_err();
        assert!(err.starts_with("invalid JSON"), "{err}");
        assert!(err.contains("column"), "{err}");
        let err = from_json_line::<Probe>("[1]").unwrap_err();
        assert!(err.contains("expected an object"), "{err}");
    }

    #[test]
    fn a_length_past_u32_says_too_big_and_a_zero_float_says_at_least_one() {
        // u32::MAX = 4294967295 is the largest length; one more is too big (not "not a
        // whole number"). A float 0.0 is whole, so the message is the zero one.
        assert_eq!(Scalar::Int(4_294_967_295).length("x"), Ok(4_294_967_295));
        assert_eq!(
            Scalar::Int(4_294_967_296).length("x"),
            Err("x must be <= 4294967295, got 4294967296".to_string())
        );
        assert_eq!(
            Scalar::Float(0.0).length("x"),
            Err("x must be >= 1, got 0.0".to_string())
        );
    }

    #[test]
    fn a_scaled_time_of_exactly_2_pow_64_us_does_not_fit() {
        // 2^64 = 18446744073709551616 is one past u64::MAX: None, not a saturated
        // u64::MAX. The float just below it, 2^64 - 2^11, fits exactly.
        assert_eq!(
            Number::Float(18_446_744_073_709_551_616.0).scaled_us(1, 1.0),
            None
        );
        assert_eq!(
            Number::Float(18_446_744_073_709_549_568.0).scaled_us(1, 1.0),
            Some(18_446_744_073_709_549_568)
        );
    }

    #[test]
    fn a_json_data_error_is_not_called_invalid_json() {
        // Well-formed JSON with a duplicated key: the JSON is fine, the data is not.
        let err = from_json_line::<Probe>(r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert!(
            err.starts_with("duplicate field `a` (column ") && err.ends_with(')'),
            "{err}"
        );
    }

    #[derive(Debug, serde::Deserialize)]
    struct Probe {
        #[allow(dead_code)]
        a: Option<Scalar>,
    }
}
