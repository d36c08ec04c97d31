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

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, TryLockError};

// The version, the result codes, their mapping from the engine's errors and the step
// kinds are shared with the heap-free surface, which this library also exports (see
// the "heap-free surface" section of elicit.h).
pub use elicit_ffi_noalloc::*;

// The modules in the order the header reads (cbindgen follows it), constructors first
// in each: plans (made first), key rings and sealers, the call level (servers and
// calls, what most hosts need), then the round level the calls are built on and its
// helpers. One group each, so rustfmt keeps the order.
mod plan;

mod seal;

mod call;

mod round;

mod helpers;
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod wasm;

#[cfg(any(test, feature = "test-helpers"))]
#[doc(hidden)]
pub mod testing;

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
pub(crate) use elicit_ffi_noalloc::abi::{check_out, optional_text, out_param, text, utf8, Fail};

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

/// The state of a handle that one thread enters at a time (a round, a call): what every
/// entry point records in it, the message of its latest failure and whether a panic
/// poisoned it. `enter` and `read_last_error` are the one way into both handles.
pub(crate) trait Recorded {
    /// The latest failure's message and the poison flag.
    fn record(&mut self) -> (&mut String, &mut bool);
}

/// Run `f` on the state behind `lock`: the busy check (another thread inside:
/// `ELICIT_ERR_BUSY`, never a wait), the poison check, the panic wrapper, recording the
/// message of a failure, poisoning on panic.
pub(crate) fn enter<S: Recorded>(
    lock: &Mutex<S>,
    f: impl FnOnce(&mut S) -> Result<(), Fail>,
) -> elicit_result {
    let mut guard = match lock.try_lock() {
        Ok(state) => state,
        Err(TryLockError::WouldBlock) => return ELICIT_ERR_BUSY,
        // Every entry point runs inside `catch`, so no panic unwinds through the lock;
        // were one to, the handle is poisoned as after any panic.
        Err(TryLockError::Poisoned(p)) => {
            let mut state = p.into_inner();
            *state.record().1 = true;
            state
        }
    };
    let state = &mut *guard;
    if *state.record().1 {
        return ELICIT_ERR_POISONED;
    }
    let outcome = catch(|| f(&mut *state));
    let (last_error, poisoned) = state.record();
    match outcome {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(fail)) => {
            *last_error = fail.message();
            fail.code()
        }
        Err(panic) => {
            *poisoned = true;
            *last_error = panic.message();
            ELICIT_ERR_PANIC
        }
    }
}

/// The `*_last_error` reader of a locked handle: its latest failure's message under the
/// output convention, on a poisoned handle too.
///
/// # Safety
/// As [`write_out`](elicit_ffi_noalloc::abi::write_out).
pub(crate) unsafe fn read_last_error<S: Recorded>(
    lock: &Mutex<S>,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    let mut state = match lock.try_lock() {
        Ok(state) => state,
        Err(TryLockError::WouldBlock) => return ELICIT_ERR_BUSY,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
    };
    let message = state.record().0.as_str();
    // SAFETY: forwarded from the caller's contract.
    match catch(|| unsafe { write_text(buf, cap, out_len, message) }) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(fail)) | Err(fail) => fail.code(),
    }
}

/// Copy `text` whole under the output convention.
///
/// # Safety
/// As [`write_out`].
pub(crate) unsafe fn write_text(
    buf: *mut c_char,
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
    err_buf: *mut c_char,
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
    (err_buf, err_cap, err_len): (*mut c_char, usize, *mut usize),
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
