//! `elicit_round`: one round of one call.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use elicit_core::{Capabilities, Era, Inputs as RoundInputs, Round, Style};
use elicit_ffi_noalloc::abi;
use self_cell::MutBorrow;

use crate::plan::{elicit_plan, PlanInner};
use crate::{
    catch, check_out, construct, elicit_result, elicit_round_input, enter, out_param,
    read_last_error, utf8, write_text, Fail, Recorded, ELICIT_DEFAULT_WORKSPACE, ELICIT_ERR_INDEX,
    ELICIT_ERR_NULL, ELICIT_ERR_POISONED, ELICIT_ERR_TOO_LARGE, ELICIT_MAX_PARAMS,
};

// ------------------------------------------------------------------------ constants

/// Level of a note from `elicit_round_note`: worth a DEBUG log line.
pub const ELICIT_NOTE_DEBUG: u32 = 10;
/// Level of a note from `elicit_round_note`: worth an INFO log line.
pub const ELICIT_NOTE_INFO: u32 = 20;

// ------------------------------------------------------------------------- handle

/// The engine's round over the data of lifetime `'a` it borrows.
///
/// cbindgen:ignore
pub(crate) type Engine<'a> = Round<'a, 'a, ELICIT_MAX_PARAMS>;

/// What a round owns and its engine borrows: the plan (shared with its handle and other
/// rounds), one copy of the input texts, and the workspace.
pub(crate) struct RoundOwner {
    plan: Arc<PlanInner>,
    /// The arguments, the state and the responses, one after the other.
    texts: Box<str>,
    /// The lengths of the three in `texts`; `None` for an input not given.
    lens: [Option<usize>; 3],
    workspace: MutBorrow<Box<[u8]>>,
}

self_cell::self_cell!(
    /// The engine's round and what it borrows, freed together.
    pub(crate) struct RoundInner {
        owner: RoundOwner,
        #[covariant]
        dependent: Engine,
    }
);

/// One round of one tool call (opaque).
///
/// Create it with `elicit_round_new_modern` or `elicit_round_new_handshake`, drive it
/// with `elicit_round_poll` and the answer functions, read its outputs, and free it
/// with `elicit_round_free`. A round owns copies of the texts it was created from and
/// of everything the host hands it later; it refers to its plan by reference count, so
/// the plan may be freed first.
///
/// A round is used by one thread at a time (it may move between threads): a call that
/// enters a round while another thread is inside a call on it returns
/// `ELICIT_ERR_BUSY` and changes nothing, never a race. Every round function takes a
/// non-const pointer because a failing call records its message (see
/// `elicit_round_last_error`).
pub struct elicit_round {
    /// The round's state, entered by one call at a time: a second thread's `try_lock`
    /// fails and its call returns `ELICIT_ERR_BUSY` (it never waits: a host that shares a
    /// round between threads has a bug worth a code, not a hidden queue).
    state: Mutex<RoundState>,
}

// Several threads may call into one round at once (one gets in, the others get
// ELICIT_ERR_BUSY): the handle must be Sync, which its lock makes it when the state is
// Send (checked at compile time with the call level's handles, in call.rs).

/// What a round's calls read and change, behind its lock.
struct RoundState {
    inner: RoundInner,
    last_error: String,
    poisoned: bool,
}

impl RoundState {
    fn new(inner: RoundInner) -> Self {
        RoundState {
            inner,
            last_error: String::new(),
            poisoned: false,
        }
    }
}

impl Recorded for RoundState {
    fn record(&mut self) -> (&mut String, &mut bool) {
        (&mut self.last_error, &mut self.poisoned)
    }
}

/// Run `f` on a round's engine through [`enter`] (NULL, busy and poison checks, the
/// panic wrapper, the failure's message recorded).
///
/// # Safety
/// `round` must be NULL or a live handle.
pub(crate) unsafe fn with_round(
    round: *mut elicit_round,
    f: impl FnOnce(&mut Engine<'_>) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle; it is only read through a
    // shared reference, and its state only behind the lock.
    match unsafe { round.cast_const().as_ref() } {
        Some(h) => enter(&h.state, |state| {
            state.inner.with_dependent_mut(|_, engine| f(engine))
        }),
        None => ELICIT_ERR_NULL,
    }
}

/// The texts a new round copies.
pub(crate) struct Inputs<'i> {
    pub(crate) arguments: &'i [u8],
    pub(crate) request_state: Option<&'i [u8]>,
    pub(crate) input_responses: Option<&'i [u8]>,
    pub(crate) capabilities: Capabilities,
    pub(crate) workspace: usize,
}

