//! Fuzz target: a --des-sweep spec: a bounded --des-sweep error, or at most 1000 valid
//! points.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::sweep_spec(data));
