//! The calling convention of the heap-free surface: checked inputs, out-params, the
//! output-buffer convention and messages, without an allocator.

use core::ffi::c_void;
use core::fmt;

use elicit_core::seal::Reason;
use elicit_core::{CompileError, Error, Sink};

use crate::codes::{
    code_of, compile_code_of, elicit_result, ELICIT_ERR_BUFFER_TOO_SMALL,
    ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_MEMORY_ALIGN, ELICIT_ERR_MEMORY_TOO_SMALL,
    ELICIT_ERR_NULL, ELICIT_ERR_REQUEST_STATE, ELICIT_ERR_UTF8,
};
use crate::ELICIT_NOALLOC_ALIGN;

/// A broken calling contract: `"{what} {problem}"`, with the size needed when one is
/// known.
#[derive(Debug, Clone, Copy)]
pub struct Contract {
    /// The result code.
    pub code: elicit_result,
    /// The argument at fault.
    pub what: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
    /// The size needed, when one is known.
    pub needed: Option<usize>,
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.what, self.problem)?;
        match self.needed {
            Some(n) => write!(f, " ({n} bytes needed)"),
            None => Ok(()),
        }
    }
}

/// A failed call: its code, and what its message says.
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
}

impl Fail {
    pub(crate) const fn abi(
        code: elicit_result,
        what: &'static str,
        problem: &'static str,
    ) -> Self {
        Fail::Abi(Contract {
            code,
            what,
            problem,
            needed: None,
        })
    }
    pub(crate) const fn null(what: &'static str) -> Self {
        Fail::abi(ELICIT_ERR_NULL, what, "is NULL")
    }
    /// The result code the call returns.
    pub fn code(&self) -> elicit_result {
        match self {
            Fail::Abi(c) => c.code,
            Fail::Engine(e) => code_of(e),
            Fail::Compile(e) => compile_code_of(e),
            Fail::Unseal(_) => ELICIT_ERR_REQUEST_STATE,
        }
    }
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

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Abi(c) => c.fmt(f),
            Fail::Engine(e) => write!(f, "{e}"),
            Fail::Compile(e) => write!(f, "{e}"),
            Fail::Unseal(r) => write!(f, "{} ({})", elicit_core::seal::ERROR_MESSAGE, r.as_str()),
        }
    }
}

/// Borrow `(ptr, len)` as bytes; NULL is an error (a required input).
///
/// # Safety
/// When `ptr` is not NULL it must point to `len` readable bytes that stay unchanged for
/// `'a`.
pub(crate) unsafe fn input<'a>(
    ptr: *const u8,
    len: usize,
    what: &'static str,
) -> Result<&'a [u8], Fail> {
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

/// Borrow `(ptr, len)` as UTF-8 text; NULL is an error.
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn text<'a>(
    ptr: *const u8,
    len: usize,
    what: &'static str,
) -> Result<&'a str, Fail> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { input(ptr, len, what) }?;
    core::str::from_utf8(bytes).map_err(|_| Fail::abi(ELICIT_ERR_UTF8, what, "is not valid UTF-8"))
}

/// An optional text: NULL with length 0 is `None`.
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn optional_text<'a>(
    ptr: *const u8,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a str>, Fail> {
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
    unsafe { text(ptr, len, what) }.map(Some)
}

/// A required out-param.
///
/// # Safety
/// When not NULL, `ptr` must be valid for a write of `T`.
pub(crate) unsafe fn out_param<'a, T>(ptr: *mut T, what: &'static str) -> Result<&'a mut T, Fail> {
    // SAFETY: the caller guarantees a valid, writable `T` when not NULL.
    unsafe { ptr.as_mut() }.ok_or(Fail::null(what))
}

