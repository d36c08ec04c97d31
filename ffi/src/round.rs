//! `elicit_round`: one round of one call.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use elicit_core::{Capabilities, Era, Error, Inputs as RoundInputs, Round, Style};

use crate::plan::{elicit_plan, with_plan, PlanInner};
use crate::{
    catch, check_out_args, elicit_result, input, optional_input, out_param, utf8,
    write_error_message, write_out, write_text, Failure, ELICIT_DEFAULT_WORKSPACE,
    ELICIT_ERR_INDEX, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NULL, ELICIT_ERR_PANIC,
    ELICIT_ERR_POISONED, ELICIT_ERR_TOO_LARGE, ELICIT_ERR_WRONG_STEP, ELICIT_MAX_PARAMS, ELICIT_OK,
    ELICIT_REQUESTS_CLIENT_VIEW,
};

// ------------------------------------------------------------------------ constants

/// Level of a note from `elicit_round_note`: worth a DEBUG log line.
pub const ELICIT_NOTE_DEBUG: u32 = 10;
/// Level of a note from `elicit_round_note`: worth an INFO log line.
pub const ELICIT_NOTE_INFO: u32 = 20;

// ------------------------------------------------------------------------- handle

/// cbindgen:ignore
type CoreRound = Round<'static, 'static, ELICIT_MAX_PARAMS>;

/// The engine's round, the single allocation it borrows (copies of the inputs followed
/// by the workspace) and the plan it runs.
pub(crate) struct RoundInner {
    /// Borrows `storage` and `plan`; dropped first.
    pub(crate) engine: ManuallyDrop<CoreRound>,
    /// A `Box<[u8]>` turned into a raw pointer so `engine` can borrow it as `'static`.
    storage: *mut [u8],
    /// Keeps the plan alive for `engine`; dropped last.
    plan: Arc<PlanInner>,
}

impl Drop for RoundInner {
    fn drop(&mut self) {
        // SAFETY: `engine` is dropped exactly once, here, before what it borrows;
        // `storage` came from Box::into_raw and is reclaimed exactly once. `plan` is
        // dropped after this function returns.
        unsafe {
            ManuallyDrop::drop(&mut self.engine);
            drop(Box::from_raw(self.storage));
        }
    }
}

/// One round of one tool call (opaque).
///
/// Create it with `elicit_round_new_modern` or `elicit_round_new_handshake`, drive it
/// with `elicit_round_poll` and the answer functions, read its outputs, and free it
/// with `elicit_round_free`. A round owns copies of the texts it was created from and
/// of everything the host hands it later; it refers to its plan by reference count, so
/// the plan may be freed first.
///
/// A round is not thread-safe: use it from one thread at a time (it may move between
/// threads). Every round function takes a non-const pointer because a failing call
/// records its message (see `elicit_round_last_error`).
pub struct elicit_round {
    inner: RoundInner,
    last_error: String,
    poisoned: bool,
}

/// Run `f` on a round handle: NULL and poison checks, the panic wrapper, recording the
/// message of a failure, poisoning on panic.
///
/// # Safety
/// `round` must be NULL or a live handle, not in use by another thread.
pub(crate) unsafe fn with_round(
    round: *mut elicit_round,
    f: impl FnOnce(&mut RoundInner) -> Result<(), Failure>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live, unshared handle.
    let Some(h) = (unsafe { round.as_mut() }) else {
        return ELICIT_ERR_NULL;
    };
    if h.poisoned {
        return ELICIT_ERR_POISONED;
    }
    let inner = &mut h.inner;
    match catch(|| f(inner)) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(fail)) => {
            h.last_error = fail.message;
            fail.code
        }
        Err(message) => {
            h.poisoned = true;
            h.last_error = message;
            ELICIT_ERR_PANIC
        }
    }
}

/// The texts a new round copies.
struct Inputs<'i> {
    arguments: &'i [u8],
    request_state: Option<&'i [u8]>,
    input_responses: Option<&'i [u8]>,
    capabilities: Capabilities,
    workspace: usize,
}

