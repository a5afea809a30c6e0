//! Run configuration: one flat, serde-friendly struct shared by the CLI, the URL state
//! and the wasm API, plus validation that names the field, the value and what is allowed.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::timing::EnginePreset;

mod admission;
mod autoscale;
mod disagg;
mod fleet;
mod gpu_price;
mod router_cpu;
mod router_tiers;
mod tie_break;
mod tier;

pub use admission::Admission;
pub use autoscale::{Autoscale, SloTargets};
pub use disagg::{
    transfer_us, DecodeRouting, Pools, DEFAULT_TRANSFER_BASE_US, DEFAULT_TRANSFER_GBPS,
};
pub use fleet::{parse_fleet, validate_fleet_mix, FleetGroup};
pub use gpu_price::{parse_gpu_prices, GpuPrices, MAX_GPU_HOUR_USD};
pub use router_cpu::Hashed;
pub use router_tiers::RouterTiers;
pub use tie_break::TieBreak;
pub use tier::{
    TierSpec, DEFAULT_CPU_LOAD_BASE_US, DEFAULT_CPU_LOAD_GBPS, DEFAULT_SHARED_GBPS,
    DEFAULT_SHARED_LATENCY_US,
};

/// How arrival times are drawn for a synthetic workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArrivalModel {
    /// Exponential inter-arrival times (a Poisson process).
    Poisson,
    /// Evenly spaced arrivals, exactly 1/rate apart.
    Deterministic,
    /// Gamma inter-arrival times with shape = burstiness (1.0 is Poisson, lower is
    /// burstier).
    Gamma,
}

/// Routing policy of the fleet's router.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The deployed KV router's cost: overlap weight x missed blocks + load.
    Kv,
    /// Consistent hashing of the leading block on a ring with virtual nodes.
    PrefixAware,
    /// Replicas in turn.
    RoundRobin,
    /// A seeded uniform pick.
    Random,
    /// Session affinity: back to the replica that served the session (or holds the
    /// prefix) for `session_affinity` % of requests, round robin otherwise; spills to the
    /// least busy replica when the sticky one has `spill_queue` requests waiting.
    Sticky,
    /// Fewest requests in flight (waiting + running); ties as `tie_break` says.
    LeastLoaded,
    /// Power of two choices: two distinct replicas drawn (seeded), the one with fewer in
    /// flight wins.
    P2c,
    /// NVIDIA Dynamo's KV router cost (in the book: Routing policies, the router zoo).
    Dynamo,
    /// SGLang's cache-aware router (in the book: Routing policies, the router zoo).
    Sglang,
    /// llm-d's weighted scorer pipeline (in the book: Routing policies, the router zoo).
    LlmD,
    /// AIBrix's prefix-cache router (in the book: Routing policies, the router zoo).
    Aibrix,
}

impl Config {
    /// The effective session affinity as a share 0..=1 (the policy default when unset).
    pub fn affinity_share(&self) -> f64 {
        let percent = self
            .session_affinity
            .unwrap_or(if self.routing == Policy::Sticky {
                100.0
            } else {
                0.0
            });
        percent / 100.0
    }
}

impl Policy {
    /// Every policy, in the order the report and the page list them.
    pub const ALL: [Policy; 11] = [
        Policy::RoundRobin,
        Policy::Random,
        Policy::PrefixAware,
        Policy::Kv,
        Policy::Sticky,
        Policy::LeastLoaded,
        Policy::P2c,
        Policy::Dynamo,
        Policy::Sglang,
        Policy::LlmD,
        Policy::Aibrix,
    ];

    /// The policies that restate a deployed router's own scoring.
    pub const DEPLOYED: [Policy; 4] =
        [Policy::Dynamo, Policy::Sglang, Policy::LlmD, Policy::Aibrix];

    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Kv => "kv",
            Policy::PrefixAware => "prefix_aware",
            Policy::RoundRobin => "round_robin",
            Policy::Random => "random",
            Policy::Sticky => "sticky",
            Policy::LeastLoaded => "least_loaded",
            Policy::P2c => "p2c",
            Policy::Dynamo => "dynamo",
            Policy::Sglang => "sglang",
            Policy::LlmD => "llm_d",
            Policy::Aibrix => "aibrix",
        }
    }

    /// Parses a policy name (one of `Policy::ALL`'s names).
    pub fn parse(text: &str) -> Result<Policy, ConfigError> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "routing",
                    text,
                    "one of round_robin, random, prefix_aware, kv, sticky, least_loaded, p2c, dynamo, sglang, llm_d, aibrix",
                )
            })
    }
}

