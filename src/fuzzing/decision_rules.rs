//! The decision log's invariants: one record per request, each ending once; completed
//! requests within the timeout; the queue rule on the true counts; what the router saw
//! against the truth in each view mode; sticky and spill rules per router.

use super::ensure::ensure;
use crate::config::{Config, Policy, RouterTiers, RouterView, TieBreak};
use crate::report::Report;
use crate::router::Reason;
use crate::sim::Decision;

/// One record per routed request (all but those refused at a full router queue or timed
/// out there), each ending once; a completed request's first token came
/// within the timeout; reasons are consistent with the settings.
pub(super) fn decision_log(cfg: &Config, r: &Report, d: &[Decision]) -> Result<(), String> {
    let s = &r.summary;
    let at_router = r
        .router_cpu
        .as_ref()
        .map_or(0, |c| c.rejected + c.timed_out);
    ensure(d.len() as u64 + at_router == s.requests, || {
        format!(
            "{} decisions for {} requests ({at_router} refused or timed out at the router)",
            d.len(),
            s.requests
        )
    })?;
    ensure(d.windows(2).all(|w| w[0].id < w[1].id), || {
        "decisions out of id order".to_string()
    })?;
    let completed = d.iter().filter(|x| !x.rejected && !x.timed_out).count() as u64;
    ensure(completed == s.completed, || {
        format!(
            "{completed} completed decisions, the summary says {}",
            s.completed
        )
    })?;
    for x in d {
        ensure(!(x.rejected && x.timed_out), || {
            format!("request {}: ended twice", x.id)
        })?;
        ensure((x.chosen as usize) < x.candidates.len(), || {
            format!("request {}: no such replica", x.id)
        })?;
        let done = !x.rejected && !x.timed_out;
        ensure(done == x.ttft_ms.is_some(), || {
            format!("request {}: TTFT iff completed", x.id)
        })?;
        if let (Some(ttft), Some(limit)) = (x.ttft_ms, cfg.timeout_ms) {
            ensure(ttft <= limit, || {
                format!(
                    "request {} completed with TTFT {ttft} ms > timeout {limit} ms",
                    x.id
                )
            })?;
        }
        if let (Some(ttft), Some(e2e)) = (x.ttft_ms, x.e2e_ms) {
            ensure(ttft <= e2e, || {
                format!("request {}: TTFT after the last token", x.id)
            })?;
        }
        if let Some(cached) = x.cached_blocks {
            ensure(cached <= x.request_blocks, || {
                format!("request {}: more hits than blocks", x.id)
            })?;
        }
        ensure(cfg.spill_queue > 0 || x.reason != Reason::Spill, || {
            format!("request {}: spilled with spill_queue 0", x.id)
        })?;
        ensure(
            cfg.affinity_share() > 0.0 || x.reason != Reason::Sticky,
            || format!("request {}: sticky without affinity", x.id),
        )?;
        queue_rule(cfg, x)?;
        seen_rule(cfg, x)?;
    }
    affinity_rules(cfg, d)
}

/// What the router saw against the truth: the same in `exact` (speculative entries and
/// lower-tier blocks only add hits) and in a `snapshot` that is live; no load in `offline`. SGLang's and
/// AIBrix's hits are their own trees' and tables' matches, not the cache index's, so only
/// their load signals are held to the truth.
fn seen_rule(cfg: &Config, x: &Decision) -> Result<(), String> {
    let own_hits = matches!(cfg.routing, Policy::Sglang | Policy::Aibrix);
    let live = match cfg.router_view {
        RouterView::Exact => true,
        RouterView::Snapshot => cfg.router_refresh_ms == 0.0 && cfg.kv_event_lag_ms == 0.0,
        RouterView::Offline => false,
    };
    for c in &x.candidates {
        let seen = (c.active_blocks, c.waiting, c.running, c.cache_blocks);
        let truth = (
            c.true_active_blocks,
            c.true_waiting,
            c.true_running,
            c.true_cache_blocks,
        );
        let ok = match cfg.router_view {
            RouterView::Offline => seen == (0, 0, 0, 0),
            _ => !live || (seen == truth && (own_hits || c.hit_blocks >= c.true_hit_blocks)),
        };
        // Predictions and, with `router_tiers` all, the blocks of the lower tiers add to
        // the live HBM run the truth records; they never take from it.
        let adds_hits = cfg.router_predict_ttl_ms > 0.0 || cfg.router_tiers == RouterTiers::All;
        let exact_hits = !live
            || own_hits
            || (adds_hits && c.hit_blocks >= c.true_hit_blocks)
            || c.hit_blocks == c.true_hit_blocks;
        ensure(ok && exact_hits, || {
            format!(
                "request {}, replica {}: saw {seen:?} and {} hits, truth {truth:?} and {} hits ({:?})",
                x.id, c.replica, c.hit_blocks, c.true_hit_blocks, cfg.router_view
            )
        })?;
    }
    Ok(())
}

