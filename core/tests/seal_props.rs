//! Property tests: tampering is always caught, key rotation behaves as the SDK
//! documents (`[old, new]` → `[new, old]` → `[new]`), and `unseal_in_place` agrees with
//! `unseal` on every token (same state or same reason).
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg(all(feature = "seal", feature = "std"))]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use elicit_core::json::Value;
use elicit_core::seal::{
    Binding, Entropy, KeyRing, Reason, SealError, Sealer, UnixTime, UnsealError,
};
use proptest::prelude::*;

const NOW: u64 = 1_780_000_000;

fn sealer<const N: usize>(keys: &[&[u8]], audience: Option<&'static str>) -> Sealer<'static, N> {
    Sealer::new(KeyRing::new(keys).unwrap(), audience)
}

fn binding(args: &str) -> Binding<'static> {
    let args: &'static str = Box::leak(args.to_owned().into_boxed_str());
    Binding::new(
        "tools/call",
        "book_table",
        Some(Value::parse(args).unwrap()),
    )
}

fn unseal<const N: usize>(
    s: &Sealer<'_, N>,
    token: &str,
    b: &Binding<'_>,
    principal: Option<&str>,
) -> Result<String, UnsealError> {
    unseal_at(s, token, b, principal, UnixTime::from_secs(NOW + 1))
}

/// `unseal_to_string`, checked against `unseal_in_place` on a copy of the token: both
/// paths give the same state or the same reason.
fn unseal_at<const N: usize>(
    s: &Sealer<'_, N>,
    token: &str,
    b: &Binding<'_>,
    principal: Option<&str>,
    now: UnixTime,
) -> Result<String, UnsealError> {
    let got = s.unseal_to_string(token, b, principal, now);
    let mut buf = token.as_bytes().to_vec();
    let in_place = s
        .unseal_in_place(&mut buf, token.len(), b, principal, now)
        .map(str::to_owned);
    assert_eq!(
        in_place, got,
        "unseal_in_place differs from unseal on {token:?}"
    );
    got
}

fn b64_encode(raw: &[u8]) -> String {
    let mut out = vec![0u8; raw.len() * 4 / 3 + 4];
    let n = URL_SAFE_NO_PAD.encode_slice(raw, &mut out).unwrap();
    out.truncate(n);
    String::from_utf8(out).unwrap()
}

fn b64_decode(text: &str) -> Vec<u8> {
    let mut out = vec![0u8; text.len()];
    let n = URL_SAFE_NO_PAD.decode_slice(text, &mut out).unwrap();
    out.truncate(n);
    out
}

/// A sealed token with everything that varies drawn by proptest.
#[derive(Debug, Clone)]
struct Case {
    key: Vec<u8>,
    state: String,
    principal: Option<String>,
    audience: Option<&'static str>,
    entropy: Entropy,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(any::<u8>(), 32..80),
        any::<String>(),
        prop::option::of("[a-z\u{e9}\u{1F600}]{0,12}"),
        prop::option::of(prop::sample::select(vec!["svc-a", "example-server"])),
        any::<[u8; 12]>(),
        any::<[u8; 8]>(),
    )
        .prop_map(
            |(key, state, principal, audience, nonce, principal_salt)| Case {
                key,
                state,
                principal,
                audience,
                entropy: Entropy {
                    nonce,
                    principal_salt,
                },
            },
        )
}

impl Case {
    fn sealer(&self) -> Sealer<'static, 1> {
        sealer(&[&self.key], self.audience)
    }
    fn token(&self, b: &Binding<'_>) -> String {
        self.sealer()
            .seal_to_string(
                &self.state,
                b,
                self.principal.as_deref(),
                UnixTime::from_secs(NOW),
                &self.entropy,
            )
            .unwrap()
    }
}

