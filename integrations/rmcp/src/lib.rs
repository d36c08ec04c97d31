#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The derive's paths (`::elicit_rmcp::…`) in this crate's own unit tests.
#[cfg(test)]
extern crate self as elicit_rmcp;
mod engine;
#[cfg(feature = "http")]
pub mod http;
pub mod keys;
mod state;
pub mod stdio;
#[cfg(feature = "testing")]
pub mod testing;
pub mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use elicit_core::json::Value as Json;
use elicit_core::{Capabilities, InputKind, Plan, PyRepr};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomNotification,
    CustomRequest, ElicitRequest, ElicitRequestParams, ElicitationSchema, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, InputRequest,
    InputRequests, InputRequiredResult, JsonObject, ListToolsResult, MetaObject, Prompt,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ServerNotification, ServerRequest, Tool,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use tracing::Instrument;

use engine::{Answer, Era, Need, Outcome, RoundDriver};
pub use keys::{KeyError, StateKeys, MAX_KEYS};
pub use state::{Rejected, StateCodec};

pub use elicit_core as core;
pub use elicit_derive::{Choice, Elicit};
pub use rmcp::model::ErrorData;
pub use {rmcp, schemars, serde, serde_json};

/// JSON-RPC code of "Missing Required Client Capability" (`data.requiredCapabilities`
/// names what is missing, as a ClientCapabilities object).
pub const MISSING_CAPABILITY: i32 = -32021;

/// Most parameters one declaration may have.
pub const CAP: usize = 16;

/// Most distinct form schemas a declaration remembers (resolvers may vary theirs).
const SCHEMA_MEMO: usize = 4 * CAP;

/// How long a handshake-era question waits for the client's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// The `_meta` key of the server's identity on 2026-07-28 results.
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// A boxed, sendable future (what resolvers and bodies return once stored).
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

type ResolverFn = Arc<dyn Fn(Resolve) -> BoxFuture<Result<Resolution, ErrorData>> + Send + Sync>;
type UrlFlowFn = Arc<dyn Fn(UrlAccepted) -> BoxFuture<Result<(), ErrorData>> + Send + Sync>;

/// The method of the notification that ends a URL-mode elicitation (2025-11-25).
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// A URL-mode elicitation the client accepted on a handshake-era connection (≤
/// 2025-11-25): the user consented to open `url`; the out-of-band flow there (a login, a
/// payment) may still be running. See [`Elicit::with_url_flow`].
pub struct UrlAccepted {
    /// The parameter the URL-mode question settles.
    pub param: String,
    /// The request's `elicitationId` (the question's digest), which
    /// `notifications/elicitation/complete` names.
    pub elicitation_id: String,
    /// The URL the user was sent to.
    pub url: String,
    /// The request being served.
    pub context: RequestContext<RoleServer>,
}
type BodyFn<R> =
    Arc<dyn Fn(Map<String, Value>, Call) -> BoxFuture<Result<R, ErrorData>> + Send + Sync>;

/// What a resolver is given: the parameter it decides, the values it named (model
/// arguments and settled elicited values, by name), and the request's context (peer,
/// `_meta`, cancellation, HTTP parts on streamable HTTP).
pub struct Resolve {
    /// The parameter being resolved.
    pub param: String,
    /// The values this resolver named in its declaration, by name.
    pub values: Map<String, Value>,
    /// The request being served.
    pub context: RequestContext<RoleServer>,
}

impl Resolve {
    /// The value named `name`, deserialized. An error names the parameter and the value.
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<T, ErrorData> {
        let v = self.values.get(name).ok_or_else(|| {
            developer_error(format_args!(
                "the resolver of {:?} asked for {name:?}, which its declaration does not name \
                 in its needs; add it there",
                self.param
            ))
        })?;
        serde_json::from_value(v.clone()).map_err(|e| {
            developer_error(format_args!(
                "the resolver of {:?}: value {name:?} ({v}) does not read as the type asked for: {e}",
                self.param
            ))
        })
    }

    /// The value named `name` as text: a string unquoted, anything else as JSON, a
    /// missing one empty.
    pub fn text(&self, name: &str) -> String {
        self.values.get(name).map(plain).unwrap_or_default()
    }
}

/// What a resolver decided.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// The value itself: nothing is asked, nothing recorded.
    Value(Value),
    /// A question in the shape of the resolver's declared kind (elicit-core
    /// `Round::resolve_question`): form `{"message": ...}` (optionally with `type`,
    /// `title`, `description`; asked with the parameter's declared type by default),
    /// URL mode `{"message": ..., "url": ...}`, `{"sampling": {CreateMessageRequest
    /// params}}` or `{"roots": {}}`.
    Question(Value),
}

impl Resolution {
    /// A value (anything serde can write).
    pub fn value(v: impl serde::Serialize) -> Self {
        Resolution::Value(serde_json::to_value(v).unwrap_or(Value::Null))
    }

    /// Ask `message` (a form resolver), with the parameter's declared answer type.
    pub fn ask(message: impl Into<String>) -> Self {
        Resolution::Question(json!({ "message": message.into() }))
    }

    /// Send the user to `url` with `message` (a URL-mode resolver).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Resolution::Question(json!({ "message": message.into(), "url": url.into() }))
    }

    /// Ask the client's model (a sampling resolver): `params` are a
    /// CreateMessageRequest's params (`messages`, `maxTokens`, ...).
    pub fn sampling(params: Value) -> Self {
        Resolution::Question(json!({ "sampling": params }))
    }
}

/// One `tools/call` (or `prompts/get`, `resources/read`) round: an rmcp extractor, so a
/// `#[tool]` function takes it as a parameter and hands it to [`Elicit::run`], which
/// gives it back to the body.
pub struct Call {
    /// The request being served.
    pub context: RequestContext<RoleServer>,
    /// The tool (prompt, resource URI) called.
    pub name: String,
    /// The model-supplied arguments, as the client sent them.
    pub arguments: JsonObject,
    input_responses: Option<rmcp::model::InputResponses>,
    request_state: Option<String>,
    /// Computed when first asked for.
    idempotency_key: std::sync::OnceLock<Option<String>>,
}

impl Call {
    /// The call of `params` in `context` (what the extractor builds).
    pub fn new(params: CallToolRequestParams, context: RequestContext<RoleServer>) -> Self {
        let arguments = params.arguments.unwrap_or_default();
        let (inputs, state) = (params.input_responses, params.request_state);
        Call::of(params.name, arguments, inputs, state, context)
    }

    fn of(
        name: impl Into<String>,
        arguments: JsonObject,
        input_responses: Option<rmcp::model::InputResponses>,
        request_state: Option<String>,
        context: RequestContext<RoleServer>,
    ) -> Self {
        Call {
            context,
            name: name.into(),
            arguments,
            input_responses,
            request_state,
            idempotency_key: Default::default(),
        }
    }

    /// A stable key of this call, for the body to make its effect idempotent: the hex
    /// SHA-256 of the sealed `requestState` the final round carried and of its
    /// `inputResponses` (keys sorted). A retried or replayed final round gets the same
    /// key; a new call that the user answers again gets another. `None` on the
    /// handshake era and on a call that asked nothing (no state to derive it from).
    /// Exactly-once still needs the application's own store: remember the keys of
    /// effects done and skip a key seen before.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.idempotency_key
            .get_or_init(|| {
                idempotency_key(self.request_state.as_deref(), self.input_responses.as_ref())
            })
            .as_deref()
    }
}

impl<S>
    rmcp::handler::server::common::FromContextPart<
        rmcp::handler::server::tool::ToolCallContext<'_, S>,
    > for Call
{
    fn from_context_part(
        c: &mut rmcp::handler::server::tool::ToolCallContext<'_, S>,
    ) -> Result<Self, ErrorData> {
        Ok(Call {
            context: c.request_context.clone(),
            name: c.name.to_string(),
            arguments: c.arguments.take().unwrap_or_default(),
            input_responses: c.input_responses.take(),
            request_state: c.request_state.take(),
            idempotency_key: Default::default(),
        })
    }
}

