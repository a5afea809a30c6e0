//! The report's CPU offload tier figures (`summary.cpu_tier`, `per_instance[].cpu_tier`):
//! present only with a tier, so a run without one reports exactly as before. The token
//! hit rate already counts the tokens loaded from the tier; these split it per tier.

use serde::Serialize;

use crate::engine::TierStats;

/// Where the prompt tokens served from cache came from, and what the tier cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TierReport {
    /// Prompt tokens served from HBM (the cached tokens less the CPU tier's), tokens.
    pub hbm_hit_tokens: u64,
    /// Prompt tokens loaded back from the CPU tier instead of prefilled, tokens.
    pub cpu_hit_tokens: u64,
    /// Share of the prompt tokens served from the CPU tier (0 to 1).
    pub cpu_hit_rate_tokens: f64,
    /// Loads from the CPU tier: one per request that found blocks there.
    pub loads: u64,
    /// KV bytes loaded from the CPU tier into HBM over PCIe, B.
    pub loaded_bytes: u64,
    /// KV bytes written from HBM to the CPU tier (its evictions, demoted), B.
    pub demoted_bytes: u64,
    /// Time the loads spent on the link, summed, ms.
    pub load_ms: f64,
    /// Time the loads waited for the link behind earlier loads, summed, ms.
    pub load_wait_ms: f64,
    /// Blocks evicted from HBM (each demoted to the CPU tier).
    pub hbm_evictions: u64,
    /// Blocks dropped from the CPU tier to make room (gone from every tier).
    pub cpu_evictions: u64,
}

impl TierReport {
    /// The figures of one replica (or the fleet's, `stats` summed), with its cached and
    /// prompt tokens and HBM evictions.
    pub fn of(
        stats: &TierStats,
        block_size: u64,
        cached_tokens: u64,
        prompt_tokens: u64,
        hbm_evictions: u64,
    ) -> TierReport {
        let cpu_hit_tokens = stats.cpu_hit_blocks * block_size;
        TierReport {
            hbm_hit_tokens: cached_tokens - cpu_hit_tokens,
            cpu_hit_tokens,
            cpu_hit_rate_tokens: if prompt_tokens == 0 {
                0.0
            } else {
                cpu_hit_tokens as f64 / prompt_tokens as f64
            },
            loads: stats.loads,
            loaded_bytes: stats.cpu_hit_blocks * stats.block_bytes,
            demoted_bytes: stats.demoted_blocks * stats.block_bytes,
            load_ms: stats.load_us as f64 / 1000.0,
            load_wait_ms: stats.load_wait_us as f64 / 1000.0,
            hbm_evictions,
            cpu_evictions: stats.cpu_evictions,
        }
    }

    /// The replicas' tier counters summed.
    pub fn sum(stats: impl Iterator<Item = TierStats>) -> TierStats {
        stats.fold(TierStats::default(), |a, s| TierStats {
            cpu_hit_blocks: a.cpu_hit_blocks + s.cpu_hit_blocks,
            loads: a.loads + s.loads,
            load_us: a.load_us + s.load_us,
            load_wait_us: a.load_wait_us + s.load_wait_us,
            demoted_blocks: a.demoted_blocks + s.demoted_blocks,
            cpu_evictions: a.cpu_evictions + s.cpu_evictions,
            block_bytes: s.block_bytes,
        })
    }
}
