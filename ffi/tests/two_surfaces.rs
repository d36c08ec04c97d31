//! The hosted surface (`elicit_round_*`, heap handles) and the heap-free surface
//! (`elicit_noalloc_round_*`, caller memory) are two doors to one engine: the same
//! conversations through each give the same bytes, every step, every output and every
//! sealed token.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::ffi::{c_char, c_void};
use std::ptr::{null, null_mut};

use elicit_ffi::testing;
use elicit_ffi::*;

const DECL: &str = r#"{"tool":"book_flight","parameters":[
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"date","elicit":{"message":"When would you like to fly?"}},
  {"name":"airport","elicit":{"needs":["destination"]}},
  {"name":"proceed","type":"boolean","elicit":{"needs":["destination","date"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Window or aisle?"}}]}"#;
const PARAMS: &str = r#"{"name":"book_flight","arguments":{}}"#;
const KEY: [u8; 32] = [0x42; 32];
const NOW: f64 = 1_780_000_000.5;

fn scripted(name: &str, destination: &str) -> String {
    match name {
        "destination" => format!(r#"{{"action":"accept","content":{{"value":"{destination}"}}}}"#),
        "date" => r#"{"action":"accept","content":{"value":"2026-08-01"}}"#.into(),
        "airport" => r#"{"action":"accept","content":{"value":"CDG"}}"#.into(),
        "proceed" => r#"{"action":"accept","content":{"value":true}}"#.into(),
        _ => r#"{"action":"decline"}"#.into(),
    }
}

/// Memory aligned to ELICIT_NOALLOC_ALIGN (16).
/// The `tools/call` request both surfaces seal for, with its seal's random bytes.
fn sealing_request(random: &[u8; ELICIT_SEAL_RANDOM_LEN]) -> elicit_request {
    let m = "tools/call";
    elicit_request {
        random: random.as_ptr(),
        random_len: random.len(),
        ..elicit_request::new(
            (m.as_ptr().cast(), m.len()),
            (PARAMS.as_ptr().cast(), PARAMS.len()),
            (null(), 0),
            NOW,
        )
    }
}

fn aligned(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes / 16 + 1]
}

/// Read an output under the convention: a size query, then the size reported.
fn read(f: impl Fn(*mut c_char, usize, *mut usize) -> elicit_result) -> String {
    testing::read_text(f).unwrap()
}

/// One surface: a round, driven by text in and text out.
trait Surface {
    fn start(&mut self, modern: bool, state: Option<&str>, replies: Option<&str>);
    fn poll(&mut self) -> (u32, usize);
    fn resolve_inputs(&mut self) -> String;
    fn resolve(&mut self, value: bool, text: &str);
    fn ask(&mut self) -> String;
    fn answer(&mut self, text: &str);
    fn values(&mut self) -> String;
    fn requests(&mut self) -> String;
    fn state(&mut self) -> String;
    /// Seal `state` with this surface's sealer; then unseal the token the same way.
    fn seal(&mut self, state: &str, random: &[u8; ELICIT_SEAL_RANDOM_LEN]) -> String;
    fn unseal(&mut self, token: &str) -> String;
    fn name(&mut self, param: usize) -> String;
}

struct Hosted {
    plan: *mut elicit_plan,
    round: *mut elicit_round,
    sealer: *mut elicit_sealer,
}

impl Hosted {
    fn new() -> Self {
        Hosted {
            plan: testing::plan(DECL),
            round: null_mut(),
            sealer: testing::sealer(&KEY, "svc"),
        }
    }
}

impl Drop for Hosted {
    fn drop(&mut self) {
        // SAFETY: handles from their constructors, freed once.
        unsafe {
            elicit_round_free(self.round);
            elicit_plan_free(self.plan);
            elicit_sealer_free(self.sealer);
        }
    }
}

impl Surface for Hosted {
    fn start(&mut self, modern: bool, state: Option<&str>, replies: Option<&str>) {
        let (s, sl) = state.map_or((null(), 0), |s| (s.as_ptr(), s.len()));
        let (r, rl) = replies.map_or((null(), 0), |r| (r.as_ptr(), r.len()));
        // SAFETY: a live plan, valid texts; the previous round is freed first.
        unsafe {
            elicit_round_free(self.round);
            self.round = null_mut();
            let code = if modern {
                elicit_round_new_modern(
                    self.plan,
                    // No client capabilities: form only, as the heap-free surface.
                    &elicit_round_input::new(
                        (b"{}".as_ptr().cast(), 2),
                        (s.cast(), sl),
                        (r.cast(), rl),
                        (null(), 0),
                    ),
                    1024,
                    &mut self.round,
                    null_mut(),
                    0,
                    null_mut(),
                )
            } else {
                elicit_round_new_handshake(
                    self.plan,
                    &elicit_round_input::new(
                        (b"{}".as_ptr().cast(), 2),
                        (null(), 0),
                        (null(), 0),
                        (null(), 0),
                    ),
                    1024,
                    &mut self.round,
                    null_mut(),
                    0,
                    null_mut(),
                )
            };
            assert_eq!(code, ELICIT_OK);
        }
    }
    fn poll(&mut self) -> (u32, usize) {
        let (mut step, mut param) = (0, 0);
        // SAFETY: a live round.
        assert_eq!(
            unsafe { elicit_round_poll(self.round, &mut step, &mut param) },
            ELICIT_OK
        );
        (step, param)
    }
    fn resolve_inputs(&mut self) -> String {
        // SAFETY: a live round and the buffers `read` passes.
        read(|b, c, n| unsafe { elicit_round_resolve_inputs(self.round, b.cast(), c, n) })
    }
    fn resolve(&mut self, value: bool, text: &str) {
        // SAFETY: a live round, a valid text.
        let code = unsafe {
            if value {
                elicit_round_resolve_value(self.round, text.as_ptr().cast(), text.len())
            } else {
                elicit_round_resolve_question(self.round, text.as_ptr().cast(), text.len())
            }
        };
        assert_eq!(code, ELICIT_OK);
    }
    fn ask(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_round_ask(self.round, b.cast(), c, n) })
    }
    fn answer(&mut self, text: &str) {
        // SAFETY: a live round, a valid text.
        assert_eq!(
            unsafe { elicit_round_answer(self.round, text.as_ptr().cast(), text.len()) },
            ELICIT_OK
        );
    }
    fn values(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_round_values(self.round, b.cast(), c, n) })
    }
    fn requests(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_round_input_requests(self.round, 0, b.cast(), c, n) })
    }
    fn state(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_round_request_state(self.round, b.cast(), c, n) })
    }
    fn seal(&mut self, state: &str, random: &[u8; ELICIT_SEAL_RANDOM_LEN]) -> String {
        // SAFETY: a live sealer, valid texts and buffers.
        read(|b, c, n| unsafe {
            elicit_sealer_seal(
                self.sealer,
                &sealing_request(random),
                state.as_ptr().cast(),
                state.len(),
                b.cast(),
                c,
                n,
                null_mut(),
            )
        })
    }
    fn unseal(&mut self, token: &str) -> String {
        let m = "tools/call";
        let params =
            format!(r#"{{"name":"book_flight","arguments":{{}},"requestState":"{token}"}}"#);
        let mut buf = vec![0u8; params.len()];
        let (mut n, mut has) = (0usize, false);
        // SAFETY: a live sealer, valid texts and buffers.
        let code = unsafe {
            elicit_sealer_unseal(
                self.sealer,
                &elicit_request::new(
                    (m.as_ptr().cast(), m.len()),
                    (params.as_ptr().cast(), params.len()),
                    (null(), 0),
                    NOW + 1.0,
                ),
                &mut has,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut n,
                null_mut(),
            )
        };
        assert_eq!((code, has), (ELICIT_OK, true));
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }
    fn name(&mut self, param: usize) -> String {
        // SAFETY: a live plan.
        read(|b, c, n| unsafe { elicit_plan_param_name(self.plan, param, b, c, n) })
    }
}

