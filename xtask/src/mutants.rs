//! `cargo xtask mutants`: mutation testing of the core with cargo-mutants, module by
//! module, each against the tests that exercise it, with a score table at the end.
//!
//! A mutant is one small deliberate bug (an operator flipped, a function body replaced
//! by a default); it is *caught* when a test fails (or hangs: a timeout counts as
//! caught), *missed* when every test still passes, *unviable* when it does not compile.
//! The score of a module is (caught + timeouts) / (caught + timeouts + missed); the
//! target is at least 90 % per module. Builds use Cargo.toml's `mutants` profile
//! (opt-level 1, no debug info: a mutant builds and runs its tests in about 5 s) in a
//! copy of the tree with its own target directory (`mutants_tree`), never in
//! `target/debug/`, whose binary the tests run: one job mutates that copy in place, several
//! jobs each copy it again; reports go to
//! `target/mutants-out/<module>/mutants.out/` (`missed.txt` lists the survivors).

use crate::util::{cmd, root, run, secs};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The cargo-mutants release the README's scores were measured with.
const CARGO_MUTANTS_VERSION: &str = "27.1.0";
/// The target: at least this share of viable mutants caught in every module.
const TARGET_SCORE: f64 = 0.90;
/// The module `--smoke` runs: small (14 mutants), so the command keeps working in CI.
const SMOKE: &str = "trace-mooncake";

/// One core module: the files mutated and the tests run against each mutant.
struct Module {
    name: &'static str,
    files: &'static [&'static str],
    tests: &'static [&'static str],
    /// Whether the library's unit tests (`--lib`) run too: each mutant then builds the crate
    /// twice (the library and its unit-test harness).
    lib: bool,
}

const MODULES: &[Module] = &[
    Module {
        name: "cache",
        lib: true,
        files: &["src/cache.rs"],
        tests: &["cache_props", "cache_model", "core_runs"],
    },
    Module {
        name: "cache-parts",
        lib: true,
        // The containers under the cache and the block index: the id tables (array,
        // chunked, sliding window, open addressing) and the release queue.
        files: &["src/cache/*.rs"],
        tests: &["cache_props", "cache_model", "index_model", "core_runs"],
    },
    Module {
        name: "sim",
        lib: true,
        // The event loop, one routing decision, the decision log and the disaggregated
        // fleet's transfers.
        files: &["src/sim.rs", "src/sim/*.rs"],
        // The stepping API (progress, decisions) is the wasm API's; dynamo's new-block
        // term is the zoo's; decision logs by range are the trace export's.
        tests: &[
            "core_runs",
            "decision_picks",
            "disagg",
            "sessions",
            "failures",
            "invariants",
            "routing_capture",
            "wasm_api",
            "zoo_worked",
            "zoo_replay",
            "trace_export",
            "replay",
            "sim_api",
            "disagg_edges",
        ],
    },
    Module {
        name: "index",
        lib: true,
        files: &["src/index.rs"],
        tests: &["index_model", "core_runs", "decision_picks"],
    },
    Module {
        name: "router",
        lib: true,
        files: &[
            "src/router.rs",
            "src/router/*.rs",
            "src/view.rs",
            "src/view/*.rs",
        ],
        // The router dispatches to the zoo's rules (`pick_zoo`, `record_zoo`, the decision
        // log's rule), so the zoo's worked examples and replays test it too.
        tests: &[
            "decision_picks",
            "sessions",
            "replay",
            "router_view",
            "router_snapshot",
            "zoo_worked",
            "zoo_replay",
            "sglang_spiral",
        ],
    },
    Module {
        name: "zoo",
        lib: true,
        files: &["src/router/zoo.rs", "src/router/zoo/*.rs"],
        tests: &[
            "zoo_worked",
            "zoo_replay",
            "sglang_spiral",
            "decision_picks",
        ],
    },
    Module {
        name: "engine",
        lib: true,
        files: &["src/engine.rs", "src/engine/*.rs"],
        tests: &["core_runs", "sessions", "failures", "invariants"],
    },
    Module {
        name: "timing",
        lib: true,
        files: &["src/timing.rs"],
        tests: &["core_runs"],
    },
    Module {
        name: "histogram",
        lib: true,
        files: &["src/histogram.rs"],
        tests: &["core_runs"],
    },
    Module {
        name: "metrics",
        lib: true,
        files: &["src/metrics.rs"],
        tests: &["core_runs", "failures", "sessions", "routing_capture"],
    },
    Module {
        name: "sweep",
        lib: true,
        files: &["src/sweep.rs"],
        tests: &["sweep"],
    },
    Module {
        name: "sessions",
        lib: true,
        files: &["src/sessions.rs"],
        tests: &["sessions", "failures", "lessons"],
    },
    Module {
        name: "workload",
        lib: true,
        files: &["src/workload.rs"],
        tests: &["core_runs", "invariants"],
    },
    Module {
        name: "trace-mooncake",
        // trace_parse alone catches every viable mutant here (11 of 11, as with --lib);
        // without the unit tests each mutant builds the crate once, not twice.
        lib: false,
        files: &["src/trace/mooncake.rs"],
        tests: &["trace_parse"],
    },
    Module {
        name: "decimal",
        lib: true,
        files: &["src/decimal.rs"],
        tests: &["sweep", "trace_parse"],
    },
    Module {
        name: "trace-quick",
        lib: true,
        files: &["src/trace/quick.rs"],
        tests: &["trace_parse", "trace_real"],
    },
    Module {
        name: "trace",
        lib: true,
        files: &["src/trace.rs", "src/trace/*.rs"],
        tests: &["trace_parse", "trace_export", "trace_real", "replay"],
    },
    Module {
        name: "report",
        lib: true,
        files: &["src/report.rs"],
        tests: &[
            "core_runs",
            "cli",
            "findings",
            "invariants",
            "sessions",
            "trace_export",
            "disagg",
            "routing_capture",
        ],
    },
    Module {
        name: "plan",
        lib: true,
        files: &["src/plan.rs", "src/plan/*.rs"],
        tests: &["plan"],
    },
    Module {
        name: "findings",
        lib: true,
        files: &["src/findings.rs"],
        tests: &["findings"],
    },
];

