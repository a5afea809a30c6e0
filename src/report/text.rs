//! The human text report: the seed's header and three fleet lines, the latency table,
//! the per-replica table and hot-spot warnings.

use std::fmt::Write;

use crate::config::{Config, RouterView};
use crate::numbers::{duration, seconds};
use crate::report::autoscale::{fleet_size, AutoscaleReport};
use crate::report::{Report, Summary};

/// A share as a percentage, or "–" for a statistic over nothing.
fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1}%", 100.0 * x)
    } else {
        "–".to_string()
    }
}

/// A share as a whole percentage, or "–".
fn pct0(x: f64) -> String {
    if x.is_finite() {
        format!("{:.0}%", 100.0 * x)
    } else {
        "–".to_string()
    }
}

/// "88–90%" for the per-instance spread, or "–" when no replica admitted a request.
fn spread(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!("{:.0}–{:.0}%", 100.0 * lo, 100.0 * hi)
    } else {
        "–".to_string()
    }
}

/// The seed's three fleet lines, word for word in form; under an autoscaler (`scaler`) the
/// first names the replicas ready over the run instead of the starting size alone.
pub fn fleet_lines(
    cfg: &Config,
    source: &str,
    s: &Summary,
    scaler: Option<&AutoscaleReport>,
) -> Vec<String> {
    let pool = if source == "synthetic" {
        format!("prefix pool: {} prefixes", cfg.num_prefixes)
    } else {
        format!("workload: {source}")
    };
    let capacity = match mixed_capacity(cfg) {
        Some(text) => text,
        None => cfg
            .kv_blocks
            .map_or("unbounded".to_string(), |b| format!("{b} blocks")),
    };
    let size = scaler.map_or_else(
        || format!("{} instance(s)", cfg.instances),
        |a| fleet_size(a, cfg.instances),
    );
    let mut lines = vec![
        format!("  Fleet: {size}, routing={} | {pool}", cfg.routing.name()),
        format!(
            "  KV block cache: block_size={} tok, capacity/instance={capacity}, evictions={}, block-reuse={}",
            cfg.block_size,
            s.evictions,
            pct(s.block_reuse)
        ),
        format!(
            "  Prefix-cache hit rate: {} of requests (avg {} cached tok/req; per-instance {})",
            pct(s.hit_rate_requests),
            whole(s.cached_tokens_avg),
            spread(s.hit_rate_instance_min, s.hit_rate_instance_max)
        ),
    ];
    lines.extend(mixed_line(cfg, s));
    lines
}

/// A mixed fleet's capacity per preset: `859 blocks (llama3-8b-h100), 2142 blocks
/// (llama3-8b-mi300x)`.
fn mixed_capacity(cfg: &Config) -> Option<String> {
    let parts: Vec<String> = cfg
        .fleet_groups()?
        .iter()
        .map(|g| {
            let blocks = cfg.fleet_kv_blocks(g.preset).unwrap_or(0);
            format!("{blocks} blocks ({})", g.preset.name())
        })
        .collect();
    Some(parts.join(", "))
}

/// A mixed fleet's line: its groups, its GPUs, their price per hour and each preset's
/// price of a GPU-hour.
fn mixed_line(cfg: &Config, s: &Summary) -> Option<String> {
    let label = cfg.fleet_label()?;
    let usd = s.usd_per_hour?;
    let gpus = cfg.fleet_gpus()?;
    let prices: Vec<String> = cfg
        .fleet_groups()?
        .iter()
        .map(|g| {
            format!(
                "${:.2}/GPU-h {}",
                cfg.gpu_hour_usd_of(g.preset),
                g.preset.name()
            )
        })
        .collect();
    Some(format!(
        "  Mixed fleet: {label}; {gpus} GPUs, ${usd:.2}/h at {}",
        prices.join(", ")
    ))
}

fn whole(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.0}")
    } else {
        "–".to_string()
    }
}

fn latency_row(out: &mut String, name: &str, v: [f64; 4]) {
    let _ = writeln!(
        out,
        "  {name:<20}{:>10}{:>10}{:>10}{:>10}",
        duration(v[0]),
        duration(v[1]),
        duration(v[2]),
        duration(v[3])
    );
}

