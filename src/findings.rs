//! The run's findings in plain words, each fired only on evidence: uneven load, uneven hit
//! rate and overload are separate findings with separate words, and none fires on a
//! sample too small to tell a hot spot from chance.
//!
//! Rules (every threshold is a named constant below):
//! - **Minimum sample.** Load and hit-rate findings need at least
//!   `MIN_REQUESTS_PER_REPLICA` requests per replica on average; a replica's hit rate
//!   counts only if it admitted that many itself.
//! - **Uneven load.** The busiest replica got at least `LOAD_HIGH_RATIO` × an even share,
//!   or a replica got at most `LOAD_LOW_RATIO` × it, and the gap to the even share is
//!   beyond chance: more than `CHANCE_SIGMAS` × √(even share), the spread random dealing
//!   of that many requests would give. An exactly even split (round robin) never fires.
//! - **Uneven hit rate.** Token hit rates of the sampled replicas span `HIT_SPREAD` or more.
//! - **Overloaded.** A replica's backlog (requests waiting or running) grew while arrivals
//!   lasted at a steady rate: its mean over the second half of the window exceeds the first
//!   half's by `GROWTH_FACTOR` × and by at least `GROWTH_MIN` requests (or `GROWTH_SHARE`
//!   of its requests), or its full queue rejected `REJECT_SHARE` of its requests. The
//!   window is the arrivals' (under a rate schedule, from the start of the schedule's
//!   last piece before the last arrival: a backlog that grew with a step up of the rate is
//!   no overload); under an autoscaler each replica's starts no earlier than its first
//!   admission (a replica that joined late had no backlog before).
//! - **KV-bound.** KV capacity, not the slots, held requests back (`kv.rs`).

use serde::Serialize;

use crate::series::Series;

pub mod kv;

/// Requests per replica below which no load or hit-rate finding is given.
pub const MIN_REQUESTS_PER_REPLICA: f64 = 30.0;
/// Busiest replica at or above this multiple of an even share is uneven.
pub const LOAD_HIGH_RATIO: f64 = 1.5;
/// A replica at or below this multiple of an even share is uneven.
pub const LOAD_LOW_RATIO: f64 = 0.5;
/// How far from an even share chance alone rarely goes, in √(even share).
pub const CHANCE_SIGMAS: f64 = 3.0;
/// Spread of per-replica token hit rates that is a finding.
pub const HIT_SPREAD: f64 = 0.25;
/// Second-half backlog over first-half backlog that is growth.
pub const GROWTH_FACTOR: f64 = 1.5;
/// Least backlog growth (requests) that counts.
pub const GROWTH_MIN: f64 = 10.0;
/// ... or this share of the replica's requests, if larger.
pub const GROWTH_SHARE: f64 = 0.05;
/// Below this share of the backlog waiting, the words say the backlog is running requests.
pub const RUNNING_SHARE: f64 = 0.1;
/// Share of a replica's requests rejected by its full queue that is overload.
pub const REJECT_SHARE: f64 = 0.05;

/// The kind of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Requests were not shared evenly.
    LoadUneven,
    /// Some replicas reuse their cache far more than others.
    HitUneven,
    /// Offered load exceeded what one or more replicas could serve.
    Overloaded,
    /// KV capacity, not the batch slots, limited how many requests ran at once.
    KvBound,
}

/// One finding (`findings[]`): its kind, the replicas it names and its words.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// The replicas it is about (the busiest, the idle ones, the overloaded ones...).
    pub replicas: Vec<u32>,
    /// Plain words, with the numbers behind them.
    pub text: String,
}

/// What the findings look at, per replica.
#[derive(Clone, Debug, Default)]
pub struct ReplicaFacts {
    /// Requests routed to it.
    pub requests: u64,
    /// Requests it admitted.
    pub admitted: u64,
    /// Cached over prompt tokens of its admitted requests (NaN when none).
    pub hit_rate_tokens: f64,
    /// Requests its full queue rejected.
    pub rejected: u64,
    /// Its longest waiting queue.
    pub peak_queue: u32,
}

/// The arrival window, µs, over which backlog growth is judged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Window {
    /// First arrival (under a rate schedule, the start of its last piece before the last
    /// arrival, if later).
    pub start_us: u64,
    /// Last arrival.
    pub end_us: u64,
    /// Whether each replica's window starts at its first admission, if later (under an
    /// autoscaler, where replicas join during the run).
    pub from_first_admission: bool,
    /// Whether `start_us` is the rate schedule's last change (the words then name it).
    pub after_change: bool,
    /// How long a replica's backlog grows from its start whatever its speed: until its
    /// first requests can have finished (a request's time on an idle replica), every
    /// arrival adds to it. Growth is judged from the window's start (or the replica's
    /// first admission) plus this; a queue of waiting requests, from the start.
    pub settle_us: u64,
}

