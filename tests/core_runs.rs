//! Integration tests of whole runs: policy ordering on the seed's example, determinism,
//! the golden report, event scaling with output length, and conservation.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::api;
use kvfleet::{Config, Policy, Report};

fn run(cfg: &Config) -> Report {
    api::synthetic_simulation(cfg)
        .expect("valid config")
        .into_report()
}

fn seed_example(routing: Policy) -> Config {
    Config {
        routing,
        ..Config::default()
    }
}

#[test]
fn policies_order_as_the_seed_shows() {
    let rr = run(&seed_example(Policy::RoundRobin)).summary;
    let kv = run(&seed_example(Policy::Kv)).summary;
    let pa = run(&seed_example(Policy::PrefixAware)).summary;
    let (prefixes, replicas, n) = (8.0, 4.0, 200.0);
    // round_robin misses about prefixes x replicas requests; prefix_aware about prefixes.
    let rr_misses = n * (1.0 - rr.hit_rate_requests);
    let pa_misses = n * (1.0 - pa.hit_rate_requests);
    assert!(
        (rr_misses - prefixes * replicas).abs() <= 2.0,
        "round_robin missed {rr_misses}"
    );
    assert!(
        (pa_misses - prefixes).abs() <= 2.0,
        "prefix_aware missed {pa_misses}"
    );
    assert!(
        rr.hit_rate_requests <= kv.hit_rate_requests,
        "{} > {}",
        rr.hit_rate_requests,
        kv.hit_rate_requests
    );
    assert!(kv.hit_rate_requests <= pa.hit_rate_requests);
    // Measured with seed 42: 84.0% / 85.0% / 96.0%.
    assert_eq!(rr.hit_rate_requests, 0.84);
    assert_eq!(pa.hit_rate_requests, 0.96);
}

#[test]
fn overlap_weight_dials_reuse_against_balance() {
    let at = |w: f64| {
        run(&Config {
            overlap_weight: w,
            ..Config::default()
        })
        .summary
        .hit_rate_requests
    };
    let (w0, w1, w8) = (at(0.0), at(1.0), at(8.0));
    assert!(w0 <= w1 && w1 < w8, "{w0} {w1} {w8}");
    assert!(w8 >= 0.92, "{w8}");
}

#[test]
fn same_seed_same_bytes_different_seed_different_arrivals() {
    let a = api::run_json(r#"{"seed": 7}"#).unwrap();
    let b = api::run_json(r#"{"seed": 7}"#).unwrap();
    assert_eq!(a, b);
    let c = run(&Config {
        seed: 8,
        ..Config::default()
    });
    let d = run(&Config {
        seed: 7,
        ..Config::default()
    });
    assert_ne!(c.summary.ttft_ms_p50, d.summary.ttft_ms_p50);
    assert_ne!(c.to_json(), d.to_json());
    assert!(a.contains(r#""seed":7"#));
}

#[test]
fn golden_report_of_the_seed_example() {
    let report = run(&Config::default());
    let text = report.to_text();
    let json = report.to_json();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        // Never a blind rewrite: say what changed, then write.
        for (name, new) in [("seed_example.txt", &text), ("seed_example.json", &json)] {
            let path = format!("{dir}/{name}");
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            eprintln!("UPDATE_GOLDEN: {name}:\n{}", golden_diff(name, &old, new));
            std::fs::write(&path, new).unwrap();
        }
    }
    let want_text = std::fs::read_to_string(format!("{dir}/seed_example.txt")).unwrap();
    let want_json = std::fs::read_to_string(format!("{dir}/seed_example.json")).unwrap();
    assert_eq!(
        text, want_text,
        "text report changed; rerun with UPDATE_GOLDEN=1 if intended"
    );
    assert_eq!(
        json, want_json,
        "JSON report changed; rerun with UPDATE_GOLDEN=1 if intended"
    );
    assert!(text.contains("  Fleet: 4 instance(s), routing=kv | prefix pool: 8 prefixes\n"));
    assert!(text.contains("  KV block cache: block_size=512 tok, capacity/instance=unbounded, evictions=0, block-reuse="));
}

/// What changed in a golden file: the JSON's changed values by path, or the text's
/// changed lines; "unchanged" when nothing did.
fn golden_diff(name: &str, old: &str, new: &str) -> String {
    let mut out = Vec::new();
    if name.ends_with(".json") {
        let parse = |t: &str| serde_json::from_str(t).unwrap_or(serde_json::Value::Null);
        json_diff("", &parse(old), &parse(new), &mut out);
    } else {
        let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(i), b.get(i));
            if x != y {
                out.push(format!(
                    "  line {}:\n  - {}\n  + {}",
                    i + 1,
                    x.unwrap_or(&"(none)"),
                    y.unwrap_or(&"(none)")
                ));
            }
        }
    }
    if out.is_empty() {
        "  unchanged".to_string()
    } else {
        format!("{} change(s)\n{}", out.len(), out.join("\n"))
    }
}

/// Appends `path: old -> new` for every leaf where the two JSON values differ.
fn json_diff(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value::{Array, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let null = serde_json::Value::Null;
                let (p, q) = (x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null));
                json_diff(&format!("{path}.{k}"), p, q, out);
            }
        }
        (Array(x), Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                json_diff(&format!("{path}[{i}]"), p, q, out);
            }
        }
        _ if a != b => out.push(format!("  {path}: {a} -> {b}")),
        _ => {}
    }
}

