//! The report's shared KV tier figures (`summary.shared_tier`,
//! `per_instance[].shared_tier`): present only with a shared tier, so a run without one
//! reports exactly as before. The token hit rate already counts the tokens loaded from
//! it; these split the cached tokens per tier (HBM, CPU, shared).

use serde::Serialize;

use crate::engine::SharedStats;

/// The cached tokens per tier, and what the shared tier moved and cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SharedTierReport {
    /// Prompt tokens served from HBM (the cached tokens less the lower tiers'), tokens.
    pub hbm_hit_tokens: u64,
    /// Prompt tokens loaded back from the replicas' CPU tiers (0 without them), tokens.
    pub cpu_hit_tokens: u64,
    /// Prompt tokens loaded from the shared tier instead of prefilled, tokens.
    pub shared_hit_tokens: u64,
    /// Share of the prompt tokens served from the shared tier (0 to 1).
    pub shared_hit_rate_tokens: f64,
    /// Loads from the shared tier: one per request that found blocks there.
    pub loads: u64,
    /// KV bytes loaded from the shared tier over the network, B.
    pub loaded_bytes: u64,
    /// KV bytes written to the shared tier (blocks it did not hold), B.
    pub demoted_bytes: u64,
    /// Time the loads spent on the replicas' network links, summed, ms.
    pub load_ms: f64,
    /// Time the loads waited for a link behind earlier loads, summed, ms.
    pub load_wait_ms: f64,
    /// Blocks dropped from the shared tier to make room (gone from every tier); per
    /// replica, those its own writes pushed out.
    pub shared_evictions: u64,
}

impl SharedTierReport {
    /// The figures of one replica (or the fleet's, `stats` summed), with its cached,
    /// CPU-tier and prompt tokens.
    pub fn of(
        stats: &SharedStats,
        block_size: u64,
        cached_tokens: u64,
        cpu_hit_tokens: u64,
        prompt_tokens: u64,
    ) -> SharedTierReport {
        let shared_hit_tokens = stats.shared_hit_blocks * block_size;
        SharedTierReport {
            hbm_hit_tokens: cached_tokens - cpu_hit_tokens - shared_hit_tokens,
            cpu_hit_tokens,
            shared_hit_tokens,
            shared_hit_rate_tokens: if prompt_tokens == 0 {
                0.0
            } else {
                shared_hit_tokens as f64 / prompt_tokens as f64
            },
            loads: stats.loads,
            loaded_bytes: stats.shared_hit_blocks * stats.block_bytes,
            demoted_bytes: stats.demoted_blocks * stats.block_bytes,
            load_ms: stats.load_us as f64 / 1000.0,
            load_wait_ms: stats.load_wait_us as f64 / 1000.0,
            shared_evictions: stats.shared_evictions,
        }
    }

    /// The replicas' shared-tier counters summed.
    pub fn sum(stats: impl Iterator<Item = SharedStats>) -> SharedStats {
        stats.fold(SharedStats::default(), |a, s| SharedStats {
            shared_hit_blocks: a.shared_hit_blocks + s.shared_hit_blocks,
            loads: a.loads + s.loads,
            load_us: a.load_us + s.load_us,
            load_wait_us: a.load_wait_us + s.load_wait_us,
            demoted_blocks: a.demoted_blocks + s.demoted_blocks,
            shared_evictions: a.shared_evictions + s.shared_evictions,
            block_bytes: s.block_bytes,
        })
    }
}
