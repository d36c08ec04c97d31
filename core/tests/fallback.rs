//! The declared fallback for clients that cannot be asked (docs/fallback.md): a tool's
//! `"fallback": "arguments"` makes its elicited parameters optional arguments for such a
//! client; a call treats them as answers and, while something must still be asked,
//! ends at `Step::Fallback` with a tool result written for the model.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg(all(feature = "fallback", feature = "std", feature = "input-kinds"))]

use elicit_core::plan::FALLBACK_META_KEY;
use elicit_core::{Capabilities, Era, InputKind, Inputs, Plan, Round, Step};
use serde_json::{json, Value};

/// The booking fixture's book_flight (tests/fixture/decl/book_flight.json). A copy: the
/// packaged crate's tests (scripts/test-install.sh) cannot read the workspace's files.
const BOOK_FLIGHT: &str = r#"{"tool": "book_flight", "parameters": [
  {"name": "destination", "elicit": {"message": "Where would you like to fly?"}},
  {"name": "date", "elicit": {"message": "When would you like to fly?"}},
  {"name": "airport", "elicit": {"needs": ["destination"]}},
  {"name": "proceed", "type": "boolean", "elicit": {"needs": ["destination", "date"]}},
  {"name": "seat", "type": {"enum": ["window", "aisle"]}, "default": null,
   "elicit": {"message": "Window or aisle?"}}]}"#;

/// The booking fixture's book_flight, opted in.
fn booking(fallback: bool, proceed_opt_out: bool) -> String {
    let mut d: Value = serde_json::from_str(BOOK_FLIGHT).unwrap();
    if fallback {
        d["fallback"] = json!("arguments");
    }
    if proceed_opt_out {
        d["parameters"][3]["elicit"]["fallback"] = json!(false);
    }
    d.to_string()
}

/// What a call came to: the values, the fallback result, the `inputRequests` (and
/// state), or the error with its code's name.
#[derive(Debug, PartialEq)]
enum Out {
    Done(Value),
    Fallback(Value),
    Ask(Value, String),
    Error(elicit_core::Error, String),
}

impl Out {
    fn done(&self) -> &Value {
        match self {
            Out::Done(v) => v,
            other => panic!("expected values, got {other:?}"),
        }
    }
    fn fallback(&self) -> &Value {
        match self {
            Out::Fallback(v) => v,
            other => panic!("expected a fallback result, got {other:?}"),
        }
    }
    fn error(&self) -> (&elicit_core::Error, &str) {
        match self {
            Out::Error(e, m) => (e, m),
            other => panic!("expected an error, got {other:?}"),
        }
    }
}