fn new_round(plan: &elicit_plan, era: Era, inputs: Inputs<'_>) -> Result<RoundInner, Fail> {
    Ok(build_round(&plan.inner, era, inputs)??)
}

/// A round of `plan` over copies of `inputs`: the outer error is the ABI's (not UTF-8,
/// too large), the inner one the engine's refusal of the inputs (the call level turns
/// it into the request's reply).
pub(crate) fn build_round(
    plan: &Arc<PlanInner>,
    era: Era,
    inputs: Inputs<'_>,
) -> Result<Result<RoundInner, elicit_core::Error>, Fail> {
    let workspace = if inputs.workspace == 0 {
        ELICIT_DEFAULT_WORKSPACE
    } else {
        inputs.workspace
    };
    let lens = [
        Some(inputs.arguments.len()),
        inputs.request_state.map(<[u8]>::len),
        inputs.input_responses.map(<[u8]>::len),
    ];
    let too_large = || {
        Fail::owned(
            ELICIT_ERR_TOO_LARGE,
            format!(
                "cannot allocate the round's inputs ({} bytes) and workspace ({workspace} bytes)",
                lens.iter().flatten().sum::<usize>()
            ),
        )
    };
    let total = lens
        .iter()
        .flatten()
        .try_fold(workspace, |a, b| a.checked_add(*b))
        .filter(|t| *t <= isize::MAX as usize)
        .ok_or_else(too_large)?;
    let mut bytes: Vec<u8> = Vec::new();
    bytes
        .try_reserve_exact(total - workspace)
        .map_err(|_| too_large())?;
    let mut space: Vec<u8> = Vec::new();
    space
        .try_reserve_exact(workspace)
        .map_err(|_| too_large())?;
    space.resize(workspace, 0);
    // Each text is validated as it is copied (a caller buffer could change under a check
    // of the original), so the copy is UTF-8 part by part and as a whole.
    for (text, what) in [
        (Some(inputs.arguments), "arguments"),
        (inputs.request_state, "request_state"),
        (inputs.input_responses, "input_responses"),
    ] {
        let start = bytes.len();
        bytes.extend_from_slice(text.unwrap_or(&[]));
        utf8(bytes.get(start..).unwrap_or(&[]), what)?;
    }
    let texts = String::from_utf8(bytes)
        .map_err(|_| {
            Fail::abi(
                crate::ELICIT_ERR_UTF8,
                "an input",
                "changed while being copied",
            )
        })?
        .into_boxed_str();
    let owner = RoundOwner {
        plan: Arc::clone(plan),
        texts,
        lens,
        workspace: MutBorrow::new(space.into_boxed_slice()),
    };
    let capabilities = inputs.capabilities;
    Ok(RoundInner::try_new(owner, |o| {
        // The three texts, each at a character boundary (validated one by one above).
        let mut rest: &str = &o.texts;
        let mut part = |len: Option<usize>| {
            let len = len?;
            let (head, tail) = rest.split_at_checked(len)?;
            rest = tail;
            Some(head)
        };
        let arguments = part(o.lens[0]).unwrap_or("");
        let request_state = part(o.lens[1]);
        let input_responses = part(o.lens[2]);
        let round_inputs = match era {
            Era::Modern => RoundInputs::modern(arguments, request_state, input_responses),
            // The handshake constructor passes no state and no replies.
            Era::Handshake => RoundInputs::handshake(arguments),
        }
        .with_capabilities(capabilities);
        Engine::new(o.plan.plan(), era, round_inputs, o.workspace.borrow_mut())
    }))
}

