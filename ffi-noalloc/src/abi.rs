//! The calling convention both C surfaces share: the one failure type
//! ([`Fail`](crate::abi::Fail)), the
//! argument readers (inputs, texts, out-params, caller memory), the output-buffer
//! convention and the messages. Without an allocator; with the `alloc` feature (the
//! hosted library) a failure may also carry an owned message.
//!
//! Messages are written without `core::fmt` unless the `detail` feature is on: a
//! failure of the calling contract is static text (and at most one number written
//! here), an engine error is its code's name (`elicit_result_name`), plus the size
//! needed where the error has one, and a sealing call's `detail` for a generic failure
//! is its code's name. With `detail`, an engine error gives the engine's own text
//! (`Display`: names, paths, values) and a generic `detail` the code's description
//! (`elicit_result_str`), as the hosted library always does. A firmware that never
//! needs those texts keeps `core::fmt` and the descriptions out of its image.

use core::ffi::{c_char, c_void, CStr};

use elicit_core::json::CountSink;
use elicit_core::seal::Reason;
use elicit_core::{CompileError, Error, Sink, SliceSink};

use crate::codes::{
    code_of, compile_code_of, elicit_result, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_MEMORY_ALIGN,
    ELICIT_ERR_MEMORY_TOO_SMALL, ELICIT_ERR_NULL, ELICIT_ERR_REQUEST_STATE, ELICIT_ERR_UTF8,
};
use crate::ELICIT_NOALLOC_ALIGN;

// The sealing calls' readers (the request a token is bound to, the randomness of a seal).
pub use crate::seal::{entropy, request, request_entropy, Request};
// The round entry points' bodies.
pub use crate::round::{input_requests, input_schema, poll, required_capabilities, value_of};

/// A number a contract message ends with: `before`, the number in decimal, `after`
/// (e.g. `" ("`, 24, `" bytes needed)"`).
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// The text before the number.
    pub before: &'static str,
    /// The number.
    pub n: usize,
    /// The text after it.
    pub after: &'static str,
}

/// A broken calling contract: `"{what} {problem}"`, then the figure when there is one.
#[derive(Debug, Clone, Copy)]
pub struct Contract {
    /// The result code.
    pub code: elicit_result,
    /// The argument at fault.
    pub what: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
    /// A number the message ends with (a size needed, an offset), when one is known.
    pub figure: Option<Figure>,
}

impl Contract {
    fn write(&self, out: &mut dyn Sink) {
        out.put(self.what.as_bytes());
        out.put(b" ");
        out.put(self.problem.as_bytes());
        if let Some(f) = self.figure {
            out.put(f.before.as_bytes());
            put_decimal(out, f.n);
            out.put(f.after.as_bytes());
        }
    }
}

/// A failed call of either surface: its code, and what its message says.
#[derive(Debug, Clone)]
pub enum Fail {
    /// The calling contract.
    Abi(Contract),
    /// A round error from the engine.
    Engine(Error),
    /// A compile (or plan-loading) error from the engine.
    Compile(CompileError),
    /// An unseal rejection: one code, the reason for the log.
    Unseal(Reason),
    /// A seal or unseal call's failure with its static, NUL-terminated detail (what the
    /// `detail` out-param of the sealing functions receives).
    Sealing {
        /// The result code.
        code: elicit_result,
        /// The detail.
        detail: &'static CStr,
    },
    /// A message made for this failure (the hosted library's, which quotes the
    /// caller's input: names, values, lengths).
    #[cfg(feature = "alloc")]
    Owned {
        /// The result code.
        code: elicit_result,
        /// The message.
        message: alloc::string::String,
    },
}

