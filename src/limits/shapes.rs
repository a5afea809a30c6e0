//! The three kinds of run (prefix pool, sessions, trace replay) in the terms of the time
//! bound and the memory estimate, checked before the run starts.

use super::memory::{parsed_bytes, request_bytes, router_bytes, Footprint};
use super::{check_transfer_bytes, Horizon, LinkCost, Work};
use crate::config::{Config, ConfigError};
use crate::timing::Timing;
use crate::workload::{Clock, Request};

const TIME_ADVICE: &str = "use shorter requests, fewer of them, or a higher arrival rate";
const LINK_ADVICE: &str = ", or a faster KV link, or fewer KV bytes per token";
const BYTES_ADVICE: &str = "use shorter requests or fewer of them";

/// The cost of one KV transfer on `cfg`'s fleet: `None` when it is colocated.
pub fn link_cost(cfg: &Config) -> Option<LinkCost> {
    cfg.pools()?;
    Some(LinkCost {
        bytes_per_token: cfg.kv_bytes_per_token_or_preset().unwrap_or(0),
        gbps: cfg.kv_transfer_gbps,
        base_us: cfg.kv_transfer_base_us,
    })
}

/// The link time `work`'s transfers may take on `cfg`'s fleet (0 when colocated), µs,
/// or why their bytes cannot be counted.
fn transfer_bound_us(cfg: &Config, work: &Work) -> Result<f64, String> {
    let Some(link) = link_cost(cfg) else {
        return Ok(0.0);
    };
    check_transfer_bytes(work, &link)?;
    Ok(work.transfer_bound_us(&link))
}

/// What to change when `horizon` is beyond the clock.
fn time_advice(horizon: &Horizon) -> String {
    if horizon.transfer_us > 0.0 {
        format!("{TIME_ADVICE}{LINK_ADVICE}")
    } else {
        TIME_ADVICE.to_string()
    }
}
const MEMORY_ADVICE: &str = "bound the caches (kv_blocks), or use fewer or shorter requests";

/// The error of a synthetic run that a limit refuses: blamed on the count that scales it.
fn refused(field: &str, value: u32, what: &str, why: String, advice: &str) -> ConfigError {
    ConfigError::new(field, value, format!("{what}; {why}; {advice}"))
}

/// A prefix-pool run of `cfg` whose longest request is `longest` (prompt, output) tokens.
pub fn check_pool(cfg: &Config, timing: &Timing, longest: (u64, u64)) -> Result<(), ConfigError> {
    let n = cfg.num_requests as f64;
    let (prompt, output) = (longest.0 as f64, longest.1 as f64);
    let mut work = Work::default();
    work.add(n, prompt, output);
    let blame =
        |what, why, advice: &str| refused("num_requests", cfg.num_requests, what, why, advice);
    let transfer_us = transfer_bound_us(cfg, &work)
        .map_err(|why| blame("a run whose KV bytes can be counted", why, BYTES_ADVICE))?;
    let horizon = Horizon {
        arrivals_us: Clock::new(cfg, cfg.request_rate).max_span_us(n),
        busy_us: work.busy_bound_us(timing, cfg.max_batched_tokens),
        think_us: 0.0,
        transfer_us,
        router_us: work.router_bound_us(cfg),
    };
    horizon.check().map_err(|why| {
        blame(
            "a run within the simulator's clock",
            why,
            &time_advice(&horizon),
        )
    })?;
    pool_footprint(cfg, longest.0)
        .check()
        .map_err(|why| blame("a run that fits in memory", why, MEMORY_ADVICE))
}

/// Cache entries: each prefix once per replica, then every request's own full blocks;
/// alive: every request (an overloaded fleet queues them all) unless the queues are
/// bounded.
fn pool_footprint(cfg: &Config, longest_prompt: u64) -> Footprint {
    let n = cfg.num_requests as f64;
    let replicas = cfg.instances as f64;
    let bs = cfg.block_size as u64;
    let full = longest_prompt / bs;
    let prefix = if cfg.num_prefixes > 0 {
        (cfg.prefix_len as u64 / bs).min(full)
    } else {
        0
    };
    let prefixes = (cfg.num_prefixes as f64).min(n);
    let cached = prefixes * prefix as f64 * replicas + n * (full - prefix) as f64;
    // In flight, the router counts each replica's distinct blocks: at most what unbounded
    // caches would hold, and at most every live request's own.
    let live = live_requests(cfg, n);
    let inflight = cached.min(live * full as f64);
    Footprint {
        cached_blocks: cached,
        live_requests: live,
        request_bytes: request_bytes(longest_prompt.div_ceil(bs) as f64),
        input_bytes: 0.0,
        router_bytes: router_bytes(cfg, inflight, n * full as f64),
        replicas,
    }
    .bounded_by(cfg.kv_blocks)
}

/// At most `n`, or what the bounded queues and slots hold (a router with cores holds
/// its cores' and its queue's requests too; all of them when its queue is unbounded).
fn live_requests(cfg: &Config, n: f64) -> f64 {
    let at_router = match (cfg.router_vcpu, cfg.router_queue) {
        (None, _) => 0.0,
        (Some(_), None) => n,
        (Some(c), Some(q)) => cfg.routers as f64 * (c as f64 + q as f64),
    };
    match cfg.queue_capacity {
        Some(q) => n.min(cfg.instances as f64 * (cfg.max_batch as f64 + q as f64) + at_router),
        None => n,
    }
}

