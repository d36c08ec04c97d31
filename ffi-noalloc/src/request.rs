//! The two argument structs both surfaces share: `elicit_request` (a request as the
//! transport received it) and `elicit_round_input` (the texts a round starts from).

use core::ffi::c_char;

use crate::abi::{input, optional_input, utf8, Fail};

/// One request as the transport received it. The call level reads all of it
/// (`elicit_call_new`); the sealers read `method`, `params`, `principal` and `now`, and
/// `elicit_sealer_seal` and `elicit_noalloc_sealer_seal_in_place` `random` too (a field a
/// function does not read may be left NULL with length 0). Read during the call only:
/// nothing keeps a pointer into it.
#[repr(C)]
pub struct elicit_request {
    /// The JSON-RPC `id` as received (its JSON text: `7` or `"a"`), UTF-8; required by
    /// `elicit_call_new`.
    pub id: *const c_char,
    /// The length of `id` in bytes.
    pub id_len: usize,
    /// The JSON-RPC method: `tools/call`, `prompts/get` or `resources/read`; required.
    pub method: *const c_char,
    /// The length of `method` in bytes.
    pub method_len: usize,
    /// The request's `params` object exactly as received, UTF-8 JSON; NULL with length
    /// 0 when the request had none (it counts as `{}`).
    pub params: *const c_char,
    /// The length of `params` in bytes.
    pub params_len: usize,
    /// The authenticated principal the state is bound to (the MCP Python SDK's default
    /// is the compact JSON array `["client_id","issuer","subject"]`, `null` for a missing
    /// part), UTF-8; NULL with length 0 for an unauthenticated request.
    pub principal: *const c_char,
    /// The length of `principal` in bytes.
    pub principal_len: usize,
    /// The protocol version the connection negotiated in `initialize`, UTF-8; NULL with
    /// length 0 when there was no `initialize` (a 2026-07-28 request says its own
    /// version in `_meta`, which wins).
    pub protocol_version: *const c_char,
    /// The length of `protocol_version` in bytes.
    pub protocol_version_len: usize,
    /// The `capabilities` the client sent in `initialize`, UTF-8 JSON; NULL with length 0
    /// when there was none (a 2026-07-28 request carries its own in `_meta`, which win).
    pub client_capabilities: *const c_char,
    /// The length of `client_capabilities` in bytes.
    pub client_capabilities_len: usize,
    /// The time, in seconds since the Unix epoch (fractions allowed; `elicit_os_time`).
    pub now: f64,
    /// `ELICIT_SEAL_RANDOM_LEN` fresh bytes from a CSPRNG (`elicit_os_random`; a TRNG
    /// on a device) for sealing the state the request is answered with: the nonce, then
    /// the principal salt. Bytes, not text. Never reuse them.
    pub random: *const u8,
    /// The length of `random`: `ELICIT_SEAL_RANDOM_LEN`.
    pub random_len: usize,
}

/// NULL with length 0: a text left out.
const NONE: (*const c_char, usize) = (core::ptr::null(), 0);

impl elicit_request {
    /// For Rust callers of the C ABI (tests, fuzzers, the conformance runner): the request
    /// of `method` with `params` and `principal` at `now`, each text a `(ptr, len)` pair
    /// (`(null, 0)` for none), with no id, negotiated version, client capabilities or
    /// random bytes: set the fields a function reads besides these (`..new(...)`).
    pub const fn new(
        method: (*const c_char, usize),
        params: (*const c_char, usize),
        principal: (*const c_char, usize),
        now: f64,
    ) -> Self {
        elicit_request {
            id: NONE.0,
            id_len: NONE.1,
            method: method.0,
            method_len: method.1,
            params: params.0,
            params_len: params.1,
            principal: principal.0,
            principal_len: principal.1,
            protocol_version: NONE.0,
            protocol_version_len: NONE.1,
            client_capabilities: NONE.0,
            client_capabilities_len: NONE.1,
            now,
            random: core::ptr::null(),
            random_len: 0,
        }
    }
}