impl ArrivalModel {
    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            ArrivalModel::Poisson => "poisson",
            ArrivalModel::Deterministic => "deterministic",
            ArrivalModel::Gamma => "gamma",
        }
    }

    /// Parses an arrival model name.
    pub fn parse(text: &str) -> Result<ArrivalModel, ConfigError> {
        match text {
            "poisson" => Ok(ArrivalModel::Poisson),
            "deterministic" => Ok(ArrivalModel::Deterministic),
            "gamma" => Ok(ArrivalModel::Gamma),
            _ => Err(ConfigError::new(
                "arrival_model",
                text,
                "one of poisson, deterministic, gamma",
            )),
        }
    }
}

/// Where SGLang's cache-aware router sends a request whose match rate is at or below the
/// cache threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SglangMiss {
    /// The current rule (sgl-model-gateway since PR #14650, December 2025): the replica
    /// with the fewest requests in flight.
    Load,
    /// The earlier rule (sgl-router before that PR): the replica with the smallest
    /// approximate tree, whatever its load.
    Tree,
}

impl SglangMiss {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SglangMiss::Load => "load",
            SglangMiss::Tree => "tree",
        }
    }

    /// Parses `load` or `tree`.
    pub fn parse(text: &str) -> Result<SglangMiss, ConfigError> {
        match text {
            "load" => Ok(SglangMiss::Load),
            "tree" => Ok(SglangMiss::Tree),
            _ => Err(ConfigError::new(
                "sglang_miss",
                text,
                "one of load (the current rule), tree (the pre-December-2025 rule)",
            )),
        }
    }
}

/// What the router knows of the fleet when it picks a replica.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RouterView {
    /// Live state: every replica's cache and load as they are at the instant of the pick.
    Exact,
    /// The seed simulator's own method: a routing pass with no timing, where each pick's
    /// blocks count as cached at once and there is no in-flight term.
    Offline,
    /// Load signals refreshed every `router_refresh_ms`; cache contents visible
    /// `kv_event_lag_ms` after the engine stores or evicts them.
    Snapshot,
}

impl RouterView {
    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            RouterView::Exact => "exact",
            RouterView::Offline => "offline",
            RouterView::Snapshot => "snapshot",
        }
    }

    /// Parses `exact`, `offline` or `snapshot`.
    pub fn parse(text: &str) -> Result<RouterView, ConfigError> {
        match text {
            "exact" => Ok(RouterView::Exact),
            "offline" => Ok(RouterView::Offline),
            "snapshot" => Ok(RouterView::Snapshot),
            _ => Err(ConfigError::new(
                "router_view",
                text,
                "one of exact, offline, snapshot",
            )),
        }
    }
}

/// Which synthetic workload to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Independent requests: a shared prefix from the pool plus a unique suffix.
    Pool,
    /// Multi-turn sessions (agents, chats): each turn extends the previous prompt, and
    /// the next turn is sent a think time after the previous answer (closed loop).
    Sessions,
}

impl WorkloadKind {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pool => "pool",
            WorkloadKind::Sessions => "sessions",
        }
    }

    /// Parses `pool` or `sessions`.
    pub fn parse(text: &str) -> Result<WorkloadKind, ConfigError> {
        match text {
            "pool" => Ok(WorkloadKind::Pool),
            "sessions" => Ok(WorkloadKind::Sessions),
            _ => Err(ConfigError::new("workload", text, "one of pool, sessions")),
        }
    }
}

/// How requests pick a prefix from the pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Popularity {
    /// Every prefix equally likely.
    Uniform,
    /// Prefix i (from 0) has weight 1/(i+1)^s, s > 0.
    Zipf(f64),
    /// Prefix 0 takes this share of all requests; the rest share the remainder evenly.
    Hot(f64),
}

