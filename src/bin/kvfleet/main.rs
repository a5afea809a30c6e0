//! The `kvfleet` binary's entry point: the native CLI (`cli`). On wasm32, where a CLI
//! makes no sense (the browser build is the library), it is an empty program, so the
//! wasm test build does not need the CLI's native dependencies.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod bench;
/// The built-in trace a lesson replays.
mod builtin;
#[cfg(not(target_arch = "wasm32"))]
mod calibrate;
#[cfg(not(target_arch = "wasm32"))]
mod calibrate_requests;
#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod hero_bench;
#[cfg(not(target_arch = "wasm32"))]
mod inputs;
#[cfg(not(target_arch = "wasm32"))]
mod interrupt;
#[cfg(not(target_arch = "wasm32"))]
mod lesson;
#[cfg(not(target_arch = "wasm32"))]
mod lesson_flags;
#[cfg(not(target_arch = "wasm32"))]
mod mapped;
#[cfg(not(target_arch = "wasm32"))]
mod output;
#[cfg(not(target_arch = "wasm32"))]
mod plan;
#[cfg(not(target_arch = "wasm32"))]
mod plan_autoscale;
#[cfg(not(target_arch = "wasm32"))]
mod plan_flags;
#[cfg(not(target_arch = "wasm32"))]
mod plan_mix;
#[cfg(not(target_arch = "wasm32"))]
mod plan_text;
#[cfg(not(target_arch = "wasm32"))]
mod progress;
#[cfg(not(target_arch = "wasm32"))]
mod ratios;
#[cfg(not(target_arch = "wasm32"))]
mod seeds;
#[cfg(not(target_arch = "wasm32"))]
mod summary;
#[cfg(not(target_arch = "wasm32"))]
mod sweep;
#[cfg(not(target_arch = "wasm32"))]
mod warnings;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
