//! String-in, string-out entry points shared by the CLI, the wasm bindings and the tests.
//! Errors are plain messages that name the field (or file and line) and what is allowed.

use crate::params;
pub use crate::run::*;

/// Every lesson (story, broken config, goal checks, hints, fixes, the workload it pins) as
/// JSON.
pub fn lessons_json() -> String {
    crate::json::text(&crate::lessons::lessons_value())
}

/// A lesson's interview answers (numbers measured by runs) and short check (answers
/// verified by runs), as JSON (`lessons::material::Material`). A lesson that replays a
/// built-in trace (`Lesson::trace`) needs it parsed: `trace`.
pub fn lesson_material_json(id: &str, trace: Option<&ParsedTrace>) -> Result<String, String> {
    lesson_material_json_with(id, trace, &mut |_| {})
}

/// `lesson_material_json`, handing the figure's JSON (the material's `diagram`) to
/// `on_diagram` as soon as its runs are done, before the rest is measured.
pub fn lesson_material_json_with(
    id: &str,
    trace: Option<&ParsedTrace>,
    on_diagram: &mut dyn FnMut(String),
) -> Result<String, String> {
    let lesson = crate::lessons::lesson(id)
        .ok_or_else(|| format!("lesson: unknown lesson \"{}\"", crate::echo::shown(id)))?;
    let m = crate::lessons::material::material_with(&lesson, trace, &mut |d| {
        on_diagram(serde_json::to_string(d).expect("a diagram serialises"))
    })?;
    Ok(serde_json::to_string(&m).expect("material serialises"))
}

/// The points of a sweep (`NAME=START:END[:STEP]` or `NAME=A,B,C`) over a JSON config, as
/// a JSON object `{"param": KEY, "points": [{"value": V, "config": {...}}, ...]}`; the page
/// runs each point's config with `run_json` in parallel workers.
pub fn sweep_plan_json(config_json: &str, spec: &str) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    let (param, points) = crate::sweep::plan(&cfg, spec)?;
    let mut v = serde_json::Map::new();
    v.insert("param".to_string(), serde_json::Value::String(param));
    v.insert("points".to_string(), crate::json::value_of(&points));
    Ok(crate::json::text(&serde_json::Value::Object(v)))
}

/// Plans one routing policy (`plan::plan_policy`) for a JSON config and a JSON
/// `plan::PlanSpec` (`{"slo": {...}, "limits": {...}}`), over a synthetic workload or, when
/// `trace` is given, a parsed Mooncake trace; returns the policy's plan as JSON, exactly as
/// `kvfleet plan --plan-json` writes it in `policies`.
pub fn plan_policy_json(
    config_json: &str,
    policy: &str,
    spec_json: &str,
    trace: Option<&ParsedTrace>,
) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    let policy = crate::Policy::parse(policy).map_err(|e| e.to_string())?;
    let spec: crate::plan::PlanSpec = serde_json::from_str(spec_json)
        .map_err(|e| crate::echo::cut_long_lines(&format!("invalid plan: {e}"), 400))?;
    spec.slo.validate()?;
    spec.limits.validate()?;
    let plan = match trace {
        Some(t) => {
            let requests = t.requests_for(&cfg)?;
            params::validate_fleet(&cfg).map_err(|e| e.to_string())?;
            params::validate_replay(&cfg, &requests, &t.name)?;
            let runner = crate::plan::TraceRunner {
                requests,
                name: t.name.clone(),
            };
            crate::plan::plan_policy(&cfg, policy, &spec.slo, &spec.limits, &runner)?
        }
        None => {
            params::validate(&cfg).map_err(|e| e.to_string())?;
            let runner = crate::plan::SyntheticRunner;
            crate::plan::plan_policy(&cfg, policy, &spec.slo, &spec.limits, &runner)?
        }
    };
    Ok(serde_json::to_string(&plan).expect("plan serialises"))
}

