//! Token times on the bits of their `f64`s: the conversion, the one addition and the
//! comparisons the claims need, with the results IEEE 754 arithmetic gives (round to
//! nearest, ties to even), in integer instructions only.
//!
//! Why not `+`, `<` and `as f64`: a target without a double-precision FPU (every
//! Cortex-M0/M4F and RV32IMC board) links soft-float routines for them, about 1.2 KB of
//! flash for `iat + ttl` and two comparisons (`__adddf3` alone is 904 B on Cortex-M);
//! these functions take a few hundred bytes. Token times run through them a few times
//! per sealed round, so their speed is immaterial. The tests check them against the
//! hardware's arithmetic.

const SIGN: u64 = 1 << 63;
const FRAC_BITS: u32 = 52;
const IMPLICIT: u64 = 1 << FRAC_BITS;
const INF: u64 = 0x7ff << FRAC_BITS;

/// `n as f64`: the nearest `f64`, ties to even.
pub(super) const fn from_u64(n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    // The highest set bit. The exponent field is `top + 1023`; the mantissa's implicit
    // bit adds the last 1.
    let top = 63 - n.leading_zeros();
    let exp = (top as u64 + 1022) << FRAC_BITS;
    if top <= FRAC_BITS {
        return f64::from_bits(exp + (n << (FRAC_BITS - top)));
    }
    let shift = top - FRAC_BITS;
    let mut mant = n >> shift;
    let rest = n & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rest > half || (rest == half && mant & 1 == 1) {
        mant += 1; // 2^53 carries into the exponent, as it should
    }
    f64::from_bits(exp + mant)
}

/// `a + b` for finite `a, b >= 0` (`-0.0` counts as `0.0`).
pub(super) fn add(a: f64, b: f64) -> f64 {
    let (x, y) = (a.to_bits() & !SIGN, b.to_bits() & !SIGN);
    // Non-negative floats order as their bits do.
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    // (biased exponent, mantissa with its implicit bit; subnormals at exponent 1), with
    // three bits below the mantissa: guard, round and sticky.
    let unpack = |v: u64| match v >> FRAC_BITS {
        0 => (1, (v & (IMPLICIT - 1)) << 3),
        e => (e, ((v & (IMPLICIT - 1)) | IMPLICIT) << 3),
    };
    let (mut exp, high) = unpack(hi);
    let (exp_lo, low) = unpack(lo);
    let d = exp - exp_lo;
    let low = if d > 63 {
        u64::from(low != 0)
    } else {
        (low >> d) | u64::from(low & ((1 << d) - 1) != 0)
    };
    let mut m = high + low;
    if m >= IMPLICIT << 4 {
        m = (m >> 1) | (m & 1);
        exp += 1;
    }
    let rounding = m & 7;
    m >>= 3;
    if rounding > 4 || (rounding == 4 && m & 1 == 1) {
        m += 1;
    }
    // The implicit bit (or a rounding carry) adds to the exponent field; a subnormal sum
    // has none (exponent field 0).
    f64::from_bits((((exp - 1) << FRAC_BITS) + m).min(INF))
}

/// A key that orders non-NaN `f64`s as `<` does (`-0.0` and `0.0` alike).
fn key(f: f64) -> u64 {
    match f.to_bits() {
        SIGN => SIGN,
        b if b & SIGN != 0 => !b,
        b => b | SIGN,
    }
}

fn is_nan(f: f64) -> bool {
    f.to_bits() & !SIGN > INF
}

/// `a <= b`.
pub(super) fn le(a: f64, b: f64) -> bool {
    !is_nan(a) && !is_nan(b) && key(a) <= key(b)
}

/// `a < b`.
pub(super) fn lt(a: f64, b: f64) -> bool {
    !is_nan(a) && !is_nan(b) && key(a) < key(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EDGES: [f64; 14] = [
        0.0,
        -0.0,
        5e-324,
        f64::MIN_POSITIVE,
        // The largest subnormal.
        f64::from_bits(0x000f_ffff_ffff_ffff),
        1.0,
        600.0,
        60.0,
        0.1,
        1_780_000_000.123_456,
        9_007_199_254_740_992.0,
        1.8446744073709552e19,
        f64::MAX,
        f64::INFINITY,
    ];

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits()
    }

    #[test]
    fn edges() {
        for &a in &EDGES {
            for &b in &EDGES {
                if a.is_finite() && b.is_finite() {
                    let want = a.abs() + b.abs();
                    assert!(same(add(a, b), want), "{a:e} + {b:e}");
                }
                assert_eq!(le(a, b), a <= b, "{a:e} <= {b:e}");
                assert_eq!(lt(a, b), a < b, "{a:e} < {b:e}");
                assert_eq!(le(-a, b), -a <= b, "{:e} <= {b:e}", -a);
                assert_eq!(lt(a, -b), a < -b, "{a:e} < {:e}", -b);
            }
            assert!(!le(f64::NAN, a) && !le(a, f64::NAN) && !lt(f64::NAN, a) && !lt(a, f64::NAN));
        }
        for n in [
            0,
            1,
            2,
            600,
            1 << 52,
            (1 << 53) + 1,
            (1 << 53) + 3,
            u64::MAX,
            u64::MAX - 1024,
        ] {
            assert!(same(from_u64(n), n as f64), "{n}");
        }
    }

    proptest! {
        #[test]
        fn add_is_ieee(a in 0u64..INF, b in 0u64..INF) {
            let (a, b) = (f64::from_bits(a), f64::from_bits(b));
            prop_assert!(same(add(a, b), a + b), "{:e} + {:e}", a, b);
        }

        #[test]
        fn add_is_ieee_near(a in 0u64..INF, d in 0u64..(1 << 56)) {
            // Operands a few binades apart: the rounding edges.
            let b = f64::from_bits(a.saturating_sub(d).min(INF - 1));
            let a = f64::from_bits(a);
            prop_assert!(same(add(a, b), a + b), "{:e} + {:e}", a, b);
        }

        #[test]
        fn times_add_as_python(secs in 0u64..(1 << 40), micros in 0u64..1_000_000, ttl in 1u32..100_000) {
            let now = secs as f64 + micros as f64 / 1e6;
            prop_assert!(same(add(now, f64::from(ttl)), now + f64::from(ttl)));
        }

        #[test]
        fn compare_as_ieee(a in any::<u64>(), b in any::<u64>()) {
            let (a, b) = (f64::from_bits(a), f64::from_bits(b));
            prop_assert_eq!(le(a, b), a <= b);
            prop_assert_eq!(lt(a, b), a < b);
        }

        #[test]
        fn from_u64_as_cast(n in any::<u64>(), shift in 0u32..64) {
            let n = n >> shift;
            prop_assert!(same(from_u64(n), n as f64), "{}", n);
        }
    }
}