/// What one module's run found.
struct Score {
    name: &'static str,
    caught: usize,
    timeouts: usize,
    missed: Vec<String>,
    unviable: usize,
    seconds: f64,
}

impl Score {
    fn viable(&self) -> usize {
        self.caught + self.timeouts + self.missed.len()
    }

    fn share(&self) -> f64 {
        if self.viable() == 0 {
            return 1.0;
        }
        (self.caught + self.timeouts) as f64 / self.viable() as f64
    }
}

pub fn mutants(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--list") {
        for m in MODULES {
            println!(
                "{:<15} {} (tests: {}{})",
                m.name,
                m.files.join(" "),
                if m.lib {
                    "the library's unit tests, "
                } else {
                    ""
                },
                m.tests.join(" ")
            );
        }
        return Ok(());
    }
    let (modules, jobs) = parse_args(args)?;
    // cargo-mutants' own `--iterate`: retest only what the module's last run did not catch.
    let iterate = args.iter().any(|a| a == "--iterate");
    ensure_cargo_mutants()?;
    let t0 = Instant::now();
    let mut tests: Vec<&str> = modules
        .iter()
        .flat_map(|m| m.tests.iter().copied())
        .collect();
    tests.sort_unstable();
    tests.dedup();
    let tree = crate::mutants_tree::prepare(modules.iter().any(|m| m.lib), &tests)?;
    let mut scores = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        println!(
            "\n==> xtask mutants [{}/{}] {}: {} against {}--test {}",
            i + 1,
            modules.len(),
            m.name,
            m.files.join(" "),
            if m.lib { "--lib " } else { "" },
            m.tests.join(" --test ")
        );
        scores.push(run_module(m, jobs, &tree, iterate)?);
    }
    println!("\n{}", table(&scores));
    println!("xtask mutants: {} module(s) in {}", scores.len(), secs(t0));
    let low: Vec<&str> = scores
        .iter()
        .filter(|s| s.share() < TARGET_SCORE)
        .map(|s| s.name)
        .collect();
    if low.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "below the {:.0} % target: {} (survivors listed above; each needs a test or a \
             reason in the README)",
            TARGET_SCORE * 100.0,
            low.join(", ")
        ))
    }
}