/// Shared body of the two constructors.
///
/// # Safety
/// The pointer contracts of `elicit_round_new_modern`.
unsafe fn new_in(
    plan: *const elicit_plan,
    era: Era,
    input: *const elicit_round_input,
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err: (*mut c_char, usize, *mut usize),
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: the caller guarantees NULL or a live handle.
        let h = unsafe { plan.as_ref() }.ok_or(Fail::null("plan"))?;
        if h.is_poisoned() {
            return Err(Fail::abi(
                ELICIT_ERR_POISONED,
                "plan",
                "is poisoned by an earlier panic",
            ));
        }
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        // SAFETY: forwarded from the caller's contract.
        let texts = unsafe { elicit_round_input::read(input, era == Era::Modern) }?;
        let inputs = Inputs {
            arguments: texts.arguments.as_bytes(),
            request_state: texts.request_state.map(str::as_bytes),
            input_responses: texts.input_responses.map(str::as_bytes),
            capabilities: texts
                .client_capabilities
                .map_or(Capabilities::FORM, Capabilities::from_client_json),
            workspace: workspace_size,
        };
        *out = Box::into_raw(Box::new(elicit_round {
            state: Mutex::new(RoundState::new(new_round(h, era, inputs)?)),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err) }
}

/// Start a 2026-07-28 (modern era) round of a call to the plan's tool, from `input`:
/// the call's `arguments` (required), the plaintext `request_state` the host unsealed
/// (`elicit_sealer_unseal`), the raw `input_responses` and the client's
/// `client_capabilities` (see `elicit_round_input`). `workspace_size`: bytes for what
/// the host hands over later (resolver values and questions); 0 means
/// `ELICIT_DEFAULT_WORKSPACE` (64 KiB).
///
/// The round copies the texts (into one allocation of their total size plus the
/// workspace): the caller's buffers may be reused as soon as this returns. On success
/// `*out` receives a round the caller owns and must release with `elicit_round_free`;
/// then call `elicit_round_poll`.
///
/// On failure `*out` is untouched and the message is written to the optional
/// `(err_buf, err_cap, err_len)` as for `elicit_plan_new`. Codes: `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT` (among others: a sealed token as
/// the state), `ELICIT_ERR_TOO_LARGE`, `ELICIT_ERR_ARGUMENTS` (arguments not a JSON
/// object), `ELICIT_ERR_INPUT_RESPONSES` (answer the request with JSON-RPC error
/// -32602 and this message), `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`. (A missing
/// capability is found by `elicit_round_poll`, before any question is shown.)
///
/// # Safety
/// `plan` NULL or a live plan; `input` NULL or valid for a read, each of its `(ptr,
/// len)` pairs NULL or valid for `len` readable bytes; `out` valid for a write;
/// `err_buf` NULL or valid for `err_cap` bytes; `err_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_new_modern(
    plan: *const elicit_plan,
    input: *const elicit_round_input,
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        new_in(
            plan,
            Era::Modern,
            input,
            workspace_size,
            out,
            (err_buf, err_cap, err_len),
        )
    }
}

/// Start a handshake-era round (protocol 2025-11-25 and earlier): the questions go out
/// one at a time (`ELICIT_STEP_ASK`) as server-to-client requests, within one call.
/// `input` as for `elicit_round_new_modern`, with `request_state` and
/// `input_responses` NULL with length 0 (`client_capabilities`: the `capabilities`
/// the client sent in `initialize`); ownership, workspace and errors as there.
///
/// # Safety
/// As `elicit_round_new_modern`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_new_handshake(
    plan: *const elicit_plan,
    input: *const elicit_round_input,
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        new_in(
            plan,
            Era::Handshake,
            input,
            workspace_size,
            out,
            (err_buf, err_cap, err_len),
        )
    }
}

/// Release a round and everything it owns. NULL is accepted and ignored. Never free
/// the same handle twice. Pointers obtained from the round are invalid afterwards
/// (output buffers belong to the caller and are unaffected).
///
/// # Safety
/// `round` must be NULL or a handle from `elicit_round_new_*` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_free(round: *mut elicit_round) {
    if round.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(round) }));
}

