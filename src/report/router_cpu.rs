//! The routers' own CPU in the report (`router_cpu`): each router's busy share and
//! longest queue, the routing delay (queue wait + CPU time, part of TTFT) and the
//! requests refused at a full router queue. Absent when `router_vcpu` is unset.

use serde::Serialize;

use super::share;
use crate::sim::Simulation;

/// The routers' CPU (`router_cpu`); present only with `router_vcpu` set.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RouterCpuReport {
    /// Cores per router.
    pub vcpu: u32,
    /// Per router: core time busy / (cores x makespan), a fraction; `null` with no
    /// makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub busy_share: Vec<f64>,
    /// Per router: the longest queue waiting for a core, requests.
    pub peak_queue: Vec<u32>,
    /// Requests routed (that finished their router CPU time).
    pub routed: u64,
    /// Routing delay, arrival to the routing decision (queue wait + CPU time): mean, ms;
    /// part of every request's TTFT. `null` when none was routed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub routing_delay_ms_mean: f64,
    /// Routing delay: 99th percentile (nearest rank), ms; `null` when none was routed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub routing_delay_ms_p99: f64,
    /// Routing delay: the longest, ms; `null` when none was routed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub routing_delay_ms_max: f64,
    /// Requests refused because their router's queue (`router_queue`) was full; counted
    /// in `summary.rejected`.
    pub rejected: u64,
}

/// The nearest-rank `q` quantile of sorted `v` (non-empty).
fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    let rank = libm::ceil(q * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Simulation<'_> {
    /// The `router_cpu` report, with `router_vcpu` set.
    pub(super) fn router_cpu_report(&self, makespan_us: u64) -> Option<RouterCpuReport> {
        let c = self.router_cpu.as_ref()?;
        let cores = c.cores() as f64;
        let (busy_share, peak_queue) = c
            .per_router()
            .map(|(busy_us, peak)| (share(busy_us as f64, cores * makespan_us as f64), peak))
            .unzip();
        let mut delays = c.delays_us.clone();
        delays.sort_unstable();
        let ms = |us: u64| us as f64 / 1000.0;
        let (mean, p99, max) = if delays.is_empty() {
            (f64::NAN, f64::NAN, f64::NAN)
        } else {
            let sum: u64 = delays.iter().sum();
            (
                sum as f64 / delays.len() as f64 / 1000.0,
                ms(nearest_rank(&delays, 0.99)),
                ms(delays[delays.len() - 1]),
            )
        };
        Some(RouterCpuReport {
            vcpu: c.cores(),
            busy_share,
            peak_queue,
            routed: delays.len() as u64,
            routing_delay_ms_mean: mean,
            routing_delay_ms_p99: p99,
            routing_delay_ms_max: max,
            rejected: c.rejected(),
        })
    }
}
