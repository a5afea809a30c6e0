//! The SLO capacity planner: for a routing policy, the fewest replicas that meet every
//! latency and rejection target (a bracketing search whose answer N is verified: N meets
//! and N - 1 fails), inversions where more replicas do worse, the highest rate a given
//! fleet sustains within the targets (goodput), the cost in GPUs and dollars, and the
//! headline that names the cheapest policy (`headline.rs`).
//!
//! The search is pure: it asks a `Runner` for the summary of a config at a rate scale, so
//! the CLI (a synthetic workload or a parsed trace, policies on threads) and the page (one
//! policy per worker) share it.

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::report::Summary;

mod autoscale;
mod floor;
mod headline;
mod mix;
mod mix_fleet;
mod mix_local;
mod mix_spec;
mod mix_walk;
mod mix_words;
mod runners;
mod search;

pub use autoscale::{
    answer as autoscale_answer, compare_autoscale, comparison_configs, fleet_run, fleet_words,
    AutoscaleComparison, FleetRun,
};
pub use floor::{presets_floor_ms, ttft_floor_ms};
pub use headline::{
    cheapest, headline, headline_rows, none_met_sentence, tied_on_cost, Answer, HeadlineRow, Knobs,
    Tried, LEVEL_PRICE_SHARE,
};
pub use mix::{plan_mix, MixPlan};
pub use mix_fleet::{check_mix, mix_config, mix_price, model_presets, MixPoint, MixPreset};
pub use mix_spec::{MixPresetSpec, MixSpec};
pub use mix_words::{counts_text, mix_headline};
pub use runners::{SyntheticRunner, TraceRunner};
pub use search::{plan_policy, smallest_fleet, Goodput, Point, PolicyPlan, SeedSpread};

/// Latency and rejection targets; any subset of the latency ones may be set.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    /// p99 time to first token (from arrival), ms.
    pub ttft_p99_ms: Option<f64>,
    /// p99 time per output token, ms.
    pub tpot_p99_ms: Option<f64>,
    /// p99 end-to-end latency, ms.
    pub e2e_p99_ms: Option<f64>,
    /// Most requests not served (rejected or timed out), as a share of all, 0..=1.
    pub max_rejected: f64,
    /// A run whose backlog grows through it (the report's "overloaded" finding) misses:
    /// it meets a latency target only because the run ends.
    #[serde(default = "yes")]
    pub sustained: bool,
}

fn yes() -> bool {
    true
}

/// What a plan costs and how hard it searches.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    /// The largest fleet tried.
    pub max_replicas: u32,
    /// Seeds each point must meet the targets on (seed, seed + 1, ...: `noise::nth_seed`).
    pub seeds: u32,
    /// Evaluate every fleet size from 1 to `max_replicas` instead of bracketing.
    pub exhaustive: bool,
    /// GPUs per replica (from the engine preset), 1 to `MAX_GPUS_PER_REPLICA`.
    pub gpus_per_replica: u32,
    /// Price of one GPU for one hour, US dollars, 0 to `MAX_GPU_HOUR_USD`.
    pub gpu_hour_usd: f64,
}

/// A plan's targets and limits, as the page sends them (`api::plan_policy_json`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// The targets.
    pub slo: Slo,
    /// The search bounds and the price.
    pub limits: PlanLimits,
}

/// Price of one GPU-hour of an engine without hardware (a preset with hardware has its own,
/// `Config::gpu_hour_usd_of`).
pub use crate::timing::DEFAULT_GPU_HOUR_USD;

/// Default largest fleet a plan tries.
pub const DEFAULT_MAX_REPLICAS: u32 = 64;

/// Most seeds a point can be checked on.
pub const MAX_SEEDS: u32 = crate::noise::MAX_SEEDS;

/// Most GPUs one replica may take: a replica of a few nodes, and small enough that the
/// largest fleet's GPU count (256 x 1024) and its price stay exact.
pub const MAX_GPUS_PER_REPLICA: u32 = 1024;

/// Highest price of one GPU-hour, US dollars: thousands of times any cloud price, and low
/// enough that the largest fleet's price per hour and per token stay finite (the config's
/// `gpu_hour_usd` bound too).
pub use crate::config::MAX_GPU_HOUR_USD;

