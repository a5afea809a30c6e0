//! Sweeps: one workload run across the values of one parameter
//! (`overlap-weight=0:8:0.5`, `instances=1:32`, `routing=kv,round_robin`), each point an
//! independent seeded run, so the results never depend on how the points are scheduled.

use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::echo::shown;
use crate::params::{self, ParamSpec};
use crate::report::Report;

/// Most points one sweep may have.
pub const MAX_POINTS: usize = 1000;

/// One point of a sweep: the swept value and the full config it gives.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    /// The swept parameter's value at this point.
    pub value: Value,
    /// The config of this point.
    pub config: Config,
}

/// One row of a sweep's table (also a CSV line and a JSON record): `--des-sweep-json`
/// writes an array of them, one per point, each from that point's report `summary`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepRow {
    /// The swept parameter (its config key).
    pub param: String,
    /// Its value at this point: a number, or a name (`routing=kv,round_robin`).
    pub value: Value,
    /// `summary.hit_rate_requests`, a fraction; `null` when none was admitted.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_requests: f64,
    /// `summary.hit_rate_tokens`, a fraction; `null` when none was admitted.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub hit_rate_tokens: f64,
    /// `summary.ttft_ms_p50`, ms; `null` when no request completed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_p50: f64,
    /// `summary.ttft_ms_p99`, ms; `null` when no request completed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub ttft_ms_p99: f64,
    /// `summary.e2e_ms_p99`, ms; `null` when no request completed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub e2e_ms_p99: f64,
    /// `summary.tpot_ms_p99`, ms; `null` when no completed request had two output tokens
    /// or more.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub tpot_ms_p99: f64,
    /// `summary.makespan_s`, s.
    pub makespan_s: f64,
    /// `summary.load_spread`, a ratio; `null` when no request was routed.
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub load_spread: f64,
    /// `summary.rejected`.
    pub rejected: u64,
    /// `summary.timed_out`.
    pub timed_out: u64,
    /// `summary.evictions`, blocks.
    pub evictions: u64,
    /// Mean task completion time, s: `sessions.task_s.mean` (`null` for a workload
    /// without sessions, or when no task completed).
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub task_s_mean: f64,
}

/// The CSV header matching `SweepRow::csv`.
pub const CSV_HEADER: &str = "param,value,hit_rate_requests,hit_rate_tokens,ttft_ms_p50,ttft_ms_p99,e2e_ms_p99,tpot_ms_p99,makespan_s,load_spread,rejected,timed_out,evictions,task_s_mean";

impl SweepRow {
    /// The row of one point's report.
    pub fn of(param: &str, value: &Value, r: &Report) -> SweepRow {
        let s = &r.summary;
        SweepRow {
            param: param.to_string(),
            value: value.clone(),
            hit_rate_requests: s.hit_rate_requests,
            hit_rate_tokens: s.hit_rate_tokens,
            ttft_ms_p50: s.ttft_ms_p50,
            ttft_ms_p99: s.ttft_ms_p99,
            e2e_ms_p99: s.e2e_ms_p99,
            tpot_ms_p99: s.tpot_ms_p99,
            makespan_s: s.makespan_s,
            load_spread: s.load_spread,
            rejected: s.rejected,
            timed_out: s.timed_out,
            evictions: s.evictions,
            task_s_mean: r.sessions.as_ref().map_or(f64::NAN, |t| t.task_s.mean),
        }
    }

    /// One CSV line (no newline); floats at full precision.
    pub fn csv(&self) -> String {
        let value = match &self.value {
            Value::String(s) => s.clone(),
            v => crate::json::text(v),
        };
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.param,
            value,
            self.hit_rate_requests,
            self.hit_rate_tokens,
            self.ttft_ms_p50,
            self.ttft_ms_p99,
            self.e2e_ms_p99,
            self.tpot_ms_p99,
            self.makespan_s,
            self.load_spread,
            self.rejected,
            self.timed_out,
            self.evictions,
            self.task_s_mean
        )
    }
}

/// The swept parameter's config key and spec, from a name with dashes or underscores.
fn param_of(name: &str) -> Result<ParamSpec, String> {
    let key = name.trim().replace('-', "_");
    params::specs()
        .into_iter()
        .find(|s| s.name == key)
        .ok_or_else(|| {
            let names: Vec<String> = params::specs()
                .iter()
                .map(|s| s.name.replace('_', "-"))
                .collect();
            format!(
                "--des-sweep: unknown parameter \"{}\"; allowed: {}",
                crate::echo::shown(name),
                names.join(", ")
            )
        })
}

