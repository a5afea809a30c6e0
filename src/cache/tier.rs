//! A replica's CPU offload tier: a bounded set of KV blocks below HBM, filled by the
//! blocks HBM evicts (a demotion) and emptied least recently written first when full.
//! A block loaded back into HBM leaves the tier (it is resident above again).

use std::collections::{BTreeMap, HashMap};

/// The tier's blocks, in LRU order by the stamp of their latest write.
#[derive(Clone, Debug, Default)]
pub struct CpuTier {
    capacity_blocks: u64,
    /// Block id to the stamp of its latest write.
    stamps: HashMap<u64, u64>,
    /// Stamp to block id, oldest first (the eviction order).
    order: BTreeMap<u64, u64>,
    next_stamp: u64,
    /// Blocks written into the tier (HBM's demotions), counted once per write.
    written_blocks: u64,
    /// Blocks dropped from the tier to make room (gone from every tier).
    evictions: u64,
}

impl CpuTier {
    /// An empty tier of `capacity_blocks` blocks.
    pub fn new(capacity_blocks: u64) -> CpuTier {
        CpuTier {
            capacity_blocks,
            ..CpuTier::default()
        }
    }

    /// Whether block `id` is held.
    pub fn contains(&self, id: u64) -> bool {
        self.stamps.contains_key(&id)
    }

    /// Blocks held.
    pub fn len(&self) -> u64 {
        self.stamps.len() as u64
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }

    /// Blocks written into it so far.
    pub fn written_blocks(&self) -> u64 {
        self.written_blocks
    }

    /// Blocks dropped from it to make room so far.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Writes block `id` (evicted from HBM) as the most recent, dropping the least
    /// recently written block when the tier is full. A tier of 0 blocks holds nothing.
    pub fn store(&mut self, id: u64) {
        if self.capacity_blocks == 0 {
            return;
        }
        self.remove(id);
        while self.len() >= self.capacity_blocks {
            let Some((_, old)) = self.order.pop_first() else {
                break;
            };
            self.stamps.remove(&old);
            self.evictions += 1;
        }
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.stamps.insert(id, stamp);
        self.order.insert(stamp, id);
        self.written_blocks += 1;
    }

    /// Takes block `id` out (loaded back into HBM); whether it was held.
    pub fn remove(&mut self, id: u64) -> bool {
        match self.stamps.remove(&id) {
            Some(stamp) => {
                self.order.remove(&stamp);
                true
            }
            None => false,
        }
    }

    /// Ids in eviction order (least recently written first); for tests.
    pub fn lru_order(&self) -> Vec<u64> {
        self.order.values().copied().collect()
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
        t.store(4);
        assert_eq!(t.lru_order(), vec![3, 4]);
        assert_eq!((t.written_blocks(), t.evictions()), (4, 1));
    }

    #[test]
    fn a_tier_of_zero_holds_nothing() {
        let mut t = CpuTier::new(0);
        t.store(1);
        assert!(t.is_empty());
        assert_eq!(t.written_blocks(), 0);
    }
}
