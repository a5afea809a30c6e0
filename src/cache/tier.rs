//! An offload tier's blocks: a bounded set of KV blocks below HBM, filled by the blocks
//! the level above evicts (a demotion) and emptied least recently written first when
//! full. A replica's CPU tier gives a block loaded back into HBM up (it is resident
//! above again); the fleet's shared tier keeps it for the other replicas. It is a
//! `BlockCache` whose entries are all evictable, so it shares the cache's id table and
//! eviction queue (and their code in the wasm).

use super::{BlockCache, Entry, READY};

/// The tier's blocks, in LRU order by their latest write.
#[derive(Clone, Debug)]
pub struct CpuTier {
    blocks: BlockCache,
    /// Blocks written into the tier (HBM's demotions), counted once per write.
    written_blocks: u64,
}

impl CpuTier {
    /// An empty tier of `capacity_blocks` blocks.
    pub fn new(capacity_blocks: u64) -> CpuTier {
        CpuTier {
            blocks: BlockCache::new(Some(capacity_blocks)),
            written_blocks: 0,
        }
    }

    /// Whether block `id` is held.
    pub fn contains(&self, id: u64) -> bool {
        self.blocks.contains(id)
    }

    /// Blocks held.
    pub fn len(&self) -> u64 {
        self.blocks.used_blocks()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Blocks written into it so far.
    pub fn written_blocks(&self) -> u64 {
        self.written_blocks
    }

    /// Blocks dropped from it to make room so far.
    pub fn evictions(&self) -> u64 {
        self.blocks.evictions()
    }

    /// Writes block `id` (evicted from HBM) as the most recent, dropping the least
    /// recently written block when the tier is full. A tier of 0 blocks holds nothing.
    pub fn store(&mut self, id: u64) {
        if self.blocks.capacity_blocks == Some(0) {
            return;
        }
        self.written_blocks += 1;
        self.blocks.store_unpinned(id);
    }

    /// Keeps the blocks dropped to make room for `drain_evicted` (the next tier down
    /// takes them).
    pub fn keep_evicted(&mut self) {
        self.blocks.keep_evicted();
    }

    /// The blocks dropped since the last call, in order (none unless `keep_evicted`).
    pub fn drain_evicted(&mut self) -> std::vec::Drain<'_, u64> {
        self.blocks.drain_evicted()
    }

    /// Takes block `id` out (loaded back into HBM); whether it was held.
    pub fn remove(&mut self, id: u64) -> bool {
        self.blocks.take_unpinned(id)
    }

    /// Ids in eviction order (least recently written first); for tests.
    pub fn lru_order(&self) -> Vec<u64> {
        self.blocks.lru_order()
    }
}

impl BlockCache {
    /// Holds `id` as a computed, unpinned entry, the most recently released, and evicts
    /// down to the capacity. Records nothing in the journal (no index reads a tier).
    fn store_unpinned(&mut self, id: u64) {
        let stamp = self.releases.push(id);
        match self.index.get_mut(id) {
            Some(e) => e.stamp = stamp,
            None => {
                self.index.insert(
                    id,
                    Entry {
                        stamp,
                        state: READY,
                    },
                );
                self.evictable_blocks += 1;
            }
        }
        self.make_room();
        self.journal.clear();
        self.settle_releases();
    }

    /// Drops unpinned entry `id`; whether it was held.
    fn take_unpinned(&mut self, id: u64) -> bool {
        if self.index.remove(id).is_none() {
            return false;
        }
        self.evictable_blocks -= 1;
        self.settle_releases();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_tier_drops_its_least_recently_written_block() {
        let mut t = CpuTier::new(2);
        t.store(1);
        t.store(2);
        t.store(3); // drops 1
        assert_eq!(t.lru_order(), vec![2, 3]);
        assert_eq!(t.evictions(), 1);
        assert!(t.remove(2));
        assert!(!t.remove(2));
        t.store(4);
        assert_eq!(t.lru_order(), vec![3, 4]);
        // Writing a held block again makes it the most recent.
        t.store(3);
        assert_eq!(t.lru_order(), vec![4, 3]);
        t.store(5); // drops 4
        assert_eq!(t.lru_order(), vec![3, 5]);
        assert_eq!((t.written_blocks(), t.evictions(), t.len()), (6, 2, 2));
    }

    #[test]
    fn a_tier_of_zero_holds_nothing() {
        let mut t = CpuTier::new(0);
        t.store(1);
        assert!(t.is_empty());
        assert_eq!(t.written_blocks(), 0);
    }
}
