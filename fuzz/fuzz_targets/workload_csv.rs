//! Fuzz target: a workload CSV file: a FILE:LINE error, or requests that keep the parse
//! rules and replay within every run invariant.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::workload_csv(data));
