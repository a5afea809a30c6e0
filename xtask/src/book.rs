//! `cargo xtask book`: the book's generated references (`cargo xtask docs`), then the book
//! (docs/, mdBook) built into www/book/ (`serve` and `dist` build it without the first
//! step), served beside the playground so its live figures (`../?embed=1&...`) load from
//! the same origin. mdBook is installed from crates.io at a pinned version, with the
//! search feature only, when the machine has no such mdbook.

use crate::util::{cmd, root, run, secs};
use std::path::PathBuf;
use std::process::Command;
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

/// An mdbook binary of the pinned version: on the PATH, in target/tools, or installed there.
fn mdbook() -> Result<PathBuf, String> {
    let wanted = format!("mdbook v{MDBOOK_VERSION}");
    let local = tools_root().join("bin/mdbook");
    for candidate in [PathBuf::from("mdbook"), local.clone()] {
        if version_of(&candidate).as_deref() == Some(wanted.as_str()) {
            return Ok(candidate);
        }
    }
    println!(
        "xtask book: installing mdBook {MDBOOK_VERSION} from crates.io into target/tools \
         (first run only; a debug build of about 150 crates, 1-2 min on 2 cores)"
    );
    let t = Instant::now();
    let tools = tools_root();
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
    c.arg(&tools);
    run(c)?;
    println!("xtask book: mdBook installed in {}", secs(t));
    Ok(local)
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
