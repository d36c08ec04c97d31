//! [`Elicit`]: one server's elicited requests (tools, prompts, resources), served round
//! by round.

use std::future::Future;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResponse, CallToolResult, CustomRequest, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListToolsResult, MetaObject,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::{Client, UrlAccepted};
use crate::declared::FALLBACK_TOOLS;
use crate::kind::{Request, Served, Settled};
use crate::{
    developer_error, invalid_state, BoxFuture, Call, Declared, ElicitArgs, ErrorData, StateCodec,
};

/// The `_meta` key of the server's identity on 2026-07-28 results.
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub(crate) type UrlFlowFn =
    Arc<dyn Fn(UrlAccepted) -> BoxFuture<Result<(), ErrorData>> + Send + Sync>;

/// One server's elicitation: its identity, its state codec and its URL flow (the
/// declarations live with the handler); every elicited request is served through here.
pub struct Elicit {
    /// The server's `Implementation` as JSON, for 2026-07-28 results' `_meta`.
    server_info: Value,
    server: Implementation,
    pub(crate) codec: StateCodec,
    pub(crate) url_flow: Option<UrlFlowFn>,
}

impl Elicit {
    /// `server`: the identity put on 2026-07-28 results' `_meta`, whose `name` is the
    /// codec's audience unless the codec names another; `codec` protects `requestState`.
    pub fn new(server: Implementation, codec: StateCodec) -> Self {
        Elicit {
            codec: codec.for_server(&server.name),
            server_info: serde_json::to_value(&server).unwrap_or(Value::Null),
            server,
            url_flow: None,
        }
    }

    /// The identity given to [`Elicit::new`]: name the server the same in
    /// `#[tool_handler(name = …, version = …)]`, so `serverInfo` agrees.
    pub fn server_info(&self) -> &Implementation {
        &self.server
    }

    /// How a handshake-era call waits for the out-of-band flow of an accepted URL-mode
    /// elicitation: `flow` resolves when the flow at the URL is done (say, the payment
    /// provider's callback arrived) or fails the request; then
    /// `notifications/elicitation/complete` is sent and the call goes on. Without a flow
    /// the notification follows the `accept` at once. (On 2026-07-28 the client's retry
    /// carrying the `accept` is the completion.)
    pub fn with_url_flow<F, Fut>(mut self, flow: F) -> Self
    where
        F: Fn(UrlAccepted) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ErrorData>> + Send + 'static,
    {
        self.url_flow = Some(Arc::new(move |a| Box::pin(flow(a))));
        self
    }

