//! Lesson 5, "Retune the weight before production does": sweep kv's overlap weight against
//! a stated SLO. The seed names this as why the `kv` policy scores the deployed cost.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// The kv router's overlap weight `W` (a float literal: it stays a float in the JSON).
macro_rules! weight {
    ($w:literal) => {
        config(&[("overlap_weight", Float($w))])
    };
}

pub(super) const LESSON: Lesson = Lesson {
    id: "retune-the-weight",
    title: "Retune the weight before production does",
    story: "The support-agent fleet of the hot-prefix lesson (30 requests a second, 6 replicas, 85% of prompts opening with the same 12,000-token system prompt) now runs the kv router. Someone set its overlap weight to 0.25 to favour balance over cache hits. The product team asks for p99 time to first token under 300 ms. Before anyone changes the production router, find the weight here.",
    symptom: "No replica is overloaded and nothing is rejected, yet p99 TTFT is well above 300 ms: the load term wins too often, and requests with the hot prefix land on replicas that must compute 12,000 tokens first.",
    broken: config(&[("request_rate", Float(30.0)), ("num_requests", Int(3000)), ("instances", Int(6)), ("routing", Text("kv")), ("num_prefixes", Int(16)), ("prefix_len", Int(12000)), ("input_len", Int(13000)), ("output_len", Int(200)), ("prefix_popularity", Text("hot:0.85")), ("queue_capacity", Int(32)), ("overlap_weight", Float(0.25))]),
    goal: "p99 TTFT under 300 ms with every call served (none rejected or timed out), by retuning the overlap weight alone.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 300.0, label: "p99 TTFT under 300 ms" },
        Check { metric: "summary.completed", op: ">=", value: 3000.0, label: "all 3,000 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Sweep the weight: in the Sweep panel choose the overlap weight with values 0:8:0.5, or run kvfleet --preset retune-the-weight --des-sweep overlap-weight=0:8:0.5.",
        "A low weight lets the load term send hot-prefix requests to replicas that do not hold the prefix; each pays a 12,000-token prefill.",
        "Look for the basin: past it a higher weight piles the hot prefix onto fewer replicas again.",
    ],
    fixes: &[
        Fix { name: "weight 3", config: weight!(3.0) },
        Fix { name: "weight 4", config: weight!(4.0) },
    ],
    explanation: "kv's cost is weight x missed blocks + the replica's load. At 0.25 a 12,000-token miss weighs little against a queue of a few requests, so hot-prefix requests often go cold and p99 TTFT is about 540 ms. Raising the weight keeps them on replicas that hold the prefix: p99 falls to about 470 ms at 1 and to about 290 ms from 2.5 to 4. Past the basin the weight starts to ignore load again and p99 rises to about 330 ms at 5 and beyond. The best weight depends on the traffic, which is why it is a setting, and why you sweep it against your SLO before you change production.",
    rule_of_thumb: "Sweep the overlap weight against your SLO; the best weight is a basin, not the highest.",
    difficulty: "intermediate",
    minutes: 12,
    trace: "",
    how: "The kv router scores each replica as overlap weight x the blocks the request would miss there + the replica's load, and picks the lowest. The weight says how many blocks of load one missed block is worth. Too low and hot requests go cold; too high and the router ignores queues.",
    diagram: Diagram {
        caption: "p99 time to first token by overlap weight: it falls as hot-prefix requests stay where they are cached, bottoms out in a basin, and rises again past it.",
        x_key: "overlap_weight",
        x_label: "Overlap weight",
        values: &[0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 8.0, 20.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: false,
        series: &[("kv", config(&[]))],
        second: None,
    },
    settings: &[
        Setting { key: "overlap_weight", rule: "Sweep it against your SLO; the best weight is a basin, not the highest.", live: "" },
        Setting { key: "routing", rule: "", live: "" },
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
    &[
        Interview {
            question: "What does the kv router's overlap weight trade against what?",
            answer: "Cache hits against load: the cost is weight x missed blocks + load. At weight 0 the router balances load alone (p99 TTFT {p99_0}, {tok_0} of prompt tokens cached); at 4 it keeps the hot prefix where it is cached (p99 {p99_4}, {tok_4} cached); at 8 it leans so far towards hits that p99 rises again to {p99_8}.",
            figures: &[
                fig("p99_0", weight!(0.0), p99, Format::Ms),
                fig("tok_0", weight!(0.0), "summary.hit_rate_tokens", Format::Percent),
                fig("p99_4", weight!(4.0), p99, Format::Ms),
                fig("tok_4", weight!(4.0), "summary.hit_rate_tokens", Format::Percent),
                fig("p99_8", weight!(8.0), p99, Format::Ms),
            ],
        },
        Interview {
            question: "How would you choose the weight for a p99 TTFT target?",
            answer: "Sweep it on your own traffic and read the curve against the target, not a rule. Here p99 TTFT is {p99_2} at 2, {p99_3} at 3, {p99_4} at 4 and {p99_5} at 5: only the basin from about 2.5 to 4 meets 300 ms. Then pick the middle of the basin, so a drift in traffic does not push you out of it.",
            figures: &[
                fig("p99_2", weight!(2.0), p99, Format::Ms),
                fig("p99_3", weight!(3.0), p99, Format::Ms),
                fig("p99_4", weight!(4.0), p99, Format::Ms),
                fig("p99_5", weight!(5.0), p99, Format::Ms),
            ],
        },
        Interview {
            question: "Why does a higher weight stop helping?",
            answer: "Once every hot-prefix request already goes to a replica that holds the prefix, more weight only makes the router ignore queues: the hit rate stays at {tok_4} from 4 to 20, but the load spread goes from {spread_4} to {spread_20} and p99 TTFT from {p99_4} to {p99_20}.",
            figures: &[
                fig("tok_4", weight!(4.0), "summary.hit_rate_tokens", Format::Percent),
                fig("spread_4", weight!(4.0), "summary.load_spread", Format::Fixed2),
                fig("spread_20", weight!(20.0), "summary.load_spread", Format::Fixed2),
                fig("p99_4", weight!(4.0), p99, Format::Ms),
                fig("p99_20", weight!(20.0), p99, Format::Ms),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    let hit = "summary.hit_rate_tokens";
    &[
        Quiz {
            question: "Raising the weight from 0.25 to 1 makes the token hit rate...",
            choices: &["Higher: fewer hot-prefix requests go to a replica without the prefix", "Lower: the load is less even"],
            correct: 0,
            why: "At 0.25 the load term sends many hot-prefix requests to replicas that must compute the 12,000-token prefix; at 1 fewer of them go cold.",
            verify: Verify::Compare { metric: hit, a: weight!(1.0), b: config(&[]), if_less: 1, if_greater: 0 },
        },
        Quiz {
            question: "At weight 3, in the basin, what share of prompt tokens comes from cache?",
            choices: &["Under 50%", "50% to 85%", "85% or more"],
            correct: 2,
            why: "85% of requests share the hot prefix; in the basin they go to replicas that hold it, so the hit rate is near its ceiling.",
            verify: Verify::Range { metric: hit, changes: weight!(3.0), bounds: &[(0.0, 0.5), (0.5, 0.85), (0.85, 1.000_001)] },
        },
        Quiz {
            question: "From weight 3 to 20, how does the gap between the busiest and the quietest replica's requests change?",
            choices: &["It widens: past the basin the weight outvotes the load term", "It narrows: more weight, more balance"],
            correct: 0,
            why: "The hit rate stops rising once the hot prefix stays put; after that, a higher weight only ignores load, and the replicas that hold the prefix take more of it.",
            verify: Verify::Compare { metric: "summary.load_spread", a: weight!(20.0), b: weight!(3.0), if_less: 1, if_greater: 0 },
        },
        Quiz {
            question: "Why retune the weight in a simulator before production?",
            choices: &[
                "The best weight depends on the traffic, and a sweep of runs shows the basin without risking users",
                "The simulator's weight is in different units",
                "Production routers cannot change their weight",
            ],
            correct: 0,
            why: "The same weight is too low for one traffic mix and past the basin for another; a sweep on your own traffic shows which.",
            verify: Verify::Concept,
        },
    ]
};
