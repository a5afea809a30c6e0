//! Room accounting for a request whose KV grows while it decodes (the `preempt`
//! admission rule): private blocks added a batch at a time, given back when a run ends
//! early, and the room left for growth.

use super::{BlockCache, NoRoom};

impl BlockCache {
    /// Adds `blocks` private blocks to the running requests' KV, evicting unpinned
    /// entries if needed; on failure nothing changes.
    pub fn grow_private(&mut self, blocks: u64) -> Result<(), NoRoom> {
        if blocks == 0 {
            return Ok(());
        }
        self.room_for(&[], blocks)?;
        self.room_version += 1;
        self.private_blocks += blocks;
        self.make_room();
        Ok(())
    }

    /// Gives back `blocks` private blocks that a running request holds but will not
    /// fill (a decode run cut short).
    pub fn shrink_private(&mut self, blocks: u64) {
        if blocks == 0 {
            return;
        }
        debug_assert!(blocks <= self.private_blocks, "shrink below zero");
        self.room_version += 1;
        self.private_blocks -= blocks;
    }

    /// Blocks that could be given to growth now: free plus evictable (`u64::MAX` when
    /// unbounded).
    pub fn spare_blocks(&self) -> u64 {
        self.capacity_blocks.map_or(u64::MAX, |c| {
            c.saturating_sub(self.used_blocks()) + self.evictable_blocks
        })
    }

    /// Whether `acquire(ids, private)` would succeed once `slack` private blocks that
    /// running requests hold ahead of need are given back.
    pub fn room_with_slack(&self, ids: &[u64], private: u64, slack: u64) -> bool {
        match self.room_for(ids, private) {
            Ok(()) => true,
            Err(e) => e.needed_blocks <= e.available_blocks + slack,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_evicts_unpinned_entries_and_fails_whole() {
        // 4 blocks: a request pins [1, 2] (computed), then releases them: 2 evictable.
        let mut c = BlockCache::new(Some(4));
        c.acquire(&[1, 2], 1).unwrap();
        c.mark_ready(&[1, 2]);
        c.release(&[1, 2], 1);
        assert_eq!(c.spare_blocks(), 4);
        // 3 private blocks: 2 free, 1 by evicting entry 2 (the tail, released first).
        c.grow_private(3).unwrap();
        assert_eq!((c.private_blocks(), c.evictions()), (3, 1));
        assert!(c.contains(1) && !c.contains(2));
        // 2 more do not fit (1 evictable): nothing changes.
        assert!(c.grow_private(2).is_err());
        assert_eq!((c.private_blocks(), c.evictions()), (3, 1));
        c.shrink_private(3);
        assert_eq!(c.spare_blocks(), 4);
    }

    #[test]
    fn slack_counts_blocks_held_ahead_of_need() {
        let mut c = BlockCache::new(Some(4));
        c.grow_private(3).unwrap();
        assert!(!c.room_with_slack(&[7, 8], 0, 0));
        assert!(c.room_with_slack(&[7, 8], 0, 1));
    }
}
