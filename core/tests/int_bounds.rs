//! Integer answers written as floats: accepted as pydantic's lax `int` takes a float
//! (finite, integral, strictly between -2^63 and 2^63), refused beyond, as the reference
//! refuses them ("does not match the requested schema"). Integers written as integers
//! are not bounded.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::result_large_err)]

mod common;

use common::*;
use serde_json::{json, Value};

fn settle(v: Value) -> Result<String, String> {
    let host = Host::new(json!({"tool": "t", "parameters": [
        {"name": "x", "type": "integer", "elicit": {"message": "X?"}}
    ]}));
    let first = host.round(&json!({}), None, None);
    let (_, state) = first.ask();
    let reply = json!({"x": {"action": "accept", "content": {"value": v}}});
    match host.round(&json!({}), Some(state), Some(&reply)) {
        Outcome::Values(vals) => Ok(vals["x"].to_string()),
        Outcome::Error(e) => Err(e),
        other => panic!("{other:?}"),
    }
}

const MISMATCH: &str = "The answer for 'x' does not match the requested schema";

#[test]
fn floats_inside_the_64_bit_range_settle_to_ints() {
    // 2^63 - 1024, the largest float below 2^63 (Python prints 9.223372036854775e+18).
    assert_eq!(
        settle(json!(9.223372036854775e18)),
        Ok("9223372036854774784".into())
    );
    assert_eq!(
        settle(json!(-9.223372036854775e18)),
        Ok("-9223372036854774784".into())
    );
    assert_eq!(settle(json!(1e18)), Ok("1000000000000000000".into()));
}

#[test]
fn floats_at_or_beyond_2_pow_63_are_refused() {
    // 2^63 and -2^63 themselves (pydantic's bounds are exclusive), then far beyond.
    for v in [
        json!(9.223372036854776e18),
        json!(-9.223372036854776e18),
        json!(1e19),
        json!(1e300),
        json!(-1e300),
    ] {
        let got = settle(v.clone());
        assert!(
            got.as_ref().is_err_and(|e| e.contains(MISMATCH)),
            "{v}: {got:?}"
        );
    }
}

#[test]
fn integers_written_as_integers_are_not_bounded() {
    assert_eq!(
        settle(json!(12345678901234567890u64)),
        Ok("12345678901234567890".into())
    );
    assert_eq!(
        settle(json!(-9223372036854775808i64)),
        Ok("-9223372036854775808".into())
    );
}
