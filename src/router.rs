//! Routers: each picks one replica per request from a read-only view of every replica:
//! `kv` (the deployed router's cost), `prefix_aware` (consistent hashing of the leading
//! block), `round_robin` and `random` (seeded).

use serde::Serialize;

use crate::cache::BlockCache;
use crate::config::{Config, Policy};
use crate::rng::{splitmix64, Rng, Stream};

/// Decay of the `recent` load term per pick.
pub const RECENT_DECAY: f64 = 0.97;
/// Virtual nodes per replica on the consistent-hash ring.
pub const VNODES_PER_REPLICA: u32 = 160;

/// What a router may see of one replica.
#[derive(Clone, Copy)]
pub struct ReplicaView<'a> {
    /// The replica's cache (hits are looked up here).
    pub cache: &'a BlockCache,
    /// Distinct prompt blocks of in-flight requests (shared prefixes counted once).
    pub active_blocks: u64,
    /// Requests waiting for admission.
    pub waiting: u32,
    /// Requests running.
    pub running: u32,
}

/// One candidate's terms at a pick, as written to the decision log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Replica index.
    pub replica: u32,
    /// Leading full blocks of the request resident and computed on the replica.
    pub hit_blocks: u32,
    /// Distinct in-flight prompt blocks on the replica.
    pub active_blocks: u64,
    /// The decayed recent-miss term.
    pub recent: f64,
    /// The cost under the active policy (lowest wins; for `round_robin`, `random` and
    /// `prefix_aware` it is 0 for the pick and 1 for the others).
    pub cost: f64,
}

/// The fleet's router.
pub struct Router {
    policy: Policy,
    overlap_weight: f64,
    next_rr: usize,
    rng: Rng,
    ring: Vec<(u64, u32)>,
    recent: Vec<f64>,
}

impl Router {
    /// A router for `cfg.instances` replicas.
    pub fn new(cfg: &Config) -> Router {
        let replicas = cfg.instances as usize;
        Router {
            policy: cfg.routing,
            overlap_weight: cfg.overlap_weight,
            next_rr: 0,
            rng: Rng::fork(cfg.seed, Stream::Router),
            ring: build_ring(replicas),
            recent: vec![0.0; replicas],
        }
    }

    /// The active policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Picks a replica for a request with `block_ids`, of which the first `full_blocks`
    /// are full. When `log` is given, every candidate's terms are appended to it.
    pub fn pick(
        &mut self,
        block_ids: &[u64],
        full_blocks: usize,
        views: &[ReplicaView],
        log: Option<&mut Vec<Candidate>>,
    ) -> usize {
        let chosen = match self.policy {
            Policy::Kv => self.pick_kv(block_ids, full_blocks, views, log),
            Policy::PrefixAware => {
                let home = match block_ids.first() {
                    Some(&id) => self.ring_home(id),
                    None => self.round_robin(views.len()),
                };
                log_indicator(home, block_ids, full_blocks, views, &self.recent, log);
                home
            }
            Policy::RoundRobin => {
                let pick = self.round_robin(views.len());
                log_indicator(pick, block_ids, full_blocks, views, &self.recent, log);
                pick
            }
            Policy::Random => {
                let pick = self.rng.below(views.len() as u64) as usize;
                log_indicator(pick, block_ids, full_blocks, views, &self.recent, log);
                pick
            }
        };
        let missed = if block_ids.is_empty() {
            1.0
        } else {
            let hits = views[chosen].cache.hit_blocks(block_ids, full_blocks);
            (full_blocks - hits) as f64
        };
        self.charge(chosen, missed);
        chosen
    }

    /// The `kv` cost of one replica: weight x (request blocks - hits) + active + recent.
    pub fn kv_cost(&self, full_blocks: usize, hits: usize, view: &ReplicaView, r: usize) -> f64 {
        self.overlap_weight * (full_blocks - hits) as f64 + self.load(view, r)
    }

    fn load(&self, view: &ReplicaView, r: usize) -> f64 {
        view.active_blocks as f64 + self.recent[r]
    }

    fn pick_kv(
        &self,
        block_ids: &[u64],
        full_blocks: usize,
        views: &[ReplicaView],
        mut log: Option<&mut Vec<Candidate>>,
    ) -> usize {
        let mut best: Option<(f64, f64, usize)> = None;
        for (r, view) in views.iter().enumerate() {
            let hits = view.cache.hit_blocks(block_ids, full_blocks);
            let cost = self.kv_cost(full_blocks, hits, view, r);
            let load = self.load(view, r);
            if let Some(log) = log.as_deref_mut() {
                log.push(candidate(r, hits, view, self.recent[r], cost));
            }
            let better = match best {
                None => true,
                Some((c, l, _)) => cost < c || (cost == c && load < l),
            };
            if better {
                best = Some((cost, load, r));
            }
        }
        best.map_or(0, |(_, _, r)| r)
    }

    fn charge(&mut self, chosen: usize, missed: f64) {
        for recent in &mut self.recent {
            *recent *= RECENT_DECAY;
        }
        self.recent[chosen] += missed;
    }

    fn round_robin(&mut self, replicas: usize) -> usize {
        let pick = self.next_rr % replicas;
        self.next_rr = (pick + 1) % replicas;
        pick
    }

