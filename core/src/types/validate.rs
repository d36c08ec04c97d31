//! Checking accepted content strictly (JSON types as MCP defines them) and writing the
//! values it settles to (the Python values FastMCP settles to).

use super::compile::FORMATS;
use super::raw::check_raw_content;
use super::{decode_small, Shape, Ty};
use crate::json::{
    f64_finite, f64_lt, parse_f64, write_f64, write_value, Kind, Number, Sink, Str, Style, Value,
};
use crate::pyfmt::white_space_len;

/// A JSON number as an f64 (an integer literal too long for one rounds; NaN if unparsable).
pub(super) fn num_f64(n: Number<'_>) -> f64 {
    match n {
        Number::Int(t) => parse_f64(t).unwrap_or(f64::NAN),
        Number::Float(f) => f,
    }
}

/// Whether an integer answer written as a float (`3.0`, `1e3`) is an integer, as pydantic's
/// lax `int` takes a float: finite, integral, and strictly between -2^63 and 2^63 (its
/// `float_as_int`: `i64::MIN as f64 < f < i64::MAX as f64`, both bounds ±2^63). So
/// `9.223372036854775e+18` is one, `9.223372036854776e+18`, `-9.223372036854776e+18`
/// and `1e+19` are not. Integers written as integers are not bounded
/// (`12345678901234567890` is one). On the bits: no floating-point arithmetic.
pub(super) fn integral_in_i64(f: f64) -> bool {
    let bits = f.to_bits();
    // |f| < 2^63 ⟺ the biased exponent is below 1023 + 63 (this also rules out inf, NaN).
    let small = (bits >> 52) & 0x7ff < 1023 + 63;
    small && bits == libm_trunc(f).to_bits()
}

pub(super) fn within_bounds(spec: Option<Value<'_>>, x: f64) -> bool {
    let get = |k: &str| {
        spec.and_then(|s| s.get(k))
            .and_then(|v| v.as_number())
            .map(num_f64)
    };
    if let Some(min) = get("minimum") {
        if f64_lt(x, min) {
            return false;
        }
    }
    if let Some(max) = get("maximum") {
        if f64_lt(max, x) {
            return false;
        }
    }
    true
}

/// Whether a count (computed only when `spec` bounds it) is within `spec`'s bounds.
pub(super) fn count_ok(
    spec: Option<Value<'_>>,
    min_key: &str,
    max_key: &str,
    count: impl FnOnce() -> usize,
) -> bool {
    let Some(spec) = spec else { return true };
    let get = |k: &str| spec.get(k).and_then(|v| v.as_number()).map(num_f64);
    let (min, max) = (get(min_key), get(max_key));
    if min.is_none() && max.is_none() {
        return true;
    }
    let n = count();
    if let Some(min) = min {
        if f64_lt(n as f64, min) {
            return false;
        }
    }
    if let Some(max) = max {
        if f64_lt(max, n as f64) {
            return false;
        }
    }
    true
}

pub(super) fn in_choices(choices: Value<'_>, s: Str<'_>) -> bool {
    choices
        .items()
        .any(|c| c.as_str().is_some_and(|c| c.cmp_decoded(s).is_eq()))
}

/// Whether an integer answer is an integer within `spec`'s bounds.
pub(super) fn integer_ok(spec: Option<Value<'_>>, n: Option<Number<'_>>) -> bool {
    match n {
        Some(Number::Int(t)) => within_bounds(spec, parse_f64(t).unwrap_or(0.0)),
        Some(Number::Float(f)) => integral_in_i64(f) && within_bounds(spec, f),
        None => false,
    }
}

/// Out of line: its date buffer stays out of the validator's frame (a device's stack
/// peak is a round validating answers).
#[inline(never)]
pub(super) fn format_ok(format: Str<'_>, s: Str<'_>) -> bool {
    // The format looked up once, by its index in FORMATS (0 email, 1 uri, 2 date,
    // 3 date-time); another format (a raw schema's) is not checked.
    let Some(which) = FORMATS.iter().position(|f| format.eq_str(f)) else {
        return true;
    };
    if which < 2 {
        return address_ok(which == 0, s);
    }
    // A date or date-time is at most 25 bytes; anything longer is neither.
    let mut buf = [0u8; 32];
    let Some(text) = decode_small(s, &mut buf) else {
        return false;
    };
    if which == 2 {
        is_date(text.as_bytes())
    } else {
        is_date_time(text.as_bytes())
    }
}

