//! The C ABI's shared vocabulary: its version, the `elicit_result` codes, the one
//! mapping from the engine's errors to codes, and the step kinds. Both surfaces (the
//! hosted one in elicit-ffi and the heap-free one in this crate) use these and nothing
//! else.

use elicit_core::{CompileError, Error, Step};

// ------------------------------------------------------------------------- versions

/// Major version of the C ABI. A change here breaks existing callers.
pub const ELICIT_ABI_VERSION_MAJOR: u32 = 0;
/// Minor version of the C ABI. Before 1.0 a minor version may change signatures
/// (CHANGELOG.md says what each one changed); check `elicit_abi_version()` at start-up.
pub const ELICIT_ABI_VERSION_MINOR: u32 = 5;
/// Patch version of the C ABI: fixes with no interface change.
pub const ELICIT_ABI_VERSION_PATCH: u32 = 0;
/// The ABI version this header describes, as `(major << 16) | (minor << 8) | patch`;
/// compare it with `elicit_abi_version()` at start-up to detect a mismatched library.
pub const ELICIT_ABI_VERSION: u32 =
    (ELICIT_ABI_VERSION_MAJOR << 16) | (ELICIT_ABI_VERSION_MINOR << 8) | ELICIT_ABI_VERSION_PATCH;

/// The version of the linked library, as `(major << 16) | (minor << 8) | patch`; equal
/// to `ELICIT_ABI_VERSION` when the header and the library match.
///
/// Safe to call at any time from any thread.
#[no_mangle]
pub extern "C" fn elicit_abi_version() -> u32 {
    ELICIT_ABI_VERSION
}

// ---------------------------------------------------------------------- result codes

/// The result of every fallible call: 0 on success, otherwise one of the
/// `ELICIT_ERR_*` codes. Values are grouped and never reused:
///
/// - `0`: success;
/// - `1xx`: the caller broke the calling contract (a NULL pointer, text that is not
///   UTF-8, a buffer too small, a step answered out of order, ...); fix the host;
/// - `2xx`: the declaration was rejected by `elicit_plan_new`; fix the declaration;
/// - `3xx`: the call's inputs are invalid, or the client cannot take what the call
///   needs (`ELICIT_ERR_INPUT_RESPONSES` is the protocol's `-32602`,
///   `ELICIT_ERR_MISSING_CAPABILITY` its `-32021`);
/// - `4xx`: resolution failed: the tool call fails with the round's message (read it
///   with `elicit_round_last_error`), exactly as the reference fails it;
/// - `9xx`: a panic inside the library (the handle is now poisoned); `999` is reserved
///   (every engine error has its own code).
///
/// `elicit_result_str` names a code; the handle's last-error message gives the detail.
pub type elicit_result = u32;

/// Success.
pub const ELICIT_OK: elicit_result = 0;

