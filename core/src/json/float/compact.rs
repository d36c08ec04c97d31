//! Table-free `f64` conversions for small flash (the `small-float` feature).
//!
//! [`parse`] rounds a decimal number text to the nearest `f64` (ties to even) and
//! [`shortest`] finds the digits Python's `repr(float)` prints (the shortest decimal that
//! reads back as the same `f64`, the closest to it among those, ties to an even digit:
//! the digits ryu gives). Neither uses a table of powers nor floating-point arithmetic,
//! which is soft-float on a Cortex-M4: everything is integer arithmetic, at the price of
//! speed on inputs that need the exact fallbacks.
//!
//! Parsing has an exact path for up to 19 significant digits with a small exponent (one
//! integer division, bit by bit) and otherwise the "simple decimal conversion": the
//! decimal digits in a buffer, halved and doubled by binary shifts until the value sits
//! in [0.5, 1), then 53 more doublings and rounding to an integer. The buffer holds
//! [`DIGITS`] significant digits plus a flag for nonzero digits dropped past them, which
//! is exact for rounding: every halfway point between two neighbouring `f64`s (and every
//! power of two the scaling compares with) has at most 768 significant digits, so
//! truncating to 768 digits never moves a value across one, and the flag breaks an
//! apparent tie upwards. Its stack frame is about 800 bytes and only exists on that path.
//!
//! Formatting is the free-format algorithm of Steele & White / Burger & Dybvig with
//! exact big integers (four of [`LIMBS`] 32-bit limbs on the stack, ~600 bytes).
//!
//! The engine uses it with the `small-float` feature (chosen in `json::float`); the
//! `test-helpers` feature also exposes it as `json::compact_float` in every build, so that
//! tests can compare it with `core`'s parser and ryu. Not API.

use core::cmp::Ordering;

// ---------------------------------------------------------------------------------------
// Parsing

/// Significant decimal digits the exact parsing fallback keeps (see the module docs).
pub const DIGITS: usize = 768;

/// Largest shift applied at once to the digit buffer (keeps the arithmetic in `u32`:
/// 10 × 2^28 + 9 < 2^32).
const MAX_SHIFT: u32 = 28;

const MANT_MASK: u64 = (1 << 52) - 1;

/// A number text split at its point and exponent: `int.frac × 10^exp`.
struct Parts<'a> {
    neg: bool,
    int: &'a [u8],
    frac: &'a [u8],
    /// Clamped to ±2^50: past any `f64`'s range however many digits a text in memory has
    /// (`0.` and a million zeros then `1e1000005` is 10^4).
    exp: i64,
}

/// Length of the run of ASCII digits at the start of `b`.
fn digit_run(b: &[u8]) -> usize {
    b.iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(b.len())
}

fn split(text: &str) -> Option<Parts<'_>> {
    let b = text.as_bytes();
    let (neg, b) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let (int, mut rest) = b.split_at(digit_run(b));
    let mut frac: &[u8] = &[];
    if let Some((b'.', r)) = rest.split_first() {
        (frac, rest) = r.split_at(digit_run(r));
        if frac.is_empty() {
            return None;
        }
    }
    if int.is_empty() {
        return None;
    }
    let mut exp = 0i64;
    if let Some((b'e' | b'E', r)) = rest.split_first() {
        let (exp_neg, r) = match r.split_first() {
            Some((b'-', r)) => (true, r),
            Some((b'+', r)) => (false, r),
            _ => (false, r),
        };
        let (digits, r) = r.split_at(digit_run(r));
        if digits.is_empty() {
            return None;
        }
        for &c in digits {
            exp = (exp * 10 + i64::from(c - b'0')).min(1 << 50);
        }
        if exp_neg {
            exp = -exp;
        }
        rest = r;
    }
    if !rest.is_empty() {
        return None;
    }
    Some(Parts {
        neg,
        int,
        frac,
        exp,
    })
}

