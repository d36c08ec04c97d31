//! The call level: an MCP request's envelope, read and written once for every surface.
//!
//! A round takes texts (arguments, `inputResponses`, a plaintext state, capabilities);
//! an MCP server receives a request (`method`, `params`) and answers a reply. The work
//! between the two is the same for every host, so it lives here, `no_std` and sans-IO,
//! for the C ABI's call level, the heap-free surfaces and the bindings:
//!
//! - [`Request::parse`] reads `params` exactly as received: the target (a tool's or
//!   prompt's `name`, a resource's `uri`), `arguments`, `inputResponses`,
//!   `requestState`, and from `_meta` the protocol version and the client's
//!   capabilities ([`Request::era`], [`Request::capabilities`]);
//! - the writers put each reply's JSON into a [`Sink`]: the `InputRequiredResult`
//!   ([`write_input_required`]), the JSON-RPC error objects ([`write_error`],
//!   [`write_request_state_error`], and [`write_failure`], which decides the reply for
//!   any round error), and the complete results from the body's text
//!   ([`write_text_result`]).
//!
//! A reply is either the `result` or the `error` member of the JSON-RPC response
//! ([`Reply`]); the host adds `jsonrpc` and `id`. The exact JSON of each reply is in
//! docs/c-abi.md ("The call level").

use core::fmt::{self, Write as _};

use crate::json::{put_plain, write_str, Kind, Sink, Str, Value};
use crate::{Capabilities, Era, Error, Round};

/// The `_meta` key of the client's `ClientCapabilities` on a 2026-07-28 request.
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the protocol version on a 2026-07-28 request.
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// The first protocol version of the modern era (batched `InputRequiredResult` rounds).
pub const FIRST_MODERN_VERSION: &str = "2026-07-28";
/// The first protocol version with `elicitation/create`: a client that negotiated an
/// older one cannot be asked, whatever it declared.
pub const FIRST_ELICITATION_VERSION: &str = "2025-06-18";
/// JSON-RPC "Invalid params": a malformed request, `inputResponses` or `requestState`,
/// and (prompts and resources) a call that failed.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC "Internal error": the host broke the engine's protocol (never the client's
/// fault; its detail is for the host's log, the client reads "Internal error").
pub const INTERNAL_ERROR: i32 = -32603;
/// MCP's "missing required client capability" (HTTP status 400 on HTTP).
pub const MISSING_CAPABILITY: i32 = -32021;

/// The requests that run a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `tools/call`: the target is `params.name`.
    ToolsCall,
    /// `prompts/get`: the target is `params.name`.
    PromptsGet,
    /// `resources/read`: the target is `params.uri`; a resource has no arguments.
    ResourcesRead,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 3] = [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead];

    /// The method named `name`, if it is one of the three.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::ToolsCall => "tools/call",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesRead => "resources/read",
        }
    }

    /// The `params` member naming the target: `name`, or `uri` for a resource.
    pub fn target_key(self) -> &'static str {
        match self {
            Method::ResourcesRead => "uri",
            Method::ToolsCall | Method::PromptsGet => "name",
        }
    }
}

/// Why a request's `params` cannot be read: answered with JSON-RPC `-32602` and this
/// text ([`write_error`] with [`INVALID_PARAMS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    /// The method is not `tools/call`, `prompts/get` or `resources/read`.
    Method,
    /// `params` is not a JSON object.
    Params,
    /// The target (`name`, or `uri` for a resource) is missing or not a string.
    Target(Method),
    /// `arguments` is present but neither an object nor `null`.
    Arguments(Method),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Method => f.write_str(
                "the method must be tools/call, prompts/get or resources/read to run a \
                 declaration",
            ),
            RequestError::Params => f.write_str("params must be a JSON object"),
            RequestError::Target(m) => {
                write!(f, "{} needs a string \"{}\"", m.as_str(), m.target_key())
            }
            RequestError::Arguments(m) => {
                write!(f, "{} \"arguments\" must be an object", m.as_str())
            }
        }
    }
}

/// A request's `params`, read once: every piece a call needs, borrowed from the text.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    method: Method,
    params: Value<'a>,
    target: Str<'a>,
    arguments: Option<Value<'a>>,
    input_responses: Option<Value<'a>>,
    request_state: Option<Value<'a>>,
    meta: Option<Value<'a>>,
}

