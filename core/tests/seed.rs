//! Engine-level counterparts of the seed's test file
//! (`reference/oracle/tests/test_elicit_resolution.py`): one Rust test per seed test,
//! in a module named after the seed's class. The seed drives a FastMCP server through a
//! client; here the test host in `common` plays both the server (running resolvers as
//! closures) and the client (answering every question), so each test asserts the same
//! behaviour through the engine. The tool body is the test's own code over the values.
//!
//! # Mapping (seed test → Rust test)
//!
//! | seed test                                                            | Rust test |
//! |----------------------------------------------------------------------|-----------|
//! | TestSchema::test_elicited_parameter_is_hidden                        | schema::elicited_parameter_is_hidden |
//! | TestSchema::test_optional_elicited_parameter_is_hidden               | schema::optional_elicited_parameter_is_hidden |
//! | TestModernProtocol::test_single_question_completes                   | modern_protocol::single_question_completes |
//! | TestModernProtocol::test_body_does_not_run_until_answered            | modern_protocol::body_does_not_run_until_answered |
//! | TestModernProtocol::test_independent_questions_share_one_round       | modern_protocol::independent_questions_share_one_round |
//! | TestModernProtocol::test_dependent_questions_take_a_round_each       | modern_protocol::dependent_questions_take_a_round_each |
//! | TestModernProtocol::test_dependent_question_quotes_the_earlier_answer| modern_protocol::dependent_question_quotes_the_earlier_answer |
//! | TestModernProtocol::test_question_built_from_a_tool_argument         | modern_protocol::question_built_from_a_tool_argument |
//! | TestModernProtocol::test_earlier_answers_survive_later_rounds        | modern_protocol::earlier_answers_survive_later_rounds |
//! | TestDeclining::test_optional_falls_back_to_the_default[decline,cancel]| declining::optional_falls_back_to_the_default (both actions) |
//! | TestDeclining::test_required_fails_the_call[decline,cancel]          | declining::required_fails_the_call (both actions) |
//! | TestHandshakeProtocol::test_same_tool_works_unchanged                | handshake_protocol::same_tool_works_unchanged |
//! | TestHandshakeProtocol::test_dependent_questions_still_ordered        | handshake_protocol::dependent_questions_still_ordered |
//! | TestHandshakeProtocol::test_optional_falls_back_to_the_default       | handshake_protocol::optional_falls_back_to_the_default |
//! | TestResponseTypes::test_model                                        | response_types::model |
//! | TestResponseTypes::test_scalar_int                                   | response_types::scalar_int |
//! | TestInterop::test_with_context_and_depends                           | interop::with_context_and_depends (see note 1) |
//! | TestConditionalResolvers::test_returning_a_value_asks_nothing        | conditional_resolvers::returning_a_value_asks_nothing |
//! | TestConditionalResolvers::test_the_same_resolver_still_asks_when_it_must | conditional_resolvers::the_same_resolver_still_asks_when_it_must |
//! | TestConditionalResolvers::test_resolver_beats_a_stale_answer_on_a_later_round | conditional_resolvers::resolver_beats_a_stale_answer_on_a_later_round |
//! | TestConditionalResolvers::test_explicit_response_type_wins_over_the_annotation | conditional_resolvers::explicit_response_type_wins_over_the_annotation |
//! | TestConditionalResolvers::test_declared_type_must_match_the_parameter| conditional_resolvers::declared_type_must_match_the_parameter |
//! | TestDrivingLegsByHand::test_each_leg_is_visible                      | driving_legs_by_hand::each_leg_is_visible |
//! | TestDrivingLegsByHand::test_independent_questions_arrive_in_one_leg  | driving_legs_by_hand::independent_questions_arrive_in_one_leg |
//! | TestDrivingLegsByHand::test_a_resolver_that_knows_asks_nothing       | driving_legs_by_hand::a_resolver_that_knows_asks_nothing |
//! | TestAskedOnce::test_each_question_reaches_the_user_once              | asked_once::each_question_reaches_the_user_once |
//! | TestOrdering::test_independent_questions_keep_signature_order        | ordering::independent_questions_keep_signature_order |
//! | TestOrdering::test_confirmation_quoting_details_waits_for_them       | ordering::confirmation_quoting_details_waits_for_them |
//! | TestQuestionDependencies::test_question_resolves_its_own_depends     | question_dependencies::question_resolves_its_own_depends (note 2) |
//! | TestQuestionDependencies::test_async_question                        | question_dependencies::async_question (note 3) |
//! | TestQuestionDependencies::test_unresolvable_question_dependency_names_itself | question_dependencies::unresolvable_question_dependency_names_itself |
//! | TestQuestionDigest::test_answer_to_a_changed_question_is_re_asked    | question_digest::answer_to_a_changed_question_is_re_asked |
//! | TestQuestionDigest::test_unreadable_state_is_treated_as_no_progress  | question_digest::unreadable_state_is_treated_as_no_progress |
//! | TestRegistrationErrors::test_question_asks_for_an_unknown_name       | registration_errors::question_asks_for_an_unknown_name |
//! | TestRegistrationErrors::test_cyclic_questions                        | registration_errors::cyclic_questions |
//! | TestRegistrationErrors::test_mixing_with_a_hand_returned_ask         | registration_errors::mixing_with_a_hand_returned_ask |
//! | TestRegistrationErrors::test_marker_buried_out_of_reach              | registration_errors::marker_buried_out_of_reach (note 4) |
//! | TestRegistrationErrors::test_optional_spellings_are_equivalent[none-inside,none-outside] | registration_errors::optional_spellings_are_equivalent (note 5) |
//!
//! Notes on seed tests about Python typing, which have no literal meaning here:
//!
//! 1. `Context` and `Depends(...)` injection into the tool body is the host's business
//!    (the engine never sees those parameters' values). The counterpart asserts what the
//!    engine does own: elicited parameters sit alongside parameters the model does not
//!    supply (an injected `ctx`, a `style` with a default), which are neither asked nor
//!    required, and only the elicited one is settled.
//! 2. A resolver's own `Depends(...)` is resolved in the host, which runs the resolver;
//!    the counterpart is a resolver that needs no parameter and builds its message from
//!    host-side data.
//! 3. There are no coroutines in a sans-IO engine: a resolver runs whenever the host
//!    likes. The counterpart leaves the Resolve step unanswered across polls (the round
//!    keeps returning the same step) and answers later.
//! 4. The JSON declaration has no nested annotations, so there is no "marker inside
//!    `list[...]`". The counterpart puts `elicit` where it cannot be honoured (on a
//!    field of an object answer type, and inside a type) and expects a compile error.
//! 5. `Annotated[str | None, ...] = None` and `Annotated[str, ...] | None = None` are one
//!    spelling in the declaration: `"default": null`. The counterpart asserts that the
//!    parameter is elicited, and that a refusal settles to `null` in both eras.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use serde_json::{json, Value};

