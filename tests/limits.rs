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

/// A split fleet (one prefill, one decode replica) whose engine costs nothing, so the
/// KV link alone sets how long a run lasts.
fn free_engine_split_fleet() -> kvfleet::Config {
    kvfleet::Config {
        prefill_instances: Some(1),
        decode_instances: Some(1),
        instances: 2,
        engine: kvfleet::timing::EnginePreset::Custom,
        step_fixed_us: 0.0,
        prefill_token_us: 0.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        kv_bytes_per_token: Some(100_000_000),
        kv_transfer_gbps: 0.001,
        block_size: 65536,
        input_len: 1_000_000,
        output_len: 1,
        num_prefixes: 0,
        ..kvfleet::Config::default()
    }
}

#[test]
fn kv_transfers_that_could_outlast_the_clock_are_refused() {
    // At 0.001 GB/s (1 B/µs) a prompt of 10^6 tokens at 10^8 B each takes 10^14 µs on
    // the one link. 2^62 µs is 4.61e18, so 46,000 prompts (4.6e18 µs, plus under 10^12
    // µs of steps and arrivals) fit and 46,200 (4.62e18 µs) do not; without the link
    // (colocated, where transfers do not happen) 46,200 fit too.
    let fits = kvfleet::Config {
        num_requests: 46_000,
        ..free_engine_split_fleet()
    };
    assert!(kvfleet::params::validate(&fits).is_ok());
    let beyond = kvfleet::Config {
        num_requests: 46_200,
        ..fits.clone()
    };
    let err = kvfleet::params::validate(&beyond).unwrap_err().to_string();
    assert!(
        err.contains("invalid num_requests")
            && err.contains("KV transfers 146")
            && err.contains("2^62 µs")
            && err.contains("faster KV link"),
        "{err}"
    );
    let colocated = kvfleet::Config {
        prefill_instances: None,
        decode_instances: None,
        kv_bytes_per_token: None,
        ..beyond
    };
    assert!(kvfleet::params::validate(&colocated).is_ok());
}

#[test]
fn a_replay_whose_transfers_pass_the_clock_or_the_byte_count_is_refused() {
    // Prompts of 4,294,967,295 tokens at 10^8 B over 1 B/µs: 4.29e17 µs and 4.29e17 B
    // each. 20 of them need 8.6e18 µs on the link (past 2^62 µs, 4.61e18) and 60 move
    // 2.58e19 B (past 2^63 B, 9.22e18). Both ran to exit 0, the makespan, the bytes and
    // the link's busy share wrapped.
    let flags = [
        "--des-prefill-instances",
        "1",
        "--des-decode-instances",
        "1",
        "--des-engine",
        "custom",
        "--des-step-fixed-us",
        "0",
        "--des-prefill-token-us",
        "0",
        "--des-decode-seq-us",
        "0",
        "--des-kv-read-token-ns",
        "0",
        "--des-kv-bytes-per-token",
        "100000000",
        "--des-kv-transfer-gbps",
        "0.001",
        "--des-block-size",
        "65536",
    ];
    let lines = |n: usize| {
        "arrival_ms,prompt_tokens,output_tokens\n".to_string() + &"0,4294967295,1\n".repeat(n)
    };
    let csv = write("link20.csv", &lines(20));
    let (code, err) = run_on("--des-workload-file", &csv, &flags);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("link20.csv: the replay could outlast the simulator's clock")
            && err.contains("KV transfers 272"),
        "{err}"
    );
    let csv = write("link60.csv", &lines(60));
    let (code, err) = run_on("--des-workload-file", &csv, &flags);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("link60.csv: the replay's KV bytes cannot be counted")
            && err.contains("2.577e19 B")
            && err.contains("2^63 B"),
        "{err}"
    );
}

