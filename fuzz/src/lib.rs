//! Shared pieces of the fuzz targets: a declaration that uses every answer type, one
//! that uses every input kind, a canned host, and the invariants checked after every
//! call.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
// The engine's errors are large by design (names inline, no heap), as in core.
#![allow(clippy::result_large_err)]

use elicit_core::json::{Style, Value};
use elicit_core::{Capabilities, Era, Error, InputKind, Inputs, Plan, Round, Step};

/// Capacity used by the targets.
pub const CAP: usize = 32;

/// A declaration with every answer type, literal questions, resolvers (one needing an
/// argument), defaults, an outcome parameter and a raw schema.
pub const RICH: &str = r#"{"tool":"book","parameters":[
 {"name":"item"},
 {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
 {"name":"airport","elicit":{"needs":["destination"],"declares":"string"}},
 {"name":"date","type":{"type":"string","format":"date"},"elicit":{"message":"When?"}},
 {"name":"proceed","type":"boolean","elicit":{"needs":["destination","date"]}},
 {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
  "elicit":{"message":"Window or aisle?","title":"Seat","description":"Where to sit"}},
 {"name":"extras","type":{"type":"array","items":{"enum":["meal","bag","wifi"]},"maxItems":2},
  "default":[],"elicit":{"message":"Extras?"}},
 {"name":"count","type":{"type":"integer","minimum":1,"maximum":9},"elicit":{"message":"How many?"}},
 {"name":"budget","type":{"type":"number","minimum":0},"default":100.5,"elicit":{"message":"Budget?"}},
 {"name":"contact","type":{"type":"object","title":"Contact","properties":{
   "email":{"type":"string","format":"email"},"phone":{"type":"string","default":""},
   "age":{"type":"integer","minimum":0}}},"elicit":{"needs":["item"]}},
 {"name":"confirm","type":"boolean","outcome":true,"elicit":{"message":"Go ahead?"}},
 {"name":"raw","type":{"schema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
  "elicit":{"message":"Raw?"}}
]}"#;

/// Arguments for [`RICH`].
pub const RICH_ARGS: &str = r#"{"item":"flight"}"#;

/// A declaration with every input kind: form, URL mode, sampling and roots, each as a
/// literal and from a resolver (one of them needing another kind's answer), with
/// defaults and an outcome parameter among them.
pub const KINDS: &str = r#"{"tool":"kinds","parameters":[
 {"name":"topic"},
 {"name":"name","elicit":{"message":"Your name?"}},
 {"name":"paid","elicit":{"message":"Pay the fare","url":"https://pay.example/f1"}},
 {"name":"summary","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text",
  "text":"Summarise"}}],"maxTokens":50,"systemPrompt":"Be brief","modelPreferences":{"hints":[{"name":"m"}]}}}},
 {"name":"dirs","default":[],"elicit":{"roots":{}}},
 {"name":"login","outcome":true,"elicit":{"needs":["topic"],"kind":"url"}},
 {"name":"answer","elicit":{"needs":["name"],"kind":"sampling"}},
 {"name":"more_roots","default":null,"elicit":{"needs":["topic"],"kind":"roots"}},
 {"name":"confirm","type":"boolean","elicit":{"needs":["answer"],"kind":"form"}}
]}"#;

/// Arguments for [`KINDS`].
pub const KINDS_ARGS: &str = r#"{"topic":"t"}"#;

/// A CreateMessageResult, as a client's model answers a sampling request.
pub const CREATE_MESSAGE_RESULT: &str = r#"{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m","stopReason":"endTurn"}"#;

/// A ListRootsResult.
pub const LIST_ROOTS_RESULT: &str = r#"{"roots":[{"uri":"file:///w","name":"w"}]}"#;

/// The set of kinds whose bits (form 1, url 2, sampling 4, roots 8) are set in `bits`.
pub fn caps_of(bits: u8) -> Capabilities {
    InputKind::ALL
        .into_iter()
        .filter(|k| bits & (1 << k.code()) != 0)
        .fold(Capabilities::NONE, Capabilities::with)
}

