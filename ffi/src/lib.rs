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

// The version, the result codes, their mapping from the engine's errors and the step
// kinds are shared with the heap-free surface, which this library also exports (see
// the "heap-free surface" section of elicit.h).
pub use elicit_ffi_noalloc::*;

// The modules in the order the header reads (cbindgen follows it): plans (made first),
// rounds and their helpers, key rings and sealers, then the call level built on them.
// One group each, so rustfmt keeps the order.
mod plan;

mod round;

mod helpers;

mod seal;
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod wasm;

mod call;

pub use call::*;
pub use helpers::*;
pub use plan::*;
pub use round::*;
pub use seal::*;
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
pub use wasm::*;

// ------------------------------------------------------------------------ limits

/// Most parameters (model-supplied arguments and elicited ones together) a plan holds.
pub const ELICIT_MAX_PARAMS: usize = 64;
/// The workspace a round gets when `workspace_size` is 0: 64 KiB.
pub const ELICIT_DEFAULT_WORKSPACE: usize = 65536;

// -------------------------------------------------------------------- shared helpers

// The calling convention is the heap-free surface's, one implementation for both: the
// failure type, the argument readers, the output convention and the error triples.
pub(crate) use elicit_ffi_noalloc::abi::{
    check_out, input, optional_input, optional_text, out_param, text, utf8, Fail,
};

/// The one panic-catching wrapper: every entry point runs its body through it. A panic
/// becomes an `ELICIT_ERR_PANIC` failure whose message quotes the panic's.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Fail> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let what = if let Some(s) = payload.downcast_ref::<&str>() {
            s
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.as_str()
        } else {
            "(no message)"
        };
        Fail::owned(
            ELICIT_ERR_PANIC,
            format!("a panic occurred inside elicit (the handle is now poisoned): {what}"),
        )
    })
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
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    unsafe { elicit_ffi_noalloc::abi::write_text(buf, cap, out_len, text.as_bytes()) }
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
    unsafe {
        elicit_ffi_noalloc::abi::write_error(
            &|s| s.put(message.as_bytes()),
            err_buf,
            err_cap,
            err_len,
        )
    }
}

/// Run a constructor: the panic wrapper, and on failure its message to the optional
/// `(err_buf, err_cap, err_len)` triple.
///
/// # Safety
/// `err_buf` NULL or valid for `err_cap` writable bytes; `err_len` NULL or writable.
pub(crate) unsafe fn construct(
    f: impl FnOnce() -> Result<(), Fail>,
    (err_buf, err_cap, err_len): (*mut u8, usize, *mut usize),
) -> elicit_result {
    let fail = match catch(f) {
        Ok(Ok(())) => return ELICIT_OK,
        Ok(Err(fail)) | Err(fail) => fail,
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { write_error_message(&fail.message(), err_buf, err_cap, err_len) };
    fail.code()
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
