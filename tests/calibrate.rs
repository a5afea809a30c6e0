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
    // The dynamo-mocker preset's coefficients (ai-dynamo's perf_model.rs), on a replica
    // of 2,097,152 KV tokens (256 sequences × 8,192): every drawn batch fits in it.
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
        f.warnings
            .iter()
            .any(|w| w.starts_with("decode_poly_ms[1] not identified")
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
            "log.csv:3: `step_us` must be a duration > 0 microseconds, got -4",
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
