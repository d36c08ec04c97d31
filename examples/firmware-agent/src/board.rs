//! The board: QEMU `mps2-an386`'s UART0 (CMSDK APB UART), its 100 Hz FPGA counter, the
//! NVIC line of UART0's receive interrupt, and the provisioning block the launcher loads.
//! Every `unsafe` of the agent is here: volatile accesses to fixed device addresses.

use core::ptr::{read_volatile, write_volatile};

use elicit_core::Sink;

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

fn read(addr: usize) -> u32 {
    // SAFETY: `addr` is one of the device registers above (aligned, always mapped on
    // mps2-an386); reading them has no side effect beyond the device's documented ones.
    unsafe { read_volatile(addr as *const u32) }
}

fn write(addr: usize, value: u32) {
    // SAFETY: as in `read`; the registers written are UART0's and the NVIC's.
    unsafe { write_volatile(addr as *mut u32, value) }
}

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

impl Sink for Uart {
    fn put(&mut self, bytes: &[u8]) {
        self.write_all(bytes);
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

/// Hundredths of a second since power-on (wraps after 497 days; [`crate::clock`] extends
/// it).
pub fn ticks_100hz() -> u32 {
    read(FPGAIO_CLK100HZ)
}

/// Size of the provisioning block (memory.x's `PROVISION`).
pub const PROVISION_LEN: usize = 512;

/// Copy the provisioning block the launcher loaded into `out`, then wipe it in RAM (it
/// holds the key ring's secrets).
pub fn take_provision(out: &mut [u8; PROVISION_LEN]) {
    extern "C" {
        static PROVISION: u8;
    }
    // Only the symbol's address is taken.
    let base = core::ptr::addr_of!(PROVISION) as usize;
    for (i, b) in out.iter_mut().enumerate() {
        // SAFETY: memory.x places PROVISION in SSRAM2&3, outside every section the agent
        // is linked into; the 512 bytes are RAM the agent never otherwise touches.
        unsafe {
            *b = read_volatile((base + i) as *const u8);
            write_volatile((base + i) as *mut u8, 0);
        }
    }
}
