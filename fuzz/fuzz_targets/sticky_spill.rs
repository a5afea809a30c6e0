//! Fuzz target: sessions under session affinity with spill: the sticky and spill rules hold
//! in the decision log.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kvfleet::fuzzing::sticky_spill(data));
