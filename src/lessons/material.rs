//! A lesson's teaching material beyond the exercise: interview questions whose model
//! answers quote numbers measured by runs (never typed in), and a short check whose
//! answers about behaviour are verified by runs. `material` runs what they need (each
//! distinct config once) and renders them; the tests and the page use the same result.

use serde::Serialize;
use serde_json::Value;

use super::{Changes, Lesson};
use crate::run::ParsedTrace;

/// How a measured number is written into an answer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A share 0..=1 as a percentage with one decimal ("61.8%").
    Percent,
    /// Milliseconds as a duration ("177 ms", "1.20 s").
    Ms,
    /// A whole number with thousands separators ("1,879").
    Count,
    /// A plain number with two decimals ("0.04").
    Fixed2,
    /// Bytes as terabytes (10^12 B) with two decimals ("1.96 TB").
    Terabytes,
    /// Seconds as a duration ("66.24 s", "850 ms").
    Seconds,
}

/// A number an answer quotes: `{name}` in the text is replaced by `metric` of the run of
/// the lesson's broken setup with `changes` applied (`{}` is the broken setup itself).
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// The placeholder's name.
    pub name: &'static str,
    /// Config changes on top of the broken setup.
    pub changes: Changes,
    /// Path into the report JSON.
    pub metric: &'static str,
    /// How it is written.
    pub format: Format,
}

/// An interview question with a model answer.
#[derive(Clone, Debug, Serialize)]
pub struct Interview {
    /// The question.
    pub question: &'static str,
    /// The model answer, with `{name}` placeholders for its figures.
    pub answer: &'static str,
    /// The numbers the answer quotes.
    pub figures: &'static [Figure],
}

/// How a short-check answer about behaviour is verified by runs.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verify {
    /// A statement of fact or judgement, not about the model's numbers.
    Concept,
    /// Choice i is the run of `runs[i]` (changes on the broken setup); the correct
    /// choice's run meets the lesson's goal and every other choice's run does not.
    Goal {
        /// One config change per choice.
        runs: &'static [Changes],
    },
    /// `metric` of the run `a` compared with the run `b` picks a choice: `if_less` when
    /// a < b, `if_greater` when a > b (equal picks none); the pick must be the correct one.
    Compare {
        /// Path into the report JSON.
        metric: &'static str,
        /// Changes of the first run.
        a: Changes,
        /// Changes of the second run.
        b: Changes,
        /// The choice that a < b makes true.
        if_less: usize,
        /// The choice that a > b makes true.
        if_greater: usize,
    },
    /// Choice i is the interval `bounds[i]` (low, high); the correct one holds `metric` of
    /// the run `changes`, and no other does.
    Range {
        /// Path into the report JSON.
        metric: &'static str,
        /// Changes of the run.
        changes: Changes,
        /// One (low, high) interval per choice, low inclusive, high exclusive.
        bounds: &'static [(f64, f64)],
    },
}

/// A multiple-choice question of the short check.
#[derive(Clone, Debug, Serialize)]
pub struct Quiz {
    /// The question.
    pub question: &'static str,
    /// The choices.
    pub choices: &'static [&'static str],
    /// The index of the correct choice.
    pub correct: usize,
    /// Why, shown after an answer.
    pub why: &'static str,
    /// How the correct answer is verified.
    pub verify: Verify,
}

/// The figure of a lesson's "how it works": `metric` against the setting `x_key` over
/// `values`, one line per series (changes on the broken setup), every point a run.
#[derive(Clone, Debug, Serialize)]
pub struct Diagram {
    /// What the figure shows and what to notice (checked by the lesson's tests).
    pub caption: &'static str,
    /// The config key on the x axis.
    pub x_key: &'static str,
    /// Its label.
    pub x_label: &'static str,
    /// The values of `x_key`.
    pub values: &'static [f64],
    /// Path into the report JSON.
    pub metric: &'static str,
    /// The y axis label.
    pub y_label: &'static str,
    /// How the metric is written.
    pub format: Format,
    /// Draw the y axis on a log scale.
    pub log_y: bool,
    /// One line per (label, changes on the broken setup).
    pub series: &'static [(&'static str, Changes)],
    /// A second panel under the first, over the same x values and series: what a lesson's
    /// title claims when the first panel shows its cause ("More replicas, slower answers":
    /// the hit rate above, the p99 first-token time below).
    pub second: Option<Panel>,
}

/// A diagram's second panel: another metric of the same runs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Panel {
    /// Path into the report JSON.
    pub metric: &'static str,
    /// The y axis label.
    pub y_label: &'static str,
    /// How the metric is written.
    pub format: Format,
    /// Draw the y axis on a log scale.
    pub log_y: bool,
}

