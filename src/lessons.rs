//! The two classic lessons of the KV-aware router card as break-and-fix exercises: a
//! story, the broken configuration, a measurable goal the report is checked against,
//! hints, fixes and the explanation. Shared by the CLI (`--preset`) and the page.

use serde::Serialize;
use serde_json::{json, Value};

use crate::config::Config;
use crate::report::Report;

/// One measurable check of a lesson's goal: `metric op value` on the report JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Path into the report JSON, e.g. `summary.ttft_ms_p99`.
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
    pub config: Value,
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
    pub broken: Value,
    /// The goal in words.
    pub goal: &'static str,
    /// The goal's checks; all must hold.
    pub checks: Vec<Check>,
    /// Hints, revealed one at a time.
    pub hints: Vec<&'static str>,
    /// Fixes that meet the goal (tested).
    pub fixes: Vec<Fix>,
    /// Why the fix works, shown once the goal is met.
    pub explanation: &'static str,
    /// The rule of thumb from the card that this lesson checks.
    pub rule_of_thumb: &'static str,
    /// How hard it is: `beginner`, `intermediate` or `advanced`.
    pub difficulty: &'static str,
    /// About how long it takes, minutes.
    pub minutes: u32,
}

/// Both lessons.
pub fn lessons() -> Vec<Lesson> {
    vec![more_replicas_slower(), hot_prefix()]
}

/// The lesson with this id (also the CLI preset name).
pub fn lesson(id: &str) -> Option<Lesson> {
    lessons().into_iter().find(|l| l.id == id)
}

fn more_replicas_slower() -> Lesson {
    Lesson {
        id: "more-replicas-slower",
        title: "More replicas, slower answers",
        story: "Coding agents run 20-step tasks; a new task starts about every 3 seconds (0.3 a second). Each step's prompt is the whole conversation so far: a 4,096-token system prompt with tool schemas, every earlier step's tool output (1,000 tokens) and answer (100 tokens). Eight self-hosted replicas have prefix caching, but the inference router spreads calls round robin, so each step of a task lands on a different replica from the last and must recompute the history that another replica already holds. The fleet is lightly loaded: replicas are not the bottleneck, the cache is.",
        symptom: "Only about 62% of prompt tokens come from cache although every step repeats the previous one. Sweep the replicas: going from 4 to 8 to 16 under round robin lowers the token hit rate and raises the first-token latency at the median and at p99, and tasks finish no sooner: four times the replicas buy nothing.",
        broken: json!({
            "workload": "sessions", "session_rate": 0.3, "num_sessions": 120, "turns": 20,
            "system_prompt_len": 4096, "turn_input_len": 1000, "turn_output_len": 100,
            "think_time_ms": 500.0, "instances": 8, "routing": "round_robin"
        }),
        goal: "Token hit rate of at least 85% with p99 time to first token under 300 ms.",
        checks: vec![
            Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.85, label: "token hit rate at least 85%" },
            Check { metric: "summary.ttft_ms_p99", op: "<=", value: 300.0, label: "p99 TTFT under 300 ms" },
        ],
        hints: vec![
            "Look at the token hit rate, not the share of requests with any cached block: every request hits the shared system prompt, but the history after it is what costs.",
            "Each step extends the previous step's prompt. Which replica already holds that prefix?",
            "Try the sticky policy (session affinity 100%), or give kv a session affinity.",
        ],
        fixes: vec![
            Fix { name: "sticky routing", config: json!({ "routing": "sticky" }) },
            Fix { name: "kv with session affinity", config: json!({ "routing": "kv", "session_affinity": 100.0 }) },
        ],
        explanation: "A step's prompt is the previous step's prompt plus a little more, so only the replica that served the previous step holds almost all of it. Round robin sends the step elsewhere; that replica holds at best an older step of the task and recomputes everything since. With more replicas the chance of landing on the right one falls, so adding replicas lowers the hit rate and lengthens every prefill, while the extra capacity goes unused at this load. Sticky routing sends every step back to its task's replica: only the new tool output is computed, the token hit rate rises to about 92% and p99 TTFT falls from about 650 ms to under 100 ms. kv alone reaches about 86%, but its load term still pulls some steps away and p99 stays above 500 ms.",
        rule_of_thumb: "Round robin scatters agent steps, so more replicas can mean fewer cache hits.",
        difficulty: "beginner",
        minutes: 10,
    }
}

