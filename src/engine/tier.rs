//! A replica's CPU offload tier and its PCIe link: HBM's evicted blocks are demoted to
//! the tier; at admission the request's leading hit continues into the tier, and that
//! run of blocks is loaded back over the link as one transfer (first come, first served
//! with the replica's other loads, `link.rs`). The request computes nothing until its
//! load ends; the loaded blocks count as hits. Demotions go the other way over the
//! link (PCIe is full duplex), so they do not queue with loads.

use super::Replica;
use crate::cache::CpuTier;
use crate::config::TierSpec;
use crate::link::Link;

/// A replica's tier, link and counters.
#[derive(Clone, Debug)]
pub(super) struct Tier {
    spec: TierSpec,
    blocks: CpuTier,
    link: Link,
    stats: TierStats,
}

/// A replica's tier figures for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierStats {
    /// Prompt blocks served from the CPU tier (loaded back) at admission.
    pub cpu_hit_blocks: u64,
    /// Loads (one per request that found blocks in the tier).
    pub loads: u64,
    /// Time the loads spent on the link, µs.
    pub load_us: u64,
    /// Time the loads waited for the link behind earlier ones, µs.
    pub load_wait_us: u64,
    /// Blocks written into the tier (demoted from HBM).
    pub demoted_blocks: u64,
    /// Blocks dropped from the tier to make room.
    pub cpu_evictions: u64,
    /// KV bytes of one block (to turn blocks into bytes).
    pub block_bytes: u64,
}

impl Tier {
    /// Keeps the blocks the tier drops, for the shared tier below it.
    pub(super) fn keep_evicted(&mut self) {
        self.blocks.keep_evicted();
    }
}

impl Replica {
    /// Gives the replica a CPU tier of `spec`; its cache keeps what it evicts for it.
    pub fn set_cpu_tier(&mut self, spec: TierSpec) {
        self.cache.keep_evicted();
        let mut blocks = CpuTier::new(spec.capacity_blocks);
        if self.shared.is_some() {
            blocks.keep_evicted();
        }
        self.tier = Some(Box::new(Tier {
            spec,
            blocks,
            link: Link::default(),
            stats: TierStats {
                block_bytes: spec.block_bytes,
                ..TierStats::default()
            },
        }));
    }

    /// The tier's figures, when the replica has one.
    pub fn tier_stats(&self) -> Option<TierStats> {
        let t = self.tier.as_ref()?;
        Some(TierStats {
            demoted_blocks: t.blocks.written_blocks(),
            cpu_evictions: t.blocks.evictions(),
            ..t.stats
        })
    }

    /// Writes HBM's evicted blocks to the next tier down, in eviction order: the CPU
    /// tier, whose own evictions go on to the shared tier; or, without a CPU tier, the
    /// shared tier.
    pub(super) fn demote_evicted(&mut self) {
        match (self.tier.as_mut(), self.shared.as_mut()) {
            (Some(t), shared) => {
                for id in self.cache.drain_evicted() {
                    t.blocks.store(id);
                }
                if let Some(s) = shared {
                    for id in t.blocks.drain_evicted() {
                        s.demote(id);
                    }
                }
            }
            (None, Some(s)) => {
                for id in self.cache.drain_evicted() {
                    s.demote(id);
                }
            }
            (None, None) => {}
        }
    }

    /// Of `ids[hit..max]`, the leading run held by the tier (0 without one; HBM's
    /// evictions must have been demoted first).
    pub(super) fn tier_run(&self, ids: &[u64], hit: usize, max: usize) -> usize {
        let Some(t) = self.tier.as_ref() else {
            return 0;
        };
        ids[hit..max]
            .iter()
            .take_while(|&&id| t.blocks.contains(id))
            .count()
    }

    /// Loads `ids` (a request's run found in the tier) back into HBM as one transfer
    /// offered at `now_us`; returns when it ends (`now_us` for an empty run). The
    /// blocks leave the tier; the caller pins them in HBM.
    pub(super) fn load_run(&mut self, ids: &[u64], now_us: u64) -> u64 {
        let Some(t) = self.tier.as_mut() else {
            return now_us;
        };
        if ids.is_empty() {
            return now_us;
        }
        for &id in ids {
            t.blocks.remove(id);
        }
        let wire_us = t.spec.load_us(ids.len() as u64);
        let (start_us, end_us) = t.link.schedule(now_us, wire_us);
        t.stats.cpu_hit_blocks += ids.len() as u64;
        t.stats.loads += 1;
        t.stats.load_us += wire_us;
        t.stats.load_wait_us += start_us - now_us;
        end_us
    }
}

impl Replica {
    /// The earliest end of a pending load from the CPU tier after `now_us`.
    pub(super) fn next_load_end(&self, now_us: u64) -> Option<u64> {
        if self.tier.is_none() && self.shared.is_none() {
            // Only a load from a tier below makes a request wait.
            return None;
        }
        self.running
            .iter()
            .filter(|a| a.loading(now_us))
            .map(|a| a.loaded_at_us)
            .min()
    }

    /// A decode run of `steps` cut at the first step boundary at or after the earliest
    /// pending load's end, so the loaded request starts its prefill there.
    pub(super) fn steps_before_load(&self, now_us: u64, steps: u64, seqs: u64, kv: u64) -> u64 {
        let Some(end_us) = self.next_load_end(now_us) else {
            return steps;
        };
        let t = self.spec.timing;
        let done = t.decode_steps_within(end_us - now_us, steps, seqs, kv);
        (done + 1).min(steps)
    }
}
