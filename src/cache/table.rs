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
//! A table may have a sliding window past the array (`WINDOW = true`, `window.rs`),
//! for ids a counter keeps numbering upwards (the fleet index on a synthetic workload):
//! once the array stops growing, such ids go to a ring that slides with them instead of
//! the flat table.
//!
//! When the source knows its ids in advance (a parsed trace), `presize` covers them all
//! at once, its directory in zeroed memory and its chunks' room reserved (pages fresh
//! from the system stay untouched until used), so nothing is copied as it fills; it
//! does so only within the same density bound, counted against the entries the table
//! can ever hold.

use super::chunked::Chunked;
use super::window::{Placed, Window};
use super::zeroed::ZeroDefault;
use super::FlatTable;

/// Slots the array may always grow to, whatever the entries.
const MIN_SLOTS: u64 = 1024;
/// Ids a directory-only presized array may cover per entry the table can hold: with 4
/// bytes of directory per `CHUNK` (16) ids, 64 bytes per entry.
const DIRECTORY_SLOTS: u64 = 256;
/// Cells of the smallest sliding window.
const MIN_WINDOW: usize = 1024;

/// Block id -> `V` (never `V::default()`); the array may hold `DENSITY` slots per entry
/// held when it grows.
///
/// With `WINDOW`, a table also has a sliding window (`window.rs`), opened once
/// the array stops growing: ids `lo .. lo + W` past the array, for ids counted upwards.
/// Each id lives in one place, fixed by the id: the array if below `covered()`, else the
/// window if it covers the id, else the flat table.
#[derive(Clone, Debug, Default)]
pub struct IdTable<V, const DENSITY: u64 = 8, const WINDOW: bool = false> {
    dense: Chunked<V>,
    sparse: FlatTable<V>,
    dense_len: usize,
    window: Window<V>,
    /// The window covers the same ids from now on: an id came too far ahead of it.
    frozen: bool,
}

impl<V: Copy + Default + PartialEq, const DENSITY: u64, const WINDOW: bool>
    IdTable<V, DENSITY, WINDOW>
{
    /// Entries held.
    pub fn len(&self) -> usize {
        self.dense_len + self.window.len() + self.sparse.len()
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
            None if WINDOW && self.window.covers(id) => {
                Some(self.window.at(id)).filter(|v| **v != V::default())
            }
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
            None if WINDOW && self.window.covers(id) => {
                Some(self.window.at_mut(id)).filter(|v| **v != V::default())
            }
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
        } else if WINDOW && self.window_covers_after_sliding(id) {
            self.window.fill(id, value);
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
        if WINDOW && self.window.covers(id) {
            return self.window.take(id);
        }
        self.sparse.remove(id)
    }

    /// Whether the array covers `id`, growing it first if that keeps it dense enough. It
    /// no longer grows once a window is open (the window starts where it ends).
    fn covers_after_growth(&mut self, id: u64) -> bool {
        let covered = self.dense.covered();
        if id < covered {
            return true;
        }
        if WINDOW && self.window.is_open() {
            return false;
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

    /// For an id past the array and not held: whether the window covers it, opening the
    /// window first (if not yet open), widening it (if it is less than twice
    /// the entries held) or sliding it forward (if the id is close enough ahead; one too
    /// far ahead freezes it).
    fn window_covers_after_sliding(&mut self, id: u64) -> bool {
        if self.window.covers(id) {
            return true;
        }
        if id == u64::MAX || self.frozen {
            return false; // `u64::MAX` is never in a window
        }
        if self.window.is_open() && id < self.window.end() {
            return false; // behind it
        }
        if self.window.width() < 2 * self.len() || !self.window.is_open() {
            self.reopen_window(id);
            return true;
        }
        let (window, sparse) = (&mut self.window, &mut self.sparse);
        match window.place(id, |k, v| {
            sparse.insert(k, v);
        }) {
            Placed::Slid => true,
            Placed::TooFar => {
                self.frozen = true;
                false
            }
        }
    }

    /// (Re)opens the window so that it covers `id` (past the array and the window): twice
    /// the entries held (at least `MIN_WINDOW`), rounded up to a power of two, ending just
    /// past `id` or starting where the array ends. The old window's ids it does not cover
    /// go to the flat table, the flat table's ids it covers come into it.
    fn reopen_window(&mut self, id: u64) {
        let width = (2 * self.len()).max(MIN_WINDOW).next_power_of_two();
        let lo = (id + 1)
            .saturating_sub(width as u64)
            .max(self.dense.covered());
        let old = std::mem::replace(&mut self.window, Window::open(width, lo));
        let (window, sparse) = (&mut self.window, &mut self.sparse);
        old.drain(|k, v| {
            if window.covers(k) {
                window.fill(k, v);
            } else {
                sparse.insert(k, v);
            }
        });
        let (lo, end) = (window.lo(), window.end());
        sparse.take_in(lo, end, |k, v| window.fill(k, v));
        debug_assert!(self.window.covers(id));
    }
}

impl<V: ZeroDefault, const DENSITY: u64, const WINDOW: bool> IdTable<V, DENSITY, WINDOW> {
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

    /// For ids too many for `presize`: covers ids `0 ..= max_id` with the array's
    /// directory alone (4 bytes per `CHUNK` ids, zeroed), its chunks handed out as they
    /// are first written, when that is within `DIRECTORY_SLOTS` ids per entry the table
    /// can ever hold (plus `MIN_SLOTS`): at most 64 bytes of directory per entry. A table
    /// that holds a sparse share of a trace's ids (one replica's of many) then finds each
    /// id in two indexings, consecutive ids side by side, instead of hashing them.
    /// Returns whether it did.
    pub fn presize_directory(&mut self, max_id: u64, most_entries: u64) -> bool {
        let slots = max_id.saturating_add(1);
        let allowed = DIRECTORY_SLOTS
            .saturating_mul(most_entries)
            .saturating_add(MIN_SLOTS);
        if !self.is_empty() || slots > allowed || slots <= self.dense.covered() {
            return false;
        }
        self.dense.presize_directory(slots)
    }
}

#[cfg(test)]
mod tests;