/// A pointer argument that must not be NULL was NULL (or an optional input was NULL
/// with a non-zero length, or `buf` was NULL with a non-zero `cap`).
pub const ELICIT_ERR_NULL: elicit_result = 100;
/// A text input is not valid UTF-8.
pub const ELICIT_ERR_UTF8: elicit_result = 101;
/// The output buffer is too small; `*out_len` holds the number of bytes needed and the
/// buffer is left untouched.
pub const ELICIT_ERR_BUFFER_TOO_SMALL: elicit_result = 102;
/// The call does not fit the round's current step: a step answered out of order, an
/// output read before its step, or the drain rule broken (see `elicit_round_poll`).
/// Nothing changed; poll and follow the step it returns.
pub const ELICIT_ERR_WRONG_STEP: elicit_result = 103;
/// The round's workspace is full; nothing changed. Create rounds with a larger
/// `workspace_size`.
pub const ELICIT_ERR_WORKSPACE_FULL: elicit_result = 104;
/// A parameter or note index is out of range.
pub const ELICIT_ERR_INDEX: elicit_result = 105;
/// An argument has a value the call does not accept (unknown flag bits, a length
/// larger than `PTRDIFF_MAX`).
pub const ELICIT_ERR_INVALID_ARGUMENT: elicit_result = 106;
/// No parameter has the name given.
pub const ELICIT_ERR_NOT_FOUND: elicit_result = 107;
/// A size the caller asked for (inputs plus workspace) could not be allocated.
pub const ELICIT_ERR_TOO_LARGE: elicit_result = 108;
/// The host's resolver answer (value or question) is invalid. When the text is not
/// JSON, or not a question object, nothing changed and the step may be answered
/// again; when it is a question object the engine cannot use (a bad `type`, say), the
/// round has failed. `elicit_round_poll` tells which.
pub const ELICIT_ERR_RESOLVER_ANSWER: elicit_result = 109;
/// The value asked for has another JSON type than the call reads (e.g.
/// `elicit_round_resolve_input_int` on a string); nothing changed.
pub const ELICIT_ERR_WRONG_TYPE: elicit_result = 110;
/// Heap-free surface: the memory given for a plan, round or sealer is smaller than its
/// `elicit_noalloc_*_size()`; nothing was written. The message gives the size needed.
pub const ELICIT_ERR_MEMORY_TOO_SMALL: elicit_result = 111;
/// Heap-free surface: the memory given for a plan, round or sealer is not aligned to
/// `ELICIT_NOALLOC_ALIGN` bytes; nothing was written.
pub const ELICIT_ERR_MEMORY_ALIGN: elicit_result = 112;
/// Another thread is inside a call on the same round (or call) right now; nothing
/// changed. A round is used by one thread at a time: serialize the calls (or give each
/// thread its own round), then retry.
pub const ELICIT_ERR_BUSY: elicit_result = 113;
/// The `input_schema` given to `elicit_plan_input_schema` /
/// `elicit_noalloc_plan_input_schema` is not a JSON object; nothing was written. Pass
/// the tool's `inputSchema` as a client that can be asked sees it.
pub const ELICIT_ERR_INPUT_SCHEMA: elicit_result = 114;

/// The declaration is not valid JSON.
pub const ELICIT_ERR_DECLARATION_JSON: elicit_result = 200;
/// The declaration is JSON but not a valid declaration (the message names the place).
pub const ELICIT_ERR_DECLARATION: elicit_result = 201;
/// Two parameters share a name.
pub const ELICIT_ERR_DUPLICATE_NAME: elicit_result = 202;
/// A resolver needs a name that is neither an argument nor an elicited parameter.
pub const ELICIT_ERR_UNKNOWN_NEED: elicit_result = 203;
/// Resolvers need each other in a cycle (the message shows the path).
pub const ELICIT_ERR_CYCLE: elicit_result = 204;
/// A resolver's declared answer type contradicts its parameter's type.
pub const ELICIT_ERR_DECLARED_TYPE_MISMATCH: elicit_result = 205;
/// The tool declares elicited parameters and also returns its own InputRequiredResult.
pub const ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED: elicit_result = 206;
/// An answer type outside the MCP elicitation schema subset.
pub const ELICIT_ERR_UNSUPPORTED_SCHEMA: elicit_result = 207;
/// A fixed capacity was exceeded (more than `ELICIT_MAX_PARAMS` parameters, or a
/// resolver with too many needs).
pub const ELICIT_ERR_CAPACITY: elicit_result = 208;

/// The call's `arguments` are not a JSON object.
pub const ELICIT_ERR_ARGUMENTS: elicit_result = 300;
/// A model-supplied argument that a resolver needs is missing from the call.
pub const ELICIT_ERR_MISSING_ARGUMENT: elicit_result = 301;
/// `inputResponses` is malformed: answer the request with JSON-RPC error `-32602`.
pub const ELICIT_ERR_INPUT_RESPONSES: elicit_result = 302;
/// The request's `requestState` did not verify (`elicit_sealer_unseal`): answer with
/// JSON-RPC error `-32602` and the frozen message "Invalid or expired requestState"
/// (`ELICIT_REQUEST_STATE_ERROR_JSON`); the reason is for the log only.
pub const ELICIT_ERR_REQUEST_STATE: elicit_result = 303;
/// The round needs a kind of request the client did not declare in its
/// ClientCapabilities (URL-mode elicitation, sampling, roots, or form elicitation
/// itself); nothing was shown to the client. Answer the request with JSON-RPC error
/// `-32021` (HTTP status 400 on streamable HTTP), the round's message
/// (`elicit_round_last_error`) and `data.requiredCapabilities` =
/// `elicit_round_required_capabilities`.
pub const ELICIT_ERR_MISSING_CAPABILITY: elicit_result = 304;

