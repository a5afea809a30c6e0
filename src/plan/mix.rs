//! The planner's mix search: for one routing policy and two presets of one model, the
//! cheapest fleet of `a` replicas of the first and `b` of the second that meets the
//! targets. A staircase walk over the frontier (for each `a` from 0, the fewest `b` that
//! meets, never more than the previous `a`'s, since more replicas of the first preset
//! are assumed never to hurt), then the cheapest frontier point by its price per hour.
//! The answer is verified as the single-preset search's is: it meets, and one replica
//! fewer of either preset fails, each evaluated.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Measured, PlanLimits, Runner, Slo};
use crate::config::{Config, Policy};
use crate::timing::EnginePreset;

/// One of the two presets a mix is made of, with its price.
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
    pub counts: [u32; 2],
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
    /// The two presets and their prices.
    pub presets: [MixPreset; 2],
    /// The cheapest mix that meets every target (`None`: none within the largest fleet).
    pub answer: Option<[u32; 2]>,
    /// The answer was checked: it meets, and one replica fewer of each preset it has
    /// fails.
    pub verified: bool,
    /// The point at the answer.
    pub at_answer: Option<MixPoint>,
    /// For each count of the first preset on the walk, the fewest of the second that
    /// met.
    pub frontier: Vec<[u32; 2]>,
    /// Pairs (p, q) of evaluated mixes where q has at least as many replicas of each
    /// preset as p, p meets and q fails: more replicas did worse.
    pub non_monotone: Vec<[[u32; 2]; 2]>,
    /// Every mix evaluated, by counts.
    pub points: Vec<MixPoint>,
}

/// Every (p, q) among `points` with q >= p in both counts, p meeting and q failing.
fn inversions(points: &[MixPoint]) -> Vec<[[u32; 2]; 2]> {
    let mut out = Vec::new();
    for p in points.iter().filter(|p| p.meets) {
        for q in points.iter().filter(|q| !q.meets) {
            if q.counts[0] >= p.counts[0] && q.counts[1] >= p.counts[1] {
                out.push([p.counts, q.counts]);
            }
        }
    }
    out
}

/// `base` as a fleet of `counts` replicas of `presets` (a group of 0 left out).
pub fn mix_config(base: &Config, presets: &[MixPreset; 2], counts: [u32; 2]) -> Config {
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
    cfg.instances = counts[0] + counts[1];
    cfg.engine = groups.first().map_or(base.engine, |g| g.1);
    cfg
}

/// The price per hour of `counts` replicas of `presets`, and their GPUs.
pub fn mix_price(presets: &[MixPreset; 2], counts: [u32; 2]) -> (u32, f64) {
    let gpus = |i: usize| counts[i] * presets[i].preset.gpus();
    let usd = |i: usize| gpus(i) as f64 * presets[i].gpu_hour_usd;
    (gpus(0) + gpus(1), usd(0) + usd(1))
}

