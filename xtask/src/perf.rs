//! `cargo xtask perf`: the performance chapter's record of measurements (docs/perf/figures.json).
//! `list` shows each measure, its command and what it needs; `record ID... [--from FILE]` runs
//! the measures' commands (each distinct command once, the machine's load average sampled
//! while it runs) or reads a result a command wrote, sets their latest figures with the
//! machine they ran on, and rewrites the chapter's table from the record.

use crate::figures::{self, Machine, Measure, Record};
use crate::util::{cmd, root, show};
use serde_json::Value;
use std::time::{Duration, Instant};

pub fn perf(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("list") if args.len() == 1 => list(&load()?),
        Some("record") => record(&args[1..]),
        _ => Err("usage: cargo xtask perf list | perf record ID... [--from FILE]".into()),
    }
}

fn load() -> Result<Record, String> {
    let path = root().join(figures::RECORD_PATH);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    figures::parse(&text)
}

fn list(record: &Record) -> Result<(), String> {
    for m in &record.measures {
        println!("{}", m.id);
        match &m.record {
            Some(c) => println!("    records with: {c}"),
            None => println!("    records with: --from FILE (no command of its own)"),
        }
        if let Some(n) = &m.needs {
            println!("    needs: {n}");
        }
    }
    Ok(())
}

/// `record ID... [--from FILE]`.
fn record(args: &[String]) -> Result<(), String> {
    let (ids, from) = match args.iter().position(|a| a == "--from") {
        Some(i) => {
            let file = args.get(i + 1).ok_or("--from needs a FILE")?;
            let ids = [&args[..i], &args[i + 2..]].concat();
            (ids, Some(file.clone()))
        }
        None => (args.to_vec(), None),
    };
    if ids.is_empty() {
        return Err("perf record needs at least one measure id (`cargo xtask perf list`)".into());
    }
    let mut record = load()?;
    for id in &ids {
        figures::find(&mut record, id)?;
    }
    let machine = this_machine();
    match from {
        Some(file) => {
            let result = read_json(std::path::Path::new(&file))?;
            for id in &ids {
                let m = figures::find(&mut record, id)?;
                figures::apply(m, &result, machine.clone(), None)?;
                println!("xtask perf: {id} recorded from {file}");
            }
        }
        None => run_and_apply(&mut record, &ids, &machine)?,
    }
    save(&record)
}

/// Runs each distinct command of the measures `ids` once and applies its result to every
/// measure that shares the command (one run measured them all).
fn run_and_apply(record: &mut Record, ids: &[String], machine: &Machine) -> Result<(), String> {
    let mut done: Vec<String> = Vec::new();
    for id in ids {
        let m = figures::find(record, id)?.clone();
        let command = m.record.clone().ok_or_else(|| {
            format!(
                "`{id}` has no command of its own (it needs {}): run {}, then record its \
                 figures, as JSON, with `cargo xtask perf record {id} --from FILE`",
                m.needs.as_deref().unwrap_or("an outside setup"),
                m.command
            )
        })?;
        if done.contains(&command) {
            continue;
        }
        let (result, load) = measure(&m, &command)?;
        for other in record.measures.iter_mut() {
            if other.record.as_deref() == Some(command.as_str()) {
                figures::apply(other, &result, machine.clone(), Some(load))?;
                println!(
                    "xtask perf: {} recorded (load average {:.2} to {:.2})",
                    other.id, load.0, load.1
                );
            }
        }
        done.push(command);
    }
    Ok(())
}

/// Runs `command` (a shell line from the workspace root) and reads its JSON result (its
/// `result` file, or its stdout), with the one-minute load average's range over the run.
fn measure(m: &Measure, command: &str) -> Result<(Value, (f64, f64)), String> {
    let file = m.result.as_ref().map(|r| root().join(r));
    if let Some(f) = &file {
        let _ = std::fs::remove_file(f); // never read a result of an earlier run
    }
    let mut c = cmd("sh", &["-c", command]);
    if file.is_none() {
        c.stdout(std::process::Stdio::piped());
    }
    println!("\n==> xtask perf: {}", show(&c));
    let mut child = c
        .spawn()
        .map_err(|e| format!("could not start `{command}`: {e}"))?;
    let stdout = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut out, &mut s).map(|_| s)
        })
    });
    let (status, load) = wait_sampling_load(&mut child)?;
    if !status.success() {
        return Err(format!("`{command}` failed ({status})"));
    }
    let result = match (&file, stdout) {
        (Some(f), _) => read_json(f)?,
        (None, Some(h)) => {
            let text = h
                .join()
                .map_err(|_| "reading stdout failed")?
                .map_err(|e| e.to_string())?;
            serde_json::from_str(text.trim())
                .map_err(|e| format!("`{command}` printed no JSON result ({e}): {text}"))?
        }
        (None, None) => unreachable!("stdout is piped when there is no result file"),
    };
    Ok((result, load))
}

/// Waits for `child`, reading the one-minute load average every second meanwhile; its
/// range (min, max), to two decimals.
fn wait_sampling_load(
    child: &mut std::process::Child,
) -> Result<(std::process::ExitStatus, (f64, f64)), String> {
    let mut load = (f64::INFINITY, f64::NEG_INFINITY);
    let mut last = Instant::now() - Duration::from_secs(1);
    let status = loop {
        if last.elapsed() >= Duration::from_secs(1) {
            if let Some(l) = load_average() {
                load = (load.0.min(l), load.1.max(l));
            }
            last = Instant::now();
        }
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !load.0.is_finite() {
        return Err("cannot read the load average (/proc/loadavg)".into());
    }
    Ok((status, (round2(load.0), round2(load.1))))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn read_json(path: &std::path::Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the result {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// Writes the record and rewrites the chapter's table from it.
fn save(record: &Record) -> Result<(), String> {
    let write = |rel: &str, text: &str| {
        std::fs::write(root().join(rel), text).map_err(|e| format!("cannot write {rel}: {e}"))
    };
    let chapter_path = root().join(figures::CHAPTER_PATH);
    let chapter = std::fs::read_to_string(&chapter_path)
        .map_err(|e| format!("cannot read {}: {e}", chapter_path.display()))?;
    let chapter = figures::rewrite(&chapter, record)?;
    write(figures::RECORD_PATH, &figures::to_text(record))?;
    write(figures::CHAPTER_PATH, &chapter)?;
    println!(
        "xtask perf: {} and {}'s table rewritten",
        figures::RECORD_PATH,
        figures::CHAPTER_PATH
    );
    Ok(())
}

/// The one-minute load average (/proc/loadavg's first field).
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// This machine, as it says of itself: cores, CPU model (/proc/cpuinfo), OS and kernel.
pub fn this_machine() -> Machine {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
        .map(|(_, v)| v.trim().to_string());
    let release = read("/etc/os-release");
    let pretty = release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = read("/proc/sys/kernel/osrelease");
    let os = if kernel.trim().is_empty() {
        pretty
    } else {
        format!("{pretty}, Linux {}", kernel.trim())
    };
    Machine {
        cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        cpu,
        os,
    }
}
