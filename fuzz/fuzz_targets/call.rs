//! The call level of the C ABI (`elicit_server`, `elicit_call`) driven by the fuzz
//! input: a request (id, method, params, negotiated version and capabilities) built
//! from the input's first fields, then a program of host actions (resolver values and
//! questions, client responses, body texts, every reader with every buffer size) in any
//! order. Only valid memory is passed.
//!
//! Input format: fields separated by the byte 0xFF (any byte string is an input):
//! `id`, `method` (its first byte picks one of METHODS), `params`, `version` (first
//! byte picks one of VERSIONS), `caps`, then one field per action (its first byte
//! picks the action, the rest is its text).
//!
//! Invariants (a failed check panics, which libFuzzer reports as a crash):
//! - `elicit_call_new` returns OK or a code its comment documents;
//! - `elicit_call_next` always succeeds, its step is one of the four, and after
//!   ELICIT_STEP_REPLY it stays there;
//! - the reply is a JSON object with `"jsonrpc":"2.0"`, the request's id and exactly one
//!   of `result` / `error`; `elicit_call_reply_code` is 0 exactly for a result;
//! - readers give UTF-8 and report the size they then accept; a too-small buffer is
//!   left untouched;
//! - every handle is released (LeakSanitizer checks).
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use std::ffi::c_char;
use std::ptr::{null, null_mut};

use elicit_core::json::Value;
use elicit_ffi::testing;
use elicit_ffi::*;
use libfuzzer_sys::fuzz_target;

const DECLS: [&str; 2] = [
    r#"{"tool":"book","parameters":[{"name":"item","type":"string"},{"name":"x","elicit":{"message":"Where?"}},{"name":"y","type":"boolean","elicit":{"needs":["x","item"]}},{"name":"z","type":{"enum":["a","b"]},"default":null,"elicit":{"message":"Z?"}}]}"#,
    r#"{"tool":"kinds","parameters":[{"name":"u","elicit":{"message":"Pay","url":"https://pay.example/1"}},{"name":"s","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Sum up"}}],"maxTokens":20}}},{"name":"r","elicit":{"roots":{}}}]}"#,
];
const METHODS: [&str; 4] = ["tools/call", "prompts/get", "resources/read", "tools/list"];
const VERSIONS: [Option<&str>; 3] = [None, Some("2025-11-25"), Some("2026-07-28")];

type Reader =
    unsafe extern "C" fn(*mut elicit_call, *mut c_char, usize, *mut usize) -> elicit_result;
const READERS: [Reader; 7] = [
    elicit_call_reply,
    elicit_call_request,
    elicit_call_param_name,
    elicit_call_resolve_inputs,
    elicit_call_values,
    elicit_call_last_error,
    elicit_call_reply,
];

fn server() -> *mut elicit_server {
    let plans = DECLS.map(testing::plan);
    let server = testing::server(
        &[
            (plans[0], ELICIT_METHOD_TOOLS_CALL, None),
            (plans[0], ELICIT_METHOD_PROMPTS_GET, None),
            (plans[0], ELICIT_METHOD_RESOURCES_READ, Some(c"r://b")),
            (plans[1], ELICIT_METHOD_TOOLS_CALL, None),
        ],
        &[0x42u8; 32],
        "fuzz",
        4096,
    );
    for p in plans {
        // SAFETY: live plans, freed once: the server keeps its own references.
        unsafe { elicit_plan_free(p) };
    }
    server
}