/// An email (`email`: an `@` with something before and after its last one) or a uri (a
/// scheme: a letter, then letters, digits, `+`, `-` or `.`, up to the first `:`), neither
/// holding white space: checked over the decoded characters, one pass at any length.
fn address_ok(email: bool, s: Str<'_>) -> bool {
    let mut utf8 = [0u8; 4];
    let (mut n, mut last_at, mut colon, mut scheme_ok) = (0usize, None, None, true);
    for u in s.units() {
        let c = char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER);
        if white_space_len(c.encode_utf8(&mut utf8).as_bytes()) > 0 {
            return false;
        }
        if c == '@' {
            last_at = Some(n);
        }
        if colon.is_none() {
            if c == ':' {
                colon = Some(n);
            } else if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                || (n == 0 && !c.is_ascii_alphabetic())
            {
                scheme_ok = false;
            }
        }
        n += 1;
    }
    if email {
        last_at.is_some_and(|at| at > 0 && at + 1 < n)
    } else {
        colon.is_some_and(|c| c > 0) && scheme_ok
    }
}

// Dates on bytes (every accepted byte is ASCII): str slicing links core's
// char-boundary panics.

/// The numbers `s` writes where `pattern` has runs of `d` (at most three runs of at most
/// four digits: no overflow), when every `d` is an ASCII digit and every other byte of
/// `pattern` appears as it is; `None` when `s` does not have that form. One matcher for
/// the date, the time and the offset (smaller than one unpacking of each).
fn fields(s: &[u8], pattern: &[u8]) -> Option<[u32; 3]> {
    if s.len() != pattern.len() {
        return None;
    }
    let mut out = [0u32; 3];
    let mut field = 0usize;
    for (&c, &p) in s.iter().zip(pattern) {
        if p == b'd' {
            if !c.is_ascii_digit() {
                return None;
            }
            let n = out.get_mut(field)?;
            *n = *n * 10 + u32::from(c - b'0');
        } else if c != p {
            return None;
        } else if field < 2 {
            field += 1;
        }
    }
    Some(out)
}

fn is_date(b: &[u8]) -> bool {
    let Some([y, m, d]) = fields(b, b"dddd-dd-dd") else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    d >= 1 && d <= days
}

