//! The planner's headline: a short line naming the cheapest policy that meets the targets,
//! then details: what broke a tie on $/h (a lower $/M output tokens by more than
//! `LEVEL_PRICE_SHARE`; else, tied on cost, the lower p99 TTFT at the answer, then the
//! higher goodput, then the name) and how it compares with round robin. Over several
//! seeds, two prices are level when they are within noise (`noise::beyond_noise`: their
//! 95 % intervals over the seeds overlap) instead of within `LEVEL_PRICE_SHARE`.
//! `cheapest` is the same choice, for the page's chart to ring. The tie's words: `ties.rs`;
//! the one sentence when no policy met the targets: `none_met.rs`.

use std::cmp::Ordering;

use super::{sort_small, PolicyPlan, Slo};
use crate::config::Policy;
use crate::noise::{beyond_noise, spread, Spread};

mod none_met;
mod ties;

pub use none_met::{none_met_sentence, Knobs, Tried};

/// Two $/M-token figures at the same $/h are level when the higher is within this share of
/// the lower (0.5%). At the same $/h and with every request served they differ only in
/// the makespan, that is when the last request finished: on the seed's workload that moves
/// by about 0.1% between tied policies and reorders them from seed to seed, and the table
/// prints cents, 0.5% of a $1 price or more.
pub const LEVEL_PRICE_SHARE: f64 = 0.005;

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
    /// At the answer: the p99 TTFT, ms (NaN when there is no answer or nothing finished).
    pub ttft_ms_p99: f64,
    /// At the answer of a disaggregated fleet: its (prefill, decode) replicas.
    pub split: Option<(u32, u32)>,
    /// At the answer, over several seeds: each seed's $/M tokens and their spread (`None`
    /// with one seed).
    pub price_spread: Option<Spread>,
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
            ttft_ms_p99: p
                .at_min
                .as_ref()
                .map_or(f64::NAN, |a| a.measured.ttft_ms_p99),
            goodput_rate: p.goodput.as_ref().map_or(f64::NEG_INFINITY, |g| {
                if g.rate.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    g.rate
                }
            }),
            split: p
                .at_min
                .as_ref()
                .and_then(|a| a.prefill_instances.zip(a.decode_instances)),
            price_spread: p
                .at_min
                .as_ref()
                .and_then(|a| a.seeds.as_ref())
                .map(|s| s.usd_per_m_tokens.clone()),
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
        let ttft_ms_p99 = v
            .get("at_min")
            .filter(|a| !a.is_null())
            .map_or(f64::NAN, |a| f(&a["measured"]["ttft_ms_p99"]));
        let pool = |a: &serde_json::Value, key: &str| a[key].as_u64().map(|n| n as u32);
        let split = v
            .get("at_min")
            .and_then(|a| pool(a, "prefill_instances").zip(pool(a, "decode_instances")));
        HeadlineRow {
            policy: v["policy"].as_str().unwrap_or("?").to_string(),
            answer,
            goodput_rate: if rate.is_nan() {
                f64::NEG_INFINITY
            } else {
                rate
            },
            ttft_ms_p99,
            split,
            price_spread: price_spread_of_json(v),
        }
    }
}

/// The spread of the answer's per-seed $/M tokens in a plan's JSON (`at_min.seeds`),
/// recomputed from its values (`null` is NaN); `None` without one.
fn price_spread_of_json(v: &serde_json::Value) -> Option<Spread> {
    let values = v
        .get("at_min")?
        .get("seeds")?
        .get("usd_per_m_tokens")?
        .get("values")?
        .as_array()?;
    let xs: Vec<f64> = values
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect();
    (!xs.is_empty()).then(|| spread(&xs))
}

/// The headline of plans, then its details (`headline_rows` over their rows), or, when
/// no policy met the targets, the one sentence that says what each reached
/// (`none_met_sentence`, in `knobs`' words, `max_replicas` the most tried).
pub fn headline(plans: &[PolicyPlan], slo: &Slo, max_replicas: u32, knobs: &Knobs) -> String {
    let rows: Vec<HeadlineRow> = plans.iter().map(HeadlineRow::of).collect();
    headline_rows(&rows).unwrap_or_else(|| {
        none_met_sentence("policy", &Tried::of_plans(plans), slo, max_replicas, knobs)
    })
}

/// An answered row, with the lowest $/M tokens among the answered rows at its $/h.
#[derive(Clone, Copy)]
struct Ranked<'a> {
    row: &'a HeadlineRow,
    answer: Answer,
    lowest_usd_per_m: f64,
    /// The spread of the lowest $/M tokens at its $/h, over several seeds.
    lowest_spread: Option<&'a Spread>,
}

