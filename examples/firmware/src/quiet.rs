//! The same conversations as `demo`, checked but not printed: no `core::fmt`, no
//! transcript. Built to measure the engine's share of the flash (against the quiet stub).

use elicit_core::json::Value;
#[cfg(feature = "seal")]
use elicit_core::seal::{KeyRing, Sealer, UnixTime};

use crate::host::*;

/// Every conversation to the end; true when all values are the expected ones.
pub fn run() -> bool {
    let (Ok(plan), Ok(survey_plan)) = (load_plan::<BOOKING_N>(0), load_plan::<SURVEY_N>(1)) else {
        return false;
    };
    let booking = Tool {
        name: BOOKING_NAME,
        plan,
        resolve: booking_resolve,
    };
    let survey = Tool {
        name: SURVEY_NAME,
        plan: survey_plan,
        resolve: no_resolvers,
    };
    #[cfg(feature = "seal")]
    let Ok(ring) = KeyRing::<1>::new(&[b"elicit-firmware-demo-secret-0001"]) else {
        return false;
    };
    #[cfg(feature = "seal")]
    let sealer = Sealer::new(ring, Some("elicit-firmware"));
    let ctx = || {
        #[cfg(feature = "seal")]
        return SealCtx {
            sealer: &sealer,
            now: UnixTime::from_secs(1_780_000_000),
            entropy: next_entropy(),
        };
        #[cfg(not(feature = "seal"))]
        return SealCtx(core::marker::PhantomData);
    };
    let mut ok = conversation(&booking, &mut [0; BOOKING_WS], PARIS, PARIS_VALUES, &ctx);
    let mut out = [0u8; 512];
    let mut log_buf = [0u8; 0];
    let mut log = Log::new(&mut log_buf);
    ok &= matches!(
        handshake_call::<BOOKING_N, HANDSHAKE_WS>(&booking, "{}", LONDON, &mut out, &mut log),
        Ok(n) if out.get(..n) == Some(LONDON_VALUES.as_bytes())
    );
    ok &= conversation(&survey, &mut [0; SURVEY_WS], SURVEY, SURVEY_VALUES, &ctx);
    ok
}

fn conversation<'s, const N: usize>(
    tool: &Tool<N>,
    ws: &mut [u8],
    script: Script,
    expected: &str,
    ctx: &dyn Fn() -> SealCtx<'s>,
) -> bool {
    let mut carried = [0u8; STATE_CAP];
    let mut carried_len = None;
    let mut replies = [0u8; REPLIES_CAP];
    let mut replies_len = None;
    let mut out = [0u8; OUT_CAP];
    let mut state_out = [0u8; STATE_CAP];
    let mut token_out = [0u8; STATE_CAP];
    for _ in 0..4 {
        let mut log_buf = [0u8; 0];
        let mut log = Log::new(&mut log_buf);
        let r = modern_round::<N>(
            tool,
            ws,
            "{}",
            carried_len.map(|l| (&mut carried[..], l)),
            replies_len.map(|l| utf8(replies.get(..l).unwrap_or(&[]))),
            &ctx(),
            &mut out,
            &mut state_out,
            &mut token_out,
            &mut log,
        );
        match r {
            Ok(Outcome::Done { values, .. }) => {
                return out.get(..values) == Some(expected.as_bytes())
            }
            Ok(Outcome::InputRequired {
                requests,
                state,
                token,
                ..
            }) => {
                let (src, n) = if cfg!(feature = "seal") {
                    (&token_out, token)
                } else {
                    (&state_out, state)
                };
                if let (Some(d), Some(s)) = (carried.get_mut(..n), src.get(..n)) {
                    d.copy_from_slice(s);
                }
                carried_len = Some(n);
                let Ok(reqs) = Value::parse(utf8(out.get(..requests).unwrap_or(&[]))) else {
                    return false;
                };
                match client_replies(script, reqs, &mut replies) {
                    Ok(l) => replies_len = Some(l),
                    Err(_) => return false,
                }
            }
            Err(_) => return false,
        }
    }
    false
}
