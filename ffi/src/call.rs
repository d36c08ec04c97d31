//! `elicit_server` and `elicit_call`: the call level. A request in (`method`, `params`
//! as received), the whole JSON-RPC reply out; the envelope work is elicit-core's
//! `call` module, shared with every surface.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use elicit_core::call::{self as envelope, Method, Reply, Request};
use elicit_core::json::{write_str, Kind, Value};
use elicit_core::seal::{Binding, Entropy, UnixTime};
use elicit_core::{Era, InputKind, Step, Style};
use zeroize::Zeroizing;

use crate::helpers::{input_text, question_json};
use crate::plan::{elicit_plan, PlanInner};
use crate::round::{build_round, Engine, Inputs, RoundInner};
use crate::seal::{elicit_key_ring, make_sealer, SealerInner};
use crate::{
    catch, check_out, construct, elicit_request, elicit_result, enter, optional_text, out_param,
    read_last_error, text, write_text, Fail, Recorded, ELICIT_DEFAULT_WORKSPACE,
    ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NOT_FOUND, ELICIT_ERR_NULL, ELICIT_ERR_POISONED,
    ELICIT_ERR_WRONG_STEP, ELICIT_NO_PARAM, ELICIT_STEP_ASK, ELICIT_STEP_DONE, ELICIT_STEP_REPLY,
    ELICIT_STEP_RESOLVE,
};

// ------------------------------------------------------------------------ constants

/// `elicit_server_entry.method`: the plan serves `tools/call` of the tool it names.
pub const ELICIT_METHOD_TOOLS_CALL: u32 = 0;
/// `elicit_server_entry.method`: the plan serves `prompts/get` of the prompt it names.
pub const ELICIT_METHOD_PROMPTS_GET: u32 = 1;
/// `elicit_server_entry.method`: the plan serves `resources/read` of the URI in
/// `elicit_server_entry.target`.
pub const ELICIT_METHOD_RESOURCES_READ: u32 = 2;

// -------------------------------------------------------------------------- structs

/// One declaration a server serves: a plan, the request method that runs it and its
/// target.
#[repr(C)]
pub struct elicit_server_entry {
    /// The compiled declaration (the server keeps a reference: the plan may be freed
    /// after `elicit_server_new`).
    pub plan: *const elicit_plan,
    /// `ELICIT_METHOD_TOOLS_CALL`, `ELICIT_METHOD_PROMPTS_GET` or
    /// `ELICIT_METHOD_RESOURCES_READ`.
    pub method: u32,
    /// The name (or, for a resource, the URI) the request targets, UTF-8; NULL with
    /// length 0 for the plan's own tool name (a resource always needs its URI).
    pub target: *const c_char,
    /// The length of `target` in bytes.
    pub target_len: usize,
}

/// What a server is made from (`elicit_server_new`); read during the call only.
#[repr(C)]
pub struct elicit_server_config {
    /// The declarations served: `entry_count` entries.
    pub entries: *const elicit_server_entry,
    /// How many entries `entries` points to (at least one).
    pub entry_count: usize,
    /// The key ring that seals and unseals `requestState` (the server derives its own
    /// keys: the ring may be freed after `elicit_server_new`).
    pub keys: *const elicit_key_ring,
    /// The audience the tokens are bound to (the server's name), UTF-8; NULL with length
    /// 0 for none.
    pub audience: *const c_char,
    /// The length of `audience` in bytes.
    pub audience_len: usize,
    /// How long a token lives, in seconds; 0 for the MCP Python SDK's default, 600.
    pub ttl_secs: f64,
    /// Each call's workspace in bytes; 0 for `ELICIT_DEFAULT_WORKSPACE`.
    pub workspace_size: usize,
}

// -------------------------------------------------------------------------- server

/// A declaration the server serves.
struct Entry {
    plan: Arc<PlanInner>,
    method: Method,
    target: Box<str>,
}

/// What a server holds: its declarations, its sealer and the calls' workspace size.
struct ServerInner {
    entries: Vec<Entry>,
    sealer: SealerInner,
    workspace: usize,
}

/// A server's declarations and keys (opaque): made once with `elicit_server_new`, freed
/// with `elicit_server_free`. Immutable and thread-safe: any number of threads may make
/// calls from one server at once. Calls keep what they need of it alive, so it may be
/// freed while calls are in use.
pub struct elicit_server {
    inner: Arc<ServerInner>,
}

/// Read one entry of a server's configuration.
///
/// # Safety
/// `e.plan` NULL or live; `e.target` NULL or valid for `e.target_len` bytes.
unsafe fn entry(e: &elicit_server_entry) -> Result<Entry, Fail> {
    // SAFETY: forwarded from the caller's contract.
    let plan = unsafe { e.plan.as_ref() }.ok_or(Fail::null("entries[i].plan"))?;
    if plan.is_poisoned() {
        return Err(Fail::abi(
            ELICIT_ERR_POISONED,
            "entries[i].plan",
            "is poisoned by an earlier panic",
        ));
    }
    let method = match e.method {
        ELICIT_METHOD_TOOLS_CALL => Method::ToolsCall,
        ELICIT_METHOD_PROMPTS_GET => Method::PromptsGet,
        ELICIT_METHOD_RESOURCES_READ => Method::ResourcesRead,
        other => {
            return Err(Fail::owned(
                ELICIT_ERR_INVALID_ARGUMENT,
                format!(
                    "entries[i].method is {other}; pass ELICIT_METHOD_TOOLS_CALL, \
                     ELICIT_METHOD_PROMPTS_GET or ELICIT_METHOD_RESOURCES_READ"
                ),
            ))
        }
    };
    // SAFETY: forwarded from the caller's contract.
    let target = unsafe { optional_text(e.target, e.target_len, "entries[i].target") }?;
    let target = match (target, method) {
        (Some(t), _) => t,
        (None, Method::ResourcesRead) => {
            return Err(Fail::abi(
                ELICIT_ERR_INVALID_ARGUMENT,
                "entries[i].target",
                "is required for a resource: pass its URI",
            ))
        }
        (None, _) => plan.plan().tool(),
    };
    Ok(Entry {
        plan: Arc::clone(&plan.inner),
        method,
        target: target.into(),
    })
}