fn book_destination(message: &str) -> Value {
    json!({"tool": "book", "parameters": [
        {"name": "destination", "elicit": {"message": message}}
    ]})
}

fn destination_then_airport() -> Value {
    json!({"tool": "book", "parameters": [
        {"name": "destination", "elicit": {"message": "Where to?"}},
        {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
    ]})
}

fn which_airport(inputs: &Value) -> Either {
    ask(format!(
        "Which airport in {}?",
        inputs["destination"].as_str().unwrap()
    ))
}

fn optional_seat() -> Value {
    json!({"tool": "book", "parameters": [
        {"name": "seat", "default": null, "elicit": {"message": "Window or aisle?"}}
    ]})
}

fn refuse(action: &'static str) -> impl Fn(&Value) -> Value {
    move |_| json!({ "action": action })
}

/// The handshake handler as a client handler.
fn client_of(h: impl Fn(&Value) -> Value) -> impl FnMut(&str, &Value) -> Value {
    move |_, p| h(p)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

mod schema {
    use super::*;
    use elicit_core::Plan;

    #[test]
    fn elicited_parameter_is_hidden() {
        let decl = json!({"tool": "book", "parameters": [
            {"name": "seats", "type": "integer"},
            {"name": "destination", "elicit": {"message": "Where to?"}}
        ]})
        .to_string();
        let plan = Plan::<8>::compile(&decl).unwrap();
        // What a server lists in inputSchema: the parameters that are not elicited.
        let visible: Vec<_> = (0..plan.len())
            .filter(|&i| !plan.is_elicited(i))
            .map(|i| plan.name(i).unwrap())
            .collect();
        assert_eq!(visible, ["seats"]);
        assert_eq!(plan.resolution_order().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn optional_elicited_parameter_is_hidden() {
        let decl = optional_seat().to_string();
        let plan = Plan::<8>::compile(&decl).unwrap();
        assert!(plan.is_elicited(0));
        assert_eq!((0..plan.len()).filter(|&i| !plan.is_elicited(i)).count(), 0);
    }
}

mod modern_protocol {
    use super::*;

    #[test]
    fn single_question_completes() {
        let host = Host::new(book_destination("Where would you like to fly?"));
        let run = host.client(&json!({}), |_, _| accept_value("Paris"));
        let values = run.result.unwrap();
        assert_eq!(
            format!("Booked {}", s(&values["destination"])),
            "Booked Paris"
        );
        assert_eq!(run.asked, ["Where would you like to fly?"]);
    }

    #[test]
    fn body_does_not_run_until_answered() {
        let host = Host::new(book_destination("Where to?"));
        // The first leg is the question, not values: the body cannot run.
        let first = host.round(&json!({}), None, None);
        assert_eq!(
            first.questions(),
            [("destination".to_string(), "Where to?".to_string())]
        );
        // Drive the whole call and "run the body" on every terminal leg.
        let mut runs = Vec::new();
        let run = host.client(&json!({}), |_, _| accept_value("Paris"));
        if let Ok(v) = &run.result {
            runs.push(s(&v["destination"]).to_owned());
        }
        assert_eq!(runs, ["Paris"]);
        assert_eq!(run.rounds.len(), 1);
    }

    #[test]
    fn independent_questions_share_one_round() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination", "elicit": {"message": "Where to?"}},
            {"name": "date", "elicit": {"message": "When?"}}
        ]}));
        let handler = by_message(vec![
            ("Where", json!("Paris")),
            ("When", json!("2026-08-01")),
        ]);
        let run = host.client(&json!({}), client_of(handler));
        let v = run.result.unwrap();
        assert_eq!(
            format!("{} on {}", s(&v["destination"]), s(&v["date"])),
            "Paris on 2026-08-01"
        );
        assert_eq!(run.rounds.len(), 1);
    }

    #[test]
    fn dependent_questions_take_a_round_each() {
        let host = Host::new(destination_then_airport()).resolver("airport", which_airport);
        let handler = by_message(vec![
            ("Where", json!("Paris")),
            ("Which airport", json!("CDG")),
        ]);
        let run = host.client(&json!({}), client_of(handler));
        let v = run.result.unwrap();
        assert_eq!(
            format!("{}/{}", s(&v["destination"]), s(&v["airport"])),
            "Paris/CDG"
        );
        assert_eq!(run.rounds.len(), 2);
    }

    #[test]
    fn dependent_question_quotes_the_earlier_answer() {
        let host = Host::new(destination_then_airport()).resolver("airport", which_airport);
        let handler = by_message(vec![
            ("Where", json!("Paris")),
            ("Which airport", json!("CDG")),
        ]);
        let run = host.client(&json!({}), client_of(handler));
        assert_eq!(run.asked, ["Where to?", "Which airport in Paris?"]);
        let v = run.result.unwrap();
        assert_eq!(
            format!("{}/{}", s(&v["destination"]), s(&v["airport"])),
            "Paris/CDG"
        );
    }

    #[test]
    fn question_built_from_a_tool_argument() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
        ]}))
        .resolver("airport", which_airport);
        let handler = by_message(vec![("Which airport", json!("ORY"))]);
        let run = host.client(&json!({"destination": "Paris"}), client_of(handler));
        assert_eq!(run.asked, ["Which airport in Paris?"]);
        assert_eq!(run.result.unwrap(), json!({"airport": "ORY"}));
    }

    #[test]
    fn earlier_answers_survive_later_rounds() {
        let host = Host::new(json!({"tool": "chain", "parameters": [
            {"name": "first", "elicit": {"message": "First?"}},
            {"name": "second", "elicit": {"needs": ["first"]}}
        ]}))
        .resolver("second", |i| {
            ask(format!("After {}, then?", s(&i["first"])))
        });
        let handler = by_message(vec![("First", json!("a")), ("After a", json!("b"))]);
        let run = host.client(&json!({}), client_of(handler));
        let v = run.result.unwrap();
        assert_eq!(format!("{}->{}", s(&v["first"]), s(&v["second"])), "a->b");
        // Round two's state still carries round one's answer.
        assert!(run.states[1].contains("\"first\":{\"action\":\"accept\""));
    }
}

