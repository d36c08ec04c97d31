//! `--ffi`: the same scenarios, with the engine driven through elicit-ffi's
//! `extern "C"` functions (the C ABI, called from Rust through the rlib) instead of the
//! elicit-core API. The output must be byte-identical to the default mode's;
//! `tests/ffi_vectors.rs` checks that over every vector.
//!
//! Only the engine is reached through the ABI: compiling the declaration, the round's
//! steps, resolver answers and every output. The runner's own JSON handling (scenario
//! parsing, the data-driven resolvers, the debug digests of the rendered requests) uses
//! elicit-core's JSON helpers as in the default mode.

use std::ffi::c_char;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, Ordering};

use elicit_core::json::{write_value, Style, Value};
use elicit_core::plan::digest_params;
use elicit_ffi::*;

use super::{jstr, run_resolver, wire, Decision, Sticky, CAP};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Turn the mode on when the command line has `--ffi`.
pub fn init_from_args() {
    if std::env::args().skip(1).any(|a| a == "--ffi") {
        ENABLED.store(true, Ordering::Relaxed);
    }
}

/// True in `--ffi` mode.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The registration error a declaration gets, if any, in the current mode.
pub fn registration_error(declaration: &str) -> Option<String> {
    if enabled() {
        PlanHandle::new(declaration).err()
    } else {
        elicit_core::Plan::<CAP>::compile(declaration)
            .err()
            .map(|e| e.to_string())
    }
}

// ------------------------------------------------------------------ safe handles

/// A code and the message that goes with it.
type Failure = (elicit_result, String);

struct PlanHandle(*mut elicit_plan);

impl PlanHandle {
    fn new(declaration: &str) -> Result<Self, String> {
        let mut plan = null_mut();
        let mut err = vec![0u8; ELICIT_MESSAGE_CAP];
        let mut err_len = 0usize;
        // SAFETY: valid buffers for the stated lengths; `plan` is written on success.
        let rc = unsafe {
            elicit_plan_new(
                declaration.as_ptr().cast(),
                declaration.len(),
                &mut plan,
                err.as_mut_ptr().cast(),
                err.len(),
                &mut err_len,
            )
        };
        if rc == ELICIT_OK {
            Ok(PlanHandle(plan))
        } else {
            err.truncate(err_len);
            Err(String::from_utf8(err).unwrap_or_default())
        }
    }

    fn param_name(&self, index: usize) -> Result<String, String> {
        let mut len = 0usize;
        // SAFETY: a live plan; a size query, then a buffer of the size reported.
        let mut rc = unsafe { elicit_plan_param_name(self.0, index, null_mut(), 0, &mut len) };
        let mut name = vec![0u8; len];
        if rc == ELICIT_OK {
            // SAFETY: as above.
            rc = unsafe {
                elicit_plan_param_name(self.0, index, name.as_mut_ptr().cast(), len, &mut len)
            };
        }
        if rc != ELICIT_OK {
            return Err(format!("elicit_plan_param_name: {rc}"));
        }
        String::from_utf8(name).map_err(|e| e.to_string())
    }
}

impl Drop for PlanHandle {
    fn drop(&mut self) {
        // SAFETY: a handle from elicit_plan_new, freed once.
        unsafe { elicit_plan_free(self.0) }
    }
}

struct RoundHandle(*mut elicit_round);

fn opt(text: Option<&str>) -> (*const u8, usize) {
    text.map_or((null(), 0), |t| (t.as_ptr(), t.len()))
}

impl RoundHandle {
    fn modern(
        plan: &PlanHandle,
        arguments: &str,
        request_state: Option<&str>,
        input_responses: Option<&str>,
    ) -> Result<Self, Failure> {
        let mut round = null_mut();
        let mut err = vec![0u8; ELICIT_MESSAGE_CAP];
        let mut err_len = 0usize;
        let (s, s_len) = opt(request_state);
        let (r, r_len) = opt(input_responses);
        // SAFETY: valid buffers for the stated lengths; `round` is written on success. The
        // oracle's scenarios ask form questions only: no client capabilities (form only).
        let rc = unsafe {
            elicit_round_new_modern(
                plan.0,
                &elicit_round_input::new(
                    (arguments.as_ptr().cast(), arguments.len()),
                    (s.cast(), s_len),
                    (r.cast(), r_len),
                    (null(), 0),
                ),
                1 << 16,
                &mut round,
                err.as_mut_ptr().cast(),
                err.len(),
                &mut err_len,
            )
        };
        if rc == ELICIT_OK {
            Ok(RoundHandle(round))
        } else {
            err.truncate(err_len);
            Err((rc, String::from_utf8(err).unwrap_or_default()))
        }
    }

