//! `elicit-oracle-runner`: drives elicit-core with the reference oracle's scenario JSON.
//!
//! Reads one scenario document on stdin (an object, or a list of them) in the format of
//! `reference/oracle/scenario.py` and prints one line of JSON in that script's
//! `--compact` format (`json.dumps(result, ensure_ascii=False)`), so the two can be
//! diffed byte for byte. The oracle's Python-flavoured types map onto the engine's
//! declaration (`str` → `"string"`, `Literal[...]` → `{"enum": [...]}`, a pydantic model
//! → an object type, ...), and its data-driven resolvers (`template`, `known`) run here,
//! as the host runs resolvers.
//!
//! With `--ffi` the engine is driven through the C ABI (elicit-ffi's `extern "C"`
//! functions) instead of the core API; the output must not change (`tests/ffi_vectors.rs`).

use std::io::{Read, Write};

use elicit_core::json::{write_str, write_value, Kind, Style, Value};
use elicit_core::plan::digest_params;
use elicit_core::{Era, Error, Inputs, Plan, Round, Step};

const CAP: usize = 128;

/// `--ffi`: drive the engine through the C ABI (elicit-ffi) instead of the core API.
mod ffi_host;

fn main() {
    ffi_host::init_from_args();
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("elicit-oracle-runner: cannot read stdin: {e}");
        std::process::exit(2);
    }
    match run(&input) {
        Ok(line) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(line.as_bytes());
            let _ = out.write_all(b"\n");
        }
        Err(msg) => {
            eprintln!("elicit-oracle-runner: {msg}");
            std::process::exit(2);
        }
    }
}

/// Runs a whole stdin document and returns the output line.
pub fn run(input: &str) -> Result<String, String> {
    let doc = Value::parse(input).map_err(|e| format!("stdin is not JSON: {e:?}"))?;
    let mut compact = Vec::new();
    if doc.kind() == Kind::Array {
        compact.push(b'[');
        for (i, item) in doc.items().enumerate() {
            if i > 0 {
                compact.push(b',');
            }
            compact.extend_from_slice(process(item)?.as_bytes());
        }
        compact.push(b']');
    } else {
        compact.extend_from_slice(process(doc)?.as_bytes());
    }
    // Re-render the compact document the way the oracle prints it.
    let text = String::from_utf8(compact).map_err(|e| e.to_string())?;
    let v = Value::parse(&text)
        .map_err(|e| format!("internal: produced invalid JSON {e:?}: {text}"))?;
    let mut out = Vec::new();
    write_value(v, Style::PY_UTF8, &mut out);
    String::from_utf8(out).map_err(|e| e.to_string())
}

fn process(doc: Value<'_>) -> Result<String, String> {
    let mode = doc.get("mode").and_then(|m| m.as_str());
    match mode {
        None => scenario(doc),
        Some(m) if m.eq_str("scenario") => scenario(doc),
        Some(m) if m.eq_str("digest") => digest(doc),
        Some(_) => Err("unsupported mode (scenario and digest are supported)".into()),
    }
}

// ----------------------------------------------------------------------- JSON helpers

