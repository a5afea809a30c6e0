//! Lesson, "The cache-miss pile-up of a smallest-tree fallback": SGLang's cache-aware
//! router before December 2025 sent a cache miss to the replica with the smallest
//! approximate tree; short misses barely grow a tree, so one replica takes them all
//! (sgl-project/sglang PR #14532). Replays kvfleet's built-in document + chat trace.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Int, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

pub(super) const LESSON: Lesson = Lesson {
    id: "smallest-tree-pile-up",
    title: "The cache-miss pile-up of a smallest-tree fallback",
    story: "Two apps share a fleet of 4 replicas (16 concurrent sequences each) behind SGLang's cache-aware router, in its version from before December 2025. Document Q&A asks about one of three 4,000-token documents every 500 ms (100-token answers); a chat app sends a fresh 32-token prompt every 200 ms (1,000-token answers). The built-in trace holds 60 s of it, 420 requests.",
    symptom: "p99 time to first token is 24.8 s although the fleet has room: replica 3, the one that holds no document, takes 199 of the 420 requests and queues up to 55 of them, while the others never queue more than 2.",
    broken: config(&[("instances", Int(4)), ("max_batch", Int(16)), ("block_size", Int(16)), ("routing", Text("sglang")), ("sglang_miss", Text("tree"))]),
    goal: "p99 TTFT under 500 ms and a token hit rate of 92% or more, on the same 4 replicas of 16 slots, every call served.",
    checks: &[
        Check { metric: "summary.ttft_ms_p99", op: "<=", value: 500.0, label: "p99 TTFT under 500 ms" },
        Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.92, label: "token hit rate at least 92%" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 4.0, label: "at most 4 replicas" },
        Check { metric: "config.max_batch", op: "<=", value: 16.0, label: "at most 16 slots per replica" },
        Check { metric: "summary.completed", op: ">=", value: 420.0, label: "all 420 calls served, none rejected or timed out" },
    ],
    hints: &[
        "Read the per-replica table: which replica takes the chat prompts, and what is in its cache?",
        "A chat prompt matches nothing anywhere, so it is a miss. Where does this router send a miss, and does a 32-token prompt change that choice?",
        "Change what happens on a miss (the current SGLang sends it to the replica with the fewest requests in flight), or use a router whose cost counts load on every request.",
    ],
    fixes: &[
        Fix { name: "miss to the least loaded", config: config(&[("sglang_miss", Text("load"))]) },
        Fix { name: "Dynamo's router", config: config(&[("routing", Text("dynamo"))]) },
    ],
    explanation: "Every chat prompt is new, so its match rate is 0 and SGLang takes its miss path. The old miss path picks the replica with the smallest approximate tree, meant to spread new content. Replica 3 holds no document, so its tree is the smallest; a 32-token prompt grows it by almost nothing, so it stays the smallest and takes the next miss too. Its 1,000-token answers fill its 16 slots, and the queue grows until the balance guard (64 more in flight than the least loaded, and 1.5 times as many) trips. The current rule sends a miss to the replica with the fewest requests in flight: p99 TTFT falls to 15 ms, and the token hit rate rises from 90.0% to 94.8%, because the guard no longer trips (while it is tripped, document questions too go to the least-loaded replica, which may not hold their document). Dynamo's cost, which counts load on every decision, meets the goal too: 137 ms and 92.4%; so does prefix_aware (186 ms, 94.8%), which sends each prompt to the home of its first block: every chat prompt has a fresh first block, so the misses scatter. Note that the tree counts the prompt text the router sent, not what a replica's KV memory holds: replica 3's memory holds more blocks on average than two of the three replicas with a document (the long answers it is generating), while its tree stays the smallest.",
    rule_of_thumb: "A fallback that balances cache size is not a load balancer: misses cost load, not tree size.",
    difficulty: "advanced",
    minutes: 12,
    trace: "doc_chat_trace.jsonl",
    how: "SGLang's router keeps an approximate radix tree of what it sent to each replica. A request whose best match covers enough of its prompt (over 30%) goes to the replica of that match; below it, the request is a miss. The old rule sent a miss to the replica with the smallest tree, and a guard overrode both when one replica had over 64 more requests in flight than the least loaded and 1.5 times as many. A miss that is short but answers long adds little to a tree and much to a queue.",
    diagram: Diagram {
        caption: "p99 time to first token by concurrency slots per replica: under the smallest-tree rule the pile-up needs 64 slots on one replica to disappear; the least-loaded rule is fine from 12.",
        x_key: "max_batch",
        x_label: "Slots per replica",
        values: &[8.0, 12.0, 16.0, 32.0, 64.0],
        metric: "summary.ttft_ms_p99",
        y_label: "p99 TTFT",
        format: Format::Ms,
        log_y: true,
        series: &[("smallest tree (before Dec. 2025)", config(&[])), ("least loaded (current)", config(&[("sglang_miss", Text("load"))]))],
        second: None,
    },
    settings: &[
        Setting { key: "sglang_miss", rule: "Send a miss where there is room, not where the cache is smallest.", live: "" },
        Setting { key: "max_batch", rule: "", live: "" },
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

const fn load() -> Changes {
    config(&[("sglang_miss", Text("load"))])
}

const INTERVIEW: &[Interview] = {
    let p99 = "summary.ttft_ms_p99";
    let r3 = "per_instance.3.requests";
    &[
        Interview {
            question: "Why does a smallest-tree fallback pile cache misses onto one replica?",
            answer: "The tree measures cached content, not load. The replica without a document has the smallest tree; each short chat prompt grows it by 32 tokens, so it stays the smallest and takes the next miss as well. Here it takes {r3_tree} of 420 requests and queues up to {q3_tree}; its 1,000-token answers hold its 16 slots for seconds each. Under the least-loaded rule it takes {r3_load}.",
            figures: &[
                fig("r3_tree", config(&[]), r3, Format::Count),
                fig("q3_tree", config(&[]), "per_instance.3.peak_queue", Format::Count),
                fig("r3_load", load(), r3, Format::Count),
            ],
        },
        Interview {
            question: "The balance guard exists. Why does it not prevent the pile-up?",
            answer: "It trips only when one replica has over 64 more requests in flight than the least loaded and 1.5 times as many. With 16 slots per replica, over 50 requests wait before it acts, so queue waits reach {p99_tree} at p99. With 64 slots the pile-up fits in the slots and p99 falls to {p99_64}; the current miss rule needs no such room: {p99_load} on 16 slots.",
            figures: &[
                fig("p99_tree", config(&[]), p99, Format::Ms),
                fig("p99_64", config(&[("max_batch", Int(64))]), p99, Format::Ms),
                fig("p99_load", load(), p99, Format::Ms),
            ],
        },
        Interview {
            question: "Would round robin have avoided the problem?",
            answer: "It avoids the pile-up ({p99_rr} at p99) but scatters the documents: every replica must compute every document once, and the token hit rate falls to {hit_rr}, against {hit_load} for SGLang's current rule, which keeps document questions on the replica that holds the document and sends misses where there is room.",
            figures: &[
                fig("p99_rr", config(&[("routing", Text("round_robin"))]), p99, Format::Ms),
                fig("hit_rr", config(&[("routing", Text("round_robin"))]), "summary.hit_rate_tokens", Format::Percent),
                fig("hit_load", load(), "summary.hit_rate_tokens", Format::Percent),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    let p99 = "summary.ttft_ms_p99";
    &[
        Quiz {
            question: "Under the smallest-tree rule, how many of the 420 requests does replica 3 take?",
            choices: &["About a quarter (under 150)", "Almost half (150 or more)"],
            correct: 1,
            why: "It holds no document, so its tree is the smallest, and the short chat prompts keep it that way.",
            verify: Verify::Range { metric: "per_instance.3.requests", changes: config(&[]), bounds: &[(0.0, 150.0), (150.0, 421.0)] },
        },
        Quiz {
            question: "Which change meets the goal?",
            choices: &["Dynamo's router", "Round robin", "A fifth replica"],
            correct: 0,
            why: "Dynamo weighs each replica's load beside its overlap, so misses do not pile up; round robin loses the document hits (87.5%); a fifth replica breaks the budget, and the pile-up still costs 2.9 s at p99 there.",
            verify: Verify::Goal { runs: &[config(&[("routing", Text("dynamo"))]), config(&[("routing", Text("round_robin"))]), config(&[("instances", Int(5))])] },
        },
        Quiz {
            question: "With 3 replicas instead of 4, all holding a document, is p99 TTFT under the smallest-tree rule above or below 500 ms?",
            choices: &["Below: no replica has a tree small enough to attract every miss", "Above: fewer replicas, more queueing"],
            correct: 0,
            why: "The pile-up needs one replica whose tree is far smaller than the others'. With three replicas each holds a document, the misses rotate between them, and p99 is 14 ms.",
            verify: Verify::Range { metric: p99, changes: config(&[("instances", Int(3))]), bounds: &[(0.0, 500.0), (500.0, f64::INFINITY)] },
        },
        Quiz {
            question: "What does SGLang's approximate tree of a replica measure?",
            choices: &["The text the router has sent it (what it probably caches)", "The requests it has in flight", "Its free KV memory"],
            correct: 0,
            why: "The router builds it from the prompts it routed; that is why it says nothing about load.",
            verify: Verify::Concept,
        },
    ]
};
