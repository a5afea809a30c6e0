//! `cargo xtask docs`: the book's generated references rewritten from their sources, by
//! the tests that check them run in bless mode (`KVFLEET_BLESS=1`): the CLI reference
//! (docs/src/cli.md) from the binary's `--help`, and the JSON report's chapter
//! (docs/src/json-report.md) and schema files (docs/src/*.schema.json) from the report's
//! types (the crate's `schema` feature), and the performance chapter's figures table
//! (docs/src/performance.md) from the record of measurements (docs/perf/figures.json).

use crate::util::{cmd, run, secs};
use std::time::Instant;

/// The tests that regenerate a reference, each with its file.
const GENERATORS: [&str; 3] = ["cli_reference", "report_reference", "perf_reference"];

/// Rewrites the generated references (a dev build of the crate and the two tests).
pub fn docs() -> Result<(), String> {
    let t = Instant::now();
    let mut args = vec!["test", "--features", "schema"];
    for g in GENERATORS {
        args.extend(["--test", g]);
    }
    let mut c = cmd("cargo", &args);
    c.env("KVFLEET_BLESS", "1");
    run(c)?;
    println!(
        "xtask docs: docs/src/cli.md, json-report.md, the schema files and performance.md's table regenerated in {}",
        secs(t)
    );
    Ok(())
}
