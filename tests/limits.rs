//! What the simulator can represent and afford: seeds the page can hold, times within the
//! clock's horizon, lengths whose sums cannot overflow, runs that fit in memory, and
//! trace lines of bounded length. Each bad input is an error naming what is wrong.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{kvfleet, tmp};
use kvfleet::api;

#[test]
fn seeds_above_2_pow_53_are_refused() {
    // 2^53 = 9007199254740992 is the largest integer a JavaScript number holds with every
    // integer below it; 2^53 + 1 would come back from the page as 2^53.
    assert!(api::run_json(r#"{"seed": 9007199254740992, "num_requests": 1}"#).is_ok());
    let err = api::run_json(r#"{"seed": 9007199254740993, "num_requests": 1}"#).unwrap_err();
    assert!(
        err.contains("seed") && err.contains("9007199254740993"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--seed", "9007199254740993"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--seed") && err.contains("9007199254740993"),
        "{err}"
    );
    let _ = tmp("unused");
}
