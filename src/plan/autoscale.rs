//! The planner's autoscaled-against-static comparison (`kvfleet plan --plan-autoscale
//! kpa|slo`): the static fleet the plan sized for the workload as given (a rate schedule's
//! peak included), and an autoscaled fleet that may grow to that size and shrink to its
//! minimum, run on the same workload and seed, each held to the plan's targets.
//!
//! Both runs carry the plan's targets as the run's SLO (`slo_ttft_ms` from the TTFT p99
//! target, `slo_itl_ms` from the TPOT p99 one: the one definition `series.slo_attained` and
//! the `slo` scaler use; under the `slo` scaler a target the plan does not set is the
//! scaler's default, for both runs), so their SLO attainment counts the same requests the
//! same way.
//! GPU-hours are replica time from 0 to the run's end (the autoscaler's billing: starting,
//! ready and draining replicas) x GPUs per replica; the static fleet's is its replicas for
//! that whole time. Cost is GPU-hours x the plan's price of a GPU-hour.

use serde::Serialize;

use super::{Measured, PlanLimits, Runner, Slo};
use crate::config::{Autoscale, Config, Policy};
use crate::report::Report;

/// One fleet's run in the comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetRun {
    /// `static` or the scaler (`kpa`, `slo`).
    pub fleet: &'static str,
    /// Its fewest and most replicas (equal for the static fleet).
    pub min_replicas: u32,
    /// The most replicas at once.
    pub max_replicas: u32,
    /// Replica time from 0 to the run's end x GPUs per replica / 3600, GPU-hours.
    pub gpu_hours: f64,
    /// `gpu_hours` x the plan's price of a GPU-hour, US dollars.
    pub cost_usd: f64,
    /// p99 TTFT, ms (NaN, `null` in JSON, when nothing finished).
    pub ttft_ms_p99: f64,
    /// The share of completed requests that met the targets (`summary.slo_attained`;
    /// `null` when the plan has neither a TTFT nor a TPOT target).
    pub slo_attained: Option<f64>,
    /// Share of prompt tokens served from cache.
    pub hit_rate_tokens: f64,
    /// The plan's targets it misses (empty: it meets them all).
    pub misses: Vec<String>,
}

/// The comparison (`autoscale` in the plan's JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AutoscaleComparison {
    /// The routing policy both fleets run.
    pub policy: String,
    /// The TTFT target both runs' SLO attainment counts, ms (`null`: none).
    pub slo_ttft_ms: Option<f64>,
    /// The TPOT (inter-token latency) target both runs' SLO attainment counts, ms
    /// (`null`: none).
    pub slo_itl_ms: Option<f64>,
    /// The static fleet the plan sized.
    #[serde(rename = "static")]
    pub static_fleet: FleetRun,
    /// The autoscaled fleet.
    pub autoscaled: FleetRun,
    /// Which is cheaper and whether each meets the targets, from the two runs.
    pub answer: String,
}

/// The two configs compared: `base` under `policy` with the plan's targets as its SLO, as
/// a static fleet of `replicas`, and under `scaler` from its minimum (`min_instances`,
/// unset 1, at most `replicas`) up to its maximum (`max_instances`, unset `replicas`).
pub fn comparison_configs(
    base: &Config,
    policy: Policy,
    replicas: u32,
    scaler: Autoscale,
    slo: &Slo,
) -> [Config; 2] {
    let scaler_default = |v: f64| (scaler == Autoscale::Slo).then_some(v);
    let held = Config {
        routing: policy,
        slo_ttft_ms: slo
            .ttft_p99_ms
            .or(base.slo_ttft_ms)
            .or(scaler_default(base.slo_ttft_ms_or_default())),
        slo_itl_ms: slo
            .tpot_p99_ms
            .or(base.slo_itl_ms)
            .or(scaler_default(base.slo_itl_ms_or_default())),
        ..base.clone()
    };
    let min = base.min_instances.unwrap_or(1).clamp(1, replicas);
    let max = base.max_instances.unwrap_or(replicas).max(min);
    let fixed = Config {
        instances: replicas,
        autoscale: Autoscale::Off,
        min_instances: None,
        max_instances: None,
        ..held.clone()
    };
    let scaled = Config {
        instances: min,
        autoscale: scaler,
        min_instances: Some(min),
        max_instances: Some(max),
        ..held
    };
    [fixed, scaled]
}

