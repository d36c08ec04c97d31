//! One round of one request: elicit-core's `Round` driven until it needs the host (a
//! resolver, a handshake-era question) or is settled. The one place the engine's
//! `Round` is built and read; the rest of the crate speaks serde JSON.

pub(crate) use elicit_core::Era;
use elicit_core::{Capabilities, Error, InputKind, Inputs, Plan, PyRepr, Round, Step};
use rmcp::model::{ErrorCode, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Map, Value};

use crate::boundary::Tally;
use crate::client::declared_kinds;
use crate::kind::{Request, Settled};
use crate::{developer_error, wire};
use crate::{Declared, Elicit, ErrorData, Resolution, Resolve};
use crate::{CAP, MISSING_CAPABILITY};

/// Workspace for one round (resolver answers and handshake replies are copied in).
pub(crate) const WORKSPACE: usize = 16 * 1024;

/// What the host has to do for the round next (async, outside the engine).
pub(crate) enum Need {
    /// Run the resolver of `param` with the values it named.
    Resolve {
        param: String,
        values: Map<String, Value>,
    },
    /// Handshake era: put `request` (`{"method", "params"}`), the question of `param`,
    /// to the client.
    Ask {
        param: String,
        kind: InputKind,
        request: Value,
    },
}

/// How the host answered a [`Need`] (JSON text): a resolver's value or question, or the
/// client's reply to an `Ask`.
pub(crate) enum Answer {
    Value(String),
    Question(String),
    Reply(String),
}

/// Where a round ended.
pub(crate) enum Outcome {
    /// Every declared parameter is settled: values by name, in declaration order.
    Done(Map<String, Value>),
    /// Questions remain (modern era): the `inputRequests` object as JSON text, and the
    /// plaintext state to seal.
    InputRequired { requests: String, state: String },
    /// The engine refused the call: the message is the caller-facing error.
    Failed(String),
    /// A question needs a kind of request the client did not declare: the `-32021`'s
    /// message and `requiredCapabilities`.
    MissingCapability { message: String, required: Value },
    /// A declared fallback's tool result for the model (docs/fallback.md), as JSON.
    Fallback(Value),
}

/// Where an engine error leaves the round.
pub(crate) fn failed(e: Error) -> Outcome {
    match e {
        Error::MissingCapability { missing, .. } => {
            let mut out = Vec::new();
            missing.write_json(&mut out);
            Outcome::MissingCapability {
                message: e.to_string(),
                required: serde_json::from_slice(&out)
                    .unwrap_or_else(|_| Value::Object(Map::new())),
            }
        }
        // The end user reads text written for them; the engine's (with the developer's
        // advice) goes to the log.
        Error::Refused { param, cancelled } => {
            tracing::info!("elicit-rmcp: {e}");
            let did = match cancelled {
                true => "cancelled the question for",
                false => "declined to answer",
            };
            Outcome::Failed(format!(
                "Not done: you {did} {}, which is required.",
                PyRepr(&param)
            ))
        }
        Error::SchemaMismatch { param } => {
            tracing::info!("elicit-rmcp: {e}");
            Outcome::Failed(format!(
                "Not done: the answer for {} was not of the kind asked for.",
                PyRepr(&param)
            ))
        }
        e => Outcome::Failed(e.to_string()),
    }
}

pub(crate) fn parse_object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A workspace for one round (see [`RoundDriver::new`]).
pub(crate) fn workspace() -> Vec<u8> {
    vec![0u8; WORKSPACE]
}

/// One request's round, stepped with [`RoundDriver::next`] and [`RoundDriver::give`]
/// until it returns an [`Outcome`]. It lives across the host's `.await`s (the async
/// caller's future owns its texts and workspace), so each resolver answer is handed to
/// the round once, never replayed.
pub(crate) struct RoundDriver<'r> {
    plan: &'r Plan<'r, CAP>,
    round: Round<'r, 'r, CAP>,
    /// An engine error from the last [`RoundDriver::give`], reported by the next step.
    error: Option<Error>,
}

impl<'r> RoundDriver<'r> {
    /// `arguments`, `state` (opened) and `replies` (`inputResponses`) as JSON text; the
    /// engine gates questions on `capabilities`. A malformed request is `Err` (the
    /// `-32602`'s message).
    pub(crate) fn new(
        plan: &'r Plan<'r, CAP>,
        era: Era,
        capabilities: Capabilities,
        arguments: &'r str,
        state: Option<&'r str>,
        replies: Option<&'r str>,
        workspace: &'r mut [u8],
    ) -> Result<Self, String> {
        let inputs = match era {
            Era::Modern => Inputs::modern(arguments, state, replies),
            Era::Handshake => Inputs::handshake(arguments),
        };
        let inputs = inputs.with_capabilities(capabilities);
        let round = Round::<CAP>::new(plan, era, inputs, workspace).map_err(|e| e.to_string())?;
        Ok(RoundDriver {
            plan,
            round,
            error: None,
        })
    }

