//! The offload tiers' settings: the CPU tier's size per replica and its PCIe link's load
//! bandwidth and per-transfer cost; the shared tier's size (one for the fleet) and each
//! replica's network link to it. Unset (or 0 blocks): no tier, and the report is exactly
//! as without one.

use super::Config;

/// Default load bandwidth of a replica's CPU tier, GB/s: PCIe 5.0 ×16 in one direction,
/// 32 GT/s × 16 lanes × 128/130 (the link's encoding) / 8 bits = 63.0 GB/s (PCI-SIG,
/// PCI Express Base Specification 5.0, 2019).
pub const DEFAULT_CPU_LOAD_GBPS: f64 = 63.0;
/// Default fixed cost of one load from the CPU tier, µs (a copy's launch and DMA setup).
pub const DEFAULT_CPU_LOAD_BASE_US: f64 = 10.0;

/// Default bandwidth of a replica's network link to the shared tier, GB/s: one
/// 200 Gbit/s RDMA NIC (an assumption: a ConnectX-6 HDR port, 200 Gbit/s / 8 = 25 GB/s;
/// Mooncake's transfer engine drives RDMA NICs of this class).
pub const DEFAULT_SHARED_GBPS: f64 = 25.0;
/// Default fixed cost of one load from the shared tier, µs (an assumption: a lookup in
/// the store's metadata service and an RDMA read's round trip, each some µs).
pub const DEFAULT_SHARED_LATENCY_US: f64 = 20.0;

impl Config {
    /// The CPU tier of every replica, when configured with at least one block: its size,
    /// its blocks' bytes and its link.
    pub fn cpu_tier(&self) -> Option<TierSpec> {
        let capacity_blocks = self.cpu_kv_blocks.filter(|&n| n > 0)?;
        let per_token = self.kv_bytes_per_token_or_preset()?;
        Some(TierSpec {
            capacity_blocks,
            block_bytes: per_token * self.block_size as u64,
            load_gbps: self.cpu_load_gbps,
            load_base_us: self.cpu_load_base_us,
        })
    }
}

impl Config {
    /// The fleet's shared tier, when configured with at least one block: its size, its
    /// blocks' bytes and each replica's network link to it.
    pub fn shared_tier(&self) -> Option<TierSpec> {
        let capacity_blocks = self.shared_kv_blocks.filter(|&n| n > 0)?;
        let per_token = self.kv_bytes_per_token_or_preset()?;
        Some(TierSpec {
            capacity_blocks,
            block_bytes: per_token * self.block_size as u64,
            load_gbps: self.shared_gbps,
            load_base_us: self.shared_latency_us,
        })
    }
}

pub(super) fn is_default_shared_gbps(v: &f64) -> bool {
    *v == DEFAULT_SHARED_GBPS
}

pub(super) fn is_default_shared_latency_us(v: &f64) -> bool {
    *v == DEFAULT_SHARED_LATENCY_US
}

pub(super) fn default_shared_gbps() -> f64 {
    DEFAULT_SHARED_GBPS
}

pub(super) fn default_shared_latency_us() -> f64 {
    DEFAULT_SHARED_LATENCY_US
}

pub(super) fn no_tier(v: &Option<u64>) -> bool {
    v.is_none_or(|n| n == 0)
}

pub(super) fn is_default_gbps(v: &f64) -> bool {
    *v == DEFAULT_CPU_LOAD_GBPS
}

pub(super) fn is_default_base_us(v: &f64) -> bool {
    *v == DEFAULT_CPU_LOAD_BASE_US
}

pub(super) fn default_gbps() -> f64 {
    DEFAULT_CPU_LOAD_GBPS
}

pub(super) fn default_base_us() -> f64 {
    DEFAULT_CPU_LOAD_BASE_US
}

/// The tier's size and its link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierSpec {
    /// Blocks the tier holds.
    pub capacity_blocks: u64,
    /// KV bytes of one block.
    pub block_bytes: u64,
    /// Load bandwidth, GB/s (10^9 bytes per second).
    pub load_gbps: f64,
    /// Fixed cost of one load, µs.
    pub load_base_us: f64,
}

impl TierSpec {
    /// Time on the link to load `blocks` blocks, whole µs rounded up:
    /// `base_us + blocks x block_bytes / bandwidth` (one GB/s moves 1000 bytes per µs).
    pub fn load_us(&self, blocks: u64) -> u64 {
        let bytes = blocks as f64 * self.block_bytes as f64;
        libm::ceil(self.load_base_us + bytes / (self.load_gbps * 1000.0)) as u64
    }
}
