//! `cargo xtask build`: the optimised wasm package in pkg/, copied with chart.js into www/,
//! and the page's scripts bundled into www/bundle/ (esbuild, `scripts/bundle.mjs`).

use crate::util::{cmd, ensure_node_modules, ensure_wasm_target, root, run, secs};
use std::fs;
use std::path::Path;
use std::time::Instant;

const TARGET: &str = "wasm32-unknown-unknown";
/// The cargo profile of the page's wasm (Cargo.toml's `[profile.wasm]`: release, at opt-level 3).
const PROFILE: &str = "wasm";
/// The crate's wasm output (crate name with `-` as `_`).
const WASM_NAME: &str = "kvfleet";

/// Compiles the crate's wasm with the stable toolchain's ordinary features (`locked`:
/// `--locked`). The library is an rlib in Cargo.toml; `cargo rustc --crate-type cdylib`
/// makes this one build a cdylib, the wasm module wasm-bindgen reads.
fn compile(locked: bool) -> Result<(), String> {
    let mut args = vec![
        "rustc",
        "--crate-type",
        "cdylib",
        "--profile",
        PROFILE,
        "--target",
        TARGET,
        "--lib",
        "-p",
        "kvfleet",
    ];
    if locked {
        args.push("--locked");
    }
    println!("xtask build: cargo {}", args.join(" "));
    run(cmd("cargo", &args))
}

/// Builds pkg/ and refreshes www/pkg/ and www/vendor/ (`locked`: pass `--locked` to cargo).
/// Returns the optimised wasm size in bytes.
pub fn build(locked: bool) -> Result<u64, String> {
    let t0 = Instant::now();
    let root = root();
    ensure_wasm_target()?;
    ensure_node_modules()?;
    let wasm_opt = root.join("node_modules/.bin/wasm-opt");
    if !wasm_opt.exists() {
        return Err(format!(
            "{} is missing: run `npm ci` (binaryen@132 from package-lock.json; never Debian's binaryen)",
            wasm_opt.display()
        ));
    }

    let t = Instant::now();
    compile(locked)?;
    println!("  compiled in {}", secs(t));

    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| root.join(d))
        .unwrap_or_else(|| root.join("target"));
    let input = target_dir.join(format!("{TARGET}/{PROFILE}/{WASM_NAME}.wasm"));
    let pkg = root.join("pkg");
    let wasm = pkg.join(format!("{WASM_NAME}_bg.wasm"));
    let stamp_path = pkg.join(".xtask-input");
    let stamp = input_stamp(&input)?;
    if wasm.exists() && fs::read_to_string(&stamp_path).ok().as_deref() == Some(&stamp) {
        println!("  pkg/ is up to date (the compiled wasm has not changed)");
    } else {
        let pre_opt = target_dir.join(format!("{WASM_NAME}_bg.pre-opt.wasm"));
        bindgen_and_optimise(&input, &pkg, &wasm, &pre_opt, &wasm_opt)?;
        fs::write(&stamp_path, &stamp).map_err(|e| format!("cannot write stamp: {e}"))?;
    }

    write_package_json(&root, &pkg)?;
    let www = root.join("www");
    copy_dir(&pkg, &www.join("pkg"))?;
    let vendor = www.join("vendor");
    fs::create_dir_all(&vendor).map_err(|e| format!("cannot create {}: {e}", vendor.display()))?;
    let chart = root.join("node_modules/chart.js");
    for (from, to) in [
        ("dist/chart.umd.js", "chart.umd.js"),
        ("dist/chart.umd.js.map", "chart.umd.js.map"),
        ("LICENSE.md", "chart.js.LICENSE.md"),
    ] {
        copy(&chart.join(from), &vendor.join(to))?;
    }
    bundle_scripts()?;
    // The built-in traces the page offers (fetched by its worker from www/data/).
    let data = www.join("data");
    fs::create_dir_all(&data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
    for name in ["conversation_trace.jsonl", "synthetic_trace.jsonl"] {
        copy(&root.join("data/mooncake").join(name), &data.join(name))?;
    }
    // kvfleet's own built-in trace (a lesson's; its recipe is a test in tests/lessons.rs), and
    // the sample step and request logs the calibration panel offers (generated; their recipes are a test in
    // tests/calibrate.rs).
    for name in [
        "doc_chat_trace.jsonl",
        "steps_generated_llama3-8b-h100.csv",
        "steps_generated_llama3-8b-b200.csv",
        "requests_generated_llama3-8b-h100.csv",
    ] {
        copy(&root.join("data/kvfleet").join(name), &data.join(name))?;
    }

    let raw = size(&wasm)?;
    let gz = gzip_size(&wasm)?;
    println!(
        "xtask build: www/pkg/{WASM_NAME}_bg.wasm {raw} bytes ({:.1} KiB), gzip {gz} bytes ({:.1} KiB); done in {}",
        raw as f64 / 1024.0,
        gz as f64 / 1024.0,
        secs(t0)
    );
    let glue = gzip_size(&pkg.join(format!("{WASM_NAME}.js")))?;
    println!("{}", size_line(gz, glue));
    write_size_record(gz, glue)?;
    Ok(raw)
}

