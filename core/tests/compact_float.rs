//! The table-free float conversions (`json::compact_float`, the `small-float` feature)
//! against `core`'s parser and ryu, in every build (proptest; `PROPTEST_CASES` sets how
//! many cases, 256 by default). The module's entry points are test helpers: this suite
//! needs elicit-core's `test-helpers` feature (the test command's `--all-features` turns
//! it on).
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg(feature = "test-helpers")]

use elicit_core::json::compact_float::{millis, parse, shortest, write};
use elicit_core::json::{write_f64, Sink};
use proptest::prelude::*;

struct Buf(Vec<u8>);

impl Sink for Buf {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

fn compact_repr(f: f64) -> String {
    let mut b = Buf(Vec::new());
    write(f, &mut b);
    String::from_utf8(b.0).expect("ASCII")
}

fn engine_repr(f: f64) -> String {
    let mut b = Buf(Vec::new());
    write_f64(f, &mut b);
    String::from_utf8(b.0).expect("ASCII")
}

/// Ryu's digits and decimal point (0.DIGITS × 10^decpt, no zeros at either end).
fn ryu_digits(f: f64) -> (String, i32) {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(f);
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().expect("exponent")),
        None => (text, 0),
    };
    let mantissa = mantissa.trim_start_matches('-');
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_string();
    (digits, int.len() as i32 + exp - lead as i32)
}

fn compact_digits(f: f64) -> (String, i32) {
    let s = shortest(f);
    let digits = std::str::from_utf8(&s.digits[..s.len]).expect("ASCII");
    (digits.to_string(), s.decpt)
}

/// Check one finite nonzero f64 through both formatters and both parsers.
fn check_format(f: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        compact_digits(f),
        ryu_digits(f),
        "{:e} ({:#x})",
        f,
        f.to_bits()
    );
    let text = compact_repr(f);
    prop_assert_eq!(&text, &engine_repr(f));
    // Python's repr reads back as the same float, in both parsers.
    prop_assert_eq!(
        parse(&text).map(f64::to_bits),
        Some(f.to_bits()),
        "{}",
        text
    );
    prop_assert_eq!(text.parse::<f64>().map(f64::to_bits), Ok(f.to_bits()));
    Ok(())
}

fn check_parse(text: &str) -> Result<(), TestCaseError> {
    let want = text.parse::<f64>().expect("valid").to_bits();
    let shown = if text.len() > 100 {
        format!(
            "{}…{} ({} bytes)",
            &text[..60],
            &text[text.len() - 30..],
            text.len()
        )
    } else {
        text.to_string()
    };
    prop_assert_eq!(parse(text).map(f64::to_bits), Some(want), "{}", shown);
    Ok(())
}

/// The exact decimal of m × 2^exp2 as `DIGITSeEXP` (base-10^9 big integer arithmetic).
fn exact_decimal(m: u64, exp2: i32) -> (String, i32) {
    const BASE: u64 = 1_000_000_000;
    let mut limbs = vec![m % BASE, m / BASE % BASE, m / BASE / BASE];
    let mul = |limbs: &mut Vec<u64>, by: u64| {
        let mut carry = 0u64;
        for l in limbs.iter_mut() {
            let t = *l * by + carry;
            *l = t % BASE;
            carry = t / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    };
    // 2^exp2 = 5^-exp2 / 10^-exp2 when negative.
    let (base, chunk) = if exp2 >= 0 { (2u64, 29u32) } else { (5, 12) };
    let mut n = exp2.unsigned_abs();
    while n > 0 {
        let step = n.min(chunk);
        mul(&mut limbs, base.pow(step));
        n -= step;
    }
    while limbs.len() > 1 && *limbs.last().unwrap() == 0 {
        limbs.pop();
    }
    let mut s = format!("{}", limbs.last().unwrap());
    for l in limbs.iter().rev().skip(1) {
        s.push_str(&format!("{l:09}"));
    }
    (s, exp2.min(0))
}

/// `digits` (an integer) minus one, with no leading zero left.
fn decrement(digits: &str) -> String {
    let mut b = digits.as_bytes().to_vec();
    for c in b.iter_mut().rev() {
        if *c == b'0' {
            *c = b'9';
        } else {
            *c -= 1;
            break;
        }
    }
    let s = String::from_utf8(b).unwrap();
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0".into()
    } else {
        t.into()
    }
}

