//! Borrowed JSON reading and Python-compatible JSON writing, with no heap.
//!
//! Reading: [`Value::parse`] validates a whole document once; a [`Value`] is then a
//! validated slice of the caller's text that is navigated by re-scanning (no tree is
//! built, nothing is allocated).
//!
//! Writing: every writer renders exactly the bytes CPython's `json.dumps` would produce
//! for the value `json.loads` makes of the input (Python float repr, ASCII escapes with
//! lowercase hex and surrogate pairs, duplicate keys resolved the way a `dict` resolves
//! them), in one of a few [`Style`]s, into any [`Sink`].

use core::cmp::Ordering;

/// Deepest nesting [`Value::parse`] accepts (arrays and objects).
pub const MAX_DEPTH: usize = 64;

/// Why a document is not JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset of the first offending byte.
    pub offset: usize,
    /// What is wrong there.
    pub kind: JsonErrorKind,
}

/// The kinds of [`JsonError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// Not valid JSON (RFC 8259) at this offset.
    Syntax,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// The JSON kind of a [`Value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool,
    /// a number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

/// A validated JSON value: a slice of the caller's text with no surrounding whitespace.
#[derive(Debug, Clone, Copy)]
pub struct Value<'a>(&'a str);

/// A JSON string's contents between the quotes, escapes still in place.
#[derive(Debug, Clone, Copy)]
pub struct Str<'a>(&'a str);

/// A JSON number, classified the way Python's `json.loads` classifies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number<'a> {
    /// An integer literal (no fraction, no exponent), verbatim (may exceed 64 bits).
    Int(&'a str),
    /// Anything with a fraction or exponent, as the nearest `f64` (may be infinite).
    Float(f64),
}

/// Iterator over an object's members in document order (duplicates included).
#[derive(Debug, Clone)]
pub struct Members<'a> {
    rest: &'a str,
}

/// Iterator over an array's items in document order.
#[derive(Debug, Clone)]
pub struct Items<'a> {
    rest: &'a str,
}

/// Iterator over a [`Str`]'s code points, escapes decoded. A valid surrogate pair is one
/// code point; a lone surrogate escape is yielded as its own value (0xD800..=0xDFFF).
#[derive(Debug, Clone)]
pub struct Units<'a> {
    rest: &'a str,
}

impl<'a> Value<'a> {
    /// Validate `text` as one JSON document (surrounding whitespace allowed).
    pub fn parse(text: &'a str) -> Result<Value<'a>, JsonError> {
        let _ = text;
        todo!()
    }
    /// The value's exact text.
    pub fn raw(self) -> &'a str {
        self.0
    }
    /// The JSON kind.
    pub fn kind(self) -> Kind {
        todo!()
    }
    /// True for `null`.
    pub fn is_null(self) -> bool {
        todo!()
    }
    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(self) -> Option<bool> {
        todo!()
    }
    /// The string, if this is a string.
    pub fn as_str(self) -> Option<Str<'a>> {
        todo!()
    }
    /// The number, if this is a number.
    pub fn as_number(self) -> Option<Number<'a>> {
        todo!()
    }
    /// The members, if an object (an empty iterator otherwise).
    pub fn members(self) -> Members<'a> {
        todo!()
    }
    /// The items, if an array (an empty iterator otherwise).
    pub fn items(self) -> Items<'a> {
        todo!()
    }
    /// The member named `key` (the last one when a key repeats, as a Python dict keeps).
    pub fn get(self, key: &str) -> Option<Value<'a>> {
        let _ = key;
        todo!()
    }
    /// Number of members of an object or items of an array (0 for scalars), counting
    /// distinct keys only for objects.
    pub fn len(self) -> usize {
        todo!()
    }
    /// True when [`Value::len`] is 0.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl<'a> Str<'a> {
    /// The raw contents (escapes intact, no quotes).
    pub fn raw(self) -> &'a str {
        self.0
    }
    /// The decoded code points.
    pub fn units(self) -> Units<'a> {
        todo!()
    }
    /// True when the decoded string equals `s`.
    pub fn eq_str(self, s: &str) -> bool {
        let _ = s;
        todo!()
    }
    /// The contents as `&str` when they contain no escape.
    pub fn as_plain(self) -> Option<&'a str> {
        todo!()
    }
    /// Number of code points (Python's `len()`).
    pub fn char_len(self) -> usize {
        todo!()
    }
    /// Compare decoded contents by code point (Python's `str` ordering).
    pub fn cmp_decoded(self, other: Str<'_>) -> Ordering {
        let _ = other;
        todo!()
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (Str<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let _ = self.rest;
        todo!()
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let _ = self.rest;
        todo!()
    }
}

