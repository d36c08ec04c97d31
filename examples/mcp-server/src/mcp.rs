//! The MCP protocol layer shared by both transports: JSON-RPC shapes, the two eras'
//! methods, and the host loop around elicit-core's `Round`.
//!
//! * 2026-07-28 ("modern"): every request carries its `_meta` envelope; `tools/call`
//!   runs one `Era::Modern` round per request and answers either the tool result or an
//!   `InputRequiredResult` whose `requestState` is sealed by [`StateCodec`]. Nothing is
//!   kept between requests, so any server process sharing the key ring serves any round.
//! * handshake era (≤ 2025-11-25): `initialize` fixes the client's capabilities for the
//!   connection (stdio) or session (HTTP); `tools/call` runs one `Era::Handshake` round and
//!   puts each question to the client with a server→client `elicitation/create`,
//!   waiting for the reply on the same connection.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use elicit_core::json::Value as JValue;
use elicit_core::PyRepr;
use elicit_core::{Era, Inputs, Round, Step};
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::state::StateCodec;
use crate::tools::{self, Resolution, ToolDef, CAP};

/// The only modern protocol version.
pub const MODERN: &str = "2026-07-28";
/// Handshake-era versions this server accepts in `initialize`.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Answered when the client offers a version we do not know.
pub const LATEST_HANDSHAKE: &str = "2025-11-25";
/// The server's name: `serverInfo.name`, and the audience of sealed state.
pub const SERVER_NAME: &str = "booking";
/// The server's version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a handshake-era question waits for the client's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(600);
/// Workspace for one round (resolver answers and handshake replies are copied in).
const WORKSPACE: usize = 16 * 1024;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// A JSON-RPC error.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// The HTTP status the MCP SDK server uses for this error.
    pub fn http_status(&self) -> u16 {
        match self.code {
            PARSE_ERROR | INVALID_REQUEST | INVALID_PARAMS | HEADER_MISMATCH
            | MISSING_CAPABILITY | UNSUPPORTED_VERSION => 400,
            METHOD_NOT_FOUND => 404,
            _ => 200,
        }
    }
    fn to_json(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

pub fn method_not_found(method: &str) -> RpcError {
    RpcError::new(METHOD_NOT_FOUND, "Method not found").with_data(json!(method))
}

pub fn invalid_request(message: &str) -> RpcError {
    RpcError::new(INVALID_REQUEST, message)
}

fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError::new(INVALID_PARAMS, message)
}

/// The frozen rejection of a bad `requestState` (MCP Python SDK `RequestStateBoundary`).
fn invalid_state() -> RpcError {
    RpcError::new(INVALID_PARAMS, elicit_core::seal::ERROR_MESSAGE)
        .with_data(json!({"reason": elicit_core::seal::ERROR_DATA_REASON}))
}

/// `-32021` as the MCP Python SDK's resolver raises it.
fn missing_form_capability(key: &str) -> RpcError {
    RpcError::new(
        MISSING_CAPABILITY,
        format!(
            "Client did not declare the form elicitation capability required by resolver {}",
            PyRepr(key)
        ),
    )
    .with_data(json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
}

/// A JSON-RPC response to request `id`.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()}),
    }
}

/// What a parsed message is.
pub enum Kind<'m> {
    Request {
        id: &'m Value,
        method: &'m str,
    },
    Notification,
    /// A response to a server→client request.
    Response,
}