/// The heap-free surface: every handle in memory this struct owns, the round's texts
/// kept alive beside it.
struct Static {
    _plan_mem: Vec<u128>,
    plan: *mut elicit_noalloc_plan,
    round_mem: Vec<u128>,
    round: *mut elicit_noalloc_round,
    texts: (String, String),
    workspace: Vec<u8>,
    _sealer_mem: Vec<u128>,
    sealer: *mut elicit_noalloc_sealer,
}

impl Static {
    fn new() -> Self {
        let mut plan_mem = aligned(elicit_noalloc_plan_size());
        let mut sealer_mem = aligned(elicit_noalloc_sealer_size());
        let (mut plan, mut sealer) = (null_mut(), null_mut());
        let keys = [KEY.as_ptr()];
        let lens = [KEY.len()];
        // SAFETY: aligned memory of the sizes asked for, texts that outlive the handles
        // (DECL and "svc" are static).
        unsafe {
            assert_eq!(
                elicit_noalloc_plan_init_json(
                    plan_mem.as_mut_ptr().cast::<c_void>(),
                    elicit_noalloc_plan_size(),
                    DECL.as_ptr().cast(),
                    DECL.len(),
                    &mut plan,
                    null_mut(),
                    0,
                    null_mut()
                ),
                ELICIT_OK
            );
            assert_eq!(
                elicit_noalloc_sealer_init(
                    sealer_mem.as_mut_ptr().cast::<c_void>(),
                    elicit_noalloc_sealer_size(),
                    keys.as_ptr(),
                    lens.as_ptr(),
                    1,
                    b"svc".as_ptr().cast(),
                    3,
                    0.0,
                    &mut sealer,
                    null_mut(),
                    0,
                    null_mut()
                ),
                ELICIT_OK
            );
        }
        Static {
            _plan_mem: plan_mem,
            plan,
            round_mem: aligned(elicit_noalloc_round_size()),
            round: null_mut(),
            texts: (String::new(), String::new()),
            workspace: vec![0u8; 1024],
            _sealer_mem: sealer_mem,
            sealer,
        }
    }
}

