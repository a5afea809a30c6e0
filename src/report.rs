//! The report of one run: summary, per-replica table, columnar series, latency CDFs,
//! the seed's three fleet lines and plain-language findings; serialised as JSON.
//! A statistic over nothing (a percentile of no latencies, the hit rate of a replica that
//! admitted nothing) is NaN here and `null` in the JSON, never a made-up 0.

use serde::Serialize;

use crate::config::Config;
use crate::findings::kv::{self, KvFacts, KvLimits};
use crate::findings::{self, Finding, FindingKind, ReplicaFacts, Window};
use crate::histogram::{LogHistogram, Quantiles};
use crate::series::Series;
use crate::sim::{Simulation, Unended};

pub use mixed::{line as mixed_line, PresetReport};

pub mod autoscale;
mod mixed;
mod over_time;
mod pools;
mod preemption;
mod router_cpu;
mod shared;
pub mod text;
mod tier;

pub use pools::{PoolReport, PoolsReport, TransfersReport};
pub use preemption::PreemptionReport;
pub use router_cpu::RouterCpuReport;
pub use shared::SharedTierReport;
pub use tier::TierReport;

/// Fleet-wide figures (`summary`). Rates are fractions from 0 to 1; a unit ends each name
/// that has one.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Summary {
    /// Requests that arrived: `completed + rejected + timed_out`.
    pub requests: u64,
    /// Requests that produced their last token.
    pub completed: u64,
    /// Requests refused: `rejected_queue_full + rejected_too_large`, plus
    /// `router_cpu.rejected` (refused at a full router queue) when the router has cores.
    pub rejected: u64,
    /// Of them, refused on arrival because the replica's queue (`queue_capacity`) was full.
    pub rejected_queue_full: u64,
    /// Of them, refused because they need more KV blocks (prompt plus output) than one
    /// replica's cache holds, so they could never run.
    pub rejected_too_large: u64,
    /// Requests whose first token did not come within the caller's timeout.
    pub timed_out: u64,
    /// Requests that started on a replica.
    pub admitted: u64,
    /// Admitted requests with at least one cached block (`admitted - hit_requests` are the
    /// misses).
    pub hit_requests: u64,
    /// Fraction of admitted requests with at least one cached block; `null` when none was
    /// admitted.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_requests: f64,
    /// Cached prompt tokens / prompt tokens, a fraction: the "prefix cache reused ratio",
    /// the headline metric; `null` when none was admitted.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_tokens: f64,
    /// Cached blocks / all prompt blocks, a fraction; `null` when none was admitted.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub block_reuse: f64,
    /// Cached tokens per admitted request, tokens; `null` when none was admitted.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub cached_tokens_avg: f64,
    /// Prompt blocks found in the cache at admission, all replicas, blocks.
    pub cached_blocks: u64,
    /// Prompt blocks of the admitted requests, blocks.
    pub prompt_blocks: u64,
    /// Prompt tokens of the admitted requests, tokens.
    pub prompt_tokens: u64,
    /// Of them, tokens found in the cache, tokens.
    pub cached_tokens: u64,
    /// At each routing decision, the full prompt blocks the picked replica held in its
    /// cache, summed over the decisions, blocks (counted at the pick, before admission:
    /// blocks evicted or computed in between make `cached_blocks` differ).
    pub pick_hit_blocks: u64,
    /// At each routing decision, the most full prompt blocks any replica the router could
    /// pick held, summed, blocks: the hits a router that always chose by cache would have
    /// found.
    pub best_hit_blocks: u64,
    /// Of `pick_hit_blocks` (at most the blocks admission may reuse, the last prompt token
    /// being always recomputed), those the picked replica no longer reached when it
    /// admitted the request, blocks: a block evicted while the request waited ends its
    /// leading run there. 0 with an unbounded cache.
    pub evicted_after_pick_blocks: u64,
    /// `pick_hit_blocks / best_hit_blocks`, a fraction: 1 when every pick went to the
    /// best-placed replica; below it, the router gave up cached blocks for load, or did not
    /// see them. `null` when no replica ever held a block of a request being routed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub routing_capture: f64,
    /// Blocks evicted, all replicas, blocks.
    pub evictions: u64,
    /// Time to first token of the completed requests, from arrival: mean, ms; `null` when
    /// no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_mean: f64,
    /// Time to first token of the completed requests, from arrival: median, ms; `null` when
    /// no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_p50: f64,
    /// Time to first token of the completed requests, from arrival: 90th percentile, ms;
    /// `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_p90: f64,
    /// Time to first token of the completed requests, from arrival: 99th percentile, ms;
    /// `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_p99: f64,
    /// Time to first token of the completed requests, from admission (the queue wait left
    /// out): mean, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_admit_ms_mean: f64,
    /// Time to first token of the completed requests, from admission (the queue wait left
    /// out): median, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_admit_ms_p50: f64,
    /// Time to first token of the completed requests, from admission (the queue wait left
    /// out): 90th percentile, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_admit_ms_p90: f64,
    /// Time to first token of the completed requests, from admission (the queue wait left
    /// out): 99th percentile, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_admit_ms_p99: f64,
    /// Queue wait of the completed requests, from arrival to admission: mean, ms; `null`
    /// when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub queue_ms_mean: f64,
    /// Queue wait of the completed requests, from arrival to admission: median, ms; `null`
    /// when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub queue_ms_p50: f64,
    /// Queue wait of the completed requests, from arrival to admission: 90th percentile,
    /// ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub queue_ms_p90: f64,
    /// Queue wait of the completed requests, from arrival to admission: 99th percentile,
    /// ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub queue_ms_p99: f64,
    /// Time per output token after the first, per completed request: mean, ms; `null` when
    /// no completed request had two output tokens or more.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub tpot_ms_mean: f64,
    /// Time per output token after the first, per completed request: median, ms; `null`
    /// when no completed request had two output tokens or more.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub tpot_ms_p50: f64,
    /// Time per output token after the first, per completed request: 90th percentile, ms;
    /// `null` when no completed request had two output tokens or more.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub tpot_ms_p90: f64,
    /// Time per output token after the first, per completed request: 99th percentile, ms;
    /// `null` when no completed request had two output tokens or more.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub tpot_ms_p99: f64,
    /// Inter-token latency, every gap between two tokens: mean, ms; `null` when no gap was
    /// recorded.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub itl_ms_mean: f64,
    /// Inter-token latency, every gap between two tokens: median, ms; `null` when no gap
    /// was recorded.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub itl_ms_p50: f64,
    /// Inter-token latency, every gap between two tokens: 90th percentile, ms; `null` when
    /// no gap was recorded.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub itl_ms_p90: f64,
    /// Inter-token latency, every gap between two tokens: 99th percentile, ms; `null` when
    /// no gap was recorded.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub itl_ms_p99: f64,
    /// End-to-end latency of the completed requests, from arrival to the last token: mean,
    /// ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub e2e_ms_mean: f64,
    /// End-to-end latency of the completed requests, from arrival to the last token:
    /// median, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub e2e_ms_p50: f64,
    /// End-to-end latency of the completed requests, from arrival to the last token: 90th
    /// percentile, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub e2e_ms_p90: f64,
    /// End-to-end latency of the completed requests, from arrival to the last token: 99th
    /// percentile, ms; `null` when no request completed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub e2e_ms_p99: f64,
    /// Output tokens of every request, tokens.
    pub output_tokens: u64,
    /// Output tokens / makespan, tokens/s (0 with no makespan).
    pub throughput_tok_s: f64,
    /// Completions / makespan, req/s (0 with no makespan).
    pub throughput_req_s: f64,
    /// Arrivals per second actually drawn: (arrivals - 1) over the arrival span, req/s.
    pub offered_rate: f64,
    /// Completions / makespan, req/s.
    pub achieved_rate: f64,
    /// First arrival to last completion, s.
    pub makespan_s: f64,
    /// Lowest request hit rate over the replicas that admitted requests, a fraction;
    /// `null` when none did.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_instance_min: f64,
    /// Highest request hit rate over the replicas that admitted requests, a fraction;
    /// `null` when none did.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_instance_max: f64,
    /// (max - min) / mean requests per replica, a ratio; in a disaggregated fleet, over the
    /// prefill pool. `null` when no request was routed.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub load_spread: f64,
    /// Mean over replicas of `per_instance[].kv_wait_share`, a fraction: the share of the
    /// run a replica had a request waiting for KV room while a slot was free. `null` with
    /// no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub kv_wait_share: f64,
    /// Mean requests running at once on a busy replica, requests: running requests x time
    /// over busy time, summed over the fleet (against `max_batch`, how many of the slots
    /// were used). `null` when no replica was ever busy.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub batch_mean: f64,
    /// Preemptions for want of a KV block over the fleet, with the tokens recomputed and
    /// the time lost; present only under `admission: preempt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "PreemptionReport"))]
    pub preemption: Option<PreemptionReport>,
    /// The CPU offload tier: the cached tokens split per tier, bytes moved, time loading
    /// and evictions per tier; present only with a tier (`cpu_kv_blocks`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "TierReport"))]
    pub cpu_tier: Option<TierReport>,
    /// The fleet's shared KV tier: the cached tokens split per tier (HBM, CPU, shared),
    /// bytes moved over the network, time loading and its evictions; present only with a
    /// shared tier (`shared_kv_blocks`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "SharedTierReport"))]
    pub shared_tier: Option<SharedTierReport>,
    /// Autoscaled runs only: the replica time billed (starting, ready and draining
    /// replicas) x GPUs per replica, GPU-hours (`autoscale` has the rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub gpu_hours: Option<f64>,
    /// With an SLO target (`slo_ttft_ms` / `slo_itl_ms` set, or the `slo` scaler's): the
    /// share of the completed requests whose TTFT, and TPOT, met it, a fraction 0..=1
    /// (`series.slo_attained` over the whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub slo_attained: Option<f64>,
    /// Mixed fleets only (`fleet`): each preset's GPUs at its GPU's price of a GPU-hour
    /// (the preset's assumed on-demand price, or `gpu_hour_usd`), US dollars per hour.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub usd_per_hour: Option<f64>,
    /// An uneven-load or uneven-hit-rate finding was raised.
    pub hot_spot: bool,
    /// An overload finding was raised.
    pub overloaded: bool,
    /// Events processed: arrivals, step ends and, disaggregated, transfer ends.
    pub events: u64,
    /// The seed of every random draw.
    pub seed: u64,
}

