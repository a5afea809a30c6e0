//! A mixed fleet in the report (`presets`): per preset of `fleet`, its replicas, GPUs,
//! KV capacity, price of a GPU-hour and price per hour, the requests routed to them and the TTFT of those
//! they finished, so a policy that sends a slower GPU as much as a faster one shows in
//! the slower one's TTFT. Absent without `fleet`.

use serde::Serialize;

use super::{quantiles, InstanceReport};
use crate::config::Config;
use crate::histogram::Quantiles;
use crate::numbers::duration;
use crate::sim::PresetTtft;

/// One preset's share of a mixed fleet (`presets[]`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PresetReport {
    /// The engine preset.
    pub preset: &'static str,
    /// Its replicas.
    pub replicas: u32,
    /// Their GPUs.
    pub gpus: u32,
    /// KV capacity of each of its replicas, blocks (its preset's, or `kv_blocks` when
    /// set).
    pub capacity_blocks: u64,
    /// The price of one of its GPUs for one hour (the preset's assumed on-demand price, or
    /// `gpu_hour_usd`), US dollars.
    pub gpu_hour_usd: f64,
    /// Their GPUs at that price, US dollars per hour.
    pub usd_per_hour: f64,
    /// Requests routed to its replicas.
    pub requests: u64,
    /// TTFT (from arrival) of the requests its replicas finished, ms.
    pub ttft_ms: Quantiles,
}

/// Each preset's row, from the gathered TTFTs and the replicas' rows.
pub fn report(cfg: &Config, t: &PresetTtft, rows: &[InstanceReport]) -> Vec<PresetReport> {
    let groups = cfg.fleet_groups().unwrap_or_default();
    groups
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let gpus = g.count * g.preset.gpus();
            let requests = rows
                .iter()
                .zip(&t.group_of)
                .filter(|(_, &group)| group == k)
                .map(|(r, _)| r.requests)
                .sum();
            PresetReport {
                preset: g.preset.name(),
                replicas: g.count,
                gpus,
                // A fleet's presets have hardware (validated), so a capacity.
                capacity_blocks: cfg.fleet_kv_blocks(g.preset).unwrap_or_default(),
                gpu_hour_usd: cfg.gpu_hour_usd_of(g.preset),
                usd_per_hour: gpus as f64 * cfg.gpu_hour_usd_of(g.preset),
                requests,
                ttft_ms: quantiles(&t.ttft[k]),
            }
        })
        .collect()
}

/// The text report's line: "By preset: llama3-8b-h100 x 2: 300 requests, TTFT p50 80 ms,
/// p99 145 ms | ...".
pub fn line(presets: &[PresetReport]) -> String {
    let parts: Vec<String> = presets
        .iter()
        .map(|p| {
            format!(
                "{} x {}: {} requests, TTFT p50 {}, p99 {}",
                p.preset,
                p.replicas,
                p.requests,
                duration(p.ttft_ms.p50),
                duration(p.ttft_ms.p99)
            )
        })
        .collect();
    format!("  By preset: {}", parts.join(" | "))
}