impl Fail {
    /// A contract failure without a figure.
    pub const fn abi(code: elicit_result, what: &'static str, problem: &'static str) -> Self {
        Fail::Abi(Contract {
            code,
            what,
            problem,
            figure: None,
        })
    }
    /// `"{what} is NULL"`.
    pub const fn null(what: &'static str) -> Self {
        Fail::abi(ELICIT_ERR_NULL, what, "is NULL")
    }
    /// A failure with a message made for it.
    #[cfg(feature = "alloc")]
    pub fn owned(code: elicit_result, message: impl Into<alloc::string::String>) -> Self {
        Fail::Owned {
            code,
            message: message.into(),
        }
    }
    /// The result code the call returns.
    pub fn code(&self) -> elicit_result {
        match self {
            Fail::Abi(c) => c.code,
            Fail::Engine(e) => code_of(e),
            Fail::Compile(e) => compile_code_of(e),
            Fail::Unseal(_) => ELICIT_ERR_REQUEST_STATE,
            Fail::Sealing { code, .. } => *code,
            #[cfg(feature = "alloc")]
            Fail::Owned { code, .. } => *code,
        }
    }
    /// The static, NUL-terminated detail of a sealing call's failure: the reason of a
    /// rejected token, the detail given, or else the code's description (its name
    /// without the `detail` feature).
    pub fn detail(&self) -> &'static CStr {
        match self {
            Fail::Unseal(r) => crate::seal::reason_cstr(*r),
            Fail::Sealing { detail, .. } => detail,
            #[cfg(feature = "detail")]
            other => crate::codes::result_cstr(other.code()),
            #[cfg(not(feature = "detail"))]
            other => crate::codes::result_name(other.code()),
        }
    }
    /// Write the message (see the module documentation for what it says).
    pub fn write_message(&self, out: &mut dyn Sink) {
        match self {
            Fail::Abi(c) => c.write(out),
            Fail::Engine(e) => engine_message(e, out),
            Fail::Compile(e) => compile_message(e, out),
            Fail::Unseal(r) => {
                out.put(elicit_core::seal::ERROR_MESSAGE.as_bytes());
                out.put(b" (");
                out.put(r.as_str().as_bytes());
                out.put(b")");
            }
            Fail::Sealing { detail, .. } => out.put(detail.to_bytes()),
            #[cfg(feature = "alloc")]
            Fail::Owned { message, .. } => out.put(message.as_bytes()),
        }
    }
    /// The message as a string, cut at a character boundary to at most
    /// `ELICIT_MESSAGE_CAP` bytes (ending in "…" when cut): what a hosted handle keeps.
    #[cfg(feature = "alloc")]
    pub fn message(&self) -> alloc::string::String {
        let mut bytes = alloc::vec::Vec::new();
        self.write_message(&mut bytes);
        bounded(alloc::string::String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// `message` cut at a character boundary to at most `ELICIT_MESSAGE_CAP` bytes, ending
/// in "…" when cut: every message a hosted handle keeps fits the documented capacity,
/// even one quoting a caller's arbitrarily long input (an input name, a panic's text).
#[cfg(feature = "alloc")]
pub fn bounded(mut message: alloc::string::String) -> alloc::string::String {
    const MORE: &str = "…";
    if message.len() > crate::ELICIT_MESSAGE_CAP {
        let mut end = crate::ELICIT_MESSAGE_CAP - MORE.len();
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push_str(MORE);
    }
    message
}

/// The message of an engine round error: with `detail` its own text, else the code's
/// name and the size needed where the error has one.
fn engine_message(e: &Error, out: &mut dyn Sink) {
    #[cfg(feature = "detail")]
    display(e, out);
    #[cfg(not(feature = "detail"))]
    {
        out.put(crate::codes::result_name(code_of(e)).to_bytes());
        let (needed, what): (usize, &[u8]) = match e {
            Error::Workspace { needed } => (*needed, b" more bytes needed)"),
            Error::BufferTooSmall { needed } => (*needed, b" bytes needed)"),
            _ => return,
        };
        out.put(b" (");
        put_decimal(out, needed);
        out.put(what);
    }
}

/// The message of a compile error: with `detail` its own text, else the code's name.
fn compile_message(e: &CompileError, out: &mut dyn Sink) {
    #[cfg(feature = "detail")]
    display(e, out);
    #[cfg(not(feature = "detail"))]
    out.put(crate::codes::result_name(compile_code_of(e)).to_bytes());
}

/// Render a `Display` into a sink (the `detail` feature's one use of `core::fmt`).
#[cfg(feature = "detail")]
fn display(value: &dyn core::fmt::Display, out: &mut dyn Sink) {
    /// `core::fmt::Write` over a sink.
    struct Text<'s>(&'s mut dyn Sink);
    impl core::fmt::Write for Text<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0.put(s.as_bytes());
            Ok(())
        }
    }
    // Writing into a sink cannot fail.
    let _ = core::fmt::write(&mut Text(out), format_args!("{value}"));
}

