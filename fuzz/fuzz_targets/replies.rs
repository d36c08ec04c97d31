//! `inputResponses` parsing: arbitrary replies against a state that asked every question
//! of the first round never panic; errors are the protocol's, outputs are JSON.
#![no_main]
use std::sync::OnceLock;

use elicit_core::{Era, Inputs, Round, Step};
use elicit_fuzz::{rich, run_canned, RICH_ARGS};
use libfuzzer_sys::fuzz_target;

fn first_state() -> &'static str {
    static S: OnceLock<String> = OnceLock::new();
    S.get_or_init(|| {
        let mut ws = vec![0u8; 1 << 14];
        let plan = rich();
        let mut round = Round::new(&plan, Era::Modern, Inputs::modern(RICH_ARGS, None, None), &mut ws).unwrap();
        assert_eq!(run_canned(&mut round, false), Ok(Step::InputRequired));
        round.request_state_json().unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(replies) = std::str::from_utf8(data) else {
        return;
    };
    let mut wss = [vec![0u8; 1 << 14], vec![0u8; 1 << 14]];
    let plan = rich();
    let state = first_state();
    for (s, ws) in [Some(state), None].into_iter().zip(wss.iter_mut()) {
        if let Ok(mut round) = Round::new(&plan, Era::Modern, Inputs::modern(RICH_ARGS, s, Some(replies)), ws) {
            let _ = run_canned(&mut round, false);
        }
    }
});
