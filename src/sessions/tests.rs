//! Unit tests of the sessions source: ids of the system prompt, of each turn and of the
//! answer's blocks, the closed loop's order and think time, and task times.

use super::*;
use crate::config::{ArrivalModel, WorkloadKind};

/// Tasks of `turns` turns starting every second (deterministic), 1024-token system
/// prompt (2 blocks), 700 new tokens and `output` answer tokens per turn, 300 ms think.
fn cfg(tasks: u32, turns: u32, output: u32) -> Config {
    Config {
        workload: WorkloadKind::Sessions,
        arrival_model: ArrivalModel::Deterministic,
        num_sessions: tasks,
        turns,
        session_rate: 1.0,
        turn_input_len: 700,
        turn_output_len: output,
        think_time_ms: 300.0,
        system_prompt_len: 1024,
        ..Config::default()
    }
}

fn done(req: &Request, ok: bool) -> EndedRequest {
    EndedRequest {
        id: req.id,
        session: req.session,
        ok,
        output_tokens: if ok { req.output_tokens } else { 0 },
    }
}

#[test]
fn turns_share_the_system_prompt_and_own_their_ids() {
    // Two tasks: both open with system blocks 0 and 1; each then takes fresh ids (the
    // 1724-token prompt has 4 blocks: 2 shared, 2 its own).
    let mut src = Sessions::new(&cfg(2, 2, 60));
    assert_eq!(src.total_hint(), 4);
    let a = src.pop().unwrap();
    let b = src.pop().unwrap();
    assert_eq!((a.arrival_us, b.arrival_us), (0, 1_000_000));
    assert_eq!((a.id, b.id), (0, 1));
    assert_eq!(a.prompt_tokens, 1024 + 700);
    assert_eq!(a.block_ids[..], [0, 1, 2, 3]);
    assert_eq!(b.block_ids[..], [0, 1, 4, 5]);
    assert_eq!(
        src.peek_arrival_us(),
        None,
        "both started; no turn is due yet"
    );
    assert!(src.pop().is_none());
}

#[test]
fn an_answer_that_fills_a_block_gives_it_an_id_the_next_turn_keeps() {
    // Turn 0: 1724 prompt tokens (3 full blocks and a partial 4th), 700 answer tokens:
    // 2424 tokens fill floor(2424 / 512) = 4 blocks, so the answer completes block 4
    // (index 3), which gets the next fresh id, 4. Turn 1 (after 300 ms of thought)
    // keeps the 3 full prompt blocks and that answer block, then adds fresh ids 5, 6, 7
    // up to ceil((1724 + 700 + 700) / 512) = 7 blocks.
    let mut src = Sessions::new(&cfg(1, 2, 700));
    let t0 = src.pop().unwrap();
    assert_eq!(t0.block_ids[..], [0, 1, 2, 3]);
    assert_eq!(t0.output_block_ids, vec![4]);
    src.on_end(done(&t0, true), 2_000_000);
    assert_eq!(src.peek_arrival_us(), Some(2_300_000));
    let t1 = src.pop().unwrap();
    assert_eq!(t1.arrival_us, 2_300_000);
    assert_eq!(
        t1.session,
        Some(SessionTag {
            session: 0,
            turn: 1
        })
    );
    assert_eq!(t1.prompt_tokens, 1724 + 700 + 700);
    assert_eq!(t1.block_ids[..], [0, 1, 2, 4, 5, 6, 7]);
    // 3124 + 700 = 3824 tokens fill 7 blocks; the prompt filled 6: one more answer block.
    assert_eq!(t1.output_block_ids, vec![8]);
    src.on_end(done(&t1, true), 3_000_000);
    assert_eq!(src.peek_arrival_us(), None, "the task's last turn is done");
    let report = src.session_report().unwrap();
    assert_eq!(
        (report.tasks, report.completed_tasks, report.failed_tasks),
        (1, 1, 0)
    );
}

#[test]
fn a_short_answer_fills_no_block() {
    // 1724 + 60 = 1784 tokens fill 3 blocks, as the prompt did: no answer block.
    let mut src = Sessions::new(&cfg(1, 2, 60));
    let t0 = src.pop().unwrap();
    assert!(t0.output_block_ids.is_empty());
    src.on_end(done(&t0, true), 500_000);
    let t1 = src.pop().unwrap();
    // Kept: the 3 full blocks of turn 0; then fresh ids for 1724 + 60 + 700 = 2484
    // tokens, 5 blocks in all.
    assert_eq!(t1.block_ids[..], [0, 1, 2, 4, 5]);
}

