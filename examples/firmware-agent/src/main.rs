//! `elicit-agent`: an MCP server on an emulated microcontroller (QEMU `mps2-an386`,
//! Cortex-M4F), `no_std`, `no_main`, no allocator. It speaks newline-delimited JSON-RPC on
//! UART0, which QEMU connects to the host's stdio, so any stdio MCP client can use
//! `scripts/dev-agent-qemu.sh` as its server command. It serves examples/rmcp-server's booking
//! tools in both protocol eras, with `requestState` sealed on the device (feature `seal`,
//! the default). See README.md.

#![no_std]
#![no_main]
// elicit-core's errors carry their names inline (no heap), so they are large by design.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]
// The plaintext build (development, and the size comparison) has no keys, clock or nonces.
#![cfg_attr(not(feature = "seal"), allow(dead_code))]

use cortex_m_rt::entry;
use zeroize::Zeroize;

mod agent;
mod board;
mod provision;
mod rpc;
mod tools;

use agent::{Agent, Buffers};
use board::Uart;
use provision::Provision;

#[entry]
fn main() -> ! {
    let mut block = [0u8; board::PROVISION_LEN];
    board::take_provision(&mut block);
    let uart = Uart::init();
    let provision = Provision::parse(&block);
    #[cfg(feature = "seal")]
    let seal = provision.and_then(|p| {
        let ring = p.ring(&block)?;
        Ok(agent::Seal {
            sealer: elicit_core::seal::Sealer::new(ring, Some(agent::SERVER_NAME)),
            clock: provision::Clock::new(p.start),
            nonces: provision::Nonces::new(p.seed),
        })
    });
    #[cfg(not(feature = "seal"))]
    let seal = provision.map(|_| ());
    block.zeroize();
    let mut agent = Agent::new(uart, seal);
    let mut buffers = Buffers {
        line: [0; agent::LINE_CAP],
        aux: [0; agent::AUX_CAP],
        token: [0; agent::TOKEN_CAP],
        ws: [0; agent::WS_CAP],
    };
    agent.serve(&mut buffers)
}

/// A panic (a bug: the agent answers bad input with errors) stops the agent: one JSON-RPC
/// error line, then it sleeps. It never resets itself, since a reset would start again
/// with the nonce seed it was provisioned with (see `provision`).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    let mut uart = Uart::init();
    uart.write_all(
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Internal error: the agent stopped\"}}\n",
    );
    loop {
        cortex_m::asm::wfi();
    }
}
