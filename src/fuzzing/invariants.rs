//! The accounting invariants every run must keep, checked from its outputs alone (the
//! report, its JSON and the decision log), never from the engine's own predicates:
//! every request ends exactly once, the per-replica rows add up, a split fleet's pools
//! balance (`pools`), the preemption counts (`preemption`), the CPU tier's (`tier`), the shared tier's (`shared`), the queue peaks, the routing capture, rates, quantiles, nulls only
//! where due, and the decision log's rules (`decision_rules`). Each check panics with
//! what broke, the seed and the config.

use serde_json::Value;

use crate::config::{Autoscale, Config};
use crate::report::Report;
use crate::sim::Decision;

use super::decision_rules::decision_log;
use super::ensure::ensure;
use super::pools::pools;
use super::preemption::preemption;
use super::shared::shared_tier;
use super::slo::slo_attained;
use super::tier::cpu_tier;

/// Checks `report` (and its `json`, and the decision log when given) of a run of `cfg`.
pub fn check_report(cfg: &Config, report: &Report, json: &str, decisions: Option<&[Decision]>) {
    let fail = |what: String| -> ! {
        panic!(
            "invariant broken: {what}\n  seed {}, config {}",
            cfg.seed,
            serde_json::to_string(cfg).unwrap_or_default()
        )
    };
    if let Err(what) = accounting(report)
        .and_then(|_| pools(cfg, report))
        .and_then(|_| queue_peaks(report))
        .and_then(|_| routing_capture(cfg, report, decisions))
        .and_then(|_| preemption(cfg, report, decisions))
        .and_then(|_| cpu_tier(cfg, report))
        .and_then(|_| shared_tier(cfg, report))
        .and_then(|_| slo_attained(cfg, report))
        .and_then(|_| rates(report))
        .and_then(|_| quantiles(report))
        .and_then(|_| numbers_where_due(json))
        .and_then(|_| decisions.map_or(Ok(()), |d| decision_log(cfg, report, d)))
    {
        fail(what);
    }
}

/// Every request ends exactly once, and the per-replica rows add up to the fleet (in a
/// split fleet a transfer that is not late arrives at a second replica).
fn accounting(r: &Report) -> Result<(), String> {
    let s = &r.summary;
    ensure(r.unended.is_none(), || {
        format!("not every request ended exactly once: {:?}", r.unended)
    })?;
    let ended = s.completed + s.rejected + s.timed_out;
    ensure(ended == s.requests, || {
        format!(
            "requests {} != completed {} + rejected {} + timed out {}",
            s.requests, s.completed, s.rejected, s.timed_out
        )
    })?;
    let rows = &r.per_instance;
    // A request refused at a full router queue, or timed out there, never reaches a
    // replica.
    let at_router = r.router_cpu.as_ref().map_or(0, |c| c.rejected);
    let late_at_router = r.router_cpu.as_ref().map_or(0, |c| c.timed_out);
    let sum = |f: fn(&crate::report::InstanceReport) -> u64| rows.iter().map(f).sum::<u64>();
    for (name, per, fleet) in [
        (
            "requests",
            sum(|p| p.requests),
            s.requests + second_arrivals(r) - at_router - late_at_router,
        ),
        ("rejected", sum(|p| p.rejected) + at_router, s.rejected),
        (
            "timed_out",
            sum(|p| p.timed_out) + late_at_router,
            s.timed_out,
        ),
        ("prompt_tokens", sum(|p| p.prompt_tokens), s.prompt_tokens),
        ("cached_tokens", sum(|p| p.cached_tokens), s.cached_tokens),
        ("evictions", sum(|p| p.evictions), s.evictions),
    ] {
        ensure(per == fleet, || {
            format!("per-replica {name} sum to {per}, the fleet has {fleet}")
        })?;
    }
    ensure(s.cached_tokens <= s.prompt_tokens, || {
        format!(
            "cached {} > prompt {} tokens",
            s.cached_tokens, s.prompt_tokens
        )
    })?;
    ensure(s.cached_blocks <= s.prompt_blocks, || {
        format!(
            "cached {} > prompt {} blocks",
            s.cached_blocks, s.prompt_blocks
        )
    })?;
    for p in rows {
        ensure(p.cached_tokens <= p.prompt_tokens, || {
            format!("replica {}: cached > prompt tokens", p.index)
        })?;
    }
    router_cpu(r)?;
    if let Some(t) = &r.sessions {
        ensure(t.completed_tasks + t.failed_tasks <= t.tasks, || {
            format!(
                "{} + {} tasks ended of {}",
                t.completed_tasks, t.failed_tasks, t.tasks
            )
        })?;
    }
    Ok(())
}