/// Check caller memory for a `T`: not NULL, at least `size_of::<T>()` bytes, aligned to
/// `ELICIT_NOALLOC_ALIGN`. Returns it as a `*mut T` (not yet initialized).
pub(crate) fn memory<T>(mem: *mut c_void, len: usize) -> Result<*mut T, Fail> {
    if mem.is_null() {
        return Err(Fail::null("mem"));
    }
    let size = core::mem::size_of::<T>();
    if len < size {
        return Err(Fail::Abi(Contract {
            code: ELICIT_ERR_MEMORY_TOO_SMALL,
            what: "mem",
            problem: "is smaller than the *_size() query says",
            needed: Some(size),
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

/// Counts what a renderer writes.
struct Count(usize);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

impl fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Writes into a slice; only used once counting proved the output fits, or (`cut`) to
/// cut a message at a character boundary.
struct Slice<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl Sink for Slice<'_> {
    fn put(&mut self, bytes: &[u8]) {
        // Element by element: no length assertion (and no panic path) to link.
        let dst = self.buf.iter_mut().skip(self.len);
        for (d, s) in dst.zip(bytes) {
            *d = *s;
        }
        self.len += bytes.len();
    }
}

impl fmt::Write for Slice<'_> {
    /// Writes as much of `s` as fits, cut at a character boundary of `s`.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len().saturating_sub(self.len);
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        for (d, b) in self
            .buf
            .iter_mut()
            .skip(self.len)
            .zip(s.as_bytes().iter().take(n))
        {
            *d = *b;
        }
        self.len += n;
        if n < s.len() {
            // Full: stop writing (later pieces must not land after a cut).
            self.buf = &mut [];
        }
        Ok(())
    }
}

/// Check the pointers of an output triple before anything else.
///
/// # Safety
/// `out_len` NULL or writable.
pub unsafe fn check_out<'a>(
    buf: *mut u8,
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
/// cap = 0` is a size query. The buffer is written only when the whole output fits.
///
/// # Safety
/// `buf` NULL or valid for `cap` writable bytes; `out_len` NULL or writable.
pub unsafe fn write_out(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
    f: &dyn Fn(&mut dyn Sink) -> Result<(), Error>,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    let out_len = unsafe { check_out(buf, cap, out_len) }?;
    let mut count = Count(0);
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
    let slice = unsafe { core::slice::from_raw_parts_mut(buf, cap) };
    let mut sink = Slice { buf: slice, len: 0 };
    f(&mut sink)?;
    *out_len = sink.len;
    Ok(())
}

/// A message under the output convention (whole, or `ELICIT_ERR_BUFFER_TOO_SMALL`).
///
/// # Safety
/// As [`write_out`].
pub(crate) unsafe fn write_display(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
    message: &dyn fmt::Display,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    let out_len = unsafe { check_out(buf, cap, out_len) }?;
    let mut count = Count(0);
    let _ = fmt::write(&mut count, format_args!("{message}"));
    let needed = count.0;
    if buf.is_null() {
        *out_len = needed;
        return Ok(());
    }
    if needed > cap {
        *out_len = needed;
        return Err(Fail::abi(
            ELICIT_ERR_BUFFER_TOO_SMALL,
            "buf",
            "is too small for the message",
        ));
    }
    // SAFETY: non-NULL, bounded, the caller guarantees `cap` writable bytes.
    let slice = unsafe { core::slice::from_raw_parts_mut(buf, cap) };
    let mut sink = Slice { buf: slice, len: 0 };
    let _ = fmt::write(&mut sink, format_args!("{message}"));
    *out_len = sink.len;
    Ok(())
}

/// Write a failure's message into an optional `(err_buf, err_cap, err_len)` triple, cut
/// at a character boundary to fit. Both pointers may be NULL.
///
/// # Safety
/// `err_buf` NULL or valid for `err_cap` writable bytes; `err_len` NULL or writable.
pub unsafe fn write_error(
    message: &dyn fmt::Display,
    err_buf: *mut u8,
    err_cap: usize,
    err_len: *mut usize,
) {
    let mut n = 0;
    if !err_buf.is_null() && err_cap <= isize::MAX as usize {
        // SAFETY: non-NULL, bounded, the caller guarantees `err_cap` writable bytes.
        let slice = unsafe { core::slice::from_raw_parts_mut(err_buf, err_cap) };
        let mut sink = Slice { buf: slice, len: 0 };
        let _ = fmt::write(&mut sink, format_args!("{message}"));
        n = sink.len;
    }
    // SAFETY: the caller guarantees `err_len` is NULL or writable.
    if let Some(len) = unsafe { err_len.as_mut() } {
        *len = n;
    }
}

/// Run a constructor: on failure, its message goes to the optional error triple.
///
/// # Safety
/// As [`write_error`].
pub(crate) unsafe fn construct(
    run: impl FnOnce() -> Result<(), Fail>,
    err_buf: *mut u8,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    match run() {
        Ok(()) => crate::ELICIT_OK,
        Err(fail) => {
            // SAFETY: forwarded from the caller.
            unsafe { write_error(&fail, err_buf, err_cap, err_len) };
            fail.code()
        }
    }
}