impl Popularity {
    /// Parses `uniform`, `zipf:S` (S > 0) or `hot:SHARE` (0 <= SHARE <= 1).
    pub fn parse(text: &str) -> Result<Popularity, ConfigError> {
        let allowed = "uniform, zipf:S with S > 0 (e.g. zipf:1.1), or hot:SHARE with 0 <= SHARE <= 1 (e.g. hot:0.85)";
        let bad = || ConfigError::new("prefix_popularity", text, allowed);
        if text == "uniform" {
            return Ok(Popularity::Uniform);
        }
        let (kind, value) = text.split_once(':').ok_or_else(bad)?;
        let number = crate::decimal::finite_f64(value.trim()).ok_or_else(bad)?;
        match kind {
            "zipf" if number > 0.0 => Ok(Popularity::Zipf(number)),
            "hot" if (0.0..=1.0).contains(&number) => Ok(Popularity::Hot(number)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Popularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Popularity::Uniform => write!(f, "uniform"),
            Popularity::Zipf(s) => write!(f, "zipf:{s}"),
            Popularity::Hot(share) => write!(f, "hot:{share}"),
        }
    }
}

/// Largest llm-d scorer weight: three scores of at most 1 each, so a weighted sum stays
/// far from overflow (at 10^308 each it was infinite, and every replica tied).
pub const MAX_LLMD_WEIGHT: f64 = 1e6;

/// Parses llm-d's scorer weights `P,Q,K` (prefix, queue, kv-cache): three numbers from 0
/// to `MAX_LLMD_WEIGHT`, not all 0.
pub fn parse_llmd_weights(text: &str) -> Result<[f64; 3], ConfigError> {
    let bad = || {
        ConfigError::new(
            "llmd_weights",
            text,
            "three numbers from 0 to 1000000, not all 0, as P,Q,K (prefix, queue, kv-cache; \
             e.g. 3,2,2)",
        )
    };
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut w = [0.0; 3];
    for (slot, part) in w.iter_mut().zip(parts) {
        let x = crate::decimal::finite_f64(part.trim()).ok_or_else(bad)?;
        if !(0.0..=MAX_LLMD_WEIGHT).contains(&x) {
            return Err(bad());
        }
        *slot = x;
    }
    if w.iter().all(|&x| x == 0.0) {
        return Err(bad());
    }
    Ok(w)
}

/// A configuration error: which field, what value it had, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Field name in snake_case (the CLI flag is `--des-` plus it with dashes, mostly).
    pub field: String,
    /// The offending value, as text (cut to a readable length).
    pub value: String,
    /// What the field accepts.
    pub allowed: String,
    /// What is wrong with the value, when saying what is allowed does not show it: a
    /// schedule's point that is not TIME:RATE. Written in parentheses after the value.
    pub why: Option<String>,
}

impl ConfigError {
    /// Builds an error for `field` holding `value` (echoed cut to a readable length),
    /// which must be `allowed`.
    pub fn new(field: &str, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        ConfigError {
            field: field.to_string(),
            value: crate::echo::shown(&value.to_string()),
            allowed: allowed.into(),
            why: None,
        }
    }

