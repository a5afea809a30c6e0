//! The course: break-and-fix lessons, each a story, the broken configuration, a
//! measurable goal the report is checked against, hints, fixes, the explanation, and the
//! material (figure, interview, short check) measured by runs. Shared by the CLI
//! (`--preset`, `kvfleet lesson`) and the page.

use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::report::Report;

mod cache_small;
mod disagg;
mod herd;
mod hot_prefix;
mod infinite;
pub mod material;
mod more_replicas_slower;
mod pileup;
mod pinned;
mod reuse;
mod router_cpu;
#[cfg(test)]
mod slider_tests;
mod spike;
mod timeout;
mod weight;

pub use material::{Diagram, Figure, Format, Interview, Quiz, Verify};
pub use pinned::{
    changed_hardware, changed_keys, hardware, hardware_keys, ignored_keys, workload, workload_keys,
};

/// A setting a lesson uses: the config key (the page shows its label, help and value
/// from the parameter table) and the card's rule of thumb for it.
#[derive(Clone, Debug, Serialize)]
pub struct Setting {
    /// The config key.
    pub key: &'static str,
    /// Its rule of thumb (empty when the card gives none).
    pub rule: &'static str,
    /// How the page checks the rule on the run on screen (empty: it shows the rule only):
    /// `timeout_above_p99` (the caller timeout against the run's p99 TTFT),
    /// `slots_little` (the busiest replica's calls per second times seconds each, admission
    /// to last token, against its concurrency slots) or `vcpu_rule` (calls per second per router
    /// times the measured CPU ms per request ÷ 1000, against 90 % of each router's vCPU).
    pub live: &'static str,
}

/// One measurable check of a lesson's goal: `metric op value` on the report JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Path into the report JSON, e.g. `summary.ttft_ms_p99`; paths joined by `|` are
    /// alternatives, the first one present (`FLEET_CEILING`).
    pub metric: &'static str,
    /// `<=` or `>=`.
    pub op: &'static str,
    /// The threshold.
    pub value: f64,
    /// Plain-words label, e.g. "p99 TTFT under 500 ms".
    pub label: &'static str,
}

/// A named fix: config changes applied on top of the broken state.
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    /// Short name.
    pub name: &'static str,
    /// The config keys it changes.
    pub config: Changes,
}

/// A break-and-fix lesson.
#[derive(Clone, Debug, Serialize)]
pub struct Lesson {
    /// Identifier, also the CLI preset name.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// The story, in plain words.
    pub story: &'static str,
    /// The symptom to look for in the broken state.
    pub symptom: &'static str,
    /// Config keys of the broken state (the rest are defaults).
    pub broken: Changes,
    /// The goal in words.
    pub goal: &'static str,
    /// The goal's checks; all must hold.
    pub checks: &'static [Check],
    /// Hints, revealed one at a time.
    pub hints: &'static [&'static str],
    /// Fixes that meet the goal (tested).
    pub fixes: &'static [Fix],
    /// Why the fix works, shown once the goal is met.
    pub explanation: &'static str,
    /// The rule of thumb from the card that this lesson checks.
    pub rule_of_thumb: &'static str,
    /// How hard it is: `beginner`, `intermediate` or `advanced`.
    pub difficulty: &'static str,
    /// About how long it takes, minutes.
    pub minutes: u32,
    /// The built-in trace every run of the lesson replays (a file name of
    /// `data/mooncake/`, which the page serves from `data/`), or empty: the synthetic
    /// workload. The core holds no trace; the CLI embeds it, the page fetches it.
    pub trace: &'static str,
    /// How the component works, in a few sentences (the diagram illustrates it).
    pub how: &'static str,
    /// The figure of "how it works", every point a run.
    pub diagram: Diagram,
    /// The settings the lesson uses, each with its rule of thumb (empty when none).
    pub settings: &'static [Setting],
    /// Three interview questions, with model answers whose numbers come from runs.
    pub interview: &'static [Interview],
    /// The short check: multiple-choice questions, each behaviour answer verified by runs.
    pub quiz: &'static [Quiz],
}

/// Config keys a lesson sets and their values, in the order written. It serialises as
/// the JSON object of those keys (`value`). Every lesson's changes are read as a config by
/// the tests (every lesson's material and fixes are run by them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Changes(pub &'static [(&'static str, Set)]);