impl Ranked<'_> {
    fn name(&self) -> &str {
        &self.row.policy
    }

    fn usd_per_hour(&self) -> f64 {
        self.answer.2
    }

    fn usd_per_m(&self) -> f64 {
        self.answer.3
    }

    fn goodput(&self) -> f64 {
        self.row.goodput_rate
    }

    fn ttft(&self) -> f64 {
        self.row.ttft_ms_p99
    }

    /// Level with the lowest $/M tokens at its $/h: within noise of it over several seeds
    /// (their 95 % intervals overlap), else within `LEVEL_PRICE_SHARE` of it.
    fn level(&self) -> bool {
        let noise = self
            .row
            .price_spread
            .as_ref()
            .zip(self.lowest_spread)
            .and_then(|(a, b)| beyond_noise(a, b));
        if let Some(apart) = noise {
            return !apart;
        }
        let (m, lowest) = (self.usd_per_m(), self.lowest_usd_per_m);
        m <= lowest * (1.0 + LEVEL_PRICE_SHARE) || (m.is_nan() && lowest.is_nan())
    }

    /// The seeds its price is measured over, when more than one.
    fn seeds(&self) -> Option<usize> {
        self.row.price_spread.as_ref().map(|s| s.values.len())
    }

    /// How close "level" is: "within noise over 3 seeds" or "to within 0.5%".
    fn level_words(&self) -> String {
        match self.seeds() {
            Some(k) => format!("within noise over {k} seeds"),
            None => format!("to within {}%", LEVEL_PRICE_SHARE * 100.0),
        }
    }

    /// "Not level" with `how` ("below the rest"): "below the rest beyond noise over 3
    /// seeds" or "more than 0.5% below the rest".
    fn apart_words(&self, how: &str) -> String {
        match self.seeds() {
            Some(k) => format!("{how} beyond noise over {k} seeds"),
            None => format!("more than {}% {how}", LEVEL_PRICE_SHARE * 100.0),
        }
    }
}

/// The order of the headline: the lower $/h; at the same $/h the rows level on $/M tokens
/// (tied on cost) first, among them the lower p99 TTFT at the answer, then the higher
/// goodput (on the fleet as configured), then the name; then the others by the lower $/M
/// tokens, then the same three.
fn rank_order(p: &Ranked, q: &Ranked) -> Ordering {
    p.usd_per_hour()
        .total_cmp(&q.usd_per_hour())
        .then(q.level().cmp(&p.level()))
        .then(if p.level() {
            Ordering::Equal
        } else {
            p.usd_per_m().total_cmp(&q.usd_per_m())
        })
        .then(p.ttft().total_cmp(&q.ttft()))
        .then(q.goodput().total_cmp(&p.goodput()))
        .then(p.name().cmp(q.name()))
}

/// The policy the headline names: the first of `rows` in the headline's order (`None` when
/// no row has an answer). The page rings its point on the chart.
pub fn cheapest(rows: &[HeadlineRow]) -> Option<&str> {
    rank(rows).first().map(|r| r.row.policy.as_str())
}

/// The policies tied on cost with the one the headline names, itself first: the same $/h and a
/// $/M output tokens level with the lowest (within `LEVEL_PRICE_SHARE`, or within noise over
/// seeds). Empty when none meets the targets; the named policy alone when none ties with it.
pub fn tied_on_cost(rows: &[HeadlineRow]) -> Vec<&str> {
    let ranked = rank(rows);
    let Some(best) = ranked.first() else {
        return Vec::new();
    };
    if !best.level() {
        return vec![best.row.policy.as_str()];
    }
    ranked
        .iter()
        .filter(|r| r.usd_per_hour() == best.usd_per_hour() && r.level())
        .map(|r| r.row.policy.as_str())
        .collect()
}

/// The answered rows in the headline's order.
fn rank(rows: &[HeadlineRow]) -> Vec<Ranked<'_>> {
    let answered: Vec<(&HeadlineRow, Answer)> =
        rows.iter().filter_map(|r| Some((r, r.answer?))).collect();
    let lowest = |usd_h: f64| {
        answered
            .iter()
            .filter(|(_, a)| a.2 == usd_h)
            .min_by(|(_, a), (_, b)| a.3.total_cmp(&b.3))
            .map(|&(row, a)| (a.3, row.price_spread.as_ref()))
            .unwrap_or((f64::NAN, None))
    };
    let mut ranked: Vec<Ranked> = answered
        .iter()
        .map(|&(row, answer)| {
            let (lowest_usd_per_m, lowest_spread) = lowest(answer.2);
            Ranked {
                row,
                answer,
                lowest_usd_per_m,
                lowest_spread,
            }
        })
        .collect();
    sort_small(&mut ranked, rank_order);
    ranked
}

