//! (in progress) rng