/// A reply is a valid InputResponse (or handshake-era result) but not the result the
/// parameter's kind of request takes: e.g. a CreateMessageResult for a form question,
/// an ElicitResult with content for a URL-mode one, or an accepted ElicitResult for a
/// sampling or roots request. (Before ABI 0.3 this code was called
/// `ELICIT_ERR_NOT_ELICIT_RESULT`; the value is unchanged.)
pub const ELICIT_ERR_WRONG_REPLY: elicit_result = 400;
/// An `accept` reply carries no content.
pub const ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT: elicit_result = 401;
/// Accepted content does not match the requested schema.
pub const ELICIT_ERR_SCHEMA_MISMATCH: elicit_result = 402;
/// The user declined a required parameter (one with no default).
pub const ELICIT_ERR_DECLINED: elicit_result = 403;
/// The user cancelled a required parameter (one with no default).
pub const ELICIT_ERR_CANCELLED: elicit_result = 404;
/// The host reported with `elicit_round_resolve_failed` that a resolver's own
/// dependency could not be built.
pub const ELICIT_ERR_RESOLVER_DEPENDENCY: elicit_result = 405;

/// This call panicked inside the library. The handle it was given is now poisoned.
pub const ELICIT_ERR_PANIC: elicit_result = 900;
/// The handle is poisoned by an earlier panic; only `*_last_error` and `*_free` still
/// work on it.
pub const ELICIT_ERR_POISONED: elicit_result = 901;
/// Reserved: no engine error maps to it any more (every one has its own code); kept so
/// the value is never reused.
pub const ELICIT_ERR_OTHER: elicit_result = 999;

/// The code for an engine compile error: one arm per variant, no catch-all (the engine's
/// error enums are exhaustive, so a new variant does not compile here until it has a
/// code). The one mapping of compile errors, used by the hosted and the heap-free
/// surfaces alike.
#[doc(hidden)]
pub fn compile_code_of(e: &CompileError) -> elicit_result {
    match e {
        CompileError::DeclarationJson(_) => ELICIT_ERR_DECLARATION_JSON,
        CompileError::Declaration { .. } => ELICIT_ERR_DECLARATION,
        CompileError::DuplicateName { .. } => ELICIT_ERR_DUPLICATE_NAME,
        CompileError::UnknownNeed { .. } => ELICIT_ERR_UNKNOWN_NEED,
        CompileError::Cycle { .. } => ELICIT_ERR_CYCLE,
        CompileError::DeclaredTypeMismatch { .. } => ELICIT_ERR_DECLARED_TYPE_MISMATCH,
        CompileError::MixedWithInputRequired { .. } => ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED,
        CompileError::UnsupportedSchema { .. } => ELICIT_ERR_UNSUPPORTED_SCHEMA,
        CompileError::Capacity { .. } => ELICIT_ERR_CAPACITY,
    }
}

