//! Validation of a config against the parameter table: every field in its range, and
//! the checks that need several fields (prefix within the prompt, a cache that fits the
//! longest request, the run's time and memory limits).

use super::{limits_of, MAX_SEED};
use crate::config::{Config, ConfigError, Popularity};
use crate::limits;
use crate::timing::{EnginePreset, Timing};
use crate::workload::Request;

fn check_range(name: &str, value: f64) -> Result<(), ConfigError> {
    let s = limits_of(name);
    let (min, max) = (s.min.unwrap_or(f64::MIN), s.max.unwrap_or(f64::MAX));
    if value.is_finite() && value >= min && value <= max {
        return Ok(());
    }
    let fmt = |x: f64| {
        if x.fract() == 0.0 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    };
    Err(ConfigError::new(
        name,
        crate::echo::number(value),
        format!("{} to {}{}", fmt(min), fmt(max), unit_suffix(s.unit)),
    ))
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() || unit == "x" {
        String::new()
    } else {
        format!(" {unit}")
    }
}

/// A time in ms the clock keeps exactly: a whole number of µs (the clock's step), so a
/// run never uses a value other than the one its report echoes (0.0004 ms would have
/// been 0, turning the feature off).
fn check_whole_us(name: &str, ms: f64) -> Result<(), ConfigError> {
    let us = ms * 1000.0;
    if (us - libm::round(us)).abs() <= 1e-6 * us.max(1.0) {
        return Ok(());
    }
    let lowest = if ms < 0.001 {
        "; the smallest above 0 is 0.001"
    } else {
        ""
    };
    Err(ConfigError::new(
        name,
        crate::echo::number(ms),
        format!(
            "a whole number of µs, in ms with at most 3 decimals (the simulator's clock counts \
             whole µs){lowest}"
        ),
    ))
}

/// The step-time coefficients of a config (the preset's, or the custom ones).
pub fn timing_of(cfg: &Config) -> Timing {
    let timing = match cfg.engine {
        EnginePreset::Custom => Timing {
            step_fixed_us: cfg.step_fixed_us,
            prefill_token_us: cfg.prefill_token_us,
            decode_seq_us: cfg.decode_seq_us,
            kv_read_token_ns: cfg.kv_read_token_ns,
            prefill_poly_ms: cfg.prefill_poly_ms,
            decode_poly_ms: cfg.decode_poly_ms,
            kv_capacity_tokens: 0.0,
        },
        preset => match cfg.replica_presets() {
            Some(presets) => slowest(&presets),
            None => preset.timing(),
        },
    };
    let capacity_blocks = cfg.kv_blocks.unwrap_or(0) as f64;
    Timing {
        kv_capacity_tokens: capacity_blocks * cfg.block_size as f64,
        ..timing
    }
}

/// The slowest of `presets`' coefficients, each the largest of any (a mixed fleet's
/// bound on how long a run can take).
fn slowest(presets: &[EnginePreset]) -> Timing {
    let mut t = presets[0].timing();
    for p in &presets[1..] {
        let u = p.timing();
        t.step_fixed_us = t.step_fixed_us.max(u.step_fixed_us);
        t.prefill_token_us = t.prefill_token_us.max(u.prefill_token_us);
        t.decode_seq_us = t.decode_seq_us.max(u.decode_seq_us);
        t.kv_read_token_ns = t.kv_read_token_ns.max(u.kv_read_token_ns);
    }
    t
}

/// A cache too small for the largest request: `kv_blocks` when it was set; in a mixed
/// fleet without it, the fleet, whose smallest preset's HBM is the capacity.
fn too_small(cfg: &Config, capacity: u64, needed: u64, why: &str) -> ConfigError {
    if cfg.kv_blocks.is_none() {
        return ConfigError::new(
            "fleet",
            &cfg.fleet,
            format!(
                "presets that each hold at least {needed} KV blocks: {why}; the smallest here \
                 holds {capacity} (set --des-kv-blocks for every replica, or use larger GPUs)"
            ),
        );
    }
    ConfigError::new(
        "kv_blocks",
        capacity,
        format!("at least {needed} blocks: {why}"),
    )
}

/// The longest prompt and output a synthetic config can draw, tokens.
pub fn max_lengths(cfg: &Config) -> (u64, u64) {
    let hi = |mean: u32| libm::floor(mean as f64 * (1.0 + cfg.range_ratio)) as u64;
    (hi(cfg.input_len), hi(cfg.output_len))
}