/// A sessions run: `turn_lengths(k)` is turn k's longest (prompt, output), tokens.
pub fn check_sessions(
    cfg: &Config,
    timing: &Timing,
    turn_lengths: impl Fn(u32) -> (u64, u64),
) -> Result<(), ConfigError> {
    let tasks = cfg.num_sessions as f64;
    let bs = cfg.block_size as u64;
    let mut work = Work::default();
    let mut chain_blocks = 0.0;
    for k in 0..cfg.turns {
        let (prompt, output) = turn_lengths(k);
        work.add(tasks, prompt as f64, output as f64);
        chain_blocks += ((prompt + output) / bs) as f64;
    }
    let (last_prompt, last_output) = turn_lengths(cfg.turns - 1);
    let blame =
        |what, why, advice: &str| refused("num_sessions", cfg.num_sessions, what, why, advice);
    let transfer_us = transfer_bound_us(cfg, &work)
        .map_err(|why| blame("a run whose KV bytes can be counted", why, BYTES_ADVICE))?;
    let horizon = Horizon {
        arrivals_us: Clock::new(cfg, cfg.session_rate).max_span_us(tasks),
        busy_us: work.busy_bound_us(timing, cfg.max_batched_tokens),
        think_us: (cfg.turns - 1) as f64 * cfg.think_time_ms * 1000.0,
        transfer_us,
        router_us: work.router_bound_us(cfg),
    };
    horizon.check().map_err(|why| {
        blame(
            "a run within the simulator's clock",
            why,
            &time_advice(&horizon),
        )
    })?;
    // A task's blocks sit on every replica it visits (at most one per turn), and never
    // exceed all the blocks its turns brought. Each live task holds its block ids twice
    // (its state, with room to grow, and the request sent).
    let last_ids = (last_prompt + last_output).div_ceil(bs) as f64;
    let visits = cfg.turns.min(cfg.instances) as f64;
    Footprint {
        cached_blocks: tasks * chain_blocks.min(visits * last_ids),
        live_requests: tasks,
        request_bytes: request_bytes(4.0 * last_ids),
        input_bytes: 0.0,
        router_bytes: router_bytes(cfg, tasks * last_ids, tasks * chain_blocks),
        replicas: cfg.instances as f64,
    }
    .bounded_by(cfg.kv_blocks)
    .check()
    .map_err(|why| blame("a run that fits in memory", why, MEMORY_ADVICE))
}

/// A replay of `requests` (in arrival order) named `name`.
pub fn check_replay(
    cfg: &Config,
    timing: &Timing,
    requests: &[Request],
    name: &str,
) -> Result<(), String> {
    let work = Work::of(requests);
    let transfer_us = transfer_bound_us(cfg, &work).map_err(|why| {
        format!("{name}: the replay's KV bytes cannot be counted: {why}; {BYTES_ADVICE}")
    })?;
    let horizon = Horizon {
        arrivals_us: requests.last().map_or(0.0, |r| r.arrival_us as f64),
        busy_us: work.busy_bound_us(timing, cfg.max_batched_tokens),
        think_us: 0.0,
        transfer_us,
        router_us: work.router_bound_us(cfg),
    };
    horizon.check().map_err(|why| {
        let advice = time_advice(&horizon);
        format!("{name}: the replay could outlast the simulator's clock: {why}; {advice}")
    })?;
    let bs = cfg.block_size;
    let cached: u64 = requests
        .iter()
        .filter(|r| !r.block_ids.is_empty())
        .map(|r| (r.prompt_tokens / bs) as u64)
        .sum();
    Footprint {
        cached_blocks: cached as f64,
        live_requests: 0.0,
        request_bytes: 0.0,
        input_bytes: parsed_bytes(requests, requests.len()),
        router_bytes: router_bytes(cfg, cached as f64, cached as f64),
        replicas: cfg.instances as f64,
    }
    .bounded_by(cfg.kv_blocks)
    .check()
    .map_err(|why| {
        format!(
            "{name}: the replay does not fit in memory: {why}; bound the caches \
             (--des-kv-blocks) or replay fewer requests (--des-max-requests)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool_bytes(num_requests: u32) -> f64 {
        let cfg = Config {
            num_requests,
            ..Config::default()
        };
        pool_footprint(&cfg, 4096).bytes()
    }

    #[test]
    fn the_default_pool_fits_the_browser_at_three_million_requests() {
        // Default prompts: 8 blocks, 4 from the pool, so 4 cached blocks a request at
        // 128 B (and the router's in-flight count of them at 32 B), and each request
        // alive holds 8 ids: 3e6 x (512 + 128 + 96 + 64 + 80) bytes, 2.5 GiB, stays under
        // the browser's 3 GiB; 10^7 exceeds even the native 4 GiB.
        assert!(pool_bytes(3_000_000) < (3u64 << 30) as f64);
        assert!(pool_bytes(10_000_000) > (4u64 << 30) as f64);
    }

    #[test]
    fn the_lesson_sized_sessions_are_far_below_the_limits() {
        let cfg = Config {
            workload: crate::config::WorkloadKind::Sessions,
            ..Config::default()
        };
        let timing = crate::params::timing_of(&cfg);
        let lengths = |k| crate::params::session_turn_lengths(&cfg, k);
        assert!(check_sessions(&cfg, &timing, lengths).is_ok());
        let huge = Config {
            num_sessions: 1_000_000,
            turns: 1000,
            turn_input_len: 10_000,
            ..cfg
        };
        let lengths = |k| crate::params::session_turn_lengths(&huge, k);
        let err = check_sessions(&huge, &timing, lengths).unwrap_err();
        assert_eq!(err.field, "num_sessions");
        assert!(err.allowed.contains("fits in memory"), "{err}");
    }
}
