//! One replica's content-addressed KV block cache: resident blocks by id, pinning by
//! in-flight requests, readiness after the computing step, and O(1) LRU eviction
//! (a queue of releases, `releases.rs`).
//!
//! Memory model: the cache and the running requests share one pool of `capacity`
//! blocks. A request holds its full prompt blocks as shared, content-addressed entries
//! (pinned while it runs) and the rest of its KV (the partial last prompt block and its
//! output) as private blocks. Unpinned entries stay resident, evictable, least recently
//! released first; a released request's tail blocks are evicted before its head.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

mod chunked;
mod flat;
mod grow;
mod releases;
mod table;
mod tier;
mod window;
mod zeroed;

pub use flat::FlatTable;
use releases::Releases;
pub use table::IdTable;
pub use tier::CpuTier;
pub(crate) use zeroed::zeroed_vec;
use zeroed::ZeroDefault;

/// A fast, deterministic hasher for integer block ids (a multiplicative mix).
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517C_C1B7_2722_0A95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 32);
    }
}

/// A `HashMap` keyed by block id; used only for lookups, never iterated to decide anything.
pub type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// A resident entry, inline in the id table (16 bytes with the id): its pins, whether it
/// is computed and the stamp of its latest release, so checks, pins and releases touch
/// only the table (and the queue's back). A held entry is pinned or computed, so its
/// `state` is never 0 and it never equals the default, which marks an absent id in
/// `IdTable`'s array.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Entry {
    /// The stamp of its place in the eviction queue, when it is evictable (no pins).
    stamp: u32,
    /// Pins (requests holding it) in the low 31 bits, `READY` once computed.
    state: u32,
}

// SAFETY: two integers; all-zero bytes are the default (no pins, not computed, stamp 0).
unsafe impl ZeroDefault for Entry {}

const READY: u32 = 1 << 31;

impl Entry {
    fn refs(self) -> u32 {
        self.state & !READY
    }

    fn ready(self) -> bool {
        self.state & READY != 0
    }
}

/// Why a request could not be given its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoom {
    /// Blocks the request needs that are not resident.
    pub needed_blocks: u64,
    /// Blocks that are free or evictable for it.
    pub available_blocks: u64,
}

/// A replica's block cache.
#[derive(Clone, Debug)]
pub struct BlockCache {
    capacity_blocks: Option<u64>,
    index: IdTable<Entry, 16>,
    /// The evictable entries' releases, oldest first, with stale places.
    releases: Releases,
    evictable_blocks: u64,
    pinned_blocks: u64,
    private_blocks: u64,
    evictions: u64,
    journal: Vec<(u64, bool)>,
    /// With a lower tier below it: the computed entries evicted since the last
    /// `drain_evicted`, in eviction order (`None`: evicted blocks are gone).
    evicted: Option<Vec<u64>>,
    /// Bumped by every change that can change `room_for`'s answer (a pin, a release, an
    /// answer's blocks cached): an answer given at one version holds until it moves.
    room_version: u64,
}

impl BlockCache {
    /// An empty cache of `capacity_blocks` blocks (`None` = unbounded).
    pub fn new(capacity_blocks: Option<u64>) -> BlockCache {
        BlockCache::with_queue_limits(capacity_blocks, None)
    }

    /// As `new`, with the eviction queue compacting past `slack` stale places or after
    /// `stamps` releases (`None`: the defaults, 1,024 and 2³¹). The results are the
    /// same at any limits; small ones let tests reach the compaction. Not for other use.
    #[doc(hidden)]
    pub fn with_queue_limits(
        capacity_blocks: Option<u64>,
        limits: Option<(usize, u32)>,
    ) -> BlockCache {
        BlockCache {
            capacity_blocks,
            index: IdTable::default(),
            releases: limits.map_or_else(Releases::default, |(slack, stamps)| {
                Releases::with_limits(slack, stamps)
            }),
            evictable_blocks: 0,
            pinned_blocks: 0,
            private_blocks: 0,
            evictions: 0,
            journal: Vec::new(),
            evicted: None,
            room_version: 0,
        }
    }

    /// Sizes the empty cache's id table once for ids `0 ..= max_id`, when that is within
    /// its density bound for `most_entries` entries (at most its capacity); for a sparse
    /// share of the ids (a replica of many), its directory alone, within its own bound;
    /// otherwise it grows as it fills. Changes no result. Returns whether it did either.
    pub fn presize_ids(&mut self, max_id: u64, most_entries: u64) -> bool {
        let holdable = self
            .capacity_blocks
            .map_or(most_entries, |c| c.min(most_entries));
        let presized = self.index.presize(max_id, holdable);
        if presized {
            // Room in the eviction queue for what the table may hold: reserved, not
            // written, so room never used is never touched.
            self.releases.reserve(holdable.min(max_id + 1) as usize);
        }
        presized || self.index.presize_directory(max_id, holdable)
    }