/// The value a lesson sets a config key to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Set {
    /// A whole number (a count, a size in blocks).
    Int(i64),
    /// A real number (a rate, a weight, a time in ms).
    Float(f64),
    /// A name (a policy, a preset).
    Text(&'static str),
    /// No value: the setting off or unbounded (`null` in JSON).
    Null,
}

impl Set {
    /// The value as JSON: an integer stays an integer, a float a float (the report echoes
    /// it, `2000` against `2000.0`).
    fn value(self) -> Value {
        match self {
            Set::Int(n) => Value::from(n),
            Set::Float(x) => Value::from(x),
            Set::Text(t) => Value::from(t),
            Set::Null => Value::Null,
        }
    }
}

impl Changes {
    /// The config keys as a JSON object.
    pub fn value(&self) -> Value {
        let keys = self.0.iter().map(|&(k, v)| (k.to_string(), v.value()));
        Value::Object(keys.collect())
    }
}

impl Serialize for Changes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

/// A lesson's config keys and values (see `Changes`).
const fn config(keys: &'static [(&'static str, Set)]) -> Changes {
    Changes(keys)
}

/// Every lesson, in course order.
pub fn lessons() -> Vec<Lesson> {
    vec![
        reuse::LESSON,
        cache_small::LESSON,
        more_replicas_slower::LESSON,
        hot_prefix::LESSON,
        timeout::LESSON,
        weight::LESSON,
        infinite::LESSON,
        herd::LESSON,
        router_cpu::LESSON,
        pileup::LESSON,
        disagg::LESSON,
        spike::LESSON,
    ]
}

/// The lesson with this id (also the CLI preset name).
pub fn lesson(id: &str) -> Option<Lesson> {
    lessons().into_iter().find(|l| l.id == id)
}

/// Every lesson as the page reads it: its fields, and `workload`, the settings of the
/// workload it pins with the values its runs use (`pinned::workload`), and `hardware`, the
/// GPU it pins (`pinned::hardware`).
pub fn lessons_value() -> Value {
    lessons()
        .iter()
        .map(|l| {
            let mut v = crate::json::value_of(l);
            v["workload"] = Value::Object(workload(l));
            v["hardware"] = Value::Object(hardware(l));
            v
        })
        .collect()
}

/// A lesson's broken config as a full `Config` (defaults for the keys it leaves out).
pub fn broken_config(lesson: &Lesson) -> Config {
    crate::json::from_value(&lesson.broken.value()).expect("lesson configs are valid")
}

/// `base` with `changes` (a JSON object of config keys) applied.
pub fn apply(base: &Config, changes: &Value) -> Result<Config, String> {
    let mut v = crate::json::value_of(base);
    if let (Some(target), Some(changes)) = (v.as_object_mut(), changes.as_object()) {
        for (k, x) in changes {
            target.insert(k.clone(), x.clone());
        }
    }
    crate::json::from_value(&v).map_err(|e| format!("invalid config: {e}"))
}

/// One check's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// The check's label.
    pub label: &'static str,
    /// The measured value.
    pub value: f64,
    /// Whether it holds.
    pub met: bool,
}

/// A check's metric for the most replicas a run can have: the autoscaler's ceiling when
/// one runs, else the fixed fleet's size (a bound on it refuses buying the goal with GPUs,
/// autoscaled or not).
pub const FLEET_CEILING: &str = "autoscale.max_instances|config.instances";

/// The number at `path` (`summary.ttft_ms_p99`, `per_instance.3.requests`) in a report's
/// JSON (NaN if absent). Paths joined by `|` are alternatives: the first one present.
pub fn metric_of(v: &Value, path: &str) -> f64 {
    path.split('|')
        .find_map(|p| number_at(v, p))
        .unwrap_or(f64::NAN)
}

/// The number at one dotted path, if present.
fn number_at(v: &Value, path: &str) -> Option<f64> {
    // A number in the path indexes an array: `per_instance.3.requests`.
    path.split('.')
        .try_fold(v, |node, key| match key.parse::<usize>() {
            Ok(i) if node.is_array() => node.get(i),
            _ => node.get(key),
        })
        .and_then(Value::as_f64)
}

/// Evaluates a lesson's goal on a report.
pub fn evaluate(lesson: &Lesson, report: &Report) -> Vec<CheckResult> {
    let v = crate::json::value_of(report);
    evaluate_json(lesson, &v)
}

