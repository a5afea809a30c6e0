//! The `preempt` admission rule worked by hand on two requests: admission on the prompt
//! with later growth, which request is preempted, the tokens it recomputes, the hit it
//! finds when it resumes, and the time it loses; the `reserve` rule on the same requests
//! for contrast; the text report's line; and a split fleet's decode replica, which
//! preempts and recomputes locally.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::Decision;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, Admission, Config, Policy, Request};

/// One replica of 6 blocks of 4 tokens; a step costs 1,000 µs plus 1 µs per prefill
/// token, nothing per decoding sequence or KV token (so every number below is by hand).
fn config(admission: Admission) -> Config {
    Config {
        instances: 1,
        routing: Policy::RoundRobin,
        block_size: 4,
        kv_blocks: Some(6),
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 1.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        admission,
        ..Config::default()
    }
}

/// Request 0: 8 prompt tokens (blocks 10, 11), 13 out. Request 1: 8 prompt tokens
/// (blocks 20, 21), 9 out. Both arrive at 0.
fn requests() -> Vec<Request> {
    let one = |id: u32, ids: [u64; 2], output_tokens: u32| Request {
        id,
        arrival_us: 0,
        prompt_tokens: 8,
        output_tokens,
        block_ids: ids.into(),
        session: None,
        output_block_ids: Vec::new(),
    };
    vec![one(0, [10, 11], 13), one(1, [20, 21], 9)]
}

