//! The planner's mix search: for one routing policy and two or more presets of one model,
//! the cheapest fleet (one count per preset) that meets the targets. Every pair of presets
//! is walked along its staircase (`mix_walk.rs`: for each count of the first, the fewest of
//! the second that meets, since more replicas are assumed never to hurt), points memoised
//! across pairs by their count vector; the cheapest frontier point over all pairs by its
//! price per hour is the start of local moves (`mix_local.rs`) that can reach a mix of
//! three or more presets. The answer is verified as the single-preset search's is: it
//! meets, and one replica fewer of each preset it has fails, each evaluated.

use std::collections::BTreeMap;

use serde::Serialize;

use super::mix_local::local_search;
use super::mix_walk::Walk;
use super::{Measured, PlanLimits, Runner, Slo};
use crate::config::{Config, Policy};
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

/// A policy's mix plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MixPlan {
    /// The routing policy.
    pub policy: String,
    /// The presets and their prices, in the order given.
    pub presets: Vec<MixPreset>,
    /// The cheapest mix found that meets every target, one count per preset (`None`: none
    /// within the largest fleet).
    pub answer: Option<Vec<u32>>,
    /// The answer was checked: it meets, and one replica fewer of each preset it has
    /// fails.
    pub verified: bool,
    /// The point at the answer.
    pub at_answer: Option<MixPoint>,
    /// Every pair's staircase, pairs in order ((0, 1), (0, 2), ..., (1, 2), ...): for each
    /// count of the pair's first preset, the fewest of its second that met (a point shared
    /// by two pairs listed once).
    pub frontier: Vec<Vec<u32>>,
    /// The local moves taken from the cheapest frontier point, in order, each to a cheaper
    /// mix of three or more presets that meets; the last is the answer.
    pub local_moves: Vec<Vec<u32>>,
    /// Pairs (p, q) of evaluated mixes where q has at least as many replicas of each
    /// preset as p, p meets and q fails: more replicas did worse.
    pub non_monotone: Vec<[Vec<u32>; 2]>,
    /// Every mix evaluated, by counts.
    pub points: Vec<MixPoint>,
}

/// Every (p, q) among `points` with q >= p in every count, p meeting and q failing.
fn inversions(points: &[MixPoint]) -> Vec<[Vec<u32>; 2]> {
    let mut out = Vec::new();
    for p in points.iter().filter(|p| p.meets) {
        for q in points.iter().filter(|q| !q.meets) {
            if q.counts.iter().zip(&p.counts).all(|(x, y)| x >= y) {
                out.push([p.counts.clone(), q.counts.clone()]);
            }
        }
    }
    out
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

/// Every pair's staircase, in pair order, each point listed once.
fn walk_pairs(walk: &mut Walk, max: u32) -> Result<Vec<Vec<u32>>, String> {
    let n = walk.presets.len();
    let mut frontier: Vec<Vec<u32>> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            for c in walk.pair_frontier((i, j), max)? {
                if !frontier.contains(&c) {
                    frontier.push(c);
                }
            }
        }
    }
    Ok(frontier)
}

/// Whether `c` meets and one replica fewer of each preset it has fails (a fleet of one
/// replica has nothing fewer to try).
fn verify(walk: &mut Walk, c: &[u32]) -> Result<bool, String> {
    let mut ok = walk.meets(c)?;
    if c.iter().sum::<u32>() > 1 {
        for k in (0..c.len()).filter(|&k| c[k] > 0) {
            let mut fewer = c.to_vec();
            fewer[k] -= 1;
            ok &= !walk.meets(&fewer)?;
        }
    }
    Ok(ok)
}

/// The cheapest mix of `presets` under `policy` that meets `slo`, on fleets of at most
/// `limits.max_replicas` replicas in all.
pub fn plan_mix(
    base: &Config,
    policy: Policy,
    presets: &[MixPreset],
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<MixPlan, String> {
    check_mix(presets)?;
    super::check_plan(base, limits)?;
    let mut cfg = base.clone();
    cfg.routing = policy;
    let mut walk = Walk {
        base: cfg,
        presets,
        slo,
        limits,
        runner,
        seen: BTreeMap::new(),
    };
    let frontier = walk_pairs(&mut walk, limits.max_replicas)?;
    let mut answer: Option<Vec<u32>> = None;
    for c in &frontier {
        if answer.as_ref().is_none_or(|best| cheaper(presets, c, best)) {
            answer = Some(c.clone());
        }
    }
    let local_moves = match &answer {
        Some(start) => local_search(&mut walk, start)?,
        None => Vec::new(),
    };
    if let Some(last) = local_moves.last() {
        answer = Some(last.clone());
    }
    let verified = match &answer {
        Some(c) => verify(&mut walk, c)?,
        None => false,
    };
    let points: Vec<MixPoint> = walk.seen.into_values().collect();
    Ok(MixPlan {
        policy: policy.name().to_string(),
        presets: presets.to_vec(),
        at_answer: answer
            .as_ref()
            .and_then(|c| points.iter().find(|p| &p.counts == c).cloned()),
        answer,
        verified,
        frontier,
        local_moves,
        non_monotone: inversions(&points),
        points,
    })
}
