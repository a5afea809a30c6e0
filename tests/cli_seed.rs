//! `--seed random`: a seed drawn from the system, printed in the report, that repeats the
//! run byte for byte when given back as `--seed N`; a bad seed names what is allowed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::kvfleet;

/// The seed the text report's first line prints ("..., seed N").
fn printed_seed(out: &str) -> u64 {
    let first = out.lines().next().unwrap_or_default();
    first
        .rsplit_once("seed ")
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no seed on the first line: {first:?}"))
}

/// The JSON report of a short run with `seed` (as given on the command line).
fn report_json(seed: &str) -> String {
    let (code, out, err) = kvfleet(&[
        "--seed",
        seed,
        "--des-num-requests",
        "300",
        "--des-report-json",
        "-",
    ]);
    assert_eq!(code, 0, "--seed {seed}: {err}");
    out
}

#[test]
fn seed_random_draws_a_printed_seed_that_repeats_the_run() {
    let run = |seed: &str| {
        let (code, out, err) = kvfleet(&["--seed", seed, "--des-num-requests", "300"]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let first = printed_seed(&run("random"));
    let second = printed_seed(&run("random"));
    assert_ne!(first, second, "two draws gave the same seed");
    assert!(first <= 1 << 53 && second <= 1 << 53);

    // The printed seed, given back, repeats the run: the text and the JSON.
    let again = run(&first.to_string());
    assert_eq!(printed_seed(&again), first);
    let json = report_json(&first.to_string());
    let value: serde_json::Value = serde_json::from_str(&json).expect("the report is JSON");
    assert_eq!(
        value["seed"].as_u64(),
        Some(first),
        "the JSON names the seed"
    );
    assert!(
        json == report_json(&first.to_string()),
        "same seed, different JSON"
    );
    assert!(
        json != report_json("42"),
        "the drawn seed made no difference"
    );
}

#[test]
fn a_seed_that_is_not_a_number_names_what_is_allowed() {
    let (code, out, err) = kvfleet(&["--seed", "nope"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("'nope'") && err.contains("--seed"), "{err}");
    assert!(
        err.contains("whole number from 0 to 9007199254740992") && err.contains("`random`"),
        "{err}"
    );
}
