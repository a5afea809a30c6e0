//! Small valid configs drawn from fuzzer bytes: every policy with its parameters, both
//! workloads, queue capacities including 0, timeouts, bounded caches, custom timings,
//! every router view with predict on route and several routers, and split fleets (both
//! pool sizes, every decode routing, the skip threshold, the link), each sized to run in
//! milliseconds.

use crate::config::{
    Admission, ArrivalModel, Config, DecodeRouting, Policy, RouterTiers, RouterView, SglangMiss,
    TieBreak, WorkloadKind,
};
use crate::timing::{EnginePreset, DYNAMO_DECODE_POLY_MS, DYNAMO_PREFILL_POLY_MS, NO_POLY};

/// Reads choices from a byte string (zeros once it runs out).
pub struct Draws<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Draws<'a> {
    /// Choices from `data`.
    pub fn new(data: &'a [u8]) -> Draws<'a> {
        Draws { data, at: 0 }
    }

    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// One of `options`.
    pub fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.byte() as usize % options.len()]
    }

    /// A whole number in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        let x = u16::from_le_bytes([self.byte(), self.byte()]) as u32;
        lo + x % (hi - lo + 1)
    }

    /// `Some` of a pick, or `None` when the next byte is even.
    pub fn maybe<T: Copy>(&mut self, options: &[T]) -> Option<T> {
        (self.byte() % 2 == 1).then(|| self.pick(options))
    }

    /// What has not been read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.at.min(self.data.len())..]
    }
}

/// A small config from `draws`; not always valid (the caller validates it), but sized so
/// that a valid one runs in milliseconds.
pub fn config(draws: &mut Draws) -> Config {
    let mut cfg = Config {
        seed: u64::from_le_bytes([0; 8].map(|_| draws.byte())) % (1 << 53),
        routing: draws.pick(&Policy::ALL),
        workload: draws.pick(&[
            WorkloadKind::Pool,
            WorkloadKind::Pool,
            WorkloadKind::Sessions,
        ]),
        instances: draws.range(1, 6),
        num_requests: draws.range(1, 48),
        request_rate: draws.pick(&[0.5, 5.0, 50.0, 500.0]),
        arrival_model: draws.pick(&[
            ArrivalModel::Poisson,
            ArrivalModel::Deterministic,
            ArrivalModel::Gamma,
        ]),
        burstiness: draws.pick(&[0.2, 1.0, 4.0]),
        input_len: draws.pick(&[1, 7, 100, 513, 1500, 4096]),
        output_len: draws.pick(&[1, 2, 30, 200]),
        range_ratio: draws.pick(&[0.0, 0.3, 0.9]),
        num_prefixes: draws.pick(&[0, 1, 3, 8]),
        prefix_popularity: draws.pick(&["uniform", "zipf:1.1", "hot:0.85"]).to_string(),
        overlap_weight: draws.pick(&[0.0, 1.0, 4.0]),
        block_size: draws.pick(&[16, 64, 512]),
        max_batch: draws.pick(&[1, 2, 4, 256]),
        max_batched_tokens: draws.pick(&[64, 512, 8192]),
        session_affinity: draws.maybe(&[0.0, 50.0, 100.0]),
        spill_queue: draws.pick(&[0, 0, 1, 2, 5]),
        queue_capacity: draws.maybe(&[0, 1, 3]),
        timeout_ms: draws.maybe(&[1.0, 50.0, 150.0, 1000.0, 20000.0]),
        num_sessions: draws.range(1, 6),
        turns: draws.range(1, 5),
        turn_input_len: draws.pick(&[1, 100, 600]),
        turn_output_len: draws.pick(&[1, 20, 100]),
        think_time_ms: draws.pick(&[0.0, 50.0, 1000.0]),
        system_prompt_len: draws.pick(&[0, 512, 1024]),
        ..Config::default()
    };
    let shortest = libm::floor(cfg.input_len as f64 * (1.0 - cfg.range_ratio)) as u32;
    cfg.prefix_len = draws.pick(&[0, 16, 512, 2048]).min(shortest.max(1));
    timing(&mut cfg, draws);
    cfg.kv_blocks = draws
        .maybe(&[0, 1, 10, 100])
        .map(|spare| needed_blocks(&cfg) + spare);
    view(&mut cfg, draws);
    zoo(&mut cfg, draws);
    split(&mut cfg, draws);
    // Drawn last, so older inputs keep their configs.
    cfg.tie_break = draws.pick(&TieBreak::ALL);
    cfg.admission = draws.pick(&Admission::ALL);
    cfg.cpu_kv_blocks = draws.maybe(&[0, 1, 4, 64]);
    cfg.cpu_load_gbps = draws.pick(&[0.001, 1.0, 63.0]);
    router_cpu(&mut cfg, draws);
    cfg.shared_kv_blocks = draws.maybe(&[0, 1, 8, 256]);
    cfg.shared_gbps = draws.pick(&[0.001, 1.0, 25.0]);
    cfg.router_tiers = draws.pick(&RouterTiers::ALL);
    cfg
}

/// The routers' own CPU: most often a free router, else 1 or 2 cores with CPU times
/// from nothing to more than the gap between arrivals, and maybe a bounded queue (drawn
/// last, so older inputs keep their configs).
fn router_cpu(cfg: &mut Config, draws: &mut Draws) {
    cfg.router_vcpu = draws.pick(&[None, None, Some(1), Some(2)]);
    cfg.router_cpu_us_fixed = draws.pick(&[700.0, 0.0, 20.0, 50_000.0]);
    cfg.router_cpu_us_per_block = draws.pick(&[0.5, 0.0, 30.0]);
    cfg.router_queue = draws.maybe(&[0, 1, 4]);
}