/// Every finding of a run, in a fixed order: load, hit rate, overload.
pub fn findings(rows: &[ReplicaFacts], series: &Series, window: Window) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(load_finding(rows));
    out.extend(hit_finding(rows));
    out.extend(overload_finding(rows, series, window));
    out
}

/// The findings of a disaggregated fleet: uneven load and hit rate among the first
/// `routed` replicas (the prefill pool, where the routing policy sends requests), overload
/// on any replica.
pub fn pooled_findings(
    rows: &[ReplicaFacts],
    routed: usize,
    series: &Series,
    window: Window,
) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(load_finding(&rows[..routed]));
    out.extend(hit_finding(&rows[..routed]));
    out.extend(overload_finding(rows, series, window));
    out
}

fn even_share(rows: &[ReplicaFacts]) -> f64 {
    rows.iter().map(|r| r.requests as f64).sum::<f64>() / rows.len().max(1) as f64
}

/// Uneven load, or `None` when the split is within chance or the sample is too small.
pub fn load_finding(rows: &[ReplicaFacts]) -> Option<Finding> {
    let mean = even_share(rows);
    if rows.len() < 2 || mean < MIN_REQUESTS_PER_REPLICA {
        return None;
    }
    let chance = CHANCE_SIGMAS * mean.sqrt();
    let total: u64 = rows.iter().map(|r| r.requests).sum();
    let (busiest, top) = rows
        .iter()
        .enumerate()
        .max_by_key(|(i, r)| (r.requests, std::cmp::Reverse(*i)))
        .map(|(i, r)| (i as u32, r.requests as f64))?;
    if top >= LOAD_HIGH_RATIO * mean && top - mean > chance {
        let others = rows
            .iter()
            .enumerate()
            .filter(|&(i, _)| i as u32 != busiest)
            .map(|(_, r)| r.peak_queue)
            .max()
            .unwrap_or(0);
        let own = rows[busiest as usize].peak_queue;
        // The queue is evidence only when it stands out: twice the others' and 5 or more.
        let queue = if own >= 5 && own >= 2 * others {
            format!(
                "; its queue peaked at {} waiting, against at most {} on any other replica",
                count(own as f64),
                count(others as f64)
            )
        } else {
            String::new()
        };
        let text = format!(
            "Uneven load: replica {busiest} received {:.0}% of requests ({} of {}; an even share is {:.0}%){queue}.",
            100.0 * top / total as f64,
            count(top),
            count(total as f64),
            100.0 / rows.len() as f64,
        );
        return Some(Finding {
            kind: FindingKind::LoadUneven,
            replicas: vec![busiest],
            text,
        });
    }
    let idle: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| {
            let x = rows[i as usize].requests as f64;
            x <= LOAD_LOW_RATIO * mean && mean - x > chance
        })
        .collect();
    if idle.is_empty() {
        return None;
    }
    let least = idle
        .iter()
        .map(|&i| rows[i as usize].requests)
        .min()
        .unwrap_or(0);
    let text = format!(
        "Uneven load: {} of {} replicas received under half an even share of {} requests (the least, {}). Their capacity sits idle while the rest do the work.",
        idle.len(),
        rows.len(),
        count(mean),
        count(least as f64)
    );
    Some(Finding {
        kind: FindingKind::LoadUneven,
        replicas: idle,
        text,
    })
}

/// Uneven token hit rate across the replicas that admitted enough requests.
pub fn hit_finding(rows: &[ReplicaFacts]) -> Option<Finding> {
    if rows.len() < 2 || even_share(rows) < MIN_REQUESTS_PER_REPLICA {
        return None;
    }
    let sampled: Vec<(u32, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.admitted as f64 >= MIN_REQUESTS_PER_REPLICA && r.hit_rate_tokens.is_finite()
        })
        .map(|(i, r)| (i as u32, r.hit_rate_tokens))
        .collect();
    let lo = sampled
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))?;
    let hi = sampled
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    if hi.1 - lo.1 < HIT_SPREAD {
        return None;
    }
    let text = format!(
        "Uneven hit rate: replica {} serves {:.0}% of its prompt tokens from cache, replica {} only {:.0}%. The fleet's average hides replicas that keep recomputing.",
        hi.0,
        100.0 * hi.1,
        lo.0,
        100.0 * lo.1
    );
    Some(Finding {
        kind: FindingKind::HitUneven,
        replicas: vec![hi.0, lo.0],
        text,
    })
}

/// A count in words, rounded to whole as `{:.0}` rounds, and grouped: "1,585".
fn count(x: f64) -> String {
    let whole = format!("{x:.0}");
    whole
        .parse::<i64>()
        .map_or(whole, crate::numbers::thousands)
}

/// Mean backlog (waiting + running) of replica `r` over the two halves of the window, or
/// `None` when either half has fewer than four samples.
pub fn backlog_halves(series: &Series, r: usize, window: Window) -> Option<(f64, f64)> {
    halves(series, r, window, |k| {
        series.queue[r][k] + series.running[r][k]
    })
}

