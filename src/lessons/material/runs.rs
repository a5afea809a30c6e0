//! A lesson's runs for its material: each distinct config run once, whatever change set
//! names it, on the trace the lesson replays.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::{apply, broken_config, evaluate_json, metric_of, Lesson};
use crate::run::ParsedTrace;

/// Runs of a lesson's configs, each distinct config once (two change sets that give the
/// same config, `{}` and the broken setup's own replica count, share a run).
pub(super) struct Runs<'a> {
    lesson: &'a Lesson,
    trace: Option<&'a ParsedTrace>,
    pub(super) done: BTreeMap<String, Value>,
}

impl Runs<'_> {
    pub(super) fn report(&mut self, changes: &Value) -> Result<&Value, String> {
        let cfg = apply(&broken_config(self.lesson), changes)?;
        let key = crate::json::text(&crate::json::value_of(&cfg));
        if !self.done.contains_key(&key) {
            let report = crate::run::report_of(&cfg, self.trace)?;
            let v = crate::json::value_of(&report);
            self.done.insert(key.clone(), v);
        }
        Ok(&self.done[&key])
    }

    pub(super) fn metric(&mut self, changes: &Value, path: &str) -> Result<f64, String> {
        Ok(metric_of(self.report(changes)?, path))
    }

    pub(super) fn meets(&mut self, changes: &Value) -> Result<bool, String> {
        let lesson = self.lesson;
        Ok(evaluate_json(lesson, self.report(changes)?)
            .iter()
            .all(|c| c.met))
    }
}

/// The runs of a lesson's configs, once its trace is the one it replays.
pub(super) fn runs_of<'a>(
    lesson: &'a Lesson,
    trace: Option<&'a ParsedTrace>,
) -> Result<Runs<'a>, String> {
    match (lesson.trace, trace) {
        ("", Some(_)) => {
            return Err(format!(
                "lesson {} runs the synthetic workload, not a trace",
                lesson.id
            ))
        }
        ("", None) => {}
        (name, None) => {
            return Err(format!(
                "lesson {} replays the trace {name}: parse it and pass it",
                lesson.id
            ))
        }
        (name, Some(t)) if t.name() != name => {
            return Err(format!(
                "lesson {} replays the trace {name}, not {}",
                lesson.id,
                t.name()
            ))
        }
        _ => {}
    }
    Ok(Runs {
        lesson,
        trace,
        done: BTreeMap::new(),
    })
}
