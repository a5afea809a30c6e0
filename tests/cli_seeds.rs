//! `--des-seeds K`: K runs on seeds --seed .. --seed + K - 1, the report the first one's
//! with each summary figure's spread in the JSON's `seeds` section and in the text; the
//! spread is the one the separate one-seed runs give, computed here by hand.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::kvfleet;
use serde_json::Value;

const SMALL: [&str; 4] = ["--des-num-requests", "150", "--des-instances", "3"];

/// The JSON report of a run with `extra` flags.
fn report(extra: &[&str]) -> Value {
    let mut args: Vec<&str> = SMALL.to_vec();
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--des-report-json", "-", "-q"]);
    let (code, out, err) = kvfleet(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// Three seeds from 42: the section's seeds are 42, 43, 44; its token hit rate is the three
/// one-seed runs' values, their mean, and mean ± t(0.975, 2) · s / √3 with t = 4.30265273;
/// the rest of the report is seed 42's run.
#[test]
fn three_seeds_give_the_separate_runs_mean_and_interval() {
    let many = report(&["--seed", "42", "--des-seeds", "3"]);
    let seeds = &many["seeds"];
    assert_eq!(seeds["seeds"], serde_json::json!([42, 43, 44]));
    let xs: Vec<f64> = ["42", "43", "44"]
        .iter()
        .map(|s| {
            report(&["--seed", s])["summary"]["hit_rate_tokens"]
                .as_f64()
                .unwrap()
        })
        .collect();
    let mean = xs.iter().sum::<f64>() / 3.0;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.30265273 * sd / 3f64.sqrt();
    let h = &seeds["summary"]["hit_rate_tokens"];
    let got: Vec<f64> = h["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(got, xs);
    assert!((h["mean"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert!((h["ci95_low"].as_f64().unwrap() - (mean - half)).abs() < 1e-9);
    assert!((h["ci95_high"].as_f64().unwrap() - (mean + half)).abs() < 1e-9);
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(h["min"].as_f64().unwrap(), lo);
    let one = report(&["--seed", "42"]);
    assert_eq!(many["summary"], one["summary"]);
    assert!(one.get("seeds").is_none(), "one seed has no section");
}

/// The same flags give the same bytes, and the text prints the section.
#[test]
fn a_k_seed_run_repeats_and_prints_its_spread() {
    let args: Vec<&str> = [&SMALL[..], &["--des-seeds", "4", "-q"]].concat();
    let (code, a, err) = kvfleet(&args);
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = kvfleet(&args);
    assert_eq!(a, b);
    assert!(
        a.contains("  Over 4 seeds (42 to 45; the figures above are seed 42's)"),
        "{a}"
    );
    assert!(a.contains("    token hit rate     "), "{a}");
}

/// A replay under round robin draws nothing at random: every seed gives the same figures,
/// and the text says so.
#[test]
fn a_replay_that_draws_nothing_says_every_seed_is_the_same() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mooncake_small.jsonl"
    );
    let (code, out, err) = kvfleet(&[
        "--des-mooncake-trace",
        trace,
        "--des-routing",
        "round_robin",
        "--des-seeds",
        "3",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("The seeds vary only the router's random draws"),
        "{out}"
    );
    assert!(out.contains("Every seed gave the same figures"), "{out}");
}

/// Bad counts, seeds past 2^53 and one-run outputs are refused, with the flag named.
#[test]
fn bad_seed_counts_are_refused() {
    let cases: [(&[&str], &str); 4] = [
        (&["--des-seeds", "0"], "error: --des-seeds: invalid count: got 0; allowed: 1 to 16"),
        (&["--des-seeds", "17"], "error: --des-seeds: invalid count: got 17; allowed: 1 to 16"),
        (
            &["--des-seeds", "2", "--seed", "9007199254740992"],
            "error: --seed: invalid seed with --des-seeds 2: got 9007199254740992",
        ),
        (
            &["--des-seeds", "2", "--des-sweep", "instances=1,2"],
            "error: --des-seeds 2 and --des-sweep do not combine (--des-sweep runs one seed per value)",
        ),
    ];
    for (flags, want) in cases {
        let args: Vec<&str> = [&SMALL[..], flags].concat();
        let (code, _, err) = kvfleet(&args);
        assert_ne!(code, 0, "{flags:?}");
        assert!(err.starts_with(want), "{flags:?}: {err}");
    }
}
