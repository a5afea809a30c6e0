//! `kvfleet bench`: the reproducible speed table. Each scenario runs in a child process
//! (so its peak memory is its own) and reports wall time, events and peak RSS. `--quick`
//! shrinks every scenario so CI keeps the benches compiling and running; it asserts no
//! timings.

use std::process::Command;
use std::time::Instant;

use kvfleet::trace::TraceOptions;
use kvfleet::{api, Config, Policy};
use serde::{Deserialize, Serialize};

use crate::cli::print;

const CONVERSATION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/mooncake/conversation_trace.jsonl"
);

struct Scenario {
    name: &'static str,
    requests: u32,
    quick_requests: u32,
    instances: u32,
    routing: Policy,
    trace: bool,
    /// Only with `--large`.
    large: bool,
}

fn scenarios() -> Vec<Scenario> {
    let synth = |name, requests, quick_requests, instances| Scenario {
        name,
        requests,
        quick_requests,
        instances,
        routing: Policy::Kv,
        trace: false,
        large: false,
    };
    vec![
        synth("seed example (200 req, 4 replicas)", 200, 200, 4),
        synth("synthetic 1e4 req, 16 replicas", 10_000, 500, 16),
        synth("synthetic 1e4 req, 64 replicas", 10_000, 500, 64),
        synth("synthetic 1e5 req, 16 replicas", 100_000, 1_000, 16),
        synth("synthetic 1e5 req, 64 replicas", 100_000, 1_000, 64),
        synth("synthetic 1e6 req, 16 replicas", 1_000_000, 2_000, 16),
        synth("synthetic 1e6 req, 64 replicas", 1_000_000, 2_000, 64),
        Scenario {
            name: "conversation trace, kv, 8 replicas",
            requests: 12_031,
            quick_requests: 1_000,
            instances: 8,
            routing: Policy::Kv,
            trace: true,
            large: false,
        },
        Scenario {
            name: "conversation trace, round_robin, 8 replicas",
            requests: 12_031,
            quick_requests: 1_000,
            instances: 8,
            routing: Policy::RoundRobin,
            trace: true,
            large: false,
        },
        Scenario {
            large: true,
            ..synth("synthetic 1e7 req, 64 replicas", 10_000_000, 4_000, 64)
        },
    ]
}

/// One scenario's measurement (a JSON line from the child).
#[derive(Serialize, Deserialize)]
struct Measured {
    requests: u64,
    events: u64,
    runs: u32,
    wall_ms_median: f64,
    wall_ms_min: f64,
    peak_rss_mb: f64,
}

/// The synthetic config of a scenario: the seed's workload at its per-replica load
/// (1.5 req/s per replica) with a bounded cache of 4096 blocks (2M tokens) per replica.
fn synthetic_config(s: &Scenario, requests: u32) -> Config {
    Config {
        num_requests: requests,
        instances: s.instances,
        request_rate: 1.5 * s.instances as f64,
        num_prefixes: 8 * s.instances,
        kv_blocks: Some(4096),
        routing: s.routing,
        ..Config::default()
    }
}

/// One timed run, parsing included for traces; returns (events, requests, ms).
fn once(s: &Scenario, requests: u32) -> Result<(u64, u64, f64), String> {
    let start = Instant::now();
    let sim = if s.trace {
        let opts = TraceOptions {
            max_requests: Some(requests),
            ..TraceOptions::default()
        };
        let reqs = crate::cli::parse_mooncake_file(CONVERSATION, &opts)?;
        let cfg = Config {
            instances: s.instances,
            routing: s.routing,
            ..Config::default()
        };
        api::replay_simulation(&cfg, reqs, "conversation_trace.jsonl")?
    } else if i_am_the_seed_example(s) {
        api::synthetic_simulation(&Config::default())?
    } else {
        api::synthetic_simulation(&synthetic_config(s, requests))?
    };
    let report = sim.into_report();
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok((report.summary.events, report.summary.requests, ms))
}

/// The first scenario is the seed's example, verbatim (default config).
fn i_am_the_seed_example(s: &Scenario) -> bool {
    s.requests == 200 && s.instances == 4 && !s.trace
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Child side: runs scenario `index` and prints one JSON line.
pub fn child(index: usize, quick: bool) -> Result<(), String> {
    let s = scenarios()
        .into_iter()
        .nth(index)
        .ok_or("no such scenario")?;
    let requests = if quick { s.quick_requests } else { s.requests };
    let runs = if quick {
        1
    } else {
        (200_000 / requests.max(1)).clamp(1, 7)
    };
    let mut times = Vec::new();
    let (mut events, mut served) = (0, 0);
    for _ in 0..runs {
        let (e, r, ms) = once(&s, requests)?;
        (events, served) = (e, r);
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    let m = Measured {
        requests: served,
        events,
        runs,
        wall_ms_median: times[times.len() / 2],
        wall_ms_min: times[0],
        peak_rss_mb: peak_rss_mb(),
    };
    print(&format!(
        "{}\n",
        serde_json::to_string(&m).expect("serialises")
    ))
}

/// Parent side: runs every scenario in a child and prints the table, then the scaling
/// ratios (time per request, 64 against 16 replicas at 1e6; 1e7 against 1e6 requests).
pub fn run(quick: bool, large: bool) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    print(&format!(
        "kvfleet bench{} ({} build, {} cores)\n",
        if quick { " --quick" } else { "" },
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        std::thread::available_parallelism().map_or(1, |n| n.get())
    ))?;
    print(
        "| scenario | requests | events | wall ms (median) | requests/s | events/s | peak RSS MB |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    )?;
    let mut ms_of = std::collections::HashMap::new();
    for (i, s) in scenarios().iter().enumerate() {
        if s.large && !large {
            continue;
        }
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--scenario", &i.to_string()]);
        if quick {
            cmd.arg("--quick");
        }
        let out = cmd.output().map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let m: Measured = serde_json::from_str(text.trim()).map_err(|_| {
            format!(
                "scenario {} failed: {}",
                s.name,
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        let per_s = |n: u64| n as f64 / (m.wall_ms_median / 1000.0);
        print(&format!(
            "| {} | {} | {} | {:.1} | {:.0} | {:.0} | {:.1} |\n",
            s.name,
            m.requests,
            m.events,
            m.wall_ms_median,
            per_s(m.requests),
            per_s(m.events),
            m.peak_rss_mb
        ))?;
        ms_of.insert(s.name, m.wall_ms_median / m.requests.max(1) as f64);
    }
    let ratio = |a: &str, b: &str| Some(ms_of.get(a)? / ms_of.get(b)?);
    let e6 = "synthetic 1e6 req, 64 replicas";
    if let Some(r) = ratio(e6, "synthetic 1e6 req, 16 replicas") {
        print(&format!(
            "\n1e6 requests: 64 replicas take {r:.2}x the time per request of 16\n"
        ))?;
    }
    if let Some(r) = ratio("synthetic 1e7 req, 64 replicas", e6) {
        print(&format!(
            "64 replicas: 1e7 requests take {:.2}x the time of 1e6\n",
            r * 10.0
        ))?;
    }
    Ok(())
}
