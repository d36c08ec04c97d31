//! The C ABI (crate elicit-ffi, include/elicit.h) driven by a little program decoded
//! from the fuzz input: plans and rounds created, used and released in any order, with
//! arbitrary texts, NULL where the header says NULL is checked, and output buffers of
//! every size. Only valid memory or documented NULL is ever passed.
//!
//! Input format (every read past the end gives 0, so any byte string is a program):
//!
//! ```text
//! program := op*                       (at most MAX_OPS ops run)
//! op      := opcode:u8 args...          (opcode % 16, see the match at the end)
//! text    := sel:u8 payload             (sel % 8)
//!   0 const:u8                          a built-in text (CONSTS)
//!   1 len:u16le bytes[len]              raw bytes (clamped to what is left)
//!   2 const:u8 n:u8 (kind:u8 pos:u16le val:u8){n%4+1}   a built-in, mutated
//!   3 k:u8                              an output captured earlier (state, values...)
//!   4                                   empty text (non-NULL pointer, length 0)
//!   5                                   NULL, length 0
//!   6 len:u8                            NULL, length len+1 (ELICIT_ERR_NULL)
//!   7 len:u8 bytes[len]                 short raw bytes
//! ```
//!
//! Invariants checked after every call (a failed check panics, which libFuzzer reports
//! as a crash; so does any panic inside the library, caught or not, because
//! libfuzzer-sys aborts in its panic hook):
//! - each call returns a code the header documents for it;
//! - out-parameters are written only on success (and `*out_len` on
//!   ELICIT_ERR_BUFFER_TOO_SMALL), the buffer is untouched when too small, never written
//!   past `cap`, and the size reported for a too-small buffer is the size then accepted;
//! - outputs are UTF-8, JSON where promised (ASCII for the request state), the same on
//!   every read, and messages fit ELICIT_MESSAGE_CAP;
//! - poll is idempotent, steps fit the era, the parameter index is in range and of the
//!   right kind; outputs and answers outside their step give ELICIT_ERR_WRONG_STEP and
//!   change nothing; a 3xx/4xx failure is sticky; notes survive failure;
//! - a request state written by a round starts a new round with the same arguments;
//! - every handle is released at the end of the input (LeakSanitizer checks the rest).
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]

use std::ptr::{null, null_mut};

use elicit_ffi::*;

/// Every result code include/elicit_noalloc.h defines (`#define ELICIT_OK 0`,
/// `#define ELICIT_ERR_<NAME> <n>`), read from the header at build time: a code added to
/// the ABI is known here as soon as the header (generated from ffi-noalloc's codes) has
/// it, so no list is kept by hand.
static HEADER_CODES: std::sync::LazyLock<Vec<(u32, &'static str)>> =
    std::sync::LazyLock::new(|| {
        let codes: Vec<(u32, &'static str)> = include_str!("../../include/elicit_noalloc.h")
            .lines()
            .filter_map(|line| {
                let (name, value) = line.strip_prefix("#define ")?.split_once(' ')?;
                let is_code = name == "ELICIT_OK" || name.starts_with("ELICIT_ERR_");
                Some((value.trim().parse().ok().filter(|_| is_code)?, name))
            })
            .collect();
        assert!(
            codes.contains(&(0, "ELICIT_OK")) && codes.contains(&(999, "ELICIT_ERR_OTHER")),
            "the header's codes were not found"
        );
        codes
    });
use elicit_fuzz::{
    check_json, CREATE_MESSAGE_RESULT, KINDS, KINDS_ARGS, LIST_ROOTS_RESULT, POOL, RICH, RICH_ARGS,
};
use libfuzzer_sys::fuzz_target;

const MAX_OPS: usize = 160;
/// Compiling a declaration costs far more than any other call (and the compile target
/// covers it); past this many per input, plan_new ops are decoded but not run.
const MAX_PLANS: usize = 6;
const SLOTS: usize = 4;
/// Sentinel a buffer is filled with before a call, to see what the call wrote.
const FILL: u8 = 0xA5;
/// Sentinel an out-parameter holds before a call.
const UNSET: usize = 0xDEAD_BEEF;

const SIMPLE: &str = r#"{"parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#;
const BOOKING: &str = r#"{"tool":"book_flight","parameters":[
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"airport","elicit":{"needs":["destination"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Window or aisle?"}}]}"#;
const WITH_ARG: &str = r#"{"tool":"t","parameters":[{"name":"destination","type":"string"},
  {"name":"date","elicit":{"message":"When?"}},
  {"name":"airport","elicit":{"needs":["destination"],"declares":"string"}},
  {"name":"ok","type":"boolean","outcome":true,"elicit":{"message":"Go?"}}]}"#;

/// Built-in texts: declarations, arguments, states, replies, resolver answers,
/// ElicitResults, and a few byte strings that are not UTF-8 or hold NUL.
fn consts() -> Vec<&'static [u8]> {
    let mut v: Vec<&'static [u8]> = vec![
        RICH.as_bytes(),
        SIMPLE.as_bytes(),
        BOOKING.as_bytes(),
        WITH_ARG.as_bytes(),
        RICH_ARGS.as_bytes(),
        b"{}",
        br#"{"destination":"Paris"}"#,
        br#"{"v":1,"answers":{},"asked":{}}"#,
        br#"{"destination":{"action":"accept","content":{"value":"Paris"}}}"#,
        br#"{"x":{"action":"accept","content":{"value":"hi"}},"seat":{"action":"decline"}}"#,
        b"\xff\xfe{}",
        b"{\"a\":\"\0\"}",
        b"\"\xc3\"",
        b"[]",
        KINDS.as_bytes(),
        KINDS_ARGS.as_bytes(),
        // ClientCapabilities.
        br#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#,
        br#"{"elicitation":{}}"#,
        br#"{"elicitation":{"url":{}},"sampling":{}}"#,
        br#"{"roots":{"listChanged":true}}"#,
    ];
    v.extend(POOL.iter().map(|s| s.as_bytes()));
    v
}

/// Contents an accepted answer may carry, for the host-like operations.
const CONTENTS: &[&str] = &[
    r#"{"value":"Paris"}"#,
    r#"{"value":"window"}"#,
    r#"{"value":true}"#,
    r#"{"value":3}"#,
    r#"{"value":1.5}"#,
    r#"{"value":"2026-08-01"}"#,
    r#"{"value":["meal"]}"#,
    r#"{"value":[]}"#,
    r#"{"email":"a@b.co","age":3}"#,
    r#"{"x":"y"}"#,
];

// ------------------------------------------------------------------------ decoding

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = start + n.max(end - start);
        &self.data[start..end]
    }
}

/// A text argument: bytes behind a valid pointer, or NULL with a length.
enum Text {
    Bytes(Vec<u8>),
    Null(usize),
}

impl Text {
    fn ptr(&self) -> *const u8 {
        match self {
            // A Vec's pointer is valid (dangling but aligned and non-NULL when empty,
            // which is fine for a length of 0).
            Text::Bytes(b) => b.as_ptr(),
            Text::Null(_) => null(),
        }
    }
    fn len(&self) -> usize {
        match self {
            Text::Bytes(b) => b.len(),
            Text::Null(n) => *n,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Text::Null(_))
    }
    /// Non-NULL and UTF-8.
    fn utf8(&self) -> bool {
        matches!(self, Text::Bytes(b) if std::str::from_utf8(b).is_ok())
    }
}

// ----------------------------------------------------------------------- the model

struct PlanSlot {
    ptr: *mut elicit_plan,
    names: Vec<String>,
    elicited: Vec<bool>,
    resolver: Vec<bool>,
    /// `elicit_plan_param_kind` of each parameter (None for an argument).
    kinds: Vec<Option<u32>>,
}

struct RoundSlot {
    ptr: *mut elicit_round,
    handshake: bool,
    /// The plan's parameters (names, elicited, has a resolver), read at creation.
    names: Vec<String>,
    elicited: Vec<bool>,
    resolver: Vec<bool>,
    kinds: Vec<Option<u32>>,
    /// The plan handle the round came from, while that handle is alive.
    plan: Option<*mut elicit_plan>,
    arguments: Vec<u8>,
    /// The client capabilities the round was created with (None: NULL).
    caps: Option<Vec<u8>>,
    /// The step the last poll returned, when nothing successful happened since.
    step: Option<(u32, usize)>,
    /// The sticky failure code, once the round failed.
    failed: Option<u32>,
    /// A successful call since the last poll may have moved the round.
    notes: usize,
    /// Outputs read so far in the current step, to check reads agree.
    seen: Vec<(u32, usize, Vec<u8>)>,
}

struct World {
    consts: Vec<&'static [u8]>,
    plans: [Option<PlanSlot>; SLOTS],
    rounds: [Option<RoundSlot>; SLOTS],
    captured: Vec<Vec<u8>>,
    compiled: usize,
}

fn is_sticky(code: u32) -> bool {
    code == ELICIT_ERR_RESOLVER_ANSWER
        || (300..=302).contains(&code)
        || code == ELICIT_ERR_MISSING_CAPABILITY
        || (400..=405).contains(&code)
}

/// A failure that ends the round (the call's inputs or resolution).
fn is_round_failure(code: u32) -> bool {
    (300..=302).contains(&code)
        || code == ELICIT_ERR_MISSING_CAPABILITY
        || (400..=405).contains(&code)
}

/// `(ptr, len)` of an optional kept text.
fn opt_bytes(t: &Option<Vec<u8>>) -> (*const u8, usize) {
    t.as_ref().map_or((null(), 0), |b| (b.as_ptr(), b.len()))
}

/// `ELICIT_FFI_TRACE=1` prints every checked call (for reading a crash or a seed).
fn trace() -> bool {
    static T: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *T.get_or_init(|| std::env::var_os("ELICIT_FFI_TRACE").is_some())
}

fn check_code(what: &str, code: u32, allowed: &[u32]) {
    if trace() {
        eprintln!("{what} -> {code}");
    }
    assert!(
        allowed.contains(&code),
        "{what} returned {code}, not one of the codes documented for it {allowed:?}"
    );
    // SAFETY: elicit_result_str returns a static NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(elicit_result_str(code)) };
    let s = s.to_str().expect("result_str is UTF-8");
    assert!(s.starts_with("ELICIT_"), "{code} has no name: {s}");
}