/// The same for the requests waiting (the queue) alone, from the window's start: a queue
/// grows only when arrivals outrun the admissions, however soon.
pub fn waiting_halves(series: &Series, r: usize, window: Window) -> Option<(f64, f64)> {
    let whole = Window {
        settle_us: 0,
        ..window
    };
    halves(series, r, whole, |k| series.queue[r][k])
}

/// Mean of `count` at the samples of replica `r`'s window, per half.
fn halves(
    series: &Series,
    r: usize,
    window: Window,
    count: impl Fn(usize) -> u32,
) -> Option<(f64, f64)> {
    let (mut start_s, end_s) = (window.start_us as f64 / 1e6, window.end_us as f64 / 1e6);
    if window.from_first_admission {
        // The first window with an admission on `r` ends at its sample; it began a grid
        // step earlier.
        let first = series.hit_rate.get(r)?.iter().position(Option::is_some)?;
        start_s = start_s.max(series.t_s[first.saturating_sub(1)]);
    }
    start_s += window.settle_us as f64 / 1e6;
    let mid_s = (start_s + end_s) / 2.0;
    let (mut first, mut second) = ((0.0, 0u32), (0.0, 0u32));
    for (k, &t) in series.t_s.iter().enumerate() {
        if t < start_s || t > end_s {
            continue;
        }
        let half = if t < mid_s { &mut first } else { &mut second };
        half.0 += count(k) as f64;
        half.1 += 1;
    }
    (first.1 >= 4 && second.1 >= 4).then(|| (first.0 / first.1 as f64, second.0 / second.1 as f64))
}

/// The backlog growth of a replica, when it is growth by the rules above.
fn growth(row: &ReplicaFacts, halves: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let n = row.requests as f64;
    halves.filter(|&(a, b)| b >= GROWTH_FACTOR * a && b - a >= GROWTH_MIN.max(GROWTH_SHARE * n))
}

/// Replica `r`'s growth, if any: of its backlog (judged after its settling time), else of
/// its queue of waiting requests (judged from its start), with the words for which.
fn grown(
    series: &Series,
    r: usize,
    row: &ReplicaFacts,
    window: Window,
) -> Option<(&'static str, (f64, f64))> {
    growth(row, backlog_halves(series, r, window))
        .map(|g| ("backlog", g))
        .or_else(|| {
            growth(row, waiting_halves(series, r, window)).map(|g| ("queue of waiting requests", g))
        })
}

fn overloaded(row: &ReplicaFacts, grew: bool) -> bool {
    let n = row.requests as f64;
    n >= MIN_REQUESTS_PER_REPLICA && (row.rejected as f64 >= REJECT_SHARE * n || grew)
}

/// Replicas whose backlog grew without bound (or whose full queue rejected work).
pub fn overload_finding(rows: &[ReplicaFacts], series: &Series, window: Window) -> Option<Finding> {
    let grew: Vec<Option<(&str, (f64, f64))>> = (0..rows.len())
        .map(|r| grown(series, r, &rows[r], window))
        .collect();
    let hit: Vec<u32> = (0..rows.len() as u32)
        .filter(|&r| overloaded(&rows[r as usize], grew[r as usize].is_some()))
        .collect();
    let &first = hit.first()?;
    let mut evidence = Vec::new();
    if let Some((what, (a, b))) = grew[first as usize] {
        // Running, not waiting: the replica started its work, but its batch grew and every
        // step slowed (so its saturated share, steps with work left unstarted, stays low).
        let waiting = waiting_halves(series, first as usize, window).map_or(0.0, |w| w.1);
        let running = if waiting < RUNNING_SHARE * b {
            "; nearly all of it running, not waiting: the batches grew and every step slowed"
        } else {
            ""
        };
        evidence.push(
            format!(
                "{what} grew from {} to {} requests between the two halves of the arrivals{}",
                count(a),
                count(b),
                if window.after_change {
                    format!(
                        " after the rate's last change, at {}",
                        crate::numbers::seconds(window.start_us as f64 / 1e6)
                    )
                } else {
                    String::new()
                }
            ) + running,
        );
    }
    let rejected: u64 = hit.iter().map(|&r| rows[r as usize].rejected).sum();
    if rejected > 0 {
        evidence.push(format!(
            "{} requests rejected by full queues",
            count(rejected as f64)
        ));
    }
    let evidence = evidence.join("; ");
    let text = if hit.len() == rows.len() {
        format!("Overloaded: the fleet cannot keep up with the offered load ({evidence}). Add replicas or lower the rate.")
    } else if hit.len() == 1 {
        format!("Overloaded: replica {first} cannot keep up ({evidence}), while the other replicas kept up.")
    } else {
        format!(
            "Overloaded: {} of {} replicas cannot keep up (replica {first}: {evidence}), while the others kept up.",
            hit.len(),
            rows.len()
        )
    };
    Some(Finding {
        kind: FindingKind::Overloaded,
        replicas: hit,
        text,
    })
}

#[cfg(test)]
mod tests;
