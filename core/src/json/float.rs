//! Numbers: a JSON number's text to the nearest `f64`, an `f64` written as Python's
//! `repr`, and `f64` comparisons from the bits.
//!
//! The conversions come from one of two implementations, chosen here and nowhere else:
//! `core`'s parser and ryu (fast, table-driven; the default), or with the `small-float`
//! feature the table-free [`compact`] module (integer arithmetic only, for small flash).
//! Both give the same results byte for byte.

use super::Sink;

#[cfg(any(feature = "small-float", feature = "test-helpers", test))]
pub mod compact;

// The one place the `small-float` feature chooses the conversions.
#[cfg(feature = "small-float")]
use compact as imp;
#[cfg(not(feature = "small-float"))]
use fast as imp;

/// The `f64` nearest to a JSON number's text (ties to even; ±inf past the largest finite
/// value, as Python's `float()` gives it).
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    imp::parse(text)
}

/// Write `f` as Python's `json.dumps(f)` (`repr`; `Infinity`, `-Infinity`, `NaN`).
pub fn write_f64(f: f64, sink: &mut dyn Sink) {
    if !write_f64_special(f, sink) {
        imp::write_finite(f, sink);
    }
}

/// The default conversions: `core`'s parser (table-driven) and ryu's digits.
#[cfg(not(feature = "small-float"))]
mod fast {
    use super::{write_f64_digits, Sink};

    /// [`super::parse_f64`] by `core`'s parser.
    pub(super) fn parse(text: &str) -> Option<f64> {
        text.parse().ok()
    }

    /// [`super::write_f64`] for a finite nonzero `f`, with ryu's digits.
    pub(super) fn write_finite(f: f64, sink: &mut dyn Sink) {
        // Ryu gives the shortest round-trip digits (closest on ties, as CPython's dtoa mode 0);
        // take its digits and decimal point position and lay them out the way repr does.
        let mut ryu_buf = ryu::Buffer::new();
        let text = ryu_buf.format_finite(f).as_bytes();
        let mut digits = [0u8; 32];
        let mut n = 0usize;
        let mut point: Option<i32> = None;
        let mut exp = 0i32;
        let mut exp_neg = false;
        let mut in_exp = false;
        for &c in text {
            match c {
                b'0'..=b'9' if in_exp => exp = exp * 10 + i32::from(c - b'0'),
                // Ryu prints at most 17 significant digits plus a few zeros: all fit.
                b'0'..=b'9' => {
                    if let Some(slot) = digits.get_mut(n) {
                        *slot = c;
                        n += 1;
                    }
                }
                b'.' => point = Some(n as i32),
                b'e' | b'E' => in_exp = true,
                b'-' if in_exp => exp_neg = true,
                _ => {}
            }
        }
        if exp_neg {
            exp = -exp;
        }
        // value = 0.DIGITS × 10^decpt
        let decpt = point.unwrap_or(n as i32) + exp;
        write_f64_digits(
            f.is_sign_negative(),
            digits.get(..n).unwrap_or_default(),
            decpt,
            sink,
        );
    }
}