/// Without timeouts and KV limits nothing else refuses or removes a request, so an
/// arrival is refused exactly when its replica holds every slot plus the queue's
/// capacity (the true counts, just before the arrival). In a split fleet a request that
/// got into a prefill replica may still be refused by its decode replica's queue, so
/// there only a full prefill replica's refusal is checked (and only when no request
/// skips the pool to a replica the router did not pick).
fn queue_rule(cfg: &Config, x: &Decision) -> Result<(), String> {
    if cfg.timeout_ms.is_some() || cfg.kv_blocks.is_some() {
        return Ok(());
    }
    let split = cfg.prefill_instances.is_some();
    if split && cfg.disagg_min_uncached_tokens > 0 {
        return Ok(());
    }
    let c = &x.candidates[x.chosen as usize];
    let held = c.true_waiting as u64 + c.true_running as u64;
    let full = cfg
        .queue_capacity
        .is_some_and(|q| held >= cfg.max_batch as u64 + q as u64);
    ensure(x.rejected == full || (split && x.rejected), || {
        format!(
            "request {}: rejected {} with {} waiting + {} running, {} slots, capacity {:?}",
            x.id, x.rejected, c.true_waiting, c.true_running, cfg.max_batch, cfg.queue_capacity
        )
    })
}

/// Whether the chosen replica has the fewest waiting + running requests, and under
/// `tie_break: lowest` the lowest index of those.
fn least_busy(cfg: &Config, x: &Decision) -> bool {
    let busy = |c: &crate::router::Candidate| (c.waiting + c.running, c.replica);
    // An autoscaled fleet's replicas that take no requests are marked excluded.
    let open = x.candidates.iter().filter(|c| !c.excluded);
    let least = open.map(busy).min().unwrap_or((0, 0));
    let chosen = busy(&x.candidates[x.chosen as usize]);
    match cfg.tie_break {
        TieBreak::Lowest => chosen == least,
        TieBreak::Random => chosen.0 == least.0,
    }
}

/// Sessions under affinity: a sticky pick returns to the session's last replica, which
/// must have fewer than `spill_queue` waiting; a spill leaves it only once it has that
/// many, for the least busy replica; with full affinity the policy never picks a
/// session's later turn.
fn affinity_rules(cfg: &Config, d: &[Decision]) -> Result<(), String> {
    let spill = cfg.spill_queue;
    // Each router keeps its own session table.
    let mut home = std::collections::BTreeMap::new();
    for x in d {
        if x.reason == Reason::Spill {
            ensure(least_busy(cfg, x), || {
                format!(
                    "request {}: spilled to {}, not the least busy",
                    x.id, x.chosen
                )
            })?;
        }
        let Some(session) = x.session else {
            continue;
        };
        let waiting = |r: u32| x.candidates[r as usize].waiting;
        let id = x.id;
        let session = (x.router, session);
        match (home.get(&session).copied(), x.reason) {
            (None, Reason::Sticky) => Err(format!("request {id}: sticky without a home"))?,
            (Some(h), Reason::Sticky) => {
                ensure(x.chosen == h && (spill == 0 || waiting(h) < spill), || {
                    format!(
                        "request {id}: sticky to {} (home {h}, {} waiting)",
                        x.chosen,
                        waiting(h)
                    )
                })?
            }
            // Under partial affinity a spill may leave a prefix_aware home instead.
            (Some(h), Reason::Spill) if cfg.affinity_share() >= 1.0 => {
                ensure(waiting(h) >= spill, || {
                    format!(
                        "request {id}: spilled with {} < {spill} waiting at home",
                        waiting(h)
                    )
                })?
            }
            // A home that takes no requests (an autoscaled fleet's draining or gone
            // replica) leaves the turn to the policy.
            (Some(h), Reason::Policy) if !x.candidates[h as usize].excluded => {
                ensure(cfg.affinity_share() < 1.0, || {
                    format!("request {id}: a later turn left to the policy under full affinity")
                })?
            }
            _ => {}
        }
        home.insert(session, x.chosen);
    }
    Ok(())
}
