//! The text of `kvfleet plan`: the targets, one row per policy (fewest replicas, GPUs,
//! dollars, the figures at that point, the check, the goodput), inversions, the headline
//! and on the next line its details.

use kvfleet::numbers::duration;
use kvfleet::plan::{PlanLimits, Point, PolicyPlan, Slo};
use kvfleet::Config;
use serde::Serialize;

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
    /// With `--plan-autoscale`: the static fleet against the autoscaled one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<kvfleet::plan::AutoscaleComparison>,
}

pub(crate) fn targets(slo: &Slo) -> String {
    let mut parts = Vec::new();
    if let Some(ms) = slo.ttft_p99_ms {
        parts.push(format!("TTFT p99 <= {}", duration(ms)));
    }
    if let Some(ms) = slo.tpot_p99_ms {
        parts.push(format!("TPOT p99 <= {}", duration(ms)));
    }
    if let Some(ms) = slo.e2e_p99_ms {
        parts.push(format!("end-to-end p99 <= {}", duration(ms)));
    }
    parts.push(format!(
        "unserved (rejected or timed out) <= {} %",
        100.0 * slo.max_rejected
    ));
    if slo.sustained {
        parts.push("no growing backlog".to_string());
    }
    parts.join(", ")
}

fn money(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else {
        format!("{x:.2}")
    }
}

/// A fleet's size, with its prefill:decode split when disaggregated: "4", "7 (2:5)".
fn size(instances: u32, pools: Option<(u32, u32)>) -> String {
    match pools {
        Some((p, d)) => format!("{instances} ({p}:{d})"),
        None => instances.to_string(),
    }
}

fn point_size(at: &Point) -> String {
    size(at.instances, at.prefill_instances.zip(at.decode_instances))
}

fn row(p: &PolicyPlan, max: u32) -> String {
    let goodput = match &p.goodput {
        Some(g) => format!(
            "{}{:.3} {} ({:.2}x)",
            if g.at_limit { ">= " } else { "" },
            g.rate,
            g.rate_unit,
            g.rate_scale
        ),
        None => "not met at 1/1024 of the rate".to_string(),
    };
    let Some(at) = &p.at_min else {
        return format!(
            "  {:<13} {:>8}  {:>4}  {:>8}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>7}  {:<18}  {goodput}\n",
            p.policy,
            format!("> {max}"),
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            format!("misses at {max}")
        );
    };
    let n = at.instances;
    let check = if !p.verified {
        "not verified".to_string()
    } else if n == 1 || (n == 2 && at.prefill_instances.is_some()) {
        format!("{n} meets")
    } else {
        format!("{n} meets, {} fails", n - 1)
    };
    let m = &at.measured;
    format!(
        "  {:<13} {:>8}  {:>4}  {:>8}  {:>7}  {:>8}  {:>8}  {:>8}  {:>7.1}%  {:>6.1}%  {:<18}  {goodput}\n",
        p.policy,
        point_size(at),
        at.cost.gpus,
        money(at.cost.usd_per_hour),
        money(at.cost.usd_per_m_tokens),
        duration(m.ttft_ms_p99),
        duration(m.tpot_ms_p99),
        duration(m.e2e_ms_p99),
        100.0 * m.rejected_share,
        100.0 * m.hit_rate_tokens,
        check
    )
}

/// With several seeds, each answer's figures over them: "kv: TTFT p99 110 ± 25 ms
/// (100–120 ms), tok hit 50.0 ± 74.5% (20.0–80.0%), $/M tok 8.33 ± 3.45 (6.94–9.72)".
fn seed_spreads(plans: &[PolicyPlan], seeds: u32) -> String {
    use kvfleet::noise::text::{figure_text, Unit};
    let rows: Vec<String> = plans
        .iter()
        .filter_map(|p| {
            let s = p.at_min.as_ref()?.seeds.as_ref()?;
            Some(format!(
                "    {}: TTFT p99 {}, tok hit {}, $/M tok {}\n",
                p.policy,
                figure_text(&s.ttft_ms_p99, Unit::Ms),
                figure_text(&s.hit_rate_tokens, Unit::Share),
                figure_text(&s.usd_per_m_tokens, Unit::Plain(2, ""))
            ))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "  At each answer over its {seeds} seeds (mean ± half-width of the 95% interval, Student \
         t; then min–max; the table's p99s are the worst seed's):\n{}",
        rows.concat()
    )
}

fn inversions(plans: &[PolicyPlan]) -> String {
    let mut out = String::new();
    for p in plans {
        for [a, b] in &p.non_monotone {
            let misses = p
                .points
                .iter()
                .find(|x| x.instances == *b)
                .map(|x| x.misses.join(", "))
                .unwrap_or_default();
            out.push_str(&format!(
                "  Not monotone: {} meets the targets at {a} replicas but misses them at {b} ({misses}): more replicas did worse.\n",
                p.policy
            ));
        }
    }
    out
}

/// "1 seed", "3 seeds".
fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// "1 replica", "4 replicas", "4 replicas (2:2)".
fn replicas(c: &Config) -> String {
    let n = count(c.instances as u64, "replica");
    match c.pools() {
        Some(p) => format!("{n} ({}:{})", p.prefill, p.decode),
        None => n,
    }
}

/// The whole text report of a plan.
pub fn render(r: &PlanReport) -> String {
    let l = &r.limits;
    let mut out = format!(
        "kvfleet plan: workload {}, seed {}, engine {} ({} per replica at ${:.2} per GPU-hour)\n",
        r.workload,
        r.seed,
        r.engine,
        count(l.gpus_per_replica as u64, "GPU"),
        l.gpu_hour_usd
    );
    out.push_str(&format!("  Targets: {}\n", targets(&r.slo)));
    let (kind, least) = match r.config.pools() {
        Some(_) => ("disaggregated fleets", 2),
        None => ("fleets", 1),
    };
    out.push_str(&format!(
        "  Search: {kind} of {least} to {} replicas ({}), each point on {}; goodput at {}\n",
        l.max_replicas,
        if l.exhaustive {
            "every size"
        } else {
            "bracketing, then verified"
        },
        count(l.seeds as u64, "seed"),
        replicas(r.config)
    ));
    if r.config.pools().is_some() {
        out.push_str(
            "  Each size at its best prefill:decode split (P:D): meeting the targets, then \
             missing fewest, then the lowest $/M tok\n",
        );
    }
    out.push_str(&format!(
        "  {:<13} {:>8}  {:>4}  {:>8}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>7}  {:<18}  goodput at {}\n",
        "policy",
        "replicas",
        "GPUs",
        "$/h",
        "$/M tok",
        "TTFT p99",
        "TPOT p99",
        "E2E p99",
        "unserved",
        "tok hit",
        "checked",
        replicas(r.config)
    ));
    for p in &r.policies {
        out.push_str(&row(p, l.max_replicas));
    }
    out.push_str(&seed_spreads(&r.policies, l.seeds));
    out.push_str(&inversions(&r.policies));
    for line in r.headline.lines() {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(c) = &r.autoscale {
        out.push_str(&crate::plan_autoscale::render(c, l.gpu_hour_usd));
    }
    out
}