/// Write `n` in decimal.
fn put_decimal(out: &mut dyn Sink, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    for d in digits.iter_mut().rev() {
        // `n % 10` is below 10: the cast keeps it whole.
        *d = b'0' + (n % 10) as u8;
        start -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.put(digits.get(start..).unwrap_or(&[]));
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Engine(e)
    }
}

impl From<CompileError> for Fail {
    fn from(e: CompileError) -> Self {
        Fail::Compile(e)
    }
}

/// Borrow `(ptr, len)` as bytes; NULL is an error (a required input).
///
/// # Safety
/// When `ptr` is not NULL it must point to `len` readable bytes that stay unchanged for
/// `'a`.
pub unsafe fn input<'a>(ptr: *const u8, len: usize, what: &'static str) -> Result<&'a [u8], Fail> {
    if ptr.is_null() {
        return Err(Fail::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            what,
            "has a length larger than PTRDIFF_MAX",
        ));
    }
    // SAFETY: non-NULL, length bounded by isize::MAX, and the caller guarantees `len`
    // readable bytes for 'a.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// An optional input: NULL with length 0 is `None`.
///
/// # Safety
/// As [`input`].
pub unsafe fn optional_input<'a>(
    ptr: *const u8,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a [u8]>, Fail> {
    if ptr.is_null() {
        if len != 0 {
            return Err(Fail::abi(
                ELICIT_ERR_NULL,
                what,
                "is NULL with a non-zero length; pass NULL with length 0 for none",
            ));
        }
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { input(ptr, len, what) }.map(Some)
}

/// Check that bytes are UTF-8 (the message gives the offset of the first bad byte).
pub fn utf8<'a>(bytes: &'a [u8], what: &'static str) -> Result<&'a str, Fail> {
    core::str::from_utf8(bytes).map_err(|e| {
        Fail::Abi(Contract {
            code: ELICIT_ERR_UTF8,
            what,
            problem: "is not valid UTF-8",
            figure: Some(Figure {
                before: " (invalid byte at offset ",
                n: e.valid_up_to(),
                after: ")",
            }),
        })
    })
}

/// Borrow `(ptr, len)` as UTF-8 text; NULL is an error.
///
/// # Safety
/// As [`input`].
pub unsafe fn text<'a>(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
) -> Result<&'a str, Fail> {
    // SAFETY: forwarded from the caller.
    utf8(unsafe { input(ptr.cast(), len, what) }?, what)
}

/// An optional text: NULL with length 0 is `None`.
///
/// # Safety
/// As [`input`].
pub unsafe fn optional_text<'a>(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a str>, Fail> {
    // SAFETY: forwarded from the caller.
    unsafe { optional_input(ptr.cast(), len, what) }?
        .map(|b| utf8(b, what))
        .transpose()
}

/// A required out-param.
///
/// # Safety
/// When not NULL, `ptr` must be valid for a write of `T`.
pub unsafe fn out_param<'a, T>(ptr: *mut T, what: &'static str) -> Result<&'a mut T, Fail> {
    // SAFETY: the caller guarantees a valid, writable `T` when not NULL.
    unsafe { ptr.as_mut() }.ok_or(Fail::null(what))
}

