//! A stdio transport for rmcp that no line from the client can end.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a reply
//! (rust-sdk#938), answers a request it cannot decode without its `id`, and, before the
//! first request is served, ends the whole server on a response or a notification
//! (`expect initialized request`). [`serve`] sits in front of rmcp and checks every
//! line first, as JSON-RPC 2.0 and MCP say:
//!
//! | the client sends | the answer |
//! |---|---|
//! | a line that is not JSON (or not UTF-8) | `-32700 Parse error`, `id: null` |
//! | JSON that is not a request, notification or response (an array, `"jsonrpc":"1.0"`, an `id` that is not a string or number, no `method`) | `-32600 Invalid Request`, with the `id` when it is one |
//! | a request rmcp cannot decode (`params` of the wrong shape) | `-32602 Invalid params` with its `id` |
//! | a line longer than `max_line` bytes | `-32600` naming the limit, with the `id` when it is in the first `max_line` bytes |
//! | a response nobody asked for, a notification rmcp does not know or cannot decode, either before the session has started | nothing (JSON-RPC: notifications and responses are never answered) |
//!
//! Everything else goes to rmcp unchanged, and rmcp's output goes to stdout with
//! `inputRequests` in declaration order ([`crate::wire`]).
//!
//! Start-up: rmcp 3.11's `serve_server` ends the whole server on a response or
//! notification read before a request opens a session (`initialize`, or a 2026-07-28
//! call with complete `_meta`). Until the filter has forwarded such a request it drops
//! responses and notifications; after it, every decodable line goes to rmcp.
//!
//! ```no_run
//! # async fn doc(server: impl rmcp::ServerHandler) -> std::io::Result<()> {
//! // Serve until the client closes stdin; the last replies reach stdout first.
//! // (elicit_rmcp::stdio through elicit-rmcp)
//! elicit_rmcp_transport::stdio::serve(server, elicit_rmcp_transport::stdio::MAX_LINE).await
//! # }
//! ```

use std::borrow::Cow;
use std::io;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta as _, ProtocolVersion};
use rmcp::service::ServerInitializeError;
use rmcp::{ServerHandler, ServiceExt as _};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::wire;

/// Default longest line read from stdin (bytes), as rmcp's default.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// How long [`serve`] waits for the last replies to reach stdout after rmcp has ended.
const FLUSH_WAIT: Duration = Duration::from_secs(5);

/// Serve `service` over stdin and stdout with every line checked first (module docs)
/// until the client closes stdin; the last replies reach stdout before it returns.
/// `max_line`: the longest line read, in bytes.
///
/// # Errors
///
/// When rmcp ends the session with an error (an `initialize` the handler refuses, an
/// I/O error); a client closing stdin before a session opens is a normal end.
pub async fn serve<S: ServerHandler>(service: S, max_line: usize) -> io::Result<()> {
    serve_on(service, tokio::io::stdin(), tokio::io::stdout(), max_line).await
}

/// [`serve`] over any byte streams (tests use pipes).
///
/// # Errors
///
/// As [`serve`].
pub async fn serve_on<S, R, W>(service: S, input: R, output: W, max_line: usize) -> io::Result<()>
where
    S: ServerHandler,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let versions = ServerHandler::supported_protocol_versions(&service).into_owned();
    let (transport, flushed) = filter(input, output, max_line, versions);
    let served = match service.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(io::Error::other(e)),
    };
    let _ = tokio::time::timeout(FLUSH_WAIT, flushed).await;
    served
}

/// The envelope of one message: what decides where it goes.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    /// `Some(Value::Null)` for `"id": null`, `None` without an `id`.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// What to do with one line: to rmcp (`opens`: rmcp leaves its start-up loop on it).
enum Verdict {
    Forward { opens: bool },
    Answer(Vec<u8>),
    Ignore,
}