/// The `f64` nearest to a JSON number text (ties to even; ±inf past the largest finite
/// value, ±0 or a subnormal below the smallest normal one), as `str::parse::<f64>` gives.
/// `None` if `text` is not `-?digits(.digits)?([eE][+-]?digits)?`.
pub fn parse(text: &str) -> Option<f64> {
    let p = split(text)?;
    // Up to 19 significant digits: the value is w × 10^e exactly.
    let mut w = 0u64;
    let mut sig = 0u32;
    for &c in p.int.iter().chain(p.frac) {
        if w == 0 && c == b'0' {
            continue;
        }
        sig += 1;
        if sig > 19 {
            break;
        }
        w = w * 10 + u64::from(c - b'0');
    }
    let magnitude = if w == 0 {
        0.0
    } else {
        let frac_len = i64::try_from(p.frac.len()).unwrap_or(i64::MAX);
        let e = p.exp.saturating_sub(frac_len);
        match (sig <= 19).then(|| exact(w, e)).flatten() {
            Some(f) => f,
            None => slow(&p),
        }
    };
    Some(f64::from_bits(
        magnitude.to_bits() | (u64::from(p.neg) << 63),
    ))
}

/// w × 10^e when it needs no more than 64-bit integers: an integer that fits in `u64`,
/// or w / 10^-e with -e ≤ 18.
fn exact(w: u64, e: i64) -> Option<f64> {
    let mut scale = 1u64;
    if e >= 0 {
        let mut n = w;
        for _ in 0..e {
            n = n.checked_mul(10)?;
        }
        Some(ratio(n, 1))
    } else if e >= -18 {
        for _ in e..0 {
            scale *= 10;
        }
        Some(ratio(w, scale))
    } else {
        None
    }
}

/// num / den rounded to the nearest `f64` (ties to even), for num ≥ 1 and den ≤ 10^18
/// (so the result is a normal number and `2 * remainder` fits in 64 bits).
fn ratio(num: u64, den: u64) -> f64 {
    // Restoring division, a bit at a time: a 64-bit `/` links compiler_builtins'
    // division (~900 bytes) on 32-bit targets. r < den ≤ 10^18, so 2r fits.
    let (mut q, mut r) = (0u64, 0u64);
    for i in (0..64).rev() {
        r = r << 1 | (num >> i) & 1;
        q <<= 1;
        if r >= den {
            r -= den;
            q |= 1;
        }
    }
    // value = (q + r / den) × 2^e; bring q to 54 bits (53 + a rounding bit).
    let mut e = 0i32;
    let mut sticky = false;
    while q >> 54 != 0 {
        sticky |= q & 1 != 0;
        q >>= 1;
        e += 1;
    }
    while q >> 53 == 0 {
        r <<= 1;
        q <<= 1;
        if r >= den {
            r -= den;
            q |= 1;
        }
        e -= 1;
    }
    sticky |= r != 0;
    let half = q & 1 != 0;
    q >>= 1;
    e += 1;
    if half && (sticky || q & 1 != 0) {
        q += 1;
        if q >> 53 != 0 {
            q >>= 1;
            e += 1;
        }
    }
    // q in [2^52, 2^53): value = 1.fraction × 2^(e + 52)
    f64::from_bits(((e + 52 + 1023) as u64) << 52 | (q & MANT_MASK))
}

/// A decimal 0.d[0]d[1]…d[nd-1] × 10^dp, the digits as values 0..=9 with no trailing
/// zeros, `trunc` set when nonzero digits past `d[DIGITS - 1]` were dropped.
struct Decimal {
    d: [u8; DIGITS],
    nd: usize,
    dp: i32,
    trunc: bool,
}

impl Decimal {
    /// The digits in use, `d[..nd]`.
    fn live(&self) -> &[u8] {
        self.d.get(..self.nd).unwrap_or_default()
    }

    fn push(&mut self, digit: u8) {
        if let Some(slot) = self.d.get_mut(self.nd) {
            *slot = digit;
            self.nd += 1;
        } else if digit != 0 {
            self.trunc = true;
        }
    }

    fn trim(&mut self) {
        self.nd = self
            .live()
            .iter()
            .rposition(|&d| d != 0)
            .map_or(0, |i| i + 1);
        if self.nd == 0 {
            self.dp = 0;
        }
    }