fn number(text: &str, spec: &str) -> Result<f64, String> {
    crate::decimal::finite_f64(text.trim()).ok_or_else(|| {
        format!(
            "--des-sweep {}: \"{}\" is not a number",
            shown(spec),
            shown(text)
        )
    })
}

fn too_many(spec: &str, count: f64) -> String {
    let count = if count < 1e9 {
        format!("{count:.0}")
    } else {
        format!("{count:.3e}")
    };
    format!(
        "--des-sweep {}: {count} points; at most {MAX_POINTS}",
        shown(spec)
    )
}

/// The values of `START:END[:STEP]` (inclusive; STEP defaults to 1 for integers and to a
/// tenth of the range for decimals) or of a comma-separated list.
fn values(p: &ParamSpec, text: &str, spec: &str) -> Result<Vec<Value>, String> {
    let integer = matches!(p.kind, "int" | "optional_int");
    let numeric = integer || matches!(p.kind, "float" | "optional_float");
    if text.contains(',') || !numeric || !text.contains(':') {
        let count = text.split(',').count();
        if count > MAX_POINTS {
            return Err(too_many(spec, count as f64));
        }
        return text
            .split(',')
            .map(|v| {
                let v = v.trim();
                match (numeric, integer) {
                    (false, _) => Ok(Value::String(v.to_string())),
                    (true, true) => Ok(Value::from(number(v, spec)? as i64)),
                    (true, false) => Ok(Value::from(number(v, spec)?)),
                }
            })
            .collect();
    }
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 {
        return Err(format!(
            "--des-sweep {}: expected START:END or START:END:STEP",
            shown(spec)
        ));
    }
    let (start, end) = (number(parts[0], spec)?, number(parts[1], spec)?);
    let default_step = if integer { 1.0 } else { (end - start) / 10.0 };
    let step = parts.get(2).map_or(Ok(default_step), |s| number(s, spec))?;
    if step <= 0.0 || end < start {
        return Err(format!(
            "--des-sweep {}: need START <= END and STEP > 0",
            shown(spec)
        ));
    }
    // Counted in f64 first: a tiny step makes the quotient huge or infinite, which as
    // an integer would saturate (and wrap once 1 is added).
    let steps = ((end - start) / step + 1e-9).floor();
    if steps.is_nan() || steps >= MAX_POINTS as f64 {
        return Err(too_many(spec, steps + 1.0));
    }
    let count = steps as usize + 1;
    Ok((0..count)
        .map(|i| {
            let x = start + step * i as f64;
            if integer {
                Value::from(libm::round(x) as i64)
            } else {
                Value::from(libm::round(x * 1e9) / 1e9)
            }
        })
        .collect())
}

/// A pool size swept keeps the fleet consistent: on a colocated base, sweeping
/// `prefill_instances` keeps `instances` and gives the decode pool the rest (the P:D
/// split at a fixed number of replicas), and the same for `decode_instances`; on a
/// disaggregated base the other pool stays and `instances` becomes the sum.
fn fit_pools(mut c: Config, base: &Config, name: &str) -> Config {
    let rest = |n: Option<u32>| n.map(|n| base.instances.saturating_sub(n).max(1));
    match name {
        "prefill_instances" if base.decode_instances.is_none() => {
            c.decode_instances = rest(c.prefill_instances);
        }
        "decode_instances" if base.prefill_instances.is_none() => {
            c.prefill_instances = rest(c.decode_instances);
        }
        "prefill_instances" | "decode_instances" => {
            if let Some(pools) = c.pools() {
                c.instances = pools.prefill + pools.decode;
            }
        }
        _ => {}
    }
    c
}

/// A rate swept under a rate schedule would change nothing: the schedule sets the rate in
/// its place (and scaling the schedule to match a bare rate has no one meaning), so it is
/// an error naming the schedule.
fn set_by_schedule(base: &Config, name: &str, spec: &str) -> Result<(), String> {
    let schedule = base.request_rate_schedule.trim();
    if schedule.is_empty() || !matches!(name, "request_rate" | "session_rate") {
        return Ok(());
    }
    Err(format!(
        "--des-sweep {}: {name} does nothing under request_rate_schedule \"{}\", which \
         sets the rate; clear the schedule to sweep the rate, or sweep the schedule itself \
         (e.g. request_rate_schedule=daily:8:600s,daily:16:600s)",
        shown(spec),
        shown(schedule)
    ))
}

