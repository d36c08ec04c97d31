//! The MCP server: both protocol eras over one UART, as elicit-rmcp-server serves them over
//! stdio (servers/rmcp, integrations/rmcp's `stdio.rs`).
//!
//! * The era is picked from the connection's first request, as the MCP Python SDK does:
//!   an enveloped request (its `params._meta` names a protocol version) that is not
//!   `initialize` makes the connection 2026-07-28; anything else makes it handshake-era.
//!   After that the other era is refused (`initialize` → -32022, an enveloped request →
//!   -32600).
//! * 2026-07-28: `server/discover`, `tools/list`, stateless `tools/call` answering an
//!   `InputRequiredResult` (batched `inputRequests`, `requestState` sealed on the device)
//!   until every declared parameter is settled; -32021 when the request's capabilities
//!   lack form elicitation and a question would be asked.
//! * handshake era: `initialize`, `ping`, `tools/list`, `tools/call` asking one
//!   `elicitation/create` at a time over the same line and waiting for the answer. The
//!   device serves one request at a time: while it waits, `ping` is answered and any other
//!   request gets -32000 (send it again after the running call).
//!
//! Every buffer is fixed ([`Buffers`]); a line longer than the line buffer, or a message
//! that is not JSON-RPC, gets a JSON-RPC error and the agent reads on.

#[cfg(not(feature = "seal"))]
use elicit_core::json::Str;
use elicit_core::json::{write_i64, write_str, Kind, Value};
#[cfg(feature = "seal")]
use elicit_core::seal::{Binding, Sealer};
use elicit_core::{Capabilities, Era, Error, Inputs, Plan, Round, Sink, SliceSink, Step, Style};

use zeroize::Zeroize;

use crate::board::{self, Uart};
use crate::provision::{self, Provision, Refused};
#[cfg(feature = "seal")]
use crate::provision::{Clock, Nonces, MAX_KEYS};
use crate::rpc::{self, Escaped, Line, Message};
use crate::tools::{self, Resolved, Tool, N};
use elicit_core::write_py_repr;

/// The only modern protocol version.
const MODERN: &str = "2026-07-28";
/// Handshake-era versions accepted in `initialize`.
const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Answered when the client offers a version the agent does not know.
const LATEST_HANDSHAKE: &str = "2025-11-25";
/// The server's name: `serverInfo.name`, and the audience of sealed state (the same as
/// elicit-rmcp-server's, so the two serve rounds of each other's calls).
pub const SERVER_NAME: &str = "booking";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO: &str = r#"{"name":"booking","version":"0.1.0"}"#;
const SERVER_META: &str =
    r#"{"io.modelcontextprotocol/serverInfo":{"name":"booking","version":"0.1.0"}}"#;

/// Bytes of one JSON-RPC line (a request, or a handshake answer).
pub const LINE_CAP: usize = 2560;
/// The unsealed state of a 2026-07-28 call, or the answer line of a handshake ask.
pub const AUX_CAP: usize = 1280;
/// The next state, sealed in place into its token; or a finished call's values.
pub const TOKEN_CAP: usize = 1280;
/// The round's workspace (resolver questions, handshake answers).
pub const WS_CAP: usize = 768;
/// A resolver's inputs (`{"destination":..,"date":..}`).
const INPUTS_CAP: usize = 384;
/// A resolver's value or question.
const ANSWER_CAP: usize = 512;

/// The agent's buffers (all of its I/O text).
pub struct Buffers {
    pub line: [u8; LINE_CAP],
    pub aux: [u8; AUX_CAP],
    pub token: [u8; TOKEN_CAP],
    pub ws: [u8; WS_CAP],
}

#[derive(Clone, Copy)]
enum Connection {
    Modern,
    /// Handshake era: the kinds `initialize` declared (none before 2025-06-18, which has
    /// no elicitation).
    Handshake {
        caps: Capabilities,
    },
}

/// Sealing (seal builds): the key ring, the clock and the nonces.
#[cfg(feature = "seal")]
pub struct Seal {
    pub sealer: Sealer<'static, MAX_KEYS>,
    pub clock: Clock,
    pub nonces: Nonces,
}

/// The agent.
pub struct Agent {
    uart: Uart,
    conn: Option<Connection>,
    /// The id of the next `elicitation/create` (the server numbers its own from 1).
    next_ask: i64,
    /// Set when provisioning failed: every request is answered with it.
    unprovisioned: Option<&'static str>,
    #[cfg(feature = "seal")]
    seal: Option<Seal>,
}