/// Runs both configs at scale 1 on `runner` and compares them.
pub fn compare_autoscale(
    base: &Config,
    policy: Policy,
    replicas: u32,
    scaler: Autoscale,
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<AutoscaleComparison, String> {
    let [fixed, scaled] = comparison_configs(base, policy, replicas, scaler, slo);
    let static_fleet = fleet_run(&runner.report(&fixed, 1.0)?, &fixed, slo, limits);
    let autoscaled = fleet_run(&runner.report(&scaled, 1.0)?, &scaled, slo, limits);
    let answer = answer(&static_fleet, &autoscaled);
    Ok(AutoscaleComparison {
        policy: policy.name().to_string(),
        slo_ttft_ms: fixed.slo_ttft_ms,
        slo_itl_ms: fixed.slo_itl_ms,
        static_fleet,
        autoscaled,
        answer,
    })
}

/// One run's row: its billed replica time (the autoscaler's, or the static fleet for the
/// run's whole length), cost, p99 TTFT, attainment, hit rate and misses.
pub fn fleet_run(r: &Report, cfg: &Config, slo: &Slo, limits: &PlanLimits) -> FleetRun {
    let end_s = r.series.t_s.last().copied().unwrap_or(0.0);
    let replica_s = match &r.autoscale {
        Some(a) => a.replica_seconds,
        None => cfg.instances as f64 * end_s,
    };
    let gpu_hours = replica_s * limits.gpus_per_replica as f64 / 3600.0;
    let (min, max) = match &r.autoscale {
        Some(a) => (a.min_instances, a.max_instances),
        None => (cfg.instances, cfg.instances),
    };
    FleetRun {
        fleet: r.autoscale.as_ref().map_or("static", |a| a.scaler),
        min_replicas: min,
        max_replicas: max,
        gpu_hours,
        cost_usd: gpu_hours * limits.gpu_hour_usd,
        ttft_ms_p99: r.summary.ttft_ms_p99,
        slo_attained: r.summary.slo_attained,
        hit_rate_tokens: r.summary.hit_rate_tokens,
        misses: slo.misses(&Measured::of(&r.summary)),
    }
}

/// "kpa, 1–4 replicas" or "static, 4 replicas".
pub fn fleet_words(f: &FleetRun) -> String {
    if f.min_replicas == f.max_replicas {
        format!("{}, {} replicas", f.fleet, f.max_replicas)
    } else {
        format!(
            "{}, {}–{} replicas",
            f.fleet, f.min_replicas, f.max_replicas
        )
    }
}

fn verdict(f: &FleetRun) -> String {
    if f.misses.is_empty() {
        "meets the targets".to_string()
    } else {
        format!("misses {}", f.misses.join(", "))
    }
}

/// The answer: which costs less (by how much), and whether each meets the targets.
pub fn answer(fixed: &FleetRun, scaled: &FleetRun) -> String {
    let a = fleet_words(scaled);
    let s = format!("the static {} replicas", fixed.max_replicas);
    let price = if scaled.cost_usd < fixed.cost_usd {
        let saved = 100.0 * (1.0 - scaled.cost_usd / fixed.cost_usd);
        format!(
            "The autoscaled fleet ({a}) is cheaper: ${:.3} against ${:.3} for {s}, {saved:.0}% less",
            scaled.cost_usd, fixed.cost_usd
        )
    } else if scaled.cost_usd > fixed.cost_usd {
        format!(
            "The static fleet is cheaper: ${:.3} for {s} against ${:.3} for the autoscaled one ({a})",
            fixed.cost_usd, scaled.cost_usd
        )
    } else {
        format!(
            "Both cost ${:.3}: {s} and the autoscaled fleet ({a})",
            fixed.cost_usd
        )
    };
    format!(
        "{price}. The static fleet {}; the autoscaled one {}.",
        verdict(fixed),
        verdict(scaled)
    )
}
