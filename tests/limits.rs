//! What the simulator can represent and afford: seeds the page can hold, times within the
//! clock's horizon, lengths whose sums cannot overflow, runs that fit in memory, and
//! trace lines of bounded length. Each bad input is an error naming what is wrong.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{kvfleet, tmp};
use kvfleet::api;

#[test]
fn seeds_above_2_pow_53_are_refused() {
    // 2^53 = 9007199254740992 is the largest integer a JavaScript number holds with every
    // integer below it; 2^53 + 1 would come back from the page as 2^53.
    assert!(api::run_json(r#"{"seed": 9007199254740992, "num_requests": 1}"#).is_ok());
    let err = api::run_json(r#"{"seed": 9007199254740993, "num_requests": 1}"#).unwrap_err();
    assert!(
        err.contains("seed") && err.contains("9007199254740993"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--seed", "9007199254740993"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--seed") && err.contains("9007199254740993"),
        "{err}"
    );
}

fn write(name: &str, text: &str) -> String {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the CLI on a file; returns (exit code, stderr), the file removed.
fn run_on(flag: &str, path: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec![flag, path];
    args.extend_from_slice(extra);
    let (code, _, err) = kvfleet(&args);
    std::fs::remove_file(path).ok();
    (code, err)
}

#[test]
fn times_near_the_top_of_u64_are_file_line_errors() {
    // These divided by zero in the series sampler (exit 134) or wrapped: now line 2 of
    // each file is named, and the limit is stated.
    let csv = write(
        "top.csv",
        "arrival_us,input_length,output_length\n18446744073709551615,10,1\n",
    );
    let (code, err) = run_on("--des-workload-file", &csv, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("top.csv:2:") && err.contains("2^62 µs"),
        "{err}"
    );
    let jsonl = write(
        "top.jsonl",
        "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}\n\
         {\"timestamp\": 18396078577901554, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}\n",
    );
    let (code, err) = run_on("--des-mooncake-trace", &jsonl, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("top.jsonl:2:") && err.contains("18396078577901554 ms"),
        "{err}"
    );
}

#[test]
fn a_run_that_could_outlast_the_clock_is_refused() {
    // Three requests of 4,294,967,295 prompt and output tokens: decode alone reads
    // O x (P + O) = 3.7e19 KV tokens per request at 49 ns each, 1.8e18 µs, so three of
    // them in a row need 5.4e18 µs > 2^62 µs (4.6e18). The makespan used to wrap
    // (1.76e13 s instead of about 2.7e13 s) with a replica never idle shown 49% busy.
    let line = "{\"timestamp\": 0, \"input_length\": 4294967295, \"output_length\": 4294967295, \"hash_ids\": []}\n";
    let trace = write("long.jsonl", &line.repeat(3));
    let (code, err) = run_on("--des-mooncake-trace", &trace, &["--des-instances", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("long.jsonl: the replay could outlast the simulator's clock")
            && err.contains("years"),
        "{err}"
    );
    // One of them fits (1.8e18 µs): it runs, and its one replica is busy throughout.
    let one = write("one.jsonl", line);
    let (code, out, err) = kvfleet(&[
        "--des-mooncake-trace",
        &one,
        "--des-instances",
        "1",
        "--des-report-json",
        "-",
    ]);
    std::fs::remove_file(&one).ok();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["per_instance"][0]["busy_share"], 1.0);
    // Its makespan, computed by hand: a prefill of 4294967295 tokens in chunks of 8192
    // (524,289 steps of 6000 µs + 32 µs per token) and 4294967294 decode steps of
    // 6020 µs + 49 ns per KV token, about 1.36e18 µs.
    let makespan_s = v["summary"]["makespan_s"].as_f64().unwrap();
    assert!((1.3e12..1.45e12).contains(&makespan_s), "{makespan_s}");
}

#[test]
fn synthetic_runs_beyond_the_clock_are_refused() {
    // 10^7 requests at 0.01 req/s under gamma arrivals of shape 0.01: the longest gaps
    // the sampler can draw (61 means / 0.01 each) add up beyond 2^62 µs.
    let err = api::run_json(
        r#"{"num_requests": 10000000, "request_rate": 0.01, "arrival_model": "gamma", "burstiness": 0.01, "kv_blocks": 100}"#,
    )
    .unwrap_err();
    assert!(
        err.contains("invalid num_requests") && err.contains("simulator's clock"),
        "{err}"
    );
}

#[test]
fn memory_bombs_are_refused_with_the_estimate_and_the_limit() {
    // Each passed validation, then aborted with "memory allocation failed".
    let bombs: [&[&str]; 3] = [
        // 200 requests x 10^6 unique 1-token blocks on unbounded caches: 2e8 blocks.
        &[
            "--des-input-len",
            "1000000",
            "--des-block-size",
            "1",
            "--des-num-prefixes",
            "0",
        ],
        // 10^7 requests x 4 unique blocks each: 4e7 blocks, over 5 GB at 128 B each.
        &["--des-num-requests", "10000000"],
        // 10^5 requests x 2048 unique 1-token blocks: 2e8 blocks.
        &["--des-block-size", "1", "--des-num-requests", "100000"],
    ];
    for args in bombs {
        let (code, out, err) = kvfleet(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty());
        assert!(
            err.contains("--des-num-requests: invalid num_requests")
                && err.contains("needs an estimated")
                && err.contains("GiB")
                && err.contains("more than the limit of 4 GiB")
                && err.contains("kv_blocks"),
            "{args:?}: {err}"
        );
    }
    // Bounded caches make the same request count affordable.
    assert!(kvfleet::params::validate(&kvfleet::Config {
        num_requests: 10_000_000,
        kv_blocks: Some(4096),
        ..kvfleet::Config::default()
    })
    .is_ok());
}

#[test]
fn an_endless_line_is_a_file_line_error() {
    let (code, _, err) = kvfleet(&["--des-mooncake-trace", "/dev/zero"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("/dev/zero:1:") && err.contains("longer than 16 MiB"),
        "{err}"
    );
}

#[test]
fn a_huge_unknown_config_key_is_not_echoed_whole() {
    // A 100,000-character key: the message names the problem and stays short.
    let key = "k".repeat(100_000);
    let err = kvfleet::api::run_json(&format!("{{\"{key}\": 1}}")).unwrap_err();
    assert!(
        err.starts_with("invalid config: unknown field"),
        "{}",
        &err[..80.min(err.len())]
    );
    assert!(err.len() < 600, "message of {} bytes", err.len());
}
