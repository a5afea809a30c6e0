//! Which run flags `kvfleet lesson ID --check` takes: the fleet's settings. A flag that
//! changes the workload the lesson is about, a workload flag its runs would ignore, or one
//! that reads other calls, writes files or sweeps is refused, by name, and the goal is not
//! judged (`refusal`). `kvfleet --preset ID` says so in place of its goal lines
//! (`preset_not_judged`).

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory};
use kvfleet::lessons::{self, Lesson};
use kvfleet::{Config, WorkloadKind};
use serde_json::Value;

use crate::args::{Cli, RunArgs};

/// Flags that read other calls than the lesson's, or read its trace otherwise.
const CALL_SOURCES: &[&str] = &[
    "mooncake_trace",
    "workload_file",
    "arrival_speedup",
    "max_requests",
    "sort_arrivals",
];

/// Flags that write a run's files.
const OUTPUTS: &[&str] = &["report_json", "decisions", "export_trace"];

/// Flags of a sweep.
const SWEEPS: &[&str] = &["sweep", "sweep_csv", "sweep_json", "threads"];

/// The ids of the flags typed on the command line, in the flag table's order.
fn typed(matches: &ArgMatches) -> Vec<String> {
    matches
        .ids()
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.as_str().to_string())
        .collect()
}

/// A flag as typed, `--des-num-requests`, from its id.
fn flag(id: &str) -> String {
    Cli::command()
        .get_arguments()
        .find(|a| a.get_id() == id)
        .and_then(|a| a.get_long())
        .map_or_else(|| id.to_string(), |long| format!("--{long}"))
}

