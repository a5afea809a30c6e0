//! The routers' own CPU settings' defaults (the model is in `sim::router_cpu`; the
//! measurement behind the defaults is in the book's router-knowledge chapter).

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
