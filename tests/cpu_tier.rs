//! The CPU offload tier worked by hand on three requests: HBM's evictions are demoted to
//! the tier (least recently written dropped first when it is full), a later request's
//! prefix found there is loaded back as one transfer whose time is charged before its
//! prefill, and the report splits the cached tokens per tier. Then: a tier of 0 blocks
//! reports byte for byte as no tier, and the tier keeps every request ending once in
//! tight caches under every policy.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::Decision;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, fuzzing, params, Admission, Config, Policy, Request, WorkloadKind};

/// One replica of 3 blocks of 4 tokens; a step costs 1,000 µs plus 100 µs per prefill
/// token. A block is 4 tokens x 1,000 B = 4,000 B; the link moves 1 GB/s (1,000 B per
/// µs) after a fixed 100 µs per load.
fn config(cpu_kv_blocks: Option<u64>) -> Config {
    Config {
        instances: 1,
        routing: Policy::RoundRobin,
        block_size: 4,
        kv_blocks: Some(3),
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 100.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        kv_bytes_per_token: Some(1000),
        cpu_kv_blocks,
        cpu_load_gbps: 1.0,
        cpu_load_base_us: 100.0,
        ..Config::default()
    }
}

/// Each request: 9 prompt tokens (2 full blocks and a partial one), 1 output token.
/// A (blocks 1, 2) and B (5, 6) arrive at 0; C (1, 2 again) at 2,000 µs.
fn requests() -> Vec<Request> {
    let one = |id: u32, arrival_us: u64, ids: [u64; 3]| Request {
        id,
        arrival_us,
        prompt_tokens: 9,
        output_tokens: 1,
        block_ids: ids.into(),
        session: None,
        output_block_ids: Vec::new(),
    };
    vec![
        one(0, 0, [1, 2, 3]),
        one(1, 0, [5, 6, 7]),
        one(2, 2000, [1, 2, 9]),
    ]
}