/// The texts of an `elicit_request`, read and checked (every error names its field).
#[doc(hidden)]
pub struct RequestTexts<'a> {
    /// `request.id`, when given.
    pub id: Option<&'a str>,
    /// `request.method`.
    pub method: &'a str,
    /// `request.params`, when given.
    pub params: Option<&'a str>,
    /// `request.principal`, when given.
    pub principal: Option<&'a str>,
    /// `request.protocol_version`, when given.
    pub protocol_version: Option<&'a str>,
    /// `request.client_capabilities`, when given.
    pub client_capabilities: Option<&'a str>,
}

impl elicit_request {
    /// Read every text of the request: `method` required, the others optional.
    ///
    /// # Safety
    /// Each `(ptr, len)` pair NULL or valid for `len` readable bytes for `'a`.
    #[doc(hidden)]
    pub unsafe fn texts<'a>(&self) -> Result<RequestTexts<'a>, Fail> {
        // SAFETY: forwarded from the caller's contract (every pair). Every pointer is
        // checked (NULL) before any text is (UTF-8).
        let [id, method, params, principal, protocol_version, client_capabilities] = unsafe {
            [
                optional_input(self.id.cast(), self.id_len, "request.id")?,
                Some(input(
                    self.method.cast(),
                    self.method_len,
                    "request.method",
                )?),
                optional_input(self.params.cast(), self.params_len, "request.params")?,
                optional_input(
                    self.principal.cast(),
                    self.principal_len,
                    "request.principal",
                )?,
                optional_input(
                    self.protocol_version.cast(),
                    self.protocol_version_len,
                    "request.protocol_version",
                )?,
                optional_input(
                    self.client_capabilities.cast(),
                    self.client_capabilities_len,
                    "request.client_capabilities",
                )?,
            ]
        };
        Ok(RequestTexts {
            id: text_of(id, "request.id")?,
            method: text_of(method, "request.method")?.unwrap_or_default(),
            params: text_of(params, "request.params")?,
            principal: text_of(principal, "request.principal")?,
            protocol_version: text_of(protocol_version, "request.protocol_version")?,
            client_capabilities: text_of(client_capabilities, "request.client_capabilities")?,
        })
    }
}

/// Optional bytes as UTF-8 text (the error names `what`).
fn text_of<'a>(bytes: Option<&'a [u8]>, what: &'static str) -> Result<Option<&'a str>, Fail> {
    bytes.map(|b| utf8(b, what)).transpose()
}

/// What a round starts from: the texts of one call to the plan's tool, for
/// `elicit_round_new_modern`, `elicit_round_new_handshake` and their heap-free
/// counterparts. Every text is UTF-8 JSON, not NUL-terminated.
#[repr(C)]
pub struct elicit_round_input {
    /// The call's `arguments` (a JSON object); required.
    pub arguments: *const c_char,
    /// The length of `arguments` in bytes.
    pub arguments_len: usize,
    /// 2026-07-28 only: the plaintext `requestState` (unsealed by the host:
    /// `elicit_sealer_unseal`), or NULL with length 0 when the request carried none.
    /// A plaintext state that cannot be read counts as no progress, never as an error;
    /// a sealed token passed here is refused (`ELICIT_ERR_INVALID_ARGUMENT`: unseal it).
    /// A handshake round takes none (NULL with length 0).
    pub request_state: *const c_char,
    /// The length of `request_state` in bytes.
    pub request_state_len: usize,
    /// 2026-07-28 only: the raw `inputResponses` JSON object, or NULL with length 0. A
    /// handshake round takes none.
    pub input_responses: *const c_char,
    /// The length of `input_responses` in bytes.
    pub input_responses_len: usize,
    /// The client's `ClientCapabilities` object: on 2026-07-28 as the request carried it
    /// (`_meta["io.modelcontextprotocol/clientCapabilities"]`), on the handshake era the
    /// `capabilities` of `initialize`. It says which kinds of request the round may
    /// show: `elicitation: {}` (or `elicitation.form`) is form elicitation,
    /// `elicitation.url` URL mode, `sampling` sampling, `roots` roots; text that is not a
    /// JSON object declares nothing. NULL with length 0 means form elicitation only (a
    /// round that would show another kind fails with `ELICIT_ERR_MISSING_CAPABILITY`
    /// before showing anything).
    pub client_capabilities: *const c_char,
    /// The length of `client_capabilities` in bytes.
    pub client_capabilities_len: usize,
}

