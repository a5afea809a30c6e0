//! `kvfleet bench`: the reproducible speed table. Each scenario runs in a child process
//! (so its peak memory is its own) and reports wall time, events and peak RSS. `--quick`
//! shrinks every scenario so CI keeps the benches compiling and running; it asserts no
//! timings. `--ratios` (in `ratios.rs`) measures only the two scaling ratios, from
//! interleaved runs.

use std::process::Command;
use std::time::Instant;

use kvfleet::trace::TraceOptions;
use kvfleet::{api, Config, Policy};
use serde::{Deserialize, Serialize};

use crate::output::print;

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
    /// Long prompts (`long_prompt_config`): their length in tokens, and with `--quick`.
    long_prompt_tokens: Option<(u32, u32)>,
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
        long_prompt_tokens: None,
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
            long_prompt_tokens: None,
        },
        Scenario {
            name: "conversation trace, round_robin, 8 replicas",
            requests: 12_031,
            quick_requests: 1_000,
            instances: 8,
            routing: Policy::RoundRobin,
            trace: true,
            large: false,
            long_prompt_tokens: None,
        },
        Scenario {
            large: true,
            ..synth("synthetic 1e7 req, 64 replicas", 10_000_000, 4_000, 64)
        },
        Scenario {
            long_prompt_tokens: Some((100_000, 10_000)),
            ..synth(
                "3 prompts of 1e5 tokens, a token a step, 1 replica",
                3,
                3,
                1,
            )
        },
    ]
}

/// One scenario's measurement (a JSON line from the child).
#[derive(Serialize, Deserialize)]
pub(crate) struct Measured {
    pub requests: u64,
    pub events: u64,
    pub runs: u32,
    pub wall_ms_median: f64,
    pub wall_ms_min: f64,
    pub peak_rss_mb: f64,
    /// Mean CPU time (user + system, this thread) of a run, where the platform says.
    #[serde(default)]
    pub cpu_ms_mean: Option<f64>,
}

/// A child's measurement and its CPU time (user + system) per run: the child's own count
/// (ns resolution, the timed runs only), else its whole process's (10 ms resolution), else
/// `None`.
pub(crate) struct ChildRun {
    pub measured: Measured,
    pub cpu_ms: Option<f64>,
}

/// The scenario named `name`'s index (the child's `--scenario`).
pub(crate) fn scenario_index(name: &str) -> usize {
    scenarios()
        .iter()
        .position(|s| s.name == name)
        .expect("a known scenario")
}

/// The requests scenario `index` runs (`quick`: its small size).
pub(crate) fn scenario_requests(index: usize, quick: bool) -> u32 {
    let s = &scenarios()[index];
    if quick {
        s.quick_requests
    } else {
        s.requests
    }
}

