//! The native CLI: parse flags, read traces from files, call the pure core, print the
//! text report and write the JSON, export and decision-log files. Nothing else.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches};
use kvfleet::api;
use kvfleet::lessons::{self, Lesson};
use kvfleet::limits;
use kvfleet::params;
use kvfleet::sim::Simulation;
use kvfleet::trace::{self, TraceOptions};
use kvfleet::workload::{IdHint, Synthetic};
use kvfleet::{Config, Request};

use crate::args::{Cli, Command, RunArgs};
use crate::inputs::{config, flag_error, parse_mooncake_file, read_trace};
use crate::output::{create, print, write_error, CLOSED_PIPE};
use crate::progress::{Progress, SLICE_EVENTS};
use crate::seeds::Replay;
use crate::summary::{PendingSummary, SharedRequests};
use crate::{bench, sweep};

/// The longest line of an error message; longer ones (a huge argument echoed by the
/// flag parser) are cut in their middle.
const MAX_ERROR_LINE_CHARS: usize = 300;

/// Exits on a flag parser error, its message cut to readable lines.
fn parse_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        e.exit();
    }
    let text = e.render().to_string();
    eprint!(
        "{}",
        kvfleet::echo::cut_long_lines(&text, MAX_ERROR_LINE_CHARS)
    );
    std::process::exit(e.exit_code());
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let matches = Cli::command()
        .try_get_matches()
        .unwrap_or_else(|e| parse_error(e));
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => parse_error(e),
    };
    // The lesson command keeps exit 1 for "goal not met", so its errors exit 2.
    let mut error_code = match cli.command {
        // So does calibrate: a bad log exits 2, as a bad flag does.
        Some(Command::Lesson { .. } | Command::Calibrate(_)) => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    };
    let result = match &cli.command {
        Some(Command::Analyze { file, block_size }) => analyze(file, *block_size),
        Some(Command::Calibrate(cmd)) => crate::calibrate::run(cmd),
        Some(Command::Lesson {
            id,
            material: true,
            material_json,
            ..
        }) => crate::lesson::material(id.as_deref().unwrap_or_default(), *material_json),
        Some(Command::Lesson { id, check, .. }) => crate::lesson::run(id.as_deref(), check),
        Some(Command::Plan(cmd)) => {
            let sub = matches.subcommand_matches("plan").expect("plan's matches");
            crate::plan::run(cmd, sub).map_err(|e| match e {
                // A refused combination of flags exits 2, as a malformed command line.
                crate::plan_flags::PlanError::Usage(m) => {
                    error_code = ExitCode::from(2);
                    m
                }
                crate::plan_flags::PlanError::Failed(m) => m,
            })
        }
        Some(Command::Bench {
            hero: Some(rounds),
            quick,
            json,
            ..
        }) => crate::hero_bench::run(usize::from(*rounds), *quick, json.as_deref()),
        Some(Command::Bench {
            quick,
            scenario: Some(i),
            ..
        }) => bench::child(*i, *quick),
        Some(Command::Bench {
            quick,
            large,
            ratios: true,
            pairs,
            around,
            scenario: None,
            ..
        }) => crate::ratios::run(*quick, *large, usize::from(*pairs), usize::from(*around)),
        Some(Command::Bench {
            quick,
            large,
            scenario: None,
            ..
        }) => bench::run(*quick, *large),
        None => config(&cli.run, &matches).and_then(|(cfg, lesson)| {
            crate::warnings::warn(&cfg, cli.run.sweep.as_deref(), &matches);
            run(&cli.run, cfg, lesson)
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if message == CLOSED_PIPE => ExitCode::SUCCESS,
        Err(message) if message == crate::lesson::GOAL_NOT_MET => ExitCode::FAILURE,
        Err(message) if message == crate::lesson::NOT_JUDGED => ExitCode::from(2),
        Err(message) => {
            let message = kvfleet::echo::cut_long_lines(&message, 4 * MAX_ERROR_LINE_CHARS);
            eprintln!("error: {message}");
            error_code
        }
    }
}

/// Names the flag behind a config error: "--des-instances: invalid instances: got 0; ...".
fn analyze(path: &str, block_size: u32) -> Result<(), String> {
    let opts = TraceOptions {
        block_size,
        ..TraceOptions::default()
    };
    let requests = parse_mooncake_file(path, &opts)?;
    print(&trace::analyze(&requests, block_size).render_text())
}

fn goal_text(lesson: &Lesson, report: &kvfleet::Report, cfg: &Config, a: &RunArgs) -> String {
    let mut out = format!("  Lesson: {} | goal: {}\n", lesson.title, lesson.goal);
    if let Some(why) = crate::lesson_flags::preset_not_judged(lesson, cfg, a) {
        out.push_str(&format!("  Goal not judged: {why}\n"));
        return out;
    }
    let results = lessons::evaluate(lesson, report);
    let met = results.iter().all(|r| r.met);
    for (c, r) in lesson.checks.iter().zip(&results) {
        out.push_str(&crate::lesson::check_line(c, r));
    }
    out.push_str(&format!("  Goal {}\n", if met { "MET" } else { "NOT MET" }));
    out
}

/// Where the human-readable text goes: standard output, or standard error when the JSON
/// report takes standard output (`--des-report-json -`), so the JSON can be piped.
fn human(a: &RunArgs) -> Box<dyn Write> {
    if a.report_json.as_deref() == Some("-") {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

/// The simulation the flags describe, for a replay the trace summary to print first, and
/// with `--des-seeds` above 1 the parsed trace kept for the other seeds.
fn simulation(
    a: &RunArgs,
    cfg: &Config,
    trace: Option<(Vec<Request>, String)>,
) -> Result<(Simulation<'static>, PendingSummary, Option<Replay>), String> {
    let Some((requests, name)) = trace else {
        let popularity = params::validate(cfg).map_err(flag_error)?;
        if let Some(path) = &a.export_trace {
            export(path, Synthetic::new(cfg, popularity), cfg.block_size)?;
        }
        return Ok((api::synthetic_simulation(cfg)?, PendingSummary::None, None));
    };
    params::validate_fleet(cfg).map_err(flag_error)?;
    params::validate_replay(cfg, &requests, &name)?;
    let (hint, total) = (IdHint::of(&requests), requests.len() as u64);
    let requests = Arc::new(requests);
    let summary = PendingSummary::start(&requests, cfg.block_size);
    if let Some(path) = &a.export_trace {
        export(path, requests.iter(), cfg.block_size)?;
    }
    let replay = (a.des_seeds > 1).then(|| Replay {
        requests: Arc::clone(&requests),
        name: name.clone(),
        hint,
    });
    let source = SharedRequests::new(requests);
    let sim = api::validated_replay_simulation(cfg, source, total, hint, &name);
    Ok((sim, summary, replay))
}

/// Refuses output flags that would be silently ignored or would mix on standard output.
fn check_outputs(a: &RunArgs) -> Result<(), String> {
    let single_run = [
        ("--des-report-json", &a.report_json),
        ("--des-decisions", &a.decisions),
        ("--des-export-trace", &a.export_trace),
    ];
    if a.sweep.is_some() {
        if let Some((flag, _)) = single_run.iter().find(|(_, path)| path.is_some()) {
            return Err(format!(
                "{flag} writes one run's output and --des-sweep runs many: drop {flag}, \
                 or write the sweep with --des-sweep-csv / --des-sweep-json"
            ));
        }
    }
    let sweep_outputs = [
        ("--des-sweep-csv", &a.sweep_csv),
        ("--des-sweep-json", &a.sweep_json),
    ];
    let to_stdout: Vec<&str> = single_run
        .iter()
        .chain(sweep_outputs.iter())
        .filter(|(_, path)| path.as_deref() == Some("-"))
        .map(|(flag, _)| *flag)
        .collect();
    if to_stdout.len() > 1 {
        return Err(format!(
            "{} all write to standard output (-): they would mix; send all but one to files",
            to_stdout.join(" and ")
        ));
    }
    Ok(())
}

fn run(a: &RunArgs, cfg: Config, lesson: Option<Lesson>) -> Result<(), String> {
    check_outputs(a)?;
    crate::seeds::check(a, &cfg)?;
    let trace = read_trace(a, &cfg, lesson.as_ref())?;
    if let Some(spec) = &a.sweep {
        let args = sweep::SweepArgs {
            spec,
            csv: a.sweep_csv.as_deref(),
            json: a.sweep_json.as_deref(),
            threads: a.threads as usize,
            quiet: a.quiet,
        };
        return sweep::run(&cfg, args, trace.as_ref());
    }
    let mut text = human(a);
    let (mut sim, mut summary, replay) = simulation(a, &cfg, trace)?;
    if a.decisions.is_some() {
        let record = std::mem::size_of::<kvfleet::sim::Decision>();
        let candidate = std::mem::size_of::<kvfleet::router::Candidate>();
        limits::check_decision_log(sim.total_requests(), cfg.instances, record, candidate)
            .map_err(|why| format!("--des-decisions: {why}"))?;
        sim.record_decisions();
    }
    let progress = Progress::new("simulating", a.quiet);
    while !sim.advance(SLICE_EVENTS) {
        summary.write_when_ready(&mut *text, false)?;
        if !summary.pending() {
            progress.update(sim.progress());
        }
    }
    summary.write_when_ready(&mut *text, true)?;
    progress.finish();
    if let Some(path) = &a.decisions {
        write_decisions(path, sim.take_decisions())?;
    }
    let mut report = sim.into_report();
    if a.des_seeds > 1 {
        let rest = crate::seeds::rest(
            &cfg,
            a.des_seeds,
            replay.as_ref(),
            a.threads as usize,
            a.quiet,
        )?;
        report = kvfleet::seeds::with_seeds(report, &rest, replay.is_some());
    }
    let goal = lesson
        .as_ref()
        .map(|l| goal_text(l, &report, &cfg, a))
        .unwrap_or_default();
    write!(text, "{}{goal}", report.to_text()).map_err(write_error("-"))?;
    if let Some(path) = &a.report_json {
        let mut out = create(path)?;
        writeln!(out, "{}", report.to_json())
            .and_then(|_| out.flush())
            .map_err(write_error(path))?;
    }
    Ok(())
}

fn export<R: std::borrow::Borrow<Request>>(
    path: &str,
    requests: impl IntoIterator<Item = R>,
    block_size: u32,
) -> Result<(), String> {
    let mut out = create(path)?;
    trace::export_mooncake(requests, block_size, &mut out)
        .and_then(|_| out.flush())
        .map_err(write_error(path))
}

fn write_decisions(path: &str, decisions: Vec<kvfleet::sim::Decision>) -> Result<(), String> {
    let mut out = create(path)?;
    for d in &decisions {
        let line = serde_json::to_string(d).expect("decision serialises");
        writeln!(out, "{line}").map_err(write_error(path))?;
    }
    out.flush().map_err(write_error(path))
}
