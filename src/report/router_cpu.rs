//! The routers' own CPU in the report (`router_cpu`): each router's busy share and
//! longest queue, the routing delay (queue wait + CPU time, part of TTFT) and the
//! requests refused at a full router queue or timed out waiting there. Absent when `router_vcpu` is unset.

use serde::Serialize;

use super::{quantiles, share};
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
    /// Routing delay: 99th percentile (nearest rank, to 0.1 %, as the TTFT's), ms; `null`
    /// when none was routed.
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
    /// Requests whose caller's timeout (`timeout_ms`) passed while they waited at their
    /// router (queued or on a core): dropped there, never sent to a replica; counted in
    /// `summary.timed_out`.
    pub timed_out: u64,
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
        let q = quantiles(&c.delays);
        let routed = c.delays.count();
        let max = if routed > 0 {
            c.delay_max_us as f64 / 1000.0
        } else {
            f64::NAN
        };
        Some(RouterCpuReport {
            vcpu: c.cores(),
            busy_share,
            peak_queue,
            routed,
            routing_delay_ms_mean: q.mean,
            routing_delay_ms_p99: q.p99,
            routing_delay_ms_max: max,
            rejected: c.rejected(),
            timed_out: c.timed_out(),
        })
    }
}