    /// Divide by 2^k (k ≤ [`MAX_SHIFT`]), long division from the top digit.
    fn shr(&mut self, k: u32) {
        let mut read = 0usize;
        let mut n = 0u32;
        while n >> k == 0 {
            match self.live().get(read) {
                Some(&digit) => n = n * 10 + u32::from(digit),
                None if n == 0 => {
                    self.nd = 0;
                    return;
                }
                None => n *= 10,
            }
            read += 1;
        }
        self.dp -= read as i32 - 1;
        let mask = (1u32 << k) - 1;
        let mut write = 0usize;
        // Each digit read yields one written, behind it: write < read.
        while let Some(next) = self.live().get(read).copied() {
            let digit = (n >> k) as u8;
            n &= mask;
            if let Some(slot) = self.d.get_mut(write) {
                *slot = digit;
            }
            write += 1;
            n = n * 10 + u32::from(next);
            read += 1;
        }
        self.nd = write;
        while n > 0 {
            let digit = (n >> k) as u8;
            n &= mask;
            self.push(digit);
            n *= 10;
        }
        self.trim();
    }

    /// Multiply by 2^k (k ≤ [`MAX_SHIFT`]), from the bottom digit: a first pass finds how
    /// many digits the product gains at the top, the second writes it in place.
    fn shl(&mut self, k: u32) {
        let mut carry = 0u32;
        for &digit in self.live().iter().rev() {
            carry = ((u32::from(digit) << k) + carry) / 10;
        }
        let mut grow = 0usize;
        let mut c = carry;
        while c > 0 {
            grow += 1;
            c /= 10;
        }
        carry = 0;
        for i in (0..self.nd).rev() {
            let n = (u32::from(self.d.get(i).copied().unwrap_or(0)) << k) + carry;
            carry = n / 10;
            let digit = (n % 10) as u8;
            match self.d.get_mut(i + grow) {
                Some(slot) => *slot = digit,
                None => self.trunc |= digit != 0,
            }
        }
        for slot in self.d.iter_mut().take(grow).rev() {
            *slot = (carry % 10) as u8;
            carry /= 10;
        }
        self.nd = (self.nd + grow).min(DIGITS);
        self.dp += grow as i32;
        self.trim();
    }

    /// Shift right by any amount, in steps.
    fn shr_by(&mut self, mut k: u32) {
        while k > 0 {
            let step = k.min(MAX_SHIFT);
            self.shr(step);
            k -= step;
        }
    }

    /// The integer part rounded half to even (the value is below 10^16 here).
    fn rounded_integer(&self) -> u64 {
        let dp = match usize::try_from(self.dp) {
            Ok(dp) => dp,
            Err(_) => return 0, // below 0.1
        };
        let mut n = 0u64;
        for i in 0..dp {
            n = n * 10 + u64::from(self.live().get(i).copied().unwrap_or(0));
        }
        let up = match self.d.get(dp) {
            _ if dp >= self.nd => false,
            // Exactly .5 unless digits were dropped: round to even.
            Some(&5) if dp + 1 == self.nd => self.trunc || n & 1 == 1,
            Some(&digit) => digit >= 5,
            None => false,
        };
        n + u64::from(up)
    }
}

/// The exact fallback of [`parse`]: the magnitude of `p`.
#[inline(never)]
fn slow(p: &Parts<'_>) -> f64 {
    let mut dec = Decimal {
        d: [0; DIGITS],
        nd: 0,
        dp: 0,
        trunc: false,
    };
    // The decimal point, counted in i64 until the exponent is in: leading zeros and the
    // exponent may each be huge and cancel out.
    let mut dp = 0i64;
    let mut seen = false;
    for (i, &c) in p.int.iter().chain(p.frac).enumerate() {
        let digit = c - b'0';
        let in_int = i < p.int.len();
        if !seen && digit == 0 {
            if !in_int {
                dp -= 1;
            }
            continue;
        }
        seen = true;
        if in_int {
            dp += 1;
        }
        dec.push(digit);
    }
    let dp = dp.saturating_add(p.exp);
    dec.trim();
    if dec.nd == 0 || dp < -330 {
        return 0.0; // below 10^-330, less than half the smallest subnormal
    }
    if dp > 310 {
        return f64::INFINITY; // at least 10^309
    }
    dec.dp = dp as i32;
    // Scale into [0.5, 1): value = dec × 2^e2.
    let mut e2 = 0i32;
    while dec.dp > 0 {
        dec.shr(MAX_SHIFT);
        e2 += MAX_SHIFT as i32;
    }
    while dec.dp < 0 || (dec.dp == 0 && dec.d[0] < 5) {
        // Below 10^dp: doubling 3·|dp| times stays below 1 (8 < 10); below 0.5, once.
        let k = if dec.dp < 0 {
            (3 * dec.dp.unsigned_abs()).min(MAX_SHIFT)
        } else {
            1
        };
        dec.shl(k);
        e2 -= k as i32;
    }
    // value = 1.x × 2^e; below 2^-1022 the fraction loses bits (subnormal).
    let mut e = e2 - 1;
    if e < -1022 {
        dec.shr_by((-1022 - e) as u32);
        e = -1022;
    }
    if e > 1023 {
        return f64::INFINITY;
    }
    dec.shl(MAX_SHIFT);
    dec.shl(53 - MAX_SHIFT);
    let mut m = dec.rounded_integer();
    if m >> 53 != 0 {
        m >>= 1;
        e += 1;
        if e > 1023 {
            return f64::INFINITY;
        }
    }
    let biased = if m >> 52 != 0 { (e + 1023) as u64 } else { 0 };
    f64::from_bits(biased << 52 | (m & MANT_MASK))
}

