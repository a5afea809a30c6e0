//! A map from block id to a small value that is an array (in chunks, `chunked.rs`) for
//! the small, dense ids real traces use (Mooncake's ids count up from 0), with a
//! `FlatTable` for the rest: a lookup is two indexings, and growing it extends a
//! directory instead of rehashing. Like `FlatTable`, it is never iterated, so it cannot
//! change any result.
//!
//! The array covers ids `0 .. dense.covered()`; an id at or past its end lives in the
//! flat table. It grows (at least doubling, moving the flat table's ids it now covers)
//! only while it stays within `DENSITY` slots per entry held (plus `MIN_SLOTS`), so
//! sparse ids (a synthetic workload's ever-growing ones) cost at most `DENSITY` slots
//! per entry and fall back to the flat table. In the array, `V::default()` marks an
//! absent id, so no value stored may equal it.
//!
//! When the source knows its ids in advance (a parsed trace), `presize` covers them all
//! at once, its directory in zeroed memory and its chunks' room reserved (pages fresh
//! from the system stay untouched until used), so nothing is copied as it fills; it
//! does so only within the same density bound, counted against the entries the table
//! can ever hold.

use std::alloc::{alloc_zeroed, handle_alloc_error, Layout};

use super::chunked::Chunked;
use super::FlatTable;

/// Slots the array may always grow to, whatever the entries.
const MIN_SLOTS: u64 = 1024;

/// A value whose all-zero bytes are a valid value equal to `Default::default()`, so an
/// array of absent ids can come from zeroed memory.
///
/// # Safety
/// Implement it only for types (integers, structs of integers) for which every byte 0 is
/// a valid value and that value is `Default::default()`.
pub unsafe trait ZeroDefault: Copy + Default + PartialEq {}

// SAFETY: an integer of zero bytes is 0, its default.
unsafe impl ZeroDefault for u64 {}
// SAFETY: as above.
unsafe impl ZeroDefault for u32 {}
// SAFETY: as above.
unsafe impl ZeroDefault for u8 {}

