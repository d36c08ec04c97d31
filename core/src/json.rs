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

use core::cmp::Ordering;

#[doc(hidden)]
pub mod compact_float;

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

/// The `f64` nearest to a JSON number's text (ties to even; ±inf past the largest finite
/// value, as Python's `float()` gives it). With `small-float`, [`compact_float::parse`];
/// otherwise `core`'s (faster, table-driven) parser.
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    #[cfg(feature = "small-float")]
    return compact_float::parse(text);
    #[cfg(not(feature = "small-float"))]
    return text.parse().ok();
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

// ---------------------------------------------------------------------------------------
// Validation (iterative, explicit bounded stack: never recurses, never panics).

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        if !is_ws(c) {
            break;
        }
        pos += 1;
    }
    pos
}

fn syntax(offset: usize) -> JsonError {
    JsonError {
        offset,
        kind: JsonErrorKind::Syntax,
    }
}

fn skip_digits(b: &[u8], mut pos: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(pos) {
        pos += 1;
    }
    pos
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The 8 bytes at `pos` as a little-endian word, when there are 8.
fn word_at(b: &[u8], pos: usize) -> Option<u64> {
    let chunk: [u8; 8] = b.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// Non-zero when some byte of `w` equals `c` (SWAR; no false negatives, and a word
/// with no such byte gives exactly 0).
fn has_byte(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * u64::from(c));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Non-zero when some byte of `w` is below 0x20 (exact for a zero result).
fn has_control(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

/// Index of the first byte at or after `pos` that is interesting inside a string (a
/// quote, a backslash, or with `controls` a control character), looking 8 bytes at a
/// time; near the end of `b` (under 8 bytes left) it returns where it stopped and the
/// caller goes on byte by byte.
fn skip_plain_words(b: &[u8], mut pos: usize, controls: bool) -> usize {
    while let Some(w) = word_at(b, pos) {
        let hit =
            has_byte(w, b'"') | has_byte(w, b'\\') | if controls { has_control(w) } else { 0 };
        if hit != 0 {
            // The lowest flagged byte is a true match (a borrow only runs upwards).
            return pos + (hit.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    pos
}

/// Validate the string whose opening quote is at `pos`; the index after its closing quote.
fn scan_string(b: &[u8], pos: usize) -> Result<usize, JsonError> {
    let mut pos = pos + 1;
    loop {
        pos = skip_plain_words(b, pos, true);
        let Some(&c) = b.get(pos) else {
            return Err(syntax(pos));
        };
        match c {
            b'"' => return Ok(pos + 1),
            b'\\' => match b.get(pos + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => pos += 2,
                Some(b'u') => {
                    for i in pos + 2..pos + 6 {
                        if !b.get(i).is_some_and(u8::is_ascii_hexdigit) {
                            return Err(syntax(i));
                        }
                    }
                    pos += 6;
                }
                _ => return Err(syntax(pos + 1)),
            },
            0..=0x1f => return Err(syntax(pos)),
            _ => pos += 1,
        }
    }
}

/// Validate the number starting at `pos`; the index after it.
fn scan_number(b: &[u8], mut pos: usize) -> Result<usize, JsonError> {
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => pos = skip_digits(b, pos + 1),
        _ => return Err(syntax(pos)),
    }
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        if !matches!(b.get(pos), Some(b'0'..=b'9')) {
            return Err(syntax(pos));
        }
        pos = skip_digits(b, pos);
    }
    if matches!(b.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(b.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        if !matches!(b.get(pos), Some(b'0'..=b'9')) {
            return Err(syntax(pos));
        }
        pos = skip_digits(b, pos);
    }
    Ok(pos)
}

fn scan_literal(b: &[u8], pos: usize, lit: &[u8]) -> Result<usize, JsonError> {
    for (i, &want) in lit.iter().enumerate() {
        if b.get(pos + i) != Some(&want) {
            return Err(syntax(pos + i));
        }
    }
    Ok(pos + lit.len())
}

/// Validate `"key" ws : ws` at `pos`; the index of the member's value.
fn scan_key(b: &[u8], pos: usize) -> Result<usize, JsonError> {
    if b.get(pos) != Some(&b'"') {
        return Err(syntax(pos));
    }
    let pos = skip_ws(b, scan_string(b, pos)?);
    if b.get(pos) != Some(&b':') {
        return Err(syntax(pos));
    }
    Ok(skip_ws(b, pos + 1))
}

fn validate(b: &[u8], start: usize) -> Result<(), JsonError> {
    let end = scan_value(b, start, 0)?;
    let pos = skip_ws(b, end);
    if pos != b.len() {
        return Err(syntax(pos));
    }
    Ok(())
}

/// Validate the one value that starts at `start` (no leading whitespace) inside `open`
/// containers already open around it (they count towards [`MAX_DEPTH`]); the index just
/// after it.
pub(crate) fn scan_value(b: &[u8], start: usize, open: usize) -> Result<usize, JsonError> {
    // A scalar needs no container stack.
    match b.get(start) {
        Some(b'"') => return scan_string(b, start),
        Some(b't') => return scan_literal(b, start, b"true"),
        Some(b'f') => return scan_literal(b, start, b"false"),
        Some(b'n') => return scan_literal(b, start, b"null"),
        Some(b'-' | b'0'..=b'9') => return scan_number(b, start),
        _ => {}
    }
    // Bit i is set when container i (from the outside) is an object, clear for an array.
    let mut objects: u64 = 0;
    let mut depth = 0usize;
    let mut pos = start;
    'value: loop {
        // `pos` is at the first byte of a value.
        match b.get(pos) {
            Some(&open_byte @ (b'{' | b'[')) => {
                if depth + open >= MAX_DEPTH {
                    return Err(JsonError {
                        offset: pos,
                        kind: JsonErrorKind::TooDeep,
                    });
                }
                let obj = open_byte == b'{';
                if obj {
                    objects |= 1 << depth;
                } else {
                    objects &= !(1 << depth);
                }
                depth += 1;
                pos = skip_ws(b, pos + 1);
                let close = if obj { b'}' } else { b']' };
                if b.get(pos) == Some(&close) {
                    depth -= 1;
                    pos += 1;
                } else if obj {
                    pos = scan_key(b, pos)?;
                    continue 'value;
                } else {
                    continue 'value;
                }
            }
            Some(b'"') => pos = scan_string(b, pos)?,
            Some(b't') => pos = scan_literal(b, pos, b"true")?,
            Some(b'f') => pos = scan_literal(b, pos, b"false")?,
            Some(b'n') => pos = scan_literal(b, pos, b"null")?,
            Some(b'-' | b'0'..=b'9') => pos = scan_number(b, pos)?,
            _ => return Err(syntax(pos)),
        }
        // A value just ended: close containers / move to the next member or item.
        loop {
            if depth == 0 {
                return Ok(pos);
            }
            pos = skip_ws(b, pos);
            let obj = objects & (1 << (depth - 1)) != 0;
            match b.get(pos) {
                Some(b',') => {
                    pos = skip_ws(b, pos + 1);
                    if obj {
                        pos = scan_key(b, pos)?;
                    }
                    continue 'value;
                }
                Some(b'}') if obj => {
                    depth -= 1;
                    pos += 1;
                }
                Some(b']') if !obj => {
                    depth -= 1;
                    pos += 1;
                }
                _ => return Err(syntax(pos)),
            }
        }
    }
}

/// Validate the object whose `{` is at `start` in `text` (inside `open` containers) while
/// visiting its members in document order: `member(key, at)` is called with each member's
/// value starting at `at` and must validate that value and return the index just after it
/// (with [`scan_value`] at `open + 1`, or a nested `walk_object`). One pass over the text
/// instead of validating it first and walking it again. Returns the index after the `}`.
pub(crate) fn walk_object<'a>(
    text: &'a str,
    start: usize,
    open: usize,
    member: &mut dyn FnMut(Str<'a>, usize) -> Result<usize, JsonError>,
) -> Result<usize, JsonError> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'{') {
        return Err(syntax(start));
    }
    if open >= MAX_DEPTH {
        return Err(JsonError {
            offset: start,
            kind: JsonErrorKind::TooDeep,
        });
    }
    let mut pos = skip_ws(b, start + 1);
    if b.get(pos) == Some(&b'}') {
        return Ok(pos + 1);
    }
    loop {
        if b.get(pos) != Some(&b'"') {
            return Err(syntax(pos));
        }
        let kend = scan_string(b, pos)?;
        let key = text.get(pos + 1..kend - 1).ok_or(syntax(pos))?;
        pos = skip_ws(b, kend);
        if b.get(pos) != Some(&b':') {
            return Err(syntax(pos));
        }
        pos = skip_ws(b, pos + 1);
        pos = skip_ws(b, member(Str(key), pos)?);
        match b.get(pos) {
            Some(b',') => pos = skip_ws(b, pos + 1),
            Some(b'}') => return Ok(pos + 1),
            _ => return Err(syntax(pos)),
        }
    }
}

/// [`scan_value`] over `text`: the value and the index just after it.
pub(crate) fn scan_value_in(
    text: &str,
    start: usize,
    open: usize,
) -> Result<(Value<'_>, usize), JsonError> {
    let end = scan_value(text.as_bytes(), start, open)?;
    let value = text.get(start..end).ok_or(syntax(start))?;
    Ok((Value(value), end))
}

/// Skip whitespace from `pos` (for callers of [`walk_object`] and [`scan_value`]).
pub(crate) fn skip_ws_at(b: &[u8], pos: usize) -> usize {
    skip_ws(b, pos)
}

// ---------------------------------------------------------------------------------------
// Scanning validated text.

/// End (exclusive) of the string whose opening quote is at `pos` (validated text).
fn string_end(b: &[u8], pos: usize) -> usize {
    let mut pos = pos + 1;
    loop {
        pos = skip_plain_words(b, pos, false);
        let Some(&c) = b.get(pos) else { break };
        match c {
            b'"' => return pos + 1,
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
    b.len()
}

/// End (exclusive) of the value starting at `pos` (validated text).
fn value_end(b: &[u8], pos: usize) -> usize {
    match b.get(pos) {
        Some(b'"') => string_end(b, pos),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut p = pos;
            while let Some(&c) = b.get(p) {
                match c {
                    b'"' => {
                        p = string_end(b, p);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return p + 1;
                        }
                    }
                    _ => {}
                }
                p += 1;
            }
            b.len()
        }
        _ => {
            let mut p = pos;
            while let Some(&c) = b.get(p) {
                if is_ws(c) || matches!(c, b',' | b']' | b'}' | b':') {
                    break;
                }
                p += 1;
            }
            p
        }
    }
}

/// Decoded-key equality (the test a `dict` applies), with raw fast paths.
fn key_eq(a: Str<'_>, b: Str<'_>) -> bool {
    if a.0 == b.0 {
        return true;
    }
    if !has_escape(a.0) && !has_escape(b.0) {
        return false;
    }
    a.units().eq(b.units())
}

/// Whether JSON string contents hold an escape (a byte search: `str::contains` with a
/// `char` links core's substring searcher).
fn has_escape(s: &str) -> bool {
    s.as_bytes().contains(&b'\\')
}

fn hex4(b: &[u8]) -> Option<u32> {
    if b.len() != 4 {
        return None;
    }
    let mut v = 0u32;
    for &c in b {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u32::from(d);
    }
    Some(v)
}

impl<'a> Value<'a> {
    /// Validate `text` as one JSON document (surrounding whitespace allowed).
    pub fn parse(text: &'a str) -> Result<Value<'a>, JsonError> {
        let b = text.as_bytes();
        let start = skip_ws(b, 0);
        validate(b, start)?;
        let mut end = b.len();
        while end > start && is_ws(b[end - 1]) {
            end -= 1;
        }
        Ok(Value(text.get(start..end).unwrap_or("")))
    }
    /// A value from text already validated as one JSON value (no surrounding
    /// whitespace): a byte-for-byte copy of a parsed value's [`Value::raw`].
    pub(crate) fn validated(text: &'a str) -> Value<'a> {
        Value(text)
    }
    /// The value's exact text.
    pub fn raw(self) -> &'a str {
        self.0
    }
    /// The JSON kind.
    pub fn kind(self) -> Kind {
        match self.0.as_bytes().first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }
    /// True for `null`.
    pub fn is_null(self) -> bool {
        self.0 == "null"
    }
    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(self) -> Option<bool> {
        match self.0 {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
    /// The string, if this is a string.
    pub fn as_str(self) -> Option<Str<'a>> {
        if self.kind() != Kind::String {
            return None;
        }
        self.0.get(1..self.0.len().saturating_sub(1)).map(Str)
    }
    /// The number, if this is a number.
    pub fn as_number(self) -> Option<Number<'a>> {
        if self.kind() != Kind::Number {
            return None;
        }
        if self.0.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
            // Correctly rounded; overflow yields ±inf as Python's float() does.
            Some(Number::Float(parse_f64(self.0).unwrap_or(f64::NAN)))
        } else {
            Some(Number::Int(self.0))
        }
    }
    /// The members, if an object (an empty iterator otherwise).
    pub fn members(self) -> Members<'a> {
        let text = match self.kind() {
            Kind::Object => self.0,
            _ => "",
        };
        Members { text, pos: 1 }
    }
    /// The items, if an array (an empty iterator otherwise).
    pub fn items(self) -> Items<'a> {
        let text = match self.kind() {
            Kind::Array => self.0,
            _ => "",
        };
        Items { text, pos: 1 }
    }
    /// The member named `key` (the last one when a key repeats, as a Python dict keeps).
    pub fn get(self, key: &str) -> Option<Value<'a>> {
        self.members()
            .filter(|(k, _)| k.eq_str(key))
            .last()
            .map(|(_, v)| v)
    }
    /// Number of members of an object or items of an array (0 for scalars), counting
    /// distinct keys only for objects.
    pub fn len(self) -> usize {
        match self.kind() {
            Kind::Array => self.items().count(),
            Kind::Object => self
                .members()
                .enumerate()
                .filter(|&(i, (k, _))| !self.members().take(i).any(|(k2, _)| key_eq(k, k2)))
                .count(),
            _ => 0,
        }
    }
    /// True when [`Value::len`] is 0.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl<'a> Str<'a> {
    /// `s` as the contents of a JSON string (what lies between the quotes), if it is
    /// valid as such: no unescaped quote or control character, only JSON escapes.
    #[cfg(feature = "serde")]
    pub(crate) fn from_contents(s: &'a str) -> Option<Str<'a>> {
        let b = s.as_bytes();
        let mut pos = 0;
        while let Some(&c) = b.get(pos) {
            match c {
                b'"' | 0..=0x1f => return None,
                b'\\' => match b.get(pos + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => pos += 2,
                    Some(b'u') => {
                        let hex = b.get(pos + 2..pos + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        pos += 6;
                    }
                    _ => return None,
                },
                _ => pos += 1,
            }
        }
        Some(Str(s))
    }
    /// The raw contents (escapes intact, no quotes).
    pub fn raw(self) -> &'a str {
        self.0
    }
    /// The decoded code points.
    pub fn units(self) -> Units<'a> {
        Units { rest: self.0 }
    }
    /// String contents from text already validated as such: a byte-for-byte copy of a
    /// parsed string's [`Str::raw`].
    pub(crate) fn validated(contents: &'a str) -> Str<'a> {
        Str(contents)
    }
    /// True when the decoded string equals `s`.
    pub fn eq_str(self, s: &str) -> bool {
        // Every escape is longer than the UTF-8 of what it stands for, so contents no
        // longer than `s` equal it only byte for byte, and longer ones only through an
        // escape (no scan for a backslash on the common paths).
        if self.0.len() <= s.len() {
            return self.0 == s;
        }
        if !self.0.as_bytes().contains(&b'\\') {
            return false;
        }
        self.units().eq(s.chars().map(u32::from))
    }
    /// Which of `names` this key is, compared decoded as a Python dict compares keys:
    /// byte for byte first, then through its escapes only when it has one.
    pub(crate) fn which(self, names: &[&str]) -> Option<usize> {
        if let Some(i) = names.iter().position(|n| self.0 == *n) {
            return Some(i);
        }
        if !self.0.as_bytes().contains(&b'\\') {
            return None;
        }
        names.iter().position(|n| self.eq_str(n))
    }
    /// The contents as `&str` when they contain no escape.
    pub fn as_plain(self) -> Option<&'a str> {
        if has_escape(self.0) {
            None
        } else {
            Some(self.0)
        }
    }
    /// Number of code points (Python's `len()`).
    pub fn char_len(self) -> usize {
        match self.as_plain() {
            // Every byte but a UTF-8 continuation byte starts a code point.
            Some(p) => p.bytes().filter(|&b| (b as i8) >= -0x40).count(),
            None => self.units().count(),
        }
    }
    /// Compare decoded contents by code point (Python's `str` ordering).
    pub fn cmp_decoded(self, other: Str<'_>) -> Ordering {
        match (self.as_plain(), other.as_plain()) {
            // UTF-8 byte order is code point order.
            (Some(a), Some(b)) => a.as_bytes().cmp(b.as_bytes()),
            _ => self.units().cmp(other.units()),
        }
    }
}

