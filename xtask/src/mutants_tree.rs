//! The tree `cargo xtask mutants` mutates: a copy of the working tree (tracked and
//! untracked files, not the ignored ones) in `target/mutants-tree/`, with its own target
//! directory holding only the `mutants` profile. One job (`--in-place`) mutates it there,
//! and the build made here serves cargo-mutants' baseline; several jobs each get a copy of
//! it (`--copy-target true`) instead of building the dependencies again per module and job.
//! Only the test targets the chosen modules run are built (the smoke check's one, not 35).

use crate::util::{cmd, root, run};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Copies the working tree's files into `target/mutants-tree/` (only those whose bytes
/// changed, so the incremental build there stays valid), removes files that are gone,
/// and builds the library's unit tests (when `lib`) and the integration tests `tests` (those
/// the chosen modules run, not all of them) with the `mutants` profile.
pub fn prepare(lib: bool, tests: &[&str]) -> Result<PathBuf, String> {
    let tree = root().join("target/mutants-tree");
    let files = source_files()?;
    let mut copied = 0;
    for f in &files {
        if copy_if_changed(&root().join(f), &tree.join(f))? {
            copied += 1;
        }
    }
    let keep: HashSet<PathBuf> = files.iter().map(|f| tree.join(f)).collect();
    remove_stale(&tree, &tree.join("target"), &keep);
    println!(
        "xtask mutants: {} ({} files, {copied} changed); building the mutants profile there",
        tree.display(),
        files.len()
    );
    // `cargo test --no-run` with cargo-mutants' own selection (`--lib --test ...`): what its
    // baseline builds, so the baseline finds it fresh.
    let mut args = vec!["test", "--no-run", "--profile", "mutants", "-q"];
    if lib {
        args.push("--lib");
    }
    for t in tests {
        args.extend(["--test", t]);
    }
    let mut build = cmd("cargo", &args);
    build
        .current_dir(&tree)
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_TARGET_DIR", tree.join("target"));
    run(build)?;
    Ok(tree)
}

/// The working tree's files, as git lists them: tracked plus untracked, minus ignored.
fn source_files() -> Result<Vec<PathBuf>, String> {
    let out = cmd(
        "git",
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )
    .output()
    .map_err(|e| format!("could not run git ls-files: {e}"))?;
    if !out.status.success() {
        return Err("git ls-files failed: is this a git checkout?".into());
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
        .filter(|p| root().join(p).is_file())
        .collect())
}

/// Copies `from` to `to` unless `to` already holds the same bytes; true when it copied.
fn copy_if_changed(from: &Path, to: &Path) -> Result<bool, String> {
    let bytes = std::fs::read(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    if std::fs::read(to).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(to, bytes).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    Ok(true)
}

/// Removes files under `dir` that are not in `keep`, leaving `skip` (the target) alone.
fn remove_stale(dir: &Path, skip: &Path, keep: &HashSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p == skip {
            continue;
        }
        if p.is_dir() {
            remove_stale(&p, skip, keep);
        } else if !keep.contains(&p) {
            let _ = std::fs::remove_file(&p);
        }
    }
}
