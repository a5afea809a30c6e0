//! (in progress) sim