/// A diagram with its points measured.
#[derive(Clone, Debug, Serialize)]
pub struct RenderedDiagram {
    /// The figure's definition.
    #[serde(flatten)]
    pub diagram: Diagram,
    /// One y per value, per series.
    pub points: Vec<Vec<f64>>,
    /// The second panel's, likewise (empty without one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub second_points: Vec<Vec<f64>>,
}

/// An interview question with its answer rendered.
#[derive(Clone, Debug, Serialize)]
pub struct RenderedInterview {
    /// The question.
    pub question: &'static str,
    /// The answer with every figure written in.
    pub answer: String,
}

/// A short-check question with its verification's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct CheckedQuiz {
    /// The question, its choices, correct index, why and verification.
    #[serde(flatten)]
    pub quiz: Quiz,
    /// `Some(true)` when the runs confirm the correct answer, `None` for a concept.
    pub verified: Option<bool>,
    /// What the runs measured, in words.
    pub evidence: String,
}

/// A lesson's material, rendered from runs.
#[derive(Clone, Debug, Serialize)]
pub struct Material {
    /// The lesson's id.
    pub id: &'static str,
    /// The figure of "how it works", measured.
    pub diagram: RenderedDiagram,
    /// The interview questions, answered.
    pub interview: Vec<RenderedInterview>,
    /// The short check, verified.
    pub quiz: Vec<CheckedQuiz>,
}

/// `x` written as `format` says.
pub fn write(x: f64, format: Format) -> String {
    match format {
        Format::Percent => format!("{:.1}%", 100.0 * x),
        Format::Ms => crate::numbers::duration(x),
        Format::Count => crate::numbers::thousands(libm::round(x) as i64),
        Format::Fixed2 => format!("{x:.2}"),
        Format::Terabytes => format!("{:.2} TB", x / 1e12),
        Format::Seconds => crate::numbers::duration(1000.0 * x),
    }
}

/// How a report metric reads in words: "p99 TTFT", and its format.
fn words_of(metric: &str) -> (&str, Format) {
    // The last part that is not an array index: `router_cpu.busy_share.0` is `busy_share`.
    let name = metric
        .rsplit('.')
        .find(|part| part.parse::<usize>().is_err())
        .unwrap_or(metric);
    let words = match name {
        "ttft_ms_p99" => "p99 TTFT",
        "ttft_ms_p50" => "median TTFT",
        "hit_rate_tokens" => "token hit rate",
        "hit_rate_requests" => "request hit rate",
        "timed_out" => "timed-out calls",
        "rejected" => "rejected calls",
        "load_spread" => "load spread",
        "loaded_bytes" => "KV bytes loaded",
        "routing_delay_ms_mean" => "mean routing delay",
        "routing_delay_ms_p99" => "p99 routing delay",
        other => other,
    };
    let format = if name.contains("_ms") {
        Format::Ms
    } else if name.starts_with("hit_rate") {
        Format::Percent
    } else if name == "load_spread" {
        Format::Fixed2
    } else if name.ends_with("_bytes") {
        Format::Terabytes
    } else {
        Format::Count
    };
    (words, format)
}

/// Which run a number is of, in words: "the lesson's setup" (no changes), else its changes
/// ("instances=12", "kv_blocks=unbounded, routing=kv"; "timeout_ms=none"), so a comparison
/// says what each number is.
pub fn run_words(changes: &Changes) -> String {
    let value = changes.value();
    let Some(keys) = value.as_object().filter(|m| !m.is_empty()) else {
        return "the lesson's setup".to_string();
    };
    let mut out: Vec<String> = keys
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::Null if k.starts_with("timeout") => "none".to_string(),
                Value::Null => "unbounded".to_string(),
                Value::String(s) => s.clone(),
                other => crate::json::text(other),
            };
            format!("{k}={v}")
        })
        .collect();
    out.sort();
    out.join(", ")
}

fn render(q: &Interview, runs: &mut Runs) -> Result<RenderedInterview, String> {
    let mut answer = q.answer.to_string();
    for f in q.figures {
        let x = runs.metric(&f.changes.value(), f.metric)?;
        let placeholder = format!("{{{}}}", f.name);
        if !answer.contains(&placeholder) {
            return Err(format!("figure {} is not in its answer", f.name));
        }
        answer = answer.replace(&placeholder, &write(x, f.format));
    }
    if answer.contains('{') {
        return Err(format!(
            "an answer has a placeholder without a figure: {answer}"
        ));
    }
    Ok(RenderedInterview {
        question: q.question,
        answer,
    })
}

