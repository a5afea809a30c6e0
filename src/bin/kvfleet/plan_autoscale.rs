//! `kvfleet plan --plan-autoscale kpa|slo`: after the plan, the static fleet it sized for
//! `--des-routing`'s policy against an autoscaled fleet on the same workload
//! (`kvfleet::plan::compare_autoscale`), printed side by side under the plan.

use kvfleet::config::Autoscale;
use kvfleet::numbers::duration;
use kvfleet::plan::{self, AutoscaleComparison, FleetRun, PlanLimits, PolicyPlan, Runner, Slo};
use kvfleet::{Config, Policy};

use crate::plan_flags::PlanFlags;

/// Refuses what the comparison cannot run, before the plan: a scaler in the run flags, a
/// split fleet or a mix, and a policy it compares that is not planned.
pub fn check(cfg: &Config, f: &PlanFlags, chosen: &[Policy]) -> Result<(), String> {
    if f.plan_autoscale.is_none() {
        return Ok(());
    }
    if cfg.autoscale != Autoscale::Off {
        return Err(
            "--des-autoscale: kvfleet plan sizes a static fleet; give the scaler to \
                    compare with --plan-autoscale instead"
                .into(),
        );
    }
    if cfg.pools().is_some() || f.mix.is_some() || !cfg.fleet.is_empty() {
        return Err(
            "--plan-autoscale: an autoscaled fleet is colocated and of one preset; \
                    leave out --des-prefill-instances, --des-decode-instances and --plan-mix"
                .into(),
        );
    }
    if !chosen.contains(&cfg.routing) {
        return Err(format!(
            "--plan-autoscale compares --des-routing's policy ({}); add it to --plan-routing",
            cfg.routing.name()
        ));
    }
    Ok(())
}

/// The comparison for `--des-routing`'s policy at the plan's answer (`None` without
/// `--plan-autoscale`, or when the plan found no fleet that meets the targets).
pub fn compare(
    cfg: &Config,
    f: &PlanFlags,
    plans: &[PolicyPlan],
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<Option<AutoscaleComparison>, String> {
    let Some(scaler) = f.plan_autoscale else {
        return Ok(None);
    };
    let found = plans
        .iter()
        .find(|p| p.policy == cfg.routing.name())
        .and_then(|p| p.min_replicas);
    let Some(replicas) = found else {
        return Ok(None);
    };
    for c in plan::comparison_configs(cfg, cfg.routing, replicas, scaler, slo) {
        kvfleet::params::validate(&c).map_err(crate::inputs::flag_error)?;
    }
    plan::compare_autoscale(cfg, cfg.routing, replicas, scaler, slo, limits, runner).map(Some)
}

fn row(f: &FleetRun) -> String {
    let share = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{:.1}%", 100.0 * x));
    let targets = if f.misses.is_empty() {
        "met".to_string()
    } else {
        format!("missed: {}", f.misses.join(", "))
    };
    format!(
        "  {:<22} {:>8.3}  {:>8.3}  {:>8}  {:>7}  {:>7}  {targets}\n",
        plan::fleet_words(f),
        f.gpu_hours,
        f.cost_usd,
        duration(f.ttft_ms_p99),
        share(f.slo_attained),
        share(Some(f.hit_rate_tokens)),
    )
}

/// The comparison's lines: a heading, one row per fleet, the answer.
pub fn render(c: &AutoscaleComparison, usd: f64) -> String {
    let held: Vec<String> = [("TTFT", c.slo_ttft_ms), ("TPOT", c.slo_itl_ms)]
        .into_iter()
        .filter_map(|(name, ms)| ms.map(|ms| format!("{name} <= {}", duration(ms))))
        .collect();
    let met = if held.is_empty() {
        "SLO met: – (no TTFT or TPOT target)".to_string()
    } else {
        format!("SLO met: completed requests with {}", held.join(" and "))
    };
    let mut out = format!(
        "  Autoscaled against static, {} on the same workload and seed. GPU-h: replica time from 0 to the run's end; $ at ${usd:.2} per GPU-hour; {met}.\n",
        c.policy
    );
    out.push_str(&format!(
        "  {:<22} {:>8}  {:>8}  {:>8}  {:>7}  {:>7}  targets\n",
        "fleet", "GPU-h", "$", "TTFT p99", "SLO met", "tok hit"
    ));
    out.push_str(&row(&c.static_fleet));
    out.push_str(&row(&c.autoscaled));
    out.push_str(&format!("  {}\n", c.answer));
    out
}