/// Make a server from `config`: its declarations (each a plan with the method and
/// target that run it), the key ring that seals and unseals `requestState`, the
/// audience and TTL of its tokens, and each call's workspace size.
///
/// On success `*out` receives a server the caller owns and must release with
/// `elicit_server_free`. On failure `*out` is untouched and the message is written to
/// the optional `(err_buf, err_cap, err_len)` as for `elicit_plan_new`. Codes:
/// `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT` (no entry, an
/// unknown method, a resource without its URI, the same target twice, a bad TTL),
/// `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `config` NULL or valid for a read, its pointers as documented on
/// `elicit_server_config`; `out` valid for a write; `err_buf` NULL or valid for
/// `err_cap` bytes; `err_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_server_new(
    config: *const elicit_server_config,
    out: *mut *mut elicit_server,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: the caller guarantees NULL or a valid struct.
        let c = unsafe { config.as_ref() }.ok_or(Fail::null("config"))?;
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        if c.entries.is_null() || c.entry_count == 0 {
            return Err(Fail::abi(
                ELICIT_ERR_INVALID_ARGUMENT,
                "config.entries",
                "must hold at least one entry (entry_count > 0)",
            ));
        }
        if c.entry_count > isize::MAX as usize / size_of::<elicit_server_entry>() {
            return Err(Fail::abi(
                ELICIT_ERR_INVALID_ARGUMENT,
                "config.entry_count",
                "is larger than an array can be",
            ));
        }
        // SAFETY: non-NULL, bounded, the caller guarantees `entry_count` entries.
        let raw = unsafe { core::slice::from_raw_parts(c.entries, c.entry_count) };
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.len());
        for e in raw {
            // SAFETY: forwarded from the caller's contract.
            let e = unsafe { entry(e) }?;
            if entries
                .iter()
                .any(|x| x.method == e.method && x.target == e.target)
            {
                return Err(Fail::owned(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    format!(
                        "config.entries serve {} {:?} twice; give each target one plan",
                        e.method.as_str(),
                        e.target
                    ),
                ));
            }
            entries.push(e);
        }
        // SAFETY: the caller guarantees NULL or a live ring.
        let ring = unsafe { c.keys.as_ref() }.ok_or(Fail::null("config.keys"))?;
        if ring.is_poisoned() {
            return Err(Fail::abi(
                ELICIT_ERR_POISONED,
                "config.keys",
                "is poisoned by an earlier panic",
            ));
        }
        // SAFETY: forwarded from the caller's contract.
        let audience = unsafe { optional_text(c.audience, c.audience_len, "config.audience") }?;
        let sealer = make_sealer(ring, audience, c.ttl_secs)?;
        let workspace = if c.workspace_size == 0 {
            ELICIT_DEFAULT_WORKSPACE
        } else {
            c.workspace_size
        };
        *out = Box::into_raw(Box::new(elicit_server {
            inner: Arc::new(ServerInner {
                entries,
                sealer,
                workspace,
            }),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, (err_buf, err_cap, err_len)) }
}

/// Release a server. NULL is accepted and ignored. Never free the same handle twice;
/// calls made from it stay valid.
///
/// # Safety
/// `server` must be NULL or a handle from `elicit_server_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_server_free(server: *mut elicit_server) {
    if server.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(server) }));
}

// ---------------------------------------------------------------------------- call

/// Where a call is.
enum Phase {
    /// The round runs (or waits for the host's resolver or the client's answer).
    Running,
    /// Every parameter is settled: the body runs, then `elicit_call_finish`.
    Done,
    /// The reply is written.
    Replied,
}

/// What a call's functions read and change, behind its lock.
struct CallState {
    method: Method,
    era: Era,
    /// The request's `params` as received (the state is bound to them).
    params: Box<str>,
    id: Box<str>,
    principal: Option<Box<str>>,
    now: UnixTime,
    entropy: Entropy,
    server: Arc<ServerInner>,
    round: Option<RoundInner>,
    phase: Phase,
    /// The whole JSON-RPC response, once written.
    reply: String,
    /// 0 for a result, else the error's code.
    reply_code: i32,
    last_error: String,
    poisoned: bool,
}

/// One request served from a server (opaque): made with `elicit_call_new`, stepped
/// with `elicit_call_next` until `ELICIT_STEP_REPLY`, freed with `elicit_call_free`.
/// Used by one thread at a time: a function entering a call while another thread is
/// inside one returns `ELICIT_ERR_BUSY` and changes nothing.
pub struct elicit_call {
    state: Mutex<CallState>,
}

// Threads may race into one call or round (one gets in, the others get ELICIT_ERR_BUSY),
// and share a server: the three handles must be Sync. Checked here, at compile time.
const _: fn() = || {
    fn sync<T: Sync + Send>() {}
    sync::<elicit_call>();
    sync::<elicit_server>();
    sync::<crate::round::elicit_round>();
};

/// A contract failure of a call that is not at the step a function needs.
fn not_at(what: &'static str) -> Fail {
    Fail::abi(ELICIT_ERR_WRONG_STEP, "call", what)
}

impl CallState {
    /// Write the whole JSON-RPC response: `result` (`code` 0) or `error` = `body`.
    fn reply(&mut self, code: Option<i32>, body: &[u8]) {
        let mut out: Vec<u8> = Vec::with_capacity(body.len() + self.id.len() + 32);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        out.extend_from_slice(self.id.as_bytes());
        out.extend_from_slice(match code {
            None => b",\"result\":",
            Some(_) => b",\"error\":",
        });
        out.extend_from_slice(body);
        out.push(b'}');
        // Written from UTF-8 texts by the JSON writers.
        self.reply = String::from_utf8_lossy(&out).into_owned();
        self.reply_code = code.unwrap_or(0);
        self.phase = Phase::Replied;
        self.round = None;
    }

    /// The reply for a round that failed with `e`; its message goes to the log text.
    fn fail(&mut self, e: &elicit_core::Error) {
        let mut body: Vec<u8> = Vec::new();
        let kind = envelope::write_failure(self.method, self.era, e, &mut body);
        let code = envelope::failure_code(self.method, e);
        debug_assert_eq!(code.is_some(), kind == Reply::Error);
        self.last_error = e.to_string();
        self.reply(code, &body);
    }

