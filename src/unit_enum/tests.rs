//! The shared unit-enum deserializer against serde's derive: the same values and the same
//! error messages, word for word, through serde_json (text and `Value`) and serde's own
//! value deserializers.

use crate::config::{ArrivalModel, DecodeRouting, Policy, RouterView, SglangMiss, WorkloadKind};
use crate::timing::EnginePreset;
use serde::de::value::{BoolDeserializer, Error as ValueError, StrDeserializer, U32Deserializer};
use serde::de::{DeserializeOwned, IntoDeserializer};
use serde::{Deserialize, Serialize};

/// Twins of the config's enums with serde's derived `Deserialize` (same names, same serde
/// attributes): what the shared deserializer must match.
mod derived {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ArrivalModel {
        Poisson,
        Deterministic,
        Gamma,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Policy {
        Kv,
        PrefixAware,
        RoundRobin,
        Random,
        Sticky,
        LeastLoaded,
        P2c,
        Dynamo,
        Sglang,
        LlmD,
        Aibrix,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum SglangMiss {
        Load,
        Tree,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum RouterView {
        Exact,
        Offline,
        Snapshot,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum WorkloadKind {
        Pool,
        Sessions,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum DecodeRouting {
        LeastKv,
        RoundRobin,
        Random,
    }

    #[derive(Serialize, Deserialize)]
    pub enum EnginePreset {
        #[serde(rename = "llama3-8b-h100")]
        Llama3_8bH100,
        #[serde(rename = "llama3-70b-4xh100")]
        Llama3_70b4xH100,
        #[serde(rename = "llama3-8b-h200")]
        Llama3_8bH200,
        #[serde(rename = "llama3-8b-mi300x")]
        Llama3_8bMi300x,
        #[serde(rename = "llama3-8b-b200")]
        Llama3_8bB200,
        #[serde(rename = "llama3-70b-2xh200")]
        Llama3_70b2xH200,
        #[serde(rename = "llama3-70b-mi300x")]
        Llama3_70bMi300x,
        #[serde(rename = "llama3-70b-2xb200")]
        Llama3_70b2xB200,
        #[serde(rename = "mixtral-8x7b-h200")]
        Mixtral8x7bH200,
        #[serde(rename = "mixtral-8x7b-mi300x")]
        Mixtral8x7bMi300x,
        #[serde(rename = "custom")]
        Custom,
    }
}

/// A result as text: the value's JSON, or the error's message.
fn shown<T: Serialize, E: std::fmt::Display>(r: Result<T, E>) -> String {
    match r {
        Ok(v) => format!("ok {}", serde_json::to_string(&v).unwrap()),
        Err(e) => format!("err {e}"),
    }
}

/// JSON texts for an enum whose variants' serde names are `names`: every name, both the
/// string and the one-key map form, and malformed and wrong values of every kind.
fn inputs(names: &[&str]) -> Vec<String> {
    let mut texts: Vec<String> = names
        .iter()
        .flat_map(|n| {
            [
                format!("\"{n}\""),
                format!("{{\"{n}\":null}}"),
                format!("{{\"{n}\":1}}"),
                format!("{{\"{n}\":null,\"x\":null}}"),
                format!("\"{}\"", n.to_uppercase()),
                format!(" \"{n}\" "),
            ]
        })
        .collect();
    for bad in [
        "\"nope\"",
        "\"\"",
        "{\"nope\":null}",
        "{}",
        "{1:null}",
        "{\"kv\"}",
        "1",
        "-1",
        "2.5",
        "null",
        "true",
        "[]",
        "[\"kv\"]",
        "\"kv",
        "",
        "{\"kv\":[]}",
        "{\"kv\":{}}",
        "\"k\\u0076\"",
    ] {
        texts.push(bad.to_string());
    }
    texts
}

/// `Ours` (the shared deserializer) and `Derived` (serde's derive) read every input alike:
/// from JSON text, from a parsed `Value`, from a string and from a variant index.
fn same<Ours, Derived>(names: &[&str])
where
    Ours: DeserializeOwned + Serialize,
    Derived: DeserializeOwned + Serialize,
{
    for text in inputs(names) {
        let ours = shown(serde_json::from_str::<Ours>(&text));
        assert_eq!(
            ours,
            shown(serde_json::from_str::<Derived>(&text)),
            "{text}"
        );
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            let ours = shown(serde_json::from_value::<Ours>(v.clone()));
            assert_eq!(ours, shown(serde_json::from_value::<Derived>(v)), "{text}");
        }
    }
    for name in names.iter().copied().chain(["nope", ""]) {
        let d = || -> StrDeserializer<ValueError> { name.into_deserializer() };
        assert_eq!(
            shown(Ours::deserialize(d())),
            shown(Derived::deserialize(d()))
        );
    }
    let d = || -> BoolDeserializer<ValueError> { true.into_deserializer() };
    assert_eq!(
        shown(Ours::deserialize(d())),
        shown(Derived::deserialize(d()))
    );
    for index in 0..names.len() as u32 + 2 {
        let d = || -> U32Deserializer<ValueError> { index.into_deserializer() };
        assert_eq!(
            shown(Ours::deserialize(d())),
            shown(Derived::deserialize(d()))
        );
    }
}

/// Every name reads back to the variant that serialises to it (`Serialize` is still
/// derived), the names listed here by hand.
fn round_trip<T: DeserializeOwned + Serialize>(names: &[&str]) {
    for name in names {
        let text = format!("\"{name}\"");
        let v: T = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), text);
    }
}

fn check<Ours, Derived>(names: &[&str])
where
    Ours: DeserializeOwned + Serialize,
    Derived: DeserializeOwned + Serialize,
{
    round_trip::<Ours>(names);
    round_trip::<Derived>(names);
    same::<Ours, Derived>(names);
}

#[test]
fn every_unit_enum_reads_as_the_derive_reads_it() {
    check::<ArrivalModel, derived::ArrivalModel>(&["poisson", "deterministic", "gamma"]);
    check::<Policy, derived::Policy>(&[
        "kv",
        "prefix_aware",
        "round_robin",
        "random",
        "sticky",
        "least_loaded",
        "p2c",
        "dynamo",
        "sglang",
        "llm_d",
        "aibrix",
    ]);
    check::<SglangMiss, derived::SglangMiss>(&["load", "tree"]);
    check::<RouterView, derived::RouterView>(&["exact", "offline", "snapshot"]);
    check::<WorkloadKind, derived::WorkloadKind>(&["pool", "sessions"]);
    check::<DecodeRouting, derived::DecodeRouting>(&["least_kv", "round_robin", "random"]);
    check::<EnginePreset, derived::EnginePreset>(&[
        "llama3-8b-h100",
        "llama3-70b-4xh100",
        "llama3-8b-h200",
        "llama3-8b-mi300x",
        "llama3-8b-b200",
        "llama3-70b-2xh200",
        "llama3-70b-mi300x",
        "llama3-70b-2xb200",
        "mixtral-8x7b-h200",
        "mixtral-8x7b-mi300x",
        "custom",
    ]);
}

/// The messages themselves, for one enum: what a person sees for a wrong policy.
#[test]
fn a_wrong_variant_names_the_choices_in_declaration_order() {
    let e = serde_json::from_str::<WorkloadKind>("\"pools\"").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown variant `pools`, expected `pool` or `sessions` at line 1 column 7"
    );
    let e = WorkloadKind::deserialize(U32Deserializer::<ValueError>::new(2)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid value: integer `2`, expected variant index 0 <= i < 2"
    );
    let e = WorkloadKind::deserialize(BoolDeserializer::<ValueError>::new(true)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: boolean `true`, expected enum WorkloadKind"
    );
    let e = serde_json::from_str::<WorkloadKind>("{\"pool\":1}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: integer `1`, expected unit at line 1 column 9"
    );
}
