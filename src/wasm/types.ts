// TypeScript types of the typed wasm API (`run`, `runTrace`): the config a caller passes and the
// report it gets back. Kept in step with src/config.rs and src/report.rs by tests/e2e/package.test.mjs,
// which type-checks real reports against them with tsc (excess and missing keys both fail).

/** Routing policies (`--des-routing`). */
export type Policy = "kv" | "prefix_aware" | "round_robin" | "random" | "sticky"
  | "least_loaded" | "p2c" | "dynamo" | "sglang" | "llm_d" | "aibrix";

/** One simulation run. Every key is optional in `run(config)`: missing keys take their defaults (the seed's example). */
export interface Config {
  seed: number;
  request_rate: number;
  arrival_model: "poisson" | "deterministic" | "gamma";
  burstiness: number;
  num_requests: number;
  input_len: number;
  output_len: number;
  range_ratio: number;
  num_prefixes: number;
  prefix_len: number;
  /** "uniform", "zipf:S" or "hot:SHARE". */
  prefix_popularity: string;
  instances: number;
  routing: Policy;
  overlap_weight: number;
  block_size: number;
  /** KV capacity per replica, blocks; null = unbounded. */
  kv_blocks: number | null;
  max_batch: number;
  max_batched_tokens: number;
  engine: "llama3-8b-h100" | "llama3-70b-4xh100" | "custom";
  step_fixed_us: number;
  prefill_token_us: number;
  decode_seq_us: number;
  kv_read_token_ns: number;
  workload: "pool" | "sessions";
  session_rate: number;
  num_sessions: number;
  turns: number;
  turn_input_len: number;
  turn_output_len: number;
  think_time_ms: number;
  system_prompt_len: number;
  /** 0-100 %; null = the policy's default. */
  session_affinity: number | null;
  spill_queue: number;
  /** null = unbounded. */
  queue_capacity: number | null;
  /** null = no timeout. */
  timeout_ms: number | null;
  /** What the router knows. */
  router_view: "exact" | "offline" | "snapshot";
  /** snapshot: refresh interval of the load signals, ms (0 = live). */
  router_refresh_ms: number;
  /** snapshot: delay of cache store and evict events, ms. */
  kv_event_lag_ms: number;
  /** Speculative entries' time to live, ms (0 = off). */
  router_predict_ttl_ms: number;
  /** Independent router replicas. */
  routers: number;
  /** dynamo: softmax temperature over the costs (0 = lowest cost). */
  dynamo_temperature: number;
  /** dynamo: blocks of prefill one cached block takes off (0 to 1). */
  dynamo_overlap_credit: number;
  /** sglang: where a request below the cache threshold goes. */
  sglang_miss: "load" | "tree";
  /** llm_d: weights of the prefix, queue and kv-cache scorers, "P,Q,K". */
  llmd_weights: string;
  /** How every policy breaks an exact tie between its best replicas: random (as each policy's source does; seeded; the default, left out of a report's config) or lowest (the lower index). */
  tie_break?: "random" | "lowest";
  /** Disaggregated fleet: prefill replicas (with decode_instances; instances is their sum). Absent or null: colocated. */
  prefill_instances?: number | null;
  /** Disaggregated fleet: decode replicas. */
  decode_instances?: number | null;
  /** Disaggregated: how a decode replica is picked (default least_kv). */
  decode_routing?: "least_kv" | "round_robin" | "random";
  /** Disaggregated: each decode replica's inbound KV link, GB/s (default 50). */
  kv_transfer_gbps?: number;
  /** Disaggregated: fixed cost per transfer, µs (default 50). */
  kv_transfer_base_us?: number;
  /** KV bytes per prompt token a transfer moves; absent or null: the engine preset's. */
  kv_bytes_per_token?: number | null;
  /** Disaggregated: fewer uncached tokens than this prefill on the decode replica (default 0: never). */
  disagg_min_uncached_tokens?: number;
}

/** A statistic over no samples (no completed request, no admitted request) is null. */
export type Stat = number | null;

