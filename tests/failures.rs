//! Requests that fail: a rejected or timed-out turn ends its task (no later turn is
//! sent), and rejections and timeouts are counted apart, per replica, as the decision
//! log records them one by one.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use kvfleet::sessions::Sessions;
use kvfleet::sim::Decision;
use kvfleet::workload::{EndedRequest, Source};
use kvfleet::{api, Config, Policy, Report, WorkloadKind};

fn run_logged(cfg: &Config) -> (Vec<Decision>, Report) {
    let mut sim = api::synthetic_simulation(cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (d, sim.into_report())
}

fn tasks(session_rate: f64) -> Config {
    Config {
        workload: WorkloadKind::Sessions,
        num_sessions: 40,
        turns: 6,
        session_rate,
        turn_input_len: 700,
        turn_output_len: 60,
        think_time_ms: 300.0,
        system_prompt_len: 1024,
        instances: 2,
        routing: Policy::RoundRobin,
        ..Config::default()
    }
}

fn ended(id: u32, session: u32, turn: u32, ok: bool) -> EndedRequest {
    EndedRequest {
        id,
        session: Some(kvfleet::workload::SessionTag { session, turn }),
        ok,
        output_tokens: if ok { 60 } else { 0 },
    }
}

#[test]
fn a_failed_turn_stops_its_task_in_the_source() {
    // One task of 6 turns. Turn 0 completes, turn 1 fails: the source must send nothing
    // more, and count one failed task, none completed.
    let cfg = Config {
        num_sessions: 1,
        ..tasks(1.0)
    };
    let mut src = Sessions::new(&cfg);
    let first = src.pop().unwrap();
    src.on_end(ended(first.id, 0, 0, true), 100_000);
    assert_eq!(
        src.peek_arrival_us(),
        Some(400_000),
        "turn 1 after 300 ms of thought"
    );
    let second = src.pop().unwrap();
    assert_eq!(second.session.unwrap().turn, 1);
    src.on_end(ended(second.id, 0, 1, false), 500_000);
    assert_eq!(src.peek_arrival_us(), None, "no turn after a failed one");
    assert!(src.pop().is_none());
    let report = src.session_report().unwrap();
    assert_eq!(
        (report.tasks, report.completed_tasks, report.failed_tasks),
        (1, 0, 1)
    );
}

/// Per session, its decisions in turn order.
fn by_session(d: &[Decision]) -> BTreeMap<u32, Vec<&Decision>> {
    let mut m: BTreeMap<u32, Vec<&Decision>> = BTreeMap::new();
    for x in d {
        m.entry(x.session.unwrap()).or_default().push(x);
    }
    m
}

/// Checks, from the decision log alone, that a failed turn is its task's last and that
/// the task counts agree; returns (failed tasks, rejected turns, timed-out turns).
fn check_tasks_end_at_their_first_failure(cfg: &Config) -> (u32, u64, u64) {
    let (d, report) = run_logged(cfg);
    let mut failed = 0;
    let mut completed = 0;
    for (session, turns) in by_session(&d) {
        let fail_at = turns.iter().position(|t| t.rejected || t.timed_out);
        match fail_at {
            Some(i) => {
                assert_eq!(
                    i + 1,
                    turns.len(),
                    "session {session}: a turn was sent after turn {i} failed (seed {})",
                    cfg.seed
                );
                failed += 1;
            }
            None if turns.len() == cfg.turns as usize => completed += 1,
            None => panic!("session {session} stopped after {} turns", turns.len()),
        }
    }
    let t = report.sessions.unwrap();
    assert_eq!(
        (t.tasks, t.completed_tasks, t.failed_tasks),
        (40, completed, failed)
    );
    let s = &report.summary;
    assert_eq!(s.completed + s.rejected + s.timed_out, s.requests);
    (failed, s.rejected, s.timed_out)
}

#[test]
fn a_rejected_turn_ends_its_task() {
    // 2 replicas x 2 slots and no queue: at 6 tasks a second about 25 turns are in
    // flight at once (40 tasks over about 7 s, each turn about 0.4 s plus 0.3 s of
    // thought), far more than 4 slots: some turns are refused.
    let cfg = Config {
        max_batch: 2,
        queue_capacity: Some(0),
        ..tasks(6.0)
    };
    let (failed, rejected, timed_out) = check_tasks_end_at_their_first_failure(&cfg);
    assert!(failed > 0 && rejected == failed as u64 && timed_out == 0);
}

#[test]
fn a_timed_out_turn_ends_its_task() {
    // The same load with an unbounded queue and a 150 ms timeout: a turn's prefill alone
    // takes about 60 ms, so turns that wait behind 4 busy slots time out.
    let cfg = Config {
        max_batch: 2,
        timeout_ms: Some(150.0),
        ..tasks(6.0)
    };
    let (failed, rejected, timed_out) = check_tasks_end_at_their_first_failure(&cfg);
    assert!(failed > 0 && timed_out == failed as u64 && rejected == 0);
}

#[test]
fn rejections_and_timeouts_are_counted_apart_per_replica() {
    // A queue of 2 beyond 4 slots and a 400 ms timeout at 40 req/s over 2 replicas:
    // both kinds of failure happen. The per-replica columns must equal the decision
    // log's own flags grouped by the chosen replica, kind by kind.
    let cfg = Config {
        request_rate: 40.0,
        num_requests: 600,
        instances: 2,
        max_batch: 4,
        queue_capacity: Some(2),
        timeout_ms: Some(400.0),
        routing: Policy::RoundRobin,
        ..Config::default()
    };
    let (d, report) = run_logged(&cfg);
    let mut want = vec![(0u64, 0u64); 2];
    for x in &d {
        assert!(!(x.rejected && x.timed_out), "request {}", x.id);
        let w = &mut want[x.chosen as usize];
        w.0 += x.rejected as u64;
        w.1 += x.timed_out as u64;
    }
    let got: Vec<(u64, u64)> = report
        .per_instance
        .iter()
        .map(|p| (p.rejected, p.timed_out))
        .collect();
    assert_eq!(
        got, want,
        "(rejected, timed out) per replica (seed {})",
        cfg.seed
    );
    let s = &report.summary;
    assert_eq!(s.rejected, want.iter().map(|w| w.0).sum::<u64>());
    assert_eq!(s.timed_out, want.iter().map(|w| w.1).sum::<u64>());
    assert!(s.rejected > 0 && s.timed_out > 0, "both happen: {s:?}");
}
