//! `libelicit_noalloc.a`: the heap-free C ABI of elicit (`include/elicit_noalloc.h`) as a
//! `no_std` static library without an allocator, for firmware.
//!
//! Everything it exports comes from elicit-ffi-noalloc; this crate adds what a `no_std`
//! library needs to be linked into a C program: a panic handler. It calls the C
//! library's `abort()` (newlib's and picolibc's on a device, glibc's on a host), so a
//! panic, which the engine is written never to reach (it returns errors), stops the
//! program rather than continuing in a broken state. `scripts/test-c-firmware.sh` shows
//! whether the linked firmware image contains any path to it.

#![no_std]

pub use elicit_ffi_noalloc::*;

extern "C" {
    /// The C library's `abort()`.
    fn abort() -> !;
}

/// A panic aborts: there is nothing to unwind into and no std to catch it.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: abort() takes no arguments and does not return.
    unsafe { abort() }
}
