//! A count per block id, for the few hundred blocks a replica has in flight: an
//! open-addressing table (linear probing, at most half full, a removal shifts the entries
//! after it back, so there are no tombstones). A lookup hashes once and mostly reads one
//! slot; a count of 0 marks an empty slot, so any id may be a key. It is never iterated,
//! so its layout cannot change a result.
//!
//! When the ids are known in advance (a parsed trace's, numbered from 0), `presize` adds
//! an array of one-byte counts for ids `0 ..= max_id` in zeroed memory, within a density
//! bound (`DENSITY` slots per entry the table may hold, plus `MIN_SLOTS`). Such an id
//! lives in the array while its count is below `SPILLED`; from there on the array holds
//! `SPILLED` and the count lives in the table, until it drops below `SPILLED` again.

use crate::cache::zeroed_vec;

/// One slot: a block id and its count (0: the slot is empty).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    id: u64,
    count: u32,
}

/// Slots of a table's first allocation.
const FIRST_SLOTS: usize = 64;

/// Array slots a presized table may take per entry it may hold (1 byte each)...
const DENSITY: u64 = 16;
/// ... plus these, whatever the entries.
const MIN_SLOTS: u64 = 1024;
/// An array count that means "the count is in the table" (and at least this).
const SPILLED: u8 = u8::MAX;

/// Block id -> a count of at least 1.
#[derive(Clone, Debug, Default)]
pub struct BlockCounts {
    slots: Vec<Slot>,
    len: usize,
    /// 64 − log2(slots): the shift that turns a hash into a slot.
    shift: u32,
    /// The counts of ids `0 .. dense.len()` when presized (else empty; `SPILLED`: in the
    /// table), and how many of them are neither 0 nor `SPILLED`.
    dense: Vec<u8>,
    dense_len: usize,
}

impl BlockCounts {
    /// Ids held (with a count of at least 1).
    pub fn len(&self) -> usize {
        self.len + self.dense_len
    }

    /// Whether no id is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `id` is held.
    pub fn contains(&self, id: u64) -> bool {
        if self.is_dense(id) {
            return self.dense[id as usize] > 0;
        }
        !self.slots.is_empty() && self.find(id).is_ok()
    }

    /// Whether `id` is one of the array's (on 32-bit targets `as usize` would cut it).
    #[inline]
    fn is_dense(&self, id: u64) -> bool {
        id < self.dense.len() as u64
    }

    /// Gives the empty table an array for ids `0 ..= max_id` when that takes at most
    /// `DENSITY` slots per entry it may hold (`most_entries`) plus `MIN_SLOTS` and fits
    /// the address space; returns whether it did. Changes no result.
    pub fn presize(&mut self, max_id: u64, most_entries: u64) -> bool {
        let slots = max_id.saturating_add(1);
        let allowed = DENSITY
            .saturating_mul(most_entries)
            .saturating_add(MIN_SLOTS);
        if !self.is_empty() || slots > allowed || slots <= self.dense.len() as u64 {
            return false;
        }
        let Some(dense) = usize::try_from(slots).ok().and_then(zeroed_vec) else {
            return false;
        };
        self.dense = dense;
        true
    }

    /// Adds 1 to the count of each of `ids`, in order. Without an array, straight to the
    /// table (one check for all the ids).
    pub fn increment_all(&mut self, ids: &[u64]) {
        if self.dense.is_empty() {
            ids.iter().for_each(|&id| self.bump(id));
        } else {
            ids.iter().for_each(|&id| self.increment(id));
        }
    }

    /// Takes 1 from the count of each of `ids`, in order, up to the first that is not
    /// held, which it returns (`None`: all were held).
    pub fn decrement_all(&mut self, ids: &[u64]) -> Option<u64> {
        if self.dense.is_empty() {
            ids.iter().copied().find(|&id| !self.drop_one(id))
        } else {
            ids.iter().copied().find(|&id| !self.decrement(id))
        }
    }

    /// Adds 1 to the count of `id` (from 0 if it is not held).
    pub fn increment(&mut self, id: u64) {
        if self.is_dense(id) {
            let count = &mut self.dense[id as usize];
            match *count {
                SPILLED => {}
                n if n < SPILLED - 1 => {
                    self.dense_len += usize::from(n == 0);
                    *count = n + 1;
                    return;
                }
                _ => {
                    // From SPILLED - 1 to SPILLED: the count moves to the table.
                    *count = SPILLED;
                    self.dense_len -= 1;
                    self.bump(id);
                    let at = self.find(id).expect("just added");
                    self.slots[at].count = u32::from(SPILLED);
                    return;
                }
            }
        }
        self.bump(id);
    }

