//! `elicit_noalloc_round`: one round of one call in caller memory.

use core::ffi::{c_char, c_void};
use core::ptr::addr_of_mut;

use elicit_core::{Capabilities, Era, Inputs, Round, Style};

use crate::abi::{
    buffer, check_out, construct, memory, optional_text, out_param, text, write_message, write_out,
    Contract, Fail, Figure,
};
use crate::codes::{
    elicit_result, step_code, ELICIT_ERR_INDEX, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NULL,
    ELICIT_ERR_WRONG_STEP, ELICIT_OK, ELICIT_REQUESTS_CLIENT_VIEW,
};
use crate::plan::{elicit_noalloc_plan, CorePlan};
use crate::request::elicit_round_input;
use crate::ELICIT_NOALLOC_MAX_PARAMS;

/// cbindgen:ignore
type CoreRound = Round<'static, 'static, ELICIT_NOALLOC_MAX_PARAMS>;

/// Heap-free surface: one round of one tool call (opaque), built in memory the caller
/// provides (`elicit_noalloc_round_size()` bytes, aligned to `ELICIT_NOALLOC_ALIGN`) by
/// `elicit_noalloc_round_init_modern` or `elicit_noalloc_round_init_handshake`.
///
/// Unlike `elicit_round`, it copies nothing: it borrows its plan, the texts it was
/// created from and the workspace the caller gives it, and every text handed to it
/// later is copied into that workspace. All of them must stay valid and unchanged until
/// the round is no longer used. Nothing is allocated, so there is nothing to free. Use
/// a round from one thread at a time.
///
/// Drive it as `elicit_round` is driven (the same steps, the same drain rule, the same
/// codes): `elicit_noalloc_round_poll`, the answer functions, the readers.
pub struct elicit_noalloc_round {
    /// The engine's round, built in place by `Round::new_in`.
    slot: Option<CoreRound>,
    /// The most recent failure, for `elicit_noalloc_round_last_error`.
    last: Option<Last>,
}

/// What a round keeps of a failure: a round's calls fail with contract errors or engine
/// errors only (a whole `Fail` would also hold a plan's compile error and make every
/// round larger by its size). Turned back into a `Fail` to write its message.
#[derive(Debug)]
enum Last {
    Abi(Contract),
    Engine(elicit_core::Error),
}

impl Last {
    fn of(fail: Fail) -> Self {
        match fail {
            Fail::Abi(c) => Last::Abi(c),
            Fail::Engine(e) => Last::Engine(e),
            // A round's calls never fail with these; kept as their code all the same.
            other => Last::Abi(Contract {
                code: other.code(),
                what: "the call",
                problem: "failed (see its code)",
                figure: None,
            }),
        }
    }
    fn fail(&self) -> Fail {
        match self {
            Last::Abi(c) => Fail::Abi(*c),
            Last::Engine(e) => Fail::Engine(*e),
        }
    }
}

/// Heap-free surface: the bytes of memory an `elicit_noalloc_round` needs (its
/// workspace is separate).
#[no_mangle]
pub extern "C" fn elicit_noalloc_round_size() -> usize {
    core::mem::size_of::<elicit_noalloc_round>()
}

