//! The fixtures the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! names in its server scenarios, served with `--conformance`: every one declared
//! through elicit (no hand-written `InputRequiredResult`), with the names, keys,
//! messages and schemas the scenarios check (docs/conformance-suite.md §3).
//!
//! Schemas the suite gives verbatim are raw `{"schema": ...}` answer types, sent as
//! written; the settled value of such a parameter is the accepted content object.

use elicit_core::decl::{AnswerType, Param, Tool as Decl};
use elicit_core::InputKind;
use std::future::Future;
use std::sync::Arc;

use elicit_rmcp::{resolver, Call, Declared, Elicit, ErrorData, Resolution, Resolver};
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{json, Value};

/// The static resource listed first (the `caching` scenario reads `resources[0]`).
pub const ABOUT_URI: &str = "booking://about";
/// Its text.
pub const ABOUT_TEXT: &str =
    "elicit-rmcp-server: the booking tools on rmcp, every user input declared through elicit.";

/// `{"type":"object","properties":{<field>:{"type":<ty>}},"required":[<field>]}`.
fn one_field(field: &str, ty: &str) -> AnswerType {
    AnswerType::Schema(
        json!({"type": "object", "properties": {field: {"type": ty}}, "required": [field]})
            .to_string(),
    )
}

fn text(t: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(t.into())])
}

/// A JSON value as text: a string's characters, anything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The text field `field` of an accepted content object (empty when absent).
fn field(content: &JsonObject, param: &str, field: &str) -> String {
    content
        .get(param)
        .and_then(|c| c.get(field))
        .map(plain)
        .unwrap_or_default()
}

/// `action=<a>, content=<JSON>` of an outcome parameter's settled value.
fn outcome_text(outcome: &Value) -> String {
    let action = outcome.get("action").map(plain);
    let content = outcome.get("value").cloned().unwrap_or(Value::Null);
    format!(
        "action={}, content={content}",
        action.unwrap_or_else(|| "unknown".into())
    )
}

/// The text a sampling parameter's CreateMessageResult carries (`content` is one
/// block or, on 2026-07-28, possibly several; the text blocks are joined).
fn sampled_text(values: &JsonObject, param: &str) -> String {
    let content = values.get(param).and_then(|r| r.get("content"));
    let blocks = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many roots a roots parameter settled to.
fn root_count(values: &JsonObject, param: &str) -> usize {
    values
        .get(param)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// CreateMessageRequest params: one user text message.
fn sampling_params(text: &str, max_tokens: u32) -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}],
           "maxTokens": max_tokens})
}

