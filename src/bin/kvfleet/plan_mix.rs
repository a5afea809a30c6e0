//! `kvfleet plan --plan-mix`: per routing policy, the cheapest mix of two or more presets
//! of one model that meets the targets (`kvfleet::plan::plan_mix`), on every core; prints
//! each policy's frontier, local moves and answer, and the cheapest overall; writes
//! `--plan-json`.

use kvfleet::numbers::duration;
use kvfleet::plan::{self, counts_text, MixPlan, MixPreset, PlanLimits, Runner, Slo};
use kvfleet::timing::EnginePreset;
use kvfleet::{Config, Policy};
use rayon::prelude::*;
use serde::Serialize;

use crate::plan_flags::{MixFlag, PlanError};

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

/// The presets with their prices (where none is given, `--gpu-hour-usd`, else the
/// preset's GPU's in `cfg`; `all`: every preset with hardware of the engine's model),
/// checked, and the base config checked as a fleet of one of each. Flags that cannot go
/// with `--plan-mix` (a fleet, a split, `all` on an engine without a model) are usage
/// errors.
pub fn presets(
    flag: &MixFlag,
    cfg: &Config,
    all_usd: Option<f64>,
) -> Result<Vec<MixPreset>, PlanError> {
    if !cfg.fleet.is_empty() {
        return Err(PlanError::Usage(
            "--des-fleet: --plan-mix sets the fleet of every point; leave it out".into(),
        ));
    }
    if cfg.pools().is_some() {
        return Err(PlanError::Usage(
            "--plan-mix: a mix is a colocated fleet; leave out \
                    --des-prefill-instances and --des-decode-instances"
                .into(),
        ));
    }
    let named: Vec<(EnginePreset, Option<f64>)> = match flag {
        MixFlag::All => plan::model_presets(cfg.engine)
            .map_err(PlanError::Usage)?
            .into_iter()
            .map(|p| (p, None))
            .collect(),
        MixFlag::Named(named) => named.clone(),
    };
    let presets: Vec<MixPreset> = named
        .into_iter()
        .map(|(preset, usd)| MixPreset {
            preset,
            gpu_hour_usd: usd
                .or(all_usd)
                .unwrap_or_else(|| cfg.gpu_hour_usd_of(preset)),
        })
        .collect();
    plan::check_mix(&presets)?;
    let one_each = plan::mix_config(cfg, &presets, &vec![1; presets.len()]);
    kvfleet::params::validate_fleet(&one_each).map_err(crate::inputs::flag_error)?;
    Ok(presets)
}

/// Plans the mix for every policy asked for.
pub fn plan_all(
    cfg: &Config,
    chosen: &[Policy],
    presets: &[MixPreset],
    slo: &Slo,
    limits: &PlanLimits,
    runner: &(dyn Runner + Sync),
) -> Result<Vec<MixPlan>, String> {
    chosen
        .par_iter()
        .map(|&p| plan::plan_mix(cfg, p, presets, slo, limits, runner))
        .collect()
}

/// One row of a policy's table: the counts, GPUs, price, p99s and `mark`.
fn row(m: &MixPlan, c: &[u32], mark: &str) -> String {
    let p = m.points.iter().find(|p| p.counts == c).expect("evaluated");
    let counts: String = c.iter().map(|n| format!("{n:>20}  ")).collect();
    format!(
        "    {counts}{:>4}  {:>8.2}  {:>8}  {:>8}{mark}\n",
        p.gpus,
        p.usd_per_hour,
        duration(p.measured.ttft_ms_p99),
        duration(p.measured.tpot_ms_p99)
    )
}

fn policy_block(m: &MixPlan, max: u32) -> String {
    let names: String = m
        .presets
        .iter()
        .map(|p| format!("{:>20}  ", p.preset.name()))
        .collect();
    let mut out = format!(
        "  {}\n    {names}{:>4}  {:>8}  {:>8}  {:>8}\n",
        m.policy, "GPUs", "$/h", "TTFT p99", "TPOT p99"
    );
    let answer = m.answer.as_deref();
    for c in &m.frontier {
        let mark = if Some(c.as_slice()) == answer {
            "  <- cheapest"
        } else {
            ""
        };
        out.push_str(&row(m, c, mark));
    }
    for c in &m.local_moves {
        let mark = if Some(c.as_slice()) == answer {
            "  <- local move, cheapest"
        } else {
            "  <- local move"
        };
        out.push_str(&row(m, c, mark));
    }
    let fewer = if m.presets.len() == 2 {
        "either preset"
    } else {
        "any preset it has"
    };
    match answer {
        Some(c) if m.verified => out.push_str(&format!(
            "    verified: {} meets; one replica fewer of {fewer} misses\n",
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
            counts_text(m, p),
            counts_text(m, q)
        ));
    }
    out
}

/// "A ($2.50/GPU-h), B ($3.00/GPU-h) and C ($4.00/GPU-h)".
fn priced_list(presets: &[MixPreset]) -> String {
    let each: Vec<String> = presets
        .iter()
        .map(|p| format!("{} (${:.2}/GPU-h)", p.preset.name(), p.gpu_hour_usd))
        .collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => each.join(""),
    }
}

/// The text of a mix plan.
pub fn render(r: &MixReport) -> String {
    let p = &r.mixes[0].presets;
    let mut out = format!(
        "kvfleet plan --plan-mix: the cheapest fleet of {}, seed {}, workload {}\n",
        priced_list(p),
        r.seed,
        r.workload
    );
    let walk = if p.len() == 2 {
        "for each count of the first preset, the fewest of the second that meets"
    } else {
        "for each pair of presets, for each count of the first, the fewest of the second \
         that meets; then the local moves to cheaper mixes of three or more presets"
    };
    out.push_str(&format!(
        "  targets: {}\n  each policy's frontier: {walk}\n",
        crate::plan_text::targets(&r.slo)
    ));
    for m in &r.mixes {
        out.push_str(&policy_block(m, r.limits.max_replicas));
    }
    out.push_str(&format!("{}\n", r.headline));
    out
}
