//! State decoding + a round: an arbitrary plaintext `requestState` (and optional
//! replies after a NUL byte, and the client's ClientCapabilities after a second one)
//! for the rich declaration and the every-kind declaration never panics, and every
//! output is JSON (the state we write reads back).
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use elicit_core::{Capabilities, Era, Inputs, Round};
use elicit_fuzz::{kinds, parts, rich, run_canned, KINDS_ARGS, RICH_ARGS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data);
    let state = p.first().copied().flatten();
    let replies = p.get(1).copied().flatten();
    // Absent: every kind declared, so the kinds plan gets past the gate.
    let caps = p
        .get(2)
        .copied()
        .flatten()
        .map_or(Capabilities::ALL, Capabilities::from_client_json);
    let mut wss = [vec![0u8; 1 << 14], vec![0u8; 1 << 14]];
    let plan = rich();
    for (value_first, ws) in [false, true].into_iter().zip(wss.iter_mut()) {
        if let Ok(mut round) = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(RICH_ARGS, state, replies),
            ws,
        ) {
            let _ = run_canned(&mut round, value_first);
        }
    }
    let plan = kinds();
    for (value_first, ws) in [false, true].into_iter().zip(wss.iter_mut()) {
        let inputs = Inputs::modern(KINDS_ARGS, state, replies).with_capabilities(caps);
        if let Ok(mut round) = Round::new(&plan, Era::Modern, inputs, ws) {
            let _ = run_canned(&mut round, value_first);
        }
    }
});
