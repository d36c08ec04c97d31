//! The heap-free C surface (`elicit_noalloc_*`, include/elicit_noalloc.h) driven by a
//! little program decoded from the fuzz input: plans loaded from plan bytes (built-in,
//! mutated or raw) or compiled from JSON, rounds of both eras, sealers, each in caller
//! memory of any size and alignment, with arbitrary texts, workspaces of any size and
//! output buffers of every size. Only valid memory or documented NULL is ever passed.
//!
//! Input format (every read past the end gives 0, so any byte string is a program):
//!
//! ```text
//! program := plan round op*            (at most MAX_OPS ops run)
//! plan    := src:u8 mem                (src % 4: 0/1 built-in plan bytes, 2 mutated, 3 JSON)
//! mem     := size:u8 offset:u8         (size % 4: exact, one byte short, half, generous;
//!                                       offset % 4: 0, 1, 8 or 16 bytes past an aligned base)
//! round   := era:u8 caps:u8 mem ws:u8 text text text
//! op      := opcode:u8 args...         (opcode % 12, see the match in `run`)
//! text    := sel:u8 ...                (a pool text, raw bytes, empty, or NULL)
//! ```
//!
//! Checked after every call (a failed check panics; libFuzzer reports it, as it reports
//! any panic inside the library, which has no panic barrier on this surface):
//! - the code is one `elicit_result_name` knows;
//! - handles and out-parameters are written only on success (and `*out_len` on
//!   ELICIT_ERR_BUFFER_TOO_SMALL), buffers are untouched when too small and never
//!   written past `cap` or past `*out_len`, and a size reported as needed is accepted;
//! - outputs are UTF-8, and JSON where the header promises JSON;
//! - memory below `elicit_noalloc_*_size()` or misaligned is refused with its own code.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]

use std::ffi::CStr;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use elicit_core::Plan;
use elicit_ffi::*;
use elicit_fuzz::{check_json, CREATE_MESSAGE_RESULT, KINDS, KINDS_ARGS, LIST_ROOTS_RESULT, POOL};
use libfuzzer_sys::fuzz_target;

const MAX_OPS: usize = 64;
const FILL: u8 = 0xA5;
const UNSET: usize = 0xDEAD_BEEF;

const BOOKING: &str = r#"{"tool":"book_flight","parameters":[
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"airport","elicit":{"needs":["destination"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Seat?"}},
  {"name":"passengers","type":"integer","default":1}]}"#;

/// The declarations the built-in plan bytes are made from.
const DECLS: [&str; 2] = [BOOKING, KINDS];
const ARGS: [&str; 2] = [r#"{"passengers":2}"#, KINDS_ARGS];

fn plan_bytes() -> &'static [Vec<u8>; 2] {
    static BYTES: OnceLock<[Vec<u8>; 2]> = OnceLock::new();
    BYTES.get_or_init(|| {
        DECLS.map(|d| {
            Plan::<16>::compile(d)
                .expect("built-in declaration")
                .to_postcard_vec()
        })
    })
}

/// The fuzz input as a stream: reads past the end give 0.
struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }
    /// A text argument: `None` is NULL with length 0.
    fn text(&mut self) -> Option<Vec<u8>> {
        let answers = [
            r#"{"action":"accept","content":{"value":"Paris"}}"#,
            r#"{"action":"accept","content":{"value":"window"}}"#,
            r#"{"action":"decline"}"#,
            r#"{"action":"cancel"}"#,
            r#"{"action":"accept"}"#,
            CREATE_MESSAGE_RESULT,
            LIST_ROOTS_RESULT,
            r#""CDG""#,
            r#"{"message":"Which airport?"}"#,
            r#"{"elicitation":{"url":{}},"sampling":{},"roots":{}}"#,
        ];
        match self.u8() % 6 {
            0 => Some(
                POOL[usize::from(self.u8()) % POOL.len()]
                    .as_bytes()
                    .to_vec(),
            ),
            1 => Some(
                answers[usize::from(self.u8()) % answers.len()]
                    .as_bytes()
                    .to_vec(),
            ),
            2 => {
                let n = usize::from(self.u8());
                Some(self.bytes(n).to_vec())
            }
            3 => Some(Vec::new()),
            4 => None,
            _ => {
                // A pool text with one byte changed.
                let mut t = POOL[usize::from(self.u8()) % POOL.len()]
                    .as_bytes()
                    .to_vec();
                let (at, b) = (usize::from(self.u8()), self.u8());
                if !t.is_empty() {
                    let i = at % t.len();
                    t[i] = b;
                }
                Some(t)
            }
        }
    }
}