fn is_date_time(s: &[u8]) -> bool {
    // A date in the first 10 bytes is ASCII, so byte 10 starts a character.
    let (Some((date, rest)), Some((time, mut tail))) = (
        s.split_at_checked(10),
        s.get(11..).and_then(|t| t.split_at_checked(8)),
    ) else {
        return false;
    };
    if !is_date(date) || !matches!(rest.first(), Some(b'T' | b't' | b' ')) {
        return false;
    }
    if !fields(time, b"dd:dd:dd").is_some_and(|[h, m, s]| h <= 23 && m <= 59 && s <= 60) {
        return false;
    }
    if let Some((b'.', frac)) = tail.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        tail = frac.get(n..).unwrap_or_default();
    }
    match tail {
        b"Z" | b"z" => true,
        [b'+' | b'-', offset @ ..] => {
            fields(offset, b"dd:dd").is_some_and(|[h, m, _]| h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// The member whose decoded key equals `name`'s decoded key (last one wins).
pub(super) fn get_decoded<'c>(obj: Value<'c>, name: Str<'_>) -> Option<Value<'c>> {
    if let Some(p) = name.as_plain() {
        return obj.get(p);
    }
    let mut found = None;
    for (k, v) in obj.members() {
        if k.cmp_decoded(name).is_eq() {
            found = Some(v);
        }
    }
    found
}

impl Ty<'_> {
    /// Validate one scalar/enum/array value against this (non-object) type.
    fn check_scalar(&self, v: Value<'_>) -> bool {
        match self.0 {
            Shape::String(spec) => {
                let Some(s) = v.as_str() else { return false };
                // `str` alone (the common type) has no bounds and no format to look up.
                let Some(spec) = spec else { return true };
                if !count_ok(Some(spec), "minLength", "maxLength", || s.char_len()) {
                    return false;
                }
                match spec.get("format").and_then(|f| f.as_str()) {
                    Some(f) => format_ok(f, s),
                    None => true,
                }
            }
            Shape::Integer(spec) => integer_ok(spec, v.as_number()),
            // A literal that overflows to ±inf is refused: it has no JSON rendering.
            Shape::Number(spec) => match v.as_number() {
                Some(n) => f64_finite(num_f64(n)) && within_bounds(spec, num_f64(n)),
                None => false,
            },
            Shape::Boolean(_) => v.as_bool().is_some(),
            Shape::Enum { choices, .. } => v.as_str().is_some_and(|s| in_choices(choices, s)),
            Shape::Multi { spec, choices } => {
                if v.kind() != Kind::Array {
                    return false;
                }
                let mut n = 0;
                for item in v.items() {
                    n += 1;
                    if !item.as_str().is_some_and(|s| in_choices(choices, s)) {
                        return false;
                    }
                }
                count_ok(Some(spec), "minItems", "maxItems", || n)
            }
            Shape::Object { .. } | Shape::Schema(_) => false,
        }
    }

    /// Validate accepted content (the `content` object of an ElicitResult), handing back
    /// what its settled value renders from: `None` when the content does not validate,
    /// else `Some(value)` with a wrapped type's `value` member (`Some(None)` for object
    /// and raw-schema types, which render the content). `wrapped`: the content is known to
    /// be `{"value":<scalar>}` (its reader found it so; [`Value::wrapped_value`]).
    pub(crate) fn accept<'c>(
        &self,
        content: Value<'c>,
        wrapped: bool,
    ) -> Option<Option<Value<'c>>> {
        if content.kind() != Kind::Object {
            return None;
        }
        match self.0 {
            // Never built without the features (see `available`).
            Shape::Object { .. } if !cfg!(feature = "object-types") => None,
            Shape::Schema(_) if !cfg!(feature = "raw-schema") => None,
            Shape::Object { props, .. } => props
                .members()
                .all(|(name, field)| {
                    // Every field compiled when the type did.
                    let Ok(fty) = Ty::compile(field, true) else {
                        return false;
                    };
                    match get_decoded(content, name) {
                        Some(v) => fty.check_scalar(v),
                        None => field.kind() == Kind::Object && field.get("default").is_some(),
                    }
                })
                .then_some(None),
            Shape::Schema(schema) => check_raw_content(schema, content).then_some(None),
            _ => {
                let v = match wrapped {
                    true => content.wrapped_value(),
                    false => content.get_value(),
                }?;
                self.check_scalar(v).then_some(Some(v))
            }
        }
    }

    /// Write the settled value of validated content (the Python value FastMCP settles
    /// to, rendered with `style`).
    pub(crate) fn write_settled(&self, content: Value<'_>, style: Style, out: &mut dyn Sink) {
        match self.0 {
            // Never built without the feature (see `available`).
            Shape::Object { .. } if !cfg!(feature = "object-types") => {}
            Shape::Object { props, .. } => {
                out.put(b"{");
                let mut first = true;
                for (name, field) in props.members() {
                    if !first {
                        out.put(if style.spaced { b", " } else { b"," });
                    }
                    first = false;
                    write_json_str_key(name, style, out);
                    // Every field compiled when the type did.
                    let fty = Ty::compile(field, true).unwrap_or(Ty::STRING);
                    match (get_decoded(content, name), field.get("default")) {
                        (Some(v), _) => fty.write_normalized(v, style, out),
                        // pydantic never validates a default, and serializes an integer
                        // field's float default as the float it is; a number field's
                        // integer default does become a float.
                        (None, Some(d)) if fty.kind() == super::TypeKind::Integer => {
                            write_value(d, style, out)
                        }
                        (None, Some(d)) => fty.write_normalized(d, style, out),
                        (None, None) => out.put(b"null"),
                    }
                }
                out.put(b"}");
            }
            Shape::Schema(_) => write_value(content, style, out),
            _ => match content.get_value() {
                Some(v) => self.write_normalized(v, style, out),
                None => out.put(b"null"),
            },
        }
    }

    /// A value as the Python value of this type renders: ints for integer types,
    /// floats for number types, everything else as is.
    pub(crate) fn write_normalized(&self, v: Value<'_>, style: Style, out: &mut dyn Sink) {
        // The type first: only a number type reads the value as a number (a string
        // answer goes straight to `write_value`).
        let n = match self.0 {
            Shape::Number(_) | Shape::Integer(_) => v.as_number(),
            _ => None,
        };
        match (self.0, n) {
            (Shape::Number(_), Some(n)) => write_f64(num_f64(n), out),
            (Shape::Integer(_), Some(Number::Float(f))) if integral_in_i64(f) => {
                write_integral_f64(f, out)
            }
            _ => write_value(v, style, out),
        }
    }

    /// Whether [`Ty::write_normalized`] writes `v` as the JSON value it is (anything but
    /// a number this type prints as Python does: a float of a number type, an integral
    /// float of an integer type).
    pub(crate) fn keeps(&self, v: Value<'_>) -> bool {
        // The type first, as in `write_normalized`.
        match self.0 {
            Shape::Number(_) => v.as_number().is_none(),
            Shape::Integer(_) => match v.as_number() {
                Some(Number::Float(f)) => !integral_in_i64(f),
                _ => true,
            },
            _ => true,
        }
    }
}