/// A compiled declaration plus its resolvers: what tools, prompts and resources share.
/// Built by `#[derive(Elicit)]` (see [`ElicitArgs`]) or by the builders.
pub struct Declared {
    plan: Plan<'static, CAP>,
    /// Per parameter, in declaration order: its declared `type` (a name, or an object
    /// with `enum`) and whether it has a default (what resolver values and settled
    /// integers are checked against), read from the declaration once.
    types: Vec<(Option<Value>, bool)>,
    resolvers: HashMap<String, ResolverFn>,
    /// JSON Schemas of the model-supplied arguments, by name, in declaration order.
    arg_schemas: Vec<(String, Value)>,
    /// rmcp's form schemas by the engine's `requestedSchema` text: a question's schema
    /// is parsed once, not every round.
    schemas: std::sync::RwLock<HashMap<Box<str>, ElicitationSchema>>,
}

/// A resolver as a declaration stores it (made by [`resolver`]).
pub struct Resolver(ResolverFn);

/// Store `f` as the resolver of a parameter: `async fn(Resolve) -> Result<Resolution,
/// ErrorData>`. `#[derive(Elicit)]` calls it for `#[elicit(resolver = f)]`.
pub fn resolver<F, Fut>(f: F) -> Resolver
where
    F: Fn(Resolve) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Resolution, ErrorData>> + Send + 'static,
{
    Resolver(Arc::new(move |r| Box::pin(f(r))))
}

/// The JSON Schema of a model argument's type, as rmcp lists it.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_else(|_| json!({}));
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
        m.remove("title");
    }
    v
}

impl Declared {
    /// The declaration `text` (elicit-core declaration JSON, alive as long as the
    /// program), its resolvers and its arguments' schemas, checked together: every
    /// resolved parameter has exactly one resolver, every schema names an argument.
    /// Errors name the declaration and the parameter.
    pub fn build(
        text: &'static str,
        resolvers: Vec<(&str, Resolver)>,
        schemas: Vec<(&str, Value)>,
    ) -> Result<Declared, String> {
        let mut d = Declared::compile(text)?;
        let what = format!("tool {:?}", d.plan.tool());
        d.resolvers = resolvers
            .into_iter()
            .map(|(n, r)| (n.to_string(), r.0))
            .collect();
        d.arg_schemas = schemas
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect();
        d.check_resolvers(&what)?;
        Ok(d)
    }

    /// The compiled declaration `text`, without resolvers or argument schemas yet.
    fn compile(text: &'static str) -> Result<Declared, String> {
        let plan = Plan::compile(text).map_err(|e| format!("declaration rejected: {e}"))?;
        let decl: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let params = decl.get("parameters").and_then(Value::as_array);
        let types = (0..plan.len())
            .map(|i| {
                let name = plan.name(i).map(Value::from);
                let p = params.and_then(|ps| ps.iter().find(|p| p.get("name") == name.as_ref()));
                p.map_or((None, false), |p| {
                    (p.get("type").cloned(), p.get("default").is_some())
                })
            })
            .collect();
        Ok(Declared {
            plan,
            types,
            resolvers: HashMap::new(),
            arg_schemas: Vec::new(),
            schemas: Default::default(),
        })
    }
}

/// A struct whose fields are one tool's parameters: implemented by
/// `#[derive(Elicit)]`. The tool body receives the struct once every field is settled.
pub trait ElicitArgs: DeserializeOwned + Send + 'static {
    /// The compiled declaration (built once), or why it was refused, naming the field.
    fn declared() -> &'static Result<Declared, String>;

    /// The tool's `inputSchema`: the model arguments only, for
    /// `#[tool(input_schema = T::input_schema())]`. rmcp evaluates it when
    /// `#[tool_router]`'s `Self::tool_router()` builds the router, so a declaration the
    /// engine refuses stops the server there, not at the first call.
    ///
    /// # Panics
    ///
    /// When the declaration is refused ([`ElicitArgs::check`] says why, naming the
    /// field): a tool must never be listed with an empty `inputSchema` that every call
    /// then fails. Call `T::check()` first to handle the error yourself.
    fn input_schema() -> Arc<JsonObject> {
        match Self::declared() {
            Ok(d) => {
                register(d);
                Arc::new(d.input_schema())
            }
            // A startup failure by design (documented above): the router cannot be
            // built from a refused declaration, and rmcp's input_schema is infallible.
            #[allow(clippy::panic)]
            Err(e) => panic!("elicit-rmcp: {e}"),
        }
    }

    /// The startup check: call it where the server is built, so a declaration the
    /// macro could not judge is refused before the first call.
    fn check() -> Result<(), String> {
        Self::declared().as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

/// The derive-declared tools whose declaration carries the fallback, by tool name:
/// [`ElicitArgs::input_schema`] (evaluated when the router is built) registers them, so
/// [`Elicit::list_tools`] can list each for the client asking.
static FALLBACK_TOOLS: std::sync::RwLock<Vec<&'static Declared>> =
    std::sync::RwLock::new(Vec::new());

fn register(d: &'static Declared) {
    if !d.plan.has_fallback() {
        return;
    }
    if let Ok(mut tools) = FALLBACK_TOOLS.write() {
        if !tools.iter().any(|t| t.plan.tool() == d.plan.tool()) {
            tools.push(d);
        }
    }
}

/// The `ServerHandler` hooks an elicit server needs, inside `impl ServerHandler`
/// (beside rmcp's `#[tool_handler]`): `on_custom_request` answering requests rmcp could
/// not parse ([`Elicit::unparsed_request`]: a non-string `requestState` is the frozen
/// `-32602`, not `-32601`). `$field` is the server struct's `Arc<Elicit>` field.
#[macro_export]
macro_rules! hooks {
    ($field:ident) => {
        async fn on_custom_request(
            &self,
            request: $crate::rmcp::model::CustomRequest,
            _context: $crate::rmcp::service::RequestContext<$crate::rmcp::RoleServer>,
        ) -> ::core::result::Result<$crate::rmcp::model::CustomResult, $crate::ErrorData> {
            ::core::result::Result::Err(self.$field.unparsed_request(&request))
        }
    };
}

/// A unit enum that is a single-select answer (`#[derive(Choice)]`).
pub trait Choice {
    /// The values the user chooses from, in declaration order.
    const CHOICES: &'static [&'static str];
}

fn compile(decl: elicit_core::decl::Tool) -> Result<Declared, String> {
    // A declaration lives as long as the server: the plan borrows its text.
    Declared::compile(Box::leak(decl.to_json().into_boxed_str()))
}

impl Declared {
    fn check_resolvers(&self, what: &str) -> Result<(), String> {
        for i in 0..self.plan.len() {
            let name = self.plan.name(i).unwrap_or_default();
            let has = self.resolvers.contains_key(name);
            if self.plan.has_resolver(i) && !has {
                return Err(format!(
                    "{what}: parameter {name:?} is declared with a resolver; register one with \
                     .resolver({name:?}, ...)"
                ));
            }
            if !self.plan.has_resolver(i) && has {
                return Err(format!(
                    "{what}: a resolver is registered for {name:?}, which the declaration does \
                     not declare as resolved; use Param::resolver({name:?}, ...)"
                ));
            }
        }
        for (name, _) in &self.arg_schemas {
            if !self.arguments().any(|a| a == name) {
                return Err(format!(
                    "{what}: an argument schema is given for {name:?}, which is not a model \
                     argument of the declaration; fix the name or declare the argument"
                ));
            }
        }
        for name in self.resolvers.keys() {
            if self.plan.index_of(name).is_none() {
                return Err(format!(
                    "{what}: a resolver is registered for {name:?}, which is not a declared \
                     parameter"
                ));
            }
        }
        Ok(())
    }

