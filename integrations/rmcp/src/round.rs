//! One round of one request: elicit-core's `Round` stepped until it is settled, with the
//! host's part (resolvers, handshake-era questions) awaited in between. The one place the
//! engine's `Round` is built and read; the rest of the crate speaks serde JSON.

use elicit_core::{Era, Error, InputKind, Inputs, PyRepr, Round, Step};
use rmcp::model::{ErrorCode, InputRequiredResult};
use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Map, Value};

use crate::boundary::Tally;
use crate::client::Client;
use crate::kind::{Request, Settled};
use crate::{developer_error, wire};
use crate::{Declared, Elicit, ErrorData, Resolution, Resolve};
use crate::{CAP, MISSING_CAPABILITY};

/// Workspace for one round (resolver answers and handshake replies are copied in).
pub(crate) const WORKSPACE: usize = 16 * 1024;

/// Where an engine error leaves the request: a refusal for the caller, or the `-32021`
/// of a question needing a kind of request the client did not declare.
pub(crate) fn failed(e: Error) -> Result<Settled, ErrorData> {
    let message = match e {
        Error::MissingCapability { missing, .. } => {
            let mut out = Vec::new();
            missing.write_json(&mut out);
            let required: Value = serde_json::from_slice(&out).unwrap_or_else(|_| json!({}));
            return Err(ErrorData::new(
                ErrorCode(MISSING_CAPABILITY),
                e.to_string(),
                Some(json!({ "requiredCapabilities": required })),
            ));
        }
        // The end user reads text written for them; the engine's (with the developer's
        // advice) goes to the log.
        Error::Refused { param, cancelled } => {
            tracing::info!("elicit-rmcp: {e}");
            let did = match cancelled {
                true => "cancelled the question for",
                false => "declined to answer",
            };
            format!("Not done: you {did} {}, which is required.", PyRepr(&param))
        }
        Error::SchemaMismatch { param } => {
            tracing::info!("elicit-rmcp: {e}");
            format!(
                "Not done: the answer for {} was not of the kind asked for.",
                PyRepr(&param)
            )
        }
        e => e.to_string(),
    };
    Ok(Settled::Failed(message))
}

pub(crate) fn parse_object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