/// Every engine preset with its hardware (GPUs per replica, HBM, weights, KV bytes per
/// token; `null` for custom) and its KV capacity in blocks of `block_size` tokens.
pub fn presets_json(block_size: u32) -> String {
    use crate::json::value_of;
    use serde_json::Value;
    // Built as `json!` would (its map's keys sorted), with each part's value through text
    // (`json::value_of`), so no second serializer of `Timing` and `Hardware` into values.
    let rows: Vec<Value> = crate::timing::EnginePreset::ALL
        .iter()
        .map(|p| {
            let mut row = serde_json::Map::new();
            row.insert("name".into(), Value::from(p.name()));
            row.insert("timing".into(), value_of(&p.timing()));
            row.insert("hardware".into(), value_of(&p.hardware()));
            row.insert("gpus".into(), Value::from(p.gpus()));
            row.insert("kv_blocks".into(), Value::from(p.kv_blocks(block_size)));
            Value::Object(row)
        })
        .collect();
    crate::json::text(&serde_json::Value::Array(rows))
}

/// A JSON array of policy plans (as `plan_policy_json` returns them).
fn plans_of(plans_json: &str) -> Result<Vec<serde_json::Value>, String> {
    let v: serde_json::Value =
        serde_json::from_str(plans_json).map_err(|e| format!("invalid plans: {e}"))?;
    match v {
        serde_json::Value::Array(plans) => Ok(plans),
        _ => Err("invalid plans: expected a JSON array".to_string()),
    }
}

/// The headline's rows of a JSON array of policy plans (as `plan_policy_json` returns them).
fn headline_rows_of(plans_json: &str) -> Result<Vec<crate::plan::HeadlineRow>, String> {
    Ok(plans_of(plans_json)?
        .iter()
        .map(crate::plan::HeadlineRow::of_json)
        .collect())
}

/// The planner's headline over a JSON array of policy plans (as `plan_policy_json` returns
/// them) planned to `spec` (`{"slo": {...}, "limits": {...}}`): the cheapest policy, its
/// ties, and what it saves against round robin; or, when no policy met the targets, the
/// best each missed target reached and what to change, naming the page's controls.
pub fn plan_headline(plans_json: &str, spec_json: &str) -> Result<String, String> {
    let spec: crate::plan::PlanSpec = serde_json::from_str(spec_json)
        .map_err(|e| crate::echo::cut_long_lines(&format!("invalid plan: {e}"), 400))?;
    let plans = plans_of(plans_json)?;
    let rows: Vec<_> = plans
        .iter()
        .map(crate::plan::HeadlineRow::of_json)
        .collect();
    Ok(crate::plan::headline_rows(&rows).unwrap_or_else(|| {
        crate::plan::none_met_sentence(
            "policy",
            &crate::plan::Tried::of_json(&plans),
            &spec.slo,
            spec.limits.max_replicas,
            &crate::plan::Knobs::PAGE,
        )
    }))
}

/// The policy the planner's headline names over a JSON array of policy plans ("" when none
/// meets the targets): the one the page's chart rings.
pub fn plan_cheapest(plans_json: &str) -> Result<String, String> {
    let rows = headline_rows_of(plans_json)?;
    Ok(crate::plan::cheapest(&rows).unwrap_or_default().to_string())
}

/// The policies tied on cost with the one the headline names (itself first), as a JSON array
/// of names: the same $/h and a $/M output tokens level with the lowest. `[]` when none meets
/// the targets.
pub fn plan_tied(plans_json: &str) -> Result<String, String> {
    let rows = headline_rows_of(plans_json)?;
    serde_json::to_string(&crate::plan::tied_on_cost(&rows)).map_err(|e| e.to_string())
}

/// Runs a synthetic workload described by a JSON config on `seeds` seeds (`--des-seeds`:
/// `seed` up) and returns the report as JSON: the first seed's, with the `seeds` section
/// when there are several; byte for byte what the CLI writes.
pub fn run_seeds_json(config_json: &str, seeds: u32) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    Ok(crate::seeds::synthetic_seeds(&cfg, seeds)?.to_json())
}