    /// Advance the round until it needs the host, and write the reply when it ends.
    fn next(&mut self) -> Result<(u32, usize), Fail> {
        match self.phase {
            Phase::Replied => return Ok((ELICIT_STEP_REPLY, ELICIT_NO_PARAM)),
            Phase::Done => return Ok((ELICIT_STEP_DONE, ELICIT_NO_PARAM)),
            Phase::Running => {}
        }
        let Some(round) = self.round.as_mut() else {
            return Ok((ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        };
        match round.with_dependent_mut(|_, r| r.poll()) {
            Ok(Step::Resolve { param }) => Ok((ELICIT_STEP_RESOLVE, param)),
            Ok(Step::Ask { param }) => Ok((ELICIT_STEP_ASK, param)),
            Ok(Step::Done) => {
                self.phase = Phase::Done;
                Ok((ELICIT_STEP_DONE, ELICIT_NO_PARAM))
            }
            Ok(Step::InputRequired) => {
                self.input_required()?;
                Ok((ELICIT_STEP_REPLY, ELICIT_NO_PARAM))
            }
            // A declared fallback (docs/fallback.md): the tool result for the model.
            Ok(Step::Fallback) => {
                let mut body: Vec<u8> = Vec::new();
                let method = self.method;
                let kind =
                    round.with_dependent(|_, r| envelope::write_fallback(method, r, &mut body))?;
                let code = (kind == Reply::Error).then_some(envelope::INVALID_PARAMS);
                self.reply(code, &body);
                Ok((ELICIT_STEP_REPLY, ELICIT_NO_PARAM))
            }
            Err(e) => {
                self.fail(&e);
                Ok((ELICIT_STEP_REPLY, ELICIT_NO_PARAM))
            }
        }
    }

    /// Seal the round's state for the request and write the InputRequiredResult.
    fn input_required(&mut self) -> Result<(), Fail> {
        let Some(round) = self.round.as_ref() else {
            return Ok(());
        };
        let plain = round.with_dependent(|_, r| r.request_state_json())?;
        let params = Value::parse(&self.params).ok();
        let binding = Binding::from_params(self.method.as_str(), params)
            .map_err(|_| not_at("request params could not be bound"))?;
        let token = self
            .server
            .sealer
            .borrow_dependent()
            .seal_to_string(
                &plain,
                &binding,
                self.principal.as_deref(),
                self.now,
                &self.entropy,
            )
            .map_err(|e| Fail::owned(ELICIT_ERR_INVALID_ARGUMENT, e.to_string()))?;
        let mut out: Vec<u8> = Vec::new();
        round.with_dependent(|_, r| envelope::write_input_required(r, &token, &mut out))?;
        self.reply(None, &out);
        Ok(())
    }

    /// Run `f` on the round while it runs (`ELICIT_ERR_WRONG_STEP` once the call is done
    /// or replied).
    fn on_round<T>(
        &mut self,
        f: impl FnOnce(&mut Engine<'_>) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        match (&self.phase, self.round.as_mut()) {
            (Phase::Running, Some(round)) => round.with_dependent_mut(|_, r| f(r)),
            _ => Err(not_at(
                "has no round running (it is done or replied): follow elicit_call_next",
            )),
        }
    }

    /// The parameter of the current ASK (`ask`) or RESOLVE step.
    fn step_param(&mut self, ask_only: bool) -> Result<usize, Fail> {
        self.on_round(|r| match r.poll()? {
            Step::Ask { param } => Ok(param),
            Step::Resolve { param } if !ask_only => Ok(param),
            _ if ask_only => Err(not_at("is not asking the client: follow elicit_call_next")),
            _ => Err(not_at("is at no parameter's step: follow elicit_call_next")),
        })
    }
}

/// A failure naming a field of `elicit_request`.
fn request_field(what: &'static str, problem: &'static str) -> Fail {
    Fail::abi(ELICIT_ERR_INVALID_ARGUMENT, what, problem)
}

/// Start serving `request` from `server`: the call reads the era (the request's `_meta`
/// or the negotiated version), the target, `arguments`, `inputResponses`,
/// `requestState` (unsealing it) and the client's capabilities itself. Then call
/// `elicit_call_next` until it returns `ELICIT_STEP_REPLY`, and send
/// `elicit_call_reply`.
///
/// A request the server cannot serve as sent (malformed `params`, a `requestState`
/// that does not verify, malformed `inputResponses`, ...) is not a failure here: the
/// call starts at `ELICIT_STEP_REPLY` with the JSON-RPC error written.
///
/// On success `*out` receives a call the caller owns and must release with
/// `elicit_call_free`. On failure `*out` is untouched and the message is written to the
/// optional `(err_buf, err_cap, err_len)`. Codes: `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`,
/// `ELICIT_ERR_INVALID_ARGUMENT` (a method other than the three, an id that is not a
/// JSON number or string, a bad `now` or `random`), `ELICIT_ERR_NOT_FOUND` (the server
/// has no declaration for the request's target: serve it some other way),
/// `ELICIT_ERR_TOO_LARGE`, `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `server` NULL or live; `request` NULL or valid for a read, each of its `(ptr, len)`
/// pairs NULL or valid for `len` readable bytes; `out` valid for a write; `err_buf` NULL
/// or valid for `err_cap` bytes; `err_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_new(
    server: *const elicit_server,
    request: *const elicit_request,
    out: *mut *mut elicit_call,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: the caller guarantees NULL or a live handle.
        let server = unsafe { server.as_ref() }.ok_or(Fail::null("server"))?;
        // SAFETY: the caller guarantees NULL or a valid struct.
        let q = unsafe { request.as_ref() }.ok_or(Fail::null("request"))?;
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        // SAFETY: forwarded from the caller's contract (every pair).
        let texts = unsafe { q.texts() }?;
        let id = texts.id.ok_or(Fail::null("request.id"))?;
        // SAFETY: forwarded from the caller's contract.
        let entropy = unsafe { elicit_ffi_noalloc::abi::entropy(q.random, q.random_len) }?;
        let now = UnixTime::from_secs_f64(q.now).ok_or(request_field(
            "request.now",
            "is not a finite, non-negative number of Unix seconds",
        ))?;
        if Value::parse(id).map_or(true, |v| !matches!(v.kind(), Kind::Number | Kind::String)) {
            return Err(request_field(
                "request.id",
                "must be the request's id as received: a JSON number or string",
            ));
        }
        let method = Method::parse(texts.method).ok_or(request_field(
            "request.method",
            "must be tools/call, prompts/get or resources/read",
        ))?;
        let mut call = CallState {
            method,
            era: Era::Handshake,
            params: texts.params.unwrap_or("{}").into(),
            id: id.into(),
            principal: texts.principal.map(Box::from),
            now,
            entropy,
            server: Arc::clone(&server.inner),
            round: None,
            phase: Phase::Running,
            reply: String::new(),
            reply_code: 0,
            last_error: String::new(),
            poisoned: false,
        };
        start(&mut call, texts.protocol_version, texts.client_capabilities)?;
        *out = Box::into_raw(Box::new(elicit_call {
            state: Mutex::new(call),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, (err_buf, err_cap, err_len)) }
}

/// Read the request, unseal its state and start the round (or write the reply that
/// refuses the request).
fn start(call: &mut CallState, version: Option<&str>, caps: Option<&str>) -> Result<(), Fail> {
    let server = Arc::clone(&call.server);
    let params = call.params.clone();
    let req = match Request::parse(call.method.as_str(), &params) {
        Ok(req) => req,
        Err(e) => {
            let mut body: Vec<u8> = Vec::new();
            envelope::write_error(envelope::INVALID_PARAMS, &e, &mut body);
            call.last_error = e.to_string();
            call.reply(Some(envelope::INVALID_PARAMS), &body);
            return Ok(());
        }
    };
    let target: String = req.target().units().filter_map(char::from_u32).collect();
    let entry = server
        .entries
        .iter()
        .find(|e| e.method == call.method && *e.target == *target)
        .ok_or_else(|| {
            Fail::owned(
                ELICIT_ERR_NOT_FOUND,
                format!(
                    "the server has no declaration for {} {target:?}; serve it another way",
                    call.method.as_str()
                ),
            )
        })?;
    call.era = req.era(version);
    let capabilities = req.capabilities(call.era, caps, version);
    let raw = req.request_state().filter(|_| call.era == Era::Modern);
    let mut work = Zeroizing::new(vec![0u8; raw.map_or(1, |v| v.raw().len().max(1))]);
    let binding = Binding::from_params(call.method.as_str(), Some(req.params()))
        .map_err(|_| not_at("request params could not be bound"))?;
    let state = match server.sealer.borrow_dependent().unseal_param(
        raw,
        &binding,
        call.principal.as_deref(),
        call.now,
        &mut work[..],
    ) {
        Ok(state) => state,
        Err(e) => {
            let mut body: Vec<u8> = Vec::new();
            envelope::write_request_state_error(&mut body);
            call.last_error = format!("requestState rejected ({})", e.reason().as_str());
            call.reply(Some(envelope::INVALID_PARAMS), &body);
            return Ok(());
        }
    };
    let inputs = Inputs {
        arguments: req.arguments().as_bytes(),
        request_state: state.map(str::as_bytes),
        input_responses: req
            .input_responses()
            .filter(|_| call.era == Era::Modern)
            .map(str::as_bytes),
        capabilities,
        workspace: server.workspace,
    };
    match build_round(&entry.plan, call.era, inputs)? {
        Ok(round) => call.round = Some(round),
        Err(e) => call.fail(&e),
    }
    Ok(())
}

impl Recorded for CallState {
    fn record(&mut self) -> (&mut String, &mut bool) {
        (&mut self.last_error, &mut self.poisoned)
    }
}

/// Run `f` on a call through [`enter`] (NULL, busy and poison checks, the panic
/// wrapper, the failure's message recorded).
///
/// # Safety
/// `call` must be NULL or a live handle.
unsafe fn with_call(
    call: *mut elicit_call,
    f: impl FnOnce(&mut CallState) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle, only read through a shared
    // reference (its state behind the lock).
    match unsafe { call.cast_const().as_ref() } {
        Some(h) => enter(&h.state, f),
        None => ELICIT_ERR_NULL,
    }
}

/// Advance the call and say what it needs next: `*step` receives
/// - `ELICIT_STEP_RESOLVE`: run the resolver of parameter `*param` (its name:
///   `elicit_call_param_name`; its inputs: `elicit_call_resolve_inputs`) and answer
///   with `elicit_call_resolve_value` or `elicit_call_resolve_question`;
/// - `ELICIT_STEP_ASK` (handshake era): send the request `elicit_call_request` writes
///   to the client (add `"jsonrpc":"2.0"` and an id of yours) and pass its response to
///   `elicit_call_answer`;
/// - `ELICIT_STEP_DONE`: every parameter is settled: run the body with
///   `elicit_call_values` and give its text to `elicit_call_finish`;
/// - `ELICIT_STEP_REPLY`: the reply is written: send `elicit_call_reply` and free the
///   call.
///
/// `*param` is `ELICIT_NO_PARAM` for DONE and REPLY. Call it again after every answer
/// (calling it twice without answering returns the same step). Codes: `ELICIT_OK`
/// (every refusal of the request is a reply, not a code), `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_BUSY`, `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `call` NULL or live; `step` and `param` valid for writes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_next(
    call: *mut elicit_call,
    step: *mut u32,
    param: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let step = out_param(step, "step")?;
            let param = out_param(param, "param")?;
            (*step, *param) = c.next()?;
            Ok(())
        })
    }
}

