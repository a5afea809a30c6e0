//! Sessions, sticky routing and spill, admission limits and timeouts, through whole runs
//! and the decision log.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use kvfleet::api;
use kvfleet::router::Reason;
use kvfleet::sessions::Sessions;
use kvfleet::sim::Decision;
use kvfleet::workload::{EndedRequest, Source};
use kvfleet::{Config, Policy, WorkloadKind};

fn sessions(routing: Policy, instances: u32) -> Config {
    Config {
        workload: WorkloadKind::Sessions,
        num_sessions: 40,
        turns: 8,
        session_rate: 1.0,
        turn_input_len: 700,
        turn_output_len: 60,
        think_time_ms: 300.0,
        system_prompt_len: 1024,
        instances,
        routing,
        ..Config::default()
    }
}

fn decisions(cfg: &Config) -> (Vec<Decision>, kvfleet::Report) {
    let mut sim = api::synthetic_simulation(cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (d, sim.into_report())
}

/// Decisions grouped by session, in turn order.
fn by_session(d: &[Decision]) -> BTreeMap<u32, Vec<&Decision>> {
    let mut m: BTreeMap<u32, Vec<&Decision>> = BTreeMap::new();
    for x in d {
        m.entry(x.session.expect("session requests"))
            .or_default()
            .push(x);
    }
    m
}

#[test]
fn each_turn_extends_the_previous_prompt() {
    let cfg = sessions(Policy::RoundRobin, 2);
    let mut src = Sessions::new(&cfg);
    let first = src.pop().unwrap();
    assert_eq!(first.session.unwrap().turn, 0);
    assert_eq!(first.prompt_tokens, 1024 + 700);
    assert_eq!(
        &first.block_ids[..2],
        &[0, 1],
        "tasks open with the shared system prompt"
    );
    // Only the first session has started; the next turn waits for the answer.
    let next_start = src.peek_arrival_us().unwrap();
    assert!(next_start > 0);
    src.on_end(
        EndedRequest {
            id: first.id,
            session: first.session,
            ok: true,
            output_tokens: 60,
        },
        5_000,
    );
    let mut prev = first;
    for turn in 1..8 {
        while src.peek_arrival_us() != Some(prev_done(turn)) {
            let other = src.pop().unwrap();
            assert_ne!(other.session.unwrap().session, 0);
        }
        let next = src.pop().unwrap();
        assert_eq!(
            next.session.unwrap(),
            kvfleet::workload::SessionTag { session: 0, turn }
        );
        assert_eq!(next.prompt_tokens, prev.prompt_tokens + 60 + 700);
        let kept = (prev.prompt_tokens / 512) as usize;
        assert_eq!(
            &next.block_ids[..kept],
            &prev.block_ids[..kept],
            "turn {turn} extends turn {}",
            turn - 1
        );
        assert!(next.block_ids[kept..]
            .iter()
            .all(|id| !prev.block_ids.contains(id)));
        src.on_end(
            EndedRequest {
                id: next.id,
                session: next.session,
                ok: true,
                output_tokens: 60,
            },
            prev_done(turn + 1) - 300_000,
        );
        prev = next;
    }
}

/// In the test above, turn t's answer arrives at 5,000 µs + (t - 1) x 1 s, and the next
/// turn follows 300 ms of think time later.
fn prev_done(turn: u32) -> u64 {
    5_000 + 300_000 + (turn as u64 - 1) * 1_000_000
}

#[test]
fn a_turn_never_starts_before_the_previous_completes() {
    let (d, report) = decisions(&sessions(Policy::Kv, 4));
    assert_eq!(report.summary.completed, 40 * 8);
    for turns in by_session(&d).values() {
        assert_eq!(turns.len(), 8);
        for w in turns.windows(2) {
            let done_s = w[0].arrival_s + w[0].e2e_ms.unwrap() / 1000.0;
            assert!(
                w[1].arrival_s >= done_s + 0.3 - 1e-6,
                "turn sent at {} before {} + think",
                w[1].arrival_s,
                done_s
            );
        }
    }
    let t = report.sessions.unwrap();
    assert_eq!((t.tasks, t.completed_tasks, t.failed_tasks), (40, 40, 0));
    assert_eq!(t.hit_rate_by_turn.len(), 8);
    assert!(t.task_s.mean > 8.0 * 0.3);
}

#[test]
fn round_robin_scatters_consecutive_turns() {
    let single = Config {
        num_sessions: 1,
        ..sessions(Policy::RoundRobin, 4)
    };
    let (d, _) = decisions(&single);
    for w in d.windows(2) {
        assert_ne!(
            w[0].chosen, w[1].chosen,
            "one task under round robin never repeats a replica"
        );
    }
    let (d, _) = decisions(&sessions(Policy::RoundRobin, 8));
    let (mut same, mut pairs) = (0, 0);
    for turns in by_session(&d).values() {
        for w in turns.windows(2) {
            pairs += 1;
            same += (w[0].chosen == w[1].chosen) as u32;
        }
    }
    assert!(
        (same as f64) < 0.25 * pairs as f64,
        "{same} of {pairs} consecutive turns stayed"
    );
}

#[test]
fn fully_sticky_sessions_never_move() {
    let (d, report) = decisions(&sessions(Policy::Sticky, 8));
    for turns in by_session(&d).values() {
        assert!(turns.iter().all(|t| t.chosen == turns[0].chosen));
        assert!(turns[1..].iter().all(|t| t.reason == Reason::Sticky));
    }
    let rr = api::synthetic_simulation(&sessions(Policy::RoundRobin, 8))
        .unwrap()
        .into_report();
    assert!(report.summary.hit_rate_tokens > rr.summary.hit_rate_tokens + 0.15);
}

#[test]
fn spill_moves_a_session_only_when_its_queue_reaches_the_threshold() {
    let cfg = Config {
        spill_queue: 2,
        session_rate: 6.0,
        num_sessions: 60,
        ..sessions(Policy::Sticky, 3)
    };
    let (d, _) = decisions(&cfg);
    let mut spills = 0;
    for turns in by_session(&d).values() {
        for w in turns.windows(2) {
            let home = &w[1].candidates[w[0].chosen as usize];
            if home.waiting >= 2 {
                assert_eq!(w[1].reason, Reason::Spill);
                spills += 1;
            } else {
                assert_eq!(
                    w[1].chosen, w[0].chosen,
                    "moved although its replica had {} waiting",
                    home.waiting
                );
            }
        }
    }
    assert!(spills > 0, "the load is high enough to spill");
}

#[test]
fn partial_affinity_mixes_sticky_and_policy_picks_at_its_share() {
    // 40 tasks x 7 later turns = 280 picks that could go back: each is sticky with
    // probability P, so the share's standard deviation is at most sqrt(0.25 / 280) =
    // 0.03; 0.1 is over 3 of them (seed 42). Asymmetric shares catch an inverted draw,
    // which a 50 % share cannot. A first turn has no replica to go back to.
    for percent in [20.0, 50.0, 80.0] {
        let cfg = Config {
            session_affinity: Some(percent),
            ..sessions(Policy::RoundRobin, 8)
        };
        let (d, _) = decisions(&cfg);
        let sticky = d.iter().filter(|x| x.reason == Reason::Sticky).count() as f64;
        let later_turns = d.len() as f64 - 40.0;
        let share = sticky / later_turns;
        assert!(
            (share - percent / 100.0).abs() < 0.1,
            "affinity {percent}%: {sticky} of {later_turns} sticky (seed {})",
            cfg.seed
        );
        for turns in by_session(&d).values() {
            assert_ne!(turns[0].reason, Reason::Sticky);
            for w in turns.windows(2) {
                if w[1].reason == Reason::Sticky {
                    assert_eq!(w[1].chosen, w[0].chosen, "sticky goes back");
                }
            }
        }
    }
}

#[test]
fn rejections_happen_exactly_when_the_queue_is_full() {
    // The rule, restated from the model rather than taken from the engine: with 4 slots
    // and capacity Q, an arrival is refused exactly when its replica already holds
    // 4 + Q requests (every slot busy and Q waiting for one). The decision log records
    // the chosen replica's waiting and running counts as the router saw them, just
    // before the arrival; without timeouts nothing leaves between the two.
    let slots = 4u32;
    for capacity in [0u32, 3] {
        let cfg = Config {
            request_rate: 60.0,
            num_requests: 600,
            max_batch: slots,
            queue_capacity: Some(capacity),
            routing: Policy::RoundRobin,
            ..Config::default()
        };
        let (d, report) = decisions(&cfg);
        let mut rejected = 0;
        let mut accepted_with_a_queue = 0;
        for x in &d {
            let c = &x.candidates[x.chosen as usize];
            let held = c.waiting + c.running;
            let full = held >= slots + capacity;
            assert_eq!(
                x.rejected, full,
                "request {}: {} waiting + {} running, {slots} slots, capacity {capacity}",
                x.id, c.waiting, c.running
            );
            rejected += x.rejected as u64;
            accepted_with_a_queue += (!x.rejected && held > 0) as u64;
        }
        let s = &report.summary;
        assert!(rejected > 0, "capacity {capacity}: the load overflows");
        assert!(
            accepted_with_a_queue > 0,
            "capacity {capacity}: a busy but not full replica still accepts"
        );
        assert_eq!(s.rejected, rejected);
        assert_eq!(
            s.completed + s.rejected + s.timed_out,
            s.requests,
            "every request ends exactly once"
        );
        let per: u64 = report.per_instance.iter().map(|p| p.rejected).sum();
        assert_eq!(per, rejected);
    }
}

#[test]
fn a_zero_queue_capacity_never_rejects_on_an_idle_fleet() {
    // One request, or requests 10 s apart (each done in well under a second), always
    // find every replica idle: nothing may be refused.
    for (requests, rate) in [(1, 6.0), (20, 0.1)] {
        let cfg = Config {
            num_requests: requests,
            request_rate: rate,
            arrival_model: kvfleet::ArrivalModel::Deterministic,
            queue_capacity: Some(0),
            ..Config::default()
        };
        let s = api::synthetic_simulation(&cfg)
            .unwrap()
            .into_report()
            .summary;
        assert_eq!(
            (s.completed, s.rejected),
            (requests as u64, 0),
            "{requests} requests at {rate} req/s"
        );
    }
}

#[test]
fn a_timeout_below_p99_cuts_off_calls_and_conservation_holds() {
    let base = Config {
        request_rate: 30.0,
        num_requests: 600,
        instances: 2,
        ..Config::default()
    };
    let free = api::synthetic_simulation(&base)
        .unwrap()
        .into_report()
        .summary;
    assert_eq!(free.timed_out, 0);
    let tight = Config {
        timeout_ms: Some(free.ttft_ms_p50),
        ..base.clone()
    };
    let (d, report) = decisions(&tight);
    let s = report.summary;
    assert!(s.timed_out > 0, "a timeout below p99 drops calls");
    assert_eq!(s.completed + s.rejected + s.timed_out, s.requests);
    assert!(d
        .iter()
        .filter(|x| x.timed_out)
        .all(|x| x.ttft_ms.is_none()));
    let loose = Config {
        timeout_ms: Some(10.0 * free.ttft_ms_p99 + 1000.0),
        ..base
    };
    assert_eq!(
        api::synthetic_simulation(&loose)
            .unwrap()
            .into_report()
            .summary
            .timed_out,
        0
    );
}

/// Completed requests in a decision log, with their TTFT in ms.
fn completed_ttfts(d: &[Decision]) -> Vec<f64> {
    d.iter()
        .filter(|x| !x.rejected && !x.timed_out)
        .map(|x| x.ttft_ms.expect("a completed request has a first token"))
        .collect()
}

#[test]
fn a_first_token_after_the_timeout_is_a_timeout_never_a_completion() {
    // The run: at 40 req/s a 4096-token prompt needs one prefill step of at least
    // 6 ms + 2048 uncached tokens x 32 µs = 71.5 ms, so no answer can start within
    // 30 ms: every request times out. And at 100 ms, warm prompts (about 72 ms) can make
    // it while cold ones (6 ms + 4096 x 32 µs = 137 ms) cannot: some of each.
    for (timeout_ms, rate, instances) in [(30.0, 40.0, 4), (100.0, 30.0, 2)] {
        let cfg = Config {
            timeout_ms: Some(timeout_ms),
            request_rate: rate,
            num_requests: 2000,
            instances,
            ..Config::default()
        };
        let (d, report) = decisions(&cfg);
        let s = &report.summary;
        let done = completed_ttfts(&d);
        assert_eq!(done.len() as u64, s.completed);
        let late: Vec<&f64> = done.iter().filter(|&&t| t > timeout_ms).collect();
        assert!(
            late.is_empty(),
            "timeout {timeout_ms} ms: {} of {} completed requests started after it (max {:?})",
            late.len(),
            done.len(),
            late.iter().cloned().fold(0.0f64, |a, &b| a.max(b))
        );
        assert_eq!(s.completed + s.rejected + s.timed_out, s.requests);
        if timeout_ms >= 100.0 {
            assert!(s.completed > 0 && s.timed_out > 0, "{s:?}");
        } else {
            assert_eq!(s.completed, 0);
        }
    }
}

#[test]
fn a_late_request_still_spends_its_work() {
    // One cold 4096-token request, 30 ms timeout: its prefill step takes
    // 6 ms + 4096 x 32 µs = 137.072 ms, so its first token is late. It is timed out at
    // that step's end, and the replica was busy for the whole run.
    let cfg = Config {
        num_requests: 1,
        timeout_ms: Some(30.0),
        ..Config::default()
    };
    let report = api::synthetic_simulation(&cfg).unwrap().into_report();
    let s = &report.summary;
    assert_eq!((s.completed, s.timed_out), (0, 1));
    assert!((s.makespan_s - 0.137072).abs() < 1e-9, "{}", s.makespan_s);
    let busy: Vec<f64> = report.per_instance.iter().map(|p| p.busy_share).collect();
    assert!(busy.contains(&1.0), "{busy:?}");
}

#[test]
fn a_timeout_is_compared_to_the_microsecond_not_rounded_up() {
    // The lone cold request's first token comes 137,072 µs after arrival (one prefill
    // step of 6000 + 4096 x 32 µs). A 137.0716 ms timeout is 0.4 µs too short for it; a
    // 137.072 ms one is just enough.
    let at = |timeout_ms: f64| {
        let cfg = Config {
            num_requests: 1,
            timeout_ms: Some(timeout_ms),
            ..Config::default()
        };
        let s = api::synthetic_simulation(&cfg)
            .unwrap()
            .into_report()
            .summary;
        (s.completed, s.timed_out)
    };
    assert_eq!(at(137.0716), (0, 1));
    assert_eq!(at(137.072), (1, 0));
}

#[test]
fn slots_rule_of_thumb_needed_slots_are_rate_times_latency() {
    // 4 replicas at 12 req/s with ~2 s per call need about 12 x 2 / 4 = 6 slots each.
    let at = |slots: u32| {
        let cfg = Config {
            request_rate: 12.0,
            num_requests: 600,
            max_batch: slots,
            routing: Policy::RoundRobin,
            ..Config::default()
        };
        api::synthetic_simulation(&cfg)
            .unwrap()
            .into_report()
            .summary
    };
    let (few, enough) = (at(3), at(12));
    assert!(
        few.queue_ms_p99 > 10.0 * enough.queue_ms_p99.max(1.0),
        "{} vs {}",
        few.queue_ms_p99,
        enough.queue_ms_p99
    );
    assert!(enough.queue_ms_p50 < 20.0);
}

#[test]
fn a_sticky_turn_reuses_the_previous_answer_too() {
    // Answers of 700 tokens complete at least one block beyond the previous prompt; the
    // engine caches it at completion, so the next turn on the same replica hits it.
    let cfg = Config {
        turn_output_len: 700,
        ..sessions(Policy::Sticky, 4)
    };
    let (d, _) = decisions(&cfg);
    for turns in by_session(&d).values() {
        for w in turns.windows(2) {
            assert_eq!(w[0].chosen, w[1].chosen);
            let cached = w[1].cached_blocks.unwrap();
            assert!(
                cached > w[0].request_blocks,
                "turn reused {cached} blocks, previous prompt had {}",
                w[0].request_blocks
            );
        }
    }
}

#[test]
fn hit_rate_by_turn_counts_the_turns_that_hit() {
    // Sticky routing with unbounded caches: every turn after the first goes back to the
    // replica that cached the previous turn's prompt and answer, so every one of them
    // hits (a share of exactly 1). Round robin on 4 replicas sends a turn back to its
    // task's last replica 1 time in 4 at best, but every turn also shares the 1,024-token
    // system prompt, so most still hit somewhere: more than half, yet fewer tokens.
    let sticky = api::synthetic_simulation(&sessions(Policy::Sticky, 4))
        .unwrap()
        .into_report()
        .sessions
        .unwrap();
    assert_eq!(sticky.hit_rate_by_turn.len(), 8);
    for (t, &h) in sticky.hit_rate_by_turn.iter().enumerate().skip(1) {
        assert_eq!(h, 1.0, "turn {t}");
    }
    assert!(sticky.hit_rate_by_turn[0] > 0.0 && sticky.hit_rate_by_turn[0] <= 1.0);
    let rr = api::synthetic_simulation(&sessions(Policy::RoundRobin, 4))
        .unwrap()
        .into_report()
        .sessions
        .unwrap();
    for t in 1..8 {
        assert!(
            rr.hit_rate_by_turn[t] > 0.5,
            "turn {t}: {}",
            rr.hit_rate_by_turn[t]
        );
        assert!(rr.token_hit_rate_by_turn[t] < sticky.token_hit_rate_by_turn[t]);
    }
}

#[test]
fn ttft_by_turn_averages_to_the_runs_mean() {
    // One task: each turn is one request, so the per-turn mean TTFTs average (equal
    // weights) to the run's mean TTFT, which the summary computes on its own.
    let one = Config {
        num_sessions: 1,
        ..sessions(Policy::Sticky, 2)
    };
    let r = api::synthetic_simulation(&one).unwrap().into_report();
    let by_turn = r.sessions.unwrap().ttft_ms_by_turn;
    assert_eq!(by_turn.len(), 8);
    let mean = by_turn.iter().sum::<f64>() / by_turn.len() as f64;
    assert!(
        (mean - r.summary.ttft_ms_mean).abs() < 1e-6,
        "{mean} vs {}",
        r.summary.ttft_ms_mean
    );
    assert!(
        by_turn.iter().all(|&t| t > 1.0 && t < 10_000.0),
        "{by_turn:?}"
    );
}
