//! Parameter table (default, limits, unit, help for every field; the page builds its
//! controls from it) and validation that names the field, the value and what is allowed.

use serde::Serialize;
use serde_json::Value;

use crate::timing::EnginePreset;

use crate::config::Config;

mod inert;
mod validate;

pub use inert::{inert, inert_on_replay, Inert};

pub use validate::{
    max_lengths, session_max_lengths, session_turn_lengths, timing_of, validate, validate_fleet,
    validate_replay,
};

/// Largest seed (2^53, so the page's JavaScript numbers hold it exactly).
pub const MAX_SEED: u64 = 1 << 53;

/// One tunable parameter, as the page and `--help` describe it.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSpec {
    /// Config key (snake_case); the CLI flag is listed in `flag`.
    pub name: &'static str,
    /// The command-line flag.
    pub flag: &'static str,
    /// Short label.
    pub label: &'static str,
    /// `int`, `float`, `choice`, `text`, `optional_int` or `optional_float`.
    pub kind: &'static str,
    /// Default value.
    pub default: Value,
    /// Smallest allowed value (numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Largest allowed value (numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Slider step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
    /// Whether a slider should move on a log scale.
    pub log: bool,
    /// Unit, shown after the readout.
    pub unit: &'static str,
    /// What it does.
    pub help: &'static str,
    /// Allowed values (choices) or examples (text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<&'static str>,
}

// `num` and `choice` are called once per row of the table: kept out of line, so each row
// is a call with constants rather than the whole struct built in place (wasm size).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn num(
    name: &'static str,
    flag: &'static str,
    label: &'static str,
    kind: &'static str,
    range: (f64, f64, f64),
    log: bool,
    unit: &'static str,
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        flag,
        label,
        kind,
        default: Value::Null,
        min: Some(range.0),
        max: Some(range.1),
        step: Some(range.2),
        log,
        unit,
        help,
        choices: Vec::new(),
    }
}

#[inline(never)]
fn choice(
    name: &'static str,
    flag: &'static str,
    label: &'static str,
    kind: &'static str,
    choices: &[&'static str],
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        flag,
        label,
        kind,
        default: Value::Null,
        min: None,
        max: None,
        step: None,
        log: false,
        unit: "",
        help,
        choices: choices.to_vec(),
    }
}

/// Every parameter, in the order the page shows them.
pub fn specs() -> Vec<ParamSpec> {
    let mut specs = table();
    // Each default is the default config's value of the key (`null` for an unset option).
    let cfg = Config::default();
    let d = crate::json::value_of(&cfg);
    for s in &mut specs {
        s.default = match d.get(s.name) {
            Some(v) => v.clone(),
            None => omitted_default(&cfg, s.name),
        };
    }
    specs
}

/// The default of a key the config's JSON leaves out at its default (the disaggregation
/// settings and the router's CPU times, so a config's JSON is unchanged by them; the
/// unset options are `null`).
fn omitted_default(cfg: &Config, name: &str) -> Value {
    match name {
        "decode_routing" => crate::json::value_of(&cfg.decode_routing),
        "admission" => crate::json::value_of(&cfg.admission),
        "kv_transfer_gbps" => Value::from(cfg.kv_transfer_gbps),
        "kv_transfer_base_us" => Value::from(cfg.kv_transfer_base_us),
        "cpu_load_gbps" => Value::from(cfg.cpu_load_gbps),
        "cpu_load_base_us" => Value::from(cfg.cpu_load_base_us),
        "shared_gbps" => Value::from(cfg.shared_gbps),
        "shared_latency_us" => Value::from(cfg.shared_latency_us),
        "router_tiers" => crate::json::value_of(&cfg.router_tiers),
        "disagg_min_uncached_tokens" => Value::from(cfg.disagg_min_uncached_tokens),
        "request_rate_schedule" => Value::from(cfg.request_rate_schedule.clone()),
        "fleet" => Value::from(cfg.fleet.clone()),
        "router_cpu_us_fixed" => Value::from(cfg.router_cpu_us_fixed),
        "router_cpu_us_per_block" => Value::from(cfg.router_cpu_us_per_block),
        "autoscale" => crate::json::value_of(&cfg.autoscale),
        "kpa_target" => Value::from(cfg.kpa_target),
        "kpa_stable_window_s" => Value::from(cfg.kpa_stable_window_s),
        "kpa_panic_window_pct" => Value::from(cfg.kpa_panic_window_pct),
        "kpa_panic_threshold_pct" => Value::from(cfg.kpa_panic_threshold_pct),
        "kpa_max_scale_up_rate" => Value::from(cfg.kpa_max_scale_up_rate),
        "kpa_max_scale_down_rate" => Value::from(cfg.kpa_max_scale_down_rate),
        "slo_interval_s" => Value::from(cfg.slo_interval_s),
        "slo_scale_down_pct" => Value::from(cfg.slo_scale_down_pct),
        _ => Value::Null,
    }
}

