//! The book's JSON report reference (`docs/src/json-report.md`) names every field a real
//! report carries: reports of a colocated run, a sessions run and a disaggregated run are
//! walked key by key (the `config` object is the parameter list, documented with the
//! parameters), and each key must appear in the chapter as `` `key` ``, `` `key[` `` (an
//! array, or an array per replica) or, for a statistic, `` `stem_*` `` (its mean and
//! percentiles documented together).
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::{api, Config, WorkloadKind};
use serde_json::Value;

fn keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                out.push(k.clone());
                if k != "config" {
                    keys(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

fn report_keys(cfg: &Config) -> Vec<String> {
    let json = api::synthetic_simulation(cfg)
        .unwrap()
        .into_report()
        .to_json();
    let mut out = Vec::new();
    keys(&serde_json::from_str(&json).unwrap(), &mut out);
    out
}

/// Whether the chapter names `key` in one of the forms above.
fn documented(doc: &str, key: &str) -> bool {
    let stat = ["_mean", "_p50", "_p90", "_p99"]
        .iter()
        .find_map(|suffix| key.strip_suffix(suffix));
    doc.contains(&format!("`{key}`"))
        || doc.contains(&format!("`{key}["))
        || stat.is_some_and(|stem| doc.contains(&format!("`{stem}_*`")))
}

#[test]
fn every_field_of_a_real_report_is_in_the_reference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/json-report.md");
    let doc = std::fs::read_to_string(path).expect("the chapter exists");
    let configs = [
        Config::default(),
        Config {
            workload: WorkloadKind::Sessions,
            num_sessions: 6,
            turns: 3,
            ..Config::default()
        },
        Config {
            instances: 4,
            prefill_instances: Some(2),
            decode_instances: Some(2),
            ..Config::default()
        },
    ];
    let mut all: Vec<String> = configs.iter().flat_map(report_keys).collect();
    all.sort();
    all.dedup();
    assert!(
        all.len() > 100,
        "only {} keys: the walk is broken",
        all.len()
    );
    let missing: Vec<&String> = all.iter().filter(|k| !documented(&doc, k)).collect();
    assert!(missing.is_empty(), "not in {path}: {missing:?}");
}
