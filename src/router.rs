//! Routers: each picks one replica per request from a read-only view of every replica:
//! `kv` (the deployed router's cost), `prefix_aware` (consistent hashing of the leading
//! block), `round_robin`, `random` (seeded) and `sticky` (session affinity); affinity
//! and spill also act as modifiers on the other policies.

use serde::Serialize;

use crate::cache::IdMap;
use crate::config::{Config, Policy};
use crate::rng::{splitmix64, Rng, Stream};

/// Decay of the `recent` load term per pick.
pub const RECENT_DECAY: f64 = 0.97;
/// Virtual nodes per replica on the consistent-hash ring.
pub const VNODES_PER_REPLICA: u32 = 160;

/// What a router may see of one replica (its cache hits come with the `Ask`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplicaView {
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
    /// Requests waiting on the replica.
    pub waiting: u32,
    /// Requests running on the replica.
    pub running: u32,
    /// The cost under the active policy (lowest wins; for `round_robin`, `random` and
    /// `prefix_aware` it is 0 for the pick and 1 for the others).
    pub cost: f64,
}

/// Why the router picked what it picked (written to the decision log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The policy's own choice.
    Policy,
    /// Session affinity: back to the session's replica, or the prefix's holder.
    Sticky,
    /// The sticky or home replica's queue reached the spill threshold.
    Spill,
}

/// The fleet's router.
pub struct Router {
    policy: Policy,
    overlap_weight: f64,
    affinity_share: f64,
    spill_queue: u32,
    next_rr: usize,
    rng: Rng,
    affinity_rng: Rng,
    ring: Vec<(u64, u32)>,
    recent: Vec<f64>,
    session_home: IdMap<u32>,
}

/// What the router needs to know of a request.
#[derive(Clone, Copy)]
pub struct Ask<'a> {
    /// The prompt's block ids.
    pub block_ids: &'a [u64],
    /// How many of them are full blocks.
    pub full_blocks: usize,
    /// The request's session, if any.
    pub session: Option<u32>,
    /// Per replica: the leading run of the full blocks it holds computed (from the
    /// fleet's block index).
    pub hits: &'a [u32],
}

impl Router {
    /// A router for `cfg.instances` replicas.
    pub fn new(cfg: &Config) -> Router {
        let replicas = cfg.instances as usize;
        Router {
            policy: cfg.routing,
            overlap_weight: cfg.overlap_weight,
            affinity_share: cfg.affinity_share(),
            spill_queue: cfg.spill_queue,
            next_rr: 0,
            rng: Rng::fork(cfg.seed, Stream::Router),
            affinity_rng: Rng::fork(cfg.seed, Stream::Affinity),
            ring: build_ring(replicas),
            recent: vec![0.0; replicas],
            session_home: IdMap::default(),
        }
    }

    /// Picks a replica. When `log` is given, every candidate's terms are appended to it.
    pub fn pick(
        &mut self,
        ask: Ask,
        views: &[ReplicaView],
        log: Option<&mut Vec<Candidate>>,
    ) -> (usize, Reason) {
        let sticky = self.sticky_target(&ask, views);
        let (mut chosen, mut reason, local) = match sticky {
            Some(target) => (target, Reason::Sticky, true),
            None => match self.policy {
                Policy::Kv => (self.pick_kv(&ask, views), Reason::Policy, false),
                Policy::PrefixAware => match ask.block_ids.first() {
                    Some(&id) => (self.ring_home(id), Reason::Policy, true),
                    None => (self.round_robin(views.len()), Reason::Policy, false),
                },
                Policy::RoundRobin | Policy::Sticky => {
                    (self.round_robin(views.len()), Reason::Policy, false)
                }
                Policy::Random => (
                    self.rng.below(views.len() as u64) as usize,
                    Reason::Policy,
                    false,
                ),
            },
        };
        if local && self.spill_queue > 0 && views[chosen].waiting >= self.spill_queue {
            chosen = least_busy(views);
            reason = Reason::Spill;
        }
        if let Some(log) = log {
            self.log(&ask, views, chosen, reason, log);
        }
        if let Some(session) = ask.session {
            self.session_home.insert(session as u64, chosen as u32);
        }
        let missed = if ask.block_ids.is_empty() {
            1.0
        } else {
            (ask.full_blocks - ask.hits[chosen] as usize) as f64
        };
        self.charge(chosen, missed);
        (chosen, reason)
    }

    /// The `kv` cost of one replica: weight x (request blocks - hits) + active + recent.
    pub fn kv_cost(&self, full_blocks: usize, hits: usize, view: &ReplicaView, r: usize) -> f64 {
        self.overlap_weight * (full_blocks - hits) as f64 + self.load(view, r)
    }

    fn load(&self, view: &ReplicaView, r: usize) -> f64 {
        view.active_blocks as f64 + self.recent[r]
    }

    /// With probability `affinity_share`: the session's last replica, or (for requests
    /// without a session) the replica holding the longest prefix of the prompt.
    fn sticky_target(&mut self, ask: &Ask, views: &[ReplicaView]) -> Option<usize> {
        if self.affinity_share <= 0.0 {
            return None;
        }
        if self.affinity_share < 1.0 && self.affinity_rng.next_f64() >= self.affinity_share {
            return None;
        }
        if let Some(session) = ask.session {
            return self
                .session_home
                .get(&(session as u64))
                .map(|&r| r as usize);
        }
        let mut best: Option<(usize, u32, usize)> = None;
        for (r, view) in views.iter().enumerate() {
            let hits = ask.hits[r] as usize;
            let busy = view.waiting + view.running;
            let better = match best {
                None => hits > 0,
                Some((h, b, _)) => hits > h || (hits == h && busy < b),
            };
            if better {
                best = Some((hits, busy, r));
            }
        }
        best.map(|(_, _, r)| r)
    }

    fn pick_kv(&self, ask: &Ask, views: &[ReplicaView]) -> usize {
        let mut best: Option<(f64, f64, usize)> = None;
        for (r, view) in views.iter().enumerate() {
            let hits = ask.hits[r] as usize;
            let cost = self.kv_cost(ask.full_blocks, hits, view, r);
            let load = self.load(view, r);
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

    fn log(
        &self,
        ask: &Ask,
        views: &[ReplicaView],
        chosen: usize,
        reason: Reason,
        log: &mut Vec<Candidate>,
    ) {
        let kv = self.policy == Policy::Kv && reason == Reason::Policy;
        for (r, view) in views.iter().enumerate() {
            let hits = ask.hits[r] as usize;
            let cost = match (kv, r == chosen) {
                (true, _) => self.kv_cost(ask.full_blocks, hits, view, r),
                (false, true) => 0.0,
                (false, false) => 1.0,
            };
            log.push(Candidate {
                replica: r as u32,
                hit_blocks: hits as u32,
                active_blocks: view.active_blocks,
                recent: self.recent[r],
                waiting: view.waiting,
                running: view.running,
                cost,
            });
        }
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

/// The replica with the fewest waiting + running requests (lowest index on ties).
pub fn least_busy(views: &[ReplicaView]) -> usize {
    views
        .iter()
        .enumerate()
        .min_by_key(|(r, v)| (v.waiting + v.running, *r))
        .map_or(0, |(r, _)| r)
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

#[cfg(test)]
mod tests;
