//! The routers' own CPU settings' defaults (the model is in `sim::router_cpu`; the
//! measurement behind the defaults is in the book's router-knowledge chapter).

/// Default fixed CPU time per request on a router core, µs.
pub const DEFAULT_FIXED_US: f64 = 20.0;
/// Default CPU time per full prompt block on a router core, µs.
pub const DEFAULT_PER_BLOCK_US: f64 = 1.0;

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