fn parse_args(args: &[String]) -> Result<(Vec<&'static Module>, u32), String> {
    let mut names = Vec::new();
    let mut jobs = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--smoke" => names.push(SMOKE.to_string()),
            "--iterate" => {}
            "--jobs" | "-j" => {
                jobs = it
                    .next()
                    .and_then(|j| j.parse().ok())
                    .filter(|&j| j >= 1)
                    .ok_or("--jobs needs a number >= 1")?;
            }
            name if !name.starts_with('-') => names.push(name.to_string()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if names.is_empty() {
        return Ok((MODULES.iter().filter(|m| m.name != SMOKE).collect(), jobs));
    }
    names
        .iter()
        .map(|n| {
            MODULES.iter().find(|m| m.name == n).ok_or_else(|| {
                let all: Vec<&str> = MODULES.iter().map(|m| m.name).collect();
                format!("unknown module `{n}`; modules: {}", all.join(", "))
            })
        })
        .collect::<Result<_, _>>()
        .map(|m| (m, jobs))
}

/// Installs the measured cargo-mutants release when `cargo mutants` is missing.
fn ensure_cargo_mutants() -> Result<(), String> {
    let present = Command::new("cargo")
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if present {
        return Ok(());
    }
    println!(
        "xtask: cargo-mutants is missing, installing {CARGO_MUTANTS_VERSION} (a debug build: \
         its own speed is nothing beside the builds and tests it runs)"
    );
    run(cmd(
        "cargo",
        &[
            "install",
            "cargo-mutants",
            "--locked",
            "--debug",
            "--version",
            CARGO_MUTANTS_VERSION,
        ],
    ))
}

fn run_module(m: &Module, jobs: u32, tree: &Path, iterate: bool) -> Result<Score, String> {
    let out = root().join("target/mutants-out").join(m.name);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let jobs = jobs.to_string();
    let out_arg = out.to_string_lossy().into_owned();
    let mut args = vec!["mutants", "--no-shuffle"];
    // One job mutates the tree itself (a copy of the working tree already): its baseline
    // then finds `prepare`'s build fresh (cargo-mutants takes no `-j` with `--in-place`). A
    // copy (several jobs) has new file times, so each job's first build recompiles the
    // crate, on the copied dependencies.
    if jobs == "1" {
        args.push("--in-place");
    } else {
        args.extend(["-j", &jobs, "--copy-target", "true"]);
    }
    args.extend(["--profile", "mutants", "-o", &out_arg]);
    for f in m.files {
        args.extend(["-f", f]);
    }
    if iterate {
        args.push("--iterate");
    }
    // The selection goes to every cargo invocation (`--cargo-arg`), the build as well as
    // the run: after `--` it would reach only the run, and each mutant's build would link
    // every test binary of the crate.
    let selection: Vec<String> = m
        .lib
        .then(|| "--cargo-arg=--lib".to_string())
        .into_iter()
        .chain(
            m.tests
                .iter()
                .flat_map(|t| ["--cargo-arg=--test".to_string(), format!("--cargo-arg={t}")]),
        )
        .collect();
    args.extend(selection.iter().map(String::as_str));
    let mut c = cmd("cargo", &args);
    // Each job builds in its own copy's target (copied from the tree's): a shared
    // CARGO_TARGET_DIR would make the jobs wait on one lock.
    c.current_dir(tree).env_remove("CARGO_TARGET_DIR");
    let t = Instant::now();
    let status = c
        .status()
        .map_err(|e| format!("could not start cargo mutants: {e}"))?;
    // cargo-mutants exits 2 when mutants were missed and 3 on timeouts: results, not
    // failures of the tool. Anything else (a failing baseline, a bad flag) is.
    if !matches!(status.code(), Some(0 | 2 | 3)) {
        return Err(format!("cargo mutants failed on `{}` ({status})", m.name));
    }
    let dir = out.join("mutants.out");
    let lines = |file: &str| read_lines(&dir.join(file));
    Ok(Score {
        name: m.name,
        caught: lines("caught.txt").len(),
        timeouts: lines("timeout.txt").len(),
        missed: lines("missed.txt"),
        unviable: lines("unviable.txt").len(),
        seconds: t.elapsed().as_secs_f64(),
    })
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The score table (Markdown, as the README shows it), then each module's survivors.
fn table(scores: &[Score]) -> String {
    let mut t = String::from(
        "| module | mutants | caught | timeouts | missed | unviable | score | time |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for s in scores {
        t += &format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} % | {:.0} s |\n",
            s.name,
            s.viable() + s.unviable,
            s.caught,
            s.timeouts,
            s.missed.len(),
            s.unviable,
            100.0 * s.share(),
            s.seconds
        );
    }
    for s in scores.iter().filter(|s| !s.missed.is_empty()) {
        t += &format!("\nsurvivors in {}:\n", s.name);
        for m in &s.missed {
            t += &format!("  {m}\n");
        }
    }
    t
}