/// Evaluates a lesson's goal on a report's JSON.
pub fn evaluate_json(lesson: &Lesson, v: &Value) -> Vec<CheckResult> {
    lesson
        .checks
        .iter()
        .map(|c| {
            let value = metric_of(v, c.metric);
            let met = match c.op {
                "<=" => value <= c.value,
                _ => value >= c.value,
            };
            CheckResult {
                label: c.label,
                value,
                met,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::material::Verify;
    use super::{config, hardware, lessons, lessons_value, workload, Changes};
    use serde_json::{json, Value};

    /// The course's JSON (read through text) is what serde_json's own value serializer
    /// builds, numbers, nulls and nesting alike, with each lesson's workload added.
    #[test]
    fn the_courses_value_is_serde_jsons_own() {
        let direct: Vec<Value> = lessons()
            .iter()
            .map(|l| {
                let mut v = serde_json::to_value(l).unwrap();
                v["workload"] = Value::Object(workload(l));
                v["hardware"] = Value::Object(hardware(l));
                v
            })
            .collect();
        assert_eq!(lessons_value(), Value::Array(direct));
    }

    /// Every config text a lesson holds: broken, fixes, series, figures and checks.
    fn every_changes() -> Vec<(&'static str, Changes)> {
        let mut all = Vec::new();
        for l in lessons() {
            all.push((l.id, l.broken));
            all.extend(l.fixes.iter().map(|f| (l.id, f.config)));
            all.extend(l.diagram.series.iter().map(|s| (l.id, s.1)));
            for q in l.interview {
                all.extend(q.figures.iter().map(|f| (l.id, f.changes)));
            }
            for q in l.quiz {
                match q.verify {
                    Verify::Concept => {}
                    Verify::Goal { runs } => all.extend(runs.iter().map(|c| (l.id, *c))),
                    Verify::Compare { a, b, .. } => all.extend([(l.id, a), (l.id, b)]),
                    Verify::Range { changes, .. } => all.push((l.id, changes)),
                }
            }
        }
        all
    }

    /// Each lesson's changes (some built by a macro) are an object of config keys whose numbers have the default's kind: an integer where the default
    /// config has an integer, a float where it has a float (the report echoes the value,
    /// so `4` for `4.0` would change the page's output though the run is the same).
    #[test]
    fn every_lesson_config_text_is_config_keys_of_the_right_kind() {
        let defaults = crate::json::value_of(&crate::Config::default());
        let all = every_changes();
        assert!(all.len() > 150, "{} config texts", all.len());
        for (id, c) in all {
            let v = c.value();
            let keys = v.as_object().unwrap_or_else(|| panic!("{id}: {:?}", c.0));
            for (k, x) in keys {
                // (The disaggregated keys are absent from the default's JSON.)
                let d = &defaults[k.as_str()];
                if x.is_number() && d.is_number() {
                    assert_eq!(x.is_f64(), d.is_f64(), "{id}: {k} = {x} in {:?}", c.0);
                }
            }
            // A split fleet's size is the sum of its pools.
            if let (Some(p), Some(d)) = (
                v["prefill_instances"].as_u64(),
                v["decode_instances"].as_u64(),
            ) {
                assert_eq!(v["instances"].as_u64(), Some(p + d), "{id}: {:?}", c.0);
            }
        }
    }

    /// Changes are the object the `json!` macro builds: integers stay integers and floats
    /// floats (the report echoes them, `2000` against `2000.0`).
    #[test]
    fn changes_equal_their_json_macro() {
        use super::Set::{Float, Int, Null, Text};
        let c = config(&[
            ("num_requests", Int(2000)),
            ("request_rate", Float(30.0)),
            ("kv_blocks", Null),
            ("routing", Text("kv")),
            ("w", Int(-1)),
        ]);
        let built = json!({"num_requests": 2000, "request_rate": 30.0, "kv_blocks": null, "routing": "kv", "w": -1});
        assert_eq!(c.value(), built);
        assert_eq!(c.value().to_string(), built.to_string());
        assert_eq!(serde_json::to_value(c).unwrap(), built);
        assert!(c.value()["num_requests"].is_u64() && c.value()["request_rate"].is_f64());
    }
}