/// One replica's row (`per_instance[]`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InstanceReport {
    /// The replica's number, from 0.
    pub index: u32,
    /// Requests routed to it.
    pub requests: u64,
    /// Requests that started on it.
    pub admitted: u64,
    /// Prompt tokens of its admitted requests, tokens.
    pub prompt_tokens: u64,
    /// Of them, tokens found in its cache, tokens.
    pub cached_tokens: u64,
    /// Fraction of its admitted requests with at least one cached block; `null` when it
    /// admitted none.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_requests: f64,
    /// Its cached prompt tokens / prompt tokens, a fraction; `null` when it admitted none.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_tokens: f64,
    /// Time in engine steps / makespan, a fraction, light decode-only steps included;
    /// `null` with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub busy_share: f64,
    /// Time in steps that began with a request waiting for a slot or KV room, or with
    /// prefill beyond the step's budget / makespan, a fraction; `null` with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub saturated_share: f64,
    /// Time a request waited for KV room while a slot was free / makespan, a fraction: from
    /// the start of a step that began so, or from an arrival refused room during a decode
    /// run, to that step's end. The time KV capacity, not the slots, held requests back.
    /// `null` with no makespan.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub kv_wait_share: f64,
    /// Mean requests running at once while busy (running requests x time / busy time),
    /// requests; `null` when never busy.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub batch_mean: f64,
    /// The longest waiting queue, requests.
    pub peak_queue: u32,
    /// Blocks evicted from its cache, blocks.
    pub evictions: u64,
    /// Requests refused: `rejected_queue_full + rejected_too_large`.
    pub rejected: u64,
    /// Of them, refused on arrival because the queue was full.
    pub rejected_queue_full: u64,
    /// Of them, refused because they need more KV blocks than the cache holds.
    pub rejected_too_large: u64,
    /// Requests whose first token did not come within the caller's timeout.
    pub timed_out: u64,
    /// Its preemptions for want of a KV block, with the tokens recomputed and the time
    /// lost; present only under `admission: preempt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "PreemptionReport"))]
    pub preemption: Option<PreemptionReport>,
    /// Its CPU offload tier's figures; present only with a tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "TierReport"))]
    pub cpu_tier: Option<TierReport>,
    /// Its shared-tier figures (what it loaded and wrote); present only with a shared
    /// tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "SharedTierReport"))]
    pub shared_tier: Option<SharedTierReport>,
    /// `prefill` (replicas `0..P`) or `decode` (`P..P+D`) in a disaggregated fleet; absent
    /// when colocated.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "\"prefill\" | \"decode\""))]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "String", extend("enum" = ["prefill", "decode"]))
    )]
    pub pool: Option<&'static str>,
    /// Mixed fleets only (`fleet`): the replica's engine preset.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub preset: Option<&'static str>,
    /// Mixed fleets only: its KV capacity, blocks (its preset's, or `kv_blocks` when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub capacity_blocks: Option<u64>,
}

