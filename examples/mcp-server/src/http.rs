//! Streamable HTTP at `/mcp` (hyper 1, HTTP/1.1).
//!
//! Each POST is routed by its `MCP-Protocol-Version` header, as the MCP Python SDK's
//! HTTP server routes it:
//! * `2026-07-28` (or any non-handshake value): the stateless single-exchange path. The
//!   envelope is checked against the routing headers (`-32020` on a mismatch), and the
//!   reply is one `application/json` body. No session, no memory between requests.
//! * missing or a handshake version: the session path. `initialize` opens a session
//!   (`Mcp-Session-Id`) holding the client's capabilities; requests are answered with
//!   `text/event-stream`, so a running `tools/call` can put `elicitation/create` to the
//!   client as an event, and the client POSTs its answer separately (`202`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::mcp::{
    classify, envelope, invalid_request, is_enveloped, response, Kind, Legacy, Peer, RpcError,
    Server, HANDSHAKE_VERSIONS, HEADER_MISMATCH, PARSE_ERROR,
};

type Body = BoxBody<Bytes, Infallible>;

const MAX_BODY: usize = 4 * 1024 * 1024;
const SESSION_HEADER: &str = "mcp-session-id";
/// Handshake-era sessions idle this long are dropped when a new one opens.
const SESSION_IDLE: Duration = Duration::from_secs(3600);

struct Session {
    legacy: Legacy,
    peer: Peer,
    last_used: Mutex<Instant>,
}

struct Http {
    server: Arc<Server>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// Serve until the process ends. Only loopback addresses are accepted.
pub async fn run(server: Arc<Server>, addr: SocketAddr) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    // Tests read this line to learn the port when started with port 0.
    eprintln!(
        "booking-server: streamable HTTP on http://{}/mcp",
        listener.local_addr()?
    );
    let http = Arc::new(Http {
        server,
        sessions: Mutex::new(HashMap::new()),
    });
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                eprintln!("booking-server: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let http = http.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let http = http.clone();
                async move { Ok::<_, Infallible>(http.handle(req).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

fn full(status: u16, content_type: Option<&str>, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()).boxed());
    *r.status_mut() = StatusCode::from_u16(status).expect("valid status");
    if let Some(ct) = content_type {
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_str(ct).expect("header"));
    }
    r
}

fn json_reply(status: u16, msg: &Value) -> Response<Body> {
    full(
        status,
        Some("application/json"),
        serde_json::to_vec(msg).expect("JSON"),
    )
}

/// A JSON-RPC error reply with the SDK's status for its code.
fn error_reply(id: &Value, e: RpcError) -> Response<Body> {
    let status = e.http_status();
    json_reply(status, &response(id, Err(e)))
}

fn accepted() -> Response<Body> {
    full(202, None, Bytes::new())
}

/// An SSE response body fed by a channel: each message is one `event: message`.
struct SseBody {
    rx: mpsc::UnboundedReceiver<Value>,
}

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(msg)) => {
                let event = format!("event: message\ndata: {msg}\n\n");
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(event)))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn sse_reply(rx: mpsc::UnboundedReceiver<Value>, session: Option<&str>) -> Response<Body> {
    let mut r = Response::new(BodyExt::boxed(SseBody { rx }));
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(
        "cache-control",
        HeaderValue::from_static("no-cache, no-transform"),
    );
    if let Some(s) = session {
        h.insert(SESSION_HEADER, HeaderValue::from_str(s).expect("hex id"));
    }
    r
}

/// A routing header's single value. `Err` when it appears more than once (`-32020`).
fn header<'h>(headers: &'h HeaderMap, name: &str) -> Result<Option<&'h str>, RpcError> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(RpcError::new(
            HEADER_MISMATCH,
            format!("{name} header appears more than once"),
        ));
    }
    Ok(first.map(|v| v.to_str().unwrap_or("\u{fffd}")))
}

/// `Mcp-Name` as sent: plain, or `=?base64?...?=` for values that are not plain ASCII.
fn decode_name(v: &str) -> Option<String> {
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(v.to_string()),
    }
}

fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).expect("random source");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The 2026-07-28 routing headers must agree with the body (`-32020` otherwise), after
/// the envelope itself is checked (`-32602`).
fn check_routing_headers(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Value>,
) -> Result<(), RpcError> {
    let (meta_version, _) = envelope(params)?;
    let mismatch = |name: &str, body: &str| {
        RpcError::new(
            HEADER_MISMATCH,
            format!("{name} header does not match the request body's {body}"),
        )
    };
    if header(headers, "mcp-protocol-version")? != Some(meta_version) {
        return Err(mismatch("mcp-protocol-version", "'_meta' protocol version"));
    }
    if header(headers, "mcp-method")?.is_some_and(|m| m != method) {
        return Err(mismatch("mcp-method", "'method'"));
    }
    if method == "tools/call" || method == "prompts/get" {
        if let Some(n) = header(headers, "mcp-name")? {
            let body_name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            if decode_name(n).as_deref() != body_name {
                return Err(mismatch("mcp-name", "'name' parameter"));
            }
        }
    }
    Ok(())
}

