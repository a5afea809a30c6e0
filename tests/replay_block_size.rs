//! A replay whose requests were read at one block size and run at another is refused with
//! the request and the counts, never indexed past its ids: through the library, and
//! through the CLI's sweep over a trace (whose points used to panic in the router).
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use kvfleet::workload::Request;
use kvfleet::{api, Config};

/// A 1,000-token prompt with its two ids of a 512-token block size.
fn read_at_512() -> Request {
    Request {
        id: 0,
        arrival_us: 0,
        prompt_tokens: 1000,
        output_tokens: 4,
        block_ids: vec![7, 8].into(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

#[test]
fn the_library_refuses_ids_made_at_another_block_size() {
    let cfg = Config {
        block_size: 64,
        ..Config::default()
    };
    // ceil(1000 / 64) = 16 blocks, and the request has 2 ids.
    let err = api::replay_simulation(&cfg, vec![read_at_512()], "t")
        .err()
        .expect("refused");
    assert!(err.starts_with("t: request 1 has 2 block ids"), "{err}");
    assert!(err.contains("block size of 64 tokens needs 16"), "{err}");
}

#[test]
fn the_library_accepts_ids_at_their_own_block_size() {
    let cfg = Config {
        block_size: 512,
        ..Config::default()
    };
    let mut sim = api::replay_simulation(&cfg, vec![read_at_512()], "t").expect("accepted");
    sim.run_to_end();
    assert_eq!(sim.into_report().summary.completed, 1);
}

#[test]
fn a_block_size_sweep_over_a_trace_is_an_error_not_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(["--des-mooncake-trace", "tests/data/mooncake_small.jsonl"])
        .args(["--des-sweep", "block-size=64,512", "-q"])
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The first line (1,000 tokens, ids [0, 1]) needs ceil(1000 / 64) = 16 ids at 64.
    assert!(
        stderr.contains("request 1 has 2 block ids for 1000 prompt tokens"),
        "{stderr}"
    );
}
