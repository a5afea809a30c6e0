//! The admission path's work grows with events (admissions, releases), not with the steps
//! a request waits through: a request refused KV room is not walked again until the
//! cache's room changes. Counted in block ids handed to the cache, not timed.

use super::*;

/// Block size 1 and one prefill token a step: a prompt of `n` tokens takes `n` steps.
fn token_a_step() -> EngineSpec {
    EngineSpec {
        max_batched_tokens: 1,
        block_size: 1,
        ..spec(8, None)
    }
}

/// A request of one-token blocks of its own.
fn one_token_blocks(id: u32, prompt_tokens: u32, output_tokens: u32, arrival_us: u64) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens,
        output_tokens,
        block_ids: (0..prompt_tokens as u64)
            .map(|b| 1_000_000 * id as u64 + b)
            .collect(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

/// A walk of an `n`-token prompt on admission: its hit lookup (`n - 1` blocks at most,
/// the last token is always computed) and its room check (`n`).
fn walk(prompt_tokens: u32) -> u64 {
    2 * prompt_tokens as u64 - 1
}

/// Two `n`-token prompts on a cache that holds one and a half: the second waits for room
/// through the first's `n` prefill steps. Returns the block ids admission walked.
fn walked_behind_a_long_prefill(n: u32) -> u64 {
    let mut r = Replica::new(0, token_a_step(), Some(n as u64 * 3 / 2));
    let mut out = Outbox::default();
    let next = r.arrive(one_token_blocks(1, n, 2, 0), 0, &mut out);
    r.arrive(one_token_blocks(2, n, 2, 0), 0, &mut out);
    drain(&mut r, next, &mut out);
    assert_eq!(out.finished.len(), 2);
    assert!(
        out.admitted[1].admit_us >= out.finished[0].done_us,
        "the second waited for the first's blocks"
    );
    r.admission_ids_walked()
}

#[test]
fn a_request_waiting_for_room_is_walked_once_per_release_not_per_step() {
    // The first's admission, the second's refusal at the first step boundary, and its
    // admission once the first's release frees room: three walks, at any prompt length
    // (walking it at each of the n steps would be about 2n² ids: 2,000,000 at n = 1,000).
    for n in [1_000, 2_000] {
        assert_eq!(walked_behind_a_long_prefill(n), 3 * walk(n), "n = {n}");
    }
}

#[test]
fn arrivals_during_a_decode_run_do_not_walk_a_refused_head_again() {
    // Request 1 (10 tokens, 10,000 output) decodes in one run of about 60 s, holding
    // 10,010 blocks; request 2 (n = 1,000 tokens) is refused the 500 left. 100 arrivals
    // during the run each ask whether the head could join at the next step boundary:
    // the cache has not changed since it was refused, so the answer is no, unwalked.
    let n = 1_000;
    let mut r = Replica::new(0, token_a_step(), Some(10_010 + n as u64 / 2));
    let mut out = Outbox::default();
    let next = r.arrive(one_token_blocks(1, 10, 10_000, 0), 0, &mut out);
    r.arrive(one_token_blocks(2, n, 1, 0), 0, &mut out);
    let mut next = next;
    while let Some(t) = next.filter(|&t| t < 1_000_000) {
        next = r.step_end(t, &mut out);
    }
    let before = r.admission_ids_walked();
    assert_eq!(
        before,
        walk(10) + walk(n),
        "request 1 admitted, request 2 refused"
    );
    for id in 3..103 {
        let at_us = 1_000_000 + 10_000 * id as u64;
        assert_eq!(
            r.arrive(one_token_blocks(id, 1, 1, at_us), at_us, &mut out),
            None
        );
    }
    assert_eq!(
        r.admission_ids_walked(),
        before,
        "no arrival walked the head"
    );
    drain(&mut r, next, &mut out);
    assert_eq!(out.finished.len(), 102);
}
