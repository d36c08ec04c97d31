//! The booking tools (examples/rmcp-server's `book_flight`, `greet` and `order`: the same
//! declarations, questions, texts and results), their resolvers and bodies, and the text
//! of the engine errors a call can end with.

use elicit_core::json::{write_i64, Number, Value};
use elicit_core::{CompileError, Error, Plan, Sink, SliceSink};

use crate::rpc::{chars, py_repr, Escaped};

/// Capacity (parameters) of every plan: the largest tool, `book_flight`, has 5. One
/// capacity for all tools means one copy of the engine's code.
pub const N: usize = 5;

/// A tool the agent lists and calls.
pub struct Tool {
    pub name: &'static str,
    plan_bytes: &'static [u8],
    /// The model-supplied arguments, all strings (`inputSchema`'s `required`).
    string_args: &'static [&'static str],
}

pub const TOOLS: [Tool; 3] = [
    Tool {
        name: "book_flight",
        plan_bytes: include_bytes!(concat!(env!("OUT_DIR"), "/book_flight.plan")),
        string_args: &[],
    },
    Tool {
        name: "greet",
        plan_bytes: include_bytes!(concat!(env!("OUT_DIR"), "/greet.plan")),
        string_args: &[],
    },
    Tool {
        name: "order",
        plan_bytes: include_bytes!(concat!(env!("OUT_DIR"), "/order.plan")),
        string_args: &["item"],
    },
];

/// The tool named `name`.
pub fn find(name: elicit_core::json::Str<'_>) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| name.eq_str(t.name))
}

/// The `tools` array of `tools/list`, shaped like FastMCP 4.1.6's (and elicit-rmcp-server's):
/// elicited parameters are hidden from `inputSchema`.
pub const LISTING: &str = concat!(
    r#"[{"_meta":{"fastmcp":{"tags":[]}},"description":"Book a flight. Asks the user for the destination, date, airport, confirmation and seat.","#,
    r#""inputSchema":{"type":"object","additionalProperties":false,"properties":{}},"name":"book_flight","#,
    r#""outputSchema":{"properties":{"result":{"type":"string"}},"required":["result"],"type":"object","x-fastmcp-wrap-result":true},"title":"Book Flight"},"#,
    r#"{"_meta":{"fastmcp":{"tags":[]}},"description":"Greet the user by the name they enter.","#,
    r#""inputSchema":{"type":"object","additionalProperties":false,"properties":{}},"name":"greet","#,
    r#""outputSchema":{"properties":{"result":{"type":"string"}},"required":["result"],"type":"object","x-fastmcp-wrap-result":true},"title":"Greet"},"#,
    r#"{"_meta":{"fastmcp":{"tags":[]}},"description":"Order an item. Asks the user how many.","#,
    r#""inputSchema":{"type":"object","additionalProperties":false,"properties":{"item":{"type":"string"}},"required":["item"]},"name":"order","#,
    r#""outputSchema":{"properties":{"result":{"type":"string"}},"required":["result"],"type":"object","x-fastmcp-wrap-result":true},"title":"Order"}]"#
);

impl Tool {
    /// Load the plan from the bytes build.rs compiled.
    pub fn plan(&self) -> Result<Plan<'static, N>, CompileError> {
        Plan::from_postcard(self.plan_bytes)
    }

    /// Check the model-supplied `args` (a JSON object) against `inputSchema` (required,
    /// string-typed, no extras).
    pub fn check_arguments<'a>(
        &self,
        plan: &Plan<'_, N>,
        args: Option<Value<'a>>,
    ) -> Result<(), ArgError<'a>> {
        for (key, _) in args.iter().flat_map(|a| a.members()) {
            let known = (0..plan.len())
                .any(|i| !plan.is_elicited(i) && plan.name(i).is_some_and(|n| key.eq_str(n)));
            if !known {
                return Err(ArgError::Unexpected(key, self.name));
            }
        }
        for &name in self.string_args {
            match args.and_then(|a| a.get(name)) {
                None => return Err(ArgError::Missing(name, self.name)),
                Some(v) if v.as_str().is_none() => {
                    return Err(ArgError::NotString(name, self.name))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Run the host resolver of parameter `param` with its `inputs`; writes the value or
    /// the question (`{"message": ...}`) into `out` and says which.
    pub fn resolve(&self, param: &str, inputs: Value<'_>, out: &mut SliceSink<'_>) -> Resolved {
        let get = |k: &str| inputs.get(k).and_then(|v| v.as_str());
        // The strings' raw JSON contents go straight into the question's JSON string.
        let raw = |k: &str| get(k).map(|s| s.raw()).unwrap_or("");
        match (self.name, param) {
            ("book_flight", "airport")
                if get("destination").is_some_and(|d| d.eq_str("London")) =>
            {
                out.put(b"\"LHR\"");
                Resolved::Value
            }
            ("book_flight", "airport") => {
                out.put(b"{\"message\":\"Which airport in ");
                out.put(raw("destination").as_bytes());
                out.put(b"?\"}");
                Resolved::Question
            }
            ("book_flight", _) => {
                out.put(b"{\"message\":\"Book a flight to ");
                out.put(raw("destination").as_bytes());
                out.put(b" on ");
                out.put(raw("date").as_bytes());
                out.put(b"?\"}");
                Resolved::Question
            }
            _ => {
                out.put(b"{\"message\":\"How many ");
                out.put(raw("item").as_bytes());
                out.put(b"?\"}");
                Resolved::Question
            }
        }
    }

    /// The tool body: every elicited parameter is settled (`values`, by name) and the
    /// model's `args` are checked. Writes the result text as JSON string contents.
    pub fn run(&self, args: Option<Value<'_>>, values: Value<'_>, out: &mut dyn Sink) {
        let plain = |out: &mut dyn Sink, v: Option<Value<'_>>| match v {
            None => {}
            Some(v) => match (v.as_str(), v.as_number()) {
                (Some(s), _) => out.put(s.raw().as_bytes()),
                (None, Some(Number::Float(f))) if f == (f as i64) as f64 && f.abs() < 9.0e15 => {
                    write_i64(f as i64, out)
                }
                _ => elicit_core::json::write_value(v, elicit_core::Style::WIRE, &mut Escaped(out)),
            },
        };
        match self.name {
            "book_flight" => {
                if values.get("proceed").and_then(|v| v.as_bool()) == Some(false) {
                    out.put(b"Cancelled");
                    return;
                }
                out.put(b"Booked ");
                plain(out, values.get("destination"));
                out.put(b" (");
                plain(out, values.get("airport"));
                out.put(b") on ");
                plain(out, values.get("date"));
                out.put(b", seat ");
                match values.get("seat").filter(|v| !v.is_null()) {
                    None => out.put(b"no preference"),
                    seat => plain(out, seat),
                }
            }
            "greet" => {
                out.put(b"Hello, ");
                plain(out, values.get("name"));
            }
            _ => {
                out.put(b"Ordered ");
                plain(out, values.get("quantity"));
                out.put(b" x ");
                plain(out, args.and_then(|a| a.get("item")));
            }
        }
    }
}

/// What a host resolver decided.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    Value,
    Question,
}