/// The code for an engine round error: one arm per variant, no catch-all (as
/// [`compile_code_of`]). The one mapping of round errors, used by the hosted and the
/// heap-free surfaces alike.
#[doc(hidden)]
pub fn code_of(e: &Error) -> elicit_result {
    match e {
        Error::Arguments { .. } => ELICIT_ERR_ARGUMENTS,
        Error::InputSchema { .. } => ELICIT_ERR_INPUT_SCHEMA,
        Error::MissingArgument { .. } => ELICIT_ERR_MISSING_ARGUMENT,
        Error::InputResponses { .. } => ELICIT_ERR_INPUT_RESPONSES,
        // The C ABI's handshake constructor takes no state or replies: only a Rust caller
        // can meet it.
        Error::HandshakeInputs { .. } => ELICIT_ERR_INVALID_ARGUMENT,
        // The host passed the request's sealed `requestState` where the plaintext goes.
        Error::SealedState => ELICIT_ERR_INVALID_ARGUMENT,
        Error::MissingCapability { .. } => ELICIT_ERR_MISSING_CAPABILITY,
        Error::WrongReply { .. } => ELICIT_ERR_WRONG_REPLY,
        Error::AcceptedWithoutContent { .. } => ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT,
        Error::SchemaMismatch { .. } => ELICIT_ERR_SCHEMA_MISMATCH,
        Error::Refused {
            cancelled: false, ..
        } => ELICIT_ERR_DECLINED,
        Error::Refused {
            cancelled: true, ..
        } => ELICIT_ERR_CANCELLED,
        Error::ResolverDependency { .. } => ELICIT_ERR_RESOLVER_DEPENDENCY,
        Error::WrongStep { .. } => ELICIT_ERR_WRONG_STEP,
        Error::ResolverAnswer { .. } => ELICIT_ERR_RESOLVER_ANSWER,
        Error::Workspace { .. } => ELICIT_ERR_WORKSPACE_FULL,
        Error::BufferTooSmall { .. } => ELICIT_ERR_BUFFER_TOO_SMALL,
    }
}

/// A static, NUL-terminated description of a result code (its name, a colon and a
/// sentence), e.g. `"ELICIT_ERR_NULL: a required pointer argument is NULL"`. Unknown
/// codes give `"unknown elicit_result code"`. Never NULL; the string is static: do not
/// free it.
///
/// Safe to call at any time from any thread.
#[no_mangle]
pub extern "C" fn elicit_result_str(code: elicit_result) -> *const core::ffi::c_char {
    result_cstr(code).as_ptr()
}

/// A static, NUL-terminated name of a result code alone, e.g. `"ELICIT_ERR_NULL"`
/// (the part of `elicit_result_str` before the colon). Unknown codes give
/// `"ELICIT_ERR_UNKNOWN"`. Never NULL; the string is static: do not free it.
///
/// Safe to call at any time from any thread.
#[no_mangle]
pub extern "C" fn elicit_result_name(code: elicit_result) -> *const core::ffi::c_char {
    result_name(code).as_ptr()
}

/// The static "NAME: sentence" text of a code (`elicit_result_str`'s).
#[doc(hidden)]
pub fn result_cstr(code: elicit_result) -> &'static core::ffi::CStr {
    row(code)
        .and_then(|i| nth(&TEXTS, i))
        .unwrap_or(c"unknown elicit_result code")
}

/// The static name of a code (`elicit_result_name`'s).
#[doc(hidden)]
pub fn result_name(code: elicit_result) -> &'static core::ffi::CStr {
    row(code)
        .and_then(|i| nth(&NAMES, i))
        .unwrap_or(c"ELICIT_ERR_UNKNOWN")
}

/// The row of `code` in the tables below.
fn row(code: elicit_result) -> Option<usize> {
    CODES.iter().position(|c| *c == code)
}

/// The `i`-th of the NUL-terminated strings laid one after the other in `blob`.
fn nth(blob: &'static [u8], i: usize) -> Option<&'static core::ffi::CStr> {
    // One pass: the string starts after the `i`-th NUL and ends at the next one (a plain
    // loop; split_inclusive and from_bytes_until_nul took 248 B of flash on a device).
    let mut left = i;
    let mut start = 0;
    for (at, b) in blob.iter().enumerate() {
        if *b != 0 {
            continue;
        }
        if left == 0 {
            let text = blob.get(start..=at)?;
            // SAFETY: `text` ends with its only NUL (`at` is the first NUL after `start`).
            return Some(unsafe { core::ffi::CStr::from_bytes_with_nul_unchecked(text) });
        }
        left -= 1;
        start = at + 1;
    }
    None
}

/// The name and the "NAME: sentence" description of a known code.
#[cfg(test)]
fn describe(code: elicit_result) -> Option<(&'static core::ffi::CStr, &'static core::ffi::CStr)> {
    row(code).map(|_| (result_name(code), result_cstr(code)))
}

/// `s` as a byte array of its length (compile time only).
const fn bytes<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        // Evaluated at compile time: an index out of range would fail the build.
        #[allow(clippy::indexing_slicing)]
        {
            out[i] = s.as_bytes()[i];
        }
        i += 1;
    }
    out
}

