//! A compiled declaration with its resolvers and argument schemas ([`Declared`]), the
//! derive's trait ([`ElicitArgs`]), and the checks a declaration makes of what a call
//! brings.

use std::collections::HashMap;
use std::sync::Arc;

use elicit_core::{InputKind, Plan, PyRepr};
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests, JsonObject,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::resolve::ResolverFn;
use crate::{developer_error, ErrorData, Resolver, CAP};

/// Most distinct form schemas a declaration remembers (resolvers may vary theirs).
pub(crate) const SCHEMA_MEMO: usize = 4 * CAP;

/// A compiled declaration plus its resolvers: what tools, prompts and resources share.
/// Built by `#[derive(Elicit)]` (see [`ElicitArgs`]) or by the builders.
pub struct Declared {
    pub(crate) plan: Plan<'static, CAP>,
    /// Per parameter, in declaration order: its declared `type` (a name, or an object
    /// with `enum`) and whether it has a default (what resolver values and settled
    /// integers are checked against), read from the declaration once.
    pub(crate) types: Vec<(Option<Value>, bool)>,
    pub(crate) resolvers: HashMap<String, ResolverFn>,
    /// JSON Schemas of the model-supplied arguments, by name, in declaration order.
    pub(crate) arg_schemas: Vec<(String, Value)>,
    /// rmcp's form schemas by the engine's `requestedSchema` text: a question's schema
    /// is parsed once, not every round.
    pub(crate) schemas: std::sync::RwLock<HashMap<Box<str>, ElicitationSchema>>,
}

/// The JSON Schema of a model argument's type, as rmcp lists it.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_else(|_| json!({}));
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
        m.remove("title");
    }
    v
}

impl Declared {
    /// The declaration `text` (elicit-core declaration JSON, alive as long as the
    /// program), its resolvers and its arguments' schemas, checked together: every
    /// resolved parameter has exactly one resolver, every schema names an argument.
    /// Errors name the declaration and the parameter.
    pub fn build(
        text: &'static str,
        resolvers: Vec<(&str, Resolver)>,
        schemas: Vec<(&str, Value)>,
    ) -> Result<Declared, String> {
        let mut d = Declared::compile(text)?;
        let what = format!("tool {:?}", d.plan.tool());
        d.resolvers = resolvers
            .into_iter()
            .map(|(n, r)| (n.to_string(), r.0))
            .collect();
        d.arg_schemas = schemas
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect();
        d.check_resolvers(&what)?;
        Ok(d)
    }

    /// The compiled declaration `text`, without resolvers or argument schemas yet.
    pub(crate) fn compile(text: &'static str) -> Result<Declared, String> {
        let plan = Plan::compile(text).map_err(|e| format!("declaration rejected: {e}"))?;
        let decl: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let params = decl.get("parameters").and_then(Value::as_array);
        let types = (0..plan.len())
            .map(|i| {
                let name = plan.name(i).map(Value::from);
                let p = params.and_then(|ps| ps.iter().find(|p| p.get("name") == name.as_ref()));
                p.map_or((None, false), |p| {
                    (p.get("type").cloned(), p.get("default").is_some())
                })
            })
            .collect();
        Ok(Declared {
            plan,
            types,
            resolvers: HashMap::new(),
            arg_schemas: Vec::new(),
            schemas: Default::default(),
        })
    }
}

