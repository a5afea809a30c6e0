//! Command-line flags (clap), named as in the seed's simulator, and their mapping to a
//! `Config`. Every flag documents its unit and default.

use clap::{Args, Parser, Subcommand};
use kvfleet::timing::EnginePreset;
use kvfleet::{
    Admission, ArrivalModel, Autoscale, Config, DecodeRouting, Policy, RouterTiers, RouterView,
    SglangMiss, TieBreak, WorkloadKind,
};

/// kvfleet: a discrete-event simulator of an LLM-serving fleet's prefix (KV block) cache
/// and its router. Hit rate, balance and latency emerge from content, capacity and routing.
#[derive(Parser, Debug)]
#[command(
    name = "kvfleet",
    version,
    allow_negative_numbers = true,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Subcommands besides the default (simulate).
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Summarise a Mooncake JSONL trace: lengths, blocks, the hit-rate ceiling of one
    /// infinite cache, distinct first blocks and hazards for routing policies.
    Analyze {
        /// The trace file (Mooncake JSONL with hash_ids).
        file: String,
        /// Tokens per block of the trace's hash_ids.
        #[arg(long = "des-block-size", default_value_t = 512)]
        block_size: u32,
    },
    /// Fit the engine's step-time coefficients to a log of measured engine steps (CSV
    /// with the header prefill_tokens,decode_seqs,kv_tokens_read,step_us, or JSONL with
    /// those keys): prints each coefficient with its standard error, R² and what the log
    /// cannot identify (exit 2 on a bad log). With --requests, fit by simulation from
    /// per-request TTFT and TPOT instead. With --generate or --generate-requests, write a
    /// step or request log instead.
    Calibrate(CalibrateCmd),
    /// Plan capacity: per routing policy, the fewest replicas (GPUs, dollars) that meet
    /// the --slo-* targets on the workload the run flags describe, and its goodput.
    Plan(Box<PlanCmd>),
    /// The lessons: with no ID, list them; with an ID, run its broken setup and print the
    /// goal checks (exit 0 when met, 1 when not, 2 when not judged or on an error); with
    /// --check FLAGS..., run the setup with those run flags changed (e.g. `kvfleet lesson hot-prefix --check --des-spill-queue 2`).
    Lesson {
        /// The lesson (see `kvfleet lesson`).
        id: Option<String>,
        /// Run flags to change, everything after --check.
        #[arg(long, value_name = "FLAGS", num_args = 1.., allow_hyphen_values = true, requires = "id")]
        check: Vec<String>,
        /// Print the lesson's interview questions and short check instead (numbers measured
        /// by runs, answers verified by runs), as text, or as JSON with --material-json.
        #[arg(long, requires = "id", conflicts_with = "check")]
        material: bool,
        /// With --material: print JSON.
        #[arg(long = "material-json", requires = "material")]
        material_json: bool,
    },
    /// Measure speed: the seed example, synthetic runs of 1e4 to 1e6 requests on 16 and
    /// 64 replicas, and the Mooncake conversation trace; prints a markdown table (or, with
    /// --ratios, only the scaling ratios from interleaved runs).
    Bench {
        /// Small sizes, one run each (for CI: checks the benches run, not their speed).
        #[arg(long)]
        quick: bool,
        /// Also run 1e7 synthetic requests on 64 replicas (tens of seconds; prints the
        /// 1e7 / 1e6 time ratio).
        #[arg(long)]
        large: bool,
        /// Instead of the table, only the scaling ratios, from interleaved runs: 64 against
        /// 16 replicas at 1e6 requests (pairs in alternating order) and, with --large, each
        /// 1e7 run against the 1e6 runs before and after it; wall and CPU time, each pair's
        /// ratio, the median and its spread.
        #[arg(long)]
        ratios: bool,
        /// With --ratios: how many pairs of each ratio (1 to 100).
        #[arg(long, requires = "ratios", default_value_t = 5,
              value_parser = clap::value_parser!(u16).range(1..=100))]
        pairs: u16,
        /// With --ratios --large: how many 1e6 runs on each side of a 1e7 run (1 to 20); the
        /// 1e7 run is divided by their mean. More runs average out a machine whose speed
        /// wanders from one run to the next.
        #[arg(long, requires = "ratios", requires = "large", default_value_t = 1,
              value_parser = clap::value_parser!(u16).range(1..=20))]
        around: u16,
        /// Instead of the table, the page's first-screen sweep over the conversation trace
        /// (1 to 256 replicas, three policies, 60 runs on one thread), N timed rounds.
        #[arg(long, value_name = "ROUNDS", conflicts_with = "ratios",
              value_parser = clap::value_parser!(u16).range(1..=100))]
        hero: Option<u16>,
        /// With --hero: also write the median round's figures to FILE as JSON (its CPU ms in
        /// all and by part, the counts from 96 up, the points at 256 and at 4 replicas).
        #[arg(long, value_name = "FILE", requires = "hero")]
        json: Option<std::path::PathBuf>,
        /// Run only scenario N in this process (used internally, one child per scenario).
        #[arg(long, hide = true)]
        scenario: Option<usize>,
    },
}

// The parsers' messages do not repeat the value: clap's error already quotes it.

fn whole(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

/// `--seed`: a whole number, or `random` (drawn from the operating system's source, below
/// 2^53 so that the page can take it too). The range itself is checked with the config.
fn seed(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("random") {
        return getrandom::u64()
            .map(|bits| bits % kvfleet::params::MAX_SEED)
            .map_err(|e| format!("could not draw a random seed from the system: {e}"));
    }
    text.parse::<u64>().map_err(|_| {
        format!(
            "expected a whole number from 0 to {} (2^53), or `random` (a seed drawn from the \
             system and printed in the report)",
            kvfleet::params::MAX_SEED
        )
    })
}

fn whole32(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u32::MAX))
}

/// `--des-router-queue` and `--des-queue-capacity`: a number of requests, or `unbounded`
/// (`None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLimit(pub Option<u32>);

