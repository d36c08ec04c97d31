//! Newline-delimited JSON-RPC 2.0 on bounded buffers: reading a line, classifying a
//! message, and writing responses and errors straight to the UART.

use elicit_core::json::{write_i64, write_str_contents, Kind, Value};
use elicit_core::Sink;

use crate::board::Uart;

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const METHOD_NOT_FOUND: i32 = -32601;
pub const INVALID_PARAMS: i32 = -32602;
pub const INTERNAL_ERROR: i32 = -32603;
pub const MISSING_CAPABILITY: i32 = -32021;
pub const UNSUPPORTED_VERSION: i32 = -32022;

/// What [`read_line`] got.
pub enum Line {
    /// A line of this many bytes (without its `\n` or a `\r` before it).
    Text(usize),
    /// A line longer than the buffer: it was read to its end and dropped; the buffer holds
    /// its first bytes (for [`id_in_prefix`]).
    TooLong,
}

/// Read one line into `buf`; blank lines are skipped.
pub fn read_line(uart: &mut Uart, buf: &mut [u8]) -> Line {
    loop {
        let mut len = 0;
        let mut too_long = false;
        loop {
            let b = uart.read_byte();
            if b == b'\n' {
                break;
            }
            match buf.get_mut(len) {
                Some(slot) if !too_long => {
                    *slot = b;
                    len += 1;
                }
                _ => too_long = true,
            }
        }
        if too_long {
            return Line::TooLong;
        }
        if len > 0 && buf.get(len - 1) == Some(&b'\r') {
            len -= 1;
        }
        if buf.iter().take(len).any(|b| !b.is_ascii_whitespace()) {
            return Line::Text(len);
        }
    }
}