/// One call (one round) of `decl` with `args` from a client that declared `caps`, the
/// booking fixture's resolvers (airport: London is LHR, any other city is asked;
/// proceed: a confirmation quoting the trip; `pick`: a roots question) run by the host.
fn call_with(decl: &str, args: Value, caps: Capabilities, era: Era, replies: Option<&str>) -> Out {
    let plan: Plan<'_, 16> = Plan::compile(decl).unwrap();
    let args = args.to_string();
    let mut ws = vec![0u8; 4096];
    let inputs = match era {
        Era::Modern => Inputs::modern(&args, None, replies),
        Era::Handshake => Inputs::handshake(&args),
    }
    .with_capabilities(caps);
    let mut round = match Round::new(&plan, era, inputs, &mut ws) {
        Ok(r) => r,
        Err(e) => return Out::Error(e, e.to_string()),
    };
    loop {
        let step = match round.poll() {
            Ok(s) => s,
            Err(e) => return Out::Error(e, e.to_string()),
        };
        match step {
            Step::Resolve { param } => {
                let inputs: Value =
                    serde_json::from_str(&round.resolve_inputs_json().unwrap()).unwrap();
                let r = match plan.name(param).unwrap() {
                    "airport" if inputs["destination"] == "London" => {
                        round.resolve_value("\"LHR\"")
                    }
                    "airport" => round.resolve_message(&format!(
                        "Which airport in {}?",
                        inputs["destination"].as_str().unwrap()
                    )),
                    "proceed" => round.resolve_question(
                        &json!({"message": format!(
                            "Book a flight to {} on {}?",
                            inputs["destination"].as_str().unwrap(),
                            inputs["date"].as_str().unwrap()
                        )})
                        .to_string(),
                    ),
                    "pick" => round.resolve_question(r#"{"roots":{}}"#),
                    other => panic!("no resolver for {other}"),
                };
                if let Err(e) = r {
                    assert!(round.error().is_some(), "host error: {e}");
                }
            }
            Step::Ask { .. } => panic!("a client that cannot be asked was asked"),
            Step::Done => {
                return Out::Done(serde_json::from_str(&round.values_json().unwrap()).unwrap())
            }
            Step::InputRequired => {
                let requests =
                    serde_json::from_str(&round.input_requests_json(false).unwrap()).unwrap();
                return Out::Ask(requests, round.request_state_json().unwrap());
            }
            Step::Fallback => {
                let text = round.fallback_result_json().unwrap();
                return Out::Fallback(serde_json::from_str(&text).unwrap());
            }
        }
    }
}

fn call(decl: &str, args: Value) -> Out {
    call_with(decl, args, Capabilities::NONE, Era::Modern, None)
}

/// `(name, question, required)` of a fallback result's `_meta` list.
fn listed(result: &Value) -> Vec<(String, String, bool)> {
    result["_meta"][FALLBACK_META_KEY]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["question"].as_str().unwrap().to_owned(),
                e["required"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn entry<'v>(result: &'v Value, name: &str) -> &'v Value {
    result["_meta"][FALLBACK_META_KEY]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

fn listing(decl: &str, schema: &str, caps: Capabilities) -> (Value, bool) {
    let plan: Plan<'_, 16> = Plan::compile(decl).unwrap();
    let mut out = Vec::new();
    let private = plan.write_input_schema(schema, caps, &mut out).unwrap();
    (serde_json::from_slice(&out).unwrap(), private)
}

#[test]
fn listing_shows_every_parameter_that_may_fall_back_as_an_optional_property() {
    let decl = booking(true, false);
    let schema = r#"{"type":"object","properties":{"item":{"type":"string"}},"required":["item"]}"#;
    let (listed, private) = listing(&decl, schema, Capabilities::NONE);
    assert!(private, "a listing that differs by client is private");
    let props = listed["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["item", "destination", "date", "airport", "proceed", "seat"]
    );
    assert_eq!(
        listed["required"],
        json!(["item"]),
        "the added properties are optional"
    );
    assert_eq!(
        props["destination"],
        json!({"description": "Where would you like to fly?", "title": "Destination", "type": "string"})
    );
    // A resolver's parameter is described by what its question depends on.
    assert_eq!(
        props["airport"]["description"],
        "A question for the user that depends on destination."
    );
    assert_eq!(
        props["proceed"],
        json!({"description": "A question for the user that depends on destination and date.",
               "title": "Proceed", "type": "boolean"})
    );
    assert_eq!(
        props["seat"],
        json!({"description": "Window or aisle?", "enum": ["window", "aisle"], "title": "Seat", "type": "string"})
    );
    // No properties object: one is added.
    let (listed, _) = listing(&decl, r#"{"type":"object"}"#, Capabilities::NONE);
    assert_eq!(listed["properties"].as_object().unwrap().len(), 5);
}

#[test]
fn a_form_client_sees_the_listing_unchanged() {
    let schema = r#"{"type":"object", "properties":{}}"#;
    for (decl, private) in [(booking(true, false), true), (booking(false, false), false)] {
        let plan: Plan<'_, 16> = Plan::compile(&decl).unwrap();
        let mut out = Vec::new();
        let got = plan
            .write_input_schema(schema, Capabilities::FORM, &mut out)
            .unwrap();
        assert_eq!(
            got, private,
            "cacheScope private only where the listing differs by client"
        );
        assert_eq!(out, schema.as_bytes(), "byte for byte");
        assert_eq!(plan.has_fallback(), private);
    }
    // Without the fallback a client that cannot be asked sees it unchanged too.
    let (listed, private) = listing(&booking(false, false), schema, Capabilities::NONE);
    assert!(!private);
    assert_eq!(listed, json!({"type": "object", "properties": {}}));
}

#[test]
fn an_input_schema_that_is_not_an_object_is_an_error_naming_it() {
    let decl = booking(true, false);
    let plan: Plan<'_, 16> = Plan::compile(&decl).unwrap();
    for bad in ["[]", "{", ""] {
        let e = plan
            .write_input_schema(bad, Capabilities::NONE, &mut Vec::new())
            .unwrap_err();
        assert!(matches!(e, elicit_core::Error::InputSchema { .. }), "{e:?}");
        assert!(e.to_string().starts_with("Invalid input_schema: "), "{e}");
    }
}

#[test]
fn a_call_without_arguments_lists_what_can_be_asked_now() {
    let out = call(&booking(true, false), json!({}));
    let result = out.fallback();
    assert_eq!(result["isError"], true);
    assert!(result.get("structuredContent").is_none());
    assert_eq!(
        listed(result),
        [
            (
                "destination".into(),
                "Where would you like to fly?".into(),
                true
            ),
            ("date".into(), "When would you like to fly?".into(), true),
            ("seat".into(), "Window or aisle?".into(), false),
        ],
        "airport and proceed need answers first"
    );
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "book_flight needs answers from the user before it can run. \
Ask the user these questions (do not answer them yourself), then call book_flight again with the \
same arguments plus each answer as the argument of the same name:\n\
- destination: Where would you like to fly?\n\
- date: When would you like to fly?\n\
- seat (optional): Window or aisle?"}])
    );
    // The handshake era the same way: nothing is asked over the back-channel.
    let out = call_with(
        &booking(true, false),
        json!({}),
        Capabilities::NONE,
        Era::Handshake,
        None,
    );
    let handshake = out.fallback();
    assert_eq!(handshake["content"], result["content"]);
    assert_eq!(handshake["_meta"], result["_meta"]);
    // A complete result on 2026-07-28 only.
    assert_eq!(result["resultType"], "complete");
    assert!(handshake.get("resultType").is_none());
    assert_eq!(
        entry(result, "seat")["schema"],
        json!({"description": "Window or aisle?", "enum": ["window", "aisle"], "title": "Seat", "type": "string"})
    );
}

