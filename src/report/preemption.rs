//! The report's preemption figures (`summary.preemption`, `per_instance[].preemption`):
//! present only under the `preempt` admission rule, so a `reserve` run's report is
//! unchanged.

use serde::Serialize;

use crate::config::Admission;
use crate::engine::ReplicaStats;

/// Preemptions for want of a KV block, and what they cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PreemptionReport {
    /// Running requests preempted because a decode step found no free KV block (the most
    /// recently admitted one each time).
    pub preemptions: u64,
    /// Tokens the resumed requests prefilled again that they had computed before their
    /// preemption, less the leading prompt blocks still cached when they resumed, tokens.
    pub recomputed_tokens: u64,
    /// Time the preempted requests lost, summed over requests: for each, from its
    /// preemption to the end of the step that finished its recomputation (when its next
    /// token came); a request preempted again before it recovered counts from its first
    /// preemption, once. ms.
    pub time_lost_ms: f64,
}

impl PreemptionReport {
    /// The figures of one replica's counters.
    pub fn of(stats: &ReplicaStats) -> PreemptionReport {
        PreemptionReport {
            preemptions: stats.preemptions,
            recomputed_tokens: stats.recomputed_tokens,
            time_lost_ms: stats.preempt_lost_us as f64 / 1000.0,
        }
    }

    /// The fleet's figures: the replicas' summed.
    pub fn sum<'a>(stats: impl Iterator<Item = &'a ReplicaStats>) -> PreemptionReport {
        let (mut n, mut tokens, mut lost_us) = (0, 0, 0);
        for s in stats {
            n += s.preemptions;
            tokens += s.recomputed_tokens;
            lost_us += s.preempt_lost_us;
        }
        PreemptionReport {
            preemptions: n,
            recomputed_tokens: tokens,
            time_lost_ms: lost_us as f64 / 1000.0,
        }
    }

    /// Whether a run under `admission` reports preemptions at all.
    pub fn reported(admission: Admission) -> bool {
        admission == Admission::Preempt
    }
}
