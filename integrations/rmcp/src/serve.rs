//! [`Elicit`]: one server's elicited requests, served round by round.

use std::future::Future;
use std::sync::Arc;

use elicit_core::PyRepr;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation,
    InputRequiredResult, JsonObject, ListToolsResult, MetaObject, Prompt,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, Tool,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tracing::Instrument;

use crate::builders::{ReadyPrompt, ReadyResource, ReadyTool};
use crate::client::{declared_kinds, is_modern, UrlAccepted};
use crate::declared::FALLBACK_TOOLS;
use crate::round::{rejection, Tally};
use crate::{
    developer_error, invalid_state, state, BoxFuture, Call, Declared, ElicitArgs, ErrorData,
    StateCodec,
};

/// The `_meta` key of the server's identity on 2026-07-28 results.
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub(crate) type UrlFlowFn =
    Arc<dyn Fn(UrlAccepted) -> BoxFuture<Result<(), ErrorData>> + Send + Sync>;

/// The elicited tools, prompts and resources of one server, with its state codec.
pub struct Elicit {
    /// The server's `Implementation` as JSON, for 2026-07-28 results' `_meta`.
    pub(crate) server_info: Value,
    pub(crate) server: Implementation,
    pub(crate) codec: StateCodec,
    pub(crate) tools: Vec<ReadyTool>,
    pub(crate) prompts: Vec<ReadyPrompt>,
    pub(crate) resources: Vec<ReadyResource>,
    pub(crate) url_flow: Option<UrlFlowFn>,
}

/// The settled values as the body's input type; a mismatch names the call and what
/// does not fit (the declaration and the struct disagree: a developer error).
pub(crate) fn settled_input<T: DeserializeOwned>(
    values: Map<String, Value>,
    name: &str,
) -> Result<T, ErrorData> {
    serde_json::from_value(Value::Object(values)).map_err(|e| {
        developer_error(format_args!(
            "{name:?}: the settled values do not fit the body's input type: {e}"
        ))
    })
}

/// A result kind an elicited request completes with (tools, prompts, resources): its
/// method, its response, where its `_meta` is, and what an engine refusal becomes.
pub(crate) trait Served: Sized {
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
pub(crate) enum Settled {
    Values(Map<String, Value>),
    InputRequired(InputRequiredResult),
    /// The engine refused the call; the message is caller-facing.
    Failed(String),
    /// A declared fallback's tool result for the model (docs/fallback.md).
    Fallback(Value),
}

pub(crate) struct Request<'a> {
    pub(crate) method: &'a str,
    pub(crate) target: &'a str,
    /// The model's arguments, whole numbers of integer arguments as integers
    /// ([`Declared::normalized_arguments`]): what resolvers and the body see.
    pub(crate) arguments: &'a JsonObject,
    /// The arguments as the client sent them when normalising changed them: what
    /// sealed state is bound to (so a round sealed by another server of the fleet, which
    /// binds what it received, opens here).
    pub(crate) sent_arguments: Option<&'a JsonObject>,
    pub(crate) bind_arguments: bool,
    pub(crate) input_responses: Option<&'a rmcp::model::InputResponses>,
    pub(crate) request_state: Option<&'a str>,
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
    pub(crate) fn modern_meta(&self, meta: Option<MetaObject>) -> MetaObject {
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
    pub(crate) async fn serve<R, F, Fut>(
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
    pub(crate) fn target<'a>(request: &Request<'a>, args: &'a str) -> state::Target<'a> {
        state::Target {
            method: request.method,
            target: request.target,
            arguments: request.bind_arguments.then_some(args),
        }
    }

    /// One round of one request, under the `elicit.round` span (see the crate docs):
    /// the state boundary first (as the SDK's middleware: a bad token is refused
    /// whatever the call), then the model arguments, then the declaration's round.
    pub(crate) async fn round(
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

    pub(crate) fn seal_state(
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
}
