#![cfg(not(target_arch = "wasm32"))]
//! SLO attainment over time (`series.slo_attained` and the "Over time" table's "SLO met"),
//! worked by hand on one replica that serves one request at a time.
//!
//! The run: a custom engine whose every step costs 20 ms (prompt and decode free), one
//! concurrency slot, deterministic arrivals every 10 ms. Request i arrives at 10·i ms and
//! starts when its predecessor is done, at 20·i ms (output 1 token: one step each), so
//! its first token, and its end, come at 20·i + 20 ms: TTFT 10·i + 20 ms. With a 55 ms
//! target, requests 0 to 3 (TTFT 20, 30, 40, 50 ms) meet it and 4 to 9 (60 to 110 ms) do
//! not. The series' grid is 10 ms and a window ending at t holds what finished in
//! (t - 10 ms, t], so the window ending at 20·i + 20 ms holds request i alone.

use kvfleet::config::{ArrivalModel, Autoscale, Config};
use kvfleet::report::Report;
use kvfleet::timing::EnginePreset;

fn one_at_a_time(output_len: u32) -> Config {
    Config {
        instances: 1,
        engine: EnginePreset::Custom,
        step_fixed_us: 20_000.0,
        prefill_token_us: 0.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        max_batch: 1,
        arrival_model: ArrivalModel::Deterministic,
        request_rate: 100.0,
        num_requests: 10,
        input_len: 64,
        prefix_len: 32,
        range_ratio: 0.0,
        output_len,
        ..Config::default()
    }
}

fn run(cfg: &Config) -> Report {
    kvfleet::run::synthetic_simulation(cfg)
        .unwrap()
        .into_report()
}

/// The hand-worked column: `null` at 0 and in every window no request finished in, 1 in
/// the windows ending at 20, 40, 60 and 80 ms (requests 0 to 3), 0 in those ending at
/// 100 to 200 ms.
#[test]
fn each_window_counts_the_requests_it_finished_that_met_the_ttft_target() {
    let cfg = Config {
        slo_ttft_ms: Some(55.0),
        ..one_at_a_time(1)
    };
    let r = run(&cfg);
    let s = &r.series;
    let want_t_ms: Vec<u64> = (0..=20).map(|k| k * 10).collect();
    let got_t_ms: Vec<u64> = s.t_s.iter().map(|t| (t * 1000.0).round() as u64).collect();
    assert_eq!(got_t_ms, want_t_ms, "a 10 ms grid to the last completion");
    let want: Vec<Option<f64>> = want_t_ms
        .iter()
        .map(|&t| match t {
            20 | 40 | 60 | 80 => Some(1.0),
            100..=200 if t % 20 == 0 => Some(0.0),
            _ => None,
        })
        .collect();
    assert_eq!(s.slo_attained, want);
    // Over the run: 4 of the 10 requests, in the summary and the text's line.
    assert_eq!(r.summary.slo_attained, Some(0.4));
    let text = kvfleet::report::text::render(&r);
    assert!(
        text.contains("\n  SLO attained: 40.0% of the 10 completed requests had TTFT ≤ 55.0 ms\n"),
        "{text}"
    );
}

/// The run's TTFTs straddle the target the other way: at 75 ms, requests 0 to 5 meet it.
#[test]
fn a_higher_target_moves_the_boundary_by_the_requests_it_admits() {
    let cfg = Config {
        slo_ttft_ms: Some(75.0),
        ..one_at_a_time(1)
    };
    let met = run(&cfg)
        .series
        .slo_attained
        .iter()
        .filter(|x| **x == Some(1.0))
        .count();
    assert_eq!(met, 6, "TTFT 20 to 70 ms are within 75 ms");
}

/// Two output tokens: each request takes two 20 ms steps, so its TPOT (one gap) is 20 ms.
/// A 20 ms ITL target is met (at most), 19 ms is missed by every request, whatever TTFT.
#[test]
fn the_itl_target_holds_each_requests_tpot() {
    for (itl_ms, want) in [(20.0, 1.0), (19.0, 0.0)] {
        let cfg = Config {
            slo_itl_ms: Some(itl_ms),
            ..one_at_a_time(2)
        };
        let s = run(&cfg).series;
        let shares: Vec<f64> = s.slo_attained.iter().flatten().copied().collect();
        assert_eq!(
            shares.len(),
            10,
            "ITL {itl_ms} ms: one window per completion"
        );
        assert!(
            shares.iter().all(|&x| x == want),
            "ITL {itl_ms} ms: {shares:?}"
        );
    }
}

/// No target, no column: the JSON has no `slo_attained` key (not a null).
#[test]
fn without_a_target_the_series_has_no_attainment() {
    let r = run(&one_at_a_time(1));
    assert!(r.series.slo_attained.is_empty());
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["series"].get("slo_attained").is_none());
}

/// The `slo` scaler's targets are the attainment's, defaults included (500 ms, 50 ms):
/// every request of this run meets them.
#[test]
fn the_slo_scalers_targets_count_without_being_set() {
    let cfg = Config {
        autoscale: Autoscale::Slo,
        ..one_at_a_time(1)
    };
    let s = run(&cfg).series;
    let shares: Vec<f64> = s.slo_attained.iter().flatten().copied().collect();
    assert!(
        !shares.is_empty() && shares.iter().all(|&x| x == 1.0),
        "{shares:?}"
    );
}

/// The text table merges windows exactly: under a flat schedule at 100/s the 20 windows
/// fit in 10 rows of 20 ms, each holding one completion: the first four rows 100 %, the
/// rest 0 %.
#[test]
fn the_over_time_table_has_a_slo_met_column() {
    let cfg = Config {
        slo_ttft_ms: Some(55.0),
        request_rate_schedule: "0s:100".to_string(),
        ..one_at_a_time(1)
    };
    let text = kvfleet::report::text::render(&run(&cfg));
    assert!(
        text.contains("SLO met: of those, the share with TTFT ≤ 55.0 ms."),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("SLO met") || !l.contains("from"))
        .skip(1)
        .take(10)
        .collect();
    let met: Vec<&str> = rows
        .iter()
        .map(|l| l.split_whitespace().last().unwrap())
        .collect();
    let mut want = vec!["100.0%"; 4];
    want.extend(["0.0%"; 6]);
    assert_eq!(met, want, "{text}");
}