    /// The same, saying what is wrong with `value` (`why`) before what is `allowed`.
    pub fn because(
        field: &str,
        value: impl fmt::Display,
        why: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Self {
        ConfigError {
            why: Some(why.into()),
            ..ConfigError::new(field, value, allowed)
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = self
            .why
            .as_ref()
            .map_or(String::new(), |w| format!(" ({w})"));
        write!(
            f,
            "invalid {}: got {}{why}; allowed: {}",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for ConfigError {}

/// One simulation run. Field names match the CLI flags (`--des-num-requests` is
/// `num_requests`) and the page's URL keys. Units are at the end of names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The one seed that drives every random stream.
    pub seed: u64,
    /// Offered request rate, requests per second.
    pub request_rate: f64,
    /// A rate that changes over time: `TIME:RATE` points from `0s` joined by `,` (a step)
    /// or `~` (a linear ramp), or `daily:PEAK:PERIOD[:TROUGH]`; per second, requests (pool)
    /// or tasks started (sessions). Empty: the constant `request_rate` (`session_rate`).
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub request_rate_schedule: String,
    /// Arrival process.
    pub arrival_model: ArrivalModel,
    /// Gamma shape for `gamma` arrivals (1.0 = Poisson, lower = burstier).
    pub burstiness: f64,
    /// Number of synthetic requests.
    pub num_requests: u32,
    /// Mean prompt length, tokens (prefix included).
    pub input_len: u32,
    /// Mean output length, tokens.
    pub output_len: u32,
    /// Lengths are drawn uniformly in [len x (1 - r), len x (1 + r)].
    pub range_ratio: f64,
    /// Number of distinct shared prefixes in the pool (0 = every prompt unique).
    pub num_prefixes: u32,
    /// Length of every shared prefix, tokens.
    pub prefix_len: u32,
    /// `uniform`, `zipf:S` or `hot:SHARE`.
    pub prefix_popularity: String,
    /// Number of engine replicas behind the router.
    pub instances: u32,
    /// A mixed fleet, `COUNT:PRESET` groups joined by commas (e.g.
    /// `4:llama3-8b-h100,2:llama3-8b-mi300x`): each replica takes its preset's timing and
    /// KV capacity (`kv_blocks`, when set, wins for every replica); `instances` is then the
    /// total and `engine` the first preset. Empty: every replica is `engine`.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub fleet: String,
    /// The price of one GPU-hour, US dollars, overriding the presets' assumed on-demand
    /// prices: `PRESET=USD` entries joined by commas (e.g. `llama3-8b-mi300x=2.10`), or one
    /// price for every preset. Empty: each preset's own. Every dollar figure uses it.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub gpu_hour_usd: String,
    /// Routing policy.
    pub routing: Policy,
    /// `kv` policy: weight of missed blocks against load (0 = pure load balance).
    pub overlap_weight: f64,
    /// Tokens per KV block (the unit of matching and eviction).
    pub block_size: u32,
    /// KV capacity per replica in blocks; `null` (unset) means unbounded.
    pub kv_blocks: Option<u64>,
    /// Concurrency slots: most requests running at once per replica.
    pub max_batch: u32,
    /// Prefill token budget per engine step (chunked prefill).
    pub max_batched_tokens: u32,
    /// Engine timing preset.
    pub engine: EnginePreset,
    /// Custom timing (used when `engine` is `custom`): fixed cost per step, microseconds.
    pub step_fixed_us: f64,
    /// Custom timing: cost per prefill token, microseconds.
    pub prefill_token_us: f64,
    /// Custom timing: cost per decoding sequence per step, microseconds.
    pub decode_seq_us: f64,
    /// Custom timing: cost per KV token read by decode attention, nanoseconds.
    pub kv_read_token_ns: f64,
    /// Custom timing: the prefill phase, c0 + c1·T + c2·T² ms in a step that computes
    /// T > 0 prompt tokens ([ms, ms/token, ms/token²]; all 0: none).
    #[serde(skip_serializing_if = "is_no_poly")]
    pub prefill_poly_ms: [f64; 3],
    /// Custom timing: the decode phase, d0 + d1·u + d2·u² ms in a step in which a
    /// sequence emits a token, u the KV utilisation ([ms, ms, ms]; all 0: none).
    #[serde(skip_serializing_if = "is_no_poly")]
    pub decode_poly_ms: [f64; 3],
    /// `pool` (independent requests) or `sessions` (multi-turn, closed loop).
    pub workload: WorkloadKind,
    /// Sessions: tasks started per second.
    pub session_rate: f64,
    /// Sessions: number of tasks.
    pub num_sessions: u32,
    /// Sessions: turns (agent steps) per task.
    pub turns: u32,
    /// Sessions: new tokens each turn adds to the prompt (the first turn's user text).
    pub turn_input_len: u32,
    /// Sessions: output tokens per turn.
    pub turn_output_len: u32,
    /// Sessions: think time between an answer and the next turn, ms.
    pub think_time_ms: f64,
    /// Sessions: shared system prompt (tool schemas included) every task opens with,
    /// tokens.
    pub system_prompt_len: u32,
    /// Share of requests (%) sent back to the replica that served the session or holds
    /// the prefix; `null` (unset) = the policy's default (100 for `sticky`, 0 otherwise).
    pub session_affinity: Option<f64>,
    /// Spill to the least busy replica when the sticky (or prefix home) replica has this
    /// many requests waiting; 0 never spills.
    pub spill_queue: u32,
    /// Requests allowed to wait for a free slot per replica; beyond it arrivals are
    /// rejected (0 rejects whenever every slot is busy); `null` (unset) = unbounded.
    pub queue_capacity: Option<u32>,
    /// Caller timeout: a request with no first token this long after arrival is dropped
    /// (from the queue, or aborted at the next step); `null` (unset) = wait forever. ms.
    pub timeout_ms: Option<f64>,
    /// What the router knows: `exact`, `offline` or `snapshot`.
    pub router_view: RouterView,
    /// `snapshot`: the load signals (waiting, running, active blocks, cache use) are
    /// refreshed every this many ms (0 = live). ms.
    pub router_refresh_ms: f64,
    /// `snapshot`: cache contents become visible to the router this long after the
    /// engine stores or evicts them (0 = at once). ms.
    pub kv_event_lag_ms: f64,
    /// Speculative entries: a routed request's blocks count as present on the chosen
    /// replica for this long, for the router that routed it (0 = off; no effect in
    /// `offline`, which caches every pick at once). ms.
    pub router_predict_ttl_ms: f64,
    /// Independent router replicas; arrivals are dealt to them in turn.
    pub routers: u32,
    /// CPU cores of each router: a request waits for a free core, takes
    /// `router_cpu_us_fixed + router_cpu_us_per_block` x the full prompt blocks its policy
    /// hashes of it (every block for the cache-aware policies, the leading one for
    /// `prefix_aware`, none for the load balancers), then is routed. Unset: a free,
    /// instant router.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub router_vcpu: Option<u32>,
    /// With `router_vcpu`: a router core's fixed CPU time per request, µs.
    #[serde(
        skip_serializing_if = "router_cpu::is_default_fixed_us",
        default = "router_cpu::default_fixed_us"
    )]
    pub router_cpu_us_fixed: f64,
    /// With `router_vcpu`: a router core's CPU time per full prompt block its policy
    /// hashes (hashing and prefix matching), µs.
    #[serde(
        skip_serializing_if = "router_cpu::is_default_per_block_us",
        default = "router_cpu::default_per_block_us"
    )]
    pub router_cpu_us_per_block: f64,
    /// With `router_vcpu`: requests allowed to wait for a core per router; beyond it they
    /// are rejected. Unset: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub router_queue: Option<u32>,
    /// Autoscaling: `off` (a fixed fleet of `instances`), `kpa` (Knative's autoscaler on
    /// requests in flight) or `slo` (a Dynamo-planner-style rule on TTFT and ITL);
    /// `instances` is then the starting size.
    #[serde(skip_serializing_if = "autoscale::is_off")]
    pub autoscale: Autoscale,
    /// Autoscaling: the fewest ready replicas (unset: 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub min_instances: Option<u32>,
    /// Autoscaling: the most replicas at once, starting and draining ones included
    /// (unset: 4 x `instances`, at most 256).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub max_instances: Option<u32>,
    /// Autoscaling: a new replica is ready this long after the scaler adds it (model
    /// load), s; unset: the engine preset's assumed delay.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub startup_s: Option<f64>,
    /// `kpa`: target requests in flight per replica.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_target")]
    pub kpa_target: f64,
    /// `kpa`: the stable window, s.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_stable_window_s")]
    pub kpa_stable_window_s: f64,
    /// `kpa`: the panic window, % of the stable window.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_panic_window_pct")]
    pub kpa_panic_window_pct: f64,
    /// `kpa`: panic when the panic window wants this % of the ready replicas or more.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_panic_threshold_pct")]
    pub kpa_panic_threshold_pct: f64,
    /// `kpa`: one decision asks for at most this many times the ready replicas.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_max_scale_up_rate")]
    pub kpa_max_scale_up_rate: f64,
    /// `kpa`: one decision asks for at least the ready replicas divided by this.
    #[serde(skip_serializing_if = "autoscale::is_default_kpa_max_scale_down_rate")]
    pub kpa_max_scale_down_rate: f64,
    /// The TTFT target, ms: the `slo` scaler's (unset: 500 ms) and, when set, what
    /// `series.slo_attained` counts on any run (`Config::slo_targets`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub slo_ttft_ms: Option<f64>,
    /// The inter-token latency target, ms: the `slo` scaler's (unset: 50 ms) and, when
    /// set, a request's TPOT in `series.slo_attained`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub slo_itl_ms: Option<f64>,
    /// `slo`: seconds between decisions.
    #[serde(skip_serializing_if = "autoscale::is_default_slo_interval_s")]
    pub slo_interval_s: f64,
    /// `slo`: scale down only when TTFT and ITL are both below this % of their targets.
    #[serde(skip_serializing_if = "autoscale::is_default_slo_scale_down_pct")]
    pub slo_scale_down_pct: f64,
    /// `dynamo`: softmax temperature over the costs (0 = lowest cost).
    pub dynamo_temperature: f64,
    /// `dynamo`: overlap credit, the blocks of prefill a cached block is worth (0 to 1).
    pub dynamo_overlap_credit: f64,
    /// `sglang`: where a request below the cache threshold goes.
    pub sglang_miss: SglangMiss,
    /// `llm_d`: the weights of the prefix, queue and kv-cache scorers, `P,Q,K`.
    pub llmd_weights: String,
    /// How every policy breaks an exact tie between its best replicas: `random` (each as
    /// its source does; seeded) or `lowest` (the lower index).
    #[serde(skip_serializing_if = "tie_break::is_default")]
    pub tie_break: TieBreak,
    /// How a replica admits into KV: `preempt` (the default; admit on the prompt, grow
    /// while decoding, preempt the most recently admitted request when a step finds no
    /// block; vLLM V1's rule) or `reserve` (prompt and output must fit at admission;
    /// TensorRT-LLM's default).
    #[serde(skip_serializing_if = "admission::is_default")]
    pub admission: Admission,
    /// Disaggregated fleet: prefill replicas (with `decode_instances`; `instances` is
    /// then their sum). Unset: colocated.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub prefill_instances: Option<u32>,
    /// Disaggregated fleet: decode replicas (with `prefill_instances`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub decode_instances: Option<u32>,
    /// Disaggregated: how a decode replica is picked.
    #[serde(skip_serializing_if = "disagg::is_default_routing")]
    pub decode_routing: DecodeRouting,
    /// Disaggregated: bandwidth of each decode replica's inbound KV link, GB/s.
    #[serde(
        skip_serializing_if = "disagg::is_default_gbps",
        default = "disagg::default_gbps"
    )]
    pub kv_transfer_gbps: f64,
    /// Disaggregated: fixed cost of one KV transfer, µs.
    #[serde(
        skip_serializing_if = "disagg::is_default_base_us",
        default = "disagg::default_base_us"
    )]
    pub kv_transfer_base_us: f64,
    /// KV bytes per token moved by a transfer; unset: the engine preset's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub kv_bytes_per_token: Option<u64>,
    /// Disaggregated: a request whose chosen prefill replica would compute fewer than
    /// this many uncached tokens prefills on its decode replica instead (0: always use
    /// the prefill pool).
    #[serde(skip_serializing_if = "disagg::is_zero")]
    pub disagg_min_uncached_tokens: u32,
    /// Each replica's CPU offload tier, blocks: HBM's evicted blocks are written to it
    /// and a prefix hit found there is loaded back over PCIe instead of prefilled.
    /// Unset or 0: no tier.
    #[serde(skip_serializing_if = "tier::no_tier")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub cpu_kv_blocks: Option<u64>,
    /// CPU tier: load bandwidth of each replica's PCIe link, GB/s.
    #[serde(
        skip_serializing_if = "tier::is_default_gbps",
        default = "tier::default_gbps"
    )]
    pub cpu_load_gbps: f64,
    /// CPU tier: fixed cost of one load, µs.
    #[serde(
        skip_serializing_if = "tier::is_default_base_us",
        default = "tier::default_base_us"
    )]
    pub cpu_load_base_us: f64,
    /// A KV tier shared by the fleet, blocks (a Mooncake store, an LMCache server): the
    /// blocks a replica evicts from its lowest own tier are written to it, and any replica
    /// loads a prefix hit found there over the network instead of prefilling it. Unset or
    /// 0: no shared tier.
    #[serde(skip_serializing_if = "tier::no_tier")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub shared_kv_blocks: Option<u64>,
    /// Shared tier: bandwidth of each replica's network link to it, GB/s.
    #[serde(
        skip_serializing_if = "tier::is_default_shared_gbps",
        default = "tier::default_shared_gbps"
    )]
    pub shared_gbps: f64,
    /// Shared tier: fixed cost of one load (network round trip and lookup), µs.
    #[serde(
        skip_serializing_if = "tier::is_default_shared_latency_us",
        default = "tier::default_shared_latency_us"
    )]
    pub shared_latency_us: f64,
    /// What a cache-aware router's overlap counts: `hbm` (HBM blocks only) or `all`
    /// (the HBM run continued into the replica's CPU tier and the shared tier).
    #[serde(skip_serializing_if = "router_tiers::is_default", default)]
    pub router_tiers: RouterTiers,
}

