//! `kvfleet plan`: the fewest replicas (and GPUs, and dollars) per routing policy that
//! meet the given SLOs, planned by simulation on every core (one policy per thread), with
//! each policy's goodput; prints a table and the headline, writes `--plan-json`.

use std::io::Write;

use clap::ArgMatches;
use kvfleet::plan::{self, PlanLimits, PolicyPlan, Runner, Slo, SyntheticRunner, TraceRunner};
use kvfleet::Policy;
use rayon::prelude::*;

use crate::args::{PlanCmd, RunArgs};
use crate::plan_flags::PlanError;
use crate::plan_text::PlanReport;
use crate::progress::Progress;

/// Refuses run flags that a plan would silently ignore.
fn check_flags(a: &RunArgs) -> Result<(), String> {
    if a.des_seeds != 1 {
        return Err(
            "--des-seeds belongs to a single run; kvfleet plan checks each point on \
                    several seeds with --plan-seeds K"
                .to_string(),
        );
    }
    let ignored = [
        ("--des-sweep", a.sweep.is_some()),
        ("--des-report-json", a.report_json.is_some()),
        ("--des-decisions", a.decisions.is_some()),
        ("--des-export-trace", a.export_trace.is_some()),
    ];
    match ignored.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "{flag} belongs to a single run or sweep; kvfleet plan writes its results with --plan-json"
        )),
        None => Ok(()),
    }
}

/// Refuses the plan flags a mix search does not use: each preset names its GPUs, and the
/// walk is its own search.
fn check_mix_flags(f: &crate::plan_flags::PlanFlags) -> Result<(), String> {
    if f.gpus_per_replica.is_some() {
        return Err(
            "--plan-gpus-per-replica: with --plan-mix each preset counts its own GPUs; \
                    leave it out"
                .to_string(),
        );
    }
    if f.exhaustive {
        return Err(
            "--plan-exhaustive: --plan-mix walks the frontier of each pair of presets; \
                    leave it out"
                .to_string(),
        );
    }
    Ok(())
}

const NO_TARGET: &str = "kvfleet plan: no target given; give at least one of \
    --slo-ttft-p99-ms, --slo-tpot-p99-ms, --slo-e2e-p99-ms, --slo-max-rejected";

/// Plans every policy asked for and reports.
pub fn run(cmd: &PlanCmd, matches: &ArgMatches) -> Result<(), PlanError> {
    check_flags(&cmd.run)?;
    let (cfg, lesson) = crate::inputs::config(&cmd.run, matches)?;
    let f = &cmd.plan;
    let given = [f.ttft_p99_ms, f.tpot_p99_ms, f.e2e_p99_ms, f.max_rejected];
    if given.iter().all(Option::is_none) {
        return Err(NO_TARGET.to_string().into());
    }
    let slo = Slo {
        ttft_p99_ms: f.ttft_p99_ms,
        tpot_p99_ms: f.tpot_p99_ms,
        e2e_p99_ms: f.e2e_p99_ms,
        max_rejected: f.max_rejected.unwrap_or(0.0),
        sustained: !f.allow_overload,
    };
    slo.validate()?;
    let limits = PlanLimits {
        max_replicas: f.max_replicas,
        seeds: f.seeds,
        exhaustive: f.exhaustive,
        gpus_per_replica: f.gpus_per_replica.unwrap_or(cfg.engine.gpus()),
        gpu_hour_usd: f
            .gpu_hour_usd
            .unwrap_or_else(|| cfg.gpu_hour_usd_of(cfg.engine)),
    };
    limits.validate()?;
    plan::check_plan(&cfg, &limits)?;
    let mix = match &f.mix {
        Some(flag) => {
            check_mix_flags(f).map_err(PlanError::Usage)?;
            Some(crate::plan_mix::presets(flag, &cfg, f.gpu_hour_usd)?)
        }
        None if !cfg.fleet.is_empty() => {
            return Err(PlanError::Usage(
                "--des-fleet: kvfleet plan sizes a fleet of one preset; to search \
                        mixes, give --plan-mix PRESET,PRESET[,...] or --plan-mix all instead"
                    .to_string(),
            ))
        }
        None => None,
    };
    let trace = crate::inputs::read_trace(&cmd.run, &cfg, lesson.as_ref())?;
    let (runner, workload): (Box<dyn Runner + Sync>, String) = match trace {
        Some((requests, name)) => {
            kvfleet::params::validate_fleet(&cfg).map_err(crate::inputs::flag_error)?;
            kvfleet::params::validate_replay(&cfg, &requests, &name)?;
            (
                Box::new(TraceRunner {
                    requests,
                    name: name.clone(),
                }),
                name,
            )
        }
        None => {
            kvfleet::params::validate(&cfg).map_err(crate::inputs::flag_error)?;
            (Box::new(SyntheticRunner), cfg.workload.name().to_string())
        }
    };
    let chosen: Vec<Policy> = f.plan_routing.clone().map_or(Policy::ALL.to_vec(), |l| l.0);
    crate::plan_autoscale::check(&cfg, f, &chosen)?;
    if let Some(presets) = mix {
        let mixes =
            crate::plan_mix::plan_all(&cfg, &chosen, &presets, &slo, &limits, runner.as_ref())?;
        let report = crate::plan_mix::MixReport {
            kvfleet_version: kvfleet::api::version(),
            seed: cfg.seed,
            workload: &workload,
            slo,
            limits,
            config: &cfg,
            headline: plan::mix_headline(&mixes, &slo, limits.max_replicas, &plan::Knobs::CLI),
            mixes,
        };
        return Ok(write_out(
            &crate::plan_mix::render(&report),
            &report,
            f.json.as_deref(),
        )?);
    }
    let progress = Progress::new("planning", cmd.run.quiet);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let plans: Vec<PolicyPlan> = chosen
        .par_iter()
        .map(|&p| {
            let plan = plan::plan_policy(&cfg, p, &slo, &limits, runner.as_ref())?;
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.update(n as f64 / chosen.len() as f64);
            Ok(plan)
        })
        .collect::<Result<_, String>>()?;
    progress.finish();
    let report = PlanReport {
        kvfleet_version: kvfleet::api::version(),
        seed: cfg.seed,
        workload: &workload,
        engine: cfg.engine.name(),
        slo,
        limits,
        config: &cfg,
        headline: plan::headline(&plans, &slo, limits.max_replicas, &plan::Knobs::CLI),
        autoscale: crate::plan_autoscale::compare(&cfg, f, &plans, &slo, &limits, runner.as_ref())?,
        policies: plans,
    };
    let text = crate::plan_text::render(&report);
    Ok(write_out(&text, &report, f.json.as_deref())?)
}

/// Prints `text` (to standard error when the JSON goes to standard output) and writes
/// `report` to `json`, when given.
fn write_out(text: &str, report: &impl serde::Serialize, json: Option<&str>) -> Result<(), String> {
    if json == Some("-") {
        std::io::stderr()
            .write_all(text.as_bytes())
            .map_err(crate::output::write_error("-"))?;
    } else {
        crate::output::print(text)?;
    }
    if let Some(path) = json {
        let mut out = crate::output::create(path)?;
        let json = serde_json::to_string(report).expect("plan serialises");
        writeln!(out, "{json}")
            .and_then(|_| out.flush())
            .map_err(crate::output::write_error(path))?;
    }
    Ok(())
}