fn ptr_len(t: &Option<Vec<u8>>) -> (*const u8, usize) {
    match t {
        Some(v) => (v.as_ptr(), v.len()),
        None => (null(), 0),
    }
}

/// The code is one the library names.
fn known(code: elicit_result) -> elicit_result {
    // SAFETY: the function returns a static NUL-terminated string for any code.
    let name = unsafe { CStr::from_ptr(elicit_result_name(code)) };
    assert_ne!(
        name.to_bytes(),
        b"ELICIT_ERR_UNKNOWN",
        "undocumented code {code}"
    );
    code
}

/// Caller memory: an aligned allocation, used from `offset` bytes in, `len` bytes long.
struct Mem {
    words: Vec<u128>,
    offset: usize,
    len: usize,
}

impl Mem {
    fn new(size: usize, input: &mut In<'_>) -> Mem {
        let len = match input.u8() % 4 {
            0 => size,
            1 => size - 1,
            2 => size / 2,
            _ => size + 64,
        };
        let offset = [0, 1, 8, 16][usize::from(input.u8() % 4)];
        let words = vec![0u128; (len + offset) / 16 + 2];
        Mem { words, offset, len }
    }
    fn ptr(&mut self) -> *mut std::ffi::c_void {
        // SAFETY: offset + len stays within the allocation (see `new`).
        unsafe { (self.words.as_mut_ptr() as *mut u8).add(self.offset) as *mut _ }
    }
    /// Whether an init into this memory must be refused for its size or alignment.
    fn refused(&self, size: usize) -> Option<elicit_result> {
        if self.len < size {
            Some(ELICIT_ERR_MEMORY_TOO_SMALL)
        } else if !self.offset.is_multiple_of(16) {
            Some(ELICIT_ERR_MEMORY_ALIGN)
        } else {
            None
        }
    }
}

/// Check an init call's error buffer: written only on failure, UTF-8, within its cap.
fn check_err_buf(code: elicit_result, buf: &[u8], cap: usize, len: usize) {
    if code == ELICIT_OK {
        assert_eq!(len, UNSET, "error length written on success");
        assert!(
            buf.iter().all(|&b| b == FILL),
            "error buffer written on success"
        );
    } else if len != UNSET {
        let shown = len.min(cap);
        assert!(
            std::str::from_utf8(&buf[..shown]).is_ok(),
            "error message not UTF-8"
        );
        assert!(
            buf[cap..].iter().all(|&b| b == FILL),
            "error buffer written past cap"
        );
    }
}

/// After an `*_init` call: its error buffer's contract, memory below the size query or
/// misaligned refused with its own code (checked before anything else), and the handle
/// written only on success. True on success.
fn check_init<T>(
    code: elicit_result,
    (err, err_len): (&[u8], usize),
    mem: &Mem,
    size: usize,
    handle: *mut T,
) -> bool {
    check_err_buf(code, err, err.len() - 8, err_len);
    if let Some(want) = mem.refused(size) {
        assert_eq!(code, want, "memory of {} B at +{}", mem.len, mem.offset);
    }
    if code != ELICIT_OK {
        assert_eq!(handle as usize, UNSET, "handle written on failure");
    }
    code == ELICIT_OK
}

/// One output call under the output convention, at capacity `cap` (after a size query or
/// a too-small answer, again at the size reported). Returns the output on success.
fn output(
    cap: usize,
    json: bool,
    call: &mut dyn FnMut(*mut u8, usize, *mut usize) -> elicit_result,
) -> Option<Vec<u8>> {
    let mut buf = vec![FILL; cap + 8];
    let mut len = UNSET;
    let p = if cap == 0 {
        null_mut()
    } else {
        buf.as_mut_ptr()
    };
    let code = known(call(p, cap, &mut len));
    let size_query = code == ELICIT_OK && p.is_null();
    match code {
        ELICIT_OK if !size_query => {
            assert!(len <= cap, "output length {len} past cap {cap}");
            assert!(
                buf[len..].iter().all(|&b| b == FILL),
                "written past the output"
            );
            let out = buf[..len].to_vec();
            assert!(std::str::from_utf8(&out).is_ok(), "output not UTF-8");
            if json {
                check_json("static output", &out);
            }
            Some(out)
        }
        ELICIT_OK | ELICIT_ERR_BUFFER_TOO_SMALL => {
            assert!(
                len != UNSET && (size_query || len > cap),
                "no size needed given"
            );
            assert!(
                buf.iter().all(|&b| b == FILL),
                "buffer written without an output"
            );
            if len == 0 {
                return Some(Vec::new());
            }
            let out = output(len, json, call);
            assert_eq!(
                out.as_ref().map(Vec::len),
                Some(len),
                "the size reported as needed"
            );
            out
        }
        _ => {
            assert_eq!(len, UNSET, "out_len written on failure {code}");
            assert!(
                buf.iter().all(|&b| b == FILL),
                "buffer written on failure {code}"
            );
            None
        }
    }
}

