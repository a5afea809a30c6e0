//! `kvfleet plan --plan-mix`: per routing policy, the cheapest mix of two presets that
//! meets the targets (`kvfleet::plan::plan_mix`), on every core; prints each policy's
//! frontier and answer, and the cheapest overall; writes `--plan-json`.

use kvfleet::numbers::duration;
use kvfleet::plan::{self, counts_text, MixPlan, MixPreset, PlanLimits, Runner, Slo};
use kvfleet::{Config, Policy};
use rayon::prelude::*;
use serde::Serialize;

use crate::plan_flags::MixFlag;

/// The whole mix plan, as `--plan-json` writes it.
#[derive(Serialize)]
pub struct MixReport<'a> {
    pub kvfleet_version: &'static str,
    pub seed: u64,
    pub workload: &'a str,
    pub slo: Slo,
    pub limits: PlanLimits,
    pub config: &'a Config,
    pub headline: String,
    pub mixes: Vec<MixPlan>,
}

/// The two presets with their prices (where none is given, `--gpu-hour-usd`, else the
/// preset's GPU's in `cfg`), checked, and the base config checked as a fleet of one of each.
pub fn presets(
    flag: &MixFlag,
    cfg: &Config,
    all_usd: Option<f64>,
) -> Result<[MixPreset; 2], String> {
    if !cfg.fleet.is_empty() {
        return Err("--des-fleet: --plan-mix sets the fleet of every point; leave it out".into());
    }
    if cfg.pools().is_some() {
        return Err("--plan-mix: a mix is a colocated fleet; leave out \
                    --des-prefill-instances and --des-decode-instances"
            .into());
    }
    let presets = flag.0.map(|(preset, usd)| MixPreset {
        preset,
        gpu_hour_usd: usd
            .or(all_usd)
            .unwrap_or_else(|| cfg.gpu_hour_usd_of(preset)),
    });
    plan::check_mix(&presets)?;
    let one_each = plan::mix_config(cfg, &presets, [1, 1]);
    kvfleet::params::validate_fleet(&one_each).map_err(crate::inputs::flag_error)?;
    Ok(presets)
}

/// Plans the mix for every policy asked for.
pub fn plan_all(
    cfg: &Config,
    chosen: &[Policy],
    presets: [MixPreset; 2],
    slo: &Slo,
    limits: &PlanLimits,
    runner: &(dyn Runner + Sync),
) -> Result<Vec<MixPlan>, String> {
    chosen
        .par_iter()
        .map(|&p| plan::plan_mix(cfg, p, presets, slo, limits, runner))
        .collect()
}

fn policy_block(m: &MixPlan, max: u32) -> String {
    let names = [m.presets[0].preset.name(), m.presets[1].preset.name()];
    let mut out = format!(
        "  {}\n    {:>20}  {:>20}  {:>4}  {:>8}  {:>8}  {:>8}\n",
        m.policy, names[0], names[1], "GPUs", "$/h", "TTFT p99", "TPOT p99"
    );
    for c in &m.frontier {
        let p = m.points.iter().find(|p| p.counts == *c).expect("evaluated");
        let mark = if Some(*c) == m.answer {
            "  <- cheapest"
        } else {
            ""
        };
        out.push_str(&format!(
            "    {:>20}  {:>20}  {:>4}  {:>8.2}  {:>8}  {:>8}{mark}\n",
            c[0],
            c[1],
            p.gpus,
            p.usd_per_hour,
            duration(p.measured.ttft_ms_p99),
            duration(p.measured.tpot_ms_p99)
        ));
    }
    match m.answer {
        Some(c) if m.verified => out.push_str(&format!(
            "    verified: {} meets; one replica fewer of either preset misses\n",
            counts_text(m, c)
        )),
        Some(c) => out.push_str(&format!(
            "    not verified: {} meets, but one replica fewer of a preset also met (more \
             replicas did worse somewhere on the walk)\n",
            counts_text(m, c)
        )),
        None => out.push_str(&format!(
            "    no mix of at most {max} replicas meets the targets\n"
        )),
    }
    for [p, q] in &m.non_monotone {
        out.push_str(&format!(
            "    Not monotone: {} meets the targets but {} misses them: more replicas did worse.\n",
            counts_text(m, *p),
            counts_text(m, *q)
        ));
    }
    out
}

/// The text of a mix plan.
pub fn render(r: &MixReport) -> String {
    let p = &r.mixes[0].presets;
    let mut out = format!(
        "kvfleet plan --plan-mix: the cheapest fleet of {} (${:.2}/GPU-h) and {} (${:.2}/GPU-h), seed {}, workload {}\n",
        p[0].preset.name(),
        p[0].gpu_hour_usd,
        p[1].preset.name(),
        p[1].gpu_hour_usd,
        r.seed,
        r.workload
    );
    out.push_str(&format!(
        "  targets: {}\n  each policy's frontier: for each count of the first preset, the fewest of the second that meets\n",
        crate::plan_text::targets(&r.slo)
    ));
    for m in &r.mixes {
        out.push_str(&policy_block(m, r.limits.max_replicas));
    }
    out.push_str(&format!("{}\n", r.headline));
    out
}
