//! The decision log: one record per routing decision in a range of request ids (every
//! candidate's terms as the router saw them and as they were, the pick and its outcome).

use serde::Serialize;

use crate::engine::Outbox;
use crate::router::{Candidate, Reason};

/// One routing decision, as written to the decision log.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// Request id.
    pub id: u32,
    /// Arrival time, seconds.
    pub arrival_s: f64,
    /// The router replica that decided (arrivals are dealt to the routers in turn).
    pub router: u32,
    /// Full prompt blocks the router scored.
    pub request_blocks: u32,
    /// Every replica's terms and cost.
    pub candidates: Vec<Candidate>,
    /// The replica picked.
    pub chosen: u32,
    /// Why: the policy's choice, session affinity (`sticky`), or a `spill`.
    pub reason: Reason,
    /// The branch of a zoo policy's rule that decided (`imbalanced`, `match`, `miss`,
    /// `fallback`, `sampled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
    /// The request's session, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<u32>,
    /// Admission time, seconds (null if never admitted).
    pub admit_s: Option<f64>,
    /// Leading blocks found in the chosen replica's cache at admission.
    pub cached_blocks: Option<u32>,
    /// Time to first token from arrival, ms.
    pub ttft_ms: Option<f64>,
    /// End-to-end latency, ms.
    pub e2e_ms: Option<f64>,
    /// Whether the replica refused the request (queue full, or too large to ever fit).
    pub rejected: bool,
    /// Whether the caller's timeout dropped it.
    pub timed_out: bool,
    /// Each time the request was preempted for want of a KV block (`preempt` admission),
    /// in order; absent when never.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preemptions: Vec<PreemptionRecord>,
}

/// One preemption of a request, in the decision log.
#[derive(Clone, Debug, Serialize)]
pub struct PreemptionRecord {
    /// The replica that preempted it.
    pub replica: u32,
    /// When, seconds.
    pub at_s: f64,
    /// KV blocks it held and gave back (shared prompt blocks and private ones).
    pub blocks_freed: u64,
    /// Tokens it had generated.
    pub generated: u32,
    /// When it was admitted again, seconds (null if never).
    pub resumed_s: Option<f64>,
    /// Leading prompt blocks still cached when it was admitted again.
    pub resumed_cached_blocks: Option<u32>,
    /// Tokens it had computed before and computed again on resuming.
    pub recomputed_tokens: Option<u32>,
}

/// Moves the outbox's preemptions and resumptions into the log's records (and drops
/// them when there is no log).
pub(super) fn note_preemptions(log: Option<&mut DecisionLog>, out: &mut Outbox) {
    let Some(log) = log else {
        out.preempted.clear();
        out.resumed.clear();
        return;
    };
    for p in out.preempted.drain(..) {
        if let Some(d) = log.get_mut(p.id) {
            d.preemptions.push(PreemptionRecord {
                replica: p.replica,
                at_s: p.at_us as f64 / 1e6,
                blocks_freed: p.blocks_freed,
                generated: p.generated,
                resumed_s: None,
                resumed_cached_blocks: None,
                recomputed_tokens: None,
            });
        }
    }
    for r in out.resumed.drain(..) {
        let last = log.get_mut(r.id).and_then(|d| d.preemptions.last_mut());
        if let Some(p) = last {
            p.resumed_s = Some(r.at_us as f64 / 1e6);
            p.resumed_cached_blocks = Some(r.hit_blocks);
            p.recomputed_tokens = Some(r.recomputed_tokens);
        }
    }
}

/// The records of requests `first .. first + count` (ids are arrival positions).
#[derive(Debug, Default)]
pub struct DecisionLog {
    first: u32,
    count: u32,
    records: Vec<Decision>,
}

impl DecisionLog {
    /// A log of the requests with ids `first .. first + count`.
    pub fn new(first: u32, count: u32) -> DecisionLog {
        DecisionLog {
            first,
            count,
            records: Vec::new(),
        }
    }

    /// Whether request `id` is in the log's range.
    pub fn wants(&self, id: u32) -> bool {
        id >= self.first && id - self.first < self.count
    }

    /// Adds the decision of request `id`, kept in id order. Requests are routed in id
    /// order unless the routers have cores (a request may then finish its router CPU
    /// time before an earlier one, or be refused and have no record): it then goes in
    /// its place, near the end.
    pub fn push(&mut self, d: Decision) {
        if self.records.last().is_none_or(|last| last.id < d.id) {
            self.records.push(d);
        } else {
            let at = self.records.partition_point(|x| x.id < d.id);
            self.records.insert(at, d);
        }
    }

    /// The record of request `id`, if logged.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Decision> {
        if !self.wants(id) {
            return None;
        }
        let direct = (id - self.first) as usize;
        if self.records.get(direct).is_some_and(|d| d.id == id) {
            return self.records.get_mut(direct);
        }
        let at = self.records.partition_point(|x| x.id < id);
        self.records.get_mut(at).filter(|d| d.id == id)
    }

    /// The records, in id order.
    pub fn records(&self) -> &[Decision] {
        &self.records
    }

    /// Takes the records out.
    pub fn take(self) -> Vec<Decision> {
        self.records
    }
}