/// Shared body of the two constructors.
///
/// # Safety
/// The contract of `elicit_noalloc_round_init_modern`.
unsafe fn init(
    plan: *const elicit_noalloc_plan,
    (mem, mem_len): (*mut c_void, usize),
    era: Era,
    input: *const elicit_round_input,
    workspace: (*mut u8, usize),
    out: *mut *mut elicit_noalloc_round,
) -> Result<(), Fail> {
    // SAFETY: the caller guarantees NULL or a live plan that outlives the round.
    let plan: &'static CorePlan = &unsafe { plan.as_ref() }.ok_or(Fail::null("plan"))?.plan;
    // SAFETY: forwarded from the caller's contract.
    let out = unsafe { out_param(out, "out") }?;
    let at = memory::<elicit_noalloc_round>(mem, mem_len)?;
    // SAFETY: the texts outlive the round by contract.
    let texts = unsafe { elicit_round_input::read(input, era == Era::Modern) }?;
    // None: form elicitation only, the engine's default (as the hosted constructors).
    let capabilities = texts
        .client_capabilities
        .map_or(Capabilities::FORM, Capabilities::from_client_json);
    // SAFETY: the caller gives the round these bytes for its life.
    let workspace: &'static mut [u8] =
        unsafe { buffer(workspace.0, workspace.1, "workspace", "workspace_len") }?;
    let inputs = match era {
        Era::Modern => Inputs::modern(texts.arguments, texts.request_state, texts.input_responses),
        Era::Handshake => Inputs::handshake(texts.arguments),
    }
    .with_capabilities(capabilities);
    // SAFETY: `at` is non-NULL, large enough and aligned (checked); the fields are
    // written one by one so the round is built in place, never copied through the stack.
    let handle = unsafe {
        addr_of_mut!((*at).slot).write(None);
        addr_of_mut!((*at).last).write(None);
        &mut *at
    };
    Round::new_in(&mut handle.slot, plan, era, inputs, workspace)?;
    *out = at;
    Ok(())
}

/// Heap-free surface: start a 2026-07-28 (modern era) round of a call to `plan`'s tool
/// in `mem` (`mem_len` bytes, at least `elicit_noalloc_round_size()`, aligned to
/// `ELICIT_NOALLOC_ALIGN`), from `input` (the call's texts, as for
/// `elicit_round_new_modern`; the state unsealed by the host, e.g. with
/// `elicit_noalloc_sealer_unseal_in_place`), with `workspace` (`workspace_len` bytes for
/// the texts the host hands over later: resolver values and questions, handshake
/// replies; NULL with length 0 for none).
///
/// Nothing is copied: the plan, the texts `input` points to and the workspace are
/// borrowed and must stay valid and unchanged while the round is used (the struct
/// itself is read during the call only). On success `*out` receives the round (it lives
/// in `mem`); then call `elicit_noalloc_round_poll`.
///
/// On failure `*out` is untouched and the message goes to the optional `(err_buf,
/// err_cap, err_len)` as for `elicit_noalloc_plan_init`. Codes: `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT`, `ELICIT_ERR_MEMORY_TOO_SMALL`,
/// `ELICIT_ERR_MEMORY_ALIGN`, `ELICIT_ERR_ARGUMENTS`, `ELICIT_ERR_INPUT_RESPONSES`
/// (answer with JSON-RPC error -32602).
///
/// # Safety
/// `plan` NULL or a live plan that outlives the round; `mem` NULL or valid for `mem_len`
/// writable bytes used by nothing else; `input` NULL or valid for a read, each of its
/// `(ptr, len)` texts NULL or valid for `len` readable bytes that outlive the round;
/// `workspace` NULL or valid for `workspace_len` writable bytes used by nothing else
/// while the round lives; `out` valid for a write; `err_buf` NULL or valid for `err_cap`
/// bytes; `err_len` NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_noalloc_round_init_modern(
    plan: *const elicit_noalloc_plan,
    mem: *mut c_void,
    mem_len: usize,
    input: *const elicit_round_input,
    workspace: *mut u8,
    workspace_len: usize,
    out: *mut *mut elicit_noalloc_round,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || {
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            init(
                plan,
                (mem, mem_len),
                Era::Modern,
                input,
                (workspace, workspace_len),
                out,
            )
        }
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err_buf, err_cap, err_len) }
}

