//! `elicit-rmcp-baseline`: `book_flight` on plain rmcp, its questions written by hand —
//! no elicit. The baseline of `SERVER=baseline scripts/bench-load.sh`: the same three
//! rounds as elicit-rmcp-server's tool (destination, date and seat; then the airport
//! unless London, and the confirmation; then the booking), over rmcp's
//! `StreamableHttpService` on axum with the same configuration, with `requestState`
//! protected by rmcp's own `RequestStateCodec` (HMAC-SHA256, bound to the tool and its
//! arguments, 600 s). What it leaves out against elicit: declared parameters,
//! the handshake era, capability checks, resolvers, AES-GCM sealing shared with other
//! servers, declaration order on the wire.
//!
//! ```text
//! cargo run --release -p elicit-rmcp-baseline -- --http 127.0.0.1:0   # endpoint /mcp
//! ```
//!
//! One process: the state key is random per process.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitationSchema, ErrorData, InputRequest, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, RequestStateCodec, SealOptions,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The three answer schemas, built once.
struct Schemas {
    text: ElicitationSchema,
    boolean: ElicitationSchema,
    seat: ElicitationSchema,
}

#[derive(Clone)]
struct Baseline {
    codec: Arc<RequestStateCodec>,
    schemas: Arc<Schemas>,
    tool: Arc<Tool>,
}

fn schema(value: Value) -> Result<ElicitationSchema, String> {
    serde_json::from_value(json!({
        "type": "object", "properties": {"value": value}, "required": ["value"]
    }))
    .map_err(|e| format!("answer schema: {e}"))
}

fn ask(message: String, schema: &ElicitationSchema) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema.clone(),
        },
    ))
}

fn answer<'a>(answers: &'a Map<String, Value>, name: &str) -> &'a str {
    answers
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn text(s: String) -> CallToolResponse {
    let mut r = CallToolResult::success(vec![ContentBlock::text(s.clone())]);
    r.structured_content = Some(json!({ "result": s }));
    r.into()
}

impl Baseline {
    fn new() -> Result<Self, String> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| format!("random key: {e}"))?;
        let codec = RequestStateCodec::try_new(key.to_vec()).map_err(|e| e.to_string())?;
        let schemas = Schemas {
            text: schema(json!({"type": "string", "title": "Value"}))?,
            boolean: schema(json!({"type": "boolean", "title": "Value"}))?,
            seat: schema(json!({"type": "string", "title": "Value", "enum": ["window", "aisle"]}))?,
        };
        let tool = Tool::new(
            "book_flight",
            "Book a flight",
            Arc::new(
                serde_json::from_value(json!({"type": "object", "properties": {}}))
                    .map_err(|e| e.to_string())?,
            ),
        );
        Ok(Baseline {
            codec: Arc::new(codec),
            schemas: Arc::new(schemas),
            tool: Arc::new(tool),
        })
    }

    /// The round's state key: the tool and its arguments.
    fn context(request: &CallToolRequestParams) -> Vec<u8> {
        let args = request
            .arguments
            .as_ref()
            .map(|a| Value::Object(a.clone()).to_string())
            .unwrap_or_default();
        format!("tools/call|{}|{args}", request.name).into_bytes()
    }

    fn seal(&self, answers: &Map<String, Value>, context: &[u8]) -> String {
        let payload = Value::Object(answers.clone()).to_string();
        self.codec.seal_with(
            payload.as_bytes(),
            &SealOptions::new()
                .associated_data(context)
                .ttl(Duration::from_secs(600)),
        )
    }

    fn book(&self, request: CallToolRequestParams) -> Result<CallToolResponse, ErrorData> {
        let context = Self::context(&request);
        // The answers of earlier rounds, from the state.
        let mut answers: Map<String, Value> = match &request.request_state {
            None => Map::new(),
            Some(token) => {
                let opened = self.codec.open_with(token, &context).map_err(|_| {
                    ErrorData::invalid_params("Invalid or expired requestState", None)
                })?;
                serde_json::from_slice(&opened).map_err(|_| {
                    ErrorData::invalid_params("Invalid or expired requestState", None)
                })?
            }
        };
        // This round's answers.
        for (name, response) in request.input_responses.iter().flatten() {
            if response.get("action").and_then(Value::as_str) != Some("accept") {
                return Ok(text(format!("Booking cancelled: no {name} given")));
            }
            let value = response.pointer("/content/value").unwrap_or(&Value::Null);
            let ok = match name.as_str() {
                "proceed" => value.is_boolean(),
                "seat" => value == "window" || value == "aisle",
                _ => value.is_string(),
            };
            if !ok {
                return Ok(text(format!("Invalid answer for {name}")));
            }
            answers.insert(name.clone(), value.clone());
        }
        let s = &self.schemas;
        let mut questions = InputRequests::new();
        for name in ["destination", "date", "seat"] {
            if !answers.contains_key(name) {
                let message = match name {
                    "destination" => "Where would you like to fly?",
                    "date" => "When would you like to fly?",
                    _ => "Window or aisle?",
                };
                let schema = if name == "seat" { &s.seat } else { &s.text };
                questions.insert(name.into(), ask(message.into(), schema));
            }
        }
        if questions.is_empty() {
            let destination = answer(&answers, "destination").to_owned();
            let date = answer(&answers, "date").to_owned();
            if destination == "London" {
                answers
                    .entry("airport")
                    .or_insert_with(|| Value::from("LHR"));
            }
            if !answers.contains_key("airport") {
                questions.insert(
                    "airport".into(),
                    ask(format!("Which airport in {destination}?"), &s.text),
                );
            }
            if !answers.contains_key("proceed") {
                questions.insert(
                    "proceed".into(),
                    ask(
                        format!("Book a flight to {destination} on {date}?"),
                        &s.boolean,
                    ),
                );
            }
            if questions.is_empty() {
                if answers.get("proceed") != Some(&Value::Bool(true)) {
                    return Ok(text("Booking cancelled".into()));
                }
                return Ok(text(format!(
                    "Booked {destination} ({}) on {date}, seat {}",
                    answer(&answers, "airport"),
                    answer(&answers, "seat")
                )));
            }
        }
        let state = self.seal(&answers, &context);
        Ok(InputRequiredResult::new(Some(questions), Some(state)).into())
    }
}

impl ServerHandler for Baseline {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Tool::clone(
            &self.tool,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "book_flight" {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        self.book(request)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let addr: Option<SocketAddr> = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(a)) => a.parse().ok(),
        _ => None,
    };
    let Some(addr) = addr.filter(|a| a.ip().is_loopback()) else {
        eprintln!("usage: elicit-rmcp-baseline --http 127.0.0.1:PORT   (loopback only)");
        std::process::exit(2);
    };
    let server = match Baseline::new() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("elicit-rmcp-baseline: {e}");
            std::process::exit(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("elicit-rmcp-baseline: tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = rt.block_on(serve(server, addr)) {
        eprintln!("elicit-rmcp-baseline: {addr}: {e}");
        std::process::exit(1);
    }
}

async fn serve(server: Baseline, addr: SocketAddr) -> std::io::Result<()> {
    let config = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_origins(LOOPBACK_ORIGINS);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!(
        "elicit-rmcp-baseline: streamable HTTP on http://{}/mcp",
        listener.local_addr()?
    );
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
