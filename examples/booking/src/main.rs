//! `booking-demo`: a multi-round `book_flight` conversation through elicit-core.
//!
//! ```text
//! cargo run -q -p booking-demo                 # interactive in a terminal, scripted otherwise
//! cargo run -q -p booking-demo -- --script     # scripted answers (Paris, CDG, window)
//! cargo run -q -p booking-demo -- --script --destination London
//! cargo run -q -p booking-demo -- --era handshake
//! ```
//!
//! The host side of the engine lives here: it runs the two resolvers (`airport`,
//! `proceed`), plays the client (answering each round's questions from a script or the
//! terminal), and carries `requestState` between rounds — the same loop an MCP server
//! runs around the engine.

use std::io::{BufRead, IsTerminal, Write};

use booking_fixture::{decl, resolver, text as fixture_text, Template};
use elicit_core::json::{Kind, Value};
use elicit_core::{Era, Inputs, Plan, Round, Step};

fn text(v: Value<'_>) -> String {
    match v.as_str() {
        Some(s) => s.units().filter_map(char::from_u32).collect(),
        None => v.raw().to_string(),
    }
}

fn quote(s: &str) -> String {
    let mut out = Vec::new();
    elicit_core::json::write_str(s, false, &mut out);
    // The JSON writer writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// Resolver input `name` as text (the engine passes every input a resolver needs).
fn input(inputs: Value<'_>, name: &str) -> String {
    inputs.get(name).map(text).unwrap_or_default()
}

/// The question `template` asks with these `inputs`, as resolver question JSON.
fn ask(template: Template, inputs: Value<'_>) -> String {
    let values: Vec<(&str, String)> = inputs.members().map(|(k, v)| (k.raw(), text(v))).collect();
    let value = |n: &str| {
        values
            .iter()
            .find(|(k, _)| *k == n)
            .map_or("", |(_, v)| v.as_str())
    };
    let message = template.fill(value).to_string();
    format!("{{\"message\":{}}}", quote(&message))
}

/// The host's resolvers (the fixture's rules): a value (JSON) or a question (JSON).
fn resolve(name: &str, inputs: Value<'_>) -> Result<String, String> {
    match name {
        "airport" => match resolver::AIRPORT.known_answer(&input(inputs, "destination")) {
            Some(airport) => Ok(quote(airport)),
            None => Err(ask(resolver::AIRPORT.ask, inputs)),
        },
        "proceed" => Err(ask(resolver::PROCEED.ask, inputs)),
        // The plan has no other resolver; should it gain one, the user is asked.
        other => Err(format!(
            "{{\"message\":{}}}",
            quote(&format!("What should {other} be?"))
        )),
    }
}

/// Where answers come from.
enum Client {
    Script { destination: String },
    Terminal,
}

impl Client {
    /// The ElicitResult for one question (`params` = the request's params JSON).
    fn answer(&self, name: &str, params: Value<'_>) -> String {
        let message = params.get("message").map(text).unwrap_or_default();
        let value_schema = params
            .get("requestedSchema")
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get("value"));
        let ty = value_schema
            .and_then(|v| v.get("type"))
            .map(text)
            .unwrap_or_default();
        let choices: Vec<String> = value_schema
            .and_then(|v| v.get("enum"))
            .map(|e| e.items().map(text).collect())
            .unwrap_or_default();
        match self {
            Client::Script { destination } => {
                let v = match name {
                    "destination" => quote(destination),
                    "date" => quote("2026-08-01"),
                    "airport" => quote("CDG"),
                    "proceed" => "true".into(),
                    "seat" => quote("window"),
                    _ => return "{\"action\":\"decline\"}".into(),
                };
                println!("  ? {message}  -> {v}");
                format!("{{\"action\":\"accept\",\"content\":{{\"value\":{v}}}}}")
            }
            Client::Terminal => loop {
                let hint = match (ty.as_str(), choices.is_empty()) {
                    ("boolean", _) => " [y/n]".to_string(),
                    (_, false) => format!(" [{}]", choices.join("/")),
                    _ => String::new(),
                };
                print!("  ? {message}{hint} (empty: decline, !cancel: cancel) > ");
                let _ = std::io::stdout().flush();
                let mut line = String::new();
                if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
                    return "{\"action\":\"cancel\"}".into();
                }
                let line = line.trim();
                if line.is_empty() {
                    return "{\"action\":\"decline\"}".into();
                }
                if line == "!cancel" {
                    return "{\"action\":\"cancel\"}".into();
                }
                let v = match ty.as_str() {
                    "boolean" => match line {
                        "y" | "yes" => "true".to_string(),
                        "n" | "no" => "false".to_string(),
                        _ => {
                            println!("    please answer y or n");
                            continue;
                        }
                    },
                    "integer" | "number" if line.parse::<f64>().is_ok() => line.to_string(),
                    _ => quote(line),
                };
                return format!("{{\"action\":\"accept\",\"content\":{{\"value\":{v}}}}}");
            },
        }
    }
}