impl Surface for Static {
    fn start(&mut self, modern: bool, state: Option<&str>, replies: Option<&str>) {
        // The round borrows its texts: keep them here until the next start.
        self.texts = (state.unwrap_or("").into(), replies.unwrap_or("").into());
        let s = state.map_or((null(), 0), |_| (self.texts.0.as_ptr(), self.texts.0.len()));
        let r = replies.map_or((null(), 0), |_| (self.texts.1.as_ptr(), self.texts.1.len()));
        let mem = self.round_mem.as_mut_ptr().cast::<c_void>();
        let len = elicit_noalloc_round_size();
        let ws = (self.workspace.as_mut_ptr(), self.workspace.len());
        // SAFETY: aligned memory, texts and workspace that outlive the round.
        let code = unsafe {
            if modern {
                elicit_noalloc_round_init_modern(
                    self.plan,
                    mem,
                    len,
                    &elicit_round_input::new(
                        (b"{}".as_ptr().cast(), 2),
                        (s.0.cast(), s.1),
                        (r.0.cast(), r.1),
                        (null(), 0),
                    ),
                    ws.0,
                    ws.1,
                    &mut self.round,
                    null_mut(),
                    0,
                    null_mut(),
                )
            } else {
                elicit_noalloc_round_init_handshake(
                    self.plan,
                    mem,
                    len,
                    &elicit_round_input::new(
                        (b"{}".as_ptr().cast(), 2),
                        (null(), 0),
                        (null(), 0),
                        (null(), 0),
                    ),
                    ws.0,
                    ws.1,
                    &mut self.round,
                    null_mut(),
                    0,
                    null_mut(),
                )
            }
        };
        assert_eq!(code, ELICIT_OK);
    }
    fn poll(&mut self) -> (u32, usize) {
        let (mut step, mut param) = (0, 0);
        // SAFETY: a live round.
        assert_eq!(
            unsafe { elicit_noalloc_round_poll(self.round, &mut step, &mut param) },
            ELICIT_OK
        );
        (step, param)
    }
    fn resolve_inputs(&mut self) -> String {
        // SAFETY: a live round and the buffers `read` passes.
        read(|b, c, n| unsafe { elicit_noalloc_round_resolve_inputs(self.round, b.cast(), c, n) })
    }
    fn resolve(&mut self, value: bool, text: &str) {
        // SAFETY: a live round, a valid text (copied into the workspace).
        let code = unsafe {
            if value {
                elicit_noalloc_round_resolve_value(self.round, text.as_ptr().cast(), text.len())
            } else {
                elicit_noalloc_round_resolve_question(self.round, text.as_ptr().cast(), text.len())
            }
        };
        assert_eq!(code, ELICIT_OK);
    }
    fn ask(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_noalloc_round_ask(self.round, b.cast(), c, n) })
    }
    fn answer(&mut self, text: &str) {
        // SAFETY: a live round, a valid text (copied into the workspace).
        assert_eq!(
            unsafe { elicit_noalloc_round_answer(self.round, text.as_ptr().cast(), text.len()) },
            ELICIT_OK
        );
    }
    fn values(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_noalloc_round_values(self.round, b.cast(), c, n) })
    }
    fn requests(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe {
            elicit_noalloc_round_input_requests(self.round, 0, b.cast(), c, n)
        })
    }
    fn state(&mut self) -> String {
        // SAFETY: as above.
        read(|b, c, n| unsafe { elicit_noalloc_round_request_state(self.round, b.cast(), c, n) })
    }
    fn seal(&mut self, state: &str, random: &[u8; ELICIT_SEAL_RANDOM_LEN]) -> String {
        let mut buf = vec![0u8; 4096];
        buf[..state.len()].copy_from_slice(state.as_bytes());
        let mut n = 0usize;
        // SAFETY: a live sealer, valid texts, a buffer of `buf.len()` bytes.
        let code = unsafe {
            elicit_noalloc_sealer_seal_in_place(
                self.sealer,
                &sealing_request(random),
                buf.as_mut_ptr().cast(),
                buf.len(),
                state.len(),
                &mut n,
                null_mut(),
            )
        };
        assert_eq!(code, ELICIT_OK);
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }
    fn unseal(&mut self, token: &str) -> String {
        let m = "tools/call";
        let mut buf = token.as_bytes().to_vec();
        let (mut state, mut n) = (null(), 0usize);
        // SAFETY: a live sealer, valid texts, the token's own buffer.
        unsafe {
            let code = elicit_noalloc_sealer_unseal_in_place(
                self.sealer,
                &elicit_request::new(
                    (m.as_ptr().cast(), m.len()),
                    (PARAMS.as_ptr().cast(), PARAMS.len()),
                    (null(), 0),
                    NOW + 1.0,
                ),
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut state,
                &mut n,
                null_mut(),
            );
            assert_eq!(code, ELICIT_OK);
            String::from_utf8(std::slice::from_raw_parts(state.cast::<u8>(), n).to_vec()).unwrap()
        }
    }
    fn name(&mut self, param: usize) -> String {
        // SAFETY: a live plan.
        read(|b, c, n| unsafe { elicit_noalloc_plan_param_name(self.plan, param, b, c, n) })
    }
}

