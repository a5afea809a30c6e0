//! Trace analysis: size, rate, lengths, block reuse ceilings, first-block spread, and
//! plain-word hazard notes when the content or the timing defeats a policy.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cache::IdMap;
use crate::Request;

/// Share of requests behind one first block above which `prefix_aware` has a hot spot.
const HOT_FIRST_BLOCK_SHARE: f64 = 0.25;
/// Share of same-instant arrivals above which the trace is called bursty.
const BURST_SHARE: f64 = 0.5;
/// Shortest gap (µs) above which requests are assumed never to overlap.
const NO_OVERLAP_GAP_US: u64 = 60_000_000;
/// Block-level ceiling below which routing for locality cannot help much.
const LOW_REUSE: f64 = 0.05;

/// What a request list offers a prefix cache, before any simulation. Counts are over
/// the requests given; lengths are tokens; p99 is the nearest-rank 99th percentile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceAnalysis {
    pub requests: u64,
    pub block_size: u32,
    /// Last arrival minus first arrival, seconds.
    pub duration_s: f64,
    /// Arrivals per second: (requests - 1) over the duration, the same estimate the
    /// report's `offered_rate` uses; `None` when all arrive at once.
    pub offered_rate_per_s: Option<f64>,
    pub input_tokens_avg: f64,
    pub input_tokens_p99: u32,
    pub input_tokens_max: u32,
    pub output_tokens_avg: f64,
    pub output_tokens_p99: u32,
    /// Block ids over all requests (partial last blocks included).
    pub blocks: u64,
    pub distinct_blocks: u64,
    /// 1 − distinct/total over block ids: the block reuse of one infinite cache.
    pub hit_ceiling: f64,
    /// Cached tokens / prompt tokens of one infinite cache replaying in order, under the
    /// simulator's rules (only full blocks cached; at most `floor((prompt − 1) / block)`
    /// blocks reused; a hit is the leading run of cached blocks; no overlap).
    pub token_hit_ceiling: f64,
    pub distinct_first_blocks: u64,
    /// The most common first block (lowest id on a tie) and how many requests start with it.
    pub top_first_block: Option<u64>,
    pub top_first_block_requests: u64,
    /// Requests with no block ids (no content: they can never hit).
    pub requests_without_ids: u64,
    /// Share of requests after the first that arrive at the same µs as the one before.
    pub same_instant_share: f64,
    /// Shortest gap between consecutive arrivals, seconds (`None` for fewer than 2).
    pub min_gap_s: Option<f64>,
    /// Plain-word warnings, one sentence each.
    pub hazards: Vec<String>,
}

