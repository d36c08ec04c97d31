//! `inputResponses` parsing: arbitrary replies against a state that asked every question
//! of the first round (of the rich declaration, and of the every-kind declaration with
//! every kind declared: ElicitResults, CreateMessageResults and ListRootsResults) never
//! panic; errors are the protocol's, outputs are JSON.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use std::sync::OnceLock;

use elicit_core::{Capabilities, Era, Inputs, Plan, Round, Step};
use elicit_fuzz::{kinds, rich, run_canned, CAP, KINDS_ARGS, RICH_ARGS};
use libfuzzer_sys::fuzz_target;

fn first_state(plan: &Plan<'static, CAP>, args: &str) -> String {
    let mut ws = vec![0u8; 1 << 14];
    let inputs = Inputs::modern(args, None, None).with_capabilities(Capabilities::ALL);
    let mut round = Round::new(plan, Era::Modern, inputs, &mut ws).unwrap();
    assert_eq!(run_canned(&mut round, false), Ok(Step::InputRequired));
    round.request_state_json().unwrap()
}

fn states() -> &'static [String; 2] {
    static S: OnceLock<[String; 2]> = OnceLock::new();
    S.get_or_init(|| {
        [
            first_state(&rich(), RICH_ARGS),
            first_state(&kinds(), KINDS_ARGS),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(replies) = std::str::from_utf8(data) else {
        return;
    };
    let mut wss = [vec![0u8; 1 << 14], vec![0u8; 1 << 14]];
    for ((plan, args), state) in [(rich(), RICH_ARGS), (kinds(), KINDS_ARGS)]
        .iter()
        .zip(states())
    {
        for (s, ws) in [Some(state.as_str()), None].into_iter().zip(wss.iter_mut()) {
            let inputs =
                Inputs::modern(args, s, Some(replies)).with_capabilities(Capabilities::ALL);
            if let Ok(mut round) = Round::new(plan, Era::Modern, inputs, ws) {
                let _ = run_canned(&mut round, false);
            }
        }
    }
});