/// An object key and its separator, as the style writes them.
fn write_json_str_key(name: Str<'_>, style: Style, out: &mut dyn Sink) {
    crate::json::write_json_str(name, style.ascii, out);
    out.put(if style.spaced { b": " } else { b":" });
}

/// `f.trunc()` without std, and without floating-point arithmetic (soft-float on a
/// Cortex-M4): the fraction bits below the binary point are cleared.
pub(super) fn libm_trunc(f: f64) -> f64 {
    let bits = f.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exp >= 52 {
        f // integral already (or inf, NaN)
    } else if exp < 0 {
        f64::from_bits(bits & 1 << 63) // |f| < 1: ±0
    } else {
        f64::from_bits(bits & !((1u64 << (52 - exp)) - 1))
    }
}

/// Write an integral f64 below 2^63 in magnitude (see [`integral_in_i64`]) as Python's
/// `int(f)` prints it. (±0 prints 0, as `int(-0.0)` does.)
fn write_integral_f64(f: f64, out: &mut dyn Sink) {
    let bits = f.to_bits();
    let neg = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    // Below 2^63 (exp < 11 for a normal number): the shift drops only zero bits of the
    // fraction, or moves the mantissa up without overflow. ±0 has exp = -1075.
    let v = if exp >= 0 {
        mant.checked_shl(exp.unsigned_abs()).unwrap_or(0)
    } else {
        mant.checked_shr(exp.unsigned_abs()).unwrap_or(0)
    } as i64;
    crate::json::write_i64(if neg { v.wrapping_neg() } else { v }, out);
}

#[cfg(feature = "fallback")]
impl Ty<'_> {
    /// Validate a call argument given for this type in place of an answer (a declared
    /// fallback, docs/fallback.md): the value itself for a wrapped type (as an answer's
    /// `value` member is checked), the content object for an object or raw-schema type.
    /// What [`Ty::accept`] hands back for the same answer: `None` when it does not
    /// validate.
    pub(crate) fn accept_argument<'c>(&self, v: Value<'c>) -> Option<Option<Value<'c>>> {
        if self.wrapped() {
            self.check_scalar(v).then_some(Some(v))
        } else {
            self.accept(v, false)
        }
    }
}