    fn last_error(&self) -> String {
        self.read(|r, b, c, n| {
            // SAFETY: forwarded pointers from `read`.
            unsafe { elicit_round_last_error(r, b.cast(), c, n) }
        })
        .unwrap_or_default()
    }

    fn check(&self, rc: elicit_result) -> Result<(), Failure> {
        if rc == ELICIT_OK {
            Ok(())
        } else {
            Err((rc, self.last_error()))
        }
    }

    fn poll(&self) -> Result<(u32, usize), Failure> {
        let (mut step, mut param) = (0u32, 0usize);
        // SAFETY: a live round; out-params are valid.
        self.check(unsafe { elicit_round_poll(self.0, &mut step, &mut param) })?;
        Ok((step, param))
    }

    /// A size query, then the read.
    fn read(
        &self,
        mut f: impl FnMut(*mut elicit_round, *mut u8, usize, *mut usize) -> elicit_result,
    ) -> Result<String, Failure> {
        let mut needed = 0usize;
        let rc = f(self.0, null_mut(), 0, &mut needed);
        if rc != ELICIT_OK {
            return Err((rc, String::new()));
        }
        let mut buf = vec![0u8; needed];
        let mut len = 0usize;
        let rc = f(self.0, buf.as_mut_ptr(), buf.len(), &mut len);
        if rc != ELICIT_OK {
            return Err((rc, String::new()));
        }
        buf.truncate(len);
        String::from_utf8(buf).map_err(|e| (ELICIT_ERR_UTF8, e.to_string()))
    }

    fn output(
        &self,
        f: unsafe extern "C" fn(*mut elicit_round, *mut c_char, usize, *mut usize) -> elicit_result,
    ) -> Result<String, String> {
        self.read(|r, b, c, n| {
            // SAFETY: a live round and a buffer of `c` bytes (or NULL with 0).
            unsafe { f(r, b.cast(), c, n) }
        })
        .map_err(|(rc, _)| format!("{}: {}", rc, self.last_error()))
    }

    fn input_requests(&self, client_view: bool) -> Result<String, String> {
        let flags = if client_view {
            ELICIT_REQUESTS_CLIENT_VIEW
        } else {
            0
        };
        self.read(|r, b, c, n| {
            // SAFETY: a live round and a buffer of `c` bytes (or NULL with 0).
            unsafe { elicit_round_input_requests(r, flags, b.cast(), c, n) }
        })
        .map_err(|(rc, _)| format!("{}: {}", rc, self.last_error()))
    }

    fn notes(&self) -> Result<Vec<(u32, String)>, String> {
        let mut count = 0usize;
        // SAFETY: a live round; `count` is valid.
        self.check(unsafe { elicit_round_note_count(self.0, &mut count) })
            .map_err(|(_, m)| m)?;
        (0..count)
            .map(|i| {
                let mut level = 0u32;
                let mut param = 0usize;
                let line = self
                    .read(|r, b, c, n| {
                        // SAFETY: a live round, valid out-params, a buffer of `c` bytes.
                        unsafe { elicit_round_note(r, i, &mut level, &mut param, b.cast(), c, n) }
                    })
                    .map_err(|(rc, _)| format!("elicit_round_note: {rc}"))?;
                Ok((level, line))
            })
            .collect()
    }
}

impl Drop for RoundHandle {
    fn drop(&mut self) {
        // SAFETY: a handle from elicit_round_new_modern, freed once.
        unsafe { elicit_round_free(self.0) }
    }
}

// ------------------------------------------------------------------------ a round