/// The answer to every request until a provisioning line arrived.
const NOT_PROVISIONED: Refused =
    "the agent was not provisioned: start it with scripts/dev-agent-qemu.sh";

impl Agent {
    /// An agent on `uart`, not provisioned yet (see [`Agent::serve`]).
    pub fn new(uart: Uart) -> Agent {
        Agent {
            uart,
            conn: None,
            next_ask: 1,
            unprovisioned: Some(NOT_PROVISIONED),
            #[cfg(feature = "seal")]
            seal: None,
        }
    }

    /// Serve requests forever. The first line is the launcher's provisioning line
    /// (src/provision.rs); any other first line is served as a request.
    pub fn serve(&mut self, b: &mut Buffers) -> ! {
        let mut first = match rpc::read_line(&mut self.uart, &mut b.line) {
            Line::Text(n) if b.line.get(..n).is_some_and(provision::is_line) => {
                if let Some(line) = b.line.get_mut(..n) {
                    self.provision(line);
                }
                b.line.zeroize();
                None
            }
            other => Some(other),
        };
        loop {
            let line = match first.take() {
                Some(line) => line,
                None => rpc::read_line(&mut self.uart, &mut b.line),
            };
            match line {
                Line::TooLong => self.too_long(&b.line),
                Line::Text(n) => match core::str::from_utf8(b.line.get(..n).unwrap_or(&[])) {
                    Ok(text) => self.handle(text, &mut b.aux, &mut b.token, &mut b.ws),
                    Err(_) => rpc::error(&mut self.uart, "null", rpc::PARSE_ERROR, "Parse error"),
                },
            }
        }
    }

    /// Take the provisioning `line`: the clock, the nonces and the key ring (the caller
    /// wipes the line).
    fn provision(&mut self, line: &mut [u8]) {
        let taken = provision::decode(line).and_then(|block| {
            let p = Provision::parse(block)?;
            board::set_timer_hz(p.timer_hz);
            #[cfg(feature = "seal")]
            {
                self.seal = Some(Seal {
                    sealer: Sealer::new(p.ring(block)?, Some(SERVER_NAME)),
                    clock: Clock::new(p.start),
                    nonces: Nonces::new(p.seed),
                });
            }
            Ok(())
        });
        self.unprovisioned = taken.err();
    }

    fn too_long(&mut self, prefix: &[u8]) {
        let id = rpc::id_in_prefix(prefix).unwrap_or("null");
        rpc::begin_error(&mut self.uart, id, rpc::INVALID_REQUEST, &mut |s| {
            s.put(b"Request too large: the agent reads JSON-RPC lines of at most ");
            write_i64(LINE_CAP as i64, s);
            s.put(b" bytes");
        });
        rpc::end_error(&mut self.uart);
    }

    fn handle(&mut self, text: &str, aux: &mut [u8], token: &mut [u8], ws: &mut [u8]) {
        let (id, method, params) = match rpc::classify(text) {
            Err(f) => return rpc::error(&mut self.uart, "null", f.code, f.message),
            Ok(Message::Notification | Message::Response { .. }) => return,
            Ok(Message::Request { id, method, params }) => (id.raw(), method, params),
        };
        if let Some(why) = self.unprovisioned {
            return rpc::error(&mut self.uart, id, rpc::INTERNAL_ERROR, why);
        }
        let meta = params.and_then(|p| p.get("_meta"));
        let enveloped = meta.and_then(|m| m.get(META_VERSION)).is_some();
        let conn = *self
            .conn
            .get_or_insert(if method != "initialize" && enveloped {
                Connection::Modern
            } else {
                Connection::Handshake {
                    caps: Capabilities::NONE,
                }
            });
        match conn {
            Connection::Modern if method == "initialize" => {
                let offered = params.and_then(|p| p.get("protocolVersion"));
                self.unsupported_version(
                    id,
                    "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                    offered,
                );
            }
            Connection::Modern => self.modern(id, method, params, aux, token, ws),
            Connection::Handshake { .. } if enveloped => rpc::error(
                &mut self.uart,
                id,
                rpc::INVALID_REQUEST,
                "connection is serving the handshake protocol; enveloped 2026-07-28 requests are not accepted",
            ),
            Connection::Handshake { .. } if method == "initialize" => self.initialize(id, params),
            Connection::Handshake { caps } => match method {
                "ping" => self.result(id, "{}"),
                "tools/list" => {
                    rpc::begin_result(&mut self.uart, id);
                    self.uart.put(b"{\"tools\":");
                    tools::write_listing(&mut self.uart);
                    self.uart.put(b"}");
                    rpc::end(&mut self.uart);
                }
                "tools/call" => self.call_handshake(id, params, caps, aux, token, ws),
                _ => self.method_not_found(id, method),
            },
        }
    }

