//! `llm_d`: the llm-d inference scheduler's weighted scorer pipeline, highest weighted
//! sum wins. Restated from llm-d/llm-d-inference-scheduler at commit 12cb9eea:
//! `pkg/epp/framework/plugins/scheduling/scorer/preciseprefixcache` (leading blocks held,
//! min–max normalised over the replicas holding any; 1.0 when they all hold the same;
//! 0 for a replica holding none: `indexedScoresToNormalizedScoredPods`),
//! `scorer/queuedepth/README.md` ((max q − q) / (max q − min q) over waiting requests,
//! 1.0 when equal) and `scorer/kvcacheutilization/README.md` (1 − KV cache usage). The
//! weights 3 / 2 / 2 are the precise-prefix-cache guide's profile. The max-score picker
//! (`pkg/epp/framework/plugins/scheduling/picker/maxscore`, README at the same commit)
//! shuffles the candidates before a stable sort by score, so equal highest scores win
//! uniformly at random; here from the run's tie stream (the lower index under
//! `tie_break: lowest`).

use super::{marked, term, Fleet, Judged, Row};
use crate::router::Ties;

/// The precise-prefix scores: min–max over the replicas holding at least one block.
pub fn prefix_scores(hits: &[u32]) -> Vec<f64> {
    let held = hits.iter().copied().filter(|&h| h > 0);
    let (lo, hi) = held.fold((u32::MAX, 0), |(lo, hi), h| (lo.min(h), hi.max(h)));
    hits.iter()
        .map(|&h| match h {
            0 => 0.0,
            _ if lo == hi => 1.0,
            _ => (h - lo) as f64 / (hi - lo) as f64,
        })
        .collect()
}

/// The queue scores over waiting requests.
pub fn queue_scores(waiting: &[u32]) -> Vec<f64> {
    let lo = waiting.iter().copied().min().unwrap_or(0);
    let hi = waiting.iter().copied().max().unwrap_or(0);
    waiting
        .iter()
        .map(|&q| {
            if lo == hi {
                1.0
            } else {
                (hi - q) as f64 / (hi - lo) as f64
            }
        })
        .collect()
}

/// llm-d's pick under weights `[prefix, queue, kv]`.
pub fn judge(fleet: &Fleet, weights: [f64; 3], ties: &mut Ties) -> Judged {
    let n = fleet.views.len();
    let prefix = prefix_scores(&fleet.ask.hits[..n]);
    let waiting: Vec<u32> = fleet.views.iter().map(|v| v.waiting).collect();
    let queue = queue_scores(&waiting);
    let mut rows: Vec<Row> = (0..n)
        .map(|r| {
            // Each replica's own capacity (a pod's KV utilisation metric), else the
            // fleet's.
            let used = match fleet.views[r].capacity_blocks.or(fleet.capacity_blocks) {
                Some(cap) => fleet.views[r].cache_blocks as f64 / cap as f64,
                None => 0.0,
            };
            let kv = 1.0 - used.min(1.0);
            let score = weights[0] * prefix[r] + weights[1] * queue[r] + weights[2] * kv;
            Row {
                score: Some(score),
                terms: vec![
                    term("prefix", prefix[r]),
                    term("queue", queue[r]),
                    term("kv_cache", kv),
                ],
                ..Row::default()
            }
        })
        .collect();
    let chosen = ties.argmax(rows.iter().map(|r| r.score.unwrap_or(0.0)));
    marked(chosen, &mut rows);
    Judged {
        chosen,
        rule: None,
        rows,
    }
}
