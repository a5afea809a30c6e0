//! Ties between equally good replicas. Under `tie_break: random` the `k`-th replica found
//! equal to the best so far takes its place with probability 1/k, drawn from the run's
//! tie stream, so each of the equals wins with probability 1/(number of equals): the
//! reservoir of Dynamo's `minimum_cost_index` (ai-dynamo/dynamo
//! `lib/kv-router/src/scheduling/selector/default.rs` at commit a4bdb9bf), which draws
//! `fastrand::usize(0..tie_count) == 0`. Under `lowest` the first (lowest index) stays.
//! Nothing is drawn without a tie, so runs without ties draw exactly as before.

use crate::config::TieBreak;
use crate::rng::{Rng, Stream};

/// A tie rule and its stream.
#[derive(Clone, Debug)]
pub struct Ties {
    rule: TieBreak,
    rng: Rng,
}

impl Ties {
    /// The rule for router replica `nth` under the run's `seed`.
    pub fn new(rule: TieBreak, seed: u64, nth: u32) -> Ties {
        Ties {
            rule,
            rng: Rng::fork_nth(seed, Stream::Ties, nth),
        }
    }

    /// The rule in force.
    pub fn rule(&self) -> TieBreak {
        self.rule
    }

    /// Whether the `count`-th equal of the best so far (`count` ≥ 2) takes its place.
    pub fn takes(&mut self, count: u64) -> bool {
        match self.rule {
            TieBreak::Lowest => false,
            TieBreak::Random => self.rng.below(count) == 0,
        }
    }

    /// One of `equals` (replica indices in ascending order), by the rule.
    pub fn among(&mut self, equals: impl IntoIterator<Item = usize>) -> Option<usize> {
        let mut chosen = None;
        let mut count = 0;
        for r in equals {
            count += 1;
            if chosen.is_none() || self.takes(count) {
                chosen = Some(r);
            }
        }
        chosen
    }

    /// The index of the lowest value; equals by the rule.
    pub fn argmin(&mut self, values: impl IntoIterator<Item = f64>) -> usize {
        let mut best: Option<(f64, usize)> = None;
        let mut count = 0;
        for (i, v) in values.into_iter().enumerate() {
            if best.is_none_or(|(b, _)| v < b) {
                best = Some((v, i));
                count = 1;
            } else if best.is_some_and(|(b, _)| v == b) {
                count += 1;
                if self.takes(count) {
                    best = Some((v, i));
                }
            }
        }
        best.map_or(0, |(_, i)| i)
    }

    /// The index of the highest value; equals by the rule.
    pub fn argmax(&mut self, values: impl IntoIterator<Item = f64>) -> usize {
        self.argmin(values.into_iter().map(|v| -v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three equal lowest values among five: over 30,000 picks each wins about a third,
    /// the others never; `lowest` always takes the first.
    #[test]
    fn random_ties_are_uniform_among_the_equals_only() {
        let values = [3.0, 1.0, 2.0, 1.0, 1.0];
        let mut ties = Ties::new(TieBreak::Random, 42, 0);
        let mut wins = [0u32; 5];
        for _ in 0..30_000 {
            wins[ties.argmin(values)] += 1;
        }
        assert_eq!((wins[0], wins[2]), (0, 0));
        for r in [1, 3, 4] {
            assert!((9_500..10_500).contains(&wins[r]), "{wins:?}");
        }
        let mut lowest = Ties::new(TieBreak::Lowest, 42, 0);
        assert_eq!(lowest.argmin(values), 1);
        assert_eq!(lowest.argmax(values), 0);
        assert_eq!(lowest.among([2, 4]), Some(2));
    }

    /// No tie, no draw: the stream is where it started.
    #[test]
    fn no_tie_draws_nothing() {
        let mut ties = Ties::new(TieBreak::Random, 7, 0);
        assert_eq!(ties.argmin([2.0, 1.0, 3.0]), 1);
        let mut fresh = Rng::fork_nth(7, Stream::Ties, 0);
        assert_eq!(ties.rng.next_u64(), fresh.next_u64());
    }
}