/// Analyses `requests` (in arrival order) with blocks of `block_size` tokens.
pub fn analyze(requests: &[Request], block_size: u32) -> TraceAnalysis {
    let block_size = block_size.max(1);
    let inputs = length_stats(requests.iter().map(|r| r.prompt_tokens));
    let outputs = length_stats(requests.iter().map(|r| r.output_tokens));
    let blocks = block_stats(requests, block_size);
    let firsts = first_block_stats(requests);
    let arrivals = arrival_stats(requests);
    let duration_s = arrivals.duration_us as f64 / 1e6;
    let mut analysis = TraceAnalysis {
        requests: requests.len() as u64,
        block_size,
        duration_s,
        offered_rate_per_s: (duration_s > 0.0).then(|| (requests.len() - 1) as f64 / duration_s),
        input_tokens_avg: inputs.avg,
        input_tokens_p99: inputs.p99,
        input_tokens_max: inputs.max,
        output_tokens_avg: outputs.avg,
        output_tokens_p99: outputs.p99,
        blocks: blocks.total,
        distinct_blocks: blocks.distinct,
        hit_ceiling: ratio(blocks.total - blocks.distinct, blocks.total),
        token_hit_ceiling: ratio(blocks.cached_tokens, blocks.prompt_tokens),
        distinct_first_blocks: firsts.distinct,
        top_first_block: firsts.top,
        top_first_block_requests: firsts.top_requests,
        requests_without_ids: requests.iter().filter(|r| r.block_ids.is_empty()).count() as u64,
        same_instant_share: arrivals.same_instant_share,
        min_gap_s: arrivals.min_gap_us.map(|us| us as f64 / 1e6),
        hazards: Vec::new(),
    };
    analysis.hazards = hazards(&analysis);
    analysis
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

struct LengthStats {
    avg: f64,
    p99: u32,
    max: u32,
}

fn length_stats(values: impl Iterator<Item = u32>) -> LengthStats {
    let mut sorted: Vec<u32> = values.collect();
    sorted.sort_unstable();
    let n = sorted.len();
    if n == 0 {
        return LengthStats {
            avg: 0.0,
            p99: 0,
            max: 0,
        };
    }
    let sum: u64 = sorted.iter().map(|&v| u64::from(v)).sum();
    // Nearest rank: the ceil(0.99 n)-th smallest value.
    let rank = (99 * n).div_ceil(100);
    LengthStats {
        avg: sum as f64 / n as f64,
        p99: sorted[rank.max(1) - 1],
        max: sorted[n - 1],
    }
}

struct BlockStats {
    total: u64,
    distinct: u64,
    cached_tokens: u64,
    prompt_tokens: u64,
}

/// Block counts, and one infinite cache replayed in order under the simulator's rules.
/// One table holds every id seen, with whether a request has cached it as a full block.
fn block_stats(requests: &[Request], block_size: u32) -> BlockStats {
    let total: usize = requests.iter().map(|r| r.block_ids.len()).sum();
    let mut seen = SeenBlocks::for_requests(requests, total);
    let mut stats = BlockStats {
        total: total as u64,
        distinct: 0,
        cached_tokens: 0,
        prompt_tokens: 0,
    };
    for request in requests {
        let ids = &request.block_ids;
        stats.prompt_tokens += u64::from(request.prompt_tokens);
        let reusable =
            ((request.prompt_tokens.saturating_sub(1) / block_size) as usize).min(ids.len());
        let hits = ids[..reusable]
            .iter()
            .take_while(|&&id| seen.is_cached(id))
            .count();
        stats.cached_tokens += hits as u64 * u64::from(block_size);
        let full = ((request.prompt_tokens / block_size) as usize).min(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            stats.distinct += u64::from(seen.see(id, i < full));
        }
    }
    stats
}

/// Ids below this many slots per block id of the trace (plus `DENSE_EXTRA_SLOTS`) are
/// kept in an array of one byte per id rather than a hash map.
const DENSE_SLOTS_PER_BLOCK: u64 = 4;
/// Slots the array may always have, whatever the trace.
const DENSE_EXTRA_SLOTS: u64 = 4096;

/// The block ids seen so far and whether one was cached as a full block: for small
/// dense ids (real traces number their blocks from 0) one byte per id (0 unseen, 1 seen,
/// 2 cached), otherwise a map. Never iterated, so the choice cannot change a result.
enum SeenBlocks {
    Dense(Vec<u8>),
    Sparse(IdMap<bool>),
}

impl SeenBlocks {
    /// A table for the ids of `requests`, `total` of them.
    fn for_requests(requests: &[Request], total: usize) -> SeenBlocks {
        let max_id = requests
            .iter()
            .flat_map(|r| r.block_ids.iter().copied())
            .max();
        let allowed = (total as u64)
            .saturating_mul(DENSE_SLOTS_PER_BLOCK)
            .saturating_add(DENSE_EXTRA_SLOTS);
        match max_id {
            Some(id) if id < allowed => SeenBlocks::Dense(vec![0; id as usize + 1]),
            // Sized for traces of a few hundred thousand blocks; larger ones grow as they go.
            _ => SeenBlocks::Sparse(IdMap::with_capacity_and_hasher(
                total.min(1 << 18),
                Default::default(),
            )),
        }
    }

    /// Whether `id` was cached as a full block.
    fn is_cached(&self, id: u64) -> bool {
        match self {
            SeenBlocks::Dense(states) => states[id as usize] == 2,
            SeenBlocks::Sparse(map) => map.get(&id) == Some(&true),
        }
    }

    /// Records `id` (as cached when `full`); whether it was first seen now.
    fn see(&mut self, id: u64, full: bool) -> bool {
        match self {
            SeenBlocks::Dense(states) => {
                let state = &mut states[id as usize];
                let new = *state == 0;
                *state = (*state).max(1 + u8::from(full));
                new
            }
            SeenBlocks::Sparse(map) => {
                let before = map.len();
                *map.entry(id).or_insert(false) |= full;
                map.len() > before
            }
        }
    }
}

struct FirstBlockStats {
    distinct: u64,
    top: Option<u64>,
    top_requests: u64,
}

fn first_block_stats(requests: &[Request]) -> FirstBlockStats {
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for first in requests.iter().filter_map(|r| r.block_ids.first()) {
        *counts.entry(*first).or_default() += 1;
    }
    let mut stats = FirstBlockStats {
        distinct: counts.len() as u64,
        top: None,
        top_requests: 0,
    };
    for (&id, &count) in &counts {
        if count > stats.top_requests {
            stats.top = Some(id);
            stats.top_requests = count;
        }
    }
    stats
}

struct ArrivalStats {
    duration_us: u64,
    same_instant_share: f64,
    min_gap_us: Option<u64>,
}

fn arrival_stats(requests: &[Request]) -> ArrivalStats {
    let first = requests.iter().map(|r| r.arrival_us).min().unwrap_or(0);
    let last = requests.iter().map(|r| r.arrival_us).max().unwrap_or(0);
    let gaps: Vec<u64> = requests
        .windows(2)
        .map(|w| w[1].arrival_us.abs_diff(w[0].arrival_us))
        .collect();
    let same = gaps.iter().filter(|&&g| g == 0).count() as u64;
    ArrivalStats {
        duration_us: last - first,
        same_instant_share: ratio(same, gaps.len() as u64),
        min_gap_us: gaps.iter().copied().min(),
    }
}

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// The plain-word warnings for an analysis.
fn hazards(a: &TraceAnalysis) -> Vec<String> {
    let mut notes = Vec::new();
    let n = a.requests;
    if n == 0 {
        notes.push("the trace has no requests".to_string());
        return notes;
    }
    if a.requests_without_ids == n {
        notes.push(
            "no request carries block ids: there is no content to reuse, so every policy \
             gets a 0% hit rate and only load balance matters"
                .to_string(),
        );
    } else if a.requests_without_ids > 0 {
        notes.push(format!(
            "{} of {n} requests carry no block ids: they can never hit the cache",
            a.requests_without_ids
        ));
    }
    notes.extend(first_block_hazard(a));
    if a.requests_without_ids < n && a.hit_ceiling < LOW_REUSE {
        notes.push(format!(
            "little reuse: at most {} of blocks repeat, so routing for cache locality \
             cannot gain much",
            percent(a.hit_ceiling)
        ));
    }
    notes.extend(timing_hazard(a));
    notes
}

fn first_block_hazard(a: &TraceAnalysis) -> Option<String> {
    let top = a.top_first_block?;
    let with_ids = a.requests - a.requests_without_ids;
    let share = ratio(a.top_first_block_requests, with_ids);
    if a.distinct_first_blocks == 1 && with_ids > 1 {
        Some(format!(
            "all {with_ids} requests share first block {top}: prefix_aware hashes the \
             leading block, so it sends ALL traffic to one replica"
        ))
    } else if share >= HOT_FIRST_BLOCK_SHARE && with_ids > 1 {
        Some(format!(
            "first block {top} starts {} of requests: prefix_aware hashes the leading \
             block, so one replica gets at least that share of the traffic (a hot spot)",
            percent(share)
        ))
    } else {
        None
    }
}

fn timing_hazard(a: &TraceAnalysis) -> Option<String> {
    if a.same_instant_share >= BURST_SHARE {
        return Some(format!(
            "{} of requests arrive at the same instant as the one before: they overlap \
             however the replay is scaled (--des-arrival-speedup cannot separate them), \
             and a request admitted while its prefix is still being computed computes it again \
             (dynamo-mocker admits it behind that step instead, and reuses it)",
            percent(a.same_instant_share)
        ));
    }
    let min_gap_us = (a.min_gap_s? * 1e6) as u64;
    (min_gap_us >= NO_OVERLAP_GAP_US).then(|| {
        format!(
            "arrivals are at least {:.0} s apart: requests almost surely never overlap, so \
             load terms stay near zero and routing is decided by cache content alone",
            a.min_gap_s.unwrap_or(0.0)
        )
    })
}

impl TraceAnalysis {
    /// A short human summary: a few lines, then one line per hazard.
    pub fn render_text(&self) -> String {
        let rate = self
            .offered_rate_per_s
            .map_or("all at once".to_string(), |r| {
                format!("offered {r:.2} req/s")
            });
        let mut text = format!(
            "Trace: {} requests over {:.1} s, {rate} (block_size={} tok)\n",
            self.requests, self.duration_s, self.block_size
        );
        text += &format!(
            "  Input tokens: avg {:.1}, p99 {}, max {} | output tokens: avg {:.1}, p99 {}\n",
            self.input_tokens_avg,
            self.input_tokens_p99,
            self.input_tokens_max,
            self.output_tokens_avg,
            self.output_tokens_p99
        );
        text += &format!(
            "  Blocks: {} total, {} distinct | hit ceiling of one infinite cache: {} of \
             blocks, {} of prompt tokens\n",
            self.blocks,
            self.distinct_blocks,
            percent(self.hit_ceiling),
            percent(self.token_hit_ceiling)
        );
        if let Some(top) = self.top_first_block {
            let with_ids = self.requests - self.requests_without_ids;
            text += &format!(
                "  First blocks: {} distinct; the most common (id {top}) starts {} of requests\n",
                self.distinct_first_blocks,
                percent(ratio(self.top_first_block_requests, with_ids))
            );
        }
        for hazard in &self.hazards {
            text += &format!("  Hazard: {hazard}\n");
        }
        text
    }
}

#[cfg(test)]
mod tests;
