//! `kvfleet lesson`: the course from the command line. With no id it lists the lessons;
//! with an id it runs the lesson's broken setup (or, with `--check FLAGS...`, the setup
//! with those flags changed) and prints the goal checks. The exit code is 0 when the goal
//! is met, 1 when it is not, and 2 when `--check` changes the lesson's workload or gives a
//! flag the check does not take (the goal is not judged) or the call is an error (an
//! unknown lesson), so a teacher can script it.

use std::io::Write;

use clap::{CommandFactory, FromArgMatches};
use kvfleet::api;
use kvfleet::lessons;

use crate::args::Cli;

/// What `main` returns when a lesson's goal is not met: exit 1, no "error:" line.
pub const GOAL_NOT_MET: &str = "the lesson's goal is not met";

/// What `main` returns when `--check` asks for a run the goal is not judged on (another
/// workload, or a flag the check does not take), its reasons already printed: exit 2.
pub const NOT_JUDGED: &str = "the lesson's goal is not judged";

fn list() -> Result<(), String> {
    let mut out = String::new();
    let all = lessons::lessons();
    // The ids in one column, as wide as the longest.
    let width = all.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for l in all {
        out.push_str(&format!(
            "{:<width$}  {} ({}, about {} min): {}\n",
            l.id,
            l.title,
            l.difficulty,
            l.minutes,
            first_sentence(l.story)
        ));
    }
    crate::output::print(&out)
}

/// One goal check as the CLI prints it, the measured value in the label's units: a share
/// as a percentage, a time as the latency table writes it, a count with its thousands
/// grouped. A setting left unset (no cache limit) reads "not set" rather than NaN.
pub fn check_line(check: &lessons::Check, r: &lessons::CheckResult) -> String {
    let verdict = if r.met { "met" } else { "NOT met" };
    if r.value.is_nan() {
        return format!(
            "    [{verdict}] {} (not set)
",
            r.label
        );
    }
    format!(
        "    [{verdict}] {} (measured {})
",
        r.label,
        measured(check, r.value)
    )
}

/// A check's measured value in its units. A share is shown to 0.1 point, or finer when
/// that would round it onto the other side of the goal ("84.96%", not "85.0%", for a
/// goal of at least 85% that is not met).
fn measured(check: &lessons::Check, value: f64) -> String {
    if check.metric.contains("hit_rate") {
        let holds = |x: f64| match check.op {
            "<=" => x <= check.value,
            _ => x >= check.value,
        };
        let digits = (1..=4)
            .find(|&d| {
                let scale = 10f64.powi(d + 2);
                holds((value * scale).round() / scale) == holds(value)
            })
            .unwrap_or(4) as usize;
        return format!("{:.digits$}%", 100.0 * value);
    }
    if check.metric.contains("_ms") {
        return kvfleet::numbers::duration(value);
    }
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return kvfleet::numbers::thousands(value as i64);
    }
    format!("{value:.4}")
}

fn first_sentence(text: &str) -> &str {
    text.split_inclusive(". ").next().unwrap_or(text).trim_end()
}

fn unknown(id: &str) -> String {
    let names: Vec<&str> = lessons::lessons().iter().map(|l| l.id).collect();
    format!(
        "kvfleet lesson: unknown lesson \"{}\"; allowed: {}",
        kvfleet::echo::shown(id),
        names.join(", ")
    )
}

/// Prints a lesson's interview questions (answers measured by runs) and short check
/// (answers verified by runs), as text or JSON.
pub fn material(id: &str, json: bool) -> Result<(), String> {
    let lesson = lessons::lesson(id).ok_or_else(|| unknown(id))?;
    let block_size = lessons::broken_config(&lesson).block_size;
    let trace = crate::builtin::lesson_trace(&lesson, block_size)?;
    let m = lessons::material::material(&lesson, trace.as_ref())?;
    if json {
        return crate::output::print(&format!(
            "{}\n",
            serde_json::to_string(&m).expect("material serialises")
        ));
    }
    let mut out = format!(
        "Lesson {}: {}\n\nInterview questions\n",
        lesson.id, lesson.title
    );
    for (i, q) in m.interview.iter().enumerate() {
        out.push_str(&format!("{}. {}\n   {}\n", i + 1, q.question, q.answer));
    }
    out.push_str("\nShort check\n");
    for (i, q) in m.quiz.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, q.quiz.question));
        for (j, c) in q.quiz.choices.iter().enumerate() {
            let mark = if j == q.quiz.correct { "*" } else { " " };
            out.push_str(&format!("   {mark} {c}\n"));
        }
        let check = match q.verified {
            Some(true) => format!(" (verified: {})", q.evidence),
            Some(false) => format!(" (NOT verified: {})", q.evidence),
            None => String::new(),
        };
        out.push_str(&format!("   {}{check}\n", q.quiz.why));
    }
    crate::output::print(&out)
}

