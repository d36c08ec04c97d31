//! `elicit-agent`: an MCP server on an emulated microcontroller, `no_std`, `no_main`, no
//! allocator: QEMU `mps2-an386` (Cortex-M4F), `microbit` (nRF51, Cortex-M0) or
//! `sifive_e` (FE310, RV32), picked by the build target (src/board). It speaks
//! newline-delimited JSON-RPC on the board's UART, which QEMU connects to the host's
//! stdio, so any stdio MCP client can use `scripts/dev-agent-qemu.sh --board NAME` as its
//! server command. It serves servers/rmcp's booking tools in both protocol eras,
//! with `requestState` sealed on the device (feature `seal`, the default). See README.md.

#![no_std]
#![no_main]
// elicit-core's errors carry their names inline (no heap), so they are large by design.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]
// The plaintext build (development, and the size comparison) has no keys, clock or nonces.
#![cfg_attr(not(feature = "seal"), allow(dead_code))]

mod agent;
mod board;
mod provision;
mod rpc;
mod tools;

use agent::{Agent, Buffers};
use board::Uart;

/// The agent's entry (cortex-m-rt's on the Arm boards; the start-up code of
/// src/board/sifive_e.rs on RISC-V). Every buffer lives in this frame.
#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
fn main() -> ! {
    let mut agent = Agent::new(Uart::init());
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
    stop()
}

/// Stop the agent (a panic, or a trap on RISC-V): one JSON-RPC error line, then sleep.
fn stop() -> ! {
    let mut uart = Uart::init();
    uart.write_all(
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Internal error: the agent stopped\"}}\n",
    );
    board::halt()
}
