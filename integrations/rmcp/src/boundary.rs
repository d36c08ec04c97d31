//! The state boundary of one request and its `elicit.round` span: the inbound
//! `requestState` opened, the arguments checked, the round driven, the state sealed.

use rmcp::model::JsonObject;
use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;
use tracing::Instrument;

use elicit_core::seal::Reason;

use crate::client::Client;
use crate::kind::{Request, Settled};
use crate::{developer_error, invalid_state, state, Declared, Elicit, ErrorData, Rejected};

/// What one round did, for its `elicit.round` span.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) questions: u64,
    /// The last `decline` or `cancel` among the user's replies.
    pub(crate) action: Option<String>,
    pub(crate) rejected: bool,
}

impl Tally {
    /// Note the actions of replies (reply objects).
    pub(crate) fn note_replies<'a>(&mut self, replies: impl Iterator<Item = &'a Value>) {
        for r in replies {
            if let Some(a @ ("decline" | "cancel")) = r.get("action").and_then(Value::as_str) {
                self.action = Some(a.to_string());
            }
        }
    }
}

/// The telemetry name of a state rejection.
pub(crate) fn rejection(rejected: &Rejected) -> &'static str {
    match rejected.reason {
        Some(Reason::Expired) => "expired",
        Some(Reason::Audience) => "audience",
        Some(Reason::Seal) => "tampered",
        Some(Reason::UnknownKey) => "unknown_key",
        Some(Reason::Future) => "future",
        Some(Reason::RequestBinding) => "request_binding",
        Some(Reason::PrincipalDrift) => "principal_drift",
        Some(Reason::Principal) => "principal",
        Some(Reason::TooLarge { .. }) => "too_large",
        Some(Reason::NonString | Reason::Malformed) | None => "malformed",
    }
}

/// Record a round's `outcome` and `questions` on its span in one dispatch (two
/// `Span::record`s reach each layer twice).
fn record_end(span: &tracing::Span, outcome: &str, questions: u64) {
    let Some(fields) = span.metadata().map(|m| m.fields()) else {
        return;
    };
    if let (Some(o), Some(q)) = (fields.field("outcome"), fields.field("questions")) {
        span.record_all(&fields.value_set(&[
            (&o, Some(&outcome as &dyn tracing::Value)),
            (&q, Some(&questions as &dyn tracing::Value)),
        ]));
    }
}

impl Elicit {
    /// The state's binding.
    pub(crate) fn target<'a>(request: &Request<'a>, args: &'a str) -> state::Target<'a> {
        state::Target {
            method: request.method,
            target: request.target,
            arguments: request.bind_arguments.then_some(args),
        }
    }

    /// One round of one request, under the `elicit.round` span (crate docs): the state
    /// boundary first (a bad token is refused whatever the call, as the SDK's), then the
    /// model arguments, then the declaration's round.
    pub(crate) async fn round(
        &self,
        declared: &Declared,
        request: &Request<'_>,
        context: &Arc<RequestContext<RoleServer>>,
        client: Client,
    ) -> Result<Settled, ErrorData> {
        let modern = client.modern;
        let span = tracing::info_span!(
            "elicit.round",
            tool = request.target,
            era = if modern { "2026-07-28" } else { "handshake" },
            outcome = tracing::field::Empty,
            questions = tracing::field::Empty,
            rejection = tracing::field::Empty,
            key_id = self.codec.key_id(),
        );
        let json = |args: &JsonObject| serde_json::to_string(args).unwrap_or_else(|_| "{}".into());
        let args = json(request.sent_arguments.unwrap_or(request.arguments));
        let engine_args = request.sent_arguments.map(|_| json(request.arguments));
        // The tally travels with the round's future and comes back with its result, so
        // the span can stay in the future (no clone of it) for the records after.
        let round = async move {
            let mut tally = Tally::default();
            let result = async {
                let state = match self
                    .codec
                    .open(request.request_state, &Self::target(request, &args))
                {
                    Ok(state) => state,
                    Err(why) => {
                        tracing::warn!(
                            "elicit-rmcp: requestState rejected ({}) on {} {:?}",
                            why.why,
                            request.method,
                            request.target
                        );
                        tracing::Span::current().record("rejection", rejection(&why));
                        tally.rejected = true;
                        return Err(invalid_state());
                    }
                };
                let (kind, target) = (request.kind, request.target);
                if let Err(message) = declared.check_arguments(kind, target, request.arguments) {
                    return Ok(Settled::Failed(message));
                }
                let engine_args = engine_args.as_deref().unwrap_or(&args);
                self.settle(
                    declared,
                    request,
                    (engine_args, &args),
                    state,
                    context,
                    client,
                    &mut tally,
                )
                .await
            }
            .await;
            (result, tally)
        }
        .instrument(span);
        let mut round = std::pin::pin!(round);
        let (result, mut tally) = round.as_mut().await;
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
        record_end(round.span(), outcome, tally.questions);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_have_their_telemetry_names() {
        let named = |reason| {
            rejection(&Rejected {
                why: String::new(),
                reason,
            })
        };
        assert_eq!(named(Some(Reason::Seal)), "tampered");
        assert_eq!(named(Some(Reason::UnknownKey)), "unknown_key");
        assert_eq!(named(Some(Reason::Expired)), "expired");
        assert_eq!(named(Some(Reason::NonString)), "malformed");
        assert_eq!(named(None), "malformed");
    }
}
