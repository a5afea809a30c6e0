//! `--des-sweep`: runs one workload across a parameter's values on every core (rayon),
//! prints a table and writes CSV and JSON. Each point is an independent seeded run, so
//! the numbers do not depend on the thread count.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use kvfleet::sweep::{self, SweepRow, CSV_HEADER};
use kvfleet::{api, Config, Request};
use rayon::prelude::*;

use crate::progress::Progress;

/// What to sweep and where to write the results.
pub struct SweepArgs<'a> {
    /// `NAME=START:END[:STEP]` or `NAME=A,B,C`.
    pub spec: &'a str,
    /// CSV output path.
    pub csv: Option<&'a str>,
    /// JSON output path.
    pub json: Option<&'a str>,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// No progress bar.
    pub quiet: bool,
}

/// Runs every point (over `trace` when given) and returns the rows in point order.
pub fn run_points(
    base: &Config,
    spec: &str,
    trace: Option<&(Vec<Request>, String)>,
    threads: usize,
    progress: &Progress,
) -> Result<Vec<SweepRow>, String> {
    let (param, points) = match trace {
        Some((requests, name)) => sweep::plan_with(base, spec, |config| {
            kvfleet::params::validate_replay(config, requests, name)
        })?,
        None => sweep::plan(base, spec)?,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("--des-threads: {e}"))?;
    let done = AtomicUsize::new(0);
    let rows = pool.install(|| {
        points
            .par_iter()
            .map(|p| {
                let sim = match trace {
                    Some((requests, name)) => {
                        api::replay_simulation(&p.config, requests.clone(), name)
                    }
                    None => api::synthetic_simulation(&p.config),
                }?;
                let row = SweepRow::of(&param, &p.value, &sim.into_report());
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress.update(finished as f64 / points.len() as f64);
                Ok(row)
            })
            .collect()
    });
    progress.finish();
    rows
}

fn table(rows: &[SweepRow]) -> String {
    let mut out = String::new();
    let tasks = rows.iter().any(|r| r.task_s_mean > 0.0);
    let param = rows.first().map_or("value", |r| r.param.as_str());
    out.push_str(&format!(
        "  {param:>18}  req hit  tok hit  TTFT p50  TTFT p99  TPOT p99  makespan  load spread  rejected{}\n",
        if tasks { "   task mean" } else { "" }
    ));
    for r in rows {
        let value = match &r.value {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        out.push_str(&format!(
            "  {value:>18}  {:>6.1}%  {:>6.1}%  {:>8}  {:>8}  {:>8}  {:>7.1} s  {:>11.2}  {:>8}{}\n",
            100.0 * r.hit_rate_requests,
            100.0 * r.hit_rate_tokens,
            kvfleet::numbers::duration(r.ttft_ms_p50),
            kvfleet::numbers::duration(r.ttft_ms_p99),
            kvfleet::numbers::duration(r.tpot_ms_p99),
            r.makespan_s,
            r.load_spread,
            r.rejected,
            if tasks {
                format!("  {:>8.1} s", r.task_s_mean)
            } else {
                String::new()
            }
        ));
    }
    out
}

/// Runs the sweep and reports it.
pub fn run(
    base: &Config,
    a: SweepArgs,
    trace: Option<&(Vec<Request>, String)>,
) -> Result<(), String> {
    let progress = Progress::new("sweeping", a.quiet);
    let rows = run_points(base, a.spec, trace, a.threads, &progress)?;
    let text = format!(
        "kvfleet sweep {} (seed {}, {} points)\n{}",
        a.spec,
        base.seed,
        rows.len(),
        table(&rows)
    );
    // The table goes to standard error when a sweep file takes standard output.
    if a.csv == Some("-") || a.json == Some("-") {
        let mut err = std::io::stderr();
        err.write_all(text.as_bytes())
            .map_err(crate::output::write_error("-"))?;
    } else {
        crate::output::print(&text)?;
    }
    if let Some(path) = a.csv {
        let mut out = crate::output::create(path)?;
        let mut text = format!("{CSV_HEADER}\n");
        for r in &rows {
            text.push_str(&r.csv());
            text.push('\n');
        }
        out.write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .map_err(crate::output::write_error(path))?;
    }
    if let Some(path) = a.json {
        let mut out = crate::output::create(path)?;
        let text = serde_json::to_string(&rows).expect("rows serialise");
        writeln!(out, "{text}")
            .and_then(|_| out.flush())
            .map_err(crate::output::write_error(path))?;
    }
    Ok(())
}
