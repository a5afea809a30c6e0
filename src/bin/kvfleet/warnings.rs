//! Warnings on standard error for flags the user typed that do nothing under the rest of
//! the run (for a sweep, under every point; on a replay, the synthetic workload's), and
//! for a sweep over such a parameter, whose rows would all be the same.

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory};
use kvfleet::{params, Config};

/// The command-line flag of config key `field`: the page parameter's, else the typed
/// flag's of the same id (`--des-tie-break`), else the key itself.
fn flag(field: &str) -> String {
    params::specs()
        .into_iter()
        .find(|s| s.name == field)
        .map(|s| s.flag.to_string())
        .or_else(|| long_flag(field))
        .unwrap_or_else(|| field.to_string())
}

/// The long flag of the run's argument `id`, if it has one.
fn long_flag(id: &str) -> Option<String> {
    let cmd = crate::args::Cli::command();
    let run = cmd.get_subcommands().chain([&cmd]);
    let found = run
        .flat_map(|c| c.get_arguments())
        .find(|a| a.get_id() == id)
        .and_then(|a| a.get_long())
        .map(|long| format!("--{long}"));
    found
}

/// Whether the user typed the flag of config key `field`.
fn typed(matches: &ArgMatches, field: &str) -> bool {
    matches.ids().any(|id| id.as_str() == field)
        && matches.value_source(field) == Some(ValueSource::CommandLine)
}

/// The configs the run will use: the sweep's points, or `cfg` alone, and the swept key.
fn configs(cfg: &Config, sweep: Option<&str>) -> (Vec<Config>, Option<String>) {
    let planned = sweep.and_then(|spec| kvfleet::sweep::plan_with(cfg, spec, |_| Ok(())).ok());
    match planned {
        Some((key, points)) => (points.into_iter().map(|p| p.config).collect(), Some(key)),
        None => (vec![cfg.clone()], None),
    }
}

/// The warnings for `cfg` run as the flags in `matches` ask (`sweep`: the sweep's spec).
pub(crate) fn inert_flags(cfg: &Config, sweep: Option<&str>, matches: &ArgMatches) -> Vec<String> {
    let (runs, swept) = configs(cfg, sweep);
    let inert_everywhere = |field: &str| {
        runs.iter()
            .all(|c| params::inert(c, flag).iter().any(|i| i.field == field))
    };
    let mut out = Vec::new();
    let mut inert = params::inert(&runs[0], flag);
    // On a replay the synthetic workload's settings do nothing at every point, for that
    // reason alone (a gamma shape is inert on a replay whatever the arrival model).
    let replay = replay_source(matches).map_or_else(Vec::new, params::inert_on_replay);
    inert.retain(|i| replay.iter().all(|r| r.field != i.field));
    let on_replay = |field: &str| replay.iter().any(|r| r.field == field);
    inert.extend(replay.iter().cloned());
    for i in &inert {
        if !on_replay(i.field) && !inert_everywhere(i.field) {
            continue;
        }
        if swept.as_deref() == Some(i.field) {
            let spec = kvfleet::echo::shown(sweep.unwrap_or_default());
            out.push(format!(
                "--des-sweep {spec}: {} does nothing {}: every row will be the same",
                flag(i.field),
                i.why
            ));
        } else if typed(matches, i.field) {
            out.push(format!("{} does nothing {}", flag(i.field), i.why));
        }
    }
    out
}

/// The flag that read a replay's requests, when the run replays some.
fn replay_source(matches: &ArgMatches) -> Option<&'static str> {
    [
        ("mooncake_trace", "--des-mooncake-trace"),
        ("workload_file", "--des-workload-file"),
    ]
    .into_iter()
    .find(|(id, _)| typed(matches, id))
    .map(|(_, flag)| flag)
}

/// Prints `inert_flags` on standard error.
pub(crate) fn warn(cfg: &Config, sweep: Option<&str>, matches: &ArgMatches) {
    for w in inert_flags(cfg, sweep, matches) {
        eprintln!("warning: {w}");
    }
}