/// Bundles the page's ES modules (www/js/) and its worker, with the wasm's bindings, into
/// www/bundle/ (what www/index.html loads: one request for the page's scripts, one for the
/// worker's, rather than some forty modules fetched an import level at a time).
fn bundle_scripts() -> Result<(), String> {
    let t = Instant::now();
    run(cmd("node", &["scripts/bundle.mjs"]))?;
    println!("  bundled in {}", secs(t));
    Ok(())
}

/// The page's download budget: wasm plus JS glue, gzip -9, in bytes. What readers wait
/// for is judged by the load-time scripts (the page's and an embed's cold load); this
/// budget only warns when the download grows past it, and never fails a build.
const GZIP_BUDGET_BYTES: u64 = 280_000;

/// The line stating the wasm + glue gzipped total against the budget.
fn size_line(wasm_gz: u64, glue_gz: u64) -> String {
    let total = wasm_gz + glue_gz;
    let verdict = if total <= GZIP_BUDGET_BYTES {
        "within budget"
    } else {
        "WARNING: over budget (the page loads more slowly; not a failure)"
    };
    format!(
        "wasm size: {WASM_NAME}_bg.wasm {wasm_gz} + {WASM_NAME}.js {glue_gz} = {total} bytes gzip -9, budget {GZIP_BUDGET_BYTES}: {verdict}"
    )
}

/// The size line's figures as JSON, in target/perf/wasm-size.json (what `cargo xtask perf
/// record wasm-size` reads).
fn write_size_record(wasm_gz: u64, glue_gz: u64) -> Result<(), String> {
    let dir = crate::util::root().join("target/perf");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let json = format!(
        "{{\"total_bytes\": {}, \"wasm_bytes\": {wasm_gz}, \"glue_bytes\": {glue_gz}, \"budget_bytes\": {GZIP_BUDGET_BYTES}}}\n",
        wasm_gz + glue_gz
    );
    fs::write(dir.join("wasm-size.json"), json)
        .map_err(|e| format!("cannot write target/perf/wasm-size.json: {e}"))
}

/// pkg/package.json: pkg/ is an npm package (`npm pack pkg/`), an ES module with its
/// TypeScript types. The version is the crate's, read from the root Cargo.toml.
fn write_package_json(root: &Path, pkg: &Path) -> Result<(), String> {
    let manifest = fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .ok_or("no version in Cargo.toml")?;
    let json = format!(
        r#"{{
  "name": "kvfleet",
  "version": "{version}",
  "description": "Discrete-event simulator of an LLM-serving fleet's prefix (KV block) cache and router, in WebAssembly",
  "license": "Apache-2.0",
  "type": "module",
  "module": "{WASM_NAME}.js",
  "main": "{WASM_NAME}.js",
  "types": "{WASM_NAME}.d.ts",
  "exports": {{ ".": {{ "types": "./{WASM_NAME}.d.ts", "default": "./{WASM_NAME}.js" }} }},
  "files": ["{WASM_NAME}.js", "{WASM_NAME}.d.ts", "{WASM_NAME}_bg.wasm", "{WASM_NAME}_bg.wasm.d.ts"],
  "sideEffects": ["./snippets/*"]
}}
"#
    );
    fs::write(pkg.join("package.json"), json)
        .map_err(|e| format!("cannot write pkg/package.json: {e}"))
}

