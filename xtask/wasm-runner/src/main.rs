//! The wasm-bindgen test runner as cargo's runner for wasm32 test binaries: wasm-bindgen-cli
//! as a library, pinned by Cargo.lock to the version the crate's wasm-bindgen uses.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = std::iter::once(std::ffi::OsString::from("wasm-bindgen-test-runner"))
        .chain(std::env::args_os().skip(1));
    match wasm_bindgen_cli::wasm_bindgen_test_runner::run_cli_with_args(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wasm-test-runner: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
