//! The planner's one sentence when nothing met the targets (no policy, or no mix of GPUs):
//! for each target that every fleet tried missed, the best any of them reached and where,
//! and what to change: that target, or the most replicas tried while below the most a run
//! takes. A p99 TTFT target below the least time a first token can take (`floor.rs`) is
//! out of reach of any fleet size: the sentence says so and advises the targets alone.
//! The CLI names its flags, the page its controls (`Knobs`); the sentence is the same
//! otherwise.

use super::count;
use crate::plan::{max_instances, Measured, PolicyPlan, Slo};

/// What the sentence tells the reader to change, in the CLI's or the page's words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knobs {
    /// The p99 TTFT target.
    pub ttft_p99: &'static str,
    /// The p99 TPOT target.
    pub tpot_p99: &'static str,
    /// The p99 end-to-end target.
    pub e2e_p99: &'static str,
    /// The most requests unserved.
    pub max_rejected: &'static str,
    /// The most replicas tried.
    pub max_replicas: &'static str,
    /// How to let a growing backlog meet the targets (a whole phrase).
    pub allow_overload: &'static str,
}

impl Knobs {
    /// `kvfleet plan`'s flags.
    pub const CLI: Knobs = Knobs {
        ttft_p99: "--slo-ttft-p99-ms",
        tpot_p99: "--slo-tpot-p99-ms",
        e2e_p99: "--slo-e2e-p99-ms",
        max_rejected: "--slo-max-rejected",
        max_replicas: "--plan-max-replicas",
        allow_overload: "give --plan-allow-overload",
    };

    /// The page's planner controls, by their labels.
    pub const PAGE: Knobs = Knobs {
        ttft_p99: "the p99 TTFT target",
        tpot_p99: "the p99 TPOT target",
        e2e_p99: "the p99 end-to-end latency target",
        max_rejected: "Unserved",
        max_replicas: "Up to",
        allow_overload: "untick \"a growing backlog misses\"",
    };
}

/// One fleet tried, as the sentence reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tried {
    /// Where it was: "kv on 4 replicas", "kv on 2 x A + 1 x B".
    pub by: String,
    /// Its replicas (of two fleets level on a figure, the smaller is named).
    pub replicas: u32,
    /// The targets it missed ("ttft_p99", "rejected", "overloaded", ...).
    pub misses: Vec<String>,
    /// p99 TTFT, TPOT and end-to-end latency, ms (NaN: nothing finished).
    pub latency_ms: [f64; 3],
    /// Requests unserved, a share of all.
    pub rejected_share: f64,
    /// The least time a first token can take on any fleet of its engine, ms (NaN:
    /// unknown).
    pub ttft_floor_ms: f64,
}

impl Tried {
    /// A fleet of `replicas` tried under `policy`, named `fleet` ("4 replicas"), whose
    /// engine's first token takes at least `ttft_floor_ms`.
    pub fn new(
        policy: &str,
        fleet: &str,
        replicas: u32,
        misses: &[String],
        m: &Measured,
        ttft_floor_ms: f64,
    ) -> Tried {
        Tried {
            by: format!("{policy} on {fleet}"),
            replicas,
            misses: misses.to_vec(),
            latency_ms: [m.ttft_ms_p99, m.tpot_ms_p99, m.e2e_ms_p99],
            rejected_share: m.rejected_share,
            ttft_floor_ms,
        }
    }

    /// Every point of every plan.
    pub fn of_plans(plans: &[PolicyPlan]) -> Vec<Tried> {
        plans
            .iter()
            .flat_map(|p| {
                p.points.iter().map(|q| {
                    let fleet = count(q.instances.into(), "replica");
                    let floor = p.ttft_floor_ms;
                    Tried::new(
                        &p.policy,
                        &fleet,
                        q.instances,
                        &q.misses,
                        &q.measured,
                        floor,
                    )
                })
            })
            .collect()
    }