#[test]
fn arguments_answer_and_the_next_questions_follow() {
    let decl = booking(true, false);
    let out = call(&decl, json!({"destination": "Paris", "date": "2026-01-02"}));
    let result = out.fallback();
    assert_eq!(
        listed(result),
        [
            ("airport".into(), "Which airport in Paris?".into(), true),
            (
                "proceed".into(),
                "Book a flight to Paris on 2026-01-02?".into(),
                true
            ),
            ("seat".into(), "Window or aisle?".into(), false),
        ]
    );
    assert_eq!(
        entry(result, "proceed")["schema"],
        json!({"description": "Book a flight to Paris on 2026-01-02?", "title": "Proceed", "type": "boolean"})
    );
}

/// What a form client's call comes to, answered `answers`, round by round.
fn form_values(decl: &str, answers: &Value) -> Value {
    let mut replies: Option<String> = None;
    let mut state: Option<String> = None;
    for _ in 0..5 {
        let plan: Plan<'_, 16> = Plan::compile(decl).unwrap();
        let mut ws = vec![0u8; 4096];
        let inputs = Inputs::modern("{}", state.as_deref(), replies.as_deref());
        let mut round = Round::new(&plan, Era::Modern, inputs, &mut ws).unwrap();
        loop {
            match round.poll().unwrap() {
                Step::Resolve { param } => {
                    let i: Value =
                        serde_json::from_str(&round.resolve_inputs_json().unwrap()).unwrap();
                    match plan.name(param).unwrap() {
                        "airport" if i["destination"] == "London" => round.resolve_value("\"LHR\"").unwrap(),
                        "airport" => round.resolve_message(&format!("Which airport in {}?", i["destination"].as_str().unwrap())).unwrap(),
                        _ => round.resolve_question(&json!({"message": format!("Book a flight to {} on {}?", i["destination"].as_str().unwrap(), i["date"].as_str().unwrap())}).to_string()).unwrap(),
                    }
                }
                Step::Done => return serde_json::from_str(&round.values_json().unwrap()).unwrap(),
                Step::InputRequired => {
                    let reqs: Value =
                        serde_json::from_str(&round.input_requests_json(false).unwrap()).unwrap();
                    let mut r = serde_json::Map::new();
                    for k in reqs.as_object().unwrap().keys() {
                        r.insert(
                            k.clone(),
                            json!({"action": "accept", "content": {"value": answers[k]}}),
                        );
                    }
                    let next_state = round.request_state_json().unwrap();
                    drop(round);
                    replies = Some(Value::Object(r).to_string());
                    state = Some(next_state);
                    break;
                }
                other => panic!("{other:?}"),
            }
        }
    }
    panic!("no end")
}