    /// A resolver's value against the parameter's declared type and enum; the error
    /// names the resolver and the value (and goes to the log: it is the developer's).
    fn check_value(&self, param: &str, v: &Value) -> Result<(), ErrorData> {
        let (ty, default) = self
            .plan
            .index_of(param)
            .and_then(|i| self.types.get(i))
            .map_or((None, false), |(ty, default)| (ty.as_ref(), *default));
        let fits = match ty {
            _ if v.is_null() && default => true,
            Some(Value::String(t)) => json_type_matches(t, v),
            Some(Value::Object(o)) => match o.get("enum").and_then(Value::as_array) {
                Some(choices) => choices.contains(v),
                None => true,
            },
            _ => true,
        };
        if fits {
            return Ok(());
        }
        let declared = ty.map(Value::to_string).unwrap_or_default();
        Err(developer_error(format_args!(
            "the resolver of {param:?} returned {v}, which is not a {declared}; \
             return a value of the declared type (or ask)"
        )))
    }

    /// Whole numbers settled for integer parameters as integers (the engine accepts
    /// `3.0` for an integer; a body's `i64` field reads `3`).
    fn normalize(&self, values: &mut Map<String, Value>) {
        for (i, _) in self
            .types
            .iter()
            .enumerate()
            .filter(|(_, (ty, _))| ty.as_ref().and_then(Value::as_str) == Some("integer"))
        {
            let name = self.plan.name(i).unwrap_or_default();
            if let Some(v) = values.get_mut(name) {
                if let Some(f) = v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                    *v = json!(f as i64);
                }
            }
        }
    }

    /// Whole numbers given for integer arguments (`5.0`) as integers (`5`), before any
    /// resolver or body reads them (a resolver's `get::<i64>` and a body's `i64` field
    /// read `5`): a normalised copy, or `None` when nothing needs it (no copy on the
    /// usual call). An argument is an integer when its schema's `type` is `"integer"` or
    /// a list holding it (`Option<i64>`).
    fn normalized_arguments(&self, args: &JsonObject) -> Option<JsonObject> {
        let mut copy: Option<JsonObject> = None;
        for (name, schema) in &self.arg_schemas {
            let integer = match schema.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            let whole = args
                .get(name)
                .filter(|v| integer && v.is_f64())
                .and_then(Value::as_f64)
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15);
            if let Some(f) = whole {
                copy.get_or_insert_with(|| args.clone())
                    .insert(name.clone(), json!(f as i64));
            }
        }
        copy
    }

    /// The engine's `inputRequests` text as rmcp's typed requests, and their names in
    /// the order the engine asks them (declaration order). A form question is built directly, with its
    /// schema parsed once per distinct schema ([`Declared::schema`]); other kinds go
    /// through rmcp's deserializer.
    fn input_requests(&self, text: &str) -> Result<(InputRequests, Vec<String>), String> {
        #[derive(serde::Deserialize)]
        struct Form<'a> {
            #[serde(borrow)]
            params: FormParams<'a>,
        }
        #[derive(serde::Deserialize)]
        struct FormParams<'a> {
            message: String,
            #[serde(rename = "requestedSchema", borrow)]
            schema: &'a RawValue,
        }
        let mut batch: HashMap<String, &RawValue> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut requests = InputRequests::new();
        let mut order = Vec::with_capacity(batch.len());
        // The engine asks in the plan's resolution order.
        for i in self.plan.resolution_order() {
            let Some((param, raw)) = self.plan.name(i).and_then(|n| batch.remove_entry(n)) else {
                continue;
            };
            let request = match self.plan.kind(i) {
                Some(InputKind::Form) => serde_json::from_str(raw.get()).and_then(|f: Form<'_>| {
                    Ok(InputRequest::Elicitation(ElicitRequest::new(
                        ElicitRequestParams::FormElicitationParams {
                            meta: None,
                            message: f.params.message,
                            requested_schema: self.schema(f.params.schema.get())?,
                        },
                    )))
                }),
                _ => serde_json::from_str(raw.get()),
            }
            .map_err(|e| format!("question for {param:?} is not a valid input request: {e}"))?;
            order.push(param.clone());
            requests.insert(param, request);
        }
        Ok((requests, order))
    }

    /// rmcp's form schema of the engine's `requestedSchema` text, parsed on its first
    /// round and remembered (up to [`SCHEMA_MEMO`] distinct schemas per declaration).
    fn schema(&self, text: &str) -> Result<ElicitationSchema, serde_json::Error> {
        if let Some(s) = self.schemas.read().ok().and_then(|m| m.get(text).cloned()) {
            return Ok(s);
        }
        let schema: ElicitationSchema = serde_json::from_str(text)?;
        if let Ok(mut memo) = self.schemas.write() {
            if memo.len() < SCHEMA_MEMO {
                memo.insert(text.into(), schema.clone());
            }
        }
        Ok(schema)
    }

    /// The model-supplied parameters, in declaration order.
    fn arguments(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..self.plan.len())
            .filter(|&i| !self.plan.is_elicited(i))
            .filter_map(|i| self.plan.name(i))
    }

    fn input_schema(&self) -> JsonObject {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for name in self.arguments() {
            let schema = self
                .arg_schemas
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| json!({}));
            properties.insert(name.to_string(), schema);
            required.push(Value::String(name.to_string()));
        }
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("additionalProperties".into(), json!(false));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        schema
    }

    /// Model arguments against the declaration: no unknown names, every declared one
    /// present, JSON types as the argument schema's `type` says. The message is the
    /// caller-facing error.
    fn check_arguments(&self, kind: &str, target: &str, args: &JsonObject) -> Result<(), String> {
        for key in args.keys() {
            // An elicited parameter that falls back may come as an argument: the
            // engine takes it as the answer only when its question would be asked of
            // a client that cannot be asked (docs/fallback.md).
            let known = self
                .plan
                .index_of(key)
                .is_some_and(|i| !self.plan.is_elicited(i) || self.plan.falls_back(i));
            if !known {
                return Err(format!(
                    "Unexpected argument {} for {kind} {}",
                    PyRepr(key),
                    PyRepr(target)
                ));
            }
        }
        for name in self.arguments() {
            let Some(v) = args.get(name) else {
                return Err(format!(
                    "Missing required argument {} for {kind} {}",
                    PyRepr(name),
                    PyRepr(target)
                ));
            };
            let schema = self.arg_schemas.iter().find(|(n, _)| n == name);
            if let Some(ty) = schema
                .and_then(|(_, s)| s.get("type"))
                .and_then(Value::as_str)
            {
                if !json_type_matches(ty, v) {
                    return Err(format!(
                        "Argument {} of {kind} {} must be of type {ty}",
                        PyRepr(name),
                        PyRepr(target)
                    ));
                }
            }
        }
        Ok(())
    }
}

fn json_type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// Shared builder steps of [`ElicitTool`], [`ElicitPrompt`] and [`ElicitResource`].
macro_rules! builder_common {
    () => {
        /// Register the async resolver of parameter `name` (declared with
        /// `Param::resolver`). It runs whenever the engine needs that parameter decided.
        pub fn resolver<F, Fut>(mut self, name: &str, f: F) -> Self
        where
            F: Fn(Resolve) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Resolution, ErrorData>> + Send + 'static,
        {
            let f = Arc::new(f);
            let boxed: ResolverFn = Arc::new(move |r| {
                let f = f.clone();
                Box::pin(async move { f(r).await })
            });
            if let Ok(pending) = &mut self.pending {
                pending.resolvers.insert(name.to_string(), boxed);
            }
            self
        }

        /// The JSON Schema of model-supplied argument `name` (listed in the input schema;
        /// its `type` is checked on every call).
        pub fn argument_schema(mut self, name: &str, schema: Value) -> Self {
            if let Ok(pending) = &mut self.pending {
                pending.arg_schemas.push((name.to_string(), schema));
            }
            self
        }
    };
}

