//! Which replicas a router may pick (an autoscaled fleet's ready ones): the mask, the
//! memory dropped when a replica leaves, a random draw among the open ones, and the zoo
//! policies judging the open replicas alone.

use super::{zoo, Ask, ReplicaView, Router};

impl Router {
    /// Which replicas take new requests from now on (an autoscaled fleet's ready ones);
    /// the others are never picked.
    pub fn set_accepting(&mut self, accepting: &[bool]) {
        self.accepting.clear();
        self.accepting.extend_from_slice(accepting);
    }

    /// Replica `r` left the fleet: the router's own memory of it goes (its recent term,
    /// SGLang's tree, AIBrix's table), as a deployed router drops a removed worker.
    pub fn forget(&mut self, r: usize) {
        self.recent[r] = 0.0;
        if let Some(trees) = self.zoo.sglang.as_mut() {
            trees.forget(r);
        }
        if let Some(table) = self.zoo.aibrix.as_mut() {
            table.forget(r);
        }
    }

    /// Whether replica `r` takes new requests.
    pub(super) fn open(&self, r: usize) -> bool {
        self.accepting.is_empty() || self.accepting[r]
    }

    /// The zoo's pick among the accepting replicas only: the policy judges them alone
    /// (their views, hits and new blocks in order), and its rows are spread back over
    /// the fleet, the others marked not candidates.
    pub(super) fn pick_zoo_among(&mut self, ask: &Ask, views: &[ReplicaView]) -> usize {
        let ids: Vec<usize> = (0..views.len()).filter(|&r| self.accepting[r]).collect();
        let sub_views: Vec<ReplicaView> = ids.iter().map(|&r| views[r]).collect();
        let hits: Vec<u32> = ids.iter().map(|&r| ask.hits[r]).collect();
        let new_blocks: Vec<u32> = match ask.new_blocks.is_empty() {
            true => Vec::new(),
            false => ids.iter().map(|&r| ask.new_blocks[r]).collect(),
        };
        let sub_ask = Ask {
            hits: &hits,
            new_blocks: &new_blocks,
            ..*ask
        };
        let chosen = self.judge_zoo(&sub_ask, &sub_views, &ids);
        if let Some(judged) = self.zoo.last.as_mut() {
            let mut rows = vec![
                zoo::Row {
                    cost: 1.0,
                    excluded: true,
                    ..zoo::Row::default()
                };
                views.len()
            ];
            for (row, &r) in std::mem::take(&mut judged.rows).into_iter().zip(&ids) {
                rows[r] = row;
            }
            judged.rows = rows;
            judged.chosen = ids[chosen];
        }
        ids[chosen]
    }

    /// A replica drawn uniformly among those that take requests (one draw below their
    /// count; with all of them, below the fleet's size as always).
    pub(super) fn random(&mut self, replicas: usize) -> usize {
        if self.accepting.is_empty() {
            return self.rng.below(replicas as u64) as usize;
        }
        let open = self.accepting[..replicas].iter().filter(|&&a| a).count();
        let k = self.rng.below(open as u64) as usize;
        (0..replicas)
            .filter(|&r| self.accepting[r])
            .nth(k)
            .unwrap_or(0)
    }
}
