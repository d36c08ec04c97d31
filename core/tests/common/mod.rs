//! A small test host for elicit-core: compiles a declaration and drives rounds with
//! resolvers written as Rust closures, the way a server embedding the engine would.
//!
//! - [`Host::round`]: one 2026-07-28 round (arguments, plaintext state, replies) →
//!   [`Outcome`].
//! - [`Host::handshake`]: a whole handshake-era call, a closure answering every ask.
//! - [`Host::client`]: a multi-round modern call, a closure answering every input
//!   request and the state carried between rounds (like `fastmcp.Client` with an
//!   elicitation handler).
#![allow(dead_code)]

use elicit_core::json::Style;
use elicit_core::{Era, Inputs, Plan, Round, Step};
use serde_json::{json, Value};

/// Capacity used by the host.
pub const CAP: usize = 32;
/// Workspace bytes per round.
pub const WORKSPACE: usize = 1 << 16;

/// What a resolver decides: a value (nothing is asked) or a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Either {
    /// The parameter's value; nothing is asked, nothing carried.
    Value(Value),
    /// A question `{"message": ..., "type"?, "title"?, "description"?}`.
    Question(Value),
}

/// A question with just a message (the parameter's type).
pub fn ask(message: impl Into<String>) -> Either {
    Either::Question(json!({ "message": message.into() }))
}

/// A question with an explicit answer type.
pub fn ask_typed(message: impl Into<String>, ty: Value) -> Either {
    Either::Question(json!({ "message": message.into(), "type": ty }))
}

/// A resolver value.
pub fn value(v: impl Into<Value>) -> Either {
    Either::Value(v.into())
}

/// A resolver: given `{"need": value, ...}`, a value or a question.
pub type Resolver<'r> = Box<dyn Fn(&Value) -> Either + 'r>;

/// The outcome of one modern round.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every elicited parameter settled: `{"name": value, ...}` in resolution order.
    Values(Value),
    /// Questions remain: the `inputRequests` object and the new plaintext state.
    Ask {
        /// `{"name": {"method": "elicitation/create", "params": {...}}, ...}`
        requests: Value,
        /// The plaintext `requestState`.
        state: String,
    },
    /// The round failed with this message.
    Error(String),
}