mod declining {
    use super::*;

    #[test]
    fn optional_falls_back_to_the_default() {
        for action in ["decline", "cancel"] {
            let host = Host::new(optional_seat());
            let run = host.client(&json!({}), client_of(refuse(action)));
            let v = run.result.unwrap();
            assert_eq!(v, json!({"seat": null}), "{action}");
            assert_eq!(
                v["seat"].as_str().unwrap_or("no preference"),
                "no preference"
            );
        }
    }

    #[test]
    fn required_fails_the_call() {
        for action in ["decline", "cancel"] {
            let host = Host::new(book_destination("Where to?"));
            let run = host.client(&json!({}), client_of(refuse(action)));
            let e = run.result.unwrap_err();
            assert!(
                e.starts_with("Cannot continue without 'destination'"),
                "{e}"
            );
        }
    }
}

mod handshake_protocol {
    use super::*;

    #[test]
    fn same_tool_works_unchanged() {
        let host = Host::new(book_destination("Where would you like to fly?"));
        let run = host.handshake(&json!({}), |_| accept_value("Paris"));
        assert_eq!(run.asked, ["Where would you like to fly?"]);
        let v = run.result.unwrap();
        assert_eq!(format!("Booked {}", s(&v["destination"])), "Booked Paris");
        // The same declaration, modern era.
        let modern = host.client(&json!({}), |_, _| accept_value("Paris"));
        assert_eq!(modern.result.unwrap(), v);
    }

