//! The CLI's text report under an autoscaler: its fleet line names the replicas ready over
//! the run, the scaler, the starting size and the bounds; a fixed fleet's line keeps the
//! seed's form.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{kvfleet, tmp};

/// The fleet line (the first line starting "  Fleet: ") of a text report.
fn fleet_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("  Fleet: "))
        .expect("a fleet line")
}

#[test]
fn an_autoscaled_fleet_line_names_the_replicas_ready_over_the_run() {
    let json = tmp("autoscale-fleet.json");
    let (code, out, err) = kvfleet(&[
        "--request-rate-schedule",
        "0s:4,60s:20,150s:4",
        "--des-num-requests",
        "2400",
        "--des-instances",
        "2",
        "--des-autoscale",
        "kpa",
        "--des-max-instances",
        "8",
        "--des-report-json",
        &json,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    // The ready replicas over the run, from the JSON's books: 2 at the start, then the
    // ready count after each change.
    let ready: Vec<u64> = std::iter::once(2)
        .chain(
            v["autoscale"]["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["ready"].as_u64().unwrap()),
        )
        .collect();
    let (lo, hi) = (*ready.iter().min().unwrap(), *ready.iter().max().unwrap());
    // The run scales down to the lower bound in the quiet start and up to the upper one in
    // the step: the line's range is not the starting size.
    assert_eq!((lo, hi), (1, 8), "{ready:?}");
    // ...and agrees with the ready replicas sampled in the series.
    let sampled: Vec<u64> = v["series"]["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(
        (sampled.iter().min(), sampled.iter().max()),
        (Some(&lo), Some(&hi))
    );
    assert_eq!(
        fleet_line(&out),
        "  Fleet: 1 to 8 instance(s) ready (autoscaler kpa, started at 2, bounds 1–8), routing=kv | prefix pool: 8 prefixes"
    );
    assert_eq!(
        v["fleet_lines"][0].as_str(),
        Some(fleet_line(&out)),
        "the JSON carries the same line"
    );
}

#[test]
fn an_autoscaled_fleet_that_never_changes_says_so_and_a_fixed_fleet_keeps_the_seed_s_line() {
    // A steady 2 req/s on 3 replicas that may neither shrink nor grow.
    let base = [
        "--request-rate",
        "2",
        "--des-num-requests",
        "100",
        "--des-instances",
        "3",
    ];
    let pinned = [
        &base[..],
        &[
            "--des-autoscale",
            "slo",
            "--des-min-instances",
            "3",
            "--des-max-instances",
            "3",
        ],
    ]
    .concat();
    let (code, out, err) = kvfleet(&pinned);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fleet_line(&out),
        "  Fleet: 3 instance(s) ready throughout (autoscaler slo, bounds 3–3), routing=kv | prefix pool: 8 prefixes"
    );
    let (code, out, err) = kvfleet(&base);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fleet_line(&out),
        "  Fleet: 3 instance(s), routing=kv | prefix pool: 8 prefixes"
    );
}
