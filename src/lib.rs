//! kvfleet: a discrete-event simulator of an LLM-serving fleet's prefix (KV block) cache.
//!
//! The pipeline, a pure core with thin edges:
//!
//! ```text
//! Config --validate--> Source (synthetic pool | sessions | trace)   config, params,
//!                         | requests in arrival order                workload, sessions, trace
//!                         v
//!            event loop (integer µs, ordered by (time, seq))        sim
//!              | Arrival -> [a router core: queue, CPU time]         sim::router_cpu
//!              |         -> what the router sees (live, offline      index, view,
//!              |            pass, snapshot) -> Router.pick -> Replica router
//!              | Step    -> Replica: admit (cache lookup, pin),      engine, cache, timing
//!              |            prefill, decode (closed form), complete
//!              |            -> cache store/evict events -> index
//!              v
//!           Recorder -> Report (summary, per-replica, series)        metrics, series, report,
//!                         |- findings (load, hit rate, overload)   findings
//!                         |- text report (CLI)  |- JSON (CLI, wasm)  text
//! ```
//!
//! Around it: `lessons` (the two break-and-fix exercises), `sweep` (one parameter across
//! values), and `api`, the string-in, string-out surface shared by the CLI, the wasm
//! bindings (`wasm`, only on wasm32) and the tests; `schema` (only with the `schema`
//! feature), the JSON Schema of the report and of a sweep's rows, and the book's report
//! reference rendered from it.

pub mod api;
pub mod cache;
pub mod calibrate;
pub mod config;
pub mod decimal;
pub mod echo;
pub mod engine;
pub mod findings;
pub mod fuzzing;
pub mod histogram;
pub mod index;
pub mod json;
pub mod lessons;
pub mod limits;
pub mod link;
pub mod metrics;
pub mod noise;
pub mod numbers;
pub mod params;
pub mod plan;
pub mod report;
pub mod rng;
pub mod router;
pub mod run;
#[cfg(feature = "schema")]
pub mod schema;
pub mod seeds;
pub mod series;
pub mod sessions;
pub mod sim;
pub mod sweep;
pub mod timing;
pub mod trace;
pub mod view;
pub mod workload;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use config::{
    Admission, ArrivalModel, Autoscale, Config, ConfigError, DecodeRouting, Policy, Popularity,
    RouterTiers, RouterView, SglangMiss, TieBreak, WorkloadKind,
};
pub use report::Report;
pub use workload::Request;
