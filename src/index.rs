//! The fleet-wide block index: block id -> the set of replicas holding it computed,
//! kept in step with every cache's store and evict events, so a routing decision costs
//! O(blocks + replicas) instead of O(blocks x replicas).

use crate::cache::IdTable;

/// Each block's replica set inside the table's entry when it fits one word (at most 64
/// replicas): a lookup is one array index for dense ids, one probe (usually one cache
/// line) for the rest. Wider sets live in a slab, reached through a slot kept in the
/// same kind of table (an array index for dense ids).
#[derive(Clone, Debug)]
pub struct BlockIndex {
    words: usize,
    replicas: usize,
    /// Block id -> its replica set, for `words == 1`; with a sliding window past the
    /// array, for the ids a counter numbers (the synthetic workload's suffix blocks).
    narrow: IdTable<u64, 8, true>,
    /// Block id -> its set's slot in `bits` plus 1 (0 marks an absent id), for
    /// `words > 1`.
    wide: IdTable<u32>,
    bits: Vec<u64>,
    free: Vec<u32>,
    alive: Vec<u64>,
}

impl BlockIndex {
    /// An empty index over `replicas` replicas.
    pub fn new(replicas: usize) -> BlockIndex {
        let words = replicas.div_ceil(64).max(1);
        BlockIndex {
            words,
            replicas,
            narrow: IdTable::default(),
            wide: IdTable::default(),
            bits: Vec::new(),
            free: Vec::new(),
            alive: vec![0; words],
        }
    }

    /// Sizes the empty index's id table once for ids `0 ..= max_id`, when that is within
    /// its density bound for `most_entries` distinct blocks; otherwise it grows as it
    /// fills. Changes no result. Returns whether it did.
    pub fn presize_ids(&mut self, max_id: u64, most_entries: u64) -> bool {
        match self.words {
            1 => self.narrow.presize(max_id, most_entries),
            _ => self.wide.presize(max_id, most_entries),
        }
    }

    /// Distinct blocks held by at least one replica.
    pub fn len(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    /// Whether no replica holds any block.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Replica `r` now holds `id` computed.
    pub fn insert(&mut self, id: u64, r: usize) {
        let bit = 1u64 << (r % 64);
        if self.words == 1 {
            match self.narrow.get_mut(id) {
                Some(set) => *set |= bit,
                None => {
                    self.narrow.insert(id, bit);
                }
            }
            return;
        }
        let slot = match self.wide.get(id) {
            Some(&s) => s as usize - 1,
            None => {
                let s = self.alloc();
                self.wide.insert(id, s as u32 + 1);
                s
            }
        };
        self.bits[slot * self.words + r / 64] |= bit;
    }

    /// Replica `r` no longer holds `id`.
    pub fn remove(&mut self, id: u64, r: usize) {
        let bit = 1u64 << (r % 64);
        if self.words == 1 {
            let Some(set) = self.narrow.get_mut(id) else {
                return;
            };
            if *set & !bit != 0 {
                *set &= !bit;
            } else if *set == bit {
                // Its last holder: the set would be empty (the table's absent marker).
                self.narrow.remove(id);
            }
            return;
        }
        let Some(&s) = self.wide.get(id) else {
            return;
        };
        let s = s - 1;
        let base = s as usize * self.words;
        self.bits[base + r / 64] &= !bit;
        if self.bits[base..base + self.words].iter().all(|&w| w == 0) {
            self.wide.remove(id);
            self.free.push(s);
        }
    }

    /// Whether replica `r` holds `id` computed.
    pub fn holds(&self, id: u64, r: usize) -> bool {
        self.set_of(id)
            .is_some_and(|set| set[r / 64] & (1u64 << (r % 64)) != 0)
    }

    /// The replica set of `id`, `words` words, if any replica holds it.
    #[inline]
    fn set_of(&self, id: u64) -> Option<&[u64]> {
        if self.words == 1 {
            return self.narrow.get(id).map(std::slice::from_ref);
        }
        let base = (*self.wide.get(id)? as usize - 1) * self.words;
        Some(&self.bits[base..base + self.words])
    }

    fn alloc(&mut self) -> usize {
        if let Some(s) = self.free.pop() {
            let base = s as usize * self.words;
            self.bits[base..base + self.words].fill(0);
            return s as usize;
        }
        self.bits.resize(self.bits.len() + self.words, 0);
        self.bits.len() / self.words - 1
    }

    /// Writes into `hits[r]` the length of the leading run of `ids[..max]` that replica r
    /// holds, walking each block once and each replica once.
    pub fn hits(&mut self, ids: &[u64], max: usize, hits: &mut [u32]) {
        debug_assert_eq!(hits.len(), self.replicas);
        hits.fill(0);
        let mut alive = std::mem::take(&mut self.alive);
        let walk = max.min(ids.len());
        for (w, word) in alive.iter_mut().enumerate() {
            let left = self.replicas.saturating_sub(w * 64);
            *word = if left >= 64 {
                u64::MAX
            } else {
                (1u64 << left) - 1
            };
        }
        let mut depth = 0;
        for (i, id) in ids[..walk].iter().enumerate() {
            let set = self.set_of(*id);
            let mut any = false;
            for w in 0..self.words {
                let held = set.map_or(0, |set| set[w]);
                // The replicas without the first block keep the 0 written above.
                let mut dropped = if i == 0 { 0 } else { alive[w] & !held };
                while dropped != 0 {
                    let b = dropped.trailing_zeros() as usize;
                    hits[w * 64 + b] = i as u32;
                    dropped &= dropped - 1;
                }
                alive[w] &= held;
                any |= alive[w] != 0;
            }
            depth = i + 1;
            if !any {
                self.alive = alive;
                return;
            }
        }
        for w in 0..self.words {
            let mut left = alive[w];
            while left != 0 {
                let b = left.trailing_zeros() as usize;
                hits[w * 64 + b] = depth as u32;
                left &= left - 1;
            }
        }
        self.alive = alive;
    }
}

#[cfg(test)]
mod tests;
