//! The autoscaler in the report (`autoscale`, `summary.gpu_hours`, `series.replicas`):
//! the replica time billed (starting, ready and draining replicas) as GPU-hours and its
//! cost, every change, the ready replicas at each sample, and how long after each change
//! the hit rate recovers. Absent when `autoscale` is off.
//!
//! Recovery, precisely: for a replica becoming ready or starting to drain at `t`, the
//! baseline is the fleet's request hit rate (`series.hit_rate_fleet`) in the last window
//! that ends at or before `t` and admitted a request; the hit rate has recovered at the
//! end of the first later window (ending after `t`, with an admission) whose hit rate is
//! at least the baseline minus `RECOVERY_SLACK`. The recovery time is that window's end
//! minus `t`, a multiple of the series' grid at best; `null` when there is no baseline or
//! no such window before the run ends.

use serde::Serialize;

use crate::series::Series;
use crate::sim::{Billing, Change, ChangeKind};

/// How far below its baseline the hit rate may stay and count as recovered, a fraction
/// (5 points).
pub const RECOVERY_SLACK: f64 = 0.05;

/// The autoscaler's books (`autoscale`); present only with `autoscale` set.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AutoscaleReport {
    /// `kpa` or `slo`.
    pub scaler: &'static str,
    /// The fewest ready replicas.
    pub min_instances: u32,
    /// The most replicas at once.
    pub max_instances: u32,
    /// A new replica's start-up delay, s.
    pub startup_s: f64,
    /// Replica time billed, starting, ready and draining replicas, from 0 to the run's
    /// end, replica-seconds.
    pub replica_seconds: f64,
    /// `replica_seconds` x GPUs per replica / 3600, GPU-hours.
    pub gpu_hours: f64,
    /// GPUs per replica (the preset's; 1 without hardware).
    pub gpus_per_replica: u32,
    /// `gpu_hours` x `gpu_hour_usd`, US dollars; absent when the preset names no hardware.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub cost_usd: Option<f64>,
    /// The price of one GPU-hour it is billed at (the preset's assumed on-demand price, or
    /// `gpu_hour_usd`), US dollars; absent when the preset names no hardware.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub gpu_hour_usd: Option<f64>,
    /// The most replicas ready at once.
    pub peak_ready: u32,
    /// `kpa`: decisions made in panic mode.
    pub panic_ticks: u64,
    /// Every change, in order.
    pub changes: Vec<Change>,
    /// One entry per replica becoming ready or starting to drain.
    pub recoveries: Vec<Recovery>,
}

/// How long the hit rate took to come back after one change.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Recovery {
    /// When the change happened, s.
    pub t_s: f64,
    /// `ready` or `drain`.
    pub kind: ChangeKind,
    /// The fleet's request hit rate before it, a fraction; `null` without one.
    pub baseline: Option<f64>,
    /// Seconds until it was back within 5 points of the baseline; `null` if never.
    pub recovered_s: Option<f64>,
}

/// The report of a run's `billing` over its `series`, for a replica of `gpus` GPUs at
/// `price` dollars per GPU-hour (`None`: the preset names no hardware).
pub fn report(
    scaler: &'static str,
    billing: &Billing,
    series: &Series,
    (initial, gpus): (u32, u32),
    price: Option<f64>,
) -> AutoscaleReport {
    let replica_seconds = billing.replica_us as f64 / 1e6;
    let gpu_hours = replica_seconds * gpus as f64 / 3600.0;
    let recoveries = billing
        .changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::Ready | ChangeKind::Drain))
        .map(|c| recovery(c, series))
        .collect();
    AutoscaleReport {
        scaler,
        min_instances: billing.min,
        max_instances: billing.max,
        startup_s: billing.startup_us as f64 / 1e6,
        replica_seconds,
        gpu_hours,
        gpus_per_replica: gpus,
        cost_usd: price.map(|usd| gpu_hours * usd),
        gpu_hour_usd: price,
        peak_ready: billing
            .changes
            .iter()
            .map(|c| c.ready)
            .fold(initial, u32::max),
        panic_ticks: billing.panic_ticks,
        changes: billing.changes.clone(),
        recoveries,
    }
}

