//! The text report's compact time series ("Over time"): the run's sample windows grouped
//! into at most ten rows, each with the scheduled, offered and served rates, the deepest
//! fleet-wide queue, the hit rate and the mean TTFT, merged exactly from the series'
//! per-window counts; with an SLO target, the share of completions that met it; autoscaled,
//! the replicas ready at each row's end too.

use crate::config::SloTargets;
use crate::numbers::duration;
use crate::series::Series;
use crate::workload::Schedule;

/// Most rows of the table.
pub const MAX_ROWS: usize = 10;

/// One row: a run of consecutive sample windows.
struct Row {
    from_s: f64,
    to_s: f64,
    scheduled: Option<f64>,
    arrivals: f64,
    completions: f64,
    queue: u32,
    admitted: u32,
    hits: f64,
    ttft_ms_sum: f64,
    slo_met: f64,
}

/// Windows `k` in `first..=last` (each ends at sample k and starts at sample k - 1).
fn row(s: &Series, schedule: &Schedule, first: usize, last: usize) -> Row {
    let span = |k: usize| s.t_s[k] - s.t_s[k - 1];
    let (from_s, to_s) = (s.t_s[first - 1], s.t_s[last]);
    let expected = schedule.integral(to_s) - schedule.integral(from_s);
    let mut r = Row {
        from_s,
        to_s,
        scheduled: (to_s > from_s).then(|| expected / (to_s - from_s)),
        arrivals: 0.0,
        completions: 0.0,
        queue: 0,
        admitted: 0,
        hits: 0.0,
        ttft_ms_sum: 0.0,
        slo_met: 0.0,
    };
    for k in first..=last {
        let completions = s.served_rate[k].unwrap_or(0.0) * span(k);
        r.arrivals += s.offered_rate[k].unwrap_or(0.0) * span(k);
        r.completions += completions;
        r.queue = r.queue.max(s.queue.iter().map(|q| q[k]).sum());
        r.admitted += s.admitted[k];
        r.hits += s.hit_rate_fleet[k].unwrap_or(0.0) * s.admitted[k] as f64;
        r.ttft_ms_sum += s.ttft_ms_mean[k].unwrap_or(0.0) * libm::round(completions);
        if let Some(Some(share)) = s.slo_attained.get(k) {
            r.slo_met += libm::round(share * libm::round(completions));
        }
    }
    r
}

/// The table's lines for a run under `schedule` (none when the series has fewer than two
/// samples). `scheduled` is the schedule's mean rate over the row; `slo`, the run's
/// targets, names what the "SLO met" column counts.
pub fn lines(s: &Series, schedule: &Schedule, slo: Option<SloTargets>) -> Vec<String> {
    let windows = s.t_s.len().saturating_sub(1);
    if windows == 0 {
        return Vec::new();
    }
    let per_row = windows.div_ceil(MAX_ROWS);
    let scaled = !s.replicas.is_empty();
    let targets = slo.filter(|_| !s.slo_attained.is_empty());
    let slo = targets.is_some();
    let mut out = vec![
        format!(
            "  Over time, rows of {:.2} s (the last ends with the run). Per second: the schedule's mean rate, arrivals, completions;",
            s.interval_s * per_row as f64
        ),
        "  queue: the most requests waiting fleet-wide at a sample; TTFT: mean of the requests completed in the row.".to_string(),
        "       from        to  scheduled  offered   served  queue  hit rate      TTFT".to_string(),
    ];
    if let Some(t) = targets {
        out[1].push_str(&format!(" SLO met: of those, the share with {}.", words(t)));
        out[2].push_str("  SLO met");
    }
    if scaled {
        out[1].push_str(" Replicas: ready at the row's end.");
        out[2].push_str("  replicas");
    }
    let mut first = 1;
    while first <= windows {
        let last = (first + per_row - 1).min(windows);
        let r = row(s, schedule, first, last);
        let len_s = r.to_s - r.from_s;
        let rate = |n: f64| {
            if len_s > 0.0 {
                format!("{:.1}", n / len_s)
            } else {
                "–".into()
            }
        };
        let hit = if r.admitted > 0 {
            format!("{:.1}%", 100.0 * r.hits / r.admitted as f64)
        } else {
            "–".into()
        };
        let completed = libm::round(r.completions);
        let ttft = if completed > 0.0 {
            duration(r.ttft_ms_sum / completed)
        } else {
            "–".into()
        };
        let scheduled = r.scheduled.map_or("–".into(), |x| format!("{x:.1}"));
        let mut line = format!(
            "  {:>7.1} s {:>7.1} s {:>10} {:>8} {:>8} {:>6} {:>9} {:>9}",
            r.from_s,
            r.to_s,
            scheduled,
            rate(r.arrivals),
            rate(r.completions),
            r.queue,
            hit,
            ttft
        );
        if slo {
            let met = if completed > 0.0 {
                format!("{:.1}%", 100.0 * r.slo_met / completed)
            } else {
                "–".into()
            };
            line.push_str(&format!(" {met:>8}"));
        }
        if scaled {
            line.push_str(&format!(" {:>9}", s.replicas[last]));
        }
        out.push(line);
        first = last + 1;
    }
    out
}

/// The run's SLO attainment line ("  SLO attained: 93.1% of the 780 completed requests
/// had TTFT ≤ 100 ms"), with a target and a completed request.
pub fn attained_line(
    share: Option<f64>,
    completed: u64,
    slo: Option<SloTargets>,
) -> Option<String> {
    let (share, t) = (share?, slo?);
    Some(format!(
        "  SLO attained: {:.1}% of the {completed} completed requests had {}",
        100.0 * share,
        words(t)
    ))
}

/// "TTFT ≤ 500 ms and TPOT ≤ 50 ms": the targets a request must meet.
fn words(t: SloTargets) -> String {
    let parts: Vec<String> = [("TTFT", t.ttft_ms), ("TPOT", t.itl_ms)]
        .into_iter()
        .filter_map(|(name, ms)| ms.map(|ms| format!("{name} ≤ {}", duration(ms))))
        .collect();
    parts.join(" and ")
}
