//! QEMU `sifive_e` (SiFive FE310, RV32IMAC core; the agent is built for RV32IMC, 16 KiB
//! of data RAM at 0x8000_0000, execute-in-place flash from 0x2040_0000 where QEMU's boot
//! ROM jumps): UART0, the CLINT's `mtime` as the clock, the PLIC line of UART0 as the
//! wake-up. The start-up code (below, in assembly) sets the stack, points `mtvec` at a
//! trap handler, paints the stack for the size script (as cortex-m-rt's `paint-stack`
//! does on the Arm boards), zeroes `.bss`, copies `.data` and calls `main`.
//!
//! Interrupts are never taken (`mstatus.MIE` stays 0): UART0's receive interrupt, routed
//! through the PLIC and enabled in `mie`, only ends `wfi`, and is then claimed and
//! completed. Any trap is a bug and stops the agent as a panic does.

use core::sync::atomic::{AtomicU32, Ordering};

use super::{read, write};

/// UART0 registers (FE310-G000 manual, UART).
const UART0: usize = 0x1001_3000;
const TXDATA: usize = UART0;
const RXDATA: usize = UART0 + 0x04;
const TXCTRL: usize = UART0 + 0x08;
const RXCTRL: usize = UART0 + 0x0C;
const IE: usize = UART0 + 0x10;
const FIFO_FLAG: u32 = 1 << 31;
const ENABLE: u32 = 1;
const IE_RXWM: u32 = 1 << 1;
/// UART0's PLIC source.
const UART0_IRQ: usize = 3;

/// PLIC: source priorities, hart 0 M-mode enables, threshold and claim/complete.
const PLIC: usize = 0x0C00_0000;
const PLIC_PRIORITY: usize = PLIC;
const PLIC_ENABLE: usize = PLIC + 0x2000;
const PLIC_THRESHOLD: usize = PLIC + 0x20_0000;
const PLIC_CLAIM: usize = PLIC + 0x20_0004;
/// `mie.MEIE`: machine external interrupts may end `wfi`.
const MIE_MEIE: usize = 1 << 11;

/// The CLINT's `mtime` (64 bits, two 32-bit halves).
const MTIME_LO: usize = 0x0200_BFF8;
const MTIME_HI: usize = 0x0200_BFFC;

/// `mtime`'s rate in Hz, from the provisioning block: QEMU before 9.0 runs it at 10 MHz,
/// 9.0 on at the FE310's 32,768 Hz (scripts/dev-agent-qemu.sh provisions the right one).
static MTIME_HZ: AtomicU32 = AtomicU32::new(0);

/// UART0, the agent's only channel: QEMU connects it to the host's stdio.
pub struct Uart(());

impl Uart {
    /// Enable transmit, receive and the receive-watermark interrupt (level: pending while
    /// a byte waits), routed through the PLIC to `mie.MEIE`.
    pub fn init() -> Uart {
        write(TXCTRL, ENABLE);
        write(RXCTRL, ENABLE);
        write(IE, IE_RXWM);
        write(PLIC_PRIORITY + 4 * UART0_IRQ, 1);
        write(PLIC_ENABLE, 1 << UART0_IRQ);
        write(PLIC_THRESHOLD, 0);
        // SAFETY: sets one bit of `mie`; `mstatus.MIE` is 0, so no interrupt is taken.
        unsafe { core::arch::asm!("csrs mie, {0}", in(reg) MIE_MEIE) };
        Uart(())
    }

    /// The next received byte; sleeps (`wfi`) until one arrives, so an idle agent costs
    /// the host no CPU.
    pub fn read_byte(&mut self) -> u8 {
        loop {
            let r = read(RXDATA);
            if r & FIFO_FLAG == 0 {
                return r as u8;
            }
            // A byte that arrived after the read keeps the PLIC's line raised, and a
            // pending enabled interrupt ends `wfi` at once (interrupts stay disabled).
            // SAFETY: `wfi` only waits.
            unsafe { core::arch::asm!("wfi") };
            let id = read(PLIC_CLAIM);
            if id != 0 {
                write(PLIC_CLAIM, id);
            }
        }
    }

    /// Send `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            while read(TXDATA) & FIFO_FLAG != 0 {}
            write(TXDATA, u32::from(b));
        }
    }
}

/// Set `mtime`'s rate (Hz) from the provisioning block.
pub fn set_timer_hz(hz: u32) {
    MTIME_HZ.store(hz, Ordering::Relaxed);
}

fn mtime() -> u64 {
    loop {
        let hi = read(MTIME_HI);
        let lo = read(MTIME_LO);
        if read(MTIME_HI) == hi {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Hundredths of a second since power-on (wraps after 497 days; `provision::Clock`
/// extends it); 0 until the rate is provisioned.
pub fn ticks_100hz() -> u32 {
    match u64::from(MTIME_HZ.load(Ordering::Relaxed)) {
        0 => 0,
        hz => (mtime() * 100 / hz) as u32,
    }
}

/// Stop for good (a panic or a trap): sleep forever.
pub fn halt() -> ! {
    loop {
        // SAFETY: `wfi` only waits.
        unsafe { core::arch::asm!("wfi") };
    }
}

/// A trap (`mtvec`): a bug, never an interrupt (none is ever taken). Stops the agent as a
/// panic does.
#[no_mangle]
extern "C" fn agent_trap() -> ! {
    crate::stop()
}

/// Called by the start-up code with the stack set, `.bss` zeroed and `.data` copied.
#[no_mangle]
extern "C" fn agent_start() -> ! {
    crate::main()
}

// The start-up code: QEMU's boot ROM jumps to the first byte of `.text.start` (0x2040_0000).
// Symbols from boards/sifive_e.x.
core::arch::global_asm!(
    ".section .text.start, \"ax\"",
    ".global _start",
    "_start:",
    ".option push",
    ".option norelax",
    "la sp, _stack_start",
    "la t0, _agent_trap_vector",
    "csrw mtvec, t0",
    // Paint the stack [_stack_end, _stack_start) with 0xCCCCCCCC.
    "la t0, _stack_end",
    "la t1, _stack_start",
    "li t2, 0xCCCCCCCC",
    "1: bgeu t0, t1, 2f",
    "sw t2, 0(t0)",
    "addi t0, t0, 4",
    "j 1b",
    "2:",
    // Zero .bss.
    "la t0, __sbss",
    "la t1, __ebss",
    "3: bgeu t0, t1, 4f",
    "sw zero, 0(t0)",
    "addi t0, t0, 4",
    "j 3b",
    "4:",
    // Copy .data from flash.
    "la t0, __sdata",
    "la t1, __edata",
    "la t2, __sidata",
    "5: bgeu t0, t1, 6f",
    "lw t3, 0(t2)",
    "sw t3, 0(t0)",
    "addi t0, t0, 4",
    "addi t2, t2, 4",
    "j 5b",
    "6:",
    ".option pop",
    "call {start}",
    // `mtvec` needs a 4-byte aligned handler (direct mode).
    ".balign 4",
    "_agent_trap_vector:",
    "j {trap_fn}",
    start = sym agent_start,
    trap_fn = sym agent_trap,
);
