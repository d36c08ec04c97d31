//! The declared fallback (docs/fallback.md) through both C ABI surfaces: a plan compiled
//! from a declaration with `"fallback": "arguments"` lists its elicited parameters for
//! a client that cannot be asked (`elicit_plan_input_schema`,
//! `elicit_noalloc_plan_input_schema`), and a round for such a client ends at
//! `ELICIT_STEP_FALLBACK` with the tool result `*_round_fallback_result` writes.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use elicit_ffi::testing;
use elicit_ffi::*;
use serde_json::{json, Value};

const DECL: &str = r#"{"tool":"book","fallback":"arguments","parameters":[
  {"name":"item"},
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,"elicit":{"message":"Window or aisle?"}},
  {"name":"pin","elicit":{"message":"Your PIN?","fallback":false}}]}"#;

/// DECL without the PIN, which may not fall back (asked at once, it fails any call of a
/// client that cannot be asked with -32021).
const OPEN: &str = r#"{"tool":"book","fallback":"arguments","parameters":[
  {"name":"item"},
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,"elicit":{"message":"Window or aisle?"}}]}"#;

const SCHEMA: &str =
    r#"{"type":"object","properties":{"item":{"type":"string"}},"required":["item"]}"#;

/// No elicitation at all (claude.ai's capabilities, for one).
const NONE: &str = "{}";

fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes / 16 + 1]
}

/// What a surface gives: the listing for a client, and one modern round's terminal step
/// with its fallback result (or the poll's error code).
trait Surface {
    fn listing(
        &mut self,
        schema: &str,
        caps: Option<&str>,
    ) -> Result<(String, bool), elicit_result>;
    fn call(&mut self, args: &str, caps: &str) -> Result<(u32, Option<Value>), elicit_result>;
}

struct Hosted(*mut elicit_plan);

impl Drop for Hosted {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { elicit_plan_free(self.0) }
    }
}

impl Hosted {
    fn new(decl: &'static str) -> Self {
        Hosted(testing::plan(decl))
    }
}

impl Surface for Hosted {
    fn listing(
        &mut self,
        schema: &str,
        caps: Option<&str>,
    ) -> Result<(String, bool), elicit_result> {
        let (c, cl) = caps.map_or((null(), 0), |c| (c.as_ptr(), c.len()));
        let mut private = false;
        let out = testing::read_text(|b, cap, n| {
            // SAFETY: a live plan, valid buffers.
            unsafe {
                elicit_plan_input_schema(
                    self.0,
                    schema.as_ptr().cast(),
                    schema.len(),
                    c.cast(),
                    cl,
                    &mut private,
                    b.cast(),
                    cap,
                    n,
                )
            }
        })?;
        Ok((out, private))
    }

    fn call(&mut self, args: &str, caps: &str) -> Result<(u32, Option<Value>), elicit_result> {
        let mut round = null_mut();
        // SAFETY: valid buffers for their lengths; the round is freed below.
        unsafe {
            let rc = elicit_round_new_modern(
                self.0,
                &elicit_round_input::new(
                    (args.as_ptr().cast(), args.len()),
                    (null(), 0),
                    (null(), 0),
                    (caps.as_ptr().cast(), caps.len()),
                ),
                0,
                &mut round,
                null_mut(),
                0,
                null_mut(),
            );
            assert_eq!(rc, ELICIT_OK);
            let (mut step, mut param) = (0u32, 0usize);
            let rc = elicit_round_poll(round, &mut step, &mut param);
            let out = if rc != ELICIT_OK {
                Err(rc)
            } else {
                let result =
                    testing::read_text(|b, c, n| elicit_round_fallback_result(round, b, c, n));
                match (step, result) {
                    (ELICIT_STEP_FALLBACK, Ok(t)) => {
                        assert_eq!(param, ELICIT_NO_PARAM);
                        Ok((step, Some(serde_json::from_str(&t).unwrap())))
                    }
                    (_, Err(code)) => {
                        assert_eq!(code, ELICIT_ERR_WRONG_STEP, "only at ELICIT_STEP_FALLBACK");
                        Ok((step, None))
                    }
                    (s, Ok(t)) => panic!("step {s} wrote a fallback result {t}"),
                }
            };
            elicit_round_free(round);
            out
        }
    }
}

struct Static {
    _mem: Vec<u128>,
    plan: *mut elicit_noalloc_plan,
}

impl Static {
    fn new(decl: &'static str) -> Self {
        let mut mem = aligned(elicit_noalloc_plan_size());
        let mut plan = null_mut();
        // SAFETY: aligned memory of the size asked for; `decl` is static.
        let rc = unsafe {
            elicit_noalloc_plan_init_json(
                mem.as_mut_ptr().cast::<c_void>(),
                elicit_noalloc_plan_size(),
                decl.as_ptr().cast(),
                decl.len(),
                &mut plan,
                null_mut(),
                0,
                null_mut(),
            )
        };
        assert_eq!(rc, ELICIT_OK);
        Static { _mem: mem, plan }
    }
}

impl Surface for Static {
    fn listing(
        &mut self,
        schema: &str,
        caps: Option<&str>,
    ) -> Result<(String, bool), elicit_result> {
        let (c, cl) = caps.map_or((null(), 0), |c| (c.as_ptr(), c.len()));
        let mut private = false;
        let out = testing::read_text(|b, cap, n| {
            // SAFETY: a live plan, valid buffers.
            unsafe {
                elicit_noalloc_plan_input_schema(
                    self.plan,
                    schema.as_ptr().cast(),
                    schema.len(),
                    c.cast(),
                    cl,
                    &mut private,
                    b.cast(),
                    cap,
                    n,
                )
            }
        })?;
        Ok((out, private))
    }