fn body<T, R, F, Fut>(f: F, what: String) -> BodyFn<R>
where
    T: DeserializeOwned + Send + 'static,
    F: Fn(T, Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ErrorData>> + Send + 'static,
    R: 'static,
{
    let f = Arc::new(f);
    Arc::new(move |values, call| {
        let f = f.clone();
        let what = what.clone();
        Box::pin(async move {
            let input: T = serde_json::from_value(Value::Object(values)).map_err(|e| {
                developer_error(format_args!(
                    "{what}: the settled values do not fit the body's input type: {e}"
                ))
            })?;
            f(input, call).await
        })
    })
}

/// An elicited tool: declaration, resolvers, listing and typed body.
pub struct ElicitTool {
    /// The compiled declaration, or why it was refused (reported by `run`).
    pending: Result<Declared, String>,
    tool: Tool,
}

/// A finished tool (see [`ElicitTool::run`]).
pub struct ReadyTool {
    declared: Declared,
    tool: Tool,
    body: BodyFn<CallToolResult>,
}

impl ElicitTool {
    /// Start from a declaration (elicit-core's builder). The tool's name is the
    /// declaration's.
    pub fn new(decl: elicit_core::decl::Tool) -> Self {
        // A rejected declaration keeps its name, so `run`'s error names the tool.
        let declared_name = decl.name().to_string();
        let tool = Tool::new_with_raw(declared_name, None, JsonObject::new());
        ElicitTool {
            pending: compile(decl),
            tool,
        }
    }

    builder_common!();

    /// The tool's human title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// The tool's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into().into());
        self
    }

    /// The tool's `outputSchema`.
    pub fn output_schema(mut self, schema: JsonObject) -> Self {
        self.tool.output_schema = Some(Arc::new(schema));
        self
    }

    /// The listing's `_meta`.
    pub fn meta(mut self, meta: MetaObject) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// The tool body: it gets the model's arguments and every elicited value as one
    /// typed input `T` (field names are parameter names), once all are settled.
    /// Finishes the tool; errors name what is wrong with the declaration.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyTool, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        let what = format!("tool {:?}", self.tool.name);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        let mut tool = self.tool;
        tool.input_schema = Arc::new(pending.input_schema());
        Ok(ReadyTool {
            body: body(f, what),
            declared: pending,
            tool,
        })
    }
}

/// An elicited prompt: `prompts/get` asks before the prompt is rendered.
pub struct ElicitPrompt {
    pending: Result<Declared, String>,
    prompt: Prompt,
}

/// A finished prompt (see [`ElicitPrompt::run`]).
pub struct ReadyPrompt {
    declared: Declared,
    prompt: Prompt,
    body: BodyFn<GetPromptResult>,
}

impl ElicitPrompt {
    /// Start from a declaration; the prompt's name is the declaration's. Model
    /// arguments are listed as the prompt's (required) arguments.
    pub fn new(decl: elicit_core::decl::Tool, description: Option<String>) -> Self {
        let tool = ElicitTool::new(decl);
        let prompt = Prompt::new(tool.tool.name.to_string(), description, None);
        ElicitPrompt {
            pending: tool.pending,
            prompt,
        }
    }

    builder_common!();

    /// The prompt body, once every elicited value is settled.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyPrompt, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'static,
    {
        let what = format!("prompt {:?}", self.prompt.name);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        let mut prompt = self.prompt;
        let args: Vec<rmcp::model::PromptArgument> = pending
            .arguments()
            .map(|n| {
                let mut a = rmcp::model::PromptArgument::new(n);
                a.required = Some(true);
                a
            })
            .collect();
        prompt.arguments = (!args.is_empty()).then_some(args);
        Ok(ReadyPrompt {
            body: body(f, what),
            declared: pending,
            prompt,
        })
    }
}

/// An elicited resource: `resources/read` of its URI asks before the contents are
/// returned. Resources take no model arguments.
pub struct ElicitResource {
    pending: Result<Declared, String>,
    resource: Resource,
}

/// A finished resource (see [`ElicitResource::run`]).
pub struct ReadyResource {
    declared: Declared,
    resource: Resource,
    body: BodyFn<ReadResourceResult>,
}

impl ElicitResource {
    /// Start from a declaration and the resource's listing (its `uri` is what
    /// `resources/read` names).
    pub fn new(decl: elicit_core::decl::Tool, resource: Resource) -> Self {
        let tool = ElicitTool::new(decl);
        ElicitResource {
            pending: tool.pending,
            resource,
        }
    }

    builder_common!();

    /// The resource body, once every elicited value is settled.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyResource, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, ErrorData>> + Send + 'static,
    {
        let what = format!("resource {:?}", self.resource.uri);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        if let Some(arg) = pending.arguments().next() {
            return Err(format!(
                "{what}: parameter {arg:?} is a model argument, but resources/read carries no \
                 arguments; elicit it or drop it"
            ));
        }
        Ok(ReadyResource {
            body: body(f, what),
            declared: pending,
            resource: self.resource,
        })
    }
}

/// The frozen rejection of a bad `requestState` (MCP Python SDK `RequestStateBoundary`).
pub fn invalid_state() -> ErrorData {
    ErrorData::new(
        ErrorCode(elicit_core::seal::ERROR_CODE),
        elicit_core::seal::ERROR_MESSAGE,
        Some(json!({"reason": elicit_core::seal::ERROR_DATA_REASON})),
    )
}

/// The elicited tools, prompts and resources of one server, with its state codec.
pub struct Elicit {
    /// The server's `Implementation` as JSON, for 2026-07-28 results' `_meta`.
    server_info: Value,
    server: Implementation,
    codec: StateCodec,
    tools: Vec<ReadyTool>,
    prompts: Vec<ReadyPrompt>,
    resources: Vec<ReadyResource>,
    url_flow: Option<UrlFlowFn>,
}

/// What one round did, for its `elicit.round` span.
#[derive(Default)]
struct Tally {
    questions: u64,
    /// The last `decline` or `cancel` among the user's replies.
    action: Option<String>,
    rejected: bool,
}

impl Tally {
    /// Note the actions of replies (reply objects).
    fn note_replies<'a>(&mut self, replies: impl Iterator<Item = &'a Value>) {
        for r in replies {
            if let Some(a @ ("decline" | "cancel")) = r.get("action").and_then(Value::as_str) {
                self.action = Some(a.to_string());
            }
        }
    }
}

/// The telemetry name of a state rejection (elicit-core's `Reason`, snake case; a
/// broken seal is `tampered`, an unreadable token or binding `malformed`).
fn rejection(reason: &str) -> &'static str {
    match reason {
        "expired" => "expired",
        "audience" => "audience",
        "seal" => "tampered",
        "unknown key" => "unknown_key",
        "minted in the future" => "future",
        "request binding" => "request_binding",
        "principal drift" => "principal_drift",
        "principal" => "principal",
        "too large" => "too_large",
        _ => "malformed",
    }
}

