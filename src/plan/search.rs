//! The planner's two searches for one policy: the fewest replicas that meet the targets
//! (doubling to bracket, then bisection; or every size with `exhaustive`), and the
//! highest rate scale a fleet sustains (the same bracketing over the rate). A
//! disaggregated fleet is searched by its total, from 2 replicas: each total at its best
//! prefill:decode split (`best_split`).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::{cost, Cost, Measured, PlanLimits, Runner, Slo};
use crate::config::{Config, Policy};
use crate::noise::{spread, Spread};

/// Largest and smallest rate scales the goodput search tries.
const MAX_RATE_SCALE: f64 = 1024.0;
const MIN_RATE_SCALE: f64 = 1.0 / 1024.0;
/// The goodput search stops when its bracket is this narrow (hi / lo).
const RATE_PRECISION: f64 = 1.01;

/// One evaluated (policy, replicas, rate) point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Replicas in the fleet.
    pub instances: u32,
    /// Disaggregated fleet: the prefill replicas among `instances` (absent: colocated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill_instances: Option<u32>,
    /// Disaggregated fleet: the decode replicas, `instances - prefill_instances`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_instances: Option<u32>,
    /// Arrivals sped up this many times (1 = the workload as given).
    pub rate_scale: f64,
    /// Whether every target is met (on every seed).
    pub meets: bool,
    /// The targets missed ("ttft_p99", "tpot_p99", "e2e_p99", "rejected").
    pub misses: Vec<String>,
    /// The figures measured.
    pub measured: Measured,
    /// What the fleet costs.
    pub cost: Cost,
    /// Over several seeds (`--plan-seeds` above 1): each figure's spread over them (absent
    /// for one seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeds: Option<SeedSpread>,
}

/// The highest rate a fleet sustains within the targets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Goodput {
    /// The fleet's size.
    pub instances: u32,
    /// The highest rate scale found that meets the targets.
    pub rate_scale: f64,
    /// That scale as a rate: the workload's own rate x the scale.
    pub rate: f64,
    /// The rate's unit ("req/s" or "tasks/s").
    pub rate_unit: &'static str,
    /// True when even the largest scale tried (1024x, or the rate's own upper limit) met
    /// the targets: the goodput is at least `rate`.
    pub at_limit: bool,
    /// The point at that rate.
    pub at: Point,
    /// Every rate evaluated, lowest first.
    pub points: Vec<Point>,
}

/// A policy's plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyPlan {
    /// The routing policy.
    pub policy: String,
    /// The fewest replicas that meet every target (`None`: not within the largest fleet).
    pub min_replicas: Option<u32>,
    /// The answer was checked: it meets, and one replica fewer fails (or it is the
    /// smallest fleet: 1 replica, or 2 when disaggregated).
    pub verified: bool,
    /// The point at the answer.
    pub at_min: Option<Point>,
    /// Pairs (a, b), a < b, of evaluated sizes where a meets and b fails: more replicas
    /// did worse.
    pub non_monotone: Vec<[u32; 2]>,
    /// Every fleet size evaluated, smallest first.
    pub points: Vec<Point>,
    /// The highest rate the config's own fleet size sustains (`None`: not even at the
    /// smallest scale tried).
    pub goodput: Option<Goodput>,
    /// The least time a first token can take on any fleet of this engine, ms
    /// (`floor::ttft_floor_ms`).
    pub ttft_floor_ms: f64,
}

/// A fleet to evaluate: its replicas and, when disaggregated, the prefill ones among them.
#[derive(Clone, Copy, Debug)]
struct Fleet {
    instances: u32,
    prefill: Option<u32>,
}

impl Fleet {
    /// `base` resized to this fleet.
    fn apply(&self, base: &Config) -> Config {
        let mut cfg = base.clone();
        cfg.instances = self.instances;
        if let Some(p) = self.prefill {
            cfg.prefill_instances = Some(p);
            cfg.decode_instances = Some(self.instances - p);
        }
        cfg
    }

    /// `cfg`'s own fleet.
    fn of(cfg: &Config) -> Fleet {
        Fleet {
            instances: cfg.instances,
            prefill: cfg.pools().map(|p| p.prefill),
        }
    }
}