fn run(cpu_kv_blocks: Option<u64>) -> (kvfleet::Report, Vec<Decision>) {
    let cfg = config(cpu_kv_blocks);
    let mut sim = api::replay_simulation(&cfg, requests(), "three").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (sim.into_report(), d)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// By hand. Each request holds ceil((9 + 1) / 4) = 3 blocks, the whole cache, so they run
// one at a time.
//
// t=0      A is admitted (no hit) and prefills 9 tokens: 1000 + 9 x 100 = 1900 µs.
// t=1900   A ends; its blocks 1, 2 stay cached, evictable (released tail first: 2, 1).
//          B is admitted: its 3 blocks evict 2 then 1, which are demoted to the tier.
//          B prefills 9 tokens: 1900 µs.
// t=2000   C arrives and waits.
// t=3800   B ends (blocks 6, 5 evictable). C: no HBM hit; at most (9 - 1) / 4 = 2 blocks
//          are reusable, and both, 1 and 2, are in the tier: one load of 2 x 4000 B =
//          8000 B, 100 + 8000 / 1000 = 108 µs, on the wire 3800..3908. Admitting C evicts
//          6 then 5 (demoted at the next boundary). C computes nothing until 3908.
// t=3908   C prefills its last token: 1000 + 100 = 1100 µs.
// t=5008   C's first (and only) token: TTFT 5008 - 2000 = 3008 µs.
// Without a tier C prefills all 9 tokens at 3800: 1900 µs, TTFT 5700 - 2000 = 3700 µs.
#[test]
fn a_prefix_demoted_to_the_tier_is_loaded_back_instead_of_prefilled() {
    let (r, d) = run(Some(10));
    assert!(close(d[2].admit_s.unwrap(), 0.0038), "{:?}", d[2].admit_s);
    assert_eq!(d[2].cached_blocks, Some(2));
    assert!(close(d[2].ttft_ms.unwrap(), 3.008), "{:?}", d[2].ttft_ms);
    let t = r.summary.cpu_tier.as_ref().expect("a tier reports");
    // 2 blocks x 4 tokens from the tier, none from HBM; 8 of the 27 prompt tokens.
    assert_eq!((t.hbm_hit_tokens, t.cpu_hit_tokens), (0, 8));
    assert!(close(t.cpu_hit_rate_tokens, 8.0 / 27.0));
    assert_eq!(
        r.summary.cached_tokens, 8,
        "the token hit rate counts any tier"
    );
    assert_eq!((t.loads, t.loaded_bytes), (1, 8000));
    assert!(close(t.load_ms, 0.108), "{}", t.load_ms);
    assert!(close(t.load_wait_ms, 0.0), "{}", t.load_wait_ms);
    // Demoted: 2, 1 (by B) and 6, 5 (by C), 4 blocks of 4000 B; none dropped.
    assert_eq!(
        (t.demoted_bytes, t.hbm_evictions, t.cpu_evictions),
        (16_000, 4, 0)
    );
    assert_eq!(r.per_instance[0].cpu_tier.as_ref(), Some(t));
    assert_eq!(r.summary.completed, 3);
}

#[test]
fn without_a_tier_the_evicted_prefix_is_prefilled_again() {
    let (r, d) = run(None);
    assert_eq!(d[2].cached_blocks, Some(0));
    assert!(close(d[2].ttft_ms.unwrap(), 3.7), "{:?}", d[2].ttft_ms);
    assert!(r.summary.cpu_tier.is_none());
    assert_eq!(r.summary.cached_tokens, 0);
}

// A tier of 1 block. At 3800 the demotions arrive in eviction order, 2 then 1: storing 1
// drops 2 (the least recently written). C finds block 1 in the tier and not block 2: a
// run of 1 block, 100 + 4000 / 1000 = 104 µs (3800..3904), then it prefills 9 - 4 = 5
// tokens, 1000 + 500 = 1500 µs: first token at 5404, TTFT 3404 µs. At 3904 the demotions
// of 6 then 5 go into the emptied tier: storing 5 drops 6. Two blocks dropped in all.
#[test]
fn a_full_tier_drops_its_least_recently_written_block_and_the_run_stops_there() {
    let (r, d) = run(Some(1));
    assert_eq!(d[2].cached_blocks, Some(1));
    assert!(close(d[2].ttft_ms.unwrap(), 3.404), "{:?}", d[2].ttft_ms);
    let t = r.summary.cpu_tier.as_ref().unwrap();
    assert_eq!((t.cpu_hit_tokens, t.loaded_bytes), (4, 4000));
    assert!(close(t.load_ms, 0.104), "{}", t.load_ms);
    assert_eq!((t.hbm_evictions, t.cpu_evictions), (4, 2));
    let text = kvfleet::report::text::render(&r);
    assert!(
        text.contains(
            "CPU tier: 0 tok from HBM, 4 tok loaded from CPU (14.8% of prompt tokens) in 1 loads"
        ),
        "{text}"
    );
    assert!(text.contains("evictions HBM 4, CPU 2"), "{text}");
}

// Two loads at one boundary queue on the link. Two slots and 6 blocks. A (blocks 1, 2)
// and B (5, 6) arrive at 0 and run one after the other (B arrives during A's step):
// 0..1900, 1900..3800. F (10, 11) and G (12, 13) arrive at 3000 and are admitted together
// at 3800: F evicts 2 (LRU: A released 2, 1 at 1900; B 6, 5 at 3800), G evicts 1, 6, 5;
// they prefill 18 tokens, 1000 + 1800 = 2800 µs, to 6600. C (1, 2) and D (5, 6) arrive at
// 5000. At 6600 C finds 1, 2 in the tier: a load of 108 µs, 6600..6708; D finds 5, 6: its
// load waits for the link, 6708..6816 (108 µs queued). Both wait; at 6708 C prefills its
// last token (1100 µs, to 7808: TTFT 2808 µs). D's load ends during that step, so D
// prefills at 7808, to 8908: TTFT 3908 µs.
#[test]
fn two_loads_at_one_boundary_queue_on_the_link() {
    let cfg = Config {
        kv_blocks: Some(6),
        max_batch: 2,
        ..config(Some(10))
    };
    let one = |id: u32, arrival_us: u64, a: u64, b: u64| Request {
        id,
        arrival_us,
        prompt_tokens: 9,
        output_tokens: 1,
        block_ids: vec![a, b, 100 + id as u64].into(),
        session: None,
        output_block_ids: Vec::new(),
    };
    let requests = vec![
        one(0, 0, 1, 2),
        one(1, 0, 5, 6),
        one(2, 3000, 10, 11),
        one(3, 3000, 12, 13),
        one(4, 5000, 1, 2),
        one(5, 5000, 5, 6),
    ];
    let mut sim = api::replay_simulation(&cfg, requests, "six").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    let r = sim.into_report();
    assert!(close(d[4].ttft_ms.unwrap(), 2.808), "{:?}", d[4].ttft_ms);
    assert!(close(d[5].ttft_ms.unwrap(), 3.908), "{:?}", d[5].ttft_ms);
    assert_eq!((d[4].cached_blocks, d[5].cached_blocks), (Some(2), Some(2)));
    let t = r.summary.cpu_tier.unwrap();
    assert_eq!((t.loads, t.cpu_hit_tokens, t.loaded_bytes), (2, 16, 16_000));
    assert!(close(t.load_ms, 0.216), "{}", t.load_ms);
    assert!(close(t.load_wait_ms, 0.108), "{}", t.load_wait_ms);
    assert_eq!(r.summary.completed, 6);
}

/// A pool workload in caches just large enough, with a tier: evictions happen, so the
/// tier has work to do.
fn tight(routing: Policy, workload: WorkloadKind, admission: Admission) -> Config {
    let mut cfg = Config {
        instances: 3,
        routing,
        workload,
        num_requests: 60,
        request_rate: 40.0,
        input_len: 1500,
        output_len: 40,
        num_prefixes: 6,
        prefix_len: 1024,
        num_sessions: 4,
        turns: 3,
        turn_input_len: 300,
        turn_output_len: 40,
        system_prompt_len: 1024,
        range_ratio: 0.0,
        block_size: 64,
        admission,
        ..Config::default()
    };
    // The longest request: a third turn of 1024 + 3 x (300 + 40) tokens, 33 blocks.
    cfg.kv_blocks = Some(40);
    cfg
}

#[test]
fn a_tier_of_zero_reports_byte_for_byte_as_no_tier() {
    for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
        let none = tight(Policy::Kv, workload, Admission::Reserve);
        let zero = Config {
            cpu_kv_blocks: Some(0),
            ..none.clone()
        };
        let a = api::synthetic_simulation(&none).unwrap().into_report();
        let b = api::synthetic_simulation(&zero).unwrap().into_report();
        assert!(
            a.summary.evictions > 0,
            "the cache must evict to test anything"
        );
        assert_eq!(a.to_json(), b.to_json());
    }
}

#[test]
fn a_tier_keeps_every_request_ending_once_under_every_policy() {
    let mut loaded = 0;
    for routing in Policy::ALL {
        for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
            for admission in Admission::ALL {
                for blocks in [4, 10_000] {
                    let cfg = Config {
                        cpu_kv_blocks: Some(blocks),
                        ..tight(routing, workload, admission)
                    };
                    params::validate(&cfg).unwrap();
                    fuzzing::run(&cfg);
                    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
                    let t = r.summary.cpu_tier.unwrap();
                    assert_eq!(t.hbm_hit_tokens + t.cpu_hit_tokens, r.summary.cached_tokens);
                    loaded += t.loads;
                }
            }
        }
    }
    assert!(loaded > 50, "{loaded} loads in all");
}