/// A router with cores routes or refuses every request once, and its cores are busy at
/// most all the time.
fn router_cpu(r: &Report) -> Result<(), String> {
    let Some(c) = &r.router_cpu else {
        return Ok(());
    };
    ensure(
        c.routed + c.rejected + c.timed_out == r.summary.requests,
        || {
            format!(
                "routed {} + refused {} + timed out at the router {} != requests {}",
                c.routed, c.rejected, c.timed_out, r.summary.requests
            )
        },
    )?;
    for (k, b) in c.busy_share.iter().enumerate() {
        ensure(b.is_nan() || (0.0..=1.0 + 1e-9).contains(b), || {
            format!("router {k}: busy share {b} outside 0..1")
        })?;
    }
    ensure(c.busy_share.len() == r.config.routers as usize, || {
        format!(
            "{} busy shares for {} routers",
            c.busy_share.len(),
            r.config.routers
        )
    })
}

/// Requests that arrived at a second replica: a split fleet's transfers that were not
/// late.
fn second_arrivals(r: &Report) -> u64 {
    r.pools
        .as_ref()
        .map_or(0, |p| p.transfers.count.saturating_sub(p.transfers.late))
}

/// The time series' queue peaks agree with the per-replica table: each replica's highest
/// `queue_peak` is its `peak_queue`, and no window's peak is below the depth sampled at
/// its end. (The chart and its sentences read `queue_peak`; the table reads the engine.)
fn queue_peaks(r: &Report) -> Result<(), String> {
    let s = &r.series;
    for p in &r.per_instance {
        let i = p.index as usize;
        let (peaks, depths) = (&s.queue_peak[i], &s.queue[i]);
        let top = peaks.iter().copied().max().unwrap_or(0);
        ensure(top == p.peak_queue, || {
            format!(
                "replica {i}: the series' longest queue is {top}, the table's peak_queue {}",
                p.peak_queue
            )
        })?;
        ensure(peaks.len() == depths.len(), || {
            format!(
                "replica {i}: {} peaks for {} samples",
                peaks.len(),
                depths.len()
            )
        })?;
        if let Some(k) = (0..peaks.len()).find(|&k| peaks[k] < depths[k]) {
            return Err(format!(
                "replica {i}, sample {k}: window peak {} below the depth {} at its end",
                peaks[k], depths[k]
            ));
        }
    }
    Ok(())
}