// ---------------------------------------------------------------------------------------
// Shortest digits

/// 32-bit limbs of the formatter's big integers: 1152 bits, above the largest value they
/// hold (about 2^1084: 2^1076 scaled by 10 a few times).
pub const LIMBS: usize = 36;

/// A little-endian unsigned big integer of fixed width.
#[derive(Clone, Copy)]
struct Big([u32; LIMBS]);

impl Big {
    fn new(v: u64) -> Big {
        let mut b = Big([0; LIMBS]);
        b.0[0] = v as u32;
        b.0[1] = (v >> 32) as u32;
        b
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in self.0.iter_mut() {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
    }

    /// Multiply by base^n, as (base^chunk)^(n / chunk) × base^(n % chunk).
    fn mul_pow(&mut self, base: u32, chunk: u32, mut n: u32) {
        let mut big = 1u32;
        for _ in 0..chunk {
            big *= base;
        }
        while n >= chunk {
            self.mul_small(big);
            n -= chunk;
        }
        let mut rest = 1u32;
        for _ in 0..n {
            rest *= base;
        }
        self.mul_small(rest);
    }

    fn shl(&mut self, n: u32) {
        self.mul_pow(2, 31, n);
    }

    fn mul_pow10(&mut self, n: u32) {
        self.mul_pow(10, 9, n);
    }

    /// self -= o (self ≥ o).
    fn sub(&mut self, o: &Big) {
        let mut borrow = false;
        for (a, &b) in self.0.iter_mut().zip(o.0.iter()) {
            let (d, b1) = a.overflowing_sub(b);
            let (d, b2) = d.overflowing_sub(u32::from(borrow));
            *a = d;
            borrow = b1 || b2;
        }
    }

    /// (self + o) compared with c, without a temporary: the highest limb that differs
    /// decides, and a carry out of the top means greater.
    fn sum_cmp(&self, o: &Big, c: &Big) -> Ordering {
        let mut ord = Ordering::Equal;
        let mut carry = 0u64;
        for ((&a, &b), &c) in self.0.iter().zip(&o.0).zip(&c.0) {
            let t = u64::from(a) + u64::from(b) + carry;
            carry = t >> 32;
            let t = t as u32;
            if t != c {
                ord = t.cmp(&c);
            }
        }
        if carry != 0 {
            Ordering::Greater
        } else {
            ord
        }
    }

    fn cmp(&self, o: &Big) -> Ordering {
        self.0.iter().rev().cmp(o.0.iter().rev())
    }
}

/// The shortest round-trip decimal of a finite nonzero `f64`: `0.digits × 10^decpt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortest {
    /// ASCII digits; the first `len` are significant (no leading zero), the rest zero
    /// bytes.
    pub digits: [u8; 17],
    /// How many digits (1..=17).
    pub len: usize,
    /// Where the decimal point goes: the value is `0.digits × 10^decpt`.
    pub decpt: i32,
}

/// A finite nonzero `f` as `m × 2^e` (`m` < 2^53 with the hidden bit), and whether the
/// gap to the next float down is half the gap up (`f` a power of two above the smallest
/// normal one).
fn unpack(f: f64) -> (u64, i32, bool) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & MANT_MASK;
    if biased == 0 {
        (fraction, -1074, false)
    } else {
        (
            fraction | 1 << 52,
            biased - 1075,
            fraction == 0 && biased > 1,
        )
    }
}

