//! The WebAssembly build's allocator pair (wasm32-unknown-unknown only; not in the C
//! headers, which cbindgen.toml keeps them out of). A JavaScript host has no `malloc` in
//! the module's memory: it asks the library for the buffers it passes (declarations,
//! states, answers, output buffers) with `elicit_wasm_alloc` and gives them back with
//! `elicit_wasm_free`, the same length both times. js/src/abi.ts is the one caller.

use std::alloc::{alloc, dealloc, Layout};

/// `len` bytes of the module's memory for the host, aligned to 8 (enough for the `f64`,
/// `size_t` and pointer out-parameters the ABI writes). NULL when the memory cannot grow
/// that far or `len` is 0 (a zero-length input is passed as NULL with length 0).
#[no_mangle]
pub extern "C" fn elicit_wasm_alloc(len: usize) -> *mut u8 {
    match Layout::from_size_align(len, 8) {
        // SAFETY: the layout has a non-zero size.
        Ok(layout) if len > 0 => unsafe { alloc(layout) },
        _ => core::ptr::null_mut(),
    }
}

/// Give back a buffer `elicit_wasm_alloc(len)` returned, with the same `len`. NULL (or
/// `len` 0) does nothing.
///
/// # Safety
/// `ptr` NULL or returned by `elicit_wasm_alloc(len)` and not freed since.
#[no_mangle]
pub unsafe extern "C" fn elicit_wasm_free(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len == 0 {
        return;
    }
    if let Ok(layout) = Layout::from_size_align(len, 8) {
        // SAFETY: the caller's contract: `ptr` came from `alloc` with this layout.
        unsafe { dealloc(ptr, layout) }
    }
}
