//! `cargo xtask test`: every check in order, stopping at the first failure; when all pass,
//! each step's time (whole seconds) in target/ci/xtask-test-times.json (`.ci/run` puts it in
//! its own target/ci/times.json, which the performance chapter's CI row is recorded from).

use crate::util::{
    cmd, ensure_browser, ensure_components, ensure_node_modules, ensure_wasm_target, run, secs,
};
use std::process::Command;
use std::time::Instant;

enum Step {
    Cmd(Command),
    /// A command that prints figures: its failure is reported, and the steps go on.
    Figures(Command),
    Build,
    Book,
    Dist,
}

/// `cargo test` on wasm32 of the test files that hold wasm-bindgen tests (`wasm_bindgen_test`):
/// every other test binary runs no test in the browser ("no tests to run!"), and building
/// each for wasm32 took most of the step.
fn wasm_tests(wasm: &str) -> Result<Command, String> {
    let dir = crate::util::root().join("tests");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("wasm_bindgen_test")))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!(
            "no test file in {} uses wasm_bindgen_test",
            dir.display()
        ));
    }
    let mut args = vec!["test", "--locked", "--target", wasm];
    for n in &names {
        args.extend(["--test", n.as_str()]);
    }
    Ok(cmd("cargo", &args))
}

pub fn test(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("`test` takes no arguments, got `{a}`"));
    }
    // A fresh machine has none of these; each is skipped when already there.
    ensure_components()?;
    ensure_wasm_target()?;
    ensure_browser()?;
    ensure_node_modules()?;
    // mdBook's install (a fresh machine's) compiles beside the steps before the book.
    let mut mdbook_install = crate::book::install_in_background()?;
    let wasm = "wasm32-unknown-unknown";
    // (key in target/ci/xtask-test-times.json, name, step)
    let steps: Vec<(&str, &str, Step)> = vec![
        (
            "format",
            "format",
            Step::Cmd(cmd("cargo", &["fmt", "--all", "--", "--check"])),
        ),
        (
            "clippy",
            "clippy",
            Step::Cmd(cmd(
                "cargo",
                &[
                    "clippy",
                    "--locked",
                    "--all-targets",
                    "--features",
                    "schema",
                    "--",
                    "-D",
                    "warnings",
                ],
            )),
        ),
        (
            "native_tests",
            "native tests",
            // The `schema` feature: the report reference's test needs it.
            Step::Cmd(cmd("cargo", &["test", "--locked", "--features", "schema"])),
        ),
        (
            "wasm_runner_build",
            "wasm test runner build (wasm-bindgen-cli without TLS, on the xtask's build of wasm-bindgen's crates; first time 1-2 min)",
            Step::Cmd(cmd(
                "cargo",
                &["build", "--locked", "-p", "wasm-test-runner"],
            )),
        ),
        (
            "wasm_tests",
            "wasm tests in Chromium (the test files with wasm-bindgen tests)",
            Step::Cmd(wasm_tests(wasm)?),
        ),
        ("wasm_build", "wasm package build", Step::Build),
        ("book", "book build", Step::Book),
        ("dist", "static folder (dist/)", Step::Dist),
        (
            "page_tests",
            "page tests (parallel files, one shared Chromium and server)",
            Step::Cmd(cmd("node", &["tests/e2e/run.mjs"])),
        ),
        (
            "load_times",
            "load times (the page's and an embed's cold loads, local and over an emulated 10 Mbit/s link; printed, never failing)",
            Step::Figures(cmd("node", &["tests/e2e/load-time.mjs"])),
        ),
    ];
    let total = steps.len();
    let t0 = Instant::now();
    let mut done = Vec::new();
    let mut times = serde_json::Map::new();
    for (i, (key, name, step)) in steps.into_iter().enumerate() {
        let t = Instant::now();
        let shown = match &step {
            Step::Cmd(c) | Step::Figures(c) => crate::util::show(c),
            Step::Build => "cargo xtask build (with --locked)".to_string(),
            Step::Book => "cargo xtask book".to_string(),
            Step::Dist => "copy www/ (page and book) into dist/".to_string(),
        };
        println!("\n==> xtask test [{}/{total}] {name}: {shown}", i + 1);
        let result = match step {
            Step::Cmd(c) => {
                if name.starts_with("page tests") {
                    ensure_node_modules()?;
                }
                run(c)
            }
            Step::Figures(c) => {
                if let Err(e) = run(c) {
                    println!("xtask test: WARNING: {name} printed no figures ({e}); not a failure");
                }
                Ok(())
            }
            Step::Build => crate::build::build(true).map(|_| ()),
            Step::Book => match mdbook_install.take() {
                Some(install) => install.wait().and_then(|()| crate::book::build_book(true)),
                None => crate::book::build_book(true),
            },
            Step::Dist => crate::dist::copy_www(),
        };
        if let Err(e) = result {
            return Err(format!(
                "step {}/{total} `{name}` FAILED after {}: {e}\n(steps passed before it: {})",
                i + 1,
                secs(t),
                if done.is_empty() {
                    "none".to_string()
                } else {
                    done.join(", ")
                }
            ));
        }
        println!("<== {name}: ok in {}", secs(t));
        times.insert(format!("{key}_s"), whole_secs(t).into());
        done.push(format!("{name} {}", secs(t)));
    }
    times.insert("total_s".into(), whole_secs(t0).into());
    write_times(&times)?;
    println!("\nxtask test: all {total} steps passed in {}", secs(t0));
    for d in &done {
        println!("  ok  {d}");
    }
    Ok(())
}

/// Each step's time and the total, whole seconds, in target/ci/xtask-test-times.json.
fn write_times(times: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    let dir = crate::util::root().join("target/ci");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let text = serde_json::to_string_pretty(times).expect("times serialise") + "\n";
    std::fs::write(dir.join("xtask-test-times.json"), text)
        .map_err(|e| format!("cannot write target/ci/xtask-test-times.json: {e}"))
}

/// Seconds since `t`, rounded to whole seconds (as `.ci/run` counts them).
fn whole_secs(t: Instant) -> u64 {
    t.elapsed().as_secs_f64().round() as u64
}
