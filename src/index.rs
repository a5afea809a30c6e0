//! The fleet-wide block index: block id -> the set of replicas holding it computed,
//! kept in step with every cache's store and evict events, so a routing decision costs
//! O(blocks + replicas) instead of O(blocks x replicas).

use crate::cache::IdTable;

/// Replica sets as bitsets, `words` u64 per set, in one slab.
#[derive(Clone, Debug)]
pub struct BlockIndex {
    words: usize,
    replicas: usize,
    slot_of: IdTable,
    bits: Vec<u64>,
    counts: Vec<u32>,
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
            slot_of: IdTable::default(),
            bits: Vec::new(),
            counts: Vec::new(),
            free: Vec::new(),
            alive: vec![0; words],
        }
    }

    /// Distinct blocks held by at least one replica.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether no replica holds any block.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// Replica `r` now holds `id` computed.
    pub fn insert(&mut self, id: u64, r: usize) {
        let slot = match self.slot_of.get(&id) {
            Some(&s) => s as usize,
            None => {
                let s = self.alloc();
                self.slot_of.insert(id, s as u32);
                s
            }
        };
        let word = &mut self.bits[slot * self.words + r / 64];
        let bit = 1u64 << (r % 64);
        if *word & bit == 0 {
            *word |= bit;
            self.counts[slot] += 1;
        }
    }

    /// Replica `r` no longer holds `id`.
    pub fn remove(&mut self, id: u64, r: usize) {
        let Some(&s) = self.slot_of.get(&id) else {
            return;
        };
        let slot = s as usize;
        let word = &mut self.bits[slot * self.words + r / 64];
        let bit = 1u64 << (r % 64);
        if *word & bit == 0 {
            return;
        }
        *word &= !bit;
        self.counts[slot] -= 1;
        if self.counts[slot] == 0 {
            self.slot_of.remove(&id);
            self.free.push(s);
        }
    }

    /// Whether replica `r` holds `id` computed.
    pub fn holds(&self, id: u64, r: usize) -> bool {
        self.slot_of
            .get(&id)
            .is_some_and(|&s| self.bits[s as usize * self.words + r / 64] & (1u64 << (r % 64)) != 0)
    }

    fn alloc(&mut self) -> usize {
        if let Some(s) = self.free.pop() {
            return s as usize;
        }
        self.counts.push(0);
        self.bits.resize(self.bits.len() + self.words, 0);
        self.counts.len() - 1
    }

    /// Writes into `hits[r]` the length of the leading run of `ids[..max]` that replica r
    /// holds, walking each block once and each replica once.
    pub fn hits(&mut self, ids: &[u64], max: usize, hits: &mut [u32]) {
        debug_assert_eq!(hits.len(), self.replicas);
        hits.fill(0);
        let walk = max.min(ids.len());
        for (w, word) in self.alive.iter_mut().enumerate() {
            let left = self.replicas.saturating_sub(w * 64);
            *word = if left >= 64 {
                u64::MAX
            } else {
                (1u64 << left) - 1
            };
        }
        let mut depth = 0;
        for (i, id) in ids[..walk].iter().enumerate() {
            let set = self.slot_of.get(id).map(|&s| s as usize * self.words);
            let mut any = false;
            for w in 0..self.words {
                let held = set.map_or(0, |base| self.bits[base + w]);
                // The replicas without the first block keep the 0 written above.
                let mut dropped = if i == 0 { 0 } else { self.alive[w] & !held };
                while dropped != 0 {
                    let b = dropped.trailing_zeros() as usize;
                    hits[w * 64 + b] = i as u32;
                    dropped &= dropped - 1;
                }
                self.alive[w] &= held;
                any |= self.alive[w] != 0;
            }
            depth = i + 1;
            if !any {
                return;
            }
        }
        for w in 0..self.words {
            let mut left = self.alive[w];
            while left != 0 {
                let b = left.trailing_zeros() as usize;
                hits[w * 64 + b] = depth as u32;
                left &= left - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_runs_per_replica() {
        let mut ix = BlockIndex::new(70);
        for id in [1, 2, 3] {
            ix.insert(id, 0);
        }
        ix.insert(1, 5);
        ix.insert(1, 69);
        ix.insert(2, 69);
        ix.insert(3, 5); // not a leading run on 5: block 2 is missing
        assert!(ix.holds(3, 5) && ix.holds(1, 69) && !ix.holds(2, 5) && !ix.holds(9, 0));
        let mut hits = vec![0; 70];
        ix.hits(&[1, 2, 3, 4], 4, &mut hits);
        assert_eq!((hits[0], hits[5], hits[69], hits[1]), (3, 1, 2, 0));
        ix.hits(&[1, 2, 3, 4], 2, &mut hits);
        assert_eq!((hits[0], hits[69]), (2, 2));
        ix.remove(1, 0);
        ix.hits(&[1, 2, 3], 3, &mut hits);
        assert_eq!((hits[0], hits[5]), (0, 1));
        ix.remove(1, 5);
        ix.remove(1, 69);
        assert_eq!(ix.len(), 2, "block 1 left the index");
    }
}