/// The wasm-opt passes, in order (the book, Performance, "The wasm's optimisation level"): the
/// producers and target-features sections dropped (no browser reads them), `-Oz`, then functions that differ only in
/// constants merged and `-Oz` again (together 0.9 KB gzipped less than one `-Oz`).
const WASM_OPT_PASSES: [&str; 5] = [
    "--strip-producers",
    "--strip-target-features",
    "-Oz",
    "--merge-similar-functions",
    "-Oz",
];

/// wasm-bindgen (`--target web`) into a fresh pkg/, then wasm-opt (`WASM_OPT_PASSES`) in
/// place (keeping wasm-bindgen's output, with its names, as `pre_opt`).
fn bindgen_and_optimise(
    input: &Path,
    pkg: &Path,
    wasm: &Path,
    pre_opt: &Path,
    wasm_opt: &Path,
) -> Result<(), String> {
    let t = Instant::now();
    if pkg.exists() {
        fs::remove_dir_all(pkg).map_err(|e| format!("cannot clear {}: {e}", pkg.display()))?;
    }
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(input)
        .web(true)
        .and_then(|b| {
            b.typescript(true)
                .omit_default_module_path(false)
                .generate(pkg)
        })
        .map_err(|e| format!("wasm-bindgen failed: {e:#}"))?;
    println!("  wasm-bindgen (--target web) in {}", secs(t));

    // Kept for size work: wasm-bindgen's output still has its function names, so
    // `twiggy top|dominators|monos` on it names what is heavy (the book, Performance, "The
    // wasm's optimisation level").
    copy(wasm, pre_opt)?;
    let t = Instant::now();
    let raw_before = size(wasm)?;
    let wasm_s = wasm.to_string_lossy().into_owned();
    let mut args = WASM_OPT_PASSES.to_vec();
    args.extend([
        "--enable-bulk-memory",
        "--enable-nontrapping-float-to-int",
        "--enable-sign-ext",
        "--enable-mutable-globals",
        "--enable-reference-types",
        "--enable-multivalue",
        &wasm_s,
        "-o",
        &wasm_s,
    ]);
    run(cmd(&wasm_opt.to_string_lossy(), &args))?;
    println!(
        "  wasm-opt {} in {} ({raw_before} -> {} bytes)",
        WASM_OPT_PASSES.join(" "),
        secs(t),
        size(wasm)?
    );
    Ok(())
}

/// Identifies the compiled wasm (size and modification time) plus this build's settings,
/// so an unchanged input skips wasm-bindgen and the 20 s of wasm-opt.
fn input_stamp(input: &Path) -> Result<String, String> {
    let meta = fs::metadata(input).map_err(|e| format!("cannot stat {}: {e}", input.display()))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!(
        "{} {mtime} web {} binaryen@132\n",
        meta.len(),
        WASM_OPT_PASSES.join(" ")
    ))
}

fn size(p: &Path) -> Result<u64, String> {
    fs::metadata(p)
        .map(|m| m.len())
        .map_err(|e| format!("cannot stat {}: {e}", p.display()))
}

/// gzip -9 size, via the system's gzip (kept out of the xtask's dependencies).
fn gzip_size(p: &Path) -> Result<u64, String> {
    let out = std::process::Command::new("gzip")
        .args(["-9", "-c"])
        .arg(p)
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip failed on {}", p.display()));
    }
    Ok(out.stdout.len() as u64)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

/// Replaces `to` with a flat copy of the files in `from`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    if to.exists() {
        fs::remove_dir_all(to).map_err(|e| format!("cannot clear {}: {e}", to.display()))?;
    }
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if entry.path().is_file() && !hidden {
            copy(&entry.path(), &to.join(entry.file_name()))?;
        }
    }
    Ok(())
}
