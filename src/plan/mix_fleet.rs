//! What the mix search is made of: a preset with its price, an evaluated mix, a mix's
//! config and price, the order by which one mix is cheaper than another, and the checks of
//! the presets given (shared by the walk, the local moves and the plan).

use serde::Serialize;

use super::Measured;
use crate::config::Config;
use crate::timing::EnginePreset;

/// One of the presets a mix is made of, with its price.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MixPreset {
    /// The engine preset (one with hardware).
    #[serde(serialize_with = "preset_name")]
    pub preset: EnginePreset,
    /// Price of one of its GPUs for one hour, US dollars.
    pub gpu_hour_usd: f64,
}

fn preset_name<S: serde::Serializer>(p: &EnginePreset, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}

/// One evaluated mix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MixPoint {
    /// Replicas of each preset, in the order the presets were given.
    pub counts: Vec<u32>,
    /// Whether every target is met (on every seed).
    pub meets: bool,
    /// The targets missed.
    pub misses: Vec<String>,
    /// The figures measured (the worst over the seeds).
    pub measured: Measured,
    /// GPUs in the fleet.
    pub gpus: u32,
    /// The fleet's price per hour, US dollars.
    pub usd_per_hour: f64,
}

/// `base` as a fleet of `counts` replicas of `presets` (a group of 0 left out).
pub fn mix_config(base: &Config, presets: &[MixPreset], counts: &[u32]) -> Config {
    let groups: Vec<(u32, EnginePreset)> = counts
        .iter()
        .zip(presets)
        .filter(|(&n, _)| n > 0)
        .map(|(&n, p)| (n, p.preset))
        .collect();
    let mut cfg = base.clone();
    cfg.fleet = groups
        .iter()
        .map(|(n, p)| format!("{n}:{}", p.name()))
        .collect::<Vec<_>>()
        .join(",");
    cfg.instances = counts.iter().sum();
    cfg.engine = groups.first().map_or(base.engine, |g| g.1);
    cfg
}

/// The price per hour of `counts` replicas of `presets`, and their GPUs.
pub fn mix_price(presets: &[MixPreset], counts: &[u32]) -> (u32, f64) {
    let mut gpus = 0;
    let mut usd = 0.0;
    for (&n, p) in counts.iter().zip(presets) {
        gpus += n * p.preset.gpus();
        usd += (n * p.preset.gpus()) as f64 * p.gpu_hour_usd;
    }
    (gpus, usd)
}

/// Whether mix `c` is cheaper than `than`: the lower price, then fewer replicas, then the
/// smaller counts in preset order (fewer of the first, ...).
pub(super) fn cheaper(presets: &[MixPreset], c: &[u32], than: &[u32]) -> bool {
    let (p, q) = (mix_price(presets, c).1, mix_price(presets, than).1);
    let (tc, tt) = (c.iter().sum::<u32>(), than.iter().sum::<u32>());
    p < q || (p == q && (tc, c) < (tt, than))
}

/// Every preset with hardware of `engine`'s model, in the order `EnginePreset::ALL`
/// lists them (`--plan-mix all`).
pub fn model_presets(engine: EnginePreset) -> Result<Vec<EnginePreset>, String> {
    let Some(own) = engine.hardware() else {
        return Err(format!(
            "--plan-mix all: the engine {} serves no model of its own; allowed: an engine \
             preset with hardware (--des-engine), or the presets named: \
             PRESET[=USD],PRESET[=USD],...",
            engine.name()
        ));
    };
    Ok(EnginePreset::ALL
        .into_iter()
        .filter(|p| {
            p.hardware().is_some_and(|h| {
                h.kv_bytes_per_token == own.kv_bytes_per_token && h.weights_gb == own.weights_gb
            })
        })
        .collect())
}

/// Checks the presets: two or more, all different, with hardware, of one model, each
/// priced within the planner's bounds.
pub fn check_mix(presets: &[MixPreset]) -> Result<(), String> {
    if presets.len() < 2 {
        return Err(format!(
            "--plan-mix: invalid count: got {} preset(s); allowed: two or more presets of one \
             model",
            presets.len()
        ));
    }
    let model = model_presets(presets[0].preset).unwrap_or_default();
    for p in presets {
        if p.preset.hardware().is_none() {
            return Err(format!(
                "--plan-mix: invalid preset: got {}, which has no hardware; allowed: presets \
                 with hardware of one model",
                p.preset.name()
            ));
        }
        if !model.contains(&p.preset) {
            return Err(format!(
                "--plan-mix: invalid presets: got {} with {}; allowed: presets of one model \
                 (their caches hold the same blocks), e.g. llama3-8b-h100 with \
                 llama3-8b-mi300x",
                presets[0].preset.name(),
                p.preset.name()
            ));
        }
    }
    for (i, p) in presets.iter().enumerate() {
        if presets[..i].iter().any(|q| q.preset == p.preset) {
            return Err(format!(
                "--plan-mix: invalid presets: got {} twice; allowed: two or more different \
                 presets",
                p.preset.name()
            ));
        }
    }
    for p in presets {
        if !(0.0..=super::MAX_GPU_HOUR_USD).contains(&p.gpu_hour_usd) {
            return Err(format!(
                "--plan-mix: invalid price of {}: got {:?}; allowed: 0 to {} dollars per \
                 GPU-hour",
                p.preset.name(),
                p.gpu_hour_usd,
                super::MAX_GPU_HOUR_USD
            ));
        }
    }
    Ok(())
}
