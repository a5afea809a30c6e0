//! Unit tests of the recorder: per-replica and per-turn counters, latency samples from
//! one request's times (worked by hand), rejections against timeouts.

use super::*;
use crate::workload::SessionTag;

fn admitted(replica: u32, prompt_tokens: u32, hit_blocks: u32, turn: Option<u32>) -> Admitted {
    Admitted {
        id: 0,
        replica,
        admit_us: 0,
        prompt_tokens,
        prompt_blocks: prompt_tokens.div_ceil(512),
        hit_blocks,
        turn,
    }
}

#[test]
fn admissions_count_per_replica_and_per_turn() {
    let mut r = Recorder::new(2, 512);
    r.admitted(&admitted(1, 1500, 2, Some(1)));
    r.admitted(&admitted(1, 700, 0, Some(1)));
    r.admitted(&admitted(0, 512, 1, None));
    let c = &r.replicas[1];
    assert_eq!((c.admitted, c.hit_requests, c.prompt_tokens), (2, 1, 2200));
    // 1500 tokens are 3 blocks, 700 are 2; 2 of them cached.
    assert_eq!((c.prompt_blocks, c.cached_blocks), (5, 2));
    let c = &r.replicas[0];
    assert_eq!((c.admitted, c.hit_requests, c.cached_blocks), (1, 1, 1));
    // Turn 1 grows the table to two rows; turn 0 saw nothing.
    assert_eq!(r.turns.len(), 2);
    assert_eq!(r.turns[0].admitted, 0);
    let t = &r.turns[1];
    assert_eq!((t.admitted, t.hit_requests, t.prompt_tokens), (2, 1, 2200));
    assert_eq!(t.cached_tokens, 2 * 512);
    r.admitted(&admitted(0, 512, 0, Some(0)));
    assert_eq!((r.turns.len(), r.turns[0].admitted), (2, 1));
}

#[test]
fn a_completion_gives_each_latency_from_its_times() {
    // Arrival 1 ms, admitted 3 ms, first token 10 ms, last token 50 ms, 5 tokens: TTFT
    // 9 ms from arrival and 7 ms from admission, 2 ms queued, 49 ms end to end, and
    // (50 - 10) / 4 = 10 ms per token after the first. Means are exact.
    let mut r = Recorder::new(1, 512);
    let f = Finished {
        id: 0,
        replica: 0,
        arrival_us: 1_000,
        admit_us: 3_000,
        first_token_us: 10_000,
        done_us: 50_000,
        output_tokens: 5,
        session: Some(SessionTag {
            session: 0,
            turn: 2,
        }),
    };
    r.finished(&f);
    let mean = |h: &LogHistogram| h.quantiles_ms().mean;
    assert_eq!(mean(&r.ttft), 9.0);
    assert_eq!(mean(&r.ttft_admit), 7.0);
    assert_eq!(mean(&r.queue), 2.0);
    assert_eq!(mean(&r.e2e), 49.0);
    assert_eq!(mean(&r.tpot), 10.0);
    assert_eq!(
        (r.completed, r.output_tokens, r.last_done_us),
        (1, 5, 50_000)
    );
    assert_eq!(r.turns.len(), 3);
    assert_eq!((r.turns[2].completed, r.turns[2].ttft_us_sum), (1, 9_000.0));
    // A one-token answer has no gap between tokens: no TPOT sample. An earlier finish
    // does not move the last completion time back.
    r.finished(&Finished {
        output_tokens: 1,
        done_us: 20_000,
        session: None,
        ..f
    });
    assert_eq!((r.tpot.count(), r.ttft.count()), (1, 2));
    assert_eq!(
        (r.completed, r.output_tokens, r.last_done_us),
        (2, 6, 50_000)
    );
    assert_eq!(r.turns[2].completed, 1);
    // Two tokens: one gap, the whole time after the first token.
    r.finished(&Finished {
        output_tokens: 2,
        session: None,
        ..f
    });
    assert_eq!(r.tpot.count(), 2);
    assert_eq!(mean(&r.tpot), (10.0 + 40.0) / 2.0);
}

#[test]
fn rejections_and_timeouts_are_separate_columns() {
    let mut r = Recorder::new(2, 512);
    r.dropped(1, DropKind::TimedOut);
    r.dropped(1, DropKind::QueueFull);
    r.dropped(1, DropKind::TooLarge);
    r.dropped(1, DropKind::TooLarge);
    r.dropped(0, DropKind::TimedOut);
    let cols: Vec<(u64, u64, u64, u64)> = r
        .replicas
        .iter()
        .map(|c| {
            (
                c.rejected,
                c.rejected_queue_full,
                c.rejected_too_large,
                c.timed_out,
            )
        })
        .collect();
    assert_eq!(cols, vec![(0, 0, 0, 1), (3, 1, 2, 1)]);
}