/// What the router knew, when it is not the default (one router, exact view, no
/// speculative entries).
pub fn router_line(c: &Config) -> Option<String> {
    let predict = c.router_predict_ttl_ms > 0.0 && c.router_view != RouterView::Offline;
    if c.router_view == RouterView::Exact && c.routers == 1 && !predict {
        return None;
    }
    let view = match c.router_view {
        RouterView::Exact => "exact".to_string(),
        RouterView::Offline => {
            "offline (the seed's routing pass: each pick cached at once, no in-flight term)"
                .to_string()
        }
        RouterView::Snapshot => format!(
            "snapshot (load signals refreshed every {} ms, KV events seen {} ms late)",
            c.router_refresh_ms, c.kv_event_lag_ms
        ),
    };
    let mut line = format!("  Router: view={view}, {} router(s)", c.routers);
    if predict {
        line.push_str(&format!(
            ", routed blocks predicted for {} ms",
            c.router_predict_ttl_ms
        ));
    }
    Some(line)
}

/// The rate schedule a synthetic run followed (none for a replay, or without one).
fn schedule_of(r: &Report) -> Option<crate::workload::Schedule> {
    let synthetic = matches!(r.source.as_str(), "synthetic" | "sessions");
    crate::workload::schedule::of(&r.config).filter(|_| synthetic)
}

/// The arrivals line of a run under a rate schedule.
fn schedule_line(r: &Report) -> String {
    let unit = if r.source == "sessions" {
        "tasks/s"
    } else {
        "req/s"
    };
    format!(
        "  Arrivals: {} on the schedule {} ({unit}; {:.2} req/s drawn; achieved {:.1} req/s)",
        r.config.arrival_model.name(),
        r.config.request_rate_schedule.trim(),
        r.summary.offered_rate,
        r.summary.achieved_rate
    )
}

