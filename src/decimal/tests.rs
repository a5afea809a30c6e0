//! `finite_f64` against the standard library's own `str::parse::<f64>`, to the bit, on
//! hand-picked edges, on random strings of Rust's float syntax and its near misses, and on
//! the exact halfway points between neighbouring doubles, where a parser that is not
//! correctly rounded goes wrong.

use super::finite_f64;
use crate::rng::splitmix64;

/// What `finite_f64` must return: the standard library's reading, kept when finite.
fn std_reading(text: &str) -> Option<u64> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(f64::to_bits)
}

fn assert_agrees(text: &str) {
    assert_eq!(
        finite_f64(text).map(f64::to_bits),
        std_reading(text),
        "{text:?}: finite_f64 {:?}, parse {:?}",
        finite_f64(text),
        text.parse::<f64>()
    );
}

#[test]
fn hand_picked_texts_read_as_parse_reads_them() {
    let texts = [
        "0",
        "-0",
        "+0",
        "00",
        "-00.000",
        "1",
        "+1",
        "-1",
        "1.",
        "-1.",
        ".5",
        "-.5",
        "+.5",
        "0.1",
        "007",
        "007.50",
        "1e5",
        "1E5",
        "1e+5",
        "1e-5",
        "1.5E-3",
        ".5e1",
        "5.e1",
        "1e0",
        "1e-0",
        "1e00000000000000000000000000001",
        "0e999999999999999999999",
        "1e999999999999999999999",
        "1e-999999999999999999999",
        "-1e-999999999999999999999",
        "1e308",
        "1e309",
        "-1e309",
        "1e-320",
        "1e-400",
        "-1e-400",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "9007199254740993",
        "9007199254740993.0000000000000000000000000000001",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "123456789012345678901234567890",
        "0.000000000000000000000000000000000000000000000000000000000000000000000001",
        // Not numbers, or not finite: every one of these is None.
        "",
        "-",
        "+",
        ".",
        "-.",
        "e5",
        ".e5",
        "1e",
        "1e+",
        "1e-",
        "1e+-5",
        "1ee5",
        "1.2.3",
        "1..2",
        "--1",
        "+-1",
        "-+1",
        " 1",
        "1 ",
        "1_000",
        "0x10",
        "1,5",
        "١",
        "inf",
        "-inf",
        "+infinity",
        "Infinity",
        "NaN",
        "nan",
        "-nan",
        "1e5.5",
        "1.5e",
        "e",
        "E",
        "1f",
    ];
    for text in texts {
        assert_agrees(text);
    }
    assert_eq!(
        finite_f64("-0").map(f64::to_bits),
        Some((-0.0f64).to_bits())
    );
    assert_eq!(finite_f64(".5e1"), Some(5.0));
    assert_eq!(finite_f64("1e309"), None);
}

/// Strings built from the syntax's pieces, valid and not: signs, runs of digits with
/// leading zeros and nines, points, exponents with and without digits, stray characters.
#[test]
fn random_texts_of_floats_and_near_misses_read_as_parse_reads_them() {
    let mut state = 0x6b76_666c_6565_7431_u64;
    let mut next = |n: u64| {
        state = splitmix64(state);
        state % n
    };
    for _ in 0..60_000 {
        let mut text = String::new();
        text.push_str(["", "", "-", "+", "--"][next(5) as usize]);
        push_digits(&mut text, next(22), &mut next);
        if next(3) > 0 {
            text.push('.');
            push_digits(&mut text, next(22), &mut next);
        }
        if next(2) == 0 {
            text.push_str(["e", "E", "e+", "e-", "E-"][next(5) as usize]);
            push_digits(&mut text, next(5), &mut next);
        }
        if next(20) == 0 {
            let at = next(text.len() as u64 + 1) as usize;
            text.insert_str(at, [" ", "_", ".", "e", "x", "-"][next(6) as usize]);
        }
        assert_agrees(&text);
    }
}

fn push_digits(text: &mut String, count: u64, next: &mut impl FnMut(u64) -> u64) {
    for _ in 0..count {
        let digit = match next(4) {
            0 => b'0',
            1 => b'9',
            _ => b'0' + next(10) as u8,
        };
        text.push(digit as char);
    }
}

