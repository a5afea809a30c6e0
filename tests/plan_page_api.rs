#![cfg(not(target_arch = "wasm32"))]
//! The page's planner calls (`api::plan_mix_json`, `api::plan_autoscale_json`, what the
//! capacity panel's worker runs) give the CLI's answers: the mix plan and its headline equal
//! `kvfleet plan --plan-mix`'s JSON (two presets, and every preset of a model), and the autoscaled-against-static comparison equals
//! `kvfleet plan --plan-autoscale`'s, each fed the config the CLI's JSON reports. Bad input is
//! an error that names the field.

mod common;

use common::{kvfleet, tmp};
use kvfleet::api;
use serde_json::{json, Value};

fn cli_json(args: &[&str], name: &str) -> Value {
    let out = tmp(name);
    let mut all = vec!["plan", "-q"];
    all.extend(args);
    all.extend(["--plan-json", &out]);
    let (code, _, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    serde_json::from_str(&text).unwrap()
}

/// The page's spec from the CLI's report: its targets and bounds, and `presets`.
fn spec(cli: &Value, presets: Value) -> String {
    let mut s = json!({ "slo": cli["slo"], "limits": cli["limits"] });
    if !presets.is_null() {
        s["presets"] = presets;
    }
    s.to_string()
}

#[test]
fn the_page_mix_search_is_the_clis() {
    let cli = cli_json(
        &[
            "--request-rate",
            "24",
            "--slo-ttft-p99-ms",
            "200",
            "--plan-max-replicas",
            "12",
            "--plan-routing",
            "kv",
            "--plan-mix",
            "llama3-8b-h100,llama3-8b-b200=5.5",
        ],
        "mix-page.json",
    );
    // The second price given, the first left to the config's (the CLI's list price).
    let presets = json!([
        { "preset": "llama3-8b-h100", "gpu_hour_usd": null },
        { "preset": "llama3-8b-b200", "gpu_hour_usd": 5.5 },
    ]);
    let config = cli["config"].to_string();
    let out = api::plan_mix_json(&config, "kv", &spec(&cli, presets), None).unwrap();
    let page: Value = serde_json::from_str(&out).unwrap();
    let want = &cli["mixes"][0];
    assert_eq!(page["mix"], *want, "the page's mix plan equals the CLI's");
    assert_eq!(page["headline"], cli["headline"]);
    // Not a vacuous equality: the search simulated several mixes and found an answer.
    let runs = want["points"].as_array().unwrap().len();
    assert!(runs >= 4);
    // The bound the docs state: at most 3 x the largest fleet + 2 x ceil(log2 of it) + 3
    // mixes (12 replicas: 36 + 8 + 3).
    assert!(runs <= 47, "{runs} mixes simulated");
    assert!(want["answer"].is_array(), "{want}");
    assert_eq!(want["presets"][1]["gpu_hour_usd"], 5.5);
}

#[test]
fn the_page_mix_search_over_every_preset_is_the_clis() {
    let cli = cli_json(
        &[
            "--request-rate",
            "24",
            "--slo-ttft-p99-ms",
            "200",
            "--plan-max-replicas",
            "8",
            "--plan-routing",
            "kv",
            "--plan-mix",
            "all",
        ],
        "mix-page-all.json",
    );
    // `all` under the default engine (llama3-8b-h100): the model's four presets, in the
    // order the presets are listed, each at its GPU's list price.
    let names = [
        "llama3-8b-h100",
        "llama3-8b-h200",
        "llama3-8b-mi300x",
        "llama3-8b-b200",
    ];
    let presets: Vec<Value> = names
        .iter()
        .map(|n| json!({ "preset": n, "gpu_hour_usd": null }))
        .collect();
    let config = cli["config"].to_string();
    let out = api::plan_mix_json(&config, "kv", &spec(&cli, json!(presets)), None).unwrap();
    let page: Value = serde_json::from_str(&out).unwrap();
    let want = &cli["mixes"][0];
    assert_eq!(page["mix"], *want, "the page's mix plan equals the CLI's");
    assert_eq!(page["headline"], cli["headline"]);
    let got: Vec<&str> = want["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["preset"].as_str().unwrap())
        .collect();
    assert_eq!(got, names);
    // One count per preset at every point; all six pairs walked (each pair's staircase
    // starts with its second preset alone, so the frontier holds every preset alone that
    // met), and the bound the docs state: 6 pairs x (3 x 8 + 2 x 3 + 1) + (4 x 8 - 2) x 10
    // + 4 = 186 + 300 + 4 = 490 mixes.
    let points = want["points"].as_array().unwrap();
    assert!(points
        .iter()
        .all(|p| p["counts"].as_array().unwrap().len() == 4));
    assert!(points.len() > 10 && points.len() <= 490, "{}", points.len());
    assert_eq!(want["answer"].as_array().unwrap().len(), 4, "{want}");
}

#[test]
fn the_page_comparison_is_the_clis() {
    let cli = cli_json(
        &[
            "--request-rate-schedule",
            "0s:4,20s:24",
            "--des-num-requests",
            "400",
            "--des-routing",
            "kv",
            "--slo-ttft-p99-ms",
            "360",
            "--plan-max-replicas",
            "12",
            "--plan-routing",
            "kv",
            "--plan-autoscale",
            "kpa",
        ],
        "autoscale-page.json",
    );
    let replicas = cli["policies"][0]["min_replicas"].as_u64().unwrap() as u32;
    // The page sends its config with the scaler set; the CLI's config has it off.
    let mut config = cli["config"].clone();
    assert!(config["autoscale"].is_null() || config["autoscale"] == "off");
    config["autoscale"] = json!("kpa");
    let spec = spec(&cli, Value::Null);
    let out = api::plan_autoscale_json(&config.to_string(), replicas, &spec, None).unwrap();
    let page: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        page, cli["autoscale"],
        "the page's comparison equals the CLI's"
    );
    assert_eq!(page["static"]["max_replicas"], replicas);
    assert_eq!(page["autoscaled"]["fleet"], "kpa");
}

#[test]
fn bad_page_input_names_the_field() {
    let cfg = api::parse_config("{}").map(|_| "{}").unwrap();
    let spec = json!({
        "slo": { "ttft_p99_ms": 300.0, "tpot_p99_ms": null, "e2e_p99_ms": null, "max_rejected": 0.0, "sustained": true },
        "limits": { "max_replicas": 8, "seeds": 1, "exhaustive": false, "gpus_per_replica": 1, "gpu_hour_usd": 2.5 },
    });
    let with = |presets: Value| {
        let mut s = spec.clone();
        s["presets"] = presets;
        s.to_string()
    };
    let one = json!([{ "preset": "llama3-8b-h100" }]);
    let err = api::plan_mix_json(cfg, "kv", &with(one), None).unwrap_err();
    assert!(err.contains("presets: invalid count: got 1"), "{err}");
    let unknown = json!([{ "preset": "llama3-8b-h100" }, { "preset": "nope" }]);
    let err = api::plan_mix_json(cfg, "kv", &with(unknown), None).unwrap_err();
    assert!(err.contains("unknown preset \"nope\""), "{err}");
    let models = json!([{ "preset": "llama3-8b-h100" }, { "preset": "llama3-70b-2xh200" }]);
    assert!(api::plan_mix_json(cfg, "kv", &with(models), None).is_err());
    let twice = json!([
        { "preset": "llama3-8b-h100" },
        { "preset": "llama3-8b-b200" },
        { "preset": "llama3-8b-h100" },
    ]);
    let err = api::plan_mix_json(cfg, "kv", &with(twice), None).unwrap_err();
    assert!(err.contains("got llama3-8b-h100 twice"), "{err}");
    let price = json!([
        { "preset": "llama3-8b-h100" },
        { "preset": "llama3-8b-b200" },
        { "preset": "llama3-8b-mi300x", "gpu_hour_usd": -2.0 },
    ]);
    let err = api::plan_mix_json(cfg, "kv", &with(price), None).unwrap_err();
    assert!(err.contains("invalid price of llama3-8b-mi300x"), "{err}");
    // No scaler set: the comparison says what to set.
    let err = api::plan_autoscale_json(cfg, 4, &spec.to_string(), None).unwrap_err();
    assert!(err.contains("autoscale: set a scaler"), "{err}");
    let err =
        api::plan_autoscale_json(r#"{"autoscale":"kpa"}"#, 0, &spec.to_string(), None).unwrap_err();
    assert!(err.contains("replicas: invalid count: got 0"), "{err}");
}