/// Whether a polynomial phase is absent (all coefficients 0), left out of the JSON.
fn is_no_poly(poly: &[f64; 3]) -> bool {
    *poly == crate::timing::NO_POLY
}

impl Default for Config {
    fn default() -> Self {
        let custom = EnginePreset::Llama3_8bH100.timing();
        Config {
            seed: 42,
            request_rate: 6.0,
            request_rate_schedule: String::new(),
            arrival_model: ArrivalModel::Poisson,
            burstiness: 1.0,
            num_requests: 200,
            input_len: 4096,
            output_len: 256,
            range_ratio: 0.0,
            num_prefixes: 8,
            prefix_len: 2048,
            prefix_popularity: "uniform".to_string(),
            instances: 4,
            fleet: String::new(),
            gpu_hour_usd: String::new(),
            routing: Policy::Kv,
            overlap_weight: 1.0,
            block_size: 512,
            kv_blocks: None,
            max_batch: 256,
            max_batched_tokens: 8192,
            engine: EnginePreset::Llama3_8bH100,
            step_fixed_us: custom.step_fixed_us,
            prefill_token_us: custom.prefill_token_us,
            decode_seq_us: custom.decode_seq_us,
            kv_read_token_ns: custom.kv_read_token_ns,
            prefill_poly_ms: custom.prefill_poly_ms,
            decode_poly_ms: custom.decode_poly_ms,
            workload: WorkloadKind::Pool,
            session_rate: 1.0,
            num_sessions: 100,
            turns: 20,
            turn_input_len: 512,
            turn_output_len: 256,
            think_time_ms: 1000.0,
            system_prompt_len: 2048,
            session_affinity: None,
            spill_queue: 0,
            queue_capacity: None,
            timeout_ms: None,
            router_view: RouterView::Exact,
            router_refresh_ms: 50.0,
            kv_event_lag_ms: 0.0,
            router_predict_ttl_ms: 0.0,
            routers: 1,
            router_vcpu: None,
            router_cpu_us_fixed: router_cpu::DEFAULT_FIXED_US,
            router_cpu_us_per_block: router_cpu::DEFAULT_PER_BLOCK_US,
            router_queue: None,
            autoscale: Autoscale::Off,
            min_instances: None,
            max_instances: None,
            startup_s: None,
            kpa_target: autoscale::DEFAULT_KPA_TARGET,
            kpa_stable_window_s: autoscale::DEFAULT_KPA_STABLE_WINDOW_S,
            kpa_panic_window_pct: autoscale::DEFAULT_KPA_PANIC_WINDOW_PCT,
            kpa_panic_threshold_pct: autoscale::DEFAULT_KPA_PANIC_THRESHOLD_PCT,
            kpa_max_scale_up_rate: autoscale::DEFAULT_KPA_MAX_SCALE_UP_RATE,
            kpa_max_scale_down_rate: autoscale::DEFAULT_KPA_MAX_SCALE_DOWN_RATE,
            slo_ttft_ms: None,
            slo_itl_ms: None,
            slo_interval_s: autoscale::DEFAULT_SLO_INTERVAL_S,
            slo_scale_down_pct: autoscale::DEFAULT_SLO_SCALE_DOWN_PCT,
            dynamo_temperature: 0.0,
            dynamo_overlap_credit: 1.0,
            sglang_miss: SglangMiss::Load,
            llmd_weights: "3,2,2".to_string(),
            tie_break: TieBreak::Random,
            admission: Admission::Preempt,
            prefill_instances: None,
            decode_instances: None,
            decode_routing: DecodeRouting::LeastKv,
            kv_transfer_gbps: DEFAULT_TRANSFER_GBPS,
            kv_transfer_base_us: DEFAULT_TRANSFER_BASE_US,
            kv_bytes_per_token: None,
            disagg_min_uncached_tokens: 0,
            cpu_kv_blocks: None,
            cpu_load_gbps: DEFAULT_CPU_LOAD_GBPS,
            cpu_load_base_us: DEFAULT_CPU_LOAD_BASE_US,
            shared_kv_blocks: None,
            shared_gbps: DEFAULT_SHARED_GBPS,
            shared_latency_us: DEFAULT_SHARED_LATENCY_US,
            router_tiers: RouterTiers::Hbm,
        }
    }
}
