//! The KV-bound finding: KV capacity, not the batch slots, is what limits how many
//! requests a replica runs at once. A replica admits a request only when its prompt
//! (under `preempt`) or its whole prompt and output (under `reserve`) fit in its cache, and
//! under `preempt` a request that grows past the room preempts another, so a cache that
//! holds one or two requests runs one or two, however many slots are free, and the rest
//! wait.
//!
//! Rule (thresholds are named constants): the cache is bounded, the fleet got at least
//! `MIN_REQUESTS_PER_REPLICA` requests per replica on average, and on average a replica
//! spent `WAIT_SHARE` of the run or more with a request waiting for KV room while a slot
//! was free (the engine's `kv_wait_us`). The statistic is a share of time, measured over
//! every step of the run rather than dealt by chance per request, so a smaller sample than
//! the load findings need suffices. A run limited by its slots (the head waits for a
//! slot) and a run where nothing waits never fire.

use super::{count, Finding, FindingKind};

/// Requests per replica below which the finding is not given.
pub const MIN_REQUESTS_PER_REPLICA: f64 = 10.0;
/// Share of the run a replica spends, on average, with a request waiting for KV room
/// while a slot is free, from which the finding fires.
pub const WAIT_SHARE: f64 = 0.25;

/// What the finding looks at, per replica (the engine's counters).
#[derive(Clone, Copy, Debug, Default)]
pub struct KvFacts {
    /// Requests routed to it.
    pub requests: u64,
    /// Time in steps, µs.
    pub busy_us: u64,
    /// Time a request waited for KV room while a slot was free, µs.
    pub kv_wait_us: u64,
    /// Running requests × time, request·µs.
    pub running_us: u64,
    /// Requests admitted.
    pub admissions: u64,
    /// KV blocks the admissions reserved, summed.
    pub admitted_kv_blocks: u64,
}

/// The fleet's limits and the run's length.
#[derive(Clone, Copy, Debug, Default)]
pub struct KvLimits {
    /// KV blocks per replica (`None`: unbounded).
    pub capacity_blocks: Option<u64>,
    /// Concurrency slots per replica.
    pub max_batch: u32,
    /// The run's makespan, µs.
    pub makespan_us: u64,
}

/// The fleet's figures behind the finding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvFigures {
    /// Mean over replicas of the share of the run spent waiting for KV with a slot free.
    pub wait_share: f64,
    /// Mean running requests while busy: Σ running_us / Σ busy_us.
    pub batch_mean: f64,
    /// Mean KV blocks an admitted request reserved.
    pub blocks_per_request: f64,
}

/// The fleet's figures, or `None` when nothing ran or the run has no length.
pub fn figures(rows: &[KvFacts], makespan_us: u64) -> Option<KvFigures> {
    let sum = |f: fn(&KvFacts) -> u64| rows.iter().map(f).sum::<u64>() as f64;
    let (busy, admissions) = (sum(|r| r.busy_us), sum(|r| r.admissions));
    if rows.is_empty() || makespan_us == 0 || busy == 0.0 || admissions == 0.0 {
        return None;
    }
    Some(KvFigures {
        wait_share: sum(|r| r.kv_wait_us) / (rows.len() as f64 * makespan_us as f64),
        batch_mean: sum(|r| r.running_us) / busy,
        blocks_per_request: sum(|r| r.admitted_kv_blocks) / admissions,
    })
}

/// "9" for a whole number of blocks, "9.3" otherwise.
fn blocks(x: f64) -> String {
    if (x - x.round()).abs() < 0.05 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The KV-bound finding, or `None` when the rule above does not hold.
pub fn kv_finding(rows: &[KvFacts], limits: KvLimits) -> Option<Finding> {
    let capacity = limits.capacity_blocks?;
    let mean = rows.iter().map(|r| r.requests as f64).sum::<f64>() / rows.len().max(1) as f64;
    if mean < MIN_REQUESTS_PER_REPLICA {
        return None;
    }
    let f = figures(rows, limits.makespan_us)?;
    if f.wait_share < WAIT_SHARE {
        return None;
    }
    let makespan = limits.makespan_us as f64;
    let replicas: Vec<u32> = (0..rows.len() as u32)
        .filter(|&r| rows[r as usize].kv_wait_us as f64 >= WAIT_SHARE * makespan)
        .collect();
    let fit = (capacity as f64 / f.blocks_per_request).floor();
    let requests = if fit == 1.0 { "request" } else { "requests" };
    let text = format!(
        "KV-bound: KV capacity, not the {} batch slots, limits how many requests run at once. A {}-block cache holds {} {requests} of {} blocks (prompt and output, before any sharing), so a busy replica ran {:.1} requests at once on average; a replica spent {:.0}% of the run, on average, with a request waiting for KV room while slots were free. More KV blocks per replica would let more run at once.",
        count(limits.max_batch as f64),
        count(capacity as f64),
        count(fit),
        blocks(f.blocks_per_request),
        f.batch_mean,
        100.0 * f.wait_share,
    );
    Some(Finding {
        kind: FindingKind::KvBound,
        replicas,
        text,
    })
}

#[cfg(test)]
mod tests;