#[test]
fn golden_diff_names_what_changed() {
    let d = golden_diff(
        "r.json",
        r#"{"a":1,"b":[1,2],"c":"x"}"#,
        r#"{"a":1,"b":[1,3],"d":2}"#,
    );
    assert_eq!(
        d,
        "3 change(s)\n  .b[1]: 2 -> 3\n  .c: \"x\" -> null\n  .d: null -> 2"
    );
    let d = golden_diff("r.txt", "same\nold\n", "same\nnew\nmore\n");
    assert_eq!(
        d,
        "2 change(s)\n  line 2:\n  - old\n  + new\n  line 3:\n  - (none)\n  + more"
    );
    assert_eq!(golden_diff("r.txt", "x", "x"), "  unchanged");
}

#[test]
fn a_fully_cached_prompt_on_a_block_boundary_reuses_all_but_its_last_block() {
    // Every prompt is exactly the one 2048-token prefix (4 full blocks), one replica, one
    // request a second (each done long before the next). After the first request
    // computes it, each later one finds all 4 blocks cached but must recompute the last
    // prompt token, so it reuses floor(2047 / 512) = 3 blocks: cached tokens
    // 199 x 3 x 512 of 200 x 2048 prompt tokens = 0.74625.
    let s = run(&Config {
        num_requests: 200,
        request_rate: 1.0,
        arrival_model: kvfleet::ArrivalModel::Deterministic,
        instances: 1,
        num_prefixes: 1,
        input_len: 2048,
        prefix_len: 2048,
        ..Config::default()
    })
    .summary;
    assert_eq!(s.cached_tokens, 199 * 3 * 512);
    assert_eq!(s.hit_rate_tokens, 0.74625);
    assert_eq!(s.hit_requests, 199);
}

#[test]
fn events_grow_with_requests_not_output_tokens() {
    let short = run(&Config {
        output_len: 256,
        ..Config::default()
    })
    .summary;
    let long = run(&Config {
        output_len: 4096,
        ..Config::default()
    })
    .summary;
    assert_eq!(long.output_tokens, 16 * short.output_tokens);
    let ratio = long.events as f64 / short.events as f64;
    assert!(
        ratio < 1.5,
        "events {} -> {} ({ratio:.2}x) for 16x the tokens",
        short.events,
        long.events
    );
}

#[test]
fn every_request_completes_or_is_rejected_once() {
    let cfg = Config {
        kv_blocks: Some(40),
        num_requests: 400,
        request_rate: 40.0,
        range_ratio: 0.5,
        ..Config::default()
    };
    let s = run(&cfg).summary;
    assert_eq!(s.completed + s.rejected, s.requests);
    assert!(s.evictions > 0, "a small cache evicts");
    let per: u64 = run(&cfg).per_instance.iter().map(|p| p.requests).sum();
    assert_eq!(per, 400);
}

#[test]
fn bounded_cache_lowers_reuse_and_evicts() {
    let unbounded = run(&Config {
        num_prefixes: 64,
        num_requests: 600,
        ..Config::default()
    })
    .summary;
    let tight = run(&Config {
        num_prefixes: 64,
        num_requests: 600,
        kv_blocks: Some(60),
        ..Config::default()
    })
    .summary;
    assert_eq!(unbounded.evictions, 0);
    assert!(tight.evictions > 0);
    assert!(tight.hit_rate_requests < unbounded.hit_rate_requests);
}

#[test]
fn cached_prefix_skips_prefill_and_cuts_ttft() {
    let cold = run(&Config {
        num_prefixes: 0,
        request_rate: 1.0,
        ..Config::default()
    })
    .summary;
    let warm = run(&Config {
        num_prefixes: 1,
        request_rate: 1.0,
        prefix_len: 3584,
        ..Config::default()
    })
    .summary;
    assert_eq!(cold.hit_rate_requests, 0.0);
    assert!(warm.hit_rate_requests > 0.9);
    assert!(
        warm.ttft_admit_ms_p50 < 0.5 * cold.ttft_admit_ms_p50,
        "{} vs {}",
        warm.ttft_admit_ms_p50,
        cold.ttft_admit_ms_p50
    );
}

#[test]
fn the_offered_rate_is_arrivals_over_their_span() {
    // Deterministic arrivals at 10 req/s: 200 arrivals 100 ms apart span 19.9 s, and
    // (200 - 1) / 19.9 s = 10 req/s exactly, wherever the first arrival falls.
    let cfg = kvfleet::Config {
        arrival_model: kvfleet::ArrivalModel::Deterministic,
        request_rate: 10.0,
        ..kvfleet::Config::default()
    };
    let s = kvfleet::api::synthetic_simulation(&cfg)
        .unwrap()
        .into_report()
        .summary;
    assert!((s.offered_rate - 10.0).abs() < 1e-9, "{}", s.offered_rate);
    // A replay whose first arrival is at 1 s: arrivals at 1, 2 and 3 s span 2 s, so 1 req/s.
    let requests: Vec<kvfleet::Request> = (0..3u32)
        .map(|i| kvfleet::Request {
            id: i,
            arrival_us: 1_000_000 * (i as u64 + 1),
            prompt_tokens: 100,
            output_tokens: 1,
            block_ids: vec![i as u64].into(),
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect();
    let s = kvfleet::api::replay_simulation(&kvfleet::Config::default(), requests, "three")
        .unwrap()
        .into_report()
        .summary;
    assert!((s.offered_rate - 1.0).abs() < 1e-9, "{}", s.offered_rate);
}