    /// Hand the host's answer to the last [`Need`] to the round.
    pub(crate) fn give(&mut self, answer: Answer) {
        let fed = match &answer {
            Answer::Value(v) => self.round.resolve_value(v),
            Answer::Question(q) => self.round.resolve_question(q),
            Answer::Reply(r) => self.round.answer(r),
        };
        self.error = fed.err();
    }

    /// Step the round: `Err(need)` when the host must act, `Ok(outcome)` when done.
    pub(crate) fn next(&mut self) -> Result<Outcome, Need> {
        if let Some(e) = self.error.take() {
            return Ok(failed(e));
        }
        let round = &mut self.round;
        let name = |param: usize| self.plan.name(param).unwrap_or_default().to_string();
        let step = match round.poll() {
            Ok(s) => s,
            Err(e) => return Ok(failed(e)),
        };
        match step {
            Step::Resolve { param } => match round.resolve_inputs_json() {
                Ok(t) => Err(Need::Resolve {
                    param: name(param),
                    values: parse_object(&t),
                }),
                Err(e) => Ok(failed(e)),
            },
            Step::Ask { param } => {
                let params: Value = match round.ask_json() {
                    Ok(t) => serde_json::from_str(&t).unwrap_or(Value::Null),
                    Err(e) => return Ok(failed(e)),
                };
                let kind = self.plan.kind(param).unwrap_or(InputKind::Form);
                Err(Need::Ask {
                    param: name(param),
                    kind,
                    request: json!({"method": kind.method(), "params": params}),
                })
            }
            Step::Done => Ok(match round.values_json() {
                Ok(t) => Outcome::Done(parse_object(&t)),
                Err(e) => failed(e),
            }),
            Step::InputRequired => {
                let requests = round.input_requests_json(true);
                let state = round.request_state_json();
                Ok(match (requests, state) {
                    (Ok(requests), Ok(state)) => Outcome::InputRequired { requests, state },
                    (Err(e), _) | (_, Err(e)) => failed(e),
                })
            }
            Step::Fallback => Ok(match round.fallback_result_json() {
                Ok(t) => Outcome::Fallback(serde_json::from_str(&t).unwrap_or(Value::Null)),
                Err(e) => failed(e),
            }),
        }
    }
}