/// The picks' cache counts: the picked replica never held more than the best-placed one,
/// the capture is their ratio, a fleet of one always picks its best, and with the whole
/// decision log the two sums are its chosen and its best candidates' true hit blocks.
fn routing_capture(cfg: &Config, r: &Report, d: Option<&[Decision]>) -> Result<(), String> {
    let s = &r.summary;
    let (pick, best) = (s.pick_hit_blocks, s.best_hit_blocks);
    ensure(pick <= best, || {
        format!("pick_hit_blocks {pick} > best_hit_blocks {best}")
    })?;
    let evicted = s.evicted_after_pick_blocks;
    ensure(evicted <= pick, || {
        format!("evicted_after_pick_blocks {evicted} > pick_hit_blocks {pick}")
    })?;
    ensure(cfg.kv_blocks.is_some() || evicted == 0, || {
        format!("{evicted} blocks evicted after their pick from an unbounded cache")
    })?;
    let want = pick as f64 / best as f64;
    ensure(
        (best == 0 && s.routing_capture.is_nan()) || s.routing_capture == want,
        || format!("routing_capture {} for {pick} of {best}", s.routing_capture),
    )?;
    // An autoscaled fleet that starts with one replica may grow.
    let scaled = cfg.autoscale != Autoscale::Off;
    let alone = cfg.instances == 1 && cfg.prefill_instances.is_none() && !scaled;
    ensure(!alone || pick == best, || {
        format!("one replica, yet its picks held {pick} of the best {best} blocks")
    })?;
    let Some(d) = d.filter(|d| d.len() as u64 == s.requests) else {
        return Ok(());
    };
    let held = |x: &Decision, r: usize| x.candidates[r].true_hit_blocks as u64;
    let logged_pick: u64 = d.iter().map(|x| held(x, x.chosen as usize)).sum();
    let logged_best: u64 = d
        .iter()
        .map(|x| {
            (0..x.candidates.len())
                .map(|r| held(x, r))
                .max()
                .unwrap_or(0)
        })
        .sum();
    // The summary's best is over the replicas taking requests; the log's candidates also
    // hold an autoscaled fleet's starting and draining replicas, so there it may be more.
    let best_agrees = logged_best == best || (scaled && logged_best > best);
    ensure(logged_pick == pick && best_agrees, || {
        format!("the log's picks held {logged_pick} of {logged_best} blocks, the summary says {pick} of {best}")
    })
}

fn share(name: &str, x: f64) -> Result<(), String> {
    ensure((0.0..=1.0 + 1e-12).contains(&x), || {
        format!("{name} = {x}, not in [0, 1]")
    })
}

/// A statistic that is `due` (it has samples) is a fraction; one over nothing is NaN
/// (`null` in the JSON), never a made-up number.
fn share_or_none(name: &str, x: f64, due: bool) -> Result<(), String> {
    if due {
        share(name, x)
    } else {
        ensure(x.is_nan(), || {
            format!("{name} = {x} over no samples (must be null)")
        })
    }
}

/// Hit rates and busy shares are fractions, or null exactly when nothing was measured.
fn rates(r: &Report) -> Result<(), String> {
    let s = &r.summary;
    let admitted = s.admitted > 0;
    for (name, x) in [
        ("hit_rate_requests", s.hit_rate_requests),
        ("hit_rate_tokens", s.hit_rate_tokens),
        ("block_reuse", s.block_reuse),
        ("hit_rate_instance_min", s.hit_rate_instance_min),
        ("hit_rate_instance_max", s.hit_rate_instance_max),
    ] {
        share_or_none(name, x, admitted)?;
    }
    ensure(
        !admitted || s.hit_rate_instance_min <= s.hit_rate_instance_max,
        || "per-instance min hit rate above the max".to_string(),
    )?;
    let timed = s.makespan_s > 0.0;
    for p in &r.per_instance {
        let a = p.admitted > 0;
        share_or_none("per-replica hit_rate_requests", p.hit_rate_requests, a)?;
        share_or_none("per-replica hit_rate_tokens", p.hit_rate_tokens, a)?;
        share_or_none("per-replica busy_share", p.busy_share, timed)?;
        share_or_none("per-replica saturated_share", p.saturated_share, timed)?;
        ensure(!timed || p.saturated_share <= p.busy_share + 1e-12, || {
            format!("replica {}: saturated longer than busy", p.index)
        })?;
        share_or_none("per-replica kv_wait_share", p.kv_wait_share, timed)?;
        ensure(!timed || p.kv_wait_share <= p.busy_share + 1e-12, || {
            format!("replica {}: waited for KV longer than busy", p.index)
        })?;
        // Over busy time, null exactly when never busy; a step runs 1 to max_batch requests.
        let slots = r.config.max_batch as f64;
        let busy = timed && p.busy_share > 0.0;
        ensure(p.batch_mean.is_nan() != busy, || {
            format!(
                "replica {}: batch_mean {} with busy_share {}",
                p.index, p.batch_mean, p.busy_share
            )
        })?;
        ensure(
            !busy || (1.0 - 1e-9..=slots + 1e-9).contains(&p.batch_mean),
            || {
                format!(
                    "replica {}: ran {} at once on {slots} slots",
                    p.index, p.batch_mean
                )
            },
        )?;
    }
    let series = r
        .series
        .hit_rate
        .iter()
        .flatten()
        .chain(&r.series.hit_rate_fleet);
    for x in series.flatten() {
        share("series hit rate", *x)?;
    }
    if let Some(t) = &r.sessions {
        // A turn no task reached (every task failed before it) has no rate.
        for x in t.hit_rate_by_turn.iter().chain(&t.token_hit_rate_by_turn) {
            share_or_none("hit rate by turn", *x, !x.is_nan())?;
        }
    }
    Ok(())
}

