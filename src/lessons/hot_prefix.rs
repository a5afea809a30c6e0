//! Lesson 2, "One replica owns the hot prefix": perfect locality saturates one replica.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

pub(super) const LESSON: Lesson = Lesson {
    id: "hot-prefix",
    title: "One replica owns the hot prefix",
    story: "A support-agent fleet sends 30 requests a second through a prefix-aware router to 6 model replicas. 85% of requests start with the same 12,000-token system prompt and tool schemas, and the router always sends a prefix to the replica that holds it. Each replica queues at most 32 requests waiting for a slot; beyond that, calls are rejected.",
    symptom: "One replica is saturated most of the run while the others idle; its queue fills, p99 TTFT reaches tens of seconds, and most requests are rejected, although the hit rate looks excellent.",
    broken: config(&[("request_rate", Float(30.0)), ("num_requests", Int(3000)), ("instances", Int(6)), ("routing", Text("prefix_aware")), ("num_prefixes", Int(16)), ("prefix_len", Int(12000)), ("input_len", Int(13000)), ("output_len", Int(200)), ("prefix_popularity", Text("hot:0.85")), ("queue_capacity", Int(32))]),
    goal: "p99 TTFT under 1 s with a token hit rate of at least 85%, and every call served: none rejected or timed out.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 1000.0, label: "p99 TTFT under 1 s" },
        Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.85, label: "token hit rate at least 85%" },
        Check { metric: "summary.completed", op: ">=", value: 3000.0, label: "all 3,000 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Compare the replicas' saturated shares and peak queues: is the load spread?",
        "A hot prefix is cheap to copy: warming it on another replica costs one prefill.",
        "Stay sticky until a replica is saturated, then spill: set 'spill at queue' to a small number, or try kv, whose load term pushes back.",
    ],
    fixes: &[
        Fix { name: "spill at queue 2", config: config(&[("spill_queue", Int(2))]) },
        Fix { name: "kv routing", config: config(&[("routing", Text("kv"))]) },
    ],
    explanation: "Prefix-aware routing hashes the first block, so the one prefix that 85% of traffic shares has one home replica. Locality is perfect and that replica saturates: its queue fills and callers are rejected while five replicas idle. Spilling to the least busy replica once the home queue reaches 2 costs one cold prefill per replica that joins, after which each of them holds the hot prefix too: the hit rate stays near 90% and p99 TTFT drops from about 36 s to about 0.6 s. kv does the same through its load term. A high spill threshold (16) is too late: p99 stays above 28 s.",
    rule_of_thumb: "Stay sticky until a replica is saturated, then spill to the least busy one.",
    difficulty: "intermediate",
    minutes: 15,
    trace: "",
    how: "A prefix-aware router hashes a prompt's first block to a home replica, so every request with the same prefix lands where it is cached. When one prefix dominates the traffic, its home does most of the work. Spilling sends a request elsewhere once the home's queue reaches a threshold; the new replica pays one cold prefill and then holds the prefix too.",
    diagram: Diagram {
        caption: "p99 time to first token by spill threshold (0 never spills): spilling at a short queue keeps the tail short; a high threshold spills too late.",
        x_key: "spill_queue",
        x_label: "Spill at queue (0 = never)",
        values: &[0.0, 1.0, 2.0, 4.0, 8.0, 16.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: true,
        series: &[("prefix_aware", config(&[]))],
        second: None,
    },
    settings: &[
        Setting { key: "routing", rule: "", live: "" },
        Setting { key: "spill_queue", rule: "Stay sticky until a replica is saturated, then spill to the least busy one.", live: "" },
        Setting { key: "queue_capacity", rule: "Needed slots are about calls per second times seconds each; a longer queue turns rejections into waiting.", live: "slots_little" },
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
    let p99 = "summary.ttft_ms_p99";
    let rej = "summary.rejected";
    let spill2 = config(&[("spill_queue", Int(2))]);
    &[
        Interview {
            question: "Your prefix-aware router reports an excellent cache hit rate, but callers see rejections and long waits. What is going on?",
            answer: "The hot prefix has one home replica. 85% of the traffic shares it, so that replica saturates while the others idle: {tok} of prompt tokens come from cache, yet {rej} of the 3,000 requests are rejected and p99 TTFT is {p99}. Locality without a limit on load concentrates the load.",
            figures: &[
                fig("tok", config(&[]), tok, Format::Percent),
                fig("rej", config(&[]), rej, Format::Count),
                fig("p99", config(&[]), p99, Format::Ms),
            ],
        },
        Interview {
            question: "How does spilling trade locality against load balance, and what does it cost?",
            answer: "Past a queue threshold a request goes to the least busy replica, which pays one cold prefill of the 12,000-token prefix and then holds it too. Spilling at a queue of 2 keeps the token hit rate at {tok_spill} (against {tok} without spilling), cuts p99 TTFT to {p99_spill}, and leaves {rej_spill} requests rejected.",
            figures: &[
                fig("tok_spill", spill2, tok, Format::Percent),
                fig("tok", config(&[]), tok, Format::Percent),
                fig("p99_spill", spill2, p99, Format::Ms),
                fig("rej_spill", spill2, rej, Format::Count),
            ],
        },
        Interview {
            question: "How would you choose the spill threshold?",
            answer: "Low enough that the home replica never builds a long queue. At a threshold of 16 the queue is already long when requests start to spill, and p99 TTFT is still {p99_16}; at 2 it is {p99_2}. A cost-based router does the same through its load term: kv on this fleet gives a p99 of {p99_kv} at a token hit rate of {tok_kv}.",
            figures: &[
                fig("p99_16", config(&[("spill_queue", Int(16))]), p99, Format::Ms),
                fig("p99_2", spill2, p99, Format::Ms),
                fig("p99_kv", config(&[("routing", Text("kv"))]), p99, Format::Ms),
                fig("tok_kv", config(&[("routing", Text("kv"))]), tok, Format::Percent),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "In the broken setup, the token hit rate is...",
            choices: &["Below 50%: the cache is not working", "50% to 85%", "85% or more: the cache works, the load balance does not"],
            correct: 2,
            why: "Prefix-aware routing keeps every request with the hot prefix on the replica that holds it, so the hit rate is excellent. The problem is that one replica does most of the work.",
            verify: Verify::Range { metric: "summary.hit_rate_tokens", changes: config(&[]), bounds: &[(0.0, 0.5), (0.5, 0.85), (0.85, 1.000_001)] },
        },
        Quiz {
            question: "Spilling at a queue of 16, how many of the 3,000 calls are rejected?",
            choices: &["None: they wait in the home replica's queue instead", "1 to 999", "1,000 or more, as without spilling"],
            correct: 0,
            why: "At 16 the home replica's queue never reaches its limit of 32, so nothing is rejected; but it is long before anything spills, and the calls that wait there miss the p99 target.",
            verify: Verify::Range { metric: "summary.rejected", changes: config(&[("spill_queue", Int(16))]), bounds: &[(0.0, 0.5), (0.5, 999.5), (999.5, 3000.5)] },
        },
        Quiz {
            question: "Would doubling the fleet to 12 replicas, still prefix-aware, stop the rejections?",
            choices: &["Yes: more replicas absorb the load", "No: the hot prefix still has one home replica"],
            correct: 1,
            why: "Hashing the first block gives the hot prefix one home however many replicas there are; the new replicas idle.",
            verify: Verify::Compare { metric: "summary.rejected", a: config(&[("instances", Int(12))]), b: config(&[("spill_queue", Int(2))]), if_less: 0, if_greater: 1 },
        },
        Quiz {
            question: "Which of these also meets the goal?",
            choices: &["Plain round robin", "Prefix-aware on 12 replicas", "Prefix-aware with room for 64 waiting requests per replica"],
            correct: 0,
            why: "A hot prefix is cheap to copy: round robin warms it on every replica once and then every replica hits it, so the hit rate stays above 85% with the load even. A longer queue only turns rejections into waiting.",
            verify: Verify::Goal { runs: &[config(&[("routing", Text("round_robin"))]), config(&[("instances", Int(12))]), config(&[("queue_capacity", Int(64))])] },
        },
    ]
};
