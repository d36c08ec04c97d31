//! Streamable HTTP at `/mcp`: rmcp's `StreamableHttpService` (sessions for the
//! handshake era, stateless single exchanges for 2026-07-28) served by hyper 1.

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
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tower_service::Service as _;

use crate::booking::Booking;

/// The browser origins allowed to call the server: the loopback names on any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Serve until the process ends.
pub async fn run(server: Arc<Booking>, addr: SocketAddr) -> std::io::Result<()> {
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
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                eprintln!("elicit-rmcp-server: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                async move {
                    if req.uri().path() != "/mcp" {
                        let mut r =
                            Response::new(Full::new(Bytes::from_static(b"Not Found")).boxed());
                        *r.status_mut() = StatusCode::NOT_FOUND;
                        return Ok::<_, Infallible>(r);
                    }
                    service.call(req).await
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}