fn wire(v: Value<'_>) -> String {
    let mut out = Vec::new();
    write_value(v, Style::WIRE, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn jstr(s: &str) -> String {
    let mut out = Vec::new();
    write_str(s, false, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn text_of(v: Value<'_>) -> Option<String> {
    let s = v.as_str()?;
    Some(
        s.units()
            .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
            .collect(),
    )
}

// ----------------------------------------------------------------------- types

/// The oracle's type spec → the engine's type grammar. `None` for specs the engine
/// does not express (reported as an error).
fn map_type(spec: Value<'_>) -> Result<String, String> {
    if let Some(s) = spec.as_str() {
        return Ok(match s.as_plain().unwrap_or("") {
            "str" => "\"string\"".into(),
            "int" => "\"integer\"".into(),
            "float" => "\"number\"".into(),
            "bool" => "\"boolean\"".into(),
            other => return Err(format!("unknown scalar type {other:?}")),
        });
    }
    if let Some(body) = spec.get("literal") {
        return Ok(format!("{{\"enum\":{}}}", wire(body)));
    }
    if let Some(body) = spec.get("list_literal") {
        return Ok(format!(
            "{{\"type\":\"array\",\"items\":{{\"enum\":{}}}}}",
            wire(body)
        ));
    }
    if let Some(inner) = spec.get("optional") {
        // `T | None` as an answer type is asked as `T`.
        return map_type(inner);
    }
    if let Some(model) = spec.get("model") {
        let title = model
            .get("name")
            .map(wire)
            .unwrap_or_else(|| "\"Model\"".into());
        let mut props = Vec::new();
        if let Some(fields) = model.get("fields") {
            for (k, fspec) in fields.members() {
                let key = format!("\"{}\"", k.raw());
                let (ty, default) = if fspec.kind() == Kind::Object && fspec.get("type").is_some() {
                    (
                        map_type(fspec.get("type").ok_or("a field without a type")?)?,
                        fspec.get("default"),
                    )
                } else {
                    (map_type(fspec)?, None)
                };
                let mut field = field_object(&ty);
                if let Some(d) = default {
                    field.pop();
                    field.push_str(&format!(",\"default\":{}}}", wire(d)));
                }
                props.push(format!("{key}:{field}"));
            }
        }
        return Ok(format!(
            "{{\"type\":\"object\",\"title\":{title},\"properties\":{{{}}}}}",
            props.join(",")
        ));
    }
    Err(format!("bad type spec {}", wire(spec)))
}

/// A mapped type as an object (shorthand names expanded), for model fields.
fn field_object(ty: &str) -> String {
    if ty.starts_with('"') {
        format!("{{\"type\":{ty}}}")
    } else {
        ty.to_string()
    }
}

/// The parameter type the reference asks for: `T | None` is asked as `T`.
fn param_type(p: Value<'_>) -> Result<String, String> {
    match p.get("type") {
        None => Ok("\"string\"".into()),
        Some(t) => map_type(t),
    }
}

// ----------------------------------------------------------------------- declaration

fn declaration(params: Value<'_>, tool: &str) -> Result<String, String> {
    let mut out = Vec::new();
    for p in params.items() {
        let name = p.get("name").map(wire).ok_or("parameter without name")?;
        let mut fields = vec![format!("\"name\":{name}")];
        let mut ty = param_type(p)?;
        if let Some(q) = p.get("question") {
            if let Some(lit) = q.get("literal") {
                if let Some(rt) = q.get("response_type") {
                    ty = map_type(rt)?;
                }
                let mut e = vec![format!("\"message\":{}", wire(lit))];
                for k in ["title", "description"] {
                    if let Some(v) = q.get(k).filter(|v| !v.is_null()) {
                        e.push(format!("\"{k}\":{}", wire(v)));
                    }
                }
                fields.push(format!("\"elicit\":{{{}}}", e.join(",")));
            } else if let Some(r) = q.get("resolver") {
                let needs = r.get("depends_on").map(wire).unwrap_or_else(|| "[]".into());
                let mut e = vec![format!("\"needs\":{needs}")];
                if let Some(d) = r.get("declares") {
                    e.push(format!("\"declares\":{}", map_type(d)?));
                }
                fields.push(format!("\"elicit\":{{{}}}", e.join(",")));
            } else {
                return Err("bad question spec".into());
            }
        }
        fields.push(format!("\"type\":{ty}"));
        if let Some(d) = p.get("default") {
            fields.push(format!("\"default\":{}", wire(d)));
        }
        out.push(format!("{{{}}}", fields.join(",")));
    }
    Ok(format!(
        "{{\"tool\":{},\"parameters\":[{}]}}",
        jstr(tool),
        out.join(",")
    ))
}

// ----------------------------------------------------------------------- resolvers

/// How a template placeholder renders a value: strings verbatim, everything else as
/// compact JSON with non-ASCII kept.
fn placeholder(v: Value<'_>) -> String {
    match text_of(v) {
        Some(s) => s,
        None => wire(v),
    }
}

/// Python `==` between two JSON values (numbers by value, `True == 1`).
fn py_eq(a: Value<'_>, b: Value<'_>) -> bool {
    let num = |v: Value<'_>| -> Option<f64> {
        match v.kind() {
            Kind::Number => v.raw().parse::<f64>().ok(),
            Kind::Bool => Some(if v.as_bool() == Some(true) { 1.0 } else { 0.0 }),
            _ => None,
        }
    };
    match (a.kind(), b.kind()) {
        (Kind::String, Kind::String) => text_of(a) == text_of(b),
        (Kind::Null, Kind::Null) => true,
        (Kind::Number | Kind::Bool, Kind::Number | Kind::Bool) => num(a) == num(b),
        (Kind::Array, Kind::Array) => {
            a.items().count() == b.items().count()
                && a.items().zip(b.items()).all(|(x, y)| py_eq(x, y))
        }
        (Kind::Object, Kind::Object) => {
            a.len() == b.len()
                && a.members().all(|(k, x)| {
                    let kt = text_of_str(k);
                    b.members()
                        .filter(|(k2, _)| text_of_str(*k2) == kt)
                        .last()
                        .is_some_and(|(_, y)| py_eq(a.get_last(&kt).unwrap_or(x), y))
                })
        }
        _ => false,
    }
}

fn text_of_str(s: elicit_core::json::Str<'_>) -> String {
    s.units()
        .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
        .collect()
}

trait GetLast<'a> {
    fn get_last(self, k: &str) -> Option<Value<'a>>;
}
impl<'a> GetLast<'a> for Value<'a> {
    fn get_last(self, k: &str) -> Option<Value<'a>> {
        self.members()
            .filter(|(k2, _)| text_of_str(*k2) == k)
            .last()
            .map(|(_, v)| v)
    }
}

