//! Routers: each picks one replica per request from a read-only view of every replica:
//! `kv` (the deployed router's cost), `prefix_aware` (consistent hashing of the leading
//! block), `round_robin`, `random` (seeded), `sticky` (session affinity) and the zoo
//! (`least_loaded`, `p2c`, and the deployed routers' own scorings: `dynamo`, `sglang`,
//! `llm_d`, `aibrix`); affinity and spill also act as modifiers on the other policies.

use serde::Serialize;

mod membership;
mod predict;
mod ties;
pub mod zoo;

use crate::cache::IdMap;
use crate::config::{parse_llmd_weights, Config, Policy, RouterView};
use crate::rng::{splitmix64, Rng, Stream};
use crate::view::ms_to_us;

pub use crate::view::ReplicaView;
pub use predict::Predictions;
pub use ties::Ties;

/// Decay of the `recent` load term per pick.
pub const RECENT_DECAY: f64 = 0.97;
/// Virtual nodes per replica on the consistent-hash ring.
pub const VNODES_PER_REPLICA: u32 = 160;

/// One candidate's terms at a pick, as written to the decision log: what the router saw
/// (the cost uses these), then the true values at that instant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Replica index.
    pub replica: u32,
    /// Leading full blocks of the request the router saw on the replica (resident and
    /// computed, as its cache index or its speculative entries show them).
    pub hit_blocks: u32,
    /// Distinct in-flight prompt blocks on the replica, as the router saw them.
    pub active_blocks: u64,
    /// The decayed recent-miss term (the router's own).
    pub recent: f64,
    /// Requests waiting on the replica, as the router saw them.
    pub waiting: u32,
    /// Requests running on the replica, as the router saw them.
    pub running: u32,
    /// KV blocks in use on the replica, as the router saw them.
    pub cache_blocks: u64,
    /// The cost under the active policy (lowest wins; for `round_robin`, `random`,
    /// `prefix_aware`, and the zoo's picks by score or by match, it is 0 for the pick and
    /// 1 for the others).
    pub cost: f64,
    /// The zoo policies' own score where the pick maximises it (llm-d's weighted sum,
    /// SGLang's match rate, AIBrix's match percent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Not a candidate of this pick (p2c's undrawn replicas; AIBrix's replicas without a
    /// match or above mean + σ).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub excluded: bool,
    /// The zoo policies' terms, by the source's names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<zoo::Term>,
    /// The true leading run of computed blocks at the instant of the pick.
    pub true_hit_blocks: u32,
    /// The true in-flight prompt blocks.
    pub true_active_blocks: u64,
    /// The true number of waiting requests.
    pub true_waiting: u32,
    /// The true number of running requests.
    pub true_running: u32,
    /// The true KV blocks in use.
    pub true_cache_blocks: u64,
}