    /// `tools/list` for the client asking: `router`'s tools, each derived tool that
    /// declares the fallback (docs/fallback.md) with the `inputSchema` this client gets
    /// (a client that cannot be asked sees the parameters that fall back as optional);
    /// then the listing carries `cacheScope: "private"` on 2026-07-28. Call it from a
    /// hand-written `ServerHandler::list_tools` (`#[tool_handler]`'s lists all as public).
    pub fn list_tools<S: Send + Sync + 'static>(
        &self,
        router: &ToolRouter<S>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let client = Client::of(context);
        let derived = FALLBACK_TOOLS.read().map(|t| t.clone()).unwrap_or_default();
        let mut private = false;
        let mut tools = router.list_all();
        for tool in &mut tools {
            if let Some(d) = derived.iter().find(|d| d.name() == tool.name) {
                private = true;
                let base = serde_json::to_string(&*tool.input_schema).unwrap_or_default();
                let mut out = Vec::new();
                d.plan()
                    .write_input_schema(&base, client.kinds, &mut out)
                    .map_err(|e| developer_error(format_args!("tool {:?}: {e}", d.name())))?;
                let schema: JsonObject = serde_json::from_slice(&out).map_err(|e| {
                    developer_error(format_args!("tool {:?}: inputSchema: {e}", d.name()))
                })?;
                tool.input_schema = Arc::new(schema);
            }
        }
        let mut result = ListToolsResult::with_all_items(tools);
        if private && client.modern {
            result.cache_scope = Some(rmcp::model::CacheScope::Private);
        }
        Ok(result)
    }

    /// The answer to a request whose params rmcp could not parse (call it from
    /// `on_custom_request`, as [`hooks!`](crate::hooks) does). For `tools/call`,
    /// `prompts/get` and `resources/read` a `requestState` neither string nor `null` is
    /// the frozen `-32602` (as the MCP Python SDK), other bad params a `-32602` naming
    /// the method; other methods stay `-32601`.
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

    /// Serve one round of the `#[tool]` function whose parameters are `T` (a
    /// `#[derive(Elicit)]` struct): asks what is missing, or runs `body` with the
    /// settled struct. Engine refusals and bad model arguments are `isError` results; a
    /// forged or expired state is the frozen `-32602`; a client without the needed
    /// capability gets `-32021`; a developer error is `-32603 "Internal error"`.
    pub async fn run<T, F, Fut>(&self, call: Call, body: F) -> Result<CallToolResponse, ErrorData>
    where
        T: ElicitArgs,
        F: FnOnce(T, Call) -> Fut,
        Fut: Future<Output = Result<CallToolResult, ErrorData>>,
    {
        let declared = T::declared().as_ref().map_err(developer_error)?;
        self.serve(declared, call, body).await
    }

    /// Serve `prompts/get` of the prompt `declared` from the handler's own `get_prompt`
    /// (list it with [`Declared::prompt_listing`]): as [`Elicit::run`], but engine
    /// refusals and bad arguments are `-32602` with the message.
    pub async fn prompt<T, F, Fut>(
        &self,
        declared: &Declared,
        params: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
        body: F,
    ) -> Result<GetPromptResponse, ErrorData>
    where
        T: DeserializeOwned,
        F: FnOnce(T, Call) -> Fut,
        Fut: Future<Output = Result<GetPromptResult, ErrorData>>,
    {
        let call = Call {
            context: Arc::new(context),
            name: params.name,
            arguments: params.arguments.unwrap_or_default(),
            input_responses: params.input_responses,
            request_state: params.request_state,
            idempotency_key: Default::default(),
        };
        self.serve(declared, call, body).await
    }

    /// Serve `resources/read` of the resource `declared` from the handler's own
    /// `read_resource`: as [`Elicit::prompt`]. A model argument is a developer error.
    pub async fn resource<T, F, Fut>(
        &self,
        declared: &Declared,
        params: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
        body: F,
    ) -> Result<ReadResourceResponse, ErrorData>
    where
        T: DeserializeOwned,
        F: FnOnce(T, Call) -> Fut,
        Fut: Future<Output = Result<ReadResourceResult, ErrorData>>,
    {
        if let Some(arg) = declared.arguments().next() {
            return Err(developer_error(format_args!(
                "resource {:?}: parameter {arg:?} is a model argument, but resources/read \
                 carries no arguments; elicit it or drop it",
                params.uri
            )));
        }
        let call = Call {
            context: Arc::new(context),
            name: params.uri,
            arguments: JsonObject::new(),
            input_responses: params.input_responses,
            request_state: params.request_state,
            idempotency_key: Default::default(),
        };
        self.serve(declared, call, body).await
    }

    /// The one path of the three kinds (and of [`Declared::into_route`]): a round of
    /// `declared` for `call`, then `body` with the arguments and settled values as `T`.
    pub(crate) async fn serve<T, R, F, Fut>(
        &self,
        declared: &Declared,
        call: Call,
        body: F,
    ) -> Result<R::Response, ErrorData>
    where
        T: DeserializeOwned,
        R: Served,
        F: FnOnce(T, Call) -> Fut,
        Fut: Future<Output = Result<R, ErrorData>>,
    {
        let client = Client::of(&call.context);
        let modern = client.modern;
        let normalised = declared.normalized_arguments(&call.arguments);
        let request = Request {
            method: R::METHOD,
            kind: R::KIND,
            target: &call.name,
            arguments: normalised.as_ref().unwrap_or(&call.arguments),
            sent_arguments: normalised.as_ref().map(|_| &call.arguments),
            bind_arguments: R::BINDS_ARGUMENTS,
            input_responses: call.input_responses.as_ref(),
            request_state: call.request_state.as_deref(),
        };
        match self
            .round(declared, &request, &call.context, client)
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
                declared.normalize(&mut merged);
                let input = serde_json::from_value(Value::Object(merged)).map_err(|e| {
                    developer_error(format_args!(
                        "{:?}: the settled values do not fit the body's input type: {e}",
                        call.name
                    ))
                })?;
                let mut result = body(input, call).await?;
                if modern {
                    // The body's own `_meta` (say FastMCP's `wrap_result`) is kept, on both eras.
                    let own = result.meta().take();
                    *result.meta() = Some(self.modern_meta(own));
                }
                Ok(R::complete(result))
            }
        }
    }
}
