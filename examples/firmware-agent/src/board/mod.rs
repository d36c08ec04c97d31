//! The board layer: one module per board, picked by the build target (build.rs sets
//! `cfg(board = …)` from it):
//!
//! | target | board (QEMU `-M`) | module |
//! |---|---|---|
//! | `thumbv7em-none-eabihf` | `mps2-an386` (Cortex-M4F) | [`mps2_an386`] |
//! | `thumbv6m-none-eabi` | `microbit` (nRF51, Cortex-M0) | `microbit` |
//! | `riscv32imc-unknown-none-elf`, `riscv32imac-…` | `sifive_e` (FE310, RV32) | `sifive_e` |
//!
//! Every board module gives the same items: `Uart` (`init`, `read_byte` sleeping until a
//! byte arrives, `write_all`), `ticks_100hz` (hundredths of a second since power-on,
//! wrapping at 2^32), `halt` (stop for good), and its start-up (vectors, stack painting
//! for the size script). Every `unsafe` of the agent is in these modules: volatile
//! accesses to fixed device addresses, and the start-up code.

use core::ptr::{read_volatile, write_volatile};

use elicit_core::Sink;

mod mem;
#[cfg(board = "microbit")]
mod microbit;
#[cfg(board = "mps2-an386")]
mod mps2_an386;
#[cfg(board = "sifive_e")]
mod sifive_e;

#[cfg(board = "microbit")]
// The plaintext build reads no clock.
#[cfg_attr(not(feature = "seal"), allow(unused_imports))]
pub use microbit::{halt, set_timer_hz, ticks_100hz, Uart};
#[cfg(board = "mps2-an386")]
// The plaintext build reads no clock.
#[cfg_attr(not(feature = "seal"), allow(unused_imports))]
pub use mps2_an386::{halt, set_timer_hz, ticks_100hz, Uart};
#[cfg(board = "sifive_e")]
// The plaintext build reads no clock.
#[cfg_attr(not(feature = "seal"), allow(unused_imports))]
pub use sifive_e::{halt, set_timer_hz, ticks_100hz, Uart};

fn read(addr: usize) -> u32 {
    // SAFETY: every caller passes one of its board's device registers (aligned, always
    // mapped on that board); reading them has no side effect beyond the device's
    // documented ones.
    unsafe { read_volatile(addr as *const u32) }
}

fn write(addr: usize, value: u32) {
    // SAFETY: as in `read`; the registers written are the board's UART, timer and
    // interrupt controller.
    unsafe { write_volatile(addr as *mut u32, value) }
}

impl Sink for Uart {
    fn put(&mut self, bytes: &[u8]) {
        self.write_all(bytes);
    }
}