/// A member of `v` that is present and not `null`.
fn present<'a>(v: Option<Value<'a>>, key: &str) -> Option<Value<'a>> {
    v?.get(key).filter(|x| !x.is_null())
}

impl<'a> Request<'a> {
    /// Read `params` (the request's `params` JSON exactly as received) of a request
    /// with `method`.
    pub fn parse(method: &str, params: &'a str) -> Result<Self, RequestError> {
        let method = Method::parse(method).ok_or(RequestError::Method)?;
        let params = Value::parse(params).map_err(|_| RequestError::Params)?;
        if params.kind() != Kind::Object {
            return Err(RequestError::Params);
        }
        let target = params
            .get(method.target_key())
            .and_then(Value::as_str)
            .ok_or(RequestError::Target(method))?;
        let arguments = match present(Some(params), "arguments") {
            Some(a) if a.kind() == Kind::Object => Some(a),
            Some(_) => return Err(RequestError::Arguments(method)),
            None => None,
        };
        Ok(Request {
            method,
            params,
            target,
            arguments,
            input_responses: present(Some(params), "inputResponses"),
            request_state: present(Some(params), "requestState"),
            meta: present(Some(params), "_meta").filter(|m| m.kind() == Kind::Object),
        })
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The whole `params` object (what a sealed state is bound to).
    pub fn params(&self) -> Value<'a> {
        self.params
    }

    /// The target: the tool's or prompt's `name`, or the resource's `uri`.
    pub fn target(&self) -> Str<'a> {
        self.target
    }

    /// The `arguments` object as received, `"{}"` when absent or `null`.
    pub fn arguments(&self) -> &'a str {
        self.arguments.map_or("{}", Value::raw)
    }

    /// `inputResponses` as received (any JSON: the round checks it), `None` when absent
    /// or `null`.
    pub fn input_responses(&self) -> Option<&'a str> {
        self.input_responses.map(Value::raw)
    }

    /// `requestState` as received (a JSON string when well-formed), `None` when absent
    /// or `null`.
    pub fn request_state(&self) -> Option<Value<'a>> {
        self.request_state
    }

    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when the request carries it.
    pub fn protocol_version(&self) -> Option<Str<'a>> {
        present(self.meta, PROTOCOL_VERSION_META).and_then(Value::as_str)
    }

    /// The era the request is served in: the version in its own `_meta`, else the one
    /// the connection negotiated (`initialize`); modern from 2026-07-28 on, handshake
    /// before it and when neither says.
    pub fn era(&self, negotiated: Option<&str>) -> Era {
        let modern = |v: &str| v >= FIRST_MODERN_VERSION;
        match self.protocol_version() {
            // A version is plain ASCII: one written with escapes is no version.
            Some(v) if !v.raw().contains('\\') => {
                if modern(v.raw()) {
                    Era::Modern
                } else {
                    Era::Handshake
                }
            }
            _ if negotiated.is_some_and(modern) => Era::Modern,
            _ => Era::Handshake,
        }
    }

    /// The kinds of request the client declared: on 2026-07-28 its `_meta` capabilities
    /// (else `from_initialize`), on the handshake era the `capabilities` it sent in
    /// `initialize` (`from_initialize`, JSON text; `None` declares nothing). Read as the
    /// MCP Python SDK reads them ([`Capabilities::from_client_json`]); a connection
    /// that negotiated a version before 2025-06-18 has no `elicitation/create`.
    pub fn capabilities(
        &self,
        era: Era,
        from_initialize: Option<&str>,
        negotiated: Option<&str>,
    ) -> Capabilities {
        let own = match era {
            Era::Modern => present(self.meta, CLIENT_CAPABILITIES_META),
            Era::Handshake => None,
        };
        let mut caps = match (own, from_initialize) {
            (Some(v), _) => Capabilities::from_value(v),
            (None, Some(text)) => Capabilities::from_client_json(text),
            (None, None) => Capabilities::NONE,
        };
        if era == Era::Handshake && negotiated.is_some_and(|v| v < FIRST_ELICITATION_VERSION) {
            let elicitation = Capabilities::NONE
                .with(crate::InputKind::Form)
                .with(crate::InputKind::Url);
            caps = caps.without(elicitation);
        }
        caps
    }
}