/// Latency distributions at 100 evenly spaced quantiles (`latency_cdf`).
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LatencyCdf {
    /// The quantiles, 0.01 to 1.00.
    pub q: Vec<f64>,
    /// Time to first token at each quantile, ms; empty when no request completed.
    pub ttft_ms: Vec<f64>,
    /// End-to-end latency at each quantile, ms; empty when no request completed.
    pub e2e_ms: Vec<f64>,
}

/// The whole result of one run: the JSON report.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// The version of kvfleet that wrote the report.
    pub kvfleet_version: &'static str,
    /// The seed of every random draw.
    pub seed: u64,
    /// Every parameter, defaults included (the disaggregation keys only when set away from
    /// their defaults).
    pub config: Config,
    /// `synthetic`, `sessions`, or the trace's file name.
    pub source: String,
    /// Fleet-wide figures.
    pub summary: Summary,
    /// One entry per replica.
    pub per_instance: Vec<InstanceReport>,
    /// Time series for charts.
    pub series: Series,
    /// Latency distributions.
    pub latency_cdf: LatencyCdf,
    /// The three fleet lines of the text report.
    pub fleet_lines: Vec<String>,
    /// Plain-language findings, each raised only on evidence.
    pub findings: Vec<Finding>,
    /// The `unended` sentence (when present) first, then each finding's text.
    pub warnings: Vec<String>,
    /// Requests that did not end exactly once: absent when every one did, as it always
    /// should (present only through a simulator bug). Its sentence leads `warnings`, and
    /// the text report prints it as an `ERROR:` line.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::sim::Unended"))]
    pub unended: Option<crate::sim::Unended>,
    /// Task-level results; the `sessions` workload only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::sessions::SessionReport"))]
    pub sessions: Option<crate::sessions::SessionReport>,
    /// The two pools; a disaggregated fleet only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "PoolsReport"))]
    pub pools: Option<PoolsReport>,
    /// The routers' own CPU: busy share, routing delay, router rejections and timeouts;
    /// present only with `router_vcpu` set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "RouterCpuReport"))]
    pub router_cpu: Option<RouterCpuReport>,
    /// The autoscaler: bounds, replica time and GPU-hours, cost, every change and the
    /// hit rate's recovery after each; present only with `autoscale` set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "autoscale::AutoscaleReport"))]
    pub autoscale: Option<autoscale::AutoscaleReport>,
    /// A mixed fleet (`fleet`): per preset, its replicas, GPUs, capacity, price per hour,
    /// requests and their TTFT. Absent without `fleet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<PresetReport>"))]
    pub presets: Option<Vec<PresetReport>>,
    /// The summary over K seeds, for a run of several (`--des-seeds K`, K > 1); absent
    /// for one seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::noise::SeedsReport"))]
    pub seeds: Option<crate::noise::SeedsReport>,
}

