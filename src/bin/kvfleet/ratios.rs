//! `kvfleet bench --ratios`: the two scaling ratios from interleaved child runs, so
//! that a machine whose speed drifts slows both sides of each ratio alike. 64 against 16
//! replicas at 1e6 requests: `--pairs` pairs, the first of a pair alternating (16 then 64,
//! then 64 then 16). With `--large`, 1e7 against 1e6 requests on 64 replicas: each 1e7 run
//! sits between `--around` 1e6 runs on each side (one by default) and is divided by their
//! mean; the runs after one 1e7 run are the ones before the next. Each run's wall time and its
//! process's CPU time (user + system) are printed, each ratio by both, then the median
//! ratio and its spread (smallest, largest).

use std::path::Path;

use crate::bench::{header, run_child, scenario_index, scenario_requests};
use crate::output::print;

const E6_16: &str = "synthetic 1e6 req, 16 replicas";
const E6_64: &str = "synthetic 1e6 req, 64 replicas";
const E7_64: &str = "synthetic 1e7 req, 64 replicas";

/// One child run, as the ratios use it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub requests: u64,
    pub wall_ms: f64,
    pub cpu_ms: Option<f64>,
}

impl Run {
    fn wall_ms_per_request(self) -> f64 {
        self.wall_ms / self.requests.max(1) as f64
    }

    fn cpu_ms_per_request(self) -> Option<f64> {
        Some(self.cpu_ms? / self.requests.max(1) as f64)
    }
}

/// The median of `xs` and its spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The median (the mean of the two middle values for an even count), smallest and largest
/// of `xs`; `None` when empty.
pub fn spread(xs: &[f64]) -> Option<Spread> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = match n {
        0 => return None,
        _ if !n.is_multiple_of(2) => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    };
    Some(Spread {
        median,
        min: v[0],
        max: v[n - 1],
    })
}

/// Time per request of `big` against `small`, by wall time and by CPU time (`None` when
/// either is missing or the ratio is not finite: a CPU time under the clock's tick).
pub fn per_request_ratio(big: Run, small: Run) -> (f64, Option<f64>) {
    let wall = big.wall_ms_per_request() / small.wall_ms_per_request();
    let cpu = big
        .cpu_ms_per_request()
        .zip(small.cpu_ms_per_request())
        .map(|(b, s)| b / s)
        .filter(|r| r.is_finite());
    (wall, cpu)
}

/// Time of `big` against the mean time of the runs just `before` and `after` it, by wall
/// time and by CPU time (`None` as in `per_request_ratio`).
pub fn bracketed_ratio(before: Run, big: Run, after: Run) -> (f64, Option<f64>) {
    let wall = big.wall_ms / ((before.wall_ms + after.wall_ms) / 2.0);
    let cpu = match (before.cpu_ms, big.cpu_ms, after.cpu_ms) {
        (Some(b), Some(x), Some(a)) => Some(x / ((b + a) / 2.0)).filter(|r| r.is_finite()),
        _ => None,
    };
    (wall, cpu)
}

/// The mean of `runs` (at least one, all of one size): wall time, and CPU time when every
/// run has one.
pub fn mean_run(runs: &[Run]) -> Run {
    let n = runs.len().max(1) as f64;
    let cpu: Option<Vec<f64>> = runs.iter().map(|r| r.cpu_ms).collect();
    Run {
        requests: runs.first().map_or(0, |r| r.requests),
        wall_ms: runs.iter().map(|r| r.wall_ms).sum::<f64>() / n,
        cpu_ms: cpu.map(|c| c.iter().sum::<f64>() / n),
    }
}

/// The run order of pair `pair` (from 0): 16 replicas first in even pairs, 64 in odd ones.
pub fn sixteen_first(pair: usize) -> bool {
    pair.is_multiple_of(2)
}

/// Parent side of `--ratios`: `pairs` pairs (at least 1) of each ratio, `around` 1e6 runs
/// (at least 1) on each side of a 1e7 one.
pub fn run(quick: bool, large: bool, pairs: usize, around: usize) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let flags = format!(
        " --ratios{}{} --pairs {pairs}{}",
        if quick { " --quick" } else { "" },
        if large { " --large" } else { "" },
        if around > 1 {
            format!(" --around {around}")
        } else {
            String::new()
        }
    );
    print(&header(&flags))?;
    replicas(&exe, quick, pairs)?;
    if large {
        requests(&exe, quick, pairs, around.max(1))?;
    }
    Ok(())
}