/// "1 replica", "2 replicas".
pub(crate) fn count(n: i64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// "a", "a and b", "a, b and c".
fn and_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The decimals (2 to 10) it takes to print two prices in dollars apart.
fn decimals_apart(a: f64, b: f64) -> usize {
    (2..10)
        .find(|&d| format!("{a:.d$}") != format!("{b:.d$}"))
        .unwrap_or(10)
}

/// Two different prices in dollars, to cents, or to as many more decimals (up to ten) as
/// it takes to print them apart.
fn two_prices(a: f64, b: f64) -> (String, String) {
    let d = decimals_apart(a, b);
    (format!("${a:.d$}"), format!("${b:.d$}"))
}

/// What the cheapest (`best`, not round robin) saves against round robin's answer, if
/// round robin was planned.
fn against_round_robin(rows: &[HeadlineRow], best: &Ranked) -> Option<String> {
    let rr = rows
        .iter()
        .find(|p| p.policy == Policy::RoundRobin.name())?;
    let Some((rn, _, rr_usd, _)) = rr.answer else {
        return Some(
            "round_robin does not meet the targets within the largest fleet tried.".into(),
        );
    };
    let (n, _, usd_h, _) = best.answer;
    let them = format!(
        "Against round_robin ({}, ${rr_usd:.2}/h), {}",
        count(rn.into(), "replica"),
        best.name()
    );
    if rr_usd == usd_h {
        return Some(format!(
            "{them} saves nothing: both cost the same per hour."
        ));
    }
    let saved = rr_usd - usd_h;
    Some(format!(
        "{them} saves {}, ${saved:.2}/h ({:.0}%).",
        count(rn as i64 - n as i64, "replica"),
        100.0 * saved / rr_usd
    ))
}

/// When round robin itself is the cheapest: what the others come to, without comparing
/// round robin with itself (nothing when it is the only policy planned).
fn round_robin_first(rows: &[HeadlineRow], ranked: &[Ranked]) -> Option<String> {
    let usd_h = ranked[0].usd_per_hour();
    match ranked.get(1) {
        _ if rows.len() == 1 => None,
        None => Some("No other policy meets the targets within the largest fleet tried.".into()),
        Some(next) if next.usd_per_hour() == usd_h => Some(
            "No other policy costs less per hour, so cache-aware routing saves nothing here."
                .into(),
        ),
        Some(next) => Some(format!(
            "No other policy costs as little, so cache-aware routing saves nothing here: the \
             next cheapest, {}, needs {}, ${:.2}/h.",
            next.name(),
            count(next.answer.0.into(), "replica"),
            next.usd_per_hour()
        )),
    }
}

/// The short headline: the cheapest policy, its size, $/h and $/M tokens, and when it is
/// tied on cost with others (`tied`: those at its $/h), what put it first.
fn headline_sentence(best: &Ranked, tied: &[Ranked]) -> String {
    let tie = ties::tie_clause(best, tied);
    let (n, gpus, usd_h, usd_m) = best.answer;
    let per_m = if usd_m.is_finite() {
        format!(", ${usd_m:.2} per million output tokens")
    } else {
        String::new()
    };
    let split = match best.row.split {
        Some((p, d)) => format!("{p} prefill + {d} decode, "),
        None => String::new(),
    };
    format!(
        "Cheapest: {} on {} ({split}{}) at ${usd_h:.2}/h{per_m}, meeting the targets{tie}.",
        best.name(),
        count(n.into(), "replica"),
        count(gpus.into(), "GPU")
    )
}

/// The headline and its details: the cheapest policy that has an answer (ties on $/h
/// broken by the lower $/M tokens when they differ by more than `LEVEL_PRICE_SHARE`, else,
/// tied on cost, by the lower p99 TTFT, the higher goodput, the name: `rank_order`); then the policies tied
/// with it and what decided, and how it compares with `round_robin` (the details, empty
/// when there is nothing to add); `None` when no row has an answer.
pub fn headline_parts(rows: &[HeadlineRow]) -> Option<(String, String)> {
    let ranked = rank(rows);
    let best = ranked.first()?;
    let usd_h = best.usd_per_hour();
    let tied: Vec<Ranked> = ranked[1..]
        .iter()
        .filter(|r| r.usd_per_hour() == usd_h)
        .copied()
        .collect();
    let mut details = if tied.is_empty() {
        Vec::new()
    } else {
        ties::tie_sentences(best, &tied)
    };
    let rr = if best.name() == Policy::RoundRobin.name() {
        round_robin_first(rows, &ranked)
    } else {
        against_round_robin(rows, best)
    };
    details.extend(rr);
    Some((headline_sentence(best, &tied), details.join(" ")))
}

/// The headline, then on a line of its own the details when there are any (see
/// `headline_parts`): the page and the CLI split it at the first newline, and show the
/// first line in bold, the rest in plain text. `None` when no row has an answer.
pub fn headline_rows(rows: &[HeadlineRow]) -> Option<String> {
    Some(match headline_parts(rows)? {
        (head, details) if details.is_empty() => head,
        (head, details) => format!("{head}\n{details}"),
    })
}

#[cfg(test)]
mod tests;
