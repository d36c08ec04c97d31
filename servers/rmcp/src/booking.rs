//! The booking tools: one elicit declaration each, async resolvers, typed bodies, and
//! the rmcp `ServerHandler` that lists and calls them (tools through `#[tool_handler]`,
//! the prompt and the resource from its own `get_prompt` / `read_resource`). Listings
//! and results are shaped like FastMCP 4.1.6's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use booking_fixture::{entry, q, resolver as rule, text, Entry, OUTPUT_SCHEMA};
use elicit_core::decl::{Param, Tool as Decl};
use elicit_rmcp::core::PyRepr;
use elicit_rmcp::{
    resolver, Call, Choice, Declared, Elicit, ElicitArgs, Resolution, Resolve, StateCodec,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Value};

/// `serverInfo.name`, and the audience of sealed state.
pub const SERVER_NAME: &str = "booking";
/// The server's version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The server: the `#[tool_router]` tools (with `--conformance`, the fixtures' routes
/// too), and the prompts and resources declared at run time. Cloned for every HTTP
/// exchange, so what it holds is shared (a `ToolRouter` by value would be copied, every
/// route's `Tool` with it, per request).
#[derive(Clone)]
pub struct Booking {
    elicit: Arc<Elicit>,
    tool_router: Arc<ToolRouter<Booking>>,
    declared: Arc<Declarations>,
}

/// The prompt and the resource, served from the handler's own `get_prompt` /
/// `read_resource` (rmcp has no prompt context carrying `inputResponses`, and no
/// resource router).
struct Declarations {
    welcome: Declared,
    itinerary: Declared,
    /// `--conformance`: the fixtures' prompt and static resource.
    conformance: Option<Fixtures>,
}

struct Fixtures {
    prompt: Declared,
    about: Declared,
}

/// The router as `#[tool_handler]` dispatches through it: rmcp's, except that a name it
/// does not route is answered as FastMCP 4.1.6 answers it, an `isError` result
/// "Unknown tool: 'x'" (the name as CPython's repr), not rmcp's `-32602 "tool not
/// found"`: tests/interop/mcp/test_cross_surface.py holds this server, the firmware
/// agent and the reference to the same bytes.
struct Routes<'a>(&'a ToolRouter<Booking>);

impl Routes<'_> {
    async fn call(
        &self,
        call: ToolCallContext<'_, Booking>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.0.has_route(call.name()) {
            let text = format!("Unknown tool: {}", PyRepr(call.name()));
            return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
        }
        self.0.call(call).await
    }

    fn get(&self, name: &str) -> Option<&Tool> {
        self.0.get(name)
    }
}

/// The literal questions' field title: the reference's (FastMCP 4.1.6's) "Value", said
/// explicitly (the derive's default is the field's name, titled), so the questions and
/// their digests stay byte-identical to the reference's and the Python server's.
const REF_TITLE: &str = "Value";

/// The seat a traveller prefers.
#[derive(Choice)]
enum Seat {
    Window,
    Aisle,
}

/// Whether the booking tools declare the fallback (`--fallback arguments`;
/// docs/fallback.md): read once, when each tool's declaration is first built (in
/// [`Booking::new`]), so it holds for the whole process.
static FALLBACK: AtomicBool = AtomicBool::new(false);

fn fallback() -> bool {
    FALLBACK.load(Ordering::Relaxed)
}

/// book_flight's parameters: all asked of the user.
#[derive(Deserialize, elicit_rmcp::Elicit)]
#[elicit(fallback_arguments = fallback())]
struct BookFlight {
    #[elicit(message = q::DESTINATION, title = REF_TITLE)]
    destination: String,
    #[elicit(message = q::DATE, title = REF_TITLE)]
    date: String,
    #[elicit(resolver = airport, needs = [destination])]
    airport: String,
    #[elicit(resolver = proceed, needs = [destination, date])]
    proceed: bool,
    #[elicit(message = q::SEAT, title = REF_TITLE)]
    seat: Option<Seat>,
}

#[derive(Deserialize, elicit_rmcp::Elicit)]
#[elicit(fallback_arguments = fallback())]
struct Greet {
    #[elicit(message = q::NAME, title = REF_TITLE)]
    name: String,
}

