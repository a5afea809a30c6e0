//! The fleet's shared KV tier (a Mooncake store, an LMCache server): one pool of blocks,
//! least recently used dropped first, below every replica's own tiers. A replica writes
//! to it the blocks its lowest own tier evicts (HBM's, or its CPU tier's); at admission a
//! request's leading hit continues from the replica's own tiers into the pool, and that
//! run is loaded over the replica's network link as one transfer (first come, first
//! served with the replica's other loads from the pool). A loaded block stays in the
//! pool for the other replicas and counts as used (most recent). Writes go the other way
//! over the link (full duplex), so they do not queue with loads.

use std::cell::RefCell;
use std::rc::Rc;

use super::Replica;
use crate::cache::CpuTier;
use crate::config::TierSpec;
use crate::link::Link;

/// The pool every replica of a fleet holds a handle to.
pub type SharedPool = Rc<RefCell<Pool>>;

/// The shared tier's blocks.
#[derive(Debug)]
pub struct Pool {
    blocks: CpuTier,
}

impl Pool {
    /// An empty pool of `capacity_blocks` blocks, as a handle for the replicas.
    pub fn shared(capacity_blocks: u64) -> SharedPool {
        let mut blocks = CpuTier::new(capacity_blocks);
        // Nothing is below it: its evictions are counted, then gone.
        blocks.keep_evicted();
        Rc::new(RefCell::new(Pool { blocks }))
    }

    /// Blocks dropped to make room (gone from every tier).
    pub fn evictions(&self) -> u64 {
        self.blocks.evictions()
    }

    /// Writes `id` as the most recently used; returns whether it was new to the pool (a
    /// held block is not sent again) and how many blocks it dropped to make room.
    fn write(&mut self, id: u64) -> (bool, u64) {
        let new = !self.blocks.contains(id);
        self.blocks.store(id);
        (new, self.blocks.drain_evicted().count() as u64)
    }
}

/// A replica's handle on the pool, its link and its counters.
#[derive(Debug)]
pub(super) struct Shared {
    spec: TierSpec,
    pool: SharedPool,
    link: Link,
    stats: SharedStats,
}

impl Shared {
    /// Writes a block this replica evicted from its lowest own tier.
    pub(super) fn demote(&mut self, id: u64) {
        let (new, dropped) = self.pool.borrow_mut().write(id);
        self.stats.demoted_blocks += new as u64;
        self.stats.shared_evictions += dropped;
    }
}

/// A replica's shared-tier figures for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedStats {
    /// Prompt blocks this replica loaded from the shared tier at admission.
    pub shared_hit_blocks: u64,
    /// Loads (one per request that found blocks there).
    pub loads: u64,
    /// Time the loads spent on the replica's network link, µs.
    pub load_us: u64,
    /// Time the loads waited for the link behind earlier ones, µs.
    pub load_wait_us: u64,
    /// Blocks this replica wrote into the shared tier that it did not hold.
    pub demoted_blocks: u64,
    /// Blocks the shared tier dropped to make room for this replica's writes.
    pub shared_evictions: u64,
    /// KV bytes of one block.
    pub block_bytes: u64,
}

impl Replica {
    /// Connects the replica to the fleet's shared tier `pool` over a link of `spec`;
    /// its lowest own tier keeps what it evicts for it.
    pub fn set_shared_tier(&mut self, spec: TierSpec, pool: SharedPool) {
        self.cache.keep_evicted();
        if let Some(t) = self.tier.as_mut() {
            t.keep_evicted();
        }
        self.shared = Some(Box::new(Shared {
            spec,
            pool,
            link: Link::default(),
            stats: SharedStats {
                block_bytes: spec.block_bytes,
                ..SharedStats::default()
            },
        }));
    }

    /// The replica's shared-tier figures, when the fleet has one.
    pub fn shared_stats(&self) -> Option<SharedStats> {
        self.shared.as_ref().map(|s| s.stats)
    }

    /// Of `ids[from..max]`, the leading run held below HBM: in the CPU tier, then on in
    /// the shared tier (what a router that sees every tier adds to the HBM hit `from`).
    pub fn lower_tier_run(&self, ids: &[u64], from: usize, max: usize) -> usize {
        if from >= max {
            return 0;
        }
        let cpu = self.tier_run(ids, from, max);
        cpu + self.shared_run(ids, from + cpu, max)
    }

    /// Of `ids[from..max]`, the leading run the shared tier holds (0 without one).
    pub(super) fn shared_run(&self, ids: &[u64], from: usize, max: usize) -> usize {
        let Some(s) = self.shared.as_ref() else {
            return 0;
        };
        let pool = s.pool.borrow();
        ids[from..max]
            .iter()
            .take_while(|&&id| pool.blocks.contains(id))
            .count()
    }

    /// Loads `ids` (a request's run found in the shared tier) as one transfer offered at
    /// `now_us`; returns when it ends (`now_us` for an empty run). The blocks stay in
    /// the pool, most recently used; the caller pins them in HBM.
    pub(super) fn load_shared(&mut self, ids: &[u64], now_us: u64) -> u64 {
        let Some(s) = self.shared.as_mut() else {
            return now_us;
        };
        if ids.is_empty() {
            return now_us;
        }
        {
            let mut pool = s.pool.borrow_mut();
            for &id in ids {
                pool.blocks.store(id);
            }
        }
        let wire_us = s.spec.load_us(ids.len() as u64);
        let (start_us, end_us) = s.link.schedule(now_us, wire_us);
        s.stats.shared_hit_blocks += ids.len() as u64;
        s.stats.loads += 1;
        s.stats.load_us += wire_us;
        s.stats.load_wait_us += start_us - now_us;
        end_us
    }
}