impl Elicit {
    /// Drive the declaration's round for one request: resolvers run here, handshake-era
    /// questions go to the client here, and the modern era ends in an
    /// `InputRequiredResult` when questions remain.
    #[allow(clippy::too_many_arguments)] // one round's inputs, computed once by `round`
    pub(crate) async fn settle(
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
        let replies =
            match request.input_responses {
                Some(r) => {
                    tally.note_replies(r.values());
                    Some(serde_json::to_string(r).map_err(|e| {
                        ErrorData::invalid_params(format!("inputResponses: {e}"), None)
                    })?)
                }
                None => None,
            };
        let era = if modern { Era::Modern } else { Era::Handshake };
        let mut workspace = workspace();
        let (state, replies) = (state.as_deref(), replies.as_deref());
        let (plan, caps) = (declared.plan(), declared_kinds(context));
        let mut driver = RoundDriver::new(plan, era, caps, args, state, replies, &mut workspace)
            .map_err(|m| ErrorData::invalid_params(m, None))?;
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
                    match self.ask(context, &ask).await {
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
                                request.kind,
                                PyRepr(request.target)
                            )))
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{InputRequest, ServerRequest};
    use serde_json::json;

    /// One parameter of each kind, all independent.
    const KINDS: &str = r#"{"tool":"kinds","parameters":[
        {"name":"form","elicit":{"message":"Name?"}},
        {"name":"url","elicit":{"message":"Pay","url":"https://pay.example/1"}},
        {"name":"sample","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":10}}},
        {"name":"roots","elicit":{"roots":{}}}]}"#;

    fn plan(text: &'static str) -> Plan<'static, CAP> {
        Plan::compile(text).unwrap()
    }

    fn caps(json: &str) -> Capabilities {
        Capabilities::from_client_json(json)
    }

    /// The first step of a modern round of `plan` for these inputs.
    fn modern(
        plan: &Plan<'static, CAP>,
        caps: Capabilities,
        state: Option<String>,
        replies: Option<Value>,
    ) -> Result<Outcome, Need> {
        let replies = replies.map(|r| r.to_string());
        let mut space = workspace();
        let (state, replies) = (state.as_deref(), replies.as_deref());
        let driver = RoundDriver::new(plan, Era::Modern, caps, "{}", state, replies, &mut space);
        let mut driver = driver.ok().unwrap();
        driver.next()
    }

    #[test]
    fn undeclared_kinds_are_the_engines_missing_capability() {
        let plan = plan(KINDS);
        let out = modern(&plan, caps(r#"{"elicitation":{}}"#), None, None);
        let Ok(Outcome::MissingCapability { message, required }) = out else {
            panic!("expected MissingCapability");
        };
        assert_eq!(
            required,
            json!({"elicitation": {"url": {}}, "sampling": {}, "roots": {}})
        );
        assert_eq!(
            message,
            "Client did not declare the url elicitation capability required by question 'url'"
        );
    }

    #[test]
    fn every_kind_is_batched_as_rmcp_input_requests() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let Ok(Outcome::InputRequired { requests, state }) = modern(&plan, all, None, None) else {
            panic!("expected InputRequired");
        };
        let requests: Map<String, Value> = serde_json::from_str(&requests).unwrap();
        let methods: Vec<_> = requests
            .iter()
            .map(|(k, v)| (k.as_str(), v["method"].as_str().unwrap()))
            .collect();
        assert_eq!(
            methods,
            [
                ("form", "elicitation/create"),
                ("url", "elicitation/create"),
                ("sample", "sampling/createMessage"),
                ("roots", "roots/list")
            ]
        );
        // The adapter hands each one to rmcp's typed InputRequest.
        for (k, v) in &requests {
            serde_json::from_value::<InputRequest>(v.clone())
                .unwrap_or_else(|e| panic!("{k}: {v}: {e}"));
        }
        // Answers of each kind settle: sampling to the CreateMessageResult, roots to the
        // array, URL mode to true.
        let replies = json!({
            "form": {"action": "accept", "content": {"value": "Ada"}},
            "url": {"action": "accept"},
            "sample": {"role": "assistant", "content": {"type": "text", "text": "Hello"},
                       "model": "m", "stopReason": "endTurn"},
            "roots": {"roots": [{"uri": "file:///r", "name": "R"}]}
        });
        let Ok(Outcome::Done(values)) = modern(&plan, all, Some(state), Some(replies)) else {
            panic!("expected Done");
        };
        assert_eq!(values["form"], json!("Ada"));
        assert_eq!(values["url"], json!(true));
        assert_eq!(values["sample"]["content"]["text"], json!("Hello"));
        assert_eq!(values["roots"], json!([{"uri": "file:///r", "name": "R"}]));
    }

    #[test]
    fn a_reply_of_the_wrong_kind_fails_the_round() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let Ok(Outcome::InputRequired { state, .. }) = modern(&plan, all, None, None) else {
            panic!("expected InputRequired");
        };
        let replies = json!({"sample": {"action": "accept", "content": {"value": "x"}}});
        let out = modern(&plan, all, Some(state), Some(replies));
        let Ok(Outcome::Failed(message)) = out else {
            panic!("expected Failed");
        };
        assert!(message.contains("'sample'"), "{message}");
    }

    #[test]
    fn handshake_questions_are_rmcp_server_requests_of_their_kind() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let mut space = workspace();
        let driver = RoundDriver::new(&plan, Era::Handshake, all, "{}", None, None, &mut space);
        let mut driver = driver.ok().unwrap();
        let replies = [
            r#"{"action":"accept","content":{"value":"Ada"}}"#,
            r#"{"action":"accept"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m"}"#,
            r#"{"roots":[]}"#,
        ];
        let mut kinds = Vec::new();
        let mut params = Vec::new();
        for reply in replies {
            let Err(Need::Ask {
                param,
                kind,
                request,
            }) = driver.next()
            else {
                panic!("expected an Ask");
            };
            params.push(param);
            assert_eq!(request["method"], json!(kind.method()));
            if kind == InputKind::Url {
                assert!(request["params"]["elicitationId"].is_string(), "{request}");
            }
            serde_json::from_value::<ServerRequest>(json!({
                "jsonrpc": "2.0", "id": 1,
                "method": request["method"], "params": request["params"]
            }))
            .unwrap_or_else(|e| panic!("{request}: {e}"));
            kinds.push(kind);
            driver.give(Answer::Reply(reply.into()));
        }
        assert_eq!(kinds, InputKind::ALL);
        assert_eq!(params, ["form", "url", "sample", "roots"]);
        let Ok(Outcome::Done(values)) = driver.next() else {
            panic!("expected Done");
        };
        assert_eq!(values["roots"], json!([]));
    }
}