/// Advance the round and say what it needs next: `*step` receives one of the
/// `ELICIT_STEP_*` kinds and `*param` the parameter index it concerns
/// (`ELICIT_NO_PARAM` for DONE and INPUT_REQUIRED).
///
/// The drain rule: after creating a round and after every successful
/// `elicit_round_resolve_*` or `elicit_round_answer`, call `elicit_round_poll` until it
/// returns a step that needs the host (RESOLVE, ASK) or a terminal one (DONE,
/// INPUT_REQUIRED) or an error. Polling again without answering returns the same step
/// (it is idempotent). Answering a step that is not the current one returns
/// `ELICIT_ERR_WRONG_STEP` and changes nothing.
///
/// A `3xx`/`4xx` code means the round has failed: the tool call fails with the message
/// from `elicit_round_last_error`; every later call on the round returns the same code.
/// `ELICIT_ERR_MISSING_CAPABILITY` comes before any question is shown (modern era:
/// when the round would answer INPUT_REQUIRED with a request of a kind the client did
/// not declare; handshake era: instead of such an ASK): answer with JSON-RPC error
/// -32021 and `elicit_round_required_capabilities`.
///
/// # Safety
/// `round` NULL or live; `step` and `param` valid for writes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_poll(
    round: *mut elicit_round,
    step: *mut u32,
    param: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| abi::poll(r, step, param)) }
}

/// During `ELICIT_STEP_RESOLVE`: the resolver's inputs, a JSON object
/// `{"need": value, ...}` (arguments as the call sent them, elicited values settled).
///
/// Output convention (all `elicit_round_*` readers): `buf` receives the UTF-8 JSON (not
/// NUL-terminated) and `*out_len` its length. When `cap` is too small the call returns
/// `ELICIT_ERR_BUFFER_TOO_SMALL`, writes the size needed to `*out_len` and leaves `buf`
/// untouched; `buf = NULL, cap = 0` is a size query that succeeds with `*out_len` = the
/// size needed. Outside the step: `ELICIT_ERR_WRONG_STEP` (or the round's failure code).
///
/// # Safety
/// `round` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_inputs(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_resolve_inputs(s))
}

/// Answer the current `ELICIT_STEP_RESOLVE` with the value the resolver returned (any
/// UTF-8 JSON): nothing is asked and nothing is carried in the state. The text is
/// copied into the round's workspace. Then poll.
///
/// `ELICIT_ERR_RESOLVER_ANSWER` when the text is not JSON (nothing changed);
/// `ELICIT_ERR_WORKSPACE_FULL`; `ELICIT_ERR_WRONG_STEP`.
///
/// # Safety
/// `round` NULL or live; `value` valid for `value_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_value(
    round: *mut elicit_round,
    value: *const c_char,
    value_len: usize,
) -> elicit_result {
    crate::answer!(round, value, value_len, resolve_value)
}

/// Answer the current `ELICIT_STEP_RESOLVE` with the question the resolver decided to
/// ask, UTF-8 JSON in the shape of the parameter's kind (`elicit_plan_param_kind`, the
/// resolver's declared `"kind"`):
/// - form: `{"message": "...", "type"?: <type>, "title"?: "...", "description"?: "..."}`
///   (`type` defaults to the parameter's type);
/// - URL: `{"message": "...", "url": "..."}`;
/// - sampling: `{"sampling": {CreateMessageRequest params}}`;
/// - roots: `{"roots": {ListRootsRequest params, usually empty}}`.
///
/// The text is copied into the round's workspace. Then poll.
///
/// `ELICIT_ERR_RESOLVER_ANSWER` for an invalid question (see that code for when the
/// round fails); `ELICIT_ERR_WORKSPACE_FULL`; `ELICIT_ERR_WRONG_STEP`; a `4xx` code
/// when the question settles the parameter and its recorded answer fails it.
///
/// # Safety
/// `round` NULL or live; `question` valid for `question_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_question(
    round: *mut elicit_round,
    question: *const c_char,
    question_len: usize,
) -> elicit_result {
    crate::answer!(round, question, question_len, resolve_question)
}

/// Fail the current `ELICIT_STEP_RESOLVE`: the resolver's own dependency `dependency`
/// (a name, UTF-8) could not be built. The round fails with the reference's message, so
/// this returns `ELICIT_ERR_RESOLVER_DEPENDENCY` when it works (or
/// `ELICIT_ERR_WRONG_STEP` outside the step).
///
/// # Safety
/// `round` NULL or live; `dependency` valid for `dependency_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_failed(
    round: *mut elicit_round,
    dependency: *const c_char,
    dependency_len: usize,
) -> elicit_result {
    crate::answer!(round, dependency, dependency_len, resolve_failed)
}