/// Run resolvers (LHR for London, else ask; always confirm) and, handshake, answer asks
/// until a terminal step; every step and text goes to the transcript.
fn drive(s: &mut dyn Surface, destination: &str, log: &mut Vec<String>) -> u32 {
    loop {
        let (step, param) = s.poll();
        log.push(format!("step {step} {param}"));
        match step {
            ELICIT_STEP_RESOLVE => {
                let inputs = s.resolve_inputs();
                let name = s.name(param);
                let (value, text) = match name.as_str() {
                    "airport" if inputs.contains("London") => (true, r#""LHR""#.to_string()),
                    "airport" => (false, r#"{"message":"Which airport?"}"#.to_string()),
                    _ => (false, r#"{"message":"Book it?"}"#.to_string()),
                };
                log.push(format!("resolve {name} {inputs} -> {text}"));
                s.resolve(value, &text);
            }
            ELICIT_STEP_ASK => {
                let name = s.name(param);
                log.push(format!("ask {}", s.ask()));
                s.answer(&scripted(&name, destination));
            }
            _ => return step,
        }
    }
}

fn conversation(s: &mut dyn Surface) -> Vec<String> {
    let mut log = Vec::new();
    // Batched rounds, sealed between them.
    let (mut state, mut replies): (Option<String>, Option<String>) = (None, None);
    for round in 1u8..=4 {
        s.start(true, state.as_deref(), replies.as_deref());
        if drive(s, "Paris", &mut log) == ELICIT_STEP_DONE {
            log.push(format!("values {}", s.values()));
            break;
        }
        let requests = s.requests();
        let plain = s.state();
        let token = s.seal(&plain, &[round; ELICIT_SEAL_RANDOM_LEN]);
        log.push(format!("requests {requests}\nstate {plain}\ntoken {token}"));
        let back = s.unseal(&token);
        assert_eq!(back, plain);
        let names: Vec<&str> = ["destination", "date", "airport", "proceed", "seat"]
            .into_iter()
            .filter(|n| requests.contains(&format!("\"{n}\":{{\"method\"")))
            .collect();
        let body: Vec<String> = names
            .iter()
            .map(|n| format!("\"{n}\":{}", scripted(n, "Paris")))
            .collect();
        state = Some(back);
        replies = Some(format!("{{{}}}", body.join(",")));
    }
    // One question at a time.
    s.start(false, None, None);
    assert_eq!(drive(s, "London", &mut log), ELICIT_STEP_DONE);
    log.push(format!("values {}", s.values()));
    log
}

#[test]
fn the_hosted_and_the_heap_free_surface_give_the_same_bytes() {
    let hosted = conversation(&mut Hosted::new());
    let heap_free = conversation(&mut Static::new());
    assert_eq!(hosted, heap_free);
    let text = hosted.join("\n");
    assert!(text.contains(r#"values {"destination":"Paris","date":"2026-08-01","airport":"CDG","proceed":true,"seat":null}"#), "{text}");
    assert!(text.contains(r#"values {"destination":"London","date":"2026-08-01","airport":"LHR","proceed":true,"seat":null}"#), "{text}");
    assert_eq!(text.matches("token v1.").count(), 2, "{text}");
}