/// Finite f64 bits, weighted to the edges: subnormals, powers of two, extremes.
fn finite_bits() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => 1u64..(1 << 52),                                        // subnormal
        1 => (0u64..2047).prop_map(|e| e << 52),                     // powers of two
        1 => (0u64..2047, 0u64..8).prop_map(|(e, m)| e << 52 | m),   // just above them
        1 => (0u64..2047, 0u64..8).prop_map(|(e, m)| (e << 52 | ((1 << 52) - 1)) - m),
        1 => (0u64..2048, 0u64..1000).prop_map(|(e, m)| e << 52 | (m * 4503599627370)),
    ]
    .prop_flat_map(|b| (Just(b), any::<bool>()))
    .prop_map(|(b, neg)| b & !(1u64 << 63) | u64::from(neg) << 63)
    .prop_filter("finite", |&b| f64::from_bits(b).is_finite())
}

/// A JSON number: up to 40 digits around an optional point, exponent -400..400; now and
/// then 800 digits.
fn decimal_text() -> impl Strategy<Value = String> {
    let digits = prop_oneof![
        30 => proptest::collection::vec(0u8..10, 1..40),
        1 => proptest::collection::vec(0u8..10, 780..820),
    ];
    (
        any::<bool>(),
        digits,
        any::<prop::sample::Index>(),
        any::<bool>(),
        -400i32..400,
        any::<bool>(),
    )
        .prop_map(|(neg, digits, point, has_exp, exp, big_e)| {
            let s: String = digits.iter().map(|&d| char::from(b'0' + d)).collect();
            let s = s.trim_start_matches('0');
            let s = if s.is_empty() { "0" } else { s };
            let at = point.index(s.len() + 1);
            let mut text = String::from(if neg { "-" } else { "" });
            if at == 0 || at == s.len() {
                text.push_str(s);
            } else {
                text.push_str(&s[..at]);
                text.push('.');
                text.push_str(&s[at..]);
            }
            if has_exp {
                text.push(if big_e { 'E' } else { 'e' });
                text.push_str(&exp.to_string());
            }
            text
        })
}

/// The formatter's millisecond shortcut ([`millis`]) agrees with the exact digits
/// wherever it answers, and answers for `f` = n / 1000 (the float nearest to it) with
/// 2^-10 < |f| < 2^43; what it writes is Python's repr (which Rust's `{:?}` matches in
/// that range).
fn check_millis(f: f64, on_grid: bool) -> Result<(), TestCaseError> {
    let fast = millis(f);
    if let Some(n) = fast {
        let text = n.to_string();
        let want = compact_digits(f);
        prop_assert_eq!(
            (
                text.trim_end_matches('0').to_string(),
                text.len() as i32 - 3
            ),
            want,
            "{:e} ({:#x})",
            f,
            f.to_bits()
        );
        prop_assert_eq!(compact_repr(f), format!("{f:?}"));
    }
    let inside = f.abs() > 2f64.powi(-10) && f.abs() < 2f64.powi(43);
    if on_grid && inside {
        prop_assert!(
            fast.is_some(),
            "{:e} ({:#x}) took the exact path",
            f,
            f.to_bits()
        );
    }
    check_format(f)
}

/// `f` and the floats a few ulps either side of it (off the grid, mostly).
fn neighbours(f: f64) -> impl Iterator<Item = f64> {
    let b = f.to_bits();
    (1..=3u64).flat_map(move |d| [f64::from_bits(b + d), f64::from_bits(b - d)])
}