/// A config value as a flag takes it: `30`, `hot:0.85`, `unbounded`.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "unbounded".to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() && x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// `--request-rate 0.1 --des-num-requests 5`: config keys as flags with their values in `cfg`.
fn flags_with_values(keys: &[&str], cfg: &Config) -> String {
    let all = kvfleet::json::value_of(cfg);
    keys.iter()
        .map(|k| format!("{} {}", flag(k), value_text(&all[*k])))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the lesson's calls are, in words: its synthetic workload, or its trace.
fn calls_of(lesson: &Lesson) -> String {
    if !lesson.trace.is_empty() {
        return format!("it replays its built-in trace {}, whole", lesson.trace);
    }
    match lessons::broken_config(lesson).workload {
        WorkloadKind::Sessions => "it runs multi-turn sessions, --des-workload sessions".into(),
        WorkloadKind::Pool => "it runs independent requests, --des-workload pool".into(),
    }
}

/// Why a run of `cfg` is not judged against the lesson's goal: the workload settings it
/// changes, with the lesson's values; None when it runs the lesson's workload.
pub fn not_judged(lesson: &Lesson, cfg: &Config) -> Option<String> {
    let changed = lessons::changed_keys(lesson, cfg);
    let broken = lessons::broken_config(lesson);
    if changed.is_empty() {
        return gpu_not_judged(lesson, cfg, &broken);
    }
    Some(format!(
        "{} {} the workload the lesson is about (it runs {}); a goal is judged on the \
         lesson's own calls only: change the fleet, not the calls",
        flags_with_values(&changed, cfg),
        if changed.len() == 1 {
            "changes"
        } else {
            "change"
        },
        flags_with_values(&changed, &broken)
    ))
}

/// Why a run of `cfg` is not judged for its GPU: the engine or mixed fleet it sets
/// otherwise, with the lesson's; None on the lesson's GPU.
fn gpu_not_judged(lesson: &Lesson, cfg: &Config, broken: &Config) -> Option<String> {
    let changed = lessons::changed_hardware(lesson, cfg);
    if changed.is_empty() {
        return None;
    }
    // The lesson's side names its engine: a lesson sets no mixed fleet.
    let pinned: Vec<&str> = lessons::hardware_keys(lesson)
        .into_iter()
        .filter(|k| *k != "fleet")
        .collect();
    Some(format!(
        "{} {} the GPU the lesson is about (it runs {} on every replica); a goal is judged \
         on the lesson's own GPU only: change the fleet's routing, size or cache, not its engine",
        flags_with_values(&changed, cfg),
        if changed.len() == 1 {
            "changes"
        } else {
            "change"
        },
        flags_with_values(&pinned, broken)
    ))
}

/// Why a run of `--preset` with these flags is not judged against the lesson's goal: it
/// changes the lesson's workload settings, or reads other calls (a trace or workload file,
/// or the lesson's trace cut or sped up); None when it runs the lesson's own calls.
pub fn preset_not_judged(lesson: &Lesson, cfg: &Config, a: &RunArgs) -> Option<String> {
    let sources: Vec<String> = [
        ("mooncake_trace", a.mooncake_trace.is_some()),
        ("workload_file", a.workload_file.is_some()),
        ("max_requests", a.max_requests.is_some()),
        ("arrival_speedup", a.arrival_speedup != 1.0),
    ]
    .iter()
    .filter(|(_, given)| *given)
    .map(|(id, _)| flag(id))
    .collect();
    if sources.is_empty() {
        return not_judged(lesson, cfg);
    }
    Some(format!(
        "{} {} other calls than the lesson's ({})",
        sources.join(" "),
        if sources.len() == 1 { "reads" } else { "read" },
        calls_of(lesson)
    ))
}

/// The typed flags among `ids`, as typed.
fn among(typed: &[String], ids: &[&str]) -> Vec<String> {
    typed
        .iter()
        .filter(|id| ids.contains(&id.as_str()))
        .map(|id| flag(id))
        .collect()
}

/// Why `kvfleet lesson ID --check` does not judge the goal with these flags (one reason a
/// line, each naming its flags), or None when it takes them all.
pub fn refusal(lesson: &Lesson, cfg: &Config, matches: &ArgMatches) -> Option<String> {
    let typed = typed(matches);
    let mut reasons: Vec<String> = not_judged(lesson, cfg).into_iter().collect();
    let sources = among(&typed, CALL_SOURCES);
    if !sources.is_empty() {
        reasons.push(format!(
            "{} would read other calls than the lesson's ({})",
            sources.join(" "),
            calls_of(lesson)
        ));
    }
    let ignored = among(&typed, &lessons::ignored_keys(lesson));
    if !ignored.is_empty() {
        reasons.push(format!(
            "{} {} a workload this lesson does not run ({}): its runs would ignore it",
            ignored.join(" "),
            if ignored.len() == 1 { "sets" } else { "set" },
            calls_of(lesson)
        ));
    }
    let run_command = format!("kvfleet --preset {} FLAGS...", lesson.id);
    let outputs = among(&typed, OUTPUTS);
    if !outputs.is_empty() {
        reasons.push(format!(
            "{} {} a run's files; the check prints the goal only: run `{run_command} {}` \
             (it prints the goal too)",
            outputs.join(" "),
            if outputs.len() == 1 {
                "writes"
            } else {
                "write"
            },
            outputs.join(" FILE ") + " FILE"
        ));
    }
    let sweeps = among(&typed, SWEEPS);
    if !sweeps.is_empty() {
        reasons.push(format!(
            "{} {} many runs; the check judges one: run `{run_command} --des-sweep SPEC`",
            sweeps.join(" "),
            if sweeps.len() == 1 {
                "is for"
            } else {
                "are for"
            }
        ));
    }
    (!reasons.is_empty()).then(|| in_lines(&reasons))
}

/// Refuses `--preset` among the check's flags: the lesson is the one named before `--check`.
pub fn preset_refusal(lesson: &Lesson, check: &[String]) -> Option<String> {
    check
        .iter()
        .any(|a| a == "--preset" || a.starts_with("--preset="))
        .then(|| {
            in_lines(&[format!(
                "--preset names a lesson; the lesson is the one named before --check ({})",
                lesson.id
            )])
        })
}

/// The refusal's text: its reasons, one a line.
fn in_lines(reasons: &[String]) -> String {
    let lines: Vec<String> = reasons.iter().map(|r| format!("  {r}")).collect();
    format!("the goal is not judged:\n{}", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::{flag, value_text};
    use serde_json::json;

    #[test]
    fn a_flag_is_named_and_valued_as_typed() {
        assert_eq!(flag("num_requests"), "--des-num-requests");
        assert_eq!(flag("request_rate"), "--request-rate");
        assert_eq!(flag("report_json"), "--des-report-json");
        assert_eq!(value_text(&json!(30.0)), "30");
        assert_eq!(value_text(&json!(0.1)), "0.1");
        assert_eq!(value_text(&json!(3000)), "3000");
        assert_eq!(value_text(&json!("hot:0.85")), "hot:0.85");
    }
}