/// Classify a JSON-RPC message; `Err` is the `-32600` to answer (to id `null`).
pub fn classify(msg: &Value) -> Result<Kind<'_>, RpcError> {
    let Some(obj) = msg.as_object() else {
        return Err(invalid_request(
            "Invalid Request: expected a JSON-RPC 2.0 object",
        ));
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid_request(
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    match (obj.get("method"), obj.get("id")) {
        // JSON-RPC ids are strings or numbers; anything else is an invalid request.
        (Some(Value::String(method)), Some(id)) if id.is_string() || id.is_number() => {
            Ok(Kind::Request { id, method })
        }
        (Some(Value::String(_)), None) => Ok(Kind::Notification),
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => {
            Ok(Kind::Response)
        }
        _ => Err(invalid_request("Invalid Request")),
    }
}

/// True when the request carries the 2026-07-28 `_meta` envelope's version key.
pub fn is_enveloped(msg: &Value) -> bool {
    msg.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
        .is_some()
}

/// Form elicitation counts as declared when `elicitation` is present and has `form`, or
/// has no `url` (the pre-modes shape), as the MCP Python SDK decides.
pub fn declares_form_elicitation(caps: &Value) -> bool {
    match caps.get("elicitation") {
        Some(Value::Object(e)) => e.contains_key("form") || !e.contains_key("url"),
        Some(Value::Null) | None => false,
        Some(_) => true,
    }
}

/// The 2026-07-28 envelope of a request: `(protocolVersion, clientCapabilities)`.
pub fn envelope(params: Option<&Value>) -> Result<(&str, &Value), RpcError> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .filter(|m| m.is_object());
    let version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let caps = meta
        .and_then(|m| m.get(META_CAPS))
        .filter(|c| c.is_object());
    match (version, caps) {
        (Some(v), Some(c)) => Ok((v, c)),
        _ => Err(invalid_params(
            "params._meta must be an object carrying the required \
             'io.modelcontextprotocol/protocolVersion' and \
             'io.modelcontextprotocol/clientCapabilities' envelope keys",
        )),
    }
}

/// `-32022` for a version this server does not serve on the modern path.
pub fn unsupported_version(requested: &Value) -> RpcError {
    RpcError::new(UNSUPPORTED_VERSION, "Unsupported protocol version")
        .with_data(json!({"supported": [MODERN], "requested": requested}))
}

// ---------------------------------------------------------------------------------------
// The back-channel (handshake era)

/// Where messages to the client go: stdout's writer, or one HTTP response's SSE stream.
pub type Outbox = mpsc::UnboundedSender<Value>;

/// Server→client requests in flight on one connection or session.
#[derive(Default)]
pub struct Peer {
    next_id: AtomicI64,
    pending: Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>,
}

impl Peer {
    /// Send `method` to the client through `out` and wait for its answer.
    pub async fn request(
        &self,
        out: &Outbox,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        // The server numbers its own requests from 1, apart from the client's ids.
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("peer lock").insert(id, tx);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let outcome = if out.send(msg).is_err() {
            Err(RpcError::new(INTERNAL_ERROR, "Connection closed"))
        } else {
            tokio::select! {
                r = rx => r.unwrap_or_else(|_| Err(RpcError::new(INTERNAL_ERROR, "Connection closed"))),
                _ = out.closed() => Err(RpcError::new(INTERNAL_ERROR, "Connection closed")),
                _ = tokio::time::sleep(ANSWER_TIMEOUT) => Err(RpcError::new(INTERNAL_ERROR, "Timed out waiting for the client's answer")),
            }
        };
        self.pending.lock().expect("peer lock").remove(&id);
        outcome
    }

    /// Hand a client's response to the request waiting for it. False when none waits.
    pub fn deliver(&self, msg: &Value) -> bool {
        let Some(id) = msg.get("id").and_then(Value::as_i64) else {
            return false;
        };
        let Some(tx) = self.pending.lock().expect("peer lock").remove(&id) else {
            return false;
        };
        let outcome = match (msg.get("result"), msg.get("error")) {
            (Some(r), _) => Ok(r.clone()),
            (None, Some(e)) => Err(RpcError {
                code: e
                    .get("code")
                    .and_then(Value::as_i64)
                    .unwrap_or(INTERNAL_ERROR),
                message: e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_string(),
                data: e.get("data").cloned(),
            }),
            _ => Err(invalid_request("Invalid response")),
        };
        tx.send(outcome).is_ok()
    }
}

/// What `initialize` fixed for a handshake-era connection or session.
#[derive(Clone, Debug)]
pub struct Legacy {
    /// The version `initialize` settled on.
    pub version: String,
    pub caps: Value,
}

