//! The SLO capacity planner: for a routing policy, the fewest replicas that meet every
//! latency and rejection target (a bracketing search whose answer N is verified: N meets
//! and N - 1 fails), inversions where more replicas do worse, the highest rate a given
//! fleet sustains within the targets (goodput), and the cost in GPUs and dollars.
//!
//! The search is pure: it asks a `Runner` for the summary of a config at a rate scale, so
//! the CLI (a synthetic workload or a parsed trace, policies on threads) and the page (one
//! policy per worker) share it.

use serde::{Deserialize, Serialize};

use crate::config::{Config, Policy};
use crate::report::Summary;

mod runners;
mod search;

pub use runners::{SyntheticRunner, TraceRunner};
pub use search::{plan_policy, Goodput, Point, PolicyPlan};

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
    /// Seeds each point must meet the targets on (seed, seed + 1, ...).
    pub seeds: u32,
    /// Evaluate every fleet size from 1 to `max_replicas` instead of bracketing.
    pub exhaustive: bool,
    /// GPUs per replica (from the engine preset).
    pub gpus_per_replica: u32,
    /// Price of one GPU for one hour, US dollars.
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

/// Default price of one GPU-hour: an assumed round on-demand cloud price for one
/// H100-class GPU (the README states it); every dollar figure scales with it.
pub const DEFAULT_GPU_HOUR_USD: f64 = 2.5;

/// Default largest fleet a plan tries.
pub const DEFAULT_MAX_REPLICAS: u32 = 64;

/// Most seeds a point can be checked on.
pub const MAX_SEEDS: u32 = 16;

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
        if !(self.gpu_hour_usd.is_finite() && self.gpu_hour_usd >= 0.0) {
            return Err(format!(
                "--gpu-hour-usd: invalid price: got {}; allowed: a number of dollars >= 0",
                self.gpu_hour_usd
            ));
        }
        Ok(())
    }
}

/// The largest fleet a run accepts (the `instances` parameter's upper limit).
pub fn max_instances() -> u32 {
    crate::params::specs()
        .into_iter()
        .find(|s| s.name == "instances")
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

/// The cost of `replicas` replicas that produced `m`.
pub fn cost(replicas: u32, m: &Measured, limits: &PlanLimits) -> Cost {
    let gpus = replicas * limits.gpus_per_replica;
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
    /// The workload's own rate at scale 1 and its unit ("req/s", "tasks/s").
    fn base_rate(&self, cfg: &Config) -> (f64, &'static str);
    /// The rate scales this workload accepts (a synthetic rate has limits).
    fn scale_limits(&self, _cfg: &Config) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }
}

/// A plan's answer as the headline reads it: (replicas, GPUs, $/h, $/M tokens).
pub type Answer = (u32, u32, f64, f64);

/// What the headline needs of one policy's plan.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlineRow {
    /// The policy's name.
    pub policy: String,
    /// At the answer: (replicas, GPUs, $/h, $/M tokens); `None` when there is none.
    pub answer: Option<Answer>,
    /// The goodput's rate (-inf when there is none).
    pub goodput_rate: f64,
}

impl HeadlineRow {
    /// The row of a plan.
    pub fn of(p: &PolicyPlan) -> HeadlineRow {
        HeadlineRow {
            policy: p.policy.clone(),
            answer: p.at_min.as_ref().map(|a| {
                (
                    a.instances,
                    a.cost.gpus,
                    a.cost.usd_per_hour,
                    a.cost.usd_per_m_tokens,
                )
            }),
            goodput_rate: p.goodput.as_ref().map_or(f64::NEG_INFINITY, |g| {
                if g.rate.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    g.rate
                }
            }),
        }
    }

    /// The row of a plan as JSON (`PolicyPlan` serialised; `null` numbers are NaN).
    pub fn of_json(v: &serde_json::Value) -> HeadlineRow {
        let f = |x: &serde_json::Value| x.as_f64().unwrap_or(f64::NAN);
        let answer = v.get("at_min").filter(|a| !a.is_null()).map(|a| {
            (
                a["instances"].as_u64().unwrap_or(0) as u32,
                a["cost"]["gpus"].as_u64().unwrap_or(0) as u32,
                f(&a["cost"]["usd_per_hour"]),
                f(&a["cost"]["usd_per_m_tokens"]),
            )
        });
        let rate = v.get("goodput").map_or(f64::NAN, |g| f(&g["rate"]));
        HeadlineRow {
            policy: v["policy"].as_str().unwrap_or("?").to_string(),
            answer,
            goodput_rate: if rate.is_nan() {
                f64::NEG_INFINITY
            } else {
                rate
            },
        }
    }
}

/// The headline of plans (`headline_rows` over their rows).
pub fn headline(plans: &[PolicyPlan]) -> String {
    let rows: Vec<HeadlineRow> = plans.iter().map(HeadlineRow::of).collect();
    headline_rows(&rows)
}