/// A struct whose fields are one tool's parameters: implemented by
/// `#[derive(Elicit)]`. The tool body receives the struct once every field is settled.
pub trait ElicitArgs: DeserializeOwned + Send + 'static {
    /// The compiled declaration (built once), or why it was refused, naming the field.
    fn declared() -> &'static Result<Declared, String>;

    /// The tool's `inputSchema`: the model arguments only, for
    /// `#[tool(input_schema = T::input_schema())]`. rmcp evaluates it when
    /// `#[tool_router]`'s `Self::tool_router()` builds the router, so a declaration the
    /// engine refuses stops the server there, not at the first call.
    ///
    /// # Panics
    ///
    /// When the declaration is refused ([`ElicitArgs::check`] says why, naming the
    /// field): a tool must never be listed with an empty `inputSchema` that every call
    /// then fails. Call `T::check()` first to handle the error yourself.
    fn input_schema() -> Arc<JsonObject> {
        match Self::declared() {
            Ok(d) => {
                register(d);
                Arc::new(d.input_schema())
            }
            // A startup failure by design (documented above): the router cannot be
            // built from a refused declaration, and rmcp's input_schema is infallible.
            #[allow(clippy::panic)]
            Err(e) => panic!("elicit-rmcp: {e}"),
        }
    }

    /// The startup check: call it where the server is built, so a declaration the
    /// macro could not judge is refused before the first call.
    fn check() -> Result<(), String> {
        Self::declared().as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

/// The derive-declared tools whose declaration carries the fallback, by tool name:
/// [`ElicitArgs::input_schema`] (evaluated when the router is built) registers them, so
/// [`Elicit::list_tools`] can list each for the client asking.
pub(crate) static FALLBACK_TOOLS: std::sync::RwLock<Vec<&'static Declared>> =
    std::sync::RwLock::new(Vec::new());

pub(crate) fn register(d: &'static Declared) {
    if !d.plan.has_fallback() {
        return;
    }
    if let Ok(mut tools) = FALLBACK_TOOLS.write() {
        if !tools.iter().any(|t| t.plan.tool() == d.plan.tool()) {
            tools.push(d);
        }
    }
}

impl Declared {
    pub(crate) fn check_resolvers(&self, what: &str) -> Result<(), String> {
        for i in 0..self.plan.len() {
            let name = self.plan.name(i).unwrap_or_default();
            let has = self.resolvers.contains_key(name);
            if self.plan.has_resolver(i) && !has {
                return Err(format!(
                    "{what}: parameter {name:?} is declared with a resolver; register one with \
                     .resolver({name:?}, ...)"
                ));
            }
            if !self.plan.has_resolver(i) && has {
                return Err(format!(
                    "{what}: a resolver is registered for {name:?}, which the declaration does \
                     not declare as resolved; use Param::resolver({name:?}, ...)"
                ));
            }
        }
        for (name, _) in &self.arg_schemas {
            if !self.arguments().any(|a| a == name) {
                return Err(format!(
                    "{what}: an argument schema is given for {name:?}, which is not a model \
                     argument of the declaration; fix the name or declare the argument"
                ));
            }
        }
        for name in self.resolvers.keys() {
            if self.plan.index_of(name).is_none() {
                return Err(format!(
                    "{what}: a resolver is registered for {name:?}, which is not a declared \
                     parameter"
                ));
            }
        }
        Ok(())
    }

    /// A resolver's value against the parameter's declared type and enum; the error
    /// names the resolver and the value (and goes to the log: it is the developer's).
    pub(crate) fn check_value(&self, param: &str, v: &Value) -> Result<(), ErrorData> {
        let (ty, default) = self
            .plan
            .index_of(param)
            .and_then(|i| self.types.get(i))
            .map_or((None, false), |(ty, default)| (ty.as_ref(), *default));
        let fits = match ty {
            _ if v.is_null() && default => true,
            Some(Value::String(t)) => json_type_matches(t, v),
            Some(Value::Object(o)) => match o.get("enum").and_then(Value::as_array) {
                Some(choices) => choices.contains(v),
                None => true,
            },
            _ => true,
        };
        if fits {
            return Ok(());
        }
        let declared = ty.map(Value::to_string).unwrap_or_default();
        Err(developer_error(format_args!(
            "the resolver of {param:?} returned {v}, which is not a {declared}; \
             return a value of the declared type (or ask)"
        )))
    }

    /// Whole numbers settled for integer parameters as integers (the engine accepts
    /// `3.0` for an integer; a body's `i64` field reads `3`).
    pub(crate) fn normalize(&self, values: &mut Map<String, Value>) {
        for (i, _) in self
            .types
            .iter()
            .enumerate()
            .filter(|(_, (ty, _))| ty.as_ref().and_then(Value::as_str) == Some("integer"))
        {
            let name = self.plan.name(i).unwrap_or_default();
            if let Some(v) = values.get_mut(name) {
                if let Some(f) = v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                    *v = json!(f as i64);
                }
            }
        }
    }

    /// Whole numbers given for integer arguments (`5.0`) as integers (`5`), before any
    /// resolver or body reads them (a resolver's `get::<i64>` and a body's `i64` field
    /// read `5`): a normalised copy, or `None` when nothing needs it (no copy on the
    /// usual call). An argument is an integer when its schema's `type` is `"integer"` or
    /// a list holding it (`Option<i64>`).
    pub(crate) fn normalized_arguments(&self, args: &JsonObject) -> Option<JsonObject> {
        let mut copy: Option<JsonObject> = None;
        for (name, schema) in &self.arg_schemas {
            let integer = match schema.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            let whole = args
                .get(name)
                .filter(|v| integer && v.is_f64())
                .and_then(Value::as_f64)
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15);
            if let Some(f) = whole {
                copy.get_or_insert_with(|| args.clone())
                    .insert(name.clone(), json!(f as i64));
            }
        }
        copy
    }

    /// The engine's `inputRequests` text as rmcp's typed requests, and their names in
    /// the order the engine asks them (declaration order). A form question is built directly, with its
    /// schema parsed once per distinct schema ([`Declared::schema`]); other kinds go
    /// through rmcp's deserializer.
    pub(crate) fn input_requests(
        &self,
        text: &str,
    ) -> Result<(InputRequests, Vec<String>), String> {
        #[derive(serde::Deserialize)]
        struct Form<'a> {
            #[serde(borrow)]
            params: FormParams<'a>,
        }
        #[derive(serde::Deserialize)]
        struct FormParams<'a> {
            message: String,
            #[serde(rename = "requestedSchema", borrow)]
            schema: &'a RawValue,
        }
        let mut batch: HashMap<String, &RawValue> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut requests = InputRequests::new();
        let mut order = Vec::with_capacity(batch.len());
        // The engine asks in the plan's resolution order.
        for i in self.plan.resolution_order() {
            let Some((param, raw)) = self.plan.name(i).and_then(|n| batch.remove_entry(n)) else {
                continue;
            };
            let request = match self.plan.kind(i) {
                Some(InputKind::Form) => serde_json::from_str(raw.get()).and_then(|f: Form<'_>| {
                    Ok(InputRequest::Elicitation(ElicitRequest::new(
                        ElicitRequestParams::FormElicitationParams {
                            meta: None,
                            message: f.params.message,
                            requested_schema: self.schema(f.params.schema.get())?,
                        },
                    )))
                }),
                _ => serde_json::from_str(raw.get()),
            }
            .map_err(|e| format!("question for {param:?} is not a valid input request: {e}"))?;
            order.push(param.clone());
            requests.insert(param, request);
        }
        Ok((requests, order))
    }

    /// rmcp's form schema of the engine's `requestedSchema` text, parsed on its first
    /// round and remembered (up to [`SCHEMA_MEMO`] distinct schemas per declaration).
    pub(crate) fn schema(&self, text: &str) -> Result<ElicitationSchema, serde_json::Error> {
        if let Some(s) = self.schemas.read().ok().and_then(|m| m.get(text).cloned()) {
            return Ok(s);
        }
        let schema: ElicitationSchema = serde_json::from_str(text)?;
        if let Ok(mut memo) = self.schemas.write() {
            if memo.len() < SCHEMA_MEMO {
                memo.insert(text.into(), schema.clone());
            }
        }
        Ok(schema)
    }

    /// The model-supplied parameters, in declaration order.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..self.plan.len())
            .filter(|&i| !self.plan.is_elicited(i))
            .filter_map(|i| self.plan.name(i))
    }

    pub(crate) fn input_schema(&self) -> JsonObject {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for name in self.arguments() {
            let schema = self
                .arg_schemas
                .iter()
                .find(|(n, _)| n == name)
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
        schema
    }

    /// Model arguments against the declaration: no unknown names, every declared one
    /// present, JSON types as the argument schema's `type` says. The message is the
    /// caller-facing error.
    pub(crate) fn check_arguments(
        &self,
        kind: &str,
        target: &str,
        args: &JsonObject,
    ) -> Result<(), String> {
        for key in args.keys() {
            // An elicited parameter that falls back may come as an argument: the
            // engine takes it as the answer only when its question would be asked of
            // a client that cannot be asked (docs/fallback.md).
            let known = self
                .plan
                .index_of(key)
                .is_some_and(|i| !self.plan.is_elicited(i) || self.plan.falls_back(i));
            if !known {
                return Err(format!(
                    "Unexpected argument {} for {kind} {}",
                    PyRepr(key),
                    PyRepr(target)
                ));
            }
        }
        for name in self.arguments() {
            let Some(v) = args.get(name) else {
                return Err(format!(
                    "Missing required argument {} for {kind} {}",
                    PyRepr(name),
                    PyRepr(target)
                ));
            };
            let schema = self.arg_schemas.iter().find(|(n, _)| n == name);
            if let Some(ty) = schema
                .and_then(|(_, s)| s.get("type"))
                .and_then(Value::as_str)
            {
                if !json_type_matches(ty, v) {
                    return Err(format!(
                        "Argument {} of {kind} {} must be of type {ty}",
                        PyRepr(name),
                        PyRepr(target)
                    ));
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn json_type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::{workspace, Era, Outcome, RoundDriver};
    use elicit_core::Capabilities;

    /// The engine's questions become rmcp's typed requests exactly as rmcp's own
    /// deserializer reads them, every kind, in declaration order (not name order), and
    /// a form schema seen before comes from the memo unchanged.
    #[test]
    fn questions_are_rmcps_input_requests_in_declaration_order() {
        let d = Declared::build(
            r#"{"tool":"t","parameters":[
                {"name":"zeta","elicit":{"message":"Z?","title":"Zed"},"type":{"enum":["a","b"]}},
                {"name":"url","elicit":{"message":"Pay","url":"https://pay.example/1"}},
                {"name":"alpha","elicit":{"message":"A?"},"type":"integer"},
                {"name":"sample","elicit":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":10}}},
                {"name":"roots","elicit":{"roots":{}}}]}"#,
            Vec::new(),
            Vec::new(),
        )
        .unwrap();
        let all = Capabilities::ALL;
        let mut space = workspace();
        let driver = RoundDriver::new(&d.plan, Era::Modern, all, "{}", None, None, &mut space);
        let Ok(Outcome::InputRequired { requests, .. }) = driver.ok().unwrap().next() else {
            panic!("expected InputRequired");
        };
        let by_rmcp: Map<String, Value> = serde_json::from_str(&requests).unwrap();
        for _ in 0..2 {
            let (typed, order) = d.input_requests(&requests).unwrap();
            assert_eq!(order, ["zeta", "url", "alpha", "sample", "roots"]);
            assert_eq!(typed.len(), by_rmcp.len());
            for (name, v) in &by_rmcp {
                let want: InputRequest = serde_json::from_value(v.clone()).unwrap();
                assert_eq!(
                    serde_json::to_value(&typed[name]).unwrap(),
                    serde_json::to_value(&want).unwrap(),
                    "{name}"
                );
            }
        }
        assert_eq!(d.schemas.read().unwrap().len(), 2);
    }

    /// The derive's struct attribute opts the tool in, its field attribute opts one
    /// parameter out.
    #[allow(dead_code)]
    #[derive(serde::Deserialize, crate::Elicit)]
    #[elicit(fallback_arguments)]
    struct FallsBack {
        #[elicit(message = "Where to?")]
        destination: String,
        #[elicit(message = "Sure?", no_fallback)]
        proceed: bool,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, crate::Elicit)]
    #[elicit(fallback_arguments = false)]
    struct StaysPut {
        #[elicit(message = "Where to?")]
        destination: String,
    }

    #[test]
    fn the_derive_declares_the_fallback_and_list_tools_finds_it() {
        let d = FallsBack::declared().as_ref().unwrap();
        assert!(d.plan.has_fallback());
        assert!(d.plan.falls_back(0));
        assert!(!d.plan.falls_back(1));
        let _ = FallsBack::input_schema();
        let _ = StaysPut::input_schema();
        assert!(!StaysPut::declared().as_ref().unwrap().plan.has_fallback());
        let registered = FALLBACK_TOOLS.read().unwrap();
        let names: Vec<&str> = registered.iter().map(|d| d.plan.tool()).collect();
        assert_eq!(names, ["falls_back"]);
    }
}