    #[test]
    fn dependent_questions_still_ordered() {
        let host = Host::new(destination_then_airport()).resolver("airport", which_airport);
        let handler = by_message(vec![
            ("Where", json!("Paris")),
            ("Which airport", json!("CDG")),
        ]);
        let run = host.handshake(&json!({}), handler);
        assert_eq!(run.asked, ["Where to?", "Which airport in Paris?"]);
        let v = run.result.unwrap();
        assert_eq!(
            format!("{}/{}", s(&v["destination"]), s(&v["airport"])),
            "Paris/CDG"
        );
    }

    #[test]
    fn optional_falls_back_to_the_default() {
        let host = Host::new(optional_seat());
        let run = host.handshake(&json!({}), refuse("decline"));
        assert_eq!(run.asked, ["Window or aisle?"]);
        assert_eq!(run.result.unwrap(), json!({"seat": null}));
    }
}

mod response_types {
    use super::*;

    #[test]
    fn model() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "airport", "elicit": {"message": "Which airport?"},
             "type": {"type": "object", "title": "Airport", "properties": {"code": "string"}}}
        ]}));
        let run = host.client(
            &json!({}),
            |_, _| json!({"action": "accept", "content": {"code": "CDG"}}),
        );
        assert_eq!(run.result.unwrap()["airport"]["code"], "CDG");
        // Both eras.
        let hs = host.handshake(&json!({}), |params| {
            assert_eq!(params["requestedSchema"]["title"], "Airport");
            json!({"action": "accept", "content": {"code": "CDG"}})
        });
        assert_eq!(hs.result.unwrap(), json!({"airport": {"code": "CDG"}}));
    }

    #[test]
    fn scalar_int() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "seats", "type": "integer", "elicit": {"message": "How many seats?"}}
        ]}));
        let run = host.client(&json!({}), |_, _| accept_value(3));
        let v = run.result.unwrap();
        assert_eq!(v["seats"].as_i64().unwrap() * 2, 6);
    }
}

mod interop {
    use super::*;
    use elicit_core::{Era, Inputs, Plan, Round, Step, Style};