/// During `ELICIT_STEP_ASK` (handshake era): the params of the request to send, with
/// the method of the parameter's kind (`elicit_plan_param_kind`):
/// - `ELICIT_KIND_FORM`, method `elicitation/create`:
///   `{"mode":"form","message":...,"requestedSchema":...}`;
/// - `ELICIT_KIND_URL`, method `elicitation/create`:
///   `{"mode":"url","message":...,"url":...,"elicitationId":...}`, whose
///   `elicitationId` is the question's digest; send
///   `notifications/elicitation/complete` with it when the out-of-band flow is done;
/// - `ELICIT_KIND_SAMPLING`, method `sampling/createMessage`: the CreateMessageRequest
///   params as declared (or as the resolver asked them);
/// - `ELICIT_KIND_ROOTS`, method `roots/list`: the ListRootsRequest params (usually
///   `{}`).
///
/// Output convention as for `elicit_round_resolve_inputs`.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_ask(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_ask(s))
}

/// Answer the current `ELICIT_STEP_ASK` with the client's result for the request's
/// kind, UTF-8 JSON: an ElicitResult for form (`{"action":"accept","content":{...}}`,
/// `{"action":"decline"}`, ...) and URL mode (the action alone, no content; accepting
/// settles the parameter to `true`); a CreateMessageResult for sampling (the parameter
/// settles to it whole); a ListRootsResult for roots (the parameter settles to its
/// `roots` array). When the client refused a sampling or roots request (a JSON-RPC
/// error), answer `{"action":"decline"}`. The text is copied into the round's
/// workspace. Then poll.
///
/// A `4xx` code when the answer fails the call (declined without a default, content
/// not matching the schema, `ELICIT_ERR_WRONG_REPLY` for a result of another kind,
/// ...); `ELICIT_ERR_WORKSPACE_FULL`; `ELICIT_ERR_WRONG_STEP`.
///
/// # Safety
/// `round` NULL or live; `elicit_result_json` valid for `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_answer(
    round: *mut elicit_round,
    elicit_result_json: *const c_char,
    len: usize,
) -> elicit_result {
    crate::answer!(round, elicit_result_json, len, answer)
}

/// After `ELICIT_STEP_DONE`: the elicited parameters' values, a JSON object
/// `{"name": value, ...}` in resolution order, compact UTF-8. Output convention as for
/// `elicit_round_resolve_inputs`.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_values(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r
        .write_values(Style::WIRE, s))
}

/// After `ELICIT_STEP_DONE`: the value of parameter `param` (signature index, elicited
/// or not; `null` for a missing argument without default), compact UTF-8 JSON.
/// `ELICIT_ERR_INDEX` for an index out of range. Output convention as for
/// `elicit_round_resolve_inputs`.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_value_of(
    round: *mut elicit_round,
    param: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| abi::value_of(r, param, (buf, cap, out_len))) }
}

/// After `ELICIT_STEP_INPUT_REQUIRED`: the `inputRequests` object,
/// `{"name":{"method":"elicitation/create","params":{...}}, ...}`, compact UTF-8; each
/// request carries the method of its parameter's kind (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`).
/// `flags` is 0 or `ELICIT_REQUESTS_CLIENT_VIEW`; other bits give
/// `ELICIT_ERR_INVALID_ARGUMENT`. Output convention as for
/// `elicit_round_resolve_inputs`.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_input_requests(
    round: *mut elicit_round,
    flags: u32,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            abi::input_requests(r, flags, (buf, cap, out_len))
        })
    }
}

/// After `ELICIT_STEP_INPUT_REQUIRED`: the plaintext `requestState` (ASCII JSON) to
/// seal and send with the InputRequiredResult; the client returns it on the next round.
/// Output convention as for `elicit_round_resolve_inputs`.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_request_state(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_request_state(s))
}

/// After `ELICIT_STEP_FALLBACK` (a plan declared with `"fallback": "arguments"`, a
/// client that cannot be asked; docs/fallback.md): the tool result to answer the
/// `tools/call` with, a CallToolResult as compact UTF-8 JSON:
/// `{"content":[{"type":"text","text":...}],"isError":true,"_meta":{"elicit/askUser":[...]}}`.
/// The text tells the model which questions to ask the user and to call the tool again
/// with the answers as arguments; the `_meta` list holds
/// `{"name","question","schema","required"}` per parameter. Send it as the call's
/// result (not a JSON-RPC error), with the era's own result `_meta` merged in if the
/// host adds any. Output convention as for `elicit_round_resolve_inputs`;
/// `ELICIT_ERR_WRONG_STEP` at any other step.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_fallback_result(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_fallback_result(s))
}

