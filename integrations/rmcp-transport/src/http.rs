//! Streamable HTTP: rmcp's own `StreamableHttpService` (sessions for the handshake era,
//! stateless exchanges for 2026-07-28) mounted at `/mcp` in an axum [`Router`], with
//! two things rmcp leaves out:
//!
//! * `inputRequests` leave in declaration order ([`crate::wire`]), in JSON bodies and in
//!   SSE events alike;
//! * a `DELETE` naming a session this server does not hold (unknown, forged, already
//!   closed) is `404 Not Found`, as the transport spec says, not `202`.
//!
//! ```no_run
//! # async fn doc(server: impl rmcp::ServerHandler + Clone) -> std::io::Result<()> {
//! use elicit_rmcp_transport::http::McpHttp; // elicit_rmcp::http through elicit-rmcp
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! McpHttp::new(move || server.clone())
//!     // Operator routes beside /mcp (health, metrics): any axum route.
//!     .route(|r| r.route("/healthz", axum::routing::get(|| async { "ok" })))
//!     .serve(listener, async { let _ = tokio::signal::ctrl_c().await; }, std::time::Duration::from_secs(10))
//!     .await
//! # }
//! ```
//!
//! Sessions (handshake era): one nobody uses for [`Sessions::keep_alive`] ends, and at
//! most [`Sessions::max`] are held; a new one past the cap ends the one used least
//! recently. Only the [`Sessions::running`] (128) used most recently keep a running
//! service: an idle one past them keeps only its handshake, and its next request restores
//! it (a new handler from the factory, the `initialize` replayed to it with [`Restored`]
//! in its extensions). So the
//! factory's handler should keep no state of its own per session (a clone sharing one
//! server, as above).
//!
//! Shutdown: when the `shutdown` future resolves the server stops accepting connections
//! and waits for requests in flight (a handshake-era call still asking its user, say)
//! for up to `grace`; then it ends rmcp's sessions and returns.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt as _;
use axum::Router;
use bytes::Bytes;
use http_body_util::BodyExt as _;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt as _};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::wire;

mod sessions;

use sessions::Capped;
pub use sessions::{Restored, Sessions};

/// The path the MCP endpoint is mounted at.
pub const PATH: &str = "/mcp";

/// Largest JSON response body the order-restoring layer reads whole (larger bodies pass
/// unchanged; a question batch is a few KB).
const MAX_REORDERED_BODY: usize = 4 * 1024 * 1024;

/// The browser origins allowed by [`config`]: the loopback names on any port.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// rmcp's configuration as this crate serves it: JSON bodies for plain exchanges (SSE
/// only while a handshake-era call talks to the client), no SSE keep-alive, and `Host`
/// and `Origin` checked against the loopback names (DNS rebinding). A server reachable
/// under other names widens both with `with_allowed_hosts` / `with_allowed_origins`.
pub fn config() -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_origins(LOOPBACK_ORIGINS)
}

/// The MCP endpoint of one server as an axum application: [`McpHttp::router`] to mount
/// it yourself, [`McpHttp::serve`] to run it.
pub struct McpHttp {
    router: Router,
    stop: CancellationToken,
}

impl McpHttp {
    /// `factory` makes the handler for each session (and each stateless exchange):
    /// usually a clone of one server sharing its `Elicit`. Served with [`config`] and
    /// the default [`Sessions`] (idle ones end after 5 minutes, at most 1,000 held).
    pub fn new<S, F>(factory: F) -> Self
    where
        S: ServerHandler + Send + 'static,
        F: Fn() -> S + Send + Sync + 'static,
    {
        Self::with_config(factory, config(), Sessions::default())
    }

    /// [`McpHttp::new`] with rmcp's configuration and the session limits given; the
    /// configuration's cancellation token ends the sessions at the end of
    /// [`McpHttp::serve`]. Its `session_store` is replaced by the session table's own
    /// (the table restores parked sessions itself).
    pub fn with_config<S, F>(
        factory: F,
        config: StreamableHttpServerConfig,
        sessions: Sessions,
    ) -> Self
    where
        S: ServerHandler + Send + 'static,
        F: Fn() -> S + Send + Sync + 'static,
    {
        let stop = config.cancellation_token.clone();
        let factory = Arc::new(factory);
        // A parked session's service, restored by the session table (sessions.rs): a new
        // handler served on the table's transport until it ends, as rmcp serves one.
        let serve: sessions::Serve = {
            let (factory, stop) = (factory.clone(), stop.clone());
            Arc::new(move |transport| {
                let (service, stop) = (factory(), stop.child_token());
                Box::pin(async move {
                    match service.serve_with_ct(transport, stop).await {
                        Ok(running) => drop(running.waiting().await),
                        Err(e) => tracing::error!("a restored session failed to start: {e}"),
                    }
                })
            })
        };
        let sessions = Arc::new(Capped::new(sessions, serve));
        let mut config = config;
        // What hears of finished handshakes and of `DELETE`s (sessions.rs).
        config.session_store = Some(sessions.session_store());
        let service = Arc::new(StreamableHttpService::new(
            move || Ok(factory()),
            sessions.clone(),
            config,
        ));
        // One handler holding the service in an `Arc` (axum clones a route's service for
        // every request, and rmcp's clones its configuration, the allowed hosts and
        // origins, with it), doing what this module adds around it in place (an axum
        // middleware layer cloned the route and boxed its future for every request).
        let endpoint = move |request: Request| {
            let (service, sessions) = (service.clone(), sessions.clone());
            async move { mcp(&sessions, &service, request).await }
        };
        let router = Router::new().route(PATH, axum::routing::any(endpoint));
        McpHttp { router, stop }
    }

