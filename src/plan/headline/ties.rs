//! The headline's words on a tie on $/h: who tied, what decided (a $/M output tokens lower
//! beyond `LEVEL_PRICE_SHARE` or noise; else, tied on cost, the lower p99 TTFT at the
//! answer, then the name), and a tied policy whose goodput is higher after all.

use super::{and_list, decimals_apart, two_prices, Ranked};
use crate::numbers::duration;

/// Two different p99 TTFTs as the latency table writes them, or to a thousandth of a ms when
/// that would print them alike.
fn two_ms(a: f64, b: f64) -> (String, String) {
    let (x, y) = (duration(a), duration(b));
    if x != y || a == b {
        (x, y)
    } else {
        (format!("{a:.3} ms"), format!("{b:.3} ms"))
    }
}

/// The level policies (tied with `best` on cost) whose p99 TTFT equals `best`'s, and of
/// those the ones whose goodput does too.
fn alike<'a>(best: &Ranked, level: &'a [Ranked<'a>]) -> (Vec<&'a Ranked<'a>>, Vec<&'a str>) {
    let same: Vec<&Ranked> = level.iter().filter(|r| r.ttft() == best.ttft()).collect();
    let all = same
        .iter()
        .filter(|r| r.goodput() == best.goodput())
        .map(|r| r.name())
        .collect();
    (same, all)
}

/// "dynamo" for one policy, "3 others" for more.
fn others(names: &[&str]) -> String {
    match names {
        [one] => one.to_string(),
        _ => format!("{} others", names.len()),
    }
}

/// "lower" between two, "lowest" among more.
fn most(n: usize, two: &'static str, more: &'static str) -> &'static str {
    if n == 1 {
        two
    } else {
        more
    }
}

/// The headline's clause on a tie on cost, "" without one: "; tied on cost with dynamo,
/// round_robin has the lower p99 TTFT", "; tied on cost and p99 TTFT with 3 others, kv has
/// the highest goodput", or "; tied on cost, p99 TTFT and goodput with kv, dynamo comes
/// first by name".
pub(super) fn tie_clause(best: &Ranked, tied: &[Ranked]) -> String {
    let level: Vec<Ranked> = tied.iter().filter(|r| r.level()).copied().collect();
    if level.is_empty() {
        return String::new();
    }
    let (same, all) = alike(best, &level);
    let b = best.name();
    if !all.is_empty() {
        return format!(
            "; tied on cost, p99 TTFT and goodput with {}, {b} comes first by name",
            others(&all)
        );
    }
    if !same.is_empty() {
        let names: Vec<&str> = same.iter().map(|r| r.name()).collect();
        return format!(
            "; tied on cost and p99 TTFT with {}, {b} has the {} goodput",
            others(&names),
            most(names.len(), "higher", "highest")
        );
    }
    let names: Vec<&str> = level.iter().map(|r| r.name()).collect();
    format!(
        "; tied on cost with {}, {b} has the {} p99 TTFT",
        others(&names),
        most(names.len(), "lower", "lowest")
    )
}

/// The details' sentences on a tie on $/h: which policies tied, what put `best` first (the
/// $/M tokens, else among the level ones the p99 TTFT, the goodput, the name), and any tied
/// policy whose goodput is higher after all.
pub(super) fn tie_sentences(best: &Ranked, tied: &[Ranked]) -> Vec<String> {
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
            "{}, so the lower p99 TTFT decides between them.",
            level_price_words(best, &level, &above)
        ));
        out.push(level_ttft_words(best, &level, above.is_empty()));
    }
    out.extend(higher_goodput(best, &level, "a higher p99 TTFT".into()));
    out.extend(higher_goodput(
        best,
        &above,
        format!(
            "a price per million output tokens {}",
            best.apart_words("above the lowest")
        ),
    ));
    out
}

/// "round_robin has the higher goodput on the fleet as configured, but `but`." for those of
/// `rows` whose goodput is above `best`'s; nothing when none is.
fn higher_goodput(best: &Ranked, rows: &[Ranked], but: String) -> Option<String> {
    let higher: Vec<&str> = rows
        .iter()
        .filter(|r| r.goodput() > best.goodput())
        .map(|r| r.name())
        .collect();
    let verb = if higher.len() == 1 { "has" } else { "have" };
    (!higher.is_empty()).then(|| {
        format!(
            "{} {verb} the higher goodput on the fleet as configured, but {but}.",
            and_list(higher)
        )
    })
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

/// Why `best` comes before the `level` policies, as a sentence: its lower p99 TTFT ("kv has
/// the lower p99 TTFT of the two: 52.0 ms against 81.0 ms"); at the same p99 TTFT its
/// higher goodput ("kv and dynamo have the same p99 TTFT, 52.0 ms; kv has the higher
/// goodput on the fleet as configured"); at the same goodput too, its name.
fn level_ttft_words(best: &Ranked, level: &[Ranked], alone: bool) -> String {
    let b = best.name();
    let of = match (level.len() == 1, alone) {
        (true, _) => "of the two",
        (false, true) => "of them",
        (false, false) => "of those",
    };
    let (same, all) = alike(best, level);
    if same.is_empty() {
        let next = level.iter().map(|r| r.ttft()).fold(f64::INFINITY, f64::min);
        let (mine, theirs) = two_ms(best.ttft(), next);
        let more = if level.len() == 1 { "" } else { " or more" };
        let lowest = most(level.len(), "lower", "lowest");
        return format!("{b} has the {lowest} p99 TTFT {of}: {mine} against {theirs}{more}.");
    }
    let names = and_list(std::iter::once(b).chain(same.iter().map(|r| r.name())));
    let ms = duration(best.ttft());
    let lowest = if same.len() < level.len() {
        format!(", the lowest {of}")
    } else {
        String::new()
    };
    if all.is_empty() {
        let highest = most(same.len(), "higher", "highest");
        return format!(
            "{names} have the same p99 TTFT, {ms}{lowest}; {b} has the {highest} goodput on \
             the fleet as configured."
        );
    }
    let with = and_list(std::iter::once(b).chain(all.iter().copied()));
    let goodput = if all.len() == same.len() {
        format!("{names} have the same p99 TTFT, {ms}{lowest}, and the same goodput")
    } else {
        format!("{names} have the same p99 TTFT, {ms}{lowest}; {with} share the highest goodput")
    };
    format!("{goodput}; {b} comes first by name.")
}
