//! JSON values through text: a type's `Value` is its JSON text parsed, and a `Config`
//! from a `Value` is read from the value's text. Each type then keeps one serializer (to
//! text) and `Config` one deserializer (from text), instead of a second copy of each for
//! `serde_json::Value`: `to_value` and `from_value` instead would add 13,518 bytes to the
//! gzipped wasm (the book's "Performance" chapter, "Plain code and its cost"). The results
//! are the same: `Value`'s maps are sorted either way, numbers read back exactly
//! (`float_roundtrip`), and errors keep serde's message without the text's position (a
//! `Value` has none).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// `x` as a JSON value, as `serde_json::to_value` builds it.
pub fn value_of<T: Serialize + ?Sized>(x: &T) -> Value {
    let text = serde_json::to_string(x).expect("a value serialises");
    serde_json::from_str(&text).expect("serde_json reads its own text")
}

/// `v`'s compact JSON text, as its `Display` writes it (`{v}`, `v.to_string()`), through
/// the one compact serializer of `Value`: `Display` also carries a pretty printer for
/// `{v:#}`, which the wasm then need not carry.
pub fn text(v: &Value) -> String {
    serde_json::to_string(v).expect("a value serialises")
}

/// A `T` from a JSON value, as `serde_json::from_value` reads it: the error is serde's
/// message (no `at line L column C`, which a value does not have).
pub fn from_value<T: DeserializeOwned>(v: &Value) -> Result<T, String> {
    serde_json::from_str(&text(v)).map_err(|e| message(&e))
}

/// serde_json's error message without the position it appends for text.
fn message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&at) {
        Some(msg) if e.line() > 0 => msg.to_string(),
        _ => full,
    }
}

#[cfg(test)]
mod tests {
    use super::{from_value, text, value_of};
    use crate::config::Config;
    use serde_json::json;

    /// Through text, a config's value is the one `to_value` builds, integers, floats,
    /// `null` and strings alike, and it reads back to the same config.
    #[test]
    fn a_value_through_text_equals_serde_jsons_own() {
        let cfg = Config {
            kv_blocks: None,
            request_rate: 12.5,
            ..Config::default()
        };
        let direct = serde_json::to_value(&cfg).unwrap();
        assert_eq!(value_of(&cfg), direct);
        assert_eq!(value_of(&cfg).to_string(), direct.to_string());
        let back: Config = from_value(&direct).unwrap();
        assert_eq!(value_of(&back), direct);
    }

    /// `text` writes what `Display` writes (`{v}`), escapes, numbers and nesting alike,
    /// and what a person would write by hand for a small value.
    #[test]
    fn text_is_displays_compact_text() {
        let values = [
            json!(null),
            json!(true),
            json!(""),
            json!("quote \" backslash \\ tab \t newline \n bell \u{7} é ☃ 🦀 </script>"),
            json!(0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.0),
            json!(-0.0),
            json!(0.1),
            json!(1e300),
            json!(5e-324),
            json!(f64::MAX),
            json!(123456.789e-20),
            json!([]),
            json!({}),
            json!([1, [2, [3, {"a": [null, 1.5]}]], "x"]),
            json!({"z": 1, "a": {"nested": [true, false]}, "m": "v"}),
        ];
        for v in &values {
            assert_eq!(text(v), format!("{v}"));
        }
        let small = json!({"b": [1, 2.5, "x\"y"], "a": null});
        assert_eq!(text(&small), r#"{"a":null,"b":[1,2.5,"x\"y"]}"#);
    }

    /// An invalid value's error is word for word `from_value`'s, with no position.
    #[test]
    fn an_error_is_from_values_message() {
        for bad in [
            json!({ "instances": "eight" }),
            json!({ "instances": -1 }),
            json!({ "request_rate": null, "instances": 2.5 }),
            json!({ "no_such_key": 1 }),
            json!({ "routing": "nowhere" }),
            json!([1, "fast"]),
        ] {
            let want = serde_json::from_value::<Config>(bad.clone())
                .unwrap_err()
                .to_string();
            assert_eq!(from_value::<Config>(&bad).unwrap_err(), want, "{bad}");
            assert!(!want.contains(" at line "), "{want}");
        }
    }
}