/// Runs scenario `index` in a child process of `exe` and reads its measurement; the CPU
/// time is the child's own count, else the growth of this process's reaped children's
/// time across the run.
pub(crate) fn run_child(
    exe: &std::path::Path,
    index: usize,
    quick: bool,
) -> Result<ChildRun, String> {
    let mut cmd = Command::new(exe);
    cmd.args(["bench", "--scenario", &index.to_string()]);
    if quick {
        cmd.arg("--quick");
    }
    let cpu_before = children_cpu_ms();
    let out = cmd.output().map_err(|e| e.to_string())?;
    let cpu_ms = children_cpu_ms()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let text = String::from_utf8_lossy(&out.stdout);
    let measured: Measured = serde_json::from_str(text.trim()).map_err(|_| {
        format!(
            "scenario {} failed: {}",
            scenarios()[index].name,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let cpu_ms = measured.cpu_ms_mean.or(cpu_ms);
    Ok(ChildRun { measured, cpu_ms })
}

/// CPU time this thread has run (user + system), from `/proc/thread-self/schedstat`
/// (ns), `None` where there is no such file. The synthetic runs are single-threaded.
pub(crate) fn thread_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse::<u64>().ok()?;
    Some(ns as f64 / 1e6)
}

/// User + system CPU time of this process's waited-for children (`getrusage`'s
/// `RUSAGE_CHILDREN`, read from `/proc/self/stat` in clock ticks of 10 ms), `None` where
/// there is no such file.
fn children_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    children_cpu_ms_of(&stat)
}

/// `cutime + cstime` of a `/proc/<pid>/stat` line, in ms (the kernel reports USER_HZ =
/// 100 ticks per second). The fields are counted after the command name's closing `)`,
/// which may itself hold spaces and parentheses.
pub(crate) fn children_cpu_ms_of(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 of the line (the state) is fields[0]; cutime and cstime are fields 16, 17.
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some((ticks(13)? + ticks(14)?) as f64 * 10.0)
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

/// Long prompts waiting for room: `requests` prompts of `prompt_tokens` one-token blocks on one
/// replica, prefilled a token a step, with KV room for one and a half prompts, so each
/// waits for room through the previous one's whole prefill.
fn long_prompt_config(requests: u32, prompt_tokens: u32) -> Config {
    Config {
        num_requests: requests,
        instances: 1,
        input_len: prompt_tokens,
        block_size: 1,
        max_batched_tokens: 1,
        kv_blocks: Some(prompt_tokens as u64 * 3 / 2),
        ..Config::default()
    }
}

/// One timed run, parsing included for traces; returns (events, requests, ms).
fn once(s: &Scenario, requests: u32, quick: bool) -> Result<(u64, u64, f64), String> {
    let start = Instant::now();
    let sim = if s.trace {
        let opts = TraceOptions {
            max_requests: Some(requests),
            ..TraceOptions::default()
        };
        let reqs = crate::inputs::parse_mooncake_file(CONVERSATION, &opts)?;
        let cfg = Config {
            instances: s.instances,
            routing: s.routing,
            ..Config::default()
        };
        api::replay_simulation(&cfg, reqs, "conversation_trace.jsonl")?
    } else if let Some((tokens, quick_tokens)) = s.long_prompt_tokens {
        let prompt_tokens = if quick { quick_tokens } else { tokens };
        api::synthetic_simulation(&long_prompt_config(requests, prompt_tokens))?
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
    let cpu_before = thread_cpu_ms();
    for _ in 0..runs {
        let (e, r, ms) = once(&s, requests, quick)?;
        (events, served) = (e, r);
        times.push(ms);
    }
    let cpu_ms_mean = thread_cpu_ms()
        .zip(cpu_before)
        .map(|(after, before)| (after - before) / f64::from(runs));
    times.sort_by(f64::total_cmp);
    let m = Measured {
        requests: served,
        events,
        runs,
        wall_ms_median: times[times.len() / 2],
        wall_ms_min: times[0],
        peak_rss_mb: peak_rss_mb(),
        cpu_ms_mean,
    };
    print(&format!(
        "{}\n",
        serde_json::to_string(&m).expect("serialises")
    ))
}

/// The first line of the output: the command's flags, the build and the cores.
pub(crate) fn header(flags: &str) -> String {
    format!(
        "kvfleet bench{flags} ({} build, {} cores)\n",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )
}

/// Parent side: runs every scenario in a child and prints the table, then the scaling
/// ratios (time per request, 64 against 16 replicas at 1e6; 1e7 against 1e6 requests).
pub fn run(quick: bool, large: bool) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    print(&header(if quick { " --quick" } else { "" }))?;
    print(
        "| scenario | requests | events | wall ms (median) | requests/s | events/s | peak RSS MB |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    )?;
    let mut ms_of = std::collections::HashMap::new();
    for (i, s) in scenarios().iter().enumerate() {
        if s.large && !large {
            continue;
        }
        let m = run_child(&exe, i, quick)?.measured;
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