/// Parses `NAME=VALUES` and returns the swept config key and every point's config, each
/// validated as a synthetic run (an invalid point is an error naming the value).
pub fn plan(base: &Config, spec: &str) -> Result<(String, Vec<SweepPoint>), String> {
    plan_with(base, spec, |config| {
        params::validate(config)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

/// `plan`, with each point validated by `check` (a trace sweep checks each point as a
/// replay of its trace, as the single run would).
pub fn plan_with(
    base: &Config,
    spec: &str,
    check: impl Fn(&Config) -> Result<(), String>,
) -> Result<(String, Vec<SweepPoint>), String> {
    let (name, text) = spec.split_once('=').ok_or_else(|| {
        format!(
            "--des-sweep \"{}\": expected NAME=START:END[:STEP] or NAME=A,B,C",
            shown(spec)
        )
    })?;
    let p = param_of(name)?;
    set_by_schedule(base, p.name, spec)?;
    let base_json = crate::json::value_of(base);
    let mut points = Vec::new();
    for value in values(&p, text, spec)? {
        let mut v = base_json.clone();
        v[p.name] = value.clone();
        let config: Config = crate::json::from_value(&v).map_err(|e| {
            let value = shown(&crate::json::text(&value));
            format!("--des-sweep {}: {} = {value}: {e}", shown(spec), p.name)
        })?;
        let config = fit_pools(config, base, p.name);
        check(&config).map_err(|e| format!("--des-sweep {}: {e}", shown(spec)))?;
        points.push(SweepPoint { value, config });
    }
    Ok((p.name.to_string(), points))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_values_and_colons_inside_choices() {
        let base = Config::default();
        // One value is a sweep of one point, numeric or not.
        let (_, pts) = plan(&base, "instances=4").unwrap();
        assert_eq!(pts.len(), 1);
        assert_eq!(pts[0].config.instances, 4);
        // A choice may contain a colon: it is a value, not a range.
        let (_, pts) = plan(&base, "prefix_popularity=zipf:1.2").unwrap();
        assert_eq!(pts.len(), 1);
        assert_eq!(pts[0].config.prefix_popularity, "zipf:1.2");
        let (_, pts) = plan(&base, "prefix_popularity=uniform,hot:0.5").unwrap();
        assert_eq!(pts[1].config.prefix_popularity, "hot:0.5");
        // A numeric list with a range inside is an error naming the item.
        let e = plan(&base, "instances=1:2,3").unwrap_err();
        assert!(e.contains("\"1:2\" is not a number"), "{e}");
    }

    #[test]
    fn a_decimal_range_without_step_has_eleven_points() {
        // 2:4 in tenths of the range: 2.0, 2.2, ..., 4.0.
        let (_, pts) = plan(&Config::default(), "overlap_weight=2:4").unwrap();
        let w: Vec<f64> = pts.iter().map(|p| p.config.overlap_weight).collect();
        assert_eq!(w.len(), 11);
        assert_eq!((w[0], w[1], w[10]), (2.0, 2.2, 4.0));
    }

    #[test]
    fn too_many_writes_counts_plainly_below_a_billion() {
        // Whole numbers below 10^9 in full, from 10^9 on in scientific notation.
        assert_eq!(
            too_many("a=1:2", 999_999_999.0),
            "--des-sweep a=1:2: 999999999 points; at most 1000"
        );
        assert_eq!(
            too_many("a=1:2", 1e9),
            "--des-sweep a=1:2: 1.000e9 points; at most 1000"
        );
    }

    #[test]
    fn ranges_lists_and_errors() {
        let base = Config::default();
        let (key, pts) = plan(&base, "overlap-weight=0:8:0.5").unwrap();
        assert_eq!(key, "overlap_weight");
        assert_eq!(pts.len(), 17);
        assert_eq!(pts[3].config.overlap_weight, 1.5);
        let (_, pts) = plan(&base, "instances=1:4").unwrap();
        assert_eq!(
            pts.iter().map(|p| p.config.instances).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
        let (_, pts) = plan(&base, "routing=kv,round_robin").unwrap();
        assert_eq!(pts[1].value, Value::from("round_robin"));
        let (_, pts) = plan(&base, "kv_blocks=100,200").unwrap();
        assert_eq!(pts[1].config.kv_blocks, Some(200));
        assert!(plan(&base, "instances=0:3")
            .unwrap_err()
            .contains("invalid instances: got 0"));
        assert!(plan(&base, "speed=1:2")
            .unwrap_err()
            .contains("unknown parameter"));
        assert!(plan(&base, "instances")
            .unwrap_err()
            .contains("expected NAME="));
        assert!(plan(&base, "instances=5:1")
            .unwrap_err()
            .contains("START <= END"));
        assert!(plan(&base, "seed=0:5000")
            .unwrap_err()
            .contains("at most 1000"));
    }

    #[test]
    fn float_ranges_count_their_end_point() {
        // 0.3 / 0.1 is 2.9999999999999996 in binary floating point: the end must still
        // be a point. 0, 0.1, 0.2, 0.3 (each rounded to 9 decimals, so 0.30000000000000004
        // is written 0.3).
        let base = Config::default();
        let weights = |spec: &str| -> Vec<f64> {
            let (_, pts) = plan(&base, spec).unwrap();
            pts.iter().map(|p| p.config.overlap_weight).collect()
        };
        assert_eq!(
            weights("overlap-weight=0:0.3:0.1"),
            vec![0.0, 0.1, 0.2, 0.3]
        );
        assert_eq!(weights("overlap-weight=0.7:0.9:0.1"), vec![0.7, 0.8, 0.9]);
        assert_eq!(weights("overlap-weight=1:1.25:0.1"), vec![1.0, 1.1, 1.2]);
        // No step: a tenth of the range, 11 points with both ends.
        let ten = weights("overlap-weight=0:1");
        assert_eq!(ten.len(), 11);
        assert_eq!((ten[0], ten[3], ten[10]), (0.0, 0.3, 1.0));
        // A single point when START = END; integers step by 1 and round.
        assert_eq!(weights("overlap-weight=2:2:1"), vec![2.0]);
        let (_, pts) = plan(&base, "instances=2:8:3").unwrap();
        let n: Vec<u32> = pts.iter().map(|p| p.config.instances).collect();
        assert_eq!(n, vec![2, 5, 8]);
        let (_, pts) = plan(&base, "instances = 3 , 5").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            pts.iter().map(|p| p.value.clone()).collect::<Vec<_>>(),
            [3, 5]
        );
    }

    #[test]
    fn bad_numbers_and_steps_are_named() {
        let base = Config::default();
        let err = plan(&base, "overlap-weight=0:x").unwrap_err();
        assert_eq!(err, "--des-sweep overlap-weight=0:x: \"x\" is not a number");
        let err = plan(&base, "overlap-weight=0:1:0").unwrap_err();
        assert!(err.contains("STEP > 0"), "{err}");
        let err = plan(&base, "overlap-weight=0:1:2:3").unwrap_err();
        assert!(
            err.contains("expected START:END or START:END:STEP"),
            "{err}"
        );
        let err = plan(&base, "overlap-weight=inf:1").unwrap_err();
        assert!(err.contains("is not a number"), "{err}");
        let err = plan(&base, "routing=kv,warp").unwrap_err();
        assert!(err.contains("routing = \"warp\""), "{err}");
        // A range of 1000 points is allowed, 1001 is not.
        assert_eq!(plan(&base, "seed=1:1000").unwrap().1.len(), 1000);
        let err = plan(&base, "seed=0:1000").unwrap_err();
        assert!(err.contains("1001 points; at most 1000"), "{err}");
    }

    #[test]
    fn a_row_takes_every_column_from_its_report() {
        let cfg = Config {
            num_requests: 40,
            ..Config::default()
        };
        let report = crate::api::synthetic_simulation(&cfg)
            .unwrap()
            .into_report();
        let row = SweepRow::of("instances", &Value::from(4), &report);
        let csv = row.csv();
        let cells: Vec<&str> = csv.split(',').collect();
        let header: Vec<&str> = CSV_HEADER.split(',').collect();
        assert_eq!(cells.len(), header.len());
        let json = serde_json::to_value(&row).unwrap();
        let summary = serde_json::to_value(&report.summary).unwrap();
        for (i, name) in header.iter().enumerate().skip(2) {
            // A pool workload has no tasks: their mean is over nothing, null (NaN).
            let want = if *name == "task_s_mean" {
                Value::Null
            } else {
                summary[name].clone()
            };
            assert_eq!(json[name], want, "column {name}");
            let cell: f64 = cells[i].parse().unwrap();
            let want = want.as_f64().unwrap_or(f64::NAN);
            assert!(
                cell == want || cell.is_nan() && want.is_nan(),
                "CSV column {name}"
            );
        }
        assert_eq!((cells[0], cells[1]), ("instances", "4"));
    }
}
