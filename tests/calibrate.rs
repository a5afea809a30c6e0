//! Calibration checks: ground truth from a preset with noise is recovered, Dynamo's
//! mocker polynomial is recovered by the polynomial form, bad logs get errors with their
//! line, and the CLI writes what the library computes (the page test compares the
//! browser's fit with the same golden file).

use kvfleet::calibrate::sample::{generate, to_csv, SampleSpec};
use kvfleet::calibrate::{self, fit, read_steps, Fit, Form, Options};
use kvfleet::timing::{EnginePreset, Timing};

fn value(f: &Fit, name: &str) -> (f64, Option<f64>) {
    let c = f.coefficients.iter().find(|c| c.name == name).unwrap();
    (c.value, c.se)
}

fn assert_near(f: &Fit, name: &str, truth: f64, rel: f64) {
    let (v, se) = value(f, name);
    assert!(
        (v - truth).abs() <= rel * truth.abs(),
        "{name}: fitted {v} (± {se:?}), truth {truth}, tolerance {rel}\n{f:#?}",
        f = f.warnings
    );
}

#[test]
fn a_noisy_preset_log_gives_back_the_presets_coefficients() {
    // llama3-8b-h100: 6000 µs, 32 µs/token, 20 µs/seq, 49 ns/token; 2,000 steps, 2 % noise.
    let truth = EnginePreset::Llama3_8bH100.timing();
    let spec = SampleSpec {
        steps: 2000,
        ..SampleSpec::default()
    };
    let f = fit(&generate(&truth, &spec), Form::Linear, Options::default()).unwrap();
    // Tolerance: 10 % of each coefficient, and 3 standard errors (the 2 % noise of a
    // 260 ms prefill step is 5 ms, as much as 256 decoding sequences add: decode_seq_us
    // is the least determined, ± 6 %).
    for (name, t) in [
        ("step_fixed_us", truth.step_fixed_us),
        ("prefill_token_us", truth.prefill_token_us),
        ("decode_seq_us", truth.decode_seq_us),
        ("kv_read_token_ns", truth.kv_read_token_ns),
    ] {
        assert_near(&f, name, t, 0.10);
        let (v, se) = value(&f, name);
        let se = se.expect("identified coefficients have a standard error");
        assert!((v - t).abs() <= 3.0 * se, "{name}: {v} ± {se}, truth {t}");
    }
    assert!(f.r2.unwrap() > 0.99, "R² {:?}", f.r2);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(f.engine.prefill_poly_ms, [0.0; 3]);
    // Without noise (durations rounded up to whole µs, as the engine does): within 0.5 %.
    let exact = SampleSpec { noise: 0.0, ..spec };
    let f = fit(&generate(&truth, &exact), Form::Linear, Options::default()).unwrap();
    assert_near(&f, "step_fixed_us", truth.step_fixed_us, 0.005);
    assert_near(&f, "decode_seq_us", truth.decode_seq_us, 0.005);
    assert_near(&f, "kv_read_token_ns", truth.kv_read_token_ns, 0.005);
}

#[test]
fn dynamos_mocker_polynomial_is_fitted_within_two_percent() {
    // Steps timed by the dynamo-mocker preset, on a replica of 2,097,152 KV tokens (256
    // sequences × 8,192): every drawn batch fits in it. The expected coefficients are typed
    // from Dynamo's own source, not from the preset: `PerfModel::Polynomial` in
    // ai-dynamo/dynamo `lib/mocker/src/common/perf_model.rs` at commit
    // f80944a4c0c32d6e8ba9ab7a58a399eae18a053a (`predict_prefill_aggregates`:
    // 4.209989e-07·T² + 1.518344e-02·T + 1.650142e+01 ms; `predict_decode_aggregates`:
    // -25.74·u² + 54.01·u + 5.74 ms), so a wrong preset fails here too.
    let capacity = 256.0 * 8192.0;
    let truth = Timing {
        kv_capacity_tokens: capacity,
        ..EnginePreset::DynamoMocker.timing()
    };
    let spec = SampleSpec {
        steps: 1500,
        noise: 0.0,
        ..SampleSpec::default()
    };
    let opts = Options {
        kv_capacity_tokens: Some(capacity),
    };
    let f = fit(&generate(&truth, &spec), Form::Polynomial, opts).unwrap();
    let expected = [
        ("prefill_poly_ms[0]", 16.50142),
        ("prefill_poly_ms[1]", 1.518344e-2),
        ("prefill_poly_ms[2]", 4.209989e-7),
        ("decode_poly_ms[0]", 5.74),
        ("decode_poly_ms[1]", 54.01),
        ("decode_poly_ms[2]", -25.74),
    ];
    for (name, t) in expected {
        assert_near(&f, name, t, 0.02);
    }
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
}

