//! `sglang`: SGLang's cache-aware router. Restated from sgl-project/sglang
//! `sgl-model-gateway/src/policies/cache_aware.rs` at commit b93974f1 (and, for the
//! earlier miss rule, `sgl-router/src/policies/cache_aware.rs` at commit b6f20641), with
//! the defaults of its command-line entry point (`router_args.py`): cache_threshold 0.3,
//! balance_abs_threshold 64, balance_rel_threshold 1.5, eviction_interval_secs 120,
//! max_tree_size 2^26.
//!
//! Load is requests in flight. The fleet is imbalanced when max − min > 64 and
//! max > 1.5 × min: then the least-loaded replica takes the request. Otherwise the match
//! rate is the longest prefix any replica's approximate tree holds over the request's
//! length; above the threshold the best-matching replica takes it, at or below it the
//! least-loaded one (`load`, the current rule) or the one with the smallest tree (`tree`,
//! the rule before PR #14650). Every routed request is recorded in its replica's tree;
//! every 120 s each tree is trimmed to its bound, least recently used leaves first.
//!
//! The source matches characters of the text; this restates it over block ids (a tree
//! node is a full block, equal ids at a position mean equal content up to it), and the
//! bound of 2^26 characters becomes 2^24 tokens (about 4 characters a token) of blocks.
//! Ties go to the lower index (the source's `min_by_key` does too; its best-match tenant
//! and smallest tenant are whichever it meets first).

use super::{argmax, argmin, fleet_index, in_flight, marked, term, Fleet, Judged, Row};
use crate::cache::IdMap;
use crate::config::SglangMiss;

/// `cache_threshold` default.
pub const CACHE_THRESHOLD: f64 = 0.3;
/// `balance_abs_threshold` default, requests.
pub const BALANCE_ABS: u32 = 64;
/// `balance_rel_threshold` default.
pub const BALANCE_REL: f64 = 1.5;
/// `eviction_interval_secs` default, in µs.
pub const EVICTION_INTERVAL_US: u64 = 120_000_000;
/// `max_tree_size` default (characters) as tokens, at about 4 characters a token.
pub const MAX_TREE_TOKENS: u64 = (1 << 26) / 4;

/// One replica's approximate prefix tree over block ids: each node's last use.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    nodes: IdMap<(u64, u32)>,
}

impl Tree {
    /// Nodes (blocks) in the tree.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The leading run of `ids` the tree holds.
    pub fn matched(&self, ids: &[u64]) -> u32 {
        ids.iter()
            .take_while(|id| self.nodes.contains_key(id))
            .count() as u32
    }

    /// Records `ids` as a path used at `stamp`.
    pub fn insert(&mut self, ids: &[u64], stamp: u64) {
        for (depth, &id) in ids.iter().enumerate() {
            self.nodes.insert(id, (stamp, depth as u32));
        }
    }

    /// Trims the tree to `max` nodes, least recently used first and, among nodes last
    /// used together, the deepest first, so that only leaves go.
    pub fn trim(&mut self, max: usize) {
        if self.nodes.len() <= max {
            return;
        }
        let mut order: Vec<(u64, std::cmp::Reverse<u32>, u64)> = self
            .nodes
            .iter()
            .map(|(&id, &(stamp, depth))| (stamp, std::cmp::Reverse(depth), id))
            .collect();
        order.sort_unstable();
        let excess = self.nodes.len() - max;
        for &(_, _, id) in &order[..excess] {
            self.nodes.remove(&id);
        }
    }
}

/// The router's trees and eviction clock.
#[derive(Clone, Debug)]
pub struct Trees {
    trees: Vec<Tree>,
    max_nodes: usize,
    next_eviction_us: u64,
    stamp: u64,
    miss: SglangMiss,
}

impl Trees {
    /// Empty trees for `replicas` replicas at `block_size` tokens a block.
    pub fn new(replicas: usize, block_size: u32, miss: SglangMiss) -> Trees {
        Trees {
            trees: vec![Tree::default(); replicas],
            max_nodes: (MAX_TREE_TOKENS / block_size as u64).max(1) as usize,
            next_eviction_us: EVICTION_INTERVAL_US,
            stamp: 0,
            miss,
        }
    }

