//! `kvfleet plan`: the fewest replicas (and GPUs, and dollars) per routing policy that
//! meet the given SLOs, planned by simulation on every core (one policy per thread), with
//! each policy's goodput; prints a table and the headline, writes `--plan-json`.

use std::io::Write;

use clap::{ArgMatches, Args};
use kvfleet::plan::{self, PlanLimits, PolicyPlan, Runner, Slo, SyntheticRunner, TraceRunner};
use kvfleet::{Config, Policy};
use rayon::prelude::*;
use serde::Serialize;

use crate::args::RunArgs;
use crate::progress::Progress;

/// `kvfleet plan`'s own flags (the run flags describe the workload and the engine).
#[derive(Args, Debug)]
pub struct PlanFlags {
    /// Target: p99 time to first token, ms.
    #[arg(long = "slo-ttft-p99-ms", value_name = "MS", value_parser = positive)]
    pub ttft_p99_ms: Option<f64>,
    /// Target: p99 time per output token, ms.
    #[arg(long = "slo-tpot-p99-ms", value_name = "MS", value_parser = positive)]
    pub tpot_p99_ms: Option<f64>,
    /// Target: p99 end-to-end latency, ms.
    #[arg(long = "slo-e2e-p99-ms", value_name = "MS", value_parser = positive)]
    pub e2e_p99_ms: Option<f64>,
    /// Target: most requests not served (rejected or timed out), a share 0..1
    /// [default: 0 once any target is given].
    #[arg(long = "slo-max-rejected", value_name = "SHARE", value_parser = share)]
    pub max_rejected: Option<f64>,
    /// Let a run whose backlog grows through it (the report's "overloaded" finding) meet
    /// the targets; by default it misses, since it meets them only because the run ends.
    #[arg(long = "plan-allow-overload")]
    pub allow_overload: bool,
    /// Policies to plan, comma separated [default: all eleven].
    #[arg(long = "plan-routing", value_name = "LIST", value_parser = policies)]
    pub plan_routing: Option<PolicyList>,
    /// Each point must meet the targets on K seeds (seed, seed + 1, ...).
    #[arg(long = "plan-seeds", value_name = "K", default_value = "1")]
    pub seeds: u32,
    /// The largest fleet tried.
    #[arg(long = "plan-max-replicas", value_name = "N", default_value_t = plan::DEFAULT_MAX_REPLICAS)]
    pub max_replicas: u32,
    /// Try every fleet size from 1 to --plan-max-replicas instead of bracketing (finds
    /// a smaller answer that a non-monotone result hides from the bracketing search).
    #[arg(long = "plan-exhaustive")]
    pub exhaustive: bool,
    /// Price of one GPU-hour, US dollars, 0 to 10000 (assumed: a round on-demand price
    /// for one H100-class GPU; set your own).
    #[arg(long = "gpu-hour-usd", value_name = "USD", default_value_t = plan::DEFAULT_GPU_HOUR_USD)]
    pub gpu_hour_usd: f64,
    /// GPUs per replica, 1 to 1024 [default: the engine preset's, 1 for custom].
    #[arg(long = "plan-gpus-per-replica", value_name = "G")]
    pub gpus_per_replica: Option<u32>,
    /// Write the whole plan as JSON to FILE ("-" for standard output).
    #[arg(long = "plan-json", value_name = "FILE")]
    pub json: Option<String>,
}

/// `kvfleet plan` as parsed: the workload's run flags and the plan's flags.
#[derive(Args, Debug)]
pub struct PlanCmd {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub plan: PlanFlags,
}

fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("expected a number of ms > 0".to_string()),
    }
}

fn share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a share from 0 to 1 (0.01 is 1 %)".to_string()),
    }
}

/// `--plan-routing`'s list, in the order given, without repeats.
#[derive(Clone, Debug)]
pub struct PolicyList(pub Vec<Policy>);

fn policies(text: &str) -> Result<PolicyList, String> {
    let mut out: Vec<Policy> = Vec::new();
    for name in text.split(',').map(str::trim) {
        let p = Policy::parse(name).map_err(|e| format!("{name}: {}", e.allowed))?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(PolicyList(out))
}

/// The whole plan, as `--plan-json` writes it.
#[derive(Serialize)]
pub struct PlanReport<'a> {
    pub kvfleet_version: &'static str,
    pub seed: u64,
    pub workload: &'a str,
    pub engine: &'static str,
    pub slo: Slo,
    pub limits: PlanLimits,
    pub config: &'a Config,
    pub headline: String,
    pub policies: Vec<PolicyPlan>,
}

/// Refuses run flags that a plan would silently ignore.
fn check_flags(a: &RunArgs) -> Result<(), String> {
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

const NO_TARGET: &str = "kvfleet plan: no target given; give at least one of \
    --slo-ttft-p99-ms, --slo-tpot-p99-ms, --slo-e2e-p99-ms, --slo-max-rejected";

/// Plans every policy asked for and reports.
pub fn run(cmd: &PlanCmd, matches: &ArgMatches) -> Result<(), String> {
    check_flags(&cmd.run)?;
    let (cfg, lesson) = crate::inputs::config(&cmd.run, matches)?;
    let f = &cmd.plan;
    let given = [f.ttft_p99_ms, f.tpot_p99_ms, f.e2e_p99_ms, f.max_rejected];
    if given.iter().all(Option::is_none) {
        return Err(NO_TARGET.to_string());
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
        gpu_hour_usd: f.gpu_hour_usd,
    };
    limits.validate()?;
    plan::check_plan(&cfg, &limits)?;
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
        headline: plan::headline(&plans),
        policies: plans,
    };
    let text = crate::plan_text::render(&report);
    if f.json.as_deref() == Some("-") {
        std::io::stderr()
            .write_all(text.as_bytes())
            .map_err(crate::output::write_error("-"))?;
    } else {
        crate::output::print(&text)?;
    }
    if let Some(path) = &f.json {
        let mut out = crate::output::create(path)?;
        let json = serde_json::to_string(&report).expect("plan serialises");
        writeln!(out, "{json}")
            .and_then(|_| out.flush())
            .map_err(crate::output::write_error(path))?;
    }
    Ok(())
}