/// `(ptr, len)` as a writable buffer: NULL with length 0 is an empty one.
///
/// # Safety
/// When `ptr` is not NULL it must be valid for `len` writable bytes used by nothing
/// else for `'a`.
pub unsafe fn buffer<'a>(
    ptr: *mut u8,
    len: usize,
    what: &'static str,
    len_name: &'static str,
) -> Result<&'a mut [u8], Fail> {
    if ptr.is_null() {
        if len != 0 {
            return Err(Fail::abi(
                ELICIT_ERR_NULL,
                what,
                "is NULL with a non-zero length; pass NULL with length 0 for none",
            ));
        }
        return Ok(&mut []);
    }
    if len > isize::MAX as usize {
        return Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            len_name,
            "is larger than PTRDIFF_MAX",
        ));
    }
    // SAFETY: non-NULL, bounded; the caller gives these bytes for 'a.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, len) })
}

/// The names `key_ring` readers give `keys[i]` (the most keys either surface takes).
pub const KEY_NAMES: [&str; 8] = [
    "keys[0]", "keys[1]", "keys[2]", "keys[3]", "keys[4]", "keys[5]", "keys[6]", "keys[7]",
];

/// Read `key_count` keys from the C arrays `keys` and `key_lens` into `secrets` (whose
/// length is the most keys accepted; more is `ELICIT_ERR_INVALID_ARGUMENT`). Returns the
/// keys read.
///
/// # Safety
/// `keys` and `key_lens` NULL or valid for `key_count` reads, each `keys[i]` valid for
/// `key_lens[i]` readable bytes for `'a`.
pub unsafe fn keys<'a, 's>(
    keys: *const *const u8,
    key_lens: *const usize,
    key_count: usize,
    secrets: &'s mut [&'a [u8]],
) -> Result<&'s [&'a [u8]], Fail> {
    if key_count == 0 || key_count > secrets.len() {
        return Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            "key_count",
            "must be 1 to the most keys a ring holds (ELICIT_MAX_KEYS, ELICIT_NOALLOC_MAX_KEYS)",
        ));
    }
    if keys.is_null() {
        return Err(Fail::null("keys"));
    }
    if key_lens.is_null() {
        return Err(Fail::null("key_lens"));
    }
    for (i, (secret, what)) in secrets
        .iter_mut()
        .zip(KEY_NAMES)
        .take(key_count)
        .enumerate()
    {
        // SAFETY: the caller guarantees `key_count` readable entries in each array.
        let (ptr, len) = unsafe { (*keys.add(i), *key_lens.add(i)) };
        // SAFETY: forwarded from the caller's contract.
        *secret = unsafe { input(ptr, len, what) }?;
    }
    Ok(secrets.get(..key_count).unwrap_or(&[]))
}

/// Check caller memory for a `T`: not NULL, at least `size_of::<T>()` bytes, aligned to
/// `ELICIT_NOALLOC_ALIGN`. Returns it as a `*mut T` (not yet initialized).
pub fn memory<T>(mem: *mut c_void, len: usize) -> Result<*mut T, Fail> {
    if mem.is_null() {
        return Err(Fail::null("mem"));
    }
    let size = core::mem::size_of::<T>();
    if len < size {
        return Err(Fail::Abi(Contract {
            code: ELICIT_ERR_MEMORY_TOO_SMALL,
            what: "mem",
            problem: "is smaller than the *_size() query says",
            figure: Some(Figure {
                before: " (",
                n: size,
                after: " bytes needed)",
            }),
        }));
    }
    if !(mem as usize).is_multiple_of(ELICIT_NOALLOC_ALIGN) {
        return Err(Fail::abi(
            ELICIT_ERR_MEMORY_ALIGN,
            "mem",
            "is not aligned to ELICIT_NOALLOC_ALIGN (16) bytes",
        ));
    }
    Ok(mem.cast())
}