/// The idempotency key of a final modern round (see [`Call::idempotency_key`]).
fn idempotency_key(
    token: Option<&str>,
    replies: Option<&rmcp::model::InputResponses>,
) -> Option<String> {
    use sha2::Digest;
    let token = token?;
    let replies = serde_json::to_string(replies?).ok()?;
    // Canonical: `json.dumps(replies, separators=(",", ":"), sort_keys=True)`, written
    // by the engine's own writer (the digest's style).
    let mut canonical = Vec::with_capacity(replies.len());
    let style = elicit_core::json::Style::DIGEST;
    elicit_core::json::write_value(Json::parse(&replies).ok()?, style, &mut canonical);
    let mut h = sha2::Sha256::new();
    h.update(token.as_bytes());
    h.update(b"\n");
    h.update(&canonical);
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The settled values as the body's input type; a mismatch names the call and what
/// does not fit (the declaration and the struct disagree: a developer error).
fn settled_input<T: DeserializeOwned>(
    values: Map<String, Value>,
    name: &str,
) -> Result<T, ErrorData> {
    serde_json::from_value(Value::Object(values)).map_err(|e| {
        developer_error(format_args!(
            "{name:?}: the settled values do not fit the body's input type: {e}"
        ))
    })
}

/// A developer error (a declaration, resolver or body that disagree; a key ring that
/// cannot seal): the advice goes to `tracing` as an error, and the client reads
/// `-32603 "Internal error"`, nothing of the server's insides. Every such site answers
/// through here.
fn developer_error(advice: impl std::fmt::Display) -> ErrorData {
    tracing::error!("elicit-rmcp: {advice}");
    ErrorData::internal_error("Internal error", None)
}

/// A result kind an elicited request completes with (tools, prompts, resources): its
/// method, its response, where its `_meta` is, and what an engine refusal becomes.
trait Served: Sized {
    type Response;
    const METHOD: &'static str;
    /// Whether the state is bound to the request's arguments (resources take none).
    const BINDS_ARGUMENTS: bool = true;
    fn meta(&mut self) -> &mut Option<MetaObject>;
    fn complete(self) -> Self::Response;
    fn input_required(r: InputRequiredResult) -> Self::Response;
    /// A refusal's message (caller-facing) with the result's `_meta` on 2026-07-28;
    /// `-32602` with the message unless the kind says otherwise.
    fn refused(message: String, _meta: Option<MetaObject>) -> Result<Self::Response, ErrorData> {
        Err(ErrorData::invalid_params(message, None))
    }
    /// A declared fallback's tool result (docs/fallback.md) for a client that cannot
    /// be asked, with `_meta` merged on 2026-07-28: only `tools/call` has a result for
    /// the model, so any other kind is `-32602`, as at the C call level.
    fn fallback(
        _result: Value,
        _meta: Option<&dyn Fn(Option<MetaObject>) -> MetaObject>,
    ) -> Result<Self::Response, ErrorData> {
        Err(ErrorData::invalid_params(
            format!(
                "{} cannot serve a declared fallback: only tools/call returns a result for the model (docs/fallback.md)",
                Self::METHOD
            ),
            None,
        ))
    }
}

/// A tool's refusal is an `isError` result carrying the message.
impl Served for CallToolResult {
    type Response = CallToolResponse;
    const METHOD: &'static str = "tools/call";
    fn meta(&mut self) -> &mut Option<MetaObject> {
        &mut self.meta
    }
    fn complete(self) -> CallToolResponse {
        CallToolResponse::Complete(self)
    }
    fn input_required(r: InputRequiredResult) -> CallToolResponse {
        CallToolResponse::InputRequired(r)
    }
    fn refused(message: String, meta: Option<MetaObject>) -> Result<CallToolResponse, ErrorData> {
        let mut r = CallToolResult::error(vec![ContentBlock::text(message)]);
        r.meta = meta;
        Ok(r.into())
    }
    fn fallback(
        result: Value,
        meta: Option<&dyn Fn(Option<MetaObject>) -> MetaObject>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut r: CallToolResult = serde_json::from_value(result).map_err(|e| {
            developer_error(format_args!(
                "the engine's fallback result did not parse: {e}"
            ))
        })?;
        if let Some(meta) = meta {
            let own = r.meta.take();
            r.meta = Some(meta(own));
        }
        Ok(r.into())
    }
}

impl Served for GetPromptResult {
    type Response = GetPromptResponse;
    const METHOD: &'static str = "prompts/get";
    fn meta(&mut self) -> &mut Option<MetaObject> {
        &mut self.meta
    }
    fn complete(self) -> GetPromptResponse {
        GetPromptResponse::Complete(self)
    }
    fn input_required(r: InputRequiredResult) -> GetPromptResponse {
        GetPromptResponse::InputRequired(r)
    }
}

impl Served for ReadResourceResult {
    type Response = ReadResourceResponse;
    const METHOD: &'static str = "resources/read";
    const BINDS_ARGUMENTS: bool = false;
    fn meta(&mut self) -> &mut Option<MetaObject> {
        &mut self.meta
    }
    fn complete(self) -> ReadResourceResponse {
        ReadResourceResponse::Complete(self)
    }
    fn input_required(r: InputRequiredResult) -> ReadResourceResponse {
        ReadResourceResponse::InputRequired(r)
    }
}

/// What settling one request's declared parameters came to.
enum Settled {
    Values(Map<String, Value>),
    InputRequired(InputRequiredResult),
    /// The engine refused the call; the message is caller-facing.
    Failed(String),
    /// A declared fallback's tool result for the model (docs/fallback.md).
    Fallback(Value),
}

struct Request<'a> {
    method: &'a str,
    target: &'a str,
    /// The model's arguments, whole numbers of integer arguments as integers
    /// ([`Declared::normalized_arguments`]): what resolvers and the body see.
    arguments: &'a JsonObject,
    /// The arguments as the client sent them when normalising changed them: what
    /// sealed state is bound to (so a round sealed by another server of the fleet, which
    /// binds what it received, opens here).
    sent_arguments: Option<&'a JsonObject>,
    bind_arguments: bool,
    input_responses: Option<&'a rmcp::model::InputResponses>,
    request_state: Option<&'a str>,
}

impl Elicit {
    /// `server`: the identity put on 2026-07-28 results (`_meta`), whose `name` is the
    /// codec's audience unless the codec names another. `codec`: how `requestState` is
    /// protected.
    pub fn new(server: Implementation, codec: StateCodec) -> Self {
        Elicit {
            codec: codec.for_server(&server.name),
            server_info: serde_json::to_value(&server).unwrap_or(Value::Null),
            server,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            url_flow: None,
        }
    }

    /// The server's name and version as given to [`Elicit::new`] (the audience of its
    /// sealed state): name the server the same in `#[tool_handler(name = …, version =
    /// …)]`, so `serverInfo` agrees.
    pub fn server_info(&self) -> &Implementation {
        &self.server
    }

    /// How a handshake-era call waits for the out-of-band flow of an accepted URL-mode
    /// elicitation: `flow` resolves when the flow at the URL is done (say, when the
    /// payment provider's callback has arrived), or fails the request with its error.
    /// Then the adapter sends `notifications/elicitation/complete` with the
    /// `elicitationId` (as 2025-11-25 defines it) and the call goes on. Without a flow,
    /// the notification follows the client's `accept` at once: for URLs whose page
    /// needs nothing more from the server. On 2026-07-28 there is no notification: the
    /// client's retry carrying the `accept` is the completion.
    pub fn with_url_flow<F, Fut>(mut self, flow: F) -> Self
    where
        F: Fn(UrlAccepted) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ErrorData>> + Send + 'static,
    {
        self.url_flow = Some(Arc::new(move |a| Box::pin(flow(a))));
        self
    }

    /// Add a tool.
    pub fn tool(mut self, tool: ReadyTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Add a prompt.
    pub fn prompt(mut self, prompt: ReadyPrompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Add a resource.
    pub fn resource(mut self, resource: ReadyResource) -> Self {
        self.resources.push(resource);
        self
    }

    /// The tools' listings (elicited parameters are hidden from `inputSchema`).
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.iter().map(|t| t.tool.clone()).collect()
    }

    /// `tools/list` for the client asking: the elicited tools ([`Elicit::tools`]) and
    /// `router`'s, each tool that declares the fallback (docs/fallback.md; the derive's
    /// `#[elicit(fallback_arguments)]`, matched by tool name) with the `inputSchema` this
    /// client gets (`Plan::write_input_schema`: a client that cannot be asked sees the
    /// parameters that fall back as optional properties). When such a tool is listed,
    /// the listing differs by client and carries `cacheScope: "private"` on 2026-07-28.
    /// Call it from a hand-written `ServerHandler::list_tools` in place of
    /// `#[tool_handler]`'s (which lists every tool as public).
    pub fn list_tools<S: Send + Sync + 'static>(
        &self,
        router: &rmcp::handler::server::router::tool::ToolRouter<S>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caps = declared_kinds(context);
        let derived = FALLBACK_TOOLS.read().map(|t| t.clone()).unwrap_or_default();
        let mut private = false;
        let mut tools = Vec::new();
        let own = self
            .tools
            .iter()
            .map(|t| (t.tool.clone(), Some(&t.declared)));
        let routed = router.list_all().into_iter().map(|t| {
            let d = derived.iter().copied().find(|d| d.plan.tool() == t.name);
            (t, d)
        });
        for (mut tool, declared) in own.chain(routed) {
            if let Some(d) = declared.filter(|d| d.plan.has_fallback()) {
                private = true;
                let base = serde_json::to_string(&*tool.input_schema).unwrap_or_default();
                let mut out = Vec::new();
                d.plan
                    .write_input_schema(&base, caps, &mut out)
                    .map_err(|e| developer_error(format_args!("tool {:?}: {e}", d.plan.tool())))?;
                let schema: JsonObject = serde_json::from_slice(&out).map_err(|e| {
                    developer_error(format_args!("tool {:?}: inputSchema: {e}", d.plan.tool()))
                })?;
                tool.input_schema = Arc::new(schema);
            }
            tools.push(tool);
        }
        let mut result = ListToolsResult::with_all_items(tools);
        if private && is_modern(context) {
            result.cache_scope = Some(rmcp::model::CacheScope::Private);
        }
        Ok(result)
    }