/// The spread of one figure over K seeds (one value per seed, in seed order; 1 to
/// `noise::MAX_SEEDS` of them) as JSON: `mean`, `min`, `max`, `ci95_low`, `ci95_high`
/// (`null` for one seed) and `values` (`noise::spread`: the page's band uses it, so the
/// page and `--des-seeds` share one definition).
pub fn spread_json(values: &[f64]) -> Result<String, String> {
    let most = crate::noise::MAX_SEEDS as usize;
    if !(1..=most).contains(&values.len()) {
        return Err(format!(
            "spread: invalid count of values: got {}; allowed: 1 to {most} (one per seed)",
            values.len()
        ));
    }
    Ok(serde_json::to_string(&crate::noise::spread(values)).expect("a spread serialises"))
}

/// Fits a step log (`calibrate::read_steps`, then `calibrate::fit`) in `form` (`linear` or
/// `polynomial`), the polynomial's utilisation over `kv_capacity_tokens` when given; the fit
/// as JSON, byte for byte what `kvfleet calibrate --calibrate-json` holds (compact). Errors
/// name the file and line (`NAME:LINE: ...`), as the CLI's.
pub fn calibrate_json(
    text: &str,
    name: &str,
    form: &str,
    kv_capacity_tokens: Option<f64>,
) -> Result<String, String> {
    let form = crate::calibrate::Form::parse(form)?;
    let opts = crate::calibrate::Options { kv_capacity_tokens };
    crate::calibrate::calibrate_json(text, name, form, opts)
}

/// The runner of a plan: a parsed trace's requests, or the synthetic workload; the config
/// checked for it either way.
fn plan_runner(
    cfg: &crate::Config,
    trace: Option<&ParsedTrace>,
) -> Result<Box<dyn crate::plan::Runner>, String> {
    match trace {
        Some(t) => {
            let requests = t.requests_for(cfg)?;
            params::validate_fleet(cfg).map_err(|e| e.to_string())?;
            params::validate_replay(cfg, &requests, &t.name)?;
            Ok(Box::new(crate::plan::TraceRunner {
                requests,
                name: t.name.clone(),
            }))
        }
        None => {
            params::validate(cfg).map_err(|e| e.to_string())?;
            Ok(Box::new(crate::plan::SyntheticRunner))
        }
    }
}

/// Plans the cheapest mix of two or more presets for one routing policy (`plan::plan_mix`,
/// as `kvfleet plan --plan-mix A,B,... --plan-routing POLICY`): `spec_json` is
/// `{"slo": {...}, "limits": {...}, "presets": [{"preset": NAME, "gpu_hour_usd": USD}, ...]}`,
/// a price `null` or left out being the preset's GPU's in the config. Returns
/// `{"mix": MixPlan, "headline": TEXT}`, the plan as `--plan-json` writes it in `mixes` and
/// the CLI's last line.
pub fn plan_mix_json(
    config_json: &str,
    policy: &str,
    spec_json: &str,
    trace: Option<&ParsedTrace>,
) -> Result<String, String> {
    let cfg = parse_config(config_json)?;
    let policy = crate::Policy::parse(policy).map_err(|e| e.to_string())?;
    let spec: crate::plan::MixSpec = serde_json::from_str(spec_json)
        .map_err(|e| crate::echo::cut_long_lines(&format!("invalid plan: {e}"), 400))?;
    spec.slo.validate()?;
    let presets = spec.presets(&cfg)?;
    let one_each = crate::plan::mix_config(&cfg, &presets, &vec![1; presets.len()]);
    params::validate_fleet(&one_each).map_err(|e| e.to_string())?;
    let runner = plan_runner(&cfg, trace)?;
    let mix = crate::plan::plan_mix(
        &cfg,
        policy,
        &presets,
        &spec.slo,
        &spec.limits,
        runner.as_ref(),
    )?;
    let headline = crate::plan::mix_headline(
        std::slice::from_ref(&mix),
        &spec.slo,
        spec.limits.max_replicas,
        &crate::plan::Knobs::PAGE,
    );
    let mut v = serde_json::Map::new();
    v.insert("mix".into(), crate::json::value_of(&mix));
    v.insert("headline".into(), serde_json::Value::String(headline));
    Ok(crate::json::text(&serde_json::Value::Object(v)))
}

