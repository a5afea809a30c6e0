//! The native CLI (in progress).
fn main() {}
