//! Writing: the [`Style`]s and the writers that render what CPython's `json.dumps`
//! renders (escaping, `dict` semantics for objects, integers; floats in `float`).

use core::cmp::Ordering;

use super::float::{decimal_digits, f64_finite, write_f64};
use super::read::{has_byte, has_control, key_eq, word_at, HIGHS};
use super::{Kind, Number, Sink, Str, Units, Value};

/// How to render, as the matching `json.dumps` arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// `ensure_ascii`
    pub ascii: bool,
    /// default separators `", "` / `": "` when true; compact `","` / `":"` when false
    pub spaced: bool,
    /// `sort_keys`
    pub sort_keys: bool,
    /// Non-finite floats (a literal like `1e400`) as `null`, as pydantic's JSON mode
    /// serializes them; otherwise `Infinity`/`-Infinity`/`NaN` like `json.dumps`.
    pub nonfinite_null: bool,
}

impl Style {
    /// `json.dumps(v, separators=(",", ":"))` — the request-state encoding.
    pub const STATE: Style = Style {
        ascii: true,
        spaced: false,
        sort_keys: false,
        nonfinite_null: true,
    };
    /// `json.dumps(v, separators=(",", ":"), sort_keys=True)` — the digest input.
    pub const DIGEST: Style = Style {
        ascii: true,
        spaced: false,
        sort_keys: true,
        nonfinite_null: true,
    };
    /// Compact UTF-8 (non-ASCII kept) — wire output.
    pub const WIRE: Style = Style {
        ascii: false,
        spaced: false,
        sort_keys: false,
        nonfinite_null: true,
    };
    /// `json.dumps(v, ensure_ascii=False)` — the oracle's `--compact` output. A test helper
    /// (the `test-helpers` feature), not API.
    #[cfg(any(test, feature = "test-helpers"))]
    pub const PY_UTF8: Style = Style {
        ascii: false,
        spaced: true,
        sort_keys: false,
        nonfinite_null: false,
    };

