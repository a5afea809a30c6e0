//! A cache's eviction order as a queue of releases: each time an entry becomes
//! evictable it is stamped and its id and stamp join the back; the front is the next
//! victim. Pinning an entry again leaves its old place in the queue behind, to be
//! skipped: its stamp no longer matches the entry's, or the entry is pinned. So pinning
//! and releasing touch only the entry and the queue's back, and evicting reads the queue
//! front in order, where a doubly linked list would touch two neighbours' records, as
//! cold as the entry, for every pin of an evictable entry.
//!
//! The queue holds every evictable entry once (its latest release) plus stale places.
//! When stale places outnumber the live ones by `slack`, or the stamps reach their limit,
//! `compact` keeps only the live places, in order, and stamps them afresh from 0, so a
//! stale place never carries the stamp its id holds now (stamps are unique between
//! compactions). The caller says which places are live.
//!
//! A place's stamp is its number in the order of pushes (since the last compaction), so
//! the queue stores only ids, 8 bytes a place: the front's stamp and the count give the
//! rest.

use std::collections::VecDeque;

/// Stale places allowed beyond the live ones before compacting.
const SLACK: usize = 1024;
/// Stamps handed out before compacting (and stamping afresh) regardless.
const STAMP_LIMIT: u32 = 1 << 31;

/// Released ids in release order; the `k`-th from the front was stamped
/// `front_stamp + k`.
#[derive(Clone, Debug)]
pub(super) struct Releases {
    queue: VecDeque<u64>,
    front_stamp: u32,
    slack: usize,
    stamp_limit: u32,
}

impl Default for Releases {
    fn default() -> Self {
        Releases::with_limits(SLACK, STAMP_LIMIT)
    }
}

impl Releases {
    /// A queue that compacts past `slack` stale places or at `stamp_limit` stamps
    /// (small limits let tests reach both).
    pub(super) fn with_limits(slack: usize, stamp_limit: u32) -> Releases {
        Releases {
            queue: VecDeque::new(),
            front_stamp: 0,
            slack,
            stamp_limit: stamp_limit.max(1),
        }
    }

    /// Room for `n` places, reserved (not written).
    pub(super) fn reserve(&mut self, n: usize) {
        self.queue.reserve(n);
    }

    /// Queues `id` as released now; returns its stamp.
    #[inline]
    pub(super) fn push(&mut self, id: u64) -> u32 {
        let stamp = self.next_stamp();
        self.queue.push_back(id);
        stamp
    }

    /// The stamp the next push gets.
    #[inline]
    fn next_stamp(&self) -> u32 {
        self.front_stamp.wrapping_add(self.queue.len() as u32)
    }

    /// The oldest place (id and stamp), removed.
    #[inline]
    pub(super) fn pop_front(&mut self) -> Option<(u64, u32)> {
        let id = self.queue.pop_front()?;
        let stamp = self.front_stamp;
        self.front_stamp = stamp.wrapping_add(1);
        Some((id, stamp))
    }

    /// Every place (id and stamp), oldest first, stale ones too.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (self.queue.iter())
            .zip(0u32..)
            .map(|(&id, k)| (id, self.front_stamp.wrapping_add(k)))
    }

    /// Whether to compact, with `live` places live.
    #[inline]
    pub(super) fn needs_compaction(&self, live: u64) -> bool {
        self.queue.len() as u64 > 2 * live + self.slack as u64
            || self.next_stamp() >= self.stamp_limit
    }

    /// Keeps the live places in order and stamps them 0, 1, …: `restamp(id, old, new)`
    /// says whether the place is live and, if so, gives its entry the stamp `new`.
    pub(super) fn compact(&mut self, mut restamp: impl FnMut(u64, u32, u32) -> bool) {
        let mut old = self.front_stamp;
        let mut next = 0u32;
        self.queue.retain(|&id| {
            let live = restamp(id, old, next);
            old = old.wrapping_add(1);
            next += u32::from(live);
            live
        });
        self.front_stamp = 0;
    }
}

#[cfg(test)]
mod tests {
    //! The queue's bounds, which no result shows (stale places are skipped either way):
    //! when it compacts, what compaction keeps, and the memory it reserves.
    use super::*;

    #[test]
    fn compacts_past_the_slack_or_at_the_stamp_limit_and_not_before() {
        let mut q = Releases::with_limits(4, 100);
        for id in 0..10 {
            q.push(id);
        }
        // 10 places: over 2 x live + 4 only when fewer than 3 are live.
        assert!(!q.needs_compaction(3));
        assert!(q.needs_compaction(2));
        assert!(!q.needs_compaction(10));
        // 100 stamps handed out: compact however many are live.
        let mut q = Releases::with_limits(1_000, 8);
        for id in 0..7 {
            q.push(id);
        }
        assert!(!q.needs_compaction(7), "7 stamps of 8");
        q.push(7);
        assert!(q.needs_compaction(8), "8 stamps of 8");
        // The defaults: neither limit near at a few thousand live places.
        let mut q = Releases::default();
        for id in 0..3_000 {
            q.push(id);
        }
        assert!(!q.needs_compaction(3_000));
        assert!(q.needs_compaction(900), "3,000 > 2 x 900 + 1,024");
    }

    #[test]
    fn compaction_keeps_the_live_places_in_order_and_stamps_them_afresh() {
        let mut q = Releases::with_limits(4, 100);
        for id in 10..16 {
            q.push(id);
        }
        assert_eq!(q.pop_front(), Some((10, 0)));
        let mut seen = Vec::new();
        q.compact(|id, old, new| {
            seen.push((id, old, new));
            id % 2 == 1
        });
        // Each place with its old stamp and the stamp it would get; the odd ids kept.
        assert_eq!(
            seen,
            vec![(11, 1, 0), (12, 2, 1), (13, 3, 1), (14, 4, 2), (15, 5, 2)]
        );
        assert_eq!(
            q.iter().collect::<Vec<_>>(),
            vec![(11, 0), (13, 1), (15, 2)]
        );
        assert_eq!(q.push(20), 3, "the next stamp follows the kept ones");
        assert_eq!(q.pop_front(), Some((11, 0)));
    }

    #[test]
    fn reserve_makes_room_up_front() {
        let mut q = Releases::default();
        q.reserve(5_000);
        assert!(q.queue.capacity() >= 5_000);
    }
}