fn check_message(what: &str, bytes: &[u8]) -> String {
    let s = std::str::from_utf8(bytes)
        .unwrap_or_else(|_| panic!("{what}: message not UTF-8"))
        .to_owned();
    assert!(
        bytes.len() <= ELICIT_MESSAGE_CAP,
        "{what}: a {}-byte message does not fit ELICIT_MESSAGE_CAP: {s}",
        bytes.len()
    );
    s
}

/// An `(err_buf, err_cap, err_len)` triple chosen by `mode`.
struct ErrOut {
    buf: Vec<u8>,
    cap: usize,
    use_buf: bool,
    use_len: bool,
    len: usize,
}

impl ErrOut {
    fn new(mode: u8) -> Self {
        let cap = match mode % 6 {
            0 => 0,
            1 => (mode as usize >> 3) % 24,
            2 => ELICIT_MESSAGE_CAP,
            _ => 4 * ELICIT_MESSAGE_CAP,
        };
        ErrOut {
            buf: vec![FILL; cap + 8],
            cap,
            use_buf: !mode.is_multiple_of(6) && mode & 0x40 == 0,
            use_len: mode & 0x80 == 0,
            len: UNSET,
        }
    }
    fn buf(&mut self) -> *mut u8 {
        if self.use_buf {
            self.buf.as_mut_ptr()
        } else {
            null_mut()
        }
    }
    fn cap(&self) -> usize {
        if self.use_buf {
            self.cap
        } else {
            self.cap.min(7)
        }
    }
    fn len(&mut self) -> *mut usize {
        if self.use_len {
            &mut self.len
        } else {
            null_mut()
        }
    }
    /// After a call: on success nothing written; on failure a UTF-8 message cut to fit.
    fn check(&self, what: &str, code: u32) {
        assert!(
            self.buf[self.cap..].iter().all(|&b| b == FILL),
            "{what}: err_buf overrun"
        );
        if code == ELICIT_OK {
            assert_eq!(self.len, UNSET, "{what}: err_len written on success");
            assert!(
                self.buf.iter().all(|&b| b == FILL),
                "{what}: err_buf written on success"
            );
            return;
        }
        if self.use_buf && self.use_len {
            assert!(
                self.len <= self.cap,
                "{what}: err_len {} > err_cap",
                self.len
            );
            let m = check_message(what, &self.buf[..self.len]);
            if self.cap >= ELICIT_MESSAGE_CAP {
                assert!(!m.is_empty(), "{what}: failed ({code}) without a message");
                // ELICIT_MESSAGE_CAP always suffices: with more room the message is
                // whole, so it is no longer than the cap.
                assert!(m.len() <= ELICIT_MESSAGE_CAP);
            }
        }
    }
}

/// How an output call's buffer is sized.
#[derive(Clone, Copy, Debug)]
enum Cap {
    /// `buf = NULL, cap = 0`: a size query.
    Query,
    /// A buffer of `cap` bytes (0, small, exact - 1, exact, large).
    Buf(usize),
    /// `buf = NULL` with a non-zero cap: ELICIT_ERR_NULL.
    NullBuf(usize),
    /// `out_len = NULL`: ELICIT_ERR_NULL.
    NullLen,
}

fn cap_mode(mode: u8, extra: u8, needed: usize) -> Cap {
    match mode % 9 {
        0 => Cap::Query,
        1 => Cap::Buf(0),
        2 => Cap::Buf(extra as usize % 16),
        3 => Cap::Buf(needed.saturating_sub(1)),
        4 | 5 => Cap::Buf(needed),
        6 => Cap::Buf(needed + 1 + extra as usize * 17),
        7 => Cap::NullBuf(extra as usize + 1),
        _ => Cap::NullLen,
    }
}

/// An output function of a round, its pointers bound: `f(buf, cap, out_len)`.
type OutFn = Box<dyn FnMut(*mut u8, usize, *mut usize) -> u32>;

/// What one call to an output function gave.
struct OutCall {
    code: u32,
    out_len: usize,
    bytes: Option<Vec<u8>>,
}

/// Call an output function `f(buf, cap, out_len)` with the buffer `cap` describes and
/// check the output convention. `bytes` is the output on success with a buffer.
fn out_call(what: &str, cap: Cap, f: &mut dyn FnMut(*mut u8, usize, *mut usize) -> u32) -> OutCall {
    let mut out_len = UNSET;
    match cap {
        Cap::Query => {
            let code = f(null_mut(), 0, &mut out_len);
            if code != ELICIT_OK {
                assert_eq!(out_len, UNSET, "{what}: out_len written on error {code}");
                assert_ne!(
                    code, ELICIT_ERR_BUFFER_TOO_SMALL,
                    "{what}: a size query is never too small"
                );
            }
            OutCall {
                code,
                out_len,
                bytes: None,
            }
        }
        Cap::NullBuf(c) => {
            let code = f(null_mut(), c, &mut out_len);
            assert_eq!(out_len, UNSET, "{what}: out_len written on error {code}");
            OutCall {
                code,
                out_len,
                bytes: None,
            }
        }
        Cap::NullLen => {
            let mut buf = [FILL; 8];
            let code = f(buf.as_mut_ptr(), buf.len(), null_mut());
            assert!(
                buf.iter().all(|&b| b == FILL),
                "{what}: buffer written without out_len"
            );
            OutCall {
                code,
                out_len,
                bytes: None,
            }
        }
        Cap::Buf(c) => {
            let mut buf = vec![FILL; c + 16];
            let code = f(buf.as_mut_ptr(), c, &mut out_len);
            assert!(
                buf[c..].iter().all(|&b| b == FILL),
                "{what}: wrote past cap {c}"
            );
            match code {
                ELICIT_OK => {
                    assert!(out_len <= c, "{what}: out_len {out_len} > cap {c}");
                    buf.truncate(out_len);
                    OutCall {
                        code,
                        out_len,
                        bytes: Some(buf),
                    }
                }
                ELICIT_ERR_BUFFER_TOO_SMALL => {
                    assert!(
                        out_len > c,
                        "{what}: too small, yet {out_len} bytes fit {c}"
                    );
                    assert!(
                        buf.iter().all(|&b| b == FILL),
                        "{what}: buffer touched when too small"
                    );
                    OutCall {
                        code,
                        out_len,
                        bytes: None,
                    }
                }
                _ => {
                    assert_eq!(out_len, UNSET, "{what}: out_len written on error {code}");
                    assert!(
                        buf.iter().all(|&b| b == FILL),
                        "{what}: buffer touched on error {code}"
                    );
                    OutCall {
                        code,
                        out_len,
                        bytes: None,
                    }
                }
            }
        }
    }
}

/// The full output protocol for one reader: a size query, then the call `mode` picks,
/// then (when that was too small) a call with exactly the size it reported. Returns the
/// code of the size query (the output's status) and the bytes when read.
fn read_output(
    what: &str,
    mode: u8,
    extra: u8,
    f: &mut dyn FnMut(*mut u8, usize, *mut usize) -> u32,
) -> (u32, Option<Vec<u8>>) {
    let q = out_call(what, Cap::Query, f);
    let needed = if q.code == ELICIT_OK { q.out_len } else { 0 };
    let cap = cap_mode(mode, extra, needed);
    let c = out_call(what, cap, f);
    match cap {
        Cap::NullBuf(_) | Cap::NullLen => {
            assert_eq!(c.code, ELICIT_ERR_NULL, "{what} with {cap:?}");
            (q.code, None)
        }
        Cap::Query => {
            assert_eq!(
                (c.code, c.out_len),
                (q.code, q.out_len),
                "{what}: size queries differ"
            );
            (q.code, None)
        }
        Cap::Buf(n) => {
            if q.code != ELICIT_OK {
                assert_eq!(c.code, q.code, "{what}: cap {n} changed the error");
                return (q.code, None);
            }
            if n >= needed {
                assert_eq!(
                    c.code, ELICIT_OK,
                    "{what}: {needed} bytes did not fit cap {n}"
                );
                assert_eq!(
                    c.out_len, needed,
                    "{what}: size query said {needed}, wrote {}",
                    c.out_len
                );
                return (q.code, c.bytes);
            }
            assert_eq!(
                c.code, ELICIT_ERR_BUFFER_TOO_SMALL,
                "{what}: {needed} bytes fit cap {n}"
            );
            assert_eq!(
                c.out_len, needed,
                "{what}: too small reports {} not {needed}",
                c.out_len
            );
            // The size reported for the too-small buffer is the size then accepted.
            let again = out_call(what, Cap::Buf(c.out_len), f);
            assert_eq!(
                again.code, ELICIT_OK,
                "{what}: the reported size was refused"
            );
            assert_eq!(again.out_len, c.out_len);
            (q.code, again.bytes)
        }
    }
}

// --------------------------------------------------------------------- operations

const OUT_CODES: &[u32] = &[
    ELICIT_OK,
    ELICIT_ERR_NULL,
    ELICIT_ERR_BUFFER_TOO_SMALL,
    ELICIT_ERR_WRONG_STEP,
    ELICIT_ERR_RESOLVER_ANSWER,
    300,
    301,
    302,
    304,
    400,
    401,
    402,
    403,
    404,
    405,
];

fn with_extra(base: &[u32], extra: &[u32]) -> Vec<u32> {
    let mut v = base.to_vec();
    v.extend_from_slice(extra);
    v
}

impl World {
    fn text(&self, r: &mut Reader) -> Text {
        match r.u8() % 8 {
            0 => Text::Bytes(self.consts[r.u8() as usize % self.consts.len()].to_vec()),
            1 => {
                let n = r.u16() as usize;
                Text::Bytes(r.bytes(n).to_vec())
            }
            2 => {
                let mut t = self.consts[r.u8() as usize % self.consts.len()].to_vec();
                for _ in 0..(r.u8() % 4 + 1) {
                    let kind = r.u8();
                    let pos = r.u16() as usize % (t.len() + 1);
                    let val = r.u8();
                    match kind % 5 {
                        0 if pos < t.len() => t[pos] = val,
                        1 => t.insert(pos, val),
                        2 if pos < t.len() => {
                            t.remove(pos);
                        }
                        3 => t.truncate(pos),
                        // Duplicate a slice: nests and repeats structure.
                        _ => {
                            let end = (pos + val as usize).min(t.len());
                            let dup = t[pos..end].to_vec();
                            let at = pos.min(t.len());
                            t.splice(at..at, dup);
                        }
                    }
                }
                Text::Bytes(t)
            }
            3 => {
                let k = r.u8() as usize;
                match self.captured.len() {
                    0 => Text::Bytes(RICH_ARGS.as_bytes().to_vec()),
                    n => Text::Bytes(self.captured[n - 1 - k % n].clone()),
                }
            }
            4 => Text::Bytes(Vec::new()),
            5 => Text::Null(0),
            6 => Text::Null(r.u8() as usize + 1),
            _ => {
                let n = r.u8() as usize;
                Text::Bytes(r.bytes(n).to_vec())
            }
        }
    }