/// Which member of the JSON-RPC response a reply is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The `result` member.
    Result,
    /// The `error` member.
    Error,
}

/// A [`fmt::Write`] that puts what it is given as the contents of a JSON string.
struct Escaped<'s>(&'s mut dyn Sink);

impl fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        put_plain(s, false, self.0);
        Ok(())
    }
}

/// `"<display>"`: a value's text as a JSON string.
fn put_display(text: &dyn fmt::Display, out: &mut dyn Sink) {
    out.put(b"\"");
    // Escaped never fails.
    let _ = write!(Escaped(out), "{text}");
    out.put(b"\"");
}

/// A JSON-RPC error object, `{"code":code,"message":"..."}`, the message escaped.
pub fn write_error(code: i32, message: &dyn fmt::Display, out: &mut dyn Sink) {
    out.put(b"{\"code\":");
    crate::json::write_i64(i64::from(code), out);
    out.put(b",\"message\":");
    put_display(message, out);
    out.put(b"}");
}

/// The error object for a `requestState` that did not verify: the MCP Python SDK's
/// frozen `{"code":-32602,"message":"Invalid or expired requestState",
/// "data":{"reason":"invalid_request_state"}}` (the reason why is for the host's log).
pub fn write_request_state_error(out: &mut dyn Sink) {
    out.put(
        b"{\"code\":-32602,\"message\":\"Invalid or expired requestState\",\
          \"data\":{\"reason\":\"invalid_request_state\"}}",
    );
}

/// The reply after [`crate::Step::InputRequired`] (2026-07-28):
/// `{"resultType":"input_required","inputRequests":{...},"requestState":"<token>"}`,
/// the requests in resolution order as the client sees them (a schema's top-level
/// `title` left out, as the MCP SDK's serializer does), `token` the sealed state.
pub fn write_input_required<const N: usize>(
    round: &Round<'_, '_, N>,
    token: &str,
    out: &mut dyn Sink,
) -> Result<(), Error> {
    // Check the step before anything is written.
    round.write_input_requests(true, &mut crate::json::CountSink::default())?;
    out.put(b"{\"resultType\":\"input_required\",\"inputRequests\":");
    round.write_input_requests(true, out)?;
    out.put(b",\"requestState\":");
    write_str(token, false, out);
    out.put(b"}");
    Ok(())
}

/// The reply for a round that failed with `e`, and which member it is:
/// - a capability the client did not declare: `-32021` with
///   `data.requiredCapabilities` (nothing was shown);
/// - malformed `inputResponses`: `-32602` with the message;
/// - bad arguments and failed resolution (declined, cancelled, an answer outside the
///   schema, ...): for `tools/call` a tool result with `isError: true` and the message
///   (the model reads it), for prompts and resources `-32602` with the message;
/// - the host breaking the engine's protocol (out of order, workspace full, a sealed
///   token as the state, ...): `-32603` "Internal error" (log `e` for the detail).
pub fn write_failure(method: Method, era: Era, e: &Error, out: &mut dyn Sink) -> Reply {
    match e {
        Error::MissingCapability { missing, .. } => {
            out.put(b"{\"code\":-32021,\"message\":");
            put_display(e, out);
            out.put(b",\"data\":{\"requiredCapabilities\":");
            missing.write_json(out);
            out.put(b"}}");
            Reply::Error
        }
        Error::InputResponses { .. } => {
            write_error(INVALID_PARAMS, e, out);
            Reply::Error
        }
        Error::Arguments { .. }
        | Error::MissingArgument { .. }
        | Error::WrongReply { .. }
        | Error::AcceptedWithoutContent { .. }
        | Error::SchemaMismatch { .. }
        | Error::Refused { .. }
        | Error::ResolverDependency { .. } => {
            if method == Method::ToolsCall {
                write_tool_result(era, e, true, out);
                Reply::Result
            } else {
                write_error(INVALID_PARAMS, e, out);
                Reply::Error
            }
        }
        Error::HandshakeInputs { .. }
        | Error::SealedState
        | Error::WrongStep { .. }
        | Error::ResolverAnswer { .. }
        | Error::Workspace { .. }
        | Error::BufferTooSmall { .. }
        | Error::InputSchema { .. } => {
            write_error(INTERNAL_ERROR, &"Internal error", out);
            Reply::Error
        }
    }
}