/// The first index at or after `pos` that is neither whitespace nor `sep`.
#[inline]
fn skip_sep_at(b: &[u8], mut pos: usize, sep: u8) -> usize {
    while let Some(&c) = b.get(pos) {
        if c != sep && !is_ws(c) {
            break;
        }
        pos += 1;
    }
    pos
}

impl<'a> Iterator for Members<'a> {
    type Item = (Str<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let p = skip_sep_at(b, self.pos, b',');
        if b.get(p) != Some(&b'"') {
            self.pos = b.len();
            return None;
        }
        let kend = string_end(b, p);
        let vstart = skip_sep_at(b, kend, b':');
        let vend = value_end(b, vstart);
        // Cuts at ASCII delimiters of validated text are char boundaries.
        let (Some(key), Some(value)) = (
            self.text.get(p + 1..kend.saturating_sub(1).max(p + 1)),
            self.text.get(vstart..vend),
        ) else {
            self.pos = b.len();
            return None;
        };
        self.pos = vend;
        Some((Str(key), Value(value)))
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let p = skip_sep_at(b, self.pos, b',');
        if matches!(b.get(p), None | Some(b']')) {
            self.pos = b.len();
            return None;
        }
        let vend = value_end(b, p);
        let Some(value) = self.text.get(p..vend) else {
            self.pos = b.len();
            return None;
        };
        self.pos = vend;
        Some(Value(value))
    }
}

