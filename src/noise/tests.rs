//! Worked examples of the spread and the noise rule, each computed by hand.

use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// 0.40, 0.41, 0.42: mean 0.41; deviations -0.01, 0, 0.01, so s = √(0.0002 / 2) = 0.01;
/// the half-width is t(0.975, 2) · s / √3 = 4.30265273 × 0.01 / 1.7320508 = 0.0248414.
#[test]
fn three_values_take_t_with_two_degrees_of_freedom() {
    let s = spread(&[0.40, 0.41, 0.42]);
    assert!(close(s.mean, 0.41, 1e-12), "{s:?}");
    assert_eq!((s.min, s.max), (0.40, 0.42));
    assert!(close(s.ci95_low, 0.41 - 0.0248414, 1e-7), "{s:?}");
    assert!(close(s.ci95_high, 0.41 + 0.0248414, 1e-7), "{s:?}");
    assert!(close(s.half_width(), 0.0248414, 1e-7));
    assert_eq!(s.values, vec![0.40, 0.41, 0.42]);
}

/// 10 and 14: mean 12, s = √((4 + 4) / 1) = 2√2, half-width t(0.975, 1) · 2√2 / √2 =
/// 2 × 12.7062047 = 25.4124094: two seeds give a wide interval.
#[test]
fn two_values_take_t_with_one_degree_of_freedom() {
    let s = spread(&[10.0, 14.0]);
    assert_eq!(s.mean, 12.0);
    assert!(close(s.ci95_low, 12.0 - 25.4124094, 1e-6), "{s:?}");
    assert!(close(s.ci95_high, 12.0 + 25.4124094, 1e-6), "{s:?}");
}

/// 1, 2, 3, 4, 5: mean 3, s = √(10 / 4) = 1.5811388, half-width
/// 2.77644511 × 1.5811388 / √5 = 2.77644511 × 0.7071068 = 1.9632432.
#[test]
fn five_values_take_t_with_four_degrees_of_freedom() {
    let s = spread(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!((s.mean, s.min, s.max), (3.0, 1.0, 5.0));
    assert!(close(s.half_width(), 1.9632432, 1e-6), "{s:?}");
}

/// One seed: the value is the mean, min and max, and there is no interval.
#[test]
fn one_value_has_no_interval() {
    let s = spread(&[0.7]);
    assert_eq!((s.mean, s.min, s.max), (0.7, 0.7, 0.7));
    assert!(s.ci95_low.is_nan() && s.ci95_high.is_nan());
    assert_eq!(beyond_noise(&s, &spread(&[0.1])), None);
}

/// A seed that measured nothing (NaN) leaves every statistic unknown.
#[test]
fn a_missing_value_makes_the_spread_unknown() {
    let s = spread(&[1.0, f64::NAN, 3.0]);
    assert!(s.mean.is_nan() && s.min.is_nan() && s.ci95_low.is_nan());
    assert_eq!(beyond_noise(&s, &spread(&[1.0, 2.0])), None);
}

/// Equal values: s = 0, the interval is the value itself, and the spread is constant.
#[test]
fn equal_values_have_a_zero_width_interval() {
    let s = spread(&[0.5, 0.5, 0.5]);
    assert_eq!((s.ci95_low, s.ci95_high), (0.5, 0.5));
    assert!(s.constant());
    assert!(!spread(&[0.5, 0.6]).constant());
}

/// 0.40/0.41/0.42 spans 0.3852 to 0.4348; 0.50/0.51/0.52 spans 0.4852 to 0.5348: apart,
/// beyond noise. 0.42/0.43/0.44 spans 0.4052 to 0.4548: it overlaps the first, so the
/// 0.02 gap between their means is within noise.
#[test]
fn intervals_apart_are_beyond_noise_and_overlapping_ones_within() {
    let a = spread(&[0.40, 0.41, 0.42]);
    let b = spread(&[0.50, 0.51, 0.52]);
    let c = spread(&[0.42, 0.43, 0.44]);
    assert_eq!(beyond_noise(&a, &b), Some(true));
    assert_eq!(beyond_noise(&b, &a), Some(true));
    assert_eq!(beyond_noise(&a, &c), Some(false));
}

/// The table: t(0.975, 2) = 4.303 (the textbook's three decimals), 15 degrees of freedom
/// the last, none for 0.
#[test]
fn the_t_table_matches_the_textbook() {
    assert!(close(t975(2), 4.303, 5e-4));
    assert!(close(t975(1), 12.706, 5e-4));
    assert!(close(t975(15), 2.131, 5e-4));
    assert!(t975(0).is_nan() && t975(16).is_nan());
}

/// Seeds run from the one seed up; counts and ranges are checked with the flag named.
#[test]
fn seeds_derive_from_the_one_seed_and_are_checked() {
    assert_eq!(
        (0..3).map(|k| nth_seed(42, k)).collect::<Vec<_>>(),
        [42, 43, 44]
    );
    assert!(check_seeds("--des-seeds", 5, 42).is_ok());
    let e = check_seeds("--des-seeds", 0, 42).unwrap_err();
    assert!(e.starts_with("--des-seeds: invalid count: got 0"), "{e}");
    let e = check_seeds("--des-seeds", 17, 42).unwrap_err();
    assert!(e.contains("allowed: 1 to 16"), "{e}");
    let max = crate::params::MAX_SEED;
    assert!(check_seeds("--des-seeds", 3, max - 2).is_ok());
    let e = check_seeds("--des-seeds", 3, max - 1).unwrap_err();
    assert!(
        e.starts_with("--seed: invalid seed with --des-seeds 3"),
        "{e}"
    );
}