impl Outcome {
    /// The values, or panic.
    pub fn values(&self) -> &Value {
        match self {
            Outcome::Values(v) => v,
            other => panic!("expected values, got {other:?}"),
        }
    }
    /// `(requests, state)`, or panic.
    pub fn ask(&self) -> (&Value, &str) {
        match self {
            Outcome::Ask { requests, state } => (requests, state),
            other => panic!("expected an ask, got {other:?}"),
        }
    }
    /// The error message, or panic.
    pub fn error(&self) -> &str {
        match self {
            Outcome::Error(e) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }
    /// The asked names in order, or panic.
    pub fn asked_names(&self) -> Vec<String> {
        self.ask().0.as_object().unwrap().keys().cloned().collect()
    }
    /// `{name: message}` of an ask (the seed's `questions()` helper), or panic.
    pub fn questions(&self) -> Vec<(String, String)> {
        questions(self.ask().0)
    }
}

/// `(name, message)` for every request of an `inputRequests` object, in order.
pub fn questions(requests: &Value) -> Vec<(String, String)> {
    requests
        .as_object()
        .expect("inputRequests is an object")
        .iter()
        .map(|(k, r)| {
            assert_eq!(r["method"], "elicitation/create");
            (
                k.clone(),
                r["params"]["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The `inputResponses` map accepting each `(name, value)` (the seed's `accepted()`).
pub fn accepted(pairs: &[(&str, Value)]) -> Value {
    let mut m = serde_json::Map::new();
    for (k, v) in pairs {
        m.insert(
            (*k).to_owned(),
            json!({"action": "accept", "content": {"value": v}}),
        );
    }
    Value::Object(m)
}

/// An `ElicitResult` accepting `{"value": v}`.
pub fn accept_value(v: impl Into<Value>) -> Value {
    json!({"action": "accept", "content": {"value": v.into()}})
}

/// A result of a whole handshake-era call.
#[derive(Debug, Clone, PartialEq)]
pub struct HandshakeRun {
    /// The message of every question put to the client, in order.
    pub asked: Vec<String>,
    /// The `elicitation/create` params of every question, in order.
    pub params: Vec<Value>,
    /// Values, or the error message.
    pub result: Result<Value, String>,
}

/// A result of a whole modern call driven by a client.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientRun {
    /// For every round that asked: `(name, message)` of each input request.
    pub rounds: Vec<Vec<(String, String)>>,
    /// Every message put to the client, in order.
    pub asked: Vec<String>,
    /// The states the server handed back, one per asking round.
    pub states: Vec<String>,
    /// Values, or the error message.
    pub result: Result<Value, String>,
}

impl ClientRun {
    /// The asked names per round.
    pub fn round_names(&self) -> Vec<Vec<String>> {
        self.rounds
            .iter()
            .map(|r| r.iter().map(|(n, _)| n.clone()).collect())
            .collect()
    }
}

/// A compiled declaration plus the host's resolvers.
pub struct Host<'r> {
    declaration: String,
    resolvers: Vec<(String, Resolver<'r>)>,
}

impl<'r> Host<'r> {
    /// A host for `declaration` (panics when it does not compile: use [`compile_error`]
    /// for compile failures).
    pub fn new(declaration: Value) -> Self {
        let declaration = declaration.to_string();
        if let Err(e) = Plan::<CAP>::compile(&declaration) {
            panic!("declaration does not compile: {e}\n{declaration}");
        }
        Host {
            declaration,
            resolvers: Vec::new(),
        }
    }

    /// Register the resolver of parameter `name`.
    pub fn resolver(mut self, name: &str, f: impl Fn(&Value) -> Either + 'r) -> Self {
        self.resolvers.push((name.to_owned(), Box::new(f)));
        self
    }

    fn run_resolver(&self, name: &str, inputs: &Value) -> Either {
        let (_, f) = self
            .resolvers
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no resolver registered for {name:?}"));
        f(inputs)
    }

    /// Answer a Resolve step; panics on host misuse (not on round failure).
    fn resolve<const N: usize>(
        &self,
        round: &mut Round<'_, '_, N>,
        plan: &Plan<'_, N>,
        param: usize,
    ) {
        let pname = plan.name(param).unwrap();
        let mut inputs = Vec::new();
        round.write_resolve_inputs(&mut inputs).unwrap();
        let inputs: Value = serde_json::from_slice(&inputs).unwrap();
        // A need the engine holds reads by name as the same value.
        for need in plan.needs(param) {
            if let Some(v) = round.resolve_input(need).unwrap() {
                let held: Value = serde_json::from_str(v.raw()).unwrap();
                assert_eq!(held, inputs[need], "{pname}'s input {need} by name");
            }
        }
        let r = match self.run_resolver(pname, &inputs) {
            Either::Value(v) => round.resolve_value(&v.to_string()),
            Either::Question(q) => round.resolve_question(&q.to_string()),
        };
        if let Err(e) = r {
            assert!(
                round.error().is_some(),
                "host error answering the resolver of {pname:?}: {e}"
            );
        }
    }

    /// One modern round.
    pub fn round(&self, args: &Value, state: Option<&str>, replies: Option<&Value>) -> Outcome {
        self.round_with_notes(args, state, replies).0
    }

    /// One modern round, with the log lines of its notes (`"LEVEL message"`).
    pub fn round_with_notes(
        &self,
        args: &Value,
        state: Option<&str>,
        replies: Option<&Value>,
    ) -> (Outcome, Vec<String>) {
        let plan = Plan::<CAP>::compile(&self.declaration).unwrap();
        let args = args.to_string();
        let replies = replies.map(|r| r.to_string());
        let mut ws = vec![0u8; WORKSPACE];
        let mut round = match Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(&args, state, replies.as_deref()),
            &mut ws,
        ) {
            Ok(r) => r,
            Err(e) => return (Outcome::Error(e.to_string()), Vec::new()),
        };
        let outcome = loop {
            match round.poll() {
                Ok(Step::Resolve { param }) => self.resolve(&mut round, &plan, param),
                Ok(Step::Ask { .. }) => panic!("a modern round asked one at a time"),
                Ok(Step::Fallback) => {
                    panic!("this host declares no fallback (tests/fallback.rs does)")
                }
                Ok(Step::Done) => {
                    let mut out = Vec::new();
                    round.write_values(Style::WIRE, &mut out).unwrap();
                    break Outcome::Values(serde_json::from_slice(&out).unwrap());
                }
                Ok(Step::InputRequired) => {
                    let mut reqs = Vec::new();
                    round.write_input_requests(false, &mut reqs).unwrap();
                    let mut st = Vec::new();
                    round.write_request_state(&mut st).unwrap();
                    break Outcome::Ask {
                        requests: serde_json::from_slice(&reqs).unwrap(),
                        state: String::from_utf8(st).unwrap(),
                    };
                }
                Err(e) => break Outcome::Error(e.to_string()),
            }
        };
        let notes = round
            .notes()
            .iter()
            .map(|n| {
                let mut m = String::new();
                n.write_message(plan.name(n.param()).unwrap(), &mut m)
                    .unwrap();
                format!("{} {m}", n.level())
            })
            .collect();
        (outcome, notes)
    }

    /// A whole handshake-era call: `answer` gets each question's `elicitation/create`
    /// params and returns the client's ElicitResult.
    pub fn handshake(&self, args: &Value, mut answer: impl FnMut(&Value) -> Value) -> HandshakeRun {
        let plan = Plan::<CAP>::compile(&self.declaration).unwrap();
        let args = args.to_string();
        let mut ws = vec![0u8; WORKSPACE];
        let mut run = HandshakeRun {
            asked: Vec::new(),
            params: Vec::new(),
            result: Err(String::new()),
        };
        let mut round = match Round::new(&plan, Era::Handshake, Inputs::handshake(&args), &mut ws) {
            Ok(r) => r,
            Err(e) => {
                run.result = Err(e.to_string());
                return run;
            }
        };
        run.result = loop {
            match round.poll() {
                Ok(Step::Resolve { param }) => self.resolve(&mut round, &plan, param),
                Ok(Step::Ask { .. }) => {
                    let mut out = Vec::new();
                    round.write_ask(&mut out).unwrap();
                    let params: Value = serde_json::from_slice(&out).unwrap();
                    run.asked
                        .push(params["message"].as_str().unwrap().to_owned());
                    let reply = answer(&params);
                    run.params.push(params);
                    if let Err(e) = round.answer(&reply.to_string()) {
                        assert!(round.error().is_some(), "host error answering: {e}");
                    }
                }
                Ok(Step::Done) => {
                    let mut out = Vec::new();
                    round.write_values(Style::WIRE, &mut out).unwrap();
                    break Ok(serde_json::from_slice(&out).unwrap());
                }
                Ok(Step::InputRequired) => panic!("a handshake round returned InputRequired"),
                Ok(Step::Fallback) => {
                    panic!("this host declares no fallback (tests/fallback.rs does)")
                }
                Err(e) => break Err(e.to_string()),
            }
        };
        run
    }

    /// A whole modern call driven like `fastmcp.Client` with an elicitation handler:
    /// every input request goes to `handler(name, params)`, whose ElicitResults become
    /// the next round's `inputResponses`, with the state carried.
    pub fn client(
        &self,
        args: &Value,
        mut handler: impl FnMut(&str, &Value) -> Value,
    ) -> ClientRun {
        let mut run = ClientRun {
            rounds: Vec::new(),
            asked: Vec::new(),
            states: Vec::new(),
            result: Err(String::new()),
        };
        let mut state: Option<String> = None;
        let mut replies: Option<Value> = None;
        for _ in 0..64 {
            match self.round(args, state.as_deref(), replies.as_ref()) {
                Outcome::Values(v) => {
                    run.result = Ok(v);
                    return run;
                }
                Outcome::Error(e) => {
                    run.result = Err(e);
                    return run;
                }
                Outcome::Ask {
                    requests,
                    state: next,
                } => {
                    run.rounds.push(questions(&requests));
                    let mut answers = serde_json::Map::new();
                    for (name, req) in requests.as_object().unwrap() {
                        let params = &req["params"];
                        run.asked
                            .push(params["message"].as_str().unwrap().to_owned());
                        answers.insert(name.clone(), handler(name, params));
                    }
                    run.states.push(next.clone());
                    state = Some(next);
                    replies = Some(Value::Object(answers));
                }
            }
        }
        panic!("the call did not finish in 64 rounds");
    }
}

/// The compile error message of a declaration, or panic when it compiles.
pub fn compile_error(declaration: &Value) -> String {
    compile_error_n::<CAP>(declaration)
}

/// [`compile_error`] with capacity `N`.
pub fn compile_error_n<const N: usize>(declaration: &Value) -> String {
    let text = declaration.to_string();
    let result = Plan::<N>::compile(&text).map(|_| ());
    match result {
        Ok(()) => panic!("expected a compile error for {text}"),
        Err(e) => e.to_string(),
    }
}

/// A handler answering each question with the value whose marker appears in its
/// message (the seed's `accept_by_message`); panics on an unexpected question.
pub fn by_message(answers: Vec<(&'static str, Value)>) -> impl Fn(&Value) -> Value {
    move |params: &Value| {
        let message = params["message"].as_str().unwrap();
        for (marker, v) in &answers {
            if message.contains(marker) {
                return accept_value(v.clone());
            }
        }
        panic!("unexpected question: {message}");
    }
}
