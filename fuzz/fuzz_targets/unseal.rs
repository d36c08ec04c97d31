//! Token unsealing: arbitrary tokens (and `requestState` JSON values) are rejected with
//! the frozen error, never a panic; sealing any state and unsealing it gives it back,
//! and a changed token never unseals.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use elicit_core::json::Value;
use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime, ERROR_MESSAGE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sealer = Sealer::new(
        KeyRing::<2>::new(&[&[0x42u8; 32], &[0x17u8; 40]]).unwrap(),
        Some("fuzz"),
    );
    let params = Value::parse(r#"{"name":"book","arguments":{"item":"flight"}}"#).unwrap();
    let binding = Binding::from_params("tools/call", Some(params)).unwrap();
    let now = UnixTime::from_secs(1_780_000_000);
    let later = UnixTime::from_secs(1_780_000_030);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut buf = vec![0u8; text.len() + 64];

    // Arbitrary text as a token, and as a `requestState` JSON value.
    for principal in [None, Some("alice")] {
        if let Err(e) = sealer.unseal(text, &binding, principal, later, &mut buf) {
            assert_eq!(e.to_string(), ERROR_MESSAGE);
        }
        if let Ok(v) = Value::parse(text) {
            let mut b = vec![0u8; text.len() + 64];
            if let Err(e) = sealer.unseal_param(Some(v), &binding, principal, later, &mut b) {
                assert_eq!(e.to_string(), ERROR_MESSAGE);
            }
        }
    }

    // Round trip: the text as a state.
    let entropy = Entropy {
        nonce: [7; 12],
        principal_salt: [9; 8],
    };
    let mut tok = vec![0u8; 8 * text.len() + 1024];
    let token = sealer
        .seal(text, &binding, Some("alice"), now, &entropy, &mut tok)
        .expect("a big enough buffer seals")
        .to_string();
    let mut out = vec![0u8; token.len()];
    let back = sealer.unseal(&token, &binding, Some("alice"), later, &mut out);
    assert_eq!(back.as_deref(), Ok(text), "seal/unseal round trip");
    let mut out = vec![0u8; token.len()];
    assert!(sealer
        .unseal(&token, &binding, Some("bob"), later, &mut out)
        .is_err());
    // Flip one character of the token body: it must not unseal.
    if let Some(&b) = data.first() {
        let mut t = token.clone().into_bytes();
        let i = 3 + (b as usize) % (t.len() - 3);
        t[i] = if t[i] == b'A' { b'B' } else { b'A' };
        let t = String::from_utf8(t).unwrap();
        let mut out = vec![0u8; t.len()];
        assert!(sealer
            .unseal(&t, &binding, Some("alice"), later, &mut out)
            .is_err());
    }
});