/// Check the pointers of an output triple before anything else.
///
/// # Safety
/// `out_len` NULL or writable.
pub unsafe fn check_out<'a>(
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> Result<&'a mut usize, Fail> {
    // SAFETY: forwarded from the caller.
    let out_len = unsafe { out_param(out_len, "out_len") }?;
    if buf.is_null() && cap != 0 {
        return Err(Fail::abi(
            ELICIT_ERR_NULL,
            "buf",
            "is NULL with a non-zero cap; pass NULL with cap 0 for a size query",
        ));
    }
    if cap > isize::MAX as usize {
        return Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            "cap",
            "is larger than PTRDIFF_MAX",
        ));
    }
    Ok(out_len)
}

/// The output convention: render with `f` into `(buf, cap)`; `*out_len` receives the
/// length written, or on `ELICIT_ERR_BUFFER_TOO_SMALL` the length needed; `buf = NULL,
/// cap = 0` is a size query. The buffer is written only when the whole output fits
/// (`f` runs twice: counting, then writing).
///
/// # Safety
/// `buf` NULL or valid for `cap` writable bytes; `out_len` NULL or writable.
pub unsafe fn write_out(
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    f: &dyn Fn(&mut dyn Sink) -> Result<(), Error>,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    let out_len = unsafe { check_out(buf, cap, out_len) }?;
    let mut count = CountSink(0);
    f(&mut count)?;
    let needed = count.0;
    if buf.is_null() {
        *out_len = needed;
        return Ok(());
    }
    if needed > cap {
        *out_len = needed;
        return Err(Fail::Engine(Error::BufferTooSmall { needed }));
    }
    // SAFETY: non-NULL, `cap` bounded by isize::MAX, the caller guarantees `cap` bytes.
    let slice = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap) };
    let mut sink = SliceSink::new(slice);
    f(&mut sink)?;
    *out_len = sink.needed();
    Ok(())
}

/// Copy `text` whole under the output convention.
///
/// # Safety
/// As [`write_out`].
pub unsafe fn write_text(
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    text: &[u8],
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            s.put(text);
            Ok(())
        })
    }
}

/// A failure's message under the output convention (whole, or
/// `ELICIT_ERR_BUFFER_TOO_SMALL`); `None` is the empty message.
///
/// # Safety
/// As [`write_out`].
pub unsafe fn write_message(
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    fail: Option<&Fail>,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            if let Some(f) = fail {
                f.write_message(s);
            }
            Ok(())
        })
    }
}

/// Write `message` into an optional `(err_buf, err_cap, err_len)` triple, cut at a
/// character boundary to fit. Both pointers may be NULL.
///
/// # Safety
/// `err_buf` NULL or valid for `err_cap` writable bytes; `err_len` NULL or writable.
pub unsafe fn write_error(
    message: &dyn Fn(&mut dyn Sink),
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) {
    let mut n = 0;
    if !err_buf.is_null() && err_cap <= isize::MAX as usize {
        // SAFETY: non-NULL, bounded, the caller guarantees `err_cap` writable bytes.
        let slice = unsafe { core::slice::from_raw_parts_mut(err_buf.cast::<u8>(), err_cap) };
        let mut sink = Prefix {
            buf: slice,
            len: 0,
            cut: false,
        };
        message(&mut sink);
        n = sink.len;
    }
    // SAFETY: the caller guarantees `err_len` is NULL or writable.
    if let Some(len) = unsafe { err_len.as_mut() } {
        *len = n;
    }
}

/// A sink that keeps the longest prefix of what is written that fits its buffer, cut at
/// a character boundary. Core's [`SliceSink`] writes each piece whole or not at all
/// (right for outputs, which are all-or-nothing); a message is cut instead.
struct Prefix<'b> {
    buf: &'b mut [u8],
    len: usize,
    cut: bool,
}