fn error_line(id: Option<&Value>, code: i32, message: &str) -> Vec<u8> {
    let id = match id {
        Some(v @ (Value::Number(_) | Value::String(_))) => v.clone(),
        _ => Value::Null,
    };
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

fn valid_id(id: &Value) -> bool {
    matches!(id, Value::Number(_) | Value::String(_))
}

/// `serving`: rmcp has left its start-up loop (see the module docs); `versions`: the
/// protocol versions the server supports.
fn judge(text: &[u8], serving: bool, versions: &[ProtocolVersion]) -> Verdict {
    let env: Envelope<'_> = match serde_json::from_slice(text) {
        Ok(e) => e,
        // Readable JSON of the wrong shape (an array, a string, `"id": true`).
        Err(e) if e.is_data() && serde_json::from_slice::<IgnoredAny>(text).is_ok() => {
            return Verdict::Answer(error_line(None, -32600, "Invalid Request"));
        }
        Err(_) => return Verdict::Answer(error_line(None, -32700, "Parse error")),
    };
    let id = env.id.as_ref();
    if env.jsonrpc.as_deref() != Some("2.0") {
        return Verdict::Answer(error_line(
            id,
            -32600,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    let decoded = || serde_json::from_slice::<ClientJsonRpcMessage>(text).ok();
    // Responses and notifications: never answered; rmcp ends on them before a session.
    let never_answered = || match serving.then(decoded).flatten() {
        Some(_) => Verdict::Forward { opens: false },
        None => Verdict::Ignore,
    };
    match (env.method.is_some(), id) {
        (true, Some(id)) if valid_id(id) => match decoded() {
            Some(message) => Verdict::Forward {
                opens: !serving && opens_session(&message, versions),
            },
            None => Verdict::Answer(error_line(Some(id), -32602, "Invalid params")),
        },
        (true, Some(_)) => Verdict::Answer(error_line(
            None,
            -32600,
            "Invalid Request: \"id\" must be a string or a number",
        )),
        (true, None) => never_answered(),
        (false, Some(_)) if env.result.is_some() || env.error.is_some() => never_answered(),
        (false, _) => Verdict::Answer(error_line(
            id,
            -32600,
            "Invalid Request: neither a request, a notification nor a response",
        )),
    }
}

/// Whether rmcp 3.11's start-up loop opens a session on `message`: an `initialize`, or a
/// request other than `ping` and `server/discover` with complete 2026-07-28 `_meta`
/// naming a version in `versions` (`a_stray_line_after_discover_ends_nothing` holds this
/// to rmcp's behaviour).
fn opens_session(message: &ClientJsonRpcMessage, versions: &[ProtocolVersion]) -> bool {
    let ClientJsonRpcMessage::Request(request) = message else {
        return false;
    };
    match &request.request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|v| versions.contains(&v))
        }
    }
}