/// Validates every field of a config used for a synthetic run; returns the parsed
/// popularity. Trace replays use `validate_fleet` (workload fields are not used).
pub fn validate(cfg: &Config) -> Result<Popularity, ConfigError> {
    validate_fleet(cfg)?;
    for (name, value) in [
        ("request_rate", cfg.request_rate),
        ("burstiness", cfg.burstiness),
        ("num_requests", cfg.num_requests as f64),
        ("input_len", cfg.input_len as f64),
        ("output_len", cfg.output_len as f64),
        ("range_ratio", cfg.range_ratio),
        ("num_prefixes", cfg.num_prefixes as f64),
        ("prefix_len", cfg.prefix_len as f64),
        ("session_rate", cfg.session_rate),
        ("num_sessions", cfg.num_sessions as f64),
        ("turns", cfg.turns as f64),
        ("turn_input_len", cfg.turn_input_len as f64),
        ("turn_output_len", cfg.turn_output_len as f64),
        ("think_time_ms", cfg.think_time_ms),
        ("system_prompt_len", cfg.system_prompt_len as f64),
    ] {
        check_range(name, value)?;
    }
    if !cfg.request_rate_schedule.trim().is_empty() {
        crate::workload::Schedule::parse(&cfg.request_rate_schedule)?;
    }
    if cfg.workload == crate::config::WorkloadKind::Sessions {
        return validate_sessions(cfg).map(|_| popularity_or_uniform(cfg));
    }
    let popularity = Popularity::parse(&cfg.prefix_popularity)?;
    let shortest = libm::floor(cfg.input_len as f64 * (1.0 - cfg.range_ratio)) as u64;
    if cfg.num_prefixes > 0 && cfg.prefix_len as u64 > shortest.max(1) {
        return Err(ConfigError::new(
            "prefix_len",
            cfg.prefix_len,
            format!(
                "at most the shortest prompt, {shortest} tok (input_len {} with range_ratio {})",
                cfg.input_len, cfg.range_ratio
            ),
        ));
    }
    if let Some(capacity) = cfg.smallest_kv_blocks() {
        let (input, output) = max_lengths(cfg);
        let needed = (input + output).div_ceil(cfg.block_size as u64);
        if capacity < needed {
            let why = format!("the longest request ({input} prompt + {output} output tokens at block_size {}) must fit in one replica, or it could never run", cfg.block_size);
            return Err(too_small(cfg, capacity, needed, &why));
        }
    }
    limits::check_pool(cfg, &timing_of(cfg), max_lengths(cfg))?;
    Ok(popularity)
}

/// Validates a replay of parsed `requests` (named `name` in messages): the fleet fields,
/// then the run's worst-case duration and memory against the limits.
pub fn validate_replay(cfg: &Config, requests: &[Request], name: &str) -> Result<(), String> {
    validate_fleet(cfg).map_err(|e| e.to_string())?;
    check_block_ids(cfg.block_size, requests, name)?;
    limits::check_replay(cfg, &timing_of(cfg), requests, name)
}

/// Each request's block ids are one per `block_size`-token block of its prompt (the last
/// one partial), or none: requests read at another block size would be matched on ids
/// that do not cover their prompts.
fn check_block_ids(block_size: u32, requests: &[Request], name: &str) -> Result<(), String> {
    let wrong = requests.iter().enumerate().find(|(_, r)| {
        !r.block_ids.is_empty()
            && r.block_ids.len() != r.prompt_tokens.div_ceil(block_size) as usize
    });
    let Some((index, request)) = wrong else {
        return Ok(());
    };
    let (got, tokens) = (request.block_ids.len(), request.prompt_tokens);
    let expected = tokens.div_ceil(block_size);
    Err(format!(
        "{name}: request {} has {got} block ids for {tokens} prompt tokens, but a block size of \
         {block_size} tokens needs {expected}: its ids were made at another block size; replay \
         it at the block size it was read with (a trace's block size cannot be swept)",
        index + 1
    ))
}

fn popularity_or_uniform(cfg: &Config) -> Popularity {
    Popularity::parse(&cfg.prefix_popularity).unwrap_or(Popularity::Uniform)
}

/// The longest prompt and output of a sessions config (its last turn), tokens.
pub fn session_max_lengths(cfg: &Config) -> (u64, u64) {
    session_turn_lengths(cfg, cfg.turns - 1)
}

