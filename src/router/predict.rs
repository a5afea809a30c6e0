//! Speculative entries ("predict on route"): when a router routes a request, it records
//! the request's blocks as present on the chosen replica for a time to live, so a
//! sibling arriving before the engine has computed (or reported) them finds them there.
//!
//! Deployed routers without KV events do this: the Gateway API Inference Extension's
//! prefix plugin adds the routed prompt's hashes to its index for the chosen pod after
//! each pick (`PostCycle` in `pkg/epp/scheduling/framework/plugins/multi/prefix/plugin.go`,
//! kubernetes-sigs/gateway-api-inference-extension at commit 4bc4889d; an LRU, no TTL),
//! and Dynamo's approximate indexer keeps each routing decision's blocks for a TTL, 120 s
//! by default (`PruneConfig` in `lib/llm/src/kv_router/approx.rs`, ai-dynamo/dynamo at
//! commit 977a53f).

use std::collections::VecDeque;

use crate::cache::IdMap;

/// One router's speculative entries: per replica, block id -> expiry (µs).
pub struct Predictions {
    ttl_us: u64,
    replicas: Vec<IdMap<u64>>,
    expiries: VecDeque<(u64, u32, u64)>,
}

impl Predictions {
    /// No entries; `ttl_us` 0 keeps it off.
    pub fn new(replicas: usize, ttl_us: u64) -> Predictions {
        Predictions {
            ttl_us,
            replicas: (0..replicas).map(|_| IdMap::default()).collect(),
            expiries: VecDeque::new(),
        }
    }

    /// Whether entries are recorded at all.
    pub fn is_on(&self) -> bool {
        self.ttl_us > 0
    }

    /// Drops the entries whose time is up at `now_us` (the time to live is the same for
    /// all, so expiries come in order; a refreshed entry keeps its later expiry).
    fn expire(&mut self, now_us: u64) {
        while let Some(&(expiry, r, id)) = self.expiries.front() {
            if expiry > now_us {
                break;
            }
            self.expiries.pop_front();
            let map = &mut self.replicas[r as usize];
            if map.get(&id) == Some(&expiry) {
                map.remove(&id);
            }
        }
    }

    /// Lengthens each replica's leading run in `hits` (of `ids[..full]`) over the blocks
    /// this router predicted there or that `holds(id, r)` says the replica holds.
    pub fn extend(
        &mut self,
        now_us: u64,
        ids: &[u64],
        full: usize,
        hits: &mut [u32],
        holds: impl Fn(u64, usize) -> bool,
    ) {
        if !self.is_on() {
            return;
        }
        self.expire(now_us);
        for (r, hit) in hits.iter_mut().enumerate() {
            let map = &self.replicas[r];
            let mut run = *hit as usize;
            while run < full && (map.contains_key(&ids[run]) || holds(ids[run], r)) {
                run += 1;
            }
            *hit = run as u32;
        }
    }

    /// A request with full blocks `ids` was routed to `r` at `now_us`.
    pub fn record(&mut self, now_us: u64, r: usize, ids: &[u64]) {
        if !self.is_on() {
            return;
        }
        let expiry = now_us + self.ttl_us;
        for &id in ids {
            self.replicas[r].insert(id, expiry);
            self.expiries.push_back((expiry, r as u32, id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicted_blocks_count_until_their_time_is_up() {
        let mut p = Predictions::new(2, 1000);
        p.record(0, 1, &[10, 11]);
        let nothing = |_: u64, _: usize| false;
        let mut hits = vec![0, 0];
        p.extend(999, &[10, 11, 12], 3, &mut hits, nothing);
        assert_eq!(hits, [0, 2], "both predicted blocks, on replica 1 only");
        // Predictions join the index's blocks into one leading run.
        let mut hits = vec![0, 1];
        p.extend(999, &[10, 11, 12], 3, &mut hits, |id, r| id == 12 && r == 1);
        assert_eq!(hits, [0, 3]);
        let mut hits = vec![0, 0];
        p.extend(1000, &[10, 11], 2, &mut hits, nothing);
        assert_eq!(hits, [0, 0], "expired at 1000 µs");
    }

    #[test]
    fn a_second_prediction_keeps_the_later_expiry_and_off_does_nothing() {
        let mut p = Predictions::new(1, 1000);
        p.record(0, 0, &[5]);
        p.record(600, 0, &[5]);
        let mut hits = vec![0];
        p.extend(1200, &[5], 1, &mut hits, |_, _| false);
        assert_eq!(hits, [1], "alive until 1600 µs");
        let mut off = Predictions::new(1, 0);
        off.record(0, 0, &[5]);
        let mut hits = vec![0];
        off.extend(1, &[5], 1, &mut hits, |_, _| false);
        assert_eq!(hits, [0]);
    }
}
