//! The simulator's stepping API as the page's worker uses it: progress from 0 to 1 in
//! slices, done only at the end, the expected request count, and the decision log of a
//! range of requests (which requests it holds, their router and admission times).
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::api;
use kvfleet::{Config, Policy};

fn sim(cfg: &Config) -> kvfleet::sim::Simulation<'static> {
    api::synthetic_simulation(cfg).expect("valid config")
}

/// Progress and doneness after each slice of `slice` events, to the end.
fn steps(cfg: &Config, slice: u64) -> Vec<(f64, bool, bool)> {
    let mut s = sim(cfg);
    let mut seen = vec![(s.progress(), s.is_done(), false)];
    loop {
        let finished = s.advance(slice);
        seen.push((s.progress(), s.is_done(), finished));
        if finished {
            return seen;
        }
    }
}

#[test]
fn progress_rises_from_zero_to_one_and_done_comes_only_at_the_end() {
    let disagg = Config {
        routing: Policy::Kv,
        instances: 8,
        prefill_instances: Some(5),
        decode_instances: Some(3),
        ..Config::default()
    };
    for cfg in [Config::default(), disagg] {
        let s = sim(&cfg);
        assert_eq!(s.total_requests(), u64::from(cfg.num_requests));
        let seen = steps(&cfg, 1);
        assert_eq!(seen[0], (0.0, false, false), "before any event");
        let (last, middle) = seen.split_last().unwrap();
        assert_eq!(*last, (1.0, true, true), "at the end");
        let mut before = 0.0;
        for &(p, done, finished) in &middle[1..] {
            assert!(!done && !finished, "done before the end at {p}");
            assert!((before..=0.999).contains(&p), "{p} after {before}");
            before = p;
        }
        // Arrivals come about evenly, so some slice ends near the middle.
        assert!(middle.iter().any(|&(p, ..)| (0.4..0.6).contains(&p)));
    }
}

#[test]
fn a_decision_log_holds_exactly_its_range_with_routers_in_turn_and_admissions() {
    let cfg = Config {
        routing: Policy::Kv,
        routers: 3,
        ..Config::default()
    };
    let mut s = sim(&cfg);
    assert!(s.decisions().is_none(), "not recorded unless asked");
    s.record_decisions_range(100, 10);
    s.run_to_end();
    let log = s.decisions().expect("recorded");
    let ids: Vec<u32> = log.iter().map(|d| d.id).collect();
    assert_eq!(ids, (100..110).collect::<Vec<u32>>());
    for d in log {
        // Arrivals are dealt to the routers in turn, from request 0 on router 0.
        assert_eq!(d.router, d.id % 3, "request {}", d.id);
        // At 6 requests a second, request 100 arrives near 16.7 s; each is admitted at
        // or after its arrival and well within a minute.
        let admit_s = d.admit_s.expect("admitted");
        assert!(d.arrival_s > 10.0, "{}", d.arrival_s);
        assert!(
            (d.arrival_s..d.arrival_s + 60.0).contains(&admit_s),
            "request {} arrived at {} s, admitted at {admit_s} s",
            d.id,
            d.arrival_s
        );
    }
    let taken = s.take_decisions();
    assert_eq!(taken.len(), 10);
}