/// The JSON-RPC error code of the reply [`write_failure`] writes for `e` for `method`;
/// `None` when it is a result.
pub fn failure_code(method: Method, e: &Error) -> Option<i32> {
    match e {
        Error::MissingCapability { .. } => Some(MISSING_CAPABILITY),
        Error::InputResponses { .. } => Some(INVALID_PARAMS),
        Error::Arguments { .. }
        | Error::MissingArgument { .. }
        | Error::WrongReply { .. }
        | Error::AcceptedWithoutContent { .. }
        | Error::SchemaMismatch { .. }
        | Error::Refused { .. }
        | Error::ResolverDependency { .. } => {
            (method != Method::ToolsCall).then_some(INVALID_PARAMS)
        }
        Error::HandshakeInputs { .. }
        | Error::SealedState
        | Error::WrongStep { .. }
        | Error::ResolverAnswer { .. }
        | Error::Workspace { .. }
        | Error::BufferTooSmall { .. }
        | Error::InputSchema { .. } => Some(INTERNAL_ERROR),
    }
}

/// The reply after [`crate::Step::Fallback`] (a declared fallback, docs/fallback.md):
/// for `tools/call` the round's fallback result ([`Round::write_fallback_result`], a
/// tool result with `isError: true`); a prompt or resource has no such result, so it
/// gets `-32602` saying what it needs.
pub fn write_fallback<const N: usize>(
    method: Method,
    round: &Round<'_, '_, N>,
    out: &mut dyn Sink,
) -> Result<Reply, Error> {
    if method == Method::ToolsCall {
        round.write_fallback_result(out)?;
        return Ok(Reply::Result);
    }
    write_error(
        INVALID_PARAMS,
        &"The client cannot be asked for what this request needs, and the declared fallback serves tools/call only",
        out,
    );
    Ok(Reply::Error)
}

/// `,"resultType":"complete"` on 2026-07-28, nothing on the handshake era.
fn put_complete(era: Era, out: &mut dyn Sink) {
    if era == Era::Modern {
        out.put(b",\"resultType\":\"complete\"");
    }
}

/// A tool result holding one text: `{"content":[{"type":"text","text":"..."}],
/// "isError":false}` (`true` for an error), with `"resultType":"complete"` on
/// 2026-07-28.
fn write_tool_result(era: Era, text: &dyn fmt::Display, is_error: bool, out: &mut dyn Sink) {
    out.put(b"{\"content\":[{\"type\":\"text\",\"text\":");
    put_display(text, out);
    out.put(if is_error {
        b"}],\"isError\":true"
    } else {
        b"}],\"isError\":false"
    });
    put_complete(era, out);
    out.put(b"}");
}

