//! Unit tests of the engine's rules at their edges: the vLLM last-token rule on prompts
//! that end on a block boundary, and a timeout that never drops a streaming request.

use super::*;

fn with_ids(id: u32, arrival_us: u64, prompt_tokens: u32, block_ids: &[u64]) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens,
        output_tokens: 1,
        block_ids: block_ids.into(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

#[test]
fn a_fully_cached_prompt_on_a_block_boundary_recomputes_its_last_block() {
    // Request 0 computes blocks 1 and 2 (1024 tokens, exactly two blocks). Request 1 has
    // the same 1024 tokens: both blocks are cached, but the last prompt token must be
    // recomputed, so it reuses floor((1024 - 1) / 512) = 1 block and prefills the other
    // 512 tokens: 6000 + 512 x 32 = 22,384 µs. Request 2 has one token more (1025, a
    // third, partial block): floor(1024 / 512) = 2 blocks reused, 1 token prefilled in
    // 6000 + 32 = 6,032 µs.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    let end = r.arrive(with_ids(0, 0, 1024, &[1, 2]), 0, &mut out);
    drain(&mut r, end, &mut out);
    assert_eq!(
        r.cache().hit_blocks(&[1, 2], 2),
        2,
        "both blocks are cached"
    );

    let end = r.arrive(with_ids(1, 100_000, 1024, &[1, 2]), 100_000, &mut out);
    assert_eq!(end, Some(100_000 + 22_384));
    drain(&mut r, end, &mut out);
    assert_eq!(
        out.admitted[1].hit_blocks, 1,
        "the last block is recomputed"
    );

    let end = r.arrive(with_ids(2, 200_000, 1025, &[1, 2, 3]), 200_000, &mut out);
    assert_eq!(end, Some(200_000 + 6_032));
    drain(&mut r, end, &mut out);
    assert_eq!(out.admitted[2].hit_blocks, 2);
    assert_eq!(out.finished.len(), 3);
}

#[test]
fn a_timeout_never_drops_a_request_that_streams_past_its_deadline() {
    // Request 1: first token at 6000 + 4096 x 32 = 137,072 µs, inside its 200 ms timeout;
    // it then decodes 499 more tokens (about 3.1 s). Request 2 arrives at 300 ms and cuts
    // the decode run at the next step boundary, past request 1's deadline: the step
    // boundary must leave the streaming request alone. Request 2's own first token comes
    // one prefill step (about 137 ms) after its arrival, in time too.
    let mut r = Replica::new(0, timed_spec(8, None, Some(200_000)), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 4096, 500), 0, &mut out);
    assert_eq!(end, Some(137_072));
    let run_end = r.step_end(137_072, &mut out).unwrap();
    assert!(run_end > 3_000_000, "one event for the whole decode run");
    let cut = r.arrive(arriving(request(2, 4096, 5), 300_000), 300_000, &mut out);
    let cut = cut.expect("the run is cut at the next step boundary");
    assert!(cut > 300_000 && cut < 310_000, "{cut}");
    drain(&mut r, Some(cut), &mut out);
    let kinds: Vec<DropKind> = out.dropped.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, vec![], "nothing is dropped");
    let mut done: Vec<u32> = out.finished.iter().map(|f| f.id).collect();
    done.sort_unstable();
    assert_eq!(done, vec![1, 2]);
}

#[test]
fn a_waiting_request_past_its_deadline_is_dropped_at_the_next_arrival() {
    // One slot, a 50 ms timeout. Request 1 (512 tokens) has its first token at
    // 6000 + 512 x 32 = 22,384 µs, in time, then decodes 99 tokens (about 600 ms).
    // Request 2 arrives at 30 ms and waits for the slot; its deadline is 80 ms. Request 3
    // arrives at 90 ms, before any step boundary, and finds request 2 expired at the
    // queue's front: request 2 is dropped there, as timed out (not rejected). Request 3
    // then waits past its own deadline (140 ms) and is dropped when the slot frees.
    let mut r = Replica::new(0, timed_spec(1, None, Some(50_000)), None);
    let mut out = Outbox::default();
    assert_eq!(r.arrive(request(1, 512, 100), 0, &mut out), Some(22_384));
    let run_end = r.step_end(22_384, &mut out);
    assert!(run_end > Some(600_000));
    assert_eq!(
        r.arrive(arriving(request(2, 512, 5), 30_000), 30_000, &mut out),
        None
    );
    assert_eq!(r.waiting(), 1);
    r.arrive(arriving(request(3, 512, 5), 90_000), 90_000, &mut out);
    let dropped: Vec<(u32, DropKind)> = out.dropped.iter().map(|d| (d.id, d.kind)).collect();
    assert_eq!(dropped, vec![(2, DropKind::TimedOut)]);
    assert_eq!(r.waiting(), 1, "request 3 waits");
    drain(&mut r, run_end, &mut out);
    let done: Vec<u32> = out.finished.iter().map(|f| f.id).collect();
    assert_eq!(done, vec![1]);
    let dropped: Vec<(u32, DropKind)> = out.dropped.iter().map(|d| (d.id, d.kind)).collect();
    assert_eq!(
        dropped,
        vec![(2, DropKind::TimedOut), (3, DropKind::TimedOut)]
    );
}

