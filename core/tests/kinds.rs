//! The input kinds beside form elicitation: URL mode, sampling and roots — declared
//! literally or by resolvers, batched and ordered like form questions, digested by the
//! same formula, recorded in the state, gated by the client's capabilities, and asked one
//! at a time on the handshake era.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(clippy::result_large_err)]

use base64::Engine as _;
use elicit_core::{Capabilities, Era, Error, InputKind, Inputs, Plan, Round, Step};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The reference's digest of request params written canonically (sorted keys, compact,
/// ASCII): SHA-256, first 16 bytes, base64url without padding.
fn digest(canonical: &str) -> String {
    let h = Sha256::digest(canonical.as_bytes());
    let mut out = [0u8; 22];
    let n = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode_slice(&h[..16], &mut out)
        .unwrap();
    String::from_utf8(out[..n].to_vec()).unwrap()
}

const SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}"#;
const CREATE_MESSAGE_RESULT: &str = r#"{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model","stopReason":"endTurn"}"#;
const ROOTS_RESULT: &str = r#"{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}"#;

fn all_kinds() -> String {
    format!(
        r#"{{"tool":"t","parameters":[
      {{"name":"user_name","elicit":{{"message":"What is your name?"}}}},
      {{"name":"greeting","elicit":{{"sampling":{SAMPLING}}}}},
      {{"name":"client_roots","elicit":{{"roots":{{}}}}}},
      {{"name":"paid","elicit":{{"message":"Pay the fare","url":"https://pay.example/f1"}}}}
    ]}}"#
    )
}

/// Drive a modern round with no resolvers: its step, and (inputRequests, state) or values.
fn modern(plan: &Plan<'_, 8>, inputs: Inputs<'_>) -> Result<(Step, Value, Value), Error> {
    let mut ws = [0u8; 1024];
    let mut round = Round::new(plan, Era::Modern, inputs, &mut ws)?;
    let step = round.poll()?;
    Ok(match step {
        Step::InputRequired => (
            step,
            serde_json::from_str(&round.input_requests_json(false)?).unwrap(),
            serde_json::from_str(&round.request_state_json()?).unwrap(),
        ),
        Step::Done => (
            step,
            serde_json::from_str(&round.values_json()?).unwrap(),
            Value::Null,
        ),
        other => panic!("unexpected step {other:?}"),
    })
}