/// The route of a fixture tool declared as `decl`, listed with `description`: its
/// resolvers and model arguments' schemas, and its body over the settled values.
fn route<S, F, Fut>(
    elicit: &Arc<Elicit>,
    decl: Decl,
    description: &str,
    resolvers: Vec<(&str, Resolver)>,
    schemas: Vec<(&str, Value)>,
    body: F,
) -> Result<ToolRoute<S>, String>
where
    S: Send + Sync + 'static,
    F: Fn(JsonObject, Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
{
    let description = Some(description.to_string().into());
    let listing = Tool::new_with_raw(decl.name().to_string(), description, JsonObject::new());
    Declared::build(decl.to_json(), resolvers, schemas)?.into_route(listing, elicit.clone(), body)
}

/// The static resource (`resources[0]`): a declaration that asks nothing, read through
/// [`Elicit::resource`] as the elicited ones are.
pub fn about() -> Result<Declared, String> {
    Declared::build(Decl::new("about").to_json(), Vec::new(), Vec::new())
}

/// The prompt (input-required-result-non-tool-request: prompts/get asks too).
pub fn prompt() -> Result<Declared, String> {
    let decl = Decl::new("test_input_required_result_prompt").param(
        Param::ask("user_context", "What context should the prompt use?")
            .ty(one_field("context", "string")),
    );
    Declared::build(decl.to_json(), Vec::new(), Vec::new())
}

/// The prompt's description (its `prompts/list` entry).
pub const PROMPT_DESCRIPTION: &str = "MRTR: prompt that requires elicitation input";

/// The prompt's text for the settled `user_context`.
pub fn prompt_text(v: &JsonObject) -> String {
    format!(
        "Prompt with context: {}",
        field(v, "user_context", "context")
    )
}

/// The fixture tools as routes of the server's `#[tool_router]`, in the order the
/// suite's scenarios name them.
pub fn tools<S: Send + Sync + 'static>(elicit: &Arc<Elicit>) -> Result<Vec<ToolRoute<S>>, String> {
    // input-required-result-basic-elicitation (and -missing-input-response,
    // -result-type, -ignore-extra-params, -validate-input).
    let elicitation = route(
        elicit,
        Decl::new("test_input_required_result_elicitation")
            .param(Param::ask("user_name", "What is your name?").ty(one_field("name", "string"))),
        "MRTR: asks the user's name through a declared form elicitation",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!("Hello, {}!", field(&v, "user_name", "name"))))
        },
    )?;

    // input-required-result-basic-sampling.
    let sampling = route(
        elicit,
        Decl::new("test_input_required_result_sampling").param(Param::sampling(
            "capital_question",
            &sampling_params("What is the capital of France?", 100).to_string(),
        )),
        "MRTR: asks the client's model through a declared sampling request",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "Sampling result: {}",
                sampled_text(&v, "capital_question")
            )))
        },
    )?;

    // input-required-result-basic-list-roots.
    let list_roots = route(
        elicit,
        Decl::new("test_input_required_result_list_roots").param(Param::roots("client_roots")),
        "MRTR: asks the client for its roots through a declared roots/list request",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "Found {} root(s)",
                root_count(&v, "client_roots")
            )))
        },
    )?;

    // input-required-result-multiple-input-requests: three independent kinds, one round.
    let multiple = route(
        elicit,
        Decl::new("test_input_required_result_multiple_inputs")
            .param(Param::ask("user_name", "What is your name?").ty(one_field("name", "string")))
            .param(Param::sampling(
                "greeting",
                &sampling_params("Generate a greeting", 50).to_string(),
            ))
            .param(Param::roots("client_roots")),
        "MRTR: asks a form, a sampling request and roots/list in one round",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "Name: {}; Greeting: {}; Roots: {}",
                field(&v, "user_name", "name"),
                sampled_text(&v, "greeting"),
                root_count(&v, "client_roots")
            )))
        },
    )?;

    // input-required-result-capability-check: the client declares sampling only, and
    // this tool asks nothing else.
    let capabilities = route(
        elicit,
        Decl::new("test_input_required_result_capabilities").param(Param::sampling(
            "sample_input",
            &sampling_params("Sample request", 50).to_string(),
        )),
        "MRTR: asks through sampling only (for a client that declares sampling alone)",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "Sampling result: {}",
                sampled_text(&v, "sample_input")
            )))
        },
    )?;

    // server-stateless: without the sampling capability the engine refuses with -32021.
    let missing_capability = route(
        elicit,
        Decl::new("test_missing_capability").param(Param::sampling(
            "sample",
            &sampling_params("Say hello", 20).to_string(),
        )),
        "Test tool requiring sampling",
        vec![],
        vec![],
        |_: JsonObject, _call| async move { Ok(text("Success")) },
    )?;

    // tools-call-sampling (handshake era): the model's prompt, sampled through a resolver.
    let sampling_tool = route(
        elicit,
        Decl::new("test_sampling")
            .param(Param::argument("prompt").ty(AnswerType::String))
            .param(Param::resolver("response", &["prompt"]).kind(InputKind::Sampling)),
        "Asks the client's model the given prompt",
        vec![(
            "response",
            resolver(|r| async move {
                Ok(Resolution::sampling(sampling_params(
                    &r.text("prompt"),
                    100,
                )))
            }),
        )],
        vec![("prompt", json!({"type": "string"}))],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "LLM response: {}",
                sampled_text(&v, "response")
            )))
        },
    )?;

    // Not named by the suite (its clients never declare URL mode): a URL-mode parameter
    // whose resolver builds the URL from the model's argument; declining settles to the
    // default, false. tests/interop/mcp/test_rmcp_kinds.py drives it with FastMCP.
    let url_tool = route(
        elicit,
        Decl::new("test_url_elicitation")
            .param(Param::argument("order").ty(AnswerType::String))
            .param(
                Param::resolver("paid", &["order"])
                    .kind(InputKind::Url)
                    .default_json("false"),
            ),
        "Sends the user to a payment page for the order (URL-mode elicitation)",
        vec![(
            "paid",
            resolver(|r| async move {
                let order = r.text("order");
                Ok(Resolution::url(
                    format!("Pay for order {order}"),
                    format!("https://pay.example/orders/{order}"),
                ))
            }),
        )],
        vec![("order", json!({"type": "string"}))],
        |v: JsonObject, _call| async move {
            let paid = v.get("paid").and_then(Value::as_bool).unwrap_or(false);
            Ok(text(if paid { "Payment started" } else { "Not paid" }))
        },
    )?;

    let confirm = || Param::ask("confirm", "Please confirm").ty(one_field("ok", "boolean"));
    // input-required-result-request-state.
    let request_state = route(
        elicit,
        Decl::new("test_input_required_result_request_state").param(confirm()),
        "MRTR: asks for a confirmation; the answer comes back through the sealed requestState",
        vec![],
        vec![],
        |_: JsonObject, _call| async move { Ok(text("state-ok: requestState validated")) },
    )?;
    // input-required-result-tampered-state.
    let tampered = route(
        elicit,
        Decl::new("test_input_required_result_tampered_state").param(confirm()),
        "MRTR: asks for a confirmation; a tampered requestState is refused",
        vec![],
        vec![],
        |_: JsonObject, _call| async move { Ok(text("state-ok: requestState validated")) },
    )?;

    // input-required-result-multi-round: step2 depends on step1, so it waits a round.
    let multi_round = route(
        elicit,
        Decl::new("test_input_required_result_multi_round")
            .param(
                Param::ask("step1", "Step 1: What is your name?").ty(one_field("name", "string")),
            )
            .param(Param::resolver("step2", &["step1"]).ty(one_field("color", "string"))),
        "MRTR: asks the name, then (a second round) the favourite colour",
        vec![(
            "step2",
            resolver(
                |_| async move { Ok(Resolution::ask("Step 2: What is your favorite color?")) },
            ),
        )],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!(
                "Multi-round complete for {} who likes {}",
                field(&v, "step1", "name"),
                field(&v, "step2", "color")
            )))
        },
    )?;

    // server-stateless: a form question streamed as one JSON line, and a tool that asks
    // nothing (and logs nothing).
    let streaming = route(
        elicit,
        Decl::new("test_streaming_elicitation")
            .param(Param::ask("value", "Enter a value:").ty(one_field("value", "string"))),
        "Diagnostic tool validating response streams: asks one form question",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            Ok(text(format!("Received {}", field(&v, "value", "value"))))
        },
    )?;
    let logging = route(
        elicit,
        Decl::new("test_logging_tool"),
        "Diagnostic logging validator tool: asks nothing, logs nothing",
        vec![],
        vec![],
        |_: JsonObject, _call| async move { Ok(text("Logging evaluated")) },
    )?;

    // tools-call-elicitation (handshake era): the model's message is the question.
    let user_info = AnswerType::Schema(
        json!({"type": "object", "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}},
            "required": ["username", "email"]})
        .to_string(),
    );
    let elicitation_tool = route(
        elicit,
        Decl::new("test_elicitation")
            .param(Param::argument("message").ty(AnswerType::String))
            .param(
                Param::resolver("response", &["message"])
                    .ty(user_info)
                    .outcome(),
            ),
        "Asks the user the model's message (username and email)",
        vec![(
            "response",
            resolver(|r| async move { Ok(Resolution::ask(r.text("message"))) }),
        )],
        vec![("message", json!({"type": "string"}))],
        |v: JsonObject, _call| async move {
            let outcome = v.get("response").cloned().unwrap_or(Value::Null);
            Ok(text(format!("User response: {}", outcome_text(&outcome))))
        },
    )?;

    // elicitation-sep1034-defaults (handshake era): one question, every default kind.
    let defaults = AnswerType::Schema(
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}},
            "required": []})
        .to_string(),
    );
    let sep1034 = route(
        elicit,
        Decl::new("test_elicitation_sep1034_defaults").param(
            Param::ask(
                "form",
                "Please review and update the form fields with defaults",
            )
            .ty(defaults)
            .outcome(),
        ),
        "Asks one form whose fields carry defaults (SEP-1034)",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            let outcome = v.get("form").cloned().unwrap_or(Value::Null);
            Ok(text(format!(
                "Elicitation completed: {}",
                outcome_text(&outcome)
            )))
        },
    )?;

    // elicitation-sep1330-enums (handshake era): every enum shape in one question.
    let options = |prefix: &str, titles: [&str; 3]| {
        (1..=3)
            .zip(titles)
            .map(|(i, title)| json!({"const": format!("{prefix}{i}"), "title": title}))
            .collect::<Vec<_>>()
    };
    let enums = AnswerType::Schema(
        json!({"type": "object", "properties": {
            "untitledSingle": {"type": "string", "description": "Select one option",
                               "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Select one option with titles",
                             "oneOf": options("value", ["First Option", "Second Option", "Third Option"])},
            "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                           "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Select multiple options",
                              "minItems": 1, "maxItems": 3,
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                            "minItems": 1, "maxItems": 3,
                            "items": {"anyOf": options("value", ["First Choice", "Second Choice", "Third Choice"])}}},
            "required": []})
        .to_string(),
    );
    let sep1330 = route(
        elicit,
        Decl::new("test_elicitation_sep1330_enums").param(
            Param::ask("selection", "Please select options from the enum fields")
                .ty(enums)
                .outcome(),
        ),
        "Asks one form with every enum shape (SEP-1330)",
        vec![],
        vec![],
        |v: JsonObject, _call| async move {
            let outcome = v.get("selection").cloned().unwrap_or(Value::Null);
            Ok(text(format!(
                "Elicitation completed: {}",
                outcome_text(&outcome)
            )))
        },
    )?;

    Ok(vec![
        elicitation,
        sampling,
        list_roots,
        request_state,
        multiple,
        multi_round,
        tampered,
        capabilities,
        missing_capability,
        streaming,
        logging,
        elicitation_tool,
        sep1034,
        sep1330,
        sampling_tool,
        url_tool,
    ])
}