fn new_round(
    plan: &elicit_plan,
    modern: bool,
    inputs: Inputs<'_>,
) -> Result<Box<elicit_round>, Failure> {
    let workspace = if inputs.workspace == 0 {
        ELICIT_DEFAULT_WORKSPACE
    } else {
        inputs.workspace
    };
    let lens = [
        inputs.arguments.len(),
        inputs.request_state.map_or(0, <[u8]>::len),
        inputs.input_responses.map_or(0, <[u8]>::len),
    ];
    let too_large = || {
        Failure::new(
            ELICIT_ERR_TOO_LARGE,
            format!(
                "cannot allocate the round's inputs ({} bytes) and workspace ({workspace} bytes)",
                lens.iter().sum::<usize>()
            ),
        )
    };
    let total = lens
        .iter()
        .try_fold(workspace, |a, b| a.checked_add(*b))
        .filter(|t| *t <= isize::MAX as usize)
        .ok_or_else(too_large)?;
    let mut bytes: Vec<u8> = Vec::new();
    bytes.try_reserve_exact(total).map_err(|_| too_large())?;
    bytes.extend_from_slice(inputs.arguments);
    bytes.extend_from_slice(inputs.request_state.unwrap_or(&[]));
    bytes.extend_from_slice(inputs.input_responses.unwrap_or(&[]));
    bytes.resize(total, 0);
    // Validate the copies (a caller buffer could change under a check of the original).
    let (a, rest) = bytes.split_at(lens[0]);
    let (s, rest) = rest.split_at(lens[1]);
    let (r, _) = rest.split_at(lens[2]);
    utf8(a, "arguments")?;
    utf8(s, "request_state")?;
    utf8(r, "input_responses")?;

    let storage: *mut [u8] = Box::into_raw(bytes.into_boxed_slice());
    // SAFETY: `storage` is a fresh allocation owned by the RoundInner built below (or
    // reclaimed on the error path); the engine borrowing it is dropped before it.
    let all: &'static mut [u8] = unsafe { &mut *storage };
    let (a, rest) = all.split_at_mut(lens[0]);
    let (s, rest) = rest.split_at_mut(lens[1]);
    let (r, workspace) = rest.split_at_mut(lens[2]);
    // Validated above; from_utf8 again keeps this free of unchecked conversions.
    let texts = (
        core::str::from_utf8(a),
        core::str::from_utf8(s),
        core::str::from_utf8(r),
    );
    let (Ok(a), Ok(s), Ok(r)) = texts else {
        // SAFETY: nothing borrows `storage` any more.
        drop(unsafe { Box::from_raw(storage) });
        return Err(Failure::new(
            crate::ELICIT_ERR_UTF8,
            "input changed while being copied",
        ));
    };
    let arc = Arc::clone(&plan.inner);
    let plan_ptr: *const crate::plan::CorePlan = arc.plan();
    // SAFETY: the Arc stored next to the engine keeps the plan alive (and unmoved: it
    // lives in the Arc's allocation) until after the engine is dropped.
    let core_plan: &'static crate::plan::CorePlan = unsafe { &*plan_ptr };
    let era = if modern { Era::Modern } else { Era::Handshake };
    // The handshake constructor passes no state and no replies (null pointers above).
    let round_inputs = if modern {
        RoundInputs::modern(
            a,
            inputs.request_state.map(|_| s),
            inputs.input_responses.map(|_| r),
        )
    } else {
        RoundInputs::handshake(a)
    }
    .with_capabilities(inputs.capabilities);
    let made = CoreRound::new(core_plan, era, round_inputs, workspace);
    match made {
        Ok(engine) => Ok(Box::new(elicit_round {
            inner: RoundInner {
                engine: ManuallyDrop::new(engine),
                storage,
                plan: arc,
            },
            last_error: String::new(),
            poisoned: false,
        })),
        Err(e) => {
            // SAFETY: the failed constructor returned no borrower of `storage`.
            drop(unsafe { Box::from_raw(storage) });
            Err(Failure::from(e))
        }
    }
}