/// After `elicit_round_poll` returned `ELICIT_ERR_MISSING_CAPABILITY`: the
/// `requiredCapabilities` of the -32021 error's `data`, a ClientCapabilities object
/// keyed by every kind the round's questions need and the client did not declare,
/// e.g. `{"elicitation":{"url":{}},"sampling":{}}`, compact UTF-8. Output convention
/// as for `elicit_round_resolve_inputs`; `ELICIT_ERR_WRONG_STEP` when the round has
/// not failed that way.
///
/// # Safety
/// As `elicit_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_required_capabilities(
    round: *mut elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            abi::required_capabilities(r, (buf, cap, out_len))
        })
    }
}

/// How many notes the round has made so far (events a host may log: a reply ignored
/// because its question changed, a recorded answer dropped), written to `*count`.
/// Notes are available in every state, failed rounds included.
///
/// # Safety
/// `round` NULL or live; `count` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_note_count(
    round: *mut elicit_round,
    count: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            *out_param(count, "count")? = r.notes().len();
            Ok(())
        })
    }
}

/// Note `index` (0 to count - 1, in the order they happened): `*level` receives
/// `ELICIT_NOTE_DEBUG` or `ELICIT_NOTE_INFO`, `*param` the parameter it concerns, and
/// `buf` the log line the reference writes for it (UTF-8). Output convention as for
/// `elicit_round_resolve_inputs`; `*level` and `*param` are written only on success.
///
/// # Safety
/// `round` NULL or live; `level`, `param`, `out_len` valid for writes; `buf` NULL or
/// valid for `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_note(
    round: *mut elicit_round,
    index: usize,
    level: *mut u32,
    param: *mut usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let level = out_param(level, "level")?;
            let param = out_param(param, "param")?;
            check_out(buf, cap, out_len)?;
            let notes = r.notes();
            let Some(note) = notes.get(index) else {
                return Err(Fail::owned(
                    ELICIT_ERR_INDEX,
                    format!(
                        "note index {index} is out of range (the round has {})",
                        notes.len()
                    ),
                ));
            };
            let mut line = String::new();
            let pname = r.plan().name(note.param()).unwrap_or("");
            let _ = note.write_message(pname, &mut line);
            write_text(buf, cap, out_len, &line)?;
            *level = if note.level() == "INFO" {
                crate::ELICIT_NOTE_INFO
            } else {
                crate::ELICIT_NOTE_DEBUG
            };
            *param = note.param();
            Ok(())
        })
    }
}