fn check(q: &Quiz, runs: &mut Runs) -> Result<CheckedQuiz, String> {
    let (verified, evidence) = match &q.verify {
        Verify::Concept => (None, String::new()),
        Verify::Goal { runs: changes } => {
            let mut met = Vec::new();
            for c in *changes {
                met.push(runs.meets(&c.value())?);
            }
            let ok = met.iter().enumerate().all(|(i, &m)| m == (i == q.correct));
            let words: Vec<String> = q
                .choices
                .iter()
                .zip(&met)
                .map(|(c, m)| format!("{c}: goal {}", if *m { "met" } else { "not met" }))
                .collect();
            (Some(ok), words.join("; "))
        }
        Verify::Compare {
            metric,
            a,
            b,
            if_less,
            if_greater,
        } => {
            let (x, y) = (
                runs.metric(&a.value(), metric)?,
                runs.metric(&b.value(), metric)?,
            );
            let pick = if x < y {
                Some(*if_less)
            } else if x > y {
                Some(*if_greater)
            } else {
                None
            };
            let (words, f) = words_of(metric);
            (
                Some(pick == Some(q.correct)),
                format!(
                    "{words} {} with {} against {} with {}",
                    write(x, f),
                    run_words(a),
                    write(y, f),
                    run_words(b)
                ),
            )
        }
        Verify::Range {
            metric,
            changes,
            bounds,
        } => {
            let x = runs.metric(&changes.value(), metric)?;
            let inside: Vec<bool> = bounds.iter().map(|&(lo, hi)| lo <= x && x < hi).collect();
            let ok = inside
                .iter()
                .enumerate()
                .all(|(i, &m)| m == (i == q.correct));
            let (words, f) = words_of(metric);
            (Some(ok), format!("{words} measured at {}", write(x, f)))
        }
    };
    Ok(CheckedQuiz {
        quiz: q.clone(),
        verified,
        evidence,
    })
}

fn measure(d: &Diagram, runs: &mut Runs) -> Result<RenderedDiagram, String> {
    let points = measure_metric(d, d.metric, runs)?;
    let second_points = match d.second {
        Some(panel) => measure_metric(d, panel.metric, runs)?,
        None => Vec::new(),
    };
    Ok(RenderedDiagram {
        diagram: d.clone(),
        points,
        second_points,
    })
}

/// `metric` at each of the diagram's x values, one line per series (each run once: `runs`
/// keeps them).
fn measure_metric(d: &Diagram, metric: &str, runs: &mut Runs) -> Result<Vec<Vec<f64>>, String> {
    let mut points = Vec::new();
    for (_, changes) in d.series {
        let mut line = Vec::new();
        for &x in d.values {
            let mut c = changes.value();
            // A whole value as an integer, so integer settings (replicas) accept it.
            c[d.x_key] = if x.fract() == 0.0 && x.abs() < 1e15 {
                serde_json::json!(x as i64)
            } else {
                serde_json::json!(x)
            };
            line.push(runs.metric(&c, metric)?);
        }
        points.push(line);
    }
    Ok(points)
}

/// Runs everything a lesson's material needs and renders it. A lesson that replays a
/// built-in trace (`Lesson::trace`) needs that trace, parsed: `trace`.
pub fn material(lesson: &Lesson, trace: Option<&ParsedTrace>) -> Result<Material, String> {
    material_with(lesson, trace, &mut |_| {})
}

/// `material`, handing the figure to `on_diagram` as soon as it is measured (its runs come
/// first), before the interview's and the check's runs.
pub fn material_with(
    lesson: &Lesson,
    trace: Option<&ParsedTrace>,
    on_diagram: &mut dyn FnMut(&RenderedDiagram),
) -> Result<Material, String> {
    let mut runs = runs_of(lesson, trace)?;
    let diagram = measure(&lesson.diagram, &mut runs)?;
    on_diagram(&diagram);
    let interview = lesson
        .interview
        .iter()
        .map(|q| render(q, &mut runs))
        .collect::<Result<_, _>>()?;
    let quiz = check_all(lesson, &mut runs)?;
    Ok(Material {
        id: lesson.id,
        diagram,
        interview,
        quiz,
    })
}

/// The short check alone, verified by its runs: `material`'s `quiz`, without the figure's
/// and the interview's runs.
pub fn checked_quiz(
    lesson: &Lesson,
    trace: Option<&ParsedTrace>,
) -> Result<Vec<CheckedQuiz>, String> {
    check_all(lesson, &mut runs_of(lesson, trace)?)
}

fn check_all(lesson: &Lesson, runs: &mut Runs) -> Result<Vec<CheckedQuiz>, String> {
    lesson.quiz.iter().map(|q| check(q, runs)).collect()
}

mod runs;
#[cfg(test)]
mod tests;

use runs::{runs_of, Runs};