enum Decision {
    Value(String),
    Question(String),
}

fn run_resolver(spec: Value<'_>, inputs: Value<'_>) -> Result<Decision, String> {
    let depends: Vec<String> = spec
        .get("depends_on")
        .map(|d| d.items().filter_map(text_of).collect())
        .unwrap_or_default();
    let input = |name: &str| inputs.get_last(name);
    if let Some(known) = spec.get("known") {
        if known.kind() == Kind::Object && !depends.is_empty() {
            let key = depends
                .first()
                .and_then(|d| input(d))
                .map(placeholder)
                .unwrap_or_default();
            if let Some(v) = known.get_last(&key) {
                return Ok(Decision::Value(wire(v)));
            }
        } else if known.kind() == Kind::Array {
            for rule in known.items() {
                let when = rule.get("when");
                let all = when.is_none_or(|w| {
                    w.members()
                        .all(|(k, v)| input(&text_of_str(k)).is_some_and(|x| py_eq(x, v)))
                });
                if all {
                    let v = rule.get("value").map(wire).unwrap_or_else(|| "null".into());
                    return Ok(Decision::Value(v));
                }
            }
        }
    }
    let mut message = spec.get("template").and_then(text_of).unwrap_or_default();
    for name in &depends {
        let rendered = input(name).map(placeholder).unwrap_or_default();
        message = message.replace(&format!("{{{name}}}"), &rendered);
    }
    let mut q = vec![format!("\"message\":{}", jstr(&message))];
    if let Some(rt) = spec.get("response_type") {
        q.push(format!("\"type\":{}", map_type(rt)?));
    }
    for k in ["title", "description"] {
        if let Some(v) = spec.get(k).filter(|v| !v.is_null()) {
            q.push(format!("\"{k}\":{}", wire(v)));
        }
    }
    Ok(Decision::Question(format!("{{{}}}", q.join(","))))
}

// ----------------------------------------------------------------------- scenario

struct Sticky {
    declaration: String,
    resolvers: Vec<(String, String)>, // param name → resolver spec (raw JSON)
}

fn compile_sticky(params: Value<'_>, tool: &str) -> Result<Sticky, String> {
    let mut resolvers = Vec::new();
    for p in params.items() {
        if let Some(r) = p.get("question").and_then(|q| q.get("resolver")) {
            resolvers.push((
                p.get("name").and_then(text_of).unwrap_or_default(),
                r.raw().to_string(),
            ));
        }
    }
    Ok(Sticky {
        declaration: declaration(params, tool)?,
        resolvers,
    })
}

fn scenario(sc: Value<'_>) -> Result<String, String> {
    let tool = sc
        .get("tool_name")
        .and_then(text_of)
        .unwrap_or_else(|| "tool".into());
    let debug = sc.get("debug").and_then(|d| d.as_bool()).unwrap_or(false);
    let params = sc.get("parameters").ok_or("scenario without parameters")?;
    let mut sticky = compile_sticky(params, &tool)?;
    if let Some(e) = ffi_host::registration_error(&sticky.declaration) {
        return Ok(format!("{{\"registration_error\":{}}}", jstr(&e)));
    }
    let mut arguments = sc.get("arguments").map(wire).unwrap_or_else(|| "{}".into());
    let mut prev_state: Option<String> = None;
    let mut rounds_out = Vec::new();
    let default_rounds = Value::parse("[{}]").map_err(|_| "the default rounds")?;
    let rounds = sc.get("rounds").unwrap_or(default_rounds);
    for rnd in rounds.items() {
        if let Some(p) = rnd.get("parameters") {
            // A redeploy that fails registration keeps the previous tool (as the
            // reference does: the failed registration never replaces it).
            let candidate = compile_sticky(p, &tool)?;
            if let Some(e) = ffi_host::registration_error(&candidate.declaration) {
                rounds_out.push(format!("{{\"registration_error\":{}}}", jstr(&e)));
                prev_state = None;
                continue;
            }
            sticky = candidate;
        }
        if let Some(a) = rnd.get("arguments") {
            arguments = wire(a);
        }
        let state_mode = rnd.get("state");
        let request_state: Option<String> = match state_mode {
            None => prev_state.clone(),
            Some(s) if s.as_str().is_some_and(|s| s.eq_str("carry")) => prev_state.clone(),
            Some(s) if s.as_str().is_some_and(|s| s.eq_str("none")) => None,
            Some(s) => match s.get("literal") {
                Some(l) => text_of(l),
                None => return Err("bad round state".into()),
            },
        };
        let replies = rnd
            .get("input_responses")
            .filter(|r| !r.is_null())
            .map(wire);
        let (result, next_state) = one_round(
            &sticky,
            &arguments,
            request_state.as_deref(),
            replies.as_deref(),
            debug,
        )?;
        prev_state = next_state;
        rounds_out.push(result);
    }
    Ok(format!("{{\"rounds\":[{}]}}", rounds_out.join(",")))
}

