//! Unit tests of the polynomial phases and the `dynamo-mocker` preset, worked by hand.

use super::*;

fn mocker(capacity_tokens: f64) -> Timing {
    Timing {
        kv_capacity_tokens: capacity_tokens,
        ..EnginePreset::DynamoMocker.timing()
    }
}

#[test]
fn dynamo_mocker_is_the_sources_polynomial() {
    // ai-dynamo 1.4.2, lib/mocker/src/common/perf_model.rs, PerfModel::Polynomial:
    // prefill 4.209989e-07·T² + 1.518344e-02·T + 1.650142e+01 ms, decode
    // −25.74·u² + 54.01·u + 5.74 ms; nothing linear.
    let t = EnginePreset::DynamoMocker.timing();
    assert_eq!(t.prefill_poly_ms, [16.50142, 1.518344e-2, 4.209989e-7]);
    assert_eq!(t.decode_poly_ms, [5.74, 54.01, -25.74]);
    assert_eq!(
        (
            t.step_fixed_us,
            t.prefill_token_us,
            t.decode_seq_us,
            t.kv_read_token_ns
        ),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(
        EnginePreset::parse("dynamo-mocker"),
        Some(EnginePreset::DynamoMocker)
    );
    assert_eq!(EnginePreset::DynamoMocker.hardware(), None);
    assert_eq!(EnginePreset::DynamoMocker.kv_blocks(512), None);
}

#[test]
fn a_prefill_step_is_the_polynomial_of_its_new_tokens() {
    let t = mocker(0.0);
    // 8,192 tokens: 4.209989e-7 × 67,108,864 = 28.25276 + 0.01518344 × 8,192 = 124.38274
    // + 16.50142 = 169.13692 ms -> 169,137 µs (rounded up); nothing decodes.
    assert_eq!(t.pass_us(8192, 0, 0, 0), 169_137);
    // 1,000 tokens: 0.42100 + 15.18344 + 16.50142 = 32.10586 ms, and the prompt's first
    // token comes out of this step: + 5.74 ms (u = 0, unbounded) = 37.84586 -> 37,846 µs.
    assert_eq!(t.pass_us(1000, 0, 0, 1), 37_846);
    // No prefill, one decoding sequence: 5.74 ms.
    assert_eq!(t.step_us(0, 1, 4000), 5_740);
    // Nothing at all still takes 1 µs.
    assert_eq!(t.pass_us(0, 0, 0, 0), 1);
}

#[test]
fn the_first_synthetic_request_takes_dynamos_834_ms() {
    // Dynamo's replay gives the synthetic trace's first request (40,160 tokens, alone on
    // its worker) a TTFT of 834.03 ms: four chunks of 8,192 (169,137 µs each) and one of
    // 7,392 (4.209989e-7 × 54,641,664 = 23.00408 + 112.23599 + 16.50142 = 151.74149 ms)
    // that also emits the first token (+ 5.74 ms): 157,482 µs.
    // 4 × 169,137 + 157,482 = 834,030 µs.
    let t = mocker(0.0);
    let chunks = 4 * t.pass_us(8192, 0, 0, 0) + t.pass_us(7392, 0, 0, 1);
    assert_eq!(chunks, 834_030);
}

#[test]
fn the_decode_phase_follows_the_kv_utilisation() {
    // Capacity 1,000 tokens, 250 held: u = 0.25; 5.74 + 54.01 × 0.25 − 25.74 × 0.0625 =
    // 5.74 + 13.5025 − 1.60875 = 17.63375 ms -> 17,634 µs.
    assert_eq!(mocker(1000.0).step_us(0, 3, 250), 17_634);
    // Unbounded: u = 0 whatever the batch holds.
    assert_eq!(mocker(0.0).step_us(0, 3, 250), 5_740);
}

#[test]
fn a_decode_run_sums_the_utilisation_in_closed_form() {
    // Capacity 100 tokens, 10 sequences holding 20: u = 0.2, 0.3, 0.4 over three steps.
    // 5.74 + 10.802 − 1.0296 = 15.5124; 5.74 + 16.203 − 2.3166 = 19.6264;
    // 5.74 + 21.604 − 4.1184 = 23.2256; sum 58.3644 ms -> 58,365 µs.
    let t = mocker(100.0);
    assert_eq!(t.decode_run_us(3, 10, 20), 58_365);
    // Two of those steps end by 35,139 µs (15,512.4 + 19,626.4), not by 35,138.
    assert_eq!(t.decode_steps_within(35_139, 3, 10, 20), 2);
    assert_eq!(t.decode_steps_within(35_138, 3, 10, 20), 1);
    // The inter-token line: first 15,512.4 µs, growth the secant (23,225.6 − 15,512.4) / 2.
    let (first, delta) = t.itl_line_us(3, 10, 20);
    assert!((first - 15_512.4).abs() < 1e-6, "{first}");
    assert!((delta - 3_856.6).abs() < 1e-6, "{delta}");
}

#[test]
fn the_roofline_presets_have_no_polynomial_phase() {
    for p in EnginePreset::ALL {
        if p != EnginePreset::DynamoMocker {
            assert_eq!(p.timing().prefill_poly_ms, NO_POLY, "{}", p.name());
            assert_eq!(p.timing().decode_poly_ms, NO_POLY, "{}", p.name());
        }
    }
}

#[test]
fn polynomials_parse_and_bad_ones_are_named() {
    assert_eq!(parse_poly("1, 2.5,-3e-2"), Ok([1.0, 2.5, -0.03]));
    for bad in ["1,2", "1,2,3,4", "a,b,c", ""] {
        let e = parse_poly(bad).unwrap_err();
        assert!(e.contains("three numbers C0,C1,C2"), "{bad}: {e}");
    }
    assert_eq!(poly_problem(DYNAMO_DECODE_POLY_MS, true), None);
    assert_eq!(poly_problem([-5.0, 0.0, 0.0], false), None);
    // 1 − 4u goes below 0 at u = 1 (−3).
    let e = poly_problem([1.0, -4.0, 0.0], true).unwrap();
    assert!(e.contains("reaches -3.0000"), "{e}");
    // 1 − 4u + 4u² touches 0 at its vertex u = 0.5: allowed; 0.5 − 4u + 4u² reaches −0.5.
    assert_eq!(poly_problem([1.0, -4.0, 4.0], true), None);
    let e = poly_problem([0.5, -4.0, 4.0], true).unwrap();
    assert!(e.contains("reaches -0.5000"), "{e}");
    assert!(poly_problem([f64::NAN, 0.0, 0.0], false).is_some());
    assert!(poly_problem([0.0, 2e6, 0.0], false).is_some());
}

#[test]
fn the_decode_utilisation_stops_at_a_full_cache() {
    // 768 tokens of cache. Decoding sequences sharing a prefix can read 2,450 tokens
    // (u = 3.19 uncapped, where −25.74·u² + 54.01·u + 5.74 = −84.2 ms): the mocker's
    // fraction of blocks in use is at most 1, so the phase is 5.74 + 54.01 − 25.74 = 34.01 ms.
    let t = mocker(768.0);
    assert_eq!(t.utilisation(2450.0), 1.0);
    assert!((t.decode_phase_us(2450.0) - 34_010.0).abs() < 1e-6);
    // A run of 10 steps of 4 sequences from 740 tokens: steps 0..=6 read 740..764 (u < 1),
    // steps 7..=9 read 768, 772 and 776 (u = 1). Summed step by step, by hand's rule.
    let phase = |kv: f64| {
        let u: f64 = (kv / 768.0).min(1.0);
        (5.74 + 54.01 * u - 25.74 * u * u) * 1000.0
    };
    let want: f64 = (0..10).map(|k| phase(740.0 + 4.0 * k as f64)).sum();
    let got = t.decode_run_us(10, 4, 740) as f64;
    assert!((got - want).abs() <= 1.0, "{got} against {want}");
    // Wholly past the cache: every step a full cache's phase.
    assert_eq!(t.decode_run_us(5, 4, 5000), 5 * 34_010);
}
