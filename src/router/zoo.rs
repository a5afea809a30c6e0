//! The router zoo: the deployed routers' own scorings (Dynamo, SGLang, llm-d, AIBrix)
//! and two simple load balancers (least loaded, power of two choices), each judging every
//! replica from what the router sees and naming the terms of its judgement.

pub mod aibrix;
pub mod dynamo;
pub mod llmd;
pub mod sglang;
pub mod simple;

use serde::Serialize;

use super::{Ask, ReplicaView};

/// One named term of a candidate's judgement, as written to the decision log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    /// What it is (the source's own name where it has one).
    pub name: &'static str,
    /// Its value.
    pub value: f64,
}

/// Shorthand for a term.
pub fn term(name: &'static str, value: f64) -> Term {
    Term { name, value }
}

/// How a zoo policy judged one replica.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The quantity minimised (0 for the pick and 1 for the others when the policy
    /// maximises a score instead).
    pub cost: f64,
    /// The quantity maximised, when the policy has one.
    pub score: Option<f64>,
    /// Not a candidate of this pick (p2c's undrawn replicas, AIBrix's replicas above
    /// mean + σ).
    pub excluded: bool,
    /// The leading blocks the policy saw on the replica, when it keeps its own index
    /// (SGLang's tree, AIBrix's prefix table) rather than the cache index.
    pub hit_blocks: Option<u32>,
    /// The terms of the judgement.
    pub terms: Vec<Term>,
}

/// A zoo policy's pick: the winner, the branch of its rule that decided, every row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judged {
    /// The replica picked.
    pub chosen: usize,
    /// The branch of the policy's rule that decided (e.g. `imbalanced`, `match`, `miss`).
    pub rule: Option<&'static str>,
    /// One row per replica.
    pub rows: Vec<Row>,
}

/// What a zoo policy sees of one pick.
pub struct Fleet<'a> {
    /// The request.
    pub ask: &'a Ask<'a>,
    /// Every replica's load signals, as the router sees them.
    pub views: &'a [ReplicaView],
    /// Tokens per block.
    pub block_size: u32,
    /// KV capacity per replica in blocks (`None` = unbounded).
    pub capacity_blocks: Option<u64>,
}

/// Requests in flight on a replica (waiting + running).
pub fn in_flight(view: &ReplicaView) -> u32 {
    view.waiting + view.running
}

/// The index of the lowest value, the lower index on ties.
pub fn argmin(values: impl IntoIterator<Item = f64>) -> usize {
    let mut best: Option<(f64, usize)> = None;
    for (i, v) in values.into_iter().enumerate() {
        if best.is_none_or(|(b, _)| v < b) {
            best = Some((v, i));
        }
    }
    best.map_or(0, |(_, i)| i)
}

/// The index of the highest value, the lower index on ties.
pub fn argmax(values: impl IntoIterator<Item = f64>) -> usize {
    argmin(values.into_iter().map(|v| -v))
}

/// Rows whose cost is 0 for `chosen` and 1 for the others, with the given scores and
/// terms (for the policies that maximise a score, or follow a rule).
pub fn marked(chosen: usize, rows: &mut [Row]) {
    for (r, row) in rows.iter_mut().enumerate() {
        row.cost = if r == chosen { 0.0 } else { 1.0 };
    }
}

/// The fleet's index of the `r`-th judged replica: `ids[r]` when the policy judges a
/// subset (an autoscaled fleet's accepting replicas), `r` itself when `ids` is empty.
pub fn fleet_index(ids: &[usize], r: usize) -> usize {
    if ids.is_empty() {
        r
    } else {
        ids[r]
    }
}