fn queue_limit(text: &str) -> Result<QueueLimit, String> {
    match text.trim() {
        "unbounded" => Ok(QueueLimit(None)),
        t => t.parse::<u32>().map(|n| QueueLimit(Some(n))).map_err(|_| {
            format!(
                "expected a whole number of requests from 0 to {}, or unbounded",
                u32::MAX
            )
        }),
    }
}

/// `--des-kv-blocks`: a number of blocks, or `auto` (derived from the engine preset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvBlocks {
    /// What the preset's hardware holds (`EnginePreset::kv_blocks`).
    Auto,
    /// This many blocks.
    Blocks(u64),
    /// No limit (the default; given explicitly, it clears a lesson's limit).
    Unbounded,
}

fn kv_blocks(text: &str) -> Result<KvBlocks, String> {
    match text.trim() {
        "auto" => return Ok(KvBlocks::Auto),
        "unbounded" => return Ok(KvBlocks::Unbounded),
        _ => {}
    }
    text.trim().parse::<u64>().map(KvBlocks::Blocks).map_err(|_| {
        format!(
            "expected a whole number of blocks from 0 to {}, auto (derived from the engine preset's HBM) or unbounded",
            u64::MAX
        )
    })
}

fn number(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| "expected a number".to_string())
}

fn poly(text: &str) -> Result<[f64; 3], String> {
    kvfleet::timing::parse_poly(text)
}

fn routing(text: &str) -> Result<Policy, String> {
    Policy::parse(text).map_err(|e| e.allowed)
}

fn arrival(text: &str) -> Result<ArrivalModel, String> {
    ArrivalModel::parse(text).map_err(|e| e.allowed)
}

fn router_view(text: &str) -> Result<RouterView, String> {
    RouterView::parse(text).map_err(|e| e.allowed)
}

fn decode_routing(text: &str) -> Result<DecodeRouting, String> {
    DecodeRouting::parse(text).map_err(|e| e.allowed)
}

fn sglang_miss(text: &str) -> Result<SglangMiss, String> {
    SglangMiss::parse(text).map_err(|e| e.allowed)
}

fn admission(text: &str) -> Result<Admission, String> {
    Admission::parse(text).map_err(|e| e.allowed)
}

fn router_tiers(text: &str) -> Result<RouterTiers, String> {
    RouterTiers::parse(text).map_err(|e| e.allowed)
}

fn autoscale(text: &str) -> Result<Autoscale, String> {
    Autoscale::parse(text).map_err(|e| e.allowed)
}

fn tie_break(text: &str) -> Result<TieBreak, String> {
    TieBreak::parse(text).map_err(|e| e.allowed)
}

fn workload(text: &str) -> Result<WorkloadKind, String> {
    WorkloadKind::parse(text).map_err(|e| e.allowed)
}

fn engine(text: &str) -> Result<EnginePreset, String> {
    EnginePreset::parse(text).ok_or_else(|| format!("one of {}", EnginePreset::names()))
}

