//! The router's copy of the fleet's block index, fed by the engines' store and evict
//! events a fixed lag after they happen (a KV event bus with delivery delay).

use std::collections::VecDeque;

use crate::index::BlockIndex;

/// One store (`added`) or evict event, visible to the router from `visible_us`.
#[derive(Clone, Copy, Debug)]
struct Event {
    visible_us: u64,
    replica: u32,
    id: u64,
    added: bool,
}

/// A block index that sees every event `lag_us` late, in the order they happened.
pub struct Lagged {
    lag_us: u64,
    index: BlockIndex,
    pending: VecDeque<Event>,
}

impl Lagged {
    /// An empty index over `replicas` replicas, `lag_us` behind the engines.
    pub fn new(replicas: usize, lag_us: u64) -> Lagged {
        Lagged {
            lag_us,
            index: BlockIndex::new(replicas),
            pending: VecDeque::new(),
        }
    }

    /// The engine of replica `r` stored (`added`) or evicted block `id` at `now_us`.
    pub fn event(&mut self, now_us: u64, r: usize, id: u64, added: bool) {
        self.pending.push_back(Event {
            visible_us: now_us + self.lag_us,
            replica: r as u32,
            id,
            added,
        });
    }

    /// Applies every event visible at `now_us` (the lag is the same for all, so they
    /// become visible in the order they happened).
    pub fn catch_up(&mut self, now_us: u64) {
        while let Some(e) = self.pending.front().copied() {
            if e.visible_us > now_us {
                break;
            }
            self.pending.pop_front();
            if e.added {
                self.index.insert(e.id, e.replica as usize);
            } else {
                self.index.remove(e.id, e.replica as usize);
            }
        }
    }

    /// The index as the router sees it.
    pub fn index(&mut self) -> &mut BlockIndex {
        &mut self.index
    }

    /// Whether the router sees replica `r` holding `id`.
    pub fn holds(&self, id: u64, r: usize) -> bool {
        self.index.holds(id, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_become_visible_after_the_lag_in_order() {
        let mut lagged = Lagged::new(2, 100);
        lagged.event(0, 1, 7, true);
        lagged.event(50, 1, 7, false);
        lagged.event(60, 0, 7, true);
        let mut hits = vec![0; 2];
        let mut seen = |lagged: &mut Lagged, t: u64| {
            lagged.catch_up(t);
            lagged.index().hits(&[7], 1, &mut hits);
            hits.clone()
        };
        assert_eq!(seen(&mut lagged, 99), [0, 0], "the store is 100 µs away");
        assert_eq!(seen(&mut lagged, 100), [0, 1]);
        assert_eq!(seen(&mut lagged, 149), [0, 1], "the evict is not seen yet");
        assert_eq!(seen(&mut lagged, 150), [0, 0]);
        assert_eq!(seen(&mut lagged, 160), [1, 0]);
    }
}
