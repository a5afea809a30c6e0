//! Empty on purpose: it exists so that the `[build-dependencies]` in Cargo.toml (syn with the
//! features the wasm test runner turns on) are resolved with the proc macros' features, which
//! lets the xtask and the runner share one build of wasm-bindgen's crates.

fn main() {}