/// The kinds a client declared, from its ClientCapabilities JSON; NULL (with length 0)
/// is form elicitation only, the engine's default.
///
/// # Safety
/// `(ptr, len)` NULL or valid for `len` readable bytes.
unsafe fn capabilities((ptr, len): (*const u8, usize)) -> Result<Capabilities, Failure> {
    // SAFETY: forwarded from the caller's contract.
    let bytes = unsafe { optional_input(ptr, len, "client_capabilities") }?;
    Ok(match bytes {
        None => Capabilities::FORM,
        Some(b) => Capabilities::from_client_json(utf8(b, "client_capabilities")?),
    })
}

/// Shared body of the two constructors.
///
/// # Safety
/// The pointer contracts of `elicit_round_new_modern`.
#[allow(clippy::too_many_arguments)]
unsafe fn construct(
    plan: *const elicit_plan,
    modern: bool,
    arguments: (*const u8, usize),
    request_state: (*const u8, usize),
    input_responses: (*const u8, usize),
    client_capabilities: (*const u8, usize),
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err: (*mut u8, usize, *mut usize),
) -> elicit_result {
    let mut message = String::new();
    // SAFETY: forwarded from the caller's contract.
    let code = unsafe {
        with_plan(plan, |h| {
            let run = || -> Result<(), Failure> {
                let out = out_param(out, "out")?;
                let inputs = Inputs {
                    arguments: input(arguments.0, arguments.1, "arguments")?,
                    request_state: optional_input(
                        request_state.0,
                        request_state.1,
                        "request_state",
                    )?,
                    input_responses: optional_input(
                        input_responses.0,
                        input_responses.1,
                        "input_responses",
                    )?,
                    capabilities: capabilities(client_capabilities)?,
                    workspace: workspace_size,
                };
                *out = Box::into_raw(new_round(h, modern, inputs)?);
                Ok(())
            };
            run().inspect_err(|f| message.clone_from(&f.message))
        })
    };
    if code != ELICIT_OK {
        if message.is_empty() {
            message = crate::result_cstr(code).to_string_lossy().into_owned();
        }
        // SAFETY: forwarded from the caller's contract.
        unsafe { write_error_message(&message, err.0, err.1, err.2) };
    }
    code
}

/// Start a 2026-07-28 (modern era) round of a call to the plan's tool.
///
/// - `arguments`: the call's `arguments`, UTF-8 JSON (must be an object); required.
/// - `request_state`: the plaintext `requestState` (already unsealed by the host), or
///   NULL with length 0 when the request carried none. Anything unreadable counts as
///   no progress, never as an error.
/// - `input_responses`: the raw `inputResponses` JSON object, or NULL with length 0.
/// - `client_capabilities`: the client's `ClientCapabilities` object, UTF-8 JSON, as
///   the request carried it (`_meta["io.modelcontextprotocol/clientCapabilities"]`; on
///   the handshake era the `capabilities` of `initialize`). It says which kinds of
///   request the round may show: `elicitation: {}` (or `elicitation.form`) is form
///   elicitation, `elicitation.url` URL mode, `sampling` sampling, `roots` roots; text
///   that is not a JSON object declares nothing. NULL with length 0 means form
///   elicitation only, the engine's default (a host that declares nothing more never
///   sees URL, sampling or roots questions: such a round fails with
///   `ELICIT_ERR_MISSING_CAPABILITY`). The text is read here and not kept.
/// - `workspace_size`: bytes for what the host hands over later (resolver values and
///   questions); 0 means `ELICIT_DEFAULT_WORKSPACE` (64 KiB).
///
/// The round copies the arguments, state and responses (into one allocation of their total size plus the
/// workspace): the caller's buffers may be reused as soon as this returns. On success
/// `*out` receives a round the caller owns and must release with `elicit_round_free`;
/// then call `elicit_round_poll`.
///
/// On failure `*out` is untouched and the message is written to the optional
/// `(err_buf, err_cap, err_len)` as for `elicit_plan_new`. Codes: `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT`, `ELICIT_ERR_TOO_LARGE`,
/// `ELICIT_ERR_ARGUMENTS` (arguments not a JSON object), `ELICIT_ERR_INPUT_RESPONSES`
/// (answer the request with JSON-RPC error -32602 and this message),
/// `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`. (A missing capability is found by
/// `elicit_round_poll`, before any question is shown.)
///
/// # Safety
/// `plan` NULL or a live plan; each `(ptr, len)` pair NULL or valid for `len` readable
/// bytes; `out` valid for a write; `err_buf` NULL or valid for `err_cap` bytes;
/// `err_len` NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_round_new_modern(
    plan: *const elicit_plan,
    arguments: *const u8,
    arguments_len: usize,
    request_state: *const u8,
    request_state_len: usize,
    input_responses: *const u8,
    input_responses_len: usize,
    client_capabilities: *const u8,
    client_capabilities_len: usize,
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err_buf: *mut u8,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        construct(
            plan,
            true,
            (arguments, arguments_len),
            (request_state, request_state_len),
            (input_responses, input_responses_len),
            (client_capabilities, client_capabilities_len),
            workspace_size,
            out,
            (err_buf, err_cap, err_len),
        )
    }
}