impl Report {
    /// Compact JSON (byte-identical for the same config and seed, native or wasm).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("report serialises")
    }

    /// Human text report.
    pub fn to_text(&self) -> String {
        text::render(self)
    }
}

/// Why requests were rejected, in words with their counts, for a text after "rejected N":
/// `queue full`, `too large for a 9-block cache`, or both with each count
/// (`2 queue full, 3 too large for a 9-block cache`). Empty when none was rejected, or
/// when the split explains none of them: the words never guess a reason.
pub fn rejection_reasons(
    rejected: u64,
    queue_full: u64,
    too_large: u64,
    kv_blocks: Option<u64>,
) -> String {
    let cache = kv_blocks.map_or("the cache".to_string(), |b| format!("a {b}-block cache"));
    // A count the split does not explain gets no reason (and alone, no words at all).
    let explained = queue_full + too_large;
    let unexplained = if explained > 0 {
        rejected.saturating_sub(explained)
    } else {
        0
    };
    let parts: Vec<(u64, String)> = [
        (queue_full, "queue full".to_string()),
        (too_large, format!("too large for {cache}")),
        (unexplained, "reason not recorded".to_string()),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .collect();
    match parts.as_slice() {
        [] => String::new(),
        [(_, why)] => why.clone(),
        _ => parts
            .iter()
            .map(|(n, why)| format!("{n} {why}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// A statistic over `den` samples: NaN (JSON `null`) when there are none.
fn share(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        f64::NAN
    }
}

/// Quantiles of a histogram, NaN when it holds no value.
fn quantiles(h: &LogHistogram) -> Quantiles {
    if h.count() == 0 {
        return Quantiles {
            mean: f64::NAN,
            p50: f64::NAN,
            p90: f64::NAN,
            p99: f64::NAN,
        };
    }
    h.quantiles_ms()
}

impl Simulation<'_> {
    /// Finishes the run (if needed) and builds its report.
    pub fn into_report(mut self) -> Report {
        self.run_to_end();
        let start_us = self.first_arrival_us.unwrap_or(0);
        let end_us = self.recorder.last_done_us.max(self.now_us);
        let makespan_us = end_us.saturating_sub(start_us);
        let per_instance = self.instance_rows(makespan_us);
        let mut summary = self.summary(makespan_us, &per_instance);
        let links = self.disagg.as_ref().map_or(&[][..], |d| &d.links[..]);
        let mut series =
            std::mem::take(&mut self.sampler).finish(end_us, &mut self.replicas, links);
        self.fill_schedule_rate(&mut series);
        let autoscale = self.autoscale_report(end_us, &mut series);
        let gpu_hours = autoscale.as_ref().map(|a| a.gpu_hours);
        let latency_cdf = latency_cdf(&self.recorder.ttft, &self.recorder.e2e);
        self.fill_latencies(&mut summary);
        let findings = self.findings(&per_instance, &series, makespan_us);
        summary.hot_spot = findings
            .iter()
            .any(|f| matches!(f.kind, FindingKind::LoadUneven | FindingKind::HitUneven));
        summary.overloaded = findings.iter().any(|f| f.kind == FindingKind::Overloaded);
        let unended = self.unended();
        let warnings = unended
            .iter()
            .map(Unended::sentence)
            .chain(findings.iter().map(|f| f.text.clone()))
            .collect();
        summary.gpu_hours = gpu_hours;
        summary.slo_attained = series.slo_attained_share();
        let fleet_lines = self.fleet_lines(&summary, &per_instance, autoscale.as_ref());
        let sessions = self.session_report();
        let pools = self.pools_report(&per_instance, makespan_us);
        let router_cpu = self.router_cpu_report(makespan_us);
        let presets = self
            .preset_ttft
            .as_ref()
            .map(|t| mixed::report(&self.cfg, t, &per_instance));
        Report {
            kvfleet_version: env!("CARGO_PKG_VERSION"),
            seed: self.cfg.seed,
            config: self.cfg.clone(),
            source: self.source_name.clone(),
            summary,
            per_instance,
            series,
            latency_cdf,
            fleet_lines,
            findings,
            warnings,
            unended,
            sessions,
            pools,
            router_cpu,
            autoscale,
            presets,
            seeds: None,
        }
    }

    /// The autoscaler's report, and the ready replicas at each sample of `series`.
    fn autoscale_report(
        &mut self,
        end_us: u64,
        series: &mut Series,
    ) -> Option<autoscale::AutoscaleReport> {
        let billing = self.scaler.as_mut()?.finish(end_us);
        let initial = self.cfg.instances;
        series.replicas = autoscale::replicas_series(&series.t_s, initial, &billing.changes);
        let gpus = self.cfg.engine.gpus();
        let price = self
            .cfg
            .engine
            .hardware()
            .map(|_| self.cfg.gpu_hour_usd_of(self.cfg.engine));
        Some(autoscale::report(
            self.cfg.autoscale.name(),
            &billing,
            series,
            (initial, gpus),
            price,
        ))
    }

    /// The schedule's rate at each sample (`series.schedule_rate`), for a synthetic run
    /// under a rate schedule (a replay keeps its own timestamps).
    fn fill_schedule_rate(&self, series: &mut Series) {
        let synthetic = matches!(self.source_name.as_str(), "synthetic" | "sessions");
        if let Some(s) = crate::workload::schedule::of(&self.cfg).filter(|_| synthetic) {
            series.schedule_rate = series.t_s.iter().map(|&t| s.rate_at(t)).collect();
        }
    }

    /// The seed's three fleet lines; in a disaggregated run the first counts both pools
    /// (`5 prefill + 3 decode instance(s)`) and the cache lines describe the prefill pool.
    fn fleet_lines(
        &self,
        summary: &Summary,
        rows: &[InstanceReport],
        scaler: Option<&autoscale::AutoscaleReport>,
    ) -> Vec<String> {
        let Some(d) = self.disagg.as_ref() else {
            return text::fleet_lines(&self.cfg, &self.source_name, summary, scaler);
        };
        let cfg = Config {
            instances: d.pools.prefill,
            ..self.cfg.clone()
        };
        let s = self.prefill_pool_summary(summary, rows);
        let mut lines = text::fleet_lines(&cfg, &self.source_name, &s, scaler);
        let (p, d) = (d.pools.prefill, d.pools.decode);
        lines[0] = lines[0].replacen(
            &format!("Fleet: {p} instance(s)"),
            &format!("Fleet: {p} prefill + {d} decode instance(s)"),
            1,
        );
        lines
    }

    fn findings(&self, rows: &[InstanceReport], series: &Series, makespan_us: u64) -> Vec<Finding> {
        let facts: Vec<ReplicaFacts> = rows
            .iter()
            .map(|r| ReplicaFacts {
                requests: r.requests,
                admitted: r.admitted,
                hit_rate_tokens: r.hit_rate_tokens,
                // Overload is a full queue; a request too large for the cache is not.
                rejected: r.rejected_queue_full,
                peak_queue: r.peak_queue,
            })
            .collect();
        let window = Window {
            settle_us: self.idle_request_us(rows),
            ..self.growth_window()
        };
        let mut out = match self.disagg.as_ref() {
            Some(d) => findings::pooled_findings(&facts, d.pools.prefill as usize, series, window),
            None => findings::findings(&facts, series, window),
        };
        let limits = KvLimits {
            capacity_blocks: self.cfg.kv_blocks,
            max_batch: self.cfg.max_batch,
            makespan_us,
        };
        // A prefill replica reserves no output blocks: the words' request size is a
        // colocated replica's.
        if self.disagg.is_none() {
            out.extend(kv::kv_finding(&self.kv_facts(), limits));
        }
        // An autoscaled fleet's replicas live for different stretches of the run: an even
        // share of the requests or of the hits is no yardstick for them.
        if self.scaler.is_some() {
            out.retain(|f| !matches!(f.kind, FindingKind::LoadUneven | FindingKind::HitUneven));
        }
        out
    }

    /// The window over which the overload finding judges backlog growth: the arrivals',
    /// from the start of the rate schedule's last piece before the last arrival (where
    /// the offered rate was steady), each replica from its first admission under an
    /// autoscaler.
    fn growth_window(&self) -> Window {
        let first_us = self.first_arrival_us.unwrap_or(0);
        let synthetic = matches!(self.source_name.as_str(), "synthetic" | "sessions");
        let piece_us = crate::workload::schedule::of(&self.cfg)
            .filter(|_| synthetic)
            .map_or(0, |s| {
                libm::round(s.piece_start_s(self.last_arrival_us as f64 / 1e6) * 1e6) as u64
            });
        let start_us = first_us.max(piece_us.min(self.last_arrival_us));
        Window {
            start_us,
            end_us: self.last_arrival_us,
            from_first_admission: self.scaler.is_some(),
            after_change: start_us > first_us,
            settle_us: 0,
        }
    }

    /// How long a request of the run's mean size (its uncached prompt tokens, its output
    /// tokens) takes on an idle replica of the fastest preset, µs: until then no request
    /// can have finished, so every replica's backlog grows whatever its speed.
    fn idle_request_us(&self, rows: &[InstanceReport]) -> u64 {
        let admitted: u64 = rows.iter().map(|r| r.admitted).sum();
        let completed = self.recorder.completed;
        if admitted == 0 || completed == 0 {
            return 0;
        }
        let new_tokens: u64 = rows.iter().map(|r| r.prompt_tokens - r.cached_tokens).sum();
        let prompt_tokens: u64 = rows.iter().map(|r| r.prompt_tokens).sum();
        let (new, prompt) = (new_tokens / admitted, prompt_tokens / admitted);
        let steps = (self.recorder.output_tokens / completed).saturating_sub(1);
        self.replicas
            .iter()
            .map(|rep| {
                let t = rep.timing();
                t.pass_us(new, 0, 0, 1) + t.decode_run_us(steps, 1, prompt)
            })
            .min()
            .unwrap_or(0)
    }

    /// The engine counters the KV-bound finding reads, per replica.
    fn kv_facts(&self) -> Vec<KvFacts> {
        self.replicas
            .iter()
            .map(|rep| {
                let s = rep.stats();
                KvFacts {
                    requests: s.routed,
                    busy_us: s.busy_us,
                    kv_wait_us: s.kv_wait_us,
                    running_us: s.running_us,
                    admissions: s.admissions,
                    admitted_kv_blocks: s.admitted_kv_blocks,
                }
            })
            .collect()
    }

    fn session_report(&self) -> Option<crate::sessions::SessionReport> {
        let mut report = self.source.session_report()?;
        let turns = &self.recorder.turns;
        report.hit_rate_by_turn = turns
            .iter()
            .map(|t| share(t.hit_requests as f64, t.admitted as f64))
            .collect();
        report.token_hit_rate_by_turn = turns
            .iter()
            .map(|t| share(t.cached_tokens as f64, t.prompt_tokens as f64))
            .collect();
        report.ttft_ms_by_turn = turns
            .iter()
            .map(|t| share(t.ttft_us_sum, t.completed as f64) / 1000.0)
            .collect();
        report.prompt_tokens_by_turn = turns
            .iter()
            .map(|t| share(t.prompt_tokens as f64, t.admitted as f64))
            .collect();
        Some(report)
    }

    fn instance_rows(&self, makespan_us: u64) -> Vec<InstanceReport> {
        let bs = self.cfg.block_size as u64;
        let presets = self.cfg.replica_presets();
        self.replicas
            .iter()
            .zip(&self.recorder.replicas)
            .enumerate()
            .map(|(i, (rep, c))| InstanceReport {
                index: i as u32,
                requests: rep.stats().routed,
                admitted: c.admitted,
                prompt_tokens: c.prompt_tokens,
                cached_tokens: c.cached_blocks * bs,
                hit_rate_requests: share(c.hit_requests as f64, c.admitted as f64),
                hit_rate_tokens: share((c.cached_blocks * bs) as f64, c.prompt_tokens as f64),
                busy_share: share(rep.stats().busy_us as f64, makespan_us as f64),
                saturated_share: share(rep.stats().saturated_us as f64, makespan_us as f64),
                kv_wait_share: share(rep.stats().kv_wait_us as f64, makespan_us as f64),
                batch_mean: share(rep.stats().running_us as f64, rep.stats().busy_us as f64),
                peak_queue: rep.stats().peak_queue,
                evictions: rep.cache().evictions(),
                rejected: c.rejected,
                rejected_queue_full: c.rejected_queue_full,
                rejected_too_large: c.rejected_too_large,
                timed_out: c.timed_out,
                preemption: PreemptionReport::reported(self.cfg.admission)
                    .then(|| PreemptionReport::of(rep.stats())),
                cpu_tier: rep.tier_stats().map(|t| {
                    let evictions = rep.cache().evictions();
                    let own = c.cached_blocks * bs - shared_tokens(rep.shared_stats(), bs);
                    TierReport::of(&t, bs, own, c.prompt_tokens, evictions)
                }),
                shared_tier: rep.shared_stats().map(|s| {
                    let cpu = rep.tier_stats().map_or(0, |t| t.cpu_hit_blocks * bs);
                    SharedTierReport::of(&s, bs, c.cached_blocks * bs, cpu, c.prompt_tokens)
                }),
                pool: self.disagg.as_ref().map(|d| {
                    if i < d.pools.prefill as usize {
                        "prefill"
                    } else {
                        "decode"
                    }
                }),
                preset: presets.as_ref().map(|p| p[i].name()),
                capacity_blocks: presets
                    .as_ref()
                    .and_then(|p| self.cfg.fleet_kv_blocks(p[i])),
            })
            .collect()
    }

    fn summary(&self, makespan_us: u64, rows: &[InstanceReport]) -> Summary {
        let c = &self.recorder.replicas;
        let admitted: u64 = c.iter().map(|c| c.admitted).sum();
        let hits: u64 = c.iter().map(|c| c.hit_requests).sum();
        let cached_blocks: u64 = c.iter().map(|c| c.cached_blocks).sum();
        let prompt_blocks: u64 = c.iter().map(|c| c.prompt_blocks).sum();
        let prompt_tokens: u64 = c.iter().map(|c| c.prompt_tokens).sum();
        let cached_tokens = cached_blocks * self.cfg.block_size as u64;
        let makespan_s = makespan_us as f64 / 1e6;
        let served: Vec<&InstanceReport> = rows.iter().filter(|r| r.admitted > 0).collect();
        let rates = served.iter().map(|r| r.hit_rate_requests);
        // The routing policy's spread: over the prefill pool in a disaggregated fleet.
        let routed = self
            .disagg
            .as_ref()
            .map_or(rows.len(), |d| d.pools.prefill as usize);
        let loads: Vec<f64> = rows[..routed].iter().map(|r| r.requests as f64).collect();
        let mean_load = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
        let spread = loads.iter().cloned().fold(f64::MIN, f64::max)
            - loads.iter().cloned().fold(f64::MAX, f64::min);
        Summary {
            requests: self.arrived,
            completed: self.recorder.completed,
            rejected: self.rejected,
            rejected_queue_full: c.iter().map(|c| c.rejected_queue_full).sum(),
            rejected_too_large: c.iter().map(|c| c.rejected_too_large).sum(),
            timed_out: self.timed_out,
            admitted,
            hit_requests: hits,
            hit_rate_requests: share(hits as f64, admitted as f64),
            hit_rate_tokens: share(cached_tokens as f64, prompt_tokens as f64),
            block_reuse: share(cached_blocks as f64, prompt_blocks as f64),
            cached_tokens_avg: share(cached_tokens as f64, admitted as f64),
            cached_blocks,
            prompt_blocks,
            prompt_tokens,
            cached_tokens,
            pick_hit_blocks: self.recorder.picks.pick_hit_blocks,
            best_hit_blocks: self.recorder.picks.best_hit_blocks,
            evicted_after_pick_blocks: self.recorder.picks.evicted_after_pick_blocks,
            routing_capture: share(
                self.recorder.picks.pick_hit_blocks as f64,
                self.recorder.picks.best_hit_blocks as f64,
            ),
            evictions: self.replicas.iter().map(|r| r.cache().evictions()).sum(),
            output_tokens: self.recorder.output_tokens,
            throughput_tok_s: ratio(self.recorder.output_tokens as f64, makespan_s),
            throughput_req_s: ratio(self.recorder.completed as f64, makespan_s),
            offered_rate: self.offered_rate(),
            achieved_rate: ratio(self.recorder.completed as f64, makespan_s),
            makespan_s,
            hit_rate_instance_min: rates.clone().fold(f64::NAN, f64::min),
            hit_rate_instance_max: rates.fold(f64::NAN, f64::max),
            load_spread: share(spread, mean_load),
            kv_wait_share: share(
                self.replicas
                    .iter()
                    .map(|r| r.stats().kv_wait_us)
                    .sum::<u64>() as f64,
                (self.replicas.len() as u64 * makespan_us) as f64,
            ),
            batch_mean: share(
                self.replicas
                    .iter()
                    .map(|r| r.stats().running_us)
                    .sum::<u64>() as f64,
                self.replicas.iter().map(|r| r.stats().busy_us).sum::<u64>() as f64,
            ),
            preemption: PreemptionReport::reported(self.cfg.admission)
                .then(|| PreemptionReport::sum(self.replicas.iter().map(|r| r.stats()))),
            cpu_tier: self.cfg.cpu_tier().map(|_| {
                let t = TierReport::sum(self.replicas.iter().filter_map(|r| r.tier_stats()));
                let evictions = self.replicas.iter().map(|r| r.cache().evictions()).sum();
                let bs = self.cfg.block_size as u64;
                let own = cached_tokens - shared_tokens(self.fleet_shared_stats(), bs);
                TierReport::of(&t, bs, own, prompt_tokens, evictions)
            }),
            shared_tier: self.shared_summary(cached_tokens, prompt_tokens),
            usd_per_hour: self.cfg.fleet_usd_per_hour(),
            events: self.events,
            seed: self.cfg.seed,
            ..Summary::default()
        }
    }

    /// The replicas' shared-tier counters summed, when the fleet has a shared tier.
    fn fleet_shared_stats(&self) -> Option<crate::engine::SharedStats> {
        self.shared.as_ref()?;
        Some(SharedTierReport::sum(
            self.replicas.iter().filter_map(|r| r.shared_stats()),
        ))
    }

    /// The fleet's shared-tier figures.
    fn shared_summary(&self, cached_tokens: u64, prompt_tokens: u64) -> Option<SharedTierReport> {
        let s = self.fleet_shared_stats()?;
        let bs = self.cfg.block_size as u64;
        let cpu = self
            .replicas
            .iter()
            .filter_map(|r| r.tier_stats())
            .map(|t| t.cpu_hit_blocks * bs)
            .sum();
        debug_assert_eq!(
            Some(s.shared_evictions),
            self.shared.as_ref().map(|p| p.borrow().evictions()),
            "the replicas' shared evictions are the pool's"
        );
        Some(SharedTierReport::of(
            &s,
            bs,
            cached_tokens,
            cpu,
            prompt_tokens,
        ))
    }

    /// Arrivals per second actually offered: (arrivals - 1) over the arrival span, so a
    /// synthetic run and the replay of its export report the same figure.
    fn offered_rate(&self) -> f64 {
        let span_s = (self.last_arrival_us - self.first_arrival_us.unwrap_or(0)) as f64 / 1e6;
        ratio(self.arrived.saturating_sub(1) as f64, span_s)
    }

    fn fill_latencies(&self, s: &mut Summary) {
        let r = &self.recorder;
        let set = |q: Quantiles, m: &mut f64, p50: &mut f64, p90: &mut f64, p99: &mut f64| {
            (*m, *p50, *p90, *p99) = (q.mean, q.p50, q.p90, q.p99);
        };
        set(
            quantiles(&r.ttft),
            &mut s.ttft_ms_mean,
            &mut s.ttft_ms_p50,
            &mut s.ttft_ms_p90,
            &mut s.ttft_ms_p99,
        );
        set(
            quantiles(&r.ttft_admit),
            &mut s.ttft_admit_ms_mean,
            &mut s.ttft_admit_ms_p50,
            &mut s.ttft_admit_ms_p90,
            &mut s.ttft_admit_ms_p99,
        );
        set(
            quantiles(&r.queue),
            &mut s.queue_ms_mean,
            &mut s.queue_ms_p50,
            &mut s.queue_ms_p90,
            &mut s.queue_ms_p99,
        );
        set(
            quantiles(&r.tpot),
            &mut s.tpot_ms_mean,
            &mut s.tpot_ms_p50,
            &mut s.tpot_ms_p90,
            &mut s.tpot_ms_p99,
        );
        set(
            quantiles(&r.itl),
            &mut s.itl_ms_mean,
            &mut s.itl_ms_p50,
            &mut s.itl_ms_p90,
            &mut s.itl_ms_p99,
        );
        set(
            quantiles(&r.e2e),
            &mut s.e2e_ms_mean,
            &mut s.e2e_ms_p50,
            &mut s.e2e_ms_p90,
            &mut s.e2e_ms_p99,
        );
    }
}

fn latency_cdf(ttft: &LogHistogram, e2e: &LogHistogram) -> LatencyCdf {
    let q: Vec<f64> = (1..=100).map(|i| i as f64 / 100.0).collect();
    let at = |h: &LogHistogram| {
        if h.count() == 0 {
            Vec::new()
        } else {
            h.at_ms(&q)
        }
    };
    LatencyCdf {
        ttft_ms: at(ttft),
        e2e_ms: at(e2e),
        q,
    }
}

#[cfg(test)]
mod tests;

/// Tokens loaded from the shared tier (0 without one).
fn shared_tokens(stats: Option<crate::engine::SharedStats>, block_size: u64) -> u64 {
    stats.map_or(0, |s| s.shared_hit_blocks * block_size)
}