    fn capture(&mut self, bytes: &[u8]) {
        if self.captured.len() >= 16 {
            self.captured.remove(0);
        }
        self.captured.push(bytes.to_vec());
    }

    // ---------------------------------------------------------------- plans

    fn plan_new(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let text = self.text(r);
        let mode = r.u8();
        if self.compiled == MAX_PLANS {
            return;
        }
        self.compiled += 1;
        let null_out = mode & 0x20 != 0 && mode & 0x10 != 0;
        let mut err = ErrOut::new(mode);
        let mut out: *mut elicit_plan = UNSET as *mut elicit_plan;
        // SAFETY: text is valid for its length or NULL; err buffers are valid.
        let code = unsafe {
            elicit_plan_new(
                text.ptr().cast(),
                text.len(),
                if null_out { null_mut() } else { &mut out },
                err.buf().cast(),
                err.cap(),
                err.len(),
            )
        };
        let mut allowed = vec![ELICIT_OK, ELICIT_ERR_NULL, ELICIT_ERR_UTF8];
        allowed.extend(200..=208);
        check_code("elicit_plan_new", code, &allowed);
        err.check("elicit_plan_new", code);
        if null_out || text.is_null() {
            assert_eq!(code, ELICIT_ERR_NULL, "plan_new with a NULL argument");
        } else if !text.utf8() {
            assert_eq!(code, ELICIT_ERR_UTF8, "plan_new with non-UTF-8 text");
        }
        if code != ELICIT_OK {
            assert_eq!(out as usize, UNSET, "plan_new wrote *out on failure");
            return;
        }
        assert!(!out.is_null());
        let p = self.describe_plan(out);
        if let Some(old) = self.plans[slot].replace(p) {
            self.free_plan(old);
        }
    }

    /// Read a new plan's parameters through the ABI and check the plan queries agree.
    fn describe_plan(&self, plan: *mut elicit_plan) -> PlanSlot {
        let mut count = UNSET;
        // SAFETY: `plan` is live; every out-pointer is valid.
        unsafe {
            assert_eq!(elicit_plan_param_count(plan, &mut count), ELICIT_OK);
            assert!(count <= ELICIT_MAX_PARAMS, "{count} parameters");
        }
        // SAFETY: `plan` is live; `plan_text` passes a buffer of the size it gives.
        plan_text(|b, c, n| unsafe { elicit_plan_tool_name(plan, b, c, n) });
        let mut slot = PlanSlot {
            ptr: plan,
            names: vec![],
            elicited: vec![],
            resolver: vec![],
            kinds: vec![],
        };
        for i in 0..count {
            let (mut e, mut h) = (false, false);
            let mut index = UNSET;
            // SAFETY: as above; the name stays valid while the plan lives.
            unsafe {
                let s = plan_text(|b, c, n| elicit_plan_param_name(plan, i, b, c, n));
                let n = s.as_bytes();
                assert_eq!(
                    elicit_plan_param_index(plan, n.as_ptr().cast(), n.len(), &mut index),
                    ELICIT_OK
                );
                assert_eq!(index, i, "param_index(param_name({i}))");
                assert_eq!(elicit_plan_param_is_elicited(plan, i, &mut e), ELICIT_OK);
                assert_eq!(elicit_plan_param_has_resolver(plan, i, &mut h), ELICIT_OK);
                slot.names.push(s);
                let mut kind = UNSET as u32;
                let c = elicit_plan_param_kind(plan, i, &mut kind);
                if e {
                    assert_eq!(c, ELICIT_OK, "param_kind of elicited {i}");
                    assert!(kind <= ELICIT_KIND_ROOTS, "kind {kind}");
                    slot.kinds.push(Some(kind));
                } else {
                    assert_eq!(
                        (c, kind),
                        (ELICIT_ERR_INVALID_ARGUMENT, UNSET as u32),
                        "param_kind of argument {i}"
                    );
                    slot.kinds.push(None);
                }
            }
            slot.elicited.push(e);
            slot.resolver.push(h);
        }
        slot
    }

    fn free_plan(&mut self, p: PlanSlot) {
        for r in self.rounds.iter_mut().flatten() {
            if r.plan == Some(p.ptr) {
                r.plan = None;
            }
        }
        // SAFETY: a live handle, freed once (it left its slot).
        unsafe { elicit_plan_free(p.ptr) };
    }

    fn plan_free(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        match self.plans[slot].take() {
            Some(p) => self.free_plan(p),
            // SAFETY: NULL is accepted.
            None => unsafe { elicit_plan_free(null_mut()) },
        }
    }

    fn plan_ptr(&self, slot: usize) -> *mut elicit_plan {
        self.plans[slot].as_ref().map_or(null_mut(), |p| p.ptr)
    }

    fn plan_query(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let which = r.u8();
        let index = match r.u8() {
            b @ 0..=199 => b as usize % 70,
            b => usize::MAX - (b as usize - 200),
        };
        let null_out = which & 0x80 != 0;
        let plan = self.plan_ptr(slot);
        let count = self.plans[slot].as_ref().map_or(0, |p| p.names.len());
        let in_range = index < count;
        let mut name_len = UNSET;
        let mut flag = false;
        let mut out = UNSET;
        let mut kind = UNSET as u32;
        let nul = |b: bool| b && null_out;
        // SAFETY: `plan` is NULL or live; out-pointers are valid or NULL.
        let (code, allowed, expect): (u32, Vec<u32>, u32) = unsafe {
            match which % 7 {
                6 => {
                    let c = elicit_plan_param_kind(
                        plan,
                        index,
                        if nul(true) { null_mut() } else { &mut kind },
                    );
                    let known = self.plans[slot]
                        .as_ref()
                        .and_then(|p| p.kinds.get(index).copied());
                    if c == 0 {
                        assert_eq!(Some(kind), known.flatten());
                    }
                    let expect = match known {
                        None => 105,
                        Some(None) => 106,
                        Some(Some(_)) => 0,
                    };
                    (c, vec![0, 100, 105, 106], expect)
                }
                0 => {
                    // A size query (describe_plan reads the text itself).
                    let c = elicit_plan_tool_name(
                        plan,
                        null_mut(),
                        0,
                        if nul(true) { null_mut() } else { &mut name_len },
                    );
                    (c, vec![0, 100], 0)
                }
                1 => {
                    let c = elicit_plan_param_count(
                        plan,
                        if nul(true) { null_mut() } else { &mut out },
                    );
                    if c == 0 {
                        assert_eq!(out, count);
                    }
                    (c, vec![0, 100], 0)
                }
                2 => {
                    let c = elicit_plan_param_name(
                        plan,
                        index,
                        null_mut(),
                        0,
                        if nul(true) { null_mut() } else { &mut name_len },
                    );
                    (c, vec![0, 100, 105], if in_range { 0 } else { 105 })
                }
                3 => {
                    let t = self.text(r);
                    let c = elicit_plan_param_index(
                        plan,
                        t.ptr().cast(),
                        t.len(),
                        if nul(true) { null_mut() } else { &mut out },
                    );
                    let expect = if t.is_null() {
                        100
                    } else if !t.utf8() {
                        101
                    } else {
                        let s = std::str::from_utf8(t_bytes(&t)).unwrap();
                        match self.plans[slot]
                            .as_ref()
                            .and_then(|p| p.names.iter().position(|n| n == s))
                        {
                            Some(i) => {
                                if c == 0 {
                                    assert_eq!(out, i);
                                }
                                0
                            }
                            None => 107,
                        }
                    };
                    (c, vec![0, 100, 101, 107], expect)
                }
                4 => {
                    let c = elicit_plan_param_is_elicited(
                        plan,
                        index,
                        if nul(true) { null_mut() } else { &mut flag },
                    );
                    if c == 0 {
                        assert_eq!(flag, self.plans[slot].as_ref().unwrap().elicited[index]);
                    }
                    (c, vec![0, 100, 105], if in_range { 0 } else { 105 })
                }
                _ => {
                    let c = elicit_plan_param_has_resolver(
                        plan,
                        index,
                        if nul(true) { null_mut() } else { &mut flag },
                    );
                    if c == 0 {
                        assert_eq!(flag, self.plans[slot].as_ref().unwrap().resolver[index]);
                    }
                    (c, vec![0, 100, 105], if in_range { 0 } else { 105 })
                }
            }
        };
        check_code("plan query", code, &allowed);
        if plan.is_null() || null_out {
            assert_eq!(code, ELICIT_ERR_NULL, "plan query {} with NULL", which % 7);
        } else {
            assert_eq!(code, expect, "plan query {} index {index}", which % 7);
        }
        if code != ELICIT_OK {
            assert!(
                out == UNSET && !flag && kind == UNSET as u32,
                "out-param written on error"
            );
            if !null_out {
                assert_eq!(name_len, UNSET);
            }
        }
    }

    // --------------------------------------------------------------- rounds

    fn workspace(r: &mut Reader) -> (usize, bool) {
        let b = r.u8();
        match b % 6 {
            0 => (0, false),
            1 => (r.u8() as usize + 1, false),
            2 => (1 << 12, false),
            3 => (1 << 16, false),
            // Sizes no allocation can hold: ELICIT_ERR_TOO_LARGE without allocating.
            4 => (usize::MAX - r.u8() as usize, true),
            _ => (isize::MAX as usize + 1 + r.u8() as usize, true),
        }
    }

