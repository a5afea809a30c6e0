//! The CLI's outputs: flags that would be ignored or would mix on standard output are
//! errors, a closed pipe ends the program quietly, and long or invisible input comes
//! back readable in error messages.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{kvfleet, tmp};

#[test]
fn single_run_outputs_with_a_sweep_are_errors() {
    let file = tmp("ignored.json");
    for flag in ["--des-report-json", "--des-decisions", "--des-export-trace"] {
        let (code, out, err) = kvfleet(&["--des-sweep", "instances=1:2", flag, &file]);
        assert_eq!(code, 1, "{flag}: {out}");
        assert!(
            err.contains(flag) && err.contains("--des-sweep"),
            "{flag}: {err}"
        );
        assert!(out.is_empty(), "{flag}: nothing runs");
        assert!(!std::path::Path::new(&file).exists());
    }
}

#[test]
fn two_outputs_on_standard_output_are_an_error() {
    let cases: [&[&str]; 3] = [
        &["--des-report-json", "-", "--des-decisions", "-"],
        &["--des-export-trace", "-", "--des-report-json", "-"],
        &[
            "--des-sweep",
            "instances=1:2",
            "--des-sweep-csv",
            "-",
            "--des-sweep-json",
            "-",
        ],
    ];
    for args in cases {
        let (code, out, err) = kvfleet(args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(
            err.contains("standard output") && err.contains(" and "),
            "{err}"
        );
        assert!(out.is_empty(), "{args:?}");
    }
}

#[test]
fn a_sweep_file_on_standard_output_is_alone_there() {
    let (code, out, err) = kvfleet(&[
        "--des-sweep",
        "instances=1:2",
        "--des-num-requests",
        "20",
        "--des-sweep-csv",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two rows only: {out}");
    assert!(lines[0].starts_with("param,value,"), "{out}");
    assert!(
        err.contains("kvfleet sweep instances=1:2"),
        "the table: {err}"
    );
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    // `kvfleet bench --quick | head -1`: read the first line, then close the pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(["bench", "--quick"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("kvfleet bench --quick"), "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "nothing on stderr: {err}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn long_values_are_echoed_once_and_cut() {
    let huge = "7".repeat(100_000);
    let (code, _, err) = kvfleet(&["--des-num-requests", &huge]);
    assert_eq!(code, 2, "{err}");
    assert!(err.len() < 1000, "{} bytes: {}", err.len(), &err[..200]);
    assert!(err.matches('7').count() < 100, "echoed once, cut: {err}");
    assert!(
        err.contains("--des-num-requests") && err.contains("characters cut"),
        "{err}"
    );
    let digits = format!("1{}", "0".repeat(299));
    for flag in ["--des-instances", "--request-rate"] {
        let (code, _, err) = kvfleet(&[flag, &digits]);
        assert_ne!(code, 0);
        assert!(err.len() < 400, "{flag}: {err}");
        assert!(err.contains(flag), "{err}");
    }
    let (code, _, err) = kvfleet(&["--des-prefix-popularity", &huge]);
    assert_eq!(code, 1);
    assert!(
        err.len() < 400 && err.contains("(100000 characters)"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--des-sweep", &format!("overlap-weight=0:1:{huge}")]);
    assert_eq!(code, 1);
    assert!(err.len() < 400, "{err}");
}

fn trace_error(name: &str, text: &str, flag: &str) -> String {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = kvfleet(&[flag, &path]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 1, "{err}");
    err
}

#[test]
fn trace_errors_name_the_real_problem() {
    let moon = "--des-mooncake-trace";
    let err = trace_error(
        "e20.jsonl",
        "{\"timestamp\": 0, \"input_length\": 1e20, \"output_length\": 1, \"hash_ids\": []}\n",
        moon,
    );
    assert!(
        err.contains(":1: input_length must be <= 4294967295, got 1e20"),
        "{err}"
    );
    let err = trace_error(
        "float-id.jsonl",
        "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1.0]}\n",
        moon,
    );
    assert!(
        err.contains("hash_ids[0] must be a non-negative integer id, got 1.0"),
        "{err}"
    );
    let line = "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [1]}";
    let err = trace_error("bom2.jsonl", &format!("{line}\n\u{feff}{line}\n"), moon);
    assert!(
        err.contains(":2:") && err.contains("byte-order mark"),
        "{err}"
    );
    let err = trace_error("cr.jsonl", &format!("{line}\r{line}\r"), moon);
    assert!(
        err.contains(":1:") && err.contains("CR-only line endings"),
        "{err}"
    );
    let csv = "--des-workload-file";
    let err = trace_error(
        "bom2.csv",
        "arrival_ms,input_length,output_length\n\u{feff}0,5,1\n",
        csv,
    );
    assert!(
        err.contains("bom2.csv:2:") && err.contains("byte-order mark"),
        "{err}"
    );
    let digits = "9".repeat(300);
    let err = trace_error(
        "digits.csv",
        &format!("arrival_ms,input_length,output_length\n0,{digits},1\n"),
        csv,
    );
    assert!(err.contains("got 1e300") && err.len() < 300, "{err}");
}

/// A run of about two seconds in a debug build (half a second in release): long
/// enough for the bar, which waits one second.
const LONG_RUN: &[&str] = &[
    "--des-num-requests",
    "40000",
    "--des-kv-blocks",
    "4096",
    "--des-instances",
    "16",
    "--request-rate",
    "24",
];

/// Runs the binary under a pseudo-terminal (util-linux `script`); None without it.
fn in_a_terminal(args: &[&str]) -> Option<String> {
    let mut command = vec![env!("CARGO_BIN_EXE_kvfleet").to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command.join(" "), "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_long_run_shows_a_progress_bar_only_on_a_terminal_and_not_with_quiet() {
    let bar = "kvfleet: simulating [";
    let (code, _, err) = kvfleet(LONG_RUN);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains(bar), "no bar on a pipe: {err}");
    let start = std::time::Instant::now();
    let Some(shown) = in_a_terminal(LONG_RUN) else {
        eprintln!("skipped: no `script` to give the run a terminal");
        return;
    };
    if shown.is_empty() || start.elapsed().as_secs_f64() < 1.2 {
        eprintln!("skipped: `script` gave no output, or the machine ran it in under 1.2 s");
        return;
    }
    assert!(shown.contains(bar), "a bar on a terminal: {shown}");
    assert!(shown.contains("Token hit rate"), "then the report: {shown}");
    let mut quiet = LONG_RUN.to_vec();
    quiet.push("--quiet");
    let shown = in_a_terminal(&quiet).unwrap();
    assert!(!shown.contains(bar), "no bar with --quiet: {shown}");
    let short = in_a_terminal(&["--des-num-requests", "50"]).unwrap();
    assert!(!short.contains(bar), "no bar on a short run: {short}");
}