/// Prints why the check does not judge the goal, and returns `NOT_JUDGED`.
fn refuse(id: &str, why: &str) -> String {
    eprintln!("error: kvfleet lesson {id} --check: {why}");
    NOT_JUDGED.to_string()
}

/// Runs lesson `id` with `check` (run flags) changed; prints the goal checks. Flags that
/// change the lesson's workload or that the check does not take are refused
/// (`lesson_flags`): nothing runs and `NOT_JUDGED` is returned.
pub fn run(id: Option<&str>, check: &[String]) -> Result<(), String> {
    let Some(id) = id else { return list() };
    let lesson = lessons::lesson(id).ok_or_else(|| unknown(id))?;
    if let Some(why) = crate::lesson_flags::preset_refusal(&lesson, check) {
        return Err(refuse(id, &why));
    }
    let mut argv: Vec<String> = vec!["kvfleet".into(), "--preset".into(), id.into(), "-q".into()];
    argv.extend(check.iter().cloned());
    let matches = Cli::command()
        .try_get_matches_from(&argv)
        .map_err(|e| format!("--check: {}", e.render().to_string().trim_end()))?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| format!("--check: {e}"))?;
    let (cfg, _) = crate::inputs::config(&cli.run, &matches)?;
    if let Some(why) = crate::lesson_flags::refusal(&lesson, &cfg, &matches) {
        return Err(refuse(id, &why));
    }
    let trace = crate::builtin::lesson_trace(&lesson, cfg.block_size)?;
    let report = api::report_of(&cfg, trace.as_ref())?;
    let results = lessons::evaluate(&lesson, &report);
    let met = results.iter().all(|r| r.met);
    let mut text = format!("Lesson {}: {}\n", lesson.id, lesson.title);
    if check.is_empty() {
        text.push_str(&format!("  The broken setup. {}\n", lesson.symptom));
    } else {
        text.push_str(&format!("  With {}\n", check.join(" ")));
    }
    text.push_str(&format!("  Goal: {}\n", lesson.goal));
    for (c, r) in lesson.checks.iter().zip(&results) {
        text.push_str(&check_line(c, r));
    }
    text.push_str(&format!(
        "  Goal {} (seed {})\n",
        if met { "MET" } else { "NOT MET" },
        cfg.seed
    ));
    if met && !check.is_empty() {
        text.push_str(&format!("  Why: {}\n", lesson.explanation));
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(crate::output::write_error("-"))?;
    if met {
        Ok(())
    } else {
        Err(GOAL_NOT_MET.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::measured;
    use kvfleet::lessons::Check;

    fn check(metric: &'static str, op: &'static str, value: f64) -> Check {
        Check {
            metric,
            op,
            value,
            label: "",
        }
    }

    #[test]
    fn a_measured_value_is_written_in_its_checks_units() {
        let rate = check("summary.hit_rate_tokens", ">=", 0.85);
        assert_eq!(measured(&rate, 0.3733), "37.3%");
        assert_eq!(measured(&rate, 0.8907), "89.1%");
        // Just short of the goal: never "85.0%" beside "NOT met".
        assert_eq!(measured(&rate, 0.8496), "84.96%");
        assert_eq!(measured(&rate, 0.84996), "84.996%");
        assert_eq!(measured(&rate, 0.85), "85.0%");
        let at_most = check("summary.hit_rate_requests", "<=", 0.5);
        assert_eq!(measured(&at_most, 0.5004), "50.04%");
        let p99 = check("summary.ttft_ms_p99", "<=", 1000.0);
        assert_eq!(measured(&p99, 35527.1782), "35.53 s");
        assert_eq!(measured(&p99, 651.3535), "651 ms");
        assert_eq!(measured(&p99, 89.5721), "89.6 ms");
        let count = check("summary.rejected", "<=", 0.0);
        assert_eq!(measured(&count, 1879.0), "1,879");
        assert_eq!(measured(&count, 0.0), "0");
        let blocks = check("config.kv_blocks", "<=", 32000.0);
        assert_eq!(measured(&blocks, 833.0), "833");
        assert_eq!(measured(&blocks, 2.5), "2.5000");
    }
}