    fn round_new(&mut self, r: &mut Reader, handshake: bool) {
        let rslot = r.u8() as usize % SLOTS;
        let pslot = r.u8() as usize % SLOTS;
        let args = self.text(r);
        let (state, replies) = if handshake {
            (Text::Null(0), Text::Null(0))
        } else {
            (self.text(r), self.text(r))
        };
        let caps = self.text(r);
        let (ws, huge) = Self::workspace(r);
        let mode = r.u8();
        let null_out = mode & 0x30 == 0x30;
        let mut err = ErrOut::new(mode);
        let plan = self.plan_ptr(pslot);
        let mut out: *mut elicit_round = UNSET as *mut elicit_round;
        let outp = if null_out {
            null_mut()
        } else {
            &mut out as *mut _
        };
        // SAFETY: texts valid for their lengths or NULL; `plan` NULL or live.
        let code = unsafe {
            if handshake {
                elicit_round_new_handshake(
                    plan,
                    &elicit_round_input::new(
                        (args.ptr().cast(), args.len()),
                        (null(), 0),
                        (null(), 0),
                        (caps.ptr().cast(), caps.len()),
                    ),
                    ws,
                    outp,
                    err.buf().cast(),
                    err.cap(),
                    err.len(),
                )
            } else {
                elicit_round_new_modern(
                    plan,
                    &elicit_round_input::new(
                        (args.ptr().cast(), args.len()),
                        (state.ptr().cast(), state.len()),
                        (replies.ptr().cast(), replies.len()),
                        (caps.ptr().cast(), caps.len()),
                    ),
                    ws,
                    outp,
                    err.buf().cast(),
                    err.cap(),
                    err.len(),
                )
            }
        };
        let what = if handshake {
            "elicit_round_new_handshake"
        } else {
            "elicit_round_new_modern"
        };
        check_code(what, code, &[0, 100, 101, 106, 108, 300, 302]);
        err.check(what, code);
        let opt_null = |t: &Text| matches!(t, Text::Null(n) if *n != 0);
        let any_null = plan.is_null()
            || null_out
            || args.is_null()
            || opt_null(&state)
            || opt_null(&replies)
            || opt_null(&caps);
        let bad_utf8 = |t: &Text| matches!(t, Text::Bytes(b) if std::str::from_utf8(b).is_err());
        let any_bad_utf8 = [&args, &state, &replies, &caps].iter().any(|t| bad_utf8(t));
        if any_null {
            assert_eq!(code, ELICIT_ERR_NULL, "{what} with a NULL argument");
        } else if any_bad_utf8 {
            // Every text of the input is read before the round's memory is sized.
            assert_eq!(code, ELICIT_ERR_UTF8, "{what} with non-UTF-8 text");
        } else if huge {
            assert_eq!(code, ELICIT_ERR_TOO_LARGE, "{what} with workspace {ws}");
        }
        if handshake {
            assert_ne!(code, ELICIT_ERR_INPUT_RESPONSES);
        }
        if code != ELICIT_OK {
            assert_eq!(out as usize, UNSET, "{what} wrote *out on failure");
            return;
        }
        let p = self.plans[pslot]
            .as_ref()
            .expect("a round from a live plan");
        let round = RoundSlot {
            ptr: out,
            handshake,
            names: p.names.clone(),
            elicited: p.elicited.clone(),
            resolver: p.resolver.clone(),
            kinds: p.kinds.clone(),
            plan: Some(p.ptr),
            arguments: t_bytes(&args).to_vec(),
            caps: (!caps.is_null()).then(|| t_bytes(&caps).to_vec()),
            step: None,
            failed: None,
            notes: 0,
            seen: vec![],
        };
        if let Some(old) = self.rounds[rslot].replace(round) {
            // SAFETY: a live handle, freed once.
            unsafe { elicit_round_free(old.ptr) };
        }
    }

    fn round_free(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let ptr = self.rounds[slot].take().map_or(null_mut(), |x| x.ptr);
        // SAFETY: a live handle (freed once: it left its slot) or NULL.
        unsafe { elicit_round_free(ptr) };
    }

    fn round_ptr(&self, slot: usize) -> *mut elicit_round {
        self.rounds[slot].as_ref().map_or(null_mut(), |x| x.ptr)
    }

    /// Poll and check: idempotent while nothing happened, steps fit the era and plan,
    /// failures are sticky.
    fn poll(&mut self, slot: usize, nulls: u8) -> u32 {
        let ptr = self.round_ptr(slot);
        let (mut step, mut param) = (UNSET as u32, UNSET);
        let sp = if nulls & 1 != 0 {
            null_mut()
        } else {
            &mut step as *mut u32
        };
        let pp = if nulls & 2 != 0 {
            null_mut()
        } else {
            &mut param as *mut usize
        };
        // SAFETY: NULL or live round; out-pointers valid or NULL.
        let code = unsafe { elicit_round_poll(ptr, sp, pp) };
        let allowed = with_extra(
            &[0, 100, 109],
            &[300, 301, 302, 304, 400, 401, 402, 403, 404, 405],
        );
        check_code("elicit_round_poll", code, &allowed);
        if code != ELICIT_OK {
            assert_eq!(
                (step, param),
                (UNSET as u32, UNSET),
                "poll wrote out-params on {code}"
            );
        }
        let Some(x) = self.rounds[slot].as_mut() else {
            assert_eq!(code, ELICIT_ERR_NULL);
            return code;
        };
        if nulls & 3 != 0 {
            assert_eq!(code, ELICIT_ERR_NULL, "poll with NULL out-params");
            self.after_error(slot, code);
            return code;
        }
        if let Some(f) = x.failed {
            assert_eq!(code, f, "a failed round polls its failure");
            return code;
        }
        if code != ELICIT_OK {
            assert!(is_sticky(code), "poll failed with {code}");
            assert!(
                x.step.is_none(),
                "poll gave {:?}, then failed with {code}",
                x.step
            );
            x.failed = Some(code);
            x.step = None;
            self.after_error(slot, code);
            return code;
        }
        let n = x.names.len();
        match step {
            ELICIT_STEP_RESOLVE => {
                assert!(param < n && x.resolver[param], "Resolve for {param}");
            }
            ELICIT_STEP_ASK => {
                assert!(x.handshake, "Ask in the modern era");
                assert!(param < n && x.elicited[param], "Ask for {param}");
            }
            ELICIT_STEP_DONE => assert_eq!(param, ELICIT_NO_PARAM),
            ELICIT_STEP_INPUT_REQUIRED => {
                assert!(!x.handshake, "InputRequired in the handshake era");
                assert_eq!(param, ELICIT_NO_PARAM);
            }
            s => panic!("poll gave step {s}"),
        }
        if let Some(prev) = x.step {
            assert_eq!(prev, (step, param), "poll is idempotent");
        } else {
            x.seen.clear();
        }
        x.step = Some((step, param));
        if trace() {
            eprintln!("  step {step} param {param}");
        }
        code
    }

    /// After a failed call on a live round: the message is recorded, notes are kept.
    fn after_error(&mut self, slot: usize, code: u32) {
        let Some(x) = self.rounds[slot].as_mut() else {
            return;
        };
        let ptr = x.ptr;
        let mut f = |b: *mut u8, c: usize, n: *mut usize| unsafe {
            elicit_round_last_error(ptr, b.cast(), c, n)
        };
        let (c, bytes) = read_output("elicit_round_last_error", 5, 0, &mut f);
        assert_eq!(c, ELICIT_OK);
        let m = check_message("last_error", &bytes.unwrap_or_default());
        assert!(
            !m.is_empty(),
            "call failed with {code} but last_error is empty"
        );
    }

    /// Read one output of a round with the buffer sizes `mode` picks; check the code
    /// against the step and the bytes against the promised format.
    fn output(&mut self, slot: usize, which: u8, arg: u8, mode: u8, extra: u8) {
        let ptr = self.round_ptr(slot);
        let which = which % 9;
        let n_params = self.rounds[slot].as_ref().map_or(0, |x| x.names.len());
        let index = if arg < 200 {
            arg as usize % (n_params + 2)
        } else {
            usize::MAX - (arg as usize - 200)
        };
        let flags = if arg & 0x80 != 0 {
            arg as u32
        } else {
            arg as u32 & ELICIT_REQUESTS_CLIENT_VIEW
        };
        let (what, wants, mut f): (&str, Option<u32>, OutFn) = match which {
            // SAFETY (all arms): NULL or live round; buffers valid for their cap.
            0 => (
                "resolve_inputs",
                Some(ELICIT_STEP_RESOLVE),
                Box::new(move |b, c, n| unsafe {
                    elicit_round_resolve_inputs(ptr, b.cast(), c, n)
                }),
            ),
            1 => (
                "ask",
                Some(ELICIT_STEP_ASK),
                Box::new(move |b, c, n| unsafe { elicit_round_ask(ptr, b.cast(), c, n) }),
            ),
            2 => (
                "values",
                Some(ELICIT_STEP_DONE),
                Box::new(move |b, c, n| unsafe { elicit_round_values(ptr, b.cast(), c, n) }),
            ),
            3 => (
                "value_of",
                Some(ELICIT_STEP_DONE),
                Box::new(move |b, c, n| unsafe {
                    elicit_round_value_of(ptr, index, b.cast(), c, n)
                }),
            ),
            4 => (
                "input_requests",
                Some(ELICIT_STEP_INPUT_REQUIRED),
                Box::new(move |b, c, n| unsafe {
                    elicit_round_input_requests(ptr, flags, b.cast(), c, n)
                }),
            ),
            5 => (
                "request_state",
                Some(ELICIT_STEP_INPUT_REQUIRED),
                Box::new(move |b, c, n| unsafe { elicit_round_request_state(ptr, b.cast(), c, n) }),
            ),
            6 => (
                "last_error",
                None,
                Box::new(move |b, c, n| unsafe { elicit_round_last_error(ptr, b.cast(), c, n) }),
            ),
            7 => (
                "required_capabilities",
                None,
                Box::new(move |b, c, n| unsafe {
                    elicit_round_required_capabilities(ptr, b.cast(), c, n)
                }),
            ),
            _ => {
                self.note(slot, arg, mode, extra);
                return;
            }
        };
        let (code, bytes) = read_output(what, mode, extra, &mut *f);
        drop(f);
        let mut allowed = OUT_CODES.to_vec();
        if which == 3 {
            allowed.push(ELICIT_ERR_INDEX);
        }
        if which == 4 {
            allowed.push(ELICIT_ERR_INVALID_ARGUMENT);
        }
        check_code(what, code, &allowed);
        let Some(x) = self.rounds[slot].as_mut() else {
            assert_eq!(code, ELICIT_ERR_NULL, "{what} on NULL");
            return;
        };
        if which == 6 {
            assert_eq!(code, ELICIT_OK);
            let m = check_message("last_error", &bytes.unwrap_or_default());
            let _ = m;
            return;
        }
        if which == 7 {
            // Only a round that failed with ELICIT_ERR_MISSING_CAPABILITY has them.
            if x.failed == Some(ELICIT_ERR_MISSING_CAPABILITY) {
                assert_eq!(code, ELICIT_OK, "required_capabilities after 304");
                if let Some(b) = bytes {
                    check_json(what, &b);
                    assert!(b.starts_with(b"{") && b.len() > 2, "nothing required");
                }
            } else {
                assert_eq!(code, ELICIT_ERR_WRONG_STEP, "{what} without a 304 failure");
            }
            return;
        }
        let bad_arg = if which == 3 && index >= n_params {
            Some(ELICIT_ERR_INDEX)
        } else if which == 4 && flags & !ELICIT_REQUESTS_CLIENT_VIEW != 0 {
            Some(ELICIT_ERR_INVALID_ARGUMENT)
        } else {
            None
        };
        if let Some(b) = bad_arg {
            assert_eq!(code, b, "{what} with index {index} flags {flags:#x}");
        } else if let Some(f) = x.failed {
            assert_eq!(code, f, "{what} on a round failed with {f}");
        } else if let Some((step, _)) = x.step {
            let expect = if Some(step) == wants {
                ELICIT_OK
            } else {
                ELICIT_ERR_WRONG_STEP
            };
            assert_eq!(code, expect, "{what} at step {step}");
        } else {
            assert!(
                code == ELICIT_OK || code == ELICIT_ERR_WRONG_STEP,
                "{what}: {code} before a poll"
            );
        }
        if code != ELICIT_OK {
            return;
        }
        let Some(bytes) = bytes else { return };
        check_json(what, &bytes);
        if which == 5 {
            assert!(bytes.is_ascii(), "request_state is not ASCII");
        }
        // Every read in one step gives the same bytes.
        let key = (
            which as u32,
            if which == 3 { index } else { flags as usize },
        );
        if x.step.is_some() {
            match x.seen.iter().find(|s| (s.0, s.1) == key) {
                Some(s) => assert_eq!(s.2, bytes, "{what} changed between reads"),
                None => x.seen.push((key.0, key.1, bytes.clone())),
            }
        }
        if which == 5 {
            self.state_round_trip(slot, &bytes);
        }
        if matches!(which, 1 | 2 | 4 | 5) {
            self.capture(&bytes);
        }
    }

