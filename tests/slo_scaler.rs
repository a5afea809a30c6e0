//! The `slo` scaler reads TTFT when each first token comes: after a load step in which every
//! request stalls in one long batch (none completes for tens of seconds), it adds a replica
//! at the end of the first interval whose first tokens came over the target, worked out
//! here from the per-request decision records.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{kvfleet, tmp};
use serde_json::Value;

const INTERVAL_S: f64 = 5.0;
const TTFT_TARGET_MS: f64 = 500.0;

#[test]
fn a_step_that_stalls_every_request_is_scaled_up_at_the_next_interval() {
    let (json, records) = (tmp("slo-step.json"), tmp("slo-step.jsonl"));
    let (code, _, err) = kvfleet(&[
        "--request-rate-schedule",
        "0s:2,20s:24",
        "--des-num-requests",
        "700",
        "--des-instances",
        "2",
        "--des-autoscale",
        "slo",
        "--des-report-json",
        &json,
        "--des-decisions",
        &records,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lines = std::fs::read_to_string(&records).unwrap();
    let _ = (std::fs::remove_file(&json), std::fs::remove_file(&records));
    // Every request's first token: its arrival plus its TTFT.
    let firsts: Vec<(f64, f64)> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|d| {
            let ttft_ms = d["ttft_ms"].as_f64().unwrap();
            (d["arrival_s"].as_f64().unwrap() + ttft_ms / 1000.0, ttft_ms)
        })
        .collect();
    // The first interval after the step whose first tokens' mean TTFT is over the target.
    let over = (5..)
        .map(|k| k as f64 * INTERVAL_S)
        .find(|&end| {
            let ttfts: Vec<f64> = firsts
                .iter()
                .filter(|&&(t, _)| t > end - INTERVAL_S && t <= end)
                .map(|&(_, ttft)| ttft)
                .collect();
            !ttfts.is_empty() && ttfts.iter().sum::<f64>() / ttfts.len() as f64 > TTFT_TARGET_MS
        })
        .unwrap();
    assert_eq!(over, 25.0);
    // Hardly any request completes in the 20 s after it (under 2% of those that arrive
    // meanwhile): a rule that waited for completions would see next to nothing.
    let records: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at =
        |d: &Value, key: &str| d["arrival_s"].as_f64().unwrap() + d[key].as_f64().unwrap() / 1000.0;
    let completed = records
        .iter()
        .filter(|d| (21.0..=45.0).contains(&at(d, "e2e_ms")))
        .count();
    let arrived = records
        .iter()
        .filter(|d| (21.0..=45.0).contains(&d["arrival_s"].as_f64().unwrap()))
        .count();
    assert!(
        completed * 50 < arrived,
        "{completed} completions, {arrived} arrivals between 21 and 45 s"
    );
    // The scaler starts a replica at that interval's end.
    let first_start = v["autoscale"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "start")
        .map(|c| c["t_s"].as_f64().unwrap());
    assert_eq!(first_start, Some(over));
}

/// The reported case (2 replicas at 4 req/s, then 30 req/s from 20 s): the planner makes no
/// decision before its regression has 5 observations, one per ready replica a 5 s interval,
/// so the first scale-down of the 2 starting replicas is not before the third interval's
/// end (15 s): 2 observations at 5 s, 4 at 10 s, 6 at 15 s.
#[test]
fn no_scale_down_before_the_planner_has_five_observations() {
    let json = tmp("slo-warmup.json");
    let (code, _, err) = kvfleet(&[
        "--des-autoscale",
        "slo",
        "--request-rate-schedule",
        "0s:4,20s:30,60s:4",
        "--des-num-requests",
        "1500",
        "--des-instances",
        "2",
        "--des-routing",
        "least_loaded",
        "--des-report-json",
        &json,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let changes = v["autoscale"]["changes"].as_array().unwrap();
    let first = changes.first().expect("the scaler acted");
    assert!(
        first["t_s"].as_f64().unwrap() >= 3.0 * INTERVAL_S,
        "first change {first} before 15 s"
    );
}