/// p50 <= p90 <= p99 for every latency, means >= 0, and the CDFs never fall.
fn quantiles(r: &Report) -> Result<(), String> {
    let s = &r.summary;
    for (name, q) in [
        (
            "ttft",
            [s.ttft_ms_mean, s.ttft_ms_p50, s.ttft_ms_p90, s.ttft_ms_p99],
        ),
        (
            "ttft_admit",
            [
                s.ttft_admit_ms_mean,
                s.ttft_admit_ms_p50,
                s.ttft_admit_ms_p90,
                s.ttft_admit_ms_p99,
            ],
        ),
        (
            "queue",
            [
                s.queue_ms_mean,
                s.queue_ms_p50,
                s.queue_ms_p90,
                s.queue_ms_p99,
            ],
        ),
        (
            "tpot",
            [s.tpot_ms_mean, s.tpot_ms_p50, s.tpot_ms_p90, s.tpot_ms_p99],
        ),
        (
            "itl",
            [s.itl_ms_mean, s.itl_ms_p50, s.itl_ms_p90, s.itl_ms_p99],
        ),
        (
            "e2e",
            [s.e2e_ms_mean, s.e2e_ms_p50, s.e2e_ms_p90, s.e2e_ms_p99],
        ),
    ] {
        // Over no completed request (or no inter-token gap) every figure is null.
        let gaps = s.output_tokens > s.completed;
        let due = s.completed > 0 && (gaps || !matches!(name, "tpot" | "itl"));
        if !due {
            ensure(q.iter().all(|x| x.is_nan()) || s.completed > 0, || {
                format!("{name}: numbers over no completed request (must be null)")
            })?;
            continue;
        }
        ensure(q.iter().all(|x| x.is_finite()), || {
            format!("{name}: null although {} requests completed", s.completed)
        })?;
        ensure(q[0] >= 0.0 && q[1] >= 0.0, || format!("{name}: negative"))?;
        ensure(q[1] <= q[2] && q[2] <= q[3], || {
            format!(
                "{name}: p50 {} p90 {} p99 {} not monotone",
                q[1], q[2], q[3]
            )
        })?;
    }
    task_times(r)?;
    let c = &r.latency_cdf;
    for (name, v) in [("q", &c.q), ("ttft_ms", &c.ttft_ms), ("e2e_ms", &c.e2e_ms)] {
        ensure(v.windows(2).all(|w| w[0] <= w[1]), || {
            format!("latency_cdf.{name} falls")
        })?;
    }
    Ok(())
}

/// A sessions run's task times: null exactly when no task completed.
fn task_times(r: &Report) -> Result<(), String> {
    let Some(t) = &r.sessions else {
        return Ok(());
    };
    let q = [t.task_s.mean, t.task_s.p50, t.task_s.p90, t.task_s.p99];
    if t.completed_tasks == 0 {
        return ensure(q.iter().all(|x| x.is_nan()), || {
            "task_s: numbers over no completed task (must be null)".to_string()
        });
    }
    ensure(q.iter().all(|x| x.is_finite()), || {
        format!(
            "task_s: null although {} tasks completed",
            t.completed_tasks
        )
    })
}

