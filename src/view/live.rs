//! The live load signals of every replica, kept current incrementally: a replica's view
//! is recomputed only when something changed it since the last look (its engine ran, or
//! a request routed to it was dispatched, ended or reached its first token), so a pick
//! refreshes O(replicas changed) views instead of rebuilding all of them.

use super::ReplicaView;

/// A set of replica indices, each at most once, in the order first marked.
#[derive(Clone, Debug, Default)]
pub struct Touched {
    marked: Vec<bool>,
    list: Vec<u32>,
}

impl Touched {
    /// Nothing marked, over `replicas` replicas.
    pub fn new(replicas: usize) -> Touched {
        Touched {
            marked: vec![false; replicas],
            list: Vec::with_capacity(replicas),
        }
    }

    /// Marks replica `r` (again: no effect).
    pub fn mark(&mut self, r: usize) {
        if !self.marked[r] {
            self.marked[r] = true;
            self.list.push(r as u32);
        }
    }

    /// Calls `f` on every marked replica and unmarks them all.
    pub fn drain(&mut self, mut f: impl FnMut(usize)) {
        for r in self.list.drain(..) {
            self.marked[r as usize] = false;
            f(r as usize);
        }
    }
}

/// Every replica's view, with the replicas whose view may be out of date.
#[derive(Clone, Debug)]
pub struct LiveViews {
    views: Vec<ReplicaView>,
    stale: Touched,
}

impl LiveViews {
    /// `replicas` views, all stale until the first refresh.
    pub fn new(replicas: usize) -> LiveViews {
        let mut stale = Touched::new(replicas);
        for r in 0..replicas {
            stale.mark(r);
        }
        LiveViews {
            views: vec![ReplicaView::default(); replicas],
            stale,
        }
    }

    /// Replica `r`'s state changed: its view is recomputed at the next refresh.
    pub fn touch(&mut self, r: usize) {
        self.stale.mark(r);
    }

    /// Recomputes the stale views with `view_of(r)`.
    pub fn refresh(&mut self, mut view_of: impl FnMut(usize) -> ReplicaView) {
        let views = &mut self.views;
        self.stale.drain(|r| views[r] = view_of(r));
    }

    /// The views (current as of the last refresh).
    pub fn views(&self) -> &[ReplicaView] {
        &self.views
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};

    /// Seeded random changes to a fleet's signals, some replicas touched and some not:
    /// after each refresh the views equal a recomputation of every replica's view.
    #[test]
    fn refreshed_views_equal_a_full_recomputation() {
        for seed in 0..20 {
            let mut rng = Rng::fork_nth(seed, Stream::Router, 0);
            let n = 1 + rng.below(70) as usize;
            let mut truth = vec![ReplicaView::default(); n];
            let mut live = LiveViews::new(n);
            for _ in 0..500 {
                for _ in 0..rng.below(4) {
                    let r = rng.below(n as u64) as usize;
                    truth[r].waiting = rng.below(5) as u32;
                    truth[r].active_blocks = rng.below(100);
                    truth[r].prefill_tokens = rng.below(10_000);
                    live.touch(r);
                    if rng.below(3) == 0 {
                        live.touch(r); // marked twice: refreshed once
                    }
                }
                if rng.below(2) == 0 {
                    live.refresh(|r| truth[r]);
                    assert_eq!(live.views(), &truth[..], "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn a_view_not_touched_keeps_its_old_value() {
        let mut live = LiveViews::new(2);
        let mut truth = [ReplicaView::default(); 2];
        live.refresh(|r| truth[r]);
        truth[1].running = 3;
        live.refresh(|r| truth[r]);
        assert_eq!(live.views()[1].running, 0, "not touched, not recomputed");
        live.touch(1);
        live.refresh(|r| truth[r]);
        assert_eq!(live.views()[1].running, 3);
    }

    #[test]
    fn touched_drains_each_replica_once_in_first_marked_order() {
        let mut t = Touched::new(4);
        for r in [2, 0, 2, 3, 0] {
            t.mark(r);
        }
        let mut seen = Vec::new();
        t.drain(|r| seen.push(r));
        assert_eq!(seen, [2, 0, 3]);
        t.drain(|r| seen.push(r));
        assert_eq!(seen.len(), 3, "drained: nothing left");
    }
}