/// Write NaN, ±inf and ±0.0 as [`write_f64`] does; false (nothing written) for the rest.
fn write_f64_special(f: f64, sink: &mut dyn Sink) -> bool {
    let mag = f.to_bits() & F64_MAGNITUDE;
    if mag > F64_INFINITY_BITS {
        sink.put(b"NaN");
    } else if mag == F64_INFINITY_BITS {
        sink.put(if f.is_sign_negative() {
            b"-Infinity"
        } else {
            b"Infinity"
        });
    } else if mag == 0 {
        sink.put(if f.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
    } else {
        return false;
    }
    true
}

/// Lay out a finite nonzero float's shortest digits (ASCII, `0.DIGITS × 10^decpt`; zeros
/// at either end are dropped) the way Python's `repr(float)` does.
fn write_f64_digits(negative: bool, digits: &[u8], decpt: i32, sink: &mut dyn Sink) {
    let (out, len) = f64_repr_bytes(negative, digits, decpt);
    sink.put(out.get(..len).unwrap_or(&[]));
}

/// [`write_f64_digits`]'s text (not generic over the sink: one copy in flash).
fn f64_repr_bytes(negative: bool, digits: &[u8], decpt: i32) -> ([u8; 48], usize) {
    let (mut d, mut decpt) = (digits, decpt);
    while let [b'0', rest @ ..] = d {
        d = rest;
        decpt -= 1;
    }
    while let [rest @ .., b'0'] = d {
        d = rest;
    }

    let mut out = [0u8; 48];
    let mut len = 0usize;
    let mut push = |c: u8| {
        if let Some(slot) = out.get_mut(len) {
            *slot = c;
            len += 1;
        }
    };
    if negative {
        push(b'-');
    }
    // One digit loop for both notations: `zeros` leading zeros, then the digits, then
    // zeros up to `total` digits, with the point before digit `point` when it is not
    // past the end. Fixed notation (-4 < decpt <= 16): 0.05 is "0" "." "0" "5" (point
    // 1), 1234.5 is "1234" "." "5" (point decpt), 1e16 is "1" + 15 zeros + "." "0".
    // Scientific: the digits with the point after the first, then the exponent.
    let n = d.len() as i32;
    let fixed = -4 < decpt && decpt <= 16;
    let (zeros, point, total) = if !fixed {
        (0, 1, n)
    } else if decpt <= 0 {
        (1 - decpt, 1, 1 - decpt + n)
    } else {
        (0, decpt, n.max(decpt + 1))
    };
    for i in 0..total {
        if i == point {
            push(b'.');
        }
        let digit = usize::try_from(i - zeros).ok().and_then(|k| d.get(k));
        push(digit.copied().unwrap_or(b'0'));
    }
    if !fixed {
        let e = decpt - 1;
        push(b'e');
        push(if e < 0 { b'-' } else { b'+' });
        let e = e.unsigned_abs();
        if e >= 100 {
            push(b'0' + (e / 100) as u8);
        }
        push(b'0' + (e / 10 % 10) as u8);
        push(b'0' + (e % 10) as u8);
    }
    (out, len)
}

// Float tests and comparisons from the bits: a target without a double-precision FPU
// (Cortex-M4F) lowers `f64` comparisons, and `is_nan`/`is_finite`, to soft-float calls.

const F64_MAGNITUDE: u64 = !(1 << 63);
const F64_INFINITY_BITS: u64 = 0x7FF0_0000_0000_0000;

/// `f.is_finite()`.
pub(crate) fn f64_finite(f: f64) -> bool {
    f.to_bits() & F64_INFINITY_BITS != F64_INFINITY_BITS
}

/// A key ordered as the values are (±0 the same), `None` for NaN.
fn f64_key(f: f64) -> Option<i64> {
    let bits = f.to_bits();
    let mag = bits & F64_MAGNITUDE;
    if mag > F64_INFINITY_BITS {
        return None;
    }
    // mag ≤ the infinity's bits < 2^63: no overflow either way.
    Some(if bits == mag {
        mag as i64
    } else {
        -(mag as i64)
    })
}

/// `a < b` (false when either is NaN).
pub(crate) fn f64_lt(a: f64, b: f64) -> bool {
    matches!((f64_key(a), f64_key(b)), (Some(x), Some(y)) if x < y)
}

/// `a == b` (false when either is NaN; `-0.0 == 0.0`).
pub(crate) fn f64_eq(a: f64, b: f64) -> bool {
    f64_key(a).is_some() && f64_key(a) == f64_key(b)
}

/// The decimal digits of `u` at the end of `buf` (at least one); returns how many.
pub(super) fn decimal_digits(mut u: u64, buf: &mut [u8; 20]) -> usize {
    let mut len = 0;
    for slot in buf.iter_mut().rev() {
        // Dividing by 10 in 32-bit halves: a 64-bit division links compiler_builtins'
        // (~900 bytes) on 32-bit targets.
        let digit;
        (u, digit) = div10(u);
        *slot = b'0' + digit;
        len += 1;
        if u == 0 {
            break;
        }
    }
    len
}

/// `(n / 10, n % 10)` with 32-bit divisions only.
pub(super) fn div10(n: u64) -> (u64, u8) {
    let (hi, lo) = ((n >> 32) as u32, n as u32);
    // Long division by 16-bit digits: each partial dividend is below 10 × 2^16.
    let (q1, r1) = (hi / 10, hi % 10);
    let mid = r1 << 16 | lo >> 16;
    let (q2, r2) = (mid / 10, mid % 10);
    let low = r2 << 16 | (lo & 0xFFFF);
    let (q3, r3) = (low / 10, low % 10);
    (u64::from(q1) << 32 | u64::from(q2 << 16 | q3), r3 as u8)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn float_bits_compare_as_floats() {
        let mut v = std::vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7FF0_0000_0000_0001),
            1.5,
            2.0,
            -2.5,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        // Every pair is compared: 2,000 values natively, fewer under miri (hours otherwise).
        for _ in 0..if cfg!(miri) { 60 } else { 2000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(f64::from_bits(x));
        }
        for &a in &v {
            assert_eq!(f64_finite(a), a.is_finite());
            for &b in &v {
                assert_eq!(f64_lt(a, b), a < b, "{a:e} < {b:e}");
                assert_eq!(f64_eq(a, b), a == b, "{a:e} == {b:e}");
            }
        }
    }

    #[test]
    fn div10_is_division() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in [
            0,
            9,
            10,
            65_535,
            655_359,
            u64::from(u32::MAX),
            u64::MAX,
            u64::MAX - 5,
        ] {
            assert_eq!(div10(n), (n / 10, (n % 10) as u8));
        }
        // Fewer under miri (minutes per thousand there).
        for _ in 0..if cfg!(miri) { 500 } else { 100_000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for n in [x, x >> 17, x >> 40] {
                assert_eq!(div10(n), (n / 10, (n % 10) as u8), "{n}");
            }
        }
    }
}
