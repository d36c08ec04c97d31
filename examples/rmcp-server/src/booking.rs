//! The booking tools: one elicit declaration each, async resolvers, typed bodies, and
//! the rmcp `ServerHandler` that lists and calls them. Listings and results are shaped
//! like FastMCP 4.1.6's.

use std::sync::Arc;

use elicit_core::decl::{AnswerType, Param, Tool as Decl};
use elicit_rmcp::{
    py_repr, Elicit, ElicitPrompt, ElicitResource, ElicitTool, Resolution, StateCodec,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorData, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, JsonObject, ListPromptsResult, ListResourcesResult, ListToolsResult,
    MetaObject, PaginatedRequestParams, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Value};

/// `serverInfo.name`, and the audience of sealed state.
pub const SERVER_NAME: &str = "booking";
/// The server's version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The server: the elicited tools behind rmcp's handler.
#[derive(Clone)]
pub struct Booking {
    elicit: Arc<Elicit>,
}

#[derive(Deserialize)]
struct BookFlight {
    destination: String,
    date: String,
    airport: String,
    proceed: bool,
    seat: Option<String>,
}

/// The URI of the elicited resource.
const ITINERARY_URI: &str = "booking://itinerary";

#[derive(Deserialize)]
struct Itinerary {
    destination: String,
    airport: String,
}

#[derive(Deserialize)]
struct Greet {
    name: String,
}

#[derive(Deserialize)]
struct Order {
    item: String,
    quantity: serde_json::Number,
}

/// An integer answer as digits (the engine accepts `3.0` for an integer).
fn integer_text(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i.to_string(),
        (_, Some(u), _) => u.to_string(),
        (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

/// A successful result as FastMCP 4.1.6 writes it (wrapped string result).
fn success(text: String) -> CallToolResult {
    let mut r = CallToolResult::structured(json!({ "result": text }));
    r.content = vec![ContentBlock::text(text)];
    let mut meta = MetaObject::new();
    meta.0
        .insert("fastmcp".into(), json!({"wrap_result": true}));
    r.meta = Some(meta);
    r
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// Every tool's listing extras: FastMCP's `_meta` and wrapped-string `outputSchema`.
fn fastmcp_shaped(tool: ElicitTool, title: &str, description: &str) -> ElicitTool {
    let mut meta = MetaObject::new();
    meta.0.insert("fastmcp".into(), json!({"tags": []}));
    tool.title(title)
        .description(description)
        .meta(meta)
        .output_schema(object(json!({
            "properties": {"result": {"type": "string"}},
            "required": ["result"],
            "type": "object",
            "x-fastmcp-wrap-result": true
        })))
}

impl Booking {
    /// The three tools, the prompt and the resource on `codec`; with `conformance`, the
    /// conformance suite's fixtures before them ([`crate::conformance`]).
    pub fn new(codec: StateCodec, conformance: bool) -> Result<Self, String> {
        let book_flight = ElicitTool::new(
            Decl::new("book_flight")
                .param(Param::ask("destination", "Where would you like to fly?"))
                .param(Param::ask("date", "When would you like to fly?"))
                .param(Param::resolver("airport", &["destination"]))
                .param(Param::resolver("proceed", &["destination", "date"]).ty(AnswerType::Boolean))
                .param(
                    Param::ask("seat", "Window or aisle?")
                        .ty(AnswerType::choice(["window", "aisle"]))
                        .default_json("null"),
                ),
        );
        let book_flight = fastmcp_shaped(
            book_flight,
            "Book Flight",
            "Book a flight. Asks the user for the destination, date, airport, confirmation \
             and seat.",
        )
        .resolver("airport", |r| async move {
            let destination = r.text("destination");
            Ok(if destination == "London" {
                Resolution::value("LHR")
            } else {
                Resolution::ask(format!("Which airport in {destination}?"))
            })
        })
        .resolver("proceed", |r| async move {
            Ok(Resolution::ask(format!(
                "Book a flight to {} on {}?",
                r.text("destination"),
                r.text("date")
            )))
        })
        .run(|b: BookFlight, _call| async move {
            if !b.proceed {
                return Ok(success("Cancelled".into()));
            }
            let seat = b.seat.unwrap_or_else(|| "no preference".into());
            Ok(success(format!(
                "Booked {} ({}) on {}, seat {seat}",
                b.destination, b.airport, b.date
            )))
        })?;

        let greet = fastmcp_shaped(
            ElicitTool::new(Decl::new("greet").param(Param::ask("name", "Enter your name:"))),
            "Greet",
            "Greet the user by the name they enter.",
        )
        .run(|g: Greet, _call| async move { Ok(success(format!("Hello, {}", g.name))) })?;

        let order = fastmcp_shaped(
            ElicitTool::new(
                Decl::new("order")
                    .param(Param::argument("item").ty(AnswerType::String))
                    .param(Param::resolver("quantity", &["item"]).ty(AnswerType::Integer)),
            ),
            "Order",
            "Order an item. Asks the user how many.",
        )
        .argument_schema("item", json!({"type": "string"}))
        .resolver("quantity", |r| async move {
            Ok(Resolution::ask(format!("How many {}?", r.text("item"))))
        })
        .run(|o: Order, _call| async move {
            Ok(success(format!(
                "Ordered {} x {}",
                integer_text(&o.quantity),
                o.item
            )))
        })?;

        // A prompt and a resource asking the same way (prompts/get, resources/read).
        let welcome = ElicitPrompt::new(
            Decl::new("welcome").param(Param::ask("name", "Enter your name:")),
            Some("A welcome message for the user, by the name they enter.".into()),
        )
        .run(|g: Greet, _call| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Welcome aboard, {}!", g.name),
            )]))
        })?;
        let itinerary = ElicitResource::new(
            Decl::new("itinerary")
                .param(Param::ask("destination", "Where would you like to fly?"))
                .param(Param::resolver("airport", &["destination"])),
            Resource::new(ITINERARY_URI, "itinerary"),
        )
        .resolver("airport", |r| async move {
            Ok(Resolution::ask(format!(
                "Which airport in {}?",
                r.text("destination")
            )))
        })
        .run(|i: Itinerary, _call| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                format!("Itinerary: {} via {}", i.destination, i.airport),
                ITINERARY_URI,
            )]))
        })?;

        let mut elicit = Elicit::new(Implementation::new(SERVER_NAME, SERVER_VERSION), codec)
            .with_log(|line| eprintln!("elicit-rmcp-server: {line}"));
        if conformance {
            elicit = crate::conformance::register(elicit)?;
        }
        let elicit = elicit
            .tool(book_flight)
            .tool(greet)
            .tool(order)
            .prompt(welcome)
            .resource(itinerary);
        Ok(Booking {
            elicit: Arc::new(elicit),
        })
    }
}

impl ServerHandler for Booking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.elicit.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.elicit.has_tool(&request.name) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "Unknown tool: {}",
                py_repr(&request.name)
            ))])
            .into());
        }
        self.elicit.call_tool(request, context).await
    }

    /// rmcp routes a request whose params do not parse (e.g. a non-string
    /// `requestState`) here; answer it as the reference does, not `-32601`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(self.elicit.unparsed_request(&request))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(self.elicit.prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.elicit.get_prompt(request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.elicit.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.elicit.read_resource(request, context).await
    }
}