#[test]
fn a_due_turn_goes_before_a_new_task_starting_at_the_same_time() {
    // Task 0's turn 1 is due at 0.7 + 0.3 = 1.0 s, when task 1 starts: the turn first.
    let mut src = Sessions::new(&cfg(2, 2, 60));
    let t0 = src.pop().unwrap();
    src.on_end(done(&t0, true), 700_000);
    assert_eq!(src.peek_arrival_us(), Some(1_000_000));
    let next = src.pop().unwrap();
    assert_eq!(
        next.session,
        Some(SessionTag {
            session: 0,
            turn: 1
        })
    );
    let start = src.pop().unwrap();
    assert_eq!(
        start.session,
        Some(SessionTag {
            session: 1,
            turn: 0
        })
    );
    // A turn due later than the next start waits for it.
    let mut src = Sessions::new(&cfg(2, 2, 60));
    let t0 = src.pop().unwrap();
    src.on_end(done(&t0, true), 800_000);
    assert_eq!(
        src.peek_arrival_us(),
        Some(1_000_000),
        "task 1 starts first"
    );
    assert_eq!(src.pop().unwrap().session.unwrap().session, 1);
    assert_eq!(src.peek_arrival_us(), Some(1_100_000));
}

#[test]
fn task_times_are_first_arrival_to_last_answer() {
    // Three one-turn tasks start at 0, 1 and 2 s and end at 2, 4 and 6 s: task times 2,
    // 3 and 4 s. Mean 3 s; nearest rank: p50 is the 2nd (3 s), p90 and p99 the 3rd (4 s),
    // each within half a 0.1 % bucket.
    let mut src = Sessions::new(&cfg(3, 1, 60));
    let reqs: Vec<Request> = (0..3).map(|_| src.pop().unwrap()).collect();
    for (r, end_s) in reqs.iter().zip([2u64, 4, 6]) {
        src.on_end(done(r, true), end_s * 1_000_000);
    }
    let t = src.session_report().unwrap().task_s;
    assert!((t.mean - 3.0).abs() < 1e-12, "{}", t.mean);
    for (got, want) in [(t.p50, 3.0), (t.p90, 4.0), (t.p99, 4.0)] {
        assert!((got - want).abs() / want < 0.0005, "{got} vs {want}");
    }
    let report = src.session_report().unwrap();
    assert_eq!((report.tasks, report.completed_tasks), (3, 3));
}

#[test]
fn a_request_without_a_session_is_ignored() {
    let mut src = Sessions::new(&cfg(1, 2, 60));
    let t0 = src.pop().unwrap();
    src.on_end(
        EndedRequest {
            session: None,
            ..done(&t0, true)
        },
        1_000,
    );
    assert_eq!(src.peek_arrival_us(), None, "nothing scheduled");
    assert_eq!(src.session_report().unwrap().completed_tasks, 0);
}

#[test]
fn turns_due_at_the_same_instant_go_in_the_order_their_answers_ended() {
    // Tasks 0 and 1 (deterministic, 1 s apart) both answer at t = 5 s, task 1's answer
    // handled first: both next turns are due at 5.3 s, and task 1's comes out first.
    // And 3 tasks of 4 turns make 12 requests in all.
    let mut src = Sessions::new(&cfg(2, 3, 60));
    let a = src.pop().unwrap();
    let b = src.pop().unwrap();
    assert_eq!(
        (a.session.unwrap().session, b.session.unwrap().session),
        (0, 1)
    );
    src.on_end(done(&b, true), 5_000_000);
    src.on_end(done(&a, true), 5_000_000);
    let first = src.pop().unwrap();
    let second = src.pop().unwrap();
    assert_eq!(first.arrival_us, 5_300_000);
    assert_eq!(second.arrival_us, 5_300_000);
    assert_eq!(
        first.session.unwrap().session,
        1,
        "the answer handled first goes first"
    );
    assert_eq!(second.session.unwrap().session, 0);
    assert_eq!(Sessions::new(&cfg(3, 4, 60)).total_hint(), 12);
}