impl Candidate {
    /// Sets the true values from the live state.
    pub fn set_truth(&mut self, hit_blocks: u32, view: &ReplicaView) {
        self.true_hit_blocks = hit_blocks;
        self.true_active_blocks = view.active_blocks;
        self.true_waiting = view.waiting;
        self.true_running = view.running;
        self.true_cache_blocks = view.cache_blocks;
    }
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

/// The zoo policies' settings and router-side state.
struct Zoo {
    dynamo: zoo::dynamo::Params,
    llmd_weights: [f64; 3],
    block_size: u32,
    capacity_blocks: Option<u64>,
    sglang: Option<zoo::sglang::Trees>,
    aibrix: Option<zoo::aibrix::Table>,
    last: Option<zoo::Judged>,
}

/// The fleet's router.
pub struct Router {
    policy: Policy,
    zoo: Zoo,
    overlap_weight: f64,
    affinity_share: f64,
    spill_queue: u32,
    next_rr: usize,
    rng: Rng,
    affinity_rng: Rng,
    ties: Ties,
    ring: Vec<(u64, u32)>,
    recent: Vec<f64>,
    session_home: IdMap<u32>,
    predictions: Predictions,
    /// Per replica, whether it takes new requests (an autoscaled fleet's ready ones);
    /// empty: every replica does.
    accepting: Vec<bool>,
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
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Per replica: the request's full blocks not already in flight there (Dynamo's
    /// `additional_active_blocks`); empty when the policy does not need it.
    pub new_blocks: &'a [u32],
    /// The instant of the pick, µs.
    pub now_us: u64,
}

impl Router {
    /// Router replica `nth` (from 0) for `cfg.instances` replicas; each has its own
    /// random streams, recent term, session table and speculative entries.
    pub fn new(cfg: &Config, nth: u32) -> Router {
        let replicas = cfg.instances as usize;
        let ttl_us = match cfg.router_view {
            RouterView::Offline => 0,
            _ => ms_to_us(cfg.router_predict_ttl_ms),
        };
        Router {
            policy: cfg.routing,
            zoo: Zoo {
                dynamo: zoo::dynamo::Params {
                    temperature: cfg.dynamo_temperature,
                    overlap_credit: cfg.dynamo_overlap_credit,
                    // A split fleet's router picks among prefill replicas only.
                    track_active_blocks: cfg.pools().is_none(),
                },
                llmd_weights: parse_llmd_weights(&cfg.llmd_weights).unwrap_or([3.0, 2.0, 2.0]),
                block_size: cfg.block_size,
                capacity_blocks: cfg.kv_blocks,
                sglang: (cfg.routing == Policy::Sglang)
                    .then(|| zoo::sglang::Trees::new(replicas, cfg.block_size, cfg.sglang_miss)),
                aibrix: (cfg.routing == Policy::Aibrix).then(|| zoo::aibrix::Table::new(replicas)),
                last: None,
            },
            overlap_weight: cfg.overlap_weight,
            affinity_share: cfg.affinity_share(),
            spill_queue: cfg.spill_queue,
            next_rr: 0,
            rng: Rng::fork_nth(cfg.seed, Stream::Router, nth),
            affinity_rng: Rng::fork_nth(cfg.seed, Stream::Affinity, nth),
            ties: Ties::new(cfg.tie_break, cfg.seed, nth),
            ring: build_ring(replicas),
            recent: vec![0.0; replicas],
            session_home: IdMap::default(),
            predictions: Predictions::new(replicas, ttl_us),
            accepting: Vec::new(),
        }
    }

    /// Lengthens `hits` (the leading runs of `ids[..full]` the cache index shows) with
    /// this router's speculative entries alive at `now_us`; `holds(id, r)` is the index.
    pub fn see_predicted(
        &mut self,
        now_us: u64,
        ids: &[u64],
        full: usize,
        hits: &mut [u32],
        holds: impl Fn(u64, usize) -> bool,
    ) {
        self.predictions.extend(now_us, ids, full, hits, holds);
    }

