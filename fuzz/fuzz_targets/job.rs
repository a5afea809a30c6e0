//! Fuzz target: a short sliced Job of a config drawn from the bytes: equal to run_json,
//! every invariant kept.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::job(data));