    fn call(&mut self, args: &str, caps: &str) -> Result<(u32, Option<Value>), elicit_result> {
        let mut mem = aligned(elicit_noalloc_round_size());
        let mut ws = vec![0u8; 2048];
        let mut round = null_mut();
        // SAFETY: aligned memory, texts and workspace that outlive the round.
        unsafe {
            let rc = elicit_noalloc_round_init_modern(
                self.plan,
                mem.as_mut_ptr().cast::<c_void>(),
                elicit_noalloc_round_size(),
                &elicit_round_input::new(
                    (args.as_ptr().cast(), args.len()),
                    (null(), 0),
                    (null(), 0),
                    (caps.as_ptr().cast(), caps.len()),
                ),
                ws.as_mut_ptr(),
                ws.len(),
                &mut round,
                null_mut(),
                0,
                null_mut(),
            );
            assert_eq!(rc, ELICIT_OK);
            let (mut step, mut param) = (0u32, 0usize);
            let rc = elicit_noalloc_round_poll(round, &mut step, &mut param);
            if rc != ELICIT_OK {
                return Err(rc);
            }
            match testing::read_text(|b, c, n| elicit_noalloc_round_fallback_result(round, b, c, n))
            {
                Ok(t) => Ok((step, Some(serde_json::from_str(&t).unwrap()))),
                Err(code) => {
                    assert_eq!(code, ELICIT_ERR_WRONG_STEP);
                    Ok((step, None))
                }
            }
        }
    }
}

fn surfaces(decl: &'static str) -> Vec<(&'static str, Box<dyn Surface>)> {
    vec![
        ("hosted", Box::new(Hosted::new(decl))),
        ("heap-free", Box::new(Static::new(decl))),
    ]
}

#[test]
fn the_listing_for_a_client_that_cannot_be_asked_adds_optional_properties() {
    for (name, mut s) in surfaces(DECL) {
        let (listed, private) = s.listing(SCHEMA, Some(NONE)).unwrap();
        assert!(private, "{name}");
        let listed: Value = serde_json::from_str(&listed).unwrap();
        let props = listed["properties"].as_object().unwrap();
        assert_eq!(
            // Sorted: serde_json keeps the written order only with `preserve_order`.
            props.keys().collect::<std::collections::BTreeSet<_>>(),
            ["destination", "item", "seat"]
                .iter()
                .map(|k| k.to_string())
                .collect::<std::collections::BTreeSet<_>>()
                .iter()
                .collect(),
            "{name}: pin opted out"
        );
        assert_eq!(
            props["destination"]["description"],
            "Where would you like to fly?"
        );
        assert_eq!(listed["required"], json!(["item"]), "{name}");
        // A form client (or none given: form only) sees the schema unchanged, still private.
        for caps in [None, Some(r#"{"elicitation":{}}"#)] {
            assert_eq!(
                s.listing(SCHEMA, caps).unwrap(),
                (SCHEMA.to_string(), true),
                "{name}"
            );
        }
        assert_eq!(
            s.listing("[1]", Some(NONE)),
            Err(ELICIT_ERR_INPUT_SCHEMA),
            "{name}"
        );
    }
}

#[test]
fn a_round_for_a_client_that_cannot_be_asked_returns_the_fallback_result() {
    for (name, mut s) in surfaces(OPEN) {
        let (step, result) = s.call(r#"{"item":"x"}"#, NONE).unwrap();
        assert_eq!(step, ELICIT_STEP_FALLBACK, "{name}");
        let result = result.unwrap();
        assert_eq!(result["isError"], true);
        let listed: Vec<(&str, bool)> = result["_meta"]["elicit/askUser"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap(),
                    e["required"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(listed, [("destination", true), ("seat", false)], "{name}");
        // Answered by arguments, the call completes.
        let got = s.call(r#"{"item":"x","destination":"Paris"}"#, NONE);
        assert_eq!(got, Ok((ELICIT_STEP_DONE, None)), "{name}");
        // A wrong-typed argument gets the answer's error.
        let got = s.call(r#"{"item":"x","destination":3}"#, NONE);
        assert_eq!(got, Err(ELICIT_ERR_SCHEMA_MISMATCH), "{name}");
        // A form client is asked as before.
        let (step, result) = s.call(r#"{"item":"x"}"#, r#"{"elicitation":{}}"#).unwrap();
        assert_eq!((step, result), (ELICIT_STEP_INPUT_REQUIRED, None), "{name}");
    }
    // The PIN may not fall back and is asked at once: -32021, however the others are
    // answered.
    for (name, mut s) in surfaces(DECL) {
        let got = s.call(r#"{"item":"x","destination":"Paris"}"#, NONE);
        assert_eq!(got, Err(ELICIT_ERR_MISSING_CAPABILITY), "{name}");
    }
}

#[test]
fn plan_bytes_carry_the_fallback_for_the_heap_free_surface() {
    assert_eq!(ELICIT_NOALLOC_PLAN_FORMAT, 3);
    let plan: elicit_core::Plan<'_, 16> = elicit_core::Plan::compile(OPEN).unwrap();
    let bytes = plan.to_postcard_vec();
    let mut mem = aligned(elicit_noalloc_plan_size());
    let mut loaded = null_mut();
    // SAFETY: aligned memory of the size asked for; `bytes` outlives the plan.
    let rc = unsafe {
        elicit_noalloc_plan_init(
            mem.as_mut_ptr().cast::<c_void>(),
            elicit_noalloc_plan_size(),
            bytes.as_ptr(),
            bytes.len(),
            &mut loaded,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK);
    let mut s = Static {
        _mem: mem,
        plan: loaded,
    };
    let (step, _) = s.call(r#"{"item":"x"}"#, NONE).unwrap();
    assert_eq!(step, ELICIT_STEP_FALLBACK);
}