/// Halfway points between a double and the next one up, written out exactly, then a hair
/// below (the last digit dropped) and a hair above (a 1 appended far out), across the
/// whole range: subnormals, the smallest normals, integers past 2^53, and near f64::MAX.
#[test]
fn exact_halfway_points_and_their_neighbours_read_as_parse_reads_them() {
    let mut state = 0x6861_6c66_7761_7973_u64;
    let mut bits = Vec::new();
    for _ in 0..1_500 {
        state = splitmix64(state);
        bits.push(state & 0x7fef_ffff_ffff_ffff);
    }
    bits.extend([0, 1, 2, 0x000f_ffff_ffff_ffff, 0x0010_0000_0000_0000]);
    bits.extend([
        0x4340_0000_0000_0000,
        0x7fef_ffff_ffff_fffe,
        0x7fef_ffff_ffff_ffff,
    ]);
    for b in bits {
        let (digits, exponent10) = halfway_above(f64::from_bits(b));
        let exact = format!("{digits}e{exponent10}");
        let below = format!("{}e{}", &digits[..digits.len() - 1], exponent10 + 1);
        let above = format!("{digits}00000000000000000001e{}", exponent10 - 20);
        for text in [&exact, &below, &above] {
            assert_agrees(text);
            assert_agrees(&format!("-{text}"));
        }
    }
}

/// The point halfway between `x` (finite, >= 0) and the next double up, exactly, as
/// decimal digits D and a power of ten P (the value D × 10^P): x = m·2^e, so the midpoint
/// is (2m+1)·2^(e-1), an integer times a power of two, or (2m+1)·5^k / 10^k for k = 1-e.
fn halfway_above(x: f64) -> (String, i64) {
    let bits = x.to_bits();
    let (mantissa, exponent2) = match (bits >> 52) as i64 {
        0 => (bits & ((1 << 52) - 1), -1074),
        biased => ((bits & ((1 << 52) - 1)) | (1 << 52), biased - 1075),
    };
    let mut digits = decimal_digits(2 * mantissa + 1);
    let shift = exponent2 - 1;
    for _ in 0..shift.unsigned_abs() {
        multiply(&mut digits, if shift > 0 { 2 } else { 5 });
    }
    let text: String = digits.iter().rev().map(|d| (b'0' + d) as char).collect();
    (text, if shift > 0 { 0 } else { shift })
}

/// Little-endian decimal digits of `n`.
fn decimal_digits(mut n: u64) -> Vec<u8> {
    let mut digits = Vec::new();
    while n > 0 {
        digits.push((n % 10) as u8);
        n /= 10;
    }
    digits
}

fn multiply(digits: &mut Vec<u8>, by: u32) {
    let mut carry = 0;
    for d in digits.iter_mut() {
        let v = u32::from(*d) * by + carry;
        *d = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        digits.push((carry % 10) as u8);
        carry /= 10;
    }
}

/// The midpoint arithmetic itself, on doubles small enough to check by hand: halfway
/// between 1 and 1 + 2^-52 is 1 + 2^-53; between 0 and the least subnormal, 2^-1075.
#[test]
fn halfway_points_are_exact() {
    let (digits, p) = halfway_above(1.0);
    assert_eq!(p, -53);
    assert_eq!(digits, decimal_text((1u128 << 53) + 1, 53));
    let (digits, p) = halfway_above(9007199254740992.0);
    assert_eq!((digits.as_str(), p), ("9007199254740993", 0));
    let (digits, p) = halfway_above(0.0);
    assert_eq!(p, -1075);
    assert!(digits.starts_with("247032822920623272088284396434"));
    assert_eq!(digits.len(), 752);
}

/// n × 5^k in decimal (n × 5^k / 10^k = n / 2^k), for the test above.
fn decimal_text(n: u128, k: u32) -> String {
    let mut digits = Vec::new();
    let mut m = n;
    while m > 0 {
        digits.push((m % 10) as u8);
        m /= 10;
    }
    for _ in 0..k {
        multiply(&mut digits, 5);
    }
    digits.iter().rev().map(|d| (b'0' + d) as char).collect()
}
