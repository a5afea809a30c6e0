//! Unit tests of one replica: prefill and closed-form decode timing, step-boundary joins,
//! queue capacity, KV admission.

use super::*;
use crate::timing::EnginePreset;

fn spec(max_batch: u32, queue_capacity: Option<u32>) -> EngineSpec {
    timed_spec(max_batch, queue_capacity, None)
}

fn timed_spec(max_batch: u32, queue_capacity: Option<u32>, timeout_us: Option<u64>) -> EngineSpec {
    EngineSpec {
        timing: EnginePreset::Llama3_8bH100.timing(),
        max_batch,
        max_batched_tokens: 8192,
        block_size: 512,
        queue_capacity,
        timeout_us,
        step_admission: crate::timing::StepAdmission::OnSlot,
    }
}

fn request(id: u32, prompt_tokens: u32, output_tokens: u32) -> Request {
    Request {
        id,
        arrival_us: 0,
        prompt_tokens,
        output_tokens,
        block_ids: (0..prompt_tokens.div_ceil(512) as u64)
            .map(|b| 1000 * id as u64 + b)
            .collect(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

/// `req`, arriving at `arrival_us` instead of 0.
fn arriving(mut req: Request, arrival_us: u64) -> Request {
    req.arrival_us = arrival_us;
    req
}

/// Drives one replica to idle; returns the outbox.
fn drain(r: &mut Replica, mut next: Option<u64>, out: &mut Outbox) {
    while let Some(t) = next {
        next = r.step_end(t, out);
    }
}

#[test]
fn one_request_prefill_then_closed_form_decode() {
    // Worked by hand from the 8B preset (fixed 6000 µs, prefill 32 µs/token, decode
    // 20 µs/sequence, KV read 49 ns/token):
    // - the prefill step of 1024 tokens: 6000 + 1024 x 32 = 38,768 µs;
    // - then 99 decode steps of one sequence whose KV grows from 1025 tokens:
    //   99 x 6020 + 0.049 x (99 x 1025 + 0 + 1 + ... + 98) = 595,980 + 0.049 x 106,326
    //   = 595,980 + 5,209.974 = 601,189.974, rounded up to 601,190 µs, in one event.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    let first_end = r.arrive(request(1, 1024, 100), 0, &mut out).unwrap();
    assert_eq!(first_end, 38_768, "one prefill step");
    let run_end = r.step_end(first_end, &mut out).unwrap();
    assert_eq!(run_end, 38_768 + 601_190, "99 decode steps in one event");
    assert_eq!(r.step_end(run_end, &mut out), None);
    let f = out.finished[0];
    assert_eq!((f.first_token_us, f.done_us), (38_768, 639_958));
    assert_eq!(r.stats().busy_us, 639_958);
}

#[test]
fn an_arrival_joins_at_the_next_step_boundary() {
    // Request 1 (512 tokens): prefill 6000 + 512 x 32 = 22,384 µs, then decode steps of
    // 6020 + 0.049 x (513 + i) µs: the first ends 6,045.137 µs into the run, the second
    // 12,090.323 µs in. Request 2 arrives 10,000 µs into the run, during the second
    // step, so it joins at that step's end: 22,384 + ceil(12,090.323) = 34,475 µs.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    let first_end = r.arrive(request(1, 512, 1000), 0, &mut out).unwrap();
    assert_eq!(first_end, 22_384);
    r.step_end(first_end, &mut out).unwrap();
    let cut = r
        .arrive(arriving(request(2, 512, 10), 32_384), 32_384, &mut out)
        .expect("the run is cut short");
    assert_eq!(cut, 34_475);
    drain(&mut r, Some(cut), &mut out);
    assert_eq!(out.finished.len(), 2);
    assert_eq!(out.admitted[1].admit_us, 34_475);
}

#[test]
fn the_queue_rejects_exactly_beyond_its_capacity() {
    let mut r = Replica::new(0, spec(2, Some(3)), None);
    let mut out = Outbox::default();
    let mut next = None;
    for id in 0..7 {
        next = next.or(r.arrive(request(id, 600, 50), 0, &mut out));
    }
    // 2 slots + 3 waiting for a slot are accepted; the 6th and 7th are rejected.
    let rejected: Vec<u32> = out.dropped.iter().map(|d| d.id).collect();
    assert_eq!(rejected, vec![5, 6]);
    assert!(out.dropped.iter().all(|d| d.kind == DropKind::QueueFull));
    drain(&mut r, next, &mut out);
    assert_eq!(out.finished.len(), 5);
}

#[test]
fn a_zero_capacity_rejects_only_when_every_slot_is_taken() {
    // 2 slots, capacity 0, three arrivals at t = 0: the first is admitted at once, the
    // second takes the other slot (it joins at the next step boundary), the third finds
    // both slots taken and nobody may wait: refused.
    let mut r = Replica::new(0, spec(2, Some(0)), None);
    let mut out = Outbox::default();
    let mut next = None;
    for id in 0..3 {
        next = next.or(r.arrive(request(id, 600, 50), 0, &mut out));
    }
    let rejected: Vec<u32> = out.dropped.iter().map(|d| d.id).collect();
    assert_eq!(rejected, vec![2]);
    drain(&mut r, next, &mut out);
    assert_eq!(out.finished.len(), 2);
}

#[test]
fn a_first_token_after_the_deadline_is_a_timeout_and_its_blocks_stay_cached() {
    // A 4096-token prompt's prefill step takes 6000 + 4096 x 32 = 137,072 µs; with a
    // 30 ms timeout its first token is late. It must not complete; the 8 blocks it
    // computed stay in the cache for the next request.
    let mut r = Replica::new(0, timed_spec(8, None, Some(30_000)), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 4096, 10), 0, &mut out).unwrap();
    assert_eq!(end, 137_072);
    drain(&mut r, Some(end), &mut out);
    assert!(out.finished.is_empty());
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].kind, DropKind::TimedOut);
    assert_eq!(r.stats().busy_us, 137_072, "the step's work is spent");
    let ids = request(1, 4096, 10).block_ids;
    assert_eq!(r.cache().hit_blocks(&ids, 8), 8);
    assert_eq!((r.running(), r.waiting()), (0, 0));
}

#[test]
fn a_request_streaming_in_time_is_never_dropped() {
    // First token at 137,072 µs, inside a 200 ms timeout: the request completes even
    // though its last token comes long after the deadline.
    let mut r = Replica::new(0, timed_spec(8, None, Some(200_000)), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 4096, 500), 0, &mut out);
    drain(&mut r, end, &mut out);
    assert_eq!(out.finished.len(), 1);
    assert!(out.finished[0].done_us > 200_000);
    assert!(out.dropped.is_empty());
}

#[test]
fn kv_capacity_holds_requests_back_and_too_large_ones_are_refused() {
    // 4 blocks: a 600 + 50 token request needs 2 (1 full prompt block + 1 private).
    let mut r = Replica::new(0, spec(8, None), Some(4));
    let mut out = Outbox::default();
    let next = r.arrive(request(0, 600, 50), 0, &mut out);
    r.arrive(request(1, 600, 50), 0, &mut out);
    r.arrive(request(2, 600, 50), 0, &mut out);
    r.arrive(request(3, 4000, 50), 0, &mut out);
    drain(&mut r, next, &mut out);
    assert_eq!(out.finished.len(), 3);
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].kind, DropKind::TooLarge);
    assert!(
        out.admitted[2].admit_us >= out.finished[0].done_us,
        "the third waited for blocks to free up"
    );
}

mod rules;
mod stats;
mod work;