fn child(exe: &Path, name: &str, quick: bool) -> Result<Run, String> {
    let r = run_child(exe, scenario_index(name), quick)?;
    Ok(Run {
        requests: r.measured.requests,
        wall_ms: r.measured.wall_ms_median,
        cpu_ms: r.cpu_ms,
    })
}

/// 64 against 16 replicas, time per request.
fn replicas(exe: &Path, quick: bool, pairs: usize) -> Result<(), String> {
    let n = scenario_requests(scenario_index(E6_16), quick);
    print(&format!(
        "\n64 against 16 replicas, {n} requests each, time per request (goal <= 1.25x)\n\
         | pair | order | 16: wall ms | 64: wall ms | wall ratio | 16: CPU ms | 64: CPU ms | CPU ratio |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|\n"
    ))?;
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    for pair in 0..pairs {
        let (a, b) = if sixteen_first(pair) {
            let a = child(exe, E6_16, quick)?;
            (a, child(exe, E6_64, quick)?)
        } else {
            let b = child(exe, E6_64, quick)?;
            (child(exe, E6_16, quick)?, b)
        };
        let (wall, cpu) = per_request_ratio(b, a);
        let order = if sixteen_first(pair) {
            "16, 64"
        } else {
            "64, 16"
        };
        print(&format!(
            "| {} | {order} | {:.1} | {:.1} | {wall:.3} | {} | {} | {} |\n",
            pair + 1,
            a.wall_ms,
            b.wall_ms,
            ms(a.cpu_ms),
            ms(b.cpu_ms),
            ratio(cpu)
        ))?;
        walls.push(wall);
        cpus.extend(cpu);
    }
    print(&summary("64/16", &walls, &cpus))
}

/// `n` runs of `name` back to back, as their mean.
fn block(exe: &Path, name: &str, quick: bool, n: usize) -> Result<Run, String> {
    let runs = (0..n)
        .map(|_| child(exe, name, quick))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(mean_run(&runs))
}

/// 1e7 against 1e6 requests on 64 replicas, whole time.
fn requests(exe: &Path, quick: bool, pairs: usize, around: usize) -> Result<(), String> {
    let small = scenario_requests(scenario_index(E6_64), quick);
    let big = scenario_requests(scenario_index(E7_64), quick);
    let (against, side) = if around == 1 {
        (format!("the {small}-request runs before and after it"), "")
    } else {
        (
            format!("the {around} {small}-request runs before it and the {around} after it"),
            " (mean)",
        )
    };
    print(&format!(
        "\n{big} against {small} requests, 64 replicas, whole time, each {big}-request run \
         against the mean of {against} (goal <= 10.5x)\n\
         | pair | before{side}: wall ms | big: wall ms | after{side}: wall ms | wall ratio | before{side}: CPU ms | big: CPU ms | after{side}: CPU ms | CPU ratio |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    ))?;
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    let mut before = block(exe, E6_64, quick, around)?;
    for pair in 0..pairs {
        let x = child(exe, E7_64, quick)?;
        let after = block(exe, E6_64, quick, around)?;
        let (wall, cpu) = bracketed_ratio(before, x, after);
        print(&format!(
            "| {} | {:.1} | {:.1} | {:.1} | {wall:.3} | {} | {} | {} | {} |\n",
            pair + 1,
            before.wall_ms,
            x.wall_ms,
            after.wall_ms,
            ms(before.cpu_ms),
            ms(x.cpu_ms),
            ms(after.cpu_ms),
            ratio(cpu)
        ))?;
        walls.push(wall);
        cpus.extend(cpu);
        before = after;
    }
    print(&summary(&format!("{big}/{small}"), &walls, &cpus))
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1}"))
}

fn ratio(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.3}"))
}

/// `<label> wall ratio: median ...x (min ...x, max ...x); CPU ratio: ...`.
pub fn summary(label: &str, walls: &[f64], cpus: &[f64]) -> String {
    let part = |xs: &[f64]| {
        spread(xs).map_or("-".into(), |s| {
            format!(
                "median {:.3}x (min {:.3}x, max {:.3}x)",
                s.median, s.min, s.max
            )
        })
    };
    format!(
        "{label} wall ratio: {}; CPU ratio: {}\n",
        part(walls),
        part(cpus)
    )
}

#[cfg(test)]
mod tests;