fn run(data: &[u8]) {
    let mut input = In(data);
    let bytes = plan_bytes();

    // --- the plan -----------------------------------------------------------------
    let src = input.u8() % 4;
    let which = usize::from(input.u8() % 2);
    let plan_text: Vec<u8> = match src {
        0 | 1 => bytes[which].clone(),
        2 => {
            let mut b = bytes[which].clone();
            for _ in 0..(input.u8() % 4 + 1) {
                let (at, x) = (usize::from(input.u8()), input.u8());
                let i = at % b.len();
                b[i] ^= x;
            }
            b
        }
        _ => DECLS[which].as_bytes().to_vec(),
    };
    let mut plan_mem = Mem::new(elicit_noalloc_plan_size(), &mut input);
    let mut plan: *mut elicit_noalloc_plan = UNSET as *mut _;
    let mut err = vec![FILL; 200 + 8];
    let mut err_len = UNSET;
    // Plan bytes or (src 3) the JSON declaration: the same arguments either way.
    // SAFETY: memory, texts and out-parameters are valid for the lengths given.
    let code = known(unsafe {
        if src == 3 {
            elicit_noalloc_plan_init_json(
                plan_mem.ptr(),
                plan_mem.len,
                plan_text.as_ptr().cast(),
                plan_text.len(),
                &mut plan,
                err.as_mut_ptr().cast(),
                200,
                &mut err_len,
            )
        } else {
            elicit_noalloc_plan_init(
                plan_mem.ptr(),
                plan_mem.len,
                plan_text.as_ptr(),
                plan_text.len(),
                &mut plan,
                err.as_mut_ptr().cast(),
                200,
                &mut err_len,
            )
        }
    });
    let loaded = check_init(
        code,
        (&err, err_len),
        &plan_mem,
        elicit_noalloc_plan_size(),
        plan,
    );
    if src < 2 && plan_mem.refused(elicit_noalloc_plan_size()).is_none() {
        assert!(loaded, "built-in plan bytes refused: {code}");
    }
    if !loaded {
        return;
    }
    let mut count = UNSET;
    // SAFETY: `plan` is live; the out-parameter is valid.
    assert_eq!(
        unsafe { elicit_noalloc_plan_param_count(plan, &mut count) },
        ELICIT_OK
    );
    for i in 0..=count {
        let mut name = [0u8; 256];
        let mut name_len = UNSET;
        // SAFETY: as above; a buffer of 256 bytes (a name fits: the names are short).
        let code = known(unsafe {
            elicit_noalloc_plan_param_name(plan, i, name.as_mut_ptr().cast(), 256, &mut name_len)
        });
        if i == count {
            assert_eq!(code, ELICIT_ERR_INDEX);
            continue;
        }
        assert_eq!(code, ELICIT_OK);
        let name = &name[..name_len];
        let mut index = UNSET;
        // SAFETY: as above.
        let code = unsafe {
            elicit_noalloc_plan_param_index(plan, name.as_ptr().cast(), name.len(), &mut index)
        };
        assert_eq!(
            (code, index),
            (ELICIT_OK, i),
            "the name of parameter {i} finds another"
        );
    }

    // --- the round ----------------------------------------------------------------
    let handshake = input.u8() % 2 == 1;
    let caps = match input.u8() % 3 {
        0 => None,
        1 => Some(br#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#.to_vec()),
        _ => input.text(),
    };
    let mut round_mem = Mem::new(elicit_noalloc_round_size(), &mut input);
    let mut workspace = vec![0u8; usize::from(input.u8()) * 8];
    let args = if input.u8() % 2 == 0 {
        Some(ARGS[which].as_bytes().to_vec())
    } else {
        input.text()
    };
    let state = input.text();
    let replies = input.text();
    let (caps_p, caps_n) = ptr_len(&caps);
    let (args_p, args_n) = ptr_len(&args);
    let (state_p, state_n) = ptr_len(&state);
    let (replies_p, replies_n) = ptr_len(&replies);
    let (ws_p, ws_n) = if workspace.is_empty() {
        (null_mut(), 0)
    } else {
        (workspace.as_mut_ptr(), workspace.len())
    };
    let mut round: *mut elicit_noalloc_round = UNSET as *mut _;
    let mut err = vec![FILL; 300 + 8];
    let mut err_len = UNSET;
    // SAFETY: every pointer is valid for its length (or NULL with length 0) and outlives
    // the round, which lives only inside this function.
    let code = known(unsafe {
        if handshake {
            elicit_noalloc_round_init_handshake(
                plan,
                round_mem.ptr(),
                round_mem.len,
                &elicit_round_input::new(
                    (args_p.cast(), args_n),
                    (null(), 0),
                    (null(), 0),
                    (caps_p.cast(), caps_n),
                ),
                ws_p,
                ws_n,
                &mut round,
                err.as_mut_ptr().cast(),
                300,
                &mut err_len,
            )
        } else {
            elicit_noalloc_round_init_modern(
                plan,
                round_mem.ptr(),
                round_mem.len,
                &elicit_round_input::new(
                    (args_p.cast(), args_n),
                    (state_p.cast(), state_n),
                    (replies_p.cast(), replies_n),
                    (caps_p.cast(), caps_n),
                ),
                ws_p,
                ws_n,
                &mut round,
                err.as_mut_ptr().cast(),
                300,
                &mut err_len,
            )
        }
    });
    if !check_init(
        code,
        (&err, err_len),
        &round_mem,
        elicit_noalloc_round_size(),
        round,
    ) {
        return;
    }

    // --- the ops ------------------------------------------------------------------
    let mut last_step = None;
    for _ in 0..MAX_OPS {
        if input.0.is_empty() {
            break;
        }
        let op = input.u8() % 12;
        let cap = match input.u8() % 4 {
            0 => 0,
            1 => usize::from(input.u8()),
            2 => 4096,
            _ => 64,
        };
        // SAFETY (every call below): `round` is live, buffers are valid for `cap`,
        // texts for their lengths, out-parameters for writes.
        match op {
            0 | 1 => {
                let (mut step, mut param) = (u32::MAX, UNSET);
                let code =
                    known(unsafe { elicit_noalloc_round_poll(round, &mut step, &mut param) });
                if code == ELICIT_OK {
                    assert!((1..=4).contains(&step), "unknown step {step}");
                    if handshake {
                        assert_ne!(
                            step, ELICIT_STEP_INPUT_REQUIRED,
                            "a batched step in the handshake era"
                        );
                    } else {
                        assert_ne!(step, ELICIT_STEP_ASK, "an ask step in the modern era");
                    }
                    if step == ELICIT_STEP_RESOLVE || step == ELICIT_STEP_ASK {
                        assert!(param < count, "step parameter {param} of {count}");
                    }
                    last_step = Some(step);
                } else {
                    assert_eq!((step, param), (u32::MAX, UNSET), "poll wrote on failure");
                }
            }
            2 => {
                output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_resolve_inputs(round, b.cast(), c, l)
                });
            }
            3 | 4 => {
                let t = input.text();
                let (p, n) = ptr_len(&t);
                known(unsafe {
                    match (op, input.u8() % 3) {
                        (3, 0) => elicit_noalloc_round_resolve_value(round, p.cast(), n),
                        (3, 1) => elicit_noalloc_round_resolve_question(round, p.cast(), n),
                        (3, _) => elicit_noalloc_round_resolve_failed(round, p.cast(), n),
                        _ => elicit_noalloc_round_answer(round, p.cast(), n),
                    }
                });
            }
            5 => {
                output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_ask(round, b.cast(), c, l)
                });
            }
            6 => {
                output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_values(round, b.cast(), c, l)
                });
            }
            7 => {
                let i = usize::from(input.u8() % 8);
                output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_value_of(round, i, b.cast(), c, l)
                });
            }
            8 => {
                let flags = u32::from(input.u8() % 2);
                let out = output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_input_requests(round, flags, b.cast(), c, l)
                });
                if out.is_some() {
                    assert_eq!(last_step, Some(ELICIT_STEP_INPUT_REQUIRED));
                }
            }
            9 => {
                if let Some(state) = output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_request_state(round, b.cast(), c, l)
                }) {
                    assert!(state.is_ascii(), "request state not ASCII");
                    seal_round_trip(&state, &mut input);
                }
            }
            10 => {
                output(cap, true, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_required_capabilities(round, b.cast(), c, l)
                });
            }
            _ => {
                output(cap, false, &mut |b, c, l| unsafe {
                    elicit_noalloc_round_last_error(round, b.cast(), c, l)
                });
            }
        }
    }
}

