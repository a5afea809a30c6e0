//! Lesson 9, "The router is the bottleneck": the design card's vCPU rule ("Needed ≈
//! calls per second × CPU per request ÷ 1000. Above about 90 % busy it slows down and may
//! crash"), broken with one router core at 1,500 requests a second and fixed with the
//! cores the rule asks for.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Null, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// One core and no queue limit at `RATE` requests a second.
macro_rules! one_core_at {
    ($rate:literal) => {
        config(&[("router_queue", Null), ("request_rate", Float($rate))])
    };
}

/// Two cores under kv (the lesson's policy).
const fn kv2() -> Changes {
    config(&[("router_vcpu", Int(2))])
}

/// Two cores under round robin, which hashes and matches no blocks (so it pays the
/// fixed path only).
const fn rr2() -> Changes {
    config(&[("router_vcpu", Int(2)), ("routing", Text("round_robin"))])
}

pub(super) const LESSON: Lesson = Lesson {
    id: "router-bottleneck",
    title: "The router is the bottleneck",
    story: "A chat front door takes 1,500 requests a second of short prompts (600 tokens, 512 of them one of 8 system prompts; one token out) and sends them through one kv router to 32 replicas. The router runs on one vCPU. Each request takes a core for 700 µs of selection and booking (Dynamo's routing path) plus 0.5 µs for each full 512-token block it hashes and matches. Up to 64 requests may wait for the core; the next ones are refused.",
    symptom: "The router's core is busy all the time (99.9%): 1,022 of the 20,000 requests are refused at the router, and every other one waits about 40 ms in its queue before it is even routed, while no replica ever has more than one request waiting.",
    broken: config(&[
        ("request_rate", Float(1500.0)),
        ("num_requests", Int(20000)),
        ("input_len", Int(600)),
        ("prefix_len", Int(512)),
        ("output_len", Int(1)),
        ("instances", Int(32)),
        ("router_vcpu", Int(1)),
        ("router_queue", Int(64)),
    ]),
    goal: "Every call served and a p99 TTFT under 20 ms, on a router of at most 8 vCPU (two routers at most).",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 20.0, label: "p99 TTFT under 20 ms" },
        Check { metric: "summary.completed", op: ">=", value: 20000.0, label: "all 20,000 calls served, none rejected or timed out" },
        Check { metric: "summary.rejected", op: "<=", value: 0.0, label: "no call refused" },
        Check { metric: "config.router_vcpu", op: "<=", value: 8.0, label: "a router of at most 8 vCPU" },
        Check { metric: "config.routers", op: "<=", value: 2.0, label: "at most 2 routers" },
    ],
    hints: &[
        "Read the Router CPU line under the fleet lines: how busy is the core, and how many requests did its queue refuse?",
        "The card's rule: needed cores ≈ calls per second × CPU ms per request ÷ 1000. Here that is 1,500 × 0.701 ÷ 1000.",
        "The rule asks for 1.05 cores; keep them under about 90% busy: give the router 2 vCPU (or run two routers of one vCPU each).",
    ],
    fixes: &[
        Fix { name: "2 vCPU", config: kv2() },
        Fix { name: "two routers of 1 vCPU", config: config(&[("routers", Int(2))]) },
    ],
    explanation: "The rule counts the router's work: 1,500 calls a second × 0.701 ms each ÷ 1000 = 1.05 cores, more than the one it had. A core that is asked for more than it can give is busy all the time and its queue only grows: past 64 waiting, calls are refused, and those admitted wait about 40 ms to be routed. Two cores are busy about 53%, the wait almost vanishes and p99 TTFT falls to about 11 ms. More replicas would not have helped: they sit behind the router. The policy enters the rule through its CPU per request: kv hashes and matches every full block of the prompt, 0.5 µs each, which a round-robin router does not do; on these one-block prompts that is small beside the fixed 700 µs, on long prompts it grows with every block.",
    rule_of_thumb: "Needed router vCPU ≈ calls per second × CPU ms per request ÷ 1000; keep them under about 90% busy.",
    difficulty: "intermediate",
    minutes: 10,
    trace: "",
    how: "A router is a queue with servers: its cores. Each request takes a core for the router's CPU time per request (a fixed path, plus hashing and matching each prompt block for a cache-aware policy) and is routed when that time ends; while every core is busy, arrivals wait in the router's queue, and past its limit they are refused. The wait plus the CPU time is the routing delay, and it is part of every request's TTFT. When the cores are seldom busy the delay is about the CPU time; it grows with the busy share, and from about 90% it climbs steeply; past 100% the queue grows for as long as the load lasts.",
    diagram: Diagram {
        caption: "p99 time to first token and calls refused at the router, by router vCPU, at 1,500 requests a second: one core refuses 1,022 calls; from two, none is refused and p99 falls under 20 ms.",
        x_key: "router_vcpu",
        x_label: "Router vCPU",
        values: &[1.0, 2.0, 4.0, 8.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: true,
        series: &[("kv", config(&[]))],
        second: Some(super::material::Panel { metric: "summary.rejected", y_label: "Calls refused", format: Format::Count, log_y: false }),
    },
    settings: &[
        Setting { key: "router_vcpu", rule: "Needed ≈ calls per second × CPU per request ÷ 1000. Above about 90% busy it slows down and may crash.", live: "vcpu_rule" },
        Setting { key: "router_queue", rule: "A longer queue turns refusals into waits; it adds no capacity.", live: "" },
        Setting { key: "routers", rule: "Each router has its own cores; arrivals are dealt to them in turn.", live: "" },
        Setting { key: "router_cpu_us_per_block", rule: "A cache-aware router pays per prompt block it hashes and matches; round robin and the other load balancers hash nothing, and prefix_aware hashes its leading block only (kvfleet charges each policy what it hashes).", live: "" },
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
    let busy = "router_cpu.busy_share.0";
    let delay99 = "router_cpu.routing_delay_ms_p99";
    &[
        Interview {
            question: "How many cores does a router need?",
            answer: "The card's rule: calls per second × CPU ms per request ÷ 1000, kept under about 90% busy. At 1,500 calls a second and 0.701 ms each that is 1.05 cores. On one core the router is busy {busy1} and refuses {rej1} of 20,000 calls; on two it is busy {busy2}, refuses {rej2}, and p99 TTFT is {p99_2}.",
            figures: &[
                fig("busy1", config(&[]), busy, Format::Percent),
                fig("rej1", config(&[]), "summary.rejected", Format::Count),
                fig("busy2", kv2(), busy, Format::Percent),
                fig("rej2", kv2(), "summary.rejected", Format::Count),
                fig("p99_2", kv2(), "summary.ttft_ms_p99", Format::Ms),
            ],
        },
        Interview {
            question: "Why does the card say the router slows down above about 90% busy, not at 100%?",
            answer: "Because a busy core makes requests queue before 100%: the wait grows as busy ÷ (1 − busy). On one core with no queue limit, at 1,200 calls a second it is busy {b1200} and the p99 routing delay is {d1200}; at 1,350, {b1350} busy and {d1350}; at 1,500, past 100%, the queue grows all run long and p99 is {d1500}.",
            figures: &[
                fig("b1200", one_core_at!(1200.0), busy, Format::Percent),
                fig("d1200", one_core_at!(1200.0), delay99, Format::Ms),
                fig("b1350", one_core_at!(1350.0), busy, Format::Percent),
                fig("d1350", one_core_at!(1350.0), delay99, Format::Ms),
                fig("d1500", one_core_at!(1500.0), delay99, Format::Ms),
            ],
        },
        Interview {
            question: "Does a cache-aware router need more cores than round robin?",
            answer: "Only by its matching: kv hashes and matches every full prompt block (0.5 µs each here) on top of the fixed path, round robin does not. On two cores the mean routing delay is {kv_d} under kv and {rr_d} under round robin, which pays the fixed path only; on these one-block prompts the difference is small, and it grows with the prompt's blocks (a 64,000-token prompt has 125).",
            figures: &[
                fig("kv_d", kv2(), "router_cpu.routing_delay_ms_mean", Format::Ms),
                fig("rr_d", rr2(), "router_cpu.routing_delay_ms_mean", Format::Ms),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "Which change meets the goal?",
            choices: &["Two routers of 1 vCPU each", "One vCPU with no limit on the router queue", "64 replicas instead of 32"],
            correct: 0,
            why: "Two routers give the fleet two cores; a longer queue turns refusals into waits of hundreds of milliseconds, and more replicas sit behind the same busy core.",
            verify: Verify::Goal { runs: &[config(&[("routers", Int(2))]), config(&[("router_queue", Null)]), config(&[("instances", Int(64))])] },
        },
        Quiz {
            question: "On one core with no limit on its queue, what is the p99 routing delay?",
            choices: &["Under 10 ms", "Between 10 ms and 100 ms", "Over 100 ms"],
            correct: 2,
            why: "At 105% of one core the queue grows for as long as the load lasts: the last requests wait for everything queued before them.",
            verify: Verify::Range { metric: "router_cpu.routing_delay_ms_p99", changes: config(&[("router_queue", Null)]), bounds: &[(0.0, 10.0), (10.0, 100.0), (100.0, f64::INFINITY)] },
        },
        Quiz {
            question: "On two cores, is the routing delay longer under kv than under a round-robin router that matches no blocks?",
            choices: &["Yes: kv's CPU per request includes its per-block matching", "No: the policy does not enter the router's CPU"],
            correct: 0,
            why: "The CPU per request is the fixed path plus the per-block matching, which a round-robin router does not do.",
            verify: Verify::Compare { metric: "router_cpu.routing_delay_ms_mean", a: kv2(), b: rr2(), if_less: 1, if_greater: 0 },
        },
        Quiz {
            question: "Why does the delay climb long before the core is 100% busy?",
            choices: &[
                "Arrivals are random: at 90% busy a request often finds the core taken and waits",
                "The router slows its CPU down when it is hot",
                "The replicas push back on the router",
            ],
            correct: 0,
            why: "A queue with random arrivals waits longer the closer its servers are to full: the wait grows as busy ÷ (1 − busy), which more than doubles from 90% busy to 95%.",
            verify: Verify::Concept,
        },
    ]
};