impl Slo {
    /// Checks the targets: at least one given, each a finite number > 0, the rejected
    /// share in 0..=1.
    pub fn validate(&self) -> Result<(), String> {
        let latency = [
            ("--slo-ttft-p99-ms", self.ttft_p99_ms),
            ("--slo-tpot-p99-ms", self.tpot_p99_ms),
            ("--slo-e2e-p99-ms", self.e2e_p99_ms),
        ];
        for (flag, v) in latency {
            if let Some(x) = v {
                if !(x.is_finite() && x > 0.0) {
                    return Err(format!(
                        "{flag}: invalid target: got {x}; allowed: a number of ms > 0"
                    ));
                }
            }
        }
        if !(0.0..=1.0).contains(&self.max_rejected) {
            return Err(format!(
                "--slo-max-rejected: invalid share: got {}; allowed: 0 to 1 (0.01 is 1 %)",
                self.max_rejected
            ));
        }
        if latency.iter().all(|(_, v)| v.is_none()) && self.max_rejected >= 1.0 {
            return Err("plan: no target given; allowed: any of --slo-ttft-p99-ms, \
                        --slo-tpot-p99-ms, --slo-e2e-p99-ms, --slo-max-rejected (below 1)"
                .to_string());
        }
        Ok(())
    }

    /// The targets `m` misses, by name ("ttft_p99"); empty when it meets them all. A
    /// latency that could not be measured (no request finished) misses.
    pub fn misses(&self, m: &Measured) -> Vec<String> {
        let mut out = Vec::new();
        let checks = [
            ("ttft_p99", self.ttft_p99_ms, m.ttft_ms_p99),
            ("tpot_p99", self.tpot_p99_ms, m.tpot_ms_p99),
            ("e2e_p99", self.e2e_p99_ms, m.e2e_ms_p99),
        ];
        for (name, target, value) in checks {
            if let Some(t) = target {
                // NaN (nothing measured) is not within any target.
                if value.is_nan() || value > t {
                    out.push(name.to_string());
                }
            }
        }
        if m.rejected_share > self.max_rejected {
            out.push("rejected".to_string());
        }
        if self.sustained && m.overloaded {
            out.push("overloaded".to_string());
        }
        out
    }
}

impl PlanLimits {
    /// Checks the search bounds and the price.
    pub fn validate(&self) -> Result<(), String> {
        let most = max_instances();
        if !(1..=most).contains(&self.max_replicas) {
            return Err(format!(
                "--plan-max-replicas: invalid count: got {}; allowed: 1 to {most}",
                self.max_replicas
            ));
        }
        if !(1..=MAX_SEEDS).contains(&self.seeds) {
            return Err(format!(
                "--plan-seeds: invalid count: got {}; allowed: 1 to {MAX_SEEDS}",
                self.seeds
            ));
        }
        if !(1..=MAX_GPUS_PER_REPLICA).contains(&self.gpus_per_replica) {
            return Err(format!(
                "--plan-gpus-per-replica: invalid count: got {}; allowed: 1 to \
                 {MAX_GPUS_PER_REPLICA} GPUs per replica",
                self.gpus_per_replica
            ));
        }
        if !(0.0..=MAX_GPU_HOUR_USD).contains(&self.gpu_hour_usd) {
            return Err(format!(
                "--gpu-hour-usd: invalid price: got {:?}; allowed: 0 to {MAX_GPU_HOUR_USD} \
                 dollars per GPU-hour",
                self.gpu_hour_usd
            ));
        }
        Ok(())
    }
}

/// Checks what a plan of `cfg` needs beyond the limits themselves: every seed it runs
/// (seed, seed + 1, ..., seed + seeds - 1) within the seed's range, and room for a
/// disaggregated fleet (2 replicas at least).
pub fn check_plan(cfg: &Config, limits: &PlanLimits) -> Result<(), String> {
    let last = u64::from(limits.seeds.max(1) - 1);
    let max_seed = crate::params::MAX_SEED;
    if cfg.seed > max_seed - last {
        return Err(format!(
            "--seed: invalid seed with --plan-seeds {}: got {}; allowed: 0 to {} (each point \
             runs on seeds --seed to --seed + {last}, and a seed is at most 2^53 = \
             {max_seed})",
            limits.seeds,
            cfg.seed,
            max_seed - last,
        ));
    }
    if cfg.pools().is_some() && limits.max_replicas < 2 {
        return Err(format!(
            "--plan-max-replicas: invalid count: got {}; allowed: 2 to {} for a \
             disaggregated fleet (one prefill and one decode replica at least)",
            limits.max_replicas,
            max_instances()
        ));
    }
    Ok(())
}

/// The largest fleet a run accepts (the `instances` parameter's upper limit).
pub fn max_instances() -> u32 {
    crate::params::specs()
        .into_iter()
        .find(|s| s.name == "instances")
        .and_then(|s| s.max)
        .map_or(1, |m| m as u32)
}

/// The largest pool of a disaggregated fleet (the `prefill_instances` parameter's upper
/// limit; `decode_instances` has the same).
pub fn max_pool() -> u32 {
    crate::params::specs()
        .into_iter()
        .find(|s| s.name == "prefill_instances")
        .and_then(|s| s.max)
        .map_or(1, |m| m as u32)
}

