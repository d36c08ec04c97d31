//! Streamable HTTP at `/mcp` through `elicit_rmcp::http` (rmcp's `StreamableHttpService`
//! on axum): sessions for the handshake era, stateless single exchanges for 2026-07-28.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use elicit_rmcp::http::McpHttp;
use tokio::net::TcpListener;

use crate::booking::Booking;

/// How long requests in flight may take to finish after SIGINT/SIGTERM.
const GRACE: Duration = Duration::from_secs(10);

/// Serve until SIGINT or SIGTERM, then drain.
pub async fn run(server: Arc<Booking>, addr: SocketAddr) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    // Tests read this line to learn the port when started with port 0.
    eprintln!(
        "elicit-rmcp-server: streamable HTTP on http://{}{}",
        listener.local_addr()?,
        elicit_rmcp::http::PATH
    );
    McpHttp::new(move || Booking::clone(&server))
        .serve(listener, shutdown_signal(), GRACE)
        .await
}

async fn shutdown_signal() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