/// Start a handshake-era round (protocol 2025-11-25 and earlier): the questions go out
/// one at a time (`ELICIT_STEP_ASK`) as server-to-client requests, within one call.
/// Arguments (`client_capabilities`: the `capabilities` the client sent in
/// `initialize`; NULL with length 0 means form elicitation only), ownership, workspace
/// and errors as for `elicit_round_new_modern`.
///
/// # Safety
/// As `elicit_round_new_modern`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_new_handshake(
    plan: *const elicit_plan,
    arguments: *const u8,
    arguments_len: usize,
    client_capabilities: *const u8,
    client_capabilities_len: usize,
    workspace_size: usize,
    out: *mut *mut elicit_round,
    err_buf: *mut u8,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        construct(
            plan,
            false,
            (arguments, arguments_len),
            (core::ptr::null(), 0),
            (core::ptr::null(), 0),
            (client_capabilities, client_capabilities_len),
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
    unsafe {
        with_round(round, |r| {
            let step = out_param(step, "step")?;
            let param = out_param(param, "param")?;
            let (kind, index) = crate::step_code(r.engine.poll()?);
            *step = kind;
            *param = index;
            Ok(())
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            write_out(buf, cap, out_len, &|s| r.engine.write_resolve_inputs(s))
        })
    }
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
    value: *const u8,
    value_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let text = utf8(input(value, value_len, "value")?, "value")?;
            Ok(r.engine.resolve_value(text)?)
        })
    }
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
    question: *const u8,
    question_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let text = utf8(input(question, question_len, "question")?, "question")?;
            Ok(r.engine.resolve_question(text)?)
        })
    }
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
    dependency: *const u8,
    dependency_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let name = utf8(
                input(dependency, dependency_len, "dependency")?,
                "dependency",
            )?;
            Ok(r.engine.resolve_failed(name)?)
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            write_out(buf, cap, out_len, &|s| r.engine.write_ask(s))
        })
    }
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
    elicit_result_json: *const u8,
    len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let text = utf8(
                input(elicit_result_json, len, "elicit_result_json")?,
                "elicit_result_json",
            )?;
            Ok(r.engine.answer(text)?)
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            write_out(buf, cap, out_len, &|s| {
                r.engine.write_values(Style::WIRE, s)
            })
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            check_out_args(buf, cap, out_len)?;
            if param >= r.plan.plan().len() {
                return Err(Failure::new(
                    ELICIT_ERR_INDEX,
                    format!("parameter index {param} is out of range"),
                ));
            }
            write_out(buf, cap, out_len, &|s| {
                r.engine.write_value_of(param, Style::WIRE, s)
            })
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            check_out_args(buf, cap, out_len)?;
            if flags & !ELICIT_REQUESTS_CLIENT_VIEW != 0 {
                return Err(Failure::new(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    format!(
                        "unknown flags {flags:#x} (only ELICIT_REQUESTS_CLIENT_VIEW is defined)"
                    ),
                ));
            }
            let client_view = flags & ELICIT_REQUESTS_CLIENT_VIEW != 0;
            write_out(buf, cap, out_len, &|s| {
                r.engine.write_input_requests(client_view, s)
            })
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            write_out(buf, cap, out_len, &|s| r.engine.write_request_state(s))
        })
    }
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            check_out_args(buf, cap, out_len)?;
            let Some(Error::MissingCapability { missing, .. }) = r.engine.error() else {
                return Err(Failure::new(
                    ELICIT_ERR_WRONG_STEP,
                    "elicit_round_required_capabilities: the round has not failed with \
                     ELICIT_ERR_MISSING_CAPABILITY",
                ));
            };
            let missing = *missing;
            write_out(buf, cap, out_len, &|s| {
                missing.write_json(s);
                Ok(())
            })
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
            *out_param(count, "count")? = r.engine.notes().len();
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let level = out_param(level, "level")?;
            let param = out_param(param, "param")?;
            check_out_args(buf, cap, out_len)?;
            let notes = r.engine.notes();
            let Some(note) = notes.get(index) else {
                return Err(Failure::new(
                    ELICIT_ERR_INDEX,
                    format!(
                        "note index {index} is out of range (the round has {})",
                        notes.len()
                    ),
                ));
            };
            let mut line = String::new();
            let pname = r.plan.plan().name(note.param()).unwrap_or("");
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
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle.
    let Some(h) = (unsafe { round.as_ref() }) else {
        return ELICIT_ERR_NULL;
    };
    // SAFETY: forwarded from the caller's contract.
    match catch(|| unsafe { write_text(buf, cap, out_len, &h.last_error) }) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(f)) => f.code,
        Err(_) => ELICIT_ERR_PANIC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        elicit_plan_free, elicit_plan_new, ELICIT_ERR_WRONG_STEP, ELICIT_NO_PARAM, ELICIT_STEP_ASK,
        ELICIT_STEP_DONE,
    };

    const DECL: &[u8] = br#"{"parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#;

    /// A handshake-era round of `decl` with `args` (its plan handle already freed).
    fn handshake_round(decl: &[u8], args: &[u8]) -> *mut elicit_round {
        let mut plan: *mut elicit_plan = core::ptr::null_mut();
        let mut round: *mut elicit_round = core::ptr::null_mut();
        let null = core::ptr::null_mut();
        // SAFETY: valid buffers throughout; the round keeps its own reference to the plan.
        unsafe {
            assert_eq!(
                elicit_plan_new(decl.as_ptr(), decl.len(), &mut plan, null, 0, null.cast()),
                ELICIT_OK
            );
            assert_eq!(
                elicit_round_new_handshake(
                    plan,
                    args.as_ptr(),
                    args.len(),
                    core::ptr::null(),
                    0,
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
                elicit_round_last_error(round, buf.as_mut_ptr(), buf.len(), &mut n),
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
            let code =
                unsafe { elicit_round_last_error(round, buf.as_mut_ptr(), buf.len(), &mut n) };
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
                    name.as_ptr(),
                    name.len(),
                    out.as_mut_ptr(),
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
                elicit_round_answer(round, answer.as_ptr(), answer.len()),
                ELICIT_OK
            );
            assert_eq!(elicit_round_poll(round, &mut step, &mut param), ELICIT_OK);
            assert_eq!((step, param), (ELICIT_STEP_DONE, ELICIT_NO_PARAM));
            let mut buf = [0u8; 64];
            assert_eq!(
                elicit_round_values(round, buf.as_mut_ptr(), buf.len(), &mut n),
                ELICIT_OK
            );
            assert_eq!(&buf[..n], br#"{"x":"hi"}"#);
            elicit_round_free(round);
        }
    }
}
