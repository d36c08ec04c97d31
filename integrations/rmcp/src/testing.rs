//! A test driver (feature `testing`): [`Player`] plays one tool of a server in-process
//! through either era, answering each question from a script keyed by its message.
//!
//! ```no_run
//! # async fn t<S: rmcp::ServerHandler + Clone>(server: S) {
//! use elicit_rmcp::testing::{Era, Player};
//! let played = Player::new()
//!     .accept("Where would you like to fly?", "Paris")
//!     .decline("Window or aisle?")
//!     .play(server, Era::Modern, "book_flight", serde_json::json!({}))
//!     .await
//!     .unwrap();
//! assert_eq!(played.asked[0], "Where would you like to fly?");
//! # }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ElicitRequestParams, ElicitResult, ErrorData, Implementation, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// The protocol era a tool is played in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: `InputRequiredResult` rounds, answered in `inputResponses`.
    Modern,
    /// 2025-11-25: questions one at a time over `elicitation/create`.
    Handshake,
}

/// Scripted answers, by question message.
#[derive(Clone, Default)]
pub struct Player {
    answers: HashMap<String, Value>,
}

/// What playing a tool came to.
#[derive(Debug)]
pub struct Played {
    /// The tool's final result.
    pub result: CallToolResult,
    /// The questions' messages, in the order a client of elicit-rmcp's transports receives
    /// them (a modern round's in declaration order).
    pub asked: Vec<String>,
    /// Requests sent (1 on the handshake era).
    pub rounds: usize,
}

#[derive(Clone)]
struct Client {
    answers: Arc<HashMap<String, Value>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Client {
    /// The scripted reply to `message` (recorded as asked); an unscripted question fails.
    fn reply(&self, message: &str) -> Result<Value, ErrorData> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(message.to_string());
        }
        self.answers.get(message).cloned().ok_or_else(|| {
            ErrorData::invalid_request(
                format!("Player: no scripted answer for the question {message:?}; add one"),
                None,
            )
        })
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}}))
                .unwrap_or_default();
        // Modern calls carry their era in each request's `_meta` (below).
        ClientConfig::new(caps, Implementation::new("elicit-player", "1.0.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let reply = self.reply(message)?;
        serde_json::from_value(reply)
            .map_err(|e| ErrorData::invalid_request(format!("Player: scripted reply: {e}"), None))
    }
}

impl Player {
    /// A player with no answers yet.
    pub fn new() -> Self {
        Player::default()
    }

    /// Answer the question `message` with the reply object `reply` (an ElicitResult).
    pub fn reply(mut self, message: &str, reply: Value) -> Self {
        self.answers.insert(message.to_string(), reply);
        self
    }

    /// Accept the question `message` with `value` (the form's `value` field).
    pub fn accept(self, message: &str, value: impl serde::Serialize) -> Self {
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.reply(
            message,
            json!({"action": "accept", "content": {"value": value}}),
        )
    }

    /// Decline the question `message`.
    pub fn decline(self, message: &str) -> Self {
        self.reply(message, json!({"action": "decline"}))
    }

    /// Cancel the question `message`.
    pub fn cancel(self, message: &str) -> Self {
        self.reply(message, json!({"action": "cancel"}))
    }

    /// Call `tool` of `server` with `arguments` in `era`, answering every question from
    /// the script, until the tool returns its result. Errors say what went wrong.
    pub async fn play<S: ServerHandler>(
        &self,
        server: S,
        era: Era,
        tool: &str,
        arguments: Value,
    ) -> Result<Played, String> {
        let (a, b) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(async move {
            if let Ok(s) = server.serve(a).await {
                let _ = s.waiting().await;
            }
        });
        let client = Client {
            answers: Arc::new(self.answers.clone()),
            asked: Arc::default(),
        };
        let asked = client.asked.clone();
        let running = client
            .clone()
            .serve(b)
            .await
            .map_err(|e| format!("Player: connect: {e}"))?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = match arguments {
            Value::Object(m) => Some(m),
            _ => None,
        };
        if era == Era::Modern {
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "elicit-player", "version": "1.0.0"},
            });
            params.meta = serde_json::from_value(meta).ok();
        }
        let mut rounds = 0;
        let result = loop {
            rounds += 1;
            let response = running
                .peer()
                .call_tool_once(params.clone())
                .await
                .map_err(|e| format!("Player: round {rounds}: {e}"))?;
            let required = match response {
                CallToolResponse::InputRequired(r) => r,
                CallToolResponse::Complete(result) => break result,
                other => return Err(format!("Player: round {rounds}: unexpected {other:?}")),
            };
            let required = serde_json::to_value(&required).unwrap_or(Value::Null);
            let mut responses = Map::new();
            let requests = required.get("inputRequests").and_then(Value::as_object);
            // In the order elicit-rmcp's transports write them (`crate::wire`): rmcp's
            // typed result holds them in name order.
            let order = required
                .get("_meta")
                .and_then(|m| m.get(crate::wire::ORDER_KEY))
                .and_then(Value::as_array);
            let place = |key: &str| {
                let named = order.and_then(|o| o.iter().position(|n| n == key));
                named.unwrap_or(usize::MAX)
            };
            let mut requests: Vec<_> = requests.into_iter().flatten().collect();
            requests.sort_by_key(|(key, _)| place(key));
            for (key, request) in requests {
                let message = request
                    .pointer("/params/message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let reply = client.reply(message).map_err(|e| e.message.to_string())?;
                responses.insert(key.clone(), reply);
            }
            params.input_responses = serde_json::from_value(Value::Object(responses))
                .map_err(|e| format!("Player: inputResponses: {e}"))?;
            params.request_state = required
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_string);
        };
        let _ = running.cancel().await;
        serving.abort();
        let asked = asked.lock().map(|a| a.clone()).unwrap_or_default();
        Ok(Played {
            result,
            asked,
            rounds,
        })
    }
}