impl Sink for Prefix<'_> {
    /// Writes as much of `bytes` (whole UTF-8 text: every writer puts whole `str`s) as
    /// fits, cut at a character boundary; nothing after a cut. Bytes past the cut are
    /// left untouched.
    fn put(&mut self, bytes: &[u8]) {
        if self.cut {
            return;
        }
        let mut n = bytes.len().min(self.buf.len().saturating_sub(self.len));
        // Back off to the start of a character (not a UTF-8 continuation byte).
        while n < bytes.len() && n > 0 && bytes.get(n).is_some_and(|b| b & 0xC0 == 0x80) {
            n -= 1;
        }
        let dst = self.buf.iter_mut().skip(self.len);
        for (d, s) in dst.zip(bytes.iter().take(n)) {
            *d = *s;
        }
        self.len += n;
        self.cut = n < bytes.len();
    }
}

/// Run a constructor of the heap-free surface: on failure, its message goes to the
/// optional error triple.
///
/// # Safety
/// As [`write_error`].
pub(crate) unsafe fn construct(
    run: impl FnOnce() -> Result<(), Fail>,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    match run() {
        Ok(()) => crate::ELICIT_OK,
        Err(fail) => {
            // SAFETY: forwarded from the caller.
            unsafe { write_error(&|s| fail.write_message(s), err_buf, err_cap, err_len) };
            fail.code()
        }
    }
}

/// The body of a reader that writes one of the engine's outputs under the output
/// convention: `read!(handle, buf, cap, out_len, |engine, sink| expression)`, run
/// through the calling surface's own `with_round` (the name is resolved where the macro
/// is used). The one shape of the `*_resolve_inputs`, `*_ask`, `*_values` and
/// `*_request_state` entry points of both surfaces.
#[doc(hidden)]
#[macro_export]
macro_rules! read {
    ($handle:expr, $buf:expr, $cap:expr, $out_len:expr, |$r:ident, $s:ident| $write:expr) => {
        // SAFETY: forwarded from the entry point's contract.
        unsafe {
            with_round($handle, |$r| {
                $crate::abi::write_out($buf, $cap, $out_len, &|$s| $write)
            })
        }
    };
}

/// The body of an answer that hands a text to the engine: `answer!(handle, ptr, len,
/// method)` reads `(ptr, len)` as UTF-8 (an error names the argument `ptr`) and calls
/// the engine's `method` with it, through the calling surface's own `with_round`. The
/// one shape of the `*_resolve_value`, `*_resolve_question`, `*_resolve_failed` and
/// `*_answer` entry points of both surfaces.
#[doc(hidden)]
#[macro_export]
macro_rules! answer {
    ($handle:expr, $ptr:ident, $len:expr, $method:ident) => {
        // SAFETY: forwarded from the entry point's contract.
        unsafe {
            with_round($handle, |r| {
                Ok(r.$method($crate::abi::text($ptr, $len, stringify!($ptr))?)?)
            })
        }
    };
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    fn message(f: &Fail) -> String {
        let mut v: Vec<u8> = Vec::new();
        f.write_message(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn contract_messages_carry_their_figure() {
        let f = utf8(b"ab\xff", "name").unwrap_err();
        assert_eq!(f.code(), ELICIT_ERR_UTF8);
        assert_eq!(
            message(&f),
            "name is not valid UTF-8 (invalid byte at offset 2)"
        );
        let mut d = Vec::new();
        for n in [0, 7, 10, 12345, usize::MAX] {
            d.clear();
            put_decimal(&mut d, n);
            assert_eq!(String::from_utf8(d.clone()).unwrap(), std::format!("{n}"));
        }
    }

    #[test]
    fn error_triples_are_cut_at_a_character_boundary() {
        let mut buf = [0u8; 4];
        let mut n = 99;
        // SAFETY: a 4-byte buffer and a writable length.
        unsafe {
            write_error(
                &|s| s.put("aé€".as_bytes()),
                buf.as_mut_ptr().cast(),
                4,
                &mut n,
            )
        };
        assert_eq!(&buf[..n], "aé".as_bytes());
    }
}
