//! `elicit-firmware`: elicit-core on an emulated microcontroller (QEMU `mps2-an386`,
//! Cortex-M4F), `no_std`, `no_main`, and no allocator at all.
//!
//! It loads two compiled plans (the seed docs' `book_flight`, and a 16-question survey)
//! from bytes that build.rs compiled on the host, runs complete scripted conversations in
//! both protocol eras, shows what happens when a capacity is too small, measures the RAM
//! of each round (static + painted-stack peak + the I/O text), checks everything against
//! `expected.txt`, and exits through semihosting: 0 when the transcript matches, 1 when
//! it does not. Run it with `scripts/test-firmware.sh`.
//!
//! Features: `seal` (default) seals requestState between rounds; `json-plan` compiles the
//! JSON declarations on the device instead; `quiet` runs the same conversations without
//! printing or `core::fmt` (to measure the engine's flash); `stub` leaves the engine out
//! (the baseline those measurements subtract).

#![no_std]
#![no_main]
// elicit-core's errors carry their names inline (no heap), so they are large by design.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]
// The measurement builds (quiet, stub) leave parts of the transcript machinery unused.
#![cfg_attr(any(feature = "quiet", feature = "stub"), allow(dead_code))]

use cortex_m_rt::entry;
use cortex_m_semihosting::debug;

mod data;
mod stack;
#[cfg(not(feature = "quiet"))]
#[macro_use]
mod transcript;
#[cfg(not(any(feature = "stub", feature = "quiet")))]
mod demo;
#[cfg(not(feature = "stub"))]
mod host;
#[cfg(all(feature = "quiet", not(feature = "stub")))]
mod quiet;

/// Write raw bytes to the host's stdout (no formatting).
#[cfg(feature = "quiet")]
fn put(bytes: &[u8]) {
    if let Ok(mut out) = cortex_m_semihosting::hio::hstdout() {
        let _ = out.write_all(bytes);
    }
}

#[entry]
fn main() -> ! {
    // The stubs link the application's data too (see `data`).
    #[cfg(feature = "stub")]
    data::keep();
    #[cfg(not(feature = "quiet"))]
    let mut t = transcript::Transcript::new();
    #[cfg(not(any(feature = "stub", feature = "quiet")))]
    let ok = demo::run(&mut t);
    #[cfg(all(feature = "stub", not(feature = "quiet")))]
    let ok = {
        // The size baseline: runtime, semihosting and formatting, no engine.
        let ((), peak) = stack::measure(|| ());
        say!(
            &mut t,
            "# stub build: no engine (stack probe {} B, static {} B)",
            peak,
            stack::static_ram()
        );
        true
    };
    #[cfg(all(feature = "quiet", not(feature = "stub")))]
    let ok = quiet::run();
    #[cfg(all(feature = "quiet", feature = "stub"))]
    let ok = true;
    #[cfg(feature = "quiet")]
    put(if ok {
        b"quiet run: ok\n"
    } else {
        b"quiet run: FAILED\n"
    });
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::bkpt();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    #[cfg(not(feature = "quiet"))]
    {
        let mut t = transcript::Transcript::new();
        say!(&mut t, "PANIC: {}", info);
    }
    #[cfg(feature = "quiet")]
    {
        let _ = info;
        put(b"PANIC\n");
    }
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}