fn run(admission: Admission) -> (kvfleet::Report, Vec<Decision>) {
    let mut sim = api::replay_simulation(&config(admission), requests(), "two").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (sim.into_report(), d)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// The preempt run, by hand (block_size 4; a decoding request that has generated g tokens
// holds ceil((8 + g - 1) / 4) blocks, and its next step needs ceil((8 + g) / 4)):
//
// t=0      request 0 arrives to an idle replica: admitted on its prompt, 2 blocks. Request
//          1 arrives during that step. Prefill step: 1000 + 8 = 1008 µs.
// t=1008   request 0 (g=1) needs ceil(9/4) = 3 blocks: +1 (3 used). Request 1 is admitted
//          on its prompt, 2 blocks (5 used): under `reserve` it would need ceil(17/4) = 5
//          with request 0 holding ceil(21/4) = 6, so it would wait. Step: request 1's 8
//          prefill tokens and request 0's decode: 1008 µs.
// t=2016   request 1 (g=1) needs 3 blocks: +1 (6 used, all). Decode run: request 0 stays in
//          3 blocks while ceil((9 + k) / 4) <= 3, k <= 3; request 1 while ceil((8 + k) / 4)
//          <= 3, k <= 4; no spare block, so the run is 3 steps, 3000 µs.
// t=5016   request 0 (g=5) needs ceil(13/4) = 4 blocks and none is free: the most recently
//          admitted running request, request 1 (g=4), is preempted. It gives back its 3
//          blocks (prompt blocks 20, 21 stay cached, evictable; its private block is
//          freed), having computed 8 + 4 - 1 = 11 KV tokens. Request 0 takes the freed
//          block. No one is admitted at this boundary.
//          Request 0 alone: 8 steps left; at k = 8 it needs ceil((12 + 8) / 4) = 5 blocks,
//          1 more, and the spare is the 2 evictable blocks: the run takes it now, evicting
//          block 21 (a released prompt's tail goes first). Run: 8000 µs.
// t=13016  request 0 ends (g=13). Request 1 resumes: it needs ceil((8 + 4) / 4) = 3 blocks;
//          of its prompt, block 20 is still cached, 21 is not: a hit of 1 block (4 tokens).
//          It prefills 8 + 4 - 4 = 8 tokens, 11 - 4 = 7 of which it had computed before.
//          Step: 1000 + 8 = 1008 µs.
// t=14024  request 1's recomputation makes its 5th token: the time lost is
//          14024 - 5016 = 9008 µs. It needs ceil(13/4) = 4 blocks (+1, 6 used); 4 steps
//          left fit in them (ceil(16/4) = 4). Run: 4000 µs.
// t=18024  request 1 ends.
#[test]
fn admission_on_the_prompt_grows_then_preempts_the_newest_which_recomputes() {
    let (r, d) = run(Admission::Preempt);
    // Admission on the prompt: request 1 starts at 1008 µs; its first token at 2016 µs.
    assert_eq!(d[1].admit_s, Some(0.001008));
    assert!(close(d[1].ttft_ms.unwrap(), 2.016), "{:?}", d[1].ttft_ms);
    assert!(close(d[0].ttft_ms.unwrap(), 1.008), "{:?}", d[0].ttft_ms);
    // The victim is request 1, the most recently admitted, though request 0 needed the
    // block; request 0 is never preempted.
    assert!(d[0].preemptions.is_empty());
    assert_eq!(d[1].preemptions.len(), 1);
    let p = &d[1].preemptions[0];
    assert_eq!(p.replica, 0);
    assert!(close(p.at_s, 0.005016), "{}", p.at_s);
    assert_eq!((p.blocks_freed, p.generated), (3, 4));
    // It resumes when request 0 ends, finding 1 of its 2 prompt blocks.
    assert!(close(p.resumed_s.unwrap(), 0.013016));
    assert_eq!(p.resumed_cached_blocks, Some(1));
    assert_eq!(p.recomputed_tokens, Some(7));
    // The first admission's hit is what the hit rate counts: none, for new blocks.
    assert_eq!(d[1].cached_blocks, Some(0));
    assert!(close(d[0].e2e_ms.unwrap(), 13.016), "{:?}", d[0].e2e_ms);
    assert!(close(d[1].e2e_ms.unwrap(), 18.024), "{:?}", d[1].e2e_ms);
    // The report: one preemption, 7 recomputed tokens, 9.008 ms lost; one eviction.
    let s = r.summary.preemption.as_ref().unwrap();
    assert_eq!((s.preemptions, s.recomputed_tokens), (1, 7));
    assert!(close(s.time_lost_ms, 9.008), "{}", s.time_lost_ms);
    assert_eq!(r.per_instance[0].preemption.as_ref(), Some(s));
    assert_eq!(r.summary.evictions, 1);
    assert_eq!(r.summary.completed, 2);
    assert!(r.unended.is_none());
}

// The reserve run, by hand: request 0 reserves ceil((8 + 13) / 4) = 6 blocks, all of
// them; request 1 (5 blocks) waits until it ends. Request 0: prefill 1008 µs, then 12
// decode steps, done at 13008. Request 1 is admitted at 13008 (no hit: its blocks are
// new), prefills in 1008 µs (first token at 14016) and decodes 8 steps: done at 22016.
#[test]
fn the_reserve_rule_makes_the_second_request_wait_for_the_whole_first() {
    let (r, d) = run(Admission::Reserve);
    assert_eq!(d[1].admit_s, Some(0.013008));
    assert!(close(d[1].ttft_ms.unwrap(), 14.016), "{:?}", d[1].ttft_ms);
    assert!(close(d[1].e2e_ms.unwrap(), 22.016), "{:?}", d[1].e2e_ms);
    assert!(d.iter().all(|x| x.preemptions.is_empty()));
    // No preemption figures at all: the report reads as before the rule existed.
    assert!(r.summary.preemption.is_none());
    assert!(r.per_instance[0].preemption.is_none());
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("preemption"), "{json}");
}

#[test]
fn the_text_report_has_the_preemption_line() {
    let (r, _) = run(Admission::Preempt);
    let text = kvfleet::report::text::render(&r);
    assert!(
        text.contains(
            "  Preemptions (admission=preempt): 1 (per replica 1), recomputed 7 tok, time lost 9.01 ms\n"
        ),
        "{text}"
    );
    let (r, _) = run(Admission::Reserve);
    assert!(!kvfleet::report::text::render(&r).contains("Preemptions"));
}

