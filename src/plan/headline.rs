//! The planner's headline: a short line naming the cheapest policy that meets the targets,
//! then details: what broke a tie on $/h (a lower $/M output tokens by more than
//! `LEVEL_PRICE_SHARE`, else the higher goodput, and only at the same goodput, as a last
//! resort, the $/M tokens lower by a hair) and how it compares with round robin. Over
//! several seeds, two prices are level when they are within noise (`noise::beyond_noise`:
//! their 95 % intervals over the seeds overlap) instead of within `LEVEL_PRICE_SHARE`.

use std::cmp::Ordering;

use super::{sort_small, PolicyPlan};
use crate::config::Policy;
use crate::noise::{beyond_noise, spread, Spread};

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

/// The headline of plans, then its details (`headline_rows` over their rows).
pub fn headline(plans: &[PolicyPlan]) -> String {
    let rows: Vec<HeadlineRow> = plans.iter().map(HeadlineRow::of).collect();
    headline_rows(&rows)
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
/// first, by the higher goodput, then the lower $/M tokens; then the others by the lower
/// $/M tokens, then the higher goodput.
fn rank_order(p: &Ranked, q: &Ranked) -> Ordering {
    let by_goodput = q.goodput().total_cmp(&p.goodput());
    p.usd_per_hour()
        .total_cmp(&q.usd_per_hour())
        .then(q.level().cmp(&p.level()))
        .then(if p.level() {
            by_goodput
        } else {
            Ordering::Equal
        })
        .then(p.usd_per_m().total_cmp(&q.usd_per_m()))
        .then(by_goodput)
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

/// The details' sentences on a tie on $/h: which policies tied, what put `best` first (the
/// $/M tokens, else among the level ones the goodput), and any tied policy whose goodput
/// is higher after all.
fn tie_sentences(best: &Ranked, tied: &[Ranked]) -> Vec<String> {
    let (level, above): (Vec<Ranked>, Vec<Ranked>) = tied.iter().partition(|r| r.level());
    let mut out = vec![format!(
        "Tied at ${:.2}/h with {}.",
        best.usd_per_hour(),
        and_list(tied.iter().map(|r| r.name()))
    )];
    if level.is_empty() {
        let (mine, theirs) = two_prices(best.usd_per_m(), above[0].usd_per_m());
        out.push(format!(
            "{} costs the least per million output tokens, {}: {mine} against {theirs}.",
            best.name(),
            best.apart_words("below the rest")
        ));
    } else {
        out.push(format!(
            "{}, so the higher goodput on the fleet as configured decides between them.",
            level_price_words(best, &level, &above)
        ));
        out.push(level_goodput_words(best, &level, above.is_empty()));
    }
    let higher: Vec<&str> = above
        .iter()
        .filter(|r| r.goodput() > best.goodput())
        .map(|r| r.name())
        .collect();
    if !higher.is_empty() {
        let verb = if higher.len() == 1 { "has" } else { "have" };
        out.push(format!(
            "{} {verb} the higher goodput on the fleet as configured, but a price per million \
             output tokens {}.",
            and_list(higher),
            best.apart_words("above the lowest")
        ));
    }
    out
}

/// "dynamo and kv cost the same per million output tokens to within 0.5% ($2.00, against
/// $2.20 for round_robin)": `best` and the `level` policies, and the cheapest `above` them.
fn level_price_words(best: &Ranked, level: &[Ranked], above: &[Ranked]) -> String {
    let group: Vec<&Ranked> = std::iter::once(best).chain(level).collect();
    let prices = group.iter().map(|r| r.usd_per_m());
    let lo = prices.clone().fold(f64::INFINITY, f64::min);
    let hi = prices.fold(f64::NEG_INFINITY, f64::max);
    let subject = match (above.is_empty(), group.len()) {
        (true, 2) => "Both".to_string(),
        (true, _) => "All".to_string(),
        _ => and_list(group.iter().map(|r| r.name())),
    };
    let next = above.first().map(|r| r.usd_per_m());
    let d = next.map_or(2, |n| decimals_apart(hi, n));
    let (lo_s, hi_s) = (format!("${lo:.d$}"), format!("${hi:.d$}"));
    let range = if lo_s == hi_s {
        lo_s
    } else {
        format!("{lo_s} to {hi_s}")
    };
    let against = match (next, above) {
        (Some(n), [one]) => format!(", against ${n:.d$} for {}", one.name()),
        (Some(n), _) => format!(", against ${n:.d$} or more for the rest"),
        (None, _) => String::new(),
    };
    format!(
        "{subject} cost the same per million output tokens {} ({range}{against})",
        best.level_words()
    )
}

/// Why `best` comes before the `level` policies, as a sentence: its higher goodput; or, at
/// the same goodput and only as the last resort, its $/M tokens lower by a hair (within
/// `LEVEL_PRICE_SHARE`, so the words say it is level first); or nothing (it is listed first).
fn level_goodput_words(best: &Ranked, level: &[Ranked], alone: bool) -> String {
    let b = best.name();
    let two = level.len() == 1;
    let of = match (two, alone) {
        (true, _) => "of the two",
        (false, true) => "of them",
        (false, false) => "of those",
    };
    let top: Vec<&Ranked> = level
        .iter()
        .filter(|r| r.goodput() == best.goodput())
        .collect();
    if top.is_empty() {
        let most = if two { "higher" } else { "highest" };
        return format!("{b} has the {most} goodput {of}.");
    }
    let with = and_list(std::iter::once(b).chain(top.iter().map(|r| r.name())));
    let equal: Vec<&str> = top
        .iter()
        .filter(|r| r.usd_per_m() == best.usd_per_m())
        .map(|r| r.name())
        .collect();
    if !equal.is_empty() {
        let all = and_list(std::iter::once(b).chain(equal));
        return format!("Nothing else tells {all} apart, and {b} is listed first.");
    }
    let same = if top.len() == level.len() {
        "have the same goodput".to_string()
    } else {
        format!("share the highest goodput {of}")
    };
    format!("{with} {same}; {}", last_resort_words(best, &top))
}

/// The last resort among policies level on $/M tokens and with the same goodput: "only
/// then, as a last resort, does the price per million output tokens decide: kv's is the
/// lowest by a hair, $2.000 against $2.001" (`best` against the cheapest of `top`).
fn last_resort_words(best: &Ranked, top: &[&Ranked]) -> String {
    let next = top
        .iter()
        .map(|r| r.usd_per_m())
        .fold(f64::INFINITY, f64::min);
    let (mine, theirs) = two_prices(best.usd_per_m(), next);
    let least = if top.len() == 1 { "lower" } else { "lowest" };
    format!(
        "only then, as a last resort, does the price per million output tokens decide: {}'s \
         is the {least} by a hair, {mine} against {theirs}.",
        best.name()
    )
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

/// The short headline: the cheapest policy, its size, $/h and $/M tokens.
fn headline_sentence(best: &Ranked) -> String {
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
        "Cheapest: {} on {} ({split}{}) at ${usd_h:.2}/h{per_m}, meeting the targets.",
        best.name(),
        count(n.into(), "replica"),
        count(gpus.into(), "GPU")
    )
}

/// The headline and its details: the cheapest policy that has an answer (ties on $/h
/// broken by the lower $/M tokens when they differ by more than `LEVEL_PRICE_SHARE`, else
/// by the higher goodput, and at the same goodput by the lower $/M tokens as a last
/// resort); then the policies tied with it and what decided, and how it
/// compares with `round_robin` (the details, empty when there is nothing to add).
pub fn headline_parts(rows: &[HeadlineRow]) -> (String, String) {
    let ranked = rank(rows);
    let Some(best) = ranked.first() else {
        let none = "No policy meets the targets within the largest fleet tried.";
        return (none.to_string(), String::new());
    };
    let usd_h = best.usd_per_hour();
    let tied: Vec<Ranked> = ranked[1..]
        .iter()
        .filter(|r| r.usd_per_hour() == usd_h)
        .copied()
        .collect();
    let mut details = if tied.is_empty() {
        Vec::new()
    } else {
        tie_sentences(best, &tied)
    };
    let rr = if best.name() == Policy::RoundRobin.name() {
        round_robin_first(rows, &ranked)
    } else {
        against_round_robin(rows, best)
    };
    details.extend(rr);
    (headline_sentence(best), details.join(" "))
}

/// The headline, then on a line of its own the details when there are any (see
/// `headline_parts`): the page and the CLI split it at the first newline, and show the
/// first line in bold, the rest in plain text.
pub fn headline_rows(rows: &[HeadlineRow]) -> String {
    match headline_parts(rows) {
        (head, details) if details.is_empty() => head,
        (head, details) => format!("{head}\n{details}"),
    }
}

#[cfg(test)]
mod tests;