/// For a finite nonzero `f` that is the float nearest to `n / 1000` for an integer `n`,
/// with `2^-10` < |`f`| < `2^43`: that `n`, whose decimal digits (trailing zeros
/// dropped, the point before the last three) are [`shortest`]'s; `None` for every other
/// `f`. The engine's timestamps (`Date.now() / 1000`) and most numbers people type are
/// such floats, and this is much cheaper than [`shortest`]'s big integers; the tests
/// compare the two on every value this answers.
///
/// Why `n / 1000`, with its trailing zeros dropped, is then `repr`'s decimal: the
/// decimals that read back as `f` form an interval one ulp wide, and below 2^43 an ulp is
/// at most 2^-10, less than 10^-3, so the interval holds at most one multiple of 10^-3:
/// `n / 1000`, which is in it because `f` is its nearest float. A decimal with no more
/// significant digits than `n / 1000` is either a multiple of 10^-3 too (its last digit
/// at 10^-3 or above), hence `n / 1000` itself, or has its last digit below 10^-3 and
/// then, having no more digits, is smaller than `n / 1000` by at least 10^-3, or by a
/// tenth of it when `n / 1000` is a power of ten: either way more than an ulp, so outside
/// the interval. `n / 1000` is therefore the only decimal of the least length in the
/// interval, which is the one [`shortest`] finds.
///
/// Integer arithmetic only: with `f = m × 2^-k` (10 ≤ k ≤ 62), `n` is `1000·m / 2^k`
/// rounded, and `f` is the float nearest to `n / 1000` exactly when
/// `|n·2^k − 1000·m|` is at most 500 (half an ulp, in units of 2^-k / 1000; 250 below
/// a power of two, where the gap down is half as wide), the bound itself only when `m`
/// is even (a tie rounds to the even mantissa). `1000·m` < 2^63 and `n·2^k` ≤
/// `1000·m + 2^(k-1)`, so nothing overflows; `n` < 1000 · 2^53 / 2^10 < 10^16.
pub fn millis(f: f64) -> Option<u64> {
    let (m, e, narrow_low) = unpack(f);
    let k = u32::try_from(e.checked_neg()?).ok()?;
    if !(10..=62).contains(&k) {
        return None;
    }
    let scaled = m * 1000;
    let n = (scaled + (1 << (k - 1))) >> k;
    let back = n << k;
    let (dist, limit) = if back >= scaled {
        (back - scaled, 500)
    } else {
        (scaled - back, if narrow_low { 250 } else { 500 })
    };
    let inside = dist < limit || (dist == limit && m & 1 == 0);
    (n != 0 && inside).then_some(n)
}