/// Flags of a simulation run.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Offered request rate, requests per second.
    #[arg(long, value_name = "REQ_PER_S", default_value = "6", value_parser = number)]
    pub request_rate: f64,
    /// A rate that changes over time (replaces --request-rate; for sessions, tasks started
    /// per second): TIME:RATE points from 0s joined by ',' (a step) or '~' (a linear ramp),
    /// the last rate held, e.g. "0s:4,120s:16,300s:4" or "0s:2~60s:20"; or
    /// daily:PEAK:PERIOD[:TROUGH], a day compressed into PERIOD, e.g. daily:16:600s.
    #[arg(long, value_name = "SCHEDULE", default_value = "")]
    pub request_rate_schedule: String,
    /// Arrival model: poisson, deterministic, or gamma (shape = --des-burstiness).
    #[arg(long, value_name = "MODEL", default_value = "poisson", value_parser = arrival)]
    pub arrival_model: ArrivalModel,
    /// Gamma shape for --arrival-model gamma: 1.0 is Poisson, below 1 is burstier.
    #[arg(long = "des-burstiness", value_name = "SHAPE", default_value = "1.0", value_parser = number)]
    pub burstiness: f64,
    /// Number of synthetic requests.
    #[arg(long = "des-num-requests", value_name = "N", default_value = "200", value_parser = whole32)]
    pub num_requests: u32,
    /// Mean prompt length in tokens (shared prefix included).
    #[arg(long = "des-input-len", value_name = "TOKENS", default_value = "4096", value_parser = whole32)]
    pub input_len: u32,
    /// Mean output length in tokens.
    #[arg(long = "des-output-len", value_name = "TOKENS", default_value = "256", value_parser = whole32)]
    pub output_len: u32,
    /// Length spread r: lengths are uniform in mean x (1 - r) .. mean x (1 + r), 0 <= r < 1.
    #[arg(long = "des-range-ratio", value_name = "R", default_value = "0", value_parser = number)]
    pub range_ratio: f64,
    /// Distinct shared prefixes in the pool (0 = every prompt unique).
    #[arg(long = "des-num-prefixes", value_name = "N", default_value = "8", value_parser = whole32)]
    pub num_prefixes: u32,
    /// Length of each shared prefix in tokens.
    #[arg(long = "des-prefix-len", value_name = "TOKENS", default_value = "2048", value_parser = whole32)]
    pub prefix_len: u32,
    /// Prefix popularity: uniform, zipf:S (S > 0), or hot:SHARE (one prefix takes SHARE, 0..1).
    #[arg(
        long = "des-prefix-popularity",
        value_name = "DIST",
        default_value = "uniform"
    )]
    pub prefix_popularity: String,
    /// Number of engine replicas behind the router [default: 4; with --des-prefill-instances
    /// and --des-decode-instances, their sum].
    #[arg(long = "des-instances", value_name = "N", value_parser = whole32)]
    pub instances: Option<u32>,
    /// A mixed fleet: COUNT:PRESET groups joined by commas (e.g.
    /// 4:llama3-8b-h100,2:llama3-8b-mi300x), presets with hardware serving one model. Each
    /// replica takes its preset's timing and KV capacity (--des-kv-blocks N, when given,
    /// sets every replica's); replaces --des-instances and --des-engine. Colocated and
    /// without autoscaling.
    #[arg(long = "des-fleet", value_name = "GROUPS")]
    pub fleet: Option<String>,
    /// The price of one GPU-hour in US dollars, overriding each preset's assumed on-demand
    /// price: PRESET=USD entries joined by commas (e.g. llama3-8b-mi300x=2.10), or one USD
    /// for every preset. Every dollar figure (mixed fleet, autoscaler, planner) uses it.
    #[arg(long = "des-gpu-hour-usd", value_name = "PRICES")]
    pub gpu_prices: Option<String>,
    /// Routing policy: round_robin, random, prefix_aware, kv, sticky, least_loaded, p2c,
    /// dynamo, sglang, llm_d or aibrix.
    #[arg(long = "des-routing", value_name = "POLICY", default_value = "kv", value_parser = routing)]
    pub routing: Policy,
    /// kv policy: weight of missed blocks against load (0 = pure load balance).
    #[arg(long = "des-overlap-weight", value_name = "W", default_value = "1.0", value_parser = number)]
    pub overlap_weight: f64,
    /// Tokens per KV cache block (the unit of matching and eviction).
    #[arg(long = "des-block-size", value_name = "TOKENS", default_value = "512", value_parser = whole32)]
    pub block_size: u32,
    /// KV capacity per replica in blocks (cached prefixes and running requests share it),
    /// `auto`: what the engine preset's HBM holds after weights and a 10 % reserve, or
    /// `unbounded` (clears a lesson's limit) [default: unbounded].
    #[arg(long = "des-kv-blocks", value_name = "BLOCKS|auto|unbounded", value_parser = kv_blocks)]
    pub kv_blocks: Option<KvBlocks>,
    /// Concurrency slots: most requests running at once per replica.
    #[arg(long = "des-max-batch", value_name = "REQS", default_value = "256", value_parser = whole32)]
    pub max_batch: u32,
    /// Prefill token budget per engine step (chunked prefill), tokens.
    #[arg(long = "des-max-batched-tokens", value_name = "TOKENS", default_value = "8192", value_parser = whole32)]
    pub max_batched_tokens: u32,
    /// Engine timing preset (model x GPUs, from a roofline): llama3-8b-h100,
    /// llama3-70b-4xh100, llama3-8b-h200, llama3-8b-mi300x, llama3-8b-b200,
    /// llama3-70b-2xh200, llama3-70b-mi300x, llama3-70b-2xb200, mixtral-8x7b-h200,
    /// mixtral-8x7b-mi300x, dynamo-mocker (Dynamo's mocker: its polynomial timing, and its
    /// admission inside the step's token budget), or
    /// custom (then the --des-step-fixed-us .. --des-kv-read-token-ns flags and the two
    /// polynomial phases apply).
    #[arg(long = "des-engine", value_name = "PRESET", default_value = "llama3-8b-h100", value_parser = engine)]
    pub engine: EnginePreset,
    /// The engine a calibration fitted (`kvfleet calibrate --calibrate-json FILE`): runs
    /// it as the custom engine with the file's coefficients, in place of --des-engine and
    /// the custom engine's flags.
    #[arg(long = "des-engine-file", value_name = "FILE", conflicts_with_all = ["engine", "step_fixed_us", "prefill_token_us", "decode_seq_us", "kv_read_token_ns", "prefill_poly_ms", "decode_poly_ms"])]
    pub engine_file: Option<String>,
    /// Custom engine: fixed cost of every step, microseconds.
    #[arg(long = "des-step-fixed-us", value_name = "US", default_value = "6000", value_parser = number)]
    pub step_fixed_us: f64,
    /// Custom engine: cost per prefill token, microseconds.
    #[arg(long = "des-prefill-token-us", value_name = "US", default_value = "32", value_parser = number)]
    pub prefill_token_us: f64,
    /// Custom engine: marginal cost per decoding sequence per step, microseconds.
    #[arg(long = "des-decode-seq-us", value_name = "US", default_value = "20", value_parser = number)]
    pub decode_seq_us: f64,
    /// Custom engine: cost per KV token read by decode attention, nanoseconds.
    #[arg(long = "des-kv-read-token-ns", value_name = "NS", default_value = "49", value_parser = number)]
    pub kv_read_token_ns: f64,
    /// Custom engine: the prefill phase of a step that computes T > 0 prompt tokens,
    /// C0 + C1·T + C2·T² milliseconds (C0 ms, C1 ms per token, C2 ms per token²);
    /// dynamo-mocker's is 16.50142,1.518344e-2,4.209989e-7.
    #[arg(long = "des-prefill-poly-ms", value_name = "C0,C1,C2", default_value = "0,0,0", value_parser = poly, allow_hyphen_values = true)]
    pub prefill_poly_ms: [f64; 3],
    /// Custom engine: the decode phase of a step in which a sequence emits a token,
    /// D0 + D1·u + D2·u² milliseconds, u the KV utilisation (decoding sequences' context
    /// over the KV capacity, at most 1; 0 when unbounded); dynamo-mocker's is
    /// 5.74,54.01,-25.74.
    #[arg(long = "des-decode-poly-ms", value_name = "D0,D1,D2", default_value = "0,0,0", value_parser = poly, allow_hyphen_values = true)]
    pub decode_poly_ms: [f64; 3],
    /// The one seed behind every random draw (0 .. 2^53), or `random`: a seed drawn from
    /// the system, printed in the report so that `--seed N` repeats the run.
    #[arg(long, value_name = "SEED", default_value = "42", value_parser = seed)]
    pub seed: u64,
    /// Run K seeds (--seed, --seed + 1, ..., --seed + K - 1, 1 to 16) and report every
    /// summary figure over them: mean ± half-width of the 95% interval (Student t on the
    /// K values), min and max. The rest of the report is --seed's run. A trace replay's
    /// seeds vary only the router's random draws.
    #[arg(id = "des_seeds", long = "des-seeds", value_name = "K", default_value = "1", value_parser = whole32)]
    pub des_seeds: u32,
    /// Synthetic workload: pool (independent requests with a shared prefix from the pool)
    /// or sessions (multi-turn tasks, closed loop).
    #[arg(long = "des-workload", value_name = "KIND", default_value = "pool", value_parser = workload)]
    pub workload: WorkloadKind,
    /// Sessions: tasks started per second.
    #[arg(long = "des-session-rate", value_name = "TASKS_PER_S", default_value = "1", value_parser = number)]
    pub session_rate: f64,
    /// Sessions: number of tasks.
    #[arg(long = "des-num-sessions", value_name = "N", default_value = "100", value_parser = whole32)]
    pub num_sessions: u32,
    /// Sessions: turns (agent steps) per task.
    #[arg(long = "des-turns", value_name = "N", default_value = "20", value_parser = whole32)]
    pub turns: u32,
    /// Sessions: new tokens each turn adds to the prompt, tokens.
    #[arg(long = "des-turn-input-len", value_name = "TOKENS", default_value = "512", value_parser = whole32)]
    pub turn_input_len: u32,
    /// Sessions: output tokens per turn.
    #[arg(long = "des-turn-output-len", value_name = "TOKENS", default_value = "256", value_parser = whole32)]
    pub turn_output_len: u32,
    /// Sessions: think time between an answer and the next turn, milliseconds.
    #[arg(long = "des-think-time-ms", value_name = "MS", default_value = "1000", value_parser = number)]
    pub think_time_ms: f64,
    /// Sessions: shared system prompt every task opens with (tool schemas included), tokens.
    #[arg(long = "des-system-prompt-len", value_name = "TOKENS", default_value = "2048", value_parser = whole32)]
    pub system_prompt_len: u32,
    /// Session affinity, percent (0-100): share of requests sent back to the replica that
    /// served the session (or holds the prefix); the rest follow the policy (round robin
    /// for sticky) [default: 100 for sticky, 0 otherwise].
    #[arg(long = "des-session-affinity", value_name = "PERCENT", value_parser = number)]
    pub session_affinity: Option<f64>,
    /// Spill to the least busy replica when the sticky (or prefix_aware home) replica has
    /// this many requests waiting; 0 never spills.
    #[arg(long = "des-spill-queue", value_name = "REQS", default_value = "0", value_parser = whole32)]
    pub spill_queue: u32,
    /// Requests allowed to wait for a free slot per replica; beyond it arrivals are
    /// rejected (0 rejects whenever every slot is busy); `unbounded` clears a lesson's
    /// [default: unbounded].
    #[arg(long = "des-queue-capacity", value_name = "REQS|unbounded", value_parser = queue_limit)]
    pub queue_capacity: Option<QueueLimit>,
    /// Caller timeout: a request with no first token this long after arrival is dropped,
    /// milliseconds [default: none].
    #[arg(long = "des-timeout-ms", value_name = "MS", value_parser = number)]
    pub timeout_ms: Option<f64>,
    /// What the router knows: exact (live state), offline (the seed simulator's pass
    /// before timing: each pick's blocks cached at once, no in-flight term) or snapshot
    /// (load signals refreshed every --des-router-refresh-ms, cache contents seen
    /// --des-kv-event-lag-ms after the engine stores or evicts them).
    #[arg(long = "des-router-view", value_name = "VIEW", default_value = "exact", value_parser = router_view)]
    pub router_view: RouterView,
    /// snapshot: refresh interval of the router's load signals (waiting, running, active
    /// blocks, cache use), milliseconds; 0 is live.
    #[arg(long = "des-router-refresh-ms", value_name = "MS", default_value = "50", value_parser = number)]
    pub router_refresh_ms: f64,
    /// snapshot: delay before a block the engine stores or evicts reaches the router's
    /// cache index, milliseconds; 0 is at once.
    #[arg(long = "des-kv-event-lag-ms", value_name = "MS", default_value = "0", value_parser = number)]
    pub kv_event_lag_ms: f64,
    /// Speculative entries: a routed request's blocks count as present on the chosen
    /// replica for this long, for the router that routed it, milliseconds; 0 is off.
    #[arg(long = "des-router-predict-ttl-ms", value_name = "MS", default_value = "0", value_parser = number)]
    pub router_predict_ttl_ms: f64,
    /// Independent router replicas (1-64); arrivals are dealt to them in turn, each keeps
    /// its own recent term, session table and speculative entries.
    #[arg(long = "des-routers", value_name = "N", default_value = "1", value_parser = whole32)]
    pub routers: u32,
    /// CPU cores of each router (1-1024): a request waits for a free core, takes
    /// the router's CPU time, then is routed [default: a free, instant router].
    #[arg(long = "des-router-vcpu", value_name = "CORES", value_parser = whole32)]
    pub router_vcpu: Option<u32>,
    /// With --des-router-vcpu: a router core's fixed CPU time per request (selection
    /// and booking; Dynamo's routing path), microseconds.
    #[arg(long = "des-router-cpu-us-fixed", value_name = "US", default_value = "700", value_parser = number)]
    pub router_cpu_us_fixed: f64,
    /// With --des-router-vcpu: a router core's CPU time per full prompt block its policy
    /// hashes (hashing and prefix matching; every block for the cache-aware policies, the
    /// leading one for prefix_aware, none for the load balancers), microseconds.
    #[arg(long = "des-router-cpu-us-per-block", value_name = "US", default_value = "0.5", value_parser = number)]
    pub router_cpu_us_per_block: f64,
    /// With --des-router-vcpu: requests allowed to wait for a core per router; beyond it
    /// they are rejected (0 rejects whenever every core is busy); `unbounded` (the
    /// default; given explicitly, it clears a lesson's limit).
    #[arg(long = "des-router-queue", value_name = "REQS|unbounded", value_parser = queue_limit)]
    pub router_queue: Option<QueueLimit>,
    /// Autoscaling: off (a fixed fleet of --des-instances), kpa (Knative's autoscaler on
    /// requests in flight) or slo (a Dynamo-planner-style rule on TTFT and ITL);
    /// --des-instances is then the starting size.
    #[arg(long = "des-autoscale", value_name = "SCALER", default_value = "off", value_parser = autoscale)]
    pub autoscale: Autoscale,
    /// Autoscaling: the fewest ready replicas [default: 1].
    #[arg(long = "des-min-instances", value_name = "N", value_parser = whole32)]
    pub min_instances: Option<u32>,
    /// Autoscaling: the most replicas at once, starting and draining ones included
    /// [default: 4 x --des-instances, at most 256].
    #[arg(long = "des-max-instances", value_name = "N", value_parser = whole32)]
    pub max_instances: Option<u32>,
    /// Autoscaling: seconds from a scale-up until the new replica takes requests (model
    /// load) [default: the preset's, 30 s + weights / (2 GB/s per GPU)].
    #[arg(long = "des-startup-s", value_name = "S", value_parser = number)]
    pub startup_s: Option<f64>,
    /// kpa: target requests in flight (waiting or running) per replica.
    #[arg(long = "des-kpa-target", value_name = "REQS", default_value = "16", value_parser = number)]
    pub kpa_target: f64,
    /// kpa: the stable window, seconds.
    #[arg(long = "des-kpa-stable-window-s", value_name = "S", default_value = "60", value_parser = number)]
    pub kpa_stable_window_s: f64,
    /// kpa: the panic window, percent of the stable window.
    #[arg(long = "des-kpa-panic-window-pct", value_name = "PCT", default_value = "10", value_parser = number)]
    pub kpa_panic_window_pct: f64,
    /// kpa: panic when the panic window wants this percent of the ready replicas or more.
    #[arg(long = "des-kpa-panic-threshold-pct", value_name = "PCT", default_value = "200", value_parser = number)]
    pub kpa_panic_threshold_pct: f64,
    /// kpa: one decision asks for at most this many times the ready replicas.
    #[arg(long = "des-kpa-max-scale-up-rate", value_name = "X", default_value = "1000", value_parser = number)]
    pub kpa_max_scale_up_rate: f64,
    /// kpa: one decision asks for at least the ready replicas divided by this.
    #[arg(long = "des-kpa-max-scale-down-rate", value_name = "X", default_value = "2", value_parser = number)]
    pub kpa_max_scale_down_rate: f64,
    /// The TTFT target, ms: the slo scaler's (unset: 500); set on any run, the report's
    /// SLO attainment over time counts it.
    #[arg(long = "des-slo-ttft-ms", value_name = "MS", value_parser = number)]
    pub slo_ttft_ms: Option<f64>,
    /// The inter-token latency target, ms: the slo scaler's (unset: 50); set on any run,
    /// the SLO attainment over time holds each request's TPOT to it.
    #[arg(long = "des-slo-itl-ms", value_name = "MS", value_parser = number)]
    pub slo_itl_ms: Option<f64>,
    /// slo: seconds between decisions.
    #[arg(long = "des-slo-interval-s", value_name = "S", default_value = "5", value_parser = number)]
    pub slo_interval_s: f64,
    /// slo: scale down only when TTFT and ITL are both below this percent of their targets.
    #[arg(long = "des-slo-scale-down-pct", value_name = "PCT", default_value = "80", value_parser = number)]
    pub slo_scale_down_pct: f64,
    /// dynamo: softmax temperature over the costs; 0 takes the lowest cost.
    #[arg(long = "des-dynamo-temperature", value_name = "T", default_value = "0", value_parser = number)]
    pub dynamo_temperature: f64,
    /// dynamo: overlap credit, the blocks of prefill one cached block takes off (0 to 1).
    #[arg(long = "des-dynamo-overlap-credit", value_name = "C", default_value = "1", value_parser = number)]
    pub dynamo_overlap_credit: f64,
    /// sglang: where a request below the cache threshold goes: load (fewest in flight,
    /// the current rule) or tree (smallest approximate tree, the earlier rule).
    #[arg(long = "des-sglang-miss", value_name = "RULE", default_value = "load", value_parser = sglang_miss)]
    pub sglang_miss: SglangMiss,
    /// llm_d: weights P,Q,K of the prefix, queue and kv-cache-utilisation scorers.
    #[arg(
        long = "des-llmd-weights",
        value_name = "P,Q,K",
        default_value = "3,2,2"
    )]
    pub llmd_weights: String,
    /// How every policy breaks an exact tie between its best replicas: random (as each
    /// policy's source does: dynamo, llm_d and aibrix draw among the equals, sglang takes
    /// the first; kv, the simple policies and a split fleet's least_kv decode pick draw
    /// too; seeded) or lowest (the lower index).
    #[arg(long = "des-tie-break", value_name = "RULE", default_value = "random", value_parser = tie_break)]
    pub tie_break: TieBreak,
    /// How a replica admits into KV: preempt (vLLM V1's rule: admit on the prompt's
    /// blocks, grow a block at a time while decoding, and when a step finds no block
    /// preempt the most recently admitted request, which recomputes when it runs again)
    /// or reserve (the prompt and the whole output must fit at admission, as
    /// TensorRT-LLM's default capacity scheduler does; nothing is preempted).
    #[arg(long = "des-admission", value_name = "RULE", default_value = "preempt", value_parser = admission)]
    pub admission: Admission,
    /// Disaggregated fleet: replicas that only prefill (with --des-decode-instances; the
    /// routing policy picks among them) [default: colocated].
    #[arg(long = "des-prefill-instances", value_name = "P", value_parser = whole32)]
    pub prefill_instances: Option<u32>,
    /// Disaggregated fleet: replicas that receive the prompt's KV and decode.
    #[arg(long = "des-decode-instances", value_name = "D", value_parser = whole32)]
    pub decode_instances: Option<u32>,
    /// Disaggregated: how a decode replica is picked: least_kv (fewest KV blocks held or
    /// on their way), round_robin or random.
    #[arg(long = "des-decode-routing", value_name = "POLICY", default_value = "least_kv", value_parser = decode_routing)]
    pub decode_routing: DecodeRouting,
    /// Disaggregated: bandwidth of each decode replica's inbound KV link, GB/s.
    #[arg(long = "des-kv-transfer-gbps", value_name = "GBPS", default_value = "50", value_parser = number)]
    pub kv_transfer_gbps: f64,
    /// Disaggregated: fixed cost of one KV transfer, µs.
    #[arg(long = "des-kv-transfer-base-us", value_name = "US", default_value = "50", value_parser = number)]
    pub kv_transfer_base_us: f64,
    /// KV bytes a transfer moves per prompt token [default: the engine preset's].
    #[arg(long = "des-kv-bytes-per-token", value_name = "B", value_parser = whole)]
    pub kv_bytes_per_token: Option<u64>,
    /// Disaggregated: a request whose prefill replica would compute fewer uncached tokens
    /// than N prefills on its decode replica instead; 0 always disaggregates.
    #[arg(long = "des-disagg-min-uncached-tokens", value_name = "N", default_value = "0", value_parser = whole32)]
    pub disagg_min_uncached_tokens: u32,
    /// A CPU offload tier of N blocks per replica: blocks evicted from HBM are written to
    /// it (least recently written dropped first when full) and a prefix hit found there
    /// is loaded back over PCIe instead of prefilled [default: none; 0 is none].
    #[arg(long = "des-cpu-kv-blocks", value_name = "N", value_parser = whole)]
    pub cpu_kv_blocks: Option<u64>,
    /// CPU tier: load bandwidth of each replica's PCIe link, GB/s (PCIe 5.0 x16, one
    /// direction).
    #[arg(long = "des-cpu-load-gbps", value_name = "GBPS", default_value = "63", value_parser = number)]
    pub cpu_load_gbps: f64,
    /// CPU tier: fixed cost of one load, µs.
    #[arg(long = "des-cpu-load-base-us", value_name = "US", default_value = "10", value_parser = number)]
    pub cpu_load_base_us: f64,
    /// A KV tier of N blocks shared by the fleet (a Mooncake store, an LMCache server):
    /// the blocks a replica evicts from its lowest own tier (HBM, or its CPU tier) are
    /// written to it (least recently used dropped first when full), and any replica loads
    /// a prefix hit found there over the network instead of prefilling it [default: none;
    /// 0 is none].
    #[arg(long = "des-shared-kv-blocks", value_name = "N", value_parser = whole)]
    pub shared_kv_blocks: Option<u64>,
    /// Shared tier: bandwidth of each replica's network link to it, GB/s (one 200 Gbit/s
    /// RDMA NIC).
    #[arg(long = "des-shared-gbps", value_name = "GBPS", default_value = "25", value_parser = number)]
    pub shared_gbps: f64,
    /// Shared tier: fixed cost of one load (lookup and network round trip), µs.
    #[arg(long = "des-shared-latency-us", value_name = "US", default_value = "20", value_parser = number)]
    pub shared_latency_us: f64,
    /// What a cache-aware router's overlap counts: hbm (HBM blocks only) or all (the HBM
    /// run continued into the replica's CPU tier, then the shared tier).
    #[arg(long = "des-router-tiers", value_name = "TIERS", default_value = "hbm", value_parser = router_tiers)]
    pub router_tiers: RouterTiers,
    /// Sweep one parameter: NAME=START:END[:STEP] or NAME=A,B,C (e.g. overlap-weight=0:8:0.5,
    /// instances=1:32, kv-blocks=256,512,1024, routing=kv,round_robin); prints a table.
    #[arg(long = "des-sweep", value_name = "SPEC")]
    pub sweep: Option<String>,
    /// With --des-sweep: write the table as CSV to FILE.
    #[arg(long = "des-sweep-csv", value_name = "FILE", requires = "sweep")]
    pub sweep_csv: Option<String>,
    /// With --des-sweep: write the table as JSON to FILE.
    #[arg(long = "des-sweep-json", value_name = "FILE", requires = "sweep")]
    pub sweep_json: Option<String>,
    /// Worker threads for sweeps (0 = one per core); results do not depend on it.
    #[arg(long = "des-threads", value_name = "N", default_value = "0", value_parser = whole)]
    pub threads: u64,
    /// Start from a lesson's broken configuration: more-replicas-slower or hot-prefix.
    /// Flags given explicitly override the preset.
    #[arg(long, value_name = "LESSON")]
    pub preset: Option<String>,
    /// Write the whole report as JSON to FILE ("-" for standard output).
    #[arg(long = "des-report-json", value_name = "FILE")]
    pub report_json: Option<String>,
    /// Replay a Mooncake JSONL trace (timestamp ms, input_length, output_length, hash_ids
    /// of 512-token blocks) instead of the synthetic workload.
    #[arg(
        long = "des-mooncake-trace",
        value_name = "FILE",
        conflicts_with = "workload_file"
    )]
    pub mooncake_trace: Option<String>,
    /// Replay a workload file (CSV with a header, or JSONL): arrival, prompt and output
    /// lengths, no block ids (so no content reuse).
    #[arg(long = "des-workload-file", value_name = "FILE")]
    pub workload_file: Option<String>,
    /// Divide trace arrival times by X: 2 replays twice as fast, 0.001 stretches 1000x.
    #[arg(long = "des-arrival-speedup", value_name = "X", default_value = "1", value_parser = number)]
    pub arrival_speedup: f64,
    /// Replay only the first N requests of a trace [default: all].
    #[arg(long = "des-max-requests", value_name = "N", value_parser = whole32)]
    pub max_requests: Option<u32>,
    /// Sort trace requests by arrival instead of failing when timestamps go backwards.
    #[arg(long = "des-sort-arrivals")]
    pub sort_arrivals: bool,
    /// Write the workload that was run (synthetic included) as Mooncake JSONL to FILE.
    #[arg(long = "des-export-trace", value_name = "FILE")]
    pub export_trace: Option<String>,
    /// Write one JSONL record per routing decision (candidates, costs, chosen) to FILE.
    #[arg(long = "des-decisions", value_name = "FILE")]
    pub decisions: Option<String>,
    /// No progress bar (one is shown on standard error, when it is a terminal, for runs
    /// and sweeps that take more than a second).
    #[arg(short, long)]
    pub quiet: bool,
}