/** Fleet-wide figures; rates are fractions 0-1, units end the names. */
export interface Summary {
  requests: number; completed: number;
  /** Requests refused, for either reason: rejected_queue_full + rejected_too_large. */
  rejected: number;
  /** Refused on arrival: the replica's queue was full. */
  rejected_queue_full: number;
  /** Refused: they need more KV blocks than a replica's cache holds. */
  rejected_too_large: number;
  timed_out: number;
  admitted: number; hit_requests: number;
  hit_rate_requests: Stat; hit_rate_tokens: Stat; block_reuse: Stat; cached_tokens_avg: Stat;
  cached_blocks: number; prompt_blocks: number; prompt_tokens: number; cached_tokens: number;
  /** At each routing decision, the full prompt blocks the picked replica held, summed. */
  pick_hit_blocks: number;
  /** At each routing decision, the most full prompt blocks any pickable replica held, summed. */
  best_hit_blocks: number;
  /** Of pick_hit_blocks (at most the reusable ones), those evicted before the request's admission. */
  evicted_after_pick_blocks: number;
  /** pick_hit_blocks / best_hit_blocks; null when no replica held any block of any request. */
  routing_capture: Stat;
  evictions: number;
  ttft_ms_mean: Stat; ttft_ms_p50: Stat; ttft_ms_p90: Stat; ttft_ms_p99: Stat;
  ttft_admit_ms_mean: Stat; ttft_admit_ms_p50: Stat; ttft_admit_ms_p90: Stat; ttft_admit_ms_p99: Stat;
  queue_ms_mean: Stat; queue_ms_p50: Stat; queue_ms_p90: Stat; queue_ms_p99: Stat;
  tpot_ms_mean: Stat; tpot_ms_p50: Stat; tpot_ms_p90: Stat; tpot_ms_p99: Stat;
  itl_ms_mean: Stat; itl_ms_p50: Stat; itl_ms_p90: Stat; itl_ms_p99: Stat;
  e2e_ms_mean: Stat; e2e_ms_p50: Stat; e2e_ms_p90: Stat; e2e_ms_p99: Stat;
  output_tokens: number; throughput_tok_s: number; throughput_req_s: number;
  offered_rate: number; achieved_rate: number; makespan_s: number;
  hit_rate_instance_min: Stat; hit_rate_instance_max: Stat; load_spread: Stat;
  /** Mean over replicas of their kv_wait_share. */
  kv_wait_share: Stat;
  /** Mean requests running at once on a busy replica (running × time over busy time, fleet-wide). */
  batch_mean: Stat;
  /** An uneven-load or uneven-hit-rate finding was raised. */
  hot_spot: boolean;
  /** An overload finding was raised. */
  overloaded: boolean;
  events: number; seed: number;
}

/** One replica's row. */
export interface InstanceReport {
  index: number; requests: number; admitted: number; prompt_tokens: number; cached_tokens: number;
  hit_rate_requests: Stat; hit_rate_tokens: Stat;
  /** Time in engine steps over the makespan (decode-only steps included). */
  busy_share: Stat;
  /** Time in steps that began with more work than they could start, over the makespan. */
  saturated_share: Stat;
  /** Time a request waited for KV room while a slot was free, over the makespan. */
  kv_wait_share: Stat;
  /** Mean requests running at once while busy; null when never busy. */
  batch_mean: Stat;
  peak_queue: number; evictions: number;
  /** Requests refused: rejected_queue_full (queue full) + rejected_too_large (more blocks than the cache). */
  rejected: number; rejected_queue_full: number; rejected_too_large: number;
  timed_out: number;
  /** "prefill" or "decode" in a disaggregated fleet; absent when colocated. */
  pool?: "prefill" | "decode";
}