#[test]
fn without_a_capacity_the_decode_polynomials_slope_is_not_identified() {
    let truth = Timing {
        kv_capacity_tokens: 1e6,
        ..EnginePreset::DynamoMocker.timing()
    };
    let steps = generate(&truth, &SampleSpec::default());
    let f = fit(&steps, Form::Polynomial, Options::default()).unwrap();
    let d1 = f
        .coefficients
        .iter()
        .find(|c| c.name == "decode_poly_ms[1]")
        .unwrap();
    assert!(!d1.identified && d1.value == 0.0 && d1.se.is_none());
    assert!(
        f.warnings.iter().any(|w| w
            .starts_with("decode_poly_ms[1] and decode_poly_ms[2] not identified")
            && w.contains("--kv-capacity-tokens")),
        "{:?}",
        f.warnings
    );
}

#[test]
fn a_log_with_no_decode_only_steps_says_which_coefficients_it_cannot_tell_apart() {
    // Every step: 512 prefill tokens and 8 decoding sequences of 1,000 tokens; only the
    // fixed cost and... nothing else varies: prefill, decode and KV columns are all
    // proportional to the constant.
    let text = "prefill_tokens,decode_seqs,kv_tokens_read,step_us\n\
                512,8,8000,23000\n512,8,8000,23100\n512,8,8000,22900\n512,8,8000,23050\n\
                512,8,8000,22950\n512,8,8000,23000\n";
    let steps = read_steps(text, "same.csv").unwrap();
    let f = fit(&steps, Form::Linear, Options::default()).unwrap();
    assert!(
        f.coefficients.iter().all(|c| !c.identified),
        "{:?}",
        f.coefficients
    );
    let w = f.warnings.join("\n");
    assert!(
        w.contains("cannot be told apart") && w.contains("no decode-only steps"),
        "{w}"
    );
    // Prefill-only steps without decoding: the decode coefficients have no column.
    let text = "prefill_tokens,decode_seqs,kv_tokens_read,step_us\n\
                100,0,0,9200\n200,0,0,12400\n300,0,0,15600\n400,0,0,18800\n";
    let f = fit(
        &read_steps(text, "p.csv").unwrap(),
        Form::Linear,
        Options::default(),
    )
    .unwrap();
    assert!((value(&f, "step_fixed_us").0 - 6000.0).abs() < 1e-6);
    assert!((value(&f, "prefill_token_us").0 - 32.0).abs() < 1e-9);
    let w = f.warnings.join("\n");
    assert!(
        w.contains("decode_seq_us not identified: no step has decoding sequences"),
        "{w}"
    );
    assert!(
        w.contains("kv_read_token_ns not identified: no step reads KV"),
        "{w}"
    );
}

/// The error of reading `text` as a step log.
fn error_of(text: &str) -> String {
    match read_steps(text, "log.csv") {
        Err(e) => e,
        Ok(steps) => fit(&steps, Form::Linear, Options::default())
            .err()
            .unwrap_or_else(|| panic!("no error for {text:?}")),
    }
}

#[test]
fn bad_logs_get_errors_with_their_line() {
    let header = "prefill_tokens,decode_seqs,kv_tokens_read,step_us\n";
    let cases = [
        (
            "prefill_tokens,decode_seqs,step_us\n1,2,3\n".to_string(),
            "log.csv:1: the header has no `kv_tokens_read` column",
        ),
        (
            "prefill_tokens,decode_seqs,kv_tokens_read,step_ms\n1,2,3,4\n".to_string(),
            "log.csv:1: the header has `step_ms` but no `step_us`",
        ),
        (
            format!("{header}1,2,3,4\n1,2,3,-4\n"),
            "log.csv:3: `step_us` must be a duration > 0 and at most 86400000000 microseconds (a day), got -4",
        ),
        (
            format!("# a comment\n{header}1,2,3,4\n1,x2,3,4\n"),
            "log.csv:4: `decode_seqs` is not a number: \"x2\"",
        ),
        (
            format!("{header}1,2,3,4\n1.5,2,3,4\n"),
            "log.csv:3: `prefill_tokens` must be a whole number >= 0, got \"1.5\"",
        ),
        (
            format!("{header}1,2,3,4\n1,2,3\n"),
            "log.csv:3: 3 cells, but the header has 4 columns",
        ),
        (
            format!("{header}1,2,3,4\n2,3,4,5\n"),
            "2 step(s) cannot identify 4 coefficients: give at least 5",
        ),
        (
            "{\"prefill_tokens\": 1, \"decode_seqs\": 2, \"kv_tokens_read\": 3, \"step_us\": 4}\n\
             {\"prefill_tokens\": 1, \"decode_seqs\": 2, \"step_us\": 4}\n"
                .to_string(),
            "log.csv:2: missing `kv_tokens_read`",
        ),
        (
            "\n# only\n".to_string(),
            "log.csv: no steps: the log is empty",
        ),
    ];
    for (text, expected) in cases {
        let e = error_of(&text);
        assert!(
            e.starts_with(expected),
            "{text:?}\n got: {e}\nwant: {expected}"
        );
    }
}

