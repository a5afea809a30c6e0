//! Fuzz target: a config as JSON (the page's input): an error naming the field, or a run
//! keeping every invariant, twice to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::config_json(data));