/// The digits of `repr(abs(f))` for a finite nonzero `f`: the shortest decimal that
/// rounds back to `f`, the closest to `f` among those (ties: the even last digit). By the
/// free-format algorithm with exact big integers ([`millis`] is the shortcut for the
/// floats it answers).
pub fn shortest(f: f64) -> Shortest {
    let (m, e, narrow_low) = unpack(f);
    // The interval of decimals that read back as f: half the gap to each neighbour,
    // closed when m is even (ties go to it). Below a power of two the gap is half.
    let closed = m & 1 == 0;
    // f = r / s, upper half-gap = up / s, lower half-gap = down / s (all scaled by 4).
    let mut r = Big::new(m << 2);
    let mut s = Big::new(4);
    let mut up = Big::new(2);
    let mut down = Big::new(if narrow_low { 1 } else { 2 });
    if e >= 0 {
        r.shl(e as u32);
        up.shl(e as u32);
        down.shl(e as u32);
    } else {
        s.shl(e.unsigned_abs());
    }
    // decpt: the least k with the interval's top below 10^k (at most 10^k if open).
    // Start from floor(p·log10(2)) ≤ it, f in [2^p, 2^(p+1)).
    let p = e + 63 - m.leading_zeros() as i32;
    let mut k = (p * 78913) >> 18;
    if k >= 0 {
        s.mul_pow10(k as u32);
    } else {
        let n = k.unsigned_abs();
        r.mul_pow10(n);
        up.mul_pow10(n);
        down.mul_pow10(n);
    }
    loop {
        match r.sum_cmp(&up, &s) {
            Ordering::Greater => {}
            Ordering::Equal if closed => {}
            _ => break,
        }
        s.mul_small(10);
        k += 1;
    }
    let mut out = Shortest {
        digits: [0; 17],
        len: 0,
        decpt: k,
    };
    loop {
        r.mul_small(10);
        up.mul_small(10);
        down.mul_small(10);
        let mut digit = 0u8;
        while r.cmp(&s) != Ordering::Less {
            r.sub(&s);
            digit += 1;
        }
        // Can we stop at this digit (low) or at the next one up (high)?
        let low = match r.cmp(&down) {
            Ordering::Less => true,
            Ordering::Equal => closed,
            Ordering::Greater => false,
        };
        let high = match r.sum_cmp(&up, &s) {
            Ordering::Greater => true,
            Ordering::Equal => closed,
            Ordering::Less => false,
        };
        let last = low || high;
        if high {
            // Both possible: the closer one; on a tie, the even digit.
            let round_up = !low
                || match r.sum_cmp(&r, &s) {
                    Ordering::Greater => true,
                    Ordering::Equal => digit & 1 == 1,
                    Ordering::Less => false,
                };
            digit += u8::from(round_up);
        }
        if let Some(slot) = out.digits.get_mut(out.len) {
            *slot = b'0' + digit;
            out.len += 1;
        }
        if last || out.len == out.digits.len() {
            return out;
        }
    }
}

/// [`write_f64`](super::write_f64) with the digits from [`shortest`], whatever the
/// features (a test helper: the `test-helpers` feature).
#[cfg(feature = "test-helpers")]
pub fn write(f: f64, sink: &mut dyn super::Sink) {
    if !super::write_f64_special(f, sink) {
        write_finite(f, sink);
    }
}

