//! The live views kept incrementally against every replica's view recomputed from the
//! live state, after every event, over configurations that change replicas in every way
//! the simulator does (arrivals, steps, drops, timeouts, transfers, snapshots, sessions);
//! and the time series, whose samples read only the replicas touched since, against the
//! same runs with every replica read at every sample.

use super::view_of;
use crate::api::synthetic_simulation;
use crate::config::{Config, Policy, RouterView, WorkloadKind};

fn configs() -> Vec<(&'static str, Config)> {
    let base = Config {
        num_requests: 300,
        instances: 6,
        request_rate: 40.0,
        num_prefixes: 5,
        kv_blocks: Some(64),
        ..Config::default()
    };
    vec![
        ("kv, bounded cache", base.clone()),
        (
            "queue capacity and timeouts",
            Config {
                queue_capacity: Some(2),
                timeout_ms: Some(400.0),
                max_batch: 2,
                ..base.clone()
            },
        ),
        (
            "snapshot view with a lag, two routers",
            Config {
                router_view: RouterView::Snapshot,
                kv_event_lag_ms: 20.0,
                routers: 2,
                ..base.clone()
            },
        ),
        (
            "dynamo with predictions",
            Config {
                routing: Policy::Dynamo,
                router_predict_ttl_ms: 500.0,
                ..base.clone()
            },
        ),
        (
            "sessions, sticky",
            Config {
                workload: WorkloadKind::Sessions,
                num_sessions: 10,
                turns: 4,
                routing: Policy::Sticky,
                kv_blocks: None,
                ..base.clone()
            },
        ),
        (
            "disaggregated",
            Config {
                instances: 5,
                prefill_instances: Some(2),
                decode_instances: Some(3),
                ..base.clone()
            },
        ),
    ]
}

#[test]
fn the_incremental_views_equal_a_recomputation_after_every_event() {
    for (name, cfg) in configs() {
        let mut sim = synthetic_simulation(&cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut events = 0;
        loop {
            let done = sim.advance(1);
            sim.live_views();
            for (r, rep) in sim.replicas.iter().enumerate() {
                assert_eq!(
                    sim.views.views()[r],
                    view_of(&sim.knowledge, rep, r),
                    "{name}: replica {r} after event {events}"
                );
            }
            events += 1;
            if done {
                break;
            }
        }
        let arrived = sim.arrived;
        assert!(
            arrived >= 40 && events > arrived,
            "{name}: {arrived} arrivals, {events} events"
        );
    }
}

/// The series of a run of `cfg`, as JSON; `read_all`: every replica read at every sample.
fn series_json(name: &str, cfg: &Config, read_all: bool) -> String {
    let mut sim = synthetic_simulation(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    if read_all {
        sim.sampler.read_every_replica();
    }
    sim.run_to_end();
    serde_json::to_string(&sim.into_report().series).expect("series serialise")
}

#[test]
fn the_series_sampling_touched_replicas_equal_every_replica_read_at_every_sample() {
    let base = &configs()[0].1;
    // Many replicas, most of them idle for long stretches between their requests, over
    // a run long enough for the grid to coarsen several times.
    let sparse = Config {
        instances: 48,
        num_requests: 400,
        request_rate: 20.0,
        ..base.clone()
    };
    for (name, cfg) in configs().into_iter().chain([("48 replicas", sparse)]) {
        let lazy = series_json(name, &cfg, false);
        let every = series_json(name, &cfg, true);
        assert!(lazy.len() > 1_000, "{name}: a series of {} B", lazy.len());
        assert!(lazy == every, "{name}: the series differ");
    }
}
