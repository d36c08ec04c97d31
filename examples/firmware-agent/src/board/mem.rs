//! The memory routines the compiler calls (`memcpy`, `memset`, `memcmp` and, on Arm, the
//! run-time ABI's `__aeabi_memcpy*`, `__aeabi_memset*`, `__aeabi_memclr*`), one byte at a
//! time.
//!
//! They replace compiler_builtins' word-at-a-time versions (its definitions are weak):
//! 1,492 B less flash on mps2-an386 (those were 1,696 B: `memcpy` alone 730 B, an entry
//! of 150 to 210 B per alignment variant, `memcmp` 116 B), at the cost of a byte per loop
//! turn. The agent copies buffers of a request's size (a few KB per request at most), so
//! that cost is microseconds against a UART's milliseconds. Every entry calls `copy` or `fill`, whose
//! loops use volatile accesses: the optimiser neither recognises them as a copy nor
//! treats a call to them as one, so none of them turns into a call to itself (a call to
//! a function named `memcpy` would be read as the copy intrinsic and lowered to
//! `__aeabi_memcpy`).

use core::ptr::{read_volatile, write_volatile};

/// Copy `n` bytes from `src` to `dst`, one at a time.
///
/// # Safety
/// Both ranges valid for `n` bytes and not overlapping.
unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    for i in 0..n {
        // SAFETY: the caller's contract: both ranges hold `n` bytes.
        unsafe { write_volatile(dst.add(i), read_volatile(src.add(i))) };
    }
}

/// Set `n` bytes at `dst` to `c`, one at a time.
///
/// # Safety
/// The range valid for `n` bytes.
unsafe fn fill(dst: *mut u8, c: u8, n: usize) {
    for i in 0..n {
        // SAFETY: the caller's contract: the range holds `n` bytes.
        unsafe { write_volatile(dst.add(i), c) };
    }
}

/// Copy `n` bytes from `src` to `dst`.
///
/// # Safety
/// As C's `memcpy`: both ranges valid for `n` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract is copy's.
    unsafe { copy(dst, src, n) };
    dst
}

/// Set `n` bytes at `dst` to `c` (its low byte).
///
/// # Safety
/// As C's `memset`: the range valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract is fill's.
    unsafe { fill(dst, c as u8, n) };
    dst
}

/// Compare `n` bytes: zero when equal, else the difference of the first bytes that
/// differ (as unsigned bytes).
///
/// # Safety
/// As C's `memcmp`: both ranges valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    for i in 0..n {
        // SAFETY: the caller's contract: both ranges hold `n` bytes.
        let (x, y) = unsafe { (a.add(i).read(), b.add(i).read()) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
    }
    0
}

/// The Arm run-time ABI's entries (the alignment the caller promises is not needed).
#[cfg(target_arch = "arm")]
mod aeabi {
    use super::{copy, fill};

    /// `memcpy` without a return value.
    ///
    /// # Safety
    /// As [`memcpy`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memcpy(dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: the caller's contract is copy's.
        unsafe { copy(dst, src, n) };
    }

    /// [`__aeabi_memcpy`] for 4-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memcpy`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memcpy4(dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: the caller's contract is copy's.
        unsafe { copy(dst, src, n) };
    }

    /// [`__aeabi_memcpy`] for 8-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memcpy`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memcpy8(dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: the caller's contract is copy's.
        unsafe { copy(dst, src, n) };
    }

    /// `memset` with the run-time ABI's argument order.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memset(dst: *mut u8, n: usize, c: i32) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, c as u8, n) };
    }

    /// [`__aeabi_memset`] for 4-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memset4(dst: *mut u8, n: usize, c: i32) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, c as u8, n) };
    }

    /// [`__aeabi_memset`] for 8-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memset8(dst: *mut u8, n: usize, c: i32) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, c as u8, n) };
    }

    /// Zero `n` bytes.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memclr(dst: *mut u8, n: usize) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, 0, n) };
    }

    /// [`__aeabi_memclr`] for 4-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memclr4(dst: *mut u8, n: usize) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, 0, n) };
    }

    /// [`__aeabi_memclr`] for 8-byte aligned ranges.
    ///
    /// # Safety
    /// As [`memset`].
    #[no_mangle]
    pub unsafe extern "C" fn __aeabi_memclr8(dst: *mut u8, n: usize) {
        // SAFETY: the caller's contract is fill's.
        unsafe { fill(dst, 0, n) };
    }
}