/// Seal a state the round wrote, in place, and unseal it again (or a damaged copy).
fn seal_round_trip(state: &[u8], input: &mut In<'_>) {
    let mut mem = Mem::new(elicit_noalloc_sealer_size(), input);
    let keys: [&[u8]; 2] = [&[7u8; 32], &[9u8; 32]];
    let key_count = usize::from(input.u8() % 3);
    let ptrs: Vec<*const u8> = keys.iter().map(|k| k.as_ptr()).collect();
    let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    let mut sealer: *mut elicit_noalloc_sealer = UNSET as *mut _;
    let (mut err, mut err_len) = (vec![FILL; 128 + 8], UNSET);
    // SAFETY: keys, lengths and memory are valid; the audience is a static string.
    let code = known(unsafe {
        elicit_noalloc_sealer_init(
            mem.ptr(),
            mem.len,
            ptrs.as_ptr(),
            lens.as_ptr(),
            key_count,
            b"aud".as_ptr().cast(),
            3,
            0.0,
            &mut sealer,
            err.as_mut_ptr().cast(),
            128,
            &mut err_len,
        )
    });
    if !check_init(
        code,
        (&err, err_len),
        &mem,
        elicit_noalloc_sealer_size(),
        sealer,
    ) {
        // Only memory or a key count of 0 refuses these keys.
        assert!(key_count == 0 || mem.refused(elicit_noalloc_sealer_size()).is_some());
        return;
    }
    let method = b"tools/call";
    let params = br#"{"name":"book_flight","arguments":{}}"#;
    let random = [input.u8(); ELICIT_SEAL_RANDOM_LEN];
    let cap = match input.u8() % 3 {
        0 => state.len(),
        1 => state.len() + usize::from(input.u8()),
        _ => 4096,
    };
    let mut buf = vec![FILL; cap];
    buf[..state.len()].copy_from_slice(state);
    let mut token_len = UNSET;
    let mut detail = null();
    // SAFETY: every pointer is valid for its length; `buf` for `cap`.
    let code = known(unsafe {
        elicit_noalloc_sealer_seal_in_place(
            sealer,
            &elicit_request {
                random: random.as_ptr(),
                random_len: random.len(),
                ..elicit_request::new(
                    (method.as_ptr().cast(), method.len()),
                    (params.as_ptr().cast(), params.len()),
                    (null(), 0),
                    1_780_000_000.0,
                )
            },
            buf.as_mut_ptr().cast(),
            cap,
            state.len(),
            &mut token_len,
            &mut detail,
        )
    });
    match code {
        ELICIT_OK => {
            assert!(token_len <= cap && buf[..token_len].is_ascii(), "token");
            if input.u8() % 2 == 1 && token_len > 0 {
                let i = usize::from(input.u8()) % token_len;
                buf[i] ^= 1 + input.u8() % 0x7f;
            }
            let (mut plain, mut plain_len) = (null(), UNSET);
            // SAFETY: as above; the token lies in `buf[..token_len]`.
            let code = known(unsafe {
                elicit_noalloc_sealer_unseal_in_place(
                    sealer,
                    &elicit_request::new(
                        (method.as_ptr().cast(), method.len()),
                        (params.as_ptr().cast(), params.len()),
                        (null(), 0),
                        1_780_000_100.0,
                    ),
                    buf.as_mut_ptr().cast(),
                    token_len,
                    &mut plain,
                    &mut plain_len,
                    &mut detail,
                )
            });
            if code == ELICIT_OK {
                // SAFETY: the plaintext lies inside `buf`, `plain_len` long.
                let got = unsafe { std::slice::from_raw_parts(plain.cast::<u8>(), plain_len) };
                assert_eq!(got, state, "unsealed state differs from the sealed one");
            } else {
                assert_eq!(code, ELICIT_ERR_REQUEST_STATE, "unseal failure code");
                assert_eq!(plain_len, UNSET, "state length written on failure");
            }
        }
        ELICIT_ERR_BUFFER_TOO_SMALL => {
            assert!(token_len > cap, "too small without the size needed");
            assert_eq!(
                &buf[..state.len()],
                state,
                "state changed though the token did not fit"
            );
        }
        _ => {
            // SAFETY: on failure `detail` is NULL or a static NUL-terminated string.
            let why = (!detail.is_null()).then(|| unsafe { CStr::from_ptr(detail) });
            panic!("sealing a round's own state failed: {code} {why:?}");
        }
    }
    // SAFETY: the sealer is live and used by nothing else.
    unsafe { elicit_noalloc_sealer_wipe(sealer) };
}

fuzz_target!(|data: &[u8]| run(data));