/// Every code, its name and its description, as three tables built from one list (each
/// name and description at compile time from the constant's name, so they cannot
/// drift). The names and the descriptions are each one static array of NUL-terminated
/// strings rather than string literals: literals share one section with every other
/// literal of the library, which the linker keeps or drops whole, while an array has a
/// section of its own, so an image that never asks for the descriptions
/// (`elicit_result_str`, about 3 KB) does not link them.
macro_rules! codes {
    ($($name:ident => $sentence:literal,)*) => {
        static CODES: &[elicit_result] = &[$($name,)*];
        const NAMES_TEXT: &str = concat!($(stringify!($name), "\0",)*);
        static NAMES: [u8; NAMES_TEXT.len()] = bytes(NAMES_TEXT);
        const TEXTS_TEXT: &str = concat!($(stringify!($name), ": ", $sentence, "\0",)*);
        static TEXTS: [u8; TEXTS_TEXT.len()] = bytes(TEXTS_TEXT);
    };
}

codes! {
    ELICIT_OK => "success",
    ELICIT_ERR_NULL => "a required pointer argument is NULL",
    ELICIT_ERR_UTF8 => "a text input is not valid UTF-8",
    ELICIT_ERR_BUFFER_TOO_SMALL => "the output buffer is too small; *out_len holds the size needed",
    ELICIT_ERR_WRONG_STEP => "the call does not fit the round's current step; poll and follow the step",
    ELICIT_ERR_WORKSPACE_FULL => "the round's workspace is full; use a larger workspace_size",
    ELICIT_ERR_INDEX => "an index is out of range",
    ELICIT_ERR_INVALID_ARGUMENT => "an argument has a value the call does not accept",
    ELICIT_ERR_NOT_FOUND => "no parameter has that name",
    ELICIT_ERR_TOO_LARGE => "the requested size cannot be allocated",
    ELICIT_ERR_RESOLVER_ANSWER => "the host's resolver answer is invalid",
    ELICIT_ERR_WRONG_TYPE => "the value has another JSON type than the call reads",
    ELICIT_ERR_MEMORY_TOO_SMALL => "the memory given is smaller than the *_size() query says",
    ELICIT_ERR_MEMORY_ALIGN => "the memory given is not aligned to ELICIT_NOALLOC_ALIGN",
    ELICIT_ERR_BUSY => "another thread is using the handle right now; nothing changed",
    ELICIT_ERR_INPUT_SCHEMA => "the input_schema given is not a JSON object",
    ELICIT_ERR_DECLARATION_JSON => "the declaration is not valid JSON",
    ELICIT_ERR_DECLARATION => "the declaration is invalid",
    ELICIT_ERR_DUPLICATE_NAME => "two parameters share a name",
    ELICIT_ERR_UNKNOWN_NEED => "a resolver needs a name that is not a parameter",
    ELICIT_ERR_CYCLE => "resolvers need each other in a cycle",
    ELICIT_ERR_DECLARED_TYPE_MISMATCH => "a resolver's declared type contradicts its parameter",
    ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED => "elicited parameters and a hand-returned InputRequiredResult",
    ELICIT_ERR_UNSUPPORTED_SCHEMA => "an answer type outside the MCP elicitation subset",
    ELICIT_ERR_CAPACITY => "a fixed capacity was exceeded",
    ELICIT_ERR_ARGUMENTS => "the call's arguments are not a JSON object",
    ELICIT_ERR_MISSING_ARGUMENT => "an argument a resolver needs is missing",
    ELICIT_ERR_INPUT_RESPONSES => "inputResponses is malformed (JSON-RPC -32602)",
    ELICIT_ERR_REQUEST_STATE => "Invalid or expired requestState",
    ELICIT_ERR_MISSING_CAPABILITY => "the client did not declare a capability the round needs (JSON-RPC -32021)",
    ELICIT_ERR_WRONG_REPLY => "a reply is not the result its kind of request takes",
    ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT => "an accepted answer carries no content",
    ELICIT_ERR_SCHEMA_MISMATCH => "an answer does not match the requested schema",
    ELICIT_ERR_DECLINED => "a required parameter was declined",
    ELICIT_ERR_CANCELLED => "a required parameter was cancelled",
    ELICIT_ERR_RESOLVER_DEPENDENCY => "a resolver's dependency could not be built",
    ELICIT_ERR_PANIC => "a panic occurred inside the library; the handle is poisoned",
    ELICIT_ERR_POISONED => "the handle is poisoned by an earlier panic",
    ELICIT_ERR_OTHER => "reserved: no error maps to this code",
}

