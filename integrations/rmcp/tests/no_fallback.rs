//! The declared fallback's opt-out through a server (docs/fallback.md): a derived tool with
//! `#[elicit(fallback_arguments)]` whose field carries `#[elicit(no_fallback)]`, served by
//! an rmcp `ServerHandler` (listing through `Elicit::list_tools`) to an in-process rmcp
//! client that declares no elicitation, both eras: the opted-out parameter is never
//! listed and its question keeps -32021, even once the model answers the other one; a
//! tool without an opted-out parameter answers the same client with the fallback result.

// Helpers unwrap as tests do (clippy.toml exempts test code).
#![cfg(test)]

use std::sync::Arc;

use elicit_rmcp::{Call, Elicit, ElicitArgs, StateCodec, StateKeys};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, ErrorData, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{
    tool, tool_handler, tool_router, ClientHandler, RoleClient, RoleServer, ServerHandler,
    ServiceExt,
};
use serde_json::{json, Value};

/// pay: the amount may come from the model; the PIN only from the user.
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
#[elicit(fallback_arguments)]
struct Pay {
    #[elicit(message = "How much?")]
    amount: i64,
    #[elicit(message = "Your PIN?", no_fallback)]
    pin: String,
}

/// tip: nothing opted out.
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
#[elicit(fallback_arguments)]
struct Tip {
    #[elicit(message = "How much?")]
    amount: i64,
}

#[derive(Clone)]
struct Server {
    elicit: Arc<Elicit>,
    tool_router: Arc<ToolRouter<Server>>,
}

#[tool_router]
impl Server {
    #[tool(description = "Pay.", input_schema = Pay::input_schema())]
    async fn pay(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |p: Pay, _call| async move {
                let _ = p.pin;
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Paid {}",
                    p.amount
                ))]))
            })
            .await
    }

    #[tool(description = "Tip.", input_schema = Tip::input_schema())]
    async fn tip(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |t: Tip, _call| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Tipped {}",
                    t.amount
                ))]))
            })
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("no-fallback-test", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.elicit.list_tools(&self.tool_router, &context)
    }
}

/// A client that declares no capability at all.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("no-fallback-client", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// 2026-07-28 requests carry the era and the (empty) capabilities in `_meta`.
const MODERN_META: fn() -> Value = || {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "no-fallback-client", "version": "1.0.0"},
    })
};

async fn connect() -> RunningService<RoleClient, Client> {
    Pay::check().unwrap();
    Tip::check().unwrap();
    let codec = StateCodec::sealed(StateKeys::ephemeral().unwrap()).unwrap();
    let server = Server {
        elicit: Arc::new(Elicit::new(
            Implementation::new("no-fallback-test", "1.0.0"),
            codec,
        )),
        tool_router: Arc::new(Server::tool_router()),
    };
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    Client.serve(client_io).await.unwrap()
}

/// The listing's `inputSchema.properties` of `tool`, by name.
fn properties(listing: &ListToolsResult, tool: &str) -> Vec<String> {
    let t = listing.tools.iter().find(|t| t.name == tool).unwrap();
    let props = t.input_schema.get("properties").and_then(Value::as_object);
    props
        .into_iter()
        .flatten()
        .map(|(k, _)| k.clone())
        .collect()
}

async fn call(
    client: &RunningService<RoleClient, Client>,
    modern: bool,
    tool: &'static str,
    arguments: Value,
) -> Result<CallToolResponse, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(tool);
    params.arguments = arguments.as_object().cloned();
    if modern {
        params.meta = serde_json::from_value(MODERN_META()).ok();
    }
    client.peer().call_tool_once(params).await
}

fn error_code(outcome: Result<CallToolResponse, rmcp::ServiceError>) -> (i32, Value) {
    match outcome {
        Err(rmcp::ServiceError::McpError(e)) => (e.code.0, e.data.unwrap_or(Value::Null)),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opted_out_parameter_is_not_listed_and_keeps_32021() {
    let client = connect().await;
    for modern in [true, false] {
        let request = if modern {
            serde_json::from_value(json!({"_meta": MODERN_META()})).ok()
        } else {
            None
        };
        let listing = client.peer().list_tools(request).await.unwrap();
        assert_eq!(properties(&listing, "pay"), ["amount"]);
        assert_eq!(properties(&listing, "tip"), ["amount"]);
        for arguments in [json!({}), json!({"amount": 5})] {
            let (code, data) = error_code(call(&client, modern, "pay", arguments).await);
            assert_eq!(code, -32021);
            assert_eq!(
                data,
                json!({"requiredCapabilities": {"elicitation": {"form": {}}}})
            );
        }
        // The same client, a tool with nothing opted out: the result for the model.
        let told = call(&client, modern, "tip", json!({})).await.unwrap();
        let CallToolResponse::Complete(told) = told else {
            panic!("expected a tool result, got {told:?}");
        };
        assert_eq!(told.is_error, Some(true));
        let meta = serde_json::to_value(&told.meta).unwrap();
        assert_eq!(meta["elicit/askUser"][0]["name"], "amount", "{meta}");
        let done = call(&client, modern, "tip", json!({"amount": 2}))
            .await
            .unwrap();
        let CallToolResponse::Complete(done) = done else {
            panic!("expected a tool result, got {done:?}");
        };
        let text = serde_json::to_value(&done.content[0]).unwrap();
        assert_eq!(text["text"], "Tipped 2");
    }
    client.cancel().await.unwrap();
}