    /// Records the full blocks of a request this router sent to `r` at `now_us`.
    pub fn predict(&mut self, now_us: u64, r: usize, full_ids: &[u64]) {
        self.predictions.record(now_us, r, full_ids);
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
                Policy::Random => (self.random(views.len()), Reason::Policy, false),
                _ => (self.pick_zoo(&ask, views), Reason::Policy, false),
            },
        };
        if sticky.is_some() {
            self.zoo.last = None;
        }
        if local && self.spill_queue > 0 && views[chosen].waiting >= self.spill_queue {
            chosen = if self.accepting.is_empty() {
                least_busy(views, &mut self.ties)
            } else {
                let accepting = &self.accepting;
                self.ties
                    .argmin(views.iter().enumerate().map(|(r, v)| match accepting[r] {
                        true => (v.waiting + v.running) as f64,
                        false => f64::INFINITY,
                    }))
            };
            reason = Reason::Spill;
        }
        if let Some(log) = log {
            self.log(&ask, views, chosen, reason, log);
        }
        if let Some(session) = ask.session {
            self.session_home.insert(session as u64, chosen as u32);
        }
        self.record_zoo(chosen, &ask.block_ids[..ask.full_blocks]);
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
        self.overlap_weight * count_f64((full_blocks - hits) as u64) + self.load(view, r)
    }

    fn load(&self, view: &ReplicaView, r: usize) -> f64 {
        count_f64(view.active_blocks) + self.recent[r]
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
                .map(|&r| r as usize)
                .filter(|&r| self.open(r));
        }
        let mut best: Option<(usize, u32, usize)> = None;
        let mut equals = 0;
        for (r, view) in views.iter().enumerate() {
            if !self.open(r) {
                continue;
            }
            let hits = ask.hits[r] as usize;
            let busy = view.waiting + view.running;
            let better = match best {
                None => hits > 0,
                Some((h, b, _)) => hits > h || (hits == h && busy < b),
            };
            if better {
                best = Some((hits, busy, r));
                equals = 1;
            } else if best.is_some_and(|(h, b, _)| (h, b) == (hits, busy)) {
                equals += 1;
                if self.ties.takes(equals) {
                    best = Some((hits, busy, r));
                }
            }
        }
        best.map(|(_, _, r)| r)
    }

    /// Whether this router's policy needs `Ask::new_blocks`.
    pub fn wants_new_blocks(&self) -> bool {
        self.policy == Policy::Dynamo && self.zoo.dynamo.track_active_blocks
    }

    /// The branch of the zoo policy's rule behind the last pick, if it has branches.
    pub fn last_rule(&self) -> Option<&'static str> {
        self.zoo.last.as_ref().and_then(|j| j.rule)
    }

    fn pick_zoo(&mut self, ask: &Ask, views: &[ReplicaView]) -> usize {
        if !self.accepting.is_empty() && self.accepting[..views.len()].contains(&false) {
            return self.pick_zoo_among(ask, views);
        }
        self.judge_zoo(ask, views, &[])
    }

    /// The zoo policy's judgement of `views` (`ids`: the fleet's index of each, when a
    /// subset; empty: all, in order); returns the index into `views`.
    fn judge_zoo(&mut self, ask: &Ask, views: &[ReplicaView], ids: &[usize]) -> usize {
        let fleet = zoo::Fleet {
            ask,
            views,
            block_size: self.zoo.block_size,
            capacity_blocks: self.zoo.capacity_blocks,
        };
        let ties = &mut self.ties;
        let judged = match self.policy {
            Policy::LeastLoaded => zoo::simple::least_loaded(&fleet, ties),
            Policy::P2c => zoo::simple::p2c(&fleet, &mut self.rng, ties),
            Policy::Dynamo => zoo::dynamo::judge(&fleet, self.zoo.dynamo, &mut self.rng, ties),
            Policy::LlmD => zoo::llmd::judge(&fleet, self.zoo.llmd_weights, ties),
            Policy::Sglang => {
                let trees = self.zoo.sglang.as_mut().expect("sglang trees");
                zoo::sglang::judge_among(&fleet, trees, ask.now_us, ids)
            }
            Policy::Aibrix => zoo::aibrix::judge_among(
                &fleet,
                self.zoo.aibrix.as_ref().expect("aibrix table"),
                ties,
                ids,
            ),
            other => unreachable!("{other:?} is not a zoo policy"),
        };
        let chosen = judged.chosen;
        self.zoo.last = Some(judged);
        chosen
    }

    /// SGLang's tree and AIBrix's table record where each request went.
    fn record_zoo(&mut self, chosen: usize, full_ids: &[u64]) {
        if let Some(trees) = self.zoo.sglang.as_mut() {
            trees.record(chosen, full_ids);
        }
        if let Some(table) = self.zoo.aibrix.as_mut() {
            table.record(chosen, full_ids);
        }
    }

    /// The replica of least `kv` cost; ties to the less loaded, then by the tie rule
    /// (seeded random among the equals, or the lower index). The same arithmetic as
    /// `kv_cost`, with the cost of a replica holding none of the prompt's blocks (most of
    /// them in a large fleet) taken from one product.
    fn pick_kv(&mut self, ask: &Ask, views: &[ReplicaView]) -> usize {
        let n = views.len();
        if n == 0 {
            return 0;
        }
        let (hits, recent) = (&ask.hits[..n], &self.recent[..n]);
        let w = self.overlap_weight;
        let full = ask.full_blocks;
        let cold = w * count_f64(full as u64);
        let (mut best_cost, mut best_load, mut best) = (0.0, 0.0, usize::MAX);
        let mut equals = 0;
        for r in 0..n {
            if !self.open(r) {
                continue;
            }
            let load = count_f64(views[r].active_blocks) + recent[r];
            let cost = match hits[r] {
                0 => cold + load,
                h => w * count_f64((full - h as usize) as u64) + load,
            };
            if best == usize::MAX || cost < best_cost || (cost == best_cost && load < best_load) {
                (best_cost, best_load, best) = (cost, load, r);
                equals = 1;
            } else if cost == best_cost && load == best_load {
                equals += 1;
                if self.ties.takes(equals) {
                    best = r;
                }
            }
        }
        best
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
        let judged = self.zoo.last.as_ref().filter(|_| reason == Reason::Policy);
        for (r, view) in views.iter().enumerate() {
            let hits = ask.hits[r] as usize;
            let cost = match (kv, r == chosen) {
                (true, _) => self.kv_cost(ask.full_blocks, hits, view, r),
                (false, true) => 0.0,
                (false, false) => 1.0,
            };
            let mut row = judged.map(|j| j.rows[r].clone()).unwrap_or_default();
            row.excluded |= !self.open(r);
            let mut candidate = Candidate {
                replica: r as u32,
                hit_blocks: row.hit_blocks.unwrap_or(hits as u32),
                active_blocks: view.active_blocks,
                recent: self.recent[r],
                waiting: view.waiting,
                running: view.running,
                cache_blocks: view.cache_blocks,
                cost: if judged.is_some() { row.cost } else { cost },
                score: row.score,
                excluded: row.excluded,
                terms: row.terms,
                true_hit_blocks: 0,
                true_active_blocks: 0,
                true_waiting: 0,
                true_running: 0,
                true_cache_blocks: 0,
            };
            candidate.set_truth(hits as u32, view);
            log.push(candidate);
        }
    }

    fn charge(&mut self, chosen: usize, missed: f64) {
        for recent in &mut self.recent {
            *recent *= RECENT_DECAY;
        }
        self.recent[chosen] += missed;
    }

    /// The next replica in turn that takes requests.
    fn round_robin(&mut self, replicas: usize) -> usize {
        let mut pick = self.next_rr % replicas;
        for _ in 0..replicas {
            if self.open(pick) {
                break;
            }
            pick = (pick + 1) % replicas;
        }
        self.next_rr = (pick + 1) % replicas;
        pick
    }

    /// The owner of the first virtual node clockwise from the block's hash whose replica
    /// takes requests: a replica that leaves hands its arcs to the next nodes, one that
    /// joins takes back only its own (about 1/N of the keys move).
    fn ring_home(&self, first_block: u64) -> usize {
        let key = splitmix64(first_block ^ 0x005E_ED0F_B10C);
        let at = self.ring.partition_point(|&(h, _)| h < key);
        let n = self.ring.len();
        (0..n)
            .map(|i| self.ring[(at + i) % n].1 as usize)
            .find(|&r| self.open(r))
            .unwrap_or(self.ring[at % n].1 as usize)
    }
}

/// A count as f64, exactly as `n as f64` (every count here is far below 2^63; the
/// conversion from i64 is one instruction, the one from u64 several).
fn count_f64(n: u64) -> f64 {
    debug_assert!(n < 1 << 63);
    n as i64 as f64
}

/// The replica with the fewest waiting + running requests (equals by the tie rule).
pub fn least_busy(views: &[ReplicaView], ties: &mut Ties) -> usize {
    ties.argmin(views.iter().map(|v| (v.waiting + v.running) as f64))
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