    #[test]
    fn with_context_and_depends() {
        let decl = json!({"tool": "book", "parameters": [
            {"name": "ctx", "default": null},
            {"name": "destination", "elicit": {"message": "Where to?"}},
            {"name": "style", "default": "!"}
        ]})
        .to_string();
        let plan = Plan::<8>::compile(&decl).unwrap();
        assert!(!plan.is_elicited(0) && plan.is_elicited(1) && !plan.is_elicited(2));
        let mut ws = [0u8; 256];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern("{}", None, None),
            &mut ws,
        )
        .unwrap();
        assert_eq!(round.poll().unwrap(), Step::InputRequired);
        let mut state = Vec::new();
        round.write_request_state(&mut state).unwrap();
        let state = String::from_utf8(state).unwrap();
        let replies = accepted(&[("destination", json!("Paris"))]).to_string();
        let mut ws = [0u8; 256];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern("{}", Some(&state), Some(&replies)),
            &mut ws,
        )
        .unwrap();
        assert_eq!(round.poll().unwrap(), Step::Done);
        let mut values = Vec::new();
        round.write_values(Style::WIRE, &mut values).unwrap();
        assert_eq!(values, br#"{"destination":"Paris"}"#);
        let mut style = Vec::new();
        round.write_value_of(2, Style::WIRE, &mut style).unwrap();
        let body = format!(
            "x:{}{}",
            serde_json::from_slice::<Value>(&values).unwrap()["destination"]
                .as_str()
                .unwrap(),
            serde_json::from_slice::<Value>(&style)
                .unwrap()
                .as_str()
                .unwrap()
        );
        assert_eq!(body, "x:Paris!");
    }
}

mod conditional_resolvers {
    use super::*;
    use std::cell::RefCell;

    fn london_knows() -> Value {
        json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
        ]})
    }

    fn which_airport_unless_london(i: &Value) -> Either {
        if i["destination"] == "London" {
            value("LHR")
        } else {
            which_airport(i)
        }
    }

    #[test]
    fn returning_a_value_asks_nothing() {
        let host = Host::new(london_knows()).resolver("airport", which_airport_unless_london);
        let run = host.client(&json!({"destination": "London"}), |_, p| {
            panic!("should not have asked: {}", p["message"])
        });
        assert_eq!(run.result.unwrap(), json!({"airport": "LHR"}));
        assert_eq!(run.rounds.len(), 0);
    }

    #[test]
    fn the_same_resolver_still_asks_when_it_must() {
        let host = Host::new(london_knows()).resolver("airport", which_airport_unless_london);
        let handler = by_message(vec![("Which airport", json!("CDG"))]);
        let run = host.client(&json!({"destination": "Paris"}), client_of(handler));
        assert_eq!(run.result.unwrap(), json!({"airport": "CDG"}));
    }

    #[test]
    fn resolver_beats_a_stale_answer_on_a_later_round() {
        let known: RefCell<Vec<&str>> = RefCell::new(Vec::new());
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "date", "elicit": {"message": "When?"}},
            {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
        ]}))
        .resolver("airport", |i| match known.borrow().first() {
            Some(k) => value(*k),
            None => which_airport(i),
        });
        let run = host.client(&json!({"destination": "Paris"}), |_, p| {
            if s(&p["message"]).contains("Which airport") {
                known.borrow_mut().push("LHR");
                accept_value("CDG")
            } else {
                accept_value("2026-08-01")
            }
        });
        let v = run.result.unwrap();
        // The client answered "CDG", but by the next round the resolver knew "LHR".
        assert_eq!(
            format!("Paris/{}/{}", s(&v["airport"]), s(&v["date"])),
            "Paris/LHR/2026-08-01"
        );
    }

    #[test]
    fn explicit_response_type_wins_over_the_annotation() {
        let airport =
            json!({"type": "object", "title": "Airport", "properties": {"code": "string"}});
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "type": airport.clone(),
             "elicit": {"needs": ["destination"], "declares": airport.clone()}}
        ]}))
        .resolver("airport", |i| {
            ask_typed(
                format!("Which airport in {}?", s(&i["destination"])),
                airport.clone(),
            )
        });
        let run = host.client(&json!({"destination": "Paris"}), |_, p| {
            assert_eq!(p["requestedSchema"]["title"], "Airport");
            json!({"action": "accept", "content": {"code": "CDG"}})
        });
        assert_eq!(run.result.unwrap()["airport"]["code"], "CDG");

        // The question's type is the one asked, even over a different parameter type.
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "n", "type": "string", "elicit": {"needs": []}}
        ]}))
        .resolver("n", |_| ask_typed("How many?", json!("integer")));
        let first = host.round(&json!({}), None, None);
        let (requests, _) = first.ask();
        assert_eq!(
            requests["n"]["params"]["requestedSchema"]["properties"]["value"]["type"],
            "integer"
        );
    }

    #[test]
    fn declared_type_must_match_the_parameter() {
        let e = compile_error(&json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "type": "string", "elicit": {"needs": ["destination"],
             "declares": {"type": "object", "title": "Airport", "properties": {"code": "string"}}}}
        ]}));
        assert_eq!(
            e,
            "The resolver for parameter 'airport' of 'book' declares it elicits \
             <class '__main__.Airport'>, but the parameter is annotated <class 'str'>. \
             Make the two agree."
        );
    }
}