/// Report keys that are statistics: `null` there means "over nothing", and `rates` and
/// `quantiles` (and `routing_capture`, for the capture) check that it appears exactly when
/// nothing was measured; an autoscaled run's recovery has a null `baseline` or
/// `recovered_s` when there was none (no admission before the change, or no recovery).
const STATISTICS: [&str; 6] = [
    "hit_rate",
    "block_reuse",
    "cached_tokens_avg",
    "_ms_",
    "routing_capture",
    "task_s",
];

fn is_statistic(key: &str) -> bool {
    STATISTICS.iter().any(|s| key.contains(s))
        || key.ends_with("_share")
        || key == "load_spread"
        || key == "batch_mean"
        || key == "baseline"
        || key == "recovered_s"
        || key.ends_with("_by_turn")
}

/// The only places a report may hold `null`: unset optional settings, windows of the
/// hit-rate series in which nothing was admitted, and statistics over nothing (checked
/// against their sample counts elsewhere). Anywhere else a null is a NaN.
fn numbers_where_due(json: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("report JSON: {e}"))?;
    let optional = [
        "kv_blocks",
        "session_affinity",
        "queue_capacity",
        "timeout_ms",
    ];
    if let Some(config) = v["config"].as_object() {
        for (key, value) in config {
            ensure(!value.is_null() || optional.contains(&key.as_str()), || {
                format!("config.{key} is null")
            })?;
        }
    }
    for (key, value) in v.as_object().into_iter().flatten() {
        if key == "config" || key == "series" {
            continue;
        }
        no_null(value, key)?;
    }
    // Null where due: a window's hit rate with nothing admitted, its mean TTFT and SLO
    // attainment with nothing completed, and the first sample's rates and link share (no
    // window ends there).
    let due = [
        "link_busy",
        "offered_rate",
        "served_rate",
        "ttft_ms_mean",
        "slo_attained",
    ];
    for (key, value) in v["series"].as_object().into_iter().flatten() {
        if !key.starts_with("hit_rate") && !due.contains(&key.as_str()) {
            no_null(value, &format!("series.{key}"))?;
        }
    }
    for key in ["offered_rate", "served_rate"] {
        window_rates(&v["series"][key], key)?;
    }
    link_busy(&v["series"]["link_busy"])
}

/// A fleet rate per window: null for the first sample only, finite and at least 0 after.
fn window_rates(rates: &Value, key: &str) -> Result<(), String> {
    for (i, x) in rates.as_array().into_iter().flatten().enumerate() {
        match x.as_f64() {
            Some(x) => ensure(x.is_finite() && x >= 0.0, || {
                format!("series.{key}[{i}] is {x}")
            })?,
            None => ensure(i == 0, || format!("series.{key}[{i}] is {x}"))?,
        }
    }
    Ok(())
}

/// A split fleet's link series: per link, null for the first sample (no window ends
/// there), a share of the window in [0, 1] for every later one.
fn link_busy(links: &Value) -> Result<(), String> {
    for (k, link) in links.as_array().into_iter().flatten().enumerate() {
        for (i, x) in link.as_array().into_iter().flatten().enumerate() {
            match x.as_f64() {
                Some(x) => share(&format!("series.link_busy[{k}][{i}]"), x)?,
                None => ensure(i == 0, || format!("series.link_busy[{k}][{i}] is {x}"))?,
            }
        }
    }
    Ok(())
}

fn no_null(v: &Value, at: &str) -> Result<(), String> {
    match v {
        Value::Null => Err(format!("{at} is null (a NaN?)")),
        Value::Array(items) => items.iter().try_for_each(|x| no_null(x, at)),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !is_statistic(k))
            .try_for_each(|(k, x)| no_null(x, &format!("{at}.{k}"))),
        _ => Ok(()),
    }
}