/// During `ELICIT_STEP_RESOLVE`: answer with the value the resolver returned (any UTF-8
/// JSON), as `elicit_round_resolve_value` does. Then `elicit_call_next`.
///
/// # Safety
/// `call` NULL or live; `value` valid for `value_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_resolve_value(
    call: *mut elicit_call,
    value: *const c_char,
    value_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let value = text(value, value_len, "value")?;
            c.on_round(|r| Ok(r.resolve_value(value)?))
        })
    }
}

/// During `ELICIT_STEP_RESOLVE`: answer with a question, UTF-8 JSON in the parameter's
/// kind's shape (`{"message":...}` for a form question, with optional `title`,
/// `description`, `type`), as `elicit_round_resolve_question` does. Then
/// `elicit_call_next`.
///
/// # Safety
/// `call` NULL or live; `question` valid for `question_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_resolve_question(
    call: *mut elicit_call,
    question: *const c_char,
    question_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let question = text(question, question_len, "question")?;
            c.on_round(|r| Ok(r.resolve_question(question)?))
        })
    }
}

/// During `ELICIT_STEP_RESOLVE` of a form parameter: answer with a question from plain
/// text (UTF-8, the message shown to the user): the library writes and escapes the JSON
/// (`{"message":...}`), as `elicit_round_resolve_question_text` does without a title
/// or description. Then `elicit_call_next`.
///
/// # Safety
/// `call` NULL or live; `message` valid for `message_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_resolve_question_text(
    call: *mut elicit_call,
    message: *const c_char,
    message_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let message = text(message, message_len, "message")?;
            let question = question_json(message, None, None);
            c.on_round(|r| Ok(r.resolve_question(&question)?))
        })
    }
}