/// Texts a host may hand the engine (resolver values and questions, ElicitResults),
/// good and bad.
pub const POOL: &[&str] = &[
    r#"{"message":"Which airport?"}"#,
    r#"{"message":"Pick one","type":{"enum":["a","b"]},"title":"T","description":"D"}"#,
    r#"{"message":"Contact?","type":{"type":"object","properties":{"n":{"type":"string"}}}}"#,
    r#"{"message":"x","type":"integer"}"#,
    r#"{"message":1}"#,
    r#"{"msg":"x"}"#,
    r#""CDG""#,
    "true",
    "null",
    r#"{"action":"accept","content":{"value":"Paris"}}"#,
    r#"{"action":"accept","content":{"value":true}}"#,
    r#"{"action":"accept","content":{"value":3}}"#,
    r#"{"action":"accept","content":{"email":"a@b.co","age":3}}"#,
    r#"{"action":"accept"}"#,
    r#"{"action":"decline"}"#,
    r#"{"action":"cancel"}"#,
    r#"{"action":"maybe"}"#,
    "{",
    "",
    // Questions of the other kinds, good and bad.
    r#"{"message":"Sign in","url":"https://id.example/x"}"#,
    r#"{"message":"Sign in","url":7}"#,
    r#"{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}"#,
    r#"{"sampling":{"messages":[],"maxTokens":5}}"#,
    r#"{"sampling":"x"}"#,
    r#"{"roots":{}}"#,
    r#"{"roots":[]}"#,
    // Results of the other kinds, good and bad.
    CREATE_MESSAGE_RESULT,
    r#"{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}],"model":"m"}"#,
    r#"{"role":"assistant","model":"m"}"#,
    LIST_ROOTS_RESULT,
    r#"{"roots":"x"}"#,
    r#"{"roots":[{"name":"no uri"}]}"#,
    r#"{"action":"accept","content":{}}"#,
];

/// Assert `bytes` is one JSON document.
pub fn check_json(what: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("{what}: not UTF-8"));
    if let Err(e) = Value::parse(text) {
        panic!("{what}: not JSON ({e:?}): {text}");
    }
}

/// Write every output the round's current step allows and check each is JSON; check
/// that outputs for other steps are refused.
pub fn check_outputs<const N: usize>(round: &Round<'_, '_, N>, step: Option<Step>) {
    let mut out = Vec::new();
    let r = round.write_resolve_inputs(&mut out);
    assert_eq!(
        r.is_ok(),
        matches!(step, Some(Step::Resolve { .. })),
        "resolve inputs: {r:?}"
    );
    if r.is_ok() {
        check_json("resolve inputs", &out);
    }
    out.clear();
    let r = round.write_ask(&mut out);
    assert_eq!(
        r.is_ok(),
        matches!(step, Some(Step::Ask { .. })),
        "ask: {r:?}"
    );
    if r.is_ok() {
        check_json("ask", &out);
    }
    for style in [Style::WIRE, Style::STATE, Style::DIGEST] {
        out.clear();
        let r = round.write_values(style, &mut out);
        assert_eq!(r.is_ok(), step == Some(Step::Done), "values: {r:?}");
        if r.is_ok() {
            check_json("values", &out);
        }
    }
    for view in [false, true] {
        out.clear();
        let r = round.write_input_requests(view, &mut out);
        assert_eq!(
            r.is_ok(),
            step == Some(Step::InputRequired),
            "requests: {r:?}"
        );
        if r.is_ok() {
            check_json("input requests", &out);
            check_methods(round.plan(), &out);
        }
    }
    if let Some(Error::MissingCapability { missing, kind, .. }) = round.error() {
        // requiredCapabilities: a non-empty ClientCapabilities object that reads back
        // as the same set, naming the kind the message names.
        assert!(
            !missing.is_empty() && missing.contains(*kind),
            "{missing:?}"
        );
        out.clear();
        missing.write_json(&mut out);
        check_json("required capabilities", &out);
        let text = std::str::from_utf8(&out).expect("UTF-8");
        assert_eq!(Capabilities::from_client_json(text), *missing, "{text}");
    }
    for i in 0..round.plan().len() {
        assert_eq!(round.plan().kind(i).is_some(), round.plan().is_elicited(i));
    }
    out.clear();
    let r = round.write_fallback_result(&mut out);
    assert_eq!(
        r.is_ok(),
        step == Some(Step::Fallback),
        "fallback result: {r:?}"
    );
    if r.is_ok() {
        check_json("fallback result", &out);
    }
    out.clear();
    let r = round.write_request_state(&mut out);
    assert_eq!(r.is_ok(), step == Some(Step::InputRequired), "state: {r:?}");
    if r.is_ok() {
        check_json("request state", &out);
        check_state_round_trips(round.plan(), &out);
    }
    for i in 0..round.plan().len() + 1 {
        let _ = round.digest_of(i);
        let mut m = Vec::new();
        if round.write_message_of(i, &mut m) {
            check_json("message", &m);
        }
    }
}