impl Default for Legacy {
    fn default() -> Self {
        Legacy {
            version: LATEST_HANDSHAKE.into(),
            caps: json!({}),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The server

/// The tools and the state codec; shared by every connection.
pub struct Server {
    pub tools: Vec<ToolDef>,
    pub codec: StateCodec,
}

fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": SERVER_VERSION})
}

fn modern_meta() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(META_SERVER_INFO.into(), server_info());
    m
}

/// A successful tool result as FastMCP 4.1.6 writes it (wrapped string result).
fn success(text: &str, modern: bool) -> Value {
    let mut meta = if modern { modern_meta() } else { Map::new() };
    meta.insert("fastmcp".into(), json!({"wrap_result": true}));
    let mut r = Map::new();
    r.insert("_meta".into(), Value::Object(meta));
    r.insert("content".into(), json!([{"type": "text", "text": text}]));
    r.insert("isError".into(), json!(false));
    if modern {
        r.insert("resultType".into(), json!("complete"));
    }
    r.insert("structuredContent".into(), json!({"result": text}));
    Value::Object(r)
}

/// A failed tool call: a result with `isError: true` and the plain message.
fn tool_error(message: &str, modern: bool) -> Value {
    let mut r = Map::new();
    if modern {
        r.insert("_meta".into(), Value::Object(modern_meta()));
    }
    r.insert("content".into(), json!([{"type": "text", "text": message}]));
    r.insert("isError".into(), json!(true));
    if modern {
        r.insert("resultType".into(), json!("complete"));
    }
    Value::Object(r)
}

/// Drive a round until it needs the client (or is done): runs the host resolvers.
// elicit_core::Error holds its names inline (no heap), so it is large by design.
#[allow(clippy::result_large_err)]
fn drive(round: &mut Round<'_, '_, CAP>, tool: &ToolDef) -> Result<Step, elicit_core::Error> {
    loop {
        match round.poll()? {
            Step::Resolve { param } => {
                let name = tool.plan.name(param).expect("param index");
                let inputs: Value =
                    serde_json::from_str(&round.resolve_inputs_json()?).unwrap_or(Value::Null);
                match tool.resolve(name, &inputs) {
                    Resolution::Value(v) => round.resolve_value(&v)?,
                    Resolution::Question(q) => round.resolve_question(&q)?,
                }
            }
            other => return Ok(other),
        }
    }
}

/// The call's `arguments` as a map (missing or `null` is `{}`).
fn arguments(params: &Value) -> Result<Map<String, Value>, RpcError> {
    match params.get("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(invalid_params("tools/call \"arguments\" must be an object")),
    }
}

impl Server {
    pub fn new(codec: StateCodec) -> Self {
        Server {
            tools: tools::all(),
            codec,
        }
    }

    fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name == name)
    }

    fn capabilities() -> Value {
        json!({"tools": {"listChanged": false}})
    }

    /// `server/discover`: the strict 2026-07-28 DiscoverResult.
    pub fn discover(&self) -> Value {
        json!({
            "_meta": modern_meta(),
            "ttlMs": 0,
            "cacheScope": "private",
            "supportedVersions": [MODERN],
            "capabilities": Self::capabilities(),
            "resultType": "complete",
        })
    }

    pub fn list_tools(&self, modern: bool) -> Value {
        let tools: Vec<Value> = self.tools.iter().map(ToolDef::listing).collect();
        if modern {
            json!({"cacheScope": "private", "resultType": "complete", "tools": tools,
                   "ttlMs": 0, "_meta": modern_meta()})
        } else {
            json!({"tools": tools})
        }
    }

    /// `initialize`: the reply and what it fixes for the connection.
    pub fn initialize(&self, params: Option<&Value>) -> (Value, Legacy) {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let version = if HANDSHAKE_VERSIONS.contains(&requested) {
            requested
        } else {
            LATEST_HANDSHAKE
        };
        let caps = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let result = json!({
            "protocolVersion": version,
            "capabilities": Self::capabilities(),
            "serverInfo": server_info(),
        });
        (
            result,
            Legacy {
                version: version.into(),
                caps,
            },
        )
    }

    /// One 2026-07-28 request (`raw` is the message text, `msg` its parse).
    pub fn handle_modern(&self, method: &str, msg: &Value, raw: &str) -> Result<Value, RpcError> {
        let params = msg.get("params");
        let (version, caps) = envelope(params)?;
        if version != MODERN {
            return Err(unsupported_version(&json!(version)));
        }
        match method {
            "server/discover" => Ok(self.discover()),
            "tools/list" => Ok(self.list_tools(true)),
            "tools/call" => self.call_modern(params.expect("enveloped"), caps, raw),
            _ => Err(method_not_found(method)),
        }
    }

    fn call_modern(&self, params: &Value, caps: &Value, raw: &str) -> Result<Value, RpcError> {
        let doc = JValue::parse(raw).map_err(|_| invalid_params("unreadable request"))?;
        let jparams = doc
            .get("params")
            .ok_or_else(|| invalid_params("tools/call needs params"))?;
        // The boundary runs first, as the SDK's middleware does: a bad token is refused
        // whatever the call.
        let state = match self.codec.open(jparams) {
            Ok(s) => s,
            Err(why) => {
                eprintln!("booking-server: requestState rejected ({})", why.0);
                return Err(invalid_state());
            }
        };
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("tools/call needs a string \"name\""))?;
        let Some(tool) = self.tool(name) else {
            return Ok(tool_error(&format!("Unknown tool: {}", PyRepr(name)), true));
        };
        let args = arguments(params)?;
        if let Err(message) = tool.check_arguments(&args) {
            return Ok(tool_error(&message, true));
        }
        let args_raw = jparams
            .get("arguments")
            .filter(|v| !v.is_null())
            .map(|v| v.raw())
            .unwrap_or("{}");
        let replies_raw = jparams
            .get("inputResponses")
            .filter(|v| !v.is_null())
            .map(|v| v.raw());
        let mut workspace = vec![0u8; WORKSPACE];
        let mut round = Round::new(
            &tool.plan,
            Era::Modern,
            Inputs::modern(args_raw, state.as_deref(), replies_raw),
            &mut workspace,
        )
        .map_err(|e| invalid_params(e.to_string()))?;
        match drive(&mut round, tool) {
            Err(e) => Ok(tool_error(&e.to_string(), true)),
            Ok(Step::Done) => {
                let values: Value = serde_json::from_str(
                    &round
                        .values_json()
                        .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?,
                )
                .unwrap_or(Value::Null);
                Ok(success(&tool.run(&args, &values), true))
            }
            Ok(Step::InputRequired) => {
                let requests: Value = serde_json::from_str(
                    &round
                        .input_requests_json(true)
                        .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?,
                )
                .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?;
                // Capability gate: a question is about to be asked.
                if !declares_form_elicitation(caps) {
                    let first = requests
                        .as_object()
                        .and_then(|o| o.keys().next().cloned())
                        .unwrap_or_default();
                    return Err(missing_form_capability(&first));
                }
                let plaintext = round
                    .request_state_json()
                    .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?;
                let token = self.codec.seal(&plaintext, jparams).map_err(|e| {
                    eprintln!("booking-server: sealing requestState failed: {e}");
                    RpcError::new(INTERNAL_ERROR, "Internal error")
                })?;
                Ok(json!({
                    "inputRequests": requests,
                    "requestState": token,
                    "resultType": "input_required",
                    "_meta": modern_meta(),
                }))
            }
            Ok(Step::Ask { .. } | Step::Resolve { .. }) => {
                Err(RpcError::new(INTERNAL_ERROR, "Internal error"))
            }
        }
    }

    /// One handshake-era request other than `initialize` (which the transport handles,
    /// since it fixes the connection's state). `out` reaches the client while the
    /// request runs.
    pub async fn handle_legacy(
        &self,
        method: &str,
        msg: &Value,
        raw: &str,
        legacy: &Legacy,
        peer: &Peer,
        out: &Outbox,
    ) -> Result<Value, RpcError> {
        match method {
            "ping" => Ok(json!({})),
            "tools/list" => Ok(self.list_tools(false)),
            "tools/call" => {
                self.call_legacy(
                    msg.get("params").unwrap_or(&Value::Null),
                    raw,
                    legacy,
                    peer,
                    out,
                )
                .await
            }
            _ => Err(method_not_found(method)),
        }
    }

    async fn call_legacy(
        &self,
        params: &Value,
        raw: &str,
        legacy: &Legacy,
        peer: &Peer,
        out: &Outbox,
    ) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("tools/call needs a string \"name\""))?;
        let Some(tool) = self.tool(name) else {
            return Ok(tool_error(
                &format!("Unknown tool: {}", PyRepr(name)),
                false,
            ));
        };
        let args = arguments(params)?;
        if let Err(message) = tool.check_arguments(&args) {
            return Ok(tool_error(&message, false));
        }
        let doc = JValue::parse(raw).map_err(|_| invalid_params("unreadable request"))?;
        let args_raw = doc
            .get("params")
            .and_then(|p| p.get("arguments"))
            .filter(|v| !v.is_null())
            .map(|v| v.raw())
            .unwrap_or("{}");
        let mut workspace = vec![0u8; WORKSPACE];
        let mut round = Round::new(
            &tool.plan,
            Era::Handshake,
            Inputs::handshake(args_raw),
            &mut workspace,
        )
        .map_err(|e| invalid_params(e.to_string()))?;
        loop {
            match drive(&mut round, tool) {
                Err(e) => return Ok(tool_error(&e.to_string(), false)),
                Ok(Step::Done) => {
                    let values: Value = serde_json::from_str(
                        &round
                            .values_json()
                            .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?,
                    )
                    .unwrap_or(Value::Null);
                    return Ok(success(&tool.run(&args, &values), false));
                }
                Ok(Step::Ask { param }) => {
                    // Elicitation exists from 2025-06-18 on; before that a client
                    // cannot take the request whatever it declared.
                    if !declares_form_elicitation(&legacy.caps)
                        || legacy.version.as_str() < "2025-06-18"
                    {
                        return Err(missing_form_capability(
                            tool.plan.name(param).unwrap_or_default(),
                        ));
                    }
                    let ask: Value = serde_json::from_str(
                        &round
                            .ask_json()
                            .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?,
                    )
                    .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?;
                    match peer.request(out, "elicitation/create", ask).await {
                        Ok(reply) => {
                            if let Err(e) = round.answer(&reply.to_string()) {
                                return Ok(tool_error(&e.to_string(), false));
                            }
                        }
                        Err(e) => {
                            return Ok(tool_error(
                                &format!("Error calling tool {}: {}", PyRepr(tool.name), e.message),
                                false,
                            ))
                        }
                    }
                }
                Ok(Step::InputRequired | Step::Resolve { .. }) => {
                    return Err(RpcError::new(INTERNAL_ERROR, "Internal error"))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server::new(StateCodec::sealed(None, SERVER_NAME, None).unwrap())
    }

    fn call(s: &Server, body: Value) -> Result<Value, RpcError> {
        let raw = body.to_string();
        s.handle_modern("tools/call", &body, &raw)
    }

    fn req(name: &str, extra: Value, caps: Value) -> Value {
        let mut params = json!({"name": name, "arguments": {},
            "_meta": {META_VERSION: MODERN, META_CAPS: caps}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    fn form() -> Value {
        json!({"elicitation": {"form": {}}})
    }

    #[test]
    fn capability_rule_matches_the_sdk() {
        assert!(declares_form_elicitation(&json!({"elicitation": {}})));
        assert!(declares_form_elicitation(&form()));
        assert!(declares_form_elicitation(
            &json!({"elicitation": {"form": {}, "url": {}}})
        ));
        assert!(!declares_form_elicitation(
            &json!({"elicitation": {"url": {}}})
        ));
        assert!(!declares_form_elicitation(&json!({})));
    }

    #[test]
    fn book_flight_batches_then_chains_then_books() {
        let s = server();
        let r1 = call(&s, req("book_flight", json!({}), form())).unwrap();
        assert_eq!(r1["resultType"], "input_required");
        let keys: Vec<&String> = r1["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["destination", "date", "seat"]);
        let answers = json!({
            "destination": {"action": "accept", "content": {"value": "Paris"}},
            "date": {"action": "accept", "content": {"value": "2026-08-01"}},
            "seat": {"action": "decline"},
        });
        let r2 = call(
            &s,
            req(
                "book_flight",
                json!({"inputResponses": answers, "requestState": r1["requestState"]}),
                form(),
            ),
        )
        .unwrap();
        let keys: Vec<&String> = r2["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["airport", "proceed"]);
        assert_eq!(
            r2["inputRequests"]["proceed"]["params"]["message"],
            "Book a flight to Paris on 2026-08-01?"
        );
        let answers = json!({
            "airport": {"action": "accept", "content": {"value": "CDG"}},
            "proceed": {"action": "accept", "content": {"value": true}},
        });
        let r3 = call(
            &s,
            req(
                "book_flight",
                json!({"inputResponses": answers, "requestState": r2["requestState"]}),
                form(),
            ),
        )
        .unwrap();
        assert_eq!(r3["isError"], false);
        assert_eq!(
            r3["structuredContent"]["result"],
            "Booked Paris (CDG) on 2026-08-01, seat no preference"
        );
    }

    /// FastMCP quotes names with Python's `repr`, which escapes the C1 controls
    /// U+0080..U+009F as `\x80`..`\x9f` (`python3 -c 'print(repr("\x85"))'` prints
    /// `'\x85'`), and puts an answer into a tool's text as it is (an f-string).
    #[test]
    fn c1_controls_render_as_fastmcp_renders_them() {
        let s = server();
        let text = |r: &Value| r["content"][0]["text"].as_str().unwrap().to_string();
        // An answer carrying C1 controls comes back unescaped in the result.
        let r1 = call(&s, req("greet", json!({}), form())).unwrap();
        let answers = json!({"name": {"action": "accept", "content": {"value": "A\u{85}B\u{9f}"}}});
        let r2 = call(
            &s,
            req(
                "greet",
                json!({"inputResponses": answers, "requestState": r1["requestState"]}),
                form(),
            ),
        )
        .unwrap();
        assert_eq!(text(&r2), "Hello, A\u{85}B\u{9f}");
        // The same characters in a quoted name are escaped as Python's repr escapes them.
        let r = call(&s, req("gr\u{85}et", json!({}), form())).unwrap();
        assert_eq!(text(&r), "Unknown tool: 'gr\\x85et'");
        let r = call(
            &s,
            req(
                "order",
                json!({"arguments": {"item": "apples", "\u{80}x\u{9f}": "1"}}),
                form(),
            ),
        )
        .unwrap();
        assert_eq!(
            text(&r),
            "Unexpected argument '\\x80x\\x9f' for tool 'order'"
        );
    }

    #[test]
    fn missing_capability_is_32021() {
        let s = server();
        let e = call(&s, req("greet", json!({}), json!({}))).unwrap_err();
        assert_eq!(e.code, MISSING_CAPABILITY);
        assert_eq!(
            e.message,
            "Client did not declare the form elicitation capability required by resolver 'name'"
        );
    }

    #[test]
    fn tampered_state_is_the_frozen_error() {
        let s = server();
        let e = call(&s, req("greet", json!({"requestState": "v1.AAAA"}), form())).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (-32602, "Invalid or expired requestState")
        );
        let e = call(&s, req("greet", json!({"requestState": ""}), form())).unwrap_err();
        assert_eq!(e.code, -32602);
    }

    #[test]
    fn envelope_is_required() {
        let s = server();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let e = s
            .handle_modern("tools/list", &body, &body.to_string())
            .unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
            "params": {"_meta": {META_VERSION: MODERN, META_CAPS: {}}}});
        let e = s
            .handle_modern("ping", &body, &body.to_string())
            .unwrap_err();
        assert_eq!((e.code, e.http_status()), (METHOD_NOT_FOUND, 404));
    }
}