impl RunArgs {
    /// The simulation config these flags describe (validated later by the core).
    pub fn config(&self) -> Config {
        // A fleet that parses sets the total and the engine; one that does not is left
        // for validation to refuse by name.
        let fleet = self
            .fleet
            .as_deref()
            .and_then(|text| kvfleet::config::parse_fleet(text).ok());
        Config {
            seed: self.seed,
            request_rate: self.request_rate,
            request_rate_schedule: self.request_rate_schedule.clone(),
            arrival_model: self.arrival_model,
            burstiness: self.burstiness,
            num_requests: self.num_requests,
            input_len: self.input_len,
            output_len: self.output_len,
            range_ratio: self.range_ratio,
            num_prefixes: self.num_prefixes,
            prefix_len: self.prefix_len,
            prefix_popularity: self.prefix_popularity.clone(),
            instances: self.instances.unwrap_or(
                match (self.prefill_instances, self.decode_instances, &fleet) {
                    (_, _, Some(groups)) => groups.iter().map(|g| g.count).sum(),
                    (Some(p), Some(d), _) => p.saturating_add(d),
                    _ => 4,
                },
            ),
            fleet: self.fleet.clone().unwrap_or_default(),
            gpu_hour_usd: self.gpu_prices.clone().unwrap_or_default(),
            routing: self.routing,
            overlap_weight: self.overlap_weight,
            block_size: self.block_size,
            kv_blocks: match self.kv_blocks {
                // A mixed fleet's `auto` is each preset's own (the unset capacity).
                Some(KvBlocks::Auto) if fleet.is_some() => None,
                Some(KvBlocks::Auto) => self.engine.kv_blocks(self.block_size),
                Some(KvBlocks::Blocks(n)) => Some(n),
                Some(KvBlocks::Unbounded) | None => None,
            },
            max_batch: self.max_batch,
            max_batched_tokens: self.max_batched_tokens,
            engine: fleet.as_ref().map_or(self.engine, |g| g[0].preset),
            step_fixed_us: self.step_fixed_us,
            prefill_token_us: self.prefill_token_us,
            decode_seq_us: self.decode_seq_us,
            kv_read_token_ns: self.kv_read_token_ns,
            prefill_poly_ms: self.prefill_poly_ms,
            decode_poly_ms: self.decode_poly_ms,
            workload: self.workload,
            session_rate: self.session_rate,
            num_sessions: self.num_sessions,
            turns: self.turns,
            turn_input_len: self.turn_input_len,
            turn_output_len: self.turn_output_len,
            think_time_ms: self.think_time_ms,
            system_prompt_len: self.system_prompt_len,
            session_affinity: self.session_affinity,
            spill_queue: self.spill_queue,
            queue_capacity: self.queue_capacity.and_then(|q| q.0),
            timeout_ms: self.timeout_ms,
            router_view: self.router_view,
            router_refresh_ms: self.router_refresh_ms,
            kv_event_lag_ms: self.kv_event_lag_ms,
            router_predict_ttl_ms: self.router_predict_ttl_ms,
            routers: self.routers,
            router_vcpu: self.router_vcpu,
            router_cpu_us_fixed: self.router_cpu_us_fixed,
            router_cpu_us_per_block: self.router_cpu_us_per_block,
            router_queue: self.router_queue.and_then(|q| q.0),
            autoscale: self.autoscale,
            min_instances: self.min_instances,
            max_instances: self.max_instances,
            startup_s: self.startup_s,
            kpa_target: self.kpa_target,
            kpa_stable_window_s: self.kpa_stable_window_s,
            kpa_panic_window_pct: self.kpa_panic_window_pct,
            kpa_panic_threshold_pct: self.kpa_panic_threshold_pct,
            kpa_max_scale_up_rate: self.kpa_max_scale_up_rate,
            kpa_max_scale_down_rate: self.kpa_max_scale_down_rate,
            slo_ttft_ms: self.slo_ttft_ms,
            slo_itl_ms: self.slo_itl_ms,
            slo_interval_s: self.slo_interval_s,
            slo_scale_down_pct: self.slo_scale_down_pct,
            dynamo_temperature: self.dynamo_temperature,
            dynamo_overlap_credit: self.dynamo_overlap_credit,
            sglang_miss: self.sglang_miss,
            llmd_weights: self.llmd_weights.clone(),
            tie_break: self.tie_break,
            admission: self.admission,
            prefill_instances: self.prefill_instances,
            decode_instances: self.decode_instances,
            decode_routing: self.decode_routing,
            kv_transfer_gbps: self.kv_transfer_gbps,
            kv_transfer_base_us: self.kv_transfer_base_us,
            kv_bytes_per_token: self.kv_bytes_per_token,
            disagg_min_uncached_tokens: self.disagg_min_uncached_tokens,
            cpu_kv_blocks: self.cpu_kv_blocks,
            cpu_load_gbps: self.cpu_load_gbps,
            cpu_load_base_us: self.cpu_load_base_us,
            shared_kv_blocks: self.shared_kv_blocks,
            shared_gbps: self.shared_gbps,
            shared_latency_us: self.shared_latency_us,
            router_tiers: self.router_tiers,
        }
    }
}

