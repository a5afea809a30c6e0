//! Runs over K seeds: the report is the first seed's run, and each figure's spread is the
//! one the separate runs give, computed here by hand from their values.

use super::*;
use crate::noise::text;

fn small() -> Config {
    Config {
        num_requests: 60,
        instances: 3,
        seed: 7,
        ..Config::default()
    }
}

/// Three seeds: seeds 7, 8, 9; the report's own figures are seed 7's one-seed run; the
/// token hit rate's mean, bounds and interval are those of the three separate runs
/// (mean ± 4.30265273 · s / √3, t for 2 degrees of freedom).
#[test]
fn three_seeds_report_the_separate_runs_spread() {
    let cfg = small();
    let report = synthetic_seeds(&cfg, 3).unwrap();
    let one = run::synthetic_simulation(&cfg).unwrap().into_report();
    assert_eq!(
        serde_json::to_string(&report.summary).unwrap(),
        serde_json::to_string(&one.summary).unwrap()
    );
    let seeds = report.seeds.as_ref().expect("a seeds section");
    assert_eq!(seeds.seeds, vec![7, 8, 9]);
    let xs: Vec<f64> = (7..10)
        .map(|seed| {
            let c = Config {
                seed,
                ..cfg.clone()
            };
            run::synthetic_simulation(&c)
                .unwrap()
                .into_report()
                .summary
                .hit_rate_tokens
        })
        .collect();
    let mean = (xs[0] + xs[1] + xs[2]) / 3.0;
    let ss: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
    let half = 4.30265273 * (ss / 2.0).sqrt() / 3f64.sqrt();
    let s = &seeds.summary["hit_rate_tokens"];
    assert_eq!(s.values, xs);
    assert!((s.mean - mean).abs() < 1e-12);
    assert!((s.ci95_low - (mean - half)).abs() < 1e-9, "{s:?} {half}");
    assert!((s.ci95_high - (mean + half)).abs() < 1e-9);
    assert!(
        xs[0] != xs[1] || xs[1] != xs[2],
        "the seeds vary the workload: {xs:?}"
    );
    assert!(!seeds.summary.contains_key("seed") && !seeds.summary.contains_key("hot_spot"));
    assert!(seeds.summary.contains_key("ttft_ms_p99") && seeds.summary.contains_key("rejected"));
}

/// One seed: no section, the one-seed report byte for byte.
#[test]
fn one_seed_has_no_section() {
    let cfg = small();
    let report = synthetic_seeds(&cfg, 1).unwrap();
    assert!(report.seeds.is_none());
    let one = run::synthetic_simulation(&cfg).unwrap().into_report();
    assert_eq!(report.to_json(), one.to_json());
}

/// The same config and seed give the same K-seed report, byte for byte.
#[test]
fn a_k_seed_report_repeats() {
    let a = synthetic_seeds(&small(), 4).unwrap().to_json();
    let b = synthetic_seeds(&small(), 4).unwrap().to_json();
    assert_eq!(a, b);
    assert!(
        a.contains("\"seeds\":{\"seeds\":[7,8,9,10]"),
        "{}",
        &a[a.len() - 300..]
    );
}

/// A count out of range, or seeds past 2^53, is refused with the flag named.
#[test]
fn bad_counts_are_refused() {
    assert!(synthetic_seeds(&small(), 0)
        .unwrap_err()
        .starts_with("--des-seeds"));
    let far = Config {
        seed: crate::params::MAX_SEED,
        ..small()
    };
    assert!(synthetic_seeds(&far, 2)
        .unwrap_err()
        .starts_with("--seed: invalid seed with --des-seeds 2"));
}

/// A replay's seeds vary only the router's draws: round robin draws none, so every seed
/// gives the same figures and the text says so; random draws, so its hit rate moves.
#[test]
fn a_replay_varies_only_the_routers_draws() {
    let requests: Vec<Request> =
        crate::workload::Synthetic::new(&small(), crate::params::validate(&small()).unwrap())
            .collect();
    let rr = replay_seeds(&small(), &requests, "t.jsonl", 3).unwrap();
    let s = rr.seeds.as_ref().unwrap();
    assert!(s.varies.starts_with("only the router's random draws"));
    assert!(s.summary.values().all(Spread::constant));
    assert!(rr.to_text().contains("Every seed gave the same figures"));
    let cfg = Config {
        routing: crate::Policy::Random,
        ..small()
    };
    let random = replay_seeds(&cfg, &requests, "t.jsonl", 3).unwrap();
    let s = random.seeds.as_ref().unwrap();
    assert!(
        !s.summary["hit_rate_tokens"].constant(),
        "{:?}",
        s.summary["hit_rate_tokens"]
    );
    assert!(!random
        .to_text()
        .contains("Every seed gave the same figures"));
}

/// The text, on hand-made values: hit rates 0.40, 0.41, 0.42 (mean 41.0%, half-width
/// 2.48414 points), p99 TTFT 200, 210, 220 ms (mean 210, half-width 24.8414 ms).
#[test]
fn the_text_prints_mean_half_width_and_range() {
    let mut summary = BTreeMap::new();
    summary.insert(
        "hit_rate_tokens".to_string(),
        noise::spread(&[0.40, 0.41, 0.42]),
    );
    summary.insert(
        "ttft_ms_p99".to_string(),
        noise::spread(&[200.0, 210.0, 220.0]),
    );
    // 143.8, 144.0, 144.2: half-width 4.30265273 × 0.2 / √3 = 0.497 ms, printed as 0.5.
    summary.insert(
        "ttft_ms_p50".to_string(),
        noise::spread(&[143.8, 144.0, 144.2]),
    );
    let s = SeedsReport {
        seeds: vec![42, 43, 44],
        varies: "everything".to_string(),
        summary,
    };
    let t = text::render(&s);
    assert!(t.starts_with("  Over 3 seeds (42 to 44; the figures above are seed 42's): mean ± half-width of the\n  95% interval (Student t, 2 degrees of freedom), then min–max\n"), "{t}");
    assert!(
        t.contains("    token hit rate     41.0 ± 2.5% (40.0–42.0%)\n"),
        "{t}"
    );
    assert!(
        t.contains("    TTFT p99           210 ± 25 ms (200–220 ms)\n"),
        "{t}"
    );
    assert!(
        t.contains("    TTFT p50           144 ± 0.5 ms (144–144 ms)\n"),
        "{t}"
    );
    assert!(t.contains("  The seeds vary everything.\n"));
    assert!(!t.contains("same figures"));
}