/// During `ELICIT_STEP_RESOLVE`: the resolver's input called `name` (UTF-8,
/// `name_len` bytes), a JSON string, as its decoded text (UTF-8, not NUL-terminated):
/// what a host without a JSON library needs to word a question.
/// `ELICIT_ERR_NOT_FOUND` when the resolver has no such input, `ELICIT_ERR_WRONG_TYPE`
/// when it is not a string (read `elicit_call_resolve_inputs` instead). Output
/// convention as for `elicit_call_reply`.
///
/// # Safety
/// `call` NULL or live; `name` valid for `name_len` readable bytes; `buf` NULL or valid
/// for `cap` writable bytes; `out_len` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_resolve_input_text(
    call: *mut elicit_call,
    name: *const c_char,
    name_len: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| {
            let name = text(name, name_len, "name")?;
            c.on_round(|r| input_text(r, name))
        })
    }
}

/// During `ELICIT_STEP_ASK` (handshake era): pass the client's JSON-RPC response to the
/// request `elicit_call_request` wrote, UTF-8 JSON as received (the whole message, or
/// its `result` alone). A `result` answers the question; an `error` declines a
/// sampling or roots request and, for an elicitation, ends the call (its reply: for a
/// tool, the error FastMCP writes, `Error calling tool '<name>': <the client's
/// message>`; for a prompt or a resource, -32602 with the client's message). Then
/// `elicit_call_next`.
/// `ELICIT_ERR_WRONG_STEP` outside the step; the round's codes as for
/// `elicit_round_answer` otherwise.
///
/// # Safety
/// `call` NULL or live; `response` valid for `response_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_answer(
    call: *mut elicit_call,
    response: *const c_char,
    response_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let response = text(response, response_len, "response")?;
            let param = c.step_param(true)?;
            let parsed = Value::parse(response)
                .ok()
                .filter(|v| v.kind() == Kind::Object);
            let result = parsed.and_then(|v| v.get("result"));
            let error = parsed
                .and_then(|v| v.get("error"))
                .filter(|_| result.is_none());
            let Some(error) = error else {
                let answer = result.map_or(response, Value::raw);
                return c.on_round(|r| Ok(r.answer(answer)?));
            };
            let kind = c.on_round(|r| Ok(r.plan().kind(param).unwrap_or(InputKind::Form)))?;
            if matches!(kind, InputKind::Sampling | InputKind::Roots) {
                return c.on_round(|r| Ok(r.answer(r#"{"action":"decline"}"#)?));
            }
            let message: String = error
                .get("message")
                .and_then(Value::as_str)
                .map(|s| s.units().filter_map(char::from_u32).collect())
                .unwrap_or_else(|| String::from("the client refused the request"));
            let params = c.params.clone();
            let mut body: Vec<u8> = Vec::new();
            let code = match Request::parse(c.method.as_str(), &params) {
                Ok(req) if c.method == Method::ToolsCall => {
                    // FastMCP's wording for a tool whose elicitation the client refused.
                    let target: String = req.target().units().filter_map(char::from_u32).collect();
                    let text = format!("Error calling tool '{target}': {message}");
                    envelope::write_text_result(&req, c.era, &text, true, &mut body);
                    None
                }
                _ => {
                    envelope::write_error(envelope::INVALID_PARAMS, &message, &mut body);
                    Some(envelope::INVALID_PARAMS)
                }
            };
            c.last_error = message;
            c.reply(code, &body);
            Ok(())
        })
    }
}

/// After `ELICIT_STEP_DONE`: the body's text (UTF-8) becomes the result — a tool's
/// `{"content":[{"type":"text","text":...}],"isError":false}` (`is_error` true for a
/// body that failed: `"isError":true`), a prompt's `{"messages":[...]}`, a resource's
/// `{"contents":[...]}`, with `"resultType":"complete"` on 2026-07-28 — and the call
/// moves to `ELICIT_STEP_REPLY`. `ELICIT_ERR_WRONG_STEP` before DONE.
///
/// # Safety
/// `call` NULL or live; `body_text` valid for `body_text_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_finish(
    call: *mut elicit_call,
    body_text: *const c_char,
    body_text_len: usize,
    is_error: bool,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let body_text = text(body_text, body_text_len, "body_text")?;
            if !matches!(c.phase, Phase::Done) {
                return Err(not_at(
                    "is not done: finish it after elicit_call_next returned ELICIT_STEP_DONE",
                ));
            }
            let params = c.params.clone();
            let req = Request::parse(c.method.as_str(), &params)
                .map_err(|e| Fail::owned(ELICIT_ERR_INVALID_ARGUMENT, e.to_string()))?;
            let mut body: Vec<u8> = Vec::new();
            envelope::write_text_result(&req, c.era, body_text, is_error, &mut body);
            c.reply(None, &body);
            Ok(())
        })
    }
}

/// Run a reader: the output convention's checks, then `f`'s text.
///
/// # Safety
/// As the readers.
unsafe fn read_text(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    f: impl FnOnce(&mut CallState) -> Result<String, Fail>,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            check_out(buf, cap, out_len)?;
            let text = f(c)?;
            write_text(buf, cap, out_len, &text)
        })
    }
}

