//! Streamable HTTP at `/mcp` through `elicit_rmcp::http` (rmcp's `StreamableHttpService`
//! on axum): sessions for the handshake era, stateless single exchanges for 2026-07-28;
//! beside it the ops endpoints (`/health`, `/metrics`) and a bounded drain on SIGTERM
//! (src/ops.rs).

use std::net::SocketAddr;
use std::sync::Arc;

use elicit_rmcp::http::{McpHttp, Sessions};
use tokio::net::TcpListener;

use crate::booking::Booking;
use crate::ops::{Drain, Ops};

/// Serve until SIGTERM (or SIGINT), then drain as `drain` says and return.
pub async fn run(
    server: Arc<Booking>,
    addr: SocketAddr,
    ops: Arc<Ops>,
    drain: Drain,
    sessions: Sessions,
) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    // Tests read this line to learn the port when started with port 0.
    eprintln!(
        "elicit-rmcp-server: streamable HTTP on http://{}{}",
        listener.local_addr()?,
        elicit_rmcp::http::PATH
    );
    let routes = ops.clone();
    McpHttp::with_config(
        move || Booking::clone(&server),
        elicit_rmcp::http::config(),
        sessions,
    )
    .route(move |r| crate::ops::routes(r, routes))
    .serve(
        listener,
        crate::ops::stop_signal(ops, drain.grace),
        drain.timeout,
    )
    .await?;
    eprintln!("elicit-rmcp-server: drained");
    Ok(())
}
