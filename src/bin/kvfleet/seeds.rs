//! `--des-seeds K`: the flag's checks, and the runs on seeds `--seed + 1` to
//! `--seed + K - 1` (on threads, in seed order) whose summaries join the first run's
//! report (`kvfleet::seeds::with_seeds`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use kvfleet::report::Summary;
use kvfleet::workload::IdHint;
use kvfleet::{api, Config, Request};
use rayon::prelude::*;

use crate::args::RunArgs;
use crate::progress::Progress;
use crate::summary::SharedRequests;

/// A parsed trace kept for the seeds after the first.
pub struct Replay {
    pub requests: Arc<Vec<Request>>,
    pub name: String,
    pub hint: IdHint,
}

/// Refuses a count out of range, seeds past 2^53, and outputs of one run beside K runs.
pub fn check(a: &RunArgs, cfg: &Config) -> Result<(), String> {
    kvfleet::noise::check_seeds("--des-seeds", a.des_seeds, cfg.seed)?;
    if a.des_seeds == 1 {
        return Ok(());
    }
    let one_run = [
        ("--des-sweep", a.sweep.is_some(), "runs one seed per value"),
        (
            "--des-decisions",
            a.decisions.is_some(),
            "logs one run's picks",
        ),
        (
            "--des-export-trace",
            a.export_trace.is_some(),
            "writes one run's workload",
        ),
    ];
    if let Some((flag, _, why)) = one_run.iter().find(|(_, given, _)| *given) {
        return Err(format!(
            "--des-seeds {} and {flag} do not combine ({flag} {why}): drop one of them",
            a.des_seeds
        ));
    }
    Ok(())
}

/// The summaries of `cfg` on seeds + 1 .. + (seeds - 1), in order, on `threads` threads
/// (0: one per core), with a progress bar unless `quiet`.
pub fn rest(
    cfg: &Config,
    seeds: u32,
    replay: Option<&Replay>,
    threads: usize,
    quiet: bool,
) -> Result<Vec<Summary>, String> {
    let progress = Progress::new("other seeds", quiet);
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("--des-threads: {e}"))?;
    let out = pool.install(|| {
        (1..seeds)
            .into_par_iter()
            .map(|k| {
                let c = Config {
                    seed: kvfleet::noise::nth_seed(cfg.seed, k),
                    ..cfg.clone()
                };
                let sim = match replay {
                    Some(r) => {
                        let source = SharedRequests::new(Arc::clone(&r.requests));
                        let total = r.requests.len() as u64;
                        api::validated_replay_simulation(&c, source, total, r.hint, &r.name)
                    }
                    None => api::synthetic_simulation(&c)?,
                };
                let summary = sim.into_report().summary;
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress.update(finished as f64 / f64::from(seeds - 1));
                Ok(summary)
            })
            .collect::<Result<Vec<_>, String>>()
    });
    progress.finish();
    out
}