/// The longest prompt and output of turn `k` (from 0) of a sessions config, tokens: the
/// system prompt, k + 1 turns of new text and k answers.
pub fn session_turn_lengths(cfg: &Config, k: u32) -> (u64, u64) {
    let hi = |mean: u32| libm::floor(mean as f64 * (1.0 + cfg.range_ratio)) as u64;
    let k = k as u64;
    let prompt = cfg.system_prompt_len as u64
        + (k + 1) * hi(cfg.turn_input_len)
        + k * hi(cfg.turn_output_len);
    (prompt, hi(cfg.turn_output_len))
}

fn validate_sessions(cfg: &Config) -> Result<(), ConfigError> {
    let (prompt, _) = session_max_lengths(cfg);
    if prompt > u32::MAX as u64 {
        return Err(ConfigError::new(
            "turns",
            cfg.turns,
            format!(
                "a last turn whose prompt fits in {} tokens; this one reaches {prompt}",
                u32::MAX
            ),
        ));
    }
    if let Some(capacity) = cfg.smallest_kv_blocks() {
        let (prompt, output) = session_max_lengths(cfg);
        let needed = (prompt + output).div_ceil(cfg.block_size as u64);
        if capacity < needed {
            let why = format!("a task's last turn ({prompt} prompt + {output} output tokens at block_size {}) must fit in one replica", cfg.block_size);
            return Err(too_small(cfg, capacity, needed, &why));
        }
    }
    limits::check_sessions(cfg, &timing_of(cfg), |k| session_turn_lengths(cfg, k))
}

/// Validates the fleet, cache, engine and seed fields.
pub fn validate_fleet(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.seed > MAX_SEED {
        return Err(ConfigError::new(
            "seed",
            cfg.seed,
            format!("0 to {MAX_SEED} (2^53, the largest integer the page's numbers hold exactly)"),
        ));
    }
    check_pools_fit(cfg)?;
    check_fleet_size(cfg)?;
    for (name, value) in [
        ("instances", cfg.instances as f64),
        ("overlap_weight", cfg.overlap_weight),
        ("block_size", cfg.block_size as f64),
        ("max_batch", cfg.max_batch as f64),
        ("max_batched_tokens", cfg.max_batched_tokens as f64),
        ("step_fixed_us", cfg.step_fixed_us),
        ("prefill_token_us", cfg.prefill_token_us),
        ("decode_seq_us", cfg.decode_seq_us),
        ("kv_read_token_ns", cfg.kv_read_token_ns),
    ] {
        check_range(name, value)?;
    }
    if let Some(capacity) = cfg.kv_blocks {
        check_range("kv_blocks", capacity as f64)?;
    }
    for (name, poly, over_utilisation) in [
        ("prefill_poly_ms", cfg.prefill_poly_ms, false),
        ("decode_poly_ms", cfg.decode_poly_ms, true),
    ] {
        if let Some(allowed) = crate::timing::poly_problem(poly, over_utilisation) {
            let shown = format!("[{}, {}, {}]", poly[0], poly[1], poly[2]);
            return Err(ConfigError::new(name, shown, allowed));
        }
    }
    for (name, value) in [
        ("router_refresh_ms", cfg.router_refresh_ms),
        ("kv_event_lag_ms", cfg.kv_event_lag_ms),
        ("router_predict_ttl_ms", cfg.router_predict_ttl_ms),
        ("routers", cfg.routers as f64),
    ] {
        check_range(name, value)?;
    }
    for (name, value) in [
        ("router_refresh_ms", cfg.router_refresh_ms),
        ("kv_event_lag_ms", cfg.kv_event_lag_ms),
        ("router_predict_ttl_ms", cfg.router_predict_ttl_ms),
    ] {
        check_whole_us(name, value)?;
    }
    if let Some(affinity) = cfg.session_affinity {
        check_range("session_affinity", affinity)?;
    }
    check_range("spill_queue", cfg.spill_queue as f64)?;
    check_range("dynamo_temperature", cfg.dynamo_temperature)?;
    check_range("dynamo_overlap_credit", cfg.dynamo_overlap_credit)?;
    crate::config::parse_llmd_weights(&cfg.llmd_weights)?;
    if let Some(capacity) = cfg.queue_capacity {
        check_range("queue_capacity", capacity as f64)?;
    }
    if let Some(timeout) = cfg.timeout_ms {
        check_range("timeout_ms", timeout)?;
    }
    crate::config::validate_fleet_mix(cfg)?;
    crate::config::parse_gpu_prices(&cfg.gpu_hour_usd)?;
    validate_router_cpu(cfg)?;
    validate_autoscale(cfg)?;
    validate_pools(cfg)?;
    validate_cpu_tier(cfg)?;
    validate_shared_tier(cfg)
}

