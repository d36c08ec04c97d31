//! Compiled plans as bytes (feature `serde`): `Plan::to_postcard` / `Plan::from_postcard`.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg(feature = "serde")]

use elicit_core::plan_bytes::PLAN_FORMAT_VERSION;
use elicit_core::{CompileError, Era, Error, Inputs, Plan, Round, SliceSink, Step};

const BOOKING: &str = r#"{"tool":"book_flight","parameters":[
 {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
 {"name":"date","elicit":{"message":"When would you like to fly?"}},
 {"name":"airport","elicit":{"needs":["destination"],"declares":"string"}},
 {"name":"proceed","type":"boolean","elicit":{"needs":["destination","date"]}},
 {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
  "elicit":{"message":"Window or aisle?","title":"Seat","description":"Where to sit \u00e9"}},
 {"name":"n","type":{"type":"integer","minimum":1,"maximum":9},"elicit":{"message":"How many?"}},
 {"name":"who","type":{"type":"object","properties":{"first":{"type":"string","title":"First"},
   "age":{"type":"integer","default":3}}},"outcome":true,"elicit":{"message":"Who?"}},
 {"name":"raw","type":{"schema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
  "elicit":{"message":"Raw?"}},
 {"name":"item"}
]}"#;

/// The first round's inputRequests and requestState, and the first Resolve step.
fn first_round<const N: usize>(plan: &Plan<'_, N>) -> (String, String) {
    let mut ws = [0u8; 512];
    let mut round = Round::new(
        plan,
        Era::Modern,
        Inputs::modern(r#"{"item":"x"}"#, None, None),
        &mut ws,
    )
    .unwrap();
    loop {
        match round.poll().unwrap() {
            Step::Resolve { param } => {
                let q = format!(r#"{{"message":"Q for {}?"}}"#, plan.name(param).unwrap());
                round.resolve_question(&q).unwrap();
            }
            Step::InputRequired => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    let mut a = [0u8; 8192];
    let mut s = SliceSink::new(&mut a);
    round.write_input_requests(false, &mut s).unwrap();
    let n = s.finish().unwrap();
    let mut b = [0u8; 2048];
    let mut t = SliceSink::new(&mut b);
    round.write_request_state(&mut t).unwrap();
    let m = t.finish().unwrap();
    (
        String::from_utf8(a[..n].to_vec()).unwrap(),
        String::from_utf8(b[..m].to_vec()).unwrap(),
    )
}

#[test]
fn round_trip_behaves_like_the_compiled_plan() {
    let plan: Plan<'_, 16> = Plan::compile(BOOKING).unwrap();
    let bytes = plan.to_postcard_vec();
    assert_eq!(bytes[0], PLAN_FORMAT_VERSION);
    assert_eq!(bytes[1] as usize, plan.len());
    assert_eq!(bytes.len(), plan.postcard_len());
    let loaded: Plan<'_, 16> = Plan::from_postcard(&bytes).unwrap();
    assert_eq!(loaded.tool(), "book_flight");
    assert_eq!(
        loaded.resolution_order().collect::<Vec<_>>(),
        plan.resolution_order().collect::<Vec<_>>()
    );
    for i in 0..plan.len() {
        assert_eq!(loaded.literal_digest(i), plan.literal_digest(i));
        assert_eq!(
            loaded.needs(i).collect::<Vec<_>>(),
            plan.needs(i).collect::<Vec<_>>()
        );
    }
    assert_eq!(first_round(&loaded), first_round(&plan));
    // A loaded plan writes the same bytes again, into a caller buffer.
    let mut again = [0u8; 2048];
    let n = loaded.to_postcard(&mut again).unwrap();
    assert_eq!(&again[..n], &bytes[..]);
    // Zero-copy: the loaded plan's strings point into the bytes.
    let range = bytes.as_ptr_range();
    assert!(range.contains(&loaded.tool().as_ptr()));
    assert!(range.contains(&loaded.name(0).unwrap().as_ptr()));
}

#[test]
fn errors_are_reported_not_panicked() {
    let plan: Plan<'_, 16> = Plan::compile(BOOKING).unwrap();
    let bytes = plan.to_postcard_vec();

    let mut small = [0u8; 8];
    assert_eq!(
        plan.to_postcard(&mut small),
        Err(Error::BufferTooSmall {
            needed: bytes.len()
        })
    );
    assert!(matches!(
        Plan::<'_, 4>::from_postcard(&bytes),
        Err(CompileError::Capacity {
            what: "parameters",
            limit: 4
        })
    ));
    let mut other = bytes.clone();
    other[0] = PLAN_FORMAT_VERSION + 1;
    let e = Plan::<'_, 16>::from_postcard(&other).unwrap_err();
    assert!(e.to_string().contains("another format version"), "{e}");
    assert!(Plan::<'_, 16>::from_postcard(&[]).is_err());
    for cut in 0..bytes.len() {
        assert!(
            Plan::<'_, 16>::from_postcard(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Plan::<'_, 16>::from_postcard(&longer).is_err());

    // Every single-byte corruption either loads a consistent plan or is an error; a
    // loaded one runs a round without panicking.
    for i in 0..bytes.len() {
        for x in [0x00u8, 0x01, 0x22, 0x5c, 0x7f, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= x;
            if let Ok(p) = Plan::<'_, 16>::from_postcard(&b) {
                let mut ws = [0u8; 512];
                if let Ok(mut r) = Round::new(
                    &p,
                    Era::Modern,
                    Inputs::modern(r#"{"item":1}"#, None, None),
                    &mut ws,
                ) {
                    for _ in 0..64 {
                        match r.poll() {
                            Ok(Step::Resolve { .. }) => {
                                let _ = r.resolve_value("1");
                            }
                            Ok(Step::InputRequired) => {
                                let mut o = [0u8; 8192];
                                let _ = r.write_input_requests(false, &mut SliceSink::new(&mut o));
                                let _ = r.write_request_state(&mut SliceSink::new(&mut o));
                                break;
                            }
                            _ => break,
                        }
                    }
                };
            };
        }
    }
}

#[test]
fn inconsistent_plans_are_rejected() {
    // A resolver placed before what it needs (a hand-made order) is refused.
    let decl = r#"{"parameters":[{"name":"a","elicit":{"message":"A?"}},
        {"name":"b","elicit":{"needs":["a"]}}]}"#;
    let plan: Plan<'_, 4> = Plan::compile(decl).unwrap();
    let mut bytes = plan.to_postcard_vec();
    let n = bytes.len();
    // The order is the last field: a length byte then the indices [0, 1].
    assert_eq!(&bytes[n - 3..], &[2, 0, 1]);
    bytes[n - 2] = 1;
    bytes[n - 1] = 0;
    let e = Plan::<'_, 4>::from_postcard(&bytes).unwrap_err();
    assert!(e.to_string().contains("before what it needs"), "{e}");
}

#[test]
fn serde_deserialize_checks_too() {
    let plan: Plan<'_, 16> = Plan::compile(BOOKING).unwrap();
    let bytes = plan.to_postcard_vec();
    let loaded: Plan<'_, 16> = postcard::from_bytes(&bytes[2..]).unwrap();
    assert_eq!(first_round(&loaded), first_round(&plan));
    let mut bad = bytes[2..].to_vec();
    let n = bad.len();
    bad[n - 1] = 0; // order [.., 0]: parameter 0 twice
    assert!(postcard::from_bytes::<Plan<'_, 16>>(&bad).is_err());
}

/// `Plan::from_postcard` reads the bytes by hand; serde's postcard deserializer (with
/// the same header and trailing-byte rules) must accept exactly the same corrupted,
/// cut, lengthened and re-encoded bytes, and load the same plan from them.
#[test]
fn hand_reader_agrees_with_serde() {
    fn by_serde(b: &[u8]) -> Option<String> {
        let (&version, rest) = b.split_first()?;
        let (&count, body) = rest.split_first()?;
        if version != PLAN_FORMAT_VERSION || count > 16 {
            return None;
        }
        let (p, tail) = postcard::take_from_bytes::<Plan<'_, 16>>(body).ok()?;
        (tail.is_empty() && p.len() == usize::from(count)).then(|| format!("{p:?}"))
    }
    fn by_hand(b: &[u8]) -> Option<String> {
        Plan::<'_, 16>::from_postcard(b)
            .ok()
            .map(|p| format!("{p:?}"))
    }
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for decl in [
        BOOKING,
        r#"{"parameters":[{"name":"a","elicit":{"message":"A?"}},
            {"name":"b","type":{"enum":["x","y"]},
             "elicit":{"needs":["a"],"declares":{"enum":["y","x"]}}}]}"#,
    ] {
        let plan: Plan<'_, 16> = Plan::compile(decl).unwrap();
        let bytes = plan.to_postcard_vec();
        assert!(by_hand(&bytes).is_some() && by_hand(&bytes) == by_serde(&bytes));
        for i in 0..bytes.len() {
            for x in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x7f, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= x;
                cases.push(b);
            }
            let mut b = bytes.clone();
            b.remove(i);
            cases.push(b);
            for y in [0x00u8, 0x01, 0x80, b'"'] {
                let mut b = bytes.clone();
                b.insert(i, y);
                cases.push(b);
            }
            // A byte below 0x80 re-encoded as a longer (non-canonical) varint, in 2 to
            // 11 bytes: postcard's limits (5 bytes for a u32 variant index, 10 for a
            // 64-bit usize length) decide, so must ours.
            if bytes[i] < 0x80 {
                for extra in 1..=10 {
                    let mut b = bytes[..i].to_vec();
                    b.push(bytes[i] | 0x80);
                    b.extend(std::iter::repeat_n(0x80, extra - 1));
                    b.push(0);
                    b.extend_from_slice(&bytes[i + 1..]);
                    cases.push(b);
                }
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut b = bytes.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed >> 8) as usize % b.len();
                b[at] = (seed >> 40) as u8;
            }
            cases.push(b);
        }
    }
    let mut loaded = 0;
    for b in &cases {
        let hand = by_hand(b);
        assert_eq!(hand, by_serde(b), "{b:?}");
        loaded += usize::from(hand.is_some());
    }
    assert!(loaded > 100, "{loaded} of {} load", cases.len());
}