#[test]
fn two_pools_beyond_the_fleet_limit_blame_the_pools() {
    // The fleet's size is P + D, not a flag the user gave: 200 + 100 = 300 > 256.
    let (code, _, err) = kvfleet(&[
        "--des-prefill-instances",
        "200",
        "--des-decode-instances",
        "100",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: --des-prefill-instances: invalid prefill_instances: got 200")
            && err.contains("at most 156 with decode_instances 100")
            && !err.contains("--des-instances"),
        "{err}"
    );
    // A sweep of the prefill pool next to 253 decode replicas fails at P = 4 (257).
    let (code, _, err) = kvfleet(&[
        "--des-prefill-instances",
        "1",
        "--des-decode-instances",
        "253",
        "--des-num-requests",
        "10",
        "--des-sweep",
        "prefill-instances=1:4",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--des-sweep prefill-instances=1:4: invalid prefill_instances: got 4")
            && err.contains("at most 3 with decode_instances 253")
            && !err.contains("invalid instances"),
        "{err}"
    );
}

#[test]
fn llm_d_weights_are_bounded_so_their_sum_stays_finite() {
    // 1e308 x 3 overflowed to inf: every replica scored inf and the lowest index won
    // (p99 TTFT 2.4 s became 25.9 s). Weights scale the scores, so 10^6 each routes as
    // 1 each does.
    let err = kvfleet::config::parse_llmd_weights("1e308,1e308,1e308")
        .unwrap_err()
        .to_string();
    assert!(err.contains("from 0 to 1000000"), "{err}");
    assert!(kvfleet::config::parse_llmd_weights("1000001,0,0").is_err());
    let run = |w: &str| {
        let cfg = format!(
            r#"{{"routing": "llm_d", "llmd_weights": "{w}", "num_requests": 300, "request_rate": 20}}"#
        );
        let v: serde_json::Value = serde_json::from_str(&api::run_json(&cfg).unwrap()).unwrap();
        v["summary"]["ttft_ms_p99"].as_f64().unwrap()
    };
    assert_eq!(run("1000000,1000000,1000000"), run("1,1,1"));
    let (code, _, err) = kvfleet(&["--des-llmd-weights", "1e308,1e308,1e308"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--des-llmd-weights"), "{err}");
}

#[test]
fn a_split_fleet_with_no_transfers_reports_null_transfer_times() {
    // Every prompt (4096 tokens) is under the 10^6-token threshold, so every request
    // prefills on its decode replica: no transfer, no transfer time to average.
    let v: serde_json::Value = serde_json::from_str(
        &api::run_json(
            r#"{"prefill_instances": 1, "decode_instances": 1, "instances": 2, "num_requests": 20, "disagg_min_uncached_tokens": 1000000}"#,
        )
        .unwrap(),
    )
    .unwrap();
    let t = &v["pools"]["transfers"];
    assert_eq!(t["count"], 0);
    for key in [
        "time_ms_mean",
        "time_ms_p50",
        "time_ms_p99",
        "wait_ms_mean",
        "wait_ms_p99",
    ] {
        assert!(t[key].is_null(), "{key}: {}", t[key]);
    }
    assert_eq!(t["time_ms_cdf"], serde_json::json!([]));
    assert!(v["pools"]["line"]
        .as_str()
        .unwrap()
        .contains("mean –, p99 –"));
}

#[test]
fn refresh_lag_and_ttl_must_be_whole_microseconds() {
    // The clock counts whole µs: 0.0004 ms rounded to 0 (the live view) while the report
    // echoed 0.0004. Such values are refused; 0.001 ms (1 µs) and 0.25 ms are kept.
    for key in [
        "router_refresh_ms",
        "kv_event_lag_ms",
        "router_predict_ttl_ms",
    ] {
        for bad in ["0.0004", "0.0015"] {
            let cfg =
                format!(r#"{{"router_view": "snapshot", "{key}": {bad}, "num_requests": 5}}"#);
            let err = api::run_json(&cfg).unwrap_err();
            assert!(
                err.contains(&format!("invalid {key}: got {bad}"))
                    && err.contains("whole number of µs"),
                "{err}"
            );
        }
        for good in ["0.001", "0.25", "0"] {
            let cfg =
                format!(r#"{{"router_view": "snapshot", "{key}": {good}, "num_requests": 5}}"#);
            let v: serde_json::Value = serde_json::from_str(&api::run_json(&cfg).unwrap()).unwrap();
            assert_eq!(v["config"][key].as_f64(), good.parse::<f64>().ok(), "{key}");
        }
    }
}

#[test]
fn a_gpu_hour_price_that_overflows_the_costs_is_refused() {
    // 1e308 was echoed in 309 digits and the plan printed $inf/h.
    let (code, out, err) = kvfleet(&[
        "plan",
        "--gpu-hour-usd",
        "1e308",
        "--slo-ttft-p99-ms",
        "500",
        "--des-num-requests",
        "10",
        "--plan-max-replicas",
        "1",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--gpu-hour-usd: invalid price: got 1e308; allowed: 0 to 10000")
            && err.len() < 200,
        "{err}"
    );
    assert!(!out.contains("inf"), "{out}");
}