/// order's parameters: the model names the item, the user the quantity.
#[derive(Deserialize, elicit_rmcp::Elicit)]
#[elicit(fallback_arguments = fallback())]
struct Order {
    item: String,
    #[elicit(resolver = quantity, needs = [item])]
    quantity: i64,
}

/// The URI of the elicited resource.
const ITINERARY_URI: &str = "booking://itinerary";

#[derive(Deserialize)]
struct Itinerary {
    destination: String,
    airport: String,
}

/// A resolver's answer from the fixture's rule: its known value, else its question.
fn by_rule(rule: &booking_fixture::Resolver, r: &Resolve) -> Resolution {
    if let Some(v) = rule.known_answer(&r.text(rule.input)) {
        return Resolution::value(v);
    }
    let value = |n| r.values.get(n).and_then(Value::as_str).unwrap_or_default();
    Resolution::ask(rule.ask.fill(value).to_string())
}

async fn airport(r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(by_rule(&rule::AIRPORT, &r))
}

async fn proceed(r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(by_rule(&rule::PROCEED, &r))
}

async fn quantity(r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(by_rule(&rule::QUANTITY, &r))
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

/// Every tool's `outputSchema` (FastMCP's wrapped string).
fn output_schema() -> Arc<JsonObject> {
    Arc::new(serde_json::from_str(OUTPUT_SCHEMA).unwrap_or_default())
}

/// Every tool's listing `_meta` (FastMCP's tags).
fn fastmcp_meta() -> MetaObject {
    let mut meta = MetaObject::new();
    meta.0.insert("fastmcp".into(), json!({"tags": []}));
    meta
}

fn description(e: &Entry) -> &'static str {
    e.description.unwrap_or_default()
}

#[tool_router]
impl Booking {
    #[tool(title = "Book Flight", description = description(&entry::BOOK_FLIGHT),
           input_schema = BookFlight::input_schema(), output_schema = output_schema(),
           meta = fastmcp_meta())]
    async fn book_flight(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |b: BookFlight, _call| async move {
                if !b.proceed {
                    return Ok(success(text::CANCELLED.into()));
                }
                let seat = b.seat.map_or(text::NO_PREFERENCE, |s| match s {
                    Seat::Window => "window",
                    Seat::Aisle => "aisle",
                });
                Ok(success(format!(
                    "Booked {} ({}) on {}, seat {seat}",
                    b.destination, b.airport, b.date
                )))
            })
            .await
    }

    #[tool(title = "Greet", description = description(&entry::GREET),
           input_schema = Greet::input_schema(), output_schema = output_schema(),
           meta = fastmcp_meta())]
    async fn greet(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |g: Greet, _call| async move {
                Ok(success(format!("Hello, {}", g.name)))
            })
            .await
    }

    #[tool(title = "Order", description = description(&entry::ORDER),
           input_schema = Order::input_schema(), output_schema = output_schema(),
           meta = fastmcp_meta())]
    async fn order(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |o: Order, _call| async move {
                Ok(success(format!("Ordered {} x {}", o.quantity, o.item)))
            })
            .await
    }
}

impl Booking {
    /// The three tools, the prompt and the resource on `codec`; with `conformance`, the
    /// conformance suite's fixtures too ([`crate::conformance`]: its tools as routes of
    /// the same router, its prompt and static resource listed first); with
    /// `fallback`, the three tools declare `"fallback": "arguments"` (docs/fallback.md).
    /// The first `Booking` of a process fixes `fallback` for it (the tools'
    /// declarations are built once).
    pub fn new(codec: StateCodec, conformance: bool, fallback: bool) -> Result<Self, String> {
        FALLBACK.store(fallback, Ordering::Relaxed);
        BookFlight::check()?;
        Greet::check()?;
        Order::check()?;
        // A prompt and a resource asking the same way (prompts/get, resources/read).
        let welcome = Decl::new("welcome").param(Param::ask("name", q::NAME));
        let welcome = Declared::build(welcome.to_json(), Vec::new(), Vec::new())?;
        let itinerary = Decl::new("itinerary")
            .param(Param::ask("destination", q::DESTINATION))
            .param(Param::resolver("airport", &["destination"]));
        let airport = resolver(|r| async move {
            Ok(Resolution::ask(format!(
                "Which airport in {}?",
                r.text("destination")
            )))
        });
        let itinerary =
            Declared::build(itinerary.to_json(), vec![("airport", airport)], Vec::new())?;
        let elicit = Elicit::new(Implementation::new(SERVER_NAME, SERVER_VERSION), codec);
        let elicit = Arc::new(elicit);
        let mut tool_router = Self::tool_router();
        let mut fixtures = None;
        if conformance {
            for route in crate::conformance::tools(&elicit)? {
                tool_router.add_route(route);
            }
            fixtures = Some(Fixtures {
                prompt: crate::conformance::prompt()?,
                about: crate::conformance::about()?,
            });
        }
        Ok(Booking {
            elicit,
            tool_router: Arc::new(tool_router),
            declared: Arc::new(Declarations {
                welcome,
                itinerary,
                conformance: fixtures,
            }),
        })
    }
}

