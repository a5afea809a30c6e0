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
