//! `dynamo`: NVIDIA Dynamo's KV router cost, lowest wins. Restated from
//! ai-dynamo/dynamo `lib/kv-router/src/scheduling/selector/default.rs` (`worker_logit`,
//! `softmax_sample_index`, `minimum_cost_index`) at commit a4bdb9bf, with the request
//! terms of `selector/mod.rs` (`raw_prefill_blocks`, `potential_decode_blocks`) and the
//! defaults of `scheduling/config.rs` (overlap_score_credit 1, prefill_load_scale 1,
//! decode_active_request_weight 0, router_temperature 0):
//!
//! ```text
//! cost(w) = prefill_load_scale × max(0, (active_prefill_tokens(w) + prompt_tokens) / block_size
//!                                       − overlap_credit × cached_blocks(w))
//!         + potential_decode_blocks(w)          // in-flight blocks + the request's new ones
//!         + decode_active_request_weight × active_requests(w)
//! ```
//!
//! On the prefill pool of a split fleet the decode term is left out: Dynamo's
//! disaggregated replay builds its prefill router with `router_track_active_blocks =
//! false` (ai-dynamo 1.4.2, `lib/mocker/src/replay/offline/disagg.rs`,
//! `derive_prefill_router_config`), so no request's blocks are tracked there and the
//! pick rests on `prefill_load_scale × max(0, (active_prefill_tokens + prompt_tokens) /
//! block_size − overlap_credit × cached_blocks)` alone. (Its decode router,
//! `derive_decode_router_config`, sets `overlap_score_credit = 0` and stops tracking
//! prefill tokens and assuming reuse: it picks the fewest active prompt blocks, each
//! request's counted apart; kvfleet's `least_kv` decode routing is the nearest.)
//!
//! At temperature 0 the lowest cost wins, equal lowest costs uniformly at random
//! (`minimum_cost_index`: the k-th equal takes the place with probability 1/k, from
//! `fastrand`; here from the run's tie stream, or the lower index under
//! `tie_break: lowest`). At T > 0 it samples with p ∝ exp(−(cost − min) / ((max − min) × T)),
//! uniformly when every cost is equal, from the router's seeded stream.

use super::{in_flight, term, Fleet, Judged, Row};
use crate::rng::Rng;
use crate::router::Ties;

/// Dynamo's `prefill_load_scale` default.
pub const PREFILL_LOAD_SCALE: f64 = 1.0;
/// Dynamo's `decode_active_request_weight` default.
pub const ACTIVE_REQUEST_WEIGHT: f64 = 0.0;

/// The knobs the CLI exposes.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Softmax temperature (0 = lowest cost).
    pub temperature: f64,
    /// Blocks of prefill one cached block takes off.
    pub overlap_credit: f64,
    /// Whether the cost counts the replicas' active blocks and the request's new ones
    /// (Dynamo's `router_track_active_blocks`): off on a split fleet's prefill pool.
    pub track_active_blocks: bool,
}

/// One replica's row: the cost and its terms.
fn row(fleet: &Fleet, params: Params, r: usize) -> Row {
    let view = &fleet.views[r];
    let ask = fleet.ask;
    let bs = fleet.block_size as f64;
    let cached = ask.hits[r] as f64;
    let raw_prefill = (view.prefill_tokens as f64 + ask.prompt_tokens as f64) / bs;
    let prefill = PREFILL_LOAD_SCALE * (raw_prefill - params.overlap_credit * cached).max(0.0);
    // Untracked, no request's blocks count: the decode term is 0 on every replica.
    let (active, new_blocks) = if params.track_active_blocks {
        let new = ask.new_blocks.get(r).copied();
        (view.active_blocks, new.unwrap_or(ask.full_blocks as u32))
    } else {
        (0, 0)
    };
    let decode = active as f64 + new_blocks as f64;
    let requests = ACTIVE_REQUEST_WEIGHT * in_flight(view) as f64;
    Row {
        cost: prefill + decode + requests,
        terms: vec![
            term("active_prefill_tokens", view.prefill_tokens as f64),
            term("raw_prefill_blocks", raw_prefill),
            term("prefill_cost_blocks", prefill),
            term("new_blocks", new_blocks as f64),
            term("decode_blocks", decode),
        ],
        ..Row::default()
    }
}

/// The index `sample` (uniform in [0, 1)) falls on under the softmax of `costs`.
pub fn softmax_index(costs: &[f64], temperature: f64, sample: f64) -> usize {
    let lo = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = if lo == hi {
        vec![1.0; costs.len()]
    } else {
        let span = (hi - lo) * temperature;
        costs.iter().map(|c| libm::exp(-(c - lo) / span)).collect()
    };
    let total: f64 = weights.iter().sum();
    let mut cumulative = 0.0;
    for (i, w) in weights.iter().enumerate() {
        cumulative += w / total;
        if sample <= cumulative {
            return i;
        }
    }
    costs.len() - 1
}

/// Dynamo's pick.
pub fn judge(fleet: &Fleet, params: Params, rng: &mut Rng, ties: &mut Ties) -> Judged {
    let rows: Vec<Row> = (0..fleet.views.len())
        .map(|r| row(fleet, params, r))
        .collect();
    let costs: Vec<f64> = rows.iter().map(|r| r.cost).collect();
    let (chosen, rule) = if params.temperature > 0.0 {
        (
            softmax_index(&costs, params.temperature, rng.next_f64()),
            Some("sampled"),
        )
    } else {
        (ties.argmin(costs.iter().copied()), None)
    };
    Judged { chosen, rule, rows }
}