/// Characters a tamperer might put in: the whole base64url alphabet plus others.
fn replacement() -> impl Strategy<Value = char> {
    prop::sample::select(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \u{e9}\0"
            .chars()
            .collect::<Vec<_>>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn round_trip(c in case()) {
        let b = binding(r#"{"city":"Paris","guests":4}"#);
        let token = c.token(&b);
        prop_assert_eq!(unseal(&c.sealer(), &token, &b, c.principal.as_deref()).unwrap(), c.state);
    }

    /// `seal_in_place` writes the token `seal` writes, byte for byte, for any state,
    /// in a buffer of exactly the token's length or longer; one byte short, it reports
    /// the size and leaves the state alone.
    #[test]
    fn seal_in_place_is_seal(c in case(), slack in 0usize..40) {
        let b = binding(r#"{"city":"Paris","guests":4}"#);
        let token = c.token(&b);
        let s = c.sealer();
        let p = c.principal.as_deref();
        let now = UnixTime::from_secs(NOW);
        let mut buf = vec![0xEEu8; token.len() + slack];
        buf[..c.state.len()].copy_from_slice(c.state.as_bytes());
        let got = s.seal_in_place(&mut buf, c.state.len(), &b, p, now, &c.entropy).unwrap();
        prop_assert_eq!(got, token.as_str());
        let mut short = vec![0u8; token.len() - 1];
        if c.state.len() <= short.len() {
            short[..c.state.len()].copy_from_slice(c.state.as_bytes());
            let before = short.clone();
            let err = s.seal_in_place(&mut short, c.state.len(), &b, p, now, &c.entropy).unwrap_err();
            prop_assert_eq!(err, SealError::BufferTooSmall { needed: token.len() });
            prop_assert_eq!(short, before);
        }
    }

    #[test]
    fn any_single_character_change_is_rejected(c in case(), at in any::<prop::sample::Index>(), with in replacement()) {
        let b = binding("{}");
        let token = c.token(&b);
        let i = at.index(token.len());
        prop_assume!(!token[i..].starts_with(with));
        let mut bad = String::with_capacity(token.len() + 4);
        bad.push_str(&token[..i]);
        bad.push(with);
        bad.push_str(&token[i + 1..]);
        prop_assert!(unseal(&c.sealer(), &bad, &b, c.principal.as_deref()).is_err());
    }

    #[test]
    fn any_single_byte_change_of_the_body_is_rejected(c in case(), at in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let b = binding("{}");
        let token = c.token(&b);
        let mut raw = b64_decode(&token[3..]);
        let i = at.index(raw.len());
        raw[i] ^= xor;
        let bad = format!("v1.{}", b64_encode(&raw));
        let err = unseal(&c.sealer(), &bad, &b, c.principal.as_deref()).unwrap_err();
        // The kid is looked up first; everything after it is covered by the GCM tag.
        let want = if i < 4 { Reason::UnknownKey } else { Reason::Seal };
        prop_assert_eq!(err.reason(), want);
    }

    #[test]
    fn any_truncation_is_rejected(c in case(), at in any::<prop::sample::Index>()) {
        let b = binding("{}");
        let token = c.token(&b);
        let cut = at.index(token.len());
        prop_assert!(unseal(&c.sealer(), &token[..cut], &b, c.principal.as_deref()).is_err());
        // Truncating the decoded body (re-encoded canonically) is caught by GCM.
        let raw = b64_decode(&token[3..]);
        let keep = at.index(raw.len());
        let bad = format!("v1.{}", b64_encode(&raw[..keep]));
        prop_assert!(unseal(&c.sealer(), &bad, &b, c.principal.as_deref()).is_err());
    }

    #[test]
    fn any_extension_is_rejected(c in case(), extra in prop::collection::vec(replacement(), 1..8), bytes in prop::collection::vec(any::<u8>(), 1..8)) {
        let b = binding("{}");
        let token = c.token(&b);
        let longer: String = token.chars().chain(extra).collect();
        prop_assert!(unseal(&c.sealer(), &longer, &b, c.principal.as_deref()).is_err());
        let mut raw = b64_decode(&token[3..]);
        raw.extend_from_slice(&bytes);
        let bad = format!("v1.{}", b64_encode(&raw));
        prop_assert_eq!(unseal(&c.sealer(), &bad, &b, c.principal.as_deref()).unwrap_err().reason(), Reason::Seal);
    }

    #[test]
    fn other_arguments_principal_or_audience_are_rejected(c in case(), guests in 0u32..1000) {
        let b = binding(r#"{"city":"Paris","guests":4}"#);
        let token = c.token(&b);
        let s = c.sealer();
        if guests != 4 {
            let other = binding(&format!(r#"{{"city":"Paris","guests":{guests}}}"#));
            prop_assert_eq!(unseal(&s, &token, &other, c.principal.as_deref()).unwrap_err().reason(), Reason::RequestBinding);
        }
        let other_principal = match &c.principal {
            Some(p) => Some(format!("{p}!")),
            None => Some("someone".to_owned()),
        };
        let want = if c.principal.is_some() { Reason::Principal } else { Reason::PrincipalDrift };
        prop_assert_eq!(unseal(&s, &token, &b, other_principal.as_deref()).unwrap_err().reason(), want);
        let other_aud = sealer::<1>(&[&c.key], if c.audience.is_some() { None } else { Some("svc-a") });
        prop_assert_eq!(unseal(&other_aud, &token, &b, c.principal.as_deref()).unwrap_err().reason(), Reason::Audience);
    }

    /// The SDK's rotation recipe, each phase fully rolled out before the next.
    #[test]
    fn rotation(old in prop::collection::vec(any::<u8>(), 32..48), new in prop::collection::vec(any::<u8>(), 32..48), c in case()) {
        prop_assume!(old != new);
        let b = binding(r#"{"city":"Paris"}"#);
        let seal = |s: &Sealer<'_, 2>| {
            s.seal_to_string(&c.state, &b, None, UnixTime::from_secs(NOW), &c.entropy).unwrap()
        };
        let kid_of = |token: &str| -> [u8; 4] { b64_decode(&token[3..])[..4].try_into().unwrap() };
        let only_old: Sealer<'_, 2> = sealer(&[&old], None);
        let only_new_ring = KeyRing::<1>::new(&[&new]).unwrap();
        let (old_kid, new_kid) = (only_old.ring().sealing_kid(), only_new_ring.sealing_kid());
        let t_old = seal(&only_old);
        prop_assert_eq!(kid_of(&t_old), old_kid);

        // Phase 1: [old, new] — still seals with old; new tokens (from nodes already on
        // phase 2) verify too.
        let p1: Sealer<'_, 2> = sealer(&[&old, &new], None);
        let t1 = seal(&p1);
        prop_assert_eq!(kid_of(&t1), old_kid);
        // Phase 2: [new, old] — seals with new; old tokens still verify.
        let p2: Sealer<'_, 2> = sealer(&[&new, &old], None);
        let t2 = seal(&p2);
        prop_assert_eq!(kid_of(&t2), new_kid);
        for s in [&p1, &p2] {
            for t in [&t_old, &t1, &t2] {
                prop_assert_eq!(&unseal(s, t, &b, None).unwrap(), &c.state);
            }
        }
        // Phase 3: [new] — old tokens are gone, new ones live on.
        let p3: Sealer<'_, 2> = sealer(&[&new], None);
        prop_assert_eq!(kid_of(&seal(&p3)), new_kid);
        for t in [&t_old, &t1] {
            prop_assert_eq!(unseal(&p3, t, &b, None).unwrap_err().reason(), Reason::UnknownKey);
        }
        prop_assert_eq!(&unseal(&p3, &t2, &b, None).unwrap(), &c.state);
    }

    /// Expiry and skew edges on arbitrary (sub-second) clocks: accept exactly when
    /// `iat <= now + 60 && now < exp`.
    #[test]
    fn clock_edges(iat_ms in 1_000_000_000_000u64..2_000_000_000_000, delta_ms in -120_000i64..700_000) {
        let s: Sealer<'_, 1> = sealer(&[&[5u8; 32]], None);
        let b = binding("{}");
        let iat = UnixTime::from_millis(iat_ms);
        let entropy = Entropy { nonce: [0; 12], principal_salt: [0; 8] };
        let token = s.seal_to_string("x", &b, None, iat, &entropy).unwrap();
        let now = UnixTime::from_millis(iat_ms.checked_add_signed(delta_ms).unwrap());
        let (iat_f, now_f) = (iat.as_secs_f64(), now.as_secs_f64());
        let got = unseal_at(&s, &token, &b, None, now);
        if iat_f > now_f + 60.0 {
            prop_assert_eq!(got.unwrap_err().reason(), Reason::Future);
        } else if now_f >= iat_f + 600.0 {
            prop_assert_eq!(got.unwrap_err().reason(), Reason::Expired);
        } else {
            prop_assert_eq!(got.unwrap(), "x");
        }
    }
}

/// Every reason `unseal` gives, one case each, is the same in place (`unseal_at` checks
/// the two paths agree).
#[test]
fn every_reason_is_the_same_in_place() {
    let key = [5u8; 32];
    let s: Sealer<'_, 1> = sealer(&[&key], Some("svc-a"));
    let b = binding(r#"{"city":"Paris"}"#);
    let entropy = Entropy {
        nonce: [3; 12],
        principal_salt: [4; 8],
    };
    let at = |secs| UnixTime::from_secs(secs);
    let token = s
        .seal_to_string("state", &b, Some("ada"), at(NOW), &entropy)
        .unwrap();
    let bare = s
        .seal_to_string("state", &b, None, at(NOW), &entropy)
        .unwrap();
    let mut raw = b64_decode(&token[3..]);
    raw[0] ^= 1;
    let unknown_key = format!("v1.{}", b64_encode(&raw));
    raw[0] ^= 1;
    raw[20] ^= 1;
    let bad_seal = format!("v1.{}", b64_encode(&raw));
    let other_aud: Sealer<'_, 1> = sealer(&[&key], Some("svc-b"));
    let other = binding(r#"{"city":"Rome"}"#);
    let p = Some("ada");
    assert_eq!(unseal_at(&s, &token, &b, p, at(NOW)).unwrap(), "state");
    let cases: [(Result<String, UnsealError>, Reason); 10] = [
        (unseal_at(&s, "v2.AAAA", &b, p, at(NOW)), Reason::Malformed),
        (
            unseal_at(&s, &format!("{token}="), &b, p, at(NOW)),
            Reason::Malformed,
        ),
        (
            unseal_at(&s, &unknown_key, &b, p, at(NOW)),
            Reason::UnknownKey,
        ),
        (unseal_at(&s, &bad_seal, &b, p, at(NOW)), Reason::Seal),
        (unseal_at(&s, &token, &b, p, at(NOW - 61)), Reason::Future),
        (unseal_at(&s, &token, &b, p, at(NOW + 600)), Reason::Expired),
        (
            unseal_at(&s, &token, &other, p, at(NOW)),
            Reason::RequestBinding,
        ),
        (
            unseal_at(&other_aud, &token, &b, p, at(NOW)),
            Reason::Audience,
        ),
        (unseal_at(&s, &bare, &b, p, at(NOW)), Reason::PrincipalDrift),
        (
            unseal_at(&s, &token, &b, Some("bob"), at(NOW)),
            Reason::Principal,
        ),
    ];
    for (got, want) in &cases {
        assert_eq!(got.as_ref().unwrap_err().reason(), *want);
    }
    // A buffer too small is the one reason only `unseal` can give for a real token.
    let mut small = [0u8; 8];
    let err = s.unseal(&token, &b, p, at(NOW), &mut small).unwrap_err();
    assert!(matches!(err.reason(), Reason::TooLarge { .. }));
}

#[test]
fn seal_in_place_refuses_a_state_that_is_not_utf8_text_in_the_buffer() {
    let s: Sealer<'_, 1> = sealer(&[&[5u8; 32]], None);
    let b = binding("{}");
    let entropy = Entropy {
        nonce: [0; 12],
        principal_salt: [0; 8],
    };
    let now = UnixTime::from_secs(NOW);
    let mut buf = [0u8; 512];
    buf[..3].copy_from_slice(b"a\xffb");
    let err = s
        .seal_in_place(&mut buf, 3, &b, None, now, &entropy)
        .unwrap_err();
    assert_eq!(err, SealError::InvalidState);
    assert!(err.to_string().contains("not UTF-8"));
    assert_eq!(
        s.seal_in_place(&mut buf, 513, &b, None, now, &entropy)
            .unwrap_err(),
        SealError::InvalidState
    );
    // Escapes of every kind, then unsealed in place again.
    let state = "q\"\\/\u{1}\n\u{7f}é\u{1F600}\u{2028}";
    buf[..state.len()].copy_from_slice(state.as_bytes());
    let len = s
        .seal_in_place(&mut buf, state.len(), &b, None, now, &entropy)
        .unwrap()
        .len();
    assert_eq!(
        s.unseal_in_place(&mut buf, len, &b, None, now).unwrap(),
        state
    );
}

#[test]
fn in_place_length_beyond_the_buffer_is_too_large() {
    let s: Sealer<'_, 1> = sealer(&[&[5u8; 32]], None);
    let b = binding("{}");
    let mut buf = [0u8; 8];
    let err = s
        .unseal_in_place(&mut buf, 9, &b, None, UnixTime::from_secs(NOW))
        .unwrap_err();
    assert_eq!(err.reason(), Reason::TooLarge { needed: 9 });
    let err = s.ring().unseal_payload_in_place(&mut buf, 9).unwrap_err();
    assert_eq!(err.reason(), Reason::TooLarge { needed: 9 });
}

#[test]
fn ttl_must_be_positive_and_finite() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(sealer::<1>(&[&[1u8; 32]], None).with_ttl(bad).is_err());
    }
    assert_eq!(
        sealer::<1>(&[&[1u8; 32]], None)
            .with_ttl(0.5)
            .unwrap()
            .ttl_secs(),
        0.5
    );
}

/// Decrypted claims that fail a check (expired, another request, another principal) are
/// not left in the caller's buffer, by `unseal` or in place.
#[test]
fn claims_that_fail_a_check_are_wiped() {
    let key = [5u8; 32];
    let s: Sealer<'_, 1> = sealer(&[&key], None);
    let b = binding(r#"{"city":"Paris"}"#);
    let entropy = Entropy {
        nonce: [3; 12],
        principal_salt: [4; 8],
    };
    let at = UnixTime::from_secs;
    let secret = "the-secret-answer";
    let token = s
        .seal_to_string(secret, &b, Some("ada"), at(NOW), &entropy)
        .unwrap();
    let other = binding(r#"{"city":"Rome"}"#);
    let leaked = |buf: &[u8]| buf.windows(secret.len()).any(|w| w == secret.as_bytes());
    for (bind, who, when) in [
        (&b, Some("ada"), NOW + 600),
        (&other, Some("ada"), NOW),
        (&b, Some("bob"), NOW),
    ] {
        let mut out = vec![0u8; token.len()];
        assert!(s.unseal(&token, bind, who, at(when), &mut out).is_err());
        assert!(!leaked(&out));
        let mut buf = token.clone().into_bytes();
        let len = buf.len();
        assert!(s
            .unseal_in_place(&mut buf, len, bind, who, at(when))
            .is_err());
        assert!(!leaked(&buf));
    }
    // A good unseal does return it (the check above can see a leak).
    let mut out = vec![0u8; token.len()];
    assert_eq!(
        s.unseal(&token, &b, Some("ada"), at(NOW), &mut out)
            .unwrap(),
        secret
    );
    assert!(leaked(&out));
}