/// The `id` of a message cut short at the line limit, when the part read holds it: the
/// top-level `"id"` member, a number or a string.
fn id_in_prefix(prefix: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0usize;
    while let Some(&b) = prefix.get(i) {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(prefix, i)?;
                let key = prefix.get(i..=end)?;
                i = end + 1;
                if depth == 1 && key == b"\"id\"" {
                    let rest = prefix.get(i..)?;
                    let colon = rest.iter().position(|c| !c.is_ascii_whitespace())?;
                    if rest.get(colon) != Some(&b':') {
                        continue;
                    }
                    let value = rest.get(colon + 1..)?;
                    let start = value.iter().position(|c| !c.is_ascii_whitespace())?;
                    let value = value.get(start..)?;
                    let len = if value.first() == Some(&b'"') {
                        string_end(value, 0)? + 1
                    } else {
                        value.iter().position(|c| {
                            !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                        })?
                    };
                    let id: Value = serde_json::from_slice(value.get(..len)?).ok()?;
                    return valid_id(&id).then_some(id);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Index of the quote closing the string that opens at `start`.
fn string_end(s: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while let Some(&b) = s.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The checked transport rmcp serves on, and the output task (awaited so the last
/// replies reach stdout).
fn filter<R, W>(
    input: R,
    output: W,
    max_line: usize,
    versions: Vec<ProtocolVersion>,
) -> (
    (
        impl AsyncRead + Send + Unpin + 'static,
        impl AsyncWrite + Send + Unpin + 'static,
    ),
    tokio::task::JoinHandle<()>,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(64 * 1024);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(64 * 1024);
    let (errors, mut error_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    // The input task's alone: rmcp reads one line at a time before a session.
    let mut serving = false;

    // stdin -> checks -> rmcp
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut to_rmcp = to_rmcp;
        let mut line = Vec::new();
        let too_long = format!(
            "Invalid Request: message longer than {max_line} bytes (this server's line limit)"
        );
        loop {
            line.clear();
            let limit = u64::try_from(max_line)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            let n = match (&mut input).take(limit).read_until(b'\n', &mut line).await {
                Ok(n) => n,
                Err(_) => break,
            };
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') && line.len() > max_line {
                let id = id_in_prefix(&line);
                // Too long: skip to the end of the line without keeping it.
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut input)
                        .take(64 * 1024)
                        .read_until(b'\n', &mut rest)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
                let _ = errors.send(error_line(id.as_ref(), -32600, &too_long));
                continue;
            }
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match judge(text, serving, &versions) {
                Verdict::Forward { opens } => {
                    serving |= opens;
                    let mut forward = text.to_vec();
                    forward.push(b'\n');
                    if to_rmcp.write_all(&forward).await.is_err() {
                        break;
                    }
                }
                Verdict::Answer(reply) => {
                    let _ = errors.send(reply);
                }
                Verdict::Ignore => {}
            }
        }
        // Dropping `to_rmcp` is rmcp's end of input.
    });

    // rmcp and the checks -> stdout, one whole line at a time.
    let flushed = tokio::spawn(async move {
        let mut output = output;
        let mut lines = BufReader::new(from_rmcp);
        let mut buf = Vec::new();
        let mut errors_open = true;
        loop {
            buf.clear();
            tokio::select! {
                next = lines.read_until(b'\n', &mut buf) => match next {
                    Ok(n) if n > 0 => {
                        let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
                        let fixed = wire::restore(body);
                        let out: &[u8] = fixed.as_deref().unwrap_or(body);
                        if output.write_all(out).await.is_err()
                            || output.write_all(b"\n").await.is_err()
                            || output.flush().await.is_err()
                        {
                            break;
                        }
                    }
                    _ => {
                        // rmcp is done; answers to lines read before that still go out.
                        while let Ok(e) = error_rx.try_recv() {
                            if output.write_all(&e).await.is_err() {
                                break;
                            }
                        }
                        let _ = output.flush().await;
                        break;
                    }
                },
                err = error_rx.recv(), if errors_open => match err {
                    Some(e) => {
                        if output.write_all(&e).await.is_err() || output.flush().await.is_err() {
                            break;
                        }
                    }
                    None => errors_open = false,
                },
            }
        }
    });
    ((rmcp_in, rmcp_out), flushed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(line: &str, serving: bool) -> String {
        match judge(line.as_bytes(), serving, ProtocolVersion::KNOWN_VERSIONS) {
            Verdict::Forward { opens: false } => "forward".into(),
            Verdict::Forward { opens: true } => "opens".into(),
            Verdict::Ignore => "ignore".into(),
            Verdict::Answer(a) => String::from_utf8(a).unwrap().trim_end().to_owned(),
        }
    }

    #[test]
    fn every_line_gets_the_answer_json_rpc_gives_it() {
        let ping = r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
        assert_eq!(verdict(ping, false), "forward");
        assert!(verdict("{oops", true).contains(r#""id":null,"error":{"code":-32700"#));
        assert!(verdict("[1,2]", true).contains(r#""id":null,"error":{"code":-32600"#));
        assert!(verdict("[1, 2", true).contains(r#""id":null,"error":{"code":-32700"#));
        assert!(verdict(r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, true)
            .contains(r#""id":5,"error":{"code":-32600"#));
        assert!(
            verdict(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, true)
                .contains(r#""id":null,"error":{"code":-32600"#)
        );
        assert!(verdict(r#"{"jsonrpc":"2.0","id":6}"#, true)
            .contains(r#""id":6,"error":{"code":-32600"#));
        assert!(verdict(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#,
            true
        )
        .contains(r#""id":7,"error":{"code":-32602"#));
        let stray = r#"{"jsonrpc":"2.0","id":77,"result":{}}"#;
        let unknown = r#"{"jsonrpc":"2.0","method":"notifications/bogus"}"#;
        assert_eq!(verdict(stray, false), "ignore");
        assert_eq!(verdict(unknown, false), "ignore");
        assert_eq!(verdict(stray, true), "forward");
        assert_eq!(verdict(unknown, true), "forward");
    }

    #[test]
    fn the_id_of_a_cut_message_is_found_when_it_was_read() {
        assert_eq!(
            id_in_prefix(br#"{"jsonrpc":"2.0","id":42,"method":"x","params":{"a":"#),
            Some(Value::from(42))
        );
        assert_eq!(
            id_in_prefix(br#"{"params":{"id":1},"id" : "r-1","#),
            Some(Value::from("r-1"))
        );
        assert_eq!(id_in_prefix(br#"{"params":{"id":1,"x":"aaaa"#), None);
        assert_eq!(
            id_in_prefix(br#"{"a":"\"id\"","id":3,"#),
            Some(Value::from(3))
        );
    }

    #[tokio::test]
    async fn unreadable_lines_are_answered_and_readable_ones_pass() {
        let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, client_r) = tokio::io::duplex(1 << 16);
        let versions = ProtocolVersion::KNOWN_VERSIONS.to_vec();
        let ((mut rmcp_r, mut rmcp_w), flushed) = filter(server_r, server_w, 64, versions);
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        client_w.write_all(b"{oops\n\xff\xfe\n\n").await.unwrap();
        client_w.write_all(ping).await.unwrap();
        client_w
            .write_all(b"\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\",\"params\":{\"pad\":\"")
            .await
            .unwrap();
        client_w.write_all(&[b'x'; 100]).await.unwrap();
        client_w.write_all(b"\"}}\n[2]\n").await.unwrap();
        drop(client_w);
        let mut got = String::new();
        rmcp_r.read_to_string(&mut got).await.unwrap();
        assert_eq!(got.as_bytes(), [&ping[..], b"\n"].concat());
        rmcp_w.write_all(b"{\"r\":1}\n").await.unwrap();
        drop(rmcp_w);
        flushed.await.unwrap();
        let mut out = String::new();
        BufReader::new(client_r)
            .read_to_string(&mut out)
            .await
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains("-32700")).count(), 2);
        assert!(lines.contains(&r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: message longer than 64 bytes (this server's line limit)"}}"#));
        assert!(lines.contains(
            &r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#
        ));
        assert!(lines.contains(&"{\"r\":1}"));
    }

    /// A server with tools (none), to open sessions on.
    #[derive(Clone)]
    struct Plain;

    impl ServerHandler for Plain {
        fn get_info(&self) -> rmcp::model::ServerConfig {
            rmcp::model::ServerConfig::new(
                rmcp::model::ServerCapabilities::builder()
                    .enable_tools()
                    .build(),
            )
        }
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;

    /// Send `lines` to a served [`Plain`], then a `ping` with id `"last"`; the answers
    /// up to the ping's (the server must still be there to give it), and how serving
    /// ended once stdin closed.
    async fn session(lines: &[String]) -> (Vec<Value>, io::Result<()>) {
        let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, client_r) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(serve_on(Plain, server_r, server_w, MAX_LINE));
        for line in lines {
            client_w.write_all(line.as_bytes()).await.unwrap();
            client_w.write_all(b"\n").await.unwrap();
        }
        client_w
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}\n")
            .await
            .unwrap();
        let mut out = BufReader::new(client_r).lines();
        let mut answers = Vec::new();
        let read = async {
            while let Some(line) = out.next_line().await.unwrap() {
                let v: Value = serde_json::from_str(&line).unwrap();
                let last = v["id"] == "last";
                answers.push(v);
                if last {
                    break;
                }
            }
        };
        let answered = tokio::time::timeout(Duration::from_secs(10), read).await;
        drop(client_w);
        let ended = served.await.unwrap();
        assert!(answered.is_ok(), "the ping went unanswered: {answers:?}");
        (answers, ended)
    }

    fn discover() -> String {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#)
    }

    fn initialize() -> String {
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned()
    }

    fn strays() -> Vec<String> {
        [
            r#"{"jsonrpc":"2.0","id":999,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":998,"error":{"code":-32000,"message":"stray"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/bogus","params":{}}"#,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn ids(answers: &[Value]) -> Vec<String> {
        answers.iter().map(|a| a["id"].to_string()).collect()
    }

    #[tokio::test]
    async fn a_stray_line_after_discover_ends_nothing() {
        // discover -> stray responses, errors, notifications -> initialize
        let mut lines = vec![discover()];
        lines.extend(strays());
        lines.push(initialize());
        lines.extend(strays());
        let (answers, ended) = session(&lines).await;
        assert_eq!(ids(&answers), ["1", "2", "\"last\""]);
        assert!(
            answers[0]["result"]["supportedVersions"].is_array(),
            "{answers:?}"
        );
        assert!(
            answers[1]["result"]["serverInfo"].is_object(),
            "{answers:?}"
        );
        assert!(answers[2]["result"].is_object());
        ended.unwrap();

        // discover -> a stray line -> an inline 2026-07-28 call (which opens the session)
        for stray in strays() {
            let call =
                format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{META}}}}}"#);
            let lines = [
                discover(),
                stray,
                call.clone(),
                strays()[0].clone(),
                strays()[1].clone(),
            ];
            let (answers, ended) = session(&lines).await;
            assert_eq!(ids(&answers), ["1", "3", "\"last\""], "{answers:?}");
            assert_eq!(answers[1]["result"]["tools"], serde_json::json!([]));
            ended.unwrap();
        }

        // An inline call rmcp refuses (no capabilities) leaves start-up open: a stray
        // response after it still ends nothing.
        let partial = r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let unknown = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let mut lines = vec![partial.to_owned(), strays()[0].clone(), unknown.to_owned()];
        lines.extend(strays());
        lines.push(initialize());
        let (answers, ended) = session(&lines).await;
        assert_eq!(ids(&answers), ["4", "5", "2", "\"last\""], "{answers:?}");
        assert!(answers[0]["error"].is_object() && answers[1]["error"].is_object());
        ended.unwrap();
    }
}