    fn ring_home(&self, first_block: u64) -> usize {
        let key = splitmix64(first_block ^ 0x005E_ED0F_B10C);
        let at = self.ring.partition_point(|&(h, _)| h < key);
        self.ring[at % self.ring.len()].1 as usize
    }
}

fn build_ring(replicas: usize) -> Vec<(u64, u32)> {
    let mut ring: Vec<(u64, u32)> = (0..replicas as u32)
        .flat_map(|r| {
            (0..VNODES_PER_REPLICA).map(move |v| (splitmix64(((r as u64) << 32) | v as u64), r))
        })
        .collect();
    ring.sort_unstable();
    ring
}

fn candidate(r: usize, hits: usize, view: &ReplicaView, recent: f64, cost: f64) -> Candidate {
    Candidate {
        replica: r as u32,
        hit_blocks: hits as u32,
        active_blocks: view.active_blocks,
        recent,
        cost,
    }
}

fn log_indicator(
    chosen: usize,
    block_ids: &[u64],
    full_blocks: usize,
    views: &[ReplicaView],
    recent: &[f64],
    log: Option<&mut Vec<Candidate>>,
) {
    let Some(log) = log else {
        return;
    };
    for (r, view) in views.iter().enumerate() {
        let hits = view.cache.hit_blocks(block_ids, full_blocks);
        let cost = if r == chosen { 0.0 } else { 1.0 };
        log.push(candidate(r, hits, view, recent[r], cost));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache_with(ids: &[u64]) -> BlockCache {
        let mut c = BlockCache::new(None);
        c.acquire(ids, 0).unwrap();
        c.mark_ready(ids);
        c.release(ids, 0);
        c
    }

    fn kv_router(replicas: u32, weight: f64) -> Router {
        Router::new(&Config {
            instances: replicas,
            overlap_weight: weight,
            ..Config::default()
        })
    }

    #[test]
    fn deployed_routers_worked_example() {
        let prompt: Vec<u64> = (0..10).collect();
        let w0 = cache_with(&prompt[..8]);
        let w1 = BlockCache::new(None);
        let views = [
            ReplicaView {
                cache: &w0,
                active_blocks: 6,
                waiting: 0,
                running: 1,
            },
            ReplicaView {
                cache: &w1,
                active_blocks: 1,
                waiting: 0,
                running: 1,
            },
        ];
        let mut router = kv_router(2, 1.0);
        let mut log = Vec::new();
        assert_eq!(router.pick(&prompt, 10, &views, Some(&mut log)), 0);
        assert_eq!(log[0].cost, 8.0);
        assert_eq!(log[1].cost, 11.0);
        assert_eq!(log[0].hit_blocks, 8);
    }

    #[test]
    fn ties_go_to_less_load_then_lower_index() {
        let prompt: Vec<u64> = (0..4).collect();
        let warm = cache_with(&prompt[..2]);
        let cold = BlockCache::new(None);
        // cost 2 + 3 = 5 on the warm replica, 4 + 1 = 5 on the cold one: equal cost,
        // the cold one carries less load.
        let views = [
            ReplicaView {
                cache: &warm,
                active_blocks: 3,
                waiting: 0,
                running: 0,
            },
            ReplicaView {
                cache: &cold,
                active_blocks: 1,
                waiting: 0,
                running: 0,
            },
        ];
        assert_eq!(kv_router(2, 1.0).pick(&prompt, 4, &views, None), 1);
        let same = [views[1], views[1], views[1]];
        assert_eq!(kv_router(3, 1.0).pick(&prompt, 4, &same, None), 0);
    }

    #[test]
    fn recent_term_decays_per_pick() {
        let empty = BlockCache::new(None);
        let views = [ReplicaView {
            cache: &empty,
            active_blocks: 0,
            waiting: 0,
            running: 0,
        }; 2];
        let mut router = kv_router(2, 1.0);
        let prompt: Vec<u64> = (0..10).collect();
        assert_eq!(router.pick(&prompt, 10, &views, None), 0);
        assert_eq!(router.recent, vec![10.0, 0.0]);
        assert_eq!(router.pick(&prompt, 10, &views, None), 1);
        assert_eq!(router.recent, vec![10.0 * 0.97, 10.0]);
        // An id-less request charges 1.
        router.pick(&[], 0, &views, None);
        assert!((router.recent[0] - (10.0 * 0.97 * 0.97 + 1.0)).abs() < 1e-12);
    }

    #[test]
    fn prefix_aware_is_stable_and_spreads_prefixes() {
        let empty = BlockCache::new(None);
        let views = [ReplicaView {
            cache: &empty,
            active_blocks: 0,
            waiting: 0,
            running: 0,
        }; 8];
        let mut router = Router::new(&Config {
            instances: 8,
            routing: Policy::PrefixAware,
            ..Config::default()
        });
        let homes: Vec<usize> = (0..400u64)
            .map(|p| router.pick(&[p * 7], 1, &views, None))
            .collect();
        let again: Vec<usize> = (0..400u64)
            .map(|p| router.pick(&[p * 7], 1, &views, None))
            .collect();
        assert_eq!(homes, again);
        for r in 0..8 {
            let n = homes.iter().filter(|&&h| h == r).count();
            assert!(
                (20..=90).contains(&n),
                "replica {r} got {n} of 400 prefixes"
            );
        }
    }
}