    /// Adds 1 to the table's count of `id` (from 0 if it is not there).
    #[inline(always)]
    fn bump(&mut self, id: u64) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        match self.find(id) {
            Ok(at) => self.slots[at].count += 1,
            Err(at) => {
                self.slots[at] = Slot { id, count: 1 };
                self.len += 1;
            }
        }
    }

    /// Takes 1 from the count of `id`, dropping the id at 0; false if `id` is not held.
    pub fn decrement(&mut self, id: u64) -> bool {
        if self.is_dense(id) {
            let count = &mut self.dense[id as usize];
            match *count {
                0 => return false,
                SPILLED => {}
                n => {
                    *count = n - 1;
                    self.dense_len -= usize::from(n == 1);
                    return true;
                }
            }
            let at = self.find(id).expect("a spilled count is in the table");
            self.slots[at].count -= 1;
            if self.slots[at].count == u32::from(SPILLED - 1) {
                // Back below SPILLED: the count moves to the array.
                self.vacate(at);
                self.len -= 1;
                self.dense[id as usize] = SPILLED - 1;
                self.dense_len += 1;
            }
            return true;
        }
        self.drop_one(id)
    }

    /// Takes 1 from the table's count of `id`, dropping the id at 0; false if `id` is not
    /// in the table.
    #[inline(always)]
    fn drop_one(&mut self, id: u64) -> bool {
        let Some(at) = (!self.slots.is_empty())
            .then(|| self.find(id).ok())
            .flatten()
        else {
            return false;
        };
        self.slots[at].count -= 1;
        if self.slots[at].count == 0 {
            self.vacate(at);
            self.len -= 1;
        }
        true
    }

    /// The slot of `id` (`Ok`), or the empty slot where it would go (`Err`). The table is
    /// never more than half full, so the probe ends.
    #[inline]
    fn find(&self, id: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(id);
        loop {
            let slot = &self.slots[at];
            if slot.count == 0 {
                return Err(at);
            }
            if slot.id == id {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// The first slot `id` probes (a multiplicative hash: its top bits).
    #[inline]
    fn home(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Empties slot `hole`, moving back every later entry of the run that may fill it (one
    /// whose probe from its home passes the hole), so every entry stays reachable.
    #[inline]
    fn vacate(&mut self, mut hole: usize) {
        let mask = self.slots.len() - 1;
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let slot = self.slots[at];
            if slot.count == 0 {
                break;
            }
            let home = self.home(slot.id);
            if at.wrapping_sub(home) & mask >= at.wrapping_sub(hole) & mask {
                self.slots[hole] = slot;
                hole = at;
            }
        }
        self.slots[hole] = Slot::default();
    }

    /// Doubles the slots (to `FIRST_SLOTS` at first) and puts every entry back.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        self.shift = 64 - size.trailing_zeros();
        for slot in old.into_iter().filter(|s| s.count > 0) {
            let at = self.find(slot.id).expect_err("ids are distinct");
            self.slots[at] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::splitmix64;
    use std::collections::BTreeMap;

    /// Random increments and decrements over ids from a few ranges (a handful, dense,
    /// spread, multiples of a power of two that share low bits, next to u64::MAX), each
    /// checked against a `BTreeMap` of counts: lookups, lengths, and a final sweep of
    /// every id ever used.
    #[test]
    fn counts_like_a_sorted_map_through_growth_and_removals() {
        let ranges: [(u64, u64, u64); 5] = [
            (0, 1, 8),
            (0, 1, 3_000),
            (7, 1_000_003, 5_000),
            (0, 1 << 32, 700),
            (u64::MAX - 2_000, 1, 2_001),
        ];
        for (seed, &(base, stride, spread)) in ranges.iter().enumerate() {
            let mut table = BlockCounts::default();
            let mut model = BTreeMap::<u64, u32>::new();
            let mut x = seed as u64;
            let mut draw = |bound: u64| {
                x = splitmix64(x);
                x % bound
            };
            for step in 0..40_000 {
                let id = base.wrapping_add(draw(spread).wrapping_mul(stride));
                // Mostly increments early on, mostly decrements later: the table fills
                // past several doublings, then empties through long probe runs.
                let add = draw(100) < if step < 20_000 { 65 } else { 35 };
                if add {
                    table.increment(id);
                    *model.entry(id).or_default() += 1;
                } else {
                    let held = model.get(&id).copied().unwrap_or(0);
                    assert_eq!(table.decrement(id), held > 0, "seed {seed} step {step}");
                    match held {
                        0 => {}
                        1 => drop(model.remove(&id)),
                        _ => *model.get_mut(&id).unwrap() -= 1,
                    }
                }
                assert_eq!(table.len(), model.len(), "seed {seed} step {step}");
                assert_eq!(table.contains(id), model.contains_key(&id));
            }
            for k in 0..spread {
                let id = base.wrapping_add(k.wrapping_mul(stride));
                assert_eq!(table.contains(id), model.contains_key(&id), "seed {seed}");
            }
            assert_eq!(table.is_empty(), model.is_empty());
        }
    }

    #[test]
    fn an_empty_table_holds_nothing_and_refuses_a_decrement() {
        let mut table = BlockCounts::default();
        assert!(!table.contains(0) && table.is_empty());
        assert!(!table.decrement(0));
        table.increment(u64::MAX);
        table.increment(u64::MAX);
        assert_eq!(table.len(), 1);
        assert!(table.decrement(u64::MAX) && table.contains(u64::MAX));
        assert!(table.decrement(u64::MAX) && !table.contains(u64::MAX));
        assert!(table.is_empty());
    }

    /// A batch counts as its ids one by one, with and without an array; a decrement
    /// batch stops at its first id not held and names it.
    #[test]
    fn batches_count_as_their_ids_one_by_one() {
        for presized in [false, true] {
            let (mut batch, mut single) = (BlockCounts::default(), BlockCounts::default());
            if presized {
                assert!(batch.presize(50, 100) && single.presize(50, 100));
            }
            let ids = [3, 7, 3, 60, 1 << 40, 7, 3];
            batch.increment_all(&ids);
            ids.iter().for_each(|&id| single.increment(id));
            let probe = [0, 3, 7, 9, 60, 1 << 40];
            let held = |t: &BlockCounts| probe.map(|id| t.contains(id));
            assert_eq!((batch.len(), held(&batch)), (single.len(), held(&single)));
            assert_eq!(batch.decrement_all(&[3, 60, 9, 7]), Some(9), "{presized}");
            assert_eq!(batch.decrement_all(&[3, 3, 7, 7, 1 << 40]), None);
            assert_eq!(
                batch.len(),
                0,
                "7 was not taken by the batch that stopped at 9"
            );
        }
    }

    /// An array count up to 254 stays in the array; past it the count moves to the table
    /// and comes back on the way down, each id counted once.
    #[test]
    fn a_count_spills_into_the_table_and_back() {
        let mut table = BlockCounts::default();
        assert!(table.presize(9, 100));
        table.increment(2);
        for n in 1..=600u32 {
            table.increment(5);
            let spilled = n >= u32::from(SPILLED);
            assert_eq!(table.dense[5] == SPILLED, spilled, "{n}");
            assert_eq!((table.len(), table.len), (2, usize::from(spilled)), "{n}");
        }
        for n in (0..600u32).rev() {
            assert!(table.decrement(5), "{n}");
            assert_eq!(table.contains(5), n > 0);
            assert_eq!(table.len(), 1 + usize::from(n > 0), "{n}");
            assert_eq!(table.len, usize::from(n >= u32::from(SPILLED)), "{n}");
        }
        assert!(!table.decrement(5) && table.decrement(2) && table.is_empty());
    }

    /// A presized table against a sorted map, with ids below, at and past the array's
    /// end, far ones and ones next to `u64::MAX`; then the density bound.
    #[test]
    fn a_presized_table_counts_like_a_sorted_map() {
        for (seed, max_id) in [(1u64, 0u64), (2, 7), (3, 3_000)] {
            let mut table = BlockCounts::default();
            assert!(table.presize(max_id, 1 << 20));
            assert_eq!(table.dense.len() as u64, max_id + 1);
            let mut model = BTreeMap::<u64, u32>::new();
            let mut x = seed;
            let mut draw = |bound: u64| {
                x = splitmix64(x);
                x % bound
            };
            for step in 0..40_000 {
                let id = match draw(4) {
                    0 => draw(max_id + 1),
                    1 => max_id.saturating_sub(1) + draw(3),
                    2 => draw(4 * max_id + 64),
                    _ => u64::MAX - draw(3),
                };
                if draw(100) < if step < 20_000 { 65 } else { 35 } {
                    table.increment(id);
                    *model.entry(id).or_default() += 1;
                } else {
                    let held = model.get(&id).copied().unwrap_or(0);
                    assert_eq!(table.decrement(id), held > 0, "seed {seed} step {step}");
                    match held {
                        0 => {}
                        1 => drop(model.remove(&id)),
                        _ => *model.get_mut(&id).unwrap() -= 1,
                    }
                }
                assert_eq!(table.len(), model.len(), "seed {seed} step {step}");
                assert_eq!(table.contains(id), model.contains_key(&id));
            }
            assert!(table.dense_len > 0 && table.len > 0, "both parts used");
        }
        // 100 entries: 16 * 100 + 1,024 = 2,624 slots, ids 0 ..= 2,623; none for a table
        // holding an id, or past the address space.
        assert!(BlockCounts::default().presize(2_623, 100));
        assert!(!BlockCounts::default().presize(2_624, 100));
        assert!(!BlockCounts::default().presize(u64::MAX, u64::MAX));
        let mut used = BlockCounts::default();
        used.increment(3);
        assert!(!used.presize(100, 100) && used.dense.is_empty());
    }
}
