//! A full round driven by arbitrary host actions, answering the wrong step included.
//!
//! Input: NUL-separated parts `declaration, arguments, state, replies, script, texts...`.
//! An empty or invalid declaration falls back to the rich one, or (script bit 6) to the
//! every-kind one. The first script byte picks the era (bit 0), a small workspace
//! (bit 1) and the client's capabilities (bits 2-5: form, url, sampling, roots; all
//! clear means every kind); each later pair is (operation, argument): poll, resolve_value,
//! resolve_question, resolve_failed, answer, or "what the step asks". After every call:
//! an error either failed the round for good (the same error from then on) or changed
//! nothing; every output the step allows is JSON; outputs of other steps are refused.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use elicit_core::{Capabilities, Era, Inputs, Plan, Round};
use elicit_fuzz::{caps_of, drive, parts, KINDS, KINDS_ARGS, POOL, RICH, RICH_ARGS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data);
    let get = |i: usize| p.get(i).copied().flatten();
    let script = data.split(|&b| b == 0).nth(4).unwrap_or(&[]);
    // A small workspace sometimes, to hit the workspace-too-small path.
    let ws_len = if script.first().is_some_and(|b| b & 2 != 0) {
        64
    } else {
        1 << 14
    };
    let mut ws = vec![0u8; ws_len];
    let first = script.first().copied().unwrap_or(0);
    let (fallback, fallback_args) = if first & 0x40 != 0 {
        (KINDS, KINDS_ARGS)
    } else {
        (RICH, RICH_ARGS)
    };
    let caps = match (first >> 2) & 0xF {
        0 => Capabilities::ALL,
        bits => caps_of(bits),
    };
    let plan = match get(0).filter(|d| !d.is_empty()).map(Plan::<16>::compile) {
        Some(Ok(plan)) => plan,
        _ => Plan::<16>::compile(fallback).expect("the fallback compiles"),
    };
    let args = get(1).filter(|a| !a.is_empty()).unwrap_or(fallback_args);
    let state = get(2).filter(|s| !s.is_empty());
    let replies = get(3).filter(|s| !s.is_empty());
    let mut pool: Vec<&str> = POOL.to_vec();
    for i in 5..p.len() {
        if let Some(t) = get(i) {
            pool.push(t);
        }
    }
    let handshake = script.first().is_some_and(|b| b & 1 != 0);
    let round = if handshake {
        Round::new(
            &plan,
            Era::Handshake,
            Inputs::handshake(args).with_capabilities(caps),
            &mut ws,
        )
    } else {
        let inputs = Inputs::modern(args, state, replies).with_capabilities(caps);
        Round::new(&plan, Era::Modern, inputs, &mut ws)
    };
    if let Ok(mut round) = round {
        drive(&mut round, script.get(1..).unwrap_or(&[]), &pool);
    }
});