/// The parameter table, without the defaults.
fn table() -> Vec<ParamSpec> {
    vec![
        num("instances", "--des-instances", "Replicas", "int", (1.0, 256.0, 1.0), false, "replicas", "Engine replicas behind the router. More replicas spread load, but each one must warm its own cache."),
        choice("fleet", "--des-fleet", "Mixed fleet", "text", &["2:llama3-8b-h100,2:llama3-8b-mi300x", "4:llama3-8b-h100,2:llama3-8b-b200", "1:llama3-8b-h100,1:llama3-8b-mi300x"], "A fleet of different GPUs: COUNT:PRESET groups joined by commas, presets of one model. Each replica takes its preset's step times, KV capacity (a Cache per replica, when set, is every replica's) and its GPUs' price per hour (an assumed on-demand list price per GPU: $3.49 an H100 or MI300X, $4.59 an H200, $6.79 a B200); sets Replicas and Engine. Colocated, without autoscaling. Empty: every replica is Engine."),
        choice("routing", "--des-routing", "Routing policy", "choice", &["round_robin", "random", "prefix_aware", "kv", "sticky", "least_loaded", "p2c", "dynamo", "sglang", "llm_d", "aibrix"], "Simple: round_robin / random ignore locality; prefix_aware hashes the leading block to a home replica; kv is overlap weight x missed blocks + load; sticky sends a session back to its replica; least_loaded picks the fewest in flight; p2c the less busy of two drawn at random. Deployed routers, each restating its project's scoring: dynamo (NVIDIA Dynamo's KV cost), sglang (SGLang's cache-aware tree), llm_d (llm-d's weighted scorers), aibrix (AIBrix's prefix-cache router)."),
        num("overlap_weight", "--des-overlap-weight", "Overlap weight", "float", (0.0, 20.0, 0.1), false, "x", "kv only: weight of missed blocks against load. 0 is pure load balance; higher chases cache hits."),
        num("dynamo_temperature", "--des-dynamo-temperature", "Dynamo temperature", "float", (0.0, 100.0, 0.05), false, "x", "dynamo only: 0 takes the lowest cost; above 0 samples with p ∝ exp(-(cost - min) / ((max - min) x T)), seeded."),
        num("dynamo_overlap_credit", "--des-dynamo-overlap-credit", "Dynamo overlap credit", "float", (0.0, 1.0, 0.05), false, "x", "dynamo only: blocks of prefill one cached block takes off the cost (Dynamo's overlap_score_credit; 0 ignores the cache)."),
        choice("sglang_miss", "--des-sglang-miss", "SGLang on a miss", "choice", &["load", "tree"], "sglang only: where a request below the cache threshold goes. load: fewest in flight (the current rule). tree: the smallest approximate tree (the rule before December 2025, which piles misses onto one replica)."),
        choice("llmd_weights", "--des-llmd-weights", "llm-d weights", "text", &["3,2,2", "1,1,1", "1,0,0"], "llm_d only: weights P,Q,K of the precise-prefix, queue and kv-cache-utilisation scorers (each 0 to 1 per replica; the highest weighted sum wins)."),
        num("prefill_instances", "--des-prefill-instances", "Prefill replicas", "optional_int", (1.0, 255.0, 1.0), false, "replicas", "Disaggregated fleet (with decode replicas): replicas that only prefill. The router picks one with the routing policy, so prefix caches live here. Unset: colocated."),
        num("decode_instances", "--des-decode-instances", "Decode replicas", "optional_int", (1.0, 255.0, 1.0), false, "replicas", "Disaggregated fleet (with prefill replicas): replicas that receive a prefilled request's KV over their inbound link and decode it."),
        choice("decode_routing", "--des-decode-routing", "Decode routing", "choice", &["least_kv", "round_robin", "random"], "Disaggregated only: how the decode replica is picked once a prefill is done. least_kv: fewest KV blocks held or on their way; round_robin; random (seeded)."),
        num("kv_transfer_gbps", "--des-kv-transfer-gbps", "KV link bandwidth", "float", (0.001, 100_000.0, 1.0), true, "GB/s", "Disaggregated only: bandwidth of each decode replica's inbound link. Transfers into one replica are served first come, first served."),
        num("kv_transfer_base_us", "--des-kv-transfer-base-us", "KV transfer base", "float", (0.0, 1_000_000.0, 10.0), false, "µs", "Disaggregated only: fixed cost of one transfer (setup, handshake), added to bytes / bandwidth."),
        num("kv_bytes_per_token", "--des-kv-bytes-per-token", "KV bytes per token", "optional_int", (1.0, 100_000_000.0, 1.0), true, "B", "Disaggregated fleets and the CPU tier: KV bytes a transfer moves per token (layers x 2 x KV heads x head dim x dtype bytes). Unset: the engine preset's (131072 for Llama 3 8B in bf16); custom engines must set it."),
        num("disagg_min_uncached_tokens", "--des-disagg-min-uncached-tokens", "Disaggregate from", "int", (0.0, 1_000_000.0, 64.0), true, "tok", "Disaggregated only: a request whose chosen prefill replica would compute fewer uncached tokens than this prefills on its decode replica instead (no transfer). 0 always uses the prefill pool."),
        num("num_prefixes", "--des-num-prefixes", "Prefixes", "int", (0.0, 100_000.0, 1.0), true, "prefixes", "Distinct shared prefixes (system prompts) in the pool. 0 makes every prompt unique."),
        num("prefix_len", "--des-prefix-len", "Prefix length", "int", (0.0, 1_000_000.0, 64.0), true, "tok", "Tokens in each shared prefix (at most the shortest prompt)."),
        choice("prefix_popularity", "--des-prefix-popularity", "Prefix popularity", "text", &["uniform", "zipf:1.1", "hot:0.85"], "How requests pick a prefix: uniform, zipf:S (S > 0, skewed), or hot:SHARE (one prefix takes SHARE of all requests)."),
        num("kv_blocks", "--des-kv-blocks", "Cache per replica", "optional_int", (1.0, 100_000_000.0, 1.0), true, "blocks", "KV capacity per replica in blocks, shared by cached prefixes and running requests; unbounded when unset."),
        choice("admission", "--des-admission", "KV admission", "choice", &["preempt", "reserve"], "How a replica admits a request into KV. preempt (vLLM V1's rule): when its prompt fits; running requests grow a block at a time as they decode, and a step that finds no block preempts the most recently admitted one, which recomputes its prompt and output so far when it runs again. reserve (TensorRT-LLM's default): only when its prompt and whole output fit, so nothing is preempted."),
        num("cpu_kv_blocks", "--des-cpu-kv-blocks", "CPU tier per replica", "optional_int", (0.0, 100_000_000.0, 1.0), true, "blocks", "A CPU offload tier per replica: blocks evicted from HBM are written to it (least recently written dropped first when full), and a prefix hit found there is loaded back over PCIe instead of prefilled; the request computes nothing until its load ends. Unset or 0: none."),
        num("cpu_load_gbps", "--des-cpu-load-gbps", "CPU tier bandwidth", "float", (0.001, 100_000.0, 1.0), true, "GB/s", "CPU tier only: load bandwidth of each replica's PCIe link (63 GB/s: PCIe 5.0 x16 in one direction). Loads into one replica are served first come, first served."),
        num("cpu_load_base_us", "--des-cpu-load-base-us", "CPU load base", "float", (0.0, 1_000_000.0, 1.0), false, "µs", "CPU tier only: fixed cost of one load (one per request that finds blocks in the tier), added to bytes / bandwidth."),
        num("shared_kv_blocks", "--des-shared-kv-blocks", "Shared tier (fleet)", "optional_int", (0.0, 1_000_000_000.0, 1.0), true, "blocks", "A KV tier shared by the fleet (a Mooncake store, an LMCache server): the blocks a replica evicts from its lowest own tier (HBM, or its CPU tier) are written to it (least recently used dropped first when full), and any replica loads a prefix hit found there over its network link instead of prefilling it. Unset or 0: none."),
        num("shared_gbps", "--des-shared-gbps", "Shared tier bandwidth", "float", (0.001, 100_000.0, 1.0), true, "GB/s", "Shared tier only: bandwidth of each replica's network link to it (25 GB/s: one 200 Gbit/s RDMA NIC, an assumption). Loads into one replica are served first come, first served."),
        num("shared_latency_us", "--des-shared-latency-us", "Shared tier latency", "float", (0.0, 1_000_000.0, 1.0), false, "µs", "Shared tier only: fixed cost of one load (the store's lookup and the network round trip; 20 µs, an assumption), added to bytes / bandwidth."),
        choice("router_tiers", "--des-router-tiers", "Router sees tiers", "choice", &["hbm", "all"], "What a cache-aware router's overlap counts. hbm: the blocks in each replica's HBM (a block offloaded below is a miss to it). all: the HBM run continued into the replica's CPU tier, then the shared tier, the blocks it would load instead of prefilling (Dynamo's router counts lower tiers, weighted)."),
        num("block_size", "--des-block-size", "Block size", "int", (1.0, 65_536.0, 16.0), true, "tok", "Tokens per KV block: the unit of matching and eviction. Mooncake traces need 512."),
        num("request_rate", "--request-rate", "Request rate", "float", (0.01, 100_000.0, 0.1), true, "req/s", "Offered arrival rate."),
        choice("request_rate_schedule", "--request-rate-schedule", "Rate schedule", "text", &["0s:4,60s:16,120s:4", "0s:2~120s:20", "daily:16:600s"], "Rate over time, per second (tasks started, for sessions): TIME:RATE points from 0s joined by ',' (step) or '~' (ramp), the last held; or daily:PEAK:PERIOD[:TROUGH]. Empty: constant."),
        num("num_requests", "--des-num-requests", "Requests", "int", (1.0, 10_000_000.0, 1.0), true, "req", "Requests to simulate."),
        num("input_len", "--des-input-len", "Input length", "int", (1.0, 1_000_000.0, 1.0), true, "tok", "Mean prompt length, prefix included."),
        num("output_len", "--des-output-len", "Output length", "int", (1.0, 100_000.0, 1.0), true, "tok", "Mean tokens generated per request."),
        num("range_ratio", "--des-range-ratio", "Length spread", "float", (0.0, 0.99, 0.01), false, "x", "Lengths are drawn uniformly in mean x (1 - r) to mean x (1 + r)."),
        choice("arrival_model", "--arrival-model", "Arrival model", "choice", &["poisson", "deterministic", "gamma"], "poisson: random arrivals; deterministic: evenly spaced; gamma: shape = burstiness."),
        num("burstiness", "--des-burstiness", "Burstiness", "float", (0.01, 100.0, 0.01), true, "shape", "gamma only: the gamma shape. 1 is Poisson; below 1 arrivals come in bursts."),
        num("max_batch", "--des-max-batch", "Concurrency slots", "int", (1.0, 4096.0, 1.0), true, "req", "Most requests running at once on a replica; the rest wait."),
        num("max_batched_tokens", "--des-max-batched-tokens", "Prefill budget", "int", (1.0, 1_000_000.0, 1.0), true, "tok/step", "Prefill tokens per engine step (chunked prefill)."),
        choice("engine", "--des-engine", "Engine", "choice", &EnginePreset::ALL.iter().map(|p| p.name()).collect::<Vec<_>>(), "Step-time preset (model x GPU, from a roofline; dynamo-mocker: the polynomial timing and the scheduling of Dynamo's mocker), or custom coefficients."),
        num("step_fixed_us", "--des-step-fixed-us", "Fixed step cost", "float", (0.0, 1_000_000.0, 100.0), false, "µs", "custom engine: fixed cost of every step (weight streaming)."),
        num("prefill_token_us", "--des-prefill-token-us", "Prefill cost", "float", (0.0, 10_000.0, 1.0), false, "µs/tok", "custom engine: cost per prefill token."),
        num("decode_seq_us", "--des-decode-seq-us", "Decode cost", "float", (0.0, 100_000.0, 1.0), false, "µs/seq", "custom engine: marginal cost per decoding sequence per step."),
        num("kv_read_token_ns", "--des-kv-read-token-ns", "KV read cost", "float", (0.0, 100_000.0, 1.0), false, "ns/tok", "custom engine: cost per KV token read by decode attention."),
        choice("workload", "--des-workload", "Workload", "choice", &["pool", "sessions"], "pool: independent requests sharing prefixes from the pool. sessions: multi-turn tasks (agents, chats) whose prompts grow turn by turn; the next turn waits for the previous answer."),
        num("session_rate", "--des-session-rate", "Task rate", "float", (0.001, 1000.0, 0.1), true, "tasks/s", "sessions: tasks started per second."),
        num("num_sessions", "--des-num-sessions", "Tasks", "int", (1.0, 1_000_000.0, 1.0), true, "tasks", "sessions: number of tasks to simulate."),
        num("turns", "--des-turns", "Turns per task", "int", (1.0, 1000.0, 1.0), true, "turns", "sessions: steps of an agent task (turns of a chat)."),
        num("turn_input_len", "--des-turn-input-len", "New tokens per turn", "int", (1.0, 1_000_000.0, 1.0), true, "tok", "sessions: tokens each turn adds (tool results, user text) on top of the previous prompt and answer."),
        num("turn_output_len", "--des-turn-output-len", "Output per turn", "int", (1.0, 100_000.0, 1.0), true, "tok", "sessions: tokens generated per turn; they join the next turn's prompt."),
        num("think_time_ms", "--des-think-time-ms", "Think time", "float", (0.0, 3_600_000.0, 10.0), true, "ms", "sessions: pause between an answer and the next turn (tool execution, user typing)."),
        num("system_prompt_len", "--des-system-prompt-len", "System prompt", "int", (0.0, 1_000_000.0, 64.0), true, "tok", "sessions: shared system prompt (tool schemas included) that every task opens with."),
        num("session_affinity", "--des-session-affinity", "Session affinity", "optional_float", (0.0, 100.0, 1.0), false, "%", "Share of requests sent back to the replica that served the session (or holds the prefix). 0 is the policy alone (round robin for sticky); 100 is fully sticky. Unset: 100 for sticky, 0 otherwise."),
        num("spill_queue", "--des-spill-queue", "Spill at queue", "int", (0.0, 100_000.0, 1.0), false, "req", "When the sticky (or prefix home) replica has this many requests waiting, send the next one to the least busy replica. 0 never spills."),
        num("queue_capacity", "--des-queue-capacity", "Queue capacity", "optional_int", (0.0, 1_000_000.0, 1.0), true, "req", "Requests allowed to wait for a free slot on a replica; beyond it they are rejected. 0 rejects whenever every slot is busy. Unset: unbounded."),
        num("timeout_ms", "--des-timeout-ms", "Caller timeout", "optional_float", (1.0, 3_600_000.0, 100.0), true, "ms", "A request with no first token this long after it arrived is dropped. A timeout below p99 TTFT cuts off healthy calls. Unset: callers wait forever."),
        choice("router_view", "--des-router-view", "Router view", "choice", &["exact", "offline", "snapshot"], "What the router knows when it picks. exact: live state. offline: the seed simulator's pass before timing (each pick's blocks count as cached at once; no in-flight term). snapshot: load signals refreshed every refresh interval, cache contents seen after the event lag."),
        num("router_refresh_ms", "--des-router-refresh-ms", "Refresh interval", "float", (0.0, 600_000.0, 1.0), true, "ms", "snapshot only: the router's copy of each replica's waiting, running, active blocks and cache use is refreshed this often (llm-d's default is 50 ms). 0 is live."),
        num("kv_event_lag_ms", "--des-kv-event-lag-ms", "KV event lag", "float", (0.0, 600_000.0, 1.0), true, "ms", "snapshot only: a block the engine stores or evicts reaches the router's cache index this much later. 0 is at once."),
        num("router_predict_ttl_ms", "--des-router-predict-ttl-ms", "Predict on route", "float", (0.0, 3_600_000.0, 10.0), true, "ms", "Speculative entries: the router records a routed request's blocks as present on the chosen replica for this long, so siblings that arrive before the blocks are computed find them. 0 is off; no effect in offline."),
        num("routers", "--des-routers", "Routers", "int", (1.0, 64.0, 1.0), false, "routers", "Independent router replicas; arrivals are dealt to them in turn. Each keeps its own recent term, session table and speculative entries; all see the same snapshot."),
        num("router_vcpu", "--des-router-vcpu", "Router vCPU", "optional_int", (1.0, 1024.0, 1.0), true, "vCPU", "CPU cores of each router. A request waits for a free core, takes the router's CPU time (fixed + per prompt block), then is routed; that routing delay is part of TTFT. Needed cores are about calls per second x CPU ms per request / 1000; above about 90 % busy the delay climbs. Unset: a free, instant router."),
        num("router_cpu_us_fixed", "--des-router-cpu-us-fixed", "Router CPU fixed", "float", (0.0, 1_000_000.0, 1.0), true, "µs", "With router vCPU: a router core's CPU time per request, before its blocks (selecting a replica and booking it; Dynamo's routing path takes about 0.7 ms)."),
        num("router_cpu_us_per_block", "--des-router-cpu-us-per-block", "Router CPU per block", "float", (0.0, 10_000.0, 0.1), true, "µs", "With router vCPU: a router core's CPU time per full prompt block its policy hashes (hashing its tokens, matching the prefix index; kvfleet's own take 0.47 µs). Cache-aware policies hash every block, prefix_aware the leading one, the load balancers none."),
        num("router_queue", "--des-router-queue", "Router queue", "optional_int", (0.0, 1_000_000.0, 1.0), true, "req", "With router vCPU: requests allowed to wait for a core per router; beyond it they are rejected. 0 rejects whenever every core is busy. Unset: unbounded."),
        choice("autoscale", "--des-autoscale", "Autoscaler", "choice", &["off", "kpa", "slo"], "off: a fixed fleet of Replicas. kpa: Knative's autoscaler on requests in flight (stable and panic windows, every 2 s). slo: a Dynamo-planner-style rule, one replica up when the observed TTFT or ITL is over its target, one down when both are under 80 % of it. Replicas is then the starting size; a new replica is ready after the start-up delay with an empty cache; a removed one drains."),
        num("min_instances", "--des-min-instances", "Fewest replicas", "optional_int", (1.0, 256.0, 1.0), false, "replicas", "Autoscaling: the fewest ready replicas. Unset: 1."),
        num("max_instances", "--des-max-instances", "Most replicas", "optional_int", (1.0, 256.0, 1.0), false, "replicas", "Autoscaling: the most replicas at once, starting and draining ones included. Unset: 4 x the starting size (at most 256)."),
        num("startup_s", "--des-startup-s", "Start-up delay", "optional_float", (0.0, 3600.0, 1.0), true, "s", "Autoscaling: a new replica takes this long to load the model before it takes requests (and costs GPU time meanwhile). Unset: the preset's assumed delay, 30 s + weights / (2 GB/s per GPU)."),
        num("kpa_target", "--des-kpa-target", "KPA target", "float", (0.1, 100_000.0, 1.0), true, "req", "kpa: target requests in flight (waiting or running) per replica."),
        num("kpa_stable_window_s", "--des-kpa-stable-window-s", "KPA stable window", "float", (6.0, 3600.0, 1.0), true, "s", "kpa: the window the stable mode averages requests in flight over (Knative's default 60 s)."),
        num("kpa_panic_window_pct", "--des-kpa-panic-window-pct", "KPA panic window", "float", (1.0, 100.0, 1.0), false, "%", "kpa: the panic window, a share of the stable window (Knative's default 10 %)."),
        num("kpa_panic_threshold_pct", "--des-kpa-panic-threshold-pct", "KPA panic threshold", "float", (110.0, 1000.0, 10.0), false, "%", "kpa: panic (scale on the short window, never down) when it wants this share of the ready replicas or more (Knative's default 200 %)."),
        num("kpa_max_scale_up_rate", "--des-kpa-max-scale-up-rate", "KPA scale-up rate", "float", (1.0, 10_000.0, 1.0), true, "x", "kpa: one decision asks for at most this many times the ready replicas (Knative's default 1000)."),
        num("kpa_max_scale_down_rate", "--des-kpa-max-scale-down-rate", "KPA scale-down rate", "float", (1.0, 10_000.0, 1.0), true, "x", "kpa: one decision asks for at least the ready replicas divided by this (Knative's default 2)."),
        num("slo_ttft_ms", "--des-slo-ttft-ms", "SLO TTFT", "optional_float", (1.0, 3_600_000.0, 10.0), true, "ms", "The TTFT target: the Load over time card's SLO attained counts the requests within it, on any run, and the slo scaler scales on it. Unset: no target (the slo scaler uses Dynamo planner's default, 500 ms)."),
        num("slo_itl_ms", "--des-slo-itl-ms", "SLO ITL", "optional_float", (0.1, 100_000.0, 1.0), true, "ms", "The inter-token latency target: a request's TPOT must be within it to count as SLO attained, on any run, and the slo scaler scales on it. Unset: no target (the slo scaler uses Dynamo planner's default, 50 ms)."),
        num("slo_interval_s", "--des-slo-interval-s", "SLO interval", "float", (1.0, 3600.0, 1.0), true, "s", "slo: seconds between decisions (Dynamo planner's load adjustment interval, 5 s)."),
        num("slo_scale_down_pct", "--des-slo-scale-down-pct", "SLO scale-down", "float", (1.0, 100.0, 1.0), false, "%", "slo: scale down only when TTFT and ITL are both below this share of their targets (Dynamo planner's default 80 %)."),
        num("seed", "--seed", "Seed", "int", (0.0, MAX_SEED as f64, 1.0), false, "", "The one seed behind every random draw: same seed, same run."),
    ]
}