/// Checks the two presets: different, with hardware, of one model, each priced within
/// the planner's bounds.
pub fn check_mix(presets: &[MixPreset; 2]) -> Result<(), String> {
    let text = format!(
        "1:{},1:{}",
        presets[0].preset.name(),
        presets[1].preset.name()
    );
    crate::config::parse_fleet(&text).map_err(|e| format!("--plan-mix: {e}"))?;
    if presets[0].preset == presets[1].preset {
        return Err(format!(
            "--plan-mix: invalid presets: got {} twice; allowed: two different presets",
            presets[0].preset.name()
        ));
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

/// The evaluations of one mix plan, memoised by counts.
struct Walk<'a> {
    base: Config,
    presets: [MixPreset; 2],
    slo: &'a Slo,
    limits: &'a PlanLimits,
    runner: &'a dyn Runner,
    seen: BTreeMap<[u32; 2], MixPoint>,
}

impl Walk<'_> {
    /// Whether `counts` meets the targets (evaluated once, on every seed).
    fn meets(&mut self, counts: [u32; 2]) -> Result<bool, String> {
        if let Some(p) = self.seen.get(&counts) {
            return Ok(p.meets);
        }
        let sized = mix_config(&self.base, &self.presets, counts);
        let mut worst: Option<Measured> = None;
        for k in 0..self.limits.seeds {
            let mut cfg = sized.clone();
            cfg.seed = crate::noise::nth_seed(self.base.seed, k);
            let m = Measured::of(&self.runner.run(&cfg, 1.0)?);
            worst = Some(worst.map_or(m.clone(), |w| w.worst(&m)));
        }
        let measured = worst.expect("at least one seed");
        let misses = self.slo.misses(&measured);
        let (gpus, usd_per_hour) = mix_price(&self.presets, counts);
        let meets = misses.is_empty();
        self.seen.insert(
            counts,
            MixPoint {
                counts,
                meets,
                misses,
                measured,
                gpus,
                usd_per_hour,
            },
        );
        Ok(meets)
    }

    /// The fewest replicas of the second preset alone that meet: doubling, then
    /// bisection (as the single-preset search).
    fn fewest_second_alone(&mut self, max: u32) -> Result<Option<u32>, String> {
        let (mut fail, mut n) = (0, 1);
        let mut hi = loop {
            if self.meets([0, n])? {
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
            if self.meets([0, mid])? {
                hi = mid;
            } else {
                fail = mid;
            }
        }
        Ok(Some(hi))
    }

    /// The staircase: for each `a`, the fewest `b` (at most the previous answer, and
    /// `a + b` at most `max`) that meets.
    fn frontier(&mut self, max: u32) -> Result<Vec<[u32; 2]>, String> {
        let mut out = Vec::new();
        let mut b = match self.fewest_second_alone(max)? {
            Some(b) => {
                out.push([0, b]);
                b
            }
            None => max,
        };
        for a in 1..=max {
            let mut here = b.min(max - a);
            if !self.meets([a, here])? {
                continue;
            }
            while here > 0 && (a > 0 || here > 1) && self.meets([a, here - 1])? {
                here -= 1;
            }
            out.push([a, here]);
            b = here;
            if here == 0 {
                break;
            }
        }
        Ok(out)
    }
}

/// The cheapest mix of `presets` under `policy` that meets `slo`, on fleets of at most
/// `limits.max_replicas` replicas in all.
pub fn plan_mix(
    base: &Config,
    policy: Policy,
    presets: [MixPreset; 2],
    slo: &Slo,
    limits: &PlanLimits,
    runner: &dyn Runner,
) -> Result<MixPlan, String> {
    check_mix(&presets)?;
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
    let frontier = walk.frontier(limits.max_replicas)?;
    let price = |c: [u32; 2]| mix_price(&presets, c).1;
    let mut answer: Option<[u32; 2]> = None;
    for &c in &frontier {
        // The lower price, then fewer replicas, then fewer of the first preset.
        let better = answer.is_none_or(|best| {
            let key = |x: [u32; 2]| (price(x), x[0] + x[1], x[0]);
            let (p, q) = (key(c), key(best));
            p.0 < q.0 || (p.0 == q.0 && (p.1, p.2) < (q.1, q.2))
        });
        if better {
            answer = Some(c);
        }
    }
    let mut verified = false;
    if let Some([a, b]) = answer {
        let fewer_a = a == 0 || a + b == 1 || !walk.meets([a - 1, b])?;
        let fewer_b = b == 0 || a + b == 1 || !walk.meets([a, b - 1])?;
        verified = walk.meets([a, b])? && fewer_a && fewer_b;
    }
    let points: Vec<MixPoint> = walk.seen.into_values().collect();
    Ok(MixPlan {
        policy: policy.name().to_string(),
        presets,
        answer,
        verified,
        at_answer: answer.and_then(|c| points.iter().find(|p| p.counts == c).cloned()),
        frontier,
        non_monotone: inversions(&points),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Summary;

    /// Meets when 2a + 3b >= 13 (a TTFT p99 of 100 ms, else 1000 ms against 500).
    struct Linear;

    impl Runner for Linear {
        fn run(&self, cfg: &Config, _scale: f64) -> Result<Summary, String> {
            let groups = cfg.fleet_groups().unwrap_or_default();
            let count = |p: EnginePreset| {
                groups
                    .iter()
                    .filter(|g| g.preset == p)
                    .map(|g| g.count)
                    .sum::<u32>()
            };
            let (a, b) = (
                count(EnginePreset::Llama3_8bH100),
                count(EnginePreset::Llama3_8bB200),
            );
            let ok = 2 * a + 3 * b >= 13;
            Ok(Summary {
                requests: 1,
                completed: 1,
                ttft_ms_p99: if ok { 100.0 } else { 1000.0 },
                output_tokens: 1,
                makespan_s: 1.0,
                ..Summary::default()
            })
        }

        fn base_rate(&self, _cfg: &Config) -> (f64, &'static str) {
            (1.0, "req/s")
        }
    }

    fn plan(prices: [f64; 2]) -> MixPlan {
        let presets = [
            MixPreset {
                preset: EnginePreset::Llama3_8bH100,
                gpu_hour_usd: prices[0],
            },
            MixPreset {
                preset: EnginePreset::Llama3_8bB200,
                gpu_hour_usd: prices[1],
            },
        ];
        let slo = Slo {
            ttft_p99_ms: Some(500.0),
            tpot_p99_ms: None,
            e2e_p99_ms: None,
            max_rejected: 0.0,
            sustained: true,
        };
        let limits = PlanLimits {
            max_replicas: 16,
            seeds: 1,
            exhaustive: false,
            gpus_per_replica: 1,
            gpu_hour_usd: 2.5,
        };
        plan_mix(
            &Config::default(),
            Policy::Kv,
            presets,
            &slo,
            &limits,
            &Linear,
        )
        .unwrap()
    }

    #[test]
    fn the_staircase_finds_each_fewest_and_the_cheapest() {
        // 2a + 3b >= 13: the fewest b for a = 0..7 is ceil((13 - 2a) / 3), never more than
        // the previous: 5, 4, 3, 3, 2, 1, 1, 0.
        let p = plan([2.0, 3.0]);
        let want: Vec<[u32; 2]> = vec![
            [0, 5],
            [1, 4],
            [2, 3],
            [3, 3],
            [4, 2],
            [5, 1],
            [6, 1],
            [7, 0],
        ];
        assert_eq!(p.frontier, want);
        // At $2 and $3 per GPU-hour: $15, 14, 13, 15, 14, 13, 15, 14. Two tie at $13 and
        // the fewer replicas win: 2 + 3, a true mix. 1 + 3 (11) and 2 + 2 (10) fail.
        assert_eq!(p.answer, Some([2, 3]));
        assert!(p.verified);
        assert_eq!(p.at_answer.as_ref().unwrap().usd_per_hour, 13.0);
        for fewer in [[1, 3], [2, 2]] {
            assert!(p.points.iter().any(|x| x.counts == fewer && !x.meets));
        }
        assert!(p.non_monotone.is_empty());
        // At $1 and $3 seven of the first alone are cheapest ($7); six (12) fail.
        let p = plan([1.0, 3.0]);
        assert_eq!((p.answer, p.verified), (Some([7, 0]), true));
        // At $3 and $2 five of the second alone ($10); four (12) fail.
        let p = plan([3.0, 2.0]);
        assert_eq!((p.answer, p.verified), (Some([0, 5]), true));
    }
}