/// What the router knows (drawn after the rest, so older inputs keep their configs).
fn view(cfg: &mut Config, draws: &mut Draws) {
    cfg.router_view = draws.pick(&[
        RouterView::Exact,
        RouterView::Exact,
        RouterView::Offline,
        RouterView::Snapshot,
    ]);
    cfg.router_refresh_ms = draws.pick(&[0.0, 1.0, 10.0, 50.0]);
    cfg.kv_event_lag_ms = draws.pick(&[0.0, 0.0, 5.0, 100.0]);
    cfg.router_predict_ttl_ms = draws.pick(&[0.0, 0.0, 20.0, 1000.0]);
    cfg.routers = draws.range(1, 4);
}

fn timing(cfg: &mut Config, draws: &mut Draws) {
    cfg.engine = draws.pick(&EnginePreset::ALL);
    if cfg.engine == EnginePreset::Custom {
        cfg.step_fixed_us = draws.pick(&[0.0, 100.0, 6000.0]);
        cfg.prefill_token_us = draws.pick(&[0.0, 1.0, 32.0]);
        cfg.decode_seq_us = draws.pick(&[0.0, 20.0]);
        cfg.kv_read_token_ns = draws.pick(&[0.0, 49.0]);
        cfg.prefill_poly_ms = draws.pick(&[NO_POLY, DYNAMO_PREFILL_POLY_MS]);
        cfg.decode_poly_ms = draws.pick(&[NO_POLY, DYNAMO_DECODE_POLY_MS]);
    }
}

/// The deployed routers' own parameters, and the sessions' start rate (drawn after the
/// view, so older inputs keep their configs).
fn zoo(cfg: &mut Config, draws: &mut Draws) {
    cfg.dynamo_temperature = draws.pick(&[0.0, 0.0, 0.05, 1.0, 100.0]);
    cfg.dynamo_overlap_credit = draws.pick(&[1.0, 0.0, 0.5]);
    cfg.sglang_miss = draws.pick(&[SglangMiss::Load, SglangMiss::Tree]);
    cfg.llmd_weights = draws
        .pick(&["3,2,2", "1,1,1", "1,0,0", "0,1,0", "0,0,1"])
        .to_string();
    cfg.overlap_weight = draws.pick(&[1.0, 0.0, 4.0]);
    cfg.session_rate = draws.pick(&[1.0, 0.2, 20.0]);
}

/// A split fleet for half the inputs: 1 to 3 prefill and 1 to 3 decode replicas, every
/// decode routing, a skip threshold (often 0), a slow or fast link; half of them bound by
/// the decode pool.
fn split(cfg: &mut Config, draws: &mut Draws) {
    if draws.byte() % 2 != 1 {
        return;
    }
    let (prefill, decode) = (draws.range(1, 3), draws.range(1, 3));
    cfg.prefill_instances = Some(prefill);
    cfg.decode_instances = Some(decode);
    cfg.instances = prefill + decode;
    cfg.decode_routing = draws.pick(&DecodeRouting::ALL);
    cfg.disagg_min_uncached_tokens = draws.pick(&[0, 0, 0, 1, 64, 1024, 100_000]);
    cfg.kv_transfer_gbps = draws.pick(&[50.0, 50.0, 1.0, 0.01]);
    cfg.kv_transfer_base_us = draws.pick(&[50.0, 0.0, 5000.0]);
    cfg.kv_bytes_per_token = draws.maybe(&[1, 1000, 131_072]);
    if cfg.engine == EnginePreset::Custom && cfg.kv_bytes_per_token.is_none() {
        cfg.kv_bytes_per_token = Some(1000);
    }
    if draws.byte() % 2 == 1 {
        decode_bound(cfg);
    }
}

/// The decode pool the bottleneck: short prompts with short answers (some of one token,
/// done as soon as a decode replica admits them) arriving fast at 2 or more prefill
/// replicas over a fast link, one decode replica with 1 or 2 slots, so prefilled requests
/// queue there. A bounded cache keeps its spare blocks.
fn decode_bound(cfg: &mut Config) {
    let spare = cfg.kv_blocks.map(|blocks| blocks - needed_blocks(cfg));
    let prefill = cfg.prefill_instances.unwrap_or(1).max(2);
    cfg.prefill_instances = Some(prefill);
    cfg.decode_instances = Some(1);
    cfg.instances = prefill + 1;
    cfg.kv_transfer_gbps = cfg.kv_transfer_gbps.max(50.0);
    cfg.kv_transfer_base_us = cfg.kv_transfer_base_us.min(50.0);
    cfg.input_len = cfg.input_len.min(100);
    cfg.turn_input_len = cfg.turn_input_len.min(50);
    cfg.system_prompt_len = 0;
    cfg.output_len = cfg.output_len.clamp(2, 3);
    cfg.turn_output_len = cfg.turn_output_len.clamp(2, 3);
    cfg.range_ratio = 0.9;
    cfg.request_rate = cfg.request_rate.max(200.0);
    cfg.num_requests = cfg.num_requests.max(16);
    cfg.max_batch = if cfg.max_batch == 2 { 2 } else { 1 };
    let shortest = libm::floor(cfg.input_len as f64 * (1.0 - cfg.range_ratio)) as u32;
    cfg.prefix_len = cfg.prefix_len.min(shortest.max(1));
    cfg.kv_blocks = spare.map(|spare| needed_blocks(cfg) + spare);
}

/// Blocks the longest request needs (the smallest valid `kv_blocks`).
fn needed_blocks(cfg: &Config) -> u64 {
    let (prompt, output) = match cfg.workload {
        WorkloadKind::Pool => crate::params::max_lengths(cfg),
        WorkloadKind::Sessions => crate::params::session_max_lengths(cfg),
    };
    (prompt + output).div_ceil(cfg.block_size as u64)
}