/// The complete result of a settled call from the body's `text`, per method:
/// - `tools/call`: `{"content":[{"type":"text","text":"..."}],"isError":false}`;
/// - `prompts/get`: `{"messages":[{"role":"user","content":{"type":"text","text":"..."}}]}`;
/// - `resources/read`: `{"contents":[{"uri":"<the request's uri>","text":"..."}]}`;
///
/// each with `"resultType":"complete"` on 2026-07-28. `is_error` marks a tool body's
/// own failure (`isError: true`; ignored for prompts and resources).
pub fn write_text_result(
    request: &Request<'_>,
    era: Era,
    text: &str,
    is_error: bool,
    out: &mut dyn Sink,
) {
    match request.method {
        Method::ToolsCall => write_tool_result(era, &text, is_error, out),
        Method::PromptsGet => {
            out.put(b"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
            write_str(text, false, out);
            out.put(b"}}]");
            put_complete(era, out);
            out.put(b"}");
        }
        Method::ResourcesRead => {
            out.put(b"{\"contents\":[{\"uri\":");
            crate::json::write_json_str(request.target, false, out);
            out.put(b",\"text\":");
            write_str(text, false, out);
            out.put(b"}]");
            put_complete(era, out);
            out.put(b"}");
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use super::*;
    use crate::{Inputs, Plan, Step};

    fn text(f: impl FnOnce(&mut dyn Sink)) -> String {
        let mut out: Vec<u8> = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_request_is_read_from_params_as_received() {
        let params = r#"{"name":"book","arguments":{"a":1},"inputResponses":{"x":{"action":"decline"}},"requestState":"v1.abc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}}"#;
        let r = Request::parse("tools/call", params).unwrap();
        assert_eq!(r.method(), Method::ToolsCall);
        assert!(r.target().eq_str("book"));
        assert_eq!(r.arguments(), r#"{"a":1}"#);
        assert_eq!(r.input_responses(), Some(r#"{"x":{"action":"decline"}}"#));
        assert_eq!(r.request_state().unwrap().raw(), r#""v1.abc""#);
        assert_eq!(r.era(None), Era::Modern);
        let caps = r.capabilities(Era::Modern, None, None);
        assert!(caps.contains(crate::InputKind::Url) && !caps.contains(crate::InputKind::Form));
        // No arguments, null pieces, the era from the connection.
        let r = Request::parse(
            "prompts/get",
            r#"{"name":"p","arguments":null,"requestState":null}"#,
        )
        .unwrap();
        assert_eq!(r.arguments(), "{}");
        assert!(r.request_state().is_none() && r.input_responses().is_none());
        assert_eq!(r.era(None), Era::Handshake);
        assert_eq!(r.era(Some("2026-07-28")), Era::Modern);
        assert_eq!(r.era(Some("2025-11-25")), Era::Handshake);
        let caps = r.capabilities(
            Era::Handshake,
            Some(r#"{"elicitation":{}}"#),
            Some("2025-11-25"),
        );
        assert_eq!(caps, Capabilities::FORM);
        let old = r.capabilities(
            Era::Handshake,
            Some(r#"{"elicitation":{},"roots":{}}"#),
            Some("2025-03-26"),
        );
        assert!(!old.contains(crate::InputKind::Form) && old.contains(crate::InputKind::Roots));
        let r = Request::parse("resources/read", r#"{"uri":"booking://itinerary"}"#).unwrap();
        assert!(r.target().eq_str("booking://itinerary"));
    }

    #[test]
    fn malformed_requests_say_what_is_wrong() {
        let cases = [
            (
                "tools/list",
                "{}",
                "the method must be tools/call, prompts/get or resources/read to run a declaration",
            ),
            ("tools/call", "[]", "params must be a JSON object"),
            ("tools/call", "{", "params must be a JSON object"),
            (
                "tools/call",
                r#"{"name":3}"#,
                "tools/call needs a string \"name\"",
            ),
            (
                "resources/read",
                r#"{"name":"x"}"#,
                "resources/read needs a string \"uri\"",
            ),
            (
                "prompts/get",
                r#"{"name":"x","arguments":[1]}"#,
                "prompts/get \"arguments\" must be an object",
            ),
        ];
        for (method, params, message) in cases {
            let e = Request::parse(method, params).unwrap_err();
            assert_eq!(std::format!("{e}"), message);
            assert_eq!(
                text(|o| write_error(INVALID_PARAMS, &e, o)),
                std::format!("{{\"code\":-32602,\"message\":{message:?}}}")
            );
        }
    }

    #[test]
    fn each_reply_has_its_exact_json() {
        const DECL: &str =
            r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X \"now\"?"}}]}"#;
        let plan: Plan<'_, 4> = Plan::compile(DECL).unwrap();
        let mut ws = [0u8; 256];
        let mut round = Round::new(&plan, Era::Modern, Inputs::default(), &mut ws).unwrap();
        assert_eq!(round.poll(), Ok(Step::InputRequired));
        assert_eq!(
            text(|o| write_input_required(&round, "v1.tok", o).unwrap()),
            r#"{"resultType":"input_required","inputRequests":{"x":{"method":"elicitation/create","params":{"message":"X \"now\"?","mode":"form","requestedSchema":{"properties":{"value":{"title":"Value","type":"string"}},"required":["value"],"type":"object"}}}},"requestState":"v1.tok"}"#
        );
        let tool = Request::parse("tools/call", r#"{"name":"t"}"#).unwrap();
        let prompt = Request::parse("prompts/get", r#"{"name":"p"}"#).unwrap();
        let resource = Request::parse("resources/read", r#"{"uri":"a://b\u0021"}"#).unwrap();
        assert_eq!(
            text(|o| write_text_result(&tool, Era::Modern, "Hi \"A\"", false, o)),
            r#"{"content":[{"type":"text","text":"Hi \"A\""}],"isError":false,"resultType":"complete"}"#
        );
        assert_eq!(
            text(|o| write_text_result(&tool, Era::Handshake, "no", true, o)),
            r#"{"content":[{"type":"text","text":"no"}],"isError":true}"#
        );
        assert_eq!(
            text(|o| write_text_result(&prompt, Era::Handshake, "Welcome", false, o)),
            r#"{"messages":[{"role":"user","content":{"type":"text","text":"Welcome"}}]}"#
        );
        assert_eq!(
            text(|o| write_text_result(&resource, Era::Modern, "It", false, o)),
            r#"{"contents":[{"uri":"a://b!","text":"It"}],"resultType":"complete"}"#
        );
        assert_eq!(
            text(write_request_state_error),
            r#"{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}"#
        );
    }

    #[test]
    fn a_failure_becomes_the_reply_its_kind_takes() {
        const DECL: &str = r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?","url":"https://a.example/"}}]}"#;
        let plan: Plan<'_, 4> = Plan::compile(DECL).unwrap();
        let mut ws = [0u8; 256];
        let mut round = Round::new(&plan, Era::Modern, Inputs::default(), &mut ws).unwrap();
        let missing = round.poll().unwrap_err();
        let mut reply = Reply::Result;
        let json = text(|o| reply = write_failure(Method::ToolsCall, Era::Modern, &missing, o));
        assert_eq!(reply, Reply::Error);
        assert_eq!(failure_code(Method::ToolsCall, &missing), Some(-32021));
        assert_eq!(
            json,
            r#"{"code":-32021,"message":"Client did not declare the url elicitation capability required by question 'x'","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}"#
        );
        let declined = Error::Refused {
            param: crate::error::Name::truncated("x"),
            cancelled: false,
        };
        let json = text(|o| reply = write_failure(Method::ToolsCall, Era::Handshake, &declined, o));
        assert_eq!(reply, Reply::Result);
        assert_eq!(failure_code(Method::ToolsCall, &declined), None);
        assert!(
            json.starts_with(r#"{"content":[{"type":"text","text":"Cannot continue without 'x'"#),
            "{json}"
        );
        assert!(json.ends_with(r#""}],"isError":true}"#), "{json}");
        let json = text(|o| reply = write_failure(Method::PromptsGet, Era::Modern, &declined, o));
        assert_eq!(reply, Reply::Error);
        assert_eq!(failure_code(Method::PromptsGet, &declined), Some(-32602));
        assert!(
            json.starts_with(r#"{"code":-32602,"message":"Cannot continue without 'x'"#),
            "{json}"
        );
        let json =
            text(|o| reply = write_failure(Method::ToolsCall, Era::Modern, &Error::SealedState, o));
        assert_eq!(
            (reply, json.as_str()),
            (
                Reply::Error,
                r#"{"code":-32603,"message":"Internal error"}"#
            )
        );
    }

    /// A declared fallback's round ends in the round's fallback result for a tool, and
    /// in -32602 for a prompt or resource (docs/fallback.md).
    #[cfg(feature = "fallback")]
    #[test]
    fn a_fallback_is_a_tool_result_for_tools_only() {
        let plan: Plan<'_, 4> = Plan::compile(
            r#"{"tool":"t","fallback":"arguments","parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#,
        )
        .unwrap();
        let mut ws = [0u8; 256];
        let inputs = Inputs::default().with_capabilities(crate::Capabilities::NONE);
        let mut round = Round::new(&plan, Era::Modern, inputs, &mut ws).unwrap();
        assert_eq!(round.poll(), Ok(Step::Fallback));
        let mut direct = Vec::new();
        round.write_fallback_result(&mut direct).unwrap();
        let mut out = Vec::new();
        assert_eq!(
            write_fallback(Method::ToolsCall, &round, &mut out),
            Ok(Reply::Result)
        );
        assert_eq!(out, direct);
        assert!(String::from_utf8(out).unwrap().ends_with(
            r#""isError":true,"_meta":{"elicit/askUser":[{"name":"x","question":"X?","schema":{"description":"X?","title":"X","type":"string"},"required":true}]},"resultType":"complete"}"#
        ));
        let mut out = Vec::new();
        assert_eq!(
            write_fallback(Method::PromptsGet, &round, &mut out),
            Ok(Reply::Error)
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"code":-32602,"message":"The client cannot be asked for what this request needs, and the declared fallback serves tools/call only"}"#
        );
    }
}
