//! The report of a disaggregated fleet's two pools: per pool its requests, prefills and
//! their token hit rate, busy share and peak queue; the KV transfers (count, bytes, time,
//! link wait and link utilisation); and the share of requests that skipped the prefill
//! pool. Also the prefill pool's view of the summary that the seed's fleet lines print.

use serde::Serialize;

use super::{share, InstanceReport, Summary};
use crate::histogram::LogHistogram;
use crate::sim::Simulation;

/// One pool's figures (`pools.prefill`, `pools.decode`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolReport {
    /// Replicas in the pool.
    pub replicas: u32,
    /// Requests routed to the pool (to a decode replica: the transfers that arrived, and
    /// the requests that skipped the prefill pool).
    pub requests: u64,
    /// Prefills computed in the pool (every admitted request in the prefill pool; the
    /// skipped ones in the decode pool).
    pub prefills: u64,
    /// Prompt tokens of those prefills, tokens.
    pub prompt_tokens: u64,
    /// Of those, tokens found in the cache, tokens.
    pub cached_tokens: u64,
    /// `cached_tokens / prompt_tokens`, a fraction; `null` with no prefills.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_tokens: f64,
    /// Mean over the pool's replicas of the share of the makespan spent in steps, a
    /// fraction; `null` with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub busy_share: f64,
    /// Longest waiting queue on any of the pool's replicas, requests.
    pub peak_queue: u32,
    /// Requests rejected by the pool (full queue, or too large for a replica): the sum of
    /// the two below.
    pub rejected: u64,
    /// Of them, refused on arrival because the queue was full.
    pub rejected_queue_full: u64,
    /// Of them, refused because they need more KV blocks than a replica's cache holds.
    pub rejected_too_large: u64,
    /// Requests whose caller gave up in the pool (for the decode pool: the first token,
    /// which comes with the transfer's end, was late).
    pub timed_out: u64,
}

/// The KV transfers from the prefill pool to the decode pool (`pools.transfers`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransfersReport {
    /// Transfers completed.
    pub count: u64,
    /// KV moved, bytes.
    pub bytes: u64,
    /// Transfers that ended after the caller's timeout: those requests timed out in the
    /// decode pool.
    pub late: u64,
    /// Transfer time, from the prefill's end to the KV landing on the decode replica, link
    /// wait included: mean, ms; `null` with no transfers.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub time_ms_mean: f64,
    /// Transfer time: median, ms; `null` with no transfers.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub time_ms_p50: f64,
    /// Transfer time: 99th percentile, ms; `null` with no transfers.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub time_ms_p99: f64,
    /// Time queued behind earlier transfers on the same link: mean, ms; `null` with no
    /// transfers.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub wait_ms_mean: f64,
    /// Link wait: 99th percentile, ms; `null` with no transfers.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub wait_ms_p99: f64,
    /// Mean over decode replicas of their link's busy time / makespan, a fraction; `null`
    /// with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub link_utilisation: f64,
    /// The busiest link's share, a fraction; `null` with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub link_utilisation_max: f64,
    /// Bandwidth of each decode replica's inbound link, GB/s (10^9 bytes per second).
    pub bandwidth_gbps: f64,
    /// Fixed cost per transfer, µs.
    pub base_us: f64,
    /// KV moved per prompt token, bytes.
    pub bytes_per_token: u64,
    /// Per decode replica, the share of the makespan its link was busy, a fraction
    /// (`null` with no makespan).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub link_utilisation_by_replica: Vec<f64>,
    /// Transfer time at 100 evenly spaced quantiles (0.01 to 1.00), ms; empty with no
    /// transfers.
    pub time_ms_cdf: Vec<f64>,
}

/// The two pools of a disaggregated run (`pools`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolsReport {
    /// Replicas `0..P`: prefill only.
    pub prefill: PoolReport,
    /// Replicas `P..P+D`: decode (and the prefills that skipped the prefill pool).
    pub decode: PoolReport,
    /// The KV transfers between them.
    pub transfers: TransfersReport,
    /// Requests that prefilled on their decode replica (conditional disaggregation).
    pub skipped_prefill: u64,
    /// `skipped_prefill` over the requests that arrived, a fraction; `null` when none
    /// arrived.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub skipped_prefill_share: f64,
    /// The threshold, tokens: a request whose prefill replica would compute fewer uncached
    /// tokens than this skips the prefill pool (0: never).
    pub min_uncached_tokens: u32,
    /// The line the text report adds for the pools.
    pub line: String,
}