impl elicit_round_input {
    /// For Rust callers of the C ABI: the input from `(ptr, len)` pairs (`(null, 0)` for
    /// a text left out).
    pub const fn new(
        arguments: (*const c_char, usize),
        request_state: (*const c_char, usize),
        input_responses: (*const c_char, usize),
        client_capabilities: (*const c_char, usize),
    ) -> Self {
        elicit_round_input {
            arguments: arguments.0,
            arguments_len: arguments.1,
            request_state: request_state.0,
            request_state_len: request_state.1,
            input_responses: input_responses.0,
            input_responses_len: input_responses.1,
            client_capabilities: client_capabilities.0,
            client_capabilities_len: client_capabilities.1,
        }
    }
}

/// The texts of an `elicit_round_input`, read and checked.
#[doc(hidden)]
pub struct RoundTexts<'a> {
    /// `input.arguments`.
    pub arguments: &'a str,
    /// `input.request_state`, when given.
    pub request_state: Option<&'a str>,
    /// `input.input_responses`, when given.
    pub input_responses: Option<&'a str>,
    /// `input.client_capabilities`, when given.
    pub client_capabilities: Option<&'a str>,
}

impl elicit_round_input {
    /// Read the texts. A handshake round (`modern` false) refuses a `request_state` or
    /// `input_responses`: they belong to 2026-07-28 requests.
    ///
    /// # Safety
    /// `round_input` NULL or valid for a read; each of its `(ptr, len)` pairs NULL or
    /// valid for `len` readable bytes for `'a`.
    #[doc(hidden)]
    pub unsafe fn read<'a>(round_input: *const Self, modern: bool) -> Result<RoundTexts<'a>, Fail> {
        // SAFETY: the caller guarantees NULL or a valid struct.
        let i = unsafe { round_input.as_ref() }.ok_or(Fail::null("input"))?;
        // SAFETY: forwarded from the caller's contract (every pair). Every pointer is
        // checked (NULL) before any text is (UTF-8).
        let [arguments, request_state, input_responses, client_capabilities] = unsafe {
            [
                Some(input(
                    i.arguments.cast(),
                    i.arguments_len,
                    "input.arguments",
                )?),
                optional_input(
                    i.request_state.cast(),
                    i.request_state_len,
                    "input.request_state",
                )?,
                optional_input(
                    i.input_responses.cast(),
                    i.input_responses_len,
                    "input.input_responses",
                )?,
                optional_input(
                    i.client_capabilities.cast(),
                    i.client_capabilities_len,
                    "input.client_capabilities",
                )?,
            ]
        };
        let texts = RoundTexts {
            arguments: text_of(arguments, "input.arguments")?.unwrap_or_default(),
            request_state: text_of(request_state, "input.request_state")?,
            input_responses: text_of(input_responses, "input.input_responses")?,
            client_capabilities: text_of(client_capabilities, "input.client_capabilities")?,
        };
        if !modern && (texts.request_state.is_some() || texts.input_responses.is_some()) {
            return Err(Fail::abi(
                crate::ELICIT_ERR_INVALID_ARGUMENT,
                "input.request_state and input.input_responses",
                "belong to 2026-07-28 requests; a handshake round takes neither (NULL with length 0)",
            ));
        }
        Ok(texts)
    }
}
