//! The server's tools: one elicit declaration each, the host-side resolvers, and the
//! tool bodies that run once every declared parameter is settled.

use elicit_core::decl::{AnswerType, Param, Tool};
use elicit_core::Plan;
use elicit_core::PyRepr;
use serde_json::{json, Map, Value};

/// Capacity of every plan (parameters per tool).
pub const CAP: usize = 16;

/// A tool the server lists and calls.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Compiled from the declaration; shared by every round of every call.
    pub plan: Plan<'static, CAP>,
    /// JSON Schemas of the model-supplied arguments, by name. Elicited parameters have
    /// none: they are hidden from `inputSchema`.
    arg_schemas: Vec<(&'static str, Value)>,
}

/// What a resolver decided: a value (nothing is asked) or a question.
pub enum Resolution {
    /// The value as JSON text.
    Value(String),
    /// `{"message": ...}` (the parameter's declared type is used).
    Question(String),
}

fn compile(declaration: String) -> Plan<'static, CAP> {
    let text: &'static str = Box::leak(declaration.into_boxed_str());
    match Plan::compile(text) {
        Ok(plan) => plan,
        Err(e) => panic!("built-in declaration rejected: {e}"),
    }
}

/// The three tools of the example.
pub fn all() -> Vec<ToolDef> {
    let book_flight = Tool::new("book_flight")
        .param(Param::ask("destination", "Where would you like to fly?"))
        .param(Param::ask("date", "When would you like to fly?"))
        .param(Param::resolver("airport", &["destination"]))
        .param(Param::resolver("proceed", &["destination", "date"]).ty(AnswerType::Boolean))
        .param(
            Param::ask("seat", "Window or aisle?")
                .ty(AnswerType::choice(["window", "aisle"]))
                .default_json("null"),
        )
        .to_json();
    let greet = Tool::new("greet")
        .param(Param::ask("name", "Enter your name:"))
        .to_json();
    let order = Tool::new("order")
        .param(Param::argument("item").ty(AnswerType::String))
        .param(Param::resolver("quantity", &["item"]).ty(AnswerType::Integer))
        .to_json();
    vec![
        ToolDef {
            name: "book_flight",
            title: "Book Flight",
            description: "Book a flight. Asks the user for the destination, date, airport, \
                          confirmation and seat.",
            plan: compile(book_flight),
            arg_schemas: vec![],
        },
        ToolDef {
            name: "greet",
            title: "Greet",
            description: "Greet the user by the name they enter.",
            plan: compile(greet),
            arg_schemas: vec![],
        },
        ToolDef {
            name: "order",
            title: "Order",
            description: "Order an item. Asks the user how many.",
            plan: compile(order),
            arg_schemas: vec![("item", json!({"type": "string"}))],
        },
    ]
}