/// Read with `f` into a buffer of `cap` bytes (or a size query first when `cap` is
/// usize::MAX), checking the output convention.
fn read(c: *mut elicit_call, f: Reader, cap: usize) -> Option<String> {
    let mut n = 0usize;
    // SAFETY: a live call and buffers of the sizes passed.
    unsafe {
        let code = f(c, null_mut(), 0, &mut n);
        if code != ELICIT_OK {
            return None;
        }
        let size = n;
        let cap = cap.min(size + 1);
        let mut buf = vec![0xAAu8; cap];
        let code = f(c, buf.as_mut_ptr().cast(), cap, &mut n);
        if cap < size {
            assert_eq!(code, ELICIT_ERR_BUFFER_TOO_SMALL);
            assert_eq!(n, size);
            assert!(
                buf.iter().all(|b| *b == 0xAA),
                "a too-small buffer is untouched"
            );
            return None;
        }
        assert_eq!(code, ELICIT_OK);
        assert_eq!(n, size);
        Some(String::from_utf8(buf[..n].to_vec()).expect("readers write UTF-8"))
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fields = data.split(|b| *b == 0xFF);
    let mut field = || fields.next().unwrap_or(&[]);
    let id = field();
    let method = METHODS[usize::from(*field().first().unwrap_or(&0)) % METHODS.len()];
    let params = field();
    let version = VERSIONS[usize::from(*field().first().unwrap_or(&0)) % VERSIONS.len()];
    let caps = field();
    let Ok(id) = std::str::from_utf8(id) else {
        return;
    };
    let id = if Value::parse(id)
        .is_ok_and(|v| v.raw() == id && !id.starts_with(['{', '[', 't', 'f', 'n']))
    {
        id
    } else {
        "1"
    };
    let server = server();
    let random = [3u8; ELICIT_SEAL_RANDOM_LEN];
    let request = elicit_request {
        id: id.as_ptr().cast(),
        id_len: id.len(),
        method: method.as_ptr().cast(),
        method_len: method.len(),
        params: params.as_ptr().cast(),
        params_len: params.len(),
        principal: null(),
        principal_len: 0,
        protocol_version: version.map_or(null(), |v| v.as_ptr().cast()),
        protocol_version_len: version.map_or(0, str::len),
        client_capabilities: if caps.is_empty() {
            null()
        } else {
            caps.as_ptr().cast()
        },
        client_capabilities_len: caps.len(),
        now: 1_800_000_000.0,
        random: random.as_ptr(),
        random_len: random.len(),
    };
    let mut call = null_mut();
    // SAFETY: valid buffers throughout; every handle is freed below.
    unsafe {
        let code = elicit_call_new(server, &request, &mut call, null_mut(), 0, null_mut());
        let documented = [
            ELICIT_OK,
            ELICIT_ERR_UTF8,
            ELICIT_ERR_INVALID_ARGUMENT,
            ELICIT_ERR_NOT_FOUND,
            ELICIT_ERR_TOO_LARGE,
        ];
        assert!(documented.contains(&code), "elicit_call_new: {code}");
        elicit_server_free(server);
        if code != ELICIT_OK {
            assert!(call.is_null());
            return;
        }
        let mut replied = false;
        for (i, action) in fields.enumerate().take(64) {
            let (mut step, mut param) = (0u32, 0usize);
            assert_eq!(elicit_call_next(call, &mut step, &mut param), ELICIT_OK);
            assert!([
                ELICIT_STEP_RESOLVE,
                ELICIT_STEP_ASK,
                ELICIT_STEP_DONE,
                ELICIT_STEP_REPLY
            ]
            .contains(&step));
            assert!(!replied || step == ELICIT_STEP_REPLY, "a reply is final");
            if step == ELICIT_STEP_REPLY {
                replied = true;
                let reply = read(call, elicit_call_reply, usize::MAX).expect("a reply at REPLY");
                let v = Value::parse(&reply).expect("the reply is JSON");
                assert!(v.get("jsonrpc").is_some_and(|j| j.raw() == "\"2.0\""));
                assert_eq!(v.get("id").map(|x| x.raw()), Some(id));
                let mut code = 1i32;
                assert_eq!(elicit_call_reply_code(call, &mut code), ELICIT_OK);
                assert_eq!(v.get("result").is_some(), code == 0, "{reply}");
                assert_eq!(v.get("error").is_some(), code != 0, "{reply}");
            }
            let (op, text) = action.split_first().unwrap_or((&0, &[]));
            let t: *const c_char = text.as_ptr().cast();
            match op % 8 {
                0 => {
                    let _ = elicit_call_resolve_value(call, t, text.len());
                }
                1 => {
                    let _ = elicit_call_resolve_question(call, t, text.len());
                }
                2 => {
                    let _ = elicit_call_resolve_question_text(call, t, text.len());
                }
                3 => {
                    let _ = elicit_call_answer(call, t, text.len());
                }
                4 => {
                    let _ = elicit_call_finish(call, t, text.len(), i % 2 == 0);
                }
                5 => {
                    let mut buf = [0u8; 64];
                    let mut n = 0usize;
                    let code = elicit_call_resolve_input_text(
                        call,
                        t,
                        text.len(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        &mut n,
                    );
                    if code == ELICIT_OK {
                        assert!(std::str::from_utf8(&buf[..n]).is_ok());
                    }
                }
                _ => {
                    let reader = READERS[usize::from(*text.first().unwrap_or(&0)) % READERS.len()];
                    let _ = read(call, reader, usize::from(*text.get(1).unwrap_or(&255)));
                }
            }
        }
        elicit_call_free(call);
    }
});