mod driving_legs_by_hand {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn each_leg_is_visible() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination", "elicit": {"message": "Where would you like to fly?"}},
            {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
        ]}))
        .resolver("airport", which_airport);
        let args = json!({});
        let first = host.round(&args, None, None);
        assert_eq!(
            first.questions(),
            q(&[("destination", "Where would you like to fly?")])
        );
        let second = host.round(
            &args,
            Some(first.ask().1),
            Some(&accepted(&[("destination", json!("Paris"))])),
        );
        // Only the airport — the destination is not asked again.
        assert_eq!(
            second.questions(),
            q(&[("airport", "Which airport in Paris?")])
        );
        let last = host.round(
            &args,
            Some(second.ask().1),
            Some(&accepted(&[("airport", json!("CDG"))])),
        );
        let v = last.values();
        assert_eq!(
            format!("Booked {}/{}", s(&v["destination"]), s(&v["airport"])),
            "Booked Paris/CDG"
        );
    }

    #[test]
    fn independent_questions_arrive_in_one_leg() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination", "elicit": {"message": "Where to?"}},
            {"name": "date", "elicit": {"message": "When?"}}
        ]}));
        let first = host.round(&json!({}), None, None);
        assert_eq!(
            first.questions(),
            q(&[("destination", "Where to?"), ("date", "When?")])
        );
        let last = host.round(
            &json!({}),
            Some(first.ask().1),
            Some(&accepted(&[
                ("destination", json!("Paris")),
                ("date", json!("2026-08-01")),
            ])),
        );
        assert_eq!(
            last.values(),
            &json!({"destination": "Paris", "date": "2026-08-01"})
        );
    }

    #[test]
    fn a_resolver_that_knows_asks_nothing() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}}
        ]}))
        .resolver("airport", |i| {
            if i["destination"] == "London" {
                value("LHR")
            } else {
                ask("Which?")
            }
        });
        // Terminal on the first leg — there was never anything to ask.
        let result = host.round(&json!({"destination": "London"}), None, None);
        assert_eq!(result.values(), &json!({"airport": "LHR"}));
    }
}

mod asked_once {
    use super::*;

    #[test]
    fn each_question_reaches_the_user_once() {
        let host = Host::new(json!({"tool": "chain", "parameters": [
            {"name": "a", "elicit": {"message": "first?"}},
            {"name": "b", "elicit": {"needs": ["a"]}},
            {"name": "c", "elicit": {"needs": ["b"]}}
        ]}))
        .resolver("b", |i| ask(format!("second, given {}?", s(&i["a"]))))
        .resolver("c", |i| ask(format!("third, given {}?", s(&i["b"]))));
        let mut n = 0;
        let run = host.client(&json!({}), |_, _| {
            n += 1;
            accept_value(n.to_string())
        });
        assert_eq!(run.asked, ["first?", "second, given 1?", "third, given 2?"]);
        let v = run.result.unwrap();
        assert_eq!(format!("{}{}{}", s(&v["a"]), s(&v["b"]), s(&v["c"])), "123");
    }
}

mod ordering {
    use super::*;

    #[test]
    fn independent_questions_keep_signature_order() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination", "elicit": {"message": "Where?"}},
            {"name": "date", "elicit": {"message": "When?"}},
            {"name": "seat", "elicit": {"message": "Window or aisle?"}}
        ]}));
        let handler = by_message(vec![
            ("Where", json!("Paris")),
            ("When", json!("2026-08-01")),
            ("Window", json!("window")),
        ]);
        let run = host.client(&json!({}), client_of(handler));
        assert_eq!(run.round_names(), [["destination", "date", "seat"]]);
        run.result.unwrap();
    }

    #[test]
    fn confirmation_quoting_details_waits_for_them() {
        let host = Host::new(json!({"tool": "book", "parameters": [
            {"name": "destination", "elicit": {"message": "Where?"}},
            {"name": "date", "elicit": {"message": "When?"}},
            {"name": "proceed", "type": "boolean",
             "elicit": {"needs": ["destination", "date"], "declares": "boolean"}}
        ]}))
        .resolver("proceed", |i| {
            ask(format!(
                "Book a flight to {} on {}?",
                s(&i["destination"]),
                s(&i["date"])
            ))
        });
        let run = host.client(&json!({}), |_, p| {
            let m = s(&p["message"]);
            if m.contains("Where") {
                accept_value("Paris")
            } else if m.contains("When") {
                accept_value("2026-08-01")
            } else {
                accept_value(true)
            }
        });
        assert_eq!(
            run.round_names(),
            vec![vec!["destination", "date"], vec!["proceed"]]
        );
        assert_eq!(
            run.asked.last().unwrap(),
            "Book a flight to Paris on 2026-08-01?"
        );
        let v = run.result.unwrap();
        let body = if v["proceed"] == true {
            format!("Booked {}", s(&v["destination"]))
        } else {
            "Cancelled".into()
        };
        assert_eq!(body, "Booked Paris");
    }
}