/// At `ELICIT_STEP_REPLY`: the whole JSON-RPC response to send, compact UTF-8:
/// `{"jsonrpc":"2.0","id":<the request's id>,"result":{...}}` or `...,"error":{...}}`
/// (docs/c-abi.md shows every reply). `ELICIT_ERR_WRONG_STEP` before it.
///
/// The output convention of every `elicit_call_*` reader: `buf` receives the text (not
/// NUL-terminated) and `*out_len` its length; `buf = NULL, cap = 0` is a size query;
/// too small is `ELICIT_ERR_BUFFER_TOO_SMALL` with `*out_len` = the size needed.
///
/// # Safety
/// `call` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_reply(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| match c.phase {
            Phase::Replied => Ok(c.reply.clone()),
            _ => Err(not_at(
                "has no reply yet: follow elicit_call_next until ELICIT_STEP_REPLY",
            )),
        })
    }
}

/// At `ELICIT_STEP_REPLY`: 0 when the reply is a result, else its JSON-RPC error code
/// (-32602; -32021, which is HTTP status 400 on HTTP; -32603), to `*code`.
///
/// # Safety
/// `call` NULL or live; `code` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_reply_code(
    call: *mut elicit_call,
    code: *mut i32,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_call(call, |c| {
            let code = out_param(code, "code")?;
            if !matches!(c.phase, Phase::Replied) {
                return Err(not_at(
                    "has no reply yet: follow elicit_call_next until ELICIT_STEP_REPLY",
                ));
            }
            *code = c.reply_code;
            Ok(())
        })
    }
}

/// At `ELICIT_STEP_ASK` (handshake era): the request to send the client,
/// `{"method":"elicitation/create","params":{...}}` (or `sampling/createMessage`,
/// `roots/list`); add `"jsonrpc":"2.0"` and an id of yours. Reader convention as for
/// `elicit_call_reply`.
///
/// # Safety
/// As `elicit_call_reply`.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_request(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| {
            let param = c.step_param(true)?;
            c.on_round(|r| {
                let kind = r.plan().kind(param).unwrap_or(InputKind::Form);
                Ok(format!(
                    "{{\"method\":\"{}\",\"params\":{}}}",
                    kind.method(),
                    r.ask_json()?
                ))
            })
        })
    }
}

/// At `ELICIT_STEP_RESOLVE` or `ELICIT_STEP_ASK`: the name of the parameter the step
/// concerns, UTF-8. Reader convention as for `elicit_call_reply`.
///
/// # Safety
/// As `elicit_call_reply`.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_param_name(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| {
            let param = c.step_param(false)?;
            c.on_round(|r| Ok(r.plan().name(param).unwrap_or("").to_owned()))
        })
    }
}

/// At `ELICIT_STEP_RESOLVE`: the resolver's inputs, `{"need": value, ...}`, compact
/// UTF-8 JSON, as `elicit_round_resolve_inputs` writes them. Reader convention as for
/// `elicit_call_reply`.
///
/// # Safety
/// As `elicit_call_reply`.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_resolve_inputs(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| {
            let mut out: Vec<u8> = Vec::new();
            c.on_round(|r| Ok(r.write_resolve_inputs(&mut out)?))?;
            Ok(String::from_utf8_lossy(&out).into_owned())
        })
    }
}

/// At `ELICIT_STEP_DONE`: the value of every parameter of the declaration (model
/// arguments and elicited ones), `{"name": value, ...}` in signature order, compact
/// UTF-8 JSON: what the body runs with. Reader convention as for `elicit_call_reply`.
///
/// # Safety
/// As `elicit_call_reply`.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_values(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_text(call, buf, cap, out_len, |c| {
            let (Phase::Done, Some(round)) = (&c.phase, c.round.as_ref()) else {
                return Err(not_at("is not done: read the values at ELICIT_STEP_DONE"));
            };
            let mut out: Vec<u8> = vec![b'{'];
            round.with_dependent(|_, r| -> Result<(), Fail> {
                for i in 0..r.plan().len() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(r.plan().name(i).unwrap_or(""), false, &mut out);
                    out.push(b':');
                    r.write_value_of(i, Style::WIRE, &mut out)?;
                }
                Ok(())
            })?;
            out.push(b'}');
            Ok(String::from_utf8_lossy(&out).into_owned())
        })
    }
}

/// The message of the most recent failure on this call, for the host's log: a refused
/// request's detail (why a `requestState` was rejected, which the client is never
/// told), a failed round's message, or a contract error's. Empty when none. Reader
/// convention as for `elicit_call_reply`; works in every step, and on a poisoned call.
///
/// # Safety
/// As `elicit_call_reply`.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_last_error(
    call: *mut elicit_call,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle.
    match unsafe { call.cast_const().as_ref() } {
        // SAFETY: forwarded from the caller's contract.
        Some(h) => unsafe { read_last_error(&h.state, buf, cap, out_len) },
        None => ELICIT_ERR_NULL,
    }
}

