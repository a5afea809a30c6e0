//! Lesson 7, "When disaggregation pays": long prompts prefilled in the same steps as other
//! requests' decode stall the token stream; more replicas or smaller prefill chunks do not
//! fix it within the first-token budget, a prefill pool and a decode pool on the same GPUs do.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// A split of the 8 replicas into `PREFILL` prefill and `8 - PREFILL` decode replicas
/// (5 + 3 meets the goal).
macro_rules! split {
    ($prefill:literal, $decode:literal) => {
        config(&[
            ("prefill_instances", Int($prefill)),
            ("decode_instances", Int($decode)),
            ("instances", Int(8)),
        ])
    };
}

pub(super) const LESSON: Lesson = Lesson {
    id: "when-disaggregation-pays",
    title: "When disaggregation pays",
    story: "A document assistant on 8 replicas: prompts of 4,000 to 12,000 tokens (the user's files), 256-token answers streamed to the screen, 16 requests a second. First tokens come fast enough, but users complain that answers stutter and crawl: the text stops for a quarter of a second mid-sentence, and the slowest answers stream at 40 tokens a second.",
    symptom: "p99 time per output token is about 25 ms, and the p99 gap between two streamed tokens is over 250 ms: whenever a replica prefills a long prompt, that step holds every answer it is decoding.",
    broken: config(&[("instances", Int(8)), ("input_len", Int(8192)), ("prefix_len", Int(1024)), ("range_ratio", Float(0.5)), ("output_len", Int(256)), ("request_rate", Float(16.0)), ("num_requests", Int(1500))]),
    goal: "p99 time per output token under 20 ms (every answer streams at 50 tokens a second or more) and p99 TTFT under 1 s, on the same 8 replicas, every call served.",
    checks: &[
        Check { metric: "summary.tpot_ms_p99", op: "<=", value: 20.0, label: "p99 TPOT under 20 ms" },
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 1000.0, label: "p99 TTFT under 1 s" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 8.0, label: "at most 8 replicas" },
        Check { metric: "summary.completed", op: ">=", value: 1500.0, label: "all 1,500 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Look at the latency table: the median gap between tokens is fine, the p99 is not. Which steps are long?",
        "A step that prefills part of an 8,000-token prompt also carries one token of every answer being decoded on that replica. Smaller prefill chunks (Engine: prefill budget) shorten each stall: do they make the answers faster, and what do they do to TTFT?",
        "Give prefill and decode their own replicas: Fleet layout, prefill + decode. Then size the two pools: how many prefill replicas does 16 prompts a second need?",
    ],
    fixes: &[
        Fix { name: "5 prefill + 3 decode", config: split!(5, 3) },
        Fix { name: "5 prefill + 3 decode, decode round robin", config: config(&[("prefill_instances", Int(5)), ("decode_instances", Int(3)), ("instances", Int(8)), ("decode_routing", Text("round_robin"))]) },
    ],
    explanation: "Colocated, every replica interleaves long prefills with the decode of its other requests, so a decoding answer waits out each prefill chunk: the stream stutters, and the prefill work it shares makes every answer slower. More replicas only make stalls rarer per replica (12 still stutter). Smaller prefill chunks shorten each stall but not the work: with 768-token chunks the stutter is gone and TPOT is not better, and with 256-token chunks TPOT is just under 20 ms while every prefill takes so many steps that TTFT passes 4 s. Disaggregation moves prefill to its own pool: the decode replicas only ever run decode steps, and the price is a KV transfer in every TTFT (about 20 ms for an 8,000-token prompt at 50 GB/s). The split must fit both budgets: with 4 prefill replicas the prompts queue (TTFT over 1 s), with 2 decode replicas each decodes too many answers at once (TPOT over 40 ms); 5 + 3 meets both.",
    rule_of_thumb: "Split prefill from decode when long prefills slow the token stream; size the prefill pool for TTFT and the decode pool for TPOT.",
    difficulty: "advanced",
    minutes: 15,
    trace: "",
    how: "In a colocated fleet each engine step runs one token of every decoding request plus a chunk of prefill, so a long prefill makes that step long for everyone on the replica. A disaggregated fleet routes each request to a prefill replica, moves the prompt's KV over a link to a decode replica, and decodes there: the decode steps never wait for a prefill, and every first token pays the transfer.",
    diagram: Diagram {
        caption: "p99 gap between streamed tokens by load: colocated, long prefills stall the stream once load passes 8 req/s (over 200 ms from 12 req/s); split 5 + 3, the gap is the decode step time and stays under 20 ms.",
        x_key: "request_rate",
        x_label: "Request rate (req/s)",
        values: &[4.0, 8.0, 12.0, 16.0],
        metric: "summary.itl_ms_p99",
        y_label: "p99 inter-token gap",
        format: Format::Ms,
        log_y: true,
        series: &[("colocated 8", config(&[])), ("5 prefill + 3 decode", split!(5, 3))],
        second: None,
    },
    settings: &[
        Setting { key: "prefill_instances", rule: "Size the prefill pool for TTFT: it must keep up with the prompts arriving.", live: "" },
        Setting { key: "decode_instances", rule: "Size the decode pool for TPOT: each decode step carries every answer on the replica.", live: "" },
        Setting { key: "kv_transfer_gbps", rule: "Every first token pays the transfer: keep it small next to the prefill.", live: "" },
        Setting { key: "max_batched_tokens", rule: "Smaller prefill chunks shorten each stall, not the prefill work, and stretch every prefill.", live: "" },
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
    let itl = "summary.itl_ms_p99";
    let ttft = "summary.ttft_ms_p99";
    let tpot = "summary.tpot_ms_p99";
    &[
        Interview {
            question: "Why do neither more replicas nor smaller prefill chunks fix it?",
            answer: "The stall is inside one replica: a step that prefills a long prompt holds every answer decoding there. 12 colocated replicas make the stalls rarer, not shorter: the p99 gap between tokens is {itl_8} on 8 and still {itl_12} on 12. Chunks of 768 tokens shorten the stalls (p99 gap {itl_768}) but the decode steps still share the same prefill work, so p99 TPOT stays {tpot_768}; chunks of 256 reach {tpot_256}, and stretch every prefill until p99 TTFT is {ttft_256}. 5 prefill + 3 decode replicas give {tpot_split} and {ttft_split}.",
            figures: &[
                fig("itl_8", config(&[]), itl, Format::Ms),
                fig("itl_12", config(&[("instances", Int(12))]), itl, Format::Ms),
                fig("itl_768", config(&[("max_batched_tokens", Int(768))]), itl, Format::Ms),
                fig("tpot_768", config(&[("max_batched_tokens", Int(768))]), tpot, Format::Ms),
                fig("tpot_256", config(&[("max_batched_tokens", Int(256))]), tpot, Format::Ms),
                fig("ttft_256", config(&[("max_batched_tokens", Int(256))]), ttft, Format::Ms),
                fig("tpot_split", split!(5, 3), tpot, Format::Ms),
                fig("ttft_split", split!(5, 3), ttft, Format::Ms),
            ],
        },
        Interview {
            question: "How do you size the two pools on a fixed number of GPUs?",
            answer: "The prefill pool for TTFT, the decode pool for TPOT. On these 8: 4 + 4 gives p99 TTFT {ttft_44} (the prompts queue), 6 + 2 gives p99 TPOT {tpot_62} (each decode replica carries too many answers), and 5 + 3 gives {ttft_53} and {tpot_53}.",
            figures: &[
                fig("ttft_44", split!(4, 4), ttft, Format::Ms),
                fig("tpot_62", split!(6, 2), tpot, Format::Ms),
                fig("ttft_53", split!(5, 3), ttft, Format::Ms),
                fig("tpot_53", split!(5, 3), tpot, Format::Ms),
            ],
        },
        Interview {
            question: "What does disaggregation cost, and when would it not pay?",
            answer: "Every first token waits for the prompt's KV to cross a link: {xfer} on average here at 50 GB/s, and at 10 GB/s the same split's p99 TTFT becomes {ttft_10g}. It does not pay when prefills are short or rare next to decode (at 4 req/s, colocated p99 TPOT is already {tpot_low}), when the link is slow, or when the fleet is too small to give each pool enough replicas.",
            figures: &[
                fig("xfer", split!(5, 3), "pools.transfers.time_ms_mean", Format::Ms),
                fig("ttft_10g", config(&[("prefill_instances", Int(5)), ("decode_instances", Int(3)), ("instances", Int(8)), ("kv_transfer_gbps", Float(10.0))]), ttft, Format::Ms),
                fig("tpot_low", config(&[("request_rate", Float(4.0))]), tpot, Format::Ms),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "Colocated on 12 replicas instead of 8: is the p99 gap between tokens under 40 ms?",
            choices: &["No: the stalls are inside each replica's steps", "Yes: more replicas, fewer stalls"],
            correct: 0,
            why: "Each prefill still holds every answer decoding on its replica; more replicas only spread the prefills thinner.",
            verify: Verify::Range { metric: "summary.itl_ms_p99", changes: config(&[("instances", Int(12))]), bounds: &[(40.0, f64::INFINITY), (0.0, 40.0)] },
        },
        Quiz {
            question: "Split 4 prefill + 4 decode instead of 5 + 3: what is p99 TTFT?",
            choices: &["Under 1 s, as with 5 + 3", "1 s or more: four prefill replicas cannot keep up with the prompts"],
            correct: 1,
            why: "Every prompt is prefilled in the prefill pool; with one replica fewer there, the prompts queue, while the decode pool has room to spare. The split is sized by TTFT on one side and TPOT on the other.",
            verify: Verify::Range { metric: "summary.ttft_ms_p99", changes: split!(4, 4), bounds: &[(0.0, 1000.0), (1000.0, f64::INFINITY)] },
        },
        Quiz {
            question: "The 5 + 3 split on a 10 GB/s link instead of 50: does it still meet the goal?",
            choices: &["Yes: the link only adds a few milliseconds", "No: the transfer pushes p99 TTFT past 1 s"],
            correct: 1,
            why: "An 8,000-token prompt is about 1 GB of KV; at 10 GB/s that is some 100 ms on every first token, and more when transfers queue on a link.",
            verify: Verify::Range { metric: "summary.ttft_ms_p99", changes: config(&[("prefill_instances", Int(5)), ("decode_instances", Int(3)), ("instances", Int(8)), ("kv_transfer_gbps", Float(10.0))]), bounds: &[(0.0, 1000.0), (1000.0, f64::INFINITY)] },
        },
        Quiz {
            question: "In a disaggregated fleet, what does a request's time to first token include?",
            choices: &["The prefill queue, the prefill and the KV transfer", "Only its prefill", "Its wait for a decode slot"],
            correct: 0,
            why: "The first token reaches the caller when the prompt's KV lands on the decode replica; the decode queue comes after it.",
            verify: Verify::Concept,
        },
    ]
};