/// Heap-free surface: start a handshake-era round (protocol 2025-11-25 and earlier; the
/// questions go out one at a time, `ELICIT_STEP_ASK`). Memory, borrowing, `input` (its
/// `request_state` and `input_responses` NULL with length 0; `client_capabilities` from
/// `initialize`), workspace and errors as for `elicit_noalloc_round_init_modern`; the
/// client's replies are copied into the workspace, so give it room for them.
///
/// # Safety
/// As `elicit_noalloc_round_init_modern`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_noalloc_round_init_handshake(
    plan: *const elicit_noalloc_plan,
    mem: *mut c_void,
    mem_len: usize,
    input: *const elicit_round_input,
    workspace: *mut u8,
    workspace_len: usize,
    out: *mut *mut elicit_noalloc_round,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || {
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            init(
                plan,
                (mem, mem_len),
                Era::Handshake,
                input,
                (workspace, workspace_len),
                out,
            )
        }
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err_buf, err_cap, err_len) }
}

/// Run `f` on a round: the NULL check, and recording the message of a failure.
///
/// # Safety
/// `round` NULL or a live round, not in use by another thread.
unsafe fn with_round(
    round: *mut elicit_noalloc_round,
    f: impl FnOnce(&mut CoreRound) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live, unshared round.
    let Some(h) = (unsafe { round.as_mut() }) else {
        return ELICIT_ERR_NULL;
    };
    let result = match h.slot.as_mut() {
        Some(engine) => f(engine),
        // Only a successful init hands out a round, and it always fills the slot.
        None => Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            "round",
            "was not made by elicit_noalloc_round_init_*",
        )),
    };
    match result {
        Ok(()) => ELICIT_OK,
        Err(fail) => {
            let code = fail.code();
            h.last = Some(Last::of(fail));
            code
        }
    }
}

/// Heap-free surface: advance the round and say what it needs next, as
/// `elicit_round_poll` does (same steps, same drain rule, same codes).
///
/// # Safety
/// `round` NULL or live; `step` and `param` valid for writes.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_poll(
    round: *mut elicit_noalloc_round,
    step: *mut u32,
    param: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| poll(r, step, param)) }
}

/// Heap-free surface: during `ELICIT_STEP_RESOLVE`, the resolver's inputs (a JSON
/// object), under the output convention of `elicit_round_resolve_inputs`.
///
/// # Safety
/// `round` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_resolve_inputs(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_resolve_inputs(s))
}

/// Heap-free surface: answer `ELICIT_STEP_RESOLVE` with the resolver's value (UTF-8
/// JSON), copied into the workspace; as `elicit_round_resolve_value`.
///
/// # Safety
/// `round` NULL or live; `value` valid for `value_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_resolve_value(
    round: *mut elicit_noalloc_round,
    value: *const c_char,
    value_len: usize,
) -> elicit_result {
    crate::answer!(round, value, value_len, resolve_value)
}

/// Heap-free surface: answer `ELICIT_STEP_RESOLVE` with the resolver's question (UTF-8
/// JSON), copied into the workspace; as `elicit_round_resolve_question`.
///
/// # Safety
/// `round` NULL or live; `question` valid for `question_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_resolve_question(
    round: *mut elicit_noalloc_round,
    question: *const c_char,
    question_len: usize,
) -> elicit_result {
    crate::answer!(round, question, question_len, resolve_question)
}

/// Heap-free surface: fail `ELICIT_STEP_RESOLVE` (the resolver's dependency `dependency`
/// could not be built); as `elicit_round_resolve_failed`.
///
/// # Safety
/// `round` NULL or live; `dependency` valid for `dependency_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_resolve_failed(
    round: *mut elicit_noalloc_round,
    dependency: *const c_char,
    dependency_len: usize,
) -> elicit_result {
    crate::answer!(round, dependency, dependency_len, resolve_failed)
}

/// Heap-free surface: during `ELICIT_STEP_ASK`, the `elicitation/create` params; as
/// `elicit_round_ask`.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_ask(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_ask(s))
}

