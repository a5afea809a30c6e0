//! The SLO attainment invariants (`series.slo_attained`, `summary.slo_attained`): present
//! exactly when the run has a latency target, a share where requests completed and null
//! where none did.

use crate::config::Config;
use crate::report::Report;

use super::ensure::ensure;

/// SLO attainment: present exactly when the run has a target; per window a share where
/// something completed (as the mean TTFT is) and null where nothing did; over the run a
/// share.
pub(super) fn slo_attained(cfg: &Config, r: &Report) -> Result<(), String> {
    let s = &r.series;
    let targeted = cfg.slo_targets().is_some();
    ensure(s.slo_attained.is_empty() != targeted, || {
        format!(
            "series.slo_attained has {} points with a target {targeted}",
            s.slo_attained.len()
        )
    })?;
    ensure(r.summary.slo_attained.is_some() <= targeted, || {
        "summary.slo_attained without a target".to_string()
    })?;
    for (k, x) in s.slo_attained.iter().enumerate() {
        ensure(x.is_some() == s.ttft_ms_mean[k].is_some(), || {
            format!(
                "series.slo_attained[{k}] is {x:?} where the mean TTFT is {:?}",
                s.ttft_ms_mean[k]
            )
        })?;
        if let Some(x) = x {
            ensure((0.0..=1.0).contains(x), || {
                format!("series.slo_attained[{k}] is {x}")
            })?;
        }
    }
    if let Some(x) = r.summary.slo_attained {
        ensure((0.0..=1.0).contains(&x), || {
            format!("summary.slo_attained is {x}")
        })?;
    }
    Ok(())
}
