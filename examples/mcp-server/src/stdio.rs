//! MCP over stdio: one JSON-RPC message per line.
//!
//! The era is picked from the connection's first request, as the MCP Python SDK's stdio
//! server picks it: an enveloped request (its `params._meta` names a protocol version)
//! that is not `initialize` makes the connection 2026-07-28; anything else makes it
//! handshake-era. After that the other era is refused.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::mcp::{
    classify, invalid_request, is_enveloped, response, Kind, Legacy, Peer, RpcError, Server,
    MODERN, PARSE_ERROR, UNSUPPORTED_VERSION,
};

enum Era {
    Modern,
    Legacy(Arc<Mutex<Legacy>>),
}

pub async fn run(server: Arc<Server>) {
    let (out, mut outgoing) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(msg) = outgoing.recv().await {
            let mut line = serde_json::to_vec(&msg).expect("JSON values serialize");
            line.push(b'\n');
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let peer = Arc::new(Peer::default());
    let mut era: Option<Era> = None;
    let mut input = BufReader::new(tokio::io::stdin());
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // A line that is not UTF-8 is a parse error like any other, not the end of input.
        let parsed = std::str::from_utf8(&buf)
            .ok()
            .map(|t| t.trim_end_matches(['\n', '\r']).to_string());
        if parsed.as_deref().is_some_and(|l| l.trim().is_empty()) {
            continue;
        }
        let line = parsed.unwrap_or_default();
        let msg: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(_) => {
                let _ = out.send(response(
                    &Value::Null,
                    Err(RpcError::new(PARSE_ERROR, "Parse error")),
                ));
                continue;
            }
        };
        let (id, method) = match classify(&msg) {
            Err(e) => {
                let _ = out.send(response(&Value::Null, Err(e)));
                continue;
            }
            Ok(Kind::Response) => {
                peer.deliver(&msg);
                continue;
            }
            Ok(Kind::Notification) => continue,
            Ok(Kind::Request { id, method }) => (id.clone(), method.to_string()),
        };
        let era = era.get_or_insert_with(|| {
            if method != "initialize" && is_enveloped(&msg) {
                Era::Modern
            } else {
                Era::Legacy(Arc::new(Mutex::new(Legacy::default())))
            }
        });
        match era {
            Era::Modern => {
                let outcome = if method == "initialize" {
                    let offered = msg
                        .get("params")
                        .and_then(|p| p.get("protocolVersion"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    Err(RpcError::new(
                        UNSUPPORTED_VERSION,
                        format!(
                            "connection is serving the {MODERN} protocol; the initialize \
                             handshake is not accepted"
                        ),
                    )
                    .with_data(json!({"supported": [MODERN], "requested": offered})))
                } else {
                    server.handle_modern(&method, &msg, &line)
                };
                let _ = out.send(response(&id, outcome));
            }
            Era::Legacy(state) => {
                if is_enveloped(&msg) {
                    let e = invalid_request(
                        "connection is serving the handshake protocol; enveloped 2026-07-28 \
                         requests are not accepted",
                    );
                    let _ = out.send(response(&id, Err(e)));
                    continue;
                }
                if method == "initialize" {
                    let (result, legacy) = server.initialize(msg.get("params"));
                    *state.lock().expect("state lock") = legacy;
                    let _ = out.send(response(&id, Ok(result)));
                    continue;
                }
                // Requests run concurrently: a tools/call waits for answers that arrive
                // on this same input stream.
                let legacy = state.lock().expect("state lock").clone();
                let (server, peer, out) = (server.clone(), peer.clone(), out.clone());
                tokio::spawn(async move {
                    let outcome = server
                        .handle_legacy(&method, &msg, &line, &legacy, &peer, &out)
                        .await;
                    let _ = out.send(response(&id, outcome));
                });
            }
        }
    }
    drop(out);
    // Let queued replies reach stdout; in-flight calls end with the process.
    let _ = tokio::time::timeout(std::time::Duration::from_millis(200), writer).await;
}
