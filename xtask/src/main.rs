//! `cargo xtask <cmd>`: the project's build, serve and test driver (see `usage()`).

mod book;
mod build;
mod dist;
mod docs;
mod figures;
mod mutants;
mod mutants_tree;
mod perf;
mod serve;
mod static_server;
mod test;
mod util;

use std::process::ExitCode;

fn usage() -> &'static str {
    "usage: cargo xtask <command>

commands:
  build                 wasm32 build (profile wasm, opt-level 3, stable toolchain) ->
                        wasm-bindgen (--target web) -> wasm-opt -Oz (twice) into pkg/, then
                        copy pkg/ to www/pkg/, chart.js to www/vendor/ and the built-in
                        Mooncake traces to www/data/
  docs                  the book's generated references rewritten from their sources: the
                        CLI reference from --help, the JSON report's chapter and schema
                        files from the report's types, the performance chapter's table
                        from docs/perf/figures.json (the tests that check them, run with
                        KVFLEET_BLESS=1 and the crate's `schema` feature)
  book                  docs, then the book (docs/, mdBook 0.5.4, installed into
                        target/tools when missing) into www/book/ (serve and dist build
                        the book without docs: the native tests keep its references fresh)
  dist                  build and book, then copy www/ into dist/: one static folder (page,
                        wasm, Chart.js, built-in traces, book) to host at any path
  serve [--port N]      build and book, then serve www/ on http://127.0.0.1:N/ (default
                        8000, or a free port when 8000 is busy); the book is at /book/
  test                  the one check: fmt, clippy, native tests, xtask build, wasm tests
                        in Chromium, build, book, dist, page tests (node tests/e2e/run.mjs:
                        the files in parallel, sharing one Chromium and one server)
  mutants [--smoke] [--jobs N] [--iterate] [--list] [MODULE ...]
                        mutation testing (cargo-mutants, installed if missing) of the core
                        modules one by one against their tests, then a score table
                        (caught / viable per module; fails below 90 %); --smoke runs one
                        small module (the CI check), --iterate retests only the mutants
                        the module's last run did not catch, --list names the modules
  perf list             the performance chapter's measures (docs/perf/figures.json): each id,
                        the command that records it, what it needs
  perf record ID... [--from FILE]
                        run the measures' commands (each once; the machine and its load
                        average read as they run), or read the JSON result FILE a command
                        wrote on this machine; set the measures' latest figures and rewrite
                        the chapter's table (docs/src/performance.md)"
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{}", usage());
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "build" => build::build(false).map(|_| ()),
        "book" => book::build_book(true),
        "docs" => docs::docs(),
        "dist" => dist::dist(false),
        "serve" => serve::serve(rest),
        "test" => test::test(rest),
        "mutants" => mutants::mutants(rest),
        "perf" => perf::perf(rest),
        "help" | "-h" | "--help" => {
            println!("{}", usage());
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{}", usage())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask {cmd}: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