/// The spec of `name` without its default (`null`): its limits, step and unit, found
/// without serialising the default config (validation asks for it once per field).
pub(crate) fn limits_of(name: &str) -> ParamSpec {
    table()
        .into_iter()
        .find(|s| s.name == name)
        .expect("known parameter")
}

#[cfg(test)]
pub(crate) fn spec(name: &str) -> ParamSpec {
    specs()
        .into_iter()
        .find(|s| s.name == name)
        .expect("known parameter")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What validation reads of a field (limits, unit) is the published spec's, for
    /// every field; only the default is left out.
    #[test]
    fn the_limits_are_the_specs_without_the_default() {
        for full in specs() {
            let limits = limits_of(full.name);
            assert_eq!(limits.default, Value::Null);
            let without_default = ParamSpec {
                default: Value::Null,
                ..full
            };
            assert_eq!(
                serde_json::to_value(&limits).unwrap(),
                serde_json::to_value(&without_default).unwrap()
            );
        }
    }

    #[test]
    fn errors_name_field_value_and_range() {
        let bad = Config {
            instances: 0,
            ..Config::default()
        };
        let e = validate(&bad).unwrap_err().to_string();
        assert_eq!(e, "invalid instances: got 0; allowed: 1 to 256 replicas");
        let nan = Config {
            request_rate: f64::NAN,
            ..Config::default()
        };
        assert!(validate(&nan)
            .unwrap_err()
            .to_string()
            .contains("request_rate: got NaN"));
        let long = Config {
            prefix_len: 5000,
            ..Config::default()
        };
        assert!(validate(&long)
            .unwrap_err()
            .to_string()
            .contains("shortest prompt, 4096"));
        let small = Config {
            kv_blocks: Some(8),
            ..Config::default()
        };
        assert!(validate(&small)
            .unwrap_err()
            .to_string()
            .contains("at least 9 blocks"));
        let zipf = Config {
            prefix_popularity: "zipf:0".into(),
            ..Config::default()
        };
        assert_eq!(validate(&zipf).unwrap_err().field, "prefix_popularity");
    }

    /// Every parameter is a config key, so its default is the config's (a name that is no
    /// key would read as `null`), and the typed defaults are the config's own values.
    #[test]
    fn every_parameter_is_a_config_key_with_the_configs_default() {
        let d = Config::default();
        let keys = serde_json::to_value(&d).unwrap();
        // Left out of the config's JSON at their defaults (the disaggregation settings and
        // the admission rule).
        let omitted = [
            "admission",
            "prefill_instances",
            "decode_instances",
            "kv_bytes_per_token",
            "decode_routing",
            "kv_transfer_gbps",
            "kv_transfer_base_us",
            "disagg_min_uncached_tokens",
            "request_rate_schedule",
            "fleet",
            "cpu_kv_blocks",
            "cpu_load_gbps",
            "cpu_load_base_us",
            "shared_kv_blocks",
            "shared_gbps",
            "shared_latency_us",
            "router_tiers",
            "router_vcpu",
            "router_cpu_us_fixed",
            "router_cpu_us_per_block",
            "router_queue",
            "autoscale",
            "min_instances",
            "max_instances",
            "startup_s",
            "kpa_target",
            "kpa_stable_window_s",
            "kpa_panic_window_pct",
            "kpa_panic_threshold_pct",
            "kpa_max_scale_up_rate",
            "kpa_max_scale_down_rate",
            "slo_ttft_ms",
            "slo_itl_ms",
            "slo_interval_s",
            "slo_scale_down_pct",
        ];
        for s in specs() {
            let key = keys.get(s.name).is_some() || omitted.contains(&s.name);
            assert!(key, "{} is no config key", s.name);
        }
        let of = |name: &str| spec(name).default;
        assert_eq!(of("decode_routing"), Value::from("least_kv"));
        assert_eq!(of("admission"), Value::from("preempt"));
        assert_eq!(of("autoscale"), Value::from("off"));
        assert_eq!(of("kpa_stable_window_s"), Value::from(60.0));
        assert_eq!(of("kv_transfer_gbps"), Value::from(d.kv_transfer_gbps));
        assert_eq!(
            of("kv_transfer_base_us"),
            Value::from(d.kv_transfer_base_us)
        );
        assert!(of("disagg_min_uncached_tokens").is_u64());
        assert_eq!(of("prefill_instances"), Value::Null);
        assert_eq!(of("kv_bytes_per_token"), Value::Null);
        assert_eq!(of("cpu_kv_blocks"), Value::Null);
        assert_eq!(of("cpu_load_gbps"), Value::from(63.0));
        assert_eq!(of("cpu_load_base_us"), Value::from(10.0));
        assert_eq!(of("instances"), Value::from(d.instances));
        assert_eq!(of("request_rate"), Value::from(d.request_rate));
        assert_eq!(
            of("prefix_popularity"),
            Value::from(d.prefix_popularity.clone())
        );
        assert_eq!(of("routing"), Value::from("kv"));
        assert_eq!(of("kv_blocks"), Value::Null);
        assert_eq!(of("timeout_ms"), Value::Null);
        assert_eq!(of("router_vcpu"), Value::Null);
        assert_eq!(of("router_queue"), Value::Null);
        assert_eq!(
            of("router_cpu_us_per_block"),
            Value::from(d.router_cpu_us_per_block)
        );
        assert!(of("think_time_ms").is_f64() && of("seed").is_u64());
    }

    #[test]
    fn defaults_are_valid_and_inside_their_ranges() {
        validate(&Config::default()).unwrap();
        for s in specs() {
            if let (Some(min), Some(max), Some(d)) = (s.min, s.max, s.default.as_f64()) {
                assert!(d >= min && d <= max, "{}", s.name);
            }
        }
    }
}