impl Iterator for Units<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let b = self.rest.as_bytes();
        if *b.first()? != b'\\' {
            let c = self.rest.chars().next()?;
            self.rest = self.rest.get(c.len_utf8()..).unwrap_or("");
            return Some(u32::from(c));
        }
        let (cp, used) = match *b.get(1)? {
            b'b' => (0x08, 2),
            b'f' => (0x0C, 2),
            b'n' => (0x0A, 2),
            b'r' => (0x0D, 2),
            b't' => (0x09, 2),
            b'u' => {
                let hi = hex4(b.get(2..6)?)?;
                // Python pairs a high surrogate with an immediately following low one.
                let lo = if (0xD800..0xDC00).contains(&hi) && b.get(6..8) == Some(b"\\u") {
                    b.get(8..12).and_then(hex4)
                } else {
                    None
                };
                match lo {
                    Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                        (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 12)
                    }
                    _ => (hi, 6),
                }
            }
            other => (u32::from(other), 2), // `"`, `\`, `/`
        };
        self.rest = self.rest.get(used..).unwrap_or("");
        Some(cp)
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
            copy_bytes(dst, bytes);
        }
    }
}

/// `dst.copy_from_slice(src)` (equal lengths), with the short copies the renderers make
/// all the time (a quote, a key, a few bytes of text) done inline by overlapping
/// fixed-size moves instead of a call to `memcpy`.
#[inline(always)]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if dst.len() != n {
        return;
    }
    match n {
        0 => {}
        1..=3 => {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..].copy_from_slice(&src[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..].copy_from_slice(&src[n - 8..]);
        }
        17..=32 if !cfg!(feature = "small-code") => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..].copy_from_slice(&src[n - 16..]);
        }
        33..=64 if !cfg!(feature = "small-code") => {
            dst[..32].copy_from_slice(&src[..32]);
            dst[n - 32..].copy_from_slice(&src[n - 32..]);
        }
        _ => dst.copy_from_slice(src),
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
    /// `json.dumps(v, ensure_ascii=False)` — the oracle's `--compact` output.
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
    let nib = |shift: u32| HEX[((cp >> shift) & 0xF) as usize];
    sink.put(&[b'\\', b'u', nib(12), nib(8), nib(4), nib(0)]);
}

