//! `kvfleet bench --hero`: the page's first-screen sweep over the Mooncake conversation
//! trace, as the hero's worker runs it: the trace parsed once, then 1 to 256 replicas
//! for round robin, prefix_aware and `kv` (60 runs, the default settings otherwise), each
//! point's report written as JSON as the worker asks for it (`Job::point_json`), one after
//! another on one thread. Prints each round's CPU time (this thread's, so other work on a
//! shared machine does not count) and where it went: preparing the runs, simulating,
//! the reports. `--json FILE` also writes the median round's figures as JSON.

use std::path::Path;
use std::time::Instant;

use kvfleet::api;
use kvfleet::{Config, Policy};

use crate::output::print;

const CONVERSATION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/mooncake/conversation_trace.jsonl"
);

/// The hero's replica counts (`heroReplicaCounts` in www/js/hero.js, up to 256).
pub const COUNTS: [u32; 20] = [
    1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 48, 64, 96, 128, 192, 256,
];

/// The policies the hero draws under `?routing=kv`.
const POLICIES: [Policy; 3] = [Policy::RoundRobin, Policy::PrefixAware, Policy::Kv];

/// One round's CPU time, ms, split: preparing the runs, simulating, the reports and their JSON;
/// and per replica count (in `COUNTS`' order), its three points' whole time.
#[derive(Default, Clone, Copy)]
struct Split {
    prepare_ms: f64,
    simulate_ms: f64,
    report_ms: f64,
    per_count_ms: [f64; COUNTS.len()],
}

impl Split {
    fn total_ms(&self) -> f64 {
        self.prepare_ms + self.simulate_ms + self.report_ms
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// This thread's CPU time so far, ms (0 where the platform does not say).
fn cpu_now() -> f64 {
    crate::bench::thread_cpu_ms().unwrap_or(0.0)
}

/// One round: every point once, in the page's order (its count of 4 first).
fn round(trace: &api::ParsedTrace, json_bytes: &mut usize) -> Result<Split, String> {
    let mut split = Split::default();
    let order = std::iter::once(4).chain(COUNTS.into_iter().filter(|&x| x != 4));
    for instances in order {
        let at = COUNTS
            .iter()
            .position(|&x| x == instances)
            .expect("a hero count");
        let before = split.total_ms();
        for routing in POLICIES {
            let cfg = Config {
                instances,
                routing,
                ..Config::default()
            };
            let t = cpu_now();
            let mut job = api::Job::parsed_trace_config(&cfg, trace)?;
            split.prepare_ms += cpu_now() - t;
            let t = cpu_now();
            while !job.advance(u32::MAX) {}
            split.simulate_ms += cpu_now() - t;
            let t = cpu_now();
            *json_bytes += job.point_json().len();
            split.report_ms += cpu_now() - t;
        }
        split.per_count_ms[at] = split.total_ms() - before;
    }
    Ok(split)
}

/// Runs `rounds` rounds (the first untimed) and prints each and their median; `quick`:
/// the trace's first 300 requests only (for CI: checks the bench runs). The trace is
/// parsed once, as the page's worker parses it. `json`: the median's figures also go there.
pub fn run(rounds: usize, quick: bool, json: Option<&Path>) -> Result<(), String> {
    let t = Instant::now();
    let text = std::fs::read_to_string(CONVERSATION).map_err(|e| format!("{CONVERSATION}: {e}"))?;
    // The first 300 lines with --quick.
    let text = match quick {
        true => text.lines().take(300).map(|l| format!("{l}\n")).collect(),
        false => text,
    };
    let trace = api::ParsedTrace::parse(&text, "conversation_trace.jsonl", 512)?;
    print(&format!(
        "kvfleet bench --hero: {} requests parsed in {:.1} ms; {} runs a round ({} counts x {} policies)\n",
        trace.len(),
        ms_since(t),
        COUNTS.len() * POLICIES.len(),
        COUNTS.len(),
        POLICIES.len()
    ))?;
    let mut bytes = 0;
    round(&trace, &mut bytes)?;
    let mut splits = Vec::new();
    for i in 0..rounds {
        bytes = 0;
        let s = round(&trace, &mut bytes)?;
        print(&format!(
            "round {}: {:.1} ms CPU (prepare {:.1}, simulate {:.1}, report {:.1}; {} B of JSON)\n",
            i + 1,
            s.total_ms(),
            s.prepare_ms,
            s.simulate_ms,
            s.report_ms,
            bytes
        ))?;
        splits.push(s);
    }
    splits.sort_by(|a, b| a.total_ms().total_cmp(&b.total_ms()));
    let m = splits[splits.len() / 2];
    print(&format!(
        "median of {rounds}: {:.1} ms CPU (prepare {:.1}, simulate {:.1}, report {:.1})\n",
        m.total_ms(),
        m.prepare_ms,
        m.simulate_ms,
        m.report_ms
    ))?;
    let counts: Vec<String> = COUNTS
        .iter()
        .zip(m.per_count_ms)
        .map(|(x, ms)| format!("{x}: {ms:.1}"))
        .collect();
    print(&format!(
        "its three points per replica count, ms CPU: {}\n",
        counts.join(", ")
    ))?;
    match json {
        Some(path) => write_json(path, &m, rounds, bytes),
        None => Ok(()),
    }
}

/// The median round's figures as JSON in `path`: its CPU ms in all and by part (the points'
/// JSON as `json_ms`, its size in MB), the replica counts from 96 up, and the three points at
/// 256 and at 4 replicas.
fn write_json(path: &Path, m: &Split, rounds: usize, json_bytes: usize) -> Result<(), String> {
    let at = |count: u32| m.per_count_ms[COUNTS.iter().position(|&x| x == count).expect("a count")];
    let from_96_ms: f64 = COUNTS
        .iter()
        .zip(m.per_count_ms)
        .filter(|(&x, _)| x >= 96)
        .map(|(_, ms)| ms)
        .sum();
    let tenth = |x: f64| (x * 10.0).round() / 10.0;
    let figures = serde_json::json!({
        "total_ms": tenth(m.total_ms()),
        "rounds": rounds,
        "prepare_ms": tenth(m.prepare_ms),
        "simulate_ms": tenth(m.simulate_ms),
        "json_ms": tenth(m.report_ms),
        "json_mb": tenth(json_bytes as f64 / 1e6),
        "from_96_ms": tenth(from_96_ms),
        "at_256_ms": tenth(at(256)),
        "at_4_ms": tenth(at(4)),
    });
    let text = serde_json::to_string_pretty(&figures).expect("figures serialise") + "\n";
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