    fn item_sep(self) -> &'static [u8] {
        if self.spaced {
            b", "
        } else {
            b","
        }
    }
    fn key_sep(self) -> &'static [u8] {
        if self.spaced {
            b": "
        } else {
            b":"
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing.

const HEX: &[u8; 16] = b"0123456789abcdef";

fn put_u_escape(cp: u32, sink: &mut dyn Sink) {
    let nib = |shift: u32| {
        HEX.get(((cp >> shift) & 0xF) as usize)
            .copied()
            .unwrap_or(b'0')
    };
    sink.put(&[b'\\', b'u', nib(12), nib(8), nib(4), nib(0)]);
}

/// One code point, escaped as `json.dumps` escapes it. Lone surrogates are always written
/// as `\udxxx` (they have no UTF-8 form).
/// The two-character escapes: a character and the letter after its backslash.
pub(super) const SHORT_ESCAPES: [(u8, u8); 7] = [
    (b'"', b'"'),
    (b'\\', b'\\'),
    (b'\n', b'n'),
    (b'\r', b'r'),
    (b'\t', b't'),
    (0x08, b'b'),
    (0x0C, b'f'),
];

fn put_cp(cp: u32, ascii: bool, sink: &mut dyn Sink) {
    // A table rather than one `put` per escape in the match (smaller, same bytes).
    if let Some(&(_, letter)) = SHORT_ESCAPES.iter().find(|&&(c, _)| u32::from(c) == cp) {
        sink.put(&[b'\\', letter]);
        return;
    }
    match cp {
        0x00..=0x1F => put_u_escape(cp, sink),
        // Printable ASCII (the cast is lossless in this arm).
        0x20..=0x7E => sink.put(&[cp as u8]),
        0xD800..=0xDFFF => put_u_escape(cp, sink),
        _ if ascii => {
            if cp >= 0x10000 {
                let v = cp - 0x10000;
                put_u_escape(0xD800 + (v >> 10), sink);
                put_u_escape(0xDC00 + (v & 0x3FF), sink);
            } else {
                put_u_escape(cp, sink);
            }
        }
        _ => match char::from_u32(cp) {
            Some(c) => sink.put(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
            None => put_u_escape(cp, sink),
        },
    }
}

/// Escape a Rust string's contents (no quotes), passing unescaped runs through whole
/// (for a writer that puts the quotes with the text around them: a sink's cost is per
/// call).
pub(crate) fn put_plain(s: &str, ascii: bool, sink: &mut dyn Sink) {
    // A short text with nothing to escape (a parameter's name, mostly) is checked byte by
    // byte here and put whole: the general writer's setup, word scan and run bookkeeping
    // cost ~100 instructions on a two-letter name (chain-8 final −1.3 % natively; PERF.md).
    // Here rather than at the top of `put_plain_to` (which would serve escaped contents
    // too): there it measured more instructions on every case but chain-8 first (+192 on
    // chain-8 final, +3,328 on indep-64 first).
    let b = s.as_bytes();
    if b.len() <= 16 && b.iter().all(|&c| verbatim_byte(c, ascii)) {
        sink.put(b);
    } else {
        put_plain_to(s, ascii, false, sink);
    }
}

/// [`put_plain`], stopping at the first backslash when `at_escape` (JSON string
/// contents: the escape is decoded by the caller): the index where it stopped
/// (`s.len()` at the end).
fn put_plain_to(s: &str, ascii: bool, at_escape: bool, sink: &mut dyn Sink) -> usize {
    let b = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    loop {
        i = skip_verbatim_words(b, i, ascii);
        let Some(&c) = b.get(i) else { break };
        if verbatim_byte(c, ascii) {
            i += 1;
            continue;
        }
        if run < i {
            // `run < i < b.len()`: the check folds away.
            if let Some(chunk) = b.get(run..i) {
                sink.put(chunk);
            }
        }
        if at_escape && c == b'\\' {
            return i;
        }
        if c < 0x80 {
            put_cp(u32::from(c), ascii, sink);
            i += 1;
        } else {
            // ASCII mode at a UTF-8 lead byte (a char boundary).
            match s.get(i..).and_then(|t| t.chars().next()) {
                Some(ch) => {
                    put_cp(u32::from(ch), ascii, sink);
                    i += ch.len_utf8();
                }
                None => i += 1,
            }
        }
        run = i;
    }
    if run < b.len() {
        if let Some(tail) = b.get(run..) {
            sink.put(tail);
        }
    }
    b.len()
}

/// Write `v` as `json.dumps(json.loads(v.raw()), ...)` would in `style`.
pub fn write_value(v: Value<'_>, style: Style, sink: &mut dyn Sink) {
    // Recursion depth is bounded by MAX_DEPTH: a Value is always validated text.
    match v.kind() {
        Kind::Object => write_object(v, style, sink),
        Kind::Array => {
            sink.put(b"[");
            for (i, item) in v.items().enumerate() {
                if i > 0 {
                    sink.put(style.item_sep());
                }
                write_value(item, style, sink);
            }
            sink.put(b"]");
        }
        Kind::String => {
            // Contents that render as they are (no escape to re-render; in ASCII style
            // nothing past `~`) go out whole, quotes included.
            let raw = v.0.as_bytes();
            match raw.get(1..raw.len().saturating_sub(1)) {
                Some(inner) if renders_as_is(inner, style.ascii) => sink.put(raw),
                _ => match v.as_str() {
                    Some(s) => write_json_str(s, style.ascii, sink),
                    None => sink.put(b"\"\""),
                },
            }
        }
        Kind::Number => match v.as_number() {
            // Python's int("-0") is 0; no other integer literal changes (no leading zeros).
            Some(Number::Int("-0")) => sink.put(b"0"),
            Some(Number::Int(s)) => sink.put(s.as_bytes()),
            Some(Number::Float(f)) if style.nonfinite_null && !f64_finite(f) => sink.put(b"null"),
            Some(Number::Float(f)) => write_f64(f, sink),
            None => sink.put(v.0.as_bytes()),
        },
        Kind::Null | Kind::Bool => sink.put(v.0.as_bytes()),
    }
}

/// Whether a text is JSON string contents as it is (no quote, backslash or control
/// character, so it needs no escape to be one, and its contents decode to itself): `None`
/// when it is not, `Some(true)` when it also renders as it is in ASCII style (no byte past
/// `~`), so that a writer puts it whole without looking at it again.
pub(crate) fn json_contents_ascii(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let i = skip_verbatim_words(b, 0, true);
    let mut ascii = true;
    for &c in b.get(i..).unwrap_or_default() {
        if !verbatim_byte(c, false) {
            return None;
        }
        ascii &= c < 0x7F;
    }
    Some(ascii)
}

/// Whether `b` renders as it is in a JSON string in ASCII style (no quote, backslash or
/// control character, nothing past `~`): [`json_contents_ascii`]`(b) == Some(true)`, for
/// short texts: whole words, the last one overlapping the one before it (its bytes
/// already looked at were clean), so no byte loop unless `b` is under eight bytes.
pub(crate) fn verbatim_ascii(b: &[u8]) -> bool {
    let Some(last) = b.len().checked_sub(8).and_then(|at| word_at(b, at)) else {
        return b.iter().all(|&c| verbatim_byte(c, true));
    };
    let mut pos = 0;
    while pos + 8 < b.len() {
        if word_at(b, pos).is_none_or(|w| verbatim_flags(w, true) != 0) {
            return false;
        }
        pos += 8;
    }
    verbatim_flags(last, true) == 0
}

/// Whether a writer puts byte `c` as it is (not a quote, a backslash or a control
/// character, and with `ascii` not past `~`).
#[inline(always)]
fn verbatim_byte(c: u8, ascii: bool) -> bool {
    c >= 0x20 && c != b'"' && c != b'\\' && (!ascii || c < 0x7F)
}

/// [`verbatim_byte`] for the eight bytes of `w` at once: zero when every byte is put as
/// it is; otherwise the lowest flagged byte is a true match (a borrow only runs upwards).
#[inline(always)]
fn verbatim_flags(w: u64, ascii: bool) -> u64 {
    let hit = has_byte(w, b'"') | has_byte(w, b'\\') | has_control(w);
    if ascii {
        hit | (w & HIGHS) | has_byte(w, 0x7F)
    } else {
        hit
    }
}

/// Whether validated JSON string contents render unchanged: no escape (a JSON string
/// holds no raw quote or control character), and with `ascii` no byte past `~`. Its last
/// bytes are tested for only what validated contents can hold, not by [`verbatim_byte`]
/// (which would test them for quotes and control characters too: +2,190 instructions
/// on indep-64 final, +240 on chain-8 final).
fn renders_as_is(b: &[u8], ascii: bool) -> bool {
    let i = skip_verbatim_words(b, 0, ascii);
    b.get(i..)
        .unwrap_or_default()
        .iter()
        .all(|&c| c != b'\\' && (!ascii || c < 0x7F))
}

/// Index of the first byte at or after `pos` that a writer must escape (a quote, a
/// backslash, a control character, and with `ascii` a byte past `~`), eight bytes at a
/// time; under eight bytes from the end it returns where it stopped and the caller goes
/// on byte by byte.
fn skip_verbatim_words(b: &[u8], mut pos: usize, ascii: bool) -> usize {
    while let Some(w) = word_at(b, pos) {
        let hit = verbatim_flags(w, ascii);
        if hit != 0 {
            // The lowest flagged byte is a true match (a borrow only runs upwards).
            return pos + (hit.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    pos
}

fn write_member(
    first: &mut bool,
    key: Str<'_>,
    value: Value<'_>,
    style: Style,
    sink: &mut dyn Sink,
) {
    if !*first {
        sink.put(style.item_sep());
    }
    *first = false;
    write_json_str(key, style.ascii, sink);
    sink.put(style.key_sep());
    write_value(value, style, sink);
}

/// An object with `dict` semantics: each distinct key once, at its first position (or in
/// code point order with `sort_keys`), carrying the value of its last occurrence.
fn write_object(v: Value<'_>, style: Style, sink: &mut dyn Sink) {
    sink.put(b"{");
    let mut first = true;
    if style.sort_keys {
        // Selection by repeated scans: the smallest key greater than the last written.
        let mut prev: Option<Str<'_>> = None;
        loop {
            let mut best: Option<(Str<'_>, Value<'_>)> = None;
            for (k, val) in v.members() {
                if prev.is_some_and(|p| k.cmp_decoded(p) != Ordering::Greater) {
                    continue;
                }
                match best {
                    // A later equal key replaces the value (last occurrence wins).
                    Some((bk, _)) if k.cmp_decoded(bk) == Ordering::Greater => {}
                    _ => best = Some((k, val)),
                }
            }
            let Some((k, val)) = best else { break };
            write_member(&mut first, k, val, style, sink);
            prev = Some(k);
        }
    } else {
        let mut it = v.members();
        let mut index = 0usize;
        while let Some((k, val)) = it.next() {
            let seen = v.members().take(index).any(|(k2, _)| key_eq(k, k2));
            index += 1;
            if seen {
                continue;
            }
            let last = it
                .clone()
                .filter(|&(k2, _)| key_eq(k, k2))
                .last()
                .map_or(val, |(_, v2)| v2);
            write_member(&mut first, k, last, style, sink);
        }
    }
    sink.put(b"}");
}

/// Write a Rust string as a quoted JSON string, escaped the way `json.dumps` escapes.
#[inline]
pub fn write_str(s: &str, ascii: bool, sink: &mut dyn Sink) {
    sink.put(b"\"");
    put_plain(s, ascii, sink);
    sink.put(b"\"");
}

/// [`write_str`] without the quotes: a Rust string's contents escaped the way `json.dumps`
/// escapes them, for a writer that puts the quotes with the text around them.
pub fn write_str_contents(s: &str, ascii: bool, sink: &mut dyn Sink) {
    put_plain(s, ascii, sink);
}

/// Write a JSON string's decoded contents re-escaped the way `json.dumps` escapes.
///
/// A lone surrogate is written as its `\udxxx` escape even when `ascii` is false (it has
/// no UTF-8 encoding; Python would fail to encode the result).
pub fn write_json_str(s: Str<'_>, ascii: bool, sink: &mut dyn Sink) {
    sink.put(b"\"");
    put_json_str_contents(s, ascii, sink);
    sink.put(b"\"");
}

/// [`write_json_str`] without the quotes, for a writer that puts them with the text
/// around them (one `put` fewer each side: a sink's cost is per call).
pub(crate) fn put_json_str_contents(s: Str<'_>, ascii: bool, sink: &mut dyn Sink) {
    let mut rest = s.0;
    loop {
        // Verbatim runs until an escape, which is decoded and written again.
        let i = put_plain_to(rest, ascii, true, sink);
        let mut units = Units {
            rest: rest.get(i..).unwrap_or(""),
        };
        match units.next() {
            Some(cp) => put_cp(cp, ascii, sink),
            None => break,
        }
        rest = units.rest;
    }
}

/// Write an integer in decimal.
pub fn write_i64(i: i64, sink: &mut dyn Sink) {
    // 19 digits and a sign at most (|i64::MIN| = 9223372036854775808), filled from the end.
    let mut buf = [0u8; 20];
    let mut len = decimal_digits(i.unsigned_abs(), &mut buf);
    if i < 0 {
        if let Some(slot) = buf.iter_mut().rev().nth(len) {
            *slot = b'-';
            len += 1;
        }
    }
    sink.put(buf.get(buf.len() - len..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::String;
    use std::vec::Vec;

    struct Buf(Vec<u8>);

    impl Sink for Buf {
        fn put(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    /// The escaper (its short fast path and the word-at-a-time writer) writes exactly
    /// what escaping each char does.
    #[test]
    fn put_plain_matches_char_by_char_escaping() {
        let alphabet = [
            'a', 'Z', ' ', '~', '"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '€', '😀',
        ];
        let mut seed = 0x2545_f491_u32;
        for len in 0..48 {
            for _ in 0..40 {
                let text: String = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 17;
                        seed ^= seed << 5;
                        // Mostly plain letters, so whole plain words occur too.
                        let k = seed as usize % (alphabet.len() * 3);
                        alphabet.get(k).copied().unwrap_or('q')
                    })
                    .collect();
                for ascii in [false, true] {
                    let mut got = Buf(Vec::new());
                    put_plain(&text, ascii, &mut got);
                    let mut want = Buf(Vec::new());
                    for c in text.chars() {
                        put_cp(u32::from(c), ascii, &mut want);
                    }
                    assert_eq!(got.0, want.0, "{text:?} ascii={ascii}");
                }
            }
        }
    }

    /// `verbatim_ascii` is `json_contents_ascii(..) == Some(true)` for every byte at
    /// every place of every length up to three words.
    #[test]
    fn verbatim_ascii_is_json_contents_ascii() {
        for n in 0..25usize {
            for at in 0..n.max(1) {
                // Every byte natively; under miri the edges of each class.
                let bytes = (0..=255u8).filter(|c| {
                    !cfg!(miri) || [0, 0x1F, 0x20, b'"', b'\\', 0x7E, 0x7F, 0x80, 0xFF].contains(c)
                });
                for c in bytes {
                    let mut b: std::vec::Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
                    if let Some(x) = b.get_mut(at) {
                        *x = c;
                    }
                    let want = match core::str::from_utf8(&b) {
                        Ok(s) => super::json_contents_ascii(s) == Some(true),
                        Err(_) => false,
                    };
                    assert_eq!(super::verbatim_ascii(&b), want, "{n} {at} {c:#x}");
                }
            }
        }
    }
}