// ------------------------------------------------------------------------ steps

/// Step kind from `elicit_round_poll`: run the resolver of parameter `*param` with the
/// inputs from `elicit_round_resolve_inputs`, then answer with
/// `elicit_round_resolve_value`, `elicit_round_resolve_question` or
/// `elicit_round_resolve_failed`.
pub const ELICIT_STEP_RESOLVE: u32 = 1;
/// Step kind (handshake era only): send the request whose params `elicit_round_ask`
/// writes for parameter `*param` to the client, with the method of the parameter's
/// kind (`elicit_plan_param_kind`: `elicitation/create` for form and URL mode,
/// `sampling/createMessage`, `roots/list`), then pass the client's result to
/// `elicit_round_answer`.
pub const ELICIT_STEP_ASK: u32 = 2;
/// Terminal step kind: every elicited parameter is settled; read them with
/// `elicit_round_values` (or `elicit_round_value_of`) and run the tool body.
pub const ELICIT_STEP_DONE: u32 = 3;
/// Terminal step kind (modern era): questions remain; answer the call with an
/// InputRequiredResult built from `elicit_round_input_requests` and (sealed)
/// `elicit_round_request_state`.
pub const ELICIT_STEP_INPUT_REQUIRED: u32 = 4;
/// Step kind of the call level (`elicit_call_next`): the reply is written; send
/// `elicit_call_reply` as the request's response.
pub const ELICIT_STEP_REPLY: u32 = 5;
/// Terminal step kind, for a plan declared with `"fallback": "arguments"` only
/// (docs/fallback.md): the client cannot be asked for a parameter that must still be
/// answered, and the call's arguments do not answer it. Answer the call with the tool
/// result `elicit_round_fallback_result` writes (a `CallToolResult` with
/// `isError: true` telling the model what to ask the user), not a JSON-RPC error.
pub const ELICIT_STEP_FALLBACK: u32 = 6;

/// The `*param` that `elicit_round_poll` writes with `ELICIT_STEP_DONE`,
/// `ELICIT_STEP_INPUT_REQUIRED` and `ELICIT_STEP_FALLBACK`, which concern no single
/// parameter.
// The cast is what makes cbindgen write `(size_t)~0` (it cannot write usize::MAX).
#[allow(clippy::unnecessary_cast)]
pub const ELICIT_NO_PARAM: usize = !0 as usize;

/// Flag for `elicit_round_input_requests`: render the requests the way the MCP SDK's
/// 2026-07-28 client-side model serializes them (`message` first, no top-level schema
/// `title`). Without it, the server wire form that the digests are computed over.
pub const ELICIT_REQUESTS_CLIENT_VIEW: u32 = 1;

