//! The routers' own CPU settings' defaults and which prompt blocks each policy hashes
//! (the model is in `sim::router_cpu`; the measurement behind the defaults is in the
//! book's router-knowledge chapter).

use super::Policy;

/// Default fixed CPU time per request on a router core, µs: Dynamo's routing path
/// (`kv_router` + `routing_host`: selection and booking) was 9-12 % of the on-CPU samples
/// of a frontend spending 6.5-6.8 ms of CPU per request (ai-dynamo/dynamo pull request
/// 14570), about 0.6-0.8 ms.
pub const DEFAULT_FIXED_US: f64 = 700.0;
/// Default CPU time per full prompt block on a router core, µs: kvfleet's own hashing
/// of a 512-token block and matching it in the fleet's block index, measured at
/// 0.47 µs per block (`router_cpu_cost_bench` in tests/router_cpu.rs).
pub const DEFAULT_PER_BLOCK_US: f64 = 0.5;

pub(super) fn default_fixed_us() -> f64 {
    DEFAULT_FIXED_US
}

pub(super) fn default_per_block_us() -> f64 {
    DEFAULT_PER_BLOCK_US
}

pub(super) fn is_default_fixed_us(v: &f64) -> bool {
    *v == DEFAULT_FIXED_US
}

pub(super) fn is_default_per_block_us(v: &f64) -> bool {
    *v == DEFAULT_PER_BLOCK_US
}

/// Which of a prompt's full blocks a policy hashes (and matches) to route it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hashed {
    /// None: `round_robin`, `random`, `least_loaded`, `p2c`, `sticky` (a session table;
    /// under session affinity a request without a session is matched: see `blocks`).
    Nothing,
    /// The leading block only: `prefix_aware` (its consistent-hash key).
    Leading,
    /// Every full block: `kv`, `dynamo`, `sglang`, `llm_d`, `aibrix` (prefix matching).
    All,
}

impl Hashed {
    /// What `policy` hashes of its own.
    pub fn by(policy: Policy) -> Hashed {
        match policy {
            Policy::RoundRobin
            | Policy::Random
            | Policy::LeastLoaded
            | Policy::P2c
            | Policy::Sticky => Hashed::Nothing,
            Policy::PrefixAware => Hashed::Leading,
            Policy::Kv | Policy::Dynamo | Policy::Sglang | Policy::LlmD | Policy::Aibrix => {
                Hashed::All
            }
        }
    }

    /// The blocks hashed of a request with `full_blocks` full blocks; `affinity` says
    /// session affinity is on and the request has no session, so the router looks for
    /// the replica holding the longest prefix: every block.
    pub fn blocks(self, full_blocks: u32, affinity: bool) -> u32 {
        match self {
            _ if affinity => full_blocks,
            Hashed::Nothing => 0,
            Hashed::Leading => full_blocks.min(1),
            Hashed::All => full_blocks,
        }
    }
}
