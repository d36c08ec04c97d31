//! One request's round as the body sees it ([`Call`], rmcp's extractor) and its
//! idempotency key.

use std::sync::Arc;

use elicit_core::json::Value as Json;
use rmcp::model::JsonObject;
use rmcp::service::RequestContext;
use rmcp::RoleServer;

use crate::ErrorData;

/// One `tools/call` (or `prompts/get`, `resources/read`) round: an rmcp extractor, so a
/// `#[tool]` function takes it as a parameter and hands it to [`Elicit::run`](crate::Elicit::run), which
/// gives it back to the body.
pub struct Call {
    /// The request being served, shared with the call's resolvers ([`Resolve::context`](crate::Resolve::context)). The
    /// extractor takes it from rmcp's tool context, not a copy: its `_meta` and
    /// extensions (the HTTP request's parts) are read here, and an extractor after `Call`
    /// in the signature (rmcp's `Extension<T>`, `Extensions`, `RequestMetaObject`) finds
    /// them empty.
    pub context: Arc<RequestContext<RoleServer>>,
    /// The tool (prompt, resource URI) called.
    pub name: String,
    /// The model-supplied arguments, as the client sent them.
    pub arguments: JsonObject,
    pub(crate) input_responses: Option<rmcp::model::InputResponses>,
    pub(crate) request_state: Option<String>,
    /// Computed when first asked for.
    pub(crate) idempotency_key: std::sync::OnceLock<Option<String>>,
}

impl Call {
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
        // The context moves into the call (its `_meta` and extensions, the HTTP request's
        // parts among them, are not copied); what stays behind for rmcp keeps the
        // request's id, cancellation and peer.
        let rest = &c.request_context;
        let mut left = RequestContext::new(rest.id.clone(), rest.peer.clone());
        left.ct = rest.ct.clone();
        Ok(Call {
            context: Arc::new(std::mem::replace(&mut c.request_context, left)),
            name: c.name.to_string(),
            arguments: c.arguments.take().unwrap_or_default(),
            input_responses: c.input_responses.take(),
            request_state: c.request_state.take(),
            idempotency_key: Default::default(),
        })
    }
}

/// The idempotency key of a final modern round (see [`Call::idempotency_key`]).
pub(crate) fn idempotency_key(
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
}
