//! Shared helpers: the workspace root, child commands with a clean cargo environment.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The workspace root (the parent of this crate's directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// A command run in the workspace root. Variables that `cargo run` set for the xtask itself
/// (`CARGO_PKG_*`, `CARGO_MANIFEST_*`, ...) are removed: a build script among
/// wasm-bindgen-cli's dependencies watches them, and a changed value would rebuild it.
pub fn cmd(program: &str, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(root());
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_MANIFEST_")
            || matches!(
                k.as_ref(),
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
            )
        {
            c.env_remove(&key);
        }
    }
    c
}

/// Runs a command to completion, inheriting stdio; an error names the command and its exit.
pub fn run(mut c: Command) -> Result<(), String> {
    let shown = show(&c);
    let status = c
        .status()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// The command line as a person would type it.
pub fn show(c: &Command) -> String {
    std::iter::once(c.get_program())
        .chain(c.get_args())
        .map(|s| s.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seconds since `t`, for step timings.
pub fn secs(t: Instant) -> String {
    format!("{:.1} s", t.elapsed().as_secs_f64())
}

/// Runs `npm ci` if `node_modules/` is missing (the npm tools are pinned in
/// package-lock.json).
pub fn ensure_node_modules() -> Result<(), String> {
    if root().join("node_modules").is_dir() {
        return Ok(());
    }
    println!("xtask: node_modules/ is missing, running `npm ci`");
    run(cmd("npm", &["ci", "--no-audit", "--no-fund"])).map_err(|e| {
        format!("{e}\n  the page tools (binaryen, chart.js, playwright-core) come from npm: run `npm ci` in the repository root")
    })
}
