//! Lesson 1, "Does my traffic reuse anything at all?": one engine replays a real
//! conversation trace, so no routing decision can lose a hit; its token hit rate against
//! the cache size is the reuse the traffic itself has, the ceiling any fleet works under.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Int, Null, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// The built-in trace the lesson replays.
pub(super) const TRACE: &str = "conversation_trace.jsonl";

pub(super) const LESSON: Lesson = Lesson {
    id: "reuse-at-all",
    title: "Does my traffic reuse anything at all?",
    story: "Your team is about to buy a KV-aware router. Ask the question that comes before any routing question first: does the traffic reuse anything at all? Replay a real sample of conversation traffic (Mooncake's conversation trace, 12,031 requests) on one engine, where no routing decision can lose a hit: every hit is reuse in time. The engine keeps what one H100 holds after the model's weights, 833 blocks of 512 tokens.",
    symptom: "Only 4.5% of prompt tokens hit, although the request hit rate reads 100%: every conversation in this trace opens with the same first block, so every request but the very first hits something, and little else stays in 833 blocks. (Ignore the latencies: one engine cannot keep up with this traffic; the hit rate is a property of the content, not of the speed.)",
    broken: config(&[("instances", Int(1)), ("kv_blocks", Int(833))]),
    goal: "Find a cache that keeps nine tenths of the reuse an unbounded cache finds: a token hit rate of 33.6% or more, on one engine, with at most 32,000 blocks, every call served.",
    checks: &[
        Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.336, label: "token hit rate at least 33.6%" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 1.0, label: "one engine" },
        Check { metric: "config.kv_blocks", op: "<=", value: 32000.0, label: "at most 32,000 blocks" },
        Check { metric: "summary.completed", op: ">=", value: 12031.0, label: "all 12,031 calls served, none rejected or timed out" },
    ],
    hints: &[
        "First find the ceiling: set the cache to unbounded and read the token hit rate. That is all the reuse this traffic has.",
        "Nine tenths of that ceiling is the target. Now bring the cache back down until the hit rate starts to fall away.",
        "The curve climbs steeply up to about 30,000 blocks and flattens after: it crosses 33.6% between 28,000 and 30,000 blocks. On the cache slider, 25,000 blocks fall short and 30,000 make it (its next stop, 32,768, is over the budget).",
    ],
    fixes: &[
        // The one stop of the cache slider that meets the goal inside the budget (32,000, the
        // budget itself, is no stop: the slider goes from 30,000 to 32,768).
        Fix { name: "30,000 blocks", config: config(&[("kv_blocks", Int(30000))]) },
    ],
    explanation: "With an unbounded cache one engine hits 37.3% of the prompt tokens: that is the reuse this traffic has, and a router over several replicas can at best match it (sticky routing on 8 replicas does, to a tenth of a point), because a replica hits only blocks that it has computed itself. Most of it needs a large cache: 30,000 blocks keep 33.8%, 16,000 keep 27.6%, and the 833 blocks of one H100 keep 4.5%. So the first answer for this traffic is a bigger cache tier (host memory or SSD), and only then a router that keeps each conversation's blocks together.",
    rule_of_thumb: "Measure reuse on one engine first: its unbounded-cache hit rate is the most any router can win back.",
    difficulty: "beginner",
    minutes: 10,
    trace: TRACE,
    how: "A request hits on the blocks of its prompt that are already in the cache of the replica it lands on. On one engine every block the traffic has seen is a candidate, so the hit rate depends only on the content and on how much the cache keeps: the more blocks, the further back in time reuse can reach. That curve is the traffic's reuse profile: what a cache of each size can win back. With unbounded caches, a fleet of replicas can at best match one engine's ceiling.",
    diagram: Diagram {
        caption: "Token hit rate of one engine replaying the conversation trace, by cache size: it climbs to 34.2% at 32,000 blocks; four times that cache adds only 3 points more.",
        x_key: "kv_blocks",
        x_label: "KV cache (blocks of 512 tokens)",
        values: &[833.0, 4000.0, 16000.0, 32000.0, 128000.0],
        metric: "summary.hit_rate_tokens",
        y_label: "Token hit rate",
        format: Format::Percent,
        log_y: false,
        series: &[("one engine", config(&[]))],
        second: None,
    },
    settings: &[
        Setting { key: "kv_blocks", rule: "Size the cache from the knee of the hit-rate curve, not from what the GPU happens to hold.", live: "" },
        Setting { key: "instances", rule: "Answer the reuse question on one engine first: there no router can lose a hit.", live: "" },
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

const fn unbounded() -> Changes {
    config(&[("kv_blocks", Null)])
}

/// 8 replicas with unbounded caches under `ROUTING`.
macro_rules! fleet {
    ($routing:literal) => {
        config(&[
            ("kv_blocks", Null),
            ("instances", Int(8)),
            ("routing", Text($routing)),
        ])
    };
}

const INTERVIEW: &[Interview] = {
    let hit = "summary.hit_rate_tokens";
    &[
        Interview {
            question: "Why replay a trace on one engine before asking any routing question?",
            answer: "On one engine no routing decision can lose a hit, so its hit rate is the reuse the traffic itself has: here {ceiling} of prompt tokens with an unbounded cache. A fleet can at best match that ceiling: on 8 replicas with unbounded caches, sticky routing gets {sticky8}, the kv router {kv8} and round robin {rr8}. If the ceiling is low, no router is worth buying.",
            figures: &[
                fig("ceiling", unbounded(), hit, Format::Percent),
                fig("sticky8", fleet!("sticky"), hit, Format::Percent),
                fig("kv8", fleet!("kv"), hit, Format::Percent),
                fig("rr8", fleet!("round_robin"), hit, Format::Percent),
            ],
        },
        Interview {
            question: "Almost every request of this trace hits the cache. Why is the request hit rate the wrong number to read?",
            answer: "A request counts as a hit when any of its blocks hits, and every conversation in this trace opens with the same first block, so every request but the trace's very first hits something: {req} when rounded. The token hit rate says how much prefill was saved: {tok} on one H100's 833 blocks. Read the token hit rate.",
            figures: &[
                fig("req", config(&[]), "summary.hit_rate_requests", Format::Percent),
                fig("tok", config(&[]), hit, Format::Percent),
            ],
        },
        Interview {
            question: "How big a cache does this traffic need?",
            answer: "Read the knee of the curve: {h4k} at 4,000 blocks, {h16k} at 16,000, {h32k} at 32,000 and {ceiling} unbounded. Past about 30,000 blocks (15 million tokens) more cache buys little. At Llama-3-8B's 128 KiB of KV per token that is nearly 2 TiB, far beyond a GPU's memory: a host-memory or SSD tier shared by the engines, which is what Mooncake's own store is for.",
            figures: &[
                fig("h4k", config(&[("kv_blocks", Int(4000))]), hit, Format::Percent),
                fig("h16k", config(&[("kv_blocks", Int(16000))]), hit, Format::Percent),
                fig("h32k", config(&[("kv_blocks", Int(32000))]), hit, Format::Percent),
                fig("ceiling", unbounded(), hit, Format::Percent),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    let hit = "summary.hit_rate_tokens";
    &[
        Quiz {
            question: "With the 833 blocks one H100 holds, what share of requests hit at least one cached block?",
            choices: &["Under 10%, like the share of prompt tokens", "Between 10% and 90%", "Over 90%"],
            correct: 2,
            why: "Every conversation opens with the same first block, so nearly every request hits something, while almost nothing else stays in 833 blocks: the request hit rate says nothing about how much is reused.",
            verify: Verify::Range { metric: "summary.hit_rate_requests", changes: config(&[]), bounds: &[(0.0, 0.1), (0.1, 0.9), (0.9, 1.000_001)] },
        },
        Quiz {
            question: "Which cache meets the goal?",
            choices: &["30,000 blocks", "16,000 blocks", "An unbounded cache"],
            correct: 0,
            why: "16,000 blocks keep 27.6%, short of 33.6%; an unbounded cache reaches the hit rate but breaks the 32,000-block budget.",
            verify: Verify::Goal { runs: &[config(&[("kv_blocks", Int(30000))]), config(&[("kv_blocks", Int(16000))]), unbounded()] },
        },
        Quiz {
            question: "With unbounded caches, does the kv router on 8 replicas hit more or less than one engine?",
            choices: &["More: eight caches hold more", "Less: each replica hits only what it has seen itself"],
            correct: 1,
            why: "With unbounded caches one engine has seen every block; a replica of a fleet has seen only the requests routed to it.",
            verify: Verify::Compare { metric: hit, a: fleet!("kv"), b: unbounded(), if_less: 1, if_greater: 0 },
        },
        Quiz {
            question: "Why is one engine the right place to measure reuse?",
            choices: &[
                "No routing decision can scatter a prefix there, so the hit rate is the content's alone",
                "One engine is faster than a fleet",
                "A fleet's hit rate cannot be measured",
            ],
            correct: 0,
            why: "On one engine the only thing between a request and its cached prefix is the cache size; the speed of the engine does not enter the hit rate.",
            verify: Verify::Concept,
        },
    ]
};
