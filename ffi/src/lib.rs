//! elicit-ffi: the C ABI of elicit-core.
//!
//! `include/elicit.h` is generated from this crate by cbindgen (see `cbindgen.toml`);
//! every comment on a public item here is copied into the header, so they are written
//! for C readers.
//!
//! This is the only crate of the workspace with `unsafe` code. The rules it follows
//! (docs/c-abi.md): opaque handles; UTF-8 JSON in as `(ptr, len)`; output into caller
//! buffers as `(buf, cap, out_len)`; `uint32_t` result codes mapped from the engine's
//! errors (compile and round) by exhaustive `match`es (in elicit-ffi-noalloc, shared with
//! the heap-free surface); every entry point checks its
//! pointers and runs inside one panic-catching wrapper; a handle that panicked is
//! poisoned.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]
#![allow(non_camel_case_types)]
// The engine's errors are large by design (names inline, no heap).
#![allow(clippy::result_large_err)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use elicit_core::{CompileError, Error, Sink};

// The version, the result codes, their mapping from the engine's errors and the step
// kinds are shared with the heap-free surface, which this library also exports (see
// the "heap-free surface" section of elicit.h).
pub use elicit_ffi_noalloc::*;

mod helpers;
mod plan;
mod round;
mod seal;

pub use helpers::*;
pub use plan::*;
pub use round::*;
pub use seal::*;

// ------------------------------------------------------------------------ limits

/// Most parameters (model-supplied arguments and elicited ones together) a plan holds.
pub const ELICIT_MAX_PARAMS: usize = 64;
/// The workspace a round gets when `workspace_size` is 0: 64 KiB.
pub const ELICIT_DEFAULT_WORKSPACE: usize = 65536;

// -------------------------------------------------------------------- shared helpers

/// A failed call: its code and the message the handle keeps.
#[derive(Debug)]
pub(crate) struct Failure {
    pub code: elicit_result,
    pub message: String,
}

impl Failure {
    /// A failure with `message` cut to fit `ELICIT_MESSAGE_CAP` (see [`bounded`]).
    pub fn new(code: elicit_result, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: bounded(message.into()),
        }
    }
    pub fn null(what: &str) -> Self {
        Failure::new(ELICIT_ERR_NULL, format!("{what} is NULL"))
    }
}

/// `message` cut at a character boundary to at most `ELICIT_MESSAGE_CAP` bytes, ending
/// in "…" when cut: every message the library keeps fits the documented capacity, even
/// one quoting a caller's arbitrarily long input (an input name, a panic's text).
pub(crate) fn bounded(mut message: String) -> String {
    const MORE: &str = "…";
    if message.len() > ELICIT_MESSAGE_CAP {
        let mut end = ELICIT_MESSAGE_CAP - MORE.len();
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push_str(MORE);
    }
    message
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::new(code_of(&e), e.to_string())
    }
}

impl From<elicit_ffi_noalloc::abi::Fail> for Failure {
    fn from(f: elicit_ffi_noalloc::abi::Fail) -> Self {
        Failure::new(f.code(), f.to_string())
    }
}

impl From<CompileError> for Failure {
    fn from(e: CompileError) -> Self {
        Failure::new(compile_code_of(&e), e.to_string())
    }
}

/// The one panic-catching wrapper: every entry point runs its body through it.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let what = if let Some(s) = payload.downcast_ref::<&str>() {
            s
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.as_str()
        } else {
            "(no message)"
        };
        bounded(format!(
            "a panic occurred inside elicit (the handle is now poisoned): {what}"
        ))
    })
}