/// The whole text report.
pub fn render(r: &Report) -> String {
    let s = &r.summary;
    let c = &r.config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kvfleet: discrete-event simulation (arrival-driven), seed {}",
        r.seed
    );
    if let Some(line) = schedule_of(r).map(|_| schedule_line(r)) {
        let _ = writeln!(out, "{line}");
    } else if r.source == "synthetic" {
        let _ = writeln!(
            out,
            "  Arrivals: {} @ {:.1} req/s offered ({:.2} req/s drawn; achieved {:.1} req/s)",
            c.arrival_model.name(),
            c.request_rate,
            s.offered_rate,
            s.achieved_rate
        );
    } else {
        let _ = writeln!(
            out,
            "  Arrivals: {} @ {:.2} req/s offered (achieved {:.2} req/s)",
            r.source, s.offered_rate, s.achieved_rate
        );
    }
    let _ = writeln!(
        out,
        "  Simulated: {} requests over {:.1} s -> output throughput {:.0} tok/s, makespan {:.1} s ({} events)",
        s.requests, s.makespan_s, s.throughput_tok_s, s.makespan_s, s.events
    );
    let _ = writeln!(
        out,
        "  {:<20}{:>10}{:>10}{:>10}{:>10}",
        "metric", "mean", "p50", "p90", "p99"
    );
    latency_row(
        &mut out,
        "TTFT (from arrival)",
        [s.ttft_ms_mean, s.ttft_ms_p50, s.ttft_ms_p90, s.ttft_ms_p99],
    );
    latency_row(
        &mut out,
        "  queue wait",
        [
            s.queue_ms_mean,
            s.queue_ms_p50,
            s.queue_ms_p90,
            s.queue_ms_p99,
        ],
    );
    latency_row(
        &mut out,
        "  TTFT (from admit)",
        [
            s.ttft_admit_ms_mean,
            s.ttft_admit_ms_p50,
            s.ttft_admit_ms_p90,
            s.ttft_admit_ms_p99,
        ],
    );
    latency_row(
        &mut out,
        "TPOT (per token)",
        [s.tpot_ms_mean, s.tpot_ms_p50, s.tpot_ms_p90, s.tpot_ms_p99],
    );
    latency_row(
        &mut out,
        "ITL (inter-token)",
        [s.itl_ms_mean, s.itl_ms_p50, s.itl_ms_p90, s.itl_ms_p99],
    );
    latency_row(
        &mut out,
        "End-to-end",
        [s.e2e_ms_mean, s.e2e_ms_p50, s.e2e_ms_p90, s.e2e_ms_p99],
    );
    let targets = c.slo_targets();
    if let Some(line) =
        crate::report::over_time::attained_line(s.slo_attained, s.completed, targets)
    {
        let _ = writeln!(out, "{line}");
    }
    for line in &r.fleet_lines {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = router_line(c) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(p) = &r.pools {
        let _ = writeln!(out, "{}", p.line);
    }
    let _ = writeln!(
        out,
        "  Token hit rate: {} of prompt tokens ({} of {} tok cached) | completed {}, rejected {}{}, timed out {}",
        pct(s.hit_rate_tokens),
        s.cached_tokens,
        s.prompt_tokens,
        s.completed,
        s.rejected,
        rejected_why(s, c.kv_blocks, r.router_cpu.as_ref().map_or(0, |x| x.rejected)),
        s.timed_out
    );
    if let Some(line) = router_cpu_line(r) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(a) = &r.autoscale {
        for line in crate::report::autoscale::lines(a) {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(
        out,
        "  Routing capture: {} of the cached blocks the best-placed replica held at each pick ({} of {} blocks)",
        pct(s.routing_capture),
        s.pick_hit_blocks,
        s.best_hit_blocks
    );
    if let Some(line) = preemption_line(r) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = tier_line(r) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = shared_line(r) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(t) = &r.sessions {
        let _ = writeln!(
            out,
            "  Tasks: {} started, {} completed, {} failed | task time mean {}, p50 {}, p99 {}",
            t.tasks,
            t.completed_tasks,
            t.failed_tasks,
            seconds(t.task_s.mean),
            seconds(t.task_s.p50),
            seconds(t.task_s.p99)
        );
        let by_turn: Vec<String> = t
            .token_hit_rate_by_turn
            .iter()
            .map(|x| format!("{:.0}", 100.0 * x))
            .collect();
        let _ = writeln!(out, "  Token hit rate by turn (%): {}", by_turn.join(" "));
    }
    let pool_column = if r.pools.is_some() {
        "  pool"
    } else if r.config.replica_presets().is_some() {
        "  preset"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "  replica  requests  prompt tok  hit rate  tok hit  saturated  peak queue  evictions  rejected  timed out{pool_column}"
    );
    for p in &r.per_instance {
        let _ = writeln!(
            out,
            "  {:>7}  {:>8}  {:>10}  {:>8}  {:>7}  {:>9}  {:>10}  {:>9}  {:>8}  {:>9}{}",
            p.index,
            p.requests,
            p.prompt_tokens,
            pct(p.hit_rate_requests),
            pct(p.hit_rate_tokens),
            pct0(p.saturated_share),
            p.peak_queue,
            p.evictions,
            p.rejected,
            p.timed_out,
            p.pool
                .or(p.preset)
                .map_or(String::new(), |name| format!("  {name}"))
        );
    }
    if let Some(presets) = &r.presets {
        let _ = writeln!(out, "{}", crate::report::mixed_line(presets));
    }
    if let Some(schedule) = schedule_of(r) {
        for line in crate::report::over_time::lines(&r.series, &schedule, r.config.slo_targets()) {
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(u) = &r.unended {
        let _ = writeln!(out, "  ERROR: {}", u.sentence());
    }
    for f in &r.findings {
        let _ = writeln!(out, "  WARNING: {}", f.text);
    }
    if let Some(seeds) = &r.seeds {
        out.push_str(&crate::noise::text::render(seeds));
    }
    out
}

/// The line a `preempt` run adds: preemptions in the fleet and per replica, the tokens
/// recomputed and the time lost. Left out where no replica's cache is bounded, since a
/// replica preempts only for want of a block (the JSON keeps its zeros).
pub fn preemption_line(r: &Report) -> Option<String> {
    let p = r.summary.preemption.as_ref()?;
    let unbounded = r.config.kv_blocks.is_none() && r.config.fleet_groups().is_none();
    if unbounded && p.preemptions == 0 {
        return None;
    }
    let per: Vec<String> = r
        .per_instance
        .iter()
        .map(|i| {
            i.preemption
                .as_ref()
                .map_or(0, |x| x.preemptions)
                .to_string()
        })
        .collect();
    Some(format!(
        "  Preemptions (admission=preempt): {} (per replica {}), recomputed {} tok, time lost {}",
        p.preemptions,
        per.join("/"),
        p.recomputed_tokens,
        duration(p.time_lost_ms)
    ))
}

/// The line a run with a CPU tier adds: the cached tokens per tier, the loads, the
/// bytes moved each way and the evictions per tier.
pub fn tier_line(r: &Report) -> Option<String> {
    let t = r.summary.cpu_tier.as_ref()?;
    Some(format!(
        "  CPU tier: {} tok from HBM, {} tok loaded from CPU ({:.1}% of prompt tokens) in {} loads ({:.2} GB, {} on the link, {} queued); demoted {:.2} GB; evictions HBM {}, CPU {}",
        t.hbm_hit_tokens,
        t.cpu_hit_tokens,
        t.cpu_hit_rate_tokens * 100.0,
        t.loads,
        t.loaded_bytes as f64 / 1e9,
        duration(t.load_ms),
        duration(t.load_wait_ms),
        t.demoted_bytes as f64 / 1e9,
        t.hbm_evictions,
        t.cpu_evictions
    ))
}

/// The line a run with a shared tier adds: the cached tokens per tier, the loads over
/// the network, the bytes written and the shared tier's evictions.
pub fn shared_line(r: &Report) -> Option<String> {
    let t = r.summary.shared_tier.as_ref()?;
    Some(format!(
        "  Shared tier: {} tok from HBM, {} from CPU, {} loaded from the shared tier ({:.1}% of prompt tokens) in {} loads ({:.2} GB, {} on the links, {} queued); written {:.2} GB; shared evictions {}",
        t.hbm_hit_tokens,
        t.cpu_hit_tokens,
        t.shared_hit_tokens,
        t.shared_hit_rate_tokens * 100.0,
        t.loads,
        t.loaded_bytes as f64 / 1e9,
        duration(t.load_ms),
        duration(t.load_wait_ms),
        t.demoted_bytes as f64 / 1e9,
        t.shared_evictions
    ))
}

/// The line a router with cores adds: cores, each router's busy share, the routing
/// delay (part of TTFT) and the requests its full queue refused.
pub fn router_cpu_line(r: &Report) -> Option<String> {
    let x = r.router_cpu.as_ref()?;
    let busy: Vec<String> = x.busy_share.iter().map(|&b| pct0(b)).collect();
    Some(format!(
        "  Router CPU: {} vCPU x {} router(s), busy {} | routing delay (in TTFT) mean {}, p99 {} | router queue {}, rejected {}{}",
        x.vcpu,
        x.busy_share.len(),
        busy.join("/"),
        duration(x.routing_delay_ms_mean),
        duration(x.routing_delay_ms_p99),
        r.config.router_queue.map_or("unbounded".to_string(), |q| q.to_string()),
        x.rejected,
        match x.timed_out {
            0 => String::new(),
            n => format!(", timed out {n}"),
        }
    ))
}

/// ` (why)` after the rejected count: the reasons the report recorded, or nothing.
fn rejected_why(s: &Summary, kv_blocks: Option<u64>, at_router: u64) -> String {
    let mut why = crate::report::rejection_reasons(
        s.rejected.saturating_sub(at_router),
        s.rejected_queue_full,
        s.rejected_too_large,
        kv_blocks,
    );
    if at_router > 0 {
        let at_replicas = s.rejected.saturating_sub(at_router);
        why = match (why.is_empty(), at_replicas) {
            (_, 0) => "router queue full".to_string(),
            (true, _) => format!("{at_router} router queue full"),
            (false, _) if why.contains(", ") || why.starts_with(char::is_numeric) => {
                format!("{why}, {at_router} router queue full")
            }
            (false, n) => format!("{n} {why}, {at_router} router queue full"),
        };
    }
    if why.is_empty() {
        why
    } else {
        format!(" ({why})")
    }
}

/// The one line a disaggregated run adds: each pool, the transfers, the skipped share.
pub fn pools_line(p: &crate::report::PoolsReport) -> String {
    let t = &p.transfers;
    format!(
        "  Pools: prefill {} (token hit {}, busy {}, peak queue {}) | decode {} (busy {}, peak queue {}) | transfers {} ({:.1} GB, mean {}, p99 {}, link busy {}) | skipped prefill {} ({})",
        p.prefill.replicas,
        pct(p.prefill.hit_rate_tokens),
        pct0(p.prefill.busy_share),
        p.prefill.peak_queue,
        p.decode.replicas,
        pct0(p.decode.busy_share),
        p.decode.peak_queue,
        t.count,
        t.bytes as f64 / 1e9,
        duration(t.time_ms_mean),
        duration(t.time_ms_p99),
        pct0(t.link_utilisation),
        p.skipped_prefill,
        pct(p.skipped_prefill_share)
    )
}