impl ToolDef {
    /// The `inputSchema`: model-supplied parameters only (elicited ones are hidden).
    pub fn input_schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for i in 0..self.plan.len() {
            if self.plan.is_elicited(i) {
                continue;
            }
            let name = self.plan.name(i).expect("index in range");
            let schema = self
                .arg_schemas
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| json!({}));
            properties.insert(name.to_string(), schema);
            required.push(Value::String(name.to_string()));
        }
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("additionalProperties".into(), json!(false));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        Value::Object(schema)
    }

    /// The `tools/list` entry, shaped like FastMCP 4.1.6's.
    pub fn listing(&self) -> Value {
        json!({
            "_meta": {"fastmcp": {"tags": []}},
            "description": self.description,
            "inputSchema": self.input_schema(),
            "name": self.name,
            "outputSchema": {
                "properties": {"result": {"type": "string"}},
                "required": ["result"],
                "type": "object",
                "x-fastmcp-wrap-result": true
            },
            "title": self.title,
        })
    }

    /// Check the model-supplied arguments against `inputSchema` (required, string-typed,
    /// no extras); the message is the tool error.
    pub fn check_arguments(&self, args: &Map<String, Value>) -> Result<(), String> {
        for (key, _) in args {
            let known = self
                .plan
                .index_of(key)
                .is_some_and(|i| !self.plan.is_elicited(i));
            if !known {
                return Err(format!(
                    "Unexpected argument {} for tool {}",
                    PyRepr(key),
                    PyRepr(self.name)
                ));
            }
        }
        for (name, schema) in &self.arg_schemas {
            match args.get(*name) {
                None => {
                    return Err(format!(
                        "Missing required argument {} for tool {}",
                        PyRepr(name),
                        PyRepr(self.name)
                    ))
                }
                Some(v) => {
                    if schema.get("type") == Some(&json!("string")) && !v.is_string() {
                        return Err(format!(
                            "Argument {} of tool {} must be a string",
                            PyRepr(name),
                            PyRepr(self.name)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Run the host resolver of parameter `param` with its inputs.
    pub fn resolve(&self, param: &str, inputs: &Value) -> Resolution {
        let text = |k: &str| inputs.get(k).map(plain).unwrap_or_default();
        let question =
            |message: String| Resolution::Question(json!({ "message": message }).to_string());
        match (self.name, param) {
            ("book_flight", "airport") => {
                let destination = text("destination");
                if destination == "London" {
                    Resolution::Value(json!("LHR").to_string())
                } else {
                    question(format!("Which airport in {destination}?"))
                }
            }
            ("book_flight", "proceed") => question(format!(
                "Book a flight to {} on {}?",
                text("destination"),
                text("date")
            )),
            ("order", "quantity") => question(format!("How many {}?", text("item"))),
            (tool, p) => unreachable!("no resolver for {tool}.{p}"),
        }
    }

    /// The tool body: every elicited parameter is settled (`values`, by name) and the
    /// model's `args` are checked. Returns the result text.
    pub fn run(&self, args: &Map<String, Value>, values: &Value) -> String {
        let get = |k: &str| values.get(k).map(plain).unwrap_or_default();
        match self.name {
            "book_flight" => {
                if values.get("proceed") == Some(&Value::Bool(false)) {
                    return "Cancelled".into();
                }
                let seat = match values.get("seat") {
                    None | Some(Value::Null) => "no preference".to_string(),
                    Some(v) => plain(v),
                };
                format!(
                    "Booked {} ({}) on {}, seat {seat}",
                    get("destination"),
                    get("airport"),
                    get("date")
                )
            }
            "greet" => format!("Hello, {}", get("name")),
            "order" => {
                let item = args.get("item").map(plain).unwrap_or_default();
                format!("Ordered {} x {item}", integer_text(values.get("quantity")))
            }
            other => unreachable!("no body for {other}"),
        }
    }
}

/// A JSON value as text: strings unquoted, everything else as JSON.
pub fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An integer answer as digits (the engine accepts `3.0` for an integer).
fn integer_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Number(n)) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Some(other) => plain(other),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elicited_parameters_are_hidden_from_input_schema() {
        let tools = all();
        let book = &tools[0];
        assert_eq!(
            book.input_schema(),
            json!({"type":"object","additionalProperties":false,"properties":{}})
        );
        let order = &tools[2];
        assert_eq!(
            order.input_schema(),
            json!({"type":"object","additionalProperties":false,
                   "properties":{"item":{"type":"string"}},"required":["item"]})
        );
    }

    #[test]
    fn bodies_render_the_documented_results() {
        let tools = all();
        let v = json!({"destination":"Paris","date":"2026-08-01","airport":"CDG","proceed":true,"seat":null});
        assert_eq!(
            tools[0].run(&Map::new(), &v),
            "Booked Paris (CDG) on 2026-08-01, seat no preference"
        );
        let v = json!({"destination":"Paris","date":"d","airport":"CDG","proceed":false,"seat":"aisle"});
        assert_eq!(tools[0].run(&Map::new(), &v), "Cancelled");
        let mut args = Map::new();
        args.insert("item".into(), json!("apples"));
        assert_eq!(
            tools[2].run(&args, &json!({"quantity": 3.0})),
            "Ordered 3 x apples"
        );
    }
}