#[test]
fn the_engine_file_round_trips_through_the_fits_json() {
    let truth = EnginePreset::Llama3_8bB200.timing();
    let csv = to_csv(&generate(&truth, &SampleSpec::default()), "generated");
    let json =
        calibrate::calibrate_json(&csv, "b200.csv", Form::Linear, Options::default()).unwrap();
    let engine = calibrate::engine_of_file(&json, "fit.json").unwrap();
    let f = fit(
        &read_steps(&csv, "b200.csv").unwrap(),
        Form::Linear,
        Options::default(),
    )
    .unwrap();
    assert_eq!(engine, f.engine);
    let err = calibrate::engine_of_file("{\"engine\": 3}", "x.json").unwrap_err();
    assert!(err.starts_with("x.json: not a calibration file"), "{err}");
}

mod common;
use common::{kvfleet, tmp};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/kvfleet/steps_generated_llama3-8b-h100.csv"
);
const SAMPLE_RECIPE: [&str; 9] = [
    "calibrate",
    "--generate",
    "llama3-8b-h100",
    "--noise-pct",
    "2",
    "--steps",
    "600",
    "--seed",
    "42",
];
/// The page's second sample: a faster GPU's log, for "Is the preset right for my GPU?".
const SAMPLE_B200: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/kvfleet/steps_generated_llama3-8b-b200.csv"
);
const SAMPLE_B200_RECIPE: [&str; 9] = [
    "calibrate",
    "--generate",
    "llama3-8b-b200",
    "--noise-pct",
    "2",
    "--steps",
    "600",
    "--seed",
    "7",
];

#[test]
fn the_sample_logs_are_their_recipes() {
    for (path, recipe) in [(SAMPLE, SAMPLE_RECIPE), (SAMPLE_B200, SAMPLE_B200_RECIPE)] {
        let (code, out, err) = kvfleet(&recipe);
        assert_eq!(code, 0, "{err}");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(path, &out).unwrap();
        }
        assert!(
            out.starts_with("# GENERATED by kvfleet, not measured"),
            "{out:.200}"
        );
        assert_eq!(out.lines().filter(|l| !l.starts_with('#')).count(), 601);
        assert!(
            std::fs::read_to_string(path).unwrap() == out,
            "{path} is not its command's output"
        );
    }
}

/// The golden fit of the sample log: what the CLI writes, and what the wasm build
/// computes (tests/wasm_api.rs).
const GOLDEN_FIT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/calibrate_sample.json"
);