/// The autoscaler: its bounds around the starting size, its knobs within their limits,
/// and a fleet it can resize (colocated, live router view, no CPU tier).
fn validate_autoscale(cfg: &Config) -> Result<(), ConfigError> {
    for (name, value) in [
        ("kpa_target", cfg.kpa_target),
        ("kpa_stable_window_s", cfg.kpa_stable_window_s),
        ("kpa_panic_window_pct", cfg.kpa_panic_window_pct),
        ("kpa_panic_threshold_pct", cfg.kpa_panic_threshold_pct),
        ("kpa_max_scale_up_rate", cfg.kpa_max_scale_up_rate),
        ("kpa_max_scale_down_rate", cfg.kpa_max_scale_down_rate),
        ("slo_ttft_ms", cfg.slo_ttft_ms_or_default()),
        ("slo_itl_ms", cfg.slo_itl_ms_or_default()),
        ("slo_interval_s", cfg.slo_interval_s),
        ("slo_scale_down_pct", cfg.slo_scale_down_pct),
    ] {
        check_range(name, value)?;
    }
    if let Some(startup) = cfg.startup_s {
        check_range("startup_s", startup)?;
    }
    for (name, value) in [
        ("min_instances", cfg.min_instances),
        ("max_instances", cfg.max_instances),
    ] {
        if let Some(v) = value {
            check_range(name, v as f64)?;
        }
    }
    if !cfg.autoscaled() {
        return Ok(());
    }
    let (min, max) = (
        cfg.min_instances_or_default(),
        cfg.max_instances_or_default(),
    );
    if let Some(given) = cfg.max_instances.filter(|&m| m < cfg.instances) {
        return Err(ConfigError::new(
            "max_instances",
            given,
            format!("at least the starting size, instances = {}", cfg.instances),
        ));
    }
    if min > cfg.instances {
        return Err(ConfigError::new(
            "min_instances",
            min,
            format!(
                "at most the starting size, instances = {} (and at most max_instances = {max})",
                cfg.instances
            ),
        ));
    }
    let refuse =
        |why: &str| ConfigError::new("autoscale", cfg.autoscale.name(), format!("off {why}"));
    if cfg.pools().is_some() {
        return Err(refuse(
            "on a split fleet (autoscaling resizes a colocated fleet)",
        ));
    }
    if cfg.router_view == crate::config::RouterView::Offline {
        return Err(refuse(
            "with router_view offline (its routing pass runs before timing, on a fixed fleet)",
        ));
    }
    if cfg.cpu_tier().is_some() {
        return Err(refuse(
            "with a CPU tier (a replica's tier would leave with it; not modelled)",
        ));
    }
    Ok(())
}

/// The routers' own CPU: cores, CPU times and queue within their limits.
fn validate_router_cpu(cfg: &Config) -> Result<(), ConfigError> {
    if let Some(vcpu) = cfg.router_vcpu {
        check_range("router_vcpu", vcpu as f64)?;
    }
    check_range("router_cpu_us_fixed", cfg.router_cpu_us_fixed)?;
    check_range("router_cpu_us_per_block", cfg.router_cpu_us_per_block)?;
    if let Some(queue) = cfg.router_queue {
        check_range("router_queue", queue as f64)?;
    }
    Ok(())
}

/// Two pools larger together than a fleet may be, blamed on the pool sizes (the fleet's
/// size is their sum, not a flag the user gave).
/// A mixed fleet's replicas in all, named as the fleet (it sets the replicas).
fn check_fleet_size(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.fleet.is_empty() || check_range("instances", cfg.instances as f64).is_ok() {
        return Ok(());
    }
    let s = limits_of("instances");
    let (min, max) = (s.min.unwrap_or(1.0), s.max.unwrap_or(f64::MAX));
    Err(ConfigError::new(
        "fleet",
        &cfg.fleet,
        format!(
            "{min} to {max} replicas in all, counting every preset's; this fleet has {}",
            cfg.instances
        ),
    ))
}

