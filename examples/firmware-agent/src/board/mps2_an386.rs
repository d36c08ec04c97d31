//! QEMU `mps2-an386` (Cortex-M4F): UART0 (CMSDK APB UART), the FPGA's 100 Hz counter, the
//! NVIC line of UART0's receive interrupt; cortex-m-rt starts it and paints its stack.

use super::{read, write};

/// UART0 (CMSDK APB UART) registers.
const UART0: usize = 0x4000_4000;
const DATA: usize = UART0;
const STATE: usize = UART0 + 0x04;
const CTRL: usize = UART0 + 0x08;
const INTSTATUS: usize = UART0 + 0x0C;
const BAUDDIV: usize = UART0 + 0x10;
const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const CTRL_TX_EN: u32 = 1 << 0;
const CTRL_RX_EN: u32 = 1 << 1;
const CTRL_RX_INT_EN: u32 = 1 << 3;
const INT_RX: u32 = 1 << 1;
/// UART0's receive interrupt is external interrupt 0 on the AN385/AN386 images.
const UART0_RX_IRQ: i16 = 0;
/// NVIC interrupt set-enable register 0.
const NVIC_ISER0: usize = 0xE000_E100;

/// The FPGA's 100 Hz counter (mps2 FPGAIO `CLK100HZ`), counting from power-on.
const FPGAIO_CLK100HZ: usize = 0x4002_8014;

/// UART0, the agent's only channel: QEMU connects it to the host's stdio.
pub struct Uart(());

impl Uart {
    /// Enable transmit, receive and the receive interrupt (which only wakes the core from
    /// `wfi`; the handler acknowledges it).
    pub fn init() -> Uart {
        write(BAUDDIV, 16);
        write(CTRL, CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INT_EN);
        write(NVIC_ISER0, 1 << UART0_RX_IRQ);
        Uart(())
    }

    /// The next received byte; sleeps (`wfi`) until one arrives, so an idle agent costs
    /// the host no CPU.
    pub fn read_byte(&mut self) -> u8 {
        loop {
            if read(STATE) & STATE_RX_FULL != 0 {
                return read(DATA) as u8;
            }
            // Checked again with interrupts masked: a byte arriving after the check
            // leaves the interrupt pending, and a pending interrupt ends `wfi` at once.
            cortex_m::interrupt::free(|_| {
                if read(STATE) & STATE_RX_FULL == 0 {
                    cortex_m::asm::wfi();
                }
            });
        }
    }

    /// Send `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            while read(STATE) & STATE_TX_FULL != 0 {}
            write(DATA, u32::from(b));
        }
    }
}

extern "C" {
    fn DefaultHandler();
}

/// The board's 32 external interrupt vectors (the NVIC of QEMU's AN385/AN386 image has 32
/// lines), all to [`DefaultHandler`]; only UART0's receive interrupt is ever enabled.
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
static __INTERRUPTS: [unsafe extern "C" fn(); 32] = [DefaultHandler; 32];

/// Acknowledge UART0's receive interrupt (the only one enabled).
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == UART0_RX_IRQ {
        write(INTSTATUS, INT_RX);
    }
}

/// Hundredths of a second since power-on (wraps after 497 days; `provision::Clock`
/// extends it).
pub fn ticks_100hz() -> u32 {
    read(FPGAIO_CLK100HZ)
}

/// Stop for good (a panic): sleep forever.
pub fn halt() -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}

/// The counter's rate is fixed on this board: the provisioned timer rate is ignored.
pub fn set_timer_hz(_: u32) {}
