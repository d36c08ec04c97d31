//! The test driver (feature `testing`) playing a derive-declared tool through both eras:
//! the questions in order, a resolver's value skipping its question, the body's result,
//! a decline's end-user text, and the idempotency key on the final modern round; what the
//! client reads for a developer error; `serverInfo` as given to `Elicit::new`.
#![cfg(feature = "testing")]
// Helpers unwrap as tests do (clippy.toml exempts test code).
#![cfg(test)]

use std::sync::Arc;

use elicit_core::decl::{AnswerType, Param, Tool as Decl};
use elicit_rmcp::testing::{Era, Player};
use elicit_rmcp::{Call, Declared, Elicit, ErrorData, Resolution, Resolve, StateCodec, StateKeys};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct Trip {
    item: String,
    #[elicit(message = "Where would you like to fly?")]
    destination: String,
    #[elicit(resolver = airport, needs = [destination])]
    airport: String,
}

async fn airport(r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(match r.text("destination").as_str() {
        "London" => Resolution::value("LHR"),
        city => Resolution::ask(format!("Which airport in {city}?")),
    })
}

/// Two questions asked in one modern round, declared out of name order.
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct Flight {
    #[elicit(message = "Where would you like to fly?")]
    destination: String,
    #[elicit(message = "When would you like to fly?")]
    date: String,
}

/// A resolver whose value is not the declared type (the body never runs).
#[allow(dead_code)]
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct BadValue {
    item: String,
    #[elicit(resolver = not_a_bool, needs = [item])]
    ok: bool,
}

async fn not_a_bool(_: Resolve) -> Result<Resolution, ErrorData> {
    Ok(Resolution::value("yes"))
}

/// A resolver reading a value its `needs` does not name (the body never runs).
#[allow(dead_code)]
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct BadNeeds {
    item: String,
    #[elicit(resolver = reads_unnamed, needs = [item])]
    size: String,
}

async fn reads_unnamed(r: Resolve) -> Result<Resolution, ErrorData> {
    let colour: String = r.get("colour")?;
    Ok(Resolution::value(colour))
}

/// An integer argument a resolver reads.
#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct Pay {
    amount: i64,
    #[elicit(resolver = confirm, needs = [amount])]
    confirmed: String,
}

async fn confirm(r: Resolve) -> Result<Resolution, ErrorData> {
    let amount: i64 = r.get("amount")?;
    Ok(Resolution::value(format!("pay {amount}")))
}

/// What the body of `bad_body` wants: not what its declaration settles (a string).
#[derive(serde::Deserialize)]
struct WantsInt {
    #[allow(dead_code)]
    n: i64,
}

#[derive(Clone)]
struct Server {
    elicit: Arc<Elicit>,
    router: Arc<ToolRouter<Server>>,
    /// A resource declared with a model argument (resources/read carries none).
    item: Arc<Declared>,
}

#[tool_router]
impl Server {
    #[tool(description = "Book", input_schema = <Trip as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn trip(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |t: Trip, call| async move {
                let key = call.idempotency_key().map(str::len).unwrap_or_default();
                let text = format!("{} to {} ({}) key:{key}", t.item, t.destination, t.airport);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
            .await
    }

    #[tool(description = "Fly", input_schema = <Flight as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn flight(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |f: Flight, _| async move {
                let text = format!("{} on {}", f.destination, f.date);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
            .await
    }

    #[tool(description = "Pay", input_schema = <Pay as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn pay(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |p: Pay, _| async move {
                let text = format!("{} ({})", p.confirmed, p.amount);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
            .await
    }

    #[tool(description = "Bad value", input_schema = <BadValue as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn bad_value(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |_: BadValue, _| async {
                Ok(CallToolResult::success(Vec::new()))
            })
            .await
    }

    #[tool(description = "Bad needs", input_schema = <BadNeeds as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn bad_needs(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        self.elicit
            .run(call, |_: BadNeeds, _| async {
                Ok(CallToolResult::success(Vec::new()))
            })
            .await
    }
}

#[tool_handler(router = self.router, name = "player-test", version = "1.0.0")]
impl ServerHandler for Server {
    elicit_rmcp::hooks!(elicit);

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let body = |_: JsonObject, _| async { Ok(ReadResourceResult::new(Vec::new())) };
        self.elicit
            .resource(&self.item, request, context, body)
            .await
    }
}

/// One string argument `n`, declared at run time as `name`.
fn takes_n(name: &str) -> Declared {
    let decl = Decl::new(name).param(Param::argument("n").ty(AnswerType::String));
    let schemas = vec![("n", json!({"type": "string"}))];
    Declared::build(decl.to_json(), Vec::new(), schemas).unwrap()
}