/// One code point, escaped as `json.dumps` escapes it. Lone surrogates are always written
/// as `\udxxx` (they have no UTF-8 form).
fn put_cp(cp: u32, ascii: bool, sink: &mut dyn Sink) {
    match cp {
        0x22 => sink.put(b"\\\""),
        0x5C => sink.put(b"\\\\"),
        0x0A => sink.put(b"\\n"),
        0x0D => sink.put(b"\\r"),
        0x09 => sink.put(b"\\t"),
        0x08 => sink.put(b"\\b"),
        0x0C => sink.put(b"\\f"),
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

/// Escape a Rust string's contents (no quotes), passing unescaped runs through whole.
fn put_plain(s: &str, ascii: bool, sink: &mut dyn Sink) {
    put_plain_to(s, ascii, false, sink);
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
        let verbatim = c >= 0x20 && c != b'"' && c != b'\\' && (!ascii || c < 0x7F);
        if verbatim {
            i += 1;
            continue;
        }
        if run < i {
            sink.put(&b[run..i]);
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
        sink.put(&b[run..]);
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
                Some(inner)
                    if !cfg!(feature = "small-code") && renders_as_is(inner, style.ascii) =>
                {
                    sink.put(raw)
                }
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

/// Whether validated JSON string contents render unchanged: no escape (a JSON string
/// holds no raw quote or control character), and with `ascii` no byte past `~`.
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
        let mut hit = has_byte(w, b'"') | has_byte(w, b'\\') | has_control(w);
        if ascii {
            hit |= (w & HIGHS) | has_byte(w, 0x7F);
        }
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

/// Write a JSON string's decoded contents re-escaped the way `json.dumps` escapes.
///
/// A lone surrogate is written as its `\udxxx` escape even when `ascii` is false (it has
/// no UTF-8 encoding; Python would fail to encode the result).
pub fn write_json_str(s: Str<'_>, ascii: bool, sink: &mut dyn Sink) {
    sink.put(b"\"");
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
    sink.put(b"\"");
}

/// Write `f` as Python's `json.dumps(f)` (`repr`; `Infinity`, `-Infinity`, `NaN`).
pub fn write_f64(f: f64, sink: &mut dyn Sink) {
    #[cfg(feature = "small-float")]
    compact_float::write(f, sink);
    #[cfg(not(feature = "small-float"))]
    write_f64_ryu(f, sink);
}

/// [`write_f64`] with ryu's digits (the default build).
#[cfg(not(feature = "small-float"))]
fn write_f64_ryu(f: f64, sink: &mut dyn Sink) {
    if write_f64_special(f, sink) {
        return;
    }
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
            b'0'..=b'9' if n < digits.len() => {
                digits[n] = c;
                n += 1;
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
    write_f64_digits(f.is_sign_negative(), &digits[..n], decpt, sink);
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
    let mut decpt = decpt;
    let mut lead = 0usize;
    let mut n = digits.len();
    while lead < n && digits[lead] == b'0' {
        lead += 1;
        decpt -= 1;
    }
    while n > lead && digits[n - 1] == b'0' {
        n -= 1;
    }
    let d = &digits[lead..n];

    let mut out = [0u8; 48];
    let mut len = 0usize;
    let mut push = |bytes: &[u8]| {
        for &c in bytes {
            if let Some(slot) = out.get_mut(len) {
                *slot = c;
                len += 1;
            }
        }
    };
    if negative {
        push(b"-");
    }
    if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            push(b"0.");
            for _ in decpt..0 {
                push(b"0");
            }
            push(d);
        } else {
            let decpt = decpt as usize;
            if decpt >= d.len() {
                push(d);
                for _ in d.len()..decpt {
                    push(b"0");
                }
                push(b".0");
            } else {
                push(&d[..decpt]);
                push(b".");
                push(&d[decpt..]);
            }
        }
    } else {
        push(&d[..1.min(d.len())]);
        if d.len() > 1 {
            push(b".");
            push(&d[1..]);
        }
        let e = decpt - 1;
        push(if e < 0 { b"e-" } else { b"e+" });
        let e = e.unsigned_abs();
        if e >= 100 {
            push(&[b'0' + (e / 100) as u8]);
        }
        push(&[b'0' + (e / 10 % 10) as u8, b'0' + (e % 10) as u8]);
    }
    (out, len)
}

/// Write an integer in decimal.
pub fn write_i64(i: i64, sink: &mut dyn Sink) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut u = i.unsigned_abs();
    loop {
        // Dividing by 10 in 32-bit halves: a 64-bit division links compiler_builtins'
        // (~900 bytes) on 32-bit targets.
        let digit;
        (u, digit) = div10(u);
        pos -= 1;
        buf[pos] = b'0' + digit;
        if u == 0 {
            break;
        }
    }
    if i < 0 {
        pos -= 1;
        buf[pos] = b'-';
    }
    sink.put(&buf[pos..]);
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

/// `(n / 10, n % 10)` with 32-bit divisions only.
pub(crate) fn div10(n: u64) -> (u64, u8) {
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
    use std::eprintln;

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
    use std::format;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    struct Buf(Vec<u8>);

    impl Sink for Buf {
        fn put(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    const STYLES: [Style; 4] = [Style::STATE, Style::DIGEST, Style::WIRE, Style::PY_UTF8];

    fn render(v: Value<'_>, style: Style) -> String {
        let mut b = Buf(Vec::new());
        write_value(v, style, &mut b);
        String::from_utf8(b.0).expect("writer output is UTF-8")
    }

    fn dump(text: &str, style: Style) -> String {
        let v = Value::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        render(v, style)
    }

    fn f64_repr(f: f64) -> String {
        let mut b = Buf(Vec::new());
        write_f64(f, &mut b);
        String::from_utf8(b.0).unwrap()
    }

    fn str_out(s: &str, ascii: bool) -> String {
        let mut b = Buf(Vec::new());
        write_str(s, ascii, &mut b);
        String::from_utf8(b.0).unwrap()
    }

    fn err(text: &str) -> JsonError {
        match Value::parse(text) {
            Ok(v) => panic!("{text:?} accepted as {:?}", v.raw()),
            Err(e) => e,
        }
    }

    /// xorshift64*
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())]
        }
    }

    // ----- reader -----

    #[test]
    fn json_parse_accepts_and_trims() {
        let ok = [
            ("null", "null"),
            (" true ", "true"),
            ("\t\n\r false\n", "false"),
            ("0", "0"),
            ("-0", "-0"),
            ("-0.0e-0", "-0.0e-0"),
            ("1E+5", "1E+5"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("\"\"", "\"\""),
            ("\"\\ud800\"", "\"\\ud800\""),
            (
                "\"\\u0000\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
                "\"\\u0000\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
            ),
            ("\"\u{7f}é😀\"", "\"\u{7f}é😀\""),
            (" [ ] ", "[ ]"),
            ("{ }", "{ }"),
            (
                "[1, [2, {\"a\": [null]}], \"x\"]  ",
                "[1, [2, {\"a\": [null]}], \"x\"]",
            ),
            ("{\"a\" : 1 , \"a\":2}", "{\"a\" : 1 , \"a\":2}"),
        ];
        for (doc, raw) in ok {
            let v = Value::parse(doc).unwrap_or_else(|e| panic!("{doc:?}: {e:?}"));
            assert_eq!(v.raw(), raw, "{doc:?}");
        }
    }

    #[test]
    fn json_parse_rejects() {
        let bad = [
            ("", 0),
            ("   ", 3),
            ("[1,]", 3),
            ("{\"a\":1,}", 7),
            ("[01]", 2),
            ("-01", 2),
            ("[1.]", 3),
            ("[.1]", 1),
            ("1e", 2),
            ("1e+", 3),
            ("-", 1),
            ("+1", 0),
            ("0x10", 1),
            ("\"\\x41\"", 2),
            ("\"\\u12\"", 5),
            ("\"\\u12G4\"", 5),
            ("\"a\tb\"", 2),
            ("\"\u{1f}\"", 1),
            ("\"\\'\"", 2),
            ("'a'", 0),
            ("[1 2]", 3),
            ("{\"a\" 1}", 5),
            ("{1:2}", 1),
            ("{\"a\":}", 5),
            ("tru", 3),
            ("nul", 3),
            ("nulll", 4),
            ("[]]", 2),
            ("[[]", 3),
            ("{}}", 2),
            ("\u{feff}[]", 0),
            ("[1]x", 3),
            ("[,1]", 1),
            ("[1,,2]", 3),
            ("{,}", 1),
            ("\"abc", 4),
            ("\"\\\"", 3),
            ("NaN", 0),
            ("[Infinity]", 1),
            ("-Infinity", 1),
            ("[True]", 1),
            ("\u{c}[]", 0),
            ("[1\u{c}]", 2),
            ("[\u{a0}1]", 1),
            ("1 2", 2),
            ("{\"a\":1 \"b\":2}", 7),
            ("[1.0e+-5]", 6),
            ("{\"a\":1]", 6),
            ("[1}", 2),
        ];
        for (doc, offset) in bad {
            let e = err(doc);
            assert_eq!(e.kind, JsonErrorKind::Syntax, "{doc:?}");
            assert_eq!(e.offset, offset, "{doc:?}");
        }
    }

    #[test]
    fn json_depth_limit() {
        let mut doc = String::new();
        for _ in 0..MAX_DEPTH {
            doc.push('[');
        }
        for _ in 0..MAX_DEPTH {
            doc.push(']');
        }
        assert!(Value::parse(&doc).is_ok());
        let deeper = format!("[{doc}]");
        assert_eq!(
            err(&deeper),
            JsonError {
                offset: MAX_DEPTH,
                kind: JsonErrorKind::TooDeep
            }
        );
        let objs = format!("{}1{}", "{\"a\":".repeat(65), "}".repeat(65));
        assert_eq!(err(&objs).kind, JsonErrorKind::TooDeep);
        let objs = format!("{}1{}", "{\"a\":[".repeat(32), "]}".repeat(32));
        assert!(Value::parse(&objs).is_ok());
        // No recursion: a huge opening run just fails.
        let huge = "[".repeat(1_000_000);
        assert_eq!(err(&huge).kind, JsonErrorKind::TooDeep);
        let huge = "[1,".repeat(60) + &"[{\"k\":".repeat(500_000);
        assert_eq!(err(&huge).kind, JsonErrorKind::TooDeep);
    }

    #[test]
    fn json_navigation() {
        let v = Value::parse(
            r#" {"a": 1, "b": [true, null, "x", {"c": -2.5e3}], "a": {"z": []}, "\u0061": "last", "e": {}} "#,
        )
        .unwrap();
        assert_eq!(v.kind(), Kind::Object);
        assert_eq!(v.len(), 3);
        assert!(!v.is_empty());
        let keys: Vec<&str> = v.members().map(|(k, _)| k.raw()).collect();
        assert_eq!(keys, ["a", "b", "a", "\\u0061", "e"]);
        assert_eq!(v.get("a").unwrap().raw(), "\"last\"");
        assert!(v.get("zz").is_none());
        let b = v.get("b").unwrap();
        assert_eq!(b.kind(), Kind::Array);
        assert_eq!(b.len(), 4);
        let items: Vec<&str> = b.items().map(Value::raw).collect();
        assert_eq!(items, ["true", "null", "\"x\"", "{\"c\": -2.5e3}"]);
        let it: Vec<Value<'_>> = b.items().collect();
        assert_eq!(it[0].as_bool(), Some(true));
        assert!(it[1].is_null());
        assert_eq!(it[1].as_bool(), None);
        assert!(it[2].as_str().unwrap().eq_str("x"));
        assert_eq!(
            it[3].get("c").unwrap().as_number(),
            Some(Number::Float(-2500.0))
        );
        assert!(v.get("e").unwrap().is_empty());
        assert_eq!(v.get("e").unwrap().members().count(), 0);
        assert_eq!(Value::parse("[]").unwrap().items().count(), 0);
        assert_eq!(Value::parse("[ ]").unwrap().len(), 0);
        // Scalars have no members or items.
        let s = Value::parse("\"a,b\"").unwrap();
        assert_eq!(s.len(), 0);
        assert_eq!(s.items().count(), 0);
        assert_eq!(s.members().count(), 0);
        assert!(s.as_number().is_none());
        assert!(b.as_str().is_none());
        // Strings containing structural characters do not confuse the scanner.
        let t = Value::parse(r#"{"k]}\"": "v,}]\\", "n": [ "[" , "{" ]}"#).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.get("k]}\"").unwrap().raw(), r#""v,}]\\""#);
        assert_eq!(t.get("n").unwrap().len(), 2);
        // Top-level scalars with whitespace.
        assert_eq!(
            Value::parse(" 12 ").unwrap().as_number(),
            Some(Number::Int("12"))
        );
        assert_eq!(Value::parse("\n-7\t").unwrap().kind(), Kind::Number);
    }

    #[test]
    fn json_numbers() {
        let n = |s: &'static str| Value::parse(s).unwrap().as_number().unwrap();
        assert_eq!(n("0"), Number::Int("0"));
        assert_eq!(n("-0"), Number::Int("-0"));
        assert_eq!(
            n("99999999999999999999999"),
            Number::Int("99999999999999999999999")
        );
        assert_eq!(n("1.5"), Number::Float(1.5));
        assert_eq!(n("1e2"), Number::Float(100.0));
        assert_eq!(n("1E-2"), Number::Float(0.01));
        assert_eq!(n("1e400"), Number::Float(f64::INFINITY));
        assert_eq!(n("-1e400"), Number::Float(f64::NEG_INFINITY));
        assert_eq!(n("1e-400"), Number::Float(0.0));
        match n("-0.0") {
            Number::Float(f) => assert!(f == 0.0 && f.is_sign_negative()),
            other => panic!("{other:?}"),
        }
        assert_eq!(n("0.1"), Number::Float(0.1));
        assert_eq!(n("5e-324"), Number::Float(5e-324));
        assert_eq!(n("2.4703282292062328e-324"), Number::Float(5e-324));
    }

    #[test]
    fn json_units() {
        let units =
            |s: &str| -> Vec<u32> { Value::parse(s).unwrap().as_str().unwrap().units().collect() };
        assert_eq!(units(r#""aé😀""#), [0x61, 0xE9, 0x1F600]);
        assert_eq!(units(r#""\ud83d\ude00""#), [0x1F600]);
        assert_eq!(units(r#""\uD83D\uDE00""#), [0x1F600]);
        assert_eq!(units(r#""\ud800""#), [0xD800]);
        assert_eq!(units(r#""\udc00\ud800""#), [0xDC00, 0xD800]);
        assert_eq!(units(r#""\ud83d\u0041""#), [0xD83D, 0x41]);
        assert_eq!(units(r#""\ud83d\ud83d\ude00""#), [0xD83D, 0x1F600]);
        assert_eq!(units(r#""\ud83dx\ude00""#), [0xD83D, 0x78, 0xDE00]);
        assert_eq!(
            units(r#""\"\\\/\b\f\n\r\t""#),
            [0x22, 0x5C, 0x2F, 8, 12, 10, 13, 9]
        );
        assert_eq!(units(r#""\u0000\uffff""#), [0, 0xFFFF]);
        let s = Value::parse(r#""a\u00e9\ud83d\ude00\ud800""#)
            .unwrap()
            .as_str()
            .unwrap();
        assert_eq!(s.char_len(), 4);
        assert!(s.as_plain().is_none());
        let p = Value::parse(r#""plain é""#).unwrap().as_str().unwrap();
        assert_eq!(p.as_plain(), Some("plain é"));
        assert_eq!(p.char_len(), 7);
        let e = Value::parse(r#""\u00e9\ud83d\ude00""#)
            .unwrap()
            .as_str()
            .unwrap();
        assert!(e.eq_str("é😀"));
        assert!(!e.eq_str("é"));
        assert!(!e.eq_str("é😀x"));
        let lone = Value::parse(r#""\ud800""#).unwrap().as_str().unwrap();
        assert!(!lone.eq_str("\u{fffd}"));
        // Python str order: code points, so U+E000 < U+1F600 although UTF-16 disagrees.
        let s = |t: &'static str| Value::parse(t).unwrap().as_str().unwrap();
        assert_eq!(s(r#""\ue000""#).cmp_decoded(s(r#""😀""#)), Ordering::Less);
        assert_eq!(
            s(r#""\ud800""#).cmp_decoded(s(r#""\ue000""#)),
            Ordering::Less
        );
        assert_eq!(
            s(r#""😀""#).cmp_decoded(s(r#""\ud83d\ude00""#)),
            Ordering::Equal
        );
        assert_eq!(s(r#""ab""#).cmp_decoded(s(r#""a""#)), Ordering::Greater);
        assert_eq!(s(r#""""#).cmp_decoded(s(r#""\u0000""#)), Ordering::Less);
        assert_eq!(s(r#""B""#).cmp_decoded(s(r#""a""#)), Ordering::Less);
    }

    // ----- writers -----

    #[test]
    fn json_float_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (3.0, "3.0"),
            (-3.0, "-3.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000123, "0.000123"),
            (0.0000123, "1.23e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e15, "1000000000000000.0"),
            (2.5e300, "2.5e+300"),
            (1e100, "1e+100"),
            (1e-100, "1e-100"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (123.456, "123.456"),
            (0.30000000000000004, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.0 / 3.0, "0.6666666666666666"),
            (-1.25e-5, "-1.25e-05"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
        ];
        for &(f, want) in cases {
            assert_eq!(f64_repr(f), want, "{f:e}");
        }
    }

    #[test]
    fn json_write_i64() {
        for (i, want) in [
            (0i64, "0"),
            (7, "7"),
            (-7, "-7"),
            (1234567890, "1234567890"),
            (i64::MAX, "9223372036854775807"),
            (i64::MIN, "-9223372036854775808"),
        ] {
            let mut b = Buf(Vec::new());
            write_i64(i, &mut b);
            assert_eq!(b.0, want.as_bytes());
        }
    }

    #[test]
    fn json_escaping() {
        assert_eq!(str_out("plain", true), "\"plain\"");
        assert_eq!(str_out("q\"b\\s/", true), r#""q\"b\\s/""#);
        assert_eq!(
            str_out("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}", true),
            r#""\n\r\t\b\f\u0000\u001f\u007f""#
        );
        assert_eq!(
            str_out("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}", false),
            "\"\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}\""
        );
        assert_eq!(
            str_out("é€😀\u{ffff}", true),
            r#""\u00e9\u20ac\ud83d\ude00\uffff""#
        );
        assert_eq!(str_out("é€😀\u{ffff}", false), "\"é€😀\u{ffff}\"");
        assert_eq!(str_out("\u{10ffff}", true), r#""\udbff\udfff""#);
        assert_eq!(str_out("", false), "\"\"");
        let j = |s: &str, ascii: bool| {
            let v = Value::parse(s).unwrap();
            let mut b = Buf(Vec::new());
            write_json_str(v.as_str().unwrap(), ascii, &mut b);
            String::from_utf8(b.0).unwrap()
        };
        assert_eq!(
            j(r#""\u0041\/\ud83d\ude00\ud800é""#, true),
            r#""A/\ud83d\ude00\ud800\u00e9""#
        );
        assert_eq!(
            j(r#""\u0041\/\ud83d\ude00\ud800é""#, false),
            "\"A/😀\\ud800é\""
        );
        assert_eq!(j(r#""\u00E9\u001F\u0022""#, false), "\"é\\u001f\\\"\"");
        assert_eq!(j(r#""x\\""#, true), r#""x\\""#);
    }

    #[test]
    fn json_write_value() {
        let doc = r#" { "b" : [1, -0, 2.50, 1e2, -0.0, "x", true, null, [], {}],
            "a": {"y": 1, "x": 2}, "b": "again", "\u00e9": "é", "😀": 0 } "#;
        assert_eq!(
            dump(doc, Style::STATE),
            r#"{"b":"again","a":{"y":1,"x":2},"\u00e9":"\u00e9","\ud83d\ude00":0}"#
        );
        assert_eq!(
            dump(doc, Style::DIGEST),
            r#"{"a":{"x":2,"y":1},"b":"again","\u00e9":"\u00e9","\ud83d\ude00":0}"#
        );
        assert_eq!(
            dump(doc, Style::WIRE),
            r#"{"b":"again","a":{"y":1,"x":2},"é":"é","😀":0}"#
        );
        assert_eq!(
            dump(doc, Style::PY_UTF8),
            r#"{"b": "again", "a": {"y": 1, "x": 2}, "é": "é", "😀": 0}"#
        );
        assert_eq!(
            dump(
                r#"[1, -0, 2.50, 1e2, -0.0, "x", true, null, [], {}, 1E400]"#,
                Style::PY_UTF8
            ),
            r#"[1, 0, 2.5, 100.0, -0.0, "x", true, null, [], {}, Infinity]"#
        );
        // Duplicate keys: first position, last value, also through escapes.
        assert_eq!(
            dump(r#"{"a":1,"b":2,"\u0061":3,"c":4,"b":5}"#, Style::STATE),
            r#"{"a":3,"b":5,"c":4}"#
        );
        assert_eq!(
            dump(r#"{"c":1,"b":2,"c":3,"a":4,"b":5}"#, Style::DIGEST),
            r#"{"a":4,"b":5,"c":3}"#
        );
        // Sorting is by code point (not UTF-16), recursive.
        assert_eq!(
            dump(
                r#"{"😀":1,"\ue000":2,"\ud800":3,"Z":{"b":1,"a":2},"":0}"#,
                Style::DIGEST
            ),
            r#"{"":0,"Z":{"a":2,"b":1},"\ud800":3,"\ue000":2,"\ud83d\ude00":1}"#
        );
        assert_eq!(dump(" \"\\ud800\" ", Style::WIRE), r#""\ud800""#);
    }

    #[test]
    fn json_sinks() {
        let v = Value::parse(r#"{"k": [1, 2, 3]}"#).unwrap();
        let mut c = CountSink::default();
        write_value(v, Style::STATE, &mut c);
        assert_eq!(c.0, r#"{"k":[1,2,3]}"#.len());
        let mut small = [0u8; 5];
        let mut s = SliceSink::new(&mut small);
        write_value(v, Style::STATE, &mut s);
        assert_eq!(s.finish(), Err(13));
        assert_eq!(s.written(), b"{\"k\":");
        let mut big = [0u8; 64];
        let mut s = SliceSink::new(&mut big);
        write_value(v, Style::STATE, &mut s);
        assert_eq!(s.finish(), Ok(13));
        assert_eq!(s.written(), br#"{"k":[1,2,3]}"#);
    }

    /// A string value written whole (when it renders as is) reads exactly as one
    /// re-rendered through its decoded contents, in both styles.
    #[test]
    fn string_values_written_whole_match_re_rendering() {
        let pieces = [
            "a", "abcdefgh", "\\n", "\\u0041", "\\\\", "\\/", "é", "\u{7f}", "~", " ", "😀",
            "\\ud800",
        ];
        let mut texts = vec![String::from("\"\"")];
        for a in pieces {
            for b in pieces {
                for c in ["", "xyz12345", "é"] {
                    texts.push(format!("\"{a}{c}{b}\""));
                }
            }
        }
        for t in &texts {
            let v = Value::parse(t).unwrap();
            for style in [Style::WIRE, Style::DIGEST, Style::STATE] {
                let mut whole = Buf(Vec::new());
                write_value(v, style, &mut whole);
                let mut again = Buf(Vec::new());
                write_json_str(v.as_str().unwrap(), style.ascii, &mut again);
                assert_eq!(whole.0, again.0, "{t} {style:?}");
            }
        }
    }

    /// The inline copy writes exactly the source at every length it special-cases (and
    /// past them), and nothing when the lengths differ.
    #[test]
    fn copy_bytes_copies() {
        let src: Vec<u8> = (0..100u8)
            .map(|i| i.wrapping_mul(37).wrapping_add(1))
            .collect();
        let step = if cfg!(miri) { 5 } else { 1 };
        for n in (0..=100).step_by(step) {
            let mut dst = vec![0u8; n];
            copy_bytes(&mut dst, &src[..n]);
            assert_eq!(dst, &src[..n], "{n}");
            let mut short = vec![0u8; n.saturating_sub(1)];
            copy_bytes(&mut short, &src[..n]);
            assert!(n == 0 || short.iter().all(|&b| b == 0), "{n}");
        }
    }

    /// The word-at-a-time escaper writes exactly what escaping each char does.
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
                    let mut got = alloc::vec::Vec::new();
                    put_plain(&text, ascii, &mut got);
                    let mut want = alloc::vec::Vec::new();
                    for c in text.chars() {
                        put_cp(u32::from(c), ascii, &mut want);
                    }
                    assert_eq!(got, want, "{text:?} ascii={ascii}");
                }
            }
        }
    }

    #[test]
    fn slice_sink_copies_every_length_exactly() {
        let src: [u8; 40] = core::array::from_fn(|i| i as u8 + 1);
        for n in 0..=src.len() {
            for at in 0..3 {
                let mut buf = [0u8; 48];
                let mut s = SliceSink::new(&mut buf);
                s.put(&[0xEE; 2][..at]);
                s.put(&src[..n]);
                assert_eq!(s.finish(), Ok(at + n));
                assert_eq!(&buf[..at], &[0xEE; 2][..at]);
                assert_eq!(&buf[at..at + n], &src[..n], "length {n} at {at}");
                assert!(buf[at + n..].iter().all(|&b| b == 0), "length {n} at {at}");
            }
        }
        // A copy that does not fit writes nothing past the buffer, and counts.
        let mut buf = [0u8; 10];
        let mut s = SliceSink::new(&mut buf);
        s.put(&src[..7]);
        s.put(&src[..7]);
        assert_eq!(s.finish(), Err(14));
        assert_eq!(&buf[..7], &src[..7]);
    }

    // ----- robustness -----

    /// Walk everything a Value offers; must not panic.
    fn touch(v: Value<'_>, depth: usize) {
        assert!(depth <= MAX_DEPTH + 1);
        let _ = (v.kind(), v.is_null(), v.as_bool(), v.as_number(), v.len());
        if let Some(s) = v.as_str() {
            let _ = (s.char_len(), s.as_plain(), s.eq_str("a"), s.units().count());
        }
        for item in v.items() {
            touch(item, depth + 1);
        }
        for (k, val) in v.members() {
            let _ = (k.char_len(), k.cmp_decoded(k), v.get("a"));
            touch(val, depth + 1);
        }
        for style in STYLES {
            let mut c = CountSink::default();
            write_value(v, style, &mut c);
            let mut buf = [0u8; 7];
            let mut s = SliceSink::new(&mut buf);
            write_value(v, style, &mut s);
            assert_eq!(s.needed(), c.0);
        }
    }

    const ALPHABET: &[&str] = &[
        "{", "}", "[", "]", ",", ":", "\"", "\\", "u", "0", "1", "9", "-", "+", ".", "e", "E", "a",
        "d", "8", "t", "r", "f", "n", "l", "s", " ", "\n", "\t", "\u{1}", "é", "😀", "true",
        "null", "\\u", "\\ud83d", "\\ude00", "\"a\":", "[]", "{}",
    ];

    #[test]
    fn json_fuzz_never_panics() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut accepted = 0usize;
        for round in 0..6000 {
            let text = if round % 2 == 0 {
                let len = rng.below(48);
                let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                let len = rng.below(40);
                (0..len).map(|_| rng.pick(ALPHABET)).collect()
            };
            if let Ok(v) = Value::parse(&text) {
                accepted += 1;
                touch(v, 0);
            }
        }
        // Mutations of valid documents exercise deeper paths.
        for _ in 0..3000 {
            let mut doc = String::new();
            gen_value(&mut rng, 0, &mut doc);
            let mutated = mutate(&mut rng, &doc);
            if let Ok(v) = Value::parse(&mutated) {
                accepted += 1;
                touch(v, 0);
            }
            touch(Value::parse(&doc).unwrap(), 0);
        }
        assert!(accepted > 50, "{accepted}");
    }

    // ----- generators shared with the CPython comparison -----

    const STR_PIECES: &[&str] = &[
        "a",
        "b",
        "z",
        "k",
        "0",
        " ",
        "/",
        "é",
        "€",
        "😀",
        "\u{7f}",
        "\u{80}",
        "\u{ffff}",
        "\u{10ffff}",
        "\u{e000}",
        "\u{2028}",
        "\\n",
        "\\t",
        "\\r",
        "\\b",
        "\\f",
        "\\\"",
        "\\\\",
        "\\/",
        "\\u0000",
        "\\u001f",
        "\\u001F",
        "\\u007f",
        "\\u0041",
        "\\u00e9",
        "\\u20AC",
        "\\ud83d\\ude00",
        "\\uD83D\\uDE00",
        "\\ud800",
        "\\udc00",
        "\\udbff\\udfff",
        "\\ud83d\\u0041",
        "\\ud83d\\ud83d\\ude00",
        "\\ude00\\ud83d",
        "\\uffff",
        "\\u2028",
    ];

    const KEYS: &[&str] = &[
        "a",
        "b",
        "\\u0061",
        "A",
        "",
        "aa",
        "ab",
        "é",
        "\\u00e9",
        "😀",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\udc00",
        "\u{e000}",
        "\\ue000",
        "\\u0000",
        "\\n",
        "z\\\"",
        "\u{ffff}",
    ];

    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "1",
        "-1",
        "0.0",
        "-0.0",
        "0e0",
        "1.0",
        "100",
        "1e16",
        "1E16",
        "1e15",
        "1e-5",
        "1e-4",
        "0.0001",
        "0.00001",
        "0.1",
        "0.2",
        "0.3",
        "5e-324",
        "2.5e-324",
        "2.4703282292062329e-324",
        "1e-400",
        "-1e-400",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1e309",
        "-1e400",
        "1e400",
        "123456789012345678",
        "-9223372036854775808",
        "9223372036854775808",
        "123456789012345678901234567890",
        "1234567890123456.0",
        "12345678901234567.0",
        "9007199254740993",
        "9007199254740993.0",
        "1.5e-7",
        "2.5e+300",
        "1e+2",
        "1E-2",
        "-1.25E-05",
        "0.1e1",
        "100e-2",
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "1.00000000000000011",
        "0.30000000000000004",
        "1e22",
        "1e23",
        "8.41e21",
        "5.0e-1",
    ];

    fn gen_ws(rng: &mut Rng, out: &mut String) {
        if rng.below(3) == 0 {
            out.push_str(rng.pick(&["", " ", "\n", "\t", "\r", "  ", " \n "]));
        }
    }

    fn gen_number(rng: &mut Rng, out: &mut String) {
        match rng.below(7) {
            0 => out.push_str(rng.pick(NUMBERS)),
            1 => {
                let i = rng.next() as i64 >> rng.below(64);
                out.push_str(&format!("{i}"));
            }
            2 | 3 => {
                let f = f64::from_bits(rng.next());
                if f.is_finite() {
                    out.push_str(&if rng.below(2) == 0 {
                        format!("{f:e}")
                    } else {
                        format!("{f:?}")
                    });
                } else {
                    out.push_str("1.5");
                }
            }
            4 => {
                // A "nice" float of any magnitude.
                let m = rng.below(100_000) as i64 - 50_000;
                let e = rng.below(40) as i32 - 20;
                out.push_str(&format!("{m}e{e}"));
            }
            5 => {
                // Long decimal, exercises correctly rounded parsing.
                if rng.below(2) == 0 {
                    out.push('-');
                }
                out.push(char::from(b'1' + rng.below(9) as u8));
                out.push('.');
                for _ in 0..1 + rng.below(25) {
                    out.push(char::from(b'0' + rng.below(10) as u8));
                }
                let e = rng.below(660) as i32 - 340;
                out.push_str(&format!("e{e}"));
            }
            _ => {
                let digits = 1 + rng.below(40);
                out.push(char::from(b'1' + rng.below(9) as u8));
                for _ in 1..digits {
                    out.push(char::from(b'0' + rng.below(10) as u8));
                }
            }
        }
    }

    fn gen_string(rng: &mut Rng, out: &mut String) {
        out.push('"');
        for _ in 0..rng.below(6) {
            out.push_str(rng.pick(STR_PIECES));
        }
        out.push('"');
    }

    fn gen_value(rng: &mut Rng, depth: usize, out: &mut String) {
        let choice = if depth >= 4 {
            rng.below(4)
        } else {
            rng.below(7)
        };
        match choice {
            0 => out.push_str(rng.pick(&["null", "true", "false"])),
            1 => gen_number(rng, out),
            2 | 3 => gen_string(rng, out),
            4 => {
                out.push('[');
                gen_ws(rng, out);
                for i in 0..rng.below(5) {
                    if i > 0 {
                        out.push(',');
                        gen_ws(rng, out);
                    }
                    gen_value(rng, depth + 1, out);
                    gen_ws(rng, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                gen_ws(rng, out);
                for i in 0..rng.below(7) {
                    if i > 0 {
                        out.push(',');
                        gen_ws(rng, out);
                    }
                    if rng.below(4) == 0 {
                        gen_string(rng, out);
                    } else {
                        out.push('"');
                        out.push_str(rng.pick(KEYS));
                        out.push('"');
                    }
                    gen_ws(rng, out);
                    out.push(':');
                    gen_ws(rng, out);
                    gen_value(rng, depth + 1, out);
                    gen_ws(rng, out);
                }
                out.push('}');
            }
        }
    }

    fn mutate(rng: &mut Rng, doc: &str) -> String {
        let mut chars: Vec<char> = doc.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(chars.len() + 1);
            match rng.below(3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at < chars.len() => {
                    let piece: Vec<char> = rng.pick(ALPHABET).chars().collect();
                    chars.splice(at..at + 1, piece);
                }
                _ => {
                    let piece: Vec<char> = rng.pick(ALPHABET).chars().collect();
                    chars.splice(at..at, piece);
                }
            }
        }
        chars.into_iter().collect()
    }

    // ----- differential test against CPython -----

    const PY_SCRIPT: &str = r#"
import json, re, sys
SUR = re.compile('[\ud800-\udfff]')
STYLES = [(True, (',', ':'), False, True), (True, (',', ':'), True, True),
          (False, (',', ':'), False, True), (False, (', ', ': '), False, False)]
def fin(x):
    if isinstance(x, float) and (x != x or x in (float('inf'), float('-inf'))):
        return None
    if isinstance(x, list):
        return [fin(i) for i in x]
    if isinstance(x, dict):
        return {k: fin(w) for k, w in x.items()}
    return x
out = []
for line in sys.stdin:
    doc = bytes.fromhex(line.strip()).decode('utf-8')
    try:
        v = json.loads(doc)
    except Exception:
        out.append('ERR')
        continue
    res = []
    for ascii, seps, sort_keys, null in STYLES:
        s = json.dumps(fin(v) if null else v, ensure_ascii=ascii, separators=seps, sort_keys=sort_keys)
        if not ascii:
            s = SUR.sub(lambda m: '\\u%04x' % ord(m.group()), s)
        res.append(s.encode('utf-8').hex())
    out.append(' '.join(res))
sys.stdout.write('\n'.join(out) + '\n')
"#;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Python's verdict per document: `None` when rejected, else the four renderings.
    fn python(docs: &[String]) -> Option<Vec<Option<Vec<String>>>> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = match Command::new("python3")
            .arg("-c")
            .arg(PY_SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                eprintln!("python3 unavailable ({e}); skipping the CPython comparison");
                return None;
            }
        };
        let mut input = String::new();
        for d in docs {
            input.push_str(&hex(d.as_bytes()));
            input.push('\n');
        }
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child.wait_with_output().unwrap();
        feeder.join().unwrap().unwrap();
        assert!(output.status.success(), "python3 failed");
        let text = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<Option<Vec<String>>> = text
            .lines()
            .map(|l| (l != "ERR").then(|| l.split(' ').map(String::from).collect()))
            .collect();
        assert_eq!(lines.len(), docs.len());
        Some(lines)
    }

    /// Documents CPython accepts that strict RFC 8259 (and this reader) rejects.
    fn python_only(doc: &str) -> bool {
        doc.contains("NaN") || doc.contains("Infinity")
    }

    #[test]
    fn json_matches_cpython() {
        let mut docs: Vec<String> = Vec::new();
        for n in NUMBERS {
            docs.push(String::from(*n));
            docs.push(format!("[{n}]"));
        }
        for p in STR_PIECES {
            docs.push(format!("\"{p}\""));
        }
        for k in KEYS {
            docs.push(format!("{{\"{k}\": 1, \"b\": 2, \"{k}\": [3]}}"));
        }
        // Every BMP code point range boundary and a sample of the rest, raw and escaped.
        let mut cps: Vec<u32> = (0..0x100).collect();
        cps.extend([
            0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x10ffff,
        ]);
        cps.extend((0..2000).map(|i| i * 557 % 0x110000));
        for cp in cps {
            if let Some(c) = char::from_u32(cp) {
                if cp >= 0x20 && c != '"' && c != '\\' {
                    docs.push(format!("\"{c}\""));
                }
            }
            if cp <= 0xffff {
                docs.push(format!("\"\\u{cp:04x}\""));
                docs.push(format!("{{\"\\u{cp:04X}\":0,\"a\":1}}"));
            }
        }
        let tricky = [
            "",
            " ",
            "[1,]",
            "{\"a\":1,}",
            "[01]",
            "[-01]",
            "[1.]",
            "[.1]",
            "[1e]",
            "[1e+]",
            "[-]",
            "[+1]",
            "[0x10]",
            "[\"\\x41\"]",
            "[\"\\u12\"]",
            "[\"\\u12G4\"]",
            "[\"\t\"]",
            "[\"\\'\"]",
            "'a'",
            "[1 2]",
            "{\"a\" 1}",
            "{1:2}",
            "{\"a\":}",
            "[true false]",
            "tru",
            "nul",
            "[]]",
            "[[]",
            "{}}",
            "\u{feff}[]",
            "[1]x",
            "[,1]",
            "[1,,2]",
            "{,}",
            "\"abc",
            "[\"\\\"]",
            "[True]",
            "\u{c}[]",
            "[1\u{c}]",
            "[\u{a0}1]",
            "[1]\u{0}",
            "[\"\\U0041\"]",
            "[1.5e]",
            "[--1]",
            "[-1.e5]",
            "[1.0e+-5]",
            "[\"a\\\nb\"]",
            "{\"a\":1]",
            "[1}",
            "\"\u{1f}\"",
            "[\"\u{0}\"]",
            "\"\\u0000\"",
            "[1e5]",
            "[-0]",
            " [ ] ",
            "\"\\ud800\"",
            "\"\\ud800\\\"",
            "[\"\\ud800\\u\"]",
            "[\"\\ud800\\uzzzz\"]",
            "[\"\\ud800\\u12\"]",
            "{\"a\":1 \"b\":2}",
        ];
        for t in tricky {
            docs.push(String::from(t));
        }
        let nesting = "[{\"a\":".repeat(32) + "1" + &"}]".repeat(32);
        docs.push(nesting);
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        for _ in 0..4000 {
            let mut d = String::new();
            gen_value(&mut rng, 0, &mut d);
            docs.push(d);
        }
        for _ in 0..4000 {
            let mut d = String::new();
            gen_value(&mut rng, 0, &mut d);
            docs.push(mutate(&mut rng, &d));
        }
        for _ in 0..1000 {
            let len = rng.below(24);
            docs.push((0..len).map(|_| rng.pick(ALPHABET)).collect());
        }

        let Some(expected) = python(&docs) else {
            return;
        };
        let mut compared = 0usize;
        let mut both_rejected = 0usize;
        let mut failures = Vec::new();
        for (doc, want) in docs.iter().zip(&expected) {
            match (Value::parse(doc), want) {
                (Err(_), None) => both_rejected += 1,
                (Err(e), Some(_)) => {
                    if !python_only(doc) {
                        failures.push(format!("rejected {doc:?} ({e:?}) which Python accepts"));
                    }
                }
                (Ok(_), None) => failures.push(format!("accepted {doc:?} which Python rejects")),
                (Ok(v), Some(want)) => {
                    for (style, want) in STYLES.iter().zip(want) {
                        compared += 1;
                        let got = hex(render(v, *style).as_bytes());
                        if &got != want {
                            failures.push(format!(
                                "{doc:?} {style:?}: got {:?}, Python {:?}",
                                render(v, *style),
                                String::from_utf8_lossy(
                                    &(0..want.len() / 2)
                                        .map(|i| u8::from_str_radix(&want[2 * i..2 * i + 2], 16)
                                            .unwrap())
                                        .collect::<Vec<u8>>()
                                )
                            ));
                        }
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures[..failures.len().min(30)].join("\n")
        );
        assert!(compared > 20_000, "{compared}");
        assert!(both_rejected > 2_000, "{both_rejected}");
        // The intentional differences: NaN/Infinity literals and nesting beyond MAX_DEPTH.
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let extra = vec![
            String::from("NaN"),
            String::from("[Infinity]"),
            String::from("-Infinity"),
            deep,
        ];
        let verdict = python(&extra).unwrap();
        for (doc, want) in extra.iter().zip(verdict) {
            assert!(want.is_some(), "Python accepts {doc:?}");
            assert!(Value::parse(doc).is_err(), "{doc:?}");
        }
    }
}