/// The autoscaled-against-static comparison (`plan::compare_autoscale`, as `kvfleet plan
/// --plan-autoscale SCALER` prints under the plan) for the config's routing policy: the
/// static fleet of `replicas` (the plan's answer) against the config's scaler
/// (`autoscale`, which must be set), on the config with autoscaling off otherwise the same.
/// `spec_json` is the plan's `{"slo": {...}, "limits": {...}}`. Returns the comparison as
/// `--plan-json` writes it in `autoscale`.
pub fn plan_autoscale_json(
    config_json: &str,
    replicas: u32,
    spec_json: &str,
    trace: Option<&ParsedTrace>,
) -> Result<String, String> {
    let mut cfg = parse_config(config_json)?;
    let spec: crate::plan::PlanSpec = serde_json::from_str(spec_json)
        .map_err(|e| crate::echo::cut_long_lines(&format!("invalid plan: {e}"), 400))?;
    spec.slo.validate()?;
    spec.limits.validate()?;
    let scaler = cfg.autoscale;
    if scaler == crate::config::Autoscale::Off {
        return Err("autoscale: set a scaler (kpa or slo) to compare with the static fleet".into());
    }
    if cfg.pools().is_some() || !cfg.fleet.is_empty() {
        return Err("autoscale: an autoscaled fleet is colocated and of one preset".into());
    }
    if !(1..=crate::plan::max_instances()).contains(&replicas) {
        return Err(format!(
            "replicas: invalid count: got {replicas}; allowed: 1 to {}",
            crate::plan::max_instances()
        ));
    }
    cfg.autoscale = crate::config::Autoscale::Off;
    let runner = plan_runner(&cfg, trace)?;
    let (policy, slo) = (cfg.routing, spec.slo);
    for c in crate::plan::comparison_configs(&cfg, policy, replicas, scaler, &slo) {
        match trace {
            Some(_) => params::validate_fleet(&c).map_err(|e| e.to_string())?,
            None => params::validate(&c)
                .map(|_| ())
                .map_err(|e| e.to_string())?,
        }
    }
    let c = crate::plan::compare_autoscale(
        &cfg,
        policy,
        replicas,
        scaler,
        &slo,
        &spec.limits,
        runner.as_ref(),
    )?;
    Ok(serde_json::to_string(&c).expect("comparison serialises"))
}

#[cfg(test)]
mod tests {
    use super::presets_json;

    /// 0.40, 0.41, 0.42: mean 0.41 and ± 4.30265273 × 0.01 / √3 = ± 0.0248414; one value
    /// has `null` bounds; none, or 17, is an error.
    #[test]
    fn spread_json_is_the_noise_spread() {
        let v: serde_json::Value =
            serde_json::from_str(&super::spread_json(&[0.40, 0.41, 0.42]).unwrap()).unwrap();
        assert!((v["mean"].as_f64().unwrap() - 0.41).abs() < 1e-12);
        assert!(
            (v["ci95_high"].as_f64().unwrap() - 0.4348414).abs() < 1e-7,
            "{v}"
        );
        let one = super::spread_json(&[0.5]).unwrap();
        assert!(one.contains("\"ci95_low\":null"), "{one}");
        assert!(super::spread_json(&[])
            .unwrap_err()
            .starts_with("spread: invalid count"));
        assert!(super::spread_json(&[0.0; 17]).is_err());
    }
    use crate::timing::EnginePreset;

    /// Each preset's row is the object `json!` builds from its parts (keys sorted,
    /// `null` for a custom engine's hardware and capacity), at several block sizes.
    #[test]
    fn presets_json_is_the_json_macros_rows() {
        for block_size in [1, 16, 64, 512] {
            let rows: Vec<serde_json::Value> = EnginePreset::ALL
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": p.name(),
                        "timing": p.timing(),
                        "hardware": p.hardware(),
                        "gpus": p.gpus(),
                        "kv_blocks": p.kv_blocks(block_size),
                    })
                })
                .collect();
            let want = serde_json::to_string(&rows).unwrap();
            assert_eq!(presets_json(block_size), want);
            assert!(
                want.contains("\"hardware\":null"),
                "a custom engine is listed"
            );
        }
    }
}