/// Whether a call argument given for a roots parameter in place of a `roots/list`
/// answer (a declared fallback) is an array of URIs, as a `uri` string format checks
/// them.
#[cfg(feature = "fallback")]
pub(crate) fn roots_argument_ok(v: Value<'_>) -> bool {
    v.kind() == Kind::Array
        && v.items()
            .all(|u| u.as_str().is_some_and(|s| address_ok(false, s)))
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    struct Buf(Vec<u8>);

    impl Sink for Buf {
        fn put(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    /// Emails and uris longer than the decoding buffer are checked as the short ones
    /// are: the same verdicts for the same strings at any length, escapes included.
    #[test]
    fn long_emails_and_uris_are_checked_too() {
        fn check(format: &str, text: &str) -> bool {
            format_ok(
                Str::from_contents(format).unwrap(),
                Str::from_contents(text).unwrap(),
            )
        }
        let pad = "a".repeat(300);
        for (format, text, ok) in [
            ("email", format!("{pad}@example.com"), true),
            ("email", format!("{pad}\\u0040example.com"), true),
            ("email", format!("{pad}example.com"), false),
            ("email", format!("{pad} x@example.com"), false),
            ("email", format!("{pad}@"), false),
            ("email", format!("@{pad}"), false),
            ("email", format!("{pad}\\u2028@example.com"), false),
            ("uri", format!("https://example.com/{pad}"), true),
            ("uri", format!("h-t.t+p://example.com/{pad}"), true),
            ("uri", format!("1http://example.com/{pad}"), false),
            ("uri", format!("https://example.com/{pad} x"), false),
            ("uri", pad.clone(), false),
            ("uri", format!(":{pad}"), false),
        ] {
            assert_eq!(
                check(format, &text),
                ok,
                "{format} {}",
                &text[text.len().saturating_sub(40)..]
            );
            // The short form of the same case gets the same verdict.
            let short = text.replacen(&pad, "a", 1);
            assert_eq!(check(format, &short), ok, "{format} {short}");
        }
    }

    /// Floats around every binary exponent, and the special values.
    fn samples() -> Vec<f64> {
        let mut v = std::vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for biased in 0..2047u64 {
            for k in 0..8u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let fraction = match k {
                    0 => 0,
                    1 => 1,
                    2 => (1 << 52) - 1,
                    _ => x & ((1 << 52) - 1),
                };
                let f = f64::from_bits(biased << 52 | fraction);
                v.push(f);
                v.push(-f);
                v.push(f.trunc());
                v.push(-f.trunc());
            }
        }
        v
    }

    #[test]
    fn trunc_is_std_trunc() {
        for f in samples() {
            let (want, got) = (f.trunc(), libm_trunc(f));
            assert!(
                want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                "{f:e}: {got:e}"
            );
        }
    }

    /// pydantic's `float_as_int`: finite, integral, and `i64::MIN as f64 < f < i64::MAX
    /// as f64`.
    #[test]
    fn integral_in_i64_is_pydantics_float_as_int() {
        for f in samples() {
            let want =
                f.is_finite() && f == f.trunc() && (i64::MIN as f64) < f && f < (i64::MAX as f64);
            assert_eq!(integral_in_i64(f), want, "{f:e}");
        }
    }

    #[test]
    fn dates_and_date_times() {
        for (s, want) in [
            ("2026-07-28", true),
            ("2024-02-29", true),
            ("2026-02-29", false),
            ("2026-13-01", false),
            ("2026-00-01", false),
            ("2026-04-31", false),
            ("2026-04-30", true),
            ("2026-7-28", false),
            ("+026-07-28", false),
            ("2026-07-28 ", false),
        ] {
            assert_eq!(is_date(s.as_bytes()), want, "{s}");
        }
        for (s, want) in [
            ("2026-07-28T12:30:00Z", true),
            ("2026-07-28t12:30:00z", true),
            ("2026-07-28 12:30:00+02:00", true),
            ("2026-07-28T12:30:00.123Z", true),
            ("2026-07-28T12:30:00.Z", false),
            ("2026-07-28T24:00:00Z", false),
            ("2026-07-28T23:59:60Z", true),
            ("2024-02-29T00:00:00-23:59", true),
            ("2026-02-29T00:00:00Z", false),
            ("2026-07-28T12:30:00+24:00", false),
            ("2026-07-28T12:30:00", false),
            ("2026-07-28X12:30:00Z", false),
            ("2026-07-28T12:30:00+0200", false),
            ("2026-07-28\u{e9}12:30:00Z", false),
            ("2026-07-2\u{e9}T12:30:00Z", false),
            ("2026-07-28T12:30:00.5+01:00x", false),
            // A non-ASCII character inside the time: the str-slicing version panicked.
            ("2024-02-29 23:59:6\u{e9}0Z", false),
            ("2026-07-28T12:30:00+0\u{e9}:00", false),
        ] {
            assert_eq!(is_date_time(s.as_bytes()), want, "{s}");
        }
    }

    #[test]
    fn integral_f64_is_python_int() {
        for f in samples() {
            if !integral_in_i64(f) {
                continue;
            }
            let mut b = Buf(Vec::new());
            write_integral_f64(f, &mut b);
            let got = String::from_utf8(b.0).expect("ASCII");
            // std prints an integral f64 exactly, with no fraction: Python's int(f).
            let want = format!("{f:.0}");
            let want = if want == "-0" {
                String::from("0")
            } else {
                want
            };
            assert_eq!(got, want, "{f:e}");
        }
    }
}
