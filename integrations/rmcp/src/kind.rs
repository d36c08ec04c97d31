//! The three kinds of elicited request (`tools/call`, `prompts/get`, `resources/read`):
//! what each completes with, and what one request brings to its round.

use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, GetPromptResponse, GetPromptResult,
    InputRequiredResult, JsonObject, MetaObject, ReadResourceResponse, ReadResourceResult,
};
use serde_json::{Map, Value};

use crate::{developer_error, ErrorData};

/// A result kind an elicited request completes with: its method, response, `_meta`, and
/// what a refusal becomes.
pub(crate) trait Served: Sized {
    type Response;
    const METHOD: &'static str;
    /// The kind's name in caller-facing messages (`... for tool 'y'`).
    const KIND: &'static str;
    /// Whether the state is bound to the request's arguments (resources take none).
    const BINDS_ARGUMENTS: bool = true;
    fn meta(&mut self) -> &mut Option<MetaObject>;
    fn complete(self) -> Self::Response;
    fn input_required(r: InputRequiredResult) -> Self::Response;
    /// A refusal (caller-facing message, `_meta` on 2026-07-28): `-32602` by default.
    fn refused(message: String, _meta: Option<MetaObject>) -> Result<Self::Response, ErrorData> {
        Err(ErrorData::invalid_params(message, None))
    }
    /// A declared fallback's tool result (docs/fallback.md), `_meta` merged on
    /// 2026-07-28: only `tools/call` has one, any other kind is `-32602`.
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
    const KIND: &'static str = "tool";
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
    const KIND: &'static str = "prompt";
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
    const KIND: &'static str = "resource";
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

/// One request as its round reads it.
pub(crate) struct Request<'a> {
    pub(crate) method: &'a str,
    /// The kind's name in caller-facing messages ([`Served::KIND`]).
    pub(crate) kind: &'a str,
    pub(crate) target: &'a str,
    /// The model's arguments, normalised: what resolvers and the body see.
    pub(crate) arguments: &'a JsonObject,
    /// The arguments as sent, when normalising changed them: what state is bound to
    /// (as another server of the fleet binds them).
    pub(crate) sent_arguments: Option<&'a JsonObject>,
    pub(crate) bind_arguments: bool,
    pub(crate) input_responses: Option<&'a rmcp::model::InputResponses>,
    pub(crate) request_state: Option<&'a str>,
}
