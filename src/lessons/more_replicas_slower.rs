//! Lesson 1, "More replicas, slower answers": round robin scatters an agent's steps.

use super::material::{Diagram, Figure, Format, Interview, Panel, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

pub(super) const LESSON: Lesson = Lesson {
    id: "more-replicas-slower",
    title: "More replicas, slower answers",
    story: "Coding agents run 20-step tasks; a new task starts about every 3 seconds (0.3 a second). Each step's prompt is the whole conversation so far: a 4,096-token system prompt with tool schemas, every earlier step's tool output (1,000 tokens) and answer (100 tokens). Eight self-hosted replicas have prefix caching, but the inference router spreads calls round robin, so each step of a task lands on a different replica from the last and must recompute the history that another replica already holds. The fleet is lightly loaded: replicas are not the bottleneck, the cache is.",
    symptom: "Only about 62% of prompt tokens come from cache although every step repeats the previous one. Sweep the replicas: going from 4 to 8 to 16 under round robin lowers the token hit rate and raises the first-token latency at the median and at p99, and tasks finish no sooner: four times the replicas buy nothing.",
    broken: config(&[("workload", Text("sessions")), ("session_rate", Float(0.3)), ("num_sessions", Int(120)), ("turns", Int(20)), ("system_prompt_len", Int(4096)), ("turn_input_len", Int(1000)), ("turn_output_len", Int(100)), ("think_time_ms", Float(500.0)), ("instances", Int(8)), ("routing", Text("round_robin"))]),
    goal: "Token hit rate of at least 85% with p99 time to first token under 300 ms, every call served.",
    checks: &[
        Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.85, label: "token hit rate at least 85%" },
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 300.0, label: "p99 TTFT under 300 ms" },
        Check { metric: "summary.completed", op: ">=", value: 2400.0, label: "all 2,400 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Look at the token hit rate, not the share of requests with any cached block: every request hits the shared system prompt, but the history after it is what costs.",
        "Each step extends the previous step's prompt. Which replica already holds that prefix?",
        "Try the sticky policy (session affinity 100%), or give kv a session affinity.",
    ],
    fixes: &[
        Fix { name: "sticky routing", config: config(&[("routing", Text("sticky"))]) },
        Fix { name: "kv with session affinity", config: config(&[("routing", Text("kv")), ("session_affinity", Float(100.0))]) },
    ],
    explanation: "A step's prompt is the previous step's prompt plus a little more, so only the replica that served the previous step holds almost all of it. Round robin sends the step elsewhere; that replica holds at best an older step of the task and recomputes everything since. With more replicas the chance of landing on the right one falls, so adding replicas lowers the hit rate and lengthens every prefill, while the extra capacity goes unused at this load. Sticky routing sends every step back to its task's replica: only the new tool output is computed, the token hit rate rises to about 92% and p99 TTFT falls from about 650 ms to under 100 ms. kv alone reaches about 86%, but its load term still pulls some steps away and p99 stays above 500 ms.",
    rule_of_thumb: "Round robin scatters agent steps, so more replicas can mean fewer cache hits.",
    difficulty: "beginner",
    minutes: 10,
    trace: "",
    how: "Each replica caches the KV blocks of the prompts it computed, and a request reuses them only on that replica. An agent's next step repeats its whole conversation so far, so only the replica that served the previous step holds nearly all of it. Where the router sends the step decides how much is recomputed.",
    diagram: Diagram {
        caption: "Token hit rate (above) and p99 time to first token (below) as the fleet grows: under round robin the hit rate falls with every doubling, and from 4 replicas on the p99 rises with it (547 ms at 4, 719 ms at 16) although the fleet has four times the replicas; under sticky routing the hit rate stays where it is and the p99 falls with every doubling.",
        x_key: "instances",
        x_label: "Replicas",
        values: &[1.0, 2.0, 4.0, 8.0, 16.0],
        metric: "summary.hit_rate_tokens",
        y_label: "Token hit rate",
        format: Format::Percent,
        log_y: false,
        series: &[("round_robin", config(&[("routing", Text("round_robin"))])), ("sticky", config(&[("routing", Text("sticky"))]))],
        second: Some(Panel {
            metric: "summary.ttft_ms_p99",
            y_label: "p99 TTFT",
            format: Format::Ms,
            log_y: false,
        }),
    },
    settings: &[
        Setting { key: "routing", rule: "Round robin scatters agent steps, so more replicas can mean fewer cache hits.", live: "" },
        Setting { key: "instances", rule: "Add replicas for load, not for latency, when the cache is the bottleneck.", live: "" },
        Setting { key: "session_affinity", rule: "Send a session back to the replica that served it.", live: "" },
    ],
    interview: INTERVIEW,
    quiz: QUIZ,
};

const fn fig(name: &'static str, changes: Changes, metric: &'static str, format: Format) -> Figure {
    Figure {
        name,
        changes,
        metric,
        format,
    }
}