#[test]
fn two_prefills_share_one_token_budget_and_blocks_are_ready_as_computed() {
    // Request 0 (512 tokens, 1 output token) occupies the first step, 22,384 µs; two
    // 6000-token prompts arrive meanwhile and join at its end. A budget of 8192 tokens
    // per step: the second step computes all of request 1 and 2192 tokens of request 2
    // (6000 + 8192 x 32 = 268,144 µs). The third computes request 2's last 3808 tokens
    // while request 1 decodes: 6000 + 3808 x 32 + 20 + 0.049 x 6001 = 128,170.049 ->
    // 128,171 µs. After the second step request 1 has its 11 full blocks computed and
    // request 2 floor(2192 / 512) = 4 of its 11.
    let mut r = Replica::new(0, spec(8, None), None);
    let mut out = Outbox::default();
    assert_eq!(r.arrive(request(0, 512, 1), 0, &mut out), Some(22_384));
    r.arrive(request(1, 6000, 5), 0, &mut out);
    r.arrive(request(2, 6000, 5), 0, &mut out);
    let end = r.step_end(22_384, &mut out);
    assert_eq!(end, Some(22_384 + 268_144));
    let end = r.step_end(290_528, &mut out);
    assert_eq!(end, Some(290_528 + 128_171));
    let ready = |id| r.cache().hit_blocks(&request(id, 6000, 5).block_ids, 11);
    assert_eq!((ready(1), ready(2)), (11, 4));
    drain(&mut r, end, &mut out);
    let first: Vec<(u32, u64)> = out
        .finished
        .iter()
        .map(|f| (f.id, f.first_token_us))
        .collect();
    assert_eq!(first[0], (0, 22_384));
    assert!(first.contains(&(1, 290_528)) && first.contains(&(2, 418_699)));
}

#[test]
fn a_request_that_fills_the_cache_exactly_runs_and_one_block_more_is_refused() {
    // 600 prompt tokens + 50 output = 650 tokens: 1 full prompt block and 1 private
    // block. A 2-block cache runs it; a 1-block cache can never hold it: refused as too
    // large, at once, instead of waiting forever.
    for (capacity, finished, too_large) in [(2, 1, 0), (1, 0, 1)] {
        let mut r = Replica::new(0, spec(8, None), Some(capacity));
        let mut out = Outbox::default();
        let end = r.arrive(request(1, 600, 50), 0, &mut out);
        drain(&mut r, end, &mut out);
        let refused = out
            .dropped
            .iter()
            .filter(|d| d.kind == DropKind::TooLarge)
            .count();
        assert_eq!(
            (out.finished.len(), refused),
            (finished, too_large),
            "{capacity} blocks"
        );
        assert_eq!((r.running(), r.waiting()), (0, 0));
    }
}

#[test]
fn a_running_request_still_without_a_first_token_is_aborted_at_the_deadline() {
    // 20,000 prompt tokens at 8192 per step: chunks end at 268,144 and 536,288 µs (each
    // 6000 + 8192 x 32); the third would give the first token. With a 300 ms timeout the
    // request is late for sure at the second boundary (536,288 >= 300,000): aborted there,
    // without spending a third step, and its 40 active blocks (39 full, 1 partial) leave
    // the router's view with it.
    let mut r = Replica::new(0, timed_spec(8, None, Some(300_000)), None);
    let mut out = Outbox::default();
    assert_eq!(r.arrive(request(1, 20_000, 5), 0, &mut out), Some(268_144));
    assert_eq!(r.step_end(268_144, &mut out), Some(536_288));
    assert!(out.dropped.is_empty(), "in time so far");
    assert_eq!(
        r.step_end(536_288, &mut out),
        None,
        "aborted: nothing left to run"
    );
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].kind, DropKind::TimedOut);
    assert_eq!(r.stats().busy_us, 536_288);
    assert_eq!((r.running(), r.active_blocks()), (0, 0));
    // The 32 blocks its two steps computed stay cached (16384 / 512).
    assert_eq!(
        r.cache().hit_blocks(&request(1, 20_000, 5).block_ids, 39),
        32
    );
}

#[test]
fn a_late_first_token_releases_a_partial_block_too() {
    // 4000 tokens: 7 full blocks and a partial one. The first token comes at
    // 6000 + 4000 x 32 = 134,000 µs, after a 30 ms timeout: dropped, and nothing of it
    // stays active.
    let mut r = Replica::new(0, timed_spec(8, None, Some(30_000)), None);
    let mut out = Outbox::default();
    let end = r.arrive(request(1, 4000, 5), 0, &mut out);
    assert_eq!(r.active_blocks(), 8);
    assert_eq!(end, Some(134_000));
    drain(&mut r, end, &mut out);
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(r.active_blocks(), 0);
}