/// The message of the most recent call on this round that failed (UTF-8, the engine's
/// wording, e.g. the tool error text for a `4xx` code), or empty when none failed. The
/// message is replaced by each later failure and kept across successes. Works on a
/// poisoned round (it then tells about the panic). Output convention as for
/// `elicit_round_resolve_inputs` (too small: `ELICIT_ERR_BUFFER_TOO_SMALL`).
///
/// # Safety
/// `round` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_last_error(
    round: *const elicit_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle.
    match unsafe { round.as_ref() } {
        // SAFETY: forwarded from the caller's contract.
        Some(h) => unsafe { read_last_error(&h.state, buf, cap, out_len) },
        None => ELICIT_ERR_NULL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        elicit_plan_free, elicit_plan_new, ELICIT_ERR_WRONG_STEP, ELICIT_NO_PARAM, ELICIT_STEP_ASK,
        ELICIT_STEP_DONE,
    };
    use crate::{ELICIT_ERR_BUSY, ELICIT_ERR_PANIC, ELICIT_OK};

    const DECL: &[u8] = br#"{"parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#;

    /// A handshake-era round of `decl` with `args` (its plan handle already freed).
    fn handshake_round(decl: &[u8], args: &[u8]) -> *mut elicit_round {
        let mut plan: *mut elicit_plan = core::ptr::null_mut();
        let mut round: *mut elicit_round = core::ptr::null_mut();
        let null = core::ptr::null_mut();
        // SAFETY: valid buffers throughout; the round keeps its own reference to the plan.
        unsafe {
            assert_eq!(
                elicit_plan_new(
                    decl.as_ptr().cast(),
                    decl.len(),
                    &mut plan,
                    null,
                    0,
                    null.cast()
                ),
                ELICIT_OK
            );
            assert_eq!(
                elicit_round_new_handshake(
                    plan,
                    &elicit_round_input::new(
                        (args.as_ptr().cast(), args.len()),
                        (core::ptr::null(), 0),
                        (core::ptr::null(), 0),
                        (core::ptr::null(), 0)
                    ),
                    0,
                    &mut round,
                    null,
                    0,
                    null.cast()
                ),
                ELICIT_OK
            );
            elicit_plan_free(plan);
        }
        round
    }

    #[test]
    fn a_panicking_call_poisons_the_round() {
        let args = b"{}";
        // SAFETY: valid buffers throughout.
        unsafe {
            let round = handshake_round(DECL, args);
            assert_eq!(with_round(round, |_| panic!("boom")), ELICIT_ERR_PANIC);
            let (mut step, mut param) = (0u32, 0usize);
            assert_eq!(
                elicit_round_poll(round, &mut step, &mut param),
                ELICIT_ERR_POISONED
            );
            assert_eq!(step, 0);
            let mut buf = [0u8; 256];
            let mut n = 0usize;
            assert_eq!(
                elicit_round_last_error(round, buf.as_mut_ptr().cast(), buf.len(), &mut n),
                ELICIT_OK
            );
            let msg = core::str::from_utf8(&buf[..n]).unwrap();
            assert!(msg.contains("panic") && msg.contains("boom"), "{msg}");
            elicit_round_free(round);
        }
    }

    /// Messages quoting a caller's input stay within `ELICIT_MESSAGE_CAP`, however long
    /// the input (found by the ffi fuzz target: a 1,600-byte input name).
    #[test]
    fn messages_fit_the_message_cap_whatever_the_input() {
        const RESOLVED: &[u8] =
            br#"{"parameters":[{"name":"a"},{"name":"b","elicit":{"needs":["a"]}}]}"#;
        let args = br#"{"a":1}"#;
        let last_error = |round| {
            let mut buf = [0u8; 2 * crate::ELICIT_MESSAGE_CAP];
            let mut n = 0usize;
            // SAFETY: a live round and a buffer of buf.len() bytes.
            let code = unsafe {
                elicit_round_last_error(round, buf.as_mut_ptr().cast(), buf.len(), &mut n)
            };
            assert_eq!(code, ELICIT_OK);
            String::from_utf8(buf[..n].to_vec()).unwrap()
        };
        // SAFETY: valid buffers throughout.
        unsafe {
            let round = handshake_round(RESOLVED, args);
            let (mut step, mut param) = (0u32, 0usize);
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            let name = "é".repeat(1500);
            let mut out = [0u8; 64];
            let mut n = 0usize;
            assert_eq!(
                crate::elicit_round_resolve_input(
                    round,
                    name.as_ptr().cast(),
                    name.len(),
                    out.as_mut_ptr().cast(),
                    out.len(),
                    &mut n
                ),
                crate::ELICIT_ERR_NOT_FOUND
            );
            let msg = last_error(round);
            assert!(
                msg.len() <= crate::ELICIT_MESSAGE_CAP,
                "{} bytes",
                msg.len()
            );
            assert!(msg.starts_with("the resolver has no input named") && msg.ends_with('…'));
            let long = "x".repeat(5000);
            assert_eq!(with_round(round, |_| panic!("{long}")), ELICIT_ERR_PANIC);
            let msg = last_error(round);
            assert!(
                msg.len() <= crate::ELICIT_MESSAGE_CAP,
                "{} bytes",
                msg.len()
            );
            assert!(msg.contains("panic"), "{msg}");
            elicit_round_free(round);
        }
    }

    /// A call entering a round another thread is inside of returns ELICIT_ERR_BUSY and
    /// changes nothing; once the other call is over, the round works as before.
    #[test]
    fn a_second_thread_inside_a_round_gets_busy() {
        struct Handle(*mut elicit_round);
        // SAFETY: the test moves the handle to one other thread, and every access to the
        // round's state goes through its lock.
        unsafe impl Send for Handle {}
        let round = handshake_round(DECL, b"{}");
        // SAFETY: a live round; its state is only touched under its lock.
        let held = unsafe { &(*round).state }.lock().unwrap();
        let other = Handle(round);
        let codes = std::thread::spawn(move || {
            let other = other;
            let (mut step, mut param) = (0u32, 0usize);
            let mut n = 0usize;
            // SAFETY: a live round (freed only after this thread is joined).
            unsafe {
                [
                    elicit_round_poll(other.0, &mut step, &mut param),
                    elicit_round_last_error(other.0, core::ptr::null_mut(), 0, &mut n),
                    step,
                ]
            }
        })
        .join()
        .unwrap();
        assert_eq!(codes, [ELICIT_ERR_BUSY, ELICIT_ERR_BUSY, 0]);
        drop(held);
        let (mut step, mut param) = (0u32, 0usize);
        // SAFETY: a live round, used by this thread alone now.
        unsafe {
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            assert_eq!((step, param), (ELICIT_STEP_ASK, 0));
            elicit_round_free(round);
        }
    }

    /// A sealed token passed where the plaintext state goes is refused with a message
    /// saying to unseal it (read as a state it would be "no progress", and the round
    /// would ask the same questions forever).
    #[test]
    fn a_sealed_token_as_the_state_is_refused() {
        let mut plan: *mut elicit_plan = core::ptr::null_mut();
        let mut round: *mut elicit_round = core::ptr::null_mut();
        let null = core::ptr::null_mut();
        let args = b"{}";
        // The round's input: no arguments and `state` as the request state.
        let with_state = |state: &[u8]| elicit_round_input {
            arguments: args.as_ptr().cast(),
            arguments_len: args.len(),
            request_state: state.as_ptr().cast(),
            request_state_len: state.len(),
            input_responses: core::ptr::null(),
            input_responses_len: 0,
            client_capabilities: core::ptr::null(),
            client_capabilities_len: 0,
        };
        let mut err = [0u8; crate::ELICIT_MESSAGE_CAP];
        // SAFETY: valid buffers throughout.
        unsafe {
            assert_eq!(
                elicit_plan_new(
                    DECL.as_ptr().cast(),
                    DECL.len(),
                    &mut plan,
                    null,
                    0,
                    null.cast()
                ),
                ELICIT_OK
            );
            for state in [&b"v1.AAAAAAAAAAAAAAAAAAAAAA"[..], b" \"v1.AAAA\""] {
                let mut n = 0usize;
                let code = elicit_round_new_modern(
                    plan,
                    &with_state(state),
                    0,
                    &mut round,
                    err.as_mut_ptr().cast(),
                    err.len(),
                    &mut n,
                );
                assert_eq!(code, crate::ELICIT_ERR_INVALID_ARGUMENT);
                assert!(round.is_null());
                let msg = core::str::from_utf8(&err[..n]).unwrap();
                assert!(
                    msg.contains("sealed token") && msg.contains("unseal it"),
                    "{msg}"
                );
            }
            // A plaintext state that cannot be read stays "no progress", as in the
            // reference.
            let state = b"not a state";
            assert_eq!(
                elicit_round_new_modern(
                    plan,
                    &with_state(state),
                    0,
                    &mut round,
                    null,
                    0,
                    null.cast()
                ),
                ELICIT_OK
            );
            elicit_round_free(round);
            elicit_plan_free(plan);
        }
    }

    #[test]
    fn a_round_outlives_its_plan_handle() {
        let args = b"{}";
        // SAFETY: valid buffers throughout.
        unsafe {
            let round = handshake_round(DECL, args);
            let (mut step, mut param) = (0u32, 0usize);
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            assert_eq!((step, param), (ELICIT_STEP_ASK, 0));
            let mut n = 0usize;
            assert_eq!(
                elicit_round_values(round, core::ptr::null_mut(), 0, &mut n),
                ELICIT_ERR_WRONG_STEP
            );
            let answer = br#"{"action":"accept","content":{"value":"hi"}}"#;
            assert_eq!(
                elicit_round_answer(round, answer.as_ptr().cast(), answer.len()),
                ELICIT_OK
            );
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            assert_eq!((step, param), (ELICIT_STEP_DONE, ELICIT_NO_PARAM));
            let mut buf = [0u8; 64];
            assert_eq!(
                elicit_round_values(round, buf.as_mut_ptr().cast(), buf.len(), &mut n),
                ELICIT_OK
            );
            assert_eq!(&buf[..n], br#"{"x":"hi"}"#);
            elicit_round_free(round);
        }
    }
}