    /// A request state the round wrote starts a new round of the same plan with the
    /// same arguments.
    fn state_round_trip(&mut self, slot: usize, state: &[u8]) {
        let x = self.rounds[slot].as_ref().unwrap();
        let Some(plan) = x.plan else { return };
        let mut out = null_mut();
        let mut err = ErrOut::new(2);
        let (caps, caps_len) = opt_bytes(&x.caps);
        // SAFETY: live plan, valid buffers; the new round is freed right away.
        unsafe {
            let code = elicit_round_new_modern(
                plan,
                &elicit_round_input::new(
                    (x.arguments.as_ptr().cast(), x.arguments.len()),
                    (state.as_ptr().cast(), state.len()),
                    (null(), 0),
                    (caps.cast(), caps_len),
                ),
                0,
                &mut out,
                err.buf().cast(),
                err.cap(),
                err.len(),
            );
            assert_eq!(
                code,
                ELICIT_OK,
                "a written state did not start a round: {:?}",
                String::from_utf8_lossy(&err.buf[..err.len.min(err.cap)])
            );
            let (mut s, mut p) = (0u32, 0usize);
            let c = elicit_round_poll(out, &mut s, &mut p);
            assert!(
                c == ELICIT_OK || is_sticky(c),
                "poll after a round trip: {c}"
            );
            elicit_round_free(out);
        }
    }

    fn note(&mut self, slot: usize, arg: u8, mode: u8, extra: u8) {
        let ptr = self.round_ptr(slot);
        let mut count = UNSET;
        let null_count = mode & 0x80 != 0 && extra & 1 != 0;
        // SAFETY: NULL or live round; `count` valid or NULL.
        let c = unsafe {
            elicit_round_note_count(ptr, if null_count { null_mut() } else { &mut count })
        };
        check_code("elicit_round_note_count", c, &[0, 100]);
        let Some(x) = self.rounds[slot].as_mut() else {
            assert_eq!(c, ELICIT_ERR_NULL);
            return;
        };
        if null_count {
            assert_eq!((c, count), (ELICIT_ERR_NULL, UNSET));
            return;
        }
        // Notes are available in every state, failed rounds included; they only grow.
        assert_eq!(c, ELICIT_OK, "note_count");
        assert!(count >= x.notes, "notes went from {} to {count}", x.notes);
        x.notes = count;
        let n_params = x.names.len();
        let index = if arg < 250 {
            arg as usize % (count + 2)
        } else {
            usize::MAX - (arg as usize - 250)
        };
        let (mut level, mut param) = (UNSET as u32, UNSET);
        let nulls = if mode & 0x40 != 0 { extra >> 6 } else { 0 };
        let lp = if nulls & 1 != 0 {
            null_mut()
        } else {
            &mut level as *mut u32
        };
        let pp = if nulls & 2 != 0 {
            null_mut()
        } else {
            &mut param as *mut usize
        };
        let mut f = |b: *mut u8, c: usize, n: *mut usize| {
            // SAFETY: live round; pointers valid or NULL.
            unsafe { elicit_round_note(ptr, index, lp, pp, b.cast(), c, n) }
        };
        let (code, bytes) = read_output("elicit_round_note", mode, extra, &mut f);
        check_code("elicit_round_note", code, &[0, 100, 102, 105]);
        if nulls != 0 {
            assert_eq!(code, ELICIT_ERR_NULL);
        } else if index >= count {
            assert_eq!(code, ELICIT_ERR_INDEX, "note {index} of {count}");
        } else {
            assert_eq!(code, ELICIT_OK);
        }
        if code != ELICIT_OK || bytes.is_none() {
            if code != ELICIT_OK {
                assert_eq!(
                    (level, param),
                    (UNSET as u32, UNSET),
                    "note wrote out-params on {code}"
                );
            }
            return;
        }
        check_message("note", &bytes.unwrap());
        assert!(
            level == ELICIT_NOTE_DEBUG || level == ELICIT_NOTE_INFO,
            "note level {level}"
        );
        assert!(param < n_params, "note about parameter {param}");
    }

    /// Hand the round an answer (resolve_value/question/failed, answer) and check the
    /// code against the step; after an error, poll to see it either failed the round
    /// for good or changed nothing.
    fn answer(&mut self, slot: usize, which: u8, text: Text) {
        let ptr = self.round_ptr(slot);
        let which = which % 4;
        // SAFETY: NULL or live round; text valid for its length or NULL.
        let code = unsafe {
            match which {
                0 => elicit_round_resolve_value(ptr, text.ptr().cast(), text.len()),
                1 => elicit_round_resolve_question(ptr, text.ptr().cast(), text.len()),
                2 => elicit_round_resolve_failed(ptr, text.ptr().cast(), text.len()),
                _ => elicit_round_answer(ptr, text.ptr().cast(), text.len()),
            }
        };
        let what = [
            "resolve_value",
            "resolve_question",
            "resolve_failed",
            "answer",
        ][which as usize];
        let mut allowed = vec![
            0, 100, 101, 103, 104, 109, 300, 301, 302, 304, 400, 401, 402, 403, 404, 405,
        ];
        if which == 2 {
            allowed.retain(|&c| c != 0 && c != 104);
        }
        check_code(what, code, &allowed);
        let Some(x) = self.rounds[slot].as_mut() else {
            assert_eq!(code, ELICIT_ERR_NULL);
            return;
        };
        if text.is_null() {
            assert_eq!(code, ELICIT_ERR_NULL, "{what} with NULL text");
        } else if !text.utf8() {
            assert_eq!(code, ELICIT_ERR_UTF8, "{what} with non-UTF-8 text");
        } else if let Some(f) = x.failed {
            assert_eq!(code, f, "{what} on a round failed with {f}");
            return;
        } else if let Some((step, _)) = x.step {
            let right = if which == 3 {
                ELICIT_STEP_ASK
            } else {
                ELICIT_STEP_RESOLVE
            };
            if step != right {
                assert_eq!(code, ELICIT_ERR_WRONG_STEP, "{what} at step {step}");
            } else {
                assert_ne!(code, ELICIT_ERR_WRONG_STEP, "{what} at its step");
                match which {
                    0 => assert!([0, 104, 109].contains(&code), "{what}: {code}"),
                    2 => assert_eq!(code, ELICIT_ERR_RESOLVER_DEPENDENCY),
                    3 => assert!(
                        code == 0 || code == 104 || is_round_failure(code),
                        "{what}: {code}"
                    ),
                    _ => {}
                }
            }
        } else {
            // Not polled since the last change: a poll is expected, except that a
            // handshake resolve_question may have moved the round to its Ask step.
            let ok = code == ELICIT_OK
                || code == ELICIT_ERR_WRONG_STEP
                || (which == 1 && code == ELICIT_ERR_MISSING_CAPABILITY)
                || (which == 3 && (code == ELICIT_ERR_WORKSPACE_FULL || is_round_failure(code)));
            assert!(ok, "{what} before a poll: {code}");
        }
        if code == ELICIT_OK {
            x.step = None;
            x.seen.clear();
            return;
        }
        let before = x.step;
        let contract = text.is_null() || !text.utf8();
        self.after_error(slot, code);
        if contract {
            return;
        }
        let x = self.rounds[slot].as_mut().unwrap();
        if (300..=405).contains(&code) {
            // The round failed for good: poll (and everything else) says so from now on.
            x.failed = Some(code);
            x.step = None;
            self.poll(slot, 0);
        } else if code == ELICIT_ERR_RESOLVER_ANSWER && which == 1 {
            // A bad question may or may not have failed the round: poll tells which.
            x.step = None;
            let p = self.poll(slot, 0);
            let x = self.rounds[slot].as_ref().unwrap();
            if p == ELICIT_OK {
                if before.is_some() {
                    assert_eq!(
                        x.step, before,
                        "{what} refused with {code} yet changed the step"
                    );
                }
            } else {
                assert_eq!(p, code, "{what} refused with {code}, then poll gave {p}");
            }
        } else if before.is_some() {
            // Refused (wrong step, workspace full, bad value): nothing changed.
            assert_eq!(
                self.poll(slot, 0),
                ELICIT_OK,
                "{what} refused with {code}: poll"
            );
        }
    }