/// Why a call's arguments were refused (a tool error).
pub enum ArgError<'a> {
    Unexpected(elicit_core::json::Str<'a>, &'static str),
    Missing(&'static str, &'static str),
    NotString(&'static str, &'static str),
}

impl ArgError<'_> {
    /// The message (plain text), as elicit-rmcp-server writes it.
    pub fn write(&self, out: &mut dyn Sink) {
        let (before, mid, tool, after): (&[u8], &[u8], &str, &[u8]) = match self {
            ArgError::Unexpected(_, t) => (b"Unexpected argument ", b" for tool ", t, b""),
            ArgError::Missing(_, t) => (b"Missing required argument ", b" for tool ", t, b""),
            ArgError::NotString(_, t) => (b"Argument ", b" of tool ", t, b" must be a string"),
        };
        out.put(before);
        match self {
            ArgError::Unexpected(k, _) => py_repr(chars(*k), out),
            ArgError::Missing(n, _) | ArgError::NotString(n, _) => py_repr(n.chars(), out),
        }
        out.put(mid);
        py_repr(tool.chars(), out);
        out.put(after);
    }
}

/// The text of a round's error (as its `Display` writes it: the same bytes, without
/// linking `core::fmt` and every message of the engine). A call of the booking tools can
/// end with the first six kinds; the rest are capacity and host errors, written with the
/// same words where they carry no [`elicit_core::Problem`] text.
pub fn write_error(e: &Error, out: &mut dyn Sink) {
    let param = |out: &mut dyn Sink, p: &str| py_repr(p.chars(), out);
    match e {
        Error::Refused {
            param: p,
            cancelled,
        } => {
            out.put(b"Cannot continue without ");
            param(out, p);
            out.put(if *cancelled {
                b": the request was cancelled. Give the parameter a default to make it optional."
            } else {
                b": the request was declined. Give the parameter a default to make it optional."
            });
        }
        Error::SchemaMismatch { param: p } => {
            out.put(b"The answer for ");
            param(out, p);
            out.put(b" does not match the requested schema");
        }
        Error::AcceptedWithoutContent { param: p } => {
            out.put(b"The answer for ");
            param(out, p);
            out.put(b" was accepted but carries no content");
        }
        Error::WrongReply { param: p, .. } => {
            out.put(b"The response for ");
            param(out, p);
            out.put(b" is not an elicitation result");
        }
        Error::InputResponses { key, .. } => {
            out.put(b"Invalid inputResponses");
            if !key.is_empty() {
                out.put(b"[");
                param(out, key);
                out.put(b"]");
            }
            out.put(b": not an object of InputResponses keyed by request name");
        }
        Error::MissingArgument { name } => {
            out.put(b"The call did not supply the argument ");
            param(out, name);
            out.put(b", which a question is built from; pass it in the call's arguments or give it a default");
        }
        Error::Workspace { needed } => {
            out.put(b"The round's workspace is full (");
            write_i64(*needed as i64, out);
            out.put(b" more bytes needed); give the round a larger workspace");
        }
        Error::BufferTooSmall { needed } => {
            out.put(b"The output buffer is too small: ");
            write_i64(*needed as i64, out);
            out.put(b" bytes are needed");
        }
        _ => out.put(b"Internal error"),
    }
}
