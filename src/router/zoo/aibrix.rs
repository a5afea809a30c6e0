//! `aibrix`: AIBrix's prefix-cache router. Restated from vllm-project/aibrix
//! `pkg/plugins/gateway/algorithms/prefix_cache.go` at commit 429c45e9
//! (`Route`, `getTargetPodOnLoadImbalance`, `getTargetPodFromMatchedPods`) with its
//! defaults: imbalance at max − min running requests > 8
//! (`AIBRIX_PREFIX_CACHE_POD_RUNNING_REQUEST_IMBALANCE_ABS_COUNT`), and a standard
//! deviation factor of 1 (`AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR`).
//!
//! Requests in flight count as AIBrix's per-pod request count. When imbalanced, the least
//! loaded replica takes the request. Otherwise the replicas whose prefix table holds a
//! leading run of the request (match percent = matched × 100 / request blocks, whole
//! percent) are sorted by match (highest first) then load (lowest first), and the first
//! whose load is ≤ mean + 1 × σ of every replica's load (σ the population deviation)
//! takes it; with none, the least loaded. The prefix table records each routed request on
//! its replica, from routing decisions, not from the engines' caches. The source breaks
//! every tie at random: `getTargetPodFromMatchedPods` shuffles the matched pods
//! (`rand.Shuffle`) before its stable sort, and `getTargetPodOnLoadImbalance` and the
//! least-request fallback draw among the least loaded (`rand.Intn`); here each draw comes
//! from the run's tie stream (the lower index under `tie_break: lowest`). It ages table
//! entries out after a while; here they stay for the run.

use super::sglang::Tree;
use super::{fleet_index, in_flight, marked, term, Fleet, Judged, Row};
use crate::router::Ties;

/// `defaultPodRunningRequestImbalanceAbsCount`.
pub const IMBALANCE_ABS: u32 = 8;
/// `defaultStandardDeviationFactor`.
pub const STD_DEV_FACTOR: f64 = 1.0;

/// The router's prefix table: per replica, the blocks of the requests routed there.
#[derive(Clone, Debug)]
pub struct Table {
    replicas: Vec<Tree>,
}

impl Table {
    /// An empty table for `replicas` replicas.
    pub fn new(replicas: usize) -> Table {
        Table {
            replicas: vec![Tree::default(); replicas],
        }
    }

    /// Replica `r` left the fleet: its entries go.
    pub fn forget(&mut self, r: usize) {
        self.replicas[r] = Tree::default();
    }

    /// Records the request's full blocks on replica `r`.
    pub fn record(&mut self, r: usize, full_ids: &[u64]) {
        self.replicas[r].insert(full_ids, 0);
    }
}

/// Mean and population standard deviation.
pub fn mean_and_sigma(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, libm::sqrt(var))
}

/// AIBrix's pick (the caller records the request in the table afterwards).
pub fn judge(fleet: &Fleet, table: &Table, ties: &mut Ties) -> Judged {
    judge_among(fleet, table, ties, &[])
}

/// AIBrix's pick among a subset of the fleet: `fleet.views[i]` is replica `replicas[i]`
/// (empty: the whole fleet in order); the pick indexes `fleet.views`.
pub fn judge_among(fleet: &Fleet, table: &Table, ties: &mut Ties, replicas: &[usize]) -> Judged {
    let ids = &fleet.ask.block_ids[..fleet.ask.full_blocks];
    let loads: Vec<f64> = fleet.views.iter().map(|v| in_flight(v) as f64).collect();
    let tree = |r: usize| &table.replicas[fleet_index(replicas, r)];
    let percent: Vec<u32> = (0..loads.len())
        .map(&tree)
        .map(|t| match ids.len() {
            0 => 0,
            n => t.matched(ids) * 100 / n as u32,
        })
        .collect();
    let (mean, sigma) = mean_and_sigma(&loads);
    let limit = mean + STD_DEV_FACTOR * sigma;
    let mut rows: Vec<Row> = (0..loads.len())
        .map(|r| Row {
            cost: loads[r],
            score: Some(percent[r] as f64),
            hit_blocks: Some(tree(r).matched(ids)),
            terms: vec![
                term("match_percent", percent[r] as f64),
                term("in_flight", loads[r]),
                term("mean_plus_sigma", limit),
            ],
            ..Row::default()
        })
        .collect();
    let lo = loads.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = loads.iter().copied().fold(0.0, f64::max);
    if hi - lo > IMBALANCE_ABS as f64 {
        return Judged {
            chosen: ties.argmin(loads.iter().copied()),
            rule: Some("imbalanced"),
            rows,
        };
    }
    let mut matched: Vec<usize> = (0..loads.len()).filter(|&r| percent[r] > 0).collect();
    matched.sort_by(|&a, &b| {
        percent[b]
            .cmp(&percent[a])
            .then(loads[a].total_cmp(&loads[b]))
            .then(a.cmp(&b))
    });
    // The first within the limit, and every replica of its match and load (equals in
    // the sort, all within the limit too), one of them by the tie rule.
    let first = matched.iter().copied().find(|&r| loads[r] <= limit);
    let pick = first.and_then(|p| {
        ties.among((0..loads.len()).filter(|&r| percent[r] == percent[p] && loads[r] == loads[p]))
    });
    match pick {
        Some(chosen) => {
            for (r, row) in rows.iter_mut().enumerate() {
                row.excluded = percent[r] == 0 || loads[r] > limit;
            }
            marked(chosen, &mut rows);
            Judged {
                chosen,
                rule: Some("match"),
                rows,
            }
        }
        None => Judged {
            chosen: ties.argmin(loads.iter().copied()),
            rule: Some("fallback"),
            rows,
        },
    }
}
