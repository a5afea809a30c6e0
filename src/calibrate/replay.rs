//! Replaying measured requests on one simulated replica with a candidate engine: the
//! requests at their measured times, the engine's limits as given, and the TTFT and TPOT
//! quantiles that come out, compared per quantile with the measured ones.

use std::sync::Arc;

use serde::Serialize;

use super::requests::Measured;
use crate::config::Config;
use crate::timing::{EnginePreset, Timing};
use crate::workload::Request;

/// The quantiles compared (p10 .. p99).
pub const QUANTILES: [f64; 7] = [0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99];

/// The replica the requests are replayed on (its engine's limits; the timing is searched).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Replica {
    /// Most running requests (the engine's concurrency slots).
    pub max_batch: u32,
    /// Most tokens one step computes (the chunked-prefill budget).
    pub max_batched_tokens: u32,
    /// Tokens per KV block (cached tokens are reused in whole blocks).
    pub block_size: u32,
}

impl Default for Replica {
    fn default() -> Self {
        let cfg = Config::default();
        Replica {
            max_batch: cfg.max_batch,
            max_batched_tokens: cfg.max_batched_tokens,
            block_size: 16,
        }
    }
}

/// Nearest-rank quantiles of `values` (the rule the simulator's histograms use), NaN when
/// empty.
pub fn quantiles(values: &[f64]) -> Vec<f64> {
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    QUANTILES
        .iter()
        .map(|q| {
            if sorted.is_empty() {
                return f64::NAN;
            }
            let n = sorted.len();
            let rank = (libm::ceil(q * n as f64) as usize).clamp(1, n);
            sorted[rank - 1]
        })
        .collect()
}

/// The simulator's requests for a measured log: no content, or, where cached tokens are
/// given, a leading run of blocks shared by every request (block k of the run has id
/// k + 1), so a request whose prefix is resident reuses that many whole blocks.
pub fn requests_of(log: &[Measured], block_size: u32) -> Vec<Request> {
    let with_content = log.iter().any(|m| m.cached_tokens.is_some());
    let mut next_unique: u64 = 1 << 40;
    log.iter()
        .enumerate()
        .map(|(i, m)| {
            let block_ids = if with_content {
                let blocks = m.prompt_tokens.div_ceil(block_size) as u64;
                let shared = (m.cached_tokens.unwrap_or(0) / block_size) as u64;
                (0..blocks)
                    .map(|k| {
                        if k < shared {
                            k + 1
                        } else {
                            next_unique += 1;
                            next_unique
                        }
                    })
                    .collect()
            } else {
                Arc::default()
            };
            Request {
                id: i as u32,
                arrival_us: m.arrival_us,
                prompt_tokens: m.prompt_tokens,
                output_tokens: m.output_tokens,
                block_ids,
                session: None,
                output_block_ids: Vec::new(),
            }
        })
        .collect()
}

/// The config of one replica running `timing`'s four linear coefficients.
pub fn config_of(timing: &Timing, replica: &Replica) -> Config {
    Config {
        instances: 1,
        engine: EnginePreset::Custom,
        step_fixed_us: timing.step_fixed_us,
        prefill_token_us: timing.prefill_token_us,
        decode_seq_us: timing.decode_seq_us,
        kv_read_token_ns: timing.kv_read_token_ns,
        prefill_poly_ms: crate::timing::NO_POLY,
        decode_poly_ms: crate::timing::NO_POLY,
        max_batch: replica.max_batch,
        max_batched_tokens: replica.max_batched_tokens,
        block_size: replica.block_size,
        kv_blocks: None,
        queue_capacity: None,
        timeout_ms: None,
        ..Config::default()
    }
}

/// What one replay gives: TTFT and TPOT at `QUANTILES`, ms.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// TTFT from arrival at each quantile, ms.
    pub ttft_ms: Vec<f64>,
    /// TPOT at each quantile, ms (NaN when no request generated two tokens).
    pub tpot_ms: Vec<f64>,
    /// Requests that completed.
    pub completed: u64,
}

/// Replays `requests` on one replica running `timing`.
pub fn replay(requests: &[Request], timing: &Timing, replica: &Replica) -> Result<Outcome, String> {
    let cfg = config_of(timing, replica);
    let mut sim = crate::run::replay_simulation(&cfg, requests.to_vec(), "requests")?;
    sim.run_to_end();
    Ok(Outcome {
        ttft_ms: sim.recorder.ttft.at_ms(&QUANTILES),
        tpot_ms: sim.recorder.tpot.at_ms(&QUANTILES),
        completed: sim.recorder.completed,
    })
}

/// Per-request results of one replay (for generated logs): (TTFT ms, end-to-end ms) by
/// request id.
pub fn replay_each(
    requests: &[Request],
    timing: &Timing,
    replica: &Replica,
) -> Result<Vec<(f64, f64)>, String> {
    let cfg = config_of(timing, replica);
    let mut sim = crate::run::replay_simulation(&cfg, requests.to_vec(), "requests")?;
    sim.record_decisions();
    sim.run_to_end();
    let mut out = vec![(f64::NAN, f64::NAN); requests.len()];
    for d in sim.take_decisions() {
        if let (Some(t), Some(e)) = (d.ttft_ms, d.e2e_ms) {
            out[d.id as usize] = (t, e);
        }
    }
    if out.iter().any(|(t, _)| t.is_nan()) {
        return Err("a generated request did not complete".to_string());
    }
    Ok(out)
}
