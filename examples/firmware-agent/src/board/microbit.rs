//! QEMU `microbit` (nRF51822, Cortex-M0, 16 KiB RAM, 256 KiB flash): UART0, TIMER0 as
//! the clock, their NVIC lines; cortex-m-rt starts it and paints its stack.
//!
//! The nRF51 has no free-running wall-clock counter that QEMU models (no RTC), so TIMER0
//! runs at 31,250 Hz (16 MHz / 2^9), clears itself at 31,250 (once a second) and its
//! compare interrupt counts the seconds; [`ticks_100hz`] adds the hundredths read from the
//! counter. No compare-and-swap is needed (the Cortex-M0 has none): only the handler
//! writes the seconds, the agent only reads them.

use core::sync::atomic::{AtomicU32, Ordering};

use super::{read, write};

/// UART0 registers (nRF51 Reference Manual, UART).
const UART0: usize = 0x4000_2000;
const STARTRX: usize = UART0;
const STARTTX: usize = UART0 + 0x008;
const RXDRDY: usize = UART0 + 0x108;
const TXDRDY: usize = UART0 + 0x11C;
const UART_INTENSET: usize = UART0 + 0x304;
const UART_INTENCLR: usize = UART0 + 0x308;
const ENABLE: usize = UART0 + 0x500;
const RXD: usize = UART0 + 0x518;
const TXD: usize = UART0 + 0x51C;
const INT_RXDRDY: u32 = 1 << 2;
const ENABLE_UART: u32 = 4;
const UART0_IRQ: i16 = 2;

/// TIMER0 registers (nRF51 Reference Manual, TIMER).
const TIMER0: usize = 0x4000_8000;
const T_START: usize = TIMER0;
const T_CAPTURE1: usize = TIMER0 + 0x044;
const T_COMPARE0: usize = TIMER0 + 0x140;
const T_SHORTS: usize = TIMER0 + 0x200;
const T_INTENSET: usize = TIMER0 + 0x304;
const T_MODE: usize = TIMER0 + 0x504;
const T_BITMODE: usize = TIMER0 + 0x508;
const T_PRESCALER: usize = TIMER0 + 0x510;
const T_CC0: usize = TIMER0 + 0x540;
const T_CC1: usize = TIMER0 + 0x544;
/// 16 MHz / 2^9.
const TIMER_HZ: u32 = 31_250;
const SHORT_COMPARE0_CLEAR: u32 = 1 << 0;
const INT_COMPARE0: u32 = 1 << 16;
const BITMODE_32: u32 = 3;
const TIMER0_IRQ: i16 = 8;

/// NVIC interrupt set-enable register.
const NVIC_ISER: usize = 0xE000_E100;

/// Whole seconds since the timer started (written by the TIMER0 handler only).
static SECONDS: AtomicU32 = AtomicU32::new(0);

/// UART0, the agent's only channel: QEMU connects it to the host's stdio.
pub struct Uart(());

impl Uart {
    /// Enable UART0 (transmit, receive) and TIMER0 (the clock), with their interrupts:
    /// UART0's receive interrupt only wakes the core from `wfi` (the handler masks it
    /// again), TIMER0's counts seconds.
    pub fn init() -> Uart {
        write(ENABLE, ENABLE_UART);
        write(STARTTX, 1);
        write(STARTRX, 1);
        write(T_MODE, 0);
        write(T_BITMODE, BITMODE_32);
        write(T_PRESCALER, 9);
        write(T_CC0, TIMER_HZ);
        write(T_SHORTS, SHORT_COMPARE0_CLEAR);
        write(T_INTENSET, INT_COMPARE0);
        write(NVIC_ISER, (1 << UART0_IRQ) | (1 << TIMER0_IRQ));
        write(T_START, 1);
        Uart(())
    }

    /// The next received byte; sleeps (`wfi`) until one arrives, so an idle agent costs
    /// the host no CPU (TIMER0 wakes it once a second).
    pub fn read_byte(&mut self) -> u8 {
        loop {
            if read(RXDRDY) != 0 {
                // The event is cleared before RXD is read: reading RXD raises it again
                // when QEMU's receive FIFO holds more bytes.
                write(RXDRDY, 0);
                return read(RXD) as u8;
            }
            // Checked again with interrupts masked: a byte arriving after the check
            // leaves the interrupt pending, and a pending interrupt ends `wfi` at once.
            cortex_m::interrupt::free(|_| {
                write(UART_INTENSET, INT_RXDRDY);
                if read(RXDRDY) == 0 {
                    cortex_m::asm::wfi();
                }
            });
        }
    }

    /// Send `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            write(TXDRDY, 0);
            write(TXD, u32::from(b));
            while read(TXDRDY) == 0 {}
        }
    }
}

extern "C" {
    fn DefaultHandler();
}

/// The nRF51's 32 external interrupt vectors, all to [`DefaultHandler`]; only UART0's
/// and TIMER0's are enabled.
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
static __INTERRUPTS: [unsafe extern "C" fn(); 32] = [DefaultHandler; 32];

/// UART0: mask its receive interrupt (the event stays set until `read_byte` takes the
/// byte; the interrupt only had to end `wfi`). TIMER0: one more second.
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == UART0_IRQ {
        write(UART_INTENCLR, INT_RXDRDY);
    } else if irqn == TIMER0_IRQ {
        write(T_COMPARE0, 0);
        SECONDS.store(
            SECONDS.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
    }
}

/// Hundredths of a second since power-on (wraps after 497 days; `provision::Clock`
/// extends it). Never ahead of the true time: a second that ends while it reads counts
/// from the next read on.
pub fn ticks_100hz() -> u32 {
    loop {
        let secs = SECONDS.load(Ordering::Relaxed);
        write(T_CAPTURE1, 1);
        let count = read(T_CC1);
        if SECONDS.load(Ordering::Relaxed) == secs {
            // count < 31,250: count / 313 <= 99.
            return secs.wrapping_mul(100).wrapping_add(count / 313);
        }
    }
}

/// Stop for good (a panic): sleep forever.
pub fn halt() -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}

/// The counter's rate is fixed on this board: the provisioned timer rate is ignored.
pub fn set_timer_hz(_: u32) {}