    /// Runs the periodic eviction due by `now_us`.
    pub fn evict_due(&mut self, now_us: u64) {
        while now_us >= self.next_eviction_us {
            for tree in &mut self.trees {
                tree.trim(self.max_nodes);
            }
            self.next_eviction_us += EVICTION_INTERVAL_US;
        }
    }

    /// Records the request's full blocks in replica `r`'s tree.
    pub fn record(&mut self, r: usize, full_ids: &[u64]) {
        self.stamp += 1;
        self.trees[r].insert(full_ids, self.stamp);
    }

    /// Replica `r` left the fleet: its tree goes.
    pub fn forget(&mut self, r: usize) {
        self.trees[r] = Tree::default();
    }

    /// Replica `r`'s tree.
    pub fn tree(&self, r: usize) -> &Tree {
        &self.trees[r]
    }
}

/// Whether loads are imbalanced by SGLang's two thresholds.
pub fn imbalanced(loads: &[u32]) -> bool {
    let lo = loads.iter().copied().min().unwrap_or(0);
    let hi = loads.iter().copied().max().unwrap_or(0);
    hi - lo > BALANCE_ABS && hi as f64 > BALANCE_REL * lo as f64
}

/// SGLang's pick (the caller records the request in the chosen tree afterwards).
pub fn judge(fleet: &Fleet, trees: &mut Trees, now_us: u64) -> Judged {
    judge_among(fleet, trees, now_us, &[])
}

/// SGLang's pick among a subset of the fleet: `fleet.views[i]` is replica `ids[i]`
/// (empty `ids`: the whole fleet in order); the pick indexes `fleet.views`.
pub fn judge_among(fleet: &Fleet, trees: &mut Trees, now_us: u64, replicas: &[usize]) -> Judged {
    trees.evict_due(now_us);
    let ids = &fleet.ask.block_ids[..fleet.ask.full_blocks];
    let loads: Vec<u32> = fleet.views.iter().map(in_flight).collect();
    let matched: Vec<u32> = (0..loads.len())
        .map(|r| trees.tree(fleet_index(replicas, r)).matched(ids))
        .collect();
    let sizes: Vec<usize> = (0..loads.len())
        .map(|r| trees.tree(fleet_index(replicas, r)).node_count())
        .collect();
    let rate = |m: u32| {
        if ids.is_empty() {
            0.0
        } else {
            m as f64 / ids.len() as f64
        }
    };
    let mut rows: Vec<Row> = (0..loads.len())
        .map(|r| Row {
            score: Some(rate(matched[r])),
            hit_blocks: Some(matched[r]),
            terms: vec![
                term("match_rate", rate(matched[r])),
                term("in_flight", loads[r] as f64),
                term("tree_blocks", sizes[r] as f64),
            ],
            ..Row::default()
        })
        .collect();
    let best = argmax(matched.iter().map(|&m| m as f64));
    let (chosen, rule, minimised): (usize, &'static str, Option<Vec<f64>>) = if imbalanced(&loads) {
        let costs: Vec<f64> = loads.iter().map(|&l| l as f64).collect();
        (argmin(costs.iter().copied()), "imbalanced", Some(costs))
    } else if rate(matched[best]) > CACHE_THRESHOLD {
        (best, "match", None)
    } else {
        let costs: Vec<f64> = match trees.miss {
            SglangMiss::Load => loads.iter().map(|&l| l as f64).collect(),
            SglangMiss::Tree => sizes.iter().map(|&s| s as f64).collect(),
        };
        (argmin(costs.iter().copied()), "miss", Some(costs))
    };
    match minimised {
        Some(costs) => {
            for (row, cost) in rows.iter_mut().zip(costs) {
                row.cost = cost;
            }
        }
        None => marked(chosen, &mut rows),
    }
    Judged {
        chosen,
        rule: Some(rule),
        rows,
    }
}