#[test]
fn every_kind_is_batched_in_signature_order_and_settles_to_its_result() {
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    assert_eq!(plan.kind(1), Some(InputKind::Sampling));
    assert_eq!(plan.kinds(), Capabilities::ALL);
    let caps = Capabilities::ALL;
    let (step, requests, state) = modern(
        &plan,
        Inputs::modern("{}", None, None).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::InputRequired);
    let keys: Vec<&String> = requests.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["user_name", "greeting", "client_roots", "paid"]);
    assert_eq!(requests["greeting"]["method"], "sampling/createMessage");
    assert_eq!(
        requests["greeting"]["params"],
        serde_json::from_str::<Value>(SAMPLING).unwrap()
    );
    assert_eq!(
        requests["client_roots"],
        json!({"method": "roots/list", "params": {}})
    );
    assert_eq!(
        requests["paid"],
        json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Pay the fare", "url": "https://pay.example/f1"}})
    );
    // Digests: the reference's formula over each request's params.
    assert_eq!(
        state["asked"]["greeting"],
        digest(
            r#"{"maxTokens":50,"messages":[{"content":{"text":"Generate a greeting","type":"text"},"role":"user"}]}"#
        )
    );
    assert_eq!(state["asked"]["client_roots"], digest("{}"));
    assert_eq!(
        state["asked"]["paid"],
        digest(r#"{"message":"Pay the fare","mode":"url","url":"https://pay.example/f1"}"#)
    );
    assert_eq!(
        plan.literal_digest(3)
            .map(|d| String::from_utf8(d.to_vec()).unwrap()),
        Some(state["asked"]["paid"].as_str().unwrap().to_string())
    );

    // Round 2: every answer, with the state.
    let state_text = state.to_string();
    let replies = format!(
        r#"{{"user_name":{{"action":"accept","content":{{"value":"Alice"}}}},"greeting":{CREATE_MESSAGE_RESULT},"client_roots":{ROOTS_RESULT},"paid":{{"action":"accept"}}}}"#
    );
    let (step, values, _) = modern(
        &plan,
        Inputs::modern("{}", Some(&state_text), Some(&replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::Done);
    assert_eq!(
        values,
        json!({
            "user_name": "Alice",
            "greeting": serde_json::from_str::<Value>(CREATE_MESSAGE_RESULT).unwrap(),
            "client_roots": [{"uri": "file:///test/root", "name": "Test Root"}],
            "paid": true
        })
    );
}

#[test]
fn answers_are_recorded_and_carried_while_other_questions_remain() {
    // greeting is answered in round 2; user_name is not: the state carries the
    // CreateMessageResult and the next round settles it from there.
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let caps = Capabilities::ALL;
    let (_, _, state) = modern(
        &plan,
        Inputs::modern("{}", None, None).with_capabilities(caps),
    )
    .unwrap();
    let s1 = state.to_string();
    let replies =
        format!(r#"{{"greeting":{CREATE_MESSAGE_RESULT},"paid":{{"action":"decline"}}}}"#);
    // paid has no default: declining it fails the call.
    let e = modern(
        &plan,
        Inputs::modern("{}", Some(&s1), Some(&replies)).with_capabilities(caps),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Cannot continue without 'paid': the request was declined. Give the parameter a default to make it optional."
    );
    let replies =
        format!(r#"{{"greeting":{CREATE_MESSAGE_RESULT},"client_roots":{ROOTS_RESULT}}}"#);
    let (step, requests, s2) = modern(
        &plan,
        Inputs::modern("{}", Some(&s1), Some(&replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::InputRequired);
    let keys: Vec<&String> = requests.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["user_name", "paid"]);
    assert_eq!(s2["answers"]["greeting"]["action"], "accept");
    assert_eq!(s2["answers"]["greeting"]["data"]["model"], "test-model");
    assert_eq!(
        s2["answers"]["client_roots"]["data"]["roots"][0]["uri"],
        "file:///test/root"
    );
    let s2 = s2.to_string();
    let replies = r#"{"user_name":{"action":"accept","content":{"value":"Alice"}},"paid":{"action":"accept"}}"#;
    let (step, values, _) = modern(
        &plan,
        Inputs::modern("{}", Some(&s2), Some(replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::Done);
    assert_eq!(values["greeting"]["content"]["text"], "Hello there!");
    assert_eq!(values["client_roots"][0]["name"], "Test Root");
    // A forged recorded answer that is not a CreateMessageResult is dropped and asked again.
    let forged = s2.replace("\"model\":\"test-model\"", "\"modelX\":\"test-model\"");
    let (step, requests, _) = modern(
        &plan,
        Inputs::modern("{}", Some(&forged), Some(replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::InputRequired);
    assert!(requests.get("greeting").is_some(), "{requests}");
}

#[test]
fn a_round_never_shows_a_kind_the_client_did_not_declare() {
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    // Form only (elicitation: {}): sampling, roots and URL mode are missing.
    let caps = Capabilities::from_client_json(r#"{"elicitation":{}}"#);
    let e = modern(
        &plan,
        Inputs::modern("{}", None, None).with_capabilities(caps),
    )
    .unwrap_err();
    let Error::MissingCapability {
        param,
        kind,
        missing,
        resolver,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(
        (param.as_str(), *kind, *resolver),
        ("greeting", InputKind::Sampling, false)
    );
    let mut required = Vec::new();
    missing.write_json(&mut required);
    assert_eq!(
        String::from_utf8(required).unwrap(),
        r#"{"elicitation":{"url":{}},"sampling":{},"roots":{}}"#
    );
    assert_eq!(
        e.to_string(),
        "Client did not declare the sampling capability required by question 'greeting'"
    );
    // The default inputs declare form only.
    assert!(matches!(
        modern(&plan, Inputs::modern("{}", None, None)),
        Err(Error::MissingCapability { .. })
    ));
    // Nothing declared: form is missing too.
    let e = modern(
        &plan,
        Inputs::modern("{}", None, None).with_capabilities(Capabilities::NONE),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Client did not declare the form elicitation capability required by question 'user_name'"
    );
    // A tool asking only what the client declared goes on.
    let sampling_decl = format!(
        r#"{{"tool":"t","parameters":[{{"name":"s","elicit":{{"sampling":{SAMPLING}}}}}]}}"#
    );
    let sampling_only = Plan::<'_, 8>::compile(&sampling_decl).unwrap();
    let caps = Capabilities::from_client_json(r#"{"sampling":{}}"#);
    let (step, requests, _) = modern(
        &sampling_only,
        Inputs::modern("{}", None, None).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(step, Step::InputRequired);
    assert_eq!(requests["s"]["method"], "sampling/createMessage");
}

/// -32021 names what asks: "question 'x'" for a literal question of the declaration,
/// "resolver 'x'" (the MCP Python SDK's words) for a question a resolver asks.
#[test]
fn missing_capability_names_a_question_or_a_resolver() {
    let decl = format!(
        r#"{{"tool":"t","parameters":[
      {{"name":"tip","elicit":{{"needs":[],"kind":"sampling"}}}},
      {{"name":"note","elicit":{{"sampling":{SAMPLING}}}}}
    ]}}"#
    );
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let mut ws = [0u8; 2048];
    let caps = Capabilities::from_client_json(r#"{"elicitation":{}}"#);
    let inputs = Inputs::modern("{}", None, None).with_capabilities(caps);
    let mut round = Round::new(&plan, Era::Modern, inputs, &mut ws).unwrap();
    assert!(matches!(round.poll().unwrap(), Step::Resolve { param: 0 }));
    round
        .resolve_question(&format!(r#"{{"sampling":{SAMPLING}}}"#))
        .unwrap();
    let e = round.poll().unwrap_err();
    assert!(matches!(e, Error::MissingCapability { resolver: true, .. }));
    assert_eq!(
        e.to_string(),
        "Client did not declare the sampling capability required by resolver 'tip'"
    );
    // The literal question alone: named as a question.
    let literal = decl.replace(r#""needs":[],"kind":"sampling""#, r#""message":"Tip?""#);
    let plan: Plan<'_, 8> = Plan::compile(&literal).unwrap();
    let e = modern(
        &plan,
        Inputs::modern("{}", None, None).with_capabilities(caps),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Client did not declare the sampling capability required by question 'note'"
    );
}

#[test]
fn replies_of_the_wrong_kind_are_clear_errors() {
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let caps = Capabilities::ALL;
    let cases = [
        (
            format!(r#"{{"user_name":{CREATE_MESSAGE_RESULT}}}"#),
            "The response for 'user_name' is not an elicitation result",
        ),
        (
            r#"{"paid":{"action":"accept","content":{"value":"x"}}}"#.to_string(),
            "The response for 'paid' is not a URL elicitation result: answer with the action alone (accept, decline or cancel), without content",
        ),
        (
            r#"{"greeting":{"action":"accept","content":{"value":"x"}}}"#.to_string(),
            "The response for 'greeting' is not a sampling result: answer with a CreateMessageResult (or an ElicitResult that declines or cancels)",
        ),
        (
            format!(r#"{{"client_roots":{CREATE_MESSAGE_RESULT}}}"#),
            "The response for 'client_roots' is not a roots result: answer with a ListRootsResult (or an ElicitResult that declines or cancels)",
        ),
        (
            format!(r#"{{"greeting":{ROOTS_RESULT}}}"#),
            "The response for 'greeting' is not a sampling result: answer with a CreateMessageResult (or an ElicitResult that declines or cancels)",
        ),
    ];
    for (replies, message) in cases {
        // Stateless (deviation 6): each reply answers the question asked now.
        let e = modern(
            &plan,
            Inputs::modern("{}", None, Some(&replies)).with_capabilities(caps),
        )
        .unwrap_err();
        assert!(matches!(e, Error::WrongReply { .. }), "{e:?}");
        assert_eq!(e.to_string(), message, "{replies}");
    }
    // A CreateMessageResult missing its model is no InputResponse at all.
    let e = modern(
        &plan,
        Inputs::modern(
            "{}",
            None,
            Some(r#"{"greeting":{"role":"assistant","content":{"type":"text","text":"x"}}}"#),
        )
        .with_capabilities(caps),
    )
    .unwrap_err();
    assert!(matches!(e, Error::InputResponses { .. }), "{e:?}");
}

#[test]
fn refused_sampling_settles_to_the_default_and_url_outcomes_carry_true() {
    let decl = format!(
        r#"{{"tool":"t","parameters":[
      {{"name":"s","default":"none","elicit":{{"sampling":{SAMPLING}}}}},
      {{"name":"u","outcome":true,"elicit":{{"message":"Sign in","url":"https://id.example/"}}}},
      {{"name":"r","elicit":{{"roots":{{}}}}}}
    ]}}"#
    );
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let caps = Capabilities::ALL;
    let replies = r#"{"s":{"action":"decline"},"u":{"action":"accept"},"r":{"action":"cancel"}}"#;
    let e = modern(
        &plan,
        Inputs::modern("{}", None, Some(replies)).with_capabilities(caps),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Cannot continue without 'r': the request was cancelled. Give the parameter a default to make it optional."
    );
    let replies =
        format!(r#"{{"s":{{"action":"decline"}},"u":{{"action":"accept"}},"r":{ROOTS_RESULT}}}"#);
    let (_, values, _) = modern(
        &plan,
        Inputs::modern("{}", None, Some(&replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(values["s"], "none");
    assert_eq!(values["u"], json!({"action": "accept", "value": true}));
    let replies =
        format!(r#"{{"s":{CREATE_MESSAGE_RESULT},"u":{{"action":"cancel"}},"r":{ROOTS_RESULT}}}"#);
    let (_, values, _) = modern(
        &plan,
        Inputs::modern("{}", None, Some(&replies)).with_capabilities(caps),
    )
    .unwrap();
    assert_eq!(values["u"], json!({"action": "cancel"}));
    assert_eq!(values["s"]["stopReason"], "endTurn");
}

/// A resolver of each kind builds its question from other values; the question is
/// re-asked when those change, and a malformed one is refused without failing the round.
#[test]
fn resolvers_ask_questions_of_their_kind() {
    let decl = r#"{"tool":"t","parameters":[
      {"name":"prompt"},
      {"name":"answer","elicit":{"needs":["prompt"],"kind":"sampling"}},
      {"name":"login","elicit":{"needs":["prompt"],"kind":"url"}}
    ]}"#;
    let plan: Plan<'_, 8> = Plan::compile(decl).unwrap();
    let caps = Capabilities::ALL;
    let run = |args: &str, state: Option<&str>, replies: Option<&str>| -> (Step, Value, Value) {
        let mut ws = [0u8; 2048];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(args, state, replies).with_capabilities(caps),
            &mut ws,
        )
        .unwrap();
        loop {
            match round.poll().unwrap() {
                Step::Resolve { param } => {
                    let inputs: Value =
                        serde_json::from_str(&round.resolve_inputs_json().unwrap()).unwrap();
                    let prompt = inputs["prompt"].as_str().unwrap().to_string();
                    if param == 1 {
                        // A message alone is a form question: refused, nothing changed.
                        assert!(matches!(
                            round.resolve_message("x"),
                            Err(Error::ResolverAnswer { .. })
                        ));
                        // Bad shapes first: refused, nothing changed.
                        for bad in [
                            r#"{"message":"x"}"#,
                            r#"{"sampling":{"messages":[],"maxTokens":5}}"#,
                            "nope",
                        ] {
                            assert!(
                                matches!(
                                    round.resolve_question(bad),
                                    Err(Error::ResolverAnswer { .. })
                                ),
                                "{bad}"
                            );
                        }
                        let q = json!({"sampling": {"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 100}});
                        round.resolve_question(&q.to_string()).unwrap();
                    } else {
                        assert!(matches!(
                            round.resolve_question(r#"{"message":"x"}"#),
                            Err(Error::ResolverAnswer { .. })
                        ));
                        let q = json!({"message": "Sign in", "url": format!("https://id.example/?q={prompt}")});
                        round.resolve_question(&q.to_string()).unwrap();
                    }
                }
                Step::InputRequired => {
                    return (
                        Step::InputRequired,
                        serde_json::from_str(&round.input_requests_json(false).unwrap()).unwrap(),
                        serde_json::from_str(&round.request_state_json().unwrap()).unwrap(),
                    )
                }
                Step::Done => {
                    return (
                        Step::Done,
                        serde_json::from_str(&round.values_json().unwrap()).unwrap(),
                        Value::Null,
                    )
                }
                other => panic!("{other:?}"),
            }
        }
    };
    let (_, requests, state) = run(r#"{"prompt":"Hi"}"#, None, None);
    assert_eq!(
        requests["answer"]["params"]["messages"][0]["content"]["text"],
        "Hi"
    );
    assert_eq!(
        requests["login"]["params"]["url"],
        "https://id.example/?q=Hi"
    );
    let s1 = state.to_string();
    let replies = format!(r#"{{"answer":{CREATE_MESSAGE_RESULT},"login":{{"action":"accept"}}}}"#);
    let (step, values, _) = run(r#"{"prompt":"Hi"}"#, Some(&s1), Some(&replies));
    assert_eq!(step, Step::Done);
    assert_eq!(values["login"], true);
    // Another prompt: the questions changed, the replies no longer count.
    let (step, requests, _) = run(r#"{"prompt":"Ho"}"#, Some(&s1), Some(&replies));
    assert_eq!(step, Step::InputRequired);
    assert_eq!(
        requests["login"]["params"]["url"],
        "https://id.example/?q=Ho"
    );
}

#[test]
fn the_handshake_era_asks_each_kind_with_its_method() {
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let mut ws = [0u8; 2048];
    let mut round = Round::new(
        &plan,
        Era::Handshake,
        Inputs::handshake("{}").with_capabilities(Capabilities::ALL),
        &mut ws,
    )
    .unwrap();
    let mut asked = Vec::new();
    loop {
        match round.poll().unwrap() {
            Step::Ask { param } => {
                let kind = plan.kind(param).unwrap();
                let params: Value = serde_json::from_str(&round.ask_json().unwrap()).unwrap();
                asked.push((kind.method(), params.clone()));
                let answer = match kind {
                    InputKind::Form => {
                        r#"{"action":"accept","content":{"value":"Alice"}}"#.to_string()
                    }
                    InputKind::Sampling => CREATE_MESSAGE_RESULT.to_string(),
                    InputKind::Roots => ROOTS_RESULT.to_string(),
                    InputKind::Url => {
                        let id = round.digest_of(param).unwrap();
                        assert_eq!(params["elicitationId"], std::str::from_utf8(&id).unwrap());
                        r#"{"action":"accept"}"#.to_string()
                    }
                };
                round.answer(&answer).unwrap();
            }
            Step::Done => break,
            other => panic!("{other:?}"),
        }
    }
    let methods: Vec<&str> = asked.iter().map(|(m, _)| *m).collect();
    assert_eq!(
        methods,
        [
            "elicitation/create",
            "sampling/createMessage",
            "roots/list",
            "elicitation/create"
        ]
    );
    assert_eq!(asked[3].1["mode"], "url");
    let values: Value = serde_json::from_str(&round.values_json().unwrap()).unwrap();
    assert_eq!(values["paid"], true);
    assert_eq!(values["client_roots"][0]["uri"], "file:///test/root");

    // Undeclared kind: the Ask step is never reached for it.
    let mut ws = [0u8; 2048];
    let mut round = Round::new(&plan, Era::Handshake, Inputs::handshake("{}"), &mut ws).unwrap();
    assert!(matches!(round.poll().unwrap(), Step::Ask { param: 0 }));
    round
        .answer(r#"{"action":"accept","content":{"value":"Alice"}}"#)
        .unwrap();
    let e = round.poll().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Client did not declare the sampling capability required by question 'greeting'"
    );
    // A reply of the wrong kind fails the round with a clear error.
    let mut ws = [0u8; 2048];
    let mut round = Round::new(
        &plan,
        Era::Handshake,
        Inputs::handshake("{}").with_capabilities(Capabilities::ALL),
        &mut ws,
    )
    .unwrap();
    round.poll().unwrap();
    round
        .answer(r#"{"action":"accept","content":{"value":"Alice"}}"#)
        .unwrap();
    assert_eq!(round.poll().unwrap(), Step::Ask { param: 1 });
    let e = round
        .answer(r#"{"action":"accept","content":{"value":"x"}}"#)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::WrongReply {
                kind: InputKind::Sampling,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn declarations_of_the_new_kinds_are_checked() {
    let bad = |param: &str, problem: &str| {
        let decl = format!(r#"{{"tool":"t","parameters":[{{"name":"a"}},{param}]}}"#);
        let compiled = Plan::<'_, 8>::compile(&decl).map(|_| ());
        match compiled {
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains(problem), "{param}: {text}");
                assert!(text.contains("'p'"), "{param}: {text}");
            }
            Ok(_) => panic!("{param} compiled"),
        }
    };
    bad(
        r#"{"name":"p","type":"integer","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":5}}}"#,
        "remove \"type\"",
    );
    bad(
        r#"{"name":"p","elicit":{"sampling":{"messages":[],"maxTokens":5}}}"#,
        "CreateMessageRequest",
    );
    bad(
        r#"{"name":"p","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":0}}}"#,
        "maxTokens",
    );
    bad(
        r#"{"name":"p","elicit":{"sampling":{"messages":[{"role":"bot","content":{}}],"maxTokens":5}}}"#,
        "messages",
    );
    bad(
        r#"{"name":"p","elicit":{"sampling":{"messages":[{"role":"user","content":{}}],"maxTokens":5,"maxTokenz":1}}}"#,
        "only the other keys",
    );
    bad(
        r#"{"name":"p","elicit":{"roots":{"x":1}}}"#,
        "ListRootsRequest",
    );
    bad(
        r#"{"name":"p","elicit":{"message":"m","url":"u","title":"t"}}"#,
        "only \"message\" and \"url\"",
    );
    bad(
        r#"{"name":"p","elicit":{"message":"m","url":1}}"#,
        "\"url\" must be a string",
    );
    bad(
        r#"{"name":"p","elicit":{"needs":["a"],"kind":"voice"}}"#,
        "\"kind\" must be",
    );
    bad(
        r#"{"name":"p","elicit":{"needs":["a"],"kind":"url","declares":"string"}}"#,
        "\"declares\"",
    );
    bad(
        r#"{"name":"p","elicit":{"message":"m","kind":"url"}}"#,
        "belong to a resolver",
    );
    bad(
        r#"{"name":"p","elicit":{"roots":{},"message":"m"}}"#,
        "\"elicit\" must be an object",
    );
    assert!(Plan::<'_, 8>::compile(
        r#"{"tool":"t","parameters":[{"name":"p","elicit":{"roots":{}},"outcome":true}]}"#
    )
    .is_ok());
}

/// Plan bytes carry every kind; a loaded plan asks exactly what the compiled one asks.
#[cfg(feature = "serde")]
#[test]
fn plan_bytes_carry_every_kind() {
    let decl = r#"{"tool":"t","parameters":[{"name":"a"},
          {"name":"r","elicit":{"needs":["a"],"kind":"roots"}}]}"#
        .to_string();
    for decl in [all_kinds(), decl] {
        let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
        let bytes = plan.to_postcard_vec();
        let loaded: Plan<'_, 8> = Plan::from_postcard(&bytes).unwrap();
        for i in 0..plan.len() {
            assert_eq!(plan.kind(i), loaded.kind(i));
            assert_eq!(plan.literal_digest(i), loaded.literal_digest(i));
        }
        let inputs =
            || Inputs::modern(r#"{"a":1}"#, None, None).with_capabilities(Capabilities::ALL);
        let mut w1 = [0u8; 1024];
        let mut w2 = [0u8; 1024];
        let mut r1 = Round::new(&plan, Era::Modern, inputs(), &mut w1).unwrap();
        let mut r2 = Round::new(&loaded, Era::Modern, inputs(), &mut w2).unwrap();
        loop {
            let (s1, s2) = (r1.poll().unwrap(), r2.poll().unwrap());
            assert_eq!(s1, s2);
            match s1 {
                Step::Resolve { .. } => {
                    r1.resolve_question(r#"{"roots":{}}"#).unwrap();
                    r2.resolve_question(r#"{"roots":{}}"#).unwrap();
                }
                _ => break,
            }
        }
        assert_eq!(
            r1.input_requests_json(true).unwrap(),
            r2.input_requests_json(true).unwrap()
        );
        assert_eq!(
            r1.request_state_json().unwrap(),
            r2.request_state_json().unwrap()
        );
    }
    // A corrupted kind byte is an error, never a panic.
    let decl = all_kinds();
    let plan: Plan<'_, 8> = Plan::compile(&decl).unwrap();
    let bytes = plan.to_postcard_vec();
    for i in 0..bytes.len() {
        for delta in [1u8, 7, 0x80] {
            let mut b = bytes.clone();
            b[i] = b[i].wrapping_add(delta);
            let _ = Plan::<'_, 8>::from_postcard(&b);
        }
    }
}