mod question_dependencies {
    use super::*;
    use elicit_core::{Era, Inputs, Plan, Round, Step};

    #[test]
    fn question_resolves_its_own_depends() {
        // The resolver's own dependency (house_prefix) is built by the host.
        let house_prefix = || "[ACME]";
        let host = Host::new(json!({"tool": "seat", "parameters": [
            {"name": "choice", "elicit": {"needs": []}}
        ]}))
        .resolver("choice", |_| {
            ask(format!("{} Window or aisle?", house_prefix()))
        });
        let handler = by_message(vec![("Window or aisle", json!("window"))]);
        let run = host.client(&json!({}), client_of(handler));
        assert_eq!(run.asked, ["[ACME] Window or aisle?"]);
        assert_eq!(run.result.unwrap(), json!({"choice": "window"}));
    }

    #[test]
    fn async_question() {
        let decl = json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "elicit": {"needs": ["destination"]}}
        ]})
        .to_string();
        let plan = Plan::<4>::compile(&decl).unwrap();
        let args = r#"{"destination":"Paris"}"#;
        let mut ws = [0u8; 512];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(args, None, None),
            &mut ws,
        )
        .unwrap();
        assert_eq!(round.poll().unwrap(), Step::Resolve { param: 1 });
        // The host is "awaiting" the resolver: the round just waits for it.
        assert_eq!(round.poll().unwrap(), Step::Resolve { param: 1 });
        let mut inputs = Vec::new();
        round.write_resolve_inputs(&mut inputs).unwrap();
        assert_eq!(inputs.len(), 23);
        round
            .resolve_question(r#"{"message":"Which airport in Paris?"}"#)
            .unwrap();
        assert_eq!(round.poll().unwrap(), Step::InputRequired);
        let mut state = Vec::new();
        round.write_request_state(&mut state).unwrap();
        let state = String::from_utf8(state).unwrap();

        let replies = accepted(&[("airport", json!("CDG"))]).to_string();
        let mut ws = [0u8; 512];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(args, Some(&state), Some(&replies)),
            &mut ws,
        )
        .unwrap();
        assert!(matches!(round.poll(), Ok(Step::Resolve { param: 1 })));
        round
            .resolve_question(r#"{"message":"Which airport in Paris?"}"#)
            .unwrap();
        assert_eq!(round.poll(), Ok(Step::Done));
        let mut v = Vec::new();
        round
            .write_values(elicit_core::Style::WIRE, &mut v)
            .unwrap();
        assert_eq!(v, br#"{"airport":"CDG"}"#);
    }

    #[test]
    fn unresolvable_question_dependency_names_itself() {
        let decl = json!({"tool": "book", "parameters": [
            {"name": "destination"},
            {"name": "airport", "elicit": {"needs": []}}
        ]})
        .to_string();
        let plan = Plan::<4>::compile(&decl).unwrap();
        let mut ws = [0u8; 256];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(r#"{"destination":"Paris"}"#, None, None),
            &mut ws,
        )
        .unwrap();
        assert_eq!(round.poll().unwrap(), Step::Resolve { param: 1 });
        // The resolver's own dependency `place` (which wants a tool argument) could not
        // be built by the host's DI.
        let e = round.resolve_failed("place").unwrap_err();
        let msg = e.to_string();
        assert_eq!(
            msg,
            "The resolver for 'airport' depends on 'place', which could not be resolved"
        );
        assert!(msg.contains("depends on 'place'"));
        assert_eq!(round.poll().unwrap_err(), e);
    }
}