fn check_pools_fit(cfg: &Config) -> Result<(), ConfigError> {
    let Some(pools) = cfg.pools() else {
        return Ok(());
    };
    check_range("prefill_instances", pools.prefill as f64)?;
    check_range("decode_instances", pools.decode as f64)?;
    let max = limits_of("instances").max.unwrap_or(f64::MAX);
    let (p, d) = (pools.prefill as f64, pools.decode as f64);
    if p + d <= max {
        return Ok(());
    }
    Err(ConfigError::new(
        "prefill_instances",
        pools.prefill,
        format!(
            "at most {} with decode_instances {}: a fleet holds at most {max} replicas, and \
             prefill_instances + decode_instances make {}",
            max - d,
            pools.decode,
            p + d
        ),
    ))
}

/// The CPU tier's fields: in range, and its loads know their bytes per token.
fn validate_cpu_tier(cfg: &Config) -> Result<(), ConfigError> {
    check_range("cpu_load_gbps", cfg.cpu_load_gbps)?;
    check_range("cpu_load_base_us", cfg.cpu_load_base_us)?;
    let Some(blocks) = cfg.cpu_kv_blocks.filter(|&n| n > 0) else {
        return Ok(());
    };
    check_range("cpu_kv_blocks", blocks as f64)?;
    if cfg.kv_bytes_per_token_or_preset().is_none() {
        return Err(ConfigError::new(
            "kv_bytes_per_token",
            "unset",
            "1 to 100000000 B: a custom engine has no model to take the KV bytes per token from, and the CPU tier's loads need them",
        ));
    }
    Ok(())
}

/// The shared tier's fields: in range, and its loads know their bytes per token.
fn validate_shared_tier(cfg: &Config) -> Result<(), ConfigError> {
    check_range("shared_gbps", cfg.shared_gbps)?;
    check_range("shared_latency_us", cfg.shared_latency_us)?;
    let Some(blocks) = cfg.shared_kv_blocks.filter(|&n| n > 0) else {
        return Ok(());
    };
    check_range("shared_kv_blocks", blocks as f64)?;
    if cfg.kv_bytes_per_token_or_preset().is_none() {
        return Err(ConfigError::new(
            "kv_bytes_per_token",
            "unset",
            "1 to 100000000 B: a custom engine has no model to take the KV bytes per token from, and the shared tier's loads need them",
        ));
    }
    Ok(())
}

/// The disaggregation fields: both pool sizes or neither, their sum is `instances`, and
/// transfers know their bytes per token.
fn validate_pools(cfg: &Config) -> Result<(), ConfigError> {
    check_range("kv_transfer_gbps", cfg.kv_transfer_gbps)?;
    check_range("kv_transfer_base_us", cfg.kv_transfer_base_us)?;
    check_range(
        "disagg_min_uncached_tokens",
        cfg.disagg_min_uncached_tokens as f64,
    )?;
    if let Some(bytes) = cfg.kv_bytes_per_token {
        check_range("kv_bytes_per_token", bytes as f64)?;
    }
    let (p, d) = match (cfg.prefill_instances, cfg.decode_instances) {
        (None, None) => return Ok(()),
        (Some(p), Some(d)) => (p, d),
        (Some(p), None) => {
            return Err(ConfigError::new(
                "decode_instances",
                "unset",
                format!("1 to 255 replicas: prefill_instances ({p}) disaggregates the fleet, which needs a decode pool too"),
            ))
        }
        (None, Some(d)) => {
            return Err(ConfigError::new(
                "prefill_instances",
                "unset",
                format!("1 to 255 replicas: decode_instances ({d}) disaggregates the fleet, which needs a prefill pool too"),
            ))
        }
    };
    check_range("prefill_instances", p as f64)?;
    check_range("decode_instances", d as f64)?;
    if cfg.instances != p + d {
        return Err(ConfigError::new(
            "instances",
            cfg.instances,
            format!("{} in a disaggregated fleet: prefill_instances ({p}) + decode_instances ({d}); leave --des-instances out", p + d),
        ));
    }
    if cfg.kv_bytes_per_token_or_preset().is_none() {
        return Err(ConfigError::new(
            "kv_bytes_per_token",
            "unset",
            "1 to 100000000 B: a custom engine has no model to take the KV bytes per token from, and a disaggregated fleet's transfers need them",
        ));
    }
    Ok(())
}
