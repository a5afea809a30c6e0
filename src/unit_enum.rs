//! One deserializer shared by the unit-only enums of the config (`Policy`, `EnginePreset`,
//! `RouterView`, ...), reading exactly what serde's derive reads and failing with its words,
//! but compiled once per deserializer instead of once per enum (README, "Wasm size").

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, Expected, Unexpected};
use serde::de::{VariantAccess, Visitor};
use std::fmt;

/// The index in `variants` of the unit variant that `d` holds, read as serde's derive reads
/// a unit-only enum named `name` whose variants' serde names are `variants` (in declaration
/// order): the variant's name as a string, or as the one key of a map with a unit value
/// (`{"kv": null}` in JSON).
pub fn variant_index<'de, D: Deserializer<'de>>(
    d: D,
    name: &'static str,
    variants: &'static [&'static str],
) -> Result<usize, D::Error> {
    d.deserialize_enum(name, variants, EnumVisitor { name, variants })
}

/// The enum's visitor: expects "enum NAME", as the derive's does.
struct EnumVisitor {
    name: &'static str,
    variants: &'static [&'static str],
}

impl<'de> Visitor<'de> for EnumVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "enum {}", self.name)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<usize, A::Error> {
        let (index, variant) = data.variant_seed(Identifier(self.variants))?;
        variant.unit_variant()?;
        Ok(index)
    }
}

/// The variant's identifier: its serde name (string or bytes) or its index, as the derive's
/// field visitor reads it.
struct Identifier(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Identifier {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Identifier {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        match usize::try_from(v) {
            Ok(index) if index < self.0.len() => Ok(index),
            _ => Err(E::invalid_value(
                Unexpected::Unsigned(v),
                &IndexBelow(self.0.len()),
            )),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        match self.0.iter().position(|name| *name == v) {
            Some(index) => Ok(index),
            None => Err(E::unknown_variant(v, self.0)),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<usize, E> {
        match self.0.iter().position(|name| name.as_bytes() == v) {
            Some(index) => Ok(index),
            None => Err(E::unknown_variant(&String::from_utf8_lossy(v), self.0)),
        }
    }
}

/// What a variant index must be: "variant index 0 <= i < N", the derive's words.
struct IndexBelow(usize);

impl Expected for IndexBelow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "variant index 0 <= i < {}", self.0)
    }
}

/// `Deserialize` for a unit-only enum through `variant_index`: the enum's type, its name in
/// serde's messages, then each variant with its serde name, in declaration order (serde's
/// "expected one of" lists them in that order).
macro_rules! deserialize_unit_enum {
    ($ty:ident, $name:literal, [$($variant:ident = $text:literal),+ $(,)?]) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const VARIANTS: &[&str] = &[$($text),+];
                const ALL: &[$ty] = &[$($ty::$variant),+];
                crate::unit_enum::variant_index(d, $name, VARIANTS).map(|i| ALL[i])
            }
        }
    };
}
pub(crate) use deserialize_unit_enum;

#[cfg(test)]
mod tests;
