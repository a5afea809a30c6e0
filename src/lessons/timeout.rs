//! Lesson 3, "A timeout below p99 cuts off healthy calls": the card's watch-out on caller
//! timeouts, on bursty traffic whose tail is far above its median.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Float, Int, Null, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// The broken setup without its timeout.
const fn no_timeout() -> Changes {
    config(&[("timeout_ms", Null)])
}

pub(super) const LESSON: Lesson = Lesson {
    id: "timeout-below-p99",
    title: "A timeout below p99 cuts off healthy calls",
    story: "A chat API takes bursty traffic, 10 requests a second on average, on 4 replicas. Its client library gives up on a call that has no first token after 100 ms, a default someone copied from a faster service. Nothing in the fleet is overloaded: the median first token comes in under 80 ms. Yet users keep seeing timeouts.",
    symptom: "About a fifth of all calls time out, every one of them a call the fleet would have answered: bursts queue a few requests for a moment, and those wait a little longer than the median.",
    broken: config(&[("arrival_model", Text("gamma")), ("burstiness", Float(0.3)), ("request_rate", Float(10.0)), ("num_requests", Int(1000)), ("timeout_ms", Float(100.0))]),
    goal: "At most 1% of calls time out and none is rejected, with a caller timeout still set, at most 1 s.",
    checks: &[
        Check { metric: "summary.timed_out", op: "<=", value: 10.0, label: "at most 10 of 1,000 calls time out" },
        Check { metric: "summary.rejected", op: "<=", value: 0.0, label: "no call rejected" },
        Check { metric: "config.timeout_ms", op: "<=", value: 1000.0, label: "a caller timeout of at most 1 s is set" },
    ],
    hints: &[
        "Tick 'No timeout' under Caller timeout for a moment and read the TTFT percentiles: where is p99?",
        "The card's rule: set the timeout above p99. At p99 itself, 1% of healthy calls are still cut.",
        "Try a timeout of about one and a half times the p99 TTFT.",
    ],
    fixes: &[
        Fix { name: "timeout 300 ms", config: config(&[("timeout_ms", Float(300.0))]) },
        Fix { name: "timeout 1 s", config: config(&[("timeout_ms", Float(1000.0))]) },
    ],
    explanation: "A timeout is a statement about the tail: any call slower than it is cut, healthy or not. Bursty arrivals queue a few calls for a moment, so the tail sits well above the median (here p50 is about 77 ms and p99 about 190 ms without a timeout). At 100 ms the timeout cuts everything the bursts delayed, about 20% of calls; at 200 ms, just above p99, it still cuts 14; at 300 ms it cuts none. A timed-out call is not free either: its prefill has already run, so the work is spent and a retry adds more.",
    rule_of_thumb: "Set the caller timeout above p99, with a margin.",
    difficulty: "beginner",
    minutes: 8,
    trace: "",
    how: "A caller timeout drops a request that has no first token that long after it arrived: from the queue, at the next step, or when its first token comes too late. It says nothing about the fleet's health, only about the tail of the latency: every call slower than the timeout is cut.",
    diagram: Diagram {
        caption: "Calls cut by the timeout, of 1,000: many while the timeout is below the p99 TTFT of a run without one, none with a margin above it.",
        x_key: "timeout_ms",
        x_label: "Caller timeout (ms)",
        values: &[80.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0],
        metric: "summary.timed_out",
        y_label: "Calls timed out",
        format: Format::Count,
        log_y: false,
        series: &[("timed out", config(&[]))],
        second: None,
    },
    settings: &[
        Setting { key: "timeout_ms", rule: "Set the caller timeout above p99, with a margin.", live: "timeout_above_p99" },
        Setting { key: "burstiness", rule: "Bursty arrivals put the tail far above the median.", live: "" },
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
    let to = "summary.timed_out";
    &[
        Interview {
            question: "How do you choose a caller timeout for an LLM endpoint?",
            answer: "From the latency distribution, not the median: set it above p99 with a margin. On this fleet, without a timeout, the median time to first token is {p50} and p99 is {p99}. A 100 ms timeout, above the median, still cuts {cut100} of 1,000 calls; 300 ms cuts {cut300}.",
            figures: &[
                fig("p50", no_timeout(), "summary.ttft_ms_p50", Format::Ms),
                fig("p99", no_timeout(), "summary.ttft_ms_p99", Format::Ms),
                fig("cut100", config(&[]), to, Format::Count),
                fig("cut300", config(&[("timeout_ms", Float(300.0))]), to, Format::Count),
            ],
        },
        Interview {
            question: "Why does a timeout just above p99 still cut calls?",
            answer: "p99 means 1% of calls are slower than it, so a timeout at p99 cuts about 1% by definition, and the tail beyond p99 is where bursts put their calls. Here a 200 ms timeout, just above the p99 of {p99} measured without one, cuts {cut200} calls; 250 ms cuts {cut250}.",
            figures: &[
                fig("p99", no_timeout(), "summary.ttft_ms_p99", Format::Ms),
                fig("cut200", config(&[("timeout_ms", Float(200.0))]), to, Format::Count),
                fig("cut250", config(&[("timeout_ms", Float(250.0))]), to, Format::Count),
            ],
        },
        Interview {
            question: "The fleet is healthy, yet callers see timeouts. What do you look at first?",
            answer: "Compare the timeout with the latency percentiles of the same traffic. Here the timeout (100 ms) sits between the median ({p50}) and p90 ({p90}) of a run without it, so it cuts the calls that bursts delayed: {cut} of 1,000, while no replica is overloaded. The fix is the timeout, not more replicas.",
            figures: &[
                fig("p50", no_timeout(), "summary.ttft_ms_p50", Format::Ms),
                fig("p90", no_timeout(), "summary.ttft_ms_p90", Format::Ms),
                fig("cut", config(&[]), to, Format::Count),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    &[
        Quiz {
            question: "With the 100 ms timeout, what p99 TTFT does the run itself report?",
            choices: &["At most 100 ms: the calls it cut off are not in it", "Between 100 ms and 1 s", "Over 1 s"],
            correct: 0,
            why: "Only the calls that got their first token count, and each of them got it within 100 ms: a run's own p99 cannot show the tail its timeout cut off.",
            verify: Verify::Range { metric: "summary.ttft_ms_p99", changes: config(&[]), bounds: &[(0.0, 100.001), (100.001, 1000.0), (1000.0, f64::INFINITY)] },
        },
        Quiz {
            question: "Which timeout meets the goal?",
            choices: &["1 s", "2 s", "No timeout at all"],
            correct: 0,
            why: "1 s is far above p99 and cuts no call; 2 s cuts nothing either but is longer than the goal allows, and the goal keeps a timeout.",
            verify: Verify::Goal { runs: &[config(&[("timeout_ms", Float(1000.0))]), config(&[("timeout_ms", Float(2000.0))]), no_timeout()] },
        },
        Quiz {
            question: "With a 1 s timeout, would the same calls arriving smoothly (Poisson, burstiness 1) have a lower p99 TTFT than with the lesson's bursts?",
            choices: &["Yes: the tail is the queueing of the bursts", "No: the tail is how slow the replicas are"],
            correct: 0,
            why: "The median call is fast either way; the tail comes from calls queued behind a burst, so smoother arrivals shorten it.",
            verify: Verify::Compare {
                metric: "summary.ttft_ms_p99",
                a: config(&[("timeout_ms", Float(1000.0)), ("burstiness", Float(1.0))]),
                b: config(&[("timeout_ms", Float(1000.0))]),
                if_less: 0,
                if_greater: 1,
            },
        },
        Quiz {
            question: "Would adding replicas be the right fix here?",
            choices: &[
                "Yes: timeouts mean the fleet is too small",
                "No: the fleet is not overloaded; the timeout is below the tail of healthy latency",
            ],
            correct: 1,
            why: "No replica is overloaded; the median first token is well under the timeout. The timeout, not the fleet, is wrong.",
            verify: Verify::Concept,
        },
    ]
};
