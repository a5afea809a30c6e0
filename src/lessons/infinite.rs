//! Lesson 6, "The policy that won on an infinite cache": the seed's warning that under
//! eviction pressure a policy that looked best on an unbounded cache can lose.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Null, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// Unbounded caches under `ROUTING`.
macro_rules! unbounded {
    ($routing:literal) => {
        config(&[("kv_blocks", Null), ("routing", Text($routing))])
    };
}

const fn kv4() -> Changes {
    config(&[("routing", Text("kv")), ("overlap_weight", Float(4.0))])
}

pub(super) const LESSON: Lesson = Lesson {
    id: "won-on-an-infinite-cache",
    title: "The policy that won on an infinite cache",
    story: "A team benchmarked routing policies on a staging fleet with far more KV memory than production: 4 replicas, 10 requests a second, 32 prompt templates of 2,048 tokens. Round robin had the best p99 time to first token there, so it shipped. Each production replica holds 80 blocks of 512 tokens: room for a few templates besides the requests it is running.",
    symptom: "In production p99 TTFT is about six times what staging showed and the caches evict thousands of blocks: every replica tries to keep all 32 templates and keeps few of them.",
    broken: config(&[("num_prefixes", Int(32)), ("num_requests", Int(1000)), ("request_rate", Float(10.0)), ("routing", Text("round_robin")), ("kv_blocks", Int(80))]),
    goal: "p99 TTFT under 600 ms with the production cache (at most 80 blocks per replica) on the same 4 replicas, every call served.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 600.0, label: "p99 TTFT under 600 ms" },
        Check { metric: "config.kv_blocks", op: "<=", value: 80.0, label: "at most 80 blocks per replica" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 4.0, label: "the same 4 replicas (an autoscaler's ceiling included)" },
        Check { metric: "summary.completed", op: ">=", value: 1000.0, label: "all 1,000 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Compare the token hit rate here with an unbounded cache: slide Cache per replica to its last stop, unbounded, for a moment, then back to 80.",
        "Round robin asks every replica to hold every template. A router that sends each template to the replicas that already hold it lets each replica keep a share.",
        "Try kv, then raise its overlap weight.",
    ],
    fixes: &[
        Fix { name: "kv, weight 4", config: kv4() },
        Fix { name: "dynamo", config: config(&[("routing", Text("dynamo"))]) },
    ],
    explanation: "On unbounded caches every replica soon holds all 32 templates, so the best policy is the one that balances load best: round robin's p99 was a little lower than kv's. With 80 blocks a replica holds only a few templates besides its running requests. Round robin sends each template everywhere, so every replica keeps evicting what its next request needs: about 13% of prompt tokens come from cache and p99 is about 910 ms. A cache-aware router sends a request where its template is, so each replica keeps a subset and the fleet's caches add up: kv at weight 4 serves about 31% from cache with p99 about 310 ms. The benchmark ranked policies on a cache that production does not have.",
    rule_of_thumb: "Rank routing policies under the cache size you will run, not on an unbounded one.",
    difficulty: "intermediate",
    minutes: 12,
    trace: "",
    how: "A replica's cache keeps a template only while it fits; when it is full, the block used least recently goes. The fleet's caches add up only if the replicas hold different content: a router that sends each template to the replicas that hold it partitions the working set, one that scatters requests copies it to every replica.",
    diagram: Diagram {
        caption: "p99 time to first token as the cache per replica grows: from 120 blocks up round robin has the shorter tail; at 80 blocks and below it falls far behind a cache-aware router.",
        x_key: "kv_blocks",
        x_label: "KV blocks per replica",
        values: &[60.0, 80.0, 120.0, 200.0, 400.0, 1000.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: true,
        series: &[("round_robin", config(&[("routing", Text("round_robin"))])), ("kv, weight 4", kv4())],
        second: None,
    },
    settings: &[
        Setting { key: "kv_blocks", rule: "Rank policies under the cache you will run.", live: "" },
        Setting { key: "routing", rule: "", live: "" },
        Setting { key: "overlap_weight", rule: "A scarcer cache is worth more weight.", live: "" },
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
    let p99 = "summary.ttft_ms_p99";
    let tok = "summary.hit_rate_tokens";
    &[
        Interview {
            question: "How can a routing benchmark on a large cache pick the wrong policy?",
            answer: "On unbounded caches every replica ends up holding everything, so hits stop depending on the router and the best balancer wins: round robin's p99 TTFT was {rr_inf} against kv's {kv_inf}. With 80 blocks per replica the ranking flips: round robin {rr_80}, kv at weight 4 {kv_80}.",
            figures: &[
                fig("rr_inf", unbounded!("round_robin"), p99, Format::Ms),
                fig("kv_inf", unbounded!("kv"), p99, Format::Ms),
                fig("rr_80", config(&[]), p99, Format::Ms),
                fig("kv_80", kv4(), p99, Format::Ms),
            ],
        },
        Interview {
            question: "What does eviction pressure do to round robin?",
            answer: "It makes every replica hold every template, so each replica's cache churns: round robin's token hit rate falls from {tok_inf} on unbounded caches to {tok_80} with 80 blocks, with {evict} blocks evicted in the run.",
            figures: &[
                fig("tok_inf", unbounded!("round_robin"), tok, Format::Percent),
                fig("tok_80", config(&[]), tok, Format::Percent),
                fig("evict", config(&[]), "summary.evictions", Format::Count),
            ],
        },
        Interview {
            question: "How does a cache-aware router get more out of a small cache?",
            answer: "By keeping each template on a few replicas, so the fleet holds more distinct templates in the same memory: kv at weight 4 serves {tok_kv} of prompt tokens from cache against round robin's {tok_rr}, and evicts {ev_kv} blocks against {ev_rr}.",
            figures: &[
                fig("tok_kv", kv4(), tok, Format::Percent),
                fig("tok_rr", config(&[]), tok, Format::Percent),
                fig("ev_kv", kv4(), "summary.evictions", Format::Count),
                fig("ev_rr", config(&[]), "summary.evictions", Format::Count),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "On unbounded caches, which policy has the lower p99 TTFT here?",
            choices: &["Round robin", "kv at its default weight (1)"],
            correct: 0,
            why: "With every template everywhere, hits do not depend on the router, and round robin balances the load most evenly.",
            verify: Verify::Compare { metric: "summary.ttft_ms_p99", a: unbounded!("round_robin"), b: unbounded!("kv"), if_less: 0, if_greater: 1 },
        },
        Quiz {
            question: "Which policy meets the goal with the 80-block cache?",
            choices: &["Dynamo's router", "Least loaded", "kv at its default weight (1)"],
            correct: 0,
            why: "A cache-aware router that weighs the cache strongly enough keeps each template on a few replicas; least loaded copies every template everywhere, and kv at weight 1 still gives too much to load.",
            verify: Verify::Goal {
                runs: &[config(&[("routing", Text("dynamo"))]), config(&[("routing", Text("least_loaded"))]), config(&[("routing", Text("kv")), ("overlap_weight", Float(1.0))])],
            },
        },
        Quiz {
            question: "With the 80-block cache, round robin serves what share of prompt tokens from cache?",
            choices: &["Under 20%", "20% to 40%", "Over 40%"],
            correct: 0,
            why: "Each replica evicts the templates its next requests need; on unbounded caches the same traffic got over 40%.",
            verify: Verify::Range { metric: "summary.hit_rate_tokens", changes: config(&[]), bounds: &[(0.0, 0.2), (0.2, 0.4), (0.4, 1.000_001)] },
        },
        Quiz {
            question: "Why does partitioning the templates across replicas help under eviction pressure?",
            choices: &[
                "The fleet then holds more distinct templates in the same total memory",
                "Partitioned caches evict in a different order",
                "It makes each prefill shorter whether or not it hits",
            ],
            correct: 0,
            why: "Copies of the same template on every replica waste memory that could hold other templates.",
            verify: Verify::Concept,
        },
    ]
};