const INTERVIEW: &[Interview] = {
    let tok = "summary.hit_rate_tokens";
    let p50 = "summary.ttft_ms_p50";
    let p99 = "summary.ttft_ms_p99";
    &[
        Interview {
            question: "Why can adding replicas make a prefix-cached fleet slower?",
            answer: "The cache is per replica, and round robin sends each step of a task to a different replica from the last one. That replica holds at best an older step of the task, so it recomputes the history since. The more replicas, the rarer it is to land on the right one: in this lesson's fleet, 4, 8 and 16 round-robin replicas serve {hit4}, {hit8} and {hit16} of prompt tokens from cache, and the median time to first token goes from {p50_4} to {p50_8} to {p50_16}. At this light load the extra replicas add no capacity that is needed.",
            figures: &[
                fig("hit4", config(&[("instances", Int(4))]), tok, Format::Percent),
                fig("hit8", config(&[]), tok, Format::Percent),
                fig("hit16", config(&[("instances", Int(16))]), tok, Format::Percent),
                fig("p50_4", config(&[("instances", Int(4))]), p50, Format::Ms),
                fig("p50_8", config(&[]), p50, Format::Ms),
                fig("p50_16", config(&[("instances", Int(16))]), p50, Format::Ms),
            ],
        },
        Interview {
            question: "A dashboard says nearly every request hits the prefix cache, yet prefill dominates latency. How can both be true?",
            answer: "The request hit rate counts a request with any cached block, and every step starts with the same 4,096-token system prompt, so {req} of requests hit. What costs is the history after it: only {tok} of prompt tokens come from cache under round robin. The number to watch is the token hit rate, the share of prompt tokens served from cache.",
            figures: &[
                fig("req", config(&[]), "summary.hit_rate_requests", Format::Percent),
                fig("tok", config(&[]), tok, Format::Percent),
            ],
        },
        Interview {
            question: "How would you route multi-step agent traffic, and what would you watch for?",
            answer: "Keep a session on the replica that served it (session affinity). Here sticky routing raises the token hit rate from {tok_rr} to {tok_sticky} and cuts p99 TTFT from {p99_rr} to {p99_sticky}. kv's cost alone reaches {tok_kv}, because its load term still moves some steps away, and its p99 stays at {p99_kv}; with 100% session affinity it matches sticky ({tok_kv_aff}). Watch for imbalance when sessions differ in weight, and spill to another replica when the sticky one queues.",
            figures: &[
                fig("tok_rr", config(&[]), tok, Format::Percent),
                fig("tok_sticky", config(&[("routing", Text("sticky"))]), tok, Format::Percent),
                fig("p99_rr", config(&[]), p99, Format::Ms),
                fig("p99_sticky", config(&[("routing", Text("sticky"))]), p99, Format::Ms),
                fig("tok_kv", config(&[("routing", Text("kv"))]), tok, Format::Percent),
                fig("p99_kv", config(&[("routing", Text("kv"))]), p99, Format::Ms),
                fig("tok_kv_aff", config(&[("routing", Text("kv")), ("session_affinity", Float(100.0))]), tok, Format::Percent),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "Under kv routing (no session affinity), what happens to the token hit rate when this fleet grows from 8 to 16 replicas?",
            choices: &[
                "It falls, as under round robin: more replicas scatter the steps",
                "It rises: kv sends a step to the replica that holds its history, and with more replicas its load term pushes fewer steps away",
            ],
            correct: 1,
            why: "The fall under round robin comes from ignoring where a task's history is, not from the number of replicas. kv follows the history; with more replicas each is less loaded, so fewer steps are moved for load.",
            verify: Verify::Compare {
                metric: "summary.hit_rate_tokens",
                a: config(&[("routing", Text("kv")), ("instances", Int(16))]),
                b: config(&[("routing", Text("kv"))]),
                if_less: 0,
                if_greater: 1,
            },
        },
        Quiz {
            question: "Which single change meets the goal (token hit rate at least 85%, p99 TTFT under 300 ms)?",
            choices: &["4 replicas, still round robin", "kv routing with session affinity 100%", "kv routing, without session affinity"],
            correct: 1,
            why: "Session affinity sends every step back to its task's replica, which already holds the history. kv alone reaches the hit rate but its load term moves some steps away, so its p99 stays too high; 4 replicas under round robin still scatter the steps.",
            verify: Verify::Goal {
                runs: &[config(&[("instances", Int(4))]), config(&[("routing", Text("kv")), ("session_affinity", Float(100.0))]), config(&[("routing", Text("kv"))])],
            },
        },
        Quiz {
            question: "In the broken setup, what share of requests have at least one cached block?",
            choices: &["Under 50%", "50% to 90%", "Over 90%"],
            correct: 2,
            why: "Every step starts with the shared 4,096-token system prompt, so almost every request hits the cache somewhere, whatever the routing.",
            verify: Verify::Range { metric: "summary.hit_rate_requests", changes: config(&[]), bounds: &[(0.0, 0.5), (0.5, 0.9), (0.9, 1.000_001)] },
        },
        Quiz {
            question: "Why is the token hit rate the number to watch here, rather than the request hit rate?",
            choices: &[
                "Every request hits the shared system prompt, while the history after it is what costs compute",
                "The request hit rate is not measured for sessions",
                "The token hit rate is always the higher of the two",
            ],
            correct: 0,
            why: "A request counts as a hit with one cached block. The prefill time depends on how many of its tokens must be computed, which is what the token hit rate measures.",
            verify: Verify::Concept,
        },
    ]
};