fn hot_prefix() -> Lesson {
    Lesson {
        id: "hot-prefix",
        title: "One replica owns the hot prefix",
        story: "A support-agent fleet sends 30 requests a second through a prefix-aware router to 6 model replicas. 85% of requests start with the same 12,000-token system prompt and tool schemas, and the router always sends a prefix to the replica that holds it. Each replica queues at most 32 requests waiting for a slot; beyond that, calls are rejected.",
        symptom: "One replica is saturated most of the run while the others idle; its queue fills, p99 TTFT reaches tens of seconds, and most requests are rejected, although the hit rate looks excellent.",
        broken: json!({
            "request_rate": 30.0, "num_requests": 3000, "instances": 6, "routing": "prefix_aware",
            "num_prefixes": 16, "prefix_len": 12000, "input_len": 13000, "output_len": 200,
            "prefix_popularity": "hot:0.85", "queue_capacity": 32
        }),
        goal: "p99 TTFT under 1 s with a token hit rate of at least 85% and no rejections.",
        checks: vec![
            Check { metric: "summary.ttft_ms_p99", op: "<=", value: 1000.0, label: "p99 TTFT under 1 s" },
            Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.85, label: "token hit rate at least 85%" },
            Check { metric: "summary.rejected", op: "<=", value: 0.0, label: "no rejected requests" },
        ],
        hints: vec![
            "Compare the replicas' saturated shares and peak queues: is the load spread?",
            "A hot prefix is cheap to copy: warming it on another replica costs one prefill.",
            "Stay sticky until a replica is saturated, then spill: set 'spill at queue' to a small number, or try kv, whose load term pushes back.",
        ],
        fixes: vec![
            Fix { name: "spill at queue 2", config: json!({ "spill_queue": 2 }) },
            Fix { name: "kv routing", config: json!({ "routing": "kv" }) },
        ],
        explanation: "Prefix-aware routing hashes the first block, so the one prefix that 85% of traffic shares has one home replica. Locality is perfect and that replica saturates: its queue fills and callers are rejected while five replicas idle. Spilling to the least busy replica once the home queue reaches 2 costs one cold prefill per replica that joins, after which each of them holds the hot prefix too: the hit rate stays near 90% and p99 TTFT drops from about 36 s to about 0.6 s. kv does the same through its load term. A high spill threshold (16) is too late: p99 stays above 28 s.",
        rule_of_thumb: "Stay sticky until a replica is saturated, then spill to the least busy one.",
        difficulty: "intermediate",
        minutes: 15,
    }
}

/// A lesson's broken config as a full `Config` (defaults for the keys it leaves out).
pub fn broken_config(lesson: &Lesson) -> Config {
    serde_json::from_value(lesson.broken.clone()).expect("lesson configs are valid")
}

/// `base` with `changes` (a JSON object of config keys) applied.
pub fn apply(base: &Config, changes: &Value) -> Result<Config, String> {
    let mut v = serde_json::to_value(base).expect("config serialises");
    if let (Some(target), Some(changes)) = (v.as_object_mut(), changes.as_object()) {
        for (k, x) in changes {
            target.insert(k.clone(), x.clone());
        }
    }
    serde_json::from_value(v).map_err(|e| format!("invalid config: {e}"))
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

/// Evaluates a lesson's goal on a report.
pub fn evaluate(lesson: &Lesson, report: &Report) -> Vec<CheckResult> {
    let v = serde_json::to_value(report).expect("report serialises");
    lesson
        .checks
        .iter()
        .map(|c| {
            let value = c
                .metric
                .split('.')
                .try_fold(&v, |node, key| node.get(key))
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN);
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
