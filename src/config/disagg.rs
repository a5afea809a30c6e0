//! Disaggregated prefill and decode: the two pools' sizes, how a decode replica is
//! picked, the KV transfer link between the pools, and when a request skips the prefill
//! pool. A fleet is colocated unless both pool sizes are set.

use serde::{Deserialize, Serialize};

use super::{Config, ConfigError};

/// Default KV transfer bandwidth into one decode replica, GB/s (10^9 bytes per second).
pub const DEFAULT_TRANSFER_GBPS: f64 = 50.0;
/// Default fixed cost of one KV transfer, µs.
pub const DEFAULT_TRANSFER_BASE_US: f64 = 50.0;

/// How the router picks a decode replica for a request whose prefill is done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecodeRouting {
    /// The decode replica with the fewest KV blocks held or wanted by its requests
    /// (running, waiting and arriving on its link); ties by `tie_break` (drawn among the
    /// equals, or the lower index under `lowest`).
    #[default]
    LeastKv,
    /// Decode replicas in turn.
    RoundRobin,
    /// A seeded uniform pick.
    Random,
}

impl DecodeRouting {
    /// Every decode policy, in the order the page lists them.
    pub const ALL: [DecodeRouting; 3] = [
        DecodeRouting::LeastKv,
        DecodeRouting::RoundRobin,
        DecodeRouting::Random,
    ];

    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            DecodeRouting::LeastKv => "least_kv",
            DecodeRouting::RoundRobin => "round_robin",
            DecodeRouting::Random => "random",
        }
    }

    /// Parses `least_kv`, `round_robin` or `random`.
    pub fn parse(text: &str) -> Result<DecodeRouting, ConfigError> {
        DecodeRouting::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "decode_routing",
                    text,
                    "one of least_kv, round_robin, random",
                )
            })
    }
}

/// The two pools of a disaggregated fleet: prefill replicas are `0..prefill`, decode
/// replicas `prefill..prefill + decode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pools {
    /// Prefill replicas.
    pub prefill: u32,
    /// Decode replicas.
    pub decode: u32,
}

impl Config {
    /// The pools, when the fleet is disaggregated (both pool sizes set).
    pub fn pools(&self) -> Option<Pools> {
        match (self.prefill_instances, self.decode_instances) {
            (Some(prefill), Some(decode)) => Some(Pools { prefill, decode }),
            _ => None,
        }
    }

    /// KV bytes per token for transfers: the flag, else the engine preset's.
    pub fn kv_bytes_per_token_or_preset(&self) -> Option<u64> {
        self.kv_bytes_per_token
            .or_else(|| self.engine.hardware().map(|h| h.kv_bytes_per_token))
    }
}

/// Time on the link for one transfer of `prompt_tokens` tokens' KV, whole µs rounded up:
/// `base_us + prompt_tokens x bytes_per_token / bandwidth` (GB/s are 10^9 bytes, so one
/// GB/s moves 1000 bytes per µs).
pub fn transfer_us(prompt_tokens: u32, bytes_per_token: u64, gbps: f64, base_us: f64) -> u64 {
    let bytes = prompt_tokens as f64 * bytes_per_token as f64;
    libm::ceil(base_us + bytes / (gbps * 1000.0)) as u64
}

pub(super) fn is_default_gbps(v: &f64) -> bool {
    *v == DEFAULT_TRANSFER_GBPS
}

pub(super) fn is_default_base_us(v: &f64) -> bool {
    *v == DEFAULT_TRANSFER_BASE_US
}

pub(super) fn is_zero(v: &u32) -> bool {
    *v == 0
}

pub(super) fn is_default_routing(v: &DecodeRouting) -> bool {
    *v == DecodeRouting::LeastKv
}

pub(super) fn default_gbps() -> f64 {
    DEFAULT_TRANSFER_GBPS
}

pub(super) fn default_base_us() -> f64 {
    DEFAULT_TRANSFER_BASE_US
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_time_at_two_bandwidths() {
        // 4096 tokens x 131072 B (Llama 3 8B, bf16) = 536,870,912 B.
        // At 50 GB/s: 536870912 / 50000 B/µs = 10737.41824 µs, + 50 = 10787.4 -> 10788.
        assert_eq!(transfer_us(4096, 131_072, 50.0, 50.0), 10_788);
        // At 400 GB/s: 536870912 / 400000 = 1342.17728 µs, + 50 = 1392.2 -> 1393.
        assert_eq!(transfer_us(4096, 131_072, 400.0, 50.0), 1_393);
        // No base, an exact division: 1000 tokens x 1000 B at 1 GB/s = 1000 µs.
        assert_eq!(transfer_us(1000, 1000, 1.0, 0.0), 1000);
    }

    #[test]
    fn decode_routing_names_round_trip() {
        for p in DecodeRouting::ALL {
            assert_eq!(DecodeRouting::parse(p.name()).unwrap(), p);
        }
        assert!(DecodeRouting::parse("kv").is_err());
    }
}
