//! Helpers shared by the CLI-driving integration tests: run the binary, name temp files.
#![allow(dead_code)]

use std::process::Command;

/// Runs the `kvfleet` binary; returns (exit code, stdout, stderr).
pub fn kvfleet(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(args)
        .output()
        .expect("the binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A path in the temp folder, unique to this test process and `name`.
pub fn tmp(name: &str) -> String {
    std::env::temp_dir()
        .join(format!("kvfleet-test-{}-{name}", std::process::id()))
        .to_string_lossy()
        .into_owned()
}