/// Release a call and everything it owns. NULL is accepted and ignored. Never free the
/// same handle twice, nor while another thread is inside a function on it.
///
/// # Safety
/// `call` must be NULL or a handle from `elicit_call_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_call_free(call: *mut elicit_call) {
    if call.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(call) }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ELICIT_OK;
    use crate::{elicit_plan_free, testing, ELICIT_SEAL_RANDOM_LEN};
    use std::ptr::{null, null_mut};

    const DECL: &str = r#"{"tool":"book","parameters":[{"name":"x","elicit":{"message":"Where?"}},{"name":"y","elicit":{"needs":["x"]}}]}"#;
    const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
    const RANDOM: [u8; ELICIT_SEAL_RANDOM_LEN] = [7; ELICIT_SEAL_RANDOM_LEN];

    /// A server with the tool `book` (and the same plan as the resource `r://b`).
    fn server() -> *mut elicit_server {
        server_for(DECL)
    }

    /// A server with the tool and resource of declaration `decl`.
    fn server_for(decl: &str) -> *mut elicit_server {
        let plan = testing::plan(decl);
        let server = testing::server(
            &[
                (plan, ELICIT_METHOD_TOOLS_CALL, None),
                (plan, ELICIT_METHOD_RESOURCES_READ, Some(c"r://b")),
            ],
            &[0x42u8; 32],
            "test",
            0,
        );
        // SAFETY: a live plan, freed once: the server keeps its own reference.
        unsafe { elicit_plan_free(plan) };
        server
    }

    /// A call of `method` with `params`; `version` and `caps` as from `initialize`.
    fn call(
        server: *const elicit_server,
        id: &str,
        method: &str,
        params: &str,
        version: Option<&str>,
        caps: Option<&str>,
    ) -> Result<*mut elicit_call, (elicit_result, String)> {
        let (v, vl) = testing::text(version);
        let (c, cl) = testing::text(caps);
        let request = elicit_request {
            id: id.as_ptr().cast(),
            id_len: id.len(),
            method: method.as_ptr().cast(),
            method_len: method.len(),
            params: params.as_ptr().cast(),
            params_len: params.len(),
            principal: null(),
            principal_len: 0,
            protocol_version: v,
            protocol_version_len: vl,
            client_capabilities: c,
            client_capabilities_len: cl,
            now: 1_800_000_000.0,
            random: RANDOM.as_ptr(),
            random_len: RANDOM.len(),
        };
        let mut out = null_mut();
        let mut err = [0u8; 1024];
        let mut n = 0usize;
        // SAFETY: valid buffers throughout.
        let code = unsafe {
            elicit_call_new(
                server,
                &request,
                &mut out,
                err.as_mut_ptr().cast(),
                err.len(),
                &mut n,
            )
        };
        if code == ELICIT_OK {
            Ok(out)
        } else {
            Err((code, String::from_utf8_lossy(&err[..n]).into_owned()))
        }
    }

    type Reader =
        unsafe extern "C" fn(*mut elicit_call, *mut c_char, usize, *mut usize) -> elicit_result;

    fn read(c: *mut elicit_call, f: Reader) -> String {
        // SAFETY: a live call; `read_text` passes buffers of the sizes it gives.
        testing::read_text(|b, cap, n| unsafe { f(c, b, cap, n) }).unwrap()
    }

    fn next(c: *mut elicit_call) -> (u32, usize) {
        let (mut step, mut param) = (0u32, 0usize);
        // SAFETY: a live call.
        assert_eq!(
            unsafe { elicit_call_next(c, &mut step, &mut param) },
            ELICIT_OK
        );
        (step, param)
    }

    fn code(c: *mut elicit_call) -> i32 {
        let mut code = 1;
        // SAFETY: a live call.
        assert_eq!(unsafe { elicit_call_reply_code(c, &mut code) }, ELICIT_OK);
        code
    }

    /// Run the resolver of `y` (its value: the airport of `x`) and finish with `body`.
    fn resolve_and_finish(c: *mut elicit_call, inputs: &str, values: &str, body: &str) {
        assert_eq!(next(c), (ELICIT_STEP_RESOLVE, 1));
        assert_eq!(read(c, elicit_call_param_name), "y");
        assert_eq!(read(c, elicit_call_resolve_inputs), inputs);
        // SAFETY: a live call and valid texts.
        unsafe {
            assert_eq!(
                elicit_call_resolve_value(c, c"\"CDG\"".as_ptr(), 5),
                ELICIT_OK
            );
            assert_eq!(next(c), (ELICIT_STEP_DONE, ELICIT_NO_PARAM));
            assert_eq!(read(c, elicit_call_values), values);
            assert_eq!(
                elicit_call_finish(c, body.as_ptr().cast(), body.len(), false),
                ELICIT_OK
            );
        }
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(code(c), 0);
    }

    #[test]
    fn a_modern_call_asks_then_completes_with_a_sealed_state() {
        let server = server();
        let params = format!(r#"{{"name":"book","arguments":{{}},{MODERN_META}}}"#);
        let c = call(server, "1", "tools/call", &params, None, None).unwrap();
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        let reply = read(c, elicit_call_reply);
        let head = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"x":{"method":"elicitation/create","params":{"message":"Where?","mode":"form","requestedSchema":{"properties":{"value":{"title":"Value","type":"string"}},"required":["value"],"type":"object"}}}},"requestState":"v1."#;
        assert!(reply.starts_with(head), "{reply}");
        assert!(reply.ends_with("\"}}"), "{reply}");
        let token = &reply[head.len() - 3..reply.len() - 3];
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };

        let answer = r#""inputResponses":{"x":{"action":"accept","content":{"value":"Paris"}}}"#;
        let params = format!(
            r#"{{"name":"book","arguments":{{}},{answer},"requestState":"{token}",{MODERN_META}}}"#
        );
        let c = call(server, "\"two\"", "tools/call", &params, None, None).unwrap();
        resolve_and_finish(
            c,
            r#"{"x":"Paris"}"#,
            r#"{"x":"Paris","y":"CDG"}"#,
            "Booked \"Paris\"",
        );
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":"two","result":{"content":[{"type":"text","text":"Booked \"Paris\""}],"isError":false,"resultType":"complete"}}"#
        );
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };

        // The same token for other arguments: the SDK's frozen error; the log says why.
        let params = format!(
            r#"{{"name":"book","arguments":{{"z":1}},"requestState":"{token}",{MODERN_META}}}"#
        );
        let c = call(server, "3", "tools/call", &params, None, None).unwrap();
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(code(c), -32602);
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}}"#
        );
        assert!(read(c, elicit_call_last_error).starts_with("requestState rejected ("));
        // SAFETY: live handles, freed once.
        unsafe {
            elicit_call_free(c);
            elicit_server_free(server);
        }
    }

    #[test]
    fn a_handshake_call_asks_the_client_one_question_at_a_time() {
        let server = server();
        let c = call(
            server,
            "5",
            "tools/call",
            r#"{"name":"book"}"#,
            Some("2025-11-25"),
            Some(r#"{"elicitation":{}}"#),
        )
        .unwrap();
        assert_eq!(next(c), (ELICIT_STEP_ASK, 0));
        assert_eq!(read(c, elicit_call_param_name), "x");
        assert_eq!(
            read(c, elicit_call_request),
            r#"{"method":"elicitation/create","params":{"mode":"form","message":"Where?","requestedSchema":{"properties":{"value":{"title":"Value","type":"string"}},"required":["value"],"type":"object"}}}"#
        );
        let response = r#"{"jsonrpc":"2.0","id":"s1","result":{"action":"accept","content":{"value":"Rome"}}}"#;
        // SAFETY: a live call and a valid text.
        assert_eq!(
            unsafe { elicit_call_answer(c, response.as_ptr().cast(), response.len()) },
            ELICIT_OK
        );
        resolve_and_finish(c, r#"{"x":"Rome"}"#, r#"{"x":"Rome","y":"CDG"}"#, "ok");
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}"#
        );
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };

        // The client refuses the elicitation: its message is the tool error.
        let c = call(
            server,
            "6",
            "tools/call",
            r#"{"name":"book"}"#,
            Some("2025-11-25"),
            Some("{\"elicitation\":{}}"),
        )
        .unwrap();
        assert_eq!(next(c), (ELICIT_STEP_ASK, 0));
        let refusal =
            r#"{"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"User \"busy\""}}"#;
        // SAFETY: a live call and a valid text.
        assert_eq!(
            unsafe { elicit_call_answer(c, refusal.as_ptr().cast(), refusal.len()) },
            ELICIT_OK
        );
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Error calling tool 'book': User \"busy\""}],"isError":true}}"#
        );
        // SAFETY: live handles, freed once (the server before its call: the call keeps it).
        unsafe {
            elicit_server_free(server);
            assert_eq!(
                elicit_call_answer(c, refusal.as_ptr().cast(), refusal.len()),
                ELICIT_ERR_WRONG_STEP
            );
            elicit_call_free(c);
        }
    }

    #[test]
    fn refusals_are_replies_and_contract_errors_are_codes() {
        let server = server();
        // No capability for form elicitation: -32021, nothing shown.
        let params = r#"{"name":"book","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
        let c = call(server, "1", "tools/call", params, None, None).unwrap();
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(code(c), -32021);
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Client did not declare the form elicitation capability required by question 'x'","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#
        );
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };
        // Malformed params and inputResponses: -32602 with the reason.
        let c = call(
            server,
            "2",
            "resources/read",
            r#"{"name":"r://b"}"#,
            None,
            None,
        )
        .unwrap();
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(
            read(c, elicit_call_reply),
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"resources/read needs a string \"uri\""}}"#
        );
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };
        let params = format!(r#"{{"uri":"r://b","inputResponses":[1],{MODERN_META}}}"#);
        let c = call(server, "3", "resources/read", &params, None, None).unwrap();
        assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
        assert_eq!(code(c), -32602);
        assert!(read(c, elicit_call_reply)
            .contains(r#""error":{"code":-32602,"message":"Invalid inputResponses"#));
        // SAFETY: a live call.
        unsafe { elicit_call_free(c) };
        // Not served, not a method of the call level, a bad id: codes for the host.
        let (code_, message) =
            call(server, "4", "tools/call", r#"{"name":"other"}"#, None, None).unwrap_err();
        assert_eq!(code_, ELICIT_ERR_NOT_FOUND);
        assert!(
            message.contains("no declaration for tools/call \"other\""),
            "{message}"
        );
        let (code_, _) = call(server, "4", "tools/list", "{}", None, None).unwrap_err();
        assert_eq!(code_, ELICIT_ERR_INVALID_ARGUMENT);
        let (code_, message) =
            call(server, "{}", "tools/call", r#"{"name":"book"}"#, None, None).unwrap_err();
        assert_eq!(code_, ELICIT_ERR_INVALID_ARGUMENT);
        assert!(message.starts_with("request.id"), "{message}");
        // Out of step: finishing before DONE, reading a reply before REPLY.
        let c = call(
            server,
            "5",
            "tools/call",
            r#"{"name":"book"}"#,
            Some("2025-11-25"),
            Some("{\"elicitation\":{}}"),
        )
        .unwrap();
        let mut n = 0usize;
        // SAFETY: a live call and valid texts.
        unsafe {
            assert_eq!(
                elicit_call_finish(c, c"x".as_ptr(), 1, false),
                ELICIT_ERR_WRONG_STEP
            );
            assert_eq!(
                elicit_call_reply(c, null_mut(), 0, &mut n),
                ELICIT_ERR_WRONG_STEP
            );
            assert!(read(c, elicit_call_last_error).contains("has no reply yet"));
            elicit_call_free(c);
            elicit_server_free(server);
        }
    }

    /// A tool declared with the fallback, called by a client that cannot be asked: the
    /// reply is the tool result for the model (docs/fallback.md); for the resource the
    /// same plan serves, -32602.
    #[test]
    fn a_declared_fallback_replies_with_the_result_for_the_model() {
        let decl = r#"{"tool":"book","fallback":"arguments","parameters":[{"name":"x","elicit":{"message":"Where?"}}]}"#;
        let server = server_for(decl);
        let tool = r#"{"name":"book","arguments":{}}"#;
        let resource = r#"{"uri":"r://b"}"#;
        for (method, params, head) in [
            (
                "tools/call",
                tool,
                r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"book needs answers from the user"#,
            ),
            (
                "resources/read",
                resource,
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"#,
            ),
        ] {
            let c = call(server, "7", method, params, Some("2025-11-25"), Some("{}")).unwrap();
            assert_eq!(next(c), (ELICIT_STEP_REPLY, ELICIT_NO_PARAM));
            let reply = read(c, elicit_call_reply);
            assert!(reply.starts_with(head), "{reply}");
            if method == "tools/call" {
                assert!(reply.ends_with(r#""isError":true,"_meta":{"elicit/askUser":[{"name":"x","question":"Where?","schema":{"description":"Where?","title":"X","type":"string"},"required":true}]}}}"#), "{reply}");
            }
            // SAFETY: a live call, freed once.
            unsafe { elicit_call_free(c) };
        }
        // Answered by its argument, the call is done.
        let c = call(
            server,
            "8",
            "tools/call",
            r#"{"name":"book","arguments":{"x":"Paris"}}"#,
            Some("2025-11-25"),
            Some("{}"),
        )
        .unwrap();
        assert_eq!(next(c), (ELICIT_STEP_DONE, ELICIT_NO_PARAM));
        // SAFETY: live handles, freed once.
        unsafe {
            elicit_call_free(c);
            elicit_server_free(server);
        }
    }
}