/// The fewest and the most replicas ready at once over the run: `initial` at 0, then the
/// ready count after each change.
pub fn ready_range(initial: u32, changes: &[Change]) -> (u32, u32) {
    changes.iter().fold((initial, initial), |(lo, hi), c| {
        (lo.min(c.ready), hi.max(c.ready))
    })
}

/// The text report's fleet size under a scaler: the replicas ready over the run, the
/// scaler, the starting size and the bounds. `2 to 9 instance(s) ready (autoscaler kpa,
/// started at 2, bounds 1–16)`; a size that never changed reads `2 instance(s) ready
/// throughout (autoscaler kpa, bounds 1–16)`.
pub fn fleet_size(a: &AutoscaleReport, initial: u32) -> String {
    let (lo, hi) = ready_range(initial, &a.changes);
    let bounds = format!("bounds {}–{}", a.min_instances, a.max_instances);
    if lo == hi {
        format!(
            "{lo} instance(s) ready throughout (autoscaler {}, {bounds})",
            a.scaler
        )
    } else {
        format!(
            "{lo} to {hi} instance(s) ready (autoscaler {}, started at {initial}, {bounds})",
            a.scaler
        )
    }
}

/// The ready replicas at each sample of `series`, from the changes (`initial` at 0).
pub fn replicas_series(t_s: &[f64], initial: u32, changes: &[Change]) -> Vec<u32> {
    let mut out = Vec::with_capacity(t_s.len());
    let (mut ready, mut next) = (initial, 0);
    for &t in t_s {
        while next < changes.len() && changes[next].t_s <= t {
            ready = changes[next].ready;
            next += 1;
        }
        out.push(ready);
    }
    out
}

fn recovery(c: &Change, s: &Series) -> Recovery {
    let windows = 1..s.t_s.len();
    let rate = |k: usize| s.hit_rate_fleet[k].filter(|_| s.admitted[k] > 0);
    let baseline = windows
        .clone()
        .rev()
        .filter(|&k| s.t_s[k] <= c.t_s)
        .find_map(rate);
    let recovered_s = baseline.and_then(|b| {
        windows
            .filter(|&k| s.t_s[k] > c.t_s)
            .find(|&k| rate(k).is_some_and(|h| h >= b - RECOVERY_SLACK))
            .map(|k| s.t_s[k] - c.t_s)
    });
    Recovery {
        t_s: c.t_s,
        kind: c.kind,
        baseline,
        recovered_s,
    }
}

/// The text report's lines: the scaler and its books, then the recoveries (at most 8).
pub fn lines(a: &AutoscaleReport) -> Vec<String> {
    let cost = match (a.cost_usd, a.gpu_hour_usd) {
        (Some(usd), Some(price)) => format!(" = ${usd:.2} at ${price:.2}/GPU-h"),
        _ => String::new(),
    };
    let mut out = vec![format!(
        "  Autoscale: {}, {}–{} replicas, start-up {:.0} s | peak {} ready, {} changes | {:.0} replica-s, {:.3} GPU-h{cost}",
        a.scaler,
        a.min_instances,
        a.max_instances,
        a.startup_s,
        a.peak_ready,
        a.changes.len(),
        a.replica_seconds,
        a.gpu_hours,
    )];
    let shown: Vec<String> = a
        .recoveries
        .iter()
        .take(8)
        .map(|r| {
            let kind = if r.kind == ChangeKind::Ready {
                "ready"
            } else {
                "drain"
            };
            let took = r
                .recovered_s
                .map_or("not recovered".to_string(), |s| format!("{s:.1} s"));
            format!("{kind} at {:.1} s: {took}", r.t_s)
        })
        .collect();
    if !shown.is_empty() {
        let more = a.recoveries.len().saturating_sub(8);
        let tail = if more > 0 {
            format!("; {more} more")
        } else {
            String::new()
        };
        out.push(format!(
            "  Hit-rate recovery (back within 5 points of the rate before): {}{tail}",
            shown.join("; ")
        ));
    }
    out
}