/// Sorts a short slice stably by `cmp` (insertion sort): a few lines per element type,
/// where each instantiation of the standard library's sort weighs about 6 KB of wasm
/// (README, "Wasm size"). The planner sorts a few dozen points or policies at most; with a
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

/// Two different prices in dollars, to cents, or to as many more decimals (up to ten) as
/// it takes to print them apart.
fn two_prices(a: f64, b: f64) -> (String, String) {
    let mut decimals = 2;
    loop {
        let (x, y) = (format!("${a:.decimals$}"), format!("${b:.decimals$}"));
        if x != y || decimals >= 10 {
            return (x, y);
        }
        decimals += 1;
    }
}

/// Why `best` (at `usd_per_m_tokens`) comes before the policies `tied` with it on $/h, in
/// the order `headline_rows` breaks the tie: the lower $/M tokens, then the higher goodput;
/// and, when the tie went on $/M tokens, any tied policy whose goodput is higher after all.
fn tie_words(best: &HeadlineRow, usd_per_m_tokens: f64, tied: &[(&HeadlineRow, Answer)]) -> String {
    let names = |rows: &[&(&HeadlineRow, Answer)]| -> String {
        rows.iter()
            .map(|(p, _)| p.policy.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<&(&HeadlineRow, Answer)> = tied.iter().collect();
    let level: Vec<&(&HeadlineRow, Answer)> = tied
        .iter()
        .filter(|(_, a)| a.3 == usd_per_m_tokens)
        .collect();
    let b = &best.policy;
    let mut words = format!(" (tied on cost with {}; ", names(&all));
    if level.len() == tied.len() {
        words.push_str(&format!("{b} has the highest goodput of them)"));
        return words;
    }
    let next = tied
        .iter()
        .map(|(_, a)| a.3)
        .filter(|&m| m != usd_per_m_tokens)
        .fold(f64::INFINITY, f64::min);
    let (mine, theirs) = two_prices(usd_per_m_tokens, next);
    words.push_str(&format!(
        "{b} costs the least per million output tokens, {mine} against {theirs}"
    ));
    if !level.is_empty() {
        words.push_str(&format!(
            ", as does {}, and has the higher goodput of those",
            names(&level)
        ));
    }
    let higher: Vec<&(&HeadlineRow, Answer)> = tied
        .iter()
        .filter(|(p, _)| p.goodput_rate > best.goodput_rate)
        .collect();
    if !higher.is_empty() {
        let verb = if higher.len() == 1 { "has" } else { "have" };
        words.push_str(&format!(
            "; {} {verb} the higher goodput on the fleet as configured",
            names(&higher)
        ));
    }
    words.push(')');
    words
}

/// The cheapest policy that has an answer (ties on $/h broken by $/M tokens, then by the
/// higher goodput), the policies tied with it, and what it saves against `round_robin`.
pub fn headline_rows(rows: &[HeadlineRow]) -> String {
    let mut answered: Vec<(&HeadlineRow, Answer)> =
        rows.iter().filter_map(|r| Some((r, r.answer?))).collect();
    sort_small(&mut answered, |(p, a), (q, b)| {
        a.2.total_cmp(&b.2)
            .then(a.3.total_cmp(&b.3))
            .then(q.goodput_rate.total_cmp(&p.goodput_rate))
    });
    let Some(&(best, (n, gpus, usd_h, _))) = answered.first() else {
        return "No policy meets the targets within the largest fleet tried.".to_string();
    };
    let mut line = format!(
        "Cheapest: {} with {n} replica(s), {gpus} GPU(s), ${usd_h:.2}/h",
        best.policy
    );
    let tied: Vec<(&HeadlineRow, Answer)> = answered[1..]
        .iter()
        .filter(|(_, b)| b.2 == usd_h)
        .copied()
        .collect();
    if !tied.is_empty() {
        line.push_str(&tie_words(best, answered[0].1 .3, &tied));
    }
    let rr = rows.iter().find(|p| p.policy == Policy::RoundRobin.name());
    match rr.map(|p| p.answer) {
        Some(Some((_, _, rr_usd, _))) if rr_usd == usd_h => line
            .push_str("; round_robin costs the same, so no policy saves anything against it here"),
        Some(Some((rn, _, rr_usd, _))) => {
            let saved = rr_usd - usd_h;
            line.push_str(&format!(
                "; against round_robin ({rn} replicas, ${rr_usd:.2}/h) it saves {} replica(s), ${saved:.2}/h ({:.0} %)",
                rn as i64 - n as i64,
                100.0 * saved / rr_usd
            ));
        }
        Some(None) => {
            line.push_str("; round_robin does not meet the targets within the largest fleet tried")
        }
        None => {}
    }
    line.push('.');
    line
}

#[cfg(test)]
mod tests;
