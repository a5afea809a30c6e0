//! The book's CLI reference (`docs/src/cli.md`) is generated from the binary's own
//! `--help` (the clap definitions), never written by hand: this test regenerates it and
//! fails on any difference. `KVFLEET_BLESS=1 cargo test --test cli_reference` rewrites it.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

/// The line after which the generated part starts; everything above it is prose.
const MARKER: &str = "<!-- generated: kvfleet CLI reference -->";

/// The plain run first, then each subcommand, in `kvfleet --help`'s order.
const COMMANDS: [&[&str]; 6] = [
    &[],
    &["analyze"],
    &["calibrate"],
    &["plan"],
    &["lesson"],
    &["bench"],
];

fn help_of(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(args)
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .expect("the kvfleet binary runs");
    assert!(out.status.success(), "kvfleet {args:?} --help failed");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

fn generated() -> String {
    let mut md = String::new();
    for args in COMMANDS {
        let name = std::iter::once("kvfleet")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        md += &format!("\n## `{name}`\n\n```text\n{}```\n", help_of(args));
    }
    md
}

#[test]
fn the_cli_reference_is_the_binary_s_own_help() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/cli.md");
    let text = std::fs::read_to_string(&path).expect("docs/src/cli.md exists");
    let cut = text.find(MARKER).expect("cli.md has the generated marker") + MARKER.len();
    let want = format!("{}\n{}", &text[..cut], generated());
    if std::env::var_os("KVFLEET_BLESS").is_some() {
        std::fs::write(&path, &want).expect("cli.md is writable");
        return;
    }
    assert!(
        text == want,
        "docs/src/cli.md differs from `kvfleet --help`: regenerate it with \
         KVFLEET_BLESS=1 cargo test --test cli_reference"
    );
    for args in COMMANDS {
        let name = args.first().copied().unwrap_or("Usage: kvfleet [OPTIONS]");
        assert!(text.contains(name), "{name} is in the reference");
    }
}
