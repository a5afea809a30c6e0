//! `cargo xtask book`: the book's generated references (`cargo xtask docs`), then the book
//! (docs/, mdBook) built into www/book/ (`serve` and `dist` build it without the first
//! step), served beside the playground so its live figures (`../?embed=1&...`) load from
//! the same origin. mdBook is installed from crates.io at a pinned version, with the
//! search feature only, when the machine has no such mdbook.

use crate::util::{cmd, root, run, secs};
use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// The mdBook release the book is built with.
const MDBOOK_VERSION: &str = "0.5.4";

/// Where `cargo install` puts the pinned mdBook (inside target/, so `cargo clean` drops it).
fn tools_root() -> PathBuf {
    root().join("target/tools")
}

/// The version line an mdbook binary prints, if it runs.
fn version_of(program: &PathBuf) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The pinned mdbook already on the PATH or in target/tools, if any.
fn installed_mdbook() -> Option<PathBuf> {
    let wanted = format!("mdbook v{MDBOOK_VERSION}");
    [PathBuf::from("mdbook"), tools_root().join("bin/mdbook")]
        .into_iter()
        .find(|c| version_of(c).as_deref() == Some(wanted.as_str()))
}

/// `cargo install` of the pinned mdBook into target/tools.
fn install_command() -> Command {
    let mut c = cmd(
        "cargo",
        &[
            "install",
            "mdbook",
            "--version",
            MDBOOK_VERSION,
            "--no-default-features",
            "--features",
            "search",
            "--locked",
            // A debug build: a fraction of a release build's compile time, and the book
            // still renders in about a second.
            "--debug",
            "--root",
        ],
    );
    c.arg(tools_root());
    c
}

/// An mdbook binary of the pinned version: on the PATH, in target/tools, or installed there.
fn mdbook() -> Result<PathBuf, String> {
    if let Some(found) = installed_mdbook() {
        return Ok(found);
    }
    println!(
        "xtask book: installing mdBook {MDBOOK_VERSION} from crates.io into target/tools \
         (first run only; a debug build of about 150 crates, 1-2 min on 2 cores)"
    );
    let t = Instant::now();
    run(install_command())?;
    println!("xtask book: mdBook installed in {}", secs(t));
    Ok(tools_root().join("bin/mdbook"))
}

/// An mdBook install started in the background (`cargo xtask test` starts it first, so its
/// compile fills the cores the steps before the book leave idle), its output in a log.
pub struct Install {
    child: Child,
    log: PathBuf,
    started: Instant,
}

/// Starts installing the pinned mdBook in the background when the machine has none (its
/// own `cargo install` target directory, so it never waits on the build's lock); `None`
/// when one is there already.
pub fn install_in_background() -> Result<Option<Install>, String> {
    if installed_mdbook().is_some() {
        return Ok(None);
    }
    let log = root().join("target/mdbook-install.log");
    std::fs::create_dir_all(root().join("target"))
        .map_err(|e| format!("cannot create target/: {e}"))?;
    let out = File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("cannot share {}: {e}", log.display()))?;
    let mut c = install_command();
    c.stdin(Stdio::null()).stdout(out).stderr(err);
    let child = c
        .spawn()
        .map_err(|e| format!("could not start `{}`: {e}", crate::util::show(&c)))?;
    println!(
        "xtask: installing mdBook {MDBOOK_VERSION} in the background for the book step \
         (output in {})",
        log.display()
    );
    Ok(Some(Install {
        child,
        log,
        started: Instant::now(),
    }))
}

/// An install nobody waited for (a step before the book failed) is stopped.
impl Drop for Install {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Install {
    /// Waits for the install; a failure carries the end of its log.
    pub fn wait(mut self) -> Result<(), String> {
        let status = self
            .child
            .wait()
            .map_err(|e| format!("could not wait for the mdBook install: {e}"))?;
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        if !status.success() {
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(40)..].join("\n");
            return Err(format!(
                "the mdBook install failed ({status}); the end of {}:\n{tail}",
                self.log.display()
            ));
        }
        println!(
            "xtask book: mdBook installed in the background, done {} after it started",
            secs(self.started)
        );
        Ok(())
    }
}

/// Builds docs/ into www/book/, first regenerating its references (`cargo xtask docs`)
/// when `regenerate`: `cargo xtask book` and the one check do; `serve` and `dist` build the
/// book as it is, whose references the native tests keep fresh (and spare a first serve
/// the tests' build).
pub fn build_book(regenerate: bool) -> Result<(), String> {
    if regenerate {
        crate::docs::docs()?;
    }
    let mdbook = mdbook()?;
    let t = Instant::now();
    let dest = root().join("www/book");
    let mut c = Command::new(&mdbook);
    c.current_dir(root())
        .args(["build", "docs", "--dest-dir"])
        .arg(&dest);
    run(c)?;
    println!(
        "xtask book: the book is in www/book/ (built in {})",
        secs(t)
    );
    Ok(())
}