/// Every request in `inputRequests` carries the method of its parameter's kind.
fn check_methods<const N: usize>(plan: &Plan<'_, N>, requests: &[u8]) {
    let text = std::str::from_utf8(requests).expect("UTF-8");
    let v = Value::parse(text).expect("JSON");
    for (name, request) in v.members() {
        let i = (0..plan.len())
            .find(|&i| plan.name(i).is_some_and(|n| name.eq_str(n)))
            .expect("inputRequests names a parameter");
        let kind = plan.kind(i).expect("an asked parameter is elicited");
        let method = request.get("method").and_then(Value::as_str);
        assert!(
            method.is_some_and(|m| m.eq_str(kind.method())),
            "{kind:?} asked with {method:?}"
        );
    }
}

/// A state we wrote must read back: a new round over it starts.
fn check_state_round_trips<const N: usize>(plan: &Plan<'_, N>, state: &[u8]) {
    let text = std::str::from_utf8(state).expect("state is UTF-8");
    let mut ws = vec![0u8; 1 << 14];
    let round = Round::new(
        plan,
        Era::Modern,
        Inputs::modern(RICH_ARGS_OR_EMPTY, Some(text), None),
        &mut ws,
    );
    assert!(
        round.is_ok(),
        "a written state must start a round: {:?}",
        round.err()
    );
}

const RICH_ARGS_OR_EMPTY: &str = "{}";

/// The step a round is at, without advancing it (a second poll returns the same step).
fn snapshot<const N: usize>(round: &mut Round<'_, '_, N>) -> Result<Step, Error> {
    round.poll()
}

/// After a host call returned `err`: either the round failed with that same error and
/// keeps it, or nothing changed (`before` is the step it was at).
pub fn check_error<const N: usize>(
    round: &mut Round<'_, '_, N>,
    err: &Error,
    before: &Result<Step, Error>,
) {
    match round.error() {
        Some(kept) => {
            assert_eq!(kept, err, "a failed round keeps the error it reported");
            assert_eq!(round.poll().as_ref().err(), Some(err), "failure is sticky");
        }
        None => {
            let now = snapshot(round);
            assert_eq!(&now, before, "a refused call must change nothing ({err:?})");
        }
    }
}

