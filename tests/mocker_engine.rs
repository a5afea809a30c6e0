//! The `dynamo-mocker` engine preset and the polynomial engine form through the whole
//! simulator, against Dynamo's replay worked by hand: one request's TTFT and end-to-end
//! latency, the custom polynomial flags and config fields, their errors, and the same
//! bytes for the same seed.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::kvfleet;

use std::io::BufReader;

use kvfleet::timing::EnginePreset;
use kvfleet::trace::{parse_mooncake, TraceOptions};
use kvfleet::{api, Config, Policy};

/// One Mooncake request of `input` tokens and `output` tokens at time 0, unique blocks.
fn one(input: u32, output: u32) -> Vec<kvfleet::Request> {
    let ids: Vec<String> = (0..input.div_ceil(512)).map(|i| i.to_string()).collect();
    let line = format!(
        r#"{{"timestamp": 0, "input_length": {input}, "output_length": {output}, "hash_ids": [{}]}}"#,
        ids.join(", ")
    );
    parse_mooncake(
        BufReader::new(line.as_bytes()),
        "one",
        &TraceOptions::default(),
    )
    .unwrap()
}

/// Mooncake requests `(timestamp ms, input tokens, output tokens, first block id)`, each
/// with consecutive block ids from its first.
fn trace(rows: &[(u64, u32, u32, u32)]) -> Vec<kvfleet::Request> {
    let lines: Vec<String> = rows
        .iter()
        .map(|&(t, input, output, first)| {
            let ids: Vec<String> = (first..first + input.div_ceil(512))
                .map(|i| i.to_string())
                .collect();
            format!(
                r#"{{"timestamp": {t}, "input_length": {input}, "output_length": {output}, "hash_ids": [{}]}}"#,
                ids.join(", ")
            )
        })
        .collect();
    let text = lines.join("\n");
    parse_mooncake(
        BufReader::new(text.as_bytes()),
        "rows",
        &TraceOptions::default(),
    )
    .unwrap()
}

fn run_one(cfg: &Config, input: u32, output: u32) -> kvfleet::Report {
    api::replay_simulation(cfg, one(input, output), "one")
        .unwrap()
        .into_report()
}

fn mocker() -> Config {
    Config {
        engine: EnginePreset::DynamoMocker,
        instances: 1,
        routing: Policy::RoundRobin,
        ..Config::default()
    }
}

#[test]
fn one_request_on_the_mocker_takes_what_dynamos_replay_reports() {
    // The synthetic trace's first request, 40,160 tokens and 6 out: Dynamo reports TTFT
    // 834.03 ms. Chunks of 8,192 tokens take 169,137 µs (4.209989e-7 × 8,192² + 0.01518344
    // × 8,192 + 16.50142 = 169.13692 ms); the last, 7,392 tokens, 151.74149 ms plus the
    // first token's decode phase, 5.74 ms: 4 × 169,137 + 157,482 = 834,030 µs.
    // Then 5 decode steps of 5.74 ms: end to end 834.03 + 28.70 = 862.73 ms.
    let r = run_one(&mocker(), 40_160, 6);
    assert!(
        (r.summary.ttft_ms_mean - 834.03).abs() < 1e-9,
        "{}",
        r.summary.ttft_ms_mean
    );
    assert!(
        (r.summary.e2e_ms_mean - 862.73).abs() < 1e-9,
        "{}",
        r.summary.e2e_ms_mean
    );
    // 10,000 tokens: 169,137 µs, then 1,808 tokens (45.32927 ms) + 5.74 ms = 51,070 µs:
    // TTFT 220.207 ms (Dynamo: 220.2073, its u counts the request's 20 blocks of a
    // million: + 0.001 ms).
    let r = run_one(&mocker(), 10_000, 5);
    assert!(
        (r.summary.ttft_ms_mean - 220.207).abs() < 1e-9,
        "{}",
        r.summary.ttft_ms_mean
    );
}

