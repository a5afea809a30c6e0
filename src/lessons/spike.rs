//! Lesson 12, "The spike and the cold replicas": a load step under Knative's autoscaler.
//! The replicas it adds take a start-up delay to load the model, so the replicas already
//! up carry the step alone and the queue makes the tail; when the new ones arrive they
//! start cold and the hit rate dips. The fixes (replicas kept ready, a shorter start-up)
//! are measured with their GPU-hours; the routers that warm the new replicas faster, and a
//! shared tier that has nothing for them, are measured too.

use super::material::{Diagram, Figure, Format, Interview, Panel, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// `n` replicas ready from the start and never fewer (the autoscaler still on).
macro_rules! ready {
    ($n:literal) => {
        config(&[("instances", Int($n)), ("min_instances", Int($n))])
    };
}

/// The lesson's setup under another routing policy.
macro_rules! routing {
    ($policy:literal) => {
        config(&[("routing", Text($policy))])
    };
}

const fn fast_start() -> Changes {
    config(&[("startup_s", Float(5.0))])
}

const fn shared_tier() -> Changes {
    config(&[("shared_kv_blocks", Int(10000))])
}

/// One H100's HBM for KV a replica (833 blocks of 512 tokens), which evicts.
const fn h100() -> Changes {
    config(&[("kv_blocks", Int(833))])
}

/// The same with the shared tier, which the evictions fill.
const fn h100_shared() -> Changes {
    config(&[("kv_blocks", Int(833)), ("shared_kv_blocks", Int(10000))])
}

pub(super) const LESSON: Lesson = Lesson {
    id: "spike-cold-replicas",
    title: "The spike and the cold replicas",
    story: "A document Q&A service runs Llama-3-8B on H100s behind a round-robin load balancer. Questions are about 64 documents of 6,144 tokens (12 blocks of 512); each prompt is its document plus 2,048 tokens of its own, and each answer 128 tokens. At night 4 questions a second arrive and 2 replicas serve them; at 60 s a campaign starts and the rate steps to 24 a second, for 4,500 questions in all. Knative's autoscaler (KPA, 16 requests in flight per replica) runs 2 to 12 replicas; a new replica loads the model for 38 s (the preset's assumed delay) before it takes a request, and it starts with an empty cache.",
    symptom: "p99 TTFT is 16.46 s, almost all of it spent waiting in a queue, and the fleet bills 0.64 GPU-hours. The autoscaler starts replicas 6 s after the step, but none takes a request for 38 s: the 2 old replicas carry the step alone. Then 10 arrive within 6 s, cold, and the share of requests with any cached block on the Load over time card falls.",
    broken: config(&[
        ("request_rate_schedule", Text("0s:4,60s:24")),
        ("num_requests", Int(4500)),
        ("input_len", Int(8192)),
        ("prefix_len", Int(6144)),
        ("num_prefixes", Int(64)),
        ("output_len", Int(128)),
        ("routing", Text("round_robin")),
        ("autoscale", Text("kpa")),
        ("instances", Int(2)),
        ("min_instances", Int(2)),
        ("max_instances", Int(12)),
        ("startup_s", Float(38.0)),
    ]),
    goal: "A p99 TTFT under 1.5 s through the step, with the autoscaler on and at most 0.5 GPU-hours billed, every call served.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 1500.0, label: "p99 TTFT under 1.5 s" },
        Check { metric: "summary.gpu_hours", op: "<=", value: 0.5, label: "at most 0.5 GPU-hours, autoscaled" },
        Check { metric: "summary.completed", op: ">=", value: 4500.0, label: "all 4,500 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Read the Load over time card: when does the first new replica take a request, and how long do the 2 old ones carry 24 questions a second until then?",
        "No router can send a request to a replica that is still loading the model. Either the replicas are there before the step, or they load faster.",
        "Keep 6 replicas ready (the starting size and the fewest replicas both 6), or cut the start-up delay to 5 s; then read the GPU-hours each one bills.",
    ],
    fixes: &[
        Fix { name: "6 replicas kept ready", config: ready!(6) },
        Fix { name: "a 5 s start-up", config: fast_start() },
        Fix { name: "a 10 s start-up, at most 8 replicas", config: config(&[("startup_s", Float(10.0)), ("max_instances", Int(8))]) },
    ],
    explanation: "An autoscaler reacts: the KPA saw the step within 6 s and started replicas, but each loaded the model for 38 s, and for that long 2 replicas took 24 questions a second. The queue, not the prefill, made the 16.46 s. There are two ways out: be there before the step, or load faster. 6 replicas kept ready hold p99 at 284 ms and bill fewer GPU-hours than the late fleet (0.40 against 0.64), which runs up to 12 replicas and pays for each from its start, loading included. A 5 s start-up brings p99 to 970 ms for 0.47 GPU-hours. The new replicas also start cold: round robin sends each its share of all 64 documents at once, so each computes them again, and the fleet's hit rate takes about a minute to come back after they arrive. prefix_aware, which gives each document one home, brings it back in 9 s, but no router brings p99 near the goal, because the wait came first: prefix_aware's p99 is 14.36 s, kv's 16.46 s. A shared tier does not warm them either, as kvfleet models it: it holds the blocks replicas evict, and these caches evict nothing.",
    rule_of_thumb: "An autoscaler adds no capacity faster than a replica starts: keep ready what a step needs for one start-up delay, or make start-up short. A new replica starts cold.",
    difficulty: "intermediate",
    minutes: 15,
    trace: "",
    how: "A reactive autoscaler measures load and adds replicas: Knative's KPA averages the requests in flight over a 6 s panic window and a 60 s stable window, every 2 s, and wants one replica per 16. Each replica it adds loads the model for the start-up delay, billed but serving nothing, and then takes requests with an empty cache. While it loads, the replicas already up carry the load alone; once it is up, it computes every prefix it is sent for the first time. The figure sweeps the start-up delay for the fleet that starts from 2 replicas and for 6 kept ready; the Load over time card shows the run on screen over time: the rates, the ready replicas, the share of requests with any cached block and the TTFT.",
    diagram: Diagram {
        caption: "p99 time to first token and GPU-hours by the new replicas' start-up delay: from 2 ready replicas, p99 climbs from 884 ms with an instant start to 16.46 s at the preset's 38 s; 6 replicas kept ready hold it at 284 ms, for fewer GPU-hours than the fleet from 2 at every delay.",
        x_key: "startup_s",
        x_label: "Start-up delay (s)",
        values: &[0.0, 5.0, 10.0, 20.0, 38.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: true,
        series: &[("from 2 ready", config(&[])), ("6 kept ready", ready!(6))],
        second: Some(Panel { metric: "summary.gpu_hours", y_label: "GPU-hours", format: Format::Fixed2, log_y: false }),
    },
    settings: &[
        Setting { key: "startup_s", rule: "A new replica serves nothing until it has loaded the model: the delay is how long the replicas already up carry a step alone.", live: "" },
        Setting { key: "min_instances", rule: "Keep ready what a step needs for one start-up delay: headroom is billed every second, a late scale-up is paid in the queue.", live: "" },
        Setting { key: "instances", rule: "With an autoscaler, the starting size; the fewest replicas may not exceed it.", live: "" },
        Setting { key: "routing", rule: "Routers pick among ready replicas only; a cache-aware one sends a cold replica fewer cold prefixes.", live: "" },
        Setting { key: "max_instances", rule: "Caps what a panic can start, and what it bills.", live: "" },
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
    let recovery = "autoscale.recoveries.0.recovered_s";
    let gpu = "summary.gpu_hours";
    &[
        Interview {
            question: "The autoscaler reacted within seconds of the step. Why is p99 TTFT still so high?",
            answer: "Reacting is not serving. The KPA started replicas 6 s after the step, but each loads the model for 38 s; until then the 2 ready replicas take 24 questions a second, and p99 TTFT reaches {p99}, of which the p99 wait in the queue is {q99}. With a 5 s start-up p99 is {p99_5}; with 6 replicas ready before the step, {p99_6}.",
            figures: &[
                fig("p99", config(&[]), p99, Format::Ms),
                fig("q99", config(&[]), "summary.queue_ms_p99", Format::Ms),
                fig("p99_5", fast_start(), p99, Format::Ms),
                fig("p99_6", ready!(6), p99, Format::Ms),
            ],
        },
        Interview {
            question: "What does a cold replica cost, and which router warms the new ones fastest?",
            answer: "Each new replica starts with an empty cache. Round robin sends it its share of every document at once, so it computes each of the 64 again: replica 2, the first new one, serves {new} of its prompt tokens from cache against {old} on replica 0, up from the start, and the fleet's request hit rate takes {rr} to come back within 5 points after the first new replicas arrive. prefix_aware gives each document one home, so a new replica computes only the documents whose home moved to it: {pa}. kv, which weighs each replica's cache against its load, takes {kv}. A shared tier warms them only where replicas evict: these caches evict nothing, but with one H100's 833 blocks a replica a tier of 10,000 blocks brings the hit rate back in {sh} after the first new replicas arrive, against {nosh} without it.",
            figures: &[
                fig("new", config(&[]), "per_instance.2.hit_rate_tokens", Format::Percent),
                fig("old", config(&[]), "per_instance.0.hit_rate_tokens", Format::Percent),
                fig("rr", config(&[]), recovery, Format::Seconds),
                fig("pa", routing!("prefix_aware"), recovery, Format::Seconds),
                fig("kv", routing!("kv"), recovery, Format::Seconds),
                fig("sh", h100_shared(), recovery, Format::Seconds),
                fig("nosh", h100(), recovery, Format::Seconds),
            ],
        },
        Interview {
            question: "Is an autoscaled fleet that starts from 2 replicas cheaper than 6 kept ready?",
            answer: "Not under this step: 6 replicas kept ready bill {gh6} GPU-hours, the fleet from 2 bills {gh}, because once it falls behind it runs up to {peak} replicas and pays for each from its start, loading included. With a 5 s start-up it bills {gh5}. Headroom is not waste when the alternative is a scale-up that arrives late.",
            figures: &[
                fig("gh6", ready!(6), gpu, Format::Fixed2),
                fig("gh", config(&[]), gpu, Format::Fixed2),
                fig("peak", config(&[]), "autoscale.peak_ready", Format::Count),
                fig("gh5", fast_start(), gpu, Format::Fixed2),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = &[
    Quiz {
        question: "Which single change meets the goal?",
        choices: &[
            "Keep 4 replicas ready (the starting size and the fewest replicas both 4)",
            "Route with kv, which sees the new replicas' empty caches",
            "A shared KV tier of 10,000 blocks for the fleet",
        ],
        correct: 0,
        why: "4 replicas ready carry the first 38 s of the step well enough; kv and a shared tier change where requests go and what they find, but no request reaches a replica that is still loading.",
        verify: Verify::Goal { runs: &[ready!(4), routing!("kv"), shared_tier()] },
    },
    Quiz {
        question: "Does replica 2, the first new one, serve more of its prompt tokens from cache under prefix_aware than under round robin?",
        choices: &[
            "Yes: it is home to a few documents and computes only those",
            "No: a new replica's cache is empty whatever the router",
        ],
        correct: 0,
        why: "Round robin sends a new replica every document, each a miss the first time; prefix_aware's ring moves only some documents' homes to it, so it computes fewer of them and hits on the rest of its requests.",
        verify: Verify::Compare {
            metric: "per_instance.2.hit_rate_tokens",
            a: routing!("prefix_aware"),
            b: config(&[]),
            if_less: 1,
            if_greater: 0,
        },
    },
    Quiz {
        question: "With a shared tier of 10,000 blocks, how much KV do the new replicas load from it?",
        choices: &[
            "Nothing: a block reaches the tier when a replica evicts it, and these caches evict nothing",
            "Less than 1 GB",
            "1 GB or more",
        ],
        correct: 0,
        why: "kvfleet's shared tier is written by evictions; unbounded caches never evict, so the tier stays empty and a new replica computes each document the first time it is sent one.",
        verify: Verify::Range {
            metric: "summary.shared_tier.loaded_bytes",
            changes: shared_tier(),
            bounds: &[(0.0, 1.0), (1.0, 1e9), (1e9, f64::INFINITY)],
        },
    },
    Quiz {
        question: "Why can no routing policy fix the spike by itself?",
        choices: &[
            "A router picks among ready replicas only: while the new ones load, the old ones take every request",
            "Routers avoid replicas with empty caches",
            "The autoscaler pauses routing while it scales up",
        ],
        correct: 0,
        why: "Until a replica has loaded the model it is not a candidate for any policy; the queue builds on the replicas that are.",
        verify: Verify::Concept,
    },
];