/** Columnar time series: one array per replica per metric, on a shared grid. */
export interface Series {
  t_s: number[];
  /** Waiting requests per replica at each sample. */
  queue: number[][];
  /** The longest queue per replica in the window ending at each sample: its highest point is the replica's peak_queue. */
  queue_peak: number[][];
  running: number[][];
  cache_blocks: number[][];
  hit_rate: (number | null)[][];
  hit_rate_fleet: (number | null)[];
  /** Disaggregated: per decode replica, the share of each window its inbound link was busy (null first). */
  link_busy?: (number | null)[][];
}

/** One pool of a disaggregated fleet. */
export interface PoolReport {
  replicas: number; requests: number;
  /** Prefills computed in the pool (the decode pool's: requests that skipped the prefill pool). */
  prefills: number; prompt_tokens: number; cached_tokens: number; hit_rate_tokens: Stat;
  busy_share: Stat; peak_queue: number;
  /** Requests refused: rejected_queue_full (queue full) + rejected_too_large (more blocks than the cache). */
  rejected: number; rejected_queue_full: number; rejected_too_large: number;
  timed_out: number;
}

/** The KV transfers from the prefill pool to the decode pool. */
export interface TransfersReport {
  count: number; bytes: number;
  /** Transfers that ended after the caller's timeout (those requests timed out). */
  late: number;
  time_ms_mean: Stat; time_ms_p50: Stat; time_ms_p99: Stat; wait_ms_mean: Stat; wait_ms_p99: Stat;
  link_utilisation: Stat; link_utilisation_max: Stat;
  bandwidth_gbps: number; base_us: number; bytes_per_token: number;
  link_utilisation_by_replica: Stat[];
  /** Transfer time at quantiles 0.01 to 1.00, ms; empty with no transfers. */
  time_ms_cdf: Stat[];
}

/** A disaggregated run's pools. */
export interface PoolsReport {
  prefill: PoolReport; decode: PoolReport; transfers: TransfersReport;
  skipped_prefill: number; skipped_prefill_share: Stat; min_uncached_tokens: number;
  /** The line the text report adds for the pools. */
  line: string;
}

/** Latency at 100 evenly spaced quantiles; empty arrays when no request completed. */
export interface LatencyCdf { q: number[]; ttft_ms: number[]; e2e_ms: number[]; }

/** A finding of the run, fired only on evidence (see src/findings.rs). */
export interface Finding {
  kind: "load_uneven" | "hit_uneven" | "overloaded" | "kv_bound";
  replicas: number[];
  text: string;
}

export interface Quantiles { mean: Stat; p50: Stat; p90: Stat; p99: Stat; }

/** A request the run left without an end, and where (see src/sim/ledger.rs). */
export interface InFlight {
  id: number;
  /** The replica holding it (for a transfer, its destination). */
  replica: number;
  state: "waiting" | "waiting on an idle replica" | "running" | "held for transfer" | "on the link";
}

/** Requests that did not end exactly once: a simulator bug (see src/sim/ledger.rs). */
export interface Unended {
  /** Requests that arrived and never ended. */
  count: number;
  /** Requests reported ended twice (the first few). */
  ended_twice: number[];
  /** The first of the requests that never ended, with where each was left. */
  in_flight: InFlight[];
}

/** Task-level results of the sessions workload. */
export interface SessionReport {
  tasks: number; completed_tasks: number; failed_tasks: number;
  task_s: Quantiles;
  hit_rate_by_turn: Stat[]; token_hit_rate_by_turn: Stat[]; ttft_ms_by_turn: Stat[]; prompt_tokens_by_turn: Stat[];
}

/** The whole report of one run. */
export interface Report {
  kvfleet_version: string;
  seed: number;
  config: Config;
  /** "synthetic", "sessions", or the trace's name. */
  source: string;
  summary: Summary;
  per_instance: InstanceReport[];
  series: Series;
  latency_cdf: LatencyCdf;
  fleet_lines: string[];
  findings: Finding[];
  /** The unended sentence (when `unended` is present) first, then each finding's text. */
  warnings: string[];
  /** Present only when some request did not end exactly once (a simulator bug). */
  unended?: Unended;
  sessions?: SessionReport;
  /** Disaggregated fleet only. */
  pools?: PoolsReport;
}