/// Drive a round with host actions chosen by `script` bytes; texts come from `pool`.
/// Checks the invariants after every call.
pub fn drive<const N: usize>(round: &mut Round<'_, '_, N>, script: &[u8], pool: &[&str]) {
    let pick = |b: u8| pool[b as usize % pool.len()];
    let mut it = script.iter().copied();
    let mut steps = 0;
    while let Some(op) = it.next() {
        steps += 1;
        if steps > 256 {
            break;
        }
        let before = round.poll();
        if let Ok(s) = before {
            check_outputs(round, Some(s));
        } else {
            check_outputs(round, None);
        }
        let arg = it.next().unwrap_or(0);
        let r = match op % 6 {
            0 => continue,
            1 => round.resolve_value(pick(arg)),
            2 => round.resolve_question(pick(arg)),
            3 => round.resolve_failed(pick(arg)),
            4 => round.answer(pick(arg)),
            _ => {
                // A sensible host: do what the step asks, with a text from the pool.
                match before {
                    Ok(Step::Resolve { .. }) if arg % 2 == 0 => {
                        round.resolve_question(pick(arg / 2))
                    }
                    Ok(Step::Resolve { .. }) => round.resolve_value(pick(arg / 2)),
                    Ok(Step::Ask { .. }) => round.answer(pick(arg)),
                    _ => continue,
                }
            }
        };
        if let Err(e) = r {
            check_error(round, &e, &before);
        }
    }
    let last = round.poll();
    check_outputs(round, last.ok());
}

/// Split fuzz input at NUL bytes into UTF-8 parts (invalid UTF-8 → `None`).
pub fn parts(data: &[u8]) -> Vec<Option<&str>> {
    data.split(|&b| b == 0)
        .map(|p| std::str::from_utf8(p).ok())
        .collect()
}

/// A canned host that answers every Resolve with a question (or value) derived from
/// the inputs, until the round ends.
pub fn run_canned<const N: usize>(
    round: &mut Round<'_, '_, N>,
    value_first: bool,
) -> Result<Step, Error> {
    let mut k = 0;
    loop {
        let step = round.poll()?;
        check_outputs(round, Some(step));
        match step {
            Step::Resolve { param } => {
                let mut inputs = Vec::new();
                round.write_resolve_inputs(&mut inputs)?;
                k += 1;
                let kind = round.plan().kind(param).unwrap_or(InputKind::Form);
                if value_first && k % 2 == 1 {
                    round.resolve_value(r#""given""#)?;
                } else if kind == InputKind::Url {
                    let q = format!(
                        "{{\"message\":\"Sign in\",\"url\":\"https://id.example/{}\"}}",
                        inputs.len()
                    );
                    round.resolve_question(&q)?;
                } else if kind == InputKind::Sampling {
                    let q = format!(
                        "{{\"sampling\":{{\"messages\":[{{\"role\":\"user\",\"content\":{{\"type\":\"text\",\"text\":\"{} inputs\"}}}}],\"maxTokens\":9}}}}",
                        inputs.len()
                    );
                    round.resolve_question(&q)?;
                } else if kind == InputKind::Roots {
                    round.resolve_question(r#"{"roots":{}}"#)?;
                } else if round.plan().name(param) == Some("contact") {
                    round.resolve_question(r#"{"message":"Contact?"}"#)?;
                } else {
                    let q = format!(
                        "{{\"message\":\"With {} inputs?\"}}",
                        std::str::from_utf8(&inputs).map(|s| s.len()).unwrap_or(0)
                    );
                    round.resolve_question(&q)?;
                }
            }
            Step::Ask { param } => match round.plan().kind(param) {
                Some(InputKind::Url) => round.answer(r#"{"action":"accept"}"#)?,
                Some(InputKind::Sampling) => round.answer(CREATE_MESSAGE_RESULT)?,
                Some(InputKind::Roots) => round.answer(LIST_ROOTS_RESULT)?,
                _ => round.answer(r#"{"action":"decline"}"#)?,
            },
            done => return Ok(done),
        }
    }
}

/// The compiled [`RICH`] plan.
pub fn rich() -> Plan<'static, CAP> {
    Plan::compile(RICH).expect("the rich declaration compiles")
}

/// The compiled [`KINDS`] plan.
pub fn kinds() -> Plan<'static, CAP> {
    Plan::compile(KINDS).expect("the kinds declaration compiles")
}