proptest! {
    /// Millisecond timestamps in seconds, as the sealed claims carry `Date.now() / 1000`,
    /// and their neighbours.
    #[test]
    fn millis_path_matches_exact_on_timestamps(ms in 0u64..(1u64 << 43) * 1000, neg in any::<bool>()) {
        let f = ms as f64 / 1000.0 * if neg { -1.0 } else { 1.0 };
        if f != 0.0 {
            check_millis(f, true)?;
            for g in neighbours(f) {
                check_millis(g, false)?;
            }
        }
    }

    /// Small values with three decimals or fewer, whole numbers, and any bits at all.
    #[test]
    fn millis_path_matches_exact_anywhere(n in 1u64..10_000_000, whole in 1u64..(1u64 << 43), b in finite_bits()) {
        check_millis(n as f64 / 1000.0, true)?;
        check_millis(whole as f64, true)?;
        let f = f64::from_bits(b);
        if f != 0.0 {
            check_millis(f, false)?;
        }
    }

    #[test]
    fn formats_like_ryu_and_round_trips(b in finite_bits()) {
        let f = f64::from_bits(b);
        if f != 0.0 {
            check_format(f)?;
        } else {
            prop_assert_eq!(compact_repr(f), engine_repr(f));
        }
    }

    #[test]
    fn parses_like_core(text in decimal_text()) {
        check_parse(&text)?;
    }

    /// The exact halfway point between a float and the next one up, and numbers a hair
    /// above and below it (hundreds of digits out): ties to even, the rest to the nearer.
    #[test]
    fn parses_halfway_points_like_core(b in finite_bits(), hair in 1usize..40) {
        let f = f64::from_bits(b).abs();
        let bits = f.to_bits();
        let biased = (bits >> 52) as i32;
        let (m, e) = if biased == 0 { (bits, -1074) } else { (bits & ((1 << 52) - 1) | 1 << 52, biased - 1075) };
        // (2m + 1) × 2^(e - 1): halfway to the next float (infinity past MAX).
        let (digits, exp10) = exact_decimal(2 * m + 1, e - 1);
        check_parse(&format!("{digits}e{exp10}"))?;
        let pad = "0".repeat(hair);
        check_parse(&format!("{digits}{pad}1e{}", exp10 - hair as i32 - 1))?;
        check_parse(&format!("{}{}e{}", decrement(&digits), "9".repeat(hair), exp10 - hair as i32))?;
        // And the float itself written out exactly (up to 767 digits).
        let (digits, exp10) = exact_decimal(m, e);
        check_parse(&format!("{digits}e{exp10}"))?;
        check_parse(&format!("-0.{digits}e{}", exp10 + digits.len() as i32))?;
    }
}

/// Every thousandth from 0.001 to 20, and around the edges of the millisecond path
/// (2^-10, 2^43, powers of two and ten, today's timestamps), against the exact path.
#[test]
fn millis_path_matches_exact_exhaustively() {
    for n in 1..20_000u64 {
        check_millis(n as f64 / 1000.0, true).unwrap();
    }
    let mut edges = vec![
        2f64.powi(-10),
        2f64.powi(43),
        1_733_480_000.0,
        1_733_480_000.5,
        1_733_480_000.123,
        1_733_480_000.999,
        9_999_999_999.999,
        4_398_046_511_103.999,
        0.001,
        0.0015,
        0.1,
        0.3,
        1e12,
    ];
    for p in -10..=43 {
        edges.push(2f64.powi(p));
    }
    for p in -3..=13 {
        edges.push(10f64.powi(p));
    }
    for f in edges {
        for g in std::iter::once(f).chain(neighbours(f)) {
            for h in [g, -g] {
                let on_grid = (h * 1000.0).round() / 1000.0 == h;
                check_millis(h, on_grid).unwrap();
            }
        }
    }
    // What the sealed claims write: `Date.now() / 1000` in Python's repr.
    let mut b = Buf(Vec::new());
    write(1_733_480_000.0, &mut b);
    write(1_733_480_000.25, &mut b);
    write(-0.001, &mut b);
    assert_eq!(b.0, b"1733480000.01733480000.25-0.001");
}

#[test]
fn named_cases() {
    for text in [
        "0.1",
        "5e-324",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "9007199254740993",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "1e23",
        "8.98846567431158e307",
        "1e-400",
        "1e400",
        "-0.0",
        "0e400",
        "0.000000000000000000000000000000000000000000001e-280",
        "100000000000000000000000000000000000000000000000000000000000e248",
    ] {
        check_parse(text).unwrap();
    }
    // Leading zeros and exponents too long for 32 bits that cancel out, and exponents
    // past any range.
    for text in [
        format!("0.{}1e150005", "0".repeat(150_000)),
        format!("-0.{}25e65540", "0".repeat(65_540)),
        format!("1{}e-70000", "0".repeat(70_000)),
        format!("0.{}1e65556", "0".repeat(10)),
        format!("1e{}", "9".repeat(30)),
        format!("1e-{}", "9".repeat(30)),
        format!("0.{}1e{}", "0".repeat(1000), "9".repeat(25)),
    ] {
        check_parse(&text).unwrap();
    }
    // 2^-25 = 2.98023223876953125e-08 exactly: 17 digits end on a tie, broken to even
    // (…312, as ryu and repr give).
    for f in [
        2.0f64.powi(-25),
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.1,
        1e23,
        2.0f64.powi(-1022) - 5e-324,
        1250.5,
        1.65,
    ] {
        check_format(f).unwrap();
    }
}
