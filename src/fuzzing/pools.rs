//! A split fleet's invariants, from its pools report and the summary: the pools are
//! there exactly when the config splits the fleet, at the configured sizes; every request
//! enters the prefill pool or skips it, and every transfer that is not late arrives at
//! the decode pool (`prefill.requests + skipped = requests`, `decode.requests =
//! transfers - late + skipped`); each pool ends what it took in; every completion is a
//! decode replica's.

use super::ensure::ensure;
use crate::config::Config;
use crate::report::{PoolReport, PoolsReport, Report};

/// The pools report of a run of `cfg` against the summary.
pub(super) fn pools(cfg: &Config, r: &Report) -> Result<(), String> {
    let split = cfg.prefill_instances.zip(cfg.decode_instances);
    let (pools, (p, d)) = match (&r.pools, split) {
        (None, None) => return Ok(()),
        (Some(pools), Some(sizes)) => (pools, sizes),
        (pools, _) => {
            return Err(format!(
                "a pools report {} for prefill {:?}, decode {:?}",
                if pools.is_some() { "present" } else { "absent" },
                cfg.prefill_instances,
                cfg.decode_instances
            ))
        }
    };
    ensure(
        (pools.prefill.replicas, pools.decode.replicas) == (p, d),
        || {
            format!(
                "pools of {} + {} replicas for prefill {p} + decode {d}",
                pools.prefill.replicas, pools.decode.replicas
            )
        },
    )?;
    // A request refused at a full router queue, or timed out there, reaches neither pool.
    let at_router = r
        .router_cpu
        .as_ref()
        .map_or(0, |c| c.rejected + c.timed_out);
    identities(pools, r.summary.requests - at_router)?;
    pools_end_what_they_take(pools, r)?;
    skips_and_lateness(cfg, pools)
}

/// `prefill.requests + skipped = requests` (those routed) and `decode.requests = transfers - late +
/// skipped`.
fn identities(pools: &PoolsReport, requests: u64) -> Result<(), String> {
    let (pre, dec, t) = (&pools.prefill, &pools.decode, &pools.transfers);
    let skipped = pools.skipped_prefill;
    ensure(pre.requests + skipped == requests, || {
        format!(
            "prefill.requests {} + skipped {skipped} != requests {requests}",
            pre.requests
        )
    })?;
    ensure(t.late <= t.count, || {
        format!("{} late of {} transfers", t.late, t.count)
    })?;
    ensure(dec.requests == t.count - t.late + skipped, || {
        format!(
            "decode.requests {} != transfers {} - late {} + skipped {skipped}",
            dec.requests, t.count, t.late
        )
    })
}

/// Requests a pool took in, against how they left it: every request routed to a
/// prefill replica was rejected, timed out or transferred; every request a decode
/// replica took in (and every late transfer) completed, was rejected or timed out there,
/// and nothing completes on a prefill replica.
fn pools_end_what_they_take(pools: &PoolsReport, r: &Report) -> Result<(), String> {
    let (pre, dec, t) = (&pools.prefill, &pools.decode, &pools.transfers);
    let ended = |pool: &PoolReport| pool.rejected + pool.timed_out;
    ensure(pre.requests == t.count + ended(pre), || {
        format!(
            "prefill pool: {} requests, {} transferred + {} rejected + {} timed out",
            pre.requests, t.count, pre.rejected, pre.timed_out
        )
    })?;
    let completed = r.summary.completed;
    ensure(dec.requests + t.late == completed + ended(dec), || {
        format!(
            "decode pool: {} requests + {} late, {completed} completed + {} rejected + {} timed out",
            dec.requests, t.late, dec.rejected, dec.timed_out
        )
    })?;
    ensure(t.count <= pre.prefills, || {
        format!("{} transfers of {} prefills", t.count, pre.prefills)
    })?;
    ensure(
        t.bytes == 0 || t.bytes % t.bytes_per_token.max(1) == 0,
        || format!("{} bytes at {} per token", t.bytes, t.bytes_per_token),
    )
}

/// Only requests under the threshold skip, the decode pool prefills only those, and a
/// transfer is late only when the caller has a timeout.
fn skips_and_lateness(cfg: &Config, pools: &PoolsReport) -> Result<(), String> {
    let skipped = pools.skipped_prefill;
    ensure(cfg.disagg_min_uncached_tokens > 0 || skipped == 0, || {
        format!("{skipped} skipped the prefill pool with no threshold")
    })?;
    ensure(pools.decode.prefills <= skipped, || {
        format!(
            "the decode pool prefilled {} requests, {skipped} skipped",
            pools.decode.prefills
        )
    })?;
    let late = pools.transfers.late;
    ensure(cfg.timeout_ms.is_some() || late == 0, || {
        format!("{late} late transfers without a timeout")
    })
}
