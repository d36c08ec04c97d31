//! A plan is Send + Sync through the ABI: several threads create and run rounds on one
//! `elicit_plan` at once, and the plan handle may be freed while their rounds still run.
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
use std::sync::{Arc, Barrier};

use elicit_ffi::*;

const DECL: &str = r#"{"tool":"book_flight","parameters":[
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"airport","elicit":{"needs":["destination"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Window or aisle?"}}]}"#;

/// A `*const elicit_plan` that may cross threads (the ABI documents the plan as
/// thread-safe; this wrapper only says so to the compiler).
#[derive(Clone, Copy)]
struct SharedPlan(*const elicit_plan);
// SAFETY: elicit_plan is immutable and documented Send + Sync.
unsafe impl Send for SharedPlan {}

fn read(
    round: *mut elicit_round,
    f: unsafe extern "C" fn(*mut elicit_round, *mut c_char, usize, *mut usize) -> elicit_result,
) -> String {
    let mut n = 0usize;
    // SAFETY: a live round; size query then a buffer of the size reported.
    unsafe {
        assert_eq!(f(round, null_mut(), 0, &mut n), ELICIT_OK);
        let mut buf = vec![0u8; n];
        assert_eq!(f(round, buf.as_mut_ptr().cast(), n, &mut n), ELICIT_OK);
        String::from_utf8(buf).unwrap()
    }
}

/// `elicit_round_input_requests` without flags, in the shape `read` takes.
unsafe extern "C" fn requests_plain(
    r: *mut elicit_round,
    b: *mut c_char,
    c: usize,
    n: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller.
    unsafe { elicit_round_input_requests(r, 0, b, c, n) }
}

/// Handshake round: destination (asked), airport (resolver), seat (asked).
fn run_once(plan: SharedPlan, thread: usize) -> String {
    let destination = format!("City{thread}");
    let mut round = null_mut();
    // SAFETY: valid pointers throughout; the round is freed once at the end.
    unsafe {
        assert_eq!(
            elicit_round_new_handshake(
                plan.0,
                &elicit_round_input::new(
                    (b"{}".as_ptr().cast(), 2),
                    (null(), 0),
                    (null(), 0),
                    (null(), 0)
                ),
                0,
                &mut round,
                null_mut(),
                0,
                null_mut()
            ),
            ELICIT_OK
        );
        let (mut step, mut param) = (0u32, 0usize);
        loop {
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            match step {
                ELICIT_STEP_ASK if param == 0 => {
                    let a =
                        format!(r#"{{"action":"accept","content":{{"value":"{destination}"}}}}"#);
                    assert_eq!(
                        elicit_round_answer(round, a.as_ptr().cast(), a.len()),
                        ELICIT_OK
                    );
                }
                ELICIT_STEP_ASK => {
                    let a = r#"{"action":"accept","content":{"value":"aisle"}}"#;
                    assert_eq!(
                        elicit_round_answer(round, a.as_ptr().cast(), a.len()),
                        ELICIT_OK
                    );
                }
                ELICIT_STEP_RESOLVE => {
                    let inputs = read(round, elicit_round_resolve_inputs);
                    assert_eq!(inputs, format!(r#"{{"destination":"{destination}"}}"#));
                    let v = format!(r#""{destination}-INTL""#);
                    assert_eq!(
                        elicit_round_resolve_value(round, v.as_ptr().cast(), v.len()),
                        ELICIT_OK
                    );
                }
                ELICIT_STEP_DONE => break,
                other => panic!("unexpected step {other}"),
            }
        }
        let values = read(round, elicit_round_values);
        elicit_round_free(round);
        values
    }
}

#[test]
fn one_plan_many_threads() {
    let mut plan = null_mut();
    // SAFETY: valid buffers.
    let rc = unsafe {
        elicit_plan_new(
            DECL.as_ptr().cast(),
            DECL.len(),
            &mut plan,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK);
    let shared = SharedPlan(plan);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                for _ in 0..50 {
                    let values = run_once(shared, t);
                    assert_eq!(
                        values,
                        format!(
                            r#"{{"destination":"City{t}","airport":"City{t}-INTL","seat":"aisle"}}"#
                        )
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // SAFETY: every thread is done with the handle.
    unsafe { elicit_plan_free(plan) };
}

#[test]
fn plan_freed_while_rounds_run_on_other_threads() {
    let mut plan = null_mut();
    // SAFETY: valid buffers.
    let rc = unsafe {
        elicit_plan_new(
            DECL.as_ptr().cast(),
            DECL.len(),
            &mut plan,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK);
    let created = Arc::new(Barrier::new(5));
    let freed = Arc::new(Barrier::new(5));
    let shared = SharedPlan(plan);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (created, freed) = (Arc::clone(&created), Arc::clone(&freed));
            std::thread::spawn(move || {
                let shared = shared; // the whole wrapper, not its field
                let mut round = null_mut();
                // SAFETY: the plan handle is live until every thread passed `created`.
                unsafe {
                    assert_eq!(
                        elicit_round_new_modern(
                            shared.0,
                            &elicit_round_input {
                                arguments: b"{}".as_ptr().cast(),
                                arguments_len: 2,
                                request_state: null(),
                                request_state_len: 0,
                                input_responses: null(),
                                input_responses_len: 0,
                                client_capabilities: null(),
                                client_capabilities_len: 0
                            },
                            0,
                            &mut round,
                            null_mut(),
                            0,
                            null_mut()
                        ),
                        ELICIT_OK
                    );
                }
                created.wait();
                freed.wait();
                // The plan handle is gone; the round still has the plan's data.
                let (mut step, mut param) = (0u32, 0usize);
                // SAFETY: a live round.
                unsafe {
                    assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
                }
                assert_eq!(step, ELICIT_STEP_INPUT_REQUIRED);
                let requests = read(round, requests_plain);
                assert!(
                    requests.contains("Where would you like to fly?"),
                    "{t}: {requests}"
                );
                // SAFETY: freed once.
                unsafe { elicit_round_free(round) };
            })
        })
        .collect();
    created.wait();
    // SAFETY: no thread uses the handle itself any more (only their rounds).
    unsafe { elicit_plan_free(plan) };
    freed.wait();
    for t in threads {
        t.join().unwrap();
    }
}
