//! RAM measurements: the stack is painted below the current stack pointer before a
//! measured call and scanned afterwards for the deepest word the call overwrote.

use core::ptr;

/// The paint pattern.
const PAINT: u32 = 0xA5C3_5A3C;
/// How far below the caller's stack pointer the paint reaches.
pub const DEPTH: usize = 32 * 1024;

/// The stack pointer.
#[inline(always)]
fn sp() -> usize {
    cortex_m::register::msp::read() as usize
}

/// Bytes left unpainted below the stack pointer read in [`paint`]: room for `paint`'s own
/// frame, which the prologue may push after the read.
const MARGIN: usize = 256;

/// Paint `DEPTH` bytes below this function's own frame; returns the lowest painted address.
#[inline(never)]
fn paint() -> usize {
    let top = (sp() & !3) - MARGIN;
    let bottom = top - DEPTH;
    let mut p = bottom;
    while p < top {
        // SAFETY: the words below the stack pointer are unused (no interrupts are
        // enabled, nothing else runs), and RAM extends 4 MiB below the stack top.
        unsafe { ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
    bottom
}

/// Lowest address in `[bottom, top)` that no longer holds the paint.
fn deepest(bottom: usize, top: usize) -> usize {
    let mut p = bottom;
    // SAFETY: reads of painted RAM below the stack pointer.
    while p < top && unsafe { ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    p
}

/// Run `f` and return its result with the peak stack it used below this frame, in bytes
/// (`f` must do its work in a non-inlined function so its frames lie below the base).
#[inline(never)]
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = sp();
    let bottom = paint();
    let r = f();
    let low = deepest(bottom, base);
    (r, base - low)
}

extern "C" {
    static mut __sdata: u32;
    static mut __edata: u32;
    static mut __sbss: u32;
    static mut __ebss: u32;
}

/// Bytes of `.data` + `.bss` (cortex-m-rt's linker symbols).
pub fn static_ram() -> usize {
    // Only the symbols' addresses are taken.
    let data = ptr::addr_of!(__edata) as usize - ptr::addr_of!(__sdata) as usize;
    let bss = ptr::addr_of!(__ebss) as usize - ptr::addr_of!(__sbss) as usize;
    data + bss
}