    /// Every point of every plan in a JSON array of plans (`null` numbers are NaN).
    pub fn of_json(plans: &[serde_json::Value]) -> Vec<Tried> {
        let f = |x: &serde_json::Value| x.as_f64().unwrap_or(f64::NAN);
        let mut out = Vec::new();
        for p in plans {
            let policy = p["policy"].as_str().unwrap_or("?");
            for q in p["points"].as_array().into_iter().flatten() {
                let n = q["instances"].as_u64().unwrap_or(0) as u32;
                let m = &q["measured"];
                out.push(Tried {
                    by: format!("{policy} on {}", count(n.into(), "replica")),
                    replicas: n,
                    misses: q["misses"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect(),
                    latency_ms: [
                        f(&m["ttft_ms_p99"]),
                        f(&m["tpot_ms_p99"]),
                        f(&m["e2e_ms_p99"]),
                    ],
                    rejected_share: f(&m["rejected_share"]),
                    ttft_floor_ms: f(&p["ttft_floor_ms"]),
                });
            }
        }
        out
    }
}

/// A latency as the page prints it: "5.0 ms", "143 ms", "1.25 s".
fn ms(x: f64) -> String {
    if !x.is_finite() {
        "–".to_string()
    } else if x >= 1000.0 {
        format!("{:.2} s", x / 1000.0)
    } else if x < 10.0 {
        format!("{x:.1} ms")
    } else {
        format!("{x:.0} ms")
    }
}

/// A share of requests as a percentage that reads as neither none nor all when it is
/// neither: one decimal, up to two more until it does, else a bound ("< 0.001%").
fn share(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    if x <= 0.0 || x >= 1.0 {
        return format!("{:.1}%", x * 100.0);
    }
    for d in 1..=3 {
        let v = format!("{:.d$}", x * 100.0);
        let n: f64 = v.parse().unwrap_or(0.0);
        if n > 0.0 && n < 100.0 {
            return format!("{v}%");
        }
    }
    if x < 0.5 {
        "< 0.001%".to_string()
    } else {
        "> 99.999%".to_string()
    }
}

/// "a", "a or b", "a, b or c".
fn or_list(xs: &[String]) -> String {
    match xs.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The fleet lowest in `value` (the smaller fleet, then the first, on a tie), or `None`
/// when no value is finite.
fn lowest(tried: &[Tried], value: impl Fn(&Tried) -> f64) -> Option<&Tried> {
    tried
        .iter()
        .filter(|t| value(t).is_finite())
        .min_by(|a, b| {
            value(a)
                .total_cmp(&value(b))
                .then(a.replicas.cmp(&b.replicas))
        })
}

/// The least time a first token can take on every fleet tried, when the p99 TTFT target
/// is below it (so no fleet size reaches the target); `None` otherwise or when a fleet's is
/// unknown.
fn ttft_out_of_reach(tried: &[Tried], slo: &Slo) -> Option<f64> {
    let target = slo.ttft_p99_ms?;
    let floors: Vec<f64> = tried.iter().map(|t| t.ttft_floor_ms).collect();
    if floors.is_empty() || !floors.iter().all(|f| f.is_finite()) {
        return None;
    }
    let floor = floors.into_iter().fold(f64::INFINITY, f64::min);
    (target < floor).then_some(floor)
}

/// The sentence: "No policy meets the targets on up to 4 replicas: the lowest p99 TTFT
/// reached was 143 ms (kv on 4 replicas) against a target of 5.0 ms; raise ... ."
/// `subject`: "policy" or "mix"; `tried`: every fleet tried; `max_replicas`: the most
/// replicas a fleet could have.
pub fn none_met_sentence(
    subject: &str,
    tried: &[Tried],
    slo: &Slo,
    max_replicas: u32,
    knobs: &Knobs,
) -> String {
    let everywhere =
        |miss: &str| !tried.is_empty() && tried.iter().all(|t| t.misses.iter().any(|m| m == miss));
    let latency = [
        ("ttft_p99", "p99 TTFT", slo.ttft_p99_ms, knobs.ttft_p99),
        ("tpot_p99", "p99 TPOT", slo.tpot_p99_ms, knobs.tpot_p99),
        (
            "e2e_p99",
            "p99 end-to-end latency",
            slo.e2e_p99_ms,
            knobs.e2e_p99,
        ),
    ];
    let (mut parts, mut raise) = (Vec::new(), Vec::new());
    let out_of_reach = ttft_out_of_reach(tried, slo).filter(|_| everywhere("ttft_p99"));
    for (i, (miss, words, target, knob)) in latency.into_iter().enumerate() {
        if !everywhere(miss) {
            continue;
        }
        let mut part = match lowest(tried, |t| t.latency_ms[i]) {
            Some(b) => format!(
                "the lowest {words} reached was {} ({}) against a target of {}",
                ms(b.latency_ms[i]),
                b.by,
                ms(target.unwrap_or(f64::NAN))
            ),
            None => "no request finished on any fleet tried".to_string(),
        };
        if let (0, Some(floor)) = (i, out_of_reach) {
            part.push_str(&format!(
                ", which no fleet size reaches: a first token takes at least one engine \
                 step, {} for a lone request with its prompt cached",
                ms(floor)
            ));
        }
        parts.push(part);
        raise.push(knob.to_string());
    }
    if everywhere("rejected") {
        if let Some(b) = lowest(tried, |t| t.rejected_share) {
            parts.push(format!(
                "the fewest unserved were {} of requests ({}) against at most {}",
                share(b.rejected_share),
                b.by,
                share(slo.max_rejected)
            ));
        }
        raise.push(knobs.max_rejected.to_string());
    }
    let grew = everywhere("overloaded");
    if grew {
        parts.push("every fleet's backlog grew through its run".to_string());
    }
    if parts.is_empty() {
        parts.push("each target was met on some fleet tried, never all of them at once".into());
    }
    let most = count(max_replicas.into(), "replica");
    // More replicas cannot bring a first token under the floor.
    if max_replicas < max_instances() && out_of_reach.is_none() {
        raise.push(format!("{} above {most}", knobs.max_replicas));
    }
    let mut change = vec![if raise.is_empty() {
        "relax a target".to_string()
    } else {
        format!("raise {}", or_list(&raise))
    }];
    if grew {
        change.push(knobs.allow_overload.to_string());
    }
    format!(
        "No {subject} meets the targets on up to {most}: {}; {}.",
        parts.join("; "),
        change.join(", or ")
    )
}

#[cfg(test)]
#[path = "none_met_tests.rs"]
mod tests;