/// Heap-free surface: answer `ELICIT_STEP_ASK` with the client's ElicitResult (UTF-8
/// JSON), copied into the workspace; as `elicit_round_answer`.
///
/// # Safety
/// `round` NULL or live; `elicit_result_json` valid for `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_answer(
    round: *mut elicit_noalloc_round,
    elicit_result_json: *const c_char,
    len: usize,
) -> elicit_result {
    crate::answer!(round, elicit_result_json, len, answer)
}

/// Heap-free surface: after `ELICIT_STEP_DONE`, the elicited values (a JSON object); as
/// `elicit_round_values`.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_values(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r
        .write_values(Style::WIRE, s))
}

/// Heap-free surface: after `ELICIT_STEP_DONE`, the value of parameter `param`; as
/// `elicit_round_value_of` (`ELICIT_ERR_INDEX` out of range).
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_value_of(
    round: *mut elicit_noalloc_round,
    param: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| value_of(r, param, (buf, cap, out_len))) }
}

/// Heap-free surface: after `ELICIT_STEP_INPUT_REQUIRED`, the `inputRequests` object;
/// `flags` 0 or `ELICIT_REQUESTS_CLIENT_VIEW`; as `elicit_round_input_requests`.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_input_requests(
    round: *mut elicit_noalloc_round,
    flags: u32,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| input_requests(r, flags, (buf, cap, out_len))) }
}

/// Heap-free surface: after `ELICIT_STEP_INPUT_REQUIRED`, the plaintext `requestState`
/// to seal (`elicit_noalloc_sealer_seal_in_place` seals it where it was written); as
/// `elicit_round_request_state`.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_request_state(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_request_state(s))
}

/// Heap-free surface: after `ELICIT_STEP_FALLBACK`, the tool result to answer the call
/// with (`isError: true`, written for the model; docs/fallback.md); as
/// `elicit_round_fallback_result`.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_fallback_result(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    crate::read!(round, buf, cap, out_len, |r, s| r.write_fallback_result(s))
}

/// Heap-free surface: after `elicit_noalloc_round_poll` returned
/// `ELICIT_ERR_MISSING_CAPABILITY`, the `requiredCapabilities` object to answer `-32021`
/// with (e.g. `{"sampling":{}}`), under the output convention; as
/// `elicit_round_required_capabilities`. `ELICIT_ERR_WRONG_STEP` on a round that did not
/// fail so.
///
/// # Safety
/// As `elicit_noalloc_round_resolve_inputs`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_required_capabilities(
    round: *mut elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_round(round, |r| required_capabilities(r, (buf, cap, out_len))) }
}

/// Heap-free surface: the message of the most recent call on this round that failed
/// (UTF-8; empty when none failed), under the output convention (too small:
/// `ELICIT_ERR_BUFFER_TOO_SMALL` with the size needed). The failure of
/// `elicit_noalloc_round_init_*` itself goes to its error buffer instead.
///
/// # Safety
/// `round` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_round_last_error(
    round: *const elicit_noalloc_round,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live round.
    let Some(h) = (unsafe { round.as_ref() }) else {
        return ELICIT_ERR_NULL;
    };
    let last = h.last.as_ref().map(Last::fail);
    // SAFETY: forwarded from the caller's contract.
    match unsafe { write_message(buf, cap, out_len, last.as_ref()) } {
        Ok(()) => ELICIT_OK,
        Err(fail) => fail.code(),
    }
}

// ----------------------------------------------------- bodies both surfaces share

/// The body of `*_round_poll` (both surfaces): the step and its parameter.
///
/// # Safety
/// `step` and `param` NULL or valid for writes.
#[doc(hidden)]
pub unsafe fn poll<const N: usize>(
    r: &mut Round<'_, '_, N>,
    step: *mut u32,
    param: *mut usize,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller's contract.
    let (step, param) = unsafe { (out_param(step, "step")?, out_param(param, "param")?) };
    let (kind, index) = step_code(r.poll()?);
    *step = kind;
    *param = index;
    Ok(())
}