/// The step kind and parameter index `*_poll` writes for an engine step: the one mapping,
/// used by both surfaces.
#[doc(hidden)]
pub fn step_code(step: Step) -> (u32, usize) {
    match step {
        Step::Resolve { param } => (ELICIT_STEP_RESOLVE, param),
        Step::Ask { param } => (ELICIT_STEP_ASK, param),
        Step::Done => (ELICIT_STEP_DONE, ELICIT_NO_PARAM),
        Step::InputRequired => (ELICIT_STEP_INPUT_REQUIRED, ELICIT_NO_PARAM),
        Step::Fallback => (ELICIT_STEP_FALLBACK, ELICIT_NO_PARAM),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_name_and_a_description() {
        for code in (0..1000).filter(|c| describe(*c).is_some()) {
            let (name, full) = describe(code).unwrap();
            let (name, full) = (name.to_str().unwrap(), full.to_str().unwrap());
            assert!(name.starts_with("ELICIT_"), "{name}");
            assert!(
                full.starts_with(name) && full[name.len()..].starts_with(": "),
                "{full}"
            );
        }
        assert_eq!(describe(12345), None);
    }

    /// Every `ELICIT_OK` / `ELICIT_ERR_*` constant the header declares has a distinct
    /// value, a name and a description, and every engine error maps to one of them,
    /// never to the reserved `ELICIT_ERR_OTHER`.
    #[test]
    fn the_header_codes_are_named_distinct_and_reached() {
        extern crate std;
        use std::collections::BTreeMap;
        let header = include_str!("../include/elicit_noalloc.h");
        let mut codes: BTreeMap<u32, &str> = BTreeMap::new();
        for line in header.lines() {
            let Some(rest) = line.strip_prefix("#define ELICIT_") else {
                continue;
            };
            let mut parts = rest.split_whitespace();
            let (Some(name), Some(value)) = (parts.next(), parts.next()) else {
                continue;
            };
            if !(name == "OK" || name.starts_with("ERR_")) {
                continue;
            }
            let value: u32 = value
                .trim_matches(|c| c == '(' || c == ')')
                .parse()
                .unwrap();
            assert!(codes.insert(value, name).is_none(), "{name} reuses {value}");
            let (cname, _) = describe(value).unwrap_or_else(|| panic!("{name} has no text"));
            assert_eq!(cname.to_str().unwrap(), std::format!("ELICIT_{name}"));
        }
        assert!(codes.len() >= 37, "{codes:?}");
        for code in 0..1000 {
            assert_eq!(
                describe(code).is_some(),
                codes.contains_key(&code),
                "{code}"
            );
        }
        let name = elicit_core::error::Name::truncated("x");
        // A problem text as the engine makes one (arguments that are not an object).
        let plan: elicit_core::Plan<'_, 4> = elicit_core::Plan::compile(
            r#"{"parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#,
        )
        .unwrap();
        let mut ws = [0u8; 16];
        let inputs = elicit_core::Inputs::modern("[]", None, None);
        let Err(Error::Arguments { problem }) =
            elicit_core::Round::new(&plan, elicit_core::Era::Modern, inputs, &mut ws)
        else {
            panic!("arguments that are not an object");
        };
        let errors = [
            Error::Arguments { problem },
            Error::InputSchema { problem },
            Error::MissingArgument { name },
            Error::InputResponses { key: name, problem },
            Error::HandshakeInputs {
                input: "requestState",
            },
            Error::SealedState,
            Error::MissingCapability {
                param: name,
                kind: elicit_core::InputKind::Url,
                resolver: false,
                missing: elicit_core::Capabilities::NONE,
            },
            Error::WrongReply {
                param: name,
                kind: elicit_core::InputKind::Form,
            },
            Error::AcceptedWithoutContent { param: name },
            Error::SchemaMismatch { param: name },
            Error::Refused {
                param: name,
                cancelled: false,
            },
            Error::Refused {
                param: name,
                cancelled: true,
            },
            Error::ResolverDependency {
                param: name,
                dependency: name,
            },
            Error::WrongStep {
                expected: "a",
                got: "b",
            },
            Error::ResolverAnswer {
                param: name,
                problem,
            },
            Error::Workspace { needed: 1 },
            Error::BufferTooSmall { needed: 1 },
        ];
        for e in errors {
            let code = code_of(&e);
            assert!(
                codes.contains_key(&code) && code != ELICIT_ERR_OTHER,
                "{e:?}"
            );
        }
    }
}