/// [`write_f64`](super::write_f64) for a finite nonzero `f`, with the digits from
/// [`millis`] when it answers, else from [`shortest`].
#[cfg(any(feature = "small-float", feature = "test-helpers"))]
pub(super) fn write_finite(f: f64, sink: &mut dyn super::Sink) {
    let mut text = [0u8; 20];
    let d;
    let (digits, decpt) = match millis(f) {
        Some(n) => {
            // The layout drops n's trailing zeros; n / 1000 = 0.DIGITS × 10^(len − 3).
            let len = super::decimal_digits(n, &mut text);
            (text.get(text.len() - len..), len as i32 - 3)
        }
        None => {
            d = shortest(f);
            (d.digits.get(..d.len), d.decpt)
        }
    };
    super::write_f64_digits(
        f.is_sign_negative(),
        digits.unwrap_or_default(),
        decpt,
        sink,
    );
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::format;
    use std::string::String;

    fn bits(text: &str) -> u64 {
        parse(text).expect("number").to_bits()
    }

    #[test]
    fn parse_hard_cases() {
        let cases: &[(&str, f64)] = &[
            ("0.1", 0.1),
            ("1250.5", 1250.5),
            ("1.65", 1.65),
            ("-0", -0.0),
            ("-0.0", -0.0),
            ("0e999999999", 0.0),
            ("9007199254740993", 9007199254740992.0),
            ("9007199254740995", 9007199254740996.0),
            ("9007199254740993.0000000000000000001", 9007199254740994.0),
            ("5e-324", 5e-324),
            ("4.9406564584124654e-324", 5e-324),
            ("2.4703282292062328e-324", 5e-324),
            ("2.4703282292062327e-324", 0.0),
            ("2.2250738585072011e-308", 2.225073858507201e-308),
            ("2.2250738585072014e-308", 2.2250738585072014e-308),
            ("1.7976931348623157e308", f64::MAX),
            ("1.7976931348623158e308", f64::MAX),
            ("1.7976931348623159e308", f64::INFINITY),
            ("-1.7976931348623159e308", f64::NEG_INFINITY),
            ("1e400", f64::INFINITY),
            ("1e-400", 0.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("1E+2", 100.0),
            ("1e-18", 1e-18),
            ("18446744073709551615", 18446744073709551615.0),
        ];
        for &(text, want) in cases {
            assert_eq!(bits(text), want.to_bits(), "{text}");
        }
        for bad in ["", "-", "1.", ".5", "1e", "1e+", "a", "1x", "--1", "1.5.5"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    /// The exact digits and decimal point of odd × 2^exp2 (0.DIGITS × 10^dp); fails if
    /// the digit buffer had to drop any.
    fn exact_digits(odd: u64, exp2: i32) -> (String, i32) {
        let mut dec = Decimal {
            d: [0; DIGITS],
            nd: 0,
            dp: 0,
            trunc: false,
        };
        for c in format!("{odd}").bytes() {
            dec.push(c - b'0');
            dec.dp += 1;
        }
        dec.trim();
        if exp2 < 0 {
            dec.shr_by(exp2.unsigned_abs());
        }
        for _ in 0..exp2.max(0) {
            dec.shl(1);
        }
        assert!(
            !dec.trunc,
            "{odd} × 2^{exp2} needs more than {DIGITS} digits"
        );
        let digits = dec.d[..dec.nd]
            .iter()
            .map(|&d| char::from(b'0' + d))
            .collect();
        (digits, dec.dp)
    }

    /// m × 2^exp2, exactly (m < 2^53, the result a finite f64).
    fn scaled(m: u64, exp2: i32) -> u64 {
        let mut f = m as f64;
        for _ in 0..exp2.max(0) {
            f *= 2.0;
        }
        // Every intermediate value is representable: no halving rounds.
        for _ in 0..exp2.min(0).unsigned_abs() {
            f /= 2.0;
        }
        f.to_bits()
    }

    #[test]
    fn parse_halfway_cases_written_out() {
        // odd × 2^exp2 is halfway between two neighbouring f64s, `below` and `below` + 1
        // ulp: the tie goes to the even one, anything above it up and anything below it
        // down, however far past the 768th digit the difference is.
        let cases: &[(u64, i32)] = &[
            (1, -1075),             // half of 2^-1074: to 0
            (3, -1075),             // between 2^-1074 and 2^-1073
            ((1 << 53) - 1, -1075), // max subnormal / min normal
            ((1 << 54) - 1, -1075), // 768 significant digits
            ((1 << 54) - 3, -1075),
            ((1 << 54) - 1, -1023),
            (9007199254740993, 0), // 2^53 + 1
            (9007199254740995, 0),
            ((1 << 54) - 1, 40),
            ((1 << 54) - 1, 970), // 1.797693134862315807…e308: MAX or overflow
            ((1 << 54) - 3, 970),
            (12345678901234567, -700),
        ];
        for &(odd, exp2) in cases {
            let (digits, dp) = exact_digits(odd, exp2);
            // (odd ≥ 2^53 or in the subnormal range: the ulp there is 2^(exp2 + 1).)
            let below = scaled(odd >> 1, exp2 + 1);
            let even = if below & 1 == 0 { below } else { below + 1 };
            let at = |mantissa: &str| bits(&format!("0.{mantissa}e{dp}"));
            assert_eq!(at(&digits), even, "tie {odd}×2^{exp2}");
            assert_eq!(at(&format!("{digits}0000")), even);
            let above = format!("{digits}{}1", "0".repeat(800));
            assert_eq!(at(&above), below + 1, "above {odd}×2^{exp2}");
            let mut under = digits.clone().into_bytes();
            let last = under.last_mut().expect("digits");
            *last -= 1; // a tie's last digit is 5
            under.extend_from_slice(&[b'9'; 40]);
            let under = String::from_utf8(under).expect("ascii");
            assert_eq!(at(&under), below, "below {odd}×2^{exp2}");
        }
    }

    #[test]
    fn shortest_hard_cases() {
        let cases: &[(f64, &str, i32)] = &[
            (5e-324, "5", -323),
            (0.1, "1", 0),
            (1.0, "1", 1),
            (f64::MAX, "17976931348623157", 309),
            (2.2250738585072014e-308, "22250738585072014", -307),
            (9007199254740992.0, "9007199254740992", 16),
            (1e23, "1", 24),
            (123.456, "123456", 3),
        ];
        for &(f, digits, decpt) in cases {
            let s = shortest(f);
            assert_eq!(
                (core::str::from_utf8(&s.digits[..s.len]).unwrap(), s.decpt),
                (digits, decpt),
                "{f:e}"
            );
        }
    }
}