#[test]
fn a_call_with_everything_completes_as_a_form_client_does() {
    let decl = booking(true, false);
    let all = json!({"destination": "Paris", "date": "2026-01-02", "airport": "CDG",
                     "proceed": true, "seat": "window"});
    let values = call(&decl, all.clone());
    assert_eq!(values.done(), &form_values(&decl, &all));
    assert_eq!(
        values.done(),
        &json!({"destination": "Paris", "date": "2026-01-02", "airport": "CDG", "proceed": true, "seat": "window"})
    );
    // An optional parameter not supplied takes its default (null is "not supplied").
    for seat in [None, Some(Value::Null)] {
        let mut args = all.clone();
        match seat {
            None => args.as_object_mut().unwrap().remove("seat"),
            Some(v) => args.as_object_mut().unwrap().insert("seat".into(), v),
        };
        assert_eq!(call(&decl, args).done()["seat"], Value::Null);
    }
    // The handshake era the same way, asking nothing.
    let out = call_with(&decl, all, Capabilities::NONE, Era::Handshake, None);
    assert_eq!(out.done()["airport"], "CDG");
}

#[test]
fn a_resolvers_value_wins_over_an_argument() {
    let decl = booking(true, false);
    let out = call(
        &decl,
        json!({"destination": "London", "date": "2026-01-02", "airport": "CDG", "proceed": true}),
    );
    assert_eq!(out.done()["airport"], "LHR");
    // And an argument answers only a question that would have been asked: with no
    // destination, proceed's question is not asked, so its argument does not settle it.
    let out = call(&decl, json!({"proceed": true, "airport": "CDG"}));
    let names: Vec<String> = listed(out.fallback())
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(names, ["destination", "date", "seat"]);
}

#[test]
fn arguments_are_checked_as_answers_with_the_same_messages() {
    let decl = booking(true, false);
    let base =
        json!({"destination": "Paris", "date": "2026-01-02", "airport": "CDG", "proceed": true});
    for (key, bad) in [
        ("proceed", json!("yes")),
        ("seat", json!("middle")),
        ("destination", json!(3)),
    ] {
        let mut args = base.clone();
        args[key] = bad;
        let out = call(&decl, args);
        let (e, message) = out.error();
        assert!(
            matches!(e, elicit_core::Error::SchemaMismatch { .. }),
            "{e:?}"
        );
        assert_eq!(
            message,
            format!("The answer for '{key}' does not match the requested schema")
        );
    }
}

#[test]
fn without_the_fallback_a_client_that_cannot_be_asked_gets_32021() {
    for args in [json!({}), json!({"destination": "Paris"})] {
        let out = call(&booking(false, false), args);
        let (e, _) = out.error();
        assert!(
            matches!(e, elicit_core::Error::MissingCapability { .. }),
            "{e:?}"
        );
    }
    let out = call_with(
        &booking(false, false),
        json!({}),
        Capabilities::NONE,
        Era::Handshake,
        None,
    );
    assert!(matches!(
        out.error().0,
        elicit_core::Error::MissingCapability { .. }
    ));
}

