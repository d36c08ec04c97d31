//! Reading: validation of a whole document (iterative, never recursing, never
//! panicking), the one-pass object walk the engine's readers use, and navigation of
//! validated text ([`Value`], [`Str`] and their iterators).

use core::cmp::Ordering;

use super::float::parse_f64;
use super::write::SHORT_ESCAPES;
use super::{Items, JsonError, JsonErrorKind, Kind, Members, Number, Str, Units, Value, MAX_DEPTH};

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
pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The 8 bytes at `pos` as a little-endian word, when there are 8.
pub(super) fn word_at(b: &[u8], pos: usize) -> Option<u64> {
    let chunk: [u8; 8] = b.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// Non-zero when some byte of `w` equals `c` (SWAR; no false negatives, and a word
/// with no such byte gives exactly 0).
pub(super) fn has_byte(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * u64::from(c));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Non-zero when some byte of `w` is below 0x20 (exact for a zero result).
pub(super) fn has_control(w: u64) -> u64 {
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
    let end = contents_end(b, pos + 1)?;
    if b.get(end) == Some(&b'"') {
        Ok(end + 1)
    } else {
        Err(syntax(end))
    }
}

/// Validate string contents from `pos`: the index of the first unescaped `"`, or the end
/// of `b`; an error at a control character or a malformed escape. Shared by
/// [`scan_string`] and [`Str::from_contents`] (inlined into the first: every string
/// of every input goes through it).
#[inline(always)]
fn contents_end(b: &[u8], mut pos: usize) -> Result<usize, JsonError> {
    loop {
        pos = skip_plain_words(b, pos, true);
        let Some(&c) = b.get(pos) else {
            return Ok(pos);
        };
        match c {
            b'"' => return Ok(pos),
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
    // A scalar needs no container stack. The containers' walk is a function of its own
    // (`scan_nested`): in one body, its registers were saved and restored on every call,
    // for a string as for an object (most calls are for strings).
    match b.get(start) {
        Some(b'"') => scan_string(b, start),
        Some(b't') => scan_literal(b, start, b"true"),
        Some(b'f') => scan_literal(b, start, b"false"),
        Some(b'n') => scan_literal(b, start, b"null"),
        Some(b'-' | b'0'..=b'9') => scan_number(b, start),
        _ => scan_nested(b, start, open),
    }
}

/// [`scan_value`] for a value that is not a scalar (an object, an array, or no value).
#[inline(never)]
fn scan_nested(b: &[u8], start: usize, open: usize) -> Result<usize, JsonError> {
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

/// The common form of an answer's content, `{"value":<scalar>}` at `start` with no
/// whitespace (inside `open` containers), validated without the object walk: the index
/// after its `}`. `None` for any other form, which the caller then reads in general (the
/// same validation, pinned by the callers' tests).
pub(crate) fn scan_value_object(b: &[u8], start: usize, open: usize) -> Option<usize> {
    const HEAD: &[u8] = b"{\"value\":";
    let at = start.checked_add(HEAD.len())?;
    if open >= MAX_DEPTH || b.get(start..at)? != HEAD || matches!(b.get(at), Some(b'{' | b'[')) {
        return None;
    }
    let end = scan_value(b, at, open + 1).ok()?;
    (b.get(end) == Some(&b'}')).then_some(end + 1)
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
pub(super) fn key_eq(a: Str<'_>, b: Str<'_>) -> bool {
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
        let mut body = b.get(start..).unwrap_or_default();
        while let [rest @ .., last] = body {
            if !is_ws(*last) {
                break;
            }
            body = rest;
        }
        Ok(Value(text.get(start..start + body.len()).unwrap_or("")))
    }
    /// A value from text already validated as one JSON value (no surrounding
    /// whitespace): a byte-for-byte copy of a parsed value's [`Value::raw`].
    pub(crate) const fn validated(text: &'a str) -> Value<'a> {
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
    /// The number as the nearest `f64`, integer literals too (past 2^53 rounded, ties to
    /// even; overflow ±inf), by the engine's own float parser; `None` if this is not a
    /// number.
    pub fn as_f64(self) -> Option<f64> {
        if self.kind() != Kind::Number {
            return None;
        }
        Some(parse_f64(self.0).unwrap_or(f64::NAN))
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
    /// `get("value")`, with the common form `{"value":…}` (one member, no whitespace: a
    /// wrapped answer's content, read on every round) taken without walking the members
    /// (the same result, pinned by a test).
    pub(crate) fn get_value(self) -> Option<Value<'a>> {
        // Validated text: a value right after the head that ends at the last byte (the
        // closing brace) is the only member. Found by the walk's own routine for
        // validated text (no second one in a firmware image), not validated again;
        // anything else walks.
        const HEAD: &[u8] = b"{\"value\":";
        let b = self.0.as_bytes();
        if b.starts_with(HEAD) && value_end(b, HEAD.len()) + 1 == b.len() {
            return self.0.get(HEAD.len()..b.len() - 1).map(Value);
        }
        self.get("value")
    }
    /// The `value` member of content known to be in the form `{"value":<scalar>}` (read
    /// by `scan_value_object`, which found where that value ends): the text between the
    /// head and the closing brace, without looking for its end again. Equal to
    /// [`Value::get_value`] for such content (pinned by the state reader's test).
    pub(crate) fn wrapped_value(self) -> Option<Value<'a>> {
        const HEAD: usize = b"{\"value\":".len();
        self.0.get(HEAD..self.0.len().checked_sub(1)?).map(Value)
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
    #[cfg(any(test, feature = "serde"))]
    pub(crate) fn from_contents(s: &'a str) -> Option<Str<'a>> {
        // Valid contents run to the end without meeting an unescaped quote.
        (contents_end(s.as_bytes(), 0).ok()? == s.len()).then_some(Str(s))
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
    pub(crate) const fn validated(contents: &'a str) -> Str<'a> {
        Str(contents)
    }
    /// True when the decoded string equals `s`.
    pub fn eq_str(self, s: &str) -> bool {
        // Every escape is longer than the UTF-8 of what it stands for, so contents no
        // longer than `s` equal it only byte for byte, and longer ones only through an
        // escape (no scan for a backslash on the common paths).
        if self.0.len() <= s.len() {
            // Byte by byte in place: the names compared here are short, and a call to
            // `memcmp` cost more than the compare.
            return self.0.len() == s.len() && self.0.bytes().zip(s.bytes()).all(|(a, b)| a == b);
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
            // The two-character escapes (the writer's table read backwards); `/` is
            // itself.
            letter => {
                let c = SHORT_ESCAPES
                    .iter()
                    .find(|&&(_, l)| l == letter)
                    .map_or(letter, |&(c, _)| c);
                (u32::from(c), 2)
            }
        };
        self.rest = self.rest.get(used..).unwrap_or("");
        Some(cp)
    }
}