    /// The prompts' listings.
    pub fn prompts(&self) -> Vec<Prompt> {
        self.prompts.iter().map(|p| p.prompt.clone()).collect()
    }

    /// The resources' listings.
    pub fn resources(&self) -> Vec<Resource> {
        self.resources.iter().map(|r| r.resource.clone()).collect()
    }

    /// Whether `name` is one of the elicited tools.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.tool.name == name)
    }

    /// Whether `name` is one of the elicited prompts.
    pub fn has_prompt(&self, name: &str) -> bool {
        self.prompts.iter().any(|p| p.prompt.name == name)
    }

    /// Whether `uri` is one of the elicited resources.
    pub fn has_resource(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.resource.uri == uri)
    }

    /// The answer to a request whose params rmcp could not parse into its typed model:
    /// rmcp then hands it to `ServerHandler::on_custom_request`, whose default answers
    /// `-32601` with the method name as message. For the state-carrying methods
    /// (`tools/call`, `prompts/get`, `resources/read`) a `requestState` that is neither
    /// a string nor `null` is the frozen `-32602` (the MCP Python SDK's boundary rejects
    /// it the same way, reason "non-string requestState"), and any other unparsable
    /// params are `-32602` naming the method; other methods stay `-32601`. Call it from
    /// `on_custom_request`.
    pub fn unparsed_request(&self, request: &CustomRequest) -> ErrorData {
        let method = request.method.as_str();
        if !matches!(method, "tools/call" | "prompts/get" | "resources/read") {
            return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method.to_owned(), None);
        }
        let state = request.params.as_ref().and_then(|p| p.get("requestState"));
        if matches!(state, Some(v) if !v.is_string() && !v.is_null()) {
            tracing::warn!(
                "elicit-rmcp: requestState rejected (non-string requestState) on {method}"
            );
            return invalid_state();
        }
        ErrorData::invalid_params(
            format!("{method}: params do not match the method's schema; send them as the MCP schema defines"),
            None,
        )
    }

    /// The server identity on 2026-07-28 results' `_meta`.
    fn modern_meta(&self, meta: Option<MetaObject>) -> MetaObject {
        let mut meta = meta.unwrap_or_default();
        meta.0
            .insert(META_SERVER_INFO.into(), self.server_info.clone());
        meta
    }

    /// Serve `tools/call` for an elicited tool (check [`Elicit::has_tool`] first; an
    /// unknown name is `-32602`). Engine refusals (a declined required answer, an answer
    /// outside the schema) and bad model arguments are `isError` results carrying the
    /// message; a forged or expired state is the frozen `-32602`; a client without the
    /// needed capability gets `-32021`.
    pub async fn call_tool(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = self
            .tools
            .iter()
            .find(|t| t.tool.name == params.name)
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("Unknown tool: {}", PyRepr(&params.name)), None)
            })?;
        let call = Call::new(params, context);
        self.serve(&tool.declared, call, |values, call| {
            (tool.body)(values, call)
        })
        .await
    }

    /// Serve one round of the `#[tool]` function whose parameters are `T` (a
    /// `#[derive(Elicit)]` struct): asks what is missing, or runs `body` with the
    /// settled struct and the call. Results as [`Elicit::call_tool`] describes.
    pub async fn run<T, F, Fut>(&self, call: Call, body: F) -> Result<CallToolResponse, ErrorData>
    where
        T: ElicitArgs,
        F: FnOnce(T, Call) -> Fut,
        Fut: Future<Output = Result<CallToolResult, ErrorData>>,
    {
        let declared = T::declared().as_ref().map_err(developer_error)?;
        self.serve(declared, call, |mut values, call| async move {
            declared.normalize(&mut values);
            body(settled_input(values, &call.name)?, call).await
        })
        .await
    }

    /// Serve `prompts/get` for an elicited prompt. Engine refusals are `-32602` with the
    /// engine's message.
    pub async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let prompt = self
            .prompts
            .iter()
            .find(|p| p.prompt.name == params.name)
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("Unknown prompt: {}", PyRepr(&params.name)), None)
            })?;
        let arguments = params.arguments.unwrap_or_default();
        let call = Call::of(
            params.name,
            arguments,
            params.input_responses,
            params.request_state,
            context,
        );
        self.serve(&prompt.declared, call, |values, call| {
            (prompt.body)(values, call)
        })
        .await
    }

    /// Serve `resources/read` for an elicited resource. Engine refusals are `-32602`
    /// with the engine's message; an unknown URI is "resource not found" with
    /// `data.uri` (`-32002`, which rmcp answers as `-32602` on 2026-07-28).
    pub async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let resource = self
            .resources
            .iter()
            .find(|r| r.resource.uri == params.uri)
            .ok_or_else(|| {
                // -32002 with the URI (rmcp turns the code into -32602 on 2026-07-28).
                ErrorData::resource_not_found(
                    format!("Unknown resource: {}", params.uri),
                    Some(json!({ "uri": params.uri })),
                )
            })?;
        let (inputs, state) = (params.input_responses, params.request_state);
        let call = Call::of(params.uri, JsonObject::new(), inputs, state, context);
        self.serve(&resource.declared, call, |values, call| {
            (resource.body)(values, call)
        })
        .await
    }

    /// The one path of the three kinds: a round of `declared` for `call`, then `body`
    /// with the model's arguments and the settled values. The method, whether the state
    /// binds the arguments, what a refusal becomes and where a result's `_meta` is are
    /// the kind's ([`Served`]).
    async fn serve<R, F, Fut>(
        &self,
        declared: &Declared,
        call: Call,
        body: F,
    ) -> Result<R::Response, ErrorData>
    where
        R: Served,
        F: FnOnce(Map<String, Value>, Call) -> Fut,
        Fut: Future<Output = Result<R, ErrorData>>,
    {
        let modern = is_modern(&call.context);
        let normalised = declared.normalized_arguments(&call.arguments);
        let request = Request {
            method: R::METHOD,
            target: &call.name,
            arguments: normalised.as_ref().unwrap_or(&call.arguments),
            sent_arguments: normalised.as_ref().map(|_| &call.arguments),
            bind_arguments: R::BINDS_ARGUMENTS,
            input_responses: call.input_responses.as_ref(),
            request_state: call.request_state.as_deref(),
        };
        match self
            .round(declared, &request, &call.context, modern)
            .await?
        {
            Settled::Failed(message) => R::refused(message, modern.then(|| self.modern_meta(None))),
            Settled::InputRequired(r) => Ok(R::input_required(r)),
            Settled::Fallback(result) => {
                let meta = |own| self.modern_meta(own);
                R::fallback(result, modern.then_some(&meta as _))
            }
            Settled::Values(values) => {
                let mut merged = normalised.unwrap_or_else(|| call.arguments.clone());
                merged.extend(values);
                let mut result = body(merged, call).await?;
                if modern {
                    // The body's own `_meta` (say FastMCP's `wrap_result`) is kept, on both eras.
                    let own = result.meta().take();
                    *result.meta() = Some(self.modern_meta(own));
                }
                Ok(R::complete(result))
            }
        }
    }

    /// The state's binding: the request's method, target and (unless a resource's)
    /// its arguments as JSON text.
    fn target<'a>(request: &Request<'a>, args: &'a str) -> state::Target<'a> {
        state::Target {
            method: request.method,
            target: request.target,
            arguments: request.bind_arguments.then_some(args),
        }
    }

    /// One round of one request, under the `elicit.round` span (see the crate docs):
    /// the state boundary first (as the SDK's middleware: a bad token is refused
    /// whatever the call), then the model arguments, then the declaration's round.
    async fn round(
        &self,
        declared: &Declared,
        request: &Request<'_>,
        context: &RequestContext<RoleServer>,
        modern: bool,
    ) -> Result<Settled, ErrorData> {
        let span = tracing::info_span!(
            "elicit.round",
            tool = request.target,
            era = if modern { "2026-07-28" } else { "handshake" },
            outcome = tracing::field::Empty,
            questions = tracing::field::Empty,
            rejection = tracing::field::Empty,
            key_id = self.codec.key_id(),
        );
        let mut tally = Tally::default();
        let json = |args: &JsonObject| serde_json::to_string(args).unwrap_or_else(|_| "{}".into());
        let args = json(request.sent_arguments.unwrap_or(request.arguments));
        let engine_args = request.sent_arguments.map(|_| json(request.arguments));
        let result = async {
            let state = match self
                .codec
                .open(request.request_state, &Self::target(request, &args))
            {
                Ok(state) => state,
                Err(why) => {
                    tracing::warn!(
                        "elicit-rmcp: requestState rejected ({}) on {} {:?}",
                        why.0,
                        request.method,
                        request.target
                    );
                    tracing::Span::current().record("rejection", rejection(&why.0));
                    tally.rejected = true;
                    return Err(invalid_state());
                }
            };
            let kind = request.method.split('/').next().unwrap_or_default();
            let kind = kind.strip_suffix('s').unwrap_or(kind);
            if let Err(message) = declared.check_arguments(kind, request.target, request.arguments)
            {
                return Ok(Settled::Failed(message));
            }
            let engine_args = engine_args.as_deref().unwrap_or(&args);
            self.settle(
                declared,
                request,
                (engine_args, &args),
                state,
                context,
                modern,
                &mut tally,
            )
            .await
        }
        .instrument(span.clone())
        .await;
        let outcome = match &result {
            _ if tally.rejected => "rejected",
            Ok(Settled::Values(_)) => "completed",
            Ok(Settled::Fallback(_)) => "fallback",
            Ok(Settled::InputRequired(r)) => {
                tally.questions = r.input_requests.as_ref().map_or(0, |q| q.len() as u64);
                "asked"
            }
            Ok(Settled::Failed(_)) if tally.action.as_deref() == Some("decline") => "declined",
            Ok(Settled::Failed(_)) if tally.action.as_deref() == Some("cancel") => "cancelled",
            Ok(Settled::Failed(_)) | Err(_) => "error",
        };
        span.record("outcome", outcome);
        span.record("questions", tally.questions);
        result
    }

    fn seal_state(
        &self,
        plaintext: &str,
        request: &Request<'_>,
        args: &str,
    ) -> Result<String, ErrorData> {
        let target = Self::target(request, args);
        self.codec
            .seal(plaintext, &target)
            .map_err(|e| developer_error(format_args!("sealing requestState failed: {e}")))
    }

    /// Drive the declaration's round for one request: resolvers run here, handshake-era
    /// questions go to the client here, and the modern era ends in an
    /// `InputRequiredResult` when questions remain.
    #[allow(clippy::too_many_arguments)] // one round's inputs, computed once by `round`
    async fn settle(
        &self,
        declared: &Declared,
        request: &Request<'_>,
        // (what resolvers see, what the state is bound to) as JSON text
        (args, bound): (&str, &str),
        state: Option<String>,
        context: &RequestContext<RoleServer>,
        modern: bool,
        tally: &mut Tally,
    ) -> Result<Settled, ErrorData> {
        if let Some(r) = request.input_responses {
            tally.note_replies(r.values());
        }
        let replies = match request.input_responses {
            Some(r) => Some(
                serde_json::to_string(r)
                    .map_err(|e| ErrorData::invalid_params(format!("inputResponses: {e}"), None))?,
            ),
            None => None,
        };
        let era = if modern { Era::Modern } else { Era::Handshake };
        let capabilities = declared_kinds(context);
        let mut workspace = engine::workspace();
        let (state, replies) = (state.as_deref(), replies.as_deref());
        let (plan, space) = (&declared.plan, &mut workspace[..]);
        let mut driver = RoundDriver::new(plan, era, capabilities, args, state, replies, space)
            .map_err(|m| ErrorData::invalid_params(m.0, None))?;
        loop {
            match driver.next() {
                Ok(Outcome::Done(values)) => return Ok(Settled::Values(values)),
                Ok(Outcome::Failed(message)) => return Ok(Settled::Failed(message)),
                Ok(Outcome::Fallback(result)) => return Ok(Settled::Fallback(result)),
                Ok(Outcome::MissingCapability { message, required }) => {
                    return Err(ErrorData::new(
                        ErrorCode(MISSING_CAPABILITY),
                        message,
                        Some(json!({ "requiredCapabilities": required })),
                    ))
                }
                Ok(Outcome::InputRequired { requests, state }) => {
                    let token = self.seal_state(&state, request, bound)?;
                    let (input_requests, order) = declared
                        .input_requests(&requests)
                        .map_err(developer_error)?;
                    let mut meta = self.modern_meta(None);
                    wire::record(&mut meta, order);
                    let result =
                        InputRequiredResult::new(Some(input_requests), Some(token)).with_meta(meta);
                    return Ok(Settled::InputRequired(result));
                }
                Err(Need::Resolve { param, values }) => {
                    let resolver = declared.resolvers.get(&param).ok_or_else(|| {
                        developer_error(format_args!(
                            "no resolver is registered for {param:?}; register one for it"
                        ))
                    })?;
                    let resolution = resolver(Resolve {
                        param: param.clone(),
                        values,
                        context: context.clone(),
                    })
                    .await?;
                    driver.give(match resolution {
                        Resolution::Value(v) => {
                            declared.check_value(&param, &v)?;
                            Answer::Value(v.to_string())
                        }
                        Resolution::Question(q) => Answer::Question(q.to_string()),
                    });
                }
                Err(Need::Ask {
                    param,
                    kind,
                    request: ask,
                }) => {
                    tally.questions += 1;
                    let reply = self.ask(context, &ask).await;
                    match reply {
                        Ok(reply) => {
                            if let Ok(r) = serde_json::from_str::<Value>(&reply) {
                                tally.note_replies(std::iter::once(&r));
                            }
                            if kind == InputKind::Url {
                                self.url_accepted(param, &ask, &reply, context).await?;
                            }
                            driver.give(Answer::Reply(reply))
                        }
                        // A client that refuses a sampling or roots request has declined
                        // it: the parameter takes its default or the call fails.
                        Err(_) if matches!(kind, InputKind::Sampling | InputKind::Roots) => {
                            driver.give(Answer::Reply(r#"{"action":"decline"}"#.into()))
                        }
                        Err(message) => {
                            return Ok(Settled::Failed(format!(
                                "Error calling {} {}: {message}",
                                match request.method {
                                    "tools/call" => "tool",
                                    "prompts/get" => "prompt",
                                    _ => "resource",
                                },
                                PyRepr(request.target)
                            )))
                        }
                    }
                }
            }
        }
    }

    /// After the client's reply to a URL-mode question (handshake era): when it is an
    /// `accept`, wait for the out-of-band flow ([`Elicit::with_url_flow`]), then send
    /// `notifications/elicitation/complete`. Other replies (decline, cancel, malformed:
    /// the engine judges those) send nothing.
    async fn url_accepted(
        &self,
        param: String,
        ask: &Value,
        reply: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let accepted = serde_json::from_str::<Value>(reply)
            .is_ok_and(|r| r.get("action").and_then(Value::as_str) == Some("accept"));
        let id = ask
            .pointer("/params/elicitationId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !accepted || id.is_empty() {
            return Ok(());
        }
        if let Some(flow) = &self.url_flow {
            flow(UrlAccepted {
                param,
                elicitation_id: id.to_string(),
                url: ask
                    .pointer("/params/url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                context: context.clone(),
            })
            .await?;
        }
        let note = ServerNotification::CustomNotification(CustomNotification::new(
            ELICITATION_COMPLETE,
            Some(json!({ "elicitationId": id })),
        ));
        if let Err(e) = context.peer.send_notification(note).await {
            tracing::warn!("elicit-rmcp: {ELICITATION_COMPLETE} for {id} not sent: {e}");
        }
        Ok(())
    }

    /// Put one handshake-era question to the client through rmcp's server→client
    /// request path; the reply as JSON text, or the failure's message.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        ask: &Value,
    ) -> Result<String, String> {
        let request: ServerRequest = serde_json::from_value(ask.clone())
            .map_err(|e| format!("the question is not a valid server request: {e}"))?;
        let sent = tokio::time::timeout(ANSWER_TIMEOUT, context.peer.send_request(request)).await;
        match sent {
            Err(_) => Err("Timed out waiting for the client's answer".into()),
            Ok(Err(rmcp::service::ServiceError::McpError(e))) => Err(e.message.into_owned()),
            Ok(Err(e)) => Err(e.to_string()),
            Ok(Ok(result)) => serde_json::to_string(&result).map_err(|e| e.to_string()),
        }
    }
}

/// Whether the request is served in the 2026-07-28 era (its own `_meta` or the
/// negotiated version says so).
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The kinds of request the client declared: its ClientCapabilities (request `_meta`
/// on 2026-07-28, `initialize` on the handshake era) read as the MCP Python SDK reads
/// them. Before 2025-06-18 there is no `elicitation/create`, whatever was declared.
/// The engine gates every question on these.
fn declared_kinds(context: &RequestContext<RoleServer>) -> Capabilities {
    let caps = context.client_capabilities().unwrap_or_default();
    let version = context.protocol_version();
    kinds_at(caps, version.as_ref().map(|v| v.as_str()))
}

/// [`declared_kinds`] from the ClientCapabilities and the negotiated version.
fn kinds_at(mut caps: rmcp::model::ClientCapabilities, version: Option<&str>) -> Capabilities {
    if version.is_some_and(|v| v < "2025-06-18") {
        caps.elicitation = None;
    }
    Capabilities::from_client_json(&serde_json::to_string(&caps).unwrap_or_default())
}

/// A JSON value as text: strings unquoted, everything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's questions become rmcp's typed requests exactly as rmcp's own
    /// deserializer reads them, every kind, in declaration order (not name order), and
    /// a form schema seen before comes from the memo unchanged.
    #[test]
    fn questions_are_rmcps_input_requests_in_declaration_order() {
        let d = Declared::build(
            r#"{"tool":"t","parameters":[
                {"name":"zeta","elicit":{"message":"Z?","title":"Zed"},"type":{"enum":["a","b"]}},
                {"name":"url","elicit":{"message":"Pay","url":"https://pay.example/1"}},
                {"name":"alpha","elicit":{"message":"A?"},"type":"integer"},
                {"name":"sample","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":10}}},
                {"name":"roots","elicit":{"roots":{}}}]}"#,
            Vec::new(),
            Vec::new(),
        )
        .unwrap();
        let all = Capabilities::ALL;
        let mut space = engine::workspace();
        let driver = RoundDriver::new(&d.plan, Era::Modern, all, "{}", None, None, &mut space);
        let Ok(engine::Outcome::InputRequired { requests, .. }) = driver.ok().unwrap().next()
        else {
            panic!("expected InputRequired");
        };
        let by_rmcp: Map<String, Value> = serde_json::from_str(&requests).unwrap();
        for _ in 0..2 {
            let (typed, order) = d.input_requests(&requests).unwrap();
            assert_eq!(order, ["zeta", "url", "alpha", "sample", "roots"]);
            assert_eq!(typed.len(), by_rmcp.len());
            for (name, v) in &by_rmcp {
                let want: InputRequest = serde_json::from_value(v.clone()).unwrap();
                assert_eq!(
                    serde_json::to_value(&typed[name]).unwrap(),
                    serde_json::to_value(&want).unwrap(),
                    "{name}"
                );
            }
        }
        assert_eq!(d.schemas.read().unwrap().len(), 2);
    }

    /// A rejected declaration's error names the tool as declared and the parameter.
    #[test]
    fn a_rejected_declaration_is_named_by_its_tool() {
        use elicit_core::decl::{AnswerType, Param, Tool as Decl};
        let decl = Decl::new("pay").param(
            Param::resolver("paid", &[])
                .kind(InputKind::Url)
                .ty(AnswerType::Boolean),
        );
        let err = ElicitTool::new(decl)
            .run(|_: Map<String, Value>, _call| async { Ok(CallToolResult::success(Vec::new())) })
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with("tool \"pay\": declaration rejected"),
            "{err}"
        );
        assert!(err.contains("'paid'"), "{err}");
    }

    #[test]
    fn rejections_have_their_telemetry_names() {
        assert_eq!(rejection("seal"), "tampered");
        assert_eq!(rejection("unknown key"), "unknown_key");
        assert_eq!(rejection("expired"), "expired");
        assert_eq!(rejection("non-string requestState"), "malformed");
    }

    /// The idempotency key: the same for the same token and replies whatever their key
    /// order, another for another token or other replies, none without state.
    #[test]
    fn the_idempotency_key_follows_state_and_replies() {
        let replies =
            |v: Value| -> rmcp::model::InputResponses { serde_json::from_value(v).unwrap() };
        let a = replies(json!({"x": {"action": "accept", "content": {"value": "1", "w": 2}}}));
        let b = replies(json!({"x": {"content": {"w": 2, "value": "1"}, "action": "accept"}}));
        let c = replies(json!({"x": {"action": "accept", "content": {"value": "2", "w": 2}}}));
        let key =
            |state: Option<&str>, r: &rmcp::model::InputResponses| idempotency_key(state, Some(r));
        let k = key(Some("tok"), &a).unwrap();
        assert_eq!(k.len(), 64);
        assert_eq!(key(Some("tok"), &b).as_deref(), Some(k.as_str()));
        assert_ne!(key(Some("tok"), &c).as_deref(), Some(k.as_str()));
        assert_ne!(key(Some("tok2"), &a).as_deref(), Some(k.as_str()));
        assert_eq!(key(None, &a), None);
    }

    /// The derive's struct attribute opts the tool in, its field attribute opts one
    /// parameter out.
    #[allow(dead_code)]
    #[derive(serde::Deserialize, crate::Elicit)]
    #[elicit(fallback_arguments)]
    struct FallsBack {
        #[elicit(message = "Where to?")]
        destination: String,
        #[elicit(message = "Sure?", no_fallback)]
        proceed: bool,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, crate::Elicit)]
    #[elicit(fallback_arguments = false)]
    struct StaysPut {
        #[elicit(message = "Where to?")]
        destination: String,
    }

    #[test]
    fn the_derive_declares_the_fallback_and_list_tools_finds_it() {
        let d = FallsBack::declared().as_ref().unwrap();
        assert!(d.plan.has_fallback());
        assert!(d.plan.falls_back(0));
        assert!(!d.plan.falls_back(1));
        let _ = FallsBack::input_schema();
        let _ = StaysPut::input_schema();
        assert!(!StaysPut::declared().as_ref().unwrap().plan.has_fallback());
        let registered = FALLBACK_TOOLS.read().unwrap();
        let names: Vec<&str> = registered.iter().map(|d| d.plan.tool()).collect();
        assert_eq!(names, ["falls_back"]);
    }

    #[test]
    fn declared_kinds_follow_the_client_and_its_version() {
        let kinds_at =
            |caps: Value, version| kinds_at(serde_json::from_value(caps).unwrap(), version);
        let all = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}});
        assert_eq!(kinds_at(all.clone(), Some("2025-11-25")), Capabilities::ALL);
        assert_eq!(kinds_at(all.clone(), None), Capabilities::ALL);
        assert_eq!(
            kinds_at(json!({"elicitation": {}}), Some("2026-07-28")),
            Capabilities::FORM
        );
        assert_eq!(kinds_at(json!({}), None), Capabilities::NONE);
        // No elicitation/create before 2025-06-18, whatever was declared.
        assert_eq!(
            kinds_at(all, Some("2025-03-26")),
            Capabilities::NONE
                .with(InputKind::Sampling)
                .with(InputKind::Roots)
        );
    }
}