    /// What a reasonable host does at the current step, `k` times.
    fn host(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let k = r.u8() as usize % 8 + 1;
        // Read every choice up front, so the ops after this one do not depend on how
        // many steps the round took.
        let choices = r.bytes(k).to_vec();
        for j in 0..k {
            if self.rounds[slot].is_none() || self.poll(slot, 0) != ELICIT_OK {
                return;
            }
            let x = self.rounds[slot].as_ref().unwrap();
            let (step, param) = x.step.unwrap();
            let kind = x.kinds.get(param).copied().flatten();
            let choice = choices.get(j).copied().unwrap_or(0);
            match step {
                ELICIT_STEP_RESOLVE => {
                    self.output(slot, 0, 0, 5, 0);
                    let text = match (choice % 4, kind) {
                        (0, _) => r#""CDG""#.to_string(),
                        (1 | 2, Some(ELICIT_KIND_URL)) => {
                            format!(
                                r#"{{"message":"Sign in","url":"https://id.example/{choice}"}}"#
                            )
                        }
                        (1 | 2, Some(ELICIT_KIND_SAMPLING)) => format!(
                            r#"{{"sampling":{{"messages":[{{"role":"user","content":{{"type":"text","text":"{choice}"}}}}],"maxTokens":9}}}}"#
                        ),
                        (1 | 2, Some(ELICIT_KIND_ROOTS)) => r#"{"roots":{}}"#.to_string(),
                        (1, _) => r#"{"message":"Which airport?"}"#.to_string(),
                        (2, _) => {
                            format!(r#"{{"message":"Pick {choice}","type":{{"enum":["a","b"]}}}}"#)
                        }
                        _ => "true".to_string(),
                    };
                    let which = if choice % 4 == 1 || choice % 4 == 2 {
                        1
                    } else {
                        0
                    };
                    self.answer(slot, which, Text::Bytes(text.into_bytes()));
                }
                ELICIT_STEP_ASK => {
                    self.output(slot, 1, 0, 5, 0);
                    let text = match (choice % 8, kind) {
                        (0, _) => r#"{"action":"decline"}"#.to_string(),
                        (1, _) => r#"{"action":"cancel"}"#.to_string(),
                        (_, Some(ELICIT_KIND_URL)) => r#"{"action":"accept"}"#.to_string(),
                        (_, Some(ELICIT_KIND_SAMPLING)) => CREATE_MESSAGE_RESULT.to_string(),
                        (_, Some(ELICIT_KIND_ROOTS)) => LIST_ROOTS_RESULT.to_string(),
                        _ => format!(
                            r#"{{"action":"accept","content":{}}}"#,
                            CONTENTS[choice as usize / 8 % CONTENTS.len()]
                        ),
                    };
                    self.answer(slot, 3, Text::Bytes(text.into_bytes()));
                }
                ELICIT_STEP_DONE => {
                    self.output(slot, 2, 0, 5, 0);
                    return;
                }
                _ => {
                    self.output(slot, 4, choice & 1, 5, 0);
                    self.output(slot, 5, 0, 5, 0);
                    return;
                }
            }
        }
    }

    /// Modern era: from InputRequired, the next round of the call: same arguments, the
    /// state it wrote, and replies to the elicited parameters.
    fn next_round(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let to = r.u8() as usize % SLOTS;
        let pick = r.u8();
        let choices = r.bytes(16).to_vec();
        if self.rounds[slot].is_none() || self.poll(slot, 0) != ELICIT_OK {
            return;
        }
        let x = self.rounds[slot].as_ref().unwrap();
        if x.step.map(|s| s.0) != Some(ELICIT_STEP_INPUT_REQUIRED) {
            return;
        }
        let Some(plan) = x.plan else { return };
        let ptr = x.ptr;
        let mut f = |b: *mut u8, c: usize, n: *mut usize| unsafe {
            elicit_round_request_state(ptr, b.cast(), c, n)
        };
        let (_, state) = read_output("request_state", 5, 0, &mut f);
        let state = state.expect("request state at InputRequired");
        let mut replies = String::from("{");
        for (i, name) in x.names.iter().enumerate() {
            if !x.elicited[i] {
                continue;
            }
            let c = choices.get(i % 16).copied().unwrap_or(0) ^ (i / 16) as u8;
            if c & 0x80 != 0 {
                continue;
            }
            if replies.len() > 1 {
                replies.push(',');
            }
            replies.push_str(&json_string(name));
            replies.push(':');
            match (c % 8, x.kinds.get(i).copied().flatten()) {
                (0, _) => replies.push_str(r#"{"action":"decline"}"#),
                (1, _) => replies.push_str(r#"{"action":"cancel"}"#),
                (_, Some(ELICIT_KIND_URL)) => replies.push_str(r#"{"action":"accept"}"#),
                (_, Some(ELICIT_KIND_SAMPLING)) => replies.push_str(CREATE_MESSAGE_RESULT),
                (_, Some(ELICIT_KIND_ROOTS)) => replies.push_str(LIST_ROOTS_RESULT),
                _ => {
                    replies.push_str(r#"{"action":"accept","content":"#);
                    replies.push_str(CONTENTS[(c as usize + pick as usize) % CONTENTS.len()]);
                    replies.push('}');
                }
            }
        }
        replies.push('}');
        let mut out = null_mut();
        let args = x.arguments.clone();
        let (caps, caps_len) = opt_bytes(&x.caps);
        // SAFETY: live plan; valid buffers.
        let code = unsafe {
            elicit_round_new_modern(
                plan,
                &elicit_round_input::new(
                    (args.as_ptr().cast(), args.len()),
                    (state.as_ptr().cast(), state.len()),
                    (replies.as_ptr().cast(), replies.len()),
                    (caps.cast(), caps_len),
                ),
                0,
                &mut out,
                null_mut(),
                0,
                null_mut(),
            )
        };
        assert_eq!(code, ELICIT_OK, "next round refused {replies}");
        if code != ELICIT_OK {
            return;
        }
        let mut round = RoundSlot {
            ptr: out,
            handshake: false,
            names: x.names.clone(),
            elicited: x.elicited.clone(),
            resolver: x.resolver.clone(),
            kinds: x.kinds.clone(),
            plan: Some(plan),
            arguments: args,
            caps: x.caps.clone(),
            step: None,
            failed: None,
            notes: 0,
            seen: vec![],
        };
        if let Some(old) = self.rounds[to].take() {
            // SAFETY: a live handle, freed once.
            unsafe { elicit_round_free(old.ptr) };
        }
        round.seen.clear();
        self.rounds[to] = Some(round);
        self.capture(&state);
        self.capture(replies.as_bytes());
    }

    fn result_str(&mut self, r: &mut Reader) {
        let code = match r.u8() % 3 {
            0 => r.u16() as u32 % 1000,
            1 => u32::from_le_bytes([r.u8(), r.u8(), r.u8(), r.u8()]),
            _ => HEADER_CODES[r.u8() as usize % HEADER_CODES.len()].0,
        };
        // SAFETY: always callable; the result is a static C string.
        let s = unsafe { std::ffi::CStr::from_ptr(elicit_result_str(code)) };
        let s = s.to_str().expect("result_str UTF-8");
        let known = HEADER_CODES
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, n)| *n);
        assert_eq!(
            s.starts_with("ELICIT_"),
            known.is_some(),
            "result_str({code}) = {s}"
        );
        // SAFETY: always callable; the result is a static C string.
        let name = unsafe { std::ffi::CStr::from_ptr(elicit_result_name(code)) };
        let name = name.to_str().expect("result_name UTF-8");
        if let Some(defined) = known {
            assert_eq!(name, defined, "result_name({code}) against the header");
            assert!(s.starts_with(&format!("{name}: ")), "{name} / {s}");
        } else {
            assert_eq!(s, "unknown elicit_result code");
            assert_eq!(name, "ELICIT_ERR_UNKNOWN");
        }
        assert_eq!(elicit_abi_version(), ELICIT_ABI_VERSION);
    }

    fn release_all(&mut self) {
        for x in self.rounds.iter_mut() {
            if let Some(x) = x.take() {
                // SAFETY: a live handle, freed once.
                unsafe { elicit_round_free(x.ptr) };
            }
        }
        for i in 0..SLOTS {
            if let Some(p) = self.plans[i].take() {
                self.free_plan(p);
            }
        }
    }
}

/// A plan's text (its tool's or a parameter's name) read under the output convention:
/// a size query, then a buffer of exactly the size reported; UTF-8.
fn plan_text(f: impl Fn(*mut std::ffi::c_char, usize, *mut usize) -> u32) -> String {
    let mut needed = UNSET;
    assert_eq!(f(null_mut(), 0, &mut needed), ELICIT_OK, "size query");
    let mut buf = vec![0u8; needed];
    let mut len = UNSET;
    assert_eq!(f(buf.as_mut_ptr().cast(), needed, &mut len), ELICIT_OK);
    assert_eq!(len, needed, "the size query's length");
    String::from_utf8(buf).expect("plan text UTF-8")
}

fn t_bytes(t: &Text) -> &[u8] {
    match t {
        Text::Bytes(b) => b,
        Text::Null(_) => &[],
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fuzz_target!(|data: &[u8]| {
    let mut w = World {
        consts: consts(),
        plans: Default::default(),
        rounds: Default::default(),
        captured: Vec::new(),
        compiled: 0,
    };
    let mut seal = SealWorld::default();
    let mut r = Reader { data, pos: 0 };
    let mut ops = 0;
    while !r.done() && ops < MAX_OPS {
        ops += 1;
        match r.u8() % 16 {
            // (14 and 15: sealing and the resolver helpers, at the end of this file.)
            14 => seal.op(&w, &mut r),
            15 => w.helpers(&mut r),
            0 => w.plan_new(&mut r),
            1 => w.plan_free(&mut r),
            2 => w.plan_query(&mut r),
            3 => w.round_new(&mut r, false),
            4 => w.round_new(&mut r, true),
            5 => w.round_free(&mut r),
            6 => {
                let slot = r.u8() as usize % SLOTS;
                let b = r.u8();
                w.poll(slot, if b >= 0xF0 { b & 3 } else { 0 });
            }
            7 => {
                let (slot, which, arg, mode, extra) =
                    (r.u8() as usize % SLOTS, r.u8(), r.u8(), r.u8(), r.u8());
                w.output(slot, which, arg, mode, extra);
            }
            8 => {
                let (slot, which) = (r.u8() as usize % SLOTS, r.u8());
                let text = w.text(&mut r);
                w.answer(slot, which, text);
            }
            9 => w.host(&mut r),
            10 => w.next_round(&mut r),
            11 => w.result_str(&mut r),
            12 => {
                let b = r.u8();
                let ptr = w.round_ptr(b as usize % SLOTS);
                let mut f = |bf: *mut u8, c: usize, n: *mut usize| unsafe {
                    elicit_round_last_error(ptr, bf.cast(), c, n)
                };
                let (code, bytes) = read_output("last_error", r.u8(), r.u8(), &mut f);
                if ptr.is_null() {
                    assert_eq!(code, ELICIT_ERR_NULL);
                } else {
                    assert_eq!(code, ELICIT_OK);
                    if let Some(b) = bytes {
                        check_message("last_error", &b);
                    }
                }
            }
            _ => {
                // Every output of one round in turn, at the exact size.
                let slot = r.u8() as usize % SLOTS;
                for which in 0..9 {
                    w.output(slot, which, 0, 5, 0);
                }
            }
        }
    }
    w.release_all();
    seal.release_all();
});

// ============================================================================
// Sealing (elicit_key_ring, elicit_sealer, elicit_os_*) and the resolver helpers
// (elicit_round_resolve_input*, elicit_round_resolve_question_text): opcodes 14 and
// 15. Kept apart from the round model above; SealWorld holds its own handles.

const SEAL_SLOTS: usize = 2;

#[derive(Default)]
struct SealWorld {
    rings: [Option<*mut elicit_key_ring>; SEAL_SLOTS],
    sealers: [Option<*mut elicit_sealer>; SEAL_SLOTS],
}

/// A static detail string from the library: valid UTF-8, non-empty.
fn check_detail(what: &str, detail: *const std::ffi::c_char) {
    assert!(!detail.is_null(), "{what}: failed without a detail");
    // SAFETY: the library hands out static NUL-terminated strings.
    let s = unsafe { std::ffi::CStr::from_ptr(detail) };
    assert!(
        !s.to_str().expect("detail UTF-8").is_empty(),
        "{what}: empty detail"
    );
}

fn time_of(r: &mut Reader) -> f64 {
    match r.u8() % 6 {
        0 => 1_780_000_000.5,
        1 => 0.0,
        2 => -1.0,
        3 => f64::NAN,
        4 => f64::INFINITY,
        _ => f64::from_le_bytes(std::array::from_fn(|_| r.u8())),
    }
}

/// `{"requestState":"<token>",` spliced into a params object text, when that is safe.
fn with_token(params: &[u8], token: &str) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(params).ok()?;
    let v = elicit_core::json::Value::parse(text).ok()?;
    if v.kind() != elicit_core::json::Kind::Object || text.contains("requestState") {
        return None;
    }
    let open = text.find('{')?;
    let rest = text[open + 1..].trim_start();
    let sep = if rest.starts_with('}') { "" } else { "," };
    Some(format!("{}{{\"requestState\":\"{token}\"{sep}{rest}", &text[..open]).into_bytes())
}

impl SealWorld {
    fn op(&mut self, w: &World, r: &mut Reader) {
        match r.u8() % 7 {
            0 => self.ring_new(w, r),
            1 => {
                let i = r.u8() as usize % SEAL_SLOTS;
                if let Some(p) = self.rings[i].take() {
                    // SAFETY: a live handle, freed once.
                    unsafe { elicit_key_ring_free(p) };
                }
            }
            2 => self.sealer_new(w, r),
            3 => {
                let i = r.u8() as usize % SEAL_SLOTS;
                if let Some(p) = self.sealers[i].take() {
                    // SAFETY: a live handle, freed once.
                    unsafe { elicit_sealer_free(p) };
                }
            }
            4 => self.seal(w, r),
            5 => self.unseal(w, r),
            _ => {
                let mut now = -7.0;
                // SAFETY: a valid out-parameter.
                assert_eq!(unsafe { elicit_os_time(&mut now) }, ELICIT_OK);
                assert!(now > 1.0e9, "os_time {now}");
                let n = r.u8() as usize % 40;
                let mut buf = vec![FILL; n + 4];
                // SAFETY: n writable bytes.
                assert_eq!(unsafe { elicit_os_random(buf.as_mut_ptr(), n) }, ELICIT_OK);
                assert!(buf[n..].iter().all(|&b| b == FILL), "os_random overrun");
                // SAFETY: NULL with a length is refused, with 0 accepted.
                assert_eq!(
                    unsafe { elicit_os_random(null_mut(), n + 1) },
                    ELICIT_ERR_NULL
                );
                assert_eq!(unsafe { elicit_os_random(null_mut(), 0) }, ELICIT_OK);
            }
        }
    }

    fn ring_new(&mut self, w: &World, r: &mut Reader) {
        let i = r.u8() as usize % SEAL_SLOTS;
        let count = r.u8() as usize % (ELICIT_MAX_KEYS + 2);
        let mode = r.u8();
        let keys: Vec<Text> = (0..count)
            .map(|k| {
                if mode & 1 == 0 {
                    Text::Bytes(vec![k as u8 + 1; 32 + k])
                } else {
                    w.text(r)
                }
            })
            .collect();
        let ptrs: Vec<*const u8> = keys.iter().map(Text::ptr).collect();
        let lens: Vec<usize> = keys.iter().map(Text::len).collect();
        let mut out: *mut elicit_key_ring = null_mut();
        let mut err = ErrOut::new(r.u8());
        let (kp, lp) = match mode >> 5 {
            0 => (null(), lens.as_ptr()),
            1 => (ptrs.as_ptr(), null()),
            _ => (ptrs.as_ptr(), lens.as_ptr()),
        };
        let out_ptr: *mut *mut elicit_key_ring = if mode & 0x10 != 0 {
            null_mut()
        } else {
            &mut out
        };
        // SAFETY: arrays of `count` entries (or NULL), each key valid for its length.
        let code = unsafe {
            elicit_key_ring_new(
                kp,
                lp,
                count,
                out_ptr,
                err.buf().cast(),
                err.cap(),
                err.len(),
            )
        };
        check_code("key_ring_new", code, &[0, 100, 106, 900]);
        err.check("key_ring_new", code);
        let valid = (1..=ELICIT_MAX_KEYS).contains(&count)
            && !kp.is_null()
            && !lp.is_null()
            && !out_ptr.is_null()
            && keys.iter().all(|k| !k.is_null() && k.len() >= 32)
            && (1..count).all(|a| (0..a).all(|b| t_bytes(&keys[a]) != t_bytes(&keys[b])));
        assert_eq!(
            code == ELICIT_OK,
            valid,
            "key_ring_new({count} keys) = {code}"
        );
        if code == ELICIT_OK {
            assert!(!out.is_null());
            if let Some(old) = self.rings[i].replace(out) {
                // SAFETY: a live handle, freed once.
                unsafe { elicit_key_ring_free(old) };
            }
        } else {
            assert!(out.is_null(), "key_ring_new wrote *out on failure");
        }
    }

    fn sealer_new(&mut self, w: &World, r: &mut Reader) {
        let i = r.u8() as usize % SEAL_SLOTS;
        let ring = self.rings[r.u8() as usize % SEAL_SLOTS].unwrap_or(null_mut());
        let audience = w.text(r);
        let ttl = match r.u8() % 5 {
            0 => 0.0,
            1 => 30.0,
            2 => -1.0,
            3 => f64::NAN,
            _ => time_of(r),
        };
        let mut out: *mut elicit_sealer = null_mut();
        let mut err = ErrOut::new(r.u8());
        // SAFETY: NULL or a live ring; the audience valid for its length or NULL.
        let code = unsafe {
            elicit_sealer_new(
                ring,
                audience.ptr().cast(),
                audience.len(),
                ttl,
                &mut out,
                err.buf().cast(),
                err.cap(),
                err.len(),
            )
        };
        check_code("sealer_new", code, &[0, 100, 101, 106, 900, 901]);
        err.check("sealer_new", code);
        let audience_ok = matches!(&audience, Text::Null(0)) || audience.utf8();
        let ttl_ok = ttl == 0.0 || (ttl.is_finite() && ttl > 0.0);
        assert_eq!(
            code == ELICIT_OK,
            !ring.is_null() && audience_ok && ttl_ok,
            "sealer_new = {code}"
        );
        if code == ELICIT_OK {
            if let Some(old) = self.sealers[i].replace(out) {
                // SAFETY: a live handle, freed once.
                unsafe { elicit_sealer_free(old) };
            }
        } else {
            assert!(out.is_null(), "sealer_new wrote *out on failure");
        }
    }

    fn seal(&mut self, w: &World, r: &mut Reader) {
        let sealer = self.sealers[r.u8() as usize % SEAL_SLOTS].unwrap_or(null_mut());
        let method = w.text(r);
        let params = w.text(r);
        let principal = w.text(r);
        let now = time_of(r);
        let random = if r.u8().is_multiple_of(4) {
            w.text(r)
        } else {
            Text::Bytes(r.bytes(ELICIT_SEAL_RANDOM_LEN).to_vec())
        };
        let state = w.text(r);
        let (mode, extra) = (r.u8(), r.u8());
        let mut f = |b: *mut u8, c: usize, n: *mut usize| {
            let mut detail: *const std::ffi::c_char = null();
            // SAFETY: NULL or a live sealer; every input valid for its length or NULL.
            let code = unsafe {
                elicit_sealer_seal(
                    sealer,
                    &elicit_request {
                        random: random.ptr(),
                        random_len: random.len(),
                        ..elicit_request::new(
                            (method.ptr().cast(), method.len()),
                            (params.ptr().cast(), params.len()),
                            (principal.ptr().cast(), principal.len()),
                            now,
                        )
                    },
                    state.ptr().cast(),
                    state.len(),
                    b.cast(),
                    c,
                    n,
                    &mut detail,
                )
            };
            if code == ELICIT_OK {
                assert!(detail.is_null(), "seal: detail written on success");
            } else {
                check_detail("seal", detail);
            }
            code
        };
        let (code, token) = read_output("sealer_seal", mode, extra, &mut f);
        check_code("sealer_seal", code, &[0, 100, 101, 102, 106, 108, 900, 901]);
        let Some(token) = token.filter(|_| code == ELICIT_OK) else {
            return;
        };
        let token = String::from_utf8(token).expect("token UTF-8");
        assert!(
            token.starts_with("v1.") && token.is_ascii(),
            "token {token}"
        );
        // The token opens for the same request, with the same state; a changed
        // character is the one rejection code.
        let Some(with) = with_token(t_bytes(&params), &token) else {
            return;
        };
        let open = |params: &[u8]| {
            let mut buf = vec![FILL; params.len() + 1];
            let (mut n, mut has, mut detail) = (UNSET, false, null());
            // SAFETY: a live sealer; valid buffers.
            let code = unsafe {
                elicit_sealer_unseal(
                    sealer,
                    &elicit_request::new(
                        (method.ptr().cast(), method.len()),
                        (params.as_ptr().cast(), params.len()),
                        (principal.ptr().cast(), principal.len()),
                        now,
                    ),
                    &mut has,
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    &mut n,
                    &mut detail,
                )
            };
            (code, has, buf[..n.min(buf.len())].to_vec(), detail)
        };
        let (code, has, out, _) = open(&with);
        assert_eq!((code, has), (ELICIT_OK, true), "unseal of a fresh token");
        assert_eq!(out, t_bytes(&state), "unseal gave another state");
        let at = 3 + extra as usize % (token.len() - 3);
        let mut bad = token.clone().into_bytes();
        bad[at] = if bad[at] == b'A' { b'B' } else { b'A' };
        let bad = String::from_utf8(bad).unwrap();
        let (code, _, _, detail) = open(&with_token(t_bytes(&params), &bad).unwrap());
        assert_eq!(
            code, ELICIT_ERR_REQUEST_STATE,
            "a changed token was accepted"
        );
        check_detail("unseal", detail);
    }

    fn unseal(&mut self, w: &World, r: &mut Reader) {
        let sealer = self.sealers[r.u8() as usize % SEAL_SLOTS].unwrap_or(null_mut());
        let method = w.text(r);
        let params = w.text(r);
        let principal = w.text(r);
        let now = time_of(r);
        let (mode, extra) = (r.u8(), r.u8());
        let mut has_states = Vec::new();
        let mut f = |b: *mut u8, c: usize, n: *mut usize| {
            let mut detail: *const std::ffi::c_char = null();
            let mut has = false;
            // SAFETY: NULL or a live sealer; every input valid for its length or NULL.
            let code = unsafe {
                elicit_sealer_unseal(
                    sealer,
                    &elicit_request::new(
                        (method.ptr().cast(), method.len()),
                        (params.ptr().cast(), params.len()),
                        (principal.ptr().cast(), principal.len()),
                        now,
                    ),
                    &mut has,
                    b.cast(),
                    c,
                    n,
                    &mut detail,
                )
            };
            if code == ELICIT_OK {
                assert!(detail.is_null(), "unseal: detail written on success");
                has_states.push(has);
            } else {
                assert!(!has, "unseal: has_state written on failure");
                check_detail("unseal", detail);
            }
            code
        };
        let (code, out) = read_output("sealer_unseal", mode, extra, &mut f);
        check_code(
            "sealer_unseal",
            code,
            &[0, 100, 101, 102, 106, 303, 900, 901],
        );
        if let Some(out) = out {
            std::str::from_utf8(&out).expect("unsealed state UTF-8");
            assert!(out.len() <= params.len(), "a state longer than its params");
        }
        assert!(
            has_states.windows(2).all(|p| p[0] == p[1]),
            "has_state differs"
        );
    }

    fn release_all(&mut self) {
        for p in self.rings.iter_mut().filter_map(Option::take) {
            // SAFETY: a live handle, freed once.
            unsafe { elicit_key_ring_free(p) };
        }
        for p in self.sealers.iter_mut().filter_map(Option::take) {
            // SAFETY: a live handle, freed once.
            unsafe { elicit_sealer_free(p) };
        }
    }
}

impl World {
    /// The helpers on a round: an input by name (JSON, text, integer, number,
    /// boolean) checked against the inputs object, or a question from plain text.
    fn helpers(&mut self, r: &mut Reader) {
        let slot = r.u8() as usize % SLOTS;
        let ptr = self.round_ptr(slot);
        let which = r.u8() % 6;
        let name = match r.u8() % 3 {
            0 => match self.rounds[slot].as_ref().filter(|x| !x.names.is_empty()) {
                Some(x) => Text::Bytes(
                    x.names[r.u8() as usize % x.names.len()]
                        .clone()
                        .into_bytes(),
                ),
                None => Text::Bytes(b"destination".to_vec()),
            },
            1 => self.text(r),
            _ => Text::Null(r.u8() as usize % 2),
        };
        if which == 5 {
            let (title, description) = (self.text(r), self.text(r));
            return self.question_text(slot, name, title, description);
        }
        let (mode, extra) = (r.u8(), r.u8());
        // The inputs object, when the round is at a Resolve step.
        let mut all = |b: *mut u8, c: usize, n: *mut usize| unsafe {
            elicit_round_resolve_inputs(ptr, b.cast(), c, n)
        };
        let inputs = if ptr.is_null() {
            None
        } else {
            read_output("resolve_inputs", 5, 0, &mut all).1
        };
        let member = inputs.as_deref().and_then(|i| {
            let text = std::str::from_utf8(i).ok()?;
            let v = elicit_core::json::Value::parse(text).ok()?;
            let name = std::str::from_utf8(t_bytes(&name)).ok()?;
            v.get(name).map(|m| m.raw().to_owned())
        });
        let allowed = with_extra(OUT_CODES, &[101, 107, 110]);
        let code = match which {
            0 | 1 => {
                let mut f = |b: *mut u8, c: usize, n: *mut usize| unsafe {
                    if which == 0 {
                        elicit_round_resolve_input(
                            ptr,
                            name.ptr().cast(),
                            name.len(),
                            b.cast(),
                            c,
                            n,
                        )
                    } else {
                        elicit_round_resolve_input_text(
                            ptr,
                            name.ptr().cast(),
                            name.len(),
                            b.cast(),
                            c,
                            n,
                        )
                    }
                };
                let (code, out) = read_output("resolve_input", mode, extra, &mut f);
                if let (Some(out), Some(m)) = (out, member.as_ref()) {
                    let out = String::from_utf8(out).expect("input UTF-8");
                    if which == 0 {
                        check_json("resolve_input", out.as_bytes());
                        assert_eq!(&out, m, "resolve_input differs from the inputs object");
                    } else {
                        let v = elicit_core::json::Value::parse(m).unwrap();
                        let s = v.as_str().expect("text of a non-string");
                        let decoded: String =
                            s.units().map(|u| char::from_u32(u).unwrap()).collect();
                        assert_eq!(out, decoded, "resolve_input_text differs");
                    }
                }
                code
            }
            _ => {
                let (mut i, mut d, mut b) = (7i64, 7.5f64, false);
                // SAFETY: NULL or a live round; name valid or NULL; valid out-params.
                let code = unsafe {
                    match which {
                        2 => elicit_round_resolve_input_int(
                            ptr,
                            name.ptr().cast(),
                            name.len(),
                            &mut i,
                        ),
                        3 => elicit_round_resolve_input_number(
                            ptr,
                            name.ptr().cast(),
                            name.len(),
                            &mut d,
                        ),
                        _ => elicit_round_resolve_input_bool(
                            ptr,
                            name.ptr().cast(),
                            name.len(),
                            &mut b,
                        ),
                    }
                };
                if code != ELICIT_OK {
                    assert!(
                        (i, d.to_bits(), b) == (7, 7.5f64.to_bits(), false),
                        "written on failure"
                    );
                } else if let Some(m) = member.as_ref() {
                    let v = elicit_core::json::Value::parse(m).unwrap();
                    match which {
                        2 => assert_eq!(m.parse::<f64>().ok(), Some(i as f64), "int {m} -> {i}"),
                        3 => assert!(v.as_number().is_some() && (d.is_finite() || m.len() > 300)),
                        _ => assert_eq!(v.as_bool(), Some(b)),
                    }
                }
                code
            }
        };
        check_code("resolve_input*", code, &allowed);
        if ptr.is_null() {
            assert_eq!(code, ELICIT_ERR_NULL);
        } else if code == ELICIT_OK {
            assert!(member.is_some(), "an input read outside its step or name");
        } else if code != ELICIT_ERR_BUFFER_TOO_SMALL {
            self.after_error(slot, code);
        }
    }

    fn question_text(&mut self, slot: usize, message: Text, title: Text, description: Text) {
        let ptr = self.round_ptr(slot);
        // SAFETY: NULL or a live round; each text valid for its length or NULL.
        let code = unsafe {
            elicit_round_resolve_question_text(
                ptr,
                message.ptr().cast(),
                message.len(),
                title.ptr().cast(),
                title.len(),
                description.ptr().cast(),
                description.len(),
            )
        };
        check_code(
            "resolve_question_text",
            code,
            &[
                0, 100, 101, 103, 104, 109, 300, 301, 302, 304, 400, 401, 402, 403, 404, 405,
            ],
        );
        let Some(x) = self.rounds[slot].as_mut() else {
            assert_eq!(code, ELICIT_ERR_NULL);
            return;
        };
        let optional_ok = |t: &Text| matches!(t, Text::Null(0)) || t.utf8();
        if !(message.utf8() && optional_ok(&title) && optional_ok(&description)) {
            assert!(
                code == ELICIT_ERR_NULL || code == ELICIT_ERR_UTF8,
                "contract: {code}"
            );
            self.after_error(slot, code);
            return;
        }
        if let Some(f) = x.failed {
            assert_eq!(code, f, "question_text on a round failed with {f}");
            return;
        }
        if let Some((step, _)) = x.step {
            assert_eq!(
                step != ELICIT_STEP_RESOLVE,
                code == ELICIT_ERR_WRONG_STEP,
                "question_text at step {step}: {code}"
            );
        }
        if code == ELICIT_OK {
            x.step = None;
            x.seen.clear();
            return;
        }
        let before = x.step;
        self.after_error(slot, code);
        let x = self.rounds[slot].as_mut().unwrap();
        if (300..=405).contains(&code) {
            x.failed = Some(code);
            x.step = None;
            self.poll(slot, 0);
        } else {
            x.step = None;
            let p = self.poll(slot, 0);
            if p == ELICIT_OK && before.is_some() && code != ELICIT_ERR_RESOLVER_ANSWER {
                assert_eq!(
                    self.rounds[slot].as_ref().unwrap().step,
                    before,
                    "refused yet moved"
                );
            }
        }
    }
}
