//! Unit tests of a replica's counters: busy and saturated time, step by step, worked by
//! hand from the 8B preset.

use super::*;

#[test]
fn steps_with_a_request_waiting_for_a_slot_are_saturated() {
    // One slot, two requests of 512 tokens and 10 output tokens at t = 0. Request 1's
    // prefill (6000 + 512 x 32 = 22,384 µs) began before request 2 came: not saturated.
    // Its 9 decode steps (9 x 6020 + 0.049 x (9 x 513 + 0 + 1 + ... + 8) = 54,407.997
    // -> 54,408 µs) begin with request 2 waiting for the slot: saturated. Request 2's
    // own steps, with nobody waiting, are not. Busy 2 x 76,792 µs, saturated 54,408 µs.
    let mut r = Replica::new(0, spec(1, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 512, 10), 0, &mut out);
    r.arrive(request(2, 512, 10), 0, &mut out);
    assert_eq!(end, Some(22_384));
    let run_end = r.step_end(22_384, &mut out);
    assert_eq!(run_end, Some(22_384 + 54_408));
    assert_eq!(r.stats().saturated_us, 0, "the prefill step began alone");
    drain(&mut r, run_end, &mut out);
    assert_eq!(out.finished.len(), 2);
    assert_eq!(r.stats().busy_us, 2 * 76_792);
    assert_eq!(r.stats().saturated_us, 54_408);
    assert_eq!(r.stats().peak_queue, 1);
}

#[test]
fn a_prefill_beyond_the_token_budget_saturates_its_step() {
    // 10,000 prompt tokens against a budget of 8192 per step: the first step computes
    // 8192 (6000 + 8192 x 32 = 268,144 µs) and leaves the rest: saturated. The second
    // computes the last 1808 (6000 + 1808 x 32 = 63,856 µs) and the third decodes the
    // second token (6020 + 0.049 x 10,001 = 6,510.049 -> 6,511 µs): not saturated.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 10_000, 2), 0, &mut out);
    assert_eq!(end, Some(268_144));
    let end = r.step_end(268_144, &mut out);
    assert_eq!(end, Some(268_144 + 63_856));
    assert_eq!(r.stats().saturated_us, 268_144);
    let end = r.step_end(332_000, &mut out);
    assert_eq!(end, Some(332_000 + 6_511));
    drain(&mut r, end, &mut out);
    assert_eq!(out.finished[0].first_token_us, 332_000);
    assert_eq!(r.stats().busy_us, 338_511);
    assert_eq!(r.stats().saturated_us, 268_144);
}

#[test]
fn active_blocks_count_a_prompt_while_it_runs_and_nothing_after() {
    // A 600-token prompt: one full block (shared, pinned) and a partial one (private):
    // the router sees 2 active blocks while it runs, 0 once it is done. With 2 slots and
    // 5 arrivals, 3 wait for a slot.
    let mut r = Replica::new(0, spec(2, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 600, 3), 0, &mut out);
    assert_eq!(r.active_blocks(), 2);
    drain(&mut r, end, &mut out);
    assert_eq!(out.finished.len(), 1);
    assert_eq!(r.active_blocks(), 0);
    for id in 2..7 {
        r.arrive(request(id, 600, 3), 1_000_000, &mut out);
    }
    assert_eq!((r.running(), r.waiting()), (1, 4));
    assert_eq!(r.queued_for_slot(), 3);
}

#[test]
fn a_request_held_back_by_kv_room_with_a_slot_free_waits_for_kv() {
    // The first test's two requests (512 prompt tokens, 10 output), now with 8 slots and a
    // 2-block cache: each reserves ceil(522 / 512) = 2 blocks, so the cache holds one.
    // Request 1's prefill (22,384 µs) began alone. At its end request 2 is refused room
    // with 7 slots free: the 9 decode steps (54,408 µs) wait for KV. Request 2 then runs
    // alone. KV wait 54,408 µs; one request ran at every instant: running × time = busy =
    // 2 x 76,792 µs; 2 admissions of 2 blocks each.
    let mut r = Replica::new(0, spec(8, None), Some(2));
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 512, 10), 0, &mut out);
    r.arrive(request(2, 512, 10), 0, &mut out);
    let run_end = r.step_end(end.unwrap(), &mut out);
    assert_eq!(run_end, Some(22_384 + 54_408), "request 2 did not join");
    drain(&mut r, run_end, &mut out);
    let s = r.stats();
    assert_eq!(out.finished.len(), 2);
    assert_eq!(s.busy_us, 2 * 76_792);
    assert_eq!(s.kv_wait_us, 54_408);
    assert_eq!(s.running_us, 2 * 76_792);
    assert_eq!((s.admissions, s.admitted_kv_blocks), (2, 4));
}

#[test]
fn a_request_waiting_for_a_slot_is_not_waiting_for_kv() {
    // The first test (one slot, unbounded cache): request 2 waits 54,408 µs, for the slot.
    let mut r = Replica::new(0, spec(1, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 512, 10), 0, &mut out);
    r.arrive(request(2, 512, 10), 0, &mut out);
    drain(&mut r, end, &mut out);
    assert_eq!(r.stats().saturated_us, 54_408);
    assert_eq!(r.stats().kv_wait_us, 0);
}

#[test]
fn an_arrival_refused_room_during_a_decode_run_waits_for_kv_from_its_arrival() {
    // Request 1 decodes from 22,384 to 76,792 µs; request 2 arrives at 30,000 µs into a
    // 2-block cache request 1 fills, with a slot free: it waits 76,792 - 30,000 = 46,792 µs.
    let mut r = Replica::new(0, spec(8, None), Some(2));
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 512, 10), 0, &mut out);
    let run_end = r.step_end(end.unwrap(), &mut out);
    assert_eq!(run_end, Some(76_792));
    assert_eq!(
        r.arrive(arriving(request(2, 512, 10), 30_000), 30_000, &mut out),
        None
    );
    drain(&mut r, run_end, &mut out);
    assert_eq!(r.stats().kv_wait_us, 46_792);
}

#[test]
fn running_times_busy_time_is_the_sum_of_each_requests_time_running() {
    // Three requests of different lengths at 0 with room for all: whatever the steps, the
    // running count integrated over time is each request's admit-to-done time summed.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 2000, 40), 0, &mut out);
    r.arrive(request(2, 700, 5), 0, &mut out);
    r.arrive(arriving(request(3, 300, 90), 50_000), 50_000, &mut out);
    drain(&mut r, end, &mut out);
    let held: u64 = out.finished.iter().map(|f| f.done_us - f.admit_us).sum();
    assert_eq!(out.finished.len(), 3);
    assert_eq!(r.stats().running_us, held);
    assert!(
        r.stats().running_us > r.stats().busy_us,
        "two or more ran at once"
    );
    assert_eq!(
        r.stats().kv_wait_us,
        0,
        "an unbounded cache never holds one back"
    );
}