    /// Add routes (or layers) beside the endpoint: `|r| r.route("/healthz", get(..))`.
    pub fn route(mut self, add: impl FnOnce(Router) -> Router) -> Self {
        self.router = add(self.router);
        self
    }

    /// The application, to serve with `axum::serve` or nest in a larger one. Its
    /// sessions end when [`McpHttp::stop_token`] is cancelled.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// The token that ends rmcp's sessions (and their SSE streams).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Serve on `listener` until `shutdown` resolves; then stop accepting, let requests
    /// in flight finish for up to `grace`, end the sessions and return.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
        grace: Duration,
    ) -> io::Result<()> {
        let stop = self.stop.clone();
        let draining = CancellationToken::new();
        let drain = draining.clone();
        // Small request/response exchanges: no Nagle delay.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let server = axum::serve(listener, self.router).with_graceful_shutdown(async move {
            shutdown.await;
            drain.cancel();
        });
        let server = std::future::IntoFuture::into_future(server);
        tokio::pin!(server);
        tokio::select! {
            r = &mut server => { stop.cancel(); return r; }
            () = draining.cancelled() => {}
        }
        let r = tokio::select! {
            r = &mut server => r,
            () = tokio::time::sleep(grace) => Ok(()),
        };
        stop.cancel();
        r
    }
}

/// rmcp's endpoint, and in front of it: the session a request names is pinned while rmcp
/// handles the request (`sessions::Pinned`); `DELETE` of a session not held is 404; JSON
/// and SSE responses get `inputRequests` in declaration order.
async fn mcp<S: ServerHandler + Send + 'static>(
    sessions: &Capped,
    service: &StreamableHttpService<S, Capped>,
    request: Request,
) -> Response {
    // The session the request names (as rmcp reads the header) is not parked while rmcp
    // handles the request; the pin goes with this future, done or dropped.
    let id = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(Arc::<str>::from);
    let pinned = id.as_ref().and_then(|id| sessions.pin(id));
    if request.method() == Method::DELETE && id.is_some() && pinned.is_none() {
        return (StatusCode::NOT_FOUND, "Not Found: no such session").into_response();
    }
    let response = service.handle(request).await.map(Body::new);
    drop(pinned);
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if kind.starts_with("application/json") {
        let (mut parts, body) = response.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_REORDERED_BODY).await {
            Ok(b) => b,
            Err(_) => {
                return (StatusCode::INTERNAL_SERVER_ERROR, "response too large").into_response()
            }
        };
        let bytes = match wire::restore(&bytes) {
            Some(v) => {
                parts.headers.remove(header::CONTENT_LENGTH);
                Bytes::from(v)
            }
            None => bytes,
        };
        Response::from_parts(parts, Body::from(bytes))
    } else if kind.starts_with("text/event-stream") {
        let (parts, body) = response.into_parts();
        let body = body.map_frame(|frame| match frame.into_data() {
            Ok(data) => http_body::Frame::data(restore_sse(data)),
            Err(frame) => frame,
        });
        Response::from_parts(parts, Body::new(body))
    } else {
        response
    }
}

/// One SSE chunk as rmcp writes it (whole events): each `data:` line holding a message
/// with a recorded order is rewritten.
fn restore_sse(chunk: Bytes) -> Bytes {
    if wire::find(&chunk, wire::ORDER_KEY.as_bytes()).is_none() {
        return chunk;
    }
    let mut out = Vec::with_capacity(chunk.len());
    for line in chunk.split_inclusive(|&b| b == b'\n') {
        let (body, end) = match line.strip_suffix(b"\n") {
            Some(b) => (b, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        match body.strip_prefix(b"data:") {
            Some(data) => {
                let data = data.strip_prefix(b" ").unwrap_or(data);
                out.extend_from_slice(b"data: ");
                match wire::restore(data) {
                    Some(v) => out.extend_from_slice(&v),
                    None => out.extend_from_slice(data),
                }
                out.extend_from_slice(end);
            }
            None => out.extend_from_slice(line),
        }
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_reordered_line_by_line() {
        let chunk = Bytes::from_static(
            b"id: 0\ndata: {\"id\":1,\"result\":{\"inputRequests\":{\"a\":1,\"b\":2},\"_meta\":{\"elicit/inputRequestsOrder\":[\"b\",\"a\"]}}}\n\n",
        );
        assert_eq!(
            restore_sse(chunk),
            Bytes::from_static(
                b"id: 0\ndata: {\"id\":1,\"result\":{\"inputRequests\":{\"b\":2,\"a\":1}}}\n\n"
            )
        );
        let plain = Bytes::from_static(b"data: {}\n\n");
        assert_eq!(restore_sse(plain.clone()), plain);
    }
}