// The same two requests in a split fleet, 1 prefill and 1 decode replica of 6 blocks
// each, a transfer of 8 × 125 B over 1 GB/s with no base cost: 1 µs.
//
// Prefill replica: request 0 prefills 0 → 1008 µs (hand-off), request 1 1008 → 2016.
// Transfers end at 1009 and 2017 (their first tokens).
// Decode replica, by hand:
// t=1009   request 0 (g=1) is admitted on its prompt and first step, ceil(9/4) = 3 blocks.
//          12 steps left; the run takes what its steps fill while the 3 spare blocks last:
//          all 12 (it ends in ceil(20/4) = 5 blocks).
// t=2017   request 1 arrives (3 blocks needed, 1 free, 2 held ahead of need by the run):
//          the run is cut at its next step boundary, 1009 + 2 × 1000 = 3009.
// t=3009   request 0 (g=3) gives back the 2 blocks beyond ceil(10/4) = 3; request 1 is
//          admitted (3 blocks, 6 used). Run: request 0 fits 3 blocks for k <= 2 more steps
//          (ceil((10 + k) / 4)), request 1 for k <= 4: 2 steps, to 5009.
// t=5009   request 0 (g=5) needs a 4th block: request 1 (g=3, 3 blocks, 10 KV tokens
//          computed), the most recently admitted, is preempted and stays on the decode
//          replica. Request 0's run (8 steps, to ceil(20/4) = 5 blocks) evicts block 21.
// t=13009  request 0 ends. Request 1 resumes on the decode replica: block 20 still cached
//          (1 block), it prefills 8 + 3 - 4 = 7 tokens there (6 of them recomputed):
//          1007 µs, its 4th token at 14016: 9007 µs lost. Then 5 steps: done at 19016.
#[test]
fn a_decode_replica_preempts_and_recomputes_locally() {
    let cfg = Config {
        instances: 2,
        prefill_instances: Some(1),
        decode_instances: Some(1),
        kv_bytes_per_token: Some(125),
        kv_transfer_gbps: 1.0,
        kv_transfer_base_us: 0.0,
        ..config(Admission::Preempt)
    };
    let mut sim = api::replay_simulation(&cfg, requests(), "two").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    let r = sim.into_report();
    assert!(close(d[0].ttft_ms.unwrap(), 1.009), "{:?}", d[0].ttft_ms);
    assert!(close(d[1].ttft_ms.unwrap(), 2.017), "{:?}", d[1].ttft_ms);
    assert!(d[0].preemptions.is_empty());
    let p = &d[1].preemptions[0];
    assert_eq!((p.replica, p.blocks_freed, p.generated), (1, 3, 3));
    assert!(close(p.at_s, 0.005009) && close(p.resumed_s.unwrap(), 0.013009));
    assert_eq!(p.resumed_cached_blocks, Some(1));
    assert_eq!(p.recomputed_tokens, Some(6));
    assert!(close(d[0].e2e_ms.unwrap(), 13.009), "{:?}", d[0].e2e_ms);
    assert!(close(d[1].e2e_ms.unwrap(), 19.016), "{:?}", d[1].e2e_ms);
    let per: Vec<u64> = r
        .per_instance
        .iter()
        .map(|x| x.preemption.as_ref().unwrap().preemptions)
        .collect();
    assert_eq!(per, [0, 1], "the prefill replica never preempts");
    let s = r.summary.preemption.as_ref().unwrap();
    assert_eq!((s.preemptions, s.recomputed_tokens), (1, 6));
    assert!(close(s.time_lost_ms, 9.007), "{}", s.time_lost_ms);
    // Nothing was transferred twice, and both requests ended once.
    assert_eq!(r.pools.as_ref().unwrap().transfers.count, 2);
    assert_eq!(r.summary.completed, 2);
    assert!(r.unended.is_none());
}

/// With room for everything (an unbounded cache), admitting on the prompt changes no
/// request's timing: every request's admission, first token and end are the same under
/// both rules, for a pool and a sessions workload on a colocated fleet, and nothing is
/// preempted.
#[test]
fn with_room_for_everything_the_two_rules_time_every_request_alike() {
    use kvfleet::WorkloadKind;
    for workload in [WorkloadKind::Pool, WorkloadKind::Sessions] {
        let times = |admission: Admission| {
            let cfg = Config {
                workload,
                num_requests: 120,
                request_rate: 30.0,
                num_sessions: 8,
                turns: 4,
                block_size: 16,
                max_batch: 8,
                admission,
                ..Config::default()
            };
            let mut sim = api::synthetic_simulation(&cfg).unwrap();
            sim.record_decisions();
            sim.run_to_end();
            let d = sim.take_decisions();
            let r = sim.into_report();
            let each: Vec<_> = d
                .iter()
                .map(|x| (x.chosen, x.admit_s, x.cached_blocks, x.ttft_ms, x.e2e_ms))
                .collect();
            (each, r)
        };
        let (reserve, _) = times(Admission::Reserve);
        let (preempt, r) = times(Admission::Preempt);
        assert_eq!(reserve, preempt, "{workload:?}");
        assert_eq!(r.summary.preemption.unwrap().preemptions, 0);
    }
}
