//! The overload finding under a rate schedule and an autoscaler: a backlog that grew with a
//! step up of the rate, while the autoscaler added replicas that then kept up, is no
//! overload; a fleet that falls further behind at the stepped rate still is.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{kvfleet, tmp};
use kvfleet::workload::Schedule;
use serde_json::Value;

/// Runs the CLI with `args` and returns its JSON report.
fn report(name: &str, args: &[&str]) -> Value {
    let json = tmp(name);
    let all = [args, &["--des-report-json", &json]].concat();
    let (code, _, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    let v = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    v
}

/// Requests waiting or running, fleet-wide, at sample `k`.
fn backlog(v: &Value, k: usize) -> u64 {
    let col = |name: &str| -> u64 {
        v["series"][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[k].as_u64().unwrap())
            .sum()
    };
    col("queue") + col("running")
}

/// Completions and arrivals, fleet-wide, in the windows from `from_s` to `to_s`.
fn served_and_offered(v: &Value, from_s: f64, to_s: f64) -> (f64, f64) {
    let t = v["series"]["t_s"].as_array().unwrap();
    let (mut served, mut offered) = (0.0, 0.0);
    for k in 1..t.len() {
        if t[k - 1].as_f64().unwrap() < from_s || t[k].as_f64().unwrap() > to_s {
            continue;
        }
        let span = t[k].as_f64().unwrap() - t[k - 1].as_f64().unwrap();
        served += v["series"]["served_rate"][k].as_f64().unwrap() * span;
        offered += v["series"]["offered_rate"][k].as_f64().unwrap() * span;
    }
    (served, offered)
}

fn overload_texts(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "overloaded")
        .map(|f| f["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_step_the_autoscaler_catches_up_with_is_no_overload() {
    // 2 req/s, then 24 from 20 s; the KPA grows the fleet from 1 or 2 replicas to 8.
    let v = report(
        "step-kpa.json",
        &[
            "--request-rate-schedule",
            "0s:2,20s:24",
            "--des-num-requests",
            "700",
            "--des-instances",
            "2",
            "--des-autoscale",
            "kpa",
            "--des-kpa-target",
            "4",
            "--des-startup-s",
            "5",
        ],
    );
    let replicas = v["series"]["replicas"].as_array().unwrap();
    assert_eq!(
        replicas.last().unwrap().as_u64(),
        Some(8),
        "the fleet grew to 8"
    );
    // The fleet kept up once the new replicas were ready: from 34 s on it completed at
    // least the requests that arrived, and its backlog at the end of the arrivals is below
    // its backlog at 30 s, in the step's catch-up.
    let (served, offered) = served_and_offered(&v, 34.0, f64::INFINITY);
    assert!(served >= offered, "served {served} of {offered} after 34 s");
    let t: Vec<f64> = v["series"]["t_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let at = |s: f64| t.iter().position(|&x| x >= s).unwrap();
    let last_arrival = 699.0 / v["summary"]["offered_rate"].as_f64().unwrap();
    assert!(backlog(&v, at(last_arrival - 1.0)) < backlog(&v, at(30.0)));
    // ...so no replica is named as one that cannot keep up.
    assert_eq!(overload_texts(&v), Vec::<String>::new());
    assert_eq!(v["summary"]["overloaded"], false);
}

#[test]
fn a_fleet_that_falls_behind_at_the_stepped_rate_is_overloaded_after_the_step() {
    // 2 req/s, then 40 from 20 s, on 2 fixed replicas.
    let v = report(
        "step-fixed.json",
        &[
            "--request-rate-schedule",
            "0s:2,20s:40",
            "--des-num-requests",
            "1200",
            "--des-instances",
            "2",
        ],
    );
    // After the step, while arrivals last, the fleet completes far fewer requests than
    // arrive.
    let last_arrival = 1199.0 / v["summary"]["offered_rate"].as_f64().unwrap();
    let (served, offered) = served_and_offered(&v, 20.0, last_arrival);
    assert!(served < 0.8 * offered, "served {served} of {offered}");
    let texts = overload_texts(&v);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with(
            "Overloaded: the fleet cannot keep up with the offered load (backlog grew from "
        ),
        "{}",
        texts[0]
    );
    assert!(
        texts[0].contains(
            "between the two halves of the arrivals after the rate's last change, at 20.0 s)"
        ),
        "{}",
        texts[0]
    );
}

#[test]
fn a_schedule_s_piece_starts_at_its_last_point() {
    let s = Schedule::parse("0s:2,20s:24,60s:24~90s:4").unwrap();
    assert_eq!(s.piece_start_s(5.0), 0.0);
    assert_eq!(s.piece_start_s(20.0), 20.0);
    assert_eq!(s.piece_start_s(75.0), 60.0);
    assert_eq!(s.piece_start_s(500.0), 90.0);
    // A daily shape's hourly points, in the period holding the time: hour 3 of the
    // second 24 s period starts at 24 + 3 s.
    let d = Schedule::parse("daily:10:24s").unwrap();
    assert_eq!(d.piece_start_s(27.5), 27.0);
}

#[test]
fn an_overload_in_running_requests_says_so_beside_a_low_saturated_share() {
    // 14 req/s on 2 fixed replicas: the backlog grows, in the running batch.
    let v = report(
        "batch-grows.json",
        &["--request-rate", "14", "--des-instances", "2"],
    );
    // Every replica was saturated (steps with work left unstarted) under 5% of the run...
    for row in v["per_instance"].as_array().unwrap() {
        assert!(row["saturated_share"].as_f64().unwrap() < 0.05, "{row}");
    }
    // ...because over the second half of the arrivals under a tenth of replica 0's backlog
    // was waiting: the rest was running.
    let last_arrival = 199.0 / v["summary"]["offered_rate"].as_f64().unwrap();
    let t = v["series"]["t_s"].as_array().unwrap();
    let (mut waiting, mut running) = (0u64, 0u64);
    for (k, x) in t.iter().enumerate() {
        let x = x.as_f64().unwrap();
        if x >= last_arrival / 2.0 && x <= last_arrival {
            waiting += v["series"]["queue"][0][k].as_u64().unwrap();
            running += v["series"]["running"][0][k].as_u64().unwrap();
        }
    }
    assert!(
        waiting * 10 < waiting + running,
        "{waiting} waiting, {running} running"
    );
    // The finding says so, so the two read together.
    let texts = overload_texts(&v);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].contains(
            "; nearly all of it running, not waiting: the batches grew and every step slowed)"
        ),
        "{}",
        texts[0]
    );
}
