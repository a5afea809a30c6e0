//! A map from block id to a small value that is a plain array for the small, dense ids
//! real traces use (Mooncake's ids count up from 0), with a `FlatTable` for the rest: a
//! lookup is an index, and growing it copies an array instead of rehashing. Like
//! `FlatTable`, it is never iterated, so it cannot change any result.
//!
//! The array covers ids `0 .. dense.len()`; an id at or past its end lives in the flat
//! table. It grows (at least doubling, moving the flat table's ids it now covers) only
//! while it stays within `DENSITY` slots per entry held (plus `MIN_SLOTS`), so sparse
//! ids (a synthetic workload's ever-growing ones) cost at most `DENSITY` slots per entry
//! and fall back to the flat table. In the array, `V::default()` marks an absent id, so
//! no value stored may equal it.

use super::FlatTable;

/// Slots the array may always grow to, whatever the entries.
const MIN_SLOTS: u64 = 1024;

/// Block id -> `V` (never `V::default()`); the array may hold `DENSITY` slots per entry
/// held when it grows.
#[derive(Clone, Debug, Default)]
pub struct IdTable<V, const DENSITY: u64 = 8> {
    dense: Vec<V>,
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
    #[inline]
    pub fn get(&self, id: u64) -> Option<&V> {
        if id < self.dense.len() as u64 {
            let v = &self.dense[id as usize];
            return (*v != V::default()).then_some(v);
        }
        self.sparse.get(id)
    }

    /// The value of `id` to change in place, if held; it must not be set to
    /// `V::default()` (remove the id instead).
    #[inline]
    pub fn get_mut(&mut self, id: u64) -> Option<&mut V> {
        if id < self.dense.len() as u64 {
            let v = &mut self.dense[id as usize];
            return (*v != V::default()).then_some(v);
        }
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
            self.dense[id as usize] = value;
            self.dense_len += 1;
        } else {
            self.sparse.insert(id, value);
        }
        None
    }

    /// Removes `id`, returning its value.
    pub fn remove(&mut self, id: u64) -> Option<V> {
        if id < self.dense.len() as u64 {
            let v = std::mem::take(&mut self.dense[id as usize]);
            let held = v != V::default();
            self.dense_len -= usize::from(held);
            return held.then_some(v);
        }
        self.sparse.remove(id)
    }

    /// Whether the array covers `id`, growing it first if that keeps it dense enough.
    fn covers_after_growth(&mut self, id: u64) -> bool {
        let covered = self.dense.len() as u64;
        if id < covered {
            return true;
        }
        let allowed = DENSITY
            .saturating_mul(self.len() as u64)
            .saturating_add(MIN_SLOTS);
        let wanted = covered.saturating_mul(2).max(id.saturating_add(1));
        if wanted > allowed {
            return false;
        }
        self.dense.resize(wanted as usize, V::default());
        let (dense, dense_len) = (&mut self.dense, &mut self.dense_len);
        self.sparse.take_below(wanted, |k, v| {
            dense[k as usize] = v;
            *dense_len += 1;
        });
        true
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
        assert!(table.sparse.is_empty() && table.dense.len() >= 100_000);
        let mut far = IdTable::<u32>::default();
        for k in 1..1_000u64 {
            far.insert(k << 32, 1);
        }
        assert!(far.dense.is_empty() && far.sparse.len() == 999);
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
}
