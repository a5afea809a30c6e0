//! `cargo xtask dist`: one self-contained static folder, dist/, for hosting the playground,
//! its embeds and the book anywhere: the page, its wasm and glue, Chart.js, the built-in
//! traces and the book, all referenced by relative paths, so any static host serves it
//! as it is, at any path prefix.

use crate::util::{root, secs};
use std::fs;
use std::path::Path;
use std::time::Instant;

/// Builds the page and the book, then copies www/ into a fresh dist/.
pub fn dist(locked: bool) -> Result<(), String> {
    crate::build::build(locked)?;
    crate::book::build_book(false)?;
    copy_www()
}

/// Copies the built www/ (page, wasm, book) into a fresh dist/.
pub fn copy_www() -> Result<(), String> {
    let t = Instant::now();
    let out = root().join("dist");
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    let files = copy_tree(&root().join("www"), &out)?;
    println!(
        "xtask dist: {files} files in dist/ ({}): serve that folder from any static host, at any path",
        secs(t)
    );
    Ok(())
}

/// Copies the tree `from` into `to` (created), skipping hidden files; returns the count.
fn copy_tree(from: &Path, to: &Path) -> Result<usize, String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let mut files = 0;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            files += copy_tree(&src, &dst)?;
        } else {
            fs::copy(&src, &dst)
                .map_err(|e| format!("cannot copy {} to {}: {e}", src.display(), dst.display()))?;
            files += 1;
        }
    }
    Ok(files)
}