impl Elicit {
    /// Drive the declaration's round for one request: resolvers run here, handshake-era
    /// questions go to the client here, and the modern era ends in an
    /// `InputRequiredResult` when questions remain. The round lives across the
    /// `.await`s, so each answer is handed to it once, never replayed.
    #[allow(clippy::too_many_arguments)] // one round's inputs, computed once by `round`
    pub(crate) async fn settle(
        &self,
        declared: &Declared,
        request: &Request<'_>,
        // (what resolvers see, what the state is bound to) as JSON text
        (args, bound): (&str, &str),
        state: Option<String>,
        context: &Arc<RequestContext<RoleServer>>,
        client: Client,
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
        let (era, inputs) = match client.modern {
            true => (
                Era::Modern,
                Inputs::modern(args, state.as_deref(), replies.as_deref()),
            ),
            false => (Era::Handshake, Inputs::handshake(args)),
        };
        let inputs = inputs.with_capabilities(client.kinds);
        let plan = declared.plan();
        let mut workspace = vec![0u8; WORKSPACE];
        // The engine's round (a slot per parameter of CAP: several KB) on the heap: held
        // in this future, it made the request's future that much larger, and a future is
        // copied whole each time it moves (into its caller's, into rmcp's box).
        let mut round = Box::new(
            Round::<CAP>::new(plan, era, inputs, &mut workspace)
                .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?,
        );
        loop {
            let step = match round.poll() {
                Ok(step) => step,
                Err(e) => return failed(e),
            };
            let name = |param: usize| plan.name(param).unwrap_or_default().to_string();
            let fed = match step {
                Step::Done => {
                    return match round.values_json() {
                        Ok(t) => Ok(Settled::Values(parse_object(&t))),
                        Err(e) => failed(e),
                    }
                }
                Step::Fallback => {
                    return match round.fallback_result_json() {
                        Ok(t) => Ok(Settled::Fallback(
                            serde_json::from_str(&t).unwrap_or(Value::Null),
                        )),
                        Err(e) => failed(e),
                    }
                }
                Step::InputRequired => {
                    let (requests, state) =
                        match (round.input_requests_json(true), round.request_state_json()) {
                            (Ok(requests), Ok(state)) => (requests, state),
                            (Err(e), _) | (_, Err(e)) => return failed(e),
                        };
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
                Step::Resolve { param } => {
                    let values = match round.resolve_inputs_json() {
                        Ok(t) => parse_object(&t),
                        Err(e) => return failed(e),
                    };
                    let param = name(param);
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
                    match resolution {
                        Resolution::Value(v) => {
                            declared.check_value(&param, &v)?;
                            round.resolve_value(&v.to_string())
                        }
                        Resolution::Question(q) => round.resolve_question(&q.to_string()),
                    }
                }
                Step::Ask { param } => {
                    let params: Value = match round.ask_json() {
                        Ok(t) => serde_json::from_str(&t).unwrap_or(Value::Null),
                        Err(e) => return failed(e),
                    };
                    let kind = plan.kind(param).unwrap_or(InputKind::Form);
                    let ask = json!({"method": kind.method(), "params": params});
                    tally.questions += 1;
                    match self.ask(context, &ask).await {
                        Ok(reply) => {
                            if let Ok(r) = serde_json::from_str::<Value>(&reply) {
                                tally.note_replies(std::iter::once(&r));
                            }
                            if kind == InputKind::Url {
                                self.url_accepted(name(param), &ask, &reply, context)
                                    .await?;
                            }
                            round.answer(&reply)
                        }
                        // A client that refuses a sampling or roots request has declined
                        // it: the parameter takes its default or the call fails.
                        Err(_) if matches!(kind, InputKind::Sampling | InputKind::Roots) => {
                            round.answer(r#"{"action":"decline"}"#)
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
            };
            if let Err(e) = fed {
                return failed(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use elicit_core::{Capabilities, Plan};
    use rmcp::model::{InputRequest, ServerRequest};

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

    /// What the first step of a modern round of `plan` for these inputs comes to: the
    /// step's texts (`inputRequests` and state, or the values), or where its error leaves
    /// the request.
    #[allow(clippy::result_large_err)] // a test's outcome
    fn modern(
        plan: &Plan<'static, CAP>,
        caps: Capabilities,
        state: Option<String>,
        replies: Option<Value>,
    ) -> Result<(Step, String, String), Result<Settled, ErrorData>> {
        let replies = replies.map(|r| r.to_string());
        let mut space = vec![0u8; WORKSPACE];
        let inputs = Inputs::modern("{}", state.as_deref(), replies.as_deref());
        let mut round = Round::<CAP>::new(
            plan,
            Era::Modern,
            inputs.with_capabilities(caps),
            &mut space,
        )
        .unwrap();
        let step = round.poll().map_err(failed)?;
        let texts = match step {
            Step::InputRequired => (round.input_requests_json(true), round.request_state_json()),
            _ => (round.values_json(), Ok(String::new())),
        };
        match texts {
            (Ok(a), Ok(b)) => Ok((step, a, b)),
            (Err(e), _) | (_, Err(e)) => Err(failed(e)),
        }
    }

    #[test]
    fn undeclared_kinds_are_the_engines_missing_capability() {
        let plan = plan(KINDS);
        let Err(Err(e)) = modern(&plan, caps(r#"{"elicitation":{}}"#), None, None) else {
            panic!("expected MissingCapability");
        };
        assert_eq!(e.code.0, MISSING_CAPABILITY);
        assert_eq!(
            e.data,
            Some(
                json!({"requiredCapabilities": {"elicitation": {"url": {}}, "sampling": {}, "roots": {}}})
            )
        );
        assert_eq!(
            e.message,
            "Client did not declare the url elicitation capability required by question 'url'"
        );
    }

    #[test]
    fn every_kind_is_batched_as_rmcp_input_requests() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let Ok((Step::InputRequired, requests, state)) = modern(&plan, all, None, None) else {
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
        let Ok((Step::Done, values, _)) = modern(&plan, all, Some(state), Some(replies)) else {
            panic!("expected Done");
        };
        let values = parse_object(&values);
        assert_eq!(values["form"], json!("Ada"));
        assert_eq!(values["url"], json!(true));
        assert_eq!(values["sample"]["content"]["text"], json!("Hello"));
        assert_eq!(values["roots"], json!([{"uri": "file:///r", "name": "R"}]));
    }

    #[test]
    fn a_reply_of_the_wrong_kind_fails_the_round() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let Ok((Step::InputRequired, _, state)) = modern(&plan, all, None, None) else {
            panic!("expected InputRequired");
        };
        let replies = json!({"sample": {"action": "accept", "content": {"value": "x"}}});
        let out = modern(&plan, all, Some(state), Some(replies));
        let Err(Ok(Settled::Failed(message))) = out else {
            panic!("expected Failed");
        };
        assert!(message.contains("'sample'"), "{message}");
    }

    #[test]
    fn handshake_questions_are_rmcp_server_requests_of_their_kind() {
        let plan = plan(KINDS);
        let all = caps(r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#);
        let mut space = vec![0u8; WORKSPACE];
        let inputs = Inputs::handshake("{}").with_capabilities(all);
        let mut round = Round::<CAP>::new(&plan, Era::Handshake, inputs, &mut space).unwrap();
        let replies = [
            r#"{"action":"accept","content":{"value":"Ada"}}"#,
            r#"{"action":"accept"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m"}"#,
            r#"{"roots":[]}"#,
        ];
        let mut kinds = Vec::new();
        let mut params = Vec::new();
        for reply in replies {
            let Ok(Step::Ask { param }) = round.poll() else {
                panic!("expected an Ask");
            };
            let kind = plan.kind(param).unwrap();
            params.push(plan.name(param).unwrap());
            let request = json!({"method": kind.method(), "params": serde_json::from_str::<Value>(&round.ask_json().unwrap()).unwrap()});
            if kind == InputKind::Url {
                assert!(request["params"]["elicitationId"].is_string(), "{request}");
            }
            serde_json::from_value::<ServerRequest>(json!({
                "jsonrpc": "2.0", "id": 1,
                "method": request["method"], "params": request["params"]
            }))
            .unwrap_or_else(|e| panic!("{request}: {e}"));
            kinds.push(kind);
            round.answer(reply).unwrap();
        }
        assert_eq!(kinds, InputKind::ALL);
        assert_eq!(params, ["form", "url", "sample", "roots"]);
        assert!(matches!(round.poll(), Ok(Step::Done)));
        assert_eq!(
            parse_object(&round.values_json().unwrap())["roots"],
            json!([])
        );
    }
}
