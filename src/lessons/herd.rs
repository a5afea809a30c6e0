//! Lesson 4, "Routers that herd": several routers share a stale load snapshot, each sees
//! the others' picks only at the next refresh, and a burst lands on one replica.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

pub(super) const LESSON: Lesson = Lesson {
    id: "routers-that-herd",
    title: "Routers that herd",
    story: "For high availability the gateway runs four router replicas in front of 8 model replicas. Traffic is bursty: 30 requests a second on average, arriving in clumps, over 32 shared prefixes. To keep the load signals cheap, the routers share one snapshot of the replicas' queues, refreshed every 100 ms. One router on the same snapshot was fine.",
    symptom: "p99 time to first token more than doubles against one router on the same snapshot, although the run's load spread looks even: within a burst, all four routers find the same replica least loaded and send it their requests.",
    broken: config(&[("arrival_model", Text("gamma")), ("burstiness", Float(0.1)), ("request_rate", Float(30.0)), ("num_requests", Int(2000)), ("instances", Int(8)), ("num_prefixes", Int(32)), ("router_view", Text("snapshot")), ("routers", Int(4)), ("router_refresh_ms", Float(100.0))]),
    goal: "p99 TTFT under 600 ms, still with at least 4 routers, on the same 8 replicas, every call served.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 600.0, label: "p99 TTFT under 600 ms" },
        Check { metric: "config.routers", op: ">=", value: 4.0, label: "at least 4 routers" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 8.0, label: "the same 8 replicas (an autoscaler's ceiling included)" },
        Check { metric: "summary.completed", op: ">=", value: 2000.0, label: "all 2,000 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Compare p99 TTFT with 1 router and with 4 on the same snapshot: what do 4 routers not see of each other?",
        "Between two refreshes a router sees its own picks (its recent term) but not the other routers' picks.",
        "Make the load signals live (refresh 0 ms), or let each router spread its own picks without looking at load (round robin).",
    ],
    fixes: &[
        Fix { name: "live load signals", config: config(&[("router_refresh_ms", Float(0.0))]) },
        Fix { name: "round robin per router", config: config(&[("routing", Text("round_robin"))]) },
    ],
    explanation: "Each router spreads its own picks through its recent term, but it sees the other routers' picks only when the shared snapshot refreshes. In a burst, all four find the same replica least loaded and send it their share of the burst, so it queues while others idle, and p99 TTFT rises far above one router's. The run's load spread stays low, because over the whole run the herding moves from replica to replica. With live signals (refresh 0) every router sees every dispatch in the in-flight term and the herd is gone; round robin dealt by each router on its own never herds, and on this fleet it loses almost no hit rate, because with unbounded caches every replica soon holds all 32 prefixes. A 10 ms refresh is not enough: a burst arrives within it.",
    rule_of_thumb: "Routers that share a stale view herd: keep the signals fresh, or spread the picks without them.",
    difficulty: "advanced",
    minutes: 15,
    trace: "",
    how: "Each router picks the replica with the lowest cost from what it knows: its own recent picks at once, the replicas' queues only from a shared snapshot refreshed every so often. Several routers on the same stale snapshot therefore make the same pick until the next refresh.",
    diagram: Diagram {
        caption: "p99 time to first token by snapshot age: one router degrades slowly, four routers herd as soon as the snapshot is older than a burst.",
        x_key: "router_refresh_ms",
        x_label: "Snapshot refresh (ms)",
        values: &[0.0, 10.0, 50.0, 100.0, 500.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: false,
        series: &[("1 router", config(&[("routers", Int(1))])), ("4 routers", config(&[]))],
        second: None,
    },
    settings: &[
        Setting { key: "routers", rule: "Routers that share a stale view herd.", live: "" },
        Setting { key: "router_refresh_ms", rule: "Keep the load signals fresher than a burst.", live: "" },
        Setting { key: "router_view", rule: "", live: "" },
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
    let spread = "summary.load_spread";
    &[
        Interview {
            question: "Why do several routers that share a load snapshot send a burst to one replica?",
            answer: "Between refreshes each router sees its own picks but not the others'. In a burst they all compute the same least-loaded replica and all send to it. Here, on a 100 ms snapshot, p99 TTFT is {p99_1} with one router and {p99_4} with four; with live signals, four routers get {p99_live}.",
            figures: &[
                fig("p99_1", config(&[("routers", Int(1))]), p99, Format::Ms),
                fig("p99_4", config(&[]), p99, Format::Ms),
                fig("p99_live", config(&[("router_refresh_ms", Float(0.0))]), p99, Format::Ms),
            ],
        },
        Interview {
            question: "How would you stop herding without going back to a single router?",
            answer: "Make the signals fresh enough that a burst is seen (refresh 0 gives {p99_live}; a 10 ms refresh still gives {p99_10}), or take load out of the pick: round robin dealt by each router gives {p99_rr}. Randomising the pick also helps: Dynamo's cost with a softmax temperature of 0.5 gives {p99_temp}.",
            figures: &[
                fig("p99_live", config(&[("router_refresh_ms", Float(0.0))]), p99, Format::Ms),
                fig("p99_10", config(&[("router_refresh_ms", Float(10.0))]), p99, Format::Ms),
                fig("p99_rr", config(&[("routing", Text("round_robin"))]), p99, Format::Ms),
                fig("p99_temp", config(&[("routing", Text("dynamo")), ("dynamo_temperature", Float(0.5))]), p99, Format::Ms),
            ],
        },
        Interview {
            question: "Why might a dashboard of load balance miss the herding?",
            answer: "Over the whole run each replica gets its share: the herd moves from replica to replica with each burst. The load spread is {spread_4} with four herding routers and {spread_live} with live signals: in both the busiest and the quietest replica's totals lie within a tenth of the mean, while p99 TTFT is {p99_4} against {p99_live}. Look at the tail latency, or at who got each burst, not at the run's totals.",
            figures: &[
                fig("spread_4", config(&[]), spread, Format::Fixed2),
                fig("spread_live", config(&[("router_refresh_ms", Float(0.0))]), spread, Format::Fixed2),
                fig("p99_4", config(&[]), p99, Format::Ms),
                fig("p99_live", config(&[("router_refresh_ms", Float(0.0))]), p99, Format::Ms),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "In the broken setup, how far apart are the busiest and the quietest replica's requests over the whole run?",
            choices: &["Within a tenth of the mean: over the run the load looks even", "More than a tenth of the mean: one replica takes the herd"],
            correct: 0,
            why: "The herd lasts a burst and lands on a different replica each time, so the totals even out: the run's load spread cannot show it, the tail of first-token times does.",
            verify: Verify::Range { metric: "summary.load_spread", changes: config(&[]), bounds: &[(0.0, 0.1), (0.1, f64::INFINITY)] },
        },
        Quiz {
            question: "Which change meets the goal?",
            choices: &["Least loaded on the same snapshot", "A ninth replica", "Round robin, dealt by each router"],
            correct: 2,
            why: "Least loaded reads the same stale loads, so all four routers still pick the same replica in a burst; a ninth replica gives the herd one more place to land. Round robin never looks at the stale signals.",
            verify: Verify::Goal {
                runs: &[config(&[("routing", Text("least_loaded"))]), config(&[("instances", Int(9))]), config(&[("routing", Text("round_robin"))])],
            },
        },
        Quiz {
            question: "Least loaded on the same 100 ms snapshot: is its p99 TTFT above or below kv's?",
            choices: &["Below: it looks at load alone", "Above: every router sends the burst to the same least loaded replica"],
            correct: 1,
            why: "Least loaded reads nothing but the stale loads, so every router sees the same replica as the least loaded until the next refresh; kv's cache term at least spreads requests by prefix.",
            verify: Verify::Compare { metric: "summary.ttft_ms_p99", a: config(&[("routing", Text("least_loaded"))]), b: config(&[]), if_less: 0, if_greater: 1 },
        },
        Quiz {
            question: "What does a router on a shared snapshot not see between refreshes?",
            choices: &["The other routers' picks", "The cache contents it has been told about", "Its own picks"],
            correct: 0,
            why: "Its own picks are in its recent term; the others' reach it only through the next snapshot.",
            verify: Verify::Concept,
        },
    ]
};