/// Two identical prompts of 20,480 tokens (40 blocks) on one replica, the second 50 ms
/// after the first, 4 tokens out each: Dynamo 1.4.2's replay (`python -m dynamo.replay`,
/// one worker, round robin) admits the second at 338.27 ms with 19,968 tokens reused and
/// gives both their first token at 439.42 ms (token hit rate 0.4875).
#[test]
fn the_mocker_admits_inside_the_budget_and_reuses_the_blocks_scheduled() {
    let rows = [(0, 20_480, 4, 0), (50, 20_480, 4, 0)];
    // By hand. A chunk of 8,192 tokens: 4.209989e-7 × 8,192² + 0.01518344 × 8,192 +
    // 16.50142 = 169.13692 ms -> 169,137 µs. Steps 1 and 2 compute the first's blocks
    // 0-15 and 16-31 with the whole budget: the second waits (0 to 338,274 µs). Step 3
    // schedules the first's last 4,096 tokens (blocks 32-39), leaving 4,096 of budget:
    // the second is admitted behind it, reuses 39 blocks (the last prompt token is
    // recomputed; the 8 of this step count, being scheduled) and computes 512 tokens.
    // 4,608 tokens: 95.40606 ms, plus the first tokens' decode phase 5.74 ms = 101,147 µs.
    // Both first tokens at 439,421 µs: TTFT 439.421 and 389.421 ms, mean 414.421 ms.
    // Hit rate 39 × 512 / 40,960 = 0.4875.
    let r = api::replay_simulation(&mocker(), trace(&rows), "rows")
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(r.hit_rate_tokens, 0.4875);
    assert!(
        (r.ttft_ms_mean - 414.421).abs() < 1e-9,
        "{}",
        r.ttft_ms_mean
    );
    // The same timing admitting at a free slot (a custom engine with the mocker's
    // coefficients): the second joins at 169,137 µs with the 16 blocks computed by then
    // and computes the other 24 again: 16 × 512 / 40,960 = 0.2.
    let r = api::replay_simulation(&custom_mocker(), trace(&rows), "rows")
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(r.hit_rate_tokens, 0.2);
}

/// The router's index holds a block from the start of the step that computes it, as
/// Dynamo's mocker publishes its KV events when it schedules the step. Two replicas; a
/// prompt of 40 blocks at 0 on one; at 50 ms, inside its first step (0 to 169.137 ms), a
/// second with the same blocks sees that replica hold the 16 of that first chunk.
#[test]
fn the_router_sees_the_blocks_of_the_step_scheduled() {
    let rows = [(0, 20_480, 4, 0), (50, 20_480, 4, 0)];
    let cfg = Config {
        instances: 2,
        routing: Policy::Dynamo,
        ..mocker()
    };
    let mut sim = api::replay_simulation(&cfg, trace(&rows), "rows").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.decisions().unwrap();
    let first = d[0].chosen as usize;
    assert_eq!(d[1].candidates[first].hit_blocks, 16);
    assert_eq!(d[1].candidates[1 - first].hit_blocks, 0);
    let mut sim = api::replay_simulation(
        &Config {
            instances: 2,
            routing: Policy::Dynamo,
            ..custom_mocker()
        },
        trace(&rows),
        "rows",
    )
    .unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.decisions().unwrap();
    // Admitting at a free slot, a block counts once its step has run: none yet at 50 ms.
    assert_eq!(d[1].candidates[d[0].chosen as usize].hit_blocks, 0);
}

/// A custom engine with the mocker's coefficients (its timing, kvfleet's admission).
fn custom_mocker() -> Config {
    Config {
        engine: EnginePreset::Custom,
        step_fixed_us: 0.0,
        prefill_token_us: 0.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        prefill_poly_ms: [16.50142, 1.518344e-2, 4.209989e-7],
        decode_poly_ms: [5.74, 54.01, -25.74],
        ..mocker()
    }
}