impl Http {
    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        if req.uri().path() != "/mcp" {
            return full(404, Some("text/plain"), "Not Found");
        }
        match *req.method() {
            Method::POST => self.post(req).await,
            Method::DELETE => {
                let id = req
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                match id {
                    Some(id)
                        if self
                            .sessions
                            .lock()
                            .expect("sessions")
                            .remove(&id)
                            .is_some() =>
                    {
                        full(200, None, Bytes::new())
                    }
                    Some(_) => full(404, Some("text/plain"), "Session not found"),
                    None => full(405, Some("text/plain"), "Method Not Allowed"),
                }
            }
            _ => {
                // No standalone GET stream: the client tolerates 405.
                let mut r = full(405, Some("text/plain"), "Method Not Allowed");
                r.headers_mut()
                    .insert("allow", HeaderValue::from_static("POST, DELETE"));
                r
            }
        }
    }

    async fn post(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        let (parts, body) = req.into_parts();
        let bytes = match Limited::new(body, MAX_BODY).collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => {
                return full(
                    413,
                    Some("text/plain"),
                    "Request body too large or unreadable",
                )
            }
        };
        let parsed = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok().map(|v| (t, v)));
        let Some((raw, msg)) = parsed else {
            return error_reply(&Value::Null, RpcError::new(PARSE_ERROR, "Parse error"));
        };
        let version = match header(&parts.headers, "mcp-protocol-version") {
            Ok(v) => v,
            Err(e) => return error_reply(&Value::Null, e),
        };
        let modern = version.is_some_and(|v| !HANDSHAKE_VERSIONS.contains(&v));
        if modern {
            self.modern(&parts.headers, &msg, raw)
        } else {
            self.legacy(&parts.headers, msg, raw.to_string()).await
        }
    }

    /// The stateless 2026-07-28 exchange.
    fn modern(&self, headers: &HeaderMap, msg: &Value, raw: &str) -> Response<Body> {
        let (id, method) = match classify(msg) {
            Err(e) => return error_reply(&Value::Null, e),
            Ok(Kind::Request { id, method }) => (id, method),
            // The SDK server answers notifications (and stray responses) with 202.
            Ok(Kind::Notification | Kind::Response) => return accepted(),
        };
        let params = msg.get("params");
        let checked = check_routing_headers(headers, method, params);
        let outcome = checked.and_then(|()| self.server.handle_modern(method, msg, raw));
        match outcome {
            Ok(result) => json_reply(200, &response(id, Ok(result))),
            Err(e) => error_reply(id, e),
        }
    }

    /// The handshake-era session path.
    async fn legacy(&self, headers: &HeaderMap, msg: Value, raw: String) -> Response<Body> {
        let kind = match classify(&msg) {
            Err(e) => return error_reply(&Value::Null, e),
            Ok(k) => k,
        };
        if let Kind::Request {
            id,
            method: "initialize",
        } = kind
        {
            let (result, legacy) = self.server.initialize(msg.get("params"));
            let sid = random_hex(16);
            {
                let mut sessions = self.sessions.lock().expect("sessions");
                sessions.retain(|_, s| s.last_used.lock().expect("clock").elapsed() < SESSION_IDLE);
                sessions.insert(
                    sid.clone(),
                    Arc::new(Session {
                        legacy,
                        peer: Peer::default(),
                        last_used: Mutex::new(Instant::now()),
                    }),
                );
            }
            let (tx, rx) = mpsc::unbounded_channel();
            let _ = tx.send(response(id, Ok(result)));
            return sse_reply(rx, Some(&sid));
        }
        let sid = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok());
        let Some(sid) = sid else {
            let id = match kind {
                Kind::Request { id, .. } => id.clone(),
                _ => Value::Null,
            };
            return json_reply(
                400,
                &response(&id, Err(invalid_request("Bad Request: Missing session ID"))),
            );
        };
        let session = self.sessions.lock().expect("sessions").get(sid).cloned();
        let Some(session) = session else {
            return json_reply(
                404,
                &json!({"jsonrpc": "2.0", "id": Value::Null,
                        "error": {"code": -32001, "message": "Session not found"}}),
            );
        };
        *session.last_used.lock().expect("clock") = Instant::now();
        let (id, method) = match kind {
            Kind::Notification => return accepted(),
            Kind::Response => {
                session.peer.deliver(&msg);
                return accepted();
            }
            Kind::Request { id, method } => (id.clone(), method.to_string()),
        };
        if is_enveloped(&msg) {
            return error_reply(
                &id,
                invalid_request(
                    "an enveloped 2026-07-28 request needs the MCP-Protocol-Version: 2026-07-28 header",
                ),
            );
        }
        // The reply is an event stream: the request's own answer is its last event, and
        // a running tools/call puts its elicitation/create requests before it.
        let (tx, rx) = mpsc::unbounded_channel();
        let server = self.server.clone();
        tokio::spawn(async move {
            let outcome = server
                .handle_legacy(&method, &msg, &raw, &session.legacy, &session.peer, &tx)
                .await;
            let _ = tx.send(response(&id, outcome));
        });
        sse_reply(rx, Some(sid))
    }
}
