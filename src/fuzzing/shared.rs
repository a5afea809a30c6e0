//! The shared tier invariants: its figures appear exactly when a shared tier is
//! configured; per replica and in the fleet, the
//! tokens from HBM, the CPU tiers and the shared tier add up to the cached tokens; the
//! replicas' counts add up to the fleet's; the bytes loaded are the shared hit tokens'
//! KV; the load time is at least one latency per load.

use crate::config::Config;
use crate::report::{Report, SharedTierReport};

use super::ensure::ensure;

/// Checks the shared tier figures of a run of `cfg`.
pub(super) fn shared_tier(cfg: &Config, r: &Report) -> Result<(), String> {
    let spec = cfg.shared_tier();
    let on = spec.is_some();
    ensure(r.summary.shared_tier.is_some() == on, || {
        format!("summary.shared_tier present is not {on}")
    })?;
    ensure(
        r.per_instance.iter().all(|p| p.shared_tier.is_some() == on),
        || format!("per-replica shared_tier present is not {on}"),
    )?;
    let (Some(s), Some(spec)) = (r.summary.shared_tier.as_ref(), spec) else {
        return Ok(());
    };
    let adds_up = |t: &SharedTierReport, cached: u64| {
        t.hbm_hit_tokens + t.cpu_hit_tokens + t.shared_hit_tokens == cached
    };
    ensure(adds_up(s, r.summary.cached_tokens), || {
        format!("tiers' tokens {s:?} != cached {}", r.summary.cached_tokens)
    })?;
    for p in &r.per_instance {
        let t = p.shared_tier.as_ref().expect("checked above");
        ensure(adds_up(t, p.cached_tokens), || {
            format!("replica {}: {t:?}, cached {}", p.index, p.cached_tokens)
        })?;
    }
    let rows: Vec<&SharedTierReport> = r.per_instance.iter().flat_map(|p| &p.shared_tier).collect();
    let sum = |f: fn(&SharedTierReport) -> u64| rows.iter().map(|t| f(t)).sum::<u64>();
    let summed = (
        sum(|t| t.shared_hit_tokens),
        sum(|t| t.loads),
        sum(|t| t.loaded_bytes),
        sum(|t| t.demoted_bytes),
    );
    let fleet = (
        s.shared_hit_tokens,
        s.loads,
        s.loaded_bytes,
        s.demoted_bytes,
    );
    ensure(summed == fleet, || {
        format!("per-replica shared figures {summed:?} != the fleet's {fleet:?}")
    })?;
    let bs = cfg.block_size as u64;
    ensure(
        s.loaded_bytes == s.shared_hit_tokens / bs * spec.block_bytes,
        || {
            format!(
                "{} B loaded for {} tokens",
                s.loaded_bytes, s.shared_hit_tokens
            )
        },
    )?;
    ensure((s.loads == 0) == (s.shared_hit_tokens == 0), || {
        format!("{} loads for {} tokens", s.loads, s.shared_hit_tokens)
    })?;
    ensure(
        s.load_ms * 1000.0 + 1e-6 >= s.loads as f64 * spec.load_base_us.floor(),
        || format!("{} loads in {} ms", s.loads, s.load_ms),
    )
}