fn one_round(
    sticky: &Sticky,
    arguments: &str,
    request_state: Option<&str>,
    replies: Option<&str>,
    debug: bool,
) -> Result<(String, Option<String>), String> {
    if ffi_host::enabled() {
        return ffi_host::one_round(sticky, arguments, request_state, replies, debug);
    }
    let plan = Plan::<CAP>::compile(&sticky.declaration).map_err(|e| e.to_string())?;
    let mut workspace = vec![0u8; 1 << 16];
    let state_in = match request_state {
        Some(s) => jstr(s),
        None => "null".into(),
    };
    let mut round = match Round::new(
        &plan,
        Era::Modern,
        Inputs::modern(arguments, request_state, replies),
        &mut workspace,
    ) {
        Ok(r) => r,
        Err(Error::InputResponses { .. }) => {
            let mut out =
                "{\"wire_error\":\"input_responses failed validation\",\"details\":[]".to_string();
            if debug {
                out.push_str(&format!(
                    ",\"debug\":{{\"request_state_in\":{state_in},\"logs\":[]}}"
                ));
            }
            out.push('}');
            return Ok((out, None));
        }
        Err(e) => return Err(e.to_string()),
    };
    let outcome = loop {
        match round.poll() {
            Err(e) => break Err(e),
            Ok(Step::Resolve { param }) => {
                let pname = plan
                    .name(param)
                    .ok_or("a step for a parameter the plan lacks")?;
                let spec_text = &sticky
                    .resolvers
                    .iter()
                    .find(|(n, _)| n == pname)
                    .ok_or("resolver spec missing")?
                    .1;
                let spec = Value::parse(spec_text).map_err(|_| "bad resolver spec")?;
                let mut inputs = Vec::new();
                round
                    .write_resolve_inputs(&mut inputs)
                    .map_err(|e| e.to_string())?;
                let inputs_text = String::from_utf8(inputs).map_err(|e| e.to_string())?;
                let inputs_v = Value::parse(&inputs_text).map_err(|_| "bad inputs")?;
                let r = match run_resolver(spec, inputs_v)? {
                    Decision::Value(v) => round.resolve_value(&v),
                    Decision::Question(q) => round.resolve_question(&q),
                };
                if let Err(e) = r {
                    if round.error().is_none() {
                        return Err(format!("host error: {e}"));
                    }
                }
            }
            Ok(Step::Ask { .. }) => return Err("modern rounds never ask one at a time".into()),
            Ok(s) => break Ok(s),
        }
    };
    let mut dbg = Vec::new();
    let result = match outcome {
        Ok(Step::Done) => {
            let mut v = Vec::new();
            round
                .write_values(Style::WIRE, &mut v)
                .map_err(|e| e.to_string())?;
            (
                format!("{{\"values\":{}", String::from_utf8_lossy(&v).into_owned()),
                None,
            )
        }
        Ok(Step::InputRequired) => {
            let mut reqs = Vec::new();
            round
                .write_input_requests(false, &mut reqs)
                .map_err(|e| e.to_string())?;
            let mut st = Vec::new();
            round
                .write_request_state(&mut st)
                .map_err(|e| e.to_string())?;
            let state = String::from_utf8_lossy(&st).into_owned();
            let reqs = String::from_utf8_lossy(&reqs).into_owned();
            if debug {
                let mut di = Vec::new();
                let mut dg = Vec::new();
                let mut cv = Vec::new();
                let reqs_v = Value::parse(&reqs).map_err(|_| "bad requests")?;
                for (k, r) in reqs_v.members() {
                    let params = r.get("params").ok_or("a request without params")?;
                    let mut input = Vec::new();
                    write_value(params, Style::DIGEST, &mut input);
                    let key = format!("\"{}\"", k.raw());
                    di.push(format!("{key}:{}", jstr(&String::from_utf8_lossy(&input))));
                    let d = digest_params(params);
                    dg.push(format!("{key}:\"{}\"", &*String::from_utf8_lossy(&d)));
                }
                let mut cv_reqs = Vec::new();
                round
                    .write_input_requests(true, &mut cv_reqs)
                    .map_err(|e| e.to_string())?;
                let cv_text = String::from_utf8_lossy(&cv_reqs).into_owned();
                let cv_v = Value::parse(&cv_text).map_err(|_| "bad client view")?;
                for (k, r) in cv_v.members() {
                    cv.push(format!(
                        "\"{}\":{}",
                        k.raw(),
                        wire(r.get("params").ok_or("a request without params")?)
                    ));
                }
                dbg.push(format!("\"digest_inputs\":{{{}}}", di.join(",")));
                dbg.push(format!("\"digests\":{{{}}}", dg.join(",")));
                dbg.push(format!("\"client_view_params\":{{{}}}", cv.join(",")));
            }
            (
                format!(
                    "{{\"input_required\":{{\"input_requests\":{reqs},\"request_state\":{}}}",
                    jstr(&state)
                ),
                Some(state),
            )
        }
        Ok(_) => return Err("unexpected step".into()),
        Err(e) => (format!("{{\"error\":{}", jstr(&e.to_string())), None),
    };
    let (mut out, next) = result;
    if debug {
        dbg.push(format!("\"request_state_in\":{state_in}"));
        let logs: Vec<String> = round
            .notes()
            .iter()
            .map(|n| {
                let mut m = String::new();
                let _ = n.write_message(plan.name(n.param()).unwrap_or(""), &mut m);
                format!("{{\"level\":\"{}\",\"message\":{}}}", n.level(), jstr(&m))
            })
            .collect();
        dbg.push(format!("\"logs\":[{}]", logs.join(",")));
        out.push_str(&format!(",\"debug\":{{{}}}", dbg.join(",")));
    }
    out.push('}');
    Ok((out, next))
}