/// Borrow `(ptr, len)` as bytes. NULL is an error (for a required input).
///
/// # Safety
/// When `ptr` is not NULL it must point to `len` readable bytes that stay unchanged
/// for `'a`.
pub(crate) unsafe fn input<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a [u8], Failure> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Failure::new(
            ELICIT_ERR_INVALID_ARGUMENT,
            format!("{what}: the length {len} is larger than PTRDIFF_MAX"),
        ));
    }
    // SAFETY: non-NULL, length bounded by isize::MAX, and the caller guarantees `len`
    // readable bytes.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Borrow an optional input: NULL (with length 0) is `None`.
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn optional_input<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<Option<&'a [u8]>, Failure> {
    if ptr.is_null() {
        if len != 0 {
            return Err(Failure::new(
                ELICIT_ERR_NULL,
                format!("{what} is NULL but its length is {len}; pass NULL with length 0 for none"),
            ));
        }
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { input(ptr, len, what) }.map(Some)
}

/// Check that bytes are UTF-8.
pub(crate) fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, Failure> {
    core::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            ELICIT_ERR_UTF8,
            format!(
                "{what} is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// A required out-param.
///
/// # Safety
/// When not NULL, `ptr` must be valid for a write of `T`.
pub(crate) unsafe fn out_param<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller guarantees a valid, writable `T` when not NULL.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(what))
}

/// Check the pointers of an output triple before anything else is looked at (the
/// heap-free surface's check, one implementation of the convention).
///
/// # Safety
/// `out_len` NULL or writable.
pub(crate) unsafe fn check_out_args<'a>(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> Result<&'a mut usize, Failure> {
    // SAFETY: forwarded from the caller.
    Ok(unsafe { elicit_ffi_noalloc::abi::check_out(buf, cap, out_len) }?)
}

/// The output convention: render with `f` into `(buf, cap)`; `*out_len` receives the
/// length written, or on `ELICIT_ERR_BUFFER_TOO_SMALL` the length needed. `buf = NULL,
/// cap = 0` is a size query (success, `*out_len` = size needed). The buffer is written
/// only when the whole output fits. The heap-free surface's implementation.
///
/// # Safety
/// `buf` must be NULL or valid for `cap` writable bytes; `out_len` NULL or writable.
pub(crate) unsafe fn write_out(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
    f: &dyn Fn(&mut dyn Sink) -> Result<(), Error>,
) -> Result<(), Failure> {
    // SAFETY: forwarded from the caller.
    Ok(unsafe { elicit_ffi_noalloc::abi::write_out(buf, cap, out_len, f) }?)
}

/// Copy `text` whole under the output convention.
///
/// # Safety
/// As [`write_out`].
pub(crate) unsafe fn write_text(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
    text: &str,
) -> Result<(), Failure> {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            s.put(text.as_bytes());
            Ok(())
        })
    }
}

/// Write an error message into an optional `(err_buf, err_cap, err_len)` triple, cut at
/// a character boundary to fit. Both pointers may be NULL.
///
/// # Safety
/// `err_buf` NULL or valid for `err_cap` writable bytes; `err_len` NULL or writable.
pub(crate) unsafe fn write_error_message(
    message: &str,
    err_buf: *mut u8,
    err_cap: usize,
    err_len: *mut usize,
) {
    // SAFETY: forwarded from the caller.
    unsafe { elicit_ffi_noalloc::abi::write_error(&message, err_buf, err_cap, err_len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cargo-c installs the library under the ABI version (SONAME libelicit.so.MAJOR)
    /// and writes it into elicit.pc: both must follow `ELICIT_ABI_VERSION_*`.
    #[test]
    fn the_installed_library_version_is_the_abi_version() {
        let manifest = include_str!("../Cargo.toml");
        let version = format!(
            "version = \"{ELICIT_ABI_VERSION_MAJOR}.{ELICIT_ABI_VERSION_MINOR}.{ELICIT_ABI_VERSION_PATCH}\""
        );
        for section in [
            "[package.metadata.capi.library]",
            "[package.metadata.capi.pkg_config]",
        ] {
            let body = manifest.split(section).nth(1).expect(section);
            let body = body.split("\n[").next().unwrap_or("");
            assert!(
                body.lines().any(|l| l.trim() == version),
                "{section}: {version}"
            );
        }
    }
}
