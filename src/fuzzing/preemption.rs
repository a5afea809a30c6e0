//! The preemption invariants (`admission: preempt`): the figures appear only under that
//! rule; the replicas' counts add up to the fleet's; an unbounded cache and a prefill
//! replica never preempt; and the decision log holds one record per preemption, each
//! completed request's resumed, whose recomputed tokens add up to the report's.

use crate::config::{Admission, Config};
use crate::report::Report;
use crate::sim::Decision;

use super::ensure::ensure;

/// Checks the preemption figures of a run of `cfg` (and its full decision log, if any).
pub(super) fn preemption(cfg: &Config, r: &Report, d: Option<&[Decision]>) -> Result<(), String> {
    let on = cfg.admission == Admission::Preempt;
    let rows: Vec<_> = r
        .per_instance
        .iter()
        .map(|p| p.preemption.as_ref())
        .collect();
    ensure(r.summary.preemption.is_some() == on, || {
        format!("summary.preemption present under {:?}", cfg.admission)
    })?;
    ensure(rows.iter().all(|p| p.is_some() == on), || {
        "per-replica preemption present under the other rule".to_string()
    })?;
    let Some(s) = r.summary.preemption.as_ref() else {
        return Ok(());
    };
    let rows: Vec<_> = rows.into_iter().flatten().collect();
    let n: u64 = rows.iter().map(|p| p.preemptions).sum();
    let tokens: u64 = rows.iter().map(|p| p.recomputed_tokens).sum();
    let lost: f64 = rows.iter().map(|p| p.time_lost_ms).sum();
    ensure(n == s.preemptions && tokens == s.recomputed_tokens, || {
        format!("per-replica preemptions {n} / {tokens} tok != the summary's {s:?}")
    })?;
    ensure(
        (lost - s.time_lost_ms).abs() <= 1e-6 * lost.max(1.0),
        || format!("per-replica time lost {lost} != {}", s.time_lost_ms),
    )?;
    ensure(s.time_lost_ms >= 0.0, || {
        format!("time lost {}", s.time_lost_ms)
    })?;
    ensure(cfg.kv_blocks.is_some() || n == 0, || {
        format!("{n} preemptions in an unbounded cache")
    })?;
    let prefill = r.per_instance.iter().filter(|p| p.pool == Some("prefill"));
    ensure(
        prefill
            .flat_map(|p| &p.preemption)
            .all(|p| p.preemptions == 0),
        || "a prefill replica preempted".to_string(),
    )?;
    match d {
        Some(d) if d.len() as u64 == r.summary.requests => log(d, n, tokens),
        _ => Ok(()),
    }
}

/// One record per preemption; every completed request's preemptions resumed, at or after
/// they happened; their recomputed tokens add up to the report's.
fn log(d: &[Decision], n: u64, tokens: u64) -> Result<(), String> {
    let records = d
        .iter()
        .flat_map(|x| x.preemptions.iter().map(move |p| (x, p)));
    let (mut count, mut recomputed) = (0u64, 0u64);
    for (x, p) in records {
        count += 1;
        recomputed += p.recomputed_tokens.unwrap_or(0) as u64;
        ensure(p.resumed_s.is_some() || x.e2e_ms.is_none(), || {
            format!("request {} completed without resuming: {p:?}", x.id)
        })?;
        ensure(p.resumed_s.is_none_or(|t| t >= p.at_s), || {
            format!("request {} resumed before its preemption: {p:?}", x.id)
        })?;
    }
    ensure(count == n, || {
        format!("{count} preemption records, {n} preemptions")
    })?;
    ensure(recomputed == tokens, || {
        format!("records recompute {recomputed} tok, the report {tokens}")
    })
}