// ----------------------------------------------------------------------- digest mode

fn digest(doc: Value<'_>) -> Result<String, String> {
    let params_json = if let Some(req) = doc.get("request") {
        let p = req.get("params").ok_or("request without params")?;
        // The reference validates the wire request into its model: mode defaults to
        // "form", keys in model order.
        let mut fields = vec![format!(
            "\"mode\":{}",
            p.get("mode").map(wire).unwrap_or_else(|| "\"form\"".into())
        )];
        for k in ["message", "requestedSchema"] {
            if let Some(v) = p.get(k) {
                fields.push(format!("\"{k}\":{}", wire(v)));
            }
        }
        format!("{{{}}}", fields.join(","))
    } else {
        let ty = match doc.get("type") {
            Some(t) => map_type(t)?,
            None => map_type(Value::parse("\"str\"").map_err(|_| "the default type")?)?,
        };
        let mut e = vec![format!(
            "\"message\":{}",
            doc.get("message")
                .map(wire)
                .unwrap_or_else(|| "\"\"".into())
        )];
        for k in ["title", "description"] {
            if let Some(v) = doc.get(k).filter(|v| !v.is_null()) {
                e.push(format!("\"{k}\":{}", wire(v)));
            }
        }
        let decl = format!(
            "{{\"parameters\":[{{\"name\":\"q\",\"type\":{ty},\"elicit\":{{{}}}}}]}}",
            e.join(",")
        );
        let plan = Plan::<4>::compile(&decl).map_err(|e| e.to_string())?;
        let mut w = Vec::new();
        plan.write_literal_params(0, false, &mut w);
        String::from_utf8_lossy(&w).into_owned()
    };
    let params = Value::parse(&params_json).map_err(|_| "bad params")?;
    let mut input = Vec::new();
    write_value(params, Style::DIGEST, &mut input);
    let input = String::from_utf8_lossy(&input).into_owned();
    let hex: String = input.bytes().map(|b| format!("{b:02x}")).collect();
    let d = digest_params(params);
    Ok(format!(
        "{{\"request\":{{\"method\":\"elicitation/create\",\"params\":{params_json}}},\"digest_input\":{},\"digest_input_utf8_hex\":\"{hex}\",\"digest\":\"{}\"}}",
        jstr(&input),
        &*String::from_utf8_lossy(&d)
    ))
}