/// `slots` values of `V::default()` in zeroed memory (not written when it is fresh), or
/// `None` when the size does not fit the address space.
pub(crate) fn zeroed_vec<V: ZeroDefault>(slots: usize) -> Option<Vec<V>> {
    let layout = Layout::array::<V>(slots).ok()?;
    if layout.size() == 0 {
        return Some(vec![V::default(); slots]);
    }
    // SAFETY: the layout is non-zero in size; a null result is reported as an allocation
    // failure, as `Vec` does.
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<V>();
    if ptr.is_null() {
        handle_alloc_error(layout);
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `slots` values of
    // `V`, and all of them are initialised: zero bytes are a valid `V` (`ZeroDefault`).
    Some(unsafe { Vec::from_raw_parts(ptr, slots, slots) })
}

/// Block id -> `V` (never `V::default()`); the array may hold `DENSITY` slots per entry
/// held when it grows.
#[derive(Clone, Debug, Default)]
pub struct IdTable<V, const DENSITY: u64 = 8> {
    dense: Chunked<V>,
    sparse: FlatTable<V>,
    dense_len: usize,
}

impl<V: Copy + Default + PartialEq, const DENSITY: u64> IdTable<V, DENSITY> {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.dense_len + self.sparse.len()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `id`, if held.
    #[inline(always)]
    pub fn get(&self, id: u64) -> Option<&V> {
        match self.dense.chunk_of(id) {
            Some(offset) => Some(self.dense.at(offset, id)).filter(|v| **v != V::default()),
            None => self.sparse_get(id),
        }
    }

    /// The value of `id` to change in place, if held; it must not be set to
    /// `V::default()` (remove the id instead).
    #[inline(always)]
    pub fn get_mut(&mut self, id: u64) -> Option<&mut V> {
        // In the shared empty chunk every value is the default: never handed out.
        match self.dense.chunk_of(id) {
            Some(offset) => Some(self.dense.at_mut(offset, id)).filter(|v| **v != V::default()),
            None => self.sparse_get_mut(id),
        }
    }

    /// The flat table's lookup.
    #[inline]
    fn sparse_get(&self, id: u64) -> Option<&V> {
        self.sparse.get(id)
    }

    /// As `sparse_get`, to change in place.
    #[inline]
    fn sparse_get_mut(&mut self, id: u64) -> Option<&mut V> {
        self.sparse.get_mut(id)
    }

    /// Whether `id` is held.
    #[inline]
    pub fn contains_key(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    /// Sets `id` to `value` (not `V::default()`), returning the value it replaced.
    pub fn insert(&mut self, id: u64, value: V) -> Option<V> {
        debug_assert!(
            value != V::default(),
            "the default value marks an absent id"
        );
        if let Some(old) = self.get_mut(id) {
            return Some(std::mem::replace(old, value));
        }
        if self.covers_after_growth(id) {
            *self.dense.slot(id) = value;
            self.dense_len += 1;
        } else {
            self.sparse.insert(id, value);
        }
        None
    }

    /// Removes `id`, returning its value.
    pub fn remove(&mut self, id: u64) -> Option<V> {
        if let Some(offset) = self.dense.chunk_of(id) {
            // Taking from the shared empty chunk leaves it as it was: all defaults.
            let v = std::mem::take(self.dense.at_mut(offset, id));
            let held = v != V::default();
            self.dense_len -= usize::from(held);
            return held.then_some(v);
        }
        self.sparse.remove(id)
    }

    /// Whether the array covers `id`, growing it first if that keeps it dense enough.
    fn covers_after_growth(&mut self, id: u64) -> bool {
        let covered = self.dense.covered();
        if id < covered {
            return true;
        }
        let allowed = DENSITY
            .saturating_mul(self.len() as u64)
            .saturating_add(MIN_SLOTS);
        let wanted = covered.saturating_mul(2).max(id.saturating_add(1));
        if wanted > allowed || !self.dense.cover(wanted) {
            return false;
        }
        let covered = self.dense.covered();
        let (dense, dense_len) = (&mut self.dense, &mut self.dense_len);
        self.sparse.take_below(covered, |k, v| {
            *dense.slot(k) = v;
            *dense_len += 1;
        });
        true
    }
}

impl<V: ZeroDefault, const DENSITY: u64> IdTable<V, DENSITY> {
    /// Sizes the array of an empty table to cover ids `0 ..= max_id` at once, in zeroed
    /// memory, when that is within `DENSITY` slots per entry the table can ever hold
    /// (`most_entries`), plus `MIN_SLOTS`; otherwise leaves it to grow as it fills.
    /// Returns whether it did.
    pub fn presize(&mut self, max_id: u64, most_entries: u64) -> bool {
        let slots = max_id.saturating_add(1);
        let allowed = DENSITY
            .saturating_mul(most_entries)
            .saturating_add(MIN_SLOTS);
        if !self.is_empty() || slots > allowed || slots <= self.dense.covered() {
            return false;
        }
        self.dense.presize(slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::splitmix64;
    use std::collections::BTreeMap;

    /// Random operations on ids from a few ranges (dense, far, huge), each checked
    /// against a `BTreeMap` doing the same.
    #[test]
    fn behaves_as_a_map_over_dense_sparse_and_mixed_ids() {
        for (seed, spread) in [(1u64, 64u64), (2, 5_000), (3, 1 << 40), (4, u64::MAX)] {
            let mut state = seed;
            let mut next = || {
                state += 1;
                splitmix64(state)
            };
            let mut table = IdTable::<u32>::default();
            let mut model = BTreeMap::new();
            for step in 0..20_000u32 {
                let id = match next() % 3 {
                    0 => next() % 2_000,
                    1 => next() % spread,
                    _ => u64::MAX - next() % 4,
                };
                match next() % 4 {
                    0 => assert_eq!(table.remove(id), model.remove(&id), "remove {id}"),
                    1 => {
                        if let Some(v) = table.get_mut(id) {
                            *v += 1;
                        }
                        if let Some(v) = model.get_mut(&id) {
                            *v += 1;
                        }
                    }
                    _ => assert_eq!(table.insert(id, step + 1), model.insert(id, step + 1)),
                }
                assert_eq!(table.get(id), model.get(&id), "get {id}");
                assert_eq!(table.len(), model.len());
            }
            for (id, v) in &model {
                assert_eq!(table.get(*id), Some(v));
            }
            assert_eq!(table.is_empty(), model.is_empty());
        }
    }

    #[test]
    fn dense_ids_go_to_the_array_and_sparse_ones_to_the_flat_table() {
        let mut table = IdTable::<u32>::default();
        for id in 0..100_000u64 {
            table.insert(id, id as u32 + 1);
        }
        assert!(table.sparse.is_empty() && table.dense.covered() >= 100_000);
        let mut far = IdTable::<u32>::default();
        for k in 1..1_000u64 {
            far.insert(k << 32, 1);
        }
        assert!(far.dense.covered() == 0 && far.sparse.len() == 999);
        // An id the array later covers moves into it and stays found.
        let mut moved = IdTable::<u32>::default();
        moved.insert(5_000, 7);
        assert_eq!(moved.sparse.len(), 1);
        for id in 0..4_100u64 {
            moved.insert(id, 1);
        }
        assert!(moved.sparse.is_empty(), "5000 moved into the array");
        assert_eq!((moved.get(5_000), moved.len()), (Some(&7), 4_101));
    }

    /// The same random operations as above on presized tables: ids below, at and above
    /// the presized end, far and huge ones, each checked against a `BTreeMap`.
    #[test]
    fn a_presized_table_behaves_as_a_map() {
        for (seed, max_id) in [(5u64, 0u64), (6, 1), (7, 3_000), (8, 40_000)] {
            let mut table = IdTable::<u64>::default();
            assert!(table.presize(max_id, 1 << 20));
            assert_eq!(table.dense.covered(), (max_id + 1).next_multiple_of(16));
            assert!(table.is_empty() && table.get(max_id).is_none());
            let mut state = seed;
            let mut next = || {
                state += 1;
                splitmix64(state)
            };
            let mut model = BTreeMap::new();
            for step in 1..20_000u64 {
                let id = match next() % 5 {
                    0 => next() % (max_id + 1),
                    1 => max_id + next() % 3,
                    2 => max_id.saturating_sub(next() % 3),
                    3 => next() % (4 * max_id + 100_000),
                    _ => u64::MAX - next() % 4,
                };
                match next() % 4 {
                    0 => assert_eq!(table.remove(id), model.remove(&id), "remove {id}"),
                    1 => {
                        if let Some(v) = table.get_mut(id) {
                            *v += 1;
                        }
                        if let Some(v) = model.get_mut(&id) {
                            *v += 1;
                        }
                    }
                    _ => assert_eq!(table.insert(id, step), model.insert(id, step)),
                }
                assert_eq!(table.get(id), model.get(&id), "get {id}");
                assert_eq!(table.len(), model.len());
            }
            for (id, v) in &model {
                assert_eq!(table.get(*id), Some(v));
            }
        }
    }

    /// The array is presized only within 8 slots per entry the table can hold, plus
    /// 1,024, only when empty, and never past the address space.
    #[test]
    fn presizing_keeps_the_density_bound() {
        let fresh = IdTable::<u64>::default;
        // 1,000 entries at most: 8 * 1,000 + 1,024 = 9,024 slots, ids 0 ..= 9,023.
        let mut at_bound = fresh();
        assert!(at_bound.presize(9_023, 1_000));
        assert_eq!(at_bound.dense.covered(), 9_024);
        let mut past_bound = fresh();
        assert!(!past_bound.presize(9_024, 1_000));
        assert_eq!(past_bound.dense.covered(), 0);
        // No entries at all: 1,024 slots.
        assert!(fresh().presize(1_023, 0) && !fresh().presize(1_024, 0));
        // Far too many slots for the address space, or for the entries.
        assert!(!fresh().presize(u64::MAX, u64::MAX));
        assert!(!fresh().presize(u64::MAX - 1, u64::MAX / 8));
        // A table already holding entries keeps its array.
        let mut used = fresh();
        used.insert(3, 1);
        let before = used.dense.covered();
        assert!(!used.presize(5_000, 1_000_000));
        assert_eq!((used.dense.covered(), used.get(3)), (before, Some(&1)));
        // The caches' 16 slots per entry: 16 * 100 + 1,024 = 2,624.
        let mut cache_table = IdTable::<u32, 16>::default();
        assert!(!cache_table.presize(2_624, 100) && cache_table.presize(2_623, 100));
    }
}