#[test]
fn the_cli_prints_and_writes_the_fit() {
    let out_path = tmp("calibrate_fit.json");
    let (code, out, err) = kvfleet(&["calibrate", SAMPLE, "--calibrate-json", &out_path]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&out_path).unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(GOLDEN_FIT, &written).unwrap();
    }
    assert_eq!(written, std::fs::read_to_string(GOLDEN_FIT).unwrap());
    // The printed table carries the file's numbers; the preset is within 3 SE.
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    let truth = [6000.0, 32.0, 20.0, 49.0];
    for (c, t) in v["coefficients"].as_array().unwrap().iter().zip(truth) {
        let (name, value, se) = (
            c["name"].as_str().unwrap(),
            c["value"].as_f64().unwrap(),
            c["se"].as_f64().unwrap(),
        );
        let line = format!(
            "  {name:<20} {:>14} {:>14}  ",
            format!("{value:.6}"),
            format!("{se:.6}")
        );
        assert!(out.contains(&line), "{line:?} not in\n{out}");
        assert!(
            (value - t).abs() <= 3.0 * se,
            "{name}: {value} ± {se}, truth {t}"
        );
    }
    assert!(out.contains("  R² 0.99"), "{out}");
    // Per step, measured (the log's own times) and predicted (the coefficients applied).
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let steps = read_steps(&text, "s.csv").unwrap();
    let measured: Vec<f64> = v["measured_us"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(
        measured,
        steps.iter().map(|s| s.step_us).collect::<Vec<_>>()
    );
    let c: Vec<f64> = v["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["value"].as_f64().unwrap())
        .collect();
    let predicted = v["predicted_us"].as_array().unwrap();
    for (s, p) in steps.iter().zip(predicted) {
        let by_hand = c[0]
            + c[1] * s.prefill_tokens as f64
            + c[2] * s.decode_seqs as f64
            + c[3] * s.kv_tokens_read as f64 / 1000.0;
        assert!(
            (p.as_f64().unwrap() - by_hand).abs() < 1e-6 * by_hand,
            "{p} vs {by_hand}"
        );
    }
}

#[test]
fn a_bad_log_exits_2_with_its_line() {
    let path = tmp("calibrate_bad.csv");
    std::fs::write(
        &path,
        "prefill_tokens,decode_seqs,kv_tokens_read,step_us\n1,2,3,4\n1,2,3,-5\n",
    )
    .unwrap();
    let (code, _, err) = kvfleet(&["calibrate", &path]);
    assert_eq!(code, 2, "{err}");
    let want = format!("error: {path}:3: `step_us` must be a duration > 0 and at most 86400000000 microseconds (a day), got -5");
    assert!(err.starts_with(&want), "{err}");
    let (code, _, err) = kvfleet(&["calibrate", &path, "--form", "cubic"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_engine_file_runs_as_the_custom_engine_with_its_coefficients() {
    // A polynomial fit of a Dynamo-mocker log, written by the CLI and run by the CLI.
    let capacity = 4096.0 * 512.0;
    let truth = Timing {
        kv_capacity_tokens: capacity,
        ..EnginePreset::DynamoMocker.timing()
    };
    let log = tmp("calibrate_mocker.csv");
    std::fs::write(
        &log,
        to_csv(&generate(&truth, &SampleSpec::default()), "test"),
    )
    .unwrap();
    let fit_path = tmp("calibrate_mocker.json");
    let cap = capacity.to_string();
    let (code, _, err) = kvfleet(&[
        "calibrate",
        &log,
        "--form",
        "polynomial",
        "--kv-capacity-tokens",
        &cap,
        "--calibrate-json",
        &fit_path,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fit_path).unwrap()).unwrap();
    let poly = |key: &str| -> String {
        let p: Vec<String> = v["engine"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap().to_string())
            .collect();
        p.join(",")
    };
    let common = ["--des-num-requests", "40", "--des-kv-blocks", "4096"];
    let (a_code, by_file, a_err) =
        kvfleet(&[&common[..], &["--des-engine-file", &fit_path]].concat());
    let (prefill, decode) = (poly("prefill_poly_ms"), poly("decode_poly_ms"));
    let flags = [
        "--des-engine",
        "custom",
        "--des-step-fixed-us",
        "0",
        "--des-prefill-token-us",
        "0",
        "--des-decode-seq-us",
        "0",
        "--des-kv-read-token-ns",
        "0",
        "--des-prefill-poly-ms",
        &prefill,
        "--des-decode-poly-ms",
        &decode,
    ];
    let (b_code, by_flags, b_err) = kvfleet(&[&common[..], &flags[..]].concat());
    assert_eq!((a_code, b_code), (0, 0), "{a_err}\n{b_err}");
    assert_eq!(by_file, by_flags);
    // And it is not the default engine's run.
    let (_, by_default, _) = kvfleet(&common);
    assert_ne!(by_file, by_default);
    // A file that is not a calibration, and a flag it replaces, are errors.
    let (code, _, err) = kvfleet(&["--des-engine-file", &log]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--des-engine-file: ") && err.contains("not a calibration file"),
        "{err}"
    );
    let (code, _, _) = kvfleet(&["--des-engine-file", &fit_path, "--des-engine", "custom"]);
    assert_eq!(code, 2);
}

mod mutated {
    //! Mutated logs never panic: each either fails with `NAME:LINE: message` naming a line
    //! that exists (or a whole-log message), or fits to finite coefficients.
    use super::*;
    use proptest::prelude::*;

    /// The sample's comment, header and first 40 steps.
    fn base() -> String {
        let text = std::fs::read_to_string(SAMPLE).unwrap();
        text.lines().take(43).map(|l| format!("{l}\n")).collect()
    }

    fn check(text: &str) {
        let lines = text.lines().count() as u64;
        let outcome = read_steps(text, "m.csv").and_then(|steps| {
            fit(&steps, Form::Linear, Options::default())?;
            let opts = Options {
                kv_capacity_tokens: Some(1e6),
            };
            fit(&steps, Form::Polynomial, opts)
        });
        match outcome {
            Err(e) => {
                if let Some(rest) = e.strip_prefix("m.csv:") {
                    let line: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    if let Ok(n) = line.parse::<u64>() {
                        assert!(n >= 1 && n <= lines.max(1), "line {n} of {lines}: {e}");
                    }
                }
                assert!(e.len() < 1200, "{e}");
            }
            Ok(f) => {
                assert!(f.coefficients.iter().all(|c| c.value.is_finite()), "{f:?}");
                assert!(f.rmse_us.is_finite());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        #[test]
        fn a_mutated_log_fails_cleanly_or_fits(
            at in 0usize..2000,
            cut in 0usize..40,
            insert in "[0-9a-z,\"#\n.{}: -]{0,12}",
        ) {
            let text = base();
            let at = at.min(text.len());
            let end = (at + cut).min(text.len());
            let (mut a, mut b) = (at, end);
            while !text.is_char_boundary(a) { a -= 1; }
            while !text.is_char_boundary(b) { b += 1; }
            let mutated = format!("{}{}{}", &text[..a], insert, &text[b..]);
            check(&mutated);
        }
    }
}

#[test]
fn when_every_step_both_prefills_and_decodes_the_two_constants_cannot_be_told_apart() {
    // Dynamo's mocker, 60 steps each with prefill and decoding sequences: c0 and d0 are
    // charged together in every step, so only c0 + d0 = 16.50142 + 5.74 is determined.
    let capacity = 2e6;
    let truth = Timing {
        kv_capacity_tokens: capacity,
        ..EnginePreset::DynamoMocker.timing()
    };
    let steps: Vec<calibrate::Step> = (1..=60u64)
        .map(|i| {
            let (t, d) = (100 * i, 1 + (i * 7) % 50);
            let kv = d * (500 + (i * 37) % 3000);
            calibrate::Step {
                prefill_tokens: t,
                decode_seqs: d,
                kv_tokens_read: kv,
                step_us: truth.step_us(t, d, kv) as f64,
            }
        })
        .collect();
    let opts = Options {
        kv_capacity_tokens: Some(capacity),
    };
    let f = fit(&steps, Form::Polynomial, opts).unwrap();
    let c0 = f
        .coefficients
        .iter()
        .find(|c| c.name == "prefill_poly_ms[0]")
        .unwrap();
    let d0 = f
        .coefficients
        .iter()
        .find(|c| c.name == "decode_poly_ms[0]")
        .unwrap();
    assert!(!c0.identified && !d0.identified && c0.se.is_none() && d0.se.is_none());
    assert!(
        (c0.value + d0.value - 22.24142).abs() < 0.01,
        "{} + {}",
        c0.value,
        d0.value
    );
    let w = f.warnings.join("\n");
    assert!(
        w.contains("prefill_poly_ms[0] and decode_poly_ms[0] cannot be told apart")
            && w.contains("no decode-only steps")
            && w.contains("no prefill-only steps"),
        "{w}"
    );
    // The other four are identified, within 2 %.
    assert_near(&f, "prefill_poly_ms[1]", 1.518344e-2, 0.02);
    assert_near(&f, "decode_poly_ms[1]", 54.01, 0.02);
}

/// The page's entry (`api::calibrate_json`, what the wasm's `calibrate_json` calls) is the
/// library's fit with the form and capacity by name, and refuses a bad form by name.
#[test]
fn the_pages_entry_is_the_librarys_fit() {
    let log = std::fs::read_to_string(SAMPLE).unwrap();
    let cap = Some(2_097_152.0);
    let page = kvfleet::api::calibrate_json(&log, "s.csv", "polynomial", cap).unwrap();
    let opts = Options {
        kv_capacity_tokens: cap,
    };
    let lib = calibrate::calibrate_json(&log, "s.csv", Form::Polynomial, opts).unwrap();
    assert_eq!(page, lib);
    assert!(page.contains("\"form\":\"polynomial\""), "{page:.80}");
    let err = kvfleet::api::calibrate_json(&log, "s.csv", "cubic", None).unwrap_err();
    assert!(
        err.starts_with("form: expected linear or polynomial"),
        "{err}"
    );
}
