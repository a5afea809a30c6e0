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

/// Runs `npm ci` if `node_modules/` is missing or lacks one of package.json's
/// devDependencies (one added since the last install: the npm tools are pinned in
/// package-lock.json).
pub fn ensure_node_modules() -> Result<(), String> {
    let modules = root().join("node_modules");
    let manifest = std::fs::read_to_string(root().join("package.json"))
        .map_err(|e| format!("cannot read package.json: {e}"))?;
    let missing: Vec<String> = dev_dependencies(&manifest)
        .into_iter()
        .filter(|name| !modules.join(name).join("package.json").is_file())
        .collect();
    if modules.is_dir() && missing.is_empty() {
        return Ok(());
    }
    if modules.is_dir() {
        println!(
            "xtask: node_modules/ lacks {}, running `npm ci`",
            missing.join(", ")
        );
    } else {
        println!("xtask: node_modules/ is missing, running `npm ci`");
    }
    run(cmd("npm", &["ci", "--no-audit", "--no-fund"])).map_err(|e| {
        format!("{e}\n  the page tools (binaryen, chart.js, esbuild, playwright-core) come from npm: run `npm ci` in the repository root")
    })
}

/// The package names in package.json's `devDependencies` block (one `"name": "version"`
/// a line, as npm writes it).
fn dev_dependencies(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("\"devDependencies\""))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('}'))
        .filter_map(|l| {
            l.trim()
                .strip_prefix('"')?
                .split_once('"')
                .map(|(n, _)| n.to_string())
        })
        .collect()
}

/// Whether a command runs and exits 0 (output discarded).
fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs the wasm32 target with rustup when it is missing (a fresh machine).
pub fn ensure_wasm_target() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
        .unwrap_or(false);
    if installed {
        return Ok(());
    }
    println!("xtask: the wasm32-unknown-unknown target is missing, running `rustup target add`");
    run(cmd("rustup", &["target", "add", "wasm32-unknown-unknown"]))
}

/// Installs rustfmt and clippy when missing.
pub fn ensure_components() -> Result<(), String> {
    for (tool, component) in [("rustfmt", "rustfmt"), ("cargo-clippy", "clippy")] {
        if !succeeds(tool, &["--version"]) {
            println!("xtask: {component} is missing, running `rustup component add {component}`");
            run(cmd("rustup", &["component", "add", component]))?;
        }
    }
    Ok(())
}

/// Installs Debian's Chromium and ChromeDriver for the browser tests when missing (as
/// root, with apt-get; a tool's own browser download cannot work on a closed network).
pub fn ensure_browser() -> Result<(), String> {
    let have = |p: &str| std::path::Path::new(p).exists();
    if have("/usr/bin/chromium") && have("/usr/bin/chromedriver") {
        return Ok(());
    }
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let sudo: &[&str] = if root_user { &[] } else { &["sudo"] };
    println!("xtask: Chromium or ChromeDriver is missing, installing Debian's chromium and chromium-driver");
    let apt = |args: &[&str]| {
        let all: Vec<&str> = sudo
            .iter()
            .chain(["apt-get"].iter())
            .chain(args)
            .copied()
            .collect();
        let mut c = cmd(all[0], &all[1..]);
        c.env("DEBIAN_FRONTEND", "noninteractive");
        run(c)
    };
    apt(&["update", "-q"])?;
    apt(&[
        "install",
        "-y",
        "-q",
        "--no-install-recommends",
        "chromium",
        "chromium-driver",
    ])
    .map_err(|e| {
        format!("{e}\n  the browser tests need /usr/bin/chromium and /usr/bin/chromedriver")
    })
}

#[cfg(test)]
mod tests {
    use super::dev_dependencies;

    #[test]
    fn dev_dependencies_are_read_from_package_json() {
        let manifest = r#"{
  "name": "kvfleet-web",
  "scripts": {
    "test": "node --test tests/e2e/"
  },
  "devDependencies": {
    "@scope/pkg": "1.0.0",
    "esbuild": "0.28.2"
  },
  "other": {}
}"#;
        assert_eq!(dev_dependencies(manifest), ["@scope/pkg", "esbuild"]);
        assert!(dev_dependencies("{}").is_empty());
    }
}