    fn result(&mut self, id: &str, result: &str) {
        rpc::begin_result(&mut self.uart, id);
        self.uart.put(result.as_bytes());
        self.uart.put(b"}\n");
    }

    fn method_not_found(&mut self, id: &str, method: &str) {
        rpc::begin_error_text(
            &mut self.uart,
            id,
            rpc::METHOD_NOT_FOUND,
            "Method not found",
        );
        self.uart.put(b",\"data\":");
        write_str(method, false, &mut self.uart);
        rpc::end_error(&mut self.uart);
    }

    fn unsupported_version(&mut self, id: &str, message: &str, requested: Option<Value<'_>>) {
        rpc::begin_error_text(&mut self.uart, id, rpc::UNSUPPORTED_VERSION, message);
        self.uart
            .put(b",\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":");
        self.uart
            .put(requested.map(|v| v.raw()).unwrap_or("null").as_bytes());
        self.uart.put(b"}");
        rpc::end_error(&mut self.uart);
    }

    /// `-32021`, as the engine decided it (`Error::MissingCapability`).
    fn missing_capability(&mut self, id: &str, e: &Error) {
        let Error::MissingCapability {
            param,
            kind,
            resolver,
            missing,
        } = e
        else {
            return rpc::internal_error(&mut self.uart, id);
        };
        rpc::begin_error(&mut self.uart, id, rpc::MISSING_CAPABILITY, &mut |s| {
            s.put(b"Client did not declare the ");
            s.put(kind.capability_name().as_bytes());
            s.put(b" capability required by ");
            s.put(if *resolver {
                b"resolver "
            } else {
                b"question "
            });
            write_py_repr(param.chars().map(u32::from), s);
        });
        self.uart.put(br#","data":{"requiredCapabilities":"#);
        missing.write_json(&mut self.uart);
        self.uart.put(b"}");
        rpc::end_error(&mut self.uart);
    }

    fn invalid_state(&mut self, id: &str) {
        rpc::begin_error_text(
            &mut self.uart,
            id,
            rpc::INVALID_PARAMS,
            "Invalid or expired requestState",
        );
        self.uart
            .put(br#","data":{"reason":"invalid_request_state"}"#);
        rpc::end_error(&mut self.uart);
    }

    /// A tool result: `text` writes the text as JSON string contents (already escaped).
    fn tool_result(
        &mut self,
        id: &str,
        modern: bool,
        is_error: bool,
        text: &mut dyn FnMut(&mut dyn Sink),
    ) {
        let u = &mut self.uart;
        rpc::begin_result(u, id);
        if is_error {
            if modern {
                u.put(b"{\"_meta\":");
                u.put(SERVER_META.as_bytes());
                u.put(b",");
            } else {
                u.put(b"{");
            }
        } else {
            u.put(b"{\"_meta\":{");
            if modern {
                u.put(
                    SERVER_META
                        .as_bytes()
                        .get(1..SERVER_META.len() - 1)
                        .unwrap_or(&[]),
                );
                u.put(b",");
            }
            u.put(b"\"fastmcp\":{\"wrap_result\":true}},");
        }
        u.put(b"\"content\":[{\"type\":\"text\",\"text\":\"");
        text(u);
        u.put(if is_error {
            b"\"}],\"isError\":true"
        } else {
            b"\"}],\"isError\":false"
        });
        if modern {
            u.put(b",\"resultType\":\"complete\"");
        }
        if !is_error {
            u.put(b",\"structuredContent\":{\"result\":\"");
            text(u);
            u.put(b"\"}");
        }
        u.put(b"}");
        rpc::end(u);
    }

    fn tool_error(&mut self, id: &str, modern: bool, message: &mut dyn FnMut(&mut dyn Sink)) {
        self.tool_result(id, modern, true, &mut |s| message(&mut Escaped(s)));
    }

    // ------------------------------------------------------------------ handshake era

    fn initialize(&mut self, id: &str, params: Option<Value<'_>>) {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(|v| v.as_str());
        let version = HANDSHAKE_VERSIONS
            .iter()
            .copied()
            .find(|v| requested.is_some_and(|r| r.eq_str(v)))
            .unwrap_or(LATEST_HANDSHAKE);
        let caps = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.kind() == Kind::Object);
        // Elicitation exists from 2025-06-18 on.
        let caps = match caps {
            Some(c) if version >= "2025-06-18" => Capabilities::from_client_json(c.raw()),
            _ => Capabilities::NONE,
        };
        self.conn = Some(Connection::Handshake { caps });
        rpc::begin_result(&mut self.uart, id);
        self.uart.put(b"{\"protocolVersion\":\"");
        self.uart.put(version.as_bytes());
        self.uart
            .put(b"\",\"capabilities\":{\"tools\":{\"listChanged\":false}},\"serverInfo\":");
        self.uart.put(SERVER_INFO.as_bytes());
        self.uart.put(b"}");
        rpc::end(&mut self.uart);
    }

    fn call_handshake(
        &mut self,
        id: &str,
        params: Option<Value<'_>>,
        caps: Capabilities,
        aux: &mut [u8],
        token: &mut [u8],
        ws: &mut [u8],
    ) {
        let Some((tool, plan, args)) = self.call_target(id, params, false) else {
            return;
        };
        let mut slot = None;
        let inputs = Inputs::handshake(args.map_or("{}", |a| a.raw())).with_capabilities(caps);
        let round = match new_round(&mut slot, &plan, Era::Handshake, inputs, ws) {
            Ok(r) => r,
            Err(e) => return self.invalid_params(id, &e),
        };
        loop {
            match drive(round, tool, &plan) {
                Err(e @ Error::MissingCapability { .. }) => return self.missing_capability(id, &e),
                Err(e) => return self.tool_error(id, false, &mut |s| tools::write_error(&e, s)),
                Ok(Step::Done) => return self.finish(id, false, round, tool, args, token),
                Ok(Step::Ask { .. }) => {
                    let ask = self.next_ask;
                    self.next_ask += 1;
                    let u = &mut self.uart;
                    u.put(b"{\"jsonrpc\":\"2.0\",\"id\":");
                    write_i64(ask, u);
                    u.put(b",\"method\":\"elicitation/create\",\"params\":");
                    let _ = round.write_ask(u);
                    u.put(b"}\n");
                    match self.await_answer(ask, aux) {
                        Answer::Result(at, len) => {
                            let reply = core::str::from_utf8(aux.get(at..at + len).unwrap_or(&[]))
                                .unwrap_or("");
                            if let Err(e) = round.answer(reply) {
                                return self
                                    .tool_error(id, false, &mut |s| tools::write_error(&e, s));
                            }
                        }
                        Answer::Error(at, len) => {
                            let message =
                                core::str::from_utf8(aux.get(at..at + len).unwrap_or(&[]))
                                    .unwrap_or("");
                            // The message is raw JSON string contents: written as is.
                            return self.tool_result(id, false, true, &mut |s| {
                                Escaped(s).put(b"Error calling tool ");
                                write_py_repr(tool.name.chars().map(u32::from), &mut Escaped(s));
                                s.put(b": ");
                                s.put(message.as_bytes());
                            });
                        }
                        Answer::TooLong => {
                            return self.tool_error(id, false, &mut |s| {
                                s.put(b"Error calling tool ");
                                write_py_repr(tool.name.chars().map(u32::from), s);
                                s.put(b": the client's answer is longer than the agent's ");
                                write_i64(AUX_CAP as i64, s);
                                s.put(b"-byte line buffer");
                            });
                        }
                    }
                }
                // The agent's tools declare no fallback (and its engine is built without
                // the feature): never reached.
                Ok(Step::Resolve { .. } | Step::InputRequired | Step::Fallback) => {
                    return rpc::internal_error(&mut self.uart, id)
                }
            }
        }
    }

    /// Wait for the client's answer to `elicitation/create` number `ask`, read into `buf`.
    fn await_answer(&mut self, ask: i64, buf: &mut [u8]) -> Answer {
        let mut digits = [0u8; 24];
        let mut d = SliceSink::new(&mut digits);
        write_i64(ask, &mut d);
        let n = d.needed().min(24);
        loop {
            let len = match rpc::read_line(&mut self.uart, buf) {
                Line::TooLong => return Answer::TooLong,
                Line::Text(len) => len,
            };
            let Ok(text) = core::str::from_utf8(buf.get(..len).unwrap_or(&[])) else {
                rpc::error(&mut self.uart, "null", rpc::PARSE_ERROR, "Parse error");
                continue;
            };
            let base = text.as_ptr() as usize;
            let span = |v: Value<'_>| (v.raw().as_ptr() as usize - base, v.raw().len());
            match rpc::classify(text) {
                Err(f) => rpc::error(&mut self.uart, "null", f.code, f.message),
                Ok(Message::Notification) => {}
                Ok(Message::Response { id, result, error }) => {
                    if Some(id.raw().as_bytes()) != digits.get(..n) {
                        continue;
                    }
                    if let Some(r) = result {
                        let (at, len) = span(r);
                        return Answer::Result(at, len);
                    }
                    let (at, len) = error
                        .and_then(|e| e.get("message"))
                        .and_then(|m| m.as_str())
                        .map_or((0, 0), |m| {
                            (m.raw().as_ptr() as usize - base, m.raw().len())
                        });
                    return Answer::Error(at, len);
                }
                Ok(Message::Request { id, method, .. }) => {
                    let id = id.raw();
                    if method == "ping" {
                        self.result(id, "{}");
                    } else {
                        rpc::error(
                            &mut self.uart,
                            id,
                            -32000,
                            "Server busy: the agent serves one request at a time; send it again after the running tools/call",
                        );
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ 2026-07-28

    fn modern(
        &mut self,
        id: &str,
        method: &str,
        params: Option<Value<'_>>,
        aux: &mut [u8],
        token: &mut [u8],
        ws: &mut [u8],
    ) {
        let meta = params
            .and_then(|p| p.get("_meta"))
            .filter(|m| m.kind() == Kind::Object);
        let version = meta
            .and_then(|m| m.get(META_VERSION))
            .filter(|v| v.kind() == Kind::String);
        let caps = meta
            .and_then(|m| m.get(META_CAPS))
            .filter(|c| c.kind() == Kind::Object);
        let (Some(params), Some(version), Some(caps)) = (params, version, caps) else {
            return rpc::error(
                &mut self.uart,
                id,
                rpc::INVALID_PARAMS,
                "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' envelope keys",
            );
        };
        if !version.as_str().is_some_and(|v| v.eq_str(MODERN)) {
            return self.unsupported_version(id, "Unsupported protocol version", Some(version));
        }
        match method {
            "server/discover" => {
                rpc::begin_result(&mut self.uart, id);
                self.uart.put(b"{\"_meta\":");
                self.uart.put(SERVER_META.as_bytes());
                self.uart.put(
                    br#","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":false}},"resultType":"complete"}"#,
                );
                rpc::end(&mut self.uart);
            }
            "tools/list" => {
                rpc::begin_result(&mut self.uart, id);
                self.uart
                    .put(br#"{"cacheScope":"private","resultType":"complete","tools":"#);
                tools::write_listing(&mut self.uart);
                self.uart.put(br#","ttlMs":0,"_meta":"#);
                self.uart.put(SERVER_META.as_bytes());
                self.uart.put(b"}");
                rpc::end(&mut self.uart);
            }
            "tools/call" => self.call_modern(id, params, caps, aux, token, ws),
            _ => self.method_not_found(id, method),
        }
    }

    fn call_modern(
        &mut self,
        id: &str,
        params: Value<'_>,
        caps: Value<'_>,
        aux: &mut [u8],
        token: &mut [u8],
        ws: &mut [u8],
    ) {
        // The boundary runs first, as the SDK's middleware does: a bad token is refused
        // whatever the call.
        #[cfg(feature = "seal")]
        let Some(seal) = self.seal.as_mut() else {
            return rpc::internal_error(&mut self.uart, id);
        };
        #[cfg(feature = "seal")]
        let now = seal.clock.now();
        #[cfg(feature = "seal")]
        let binding = match Binding::from_params("tools/call", Some(params)) {
            Ok(b) => b,
            Err(_) => return self.invalid_state(id),
        };
        #[cfg(feature = "seal")]
        let state =
            match seal
                .sealer
                .unseal_param(params.get("requestState"), &binding, None, now, aux)
            {
                Ok(s) => s,
                Err(_) => return self.invalid_state(id),
            };
        #[cfg(not(feature = "seal"))]
        let state = match plaintext_state(params.get("requestState"), aux) {
            Ok(s) => s,
            Err(()) => return self.invalid_state(id),
        };
        let Some((tool, plan, args)) = self.call_target(id, Some(params), true) else {
            return;
        };
        let replies = params
            .get("inputResponses")
            .filter(|v| !v.is_null())
            .map(|v| v.raw());
        let mut slot = None;
        let inputs = Inputs::modern(args.map_or("{}", |a| a.raw()), state, replies)
            .with_capabilities(Capabilities::from_client_json(caps.raw()));
        let round = match new_round(&mut slot, &plan, Era::Modern, inputs, ws) {
            Ok(r) => r,
            Err(e) => return self.invalid_params(id, &e),
        };
        match drive(round, tool, &plan) {
            Err(e @ Error::MissingCapability { .. }) => self.missing_capability(id, &e),
            Err(e) => self.tool_error(id, true, &mut |s| tools::write_error(&e, s)),
            Ok(Step::Done) => self.finish(id, true, round, tool, args, token),
            Ok(Step::InputRequired) => {
                let mut s = SliceSink::new(token);
                let written = round.write_request_state(&mut s).map(|()| s.finish());
                let Ok(Ok(len)) = written else {
                    return rpc::internal_error(&mut self.uart, id);
                };
                #[cfg(feature = "seal")]
                let sealed = {
                    let Some(seal) = self.seal.as_mut() else {
                        return rpc::internal_error(&mut self.uart, id);
                    };
                    match seal.nonces.next() {
                        Some(entropy) => seal
                            .sealer
                            .seal_in_place(token, len, &binding, None, now, &entropy)
                            .ok(),
                        None => None,
                    }
                };
                #[cfg(not(feature = "seal"))]
                let sealed = core::str::from_utf8(token.get(..len).unwrap_or(&[])).ok();
                let Some(token) = sealed else {
                    return rpc::internal_error(&mut self.uart, id);
                };
                let u = &mut self.uart;
                rpc::begin_result(u, id);
                u.put(b"{\"inputRequests\":");
                let _ = round.write_input_requests(true, u);
                u.put(b",\"requestState\":");
                write_str(token, false, u);
                u.put(b",\"resultType\":\"input_required\",\"_meta\":");
                u.put(SERVER_META.as_bytes());
                u.put(b"}");
                rpc::end(u);
            }
            Ok(Step::Ask { .. } | Step::Resolve { .. } | Step::Fallback) => {
                rpc::internal_error(&mut self.uart, id)
            }
        }
    }

    // ------------------------------------------------------------------ both eras

    /// The call's tool, its plan and its checked arguments; `None` when a response (a
    /// tool error or a JSON-RPC error) was already written.
    fn call_target<'p>(
        &mut self,
        id: &str,
        params: Option<Value<'p>>,
        modern: bool,
    ) -> Option<(&'static Tool, Plan<'static, N>, Option<Value<'p>>)> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(|n| n.as_str()) else {
            rpc::error(
                &mut self.uart,
                id,
                rpc::INVALID_PARAMS,
                "tools/call needs a string \"name\"",
            );
            return None;
        };
        let Some(tool) = tools::find(name) else {
            self.tool_error(id, modern, &mut |s| {
                s.put(b"Unknown tool: ");
                write_py_repr(name.units(), s);
            });
            return None;
        };
        let args = match params.and_then(|p| p.get("arguments")) {
            None => None,
            Some(a) if a.is_null() => None,
            Some(a) if a.kind() == Kind::Object => Some(a),
            Some(_) => {
                rpc::error(
                    &mut self.uart,
                    id,
                    rpc::INVALID_PARAMS,
                    "tools/call \"arguments\" must be an object",
                );
                return None;
            }
        };
        let Some(plan) = tool.plan() else {
            rpc::internal_error(&mut self.uart, id);
            return None;
        };
        if let Err(e) = tool.check_arguments(&plan, args) {
            self.tool_error(id, modern, &mut |s| e.write(s));
            return None;
        }
        Some((tool, plan, args))
    }

    fn invalid_params(&mut self, id: &str, e: &Error) {
        rpc::begin_error(&mut self.uart, id, rpc::INVALID_PARAMS, &mut |s| {
            tools::write_error(e, s)
        });
        rpc::end_error(&mut self.uart);
    }

    /// The round is done: run the tool body on its values.
    fn finish(
        &mut self,
        id: &str,
        modern: bool,
        round: &Round<'_, '_, N>,
        tool: &Tool,
        args: Option<Value<'_>>,
        buf: &mut [u8],
    ) {
        let mut s = SliceSink::new(buf);
        let written = round.write_values(Style::WIRE, &mut s).map(|()| s.finish());
        let Ok(Ok(len)) = written else {
            return rpc::internal_error(&mut self.uart, id);
        };
        let values = core::str::from_utf8(buf.get(..len).unwrap_or(&[]))
            .ok()
            .and_then(|t| Value::parse(t).ok());
        let Some(values) = values else {
            return rpc::internal_error(&mut self.uart, id);
        };
        self.tool_result(id, modern, false, &mut |s| tool.run(args, values, s));
    }
}

/// The one place rounds are built.
fn new_round<'s, 'r, 'a>(
    slot: &'s mut Option<Round<'r, 'a, N>>,
    plan: &'r Plan<'a, N>,
    era: Era,
    inputs: Inputs<'a>,
    workspace: &'a mut [u8],
) -> Result<&'s mut Round<'r, 'a, N>, Error> {
    Round::new_in(slot, plan, era, inputs, workspace)
}

/// Poll until the round needs the client (or is done), running the host resolvers.
fn drive(round: &mut Round<'_, '_, N>, tool: &Tool, plan: &Plan<'_, N>) -> Result<Step, Error> {
    loop {
        match round.poll()? {
            Step::Resolve { param } => run_resolver(round, tool, plan.name(param).unwrap_or(""))?,
            other => return Ok(other),
        }
    }
}

/// Run the resolver of `param` and hand its value or question to the round. Out of line:
/// its buffers live only while it runs.
#[inline(never)]
fn run_resolver(round: &mut Round<'_, '_, N>, tool: &Tool, param: &str) -> Result<(), Error> {
    let mut inputs = [0u8; INPUTS_CAP];
    let mut s = SliceSink::new(&mut inputs);
    round.write_resolve_inputs(&mut s)?;
    let n = s
        .finish()
        .map_err(|needed| Error::BufferTooSmall { needed })?;
    let text = core::str::from_utf8(inputs.get(..n).unwrap_or(&[])).unwrap_or("{}");
    // The round wrote JSON: a parse failure cannot happen (reported as the buffer).
    let Ok(inputs) = Value::parse(text) else {
        return Err(Error::BufferTooSmall { needed: n });
    };
    let mut answer = [0u8; ANSWER_CAP];
    let mut s = SliceSink::new(&mut answer);
    let kind = tool.resolve(param, inputs, &mut s);
    let m = s
        .finish()
        .map_err(|needed| Error::BufferTooSmall { needed })?;
    let text = core::str::from_utf8(answer.get(..m).unwrap_or(&[])).unwrap_or("null");
    match kind {
        Resolved::Value => round.resolve_value(text),
        Resolved::Question => round.resolve_question(text),
    }
}

/// The plaintext `requestState` (plaintext builds): absent or `null` is none; a string is
/// decoded into `buf`; anything else is refused.
#[cfg(not(feature = "seal"))]
fn plaintext_state<'b>(v: Option<Value<'_>>, buf: &'b mut [u8]) -> Result<Option<&'b str>, ()> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let s: Str<'_> = v.as_str().ok_or(())?;
    let mut len = 0;
    for u in s.units() {
        let c = char::from_u32(u).ok_or(())?;
        let n = c.len_utf8();
        let dst = buf.get_mut(len..len + n).ok_or(())?;
        c.encode_utf8(dst);
        len += n;
    }
    core::str::from_utf8(buf.get(..len).unwrap_or(&[]))
        .map(Some)
        .map_err(|_| ())
}

/// How a handshake ask ended.
enum Answer {
    /// The reply's `result` at this offset and length of the buffer.
    Result(usize, usize),
    /// The reply's `error.message` (raw JSON string contents) at this offset and length.
    Error(usize, usize),
    /// The reply did not fit the buffer.
    TooLong,
}
