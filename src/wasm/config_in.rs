//! The config object going in: `run(config)` and `runTrace(config, ...)` read it straight
//! from the JS object with `serde-wasm-bindgen` (no JSON text in between), with the checks
//! that reader lacks. It looks up a struct's fields by name, so on its own it would ignore
//! unknown keys (`deny_unknown_fields` never sees them) and read a key set to `undefined` as
//! a value; here unknown keys are refused with serde's own message, as the JSON path refuses
//! them, and `undefined` keys are dropped, as `JSON.stringify` drops them.

use crate::Config;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use wasm_bindgen::{JsCast, JsError, JsValue};

/// The config that a JS value describes: `undefined` or `null` is the default config; an
/// object's missing keys take their defaults.
pub fn config_of(config: JsValue) -> Result<Config, JsError> {
    if config.is_undefined() || config.is_null() {
        return Ok(Config::default());
    }
    if js_sys::Array::is_array(&config) {
        return Err(invalid("invalid type: sequence, expected struct Config"));
    }
    let Some(object) = config.dyn_ref::<js_sys::Object>() else {
        // A number, string or boolean: serde's own message names the type it got.
        return serde_wasm_bindgen::from_value(config).map_err(|e| invalid(&e.to_string()));
    };
    let fields = struct_fields::<Config>();
    let defined = js_sys::Object::new();
    for key in js_sys::Object::keys(object) {
        let name = key.as_string().unwrap_or_default();
        if !fields.contains(&name.as_str()) {
            let e = <de::value::Error as de::Error>::unknown_field(&name, fields);
            return Err(invalid(&e.to_string()));
        }
        let value = js_sys::Reflect::get(object, &key).unwrap_or(JsValue::UNDEFINED);
        if !value.is_undefined() {
            let _ = js_sys::Reflect::set(&defined, &key, &value);
        }
    }
    serde_wasm_bindgen::from_value(defined.into()).map_err(|e| invalid(&e.to_string()))
}

/// A config given as JSON text (parsed as `run_json` parses it) or as an object (`config_of`).
pub fn config_arg(config: JsValue) -> Result<Config, JsError> {
    match config.as_string() {
        Some(text) => crate::api::parse_config(&text).map_err(|m| JsError::new(&m)),
        None => config_of(config),
    }
}

/// "invalid config: ...", cut to a readable size (serde echoes a bad value whole), as
/// `api::parse_config` words the JSON path's errors.
fn invalid(message: &str) -> JsError {
    JsError::new(&crate::echo::cut_long_lines(
        &format!("invalid config: {message}"),
        400,
    ))
}

/// The field names that `T`'s derived `Deserialize` accepts, asked of serde itself (a
/// deserializer that only listens for `deserialize_struct`), so the list never drifts from
/// the struct.
fn struct_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    match T::deserialize(FieldProbe) {
        Err(Probe::Fields(fields)) => fields,
        _ => &[],
    }
}

struct FieldProbe;

#[derive(Debug)]
enum Probe {
    Fields(&'static [&'static str]),
    Other,
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field probe")
    }
}

impl std::error::Error for Probe {}

impl de::Error for Probe {
    fn custom<M: std::fmt::Display>(_: M) -> Probe {
        Probe::Other
    }
}

impl<'de> Deserializer<'de> for FieldProbe {
    type Error = Probe;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Probe> {
        Err(Probe::Other)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Probe> {
        Err(Probe::Fields(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
