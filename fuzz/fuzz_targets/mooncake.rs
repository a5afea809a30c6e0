//! Fuzz target: a Mooncake JSONL trace: a FILE:LINE error, or requests that keep the parse
//! and round-trip rules and replay within every run invariant.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::mooncake(data));
