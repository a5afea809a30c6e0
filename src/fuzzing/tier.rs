//! The CPU tier invariants: its figures appear exactly when a tier is configured; per
//! replica and in the fleet, the tokens served from HBM and from the tier (and from the
//! shared tier, when there is one) add up to the cached tokens; the replicas' counts add up to the fleet's; the bytes loaded are the
//! tier's hit tokens' KV; the load time is at least one base cost per load.

use crate::config::Config;
use crate::report::{Report, TierReport};

use super::ensure::ensure;

/// Checks the CPU tier figures of a run of `cfg`.
pub(super) fn cpu_tier(cfg: &Config, r: &Report) -> Result<(), String> {
    let spec = cfg.cpu_tier();
    let on = spec.is_some();
    ensure(r.summary.cpu_tier.is_some() == on, || {
        format!("summary.cpu_tier present is not {on}")
    })?;
    ensure(
        r.per_instance.iter().all(|p| p.cpu_tier.is_some() == on),
        || format!("per-replica cpu_tier present is not {on}"),
    )?;
    let (Some(s), Some(spec)) = (r.summary.cpu_tier.as_ref(), spec) else {
        return Ok(());
    };
    let below = r
        .summary
        .shared_tier
        .as_ref()
        .map_or(0, |t| t.shared_hit_tokens);
    ensure(
        s.hbm_hit_tokens + s.cpu_hit_tokens + below == r.summary.cached_tokens,
        || format!("tiers' tokens {s:?} != cached {}", r.summary.cached_tokens),
    )?;
    for p in &r.per_instance {
        let t = p.cpu_tier.as_ref().expect("checked above");
        let below = p.shared_tier.as_ref().map_or(0, |t| t.shared_hit_tokens);
        ensure(
            t.hbm_hit_tokens + t.cpu_hit_tokens + below == p.cached_tokens,
            || {
                format!(
                    "replica {}: tiers' tokens {t:?} != cached {}",
                    p.index, p.cached_tokens
                )
            },
        )?;
    }
    let rows: Vec<&TierReport> = r.per_instance.iter().flat_map(|p| &p.cpu_tier).collect();
    let sum = |f: fn(&TierReport) -> u64| rows.iter().map(|t| f(t)).sum::<u64>();
    let summed = (
        sum(|t| t.cpu_hit_tokens),
        sum(|t| t.loads),
        sum(|t| t.loaded_bytes),
        sum(|t| t.demoted_bytes),
        sum(|t| t.cpu_evictions),
    );
    let fleet = (
        s.cpu_hit_tokens,
        s.loads,
        s.loaded_bytes,
        s.demoted_bytes,
        s.cpu_evictions,
    );
    ensure(summed == fleet, || {
        format!("per-replica tier figures {summed:?} != the fleet's {fleet:?}")
    })?;
    let bs = cfg.block_size as u64;
    ensure(
        s.loaded_bytes == s.cpu_hit_tokens / bs * spec.block_bytes,
        || {
            format!(
                "{} B loaded for {} tokens",
                s.loaded_bytes, s.cpu_hit_tokens
            )
        },
    )?;
    ensure((s.loads == 0) == (s.cpu_hit_tokens == 0), || {
        format!("{} loads for {} tokens", s.loads, s.cpu_hit_tokens)
    })?;
    ensure(
        s.load_ms * 1000.0 + 1e-6 >= s.loads as f64 * spec.load_base_us.floor(),
        || format!("{} loads in {} ms", s.loads, s.load_ms),
    )
}