/// Evaluates one point on every seed (`noise::nth_seed`: seed, seed + 1, ...; `check_plan`
/// keeps them in range): the worse of each target over the seeds, and with several seeds
/// each figure's spread.
fn evaluate(
    base: &Config,
    fleet: Fleet,
    rate_scale: f64,
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<Point, String> {
    let sized = fleet.apply(base);
    let mut each = Vec::new();
    for k in 0..limits.seeds {
        let mut cfg = sized.clone();
        cfg.seed = crate::noise::nth_seed(base.seed, k);
        each.push(Measured::of(&runner.run(&cfg, rate_scale)?));
    }
    let seeds = (each.len() > 1).then(|| SeedSpread::of(&each, fleet.instances, limits));
    let mut measured = each[1..]
        .iter()
        .fold(each[0].clone(), |worst, m| worst.worst(m));
    if let Some(s) = &seeds {
        // The mean over all the seeds, each weighted alike (`worst` pairs them up).
        measured.hit_rate_tokens = s.hit_rate_tokens.mean;
    }
    let misses = slo.misses(&measured);
    Ok(Point {
        instances: fleet.instances,
        prefill_instances: fleet.prefill,
        decode_instances: fleet.prefill.map(|p| fleet.instances - p),
        rate_scale,
        meets: misses.is_empty(),
        misses,
        cost: cost(fleet.instances, &measured, limits),
        measured,
        seeds,
    })
}

/// A point's figures over its seeds, each with `noise::spread` (the definition
/// `--des-seeds` reports with).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeedSpread {
    /// p99 TTFT, ms.
    pub ttft_ms_p99: Spread,
    /// p99 TPOT, ms.
    pub tpot_ms_p99: Spread,
    /// p99 end-to-end, ms.
    pub e2e_ms_p99: Spread,
    /// (rejected + timed out) / requests.
    pub rejected_share: Spread,
    /// Share of prompt tokens served from cache.
    pub hit_rate_tokens: Spread,
    /// Each seed's price per million output tokens (its own makespan and tokens).
    pub usd_per_m_tokens: Spread,
}

impl SeedSpread {
    /// The spread of `each` seed's figures on a fleet of `replicas`.
    fn of(each: &[Measured], replicas: u32, limits: &PlanLimits) -> SeedSpread {
        let over = |f: fn(&Measured) -> f64| spread(&each.iter().map(f).collect::<Vec<_>>());
        let prices: Vec<f64> = each
            .iter()
            .map(|m| cost(replicas, m, limits).usd_per_m_tokens)
            .collect();
        SeedSpread {
            ttft_ms_p99: over(|m| m.ttft_ms_p99),
            tpot_ms_p99: over(|m| m.tpot_ms_p99),
            e2e_ms_p99: over(|m| m.e2e_ms_p99),
            rejected_share: over(|m| m.rejected_share),
            hit_rate_tokens: over(|m| m.hit_rate_tokens),
            usd_per_m_tokens: spread(&prices),
        }
    }
}

/// The smallest fleet `cfg`'s kind allows: 2 when disaggregated (a prefill and a decode
/// replica), else 1.
pub fn smallest_fleet(cfg: &Config) -> u32 {
    if cfg.pools().is_some() {
        2
    } else {
        1
    }
}

/// The prefill pool sizes a disaggregated fleet of `n` replicas can take: both pools at
/// least 1 and at most the largest pool (`prefill_instances`' upper limit).
fn prefill_sizes(n: u32) -> std::ops::RangeInclusive<u32> {
    let most = super::max_pool();
    n.saturating_sub(most).max(1)..=most.min(n - 1)
}

/// Which of two points of the same size is the better split: the one that meets, then
/// the one missing fewer targets, then the lower $/M tokens, then fewer prefill replicas.
fn split_order(a: &Point, b: &Point) -> Ordering {
    b.meets
        .cmp(&a.meets)
        .then(a.misses.len().cmp(&b.misses.len()))
        .then(a.cost.usd_per_m_tokens.total_cmp(&b.cost.usd_per_m_tokens))
        .then(a.prefill_instances.cmp(&b.prefill_instances))
}