/// The body of `*_round_value_of` (both surfaces).
///
/// # Safety
/// `buf` NULL or valid for `cap` writable bytes; `out_len` NULL or writable.
#[doc(hidden)]
pub unsafe fn value_of<const N: usize>(
    r: &mut Round<'_, '_, N>,
    param: usize,
    (buf, cap, out_len): (*mut c_char, usize, *mut usize),
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { check_out(buf, cap, out_len) }?;
    if param >= r.plan().len() {
        return Err(Fail::Abi(Contract {
            code: ELICIT_ERR_INDEX,
            what: "param",
            problem: "is out of range",
            figure: Some(Figure {
                before: " (the plan has ",
                n: r.plan().len(),
                after: " parameters)",
            }),
        }));
    }
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            r.write_value_of(param, Style::WIRE, s)
        })
    }
}

/// The body of `*_round_input_requests` (both surfaces).
///
/// # Safety
/// As [`value_of`].
#[doc(hidden)]
pub unsafe fn input_requests<const N: usize>(
    r: &mut Round<'_, '_, N>,
    flags: u32,
    (buf, cap, out_len): (*mut c_char, usize, *mut usize),
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { check_out(buf, cap, out_len) }?;
    if flags & !ELICIT_REQUESTS_CLIENT_VIEW != 0 {
        return Err(Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            "flags",
            "has unknown bits (only ELICIT_REQUESTS_CLIENT_VIEW is defined)",
        ));
    }
    let client_view = flags & ELICIT_REQUESTS_CLIENT_VIEW != 0;
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            r.write_input_requests(client_view, s)
        })
    }
}

/// The body of `*_round_required_capabilities` (both surfaces).
///
/// # Safety
/// As [`value_of`].
#[doc(hidden)]
pub unsafe fn required_capabilities<const N: usize>(
    r: &mut Round<'_, '_, N>,
    (buf, cap, out_len): (*mut c_char, usize, *mut usize),
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { check_out(buf, cap, out_len) }?;
    let Some(elicit_core::Error::MissingCapability { missing, .. }) = r.error() else {
        return Err(Fail::abi(
            ELICIT_ERR_WRONG_STEP,
            "round",
            "has not failed with ELICIT_ERR_MISSING_CAPABILITY",
        ));
    };
    let missing = *missing;
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            missing.write_json(s);
            Ok(())
        })
    }
}

/// The body of `*_plan_input_schema` (both surfaces): the tool's `inputSchema` as
/// listed for a client (`Plan::write_input_schema`), `*cache_private` set to whether the
/// listing differs by client. The client's ClientCapabilities JSON is optional (none:
/// form elicitation only, as the rounds take it).
///
/// # Safety
/// `input_schema` valid for its length; `client_capabilities` NULL (with length 0) or
/// valid for its length; the output as [`write_out`]; `cache_private` NULL or writable.
#[doc(hidden)]
pub unsafe fn input_schema<const N: usize>(
    plan: &elicit_core::Plan<'_, N>,
    input_schema: (*const c_char, usize),
    client_capabilities: (*const c_char, usize),
    cache_private: *mut bool,
    (buf, cap, out_len): (*mut c_char, usize, *mut usize),
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller's contract.
    let (schema, caps, cache_private) = unsafe {
        (
            text(input_schema.0, input_schema.1, "input_schema")?,
            optional_text(
                client_capabilities.0,
                client_capabilities.1,
                "client_capabilities",
            )?,
            out_param(cache_private, "cache_private")?,
        )
    };
    let caps = caps.map_or(Capabilities::FORM, Capabilities::from_client_json);
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        write_out(buf, cap, out_len, &|s| {
            plan.write_input_schema(schema, caps, s).map(|_| ())
        })
    }?;
    *cache_private = plan.has_fallback();
    Ok(())
}