/// The figures of one evaluated point that the targets and the cost use. Over several
/// seeds: the worst p99s and rejected share, the summed tokens and time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// p99 TTFT, ms (NaN when nothing finished; `null` in JSON).
    pub ttft_ms_p99: f64,
    /// p99 TPOT, ms.
    pub tpot_ms_p99: f64,
    /// p99 end-to-end, ms.
    pub e2e_ms_p99: f64,
    /// (rejected + timed out) / requests.
    pub rejected_share: f64,
    /// Share of prompt tokens served from cache.
    pub hit_rate_tokens: f64,
    /// Output tokens produced.
    pub output_tokens: u64,
    /// First arrival to last completion, s.
    pub makespan_s: f64,
    /// Some replica's backlog grew between the two halves of the arrivals (on any seed).
    pub overloaded: bool,
}

impl Measured {
    /// The figures of one run.
    pub fn of(s: &Summary) -> Measured {
        let unserved = (s.rejected + s.timed_out) as f64;
        Measured {
            ttft_ms_p99: s.ttft_ms_p99,
            tpot_ms_p99: s.tpot_ms_p99,
            e2e_ms_p99: s.e2e_ms_p99,
            rejected_share: if s.requests == 0 {
                0.0
            } else {
                unserved / s.requests as f64
            },
            hit_rate_tokens: s.hit_rate_tokens,
            output_tokens: s.output_tokens,
            makespan_s: s.makespan_s,
            overloaded: s.overloaded,
        }
    }

    /// Combines two seeds' figures: the worse of each target, the sums of tokens and
    /// time, the mean hit rate (weighted alike).
    pub fn worst(&self, o: &Measured) -> Measured {
        let worse = |a: f64, b: f64| {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        };
        Measured {
            ttft_ms_p99: worse(self.ttft_ms_p99, o.ttft_ms_p99),
            tpot_ms_p99: worse(self.tpot_ms_p99, o.tpot_ms_p99),
            e2e_ms_p99: worse(self.e2e_ms_p99, o.e2e_ms_p99),
            rejected_share: self.rejected_share.max(o.rejected_share),
            hit_rate_tokens: (self.hit_rate_tokens + o.hit_rate_tokens) / 2.0,
            output_tokens: self.output_tokens + o.output_tokens,
            makespan_s: self.makespan_s + o.makespan_s,
            overloaded: self.overloaded || o.overloaded,
        }
    }
}

/// A fleet's cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cost {
    /// GPUs in the fleet.
    pub gpus: u32,
    /// The fleet's price per hour, US dollars.
    pub usd_per_hour: f64,
    /// What a million output tokens cost: the fleet's price over the run's makespan,
    /// divided by the output tokens it produced (NaN when it produced none).
    pub usd_per_m_tokens: f64,
}

/// The cost of `replicas` replicas that produced `m`. Within `PlanLimits::validate`'s
/// bounds the GPU count is exact; beyond them it saturates rather than wrap.
pub fn cost(replicas: u32, m: &Measured, limits: &PlanLimits) -> Cost {
    let gpus = replicas.saturating_mul(limits.gpus_per_replica);
    let usd_per_hour = gpus as f64 * limits.gpu_hour_usd;
    let usd_per_m_tokens = if m.output_tokens == 0 {
        f64::NAN
    } else {
        usd_per_hour * m.makespan_s / 3600.0 / m.output_tokens as f64 * 1e6
    };
    Cost {
        gpus,
        usd_per_hour,
        usd_per_m_tokens,
    }
}

/// Runs a config with its arrivals sped up `rate_scale` times (1 = as given).
pub trait Runner {
    /// The summary of `cfg` at `rate_scale`.
    fn run(&self, cfg: &Config, rate_scale: f64) -> Result<Summary, String>;
    /// The whole report of `cfg` at `rate_scale` (the autoscaled comparison needs its
    /// series and billing); a runner that keeps only summaries refuses.
    fn report(&self, _cfg: &Config, _rate_scale: f64) -> Result<crate::report::Report, String> {
        Err(
            "this planner runs only summaries; the autoscaled comparison needs whole reports"
                .into(),
        )
    }
    /// The workload's own rate at scale 1 and its unit ("req/s", "tasks/s").
    fn base_rate(&self, cfg: &Config) -> (f64, &'static str);
    /// The rate scales this workload accepts (a synthetic rate has limits).
    fn scale_limits(&self, _cfg: &Config) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }
}

/// Sorts a short slice stably by `cmp` (insertion sort): a few lines per element type,
/// where the standard library's `sort_by` in its two call sites adds 5,051 bytes to the
/// gzipped wasm, over the 3 KB a plain form may cost (the book's "Performance" chapter,
/// "Plain code and its cost"). The planner sorts a few dozen points or policies at most; with a
/// total order (`total_cmp`) the result is the same as `sort_by`'s.
pub(crate) fn sort_small<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && cmp(&v[j - 1], &v[j]) == std::cmp::Ordering::Greater {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod mix_tests;
#[cfg(test)]
mod seeds_tests;
#[cfg(test)]
mod tests;