#[test]
fn a_form_client_is_asked_as_before() {
    for args in [json!({}), json!({"destination": "Paris"})] {
        let with = call_with(
            &booking(true, false),
            args.clone(),
            Capabilities::FORM,
            Era::Modern,
            None,
        );
        let without = call_with(
            &booking(false, false),
            args,
            Capabilities::FORM,
            Era::Modern,
            None,
        );
        assert!(matches!(with, Out::Ask(..)), "{with:?}");
        assert_eq!(with, without);
    }
}

#[test]
fn a_parameter_that_may_not_fall_back_keeps_32021() {
    let decl = booking(true, true);
    let plan: Plan<'_, 16> = Plan::compile(&decl).unwrap();
    assert!(!plan.falls_back(plan.index_of("proceed").unwrap()));
    assert!(plan.falls_back(plan.index_of("airport").unwrap()));
    let (listed, _) = listing(&decl, "{}", Capabilities::NONE);
    assert!(listed["properties"].get("proceed").is_none());
    // Before proceed is asked, the others fall back; once it must be asked, -32021.
    assert!(matches!(call(&decl, json!({})), Out::Fallback(_)));
    let out = call(
        &decl,
        json!({"destination": "Paris", "date": "2026-01-02", "airport": "CDG"}),
    );
    let (e, message) = out.error();
    assert!(
        matches!(
            e,
            elicit_core::Error::MissingCapability {
                kind: InputKind::Form,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(message.contains("'proceed'"), "{message}");
    // Even with an argument for it.
    let out = call(
        &decl,
        json!({"destination": "Paris", "date": "2026-01-02", "proceed": true}),
    );
    assert!(matches!(
        out.error().0,
        elicit_core::Error::MissingCapability { .. }
    ));
}

const KINDS: &str = r#"{"tool":"kinds","fallback":"arguments","parameters":[
  {"name":"name","elicit":{"message":"Your name?"}},
  {"name":"paid","elicit":{"message":"Pay","url":"https://pay.example"}},
  {"name":"roots","elicit":{"roots":{}}}]}"#;

#[test]
fn url_and_sampling_never_fall_back_roots_do_as_uris() {
    let plan: Plan<'_, 16> = Plan::compile(KINDS).unwrap();
    assert_eq!(
        [0, 1, 2].map(|i| plan.falls_back(i)),
        [true, false, true],
        "URL mode does not fall back"
    );
    let e = Plan::<'_, 4>::compile(
        r#"{"tool":"t","fallback":"arguments","parameters":[{"name":"s","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":5},"fallback":true}}]}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("never fall back"), "{e}");
    // A client with URL mode only: name and roots fall back, paid is asked.
    let url_only = Capabilities::NONE.with(InputKind::Url);
    let (listed_schema, _) = listing(KINDS, "{}", url_only);
    assert_eq!(
        listed_schema["properties"]["roots"],
        json!({"description": "Which folders or files may this tool work in? Give their URIs.",
               "items": {"format": "uri", "type": "string"}, "type": "array"})
    );
    assert!(listed_schema["properties"].get("paid").is_none());
    let out = call_with(KINDS, json!({}), url_only, Era::Modern, None);
    let result = out.fallback();
    assert_eq!(
        listed(result),
        [
            ("name".into(), "Your name?".into(), true),
            (
                "roots".into(),
                "Which folders or files may this tool work in? Give their URIs.".into(),
                true
            ),
        ]
    );
    // Answered by arguments, the URL question is asked; roots settle as a roots array.
    let args = json!({"name": "Zoë", "roots": ["file:///home/z", "file:///tmp"]});
    let out = call_with(KINDS, args.clone(), url_only, Era::Modern, None);
    let Out::Ask(requests, state) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(
        requests.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["paid"]
    );
    assert!(!state.contains("Zo"), "arguments are not carried: {state}");
    let replies = json!({"paid": {"action": "accept"}}).to_string();
    let out = call_with(KINDS, args, url_only, Era::Modern, Some(&replies));
    assert_eq!(
        out.done(),
        &json!({"name": "Zoë", "paid": true,
                "roots": [{"uri": "file:///home/z"}, {"uri": "file:///tmp"}]})
    );
    // Roots that are not an array of URIs get the answer's error.
    for bad in [json!("file:///x"), json!([3]), json!(["not a uri"])] {
        let out = call_with(
            KINDS,
            json!({"name": "Z", "roots": bad}),
            url_only,
            Era::Modern,
            None,
        );
        assert_eq!(
            out.error().1,
            "The answer for 'roots' does not match the requested schema"
        );
    }
    // A client with nothing: the URL question may not fall back.
    let out = call(KINDS, json!({"name": "Z", "roots": []}));
    assert!(matches!(
        out.error().0,
        elicit_core::Error::MissingCapability {
            kind: InputKind::Url,
            ..
        }
    ));
}

#[test]
fn a_roots_resolver_falls_back_too() {
    let decl = r#"{"tool":"t","fallback":"arguments","parameters":[
      {"name":"pick","elicit":{"needs":[],"kind":"roots"}}]}"#;
    let out = call(decl, json!({}));
    assert_eq!(listed(out.fallback())[0].0, "pick");
    assert_eq!(call(decl, json!({"pick": []})).done(), &json!({"pick": []}));
}