/// The welcome prompt's `prompts/list` description.
const WELCOME: &str = "A welcome message for the user, by the name they enter.";

#[tool_handler(router = Routes(&self.tool_router))]
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.elicit.list_tools(&self.tool_router, &context)
    }

    // rmcp routes a request whose params do not parse (e.g. a non-string
    // `requestState`) here; answer it as the reference does, not `-32601`.
    elicit_rmcp::hooks!(elicit);

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let d = &self.declared;
        let fixture = d.conformance.as_ref().map(|c| {
            let description = crate::conformance::PROMPT_DESCRIPTION;
            c.prompt.prompt_listing(Some(description.into()))
        });
        let welcome = d.welcome.prompt_listing(Some(WELCOME.into()));
        let prompts = fixture.into_iter().chain([welcome]).collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let d = &self.declared;
        let user =
            |text: String| GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        match &d.conformance {
            _ if request.name == d.welcome.name() => {
                let welcome = |g: Greet, _call| async move {
                    Ok(user(format!("Welcome aboard, {}!", g.name)))
                };
                self.elicit
                    .prompt(&d.welcome, request, context, welcome)
                    .await
            }
            Some(c) if request.name == c.prompt.name() => {
                let body = |v: JsonObject, _call| async move {
                    Ok(user(crate::conformance::prompt_text(&v)))
                };
                self.elicit.prompt(&c.prompt, request, context, body).await
            }
            _ => Err(ErrorData::invalid_params(
                format!("Unknown prompt: {}", PyRepr(&request.name)),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let about = self.declared.conformance.as_ref().map(|_| {
            let uri = crate::conformance::ABOUT_URI;
            Resource::new(uri, "about").with_mime_type("text/plain")
        });
        let itinerary = Resource::new(ITINERARY_URI, "itinerary");
        let resources = about.into_iter().chain([itinerary]).collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let d = &self.declared;
        let contents = |text: String, uri: &str| {
            ReadResourceResult::new(vec![ResourceContents::text(text, uri)])
        };
        match &d.conformance {
            _ if request.uri == ITINERARY_URI => {
                let body = |i: Itinerary, _call| async move {
                    let text = format!("Itinerary: {} via {}", i.destination, i.airport);
                    Ok(contents(text, ITINERARY_URI))
                };
                self.elicit
                    .resource(&d.itinerary, request, context, body)
                    .await
            }
            Some(c) if request.uri == crate::conformance::ABOUT_URI => {
                let body = |_: JsonObject, _call| async move {
                    let uri = crate::conformance::ABOUT_URI;
                    Ok(contents(crate::conformance::ABOUT_TEXT.into(), uri))
                };
                self.elicit.resource(&c.about, request, context, body).await
            }
            // -32002 with the URI (rmcp turns the code into -32602 on 2026-07-28).
            _ => Err(ErrorData::resource_not_found(
                format!("Unknown resource: {}", request.uri),
                Some(json!({ "uri": request.uri })),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `serverInfo` and the name sealed state is bound to are one.
    #[test]
    fn server_info_is_what_elicit_was_given() {
        let booking = Booking::new(StateCodec::insecure_plaintext(), false, false).unwrap();
        let info = booking.get_info().server_info;
        assert_eq!(info, *booking.elicit.server_info());
        assert_eq!(info.name, SERVER_NAME);
    }
}
