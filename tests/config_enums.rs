//! The config's unit-only enums through serde: every name reads back to the variant that
//! writes it, and a wrong name gets serde's message listing the choices.

use kvfleet::config::{
    Admission, ArrivalModel, DecodeRouting, Policy, RouterTiers, RouterView, SglangMiss,
    WorkloadKind,
};
use kvfleet::timing::EnginePreset;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Each name, as JSON text, reads to a variant that writes the same text back.
fn round_trip<T: DeserializeOwned + Serialize>(names: &[&str]) {
    for name in names {
        let text = format!("\"{name}\"");
        let v: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(serde_json::to_string(&v).unwrap(), text);
    }
}

#[test]
fn every_name_reads_back_to_itself() {
    round_trip::<ArrivalModel>(&["poisson", "deterministic", "gamma"]);
    round_trip::<Policy>(&[
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
    round_trip::<SglangMiss>(&["load", "tree"]);
    round_trip::<RouterView>(&["exact", "offline", "snapshot"]);
    round_trip::<WorkloadKind>(&["pool", "sessions"]);
    round_trip::<DecodeRouting>(&["least_kv", "round_robin", "random"]);
    round_trip::<Admission>(&["reserve", "preempt"]);
    round_trip::<RouterTiers>(&["hbm", "all"]);
    round_trip::<EnginePreset>(&[
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

/// What a person sees for a wrong name or a wrong shape.
#[test]
fn a_wrong_variant_names_the_choices() {
    let e = serde_json::from_str::<WorkloadKind>("\"pools\"").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown variant `pools`, expected `pool` or `sessions` at line 1 column 7"
    );
    let e = serde_json::from_str::<WorkloadKind>("{\"pool\":1}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: integer `1`, expected unit at line 1 column 9"
    );
}

/// A wrong admission rule in a JSON config names the field, the value and both rules; a
/// config without the key reads as `preempt` (the default), and one at `preempt` writes no
/// key; one that says `reserve` keeps it and writes it back.
#[test]
fn a_wrong_admission_rule_names_the_field_and_the_rules() {
    let e = kvfleet::api::parse_config(r#"{"admission": "swap"}"#).unwrap_err();
    for part in ["admission", "swap", "reserve", "preempt"] {
        assert!(e.contains(part), "{e}");
    }
    let cfg = kvfleet::api::parse_config("{}").unwrap();
    assert_eq!(cfg.admission, Admission::Preempt);
    assert!(!serde_json::to_string(&cfg).unwrap().contains("admission"));
    let cfg = kvfleet::api::parse_config(r#"{"admission": "reserve"}"#).unwrap();
    assert_eq!(cfg.admission, Admission::Reserve);
    let json = serde_json::to_string(&cfg).unwrap();
    assert!(json.contains(r#""admission":"reserve""#), "{json}");
    assert_eq!(
        kvfleet::api::parse_config(&json).unwrap().admission,
        Admission::Reserve
    );
}
