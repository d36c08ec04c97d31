//! What the client declared and the questions put to it on the handshake era.

use std::sync::Arc;
use std::time::Duration;

use elicit_core::Capabilities;
use rmcp::model::{CustomNotification, ProtocolVersion, ServerNotification, ServerRequest};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Value};

use crate::{Elicit, ErrorData};

/// How long a handshake-era question waits for the client's answer.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// The method of the notification that ends a URL-mode elicitation (2025-11-25).
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// A URL-mode elicitation the client accepted on the handshake era: the user consented
/// to open `url`, where the flow may still be running ([`Elicit::with_url_flow`]).
pub struct UrlAccepted {
    /// The parameter the URL-mode question settles.
    pub param: String,
    /// The request's `elicitationId`, which `notifications/elicitation/complete` names.
    pub elicitation_id: String,
    /// The URL the user was sent to.
    pub url: String,
    /// The request being served (the call's own, shared: [`Call::context`](crate::Call::context)).
    pub context: Arc<RequestContext<RoleServer>>,
}

/// The request's client, read from its context once: whether it is served in the
/// 2026-07-28 era, and the kinds of request it declared (its ClientCapabilities, read as
/// the MCP Python SDK does; no `elicitation/create` before 2025-06-18).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Client {
    pub(crate) modern: bool,
    pub(crate) kinds: Capabilities,
}

impl Client {
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Self {
        let version = context.protocol_version();
        let version = version.as_ref().map(|v| v.as_str());
        Client {
            modern: version.is_some_and(|v| v >= ProtocolVersion::V_2026_07_28.as_str()),
            kinds: kinds_at(context.client_capabilities().unwrap_or_default(), version),
        }
    }
}

/// [`Client::kinds`] from the ClientCapabilities and the negotiated version.
pub(crate) fn kinds_at(
    mut caps: rmcp::model::ClientCapabilities,
    version: Option<&str>,
) -> Capabilities {
    if version.is_some_and(|v| v < "2025-06-18") {
        caps.elicitation = None;
    }
    Capabilities::from_client_json(&serde_json::to_string(&caps).unwrap_or_default())
}

impl Elicit {
    /// After the client's reply to a URL-mode question (handshake era): on `accept`, wait
    /// for the flow ([`Elicit::with_url_flow`]), then send
    /// `notifications/elicitation/complete`; other replies send nothing.
    pub(crate) async fn url_accepted(
        &self,
        param: String,
        ask: &Value,
        reply: &str,
        context: &Arc<RequestContext<RoleServer>>,
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
    pub(crate) async fn ask(
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

#[cfg(test)]
mod tests {
    use super::*;
    use elicit_core::InputKind;

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
