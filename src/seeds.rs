//! Runs over K seeds (`--des-seeds K`): the same config on seeds `seed` .. `seed + K - 1`
//! (`noise::nth_seed`); the report is the first seed's, with every numeric summary figure's
//! spread over the K runs attached (`Report::seeds`, `noise::spread`; the text report prints
//! it with `noise::text`).

use std::collections::BTreeMap;

use crate::config::Config;
use crate::noise::{self, SeedsReport, Spread};
use crate::report::{Report, Summary};
use crate::run;
use crate::workload::Request;

/// What the seeds vary in a synthetic run.
const VARIES_SYNTHETIC: &str = "the workload (arrival times, prompt and output lengths, which \
                                prefix or session each request belongs to) and the router's \
                                random draws";

/// What the seeds vary in a trace replay: its arrivals, lengths and content are fixed.
const VARIES_TRACE: &str = "only the router's random draws (random and p2c picks, dynamo's \
                            sampling, sticky's affinity draws, a disaggregated fleet's random \
                            decode pick): a trace fixes arrivals, lengths and content";

/// `cfg` on its `k`-th seed.
fn on_seed(cfg: &Config, k: u32) -> Config {
    Config {
        seed: noise::nth_seed(cfg.seed, k),
        ..cfg.clone()
    }
}

/// A synthetic workload run on `seeds` seeds: the first seed's report with the `seeds`
/// section (none for one seed).
pub fn synthetic_seeds(cfg: &Config, seeds: u32) -> Result<Report, String> {
    noise::check_seeds("--des-seeds", seeds, cfg.seed)?;
    let first = run::synthetic_simulation(cfg)?.into_report();
    let mut rest = Vec::new();
    for k in 1..seeds {
        rest.push(
            run::synthetic_simulation(&on_seed(cfg, k))?
                .into_report()
                .summary,
        );
    }
    Ok(with_seeds(first, &rest, false))
}

/// A replay of `requests` on `seeds` seeds, as `synthetic_seeds`.
pub fn replay_seeds(
    cfg: &Config,
    requests: &[Request],
    name: &str,
    seeds: u32,
) -> Result<Report, String> {
    noise::check_seeds("--des-seeds", seeds, cfg.seed)?;
    let first = run::replay_simulation(cfg, requests.to_vec(), name)?.into_report();
    let mut rest = Vec::new();
    for k in 1..seeds {
        let sim = run::replay_simulation(&on_seed(cfg, k), requests.to_vec(), name)?;
        rest.push(sim.into_report().summary);
    }
    Ok(with_seeds(first, &rest, true))
}

/// The summary of `cfg` on its `k`-th seed, for a caller that runs the seeds itself (the
/// CLI, on threads): a synthetic run, or a replay of `requests`.
pub fn summary_on_seed(
    cfg: &Config,
    k: u32,
    trace: Option<(&[Request], &str)>,
) -> Result<Summary, String> {
    let cfg = on_seed(cfg, k);
    let sim = match trace {
        Some((requests, name)) => run::replay_simulation(&cfg, requests.to_vec(), name)?,
        None => run::synthetic_simulation(&cfg)?,
    };
    Ok(sim.into_report().summary)
}

/// `first` (the run on the config's own seed) with the spread of every numeric summary
/// figure over it and `rest` (seeds + 1, + 2, ... in order) attached; unchanged when
/// `rest` is empty (one seed has no spread to report).
pub fn with_seeds(mut first: Report, rest: &[Summary], traced: bool) -> Report {
    if rest.is_empty() {
        return first;
    }
    let all: Vec<&Summary> = std::iter::once(&first.summary).chain(rest).collect();
    let k = all.len() as u32;
    first.seeds = Some(SeedsReport {
        seeds: (0..k).map(|i| noise::nth_seed(first.seed, i)).collect(),
        varies: if traced {
            VARIES_TRACE
        } else {
            VARIES_SYNTHETIC
        }
        .to_string(),
        summary: figures(&all),
    });
    first
}

/// Each numeric figure of the summaries (their JSON form: every number, `null` read as
/// NaN; not the flags, not the seed) over the seeds, by name.
fn figures(all: &[&Summary]) -> BTreeMap<String, Spread> {
    let rows: Vec<serde_json::Map<String, serde_json::Value>> = all
        .iter()
        .map(
            // Through text (`json::value_of`): no second serializer in the page's wasm.
            |s| match crate::json::value_of(*s) {
                serde_json::Value::Object(m) => m,
                _ => unreachable!("a summary is an object"),
            },
        )
        .collect();
    let mut out = BTreeMap::new();
    for (name, v) in &rows[0] {
        if name == "seed" || v.is_boolean() {
            continue;
        }
        let values: Vec<f64> = rows
            .iter()
            .map(|r| r[name].as_f64().unwrap_or(f64::NAN))
            .collect();
        out.insert(name.clone(), noise::spread(&values));
    }
    out
}

#[cfg(test)]
mod tests;