#[test]
fn custom_polynomials_are_the_same_engine_as_the_preset() {
    // The preset's timing is nothing but its coefficients: custom with the same ones gives
    // the same report for one request (the preset's admission differs only where requests
    // share blocks: see above), and the linear terms add on top (1 ms fixed per step: the 5 steps of a
    // 1,000-token request with 5 out take 5 ms more).
    let custom = custom_mocker();
    let a = run_one(&mocker(), 1000, 5).summary;
    let b = run_one(&custom, 1000, 5).summary;
    assert_eq!(a.ttft_ms_mean, b.ttft_ms_mean);
    assert_eq!(a.e2e_ms_mean, b.e2e_ms_mean);
    let slower = run_one(
        &Config {
            step_fixed_us: 1000.0,
            ..custom
        },
        1000,
        5,
    )
    .summary;
    assert!((slower.e2e_ms_mean - (a.e2e_ms_mean + 5.0)).abs() < 1e-9);
}

#[test]
fn the_decode_phase_reads_the_kv_capacity() {
    // 4 blocks of 512 tokens = 2,048 tokens of capacity; a 1,000-token prompt with 3 out.
    // Its first token comes with the prefill step, where nothing decodes yet: u = 0 there
    // (prefill 32.10586 + 5.74 = 37.84586 ms -> 37,846 µs). Then one decode run of two
    // steps at 1,001 and 1,002 tokens of context: u = 0.48877 and 0.48926:
    // 5.74 + 26.39844 − 6.14917 = 25.98927 ms and 5.74 + 26.42481 − 6.16147 = 26.00335 ms;
    // 51.99262 ms -> 51,993 µs. End to end 37.846 + 51.993 = 89.839 ms.
    let cfg = Config {
        kv_blocks: Some(4),
        ..mocker()
    };
    let r = run_one(&cfg, 1000, 3).summary;
    assert!((r.e2e_ms_mean - 89.839).abs() < 1e-9, "{}", r.e2e_ms_mean);
    // Unbounded, u = 0: two steps of 5.74 ms.
    let flat = run_one(&mocker(), 1000, 3).summary;
    assert!((flat.e2e_ms_mean - (37.846 + 11.48)).abs() < 1e-9);
}

#[test]
fn bad_polynomials_fail_with_the_field_named() {
    let cfg = Config {
        engine: EnginePreset::Custom,
        decode_poly_ms: [1.0, -4.0, 0.0],
        ..Config::default()
    };
    let e = api::run_json(&serde_json::to_string(&cfg).unwrap()).unwrap_err();
    assert!(
        e.contains("decode_poly_ms") && e.contains("reaches -3.0000"),
        "{e}"
    );
    let e = api::run_json(r#"{"engine":"custom","prefill_poly_ms":[1,2]}"#).unwrap_err();
    assert!(e.contains("expected an array of length 3"), "{e}");
    let (code, _, err) = kvfleet(&["--des-engine", "custom", "--des-prefill-poly-ms", "1,2"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--des-prefill-poly-ms") && err.contains("three numbers C0,C1,C2"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--des-engine", "custom", "--des-decode-poly-ms", "-1,0,0"]);
    assert_ne!(code, 0);
    assert!(err.contains("decode_poly_ms"), "{err}");
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_the_cli_takes_the_flags() {
    let cfg = r#"{"engine":"dynamo-mocker","num_requests":60,"routing":"dynamo","kv_blocks":400}"#;
    let first = api::run_json(cfg).unwrap();
    assert_eq!(api::run_json(cfg).unwrap(), first);
    let json: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(json["config"]["engine"], "dynamo-mocker");
    let (code, out, err) = kvfleet(&[
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
        "--des-prefill-poly-ms",
        "16.50142,1.518344e-2,4.209989e-7",
        "--des-decode-poly-ms",
        "5.74,54.01,-25.74",
        "--des-num-requests",
        "60",
        "--des-report-json",
        "-",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, preset, err) = kvfleet(&[
        "--des-engine",
        "dynamo-mocker",
        "--des-num-requests",
        "60",
        "--des-report-json",
        "-",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let summary = |text: &str| {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["summary"].clone()
    };
    assert_eq!(summary(&out), summary(&preset));
}