/// `one_round` of the default mode, through the ABI.
pub fn one_round(
    sticky: &Sticky,
    arguments: &str,
    request_state: Option<&str>,
    replies: Option<&str>,
    debug: bool,
) -> Result<(String, Option<String>), String> {
    let plan = PlanHandle::new(&sticky.declaration)?;
    let state_in = match request_state {
        Some(s) => jstr(s),
        None => "null".into(),
    };
    let round = match RoundHandle::modern(&plan, arguments, request_state, replies) {
        Ok(r) => r,
        Err((ELICIT_ERR_INPUT_RESPONSES, _)) => {
            let mut out =
                "{\"wire_error\":\"input_responses failed validation\",\"details\":[]".to_string();
            if debug {
                out.push_str(&format!(
                    ",\"debug\":{{\"request_state_in\":{state_in},\"logs\":[]}}"
                ));
            }
            out.push('}');
            return Ok((out, None));
        }
        Err((_, message)) => return Err(message),
    };
    let outcome = loop {
        match round.poll() {
            Err((_, message)) => break Err(message),
            Ok((ELICIT_STEP_RESOLVE, param)) => {
                let pname = plan.param_name(param)?;
                let spec_text = &sticky
                    .resolvers
                    .iter()
                    .find(|(n, _)| *n == pname)
                    .ok_or("resolver spec missing")?
                    .1;
                let spec = Value::parse(spec_text).map_err(|_| "bad resolver spec")?;
                let inputs_text = round.output(elicit_round_resolve_inputs)?;
                let inputs_v = Value::parse(&inputs_text).map_err(|_| "bad inputs")?;
                let (f, text): (unsafe extern "C" fn(_, _, _) -> _, String) =
                    match run_resolver(spec, inputs_v)? {
                        Decision::Value(v) => (elicit_round_resolve_value, v),
                        Decision::Question(q) => (elicit_round_resolve_question, q),
                    };
                // SAFETY: a live round and `text.len()` readable bytes.
                let rc = unsafe { f(round.0, text.as_ptr().cast(), text.len()) };
                if rc != ELICIT_OK {
                    let message = round.last_error();
                    // A failed round reports its error on the next poll; anything else
                    // is the host's mistake.
                    if round.poll().is_ok() {
                        return Err(format!("host error: {message}"));
                    }
                }
            }
            Ok((ELICIT_STEP_ASK, _)) => return Err("modern rounds never ask one at a time".into()),
            Ok((step, _)) => break Ok(step),
        }
    };
    let mut dbg = Vec::new();
    let result = match outcome {
        Ok(ELICIT_STEP_DONE) => {
            let v = round.output(elicit_round_values)?;
            (format!("{{\"values\":{v}"), None)
        }
        Ok(ELICIT_STEP_INPUT_REQUIRED) => {
            let reqs = round.input_requests(false)?;
            let state = round.output(elicit_round_request_state)?;
            if debug {
                let mut di = Vec::new();
                let mut dg = Vec::new();
                let mut cv = Vec::new();
                let reqs_v = Value::parse(&reqs).map_err(|_| "bad requests")?;
                for (k, r) in reqs_v.members() {
                    let params = r.get("params").ok_or("a request without params")?;
                    let mut input = Vec::new();
                    write_value(params, Style::DIGEST, &mut input);
                    let key = format!("\"{}\"", k.raw());
                    di.push(format!("{key}:{}", jstr(&String::from_utf8_lossy(&input))));
                    let d = digest_params(params);
                    dg.push(format!("{key}:\"{}\"", &*String::from_utf8_lossy(&d)));
                }
                let cv_text = round.input_requests(true)?;
                let cv_v = Value::parse(&cv_text).map_err(|_| "bad client view")?;
                for (k, r) in cv_v.members() {
                    cv.push(format!(
                        "\"{}\":{}",
                        k.raw(),
                        wire(r.get("params").ok_or("a request without params")?)
                    ));
                }
                dbg.push(format!("\"digest_inputs\":{{{}}}", di.join(",")));
                dbg.push(format!("\"digests\":{{{}}}", dg.join(",")));
                dbg.push(format!("\"client_view_params\":{{{}}}", cv.join(",")));
            }
            (
                format!(
                    "{{\"input_required\":{{\"input_requests\":{reqs},\"request_state\":{}}}",
                    jstr(&state)
                ),
                Some(state),
            )
        }
        Ok(_) => return Err("unexpected step".into()),
        Err(message) => (format!("{{\"error\":{}", jstr(&message)), None),
    };
    let (mut out, next) = result;
    if debug {
        dbg.push(format!("\"request_state_in\":{state_in}"));
        let logs: Vec<String> = round
            .notes()?
            .into_iter()
            .map(|(level, m)| {
                let level = if level == ELICIT_NOTE_INFO {
                    "INFO"
                } else {
                    "DEBUG"
                };
                format!("{{\"level\":\"{level}\",\"message\":{}}}", jstr(&m))
            })
            .collect();
        dbg.push(format!("\"logs\":[{}]", logs.join(",")));
        out.push_str(&format!(",\"debug\":{{{}}}", dbg.join(",")));
    }
    out.push('}');
    Ok((out, next))
}