/// `kvfleet calibrate` as parsed.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("generators").args(["generate", "generate_requests"]))]
pub struct CalibrateCmd {
    /// The step log (CSV with a header, or JSONL; other columns ignored).
    #[arg(required_unless_present_any = ["generate", "requests", "generate_requests"])]
    pub file: Option<String>,
    /// Which coefficients to fit: linear (the custom engine's --des-step-fixed-us,
    /// --des-prefill-token-us, --des-decode-seq-us, --des-kv-read-token-ns) or polynomial
    /// (--des-prefill-poly-ms and --des-decode-poly-ms).
    #[arg(long, value_name = "FORM", default_value = "linear", value_parser = calibrate_form)]
    pub form: kvfleet::calibrate::Form,
    /// Polynomial form: the KV capacity, in tokens, of the replica the log was measured
    /// on (the decode polynomial is over the utilisation, KV tokens read / capacity);
    /// without it the decode polynomial's d1 and d2 are not fitted. With --generate: the
    /// capacity the generated steps' utilisation is taken over.
    #[arg(long = "kv-capacity-tokens", value_name = "TOKENS", value_parser = number)]
    pub kv_capacity_tokens: Option<f64>,
    /// Write the fit as JSON (coefficients, standard errors, R², warnings and the fitted
    /// engine, which --des-engine-file reads).
    #[arg(long = "calibrate-json", value_name = "OUT")]
    pub calibrate_json: Option<String>,
    /// Instead of fitting, write a step log (CSV, to standard output) generated from
    /// PRESET's timing with --noise-pct noise.
    #[arg(long, value_name = "PRESET", value_parser = engine, conflicts_with_all = ["file", "calibrate_json", "requests"])]
    pub generate: Option<EnginePreset>,
    /// With --generate or --generate-requests: each duration times 1 + N(0, 1) × this
    /// percentage (default 2 for steps, 0 for requests).
    #[arg(long = "noise-pct", value_name = "PCT", value_parser = number, requires = "generators")]
    pub noise_pct: Option<f64>,
    /// With --generate: how many steps (1 to 1,000,000).
    #[arg(long, value_name = "N", default_value = "600", requires = "generate",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub steps: u32,
    /// With --generate or --generate-requests: the seed of what is drawn.
    #[arg(
        long,
        value_name = "SEED",
        default_value = "42",
        requires = "generators"
    )]
    pub seed: u64,
    /// Fit by simulation from per-request measurements instead of steps: a vLLM
    /// (`vllm bench serve --save-result --save-detailed`) or SGLang (`bench_serving
    /// --output-details`) result, or a CSV with the header
    /// arrival_s,prompt_tokens,output_tokens,ttft_ms,tpot_ms (optional cached_tokens).
    /// Searches the linear engine whose one-replica replay of the requests reproduces
    /// their TTFT and TPOT quantiles (p10 to p99); Ctrl-C stops it with the best so far.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "generate", "generate_requests"])]
    pub requests: Option<String>,
    /// With --requests: the file's format (vllm, sglang or csv; default: JSON is vllm,
    /// or sglang when it is several lines, anything else csv).
    #[arg(long, value_name = "FORMAT", value_parser = request_format, requires = "requests")]
    pub format: Option<kvfleet::calibrate::requests::RequestFormat>,
    /// With --requests, for a file without arrival times: the rate the requests were
    /// sent at, requests per second, evenly spaced (`inf`: all at once).
    #[arg(long = "request-rate", value_name = "REQ_PER_S", value_parser = number, requires = "requests")]
    pub request_rate: Option<f64>,
    /// With --requests: the engine the search starts from.
    #[arg(long, value_name = "PRESET", default_value = "llama3-8b-h100", value_parser = engine)]
    pub start: EnginePreset,
    /// With --requests or --generate-requests: the replica's most running requests.
    #[arg(long = "max-batch", value_name = "N", default_value = "256",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_batch: u32,
    /// With --requests or --generate-requests: the replica's most tokens per step.
    #[arg(long = "max-batched-tokens", value_name = "TOKENS", default_value = "8192",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_batched_tokens: u32,
    /// With --requests: the most replays the search makes.
    #[arg(long = "max-evaluations", value_name = "N", default_value = "1000",
          value_parser = clap::value_parser!(u32).range(10..=100_000))]
    pub max_evaluations: u32,
    /// Instead of fitting, write a request log (the CSV --requests reads, to standard
    /// output) generated by replaying 300 drawn requests on PRESET's engine.
    #[arg(long = "generate-requests", value_name = "PRESET", value_parser = engine,
          conflicts_with_all = ["file", "calibrate_json", "generate"])]
    pub generate_requests: Option<EnginePreset>,
}

fn request_format(text: &str) -> Result<kvfleet::calibrate::requests::RequestFormat, String> {
    kvfleet::calibrate::requests::RequestFormat::parse(text)
        .map_err(|_| "expected vllm, sglang or csv".to_string())
}

fn calibrate_form(text: &str) -> Result<kvfleet::calibrate::Form, String> {
    kvfleet::calibrate::Form::parse(text).map_err(|_| "expected linear or polynomial".to_string())
}

/// `kvfleet plan` as parsed: the workload's run flags and the plan's flags.
#[derive(Args, Debug)]
pub struct PlanCmd {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub plan: crate::plan_flags::PlanFlags,
}

impl CalibrateCmd {
    /// `--noise-pct` (or `default`), checked: a percentage from 0 to 50.
    pub fn noise_pct_or(&self, default: f64) -> Result<f64, String> {
        let pct = self.noise_pct.unwrap_or(default);
        if !(pct.is_finite() && (0.0..=50.0).contains(&pct)) {
            return Err(format!(
                "--noise-pct: expected a percentage from 0 to 50, got {pct}"
            ));
        }
        Ok(pct)
    }
}
