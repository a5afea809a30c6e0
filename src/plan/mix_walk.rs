//! The mix search's evaluations, memoised by count vector, and its staircase walk over one
//! pair of presets: for each count of the first, the fewest of the second that meets (more
//! replicas of either assumed never to hurt).

use std::collections::BTreeMap;

use super::mix_fleet::{mix_config, mix_price, MixPoint, MixPreset};
use super::{Measured, PlanLimits, Runner, Slo};
use crate::config::Config;

/// The evaluations of one mix plan, memoised by counts (one count per preset, in order).
pub(super) struct Walk<'a> {
    pub base: Config,
    pub presets: &'a [MixPreset],
    pub slo: &'a Slo,
    pub limits: &'a PlanLimits,
    pub runner: &'a dyn Runner,
    pub seen: BTreeMap<Vec<u32>, MixPoint>,
}

impl Walk<'_> {
    /// Whether `counts` meets the targets (evaluated once, on every seed).
    pub fn meets(&mut self, counts: &[u32]) -> Result<bool, String> {
        if let Some(p) = self.seen.get(counts) {
            return Ok(p.meets);
        }
        let sized = mix_config(&self.base, self.presets, counts);
        let mut worst: Option<Measured> = None;
        for k in 0..self.limits.seeds {
            let mut cfg = sized.clone();
            cfg.seed = crate::noise::nth_seed(self.base.seed, k);
            let m = Measured::of(&self.runner.run(&cfg, 1.0)?);
            worst = Some(worst.map_or(m.clone(), |w| w.worst(&m)));
        }
        let measured = worst.expect("at least one seed");
        let misses = self.slo.misses(&measured);
        let (gpus, usd_per_hour) = mix_price(self.presets, counts);
        let meets = misses.is_empty();
        self.seen.insert(
            counts.to_vec(),
            MixPoint {
                counts: counts.to_vec(),
                meets,
                misses,
                measured,
                gpus,
                usd_per_hour,
            },
        );
        Ok(meets)
    }

    /// The count vector with `a` of preset `i` and `b` of preset `j`, none of the others.
    fn at(&self, (i, j): (usize, usize), a: u32, b: u32) -> Vec<u32> {
        let mut c = vec![0; self.presets.len()];
        c[i] = a;
        c[j] = b;
        c
    }

    /// The fewest replicas of preset `j` alone that meet: doubling, then bisection (as
    /// the single-preset search).
    fn fewest_alone(&mut self, pair: (usize, usize), max: u32) -> Result<Option<u32>, String> {
        let (mut fail, mut n) = (0, 1);
        let mut hi = loop {
            if self.meets(&self.at(pair, 0, n))? {
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
            if self.meets(&self.at(pair, 0, mid))? {
                hi = mid;
            } else {
                fail = mid;
            }
        }
        Ok(Some(hi))
    }

    /// The staircase of the pair (`i`, `j`): for each count `a` of preset `i`, the fewest
    /// `b` of preset `j` (at most the previous answer, and `a + b` at most `max`) that
    /// meets.
    pub fn pair_frontier(
        &mut self,
        pair: (usize, usize),
        max: u32,
    ) -> Result<Vec<Vec<u32>>, String> {
        let mut out = Vec::new();
        let mut b = match self.fewest_alone(pair, max)? {
            Some(b) => {
                out.push(self.at(pair, 0, b));
                b
            }
            None => max,
        };
        for a in 1..=max {
            let mut here = b.min(max - a);
            if !self.meets(&self.at(pair, a, here))? {
                continue;
            }
            while here > 0 && self.meets(&self.at(pair, a, here - 1))? {
                here -= 1;
            }
            out.push(self.at(pair, a, here));
            b = here;
            if here == 0 {
                break;
            }
        }
        Ok(out)
    }
}