mod question_digest {
    use super::*;

    fn specs(question: &str) -> Host<'static> {
        Host::new(json!({"tool": "book", "parameters": [
            {"name": "seat", "elicit": {"message": question}}
        ]}))
    }

    #[test]
    fn answer_to_a_changed_question_is_re_asked() {
        let first = specs("Window or aisle?");
        let asked = first.round(&json!({}), None, None);
        let (_, state) = asked.ask();
        let reply = json!({"seat": {"action": "accept", "content": {"value": "W"}}});

        // Same wording: the reply is accepted.
        let same = first.round(&json!({}), Some(state), Some(&reply));
        assert_eq!(same.values(), &json!({"seat": "W"}));

        // Reworded: the reply is dropped and the new question goes out instead.
        let reworded = specs("Which seat would you prefer?");
        let (again, notes) = reworded.round_with_notes(&json!({}), Some(state), Some(&reply));
        assert_eq!(again.asked_names(), ["seat"]);
        assert_eq!(again.questions()[0].1, "Which seat would you prefer?");
        assert_eq!(
            notes,
            ["INFO Discarding the reply for 'seat': the question changed since it was asked"]
        );
    }

    #[test]
    fn unreadable_state_is_treated_as_no_progress() {
        let host = specs("Window or aisle?");
        let out = host.round(&json!({}), Some(r#"{"v":999,"answers":{}}"#), None);
        assert_eq!(out.asked_names(), ["seat"]);
    }
}

mod registration_errors {
    use super::*;

    #[test]
    fn question_asks_for_an_unknown_name() {
        let e = compile_error(&json!({"tool": "book", "parameters": [
            {"name": "airport", "elicit": {"needs": ["nonexistent"]}}
        ]}));
        assert!(e.contains("not a parameter of the function"), "{e}");
        assert_eq!(
            e,
            "The question for parameter 'airport' of 'book' asks for 'nonexistent', which is \
             not a parameter of the function; a question can only be built from the call's \
             own arguments or from other elicited parameters"
        );
    }

    #[test]
    fn cyclic_questions() {
        let e = compile_error(&json!({"tool": "book", "parameters": [
            {"name": "a", "elicit": {"needs": ["b"]}},
            {"name": "b", "elicit": {"needs": ["a"]}}
        ]}));
        assert_eq!(
            e,
            "The elicited parameters of 'book' form a cycle: a -> b -> a"
        );
    }

    #[test]
    fn mixing_with_a_hand_returned_ask() {
        let e = compile_error(&json!({"tool": "book", "returnsInputRequired": true,
            "parameters": [{"name": "destination", "elicit": {"message": "Where to?"}}]}));
        assert!(e.contains("one channel for gathering input"), "{e}");
        // Without elicited parameters, returning one's own ask is fine.
        Host::new(json!({"tool": "book", "returnsInputRequired": true,
            "parameters": [{"name": "destination"}]}));
    }

    #[test]
    fn marker_buried_out_of_reach() {
        // On a field of an object answer type.
        let e = compile_error(&json!({"tool": "book", "parameters": [
            {"name": "trip", "elicit": {"message": "Trip?"}, "type": {"type": "object",
             "properties": {"destination": {"type": "string", "elicit": {"message": "Where?"}}}}}
        ]}));
        assert!(e.starts_with("The answer type of parameter 'trip'"), "{e}");
        // Inside a type.
        let e = compile_error(&json!({"tool": "book", "parameters": [
            {"name": "destinations", "type": {"type": "array",
             "items": {"enum": ["a"], "elicit": {"message": "Where?"}}}}
        ]}));
        assert!(
            e.starts_with("The answer type of parameter 'destinations'"),
            "{e}"
        );
    }

    #[test]
    fn optional_spellings_are_equivalent() {
        let host = Host::new(optional_seat());
        let decl = optional_seat().to_string();
        let plan = elicit_core::Plan::<4>::compile(&decl).unwrap();
        assert!(plan.is_elicited(0));
        let run = host.client(&json!({}), client_of(refuse("decline")));
        let v = run.result.unwrap();
        assert_eq!(
            v["seat"].as_str().unwrap_or("no preference"),
            "no preference"
        );
        let hs = host.handshake(&json!({}), refuse("decline"));
        assert_eq!(hs.result.unwrap(), v);
    }
}
