//! The input kinds through the C ABI: `elicit_plan_param_kind`, the client's
//! capabilities given to the round constructors, `ELICIT_ERR_MISSING_CAPABILITY` with
//! `elicit_round_required_capabilities`, and replies of each kind.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::ffi::c_char;
use std::ptr::{null, null_mut};

use elicit_ffi::*;

const DECL: &str = r#"{"tool":"t","parameters":[
  {"name":"topic"},
  {"name":"name","elicit":{"message":"Your name?"}},
  {"name":"paid","elicit":{"message":"Pay the fare","url":"https://pay.example/f1"}},
  {"name":"summary","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise"}}],"maxTokens":50}}},
  {"name":"dirs","elicit":{"roots":{}}},
  {"name":"login","elicit":{"needs":["topic"],"kind":"url"}}
]}"#;

const ALL: &str = r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#;

struct Plan(*mut elicit_plan);

impl Plan {
    fn new(decl: &str) -> Plan {
        let mut plan = null_mut();
        // SAFETY: valid buffers; the plan is freed in Drop.
        let rc = unsafe {
            elicit_plan_new(
                decl.as_ptr().cast(),
                decl.len(),
                &mut plan,
                null_mut(),
                0,
                null_mut(),
            )
        };
        assert_eq!(rc, ELICIT_OK);
        Plan(plan)
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { elicit_plan_free(self.0) }
    }
}

struct Round(*mut elicit_round);

impl Drop for Round {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { elicit_round_free(self.0) }
    }
}

fn opt(text: Option<&str>) -> (*const u8, usize) {
    text.map_or((null(), 0), |t| (t.as_ptr(), t.len()))
}

