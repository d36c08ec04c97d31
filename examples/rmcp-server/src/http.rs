//! Streamable HTTP at `/mcp`: rmcp's `StreamableHttpService` (sessions for the
//! handshake era, stateless single exchanges for 2026-07-28) served by hyper 1, beside
//! the ops endpoints (`/health`, `/metrics`) and with a bounded drain on SIGTERM
//! (src/ops.rs).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tower_service::Service as _;

use crate::booking::Booking;
use crate::ops::{Drain, Ops};

/// The browser origins allowed to call the server: the loopback names on any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

fn plain(status: u16, content_type: &'static str, body: String) -> Response<BoxBody> {
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

type BoxBody = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// Serve until SIGTERM (or SIGINT), then drain as `drain` says and return.
pub async fn run(
    server: Arc<Booking>,
    addr: SocketAddr,
    ops: Arc<Ops>,
    drain: Drain,
) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    // Tests read this line to learn the port when started with port 0.
    eprintln!(
        "elicit-rmcp-server: streamable HTTP on http://{}/mcp",
        listener.local_addr()?
    );
    let config = StreamableHttpServerConfig::default()
        // JSON bodies for simple exchanges, SSE only when a call talks to the client.
        .with_json_response(true)
        .with_sse_keep_alive(None)
        // DNS rebinding: rmcp checks `Host` against loopback names by default; `Origin`
        // is checked only with a list, so browsers' pages elsewhere get 403 too.
        .with_allowed_origins(LOOPBACK_ORIGINS);
    let service = StreamableHttpService::new(
        move || Ok(Booking::clone(&server)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let stop = crate::ops::stop_signal(ops.clone(), drain.grace);
    tokio::pin!(stop);
    let graceful = GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut stop => break,
        };
        let (stream, _) = match accepted {
            Ok(c) => c,
            Err(e) => {
                eprintln!("elicit-rmcp-server: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let ops = ops.clone();
        let svc = service_fn(move |req: Request<Incoming>| {
            let mut service = service.clone();
            let ops = ops.clone();
            async move {
                if req.method() == hyper::Method::GET {
                    if let Some((status, ctype, body)) = ops.respond(req.uri().path()) {
                        return Ok::<_, Infallible>(plain(status, ctype, body));
                    }
                }
                if req.uri().path() != "/mcp" {
                    return Ok(plain(404, "text/plain; charset=utf-8", "Not Found".into()));
                }
                let _counted = ops.request();
                service.call(req).await
            }
        });
        let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), svc);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    // Drain: no new connections; idle keep-alive connections close, busy ones after the
    // response in flight; at most `drain.timeout`.
    drop(listener);
    let open = graceful.count();
    match tokio::time::timeout(drain.timeout, graceful.shutdown()).await {
        Ok(()) => eprintln!("elicit-rmcp-server: drained ({open} connection(s) closed)"),
        Err(_) => eprintln!(
            "elicit-rmcp-server: drain timed out after {:?}; exiting with connections open",
            drain.timeout
        ),
    }
    Ok(())
}
