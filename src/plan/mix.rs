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

use super::mix_fleet::{cheaper, check_mix, MixPoint, MixPreset};
use super::mix_local::local_search;
use super::mix_walk::Walk;
use super::{PlanLimits, Runner, Slo};
use crate::config::{Config, Policy};

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
    /// The least time a first token can take on any mix of these presets, ms
    /// (`floor::presets_floor_ms`).
    pub ttft_floor_ms: f64,
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
        ttft_floor_ms: super::floor::presets_floor_ms(
            &presets.iter().map(|p| p.preset).collect::<Vec<_>>(),
        ),
    })
}