fn run_resolve(
    round: &mut Round<'_, '_, 16>,
    plan: &Plan<'_, 16>,
    param: usize,
) -> Result<(), String> {
    let name = plan
        .name(param)
        .ok_or("a step for a parameter the plan lacks")?;
    let inputs = round.resolve_inputs_json().map_err(|e| e.to_string())?;
    let inputs_v = Value::parse(&inputs).map_err(|e| format!("{e:?}"))?;
    let r = match resolve(name, inputs_v) {
        Ok(value) => {
            println!("  resolver {name}({inputs}) -> value {value}");
            round.resolve_value(&value)
        }
        Err(question) => round.resolve_question(&question),
    };
    r.map_err(|e| e.to_string())
}

fn modern(plan: &Plan<'_, 16>, client: &Client) -> Result<String, String> {
    let mut state: Option<String> = None;
    let mut replies: Option<String> = None;
    for n in 1.. {
        println!("-- round {n}");
        let mut workspace = [0u8; 4096];
        let mut round = Round::new(
            plan,
            Era::Modern,
            Inputs::modern("{}", state.as_deref(), replies.as_deref()),
            &mut workspace,
        )
        .map_err(|e| e.to_string())?;
        let step = loop {
            match round.poll().map_err(|e| e.to_string())? {
                Step::Resolve { param } => run_resolve(&mut round, plan, param)?,
                other => break other,
            }
        };
        match step {
            Step::Done => return round.values_json().map_err(|e| e.to_string()),
            Step::InputRequired => {
                let requests = round
                    .input_requests_json(false)
                    .map_err(|e| e.to_string())?;
                let new_state = round.request_state_json().map_err(|e| e.to_string())?;
                let reqs = Value::parse(&requests).map_err(|e| format!("{e:?}"))?;
                let names: Vec<String> = reqs
                    .members()
                    .map(|(k, _)| k.units().filter_map(char::from_u32).collect())
                    .collect();
                println!("  InputRequiredResult asks: {}", names.join(", "));
                println!("  requestState: {new_state}");
                let mut answers = Vec::new();
                for (k, req) in reqs.members() {
                    let name: String = k.units().filter_map(char::from_u32).collect();
                    let params = req.get("params").ok_or("a request without params")?;
                    let answer = client.answer(&name, params);
                    answers.push(format!("{}:{answer}", quote(&name)));
                }
                // The round borrows this round's state and replies; end it first.
                drop(round);
                replies = Some(format!("{{{}}}", answers.join(",")));
                state = Some(new_state);
            }
            _ => return Err("unexpected step".into()),
        }
    }
    unreachable!()
}

fn handshake(plan: &Plan<'_, 16>, client: &Client) -> Result<String, String> {
    let mut workspace = [0u8; 4096];
    let mut round = Round::new(
        plan,
        Era::Handshake,
        Inputs::handshake("{}"),
        &mut workspace,
    )
    .map_err(|e| e.to_string())?;
    loop {
        match round.poll().map_err(|e| e.to_string())? {
            Step::Resolve { param } => run_resolve(&mut round, plan, param)?,
            Step::Ask { param } => {
                let name = plan
                    .name(param)
                    .ok_or("a step for a parameter the plan lacks")?;
                let params = round.ask_json().map_err(|e| e.to_string())?;
                println!("-- elicitation/create for {name}");
                let answer =
                    client.answer(name, Value::parse(&params).map_err(|e| format!("{e:?}"))?);
                round.answer(&answer).map_err(|e| e.to_string())?;
            }
            Step::Done => return round.values_json().map_err(|e| e.to_string()),
            Step::InputRequired => return Err("handshake rounds never batch".into()),
            // The demo's declaration has no fallback, and its client takes forms.
            Step::Fallback => return Err("the demo declares no fallback".into()),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let scripted = flag("--script") || !std::io::stdin().is_terminal();
    let client = if scripted {
        Client::Script {
            destination: value("--destination").unwrap_or_else(|| "Paris".into()),
        }
    } else {
        Client::Terminal
    };
    let era = match value("--era").as_deref() {
        Some("handshake") => Era::Handshake,
        _ => Era::Modern,
    };
    let plan: Plan<'_, 16> = match Plan::compile(decl::BOOK_FLIGHT) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("declaration rejected: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "book_flight ({era:?} era, {} answers)",
        if scripted { "scripted" } else { "interactive" }
    );
    let result = match era {
        Era::Modern => modern(&plan, &client),
        Era::Handshake => handshake(&plan, &client),
    };
    match result {
        Ok(values) => {
            println!("== resolved: {values}");
            let v = Value::parse(&values).ok();
            let field = |k: &str| v.and_then(|v| v.get(k));
            let get = |k: &str| field(k).map(text).unwrap_or_default();
            if field("proceed").and_then(|p| p.as_bool()) == Some(false) {
                println!("{}", fixture_text::CANCELLED);
            } else {
                let seat = match field("seat") {
                    Some(s) if s.kind() != Kind::Null => text(s),
                    _ => fixture_text::NO_PREFERENCE.into(),
                };
                let fields = ["destination", "airport", "date"].map(|k| (k, get(k)));
                let result = booking_fixture::entry::BOOK_FLIGHT
                    .result
                    .fill(|n| match n {
                        "seat" => seat.as_str(),
                        n => fields.iter().find(|(k, _)| *k == n).map_or("", |(_, v)| v),
                    });
                println!("{result}");
            }
        }
        Err(e) => {
            println!("== the call failed: {e}");
            std::process::exit(1);
        }
    }
}