    /// Capacity in blocks, `None` when unbounded.
    pub fn capacity_blocks(&self) -> Option<u64> {
        self.capacity_blocks
    }

    /// Blocks in use: resident entries plus private blocks of running requests.
    pub fn used_blocks(&self) -> u64 {
        self.index.len() as u64 + self.private_blocks
    }

    /// Distinct entries pinned by in-flight requests.
    pub fn pinned_blocks(&self) -> u64 {
        self.pinned_blocks
    }

    /// Unpinned resident entries, the eviction candidates.
    pub fn evictable_blocks(&self) -> u64 {
        self.evictable_blocks
    }

    /// Private (not content-addressed) blocks held by running requests.
    pub fn private_blocks(&self) -> u64 {
        self.private_blocks
    }

    /// Entries evicted so far.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Keeps the ids of the computed entries it evicts from now on, for a lower tier to
    /// take (`drain_evicted`).
    pub fn keep_evicted(&mut self) {
        self.evicted.get_or_insert_with(Vec::new);
    }

    /// Takes the computed entries evicted since the last call, in eviction order (none
    /// unless `keep_evicted` was called).
    pub fn drain_evicted(&mut self) -> std::vec::Drain<'_, u64> {
        self.evicted.get_or_insert_with(Vec::new).drain(..)
    }

    /// The version of the cache's room: while it stays the same, so does every answer of
    /// `room_for` (marking blocks computed does not move it).
    pub fn room_version(&self) -> u64 {
        self.room_version
    }

    /// Whether `id` is resident and computed.
    pub fn is_ready(&self, id: u64) -> bool {
        self.index.get(id).is_some_and(|e| e.ready())
    }

    /// Whether `id` is resident (computed or still being computed).
    pub fn contains(&self, id: u64) -> bool {
        self.index.contains_key(id)
    }

    /// Whether `id` is resident and pinned by a running request.
    pub fn is_pinned(&self, id: u64) -> bool {
        self.index.get(id).is_some_and(|e| e.refs() > 0)
    }

    /// The longest leading run of `ids` that is resident and computed, at most `max`.
    pub fn hit_blocks(&self, ids: &[u64], max: usize) -> usize {
        ids.iter()
            .take(max)
            .take_while(|&&id| self.is_ready(id))
            .count()
    }

    /// Ids in eviction order (least recently released first); for tests and debugging.
    pub fn lru_order(&self) -> Vec<u64> {
        self.releases
            .iter()
            .filter(|&(id, stamp)| self.is_queued(id, stamp))
            .map(|(id, _)| id)
            .collect()
    }

    /// Whether the queue's place `(id, stamp)` is `id`'s latest release and it is still
    /// evictable (held, no pins).
    #[inline]
    fn is_queued(&self, id: u64, stamp: u32) -> bool {
        self.index
            .get(id)
            .is_some_and(|e| e.refs() == 0 && e.stamp == stamp)
    }

    /// Checks whether a request holding content entries `ids` plus `private` blocks fits
    /// now, evicting if needed; on success pins `ids` (new ones start not ready) and
    /// reserves `private`. On failure nothing changes.
    pub fn acquire(&mut self, ids: &[u64], private: u64) -> Result<(), NoRoom> {
        self.room_for(ids, private)?;
        self.room_version += 1;
        for &id in ids {
            self.pin(id);
        }
        self.private_blocks += private;
        self.make_room();
        Ok(())
    }

    /// Whether `acquire(ids, private)` would succeed now (changes nothing).
    pub fn room_for(&self, ids: &[u64], private: u64) -> Result<(), NoRoom> {
        let Some(capacity) = self.capacity_blocks else {
            return Ok(());
        };
        let mut missing = 0u64;
        let mut own_evictable = 0u64;
        for id in ids {
            match self.index.get(*id) {
                None => missing += 1,
                Some(e) if e.refs() == 0 => own_evictable += 1,
                Some(_) => {}
            }
        }
        let needed_blocks = missing + private;
        let free = capacity.saturating_sub(self.used_blocks());
        let available_blocks = free + self.evictable_blocks - own_evictable;
        if needed_blocks > available_blocks {
            return Err(NoRoom {
                needed_blocks,
                available_blocks,
            });
        }
        Ok(())
    }

    /// Marks entries as computed (the step that computed them has run).
    pub fn mark_ready(&mut self, ids: &[u64]) {
        for &id in ids {
            if let Some(e) = self.index.get_mut(id) {
                if !e.ready() {
                    e.state |= READY;
                    self.journal.push((id, true));
                }
            }
        }
    }

    /// Empties a cache that holds no request (a replica leaving the fleet): every
    /// resident block goes, journalled as an evict event (not counted as an eviction).
    pub fn clear(&mut self) {
        debug_assert_eq!(
            self.pinned_blocks + self.private_blocks,
            0,
            "clear of a busy cache"
        );
        for id in self.lru_order() {
            self.journal.push((id, false));
        }
        let journal = std::mem::take(&mut self.journal);
        *self = BlockCache {
            journal,
            evictions: self.evictions,
            evicted: self.evicted.take().map(|_| Vec::new()),
            room_version: self.room_version + 1,
            ..BlockCache::new(self.capacity_blocks)
        };
    }

    /// Takes the store (`true`) and evict (`false`) events of computed blocks since the
    /// last call, in order, for the fleet-wide block index.
    pub fn drain_journal(&mut self) -> std::vec::Drain<'_, (u64, bool)> {
        self.journal.drain(..)
    }

    /// Unpins a finished request's entries and frees its private blocks. Entries are
    /// released tail first, so a prompt's last blocks are evicted before its first.
    /// An entry left unpinned but never computed is dropped.
    pub fn release(&mut self, ids: &[u64], private: u64) {
        self.room_version += 1;
        for &id in ids.iter().rev() {
            let Some(e) = self.index.get_mut(id) else {
                continue;
            };
            debug_assert!(e.refs() > 0, "release of unpinned block {id}");
            if e.refs() > 1 {
                e.state -= 1;
                continue;
            }
            self.pinned_blocks -= 1;
            if e.ready() {
                e.state -= 1; // still READY, so never the absent marker
                e.stamp = self.releases.push(id);
                self.evictable_blocks += 1;
            } else {
                self.remove_entry(id);
            }
        }
        self.private_blocks -= private;
        self.settle_releases();
    }

    /// A finished request's release that also caches the blocks its answer completed
    /// (`output_ids`, full blocks of prompt tail + output): they join the evictable list
    /// first (evicted first), then the prompt's entries are released as in `release`.
    pub fn release_with_output(&mut self, ids: &[u64], private: u64, output_ids: &[u64]) {
        self.room_version += 1;
        self.private_blocks -= private;
        for &id in output_ids.iter().rev() {
            if self.index.contains_key(id) {
                continue;
            }
            let stamp = self.releases.push(id);
            self.index.insert(
                id,
                Entry {
                    stamp,
                    state: READY,
                },
            );
            self.evictable_blocks += 1;
            self.journal.push((id, true));
        }
        self.release(ids, 0);
        self.make_room();
    }

    fn pin(&mut self, id: u64) {
        if let Some(e) = self.index.get_mut(id) {
            e.state += 1;
            if e.refs() == 1 {
                // It was evictable: its place in the queue is stale from now on.
                self.evictable_blocks -= 1;
                self.pinned_blocks += 1;
            }
            return;
        }
        self.index.insert(id, Entry { stamp: 0, state: 1 });
        self.pinned_blocks += 1;
    }

    fn make_room(&mut self) {
        let Some(capacity) = self.capacity_blocks else {
            return;
        };
        while self.used_blocks() > capacity && self.evictable_blocks > 0 {
            let Some((id, stamp)) = self.releases.pop_front() else {
                break;
            };
            if !self.is_queued(id, stamp) {
                continue;
            }
            self.evictable_blocks -= 1;
            self.remove_entry(id);
            self.evictions += 1;
            if let Some(evicted) = &mut self.evicted {
                evicted.push(id);
            }
        }
        debug_assert!(self.used_blocks() <= capacity, "cache over capacity");
    }

    fn remove_entry(&mut self, id: u64) {
        if self.index.remove(id).is_some_and(|e| e.ready()) {
            self.journal.push((id, false));
        }
    }

    /// Compacts the eviction queue when its stale places or its stamps call for it.
    fn settle_releases(&mut self) {
        if !self.releases.needs_compaction(self.evictable_blocks) {
            return;
        }
        let index = &mut self.index;
        self.releases
            .compact(|id, old, new| match index.get_mut(id) {
                Some(e) if e.refs() == 0 && e.stamp == old => {
                    e.stamp = new;
                    true
                }
                _ => false,
            });
    }
}

#[cfg(test)]
mod tests;