#[test]
fn declarations_and_plan_bytes_carry_the_option() {
    for (decl, problem) in [
        (
            r#"{"tool":"t","fallback":"yes","parameters":[]}"#,
            "\"fallback\" must be \"arguments\"",
        ),
        (
            r#"{"tool":"t","fallback":true,"parameters":[]}"#,
            "\"fallback\" must be \"arguments\"",
        ),
        (
            r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?","fallback":"no"}}]}"#,
            "must be a boolean",
        ),
    ] {
        let e = Plan::<'_, 4>::compile(decl).unwrap_err();
        assert!(e.to_string().contains(problem), "{e}");
    }
    // "fallback": false without the tool's option is allowed and changes nothing.
    let plan: Plan<'_, 4> = Plan::compile(
        r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?","fallback":false}}]}"#,
    )
    .unwrap();
    assert!(!plan.has_fallback());
    #[cfg(feature = "serde")]
    {
        let decl = booking(true, true);
        let plan: Plan<'_, 16> = Plan::compile(&decl).unwrap();
        let bytes = plan.to_postcard_vec();
        assert_eq!(bytes[0], 3, "plan bytes version 3 carries the option");
        let loaded: Plan<'_, 16> = Plan::from_postcard(&bytes).unwrap();
        for i in 0..plan.len() {
            assert_eq!(loaded.falls_back(i), plan.falls_back(i), "{i}");
        }
        // A fallback flag on a model argument (or a URL question) is refused on load.
        let plain: Plan<'_, 4> =
            Plan::compile(r#"{"tool":"t","parameters":[{"name":"x"}]}"#).unwrap();
        let mut bytes = plain.to_postcard_vec();
        let last = bytes.len() - 2; // the parameter's fallback flag, before order's length
        assert_eq!(bytes[last], 0);
        bytes[last] = 1;
        let e = Plan::<'_, 4>::from_postcard(&bytes).unwrap_err();
        assert!(e.to_string().contains("fall back"), "{e}");
    }
}

#[test]
fn the_typed_builder_declares_the_same() {
    use elicit_core::decl::{Param, Tool};
    let built = Tool::new("t")
        .fallback_arguments(true)
        .param(Param::ask("a", "A?"))
        .param(Param::ask("pin", "PIN?").no_fallback())
        .param(Param::resolver("r", &["a"]).no_fallback())
        .param(Param::roots("roots"))
        .param(Param::url("paid", "Pay", "https://pay.example").no_fallback())
        .to_json();
    let plan: Plan<'_, 8> = Plan::compile(&built).unwrap();
    assert!(plan.has_fallback());
    assert_eq!(
        (0..5).map(|i| plan.falls_back(i)).collect::<Vec<_>>(),
        [true, false, false, true, false]
    );
    let plain_json = Tool::new("t").param(Param::ask("a", "A?")).to_json();
    let plain: Plan<'_, 8> = Plan::compile(&plain_json).unwrap();
    assert!(!plain.has_fallback());
}
