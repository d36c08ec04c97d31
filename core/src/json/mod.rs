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
//!
//! One deliberate divergence: a lone surrogate (from an escape such as `"\ud800"`, which
//! `json.loads` accepts) cannot be encoded as UTF-8, so with `ascii: false` it is written
//! as its `\udxxx` escape (Python would produce a `str` that fails to encode).
//!
//! Accepted but not quite Python: integer literals are copied verbatim at any length
//! (CPython 3.11+ refuses to convert ones over 4300 digits by default); `NaN`/`Infinity`
//! literals, which `json.loads` accepts, are rejected as RFC 8259 requires; nesting is
//! limited to [`MAX_DEPTH`].
//!
//! The module by job: `read` validates and navigates text, `write` renders it (and holds
//! [`Style`]), `sink` is where output goes ([`Sink`], [`SliceSink`], [`CountSink`]), and
//! `float` converts numbers (core's parser and ryu, or with the `small-float` feature the
//! table-free conversions).

mod float;
mod read;
mod sink;
mod write;

#[cfg(feature = "test-helpers")]
pub use float::compact as compact_float;
pub use float::write_f64;
pub(crate) use float::{f64_eq, f64_finite, f64_lt, parse_f64};
pub(crate) use read::{scan_value, scan_value_in, scan_value_object, skip_ws_at, walk_object};
pub(crate) use sink::copy_bytes;
pub use sink::{CountSink, Sink, SliceSink};
pub(crate) use write::{json_contents_ascii, put_json_str_contents, put_plain, verbatim_ascii};
pub use write::{write_i64, write_json_str, write_str, write_str_contents, write_value, Style};

/// Deepest nesting [`Value::parse`] accepts (arrays and objects).
pub const MAX_DEPTH: usize = 64;
const _: () = assert!(
    MAX_DEPTH <= 64,
    "scan_value keeps one bit per open container"
);

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
    /// The object's text (validated), read from `pos` on.
    text: &'a str,
    pos: usize,
}

/// Iterator over an array's items in document order.
#[derive(Debug, Clone)]
pub struct Items<'a> {
    /// The array's text (validated), read from `pos` on.
    text: &'a str,
    pos: usize,
}

/// Iterator over a [`Str`]'s code points, escapes decoded. A valid surrogate pair is one
/// code point; a lone surrogate escape is yielded as its own value (0xD800..=0xDFFF).
#[derive(Debug, Clone)]
pub struct Units<'a> {
    rest: &'a str,
}

#[cfg(test)]
mod tests;
