//! Numbers with their noise: the spread of one figure over K seeds (mean, min, max and a
//! 95 % interval, Student t on the K values), the rule that says whether two figures
//! differ beyond it, and how K seeds derive from the one `--seed`. Every multi-seed figure
//! (`--des-seeds`, the planner's `--plan-seeds`, the page's band) comes from here.
//!
//! - **Seeds.** Seed k of K (k = 0 .. K - 1) is `seed + k`: the first is the run's own
//!   seed, so seed 0 of a K-seed run is the one-seed run, figure for figure.
//! - **Interval.** With values x₁ … x_K, mean m and sample standard deviation
//!   s = √(Σ(xᵢ − m)² / (K − 1)), the 95 % interval is m ± t(0.975, K − 1) · s / √K.
//!   K = 1 has no interval (its bounds are NaN, `null` in JSON).
//! - **Beyond noise.** Two figures differ beyond noise when their 95 % intervals do not
//!   overlap; when they overlap the gap is within noise; with one seed it is unknown.

use std::collections::BTreeMap;

use serde::Serialize;

pub mod text;

/// Most seeds a figure is measured over.
pub const MAX_SEEDS: u32 = 16;

/// t(0.975, df) for df = 1 ..= 15: the 97.5 % quantile of Student's t distribution
/// (a two-sided 95 % interval), to nine significant figures.
const T975: [f64; (MAX_SEEDS - 1) as usize] = [
    12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425, 2.30600414,
    2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669, 2.13144955,
];

/// t(0.975, df): the multiplier of the standard error for a 95 % interval on df + 1
/// values. NaN for df = 0 (one value has no interval) or beyond the table.
pub fn t975(df: usize) -> f64 {
    df.checked_sub(1)
        .and_then(|i| T975.get(i))
        .copied()
        .unwrap_or(f64::NAN)
}

/// One figure over K seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Spread {
    /// Mean over the seeds (NaN, `null` in JSON, when any seed measured nothing).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub mean: f64,
    /// Smallest value over the seeds (`null` when any seed measured nothing).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub min: f64,
    /// Largest value over the seeds (`null` when any seed measured nothing).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub max: f64,
    /// Low end of the 95 % interval: mean − t(0.975, K − 1) · s / √K (`null` for one seed).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ci95_low: f64,
    /// High end of the 95 % interval (`null` for one seed).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ci95_high: f64,
    /// Each seed's value, in seed order (seed, seed + 1, ...); `null` where a seed
    /// measured nothing.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub values: Vec<f64>,
}

impl Spread {
    /// Half the width of the 95 % interval (NaN without one).
    pub fn half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }

    /// True when every seed gave the same value (NaNs count as equal).
    pub fn constant(&self) -> bool {
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        self.values.iter().all(|&v| same(v, self.values[0]))
    }
}

/// The spread of `values` (one per seed, in seed order; at least one). A NaN value (a
/// figure a seed could not measure) makes every statistic NaN: a mean over the seeds that
/// happened to measure it would not be a mean over the seeds.
pub fn spread(values: &[f64]) -> Spread {
    assert!(!values.is_empty(), "a spread needs one value at least");
    let k = values.len();
    let nan = values.iter().any(|v| v.is_nan());
    let mean = if nan {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / k as f64
    };
    let (min, max) = if nan {
        (f64::NAN, f64::NAN)
    } else {
        values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            })
    };
    let half = if k < 2 || nan {
        f64::NAN
    } else {
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        let sd = (ss / (k - 1) as f64).sqrt();
        t975(k - 1) * sd / (k as f64).sqrt()
    };
    Spread {
        mean,
        min,
        max,
        ci95_low: mean - half,
        ci95_high: mean + half,
        values: values.to_vec(),
    }
}

/// A run's figures over K seeds: the `seeds` section of the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeedsReport {
    /// The seeds run, in order: `--seed`, `--seed` + 1, ..., `--seed` + K - 1. The rest
    /// of the report is the first one's run.
    pub seeds: Vec<u64>,
    /// What the seeds vary in this run, in words.
    pub varies: String,
    /// Every numeric figure of `summary` over the seeds, by its name there.
    pub summary: BTreeMap<String, Spread>,
}

/// Whether `a` and `b` differ beyond noise: `Some(true)` when their 95 % intervals do not
/// overlap, `Some(false)` when they do (within noise), `None` when either has no interval
/// (one seed, or a figure not measured).
pub fn beyond_noise(a: &Spread, b: &Spread) -> Option<bool> {
    let known = |s: &Spread| s.ci95_low.is_finite() && s.ci95_high.is_finite();
    if !known(a) || !known(b) {
        return None;
    }
    Some(a.ci95_low > b.ci95_high || b.ci95_low > a.ci95_high)
}

/// Seed k (0-based) of a multi-seed run from `seed`: `seed + k`.
pub fn nth_seed(seed: u64, k: u32) -> u64 {
    seed.saturating_add(u64::from(k))
}

/// Checks a count of seeds (1 to `MAX_SEEDS`) and that every seed it runs from `seed`
/// stays within a seed's range; `flag` names the count's flag in the message.
pub fn check_seeds(flag: &str, seeds: u32, seed: u64) -> Result<(), String> {
    if !(1..=MAX_SEEDS).contains(&seeds) {
        return Err(format!(
            "{flag}: invalid count: got {seeds}; allowed: 1 to {MAX_SEEDS}"
        ));
    }
    let last = u64::from(seeds - 1);
    let max_seed = crate::params::MAX_SEED;
    if seed > max_seed - last {
        return Err(format!(
            "--seed: invalid seed with {flag} {seeds}: got {seed}; allowed: 0 to {} (the \
             runs use seeds --seed to --seed + {last}, and a seed is at most 2^53 = \
             {max_seed})",
            max_seed - last,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