/// A fleet of `n` replicas of `cfg`'s kind: colocated as is, or disaggregated at the best
/// prefill:decode split (`split_order`) of every split evaluated.
fn best_split(
    cfg: &Config,
    n: u32,
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<Point, String> {
    if cfg.pools().is_none() {
        let fleet = Fleet {
            instances: n,
            prefill: None,
        };
        return evaluate(cfg, fleet, 1.0, slo, limits, runner);
    }
    let mut best: Option<Point> = None;
    for p in prefill_sizes(n) {
        let fleet = Fleet {
            instances: n,
            prefill: Some(p),
        };
        let point = evaluate(cfg, fleet, 1.0, slo, limits, runner)?;
        if best
            .as_ref()
            .is_none_or(|b| split_order(&point, b) == Ordering::Less)
        {
            best = Some(point);
        }
    }
    Ok(best.expect("a fleet of 2 or more replicas has a split"))
}

/// The fewest replicas of `policy` that meet `slo`, then the goodput of `base`'s fleet.
pub fn plan_policy(
    base: &Config,
    policy: Policy,
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<PolicyPlan, String> {
    super::check_plan(base, limits)?;
    let mut cfg = base.clone();
    cfg.routing = policy;
    let least = smallest_fleet(&cfg);
    let mut seen: BTreeMap<u32, Point> = BTreeMap::new();
    let mut at = |n: u32| -> Result<bool, String> {
        if let Some(p) = seen.get(&n) {
            return Ok(p.meets);
        }
        let p = best_split(&cfg, n, slo, limits, runner)?;
        let meets = p.meets;
        seen.insert(n, p);
        Ok(meets)
    };
    let answer = if limits.exhaustive {
        let mut first = None;
        for n in least..=limits.max_replicas {
            if at(n)? && first.is_none() {
                first = Some(n);
            }
        }
        first
    } else {
        bracket(least, limits.max_replicas, &mut at)?
    };
    // One replica more than the answer, so an inversion right above it shows.
    if let Some(n) = answer.filter(|&n| n < limits.max_replicas) {
        at(n + 1)?;
    }
    let points: Vec<Point> = seen.into_values().collect();
    let meets_at = |n: u32| points.iter().find(|p| p.instances == n).map(|p| p.meets);
    let verified = answer.is_some_and(|n| {
        meets_at(n) == Some(true) && (n == least || meets_at(n - 1) == Some(false))
    });
    let goodput = goodput(&cfg, slo, limits, runner)?;
    Ok(PolicyPlan {
        policy: policy.name().to_string(),
        min_replicas: answer,
        verified,
        at_min: answer.and_then(|n| points.iter().find(|p| p.instances == n).cloned()),
        non_monotone: inversions(&points),
        points,
        goodput,
        ttft_floor_ms: super::floor::ttft_floor_ms(&cfg),
    })
}

/// Doubles from `least` until a size meets (or `max` fails), then bisects between the
/// last failing size and the first meeting one. Returns the smallest meeting size found.
fn bracket(
    least: u32,
    max: u32,
    at: &mut dyn FnMut(u32) -> Result<bool, String>,
) -> Result<Option<u32>, String> {
    let mut fail = least - 1;
    let mut n = least;
    let mut hi = loop {
        if at(n)? {
            break n;
        }
        fail = n;
        if n == max {
            return Ok(None);
        }
        n = n.saturating_mul(2).min(max);
    };
    while hi - fail > 1 {
        let mid = fail + (hi - fail) / 2;
        if at(mid)? {
            hi = mid;
        } else {
            fail = mid;
        }
    }
    Ok(Some(hi))
}

/// Every (a, b) with a < b among the evaluated points where a meets and b fails.
fn inversions(points: &[Point]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            if a.meets && !b.meets {
                out.push([a.instances, b.instances]);
            }
        }
    }
    out
}

/// The highest rate scale at which `cfg`'s own fleet meets the targets: doubling (or
/// halving) from 1 to bracket, then bisection to 1 %.
fn goodput(
    cfg: &Config,
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<Option<Goodput>, String> {
    let fleet = Fleet::of(cfg);
    let mut points: Vec<Point> = Vec::new();
    let at = |s: f64, points: &mut Vec<Point>| -> Result<bool, String> {
        let p = evaluate(cfg, fleet, s, slo, limits, runner)?;
        let meets = p.meets;
        points.push(p);
        Ok(meets)
    };
    let (min_scale, max_scale) = runner.scale_limits(cfg);
    let top = MAX_RATE_SCALE.min(max_scale);
    let bottom = MIN_RATE_SCALE.max(min_scale);
    let (mut lo, mut hi) = if at(1.0, &mut points)? {
        let mut lo = 1.0;
        loop {
            if lo >= top {
                break (lo, f64::INFINITY);
            }
            let up = (lo * 2.0).min(top);
            if !at(up, &mut points)? {
                break (lo, up);
            }
            lo = up;
        }
    } else {
        let mut hi = 1.0;
        loop {
            if hi <= bottom {
                return Ok(None);
            }
            let down = (hi / 2.0).max(bottom);
            if at(down, &mut points)? {
                break (down, hi);
            }
            hi = down;
        }
    };
    while hi.is_finite() && hi / lo > RATE_PRECISION {
        let mid = (lo + hi) / 2.0;
        if at(mid, &mut points)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    super::sort_small(&mut points, |a, b| a.rate_scale.total_cmp(&b.rate_scale));
    let at_lo = points
        .iter()
        .find(|p| p.rate_scale == lo)
        .cloned()
        .expect("the bracket's low end was evaluated");
    let (base_rate, unit) = runner.base_rate(cfg);
    Ok(Some(Goodput {
        instances: fleet.instances,
        rate_scale: lo,
        rate: base_rate * lo,
        rate_unit: unit,
        at_limit: hi.is_infinite(),
        at: at_lo,
        points,
    }))
}
