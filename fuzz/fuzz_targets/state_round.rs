//! State decoding + a round: an arbitrary plaintext `requestState` (and optional
//! replies after a NUL byte) for the rich declaration never panics, and every output is
//! JSON (the state we write reads back).
#![no_main]
use elicit_core::{Era, Inputs, Round};
use elicit_fuzz::{parts, rich, run_canned, RICH_ARGS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data);
    let state = p.first().copied().flatten();
    let replies = p.get(1).copied().flatten();
    let mut wss = [vec![0u8; 1 << 14], vec![0u8; 1 << 14]];
    let plan = rich();
    for (value_first, ws) in [false, true].into_iter().zip(wss.iter_mut()) {
        if let Ok(mut round) = Round::new(&plan, Era::Modern, Inputs::modern(RICH_ARGS, state, replies), ws) {
            let _ = run_canned(&mut round, value_first);
        }
    }
});