fn server() -> Server {
    let codec = StateCodec::sealed(StateKeys::from_bytes(&[&[7; 32]]).unwrap()).unwrap();
    let elicit = Arc::new(Elicit::new(
        Implementation::new("player-test", "1.0.0"),
        codec,
    ));
    let listing = Tool::new_with_raw("bad_body", None, JsonObject::new());
    let bad_body = takes_n("bad_body")
        .into_route(listing, elicit.clone(), |_: WantsInt, _| async {
            Ok(CallToolResult::success(Vec::new()))
        })
        .unwrap();
    let router = Server::tool_router().with_route(bad_body);
    let item = Arc::new(takes_n("item"));
    Server {
        elicit,
        router: Arc::new(router),
        item,
    }
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_plays_through_both_eras() {
    let player = Player::new()
        .accept("Where would you like to fly?", "Paris")
        .accept("Which airport in Paris?", "CDG");
    for (era, key, rounds) in [(Era::Modern, 64, 3), (Era::Handshake, 0, 1)] {
        let played = player
            .play(server(), era, "trip", json!({"item": "bag"}))
            .await
            .unwrap();
        assert_eq!(played.rounds, rounds, "{era:?}");
        assert_eq!(
            played.asked,
            ["Where would you like to fly?", "Which airport in Paris?"]
        );
        assert_eq!(
            text(&played.result),
            format!("bag to Paris (CDG) key:{key}"),
            "{era:?}"
        );
    }
    // Two questions in one modern round reach the client in declaration order, as
    // elicit-rmcp's transports write them (rmcp alone writes them in name order).
    let flight = Player::new()
        .accept("Where would you like to fly?", "Paris")
        .accept("When would you like to fly?", "May");
    for (era, rounds) in [(Era::Modern, 2), (Era::Handshake, 1)] {
        let played = flight
            .play(server(), era, "flight", json!({}))
            .await
            .unwrap();
        assert_eq!(
            played.asked,
            [
                "Where would you like to fly?",
                "When would you like to fly?"
            ],
            "{era:?}"
        );
        assert_eq!(played.rounds, rounds, "{era:?}");
        assert_eq!(text(&played.result), "Paris on May", "{era:?}");
    }
    let london = Player::new().accept("Where would you like to fly?", "London");
    let played = london
        .play(server(), Era::Modern, "trip", json!({"item": "bag"}))
        .await
        .unwrap();
    assert_eq!(played.asked, ["Where would you like to fly?"]);
    assert_eq!(text(&played.result), "bag to London (LHR) key:64");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decline_reads_as_written_for_the_user() {
    let player = Player::new().decline("Where would you like to fly?");
    for era in [Era::Modern, Era::Handshake] {
        let played = player
            .play(server(), era, "trip", json!({"item": "bag"}))
            .await
            .unwrap();
        assert_eq!(played.result.is_error, Some(true));
        assert_eq!(
            text(&played.result),
            "Not done: you declined to answer 'destination', which is required."
        );
    }
}

#[test]
fn the_input_schema_lists_the_model_arguments_only() {
    let schema = <Trip as elicit_rmcp::ElicitArgs>::input_schema();
    assert_eq!(schema["properties"], json!({"item": {"type": "string"}}));
    assert_eq!(schema["required"], json!(["item"]));
}

/// A developer error (here: resolvers that break their declaration) reaches the client
/// as `-32603 "Internal error"` and nothing more, in both eras; the advice is logged.
#[tokio::test(flavor = "multi_thread")]
async fn a_developer_error_reads_internal_error() {
    for tool in ["bad_value", "bad_needs"] {
        for era in [Era::Modern, Era::Handshake] {
            let err = Player::new()
                .play(server(), era, tool, json!({"item": "bag"}))
                .await
                .err()
                .unwrap_or_default();
            assert!(
                err.ends_with("-32603: Internal error"),
                "{tool} {era:?}: {err}"
            );
            assert!(!err.contains("resolver"), "{tool} {era:?}: {err}");
        }
    }
}

/// The other developer errors the crate docs list read the same: settled values that do
/// not fit the body's input type (a tool declared at run time), and a resource declared
/// with a model argument (`resources/read` carries none): exactly `-32603 "Internal
/// error"`, no data.
#[tokio::test(flavor = "multi_thread")]
async fn other_developer_errors_read_internal_error() {
    for era in [Era::Modern, Era::Handshake] {
        let err = Player::new()
            .play(server(), era, "bad_body", json!({"n": "x"}))
            .await
            .err()
            .unwrap_or_default();
        assert!(err.ends_with("-32603: Internal error"), "{era:?}: {err}");
    }
    let (a, b) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(s) = server().serve(a).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(b).await.unwrap();
    let read = ReadResourceRequestParams::new("item");
    let err = client.peer().read_resource(read).await.unwrap_err();
    let rmcp::service::ServiceError::McpError(e) = err else {
        panic!("expected an error response: {err}");
    };
    assert_eq!(
        (e.code.0, e.message.as_ref(), e.data),
        (-32603, "Internal error", None)
    );
}

#[test]
fn server_info_is_what_elicit_was_given() {
    let server = server();
    assert_eq!(server.get_info().server_info, *server.elicit.server_info());
}

/// `5.0` for an integer argument is `5` to the resolver and the body, in both eras.
#[tokio::test(flavor = "multi_thread")]
async fn a_whole_number_argument_is_an_integer_before_any_resolver() {
    for era in [Era::Modern, Era::Handshake] {
        let played = Player::new()
            .play(server(), era, "pay", json!({"amount": 5.0}))
            .await
            .unwrap();
        assert_eq!(text(&played.result), "pay 5 (5)", "{era:?}");
    }
}

/// What the macro cannot see (here a cycle) stops the server where `#[tool_router]`
/// builds its router, naming the field, and is never listed as an empty schema.
#[test]
fn a_refused_declaration_stops_the_router_being_built() {
    #[allow(dead_code)]
    #[derive(serde::Deserialize, elicit_rmcp::Elicit)]
    struct Cycle {
        #[elicit(resolver = either, needs = [b])]
        a: String,
        #[elicit(resolver = either, needs = [a])]
        b: String,
    }
    async fn either(_: Resolve) -> Result<Resolution, ErrorData> {
        Ok(Resolution::value("x"))
    }
    let why = <Cycle as elicit_rmcp::ElicitArgs>::check().unwrap_err();
    assert!(
        why.contains("a -> b -> a") || why.contains("b -> a -> b"),
        "{why}"
    );
    let panic =
        std::panic::catch_unwind(<Cycle as elicit_rmcp::ElicitArgs>::input_schema).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains(&why), "{message}");
}
