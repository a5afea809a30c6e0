//! The lessons' goals against the page's sliders: the values a reader can reach by hand
//! (the slider stops `www/js/controls.js` builds from the parameter table, restated here)
//! and the hints that lead to them.

use super::{apply, broken_config, evaluate, lesson};
use crate::api::{self, ParsedTrace};
use crate::params::{specs, ParamSpec};

/// Digits after the point of a step, as the page counts them (`String(step)`).
fn decimals(step: f64) -> usize {
    let s = format!("{step}");
    s.find('.').map_or(0, |i| s.len() - i - 1)
}

/// A value snapped to a multiple of the step (from 0) and kept inside the limits.
fn snap(v: f64, step: f64, min: f64, max: f64) -> f64 {
    let d = decimals(step);
    let out: f64 = format!("{:.*}", d, (v / step).round() * step)
        .parse()
        .unwrap();
    out.clamp(min, max)
}

/// The stops of a slider on the page: min and max, the default, every whole number up to
/// 16, then 1-1.5-2-2.5-3-4-5-6-8 x 10^k and the powers of two. None for a plain slider
/// (every step reachable).
fn slider_stops(p: &ParamSpec) -> Option<Vec<f64>> {
    let float = p.kind.contains("float");
    let step = p.step.unwrap_or(if float { 0.01 } else { 1.0 });
    let (lo, hi) = (p.min?, p.max?.min(9_007_199_254_740_991.0));
    if !p.log && (hi - lo) / step <= if float { 400.0 } else { 64.0 } {
        return None;
    }
    let mut set = vec![lo, hi];
    set.extend(p.default.as_f64());
    let mut add = |v: f64| {
        if v >= lo && v <= hi {
            set.push(snap(v, step, lo, hi));
        }
    };
    if !float {
        (1..=16).for_each(|v| add(v as f64));
    }
    for e in -3..=15 {
        for m in [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0] {
            add(m * 10f64.powi(e));
        }
    }
    (0..50).for_each(|e| add(2f64.powi(e)));
    set.retain(|v| *v >= lo && *v <= hi);
    set.sort_by(f64::total_cmp);
    set.dedup();
    Some(set)
}

/// A whole number as the lessons write it: 30,000.
fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_stops_are_the_pages() {
    let of = |name: &str| slider_stops(&crate::params::spec(name));
    let blocks = of("kv_blocks").unwrap();
    let near: Vec<f64> = blocks
        .iter()
        .copied()
        .filter(|v| (20_000.0..=40_000.0).contains(v))
        .collect();
    assert_eq!(near, [20_000.0, 25_000.0, 30_000.0, 32_768.0, 40_000.0]);
    assert!(of("routers").is_none(), "1 to 64: a plain slider");
    assert_eq!(thousands(32_768), "32,768");
}

/// "Does my traffic reuse anything at all?": its goal (a token hit rate with at most a
/// block budget, on one engine) is met at a stop of the cache slider inside the budget,
/// and the last hint names that stop and the one below it that falls short, so a reader
/// with the slider alone finds it (32,000, the budget, is no stop: the slider goes from
/// 30,000 to 32,768).
#[test]
fn the_reuse_goal_is_met_at_a_slider_stop_the_hint_names() {
    let l = lesson("reuse-at-all").unwrap();
    let budget = l
        .checks
        .iter()
        .find(|c| c.metric == "config.kv_blocks" && c.op == "<=")
        .expect("a block budget")
        .value;
    let all = specs();
    let spec = all.iter().find(|p| p.name == "kv_blocks").unwrap();
    let stops: Vec<f64> = slider_stops(spec)
        .unwrap()
        .into_iter()
        .filter(|v| *v <= budget)
        .collect();
    assert!(!stops.contains(&budget), "the budget is itself a stop");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/conversation_trace.jsonl"
    );
    let trace = ParsedTrace::parse(&std::fs::read_to_string(path).unwrap(), l.trace, 512).unwrap();
    let met = |blocks: f64| {
        let cfg = apply(
            &broken_config(&l),
            &serde_json::json!({ "kv_blocks": blocks as u64 }),
        )
        .unwrap();
        let report = api::report_of(&cfg, Some(&trace)).unwrap();
        evaluate(&l, &report).iter().all(|c| c.met)
    };
    // The largest stop inside the budget meets the goal; the stop below it does not.
    let (top, below) = (stops[stops.len() - 1], stops[stops.len() - 2]);
    assert!(met(top), "{top} blocks miss the goal");
    assert!(
        !met(below),
        "{below} blocks meet the goal too: the hint is out of date"
    );
    let hint = l.hints.last().unwrap();
    for v in [top, below] {
        let words = format!("{} blocks", thousands(v as u64));
        assert!(
            hint.contains(&thousands(v as u64)),
            "the last hint does not name the stop {words}: {hint}"
        );
    }
}
