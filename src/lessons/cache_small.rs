//! Lesson 2, "The cache is too small": four replicas with the HBM one H100 really has,
//! on the conversation trace, where the token hit rate collapses; three fixes, each
//! measured with its cost: more HBM (more GPUs, with cache-aware routing), a CPU tier
//! per replica, a shared tier for the fleet.

use super::material::{Diagram, Figure, Format, Interview, Quiz, Verify};
use super::Set::{Int, Null, Text};
use super::{config, Changes, Check, Fix, Lesson, Setting};

/// `routing` on 16 replicas: four times the HBM, in four times the GPUs.
macro_rules! sixteen {
    ($routing:literal) => {
        config(&[("instances", Int(16)), ("routing", Text($routing))])
    };
}

const fn cpu_tier() -> Changes {
    config(&[("cpu_kv_blocks", Int(8000))])
}

const fn shared_tier() -> Changes {
    config(&[("shared_kv_blocks", Int(30000))])
}

pub(super) const LESSON: Lesson = Lesson {
    id: "cache-too-small",
    title: "The cache is too small",
    story: "A chat service runs Llama-3-8B on 4 H100s behind a round-robin router and replays an hour of Mooncake's conversation traffic (12,031 requests, prompts of 12,000 tokens on average). Each H100 has 80 GB of HBM; after the 16 GB of weights and a 10% reserve, 833 blocks of 512 tokens are left for KV (at 128 KiB a token, 64 MiB a block). Conversations come back turn after turn, so their earlier turns are there to reuse, if the cache still holds them.",
    symptom: "Only 5.1% of prompt tokens come from cache: each replica keeps 833 blocks, room for about 35 prompts of average length while 3.4 new requests arrive every second, so a conversation's earlier turns are evicted before it comes back.",
    broken: config(&[("instances", Int(4)), ("kv_blocks", Int(833)), ("routing", Text("round_robin"))]),
    goal: "Serve at least 15% of prompt tokens from cache, with each replica's HBM still one H100's 833 blocks, on at most 16 GPUs (four times today's), every call served. Then read what your fix costs.",
    checks: &[
        Check { metric: "summary.hit_rate_tokens", op: ">=", value: 0.15, label: "token hit rate at least 15%" },
        Check { metric: "config.kv_blocks", op: "<=", value: 833.0, label: "at most 833 HBM blocks a replica (one H100)" },
        Check { metric: super::FLEET_CEILING, op: "<=", value: 16.0, label: "at most 16 GPUs (16 replicas, an autoscaler's ceiling included)" },
        Check { metric: "summary.completed", op: ">=", value: 12031.0, label: "all 12,031 calls served, none rejected or timed out" },
    ],
    hints: &[
        "An H100 holds what it holds, so the HBM per replica stays at 833 blocks. Where else can KV live? More GPUs, host memory, or a store shared by the fleet.",
        "Try a CPU tier: give each replica's host memory 8,000 blocks (500 GiB) and watch the token hit rate and the bytes loaded over PCIe.",
        "Or a shared tier of 30,000 blocks for the whole fleet; or 16 replicas, with the kv router so that each conversation returns to the replica holding it.",
    ],
    fixes: &[
        Fix { name: "a shared tier of 30,000 blocks", config: shared_tier() },
        Fix { name: "a CPU tier of 8,000 blocks a replica", config: cpu_tier() },
        Fix { name: "16 replicas behind kv", config: sixteen!("kv") },
    ],
    explanation: "The content allows far more: with unbounded caches the same 4 replicas serve 19.6% of prompt tokens from cache under round robin and 28.0% under kv. Each fix buys back part of that, at its own cost. More HBM means more GPUs: 16 replicas behind kv reach 19.2%, for 16 GPU-hours in place of 4; behind round robin they stay at 6.0%, since each conversation lands on a replica that has not seen it. A CPU tier of 8,000 blocks a replica (500 GiB of host memory each) reaches 15.8% on the same 4 GPUs and loads about 2 TB back over PCIe in the hour, about 32 s of link time. A shared tier of 30,000 blocks reaches 33.3%, above what unbounded HBM caches give round robin, because any replica reuses what any other computed: it moves about 5.3 TB over the network, about 214 s of link time. Cache-aware routing alone costs nothing, but on caches this small it wins little (6.1%): routing can only keep blocks that the cache can hold.",
    rule_of_thumb: "When the cache is too small, routing cannot help much: add KV capacity (a tier below HBM costs link time, not GPUs), then route to it.",
    difficulty: "intermediate",
    minutes: 15,
    trace: super::reuse::TRACE,
    how: "A replica's HBM holds the running requests' KV and, in what is left, the prefixes it keeps for reuse, least recently used evicted first. When a conversation comes back after its blocks were evicted, its whole history is prefilled again. Capacity can be added below HBM: a CPU tier per replica keeps what HBM evicts and loads a hit back over PCIe; a shared tier keeps what every replica evicts, and any replica loads from it over the network. More replicas add HBM too, but split it into caches that only help if the router sends each conversation back to the one holding it.",
    diagram: Diagram {
        caption: "Token hit rate on the conversation trace with one H100's 833 blocks a replica, by replicas: round robin stays near 5% however many replicas; kv climbs with the HBM they add, to 19.2% at 16.",
        x_key: "instances",
        x_label: "Replicas (one H100 each)",
        values: &[4.0, 8.0, 16.0],
        metric: "summary.hit_rate_tokens",
        y_label: "Token hit rate",
        format: Format::Percent,
        log_y: false,
        series: &[("round_robin", config(&[])), ("kv", config(&[("routing", Text("kv"))]))],
        second: None,
    },
    settings: &[
        Setting { key: "kv_blocks", rule: "HBM for KV is what the GPU holds after weights and a reserve: here 833 blocks of 512 tokens.", live: "" },
        Setting { key: "cpu_kv_blocks", rule: "A tier below HBM adds capacity without adding GPUs; its cost is the link time of the loads.", live: "" },
        Setting { key: "shared_kv_blocks", rule: "A shared tier lets any replica reuse what any other computed.", live: "" },
        Setting { key: "instances", rule: "More replicas add HBM in separate caches.", live: "" },
        Setting { key: "routing", rule: "Route each conversation back to the replica that holds it.", live: "" },
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
    let hit = "summary.hit_rate_tokens";
    &[
        Interview {
            question: "The hit rate is low. How do you tell a cache that is too small from a router that scatters?",
            answer: "Lift the cache limit and keep the router: on these 4 replicas round robin serves {broken} of prompt tokens from cache with 833 blocks a replica and {rr_unb} with unbounded caches, so most of what it misses is capacity. Then keep the cache and change the router: kv gets {kv} with 833 blocks, {kv_unb} unbounded. A router helps once the cache can hold what it routes for.",
            figures: &[
                fig("broken", config(&[]), hit, Format::Percent),
                fig("rr_unb", config(&[("kv_blocks", Null)]), hit, Format::Percent),
                fig("kv", config(&[("routing", Text("kv"))]), hit, Format::Percent),
                fig("kv_unb", config(&[("kv_blocks", Null), ("routing", Text("kv"))]), hit, Format::Percent),
            ],
        },
        Interview {
            question: "A CPU tier or a shared tier: what does each cost?",
            answer: "Link time instead of prefill. A CPU tier of 8,000 blocks on each replica serves {cpu} of prompt tokens from cache and loads {cpu_tb} back over PCIe in the hour, {cpu_s} of link time. A shared tier of 30,000 blocks serves {sh} and moves {sh_tb} over the network, {sh_s} of link time: more bytes, because any replica can load what any other computed.",
            figures: &[
                fig("cpu", cpu_tier(), hit, Format::Percent),
                fig("cpu_tb", cpu_tier(), "summary.cpu_tier.loaded_bytes", Format::Terabytes),
                fig("cpu_s", cpu_tier(), "summary.cpu_tier.load_ms", Format::Ms),
                fig("sh", shared_tier(), hit, Format::Percent),
                fig("sh_tb", shared_tier(), "summary.shared_tier.loaded_bytes", Format::Terabytes),
                fig("sh_s", shared_tier(), "summary.shared_tier.load_ms", Format::Ms),
            ],
        },
        Interview {
            question: "Why does adding GPUs not raise the hit rate under round robin?",
            answer: "Each GPU adds a separate cache. Round robin sends a conversation's next turn to any replica, which has seldom seen it: 16 replicas serve {rr16} of prompt tokens from cache against {broken} on 4. Behind kv the same 16 serve {kv16}, because each conversation returns to the replica holding it.",
            figures: &[
                fig("rr16", sixteen!("round_robin"), hit, Format::Percent),
                fig("broken", config(&[]), hit, Format::Percent),
                fig("kv16", sixteen!("kv"), hit, Format::Percent),
            ],
        },
    ]
};

const QUIZ: &[Quiz] = {
    let hit = "summary.hit_rate_tokens";
    &[
        Quiz {
            question: "Which single change meets the goal?",
            choices: &["A shared tier of 30,000 blocks", "The kv router on the same 4 replicas", "16 replicas behind round robin"],
            correct: 0,
            why: "Routing cannot keep blocks that 833 blocks cannot hold, and 16 round-robin replicas scatter each conversation over 16 small caches; a shared tier keeps what every replica evicts, for all of them.",
            verify: Verify::Goal { runs: &[shared_tier(), config(&[("routing", Text("kv"))]), sixteen!("round_robin")] },
        },
        Quiz {
            question: "With a CPU tier of 8,000 blocks a replica, does the kv router serve more prompt tokens from cache than round robin?",
            choices: &["Yes: it sends a conversation back to the replica whose tiers hold it", "No: with a tier, routing no longer matters"],
            correct: 0,
            why: "A replica's CPU tier holds only what that replica evicted, so a conversation still hits more where it was before.",
            verify: Verify::Compare {
                metric: hit,
                a: config(&[("cpu_kv_blocks", Int(8000)), ("routing", Text("kv"))]),
                b: cpu_tier(),
                if_less: 1,
                if_greater: 0,
            },
        },
        Quiz {
            question: "How much KV does the CPU tier of 8,000 blocks a replica load back over PCIe in the hour?",
            choices: &["Under 100 GB", "Between 100 GB and 10 TB", "Over 10 TB"],
            correct: 1,
            why: "About 2 TB: each hit in the tier is a load of 64 MiB a block, and conversations come back thousands of times in the hour.",
            verify: Verify::Range { metric: "summary.cpu_tier.loaded_bytes", changes: cpu_tier(), bounds: &[(0.0, 1e11), (1e11, 1e13), (1e13, f64::INFINITY)] },
        },
        Quiz {
            question: "Why can a shared tier beat even unbounded HBM caches under round robin?",
            choices: &[
                "Any replica can load what any other replica computed",
                "The network is faster than HBM",
                "A shared tier compresses the blocks",
            ],
            correct: 0,
            why: "A replica's own cache, however large, holds only what that replica computed; a shared tier pools the fleet's blocks.",
            verify: Verify::Concept,
        },
    ]
};