/// The `id` of a request whose line was too long, read from the line's first bytes: the
/// first member named `id` at the top level, when its whole value (a number, or a string
/// without escapes) lies in `prefix`. Best effort: without it the error goes to id null.
// Every index is checked against `prefix.len()` by the loop condition before it is read
// (`i`, `j`, `k`, `e`), and the slices run between such checked indices.
#[allow(clippy::indexing_slicing)]
pub fn id_in_prefix(prefix: &[u8]) -> Option<&str> {
    let mut depth = 0u32;
    let mut i = 0;
    let mut expect_key = false;
    while i < prefix.len() {
        match prefix[i] {
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => expect_key = depth == 1,
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < prefix.len() && prefix[j] != b'"' {
                    j += if prefix[j] == b'\\' { 2 } else { 1 };
                }
                if j >= prefix.len() {
                    return None;
                }
                if depth == 1 && expect_key && &prefix[start..j] == b"id" {
                    let mut k = j + 1;
                    while k < prefix.len() && (prefix[k] == b':' || prefix[k].is_ascii_whitespace())
                    {
                        k += 1;
                    }
                    let v = k;
                    let mut e = k;
                    if prefix.get(k) == Some(&b'"') {
                        e += 1;
                        while e < prefix.len() && prefix[e] != b'"' && prefix[e] != b'\\' {
                            e += 1;
                        }
                        e += 1;
                    } else {
                        while e < prefix.len()
                            && matches!(prefix[e], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                        {
                            e += 1;
                        }
                    }
                    if e >= prefix.len() {
                        return None;
                    }
                    let text = core::str::from_utf8(&prefix[v..e]).ok()?;
                    let id = Value::parse(text).ok()?;
                    return matches!(id.kind(), Kind::Number | Kind::String).then_some(text);
                }
                expect_key = false;
                i = j;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A parsed message.
pub enum Message<'m> {
    /// A request (its `id` is not null).
    Request {
        id: Value<'m>,
        method: &'m str,
        params: Option<Value<'m>>,
    },
    /// A notification: nothing to answer.
    Notification,
    /// A response to one of the agent's own requests.
    Response {
        id: Value<'m>,
        result: Option<Value<'m>>,
        error: Option<Value<'m>>,
    },
}

/// A JSON-RPC error to answer.
pub struct Failure {
    pub code: i32,
    pub message: &'static str,
}

/// Classify `text` (one line).
pub fn classify(text: &str) -> Result<Message<'_>, Failure> {
    let msg = Value::parse(text).map_err(|_| Failure {
        code: PARSE_ERROR,
        message: "Parse error",
    })?;
    if msg.kind() != Kind::Object {
        return Err(Failure {
            code: INVALID_REQUEST,
            message: "Invalid Request: expected a JSON-RPC 2.0 object",
        });
    }
    if !msg
        .get("jsonrpc")
        .and_then(|v| v.as_str())
        .is_some_and(|s| s.eq_str("2.0"))
    {
        return Err(Failure {
            code: INVALID_REQUEST,
            message: "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        });
    }
    let id = msg.get("id");
    let method = msg.get("method").and_then(|m| m.as_str());
    match (method, id) {
        (Some(m), Some(id)) if !id.is_null() => Ok(Message::Request {
            id,
            // Method names are ASCII; one with escapes is no method the agent knows.
            method: m.as_plain().unwrap_or("\u{0}"),
            params: msg.get("params"),
        }),
        (Some(_), None) => Ok(Message::Notification),
        (None, Some(id)) if msg.get("method").is_none() => {
            let (result, error) = (msg.get("result"), msg.get("error"));
            if result.is_none() && error.is_none() {
                return Err(Failure {
                    code: INVALID_REQUEST,
                    message: "Invalid Request",
                });
            }
            Ok(Message::Response { id, result, error })
        }
        _ => Err(Failure {
            code: INVALID_REQUEST,
            message: "Invalid Request",
        }),
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"result":` — the caller writes the result, then [`end`].
pub fn begin_result(out: &mut Uart, id: &str) {
    out.put(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.put(id.as_bytes());
    out.put(b",\"result\":");
}

/// Close a response and end its line.
pub fn end(out: &mut Uart) {
    out.put(b"}\n");
}

/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":"<message>"` — the caller may
/// add `,"data":..`, then [`end_error`].
pub fn begin_error(out: &mut Uart, id: &str, code: i32, message: &mut dyn FnMut(&mut dyn Sink)) {
    out.put(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.put(id.as_bytes());
    out.put(b",\"error\":{\"code\":");
    write_i64(i64::from(code), out);
    out.put(b",\"message\":\"");
    message(&mut Escaped(out));
    out.put(b"\"");
}

/// Close an error response and end its line.
pub fn end_error(out: &mut Uart) {
    out.put(b"}}\n");
}

/// [`begin_error`] with a fixed message (one closure for all of them).
pub fn begin_error_text(out: &mut Uart, id: &str, code: i32, message: &str) {
    begin_error(out, id, code, &mut |s| s.put(message.as_bytes()));
}

/// A whole error response with a fixed message and no data.
pub fn error(out: &mut Uart, id: &str, code: i32, message: &str) {
    begin_error_text(out, id, code, message);
    end_error(out);
}

/// `-32603 Internal error` (what the agent answers when its own buffers or invariants fail
/// a call). Out of line: one call with the id instead of the whole error's arguments at
/// each of its places.
#[inline(never)]
pub fn internal_error(out: &mut Uart, id: &str) {
    error(out, id, INTERNAL_ERROR, "Internal error");
}

/// A sink that writes what it is given as the contents of a JSON string, escaped as the
/// engine escapes text (`json.dumps`, non-ASCII as it is). Every `put` is whole UTF-8 (the
/// agent's texts, and the engine's Python reprs and JSON); were one not, it would be
/// written as one U+FFFD, so the line stays JSON.
pub struct Escaped<'s>(pub &'s mut dyn Sink);

impl Sink for Escaped<'_> {
    fn put(&mut self, bytes: &[u8]) {
        match core::str::from_utf8(bytes) {
            Ok(text) => write_str_contents(text, false, self.0),
            Err(_) => self.0.put("\u{FFFD}".as_bytes()),
        }
    }
}