impl Iterator for Units<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let _ = self.rest;
        todo!()
    }
}

/// Where writers put bytes. Writing never fails; a bounded sink records overflow itself.
pub trait Sink {
    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

/// A sink over a caller buffer that keeps counting past its end, so a too-small buffer
/// can report the size it needed.
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceSink<'b> {
    /// A sink writing into `buf` from its start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }
    /// Bytes written (or that would have been written) so far.
    pub fn needed(&self) -> usize {
        self.len
    }
    /// `Ok(len)` when everything fit, else `Err(needed)`.
    pub fn finish(&self) -> Result<usize, usize> {
        if self.len <= self.buf.len() {
            Ok(self.len)
        } else {
            Err(self.len)
        }
    }
    /// The bytes written so far (only the part that fit).
    pub fn written(&self) -> &[u8] {
        &self.buf[..self.len.min(self.buf.len())]
    }
}

impl Sink for SliceSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let start = self.len;
        self.len += bytes.len();
        if let Some(dst) = self.buf.get_mut(start..start + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    }
}

/// A sink that only counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountSink(pub usize);

impl Sink for CountSink {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

impl Sink for sha2::Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        sha2::Digest::update(self, bytes);
    }
}

#[cfg(feature = "alloc")]
impl Sink for alloc::vec::Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// How to render, as the matching `json.dumps` arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// `ensure_ascii`
    pub ascii: bool,
    /// default separators `", "` / `": "` when true; compact `","` / `":"` when false
    pub spaced: bool,
    /// `sort_keys`
    pub sort_keys: bool,
}

impl Style {
    /// `json.dumps(v, separators=(",", ":"))` — the request-state encoding.
    pub const STATE: Style = Style { ascii: true, spaced: false, sort_keys: false };
    /// `json.dumps(v, separators=(",", ":"), sort_keys=True)` — the digest input.
    pub const DIGEST: Style = Style { ascii: true, spaced: false, sort_keys: true };
    /// Compact UTF-8 (non-ASCII kept) — wire output.
    pub const WIRE: Style = Style { ascii: false, spaced: false, sort_keys: false };
    /// `json.dumps(v, ensure_ascii=False)` — the oracle's `--compact` output.
    pub const PY_UTF8: Style = Style { ascii: false, spaced: true, sort_keys: false };
}

/// Write `v` as `json.dumps(json.loads(v.raw()), ...)` would in `style`.
pub fn write_value<S: Sink + ?Sized>(v: Value<'_>, style: Style, sink: &mut S) {
    let _ = (v, style, sink);
    todo!()
}

/// Write a Rust string as a quoted JSON string, escaped the way `json.dumps` escapes.
pub fn write_str<S: Sink + ?Sized>(s: &str, ascii: bool, sink: &mut S) {
    let _ = (s, ascii, sink);
    todo!()
}

/// Write a JSON string's decoded contents re-escaped the way `json.dumps` escapes.
pub fn write_json_str<S: Sink + ?Sized>(s: Str<'_>, ascii: bool, sink: &mut S) {
    let _ = (s, ascii, sink);
    todo!()
}

/// Write `f` as Python's `json.dumps(f)` (`repr`; `Infinity`, `-Infinity`, `NaN`).
pub fn write_f64<S: Sink + ?Sized>(f: f64, sink: &mut S) {
    let _ = (f, sink);
    todo!()
}

/// Write an integer in decimal.
pub fn write_i64<S: Sink + ?Sized>(i: i64, sink: &mut S) {
    let _ = (i, sink);
    todo!()
}
