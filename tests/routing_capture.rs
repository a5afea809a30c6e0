#![cfg(not(target_arch = "wasm32"))]
//! The routing capture: at each pick, the blocks the picked replica held against the most
//! any replica the router could pick held. A worked example by hand (three identical
//! prompts, far apart, on two replicas), the decision log's own sums, and the claims the
//! page makes about kv on the conversation trace: the best-placed replica holds as many
//! blocks at every count from 4 replicas up, and kv's curve follows its capture.

mod common;

use common::{kvfleet, tmp};
use serde_json::Value;

/// The JSON report of the CLI run with `args` (plus the report flag).
fn report(name: &str, args: &[&str]) -> Value {
    let out = tmp(&format!("{name}.json"));
    let mut all = args.to_vec();
    all.extend(["--des-report-json", out.as_str()]);
    let (code, _, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    serde_json::from_str(&text).unwrap()
}

/// (pick_hit_blocks, best_hit_blocks, routing_capture) of a report.
fn capture(r: &Value) -> (u64, u64, f64) {
    let s = &r["summary"];
    (
        s["pick_hit_blocks"].as_u64().unwrap(),
        s["best_hit_blocks"].as_u64().unwrap(),
        s["routing_capture"].as_f64().unwrap_or(f64::NAN),
    )
}

/// Three requests with the same 1,600-token prompt (3 full blocks of 512 and a partial
/// one), 100 s apart so each is long done before the next arrives.
fn three_alike() -> String {
    let path = tmp("capture-three.jsonl");
    let line = |t: u64| {
        format!("{{\"timestamp\": {t}, \"input_length\": 1600, \"output_length\": 4, \"hash_ids\": [1, 2, 3, 4]}}\n")
    };
    std::fs::write(&path, [0, 100_000, 200_000].map(line).concat()).unwrap();
    path
}

#[test]
fn worked_example_round_robin_finds_half_the_reachable_blocks() {
    let trace = three_alike();
    let run = |routing: &str, n: &str| {
        let args = [
            "--des-mooncake-trace",
            &trace,
            "--des-instances",
            n,
            "--des-routing",
            routing,
        ];
        capture(&report(&format!("capture-{routing}-{n}"), &args))
    };
    // By hand, on 2 replicas: the first request finds nothing anywhere (0 of 0); round robin
    // sends the second to the other replica (0 of the 3 the first one's replica holds) and
    // the third back to the first (3 of 3: both replicas hold the prompt by then).
    assert_eq!(run("round_robin", "2"), (3, 6, 0.5));
    // prefix_aware sends all three to one replica: 0 + 3 + 3 of 0 + 3 + 3.
    assert_eq!(run("prefix_aware", "2"), (6, 6, 1.0));
    // One replica is always the best-placed one.
    assert_eq!(run("round_robin", "1"), (6, 6, 1.0));
    // The text report gives the same counts.
    let (code, out, err) = kvfleet(&[
        "--des-mooncake-trace",
        &trace,
        "--des-instances",
        "2",
        "--des-routing",
        "round_robin",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  Routing capture: 50.0% of the cached blocks the best-placed replica held at each pick (3 of 6 blocks)"),
        "{out}"
    );
    std::fs::remove_file(&trace).ok();
}

#[test]
fn nothing_reachable_is_null_not_zero() {
    // Every request a different prompt: no replica ever holds a block of the next one.
    let path = tmp("capture-distinct.jsonl");
    let lines: String = (0..4u64)
        .map(|i| format!("{{\"timestamp\": {}, \"input_length\": 1024, \"output_length\": 2, \"hash_ids\": [{}, {}]}}\n", i * 1000, 10 * i + 1, 10 * i + 2))
        .collect();
    std::fs::write(&path, lines).unwrap();
    let r = report(
        "capture-distinct",
        &["--des-mooncake-trace", &path, "--des-instances", "3"],
    );
    assert_eq!(
        (
            r["summary"]["pick_hit_blocks"].as_u64(),
            r["summary"]["best_hit_blocks"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert!(
        r["summary"]["routing_capture"].is_null(),
        "{}",
        r["summary"]["routing_capture"]
    );
    std::fs::remove_file(&path).ok();
}

fn conversation() -> String {
    format!(
        "{}/data/mooncake/conversation_trace.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_decision_log_sums_to_the_summary() {
    let trace = conversation();
    let log = tmp("capture-decisions.jsonl");
    let r = report(
        "capture-log",
        &[
            "--des-mooncake-trace",
            &trace,
            "--des-instances",
            "4",
            "--des-routing",
            "kv",
            "--des-decisions",
            &log,
        ],
    );
    let (mut pick, mut best, mut n) = (0u64, 0u64, 0u64);
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let d: Value = serde_json::from_str(line).unwrap();
        let held: Vec<u64> = d["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["true_hit_blocks"].as_u64().unwrap())
            .collect();
        pick += held[d["chosen"].as_u64().unwrap() as usize];
        best += held.iter().copied().max().unwrap();
        n += 1;
    }
    std::fs::remove_file(&log).ok();
    assert_eq!(n, 12_031);
    let (p, b, c) = capture(&r);
    assert_eq!((p, b), (pick, best));
    assert_eq!(c, pick as f64 / best as f64);
}

#[test]
fn on_the_conversation_trace_kv_follows_its_capture_and_the_best_stays_put() {
    let trace = conversation();
    let at = |n: u32| {
        let n = n.to_string();
        let r = report(
            &format!("capture-kv-{n}"),
            &[
                "--des-mooncake-trace",
                &trace,
                "--des-instances",
                &n,
                "--des-routing",
                "kv",
            ],
        );
        (
            capture(&r),
            r["summary"]["hit_rate_tokens"].as_f64().unwrap(),
        )
    };
    let runs: Vec<_> = [4, 6, 16, 64].map(at).to_vec();
    // The best-placed replica holds the same blocks at every count from 4 up: each turn's
    // prefix is whole on the replica that served the conversation's previous turn.
    let bests: Vec<u64> = runs.iter().map(|((_, b, _), _)| *b).collect();
    assert!(bests.iter().all(|&b| b == bests[0]), "{bests:?}");
    // kv's capture dips at 6 and climbs to 64, and its hit rate with it (the page's words).
    let caps: Vec<f64> = runs.iter().map(|((_, _, c), _)| *c).collect();
    let hits: Vec<f64> = runs.iter().map(|(_, h)| *h).collect();
    assert!(
        caps[1] < caps[0] && caps[1] < caps[2] && caps[2] < caps[3],
        "{caps:?}"
    );
    assert!(
        hits[1] < hits[0] && hits[1] < hits[2] && hits[2] < hits[3],
        "{hits:?}"
    );
    // prefix_aware puts every request on one replica: it always picks the best-placed one.
    let pa = report(
        "capture-pa-4",
        &[
            "--des-mooncake-trace",
            &trace,
            "--des-instances",
            "4",
            "--des-routing",
            "prefix_aware",
        ],
    );
    assert_eq!(capture(&pa).2, 1.0);
}