fn pool(rows: &[InstanceReport]) -> PoolReport {
    let prompt_tokens = rows.iter().map(|r| r.prompt_tokens).sum::<u64>();
    let cached_tokens = rows.iter().map(|r| r.cached_tokens).sum::<u64>();
    PoolReport {
        replicas: rows.len() as u32,
        requests: rows.iter().map(|r| r.requests).sum(),
        prefills: rows.iter().map(|r| r.admitted).sum(),
        prompt_tokens,
        cached_tokens,
        hit_rate_tokens: share(cached_tokens as f64, prompt_tokens as f64),
        busy_share: share(
            rows.iter().map(|r| r.busy_share).sum::<f64>(),
            rows.len() as f64,
        ),
        peak_queue: rows.iter().map(|r| r.peak_queue).max().unwrap_or(0),
        rejected: rows.iter().map(|r| r.rejected).sum(),
        rejected_queue_full: rows.iter().map(|r| r.rejected_queue_full).sum(),
        rejected_too_large: rows.iter().map(|r| r.rejected_too_large).sum(),
        timed_out: rows.iter().map(|r| r.timed_out).sum(),
    }
}

/// A histogram's values at quantiles `q`, ms; empty when it holds none.
fn cdf(h: &LogHistogram, q: &[f64]) -> Vec<f64> {
    if h.count() == 0 {
        Vec::new()
    } else {
        h.at_ms(q)
    }
}

impl Simulation<'_> {
    /// The pools' report, for a disaggregated run.
    pub(super) fn pools_report(
        &self,
        rows: &[InstanceReport],
        makespan_us: u64,
    ) -> Option<PoolsReport> {
        let d = self.disagg.as_ref()?;
        let p = d.pools.prefill as usize;
        let s = &d.stats;
        let time = s.time.quantiles_ms();
        let wait = s.wait.quantiles_ms();
        let links: Vec<f64> = d
            .links
            .iter()
            .map(|l| share(l.scheduled_us() as f64, makespan_us as f64))
            .collect();
        let cdf_q: Vec<f64> = (1..=100).map(|i| i as f64 / 100.0).collect();
        let mut report = PoolsReport {
            prefill: pool(&rows[..p]),
            decode: pool(&rows[p..]),
            transfers: TransfersReport {
                count: s.count,
                bytes: s.bytes,
                late: s.late,
                time_ms_mean: time.mean,
                time_ms_p50: time.p50,
                time_ms_p99: time.p99,
                wait_ms_mean: wait.mean,
                wait_ms_p99: wait.p99,
                link_utilisation: share(links.iter().sum::<f64>(), links.len() as f64),
                link_utilisation_max: links.iter().cloned().fold(f64::NAN, f64::max),
                bandwidth_gbps: self.cfg.kv_transfer_gbps,
                base_us: self.cfg.kv_transfer_base_us,
                bytes_per_token: self.cfg.kv_bytes_per_token_or_preset().unwrap_or(0),
                link_utilisation_by_replica: links,
                time_ms_cdf: cdf(&s.time, &cdf_q),
            },
            skipped_prefill: s.skipped,
            skipped_prefill_share: share(s.skipped as f64, self.arrived as f64),
            min_uncached_tokens: self.cfg.disagg_min_uncached_tokens,
            line: String::new(),
        };
        report.line = super::text::pools_line(&report);
        Some(report)
    }

    /// The summary's cache figures over the prefill pool alone (what the seed's fleet
    /// lines describe in a disaggregated run); the summary itself when colocated.
    pub(super) fn prefill_pool_summary(&self, s: &Summary, rows: &[InstanceReport]) -> Summary {
        let Some(d) = self.disagg.as_ref() else {
            return s.clone();
        };
        let p = d.pools.prefill as usize;
        let c = &self.recorder.replicas[..p];
        let admitted: u64 = c.iter().map(|c| c.admitted).sum();
        let hits: u64 = c.iter().map(|c| c.hit_requests).sum();
        let cached_blocks: u64 = c.iter().map(|c| c.cached_blocks).sum();
        let prompt_blocks: u64 = c.iter().map(|c| c.prompt_blocks).sum();
        let bs = self.cfg.block_size as f64;
        let served = rows[..p].iter().filter(|r| r.admitted > 0);
        let rates = served.map(|r| r.hit_rate_requests);
        Summary {
            hit_rate_requests: share(hits as f64, admitted as f64),
            block_reuse: share(cached_blocks as f64, prompt_blocks as f64),
            cached_tokens_avg: share(cached_blocks as f64 * bs, admitted as f64),
            evictions: rows[..p].iter().map(|r| r.evictions).sum(),
            hit_rate_instance_min: rates.clone().fold(f64::NAN, f64::min),
            hit_rate_instance_max: rates.fold(f64::NAN, f64::max),
            ..s.clone()
        }
    }
}
