//! `kvfleet plan`'s own flags: the SLO targets, the search's limits, the prices and the
//! policies to plan; and the error a plan stops with (flags refused together are a usage
//! error).

use clap::Args;
use kvfleet::timing::EnginePreset;
use kvfleet::{plan, Policy};

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
    /// Price of one GPU-hour, US dollars, 0 to 10000 [default: the engine preset's GPU's
    /// (--des-gpu-hour-usd when it names one), an assumed on-demand list price; $2.50 for
    /// an engine without hardware].
    #[arg(long = "gpu-hour-usd", value_name = "USD")]
    pub gpu_hour_usd: Option<f64>,
    /// GPUs per replica, 1 to 1024 [default: the engine preset's, 1 for custom].
    #[arg(long = "plan-gpus-per-replica", value_name = "G")]
    pub gpus_per_replica: Option<u32>,
    /// Search mixes of presets of one model instead of one preset's fleet:
    /// PRESET[=USD],PRESET[=USD][,...] (two or more; USD: the price of one of its GPUs for
    /// an hour [default: --gpu-hour-usd when given, else the preset's GPU's]), or `all`:
    /// every preset with hardware of --des-engine's model. Per policy, the cheapest fleet
    /// (a count of each preset, at most --plan-max-replicas in all) that meets the targets:
    /// every pair walked along its staircase, then local moves to mixes of three or more.
    #[arg(long = "plan-mix", value_name = "PRESETS", value_parser = mix)]
    pub mix: Option<MixFlag>,
    /// Then compare the static fleet the plan sized for --des-routing's policy with an
    /// autoscaled one (kpa or slo) on the same workload: from --des-min-instances (default:
    /// one replica) up to --des-max-instances (default: the static fleet's size), held to
    /// the plan's targets; prints GPU-hours, cost, p99 TTFT, SLO attainment and hit rate.
    #[arg(long = "plan-autoscale", value_name = "SCALER", value_parser = scaler)]
    pub plan_autoscale: Option<kvfleet::config::Autoscale>,
    /// Write the whole plan as JSON to FILE ("-" for standard output).
    #[arg(long = "plan-json", value_name = "FILE")]
    pub json: Option<String>,
}

/// `--plan-mix`'s presets and the prices given (`None`: `--gpu-hour-usd`), or `all`.
#[derive(Clone, Debug)]
pub enum MixFlag {
    /// Every preset with hardware of the engine's model.
    All,
    /// The presets named, in order.
    Named(Vec<(EnginePreset, Option<f64>)>),
}

fn mix(text: &str) -> Result<MixFlag, String> {
    let allowed = || {
        format!(
            "expected `all`, or two or more presets with hardware, each with an optional \
             price per GPU-hour, as PRESET[=USD],PRESET[=USD][,...] (e.g. \
             llama3-8b-h100=2.5,llama3-8b-mi300x=2); presets: {}",
            EnginePreset::ALL
                .iter()
                .filter(|p| p.hardware().is_some())
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    if text.trim() == "all" {
        return Ok(MixFlag::All);
    }
    let one = |part: &str| -> Result<(EnginePreset, Option<f64>), String> {
        let (name, price) = match part.split_once('=') {
            Some((n, usd)) => {
                let usd = kvfleet::decimal::finite_f64(usd.trim()).ok_or_else(allowed)?;
                (n.trim(), Some(usd))
            }
            None => (part, None),
        };
        let preset = EnginePreset::parse(name).ok_or_else(allowed)?;
        Ok((preset, price))
    };
    let named = text
        .split(',')
        .map(|p| one(p.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    if named.len() < 2 {
        return Err(allowed());
    }
    // Checked here so that a mix no price can make valid exits as a malformed command
    // line does (the price left out is checked once known).
    let priced: Vec<plan::MixPreset> = named
        .iter()
        .map(|&(preset, usd)| plan::MixPreset {
            preset,
            gpu_hour_usd: usd.unwrap_or(0.0),
        })
        .collect();
    plan::check_mix(&priced).map_err(|e| e.trim_start_matches("--plan-mix: ").to_string())?;
    Ok(MixFlag::Named(named))
}

fn scaler(text: &str) -> Result<kvfleet::config::Autoscale, String> {
    use kvfleet::config::Autoscale;
    match Autoscale::parse(text.trim()) {
        Ok(a) if a != Autoscale::Off => Ok(a),
        _ => Err("expected kpa (Knative's autoscaler) or slo (a Dynamo-planner-style rule)".into()),
    }
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

/// Why a plan stopped: a refused combination of flags (a usage error, exit 2, as a
/// malformed command line) or anything else (exit 1).
#[derive(Debug)]
pub enum PlanError {
    /// Flags that cannot go together.
    Usage(String),
    /// A bad value, a failed run or write.
    Failed(String),
}

impl From<String> for PlanError {
    fn from(message: String) -> PlanError {
        PlanError::Failed(message)
    }
}