fn modern(plan: &Plan, state: Option<&str>, replies: Option<&str>, caps: Option<&str>) -> Round {
    let args = r#"{"topic":"x"}"#;
    let mut round = null_mut();
    let ((s, sl), (r, rl), (c, cl)) = (opt(state), opt(replies), opt(caps));
    // SAFETY: valid buffers for their lengths.
    let rc = unsafe {
        elicit_round_new_modern(
            plan.0,
            &elicit_round_input::new(
                (args.as_ptr().cast(), args.len()),
                (s.cast(), sl),
                (r.cast(), rl),
                (c.cast(), cl),
            ),
            0,
            &mut round,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK);
    Round(round)
}

type Reader =
    unsafe extern "C" fn(*mut elicit_round, *mut c_char, usize, *mut usize) -> elicit_result;

fn read(round: &Round, f: Reader) -> Result<String, elicit_result> {
    let mut n = 0usize;
    // SAFETY: a size query, then a read into a buffer of that size.
    unsafe {
        let rc = f(round.0, null_mut(), 0, &mut n);
        if rc != ELICIT_OK {
            return Err(rc);
        }
        let mut buf = vec![0u8; n];
        assert_eq!(f(round.0, buf.as_mut_ptr().cast(), n, &mut n), ELICIT_OK);
        buf.truncate(n);
        Ok(String::from_utf8(buf).unwrap())
    }
}

/// `elicit_round_input_requests` in the server's wire form, as a [`Reader`].
unsafe extern "C" fn input_requests(
    r: *mut elicit_round,
    b: *mut c_char,
    c: usize,
    n: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller.
    unsafe { elicit_round_input_requests(r, 0, b, c, n) }
}

fn poll(round: &Round) -> Result<(u32, usize), elicit_result> {
    let (mut step, mut param) = (0u32, 0usize);
    // SAFETY: live round, valid out-params.
    let rc = unsafe { elicit_round_poll(round.0, &mut step, &mut param) };
    if rc == ELICIT_OK {
        Ok((step, param))
    } else {
        Err(rc)
    }
}

/// Drive resolvers (the URL one asks a question of its kind) until a terminal step.
fn drive(round: &Round) -> Result<u32, elicit_result> {
    loop {
        let (step, param) = poll(round)?;
        if step != ELICIT_STEP_RESOLVE {
            return Ok(step);
        }
        assert_eq!(param, 5);
        let q = r#"{"message":"Sign in","url":"https://id.example/x"}"#;
        // SAFETY: live round, valid buffer.
        let rc = unsafe { elicit_round_resolve_question(round.0, q.as_ptr().cast(), q.len()) };
        assert_eq!(rc, ELICIT_OK);
    }
}

fn last_error(round: &Round) -> String {
    let mut buf = vec![0u8; ELICIT_MESSAGE_CAP];
    let mut n = 0usize;
    // SAFETY: live round, valid buffer.
    let rc =
        unsafe { elicit_round_last_error(round.0, buf.as_mut_ptr().cast(), buf.len(), &mut n) };
    assert_eq!(rc, ELICIT_OK);
    buf.truncate(n);
    String::from_utf8(buf).unwrap()
}

#[test]
fn each_parameter_reports_its_kind() {
    let plan = Plan::new(DECL);
    let expected = [
        None,
        Some(ELICIT_KIND_FORM),
        Some(ELICIT_KIND_URL),
        Some(ELICIT_KIND_SAMPLING),
        Some(ELICIT_KIND_ROOTS),
        Some(ELICIT_KIND_URL),
    ];
    for (i, want) in expected.into_iter().enumerate() {
        let mut kind = 77u32;
        // SAFETY: live plan, valid out-param.
        let rc = unsafe { elicit_plan_param_kind(plan.0, i, &mut kind) };
        match want {
            Some(k) => assert_eq!((rc, kind), (ELICIT_OK, k), "param {i}"),
            // A model-supplied argument has no kind; the out-param is untouched.
            None => assert_eq!((rc, kind), (ELICIT_ERR_INVALID_ARGUMENT, 77), "param {i}"),
        }
    }
    let mut kind = 77u32;
    // SAFETY: live plan; NULL out-param and NULL plan are checked.
    unsafe {
        assert_eq!(
            elicit_plan_param_kind(plan.0, 6, &mut kind),
            ELICIT_ERR_INDEX
        );
        assert_eq!(
            elicit_plan_param_kind(plan.0, 1, null_mut()),
            ELICIT_ERR_NULL
        );
        assert_eq!(
            elicit_plan_param_kind(null(), 1, &mut kind),
            ELICIT_ERR_NULL
        );
    }
    assert_eq!(kind, 77);
}

#[test]
fn without_capabilities_a_round_asks_form_only_and_names_what_is_missing() {
    let plan = Plan::new(DECL);
    for caps in [None, Some(r#"{"elicitation":{}}"#)] {
        let round = modern(&plan, None, None, caps);
        assert_eq!(
            drive(&round),
            Err(ELICIT_ERR_MISSING_CAPABILITY),
            "{caps:?}"
        );
        assert_eq!(
            last_error(&round),
            "Client did not declare the url elicitation capability required by question 'paid'"
        );
        // Nothing was shown: the requests cannot be read.
        assert_eq!(
            read(&round, elicit_round_request_state),
            Err(ELICIT_ERR_MISSING_CAPABILITY)
        );
        assert_eq!(
            read(&round, elicit_round_required_capabilities).unwrap(),
            r#"{"elicitation":{"url":{}},"sampling":{},"roots":{}}"#
        );
        // Too small: the size needed, the buffer untouched.
        let mut buf = [b'#'; 4];
        let mut n = 0usize;
        // SAFETY: live round, valid buffer.
        let rc = unsafe {
            elicit_round_required_capabilities(round.0, buf.as_mut_ptr().cast(), buf.len(), &mut n)
        };
        assert_eq!((rc, n, buf), (ELICIT_ERR_BUFFER_TOO_SMALL, 51, [b'#'; 4]));
    }
    // Text that is not a ClientCapabilities object declares nothing: form is missing too.
    let round = modern(&plan, None, None, Some("[1]"));
    assert_eq!(drive(&round), Err(ELICIT_ERR_MISSING_CAPABILITY));
    assert_eq!(
        read(&round, elicit_round_required_capabilities).unwrap(),
        r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#
    );
    // NULL with a length, and text that is not UTF-8, are refused by the constructor.
    let mut out = null_mut();
    let args = "{}";
    let bad = [0xffu8];
    // SAFETY: valid buffers; the constructor fails and writes no handle.
    unsafe {
        for (c, cl, want) in [
            (null(), 3, ELICIT_ERR_NULL),
            (bad.as_ptr(), 1, ELICIT_ERR_UTF8),
        ] {
            let rc = elicit_round_new_handshake(
                plan.0,
                &elicit_round_input::new(
                    (args.as_ptr().cast(), 2),
                    (null(), 0),
                    (null(), 0),
                    (c.cast(), cl),
                ),
                0,
                &mut out,
                null_mut(),
                0,
                null_mut(),
            );
            assert_eq!(rc, want);
            assert!(out.is_null());
        }
    }
}

#[test]
fn required_capabilities_only_after_that_failure() {
    let plan = Plan::new(DECL);
    let round = modern(&plan, None, None, Some(ALL));
    assert_eq!(
        read(&round, elicit_round_required_capabilities),
        Err(ELICIT_ERR_WRONG_STEP)
    );
    assert_eq!(drive(&round), Ok(ELICIT_STEP_INPUT_REQUIRED));
    assert_eq!(
        read(&round, elicit_round_required_capabilities),
        Err(ELICIT_ERR_WRONG_STEP)
    );
    let mut n = 0usize;
    // SAFETY: NULL round and NULL out_len are checked.
    unsafe {
        assert_eq!(
            elicit_round_required_capabilities(null_mut(), null_mut(), 0, &mut n),
            ELICIT_ERR_NULL
        );
        assert_eq!(
            elicit_round_required_capabilities(round.0, null_mut(), 0, null_mut()),
            ELICIT_ERR_NULL
        );
    }
}

#[test]
fn every_kind_is_asked_and_settled_through_the_abi() {
    let plan = Plan::new(DECL);
    let round = modern(&plan, None, None, Some(ALL));
    assert_eq!(drive(&round), Ok(ELICIT_STEP_INPUT_REQUIRED));
    let requests = read(&round, input_requests).unwrap();
    for method in [
        r#""name":{"method":"elicitation/create","params":{"mode":"form""#,
        r#""paid":{"method":"elicitation/create","params":{"mode":"url""#,
        r#""summary":{"method":"sampling/createMessage""#,
        r#""dirs":{"method":"roots/list","params":{}}"#,
        r#""login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://id.example/x"}}"#,
    ] {
        assert!(requests.contains(method), "{method} in {requests}");
    }
    let state = read(&round, elicit_round_request_state).unwrap();
    drop(round);

    // A CreateMessageResult where an ElicitResult was asked: a clear error.
    let wrong =
        r#"{"name":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}"#;
    let round = modern(&plan, Some(&state), Some(wrong), Some(ALL));
    assert_eq!(drive(&round), Err(ELICIT_ERR_WRONG_REPLY));
    assert!(last_error(&round).starts_with("The response for 'name' is not"));
    drop(round);

    let replies = r#"{"name":{"action":"accept","content":{"value":"Ann"}},
      "paid":{"action":"accept"},
      "summary":{"role":"assistant","content":{"type":"text","text":"Short."},"model":"m","stopReason":"endTurn"},
      "dirs":{"roots":[{"uri":"file:///w","name":"w"}]},
      "login":{"action":"accept"}}"#;
    let round = modern(&plan, Some(&state), Some(replies), Some(ALL));
    assert_eq!(drive(&round), Ok(ELICIT_STEP_DONE));
    assert_eq!(
        read(&round, elicit_round_values).unwrap(),
        r#"{"name":"Ann","paid":true,"summary":{"role":"assistant","content":{"type":"text","text":"Short."},"model":"m","stopReason":"endTurn"},"dirs":[{"uri":"file:///w","name":"w"}],"login":true}"#
    );
}

#[test]
fn the_handshake_era_asks_each_kind_with_its_own_params() {
    let plan = Plan::new(DECL);
    let args = r#"{"topic":"x"}"#;
    let mut raw = null_mut();
    // SAFETY: valid buffers.
    let rc = unsafe {
        elicit_round_new_handshake(
            plan.0,
            &elicit_round_input::new(
                (args.as_ptr().cast(), args.len()),
                (null(), 0),
                (null(), 0),
                (ALL.as_ptr().cast(), ALL.len()),
            ),
            0,
            &mut raw,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK);
    let round = Round(raw);
    let mut asked = Vec::new();
    loop {
        let step = drive(&round).unwrap();
        if step == ELICIT_STEP_DONE {
            break;
        }
        assert_eq!(step, ELICIT_STEP_ASK);
        let (_, param) = poll(&round).unwrap();
        let mut kind = 0u32;
        // SAFETY: live plan.
        assert_eq!(
            unsafe { elicit_plan_param_kind(plan.0, param, &mut kind) },
            ELICIT_OK
        );
        let params = read(&round, elicit_round_ask).unwrap();
        let answer = match kind {
            ELICIT_KIND_FORM => r#"{"action":"accept","content":{"value":"Ann"}}"#,
            ELICIT_KIND_URL => {
                assert!(params.contains(r#""mode":"url""#) && params.contains("elicitationId"));
                r#"{"action":"accept"}"#
            }
            ELICIT_KIND_SAMPLING => {
                assert!(params.starts_with(r#"{"messages":"#), "{params}");
                r#"{"action":"decline"}"#
            }
            ELICIT_KIND_ROOTS => {
                assert_eq!(params, "{}");
                r#"{"roots":[]}"#
            }
            other => panic!("kind {other}"),
        };
        asked.push(kind);
        // SAFETY: live round, valid buffer.
        let rc = unsafe { elicit_round_answer(round.0, answer.as_ptr().cast(), answer.len()) };
        if kind == ELICIT_KIND_SAMPLING {
            // A refused sampling request for a parameter without a default fails the call.
            assert_eq!(rc, ELICIT_ERR_DECLINED);
            break;
        }
        assert_eq!(rc, ELICIT_OK);
    }
    assert_eq!(
        asked,
        [ELICIT_KIND_FORM, ELICIT_KIND_URL, ELICIT_KIND_SAMPLING]
    );
}
