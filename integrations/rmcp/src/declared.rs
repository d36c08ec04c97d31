//! A compiled declaration with its resolvers and argument schemas ([`Declared`]): the
//! derive's ([`ElicitArgs`]) or one built at run time ([`Declared::build`]).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use elicit_core::Plan;
use rmcp::handler::server::common::FromContextPart as _;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::{CallToolResult, ElicitationSchema, JsonObject, Prompt, PromptArgument, Tool};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use crate::resolve::ResolverFn;
use crate::{Call, Elicit, ErrorData, Resolver, CAP};

self_cell::self_cell!(
    /// A compiled plan and the declaration text it borrows, owned together.
    pub(crate) struct Compiled {
        owner: Box<str>,
        #[covariant]
        dependent: CorePlan,
    }
);

/// The engine's plan at this crate's capacity, borrowing text of lifetime `'a`.
type CorePlan<'a> = Plan<'a, CAP>;

/// A compiled declaration (owning its text) plus its resolvers and argument schemas:
/// what tools, prompts and resources share.
pub struct Declared {
    compiled: Compiled,
    /// Per parameter, in declaration order: its declared `type` and whether it has a
    /// default (resolver values and settled integers are checked against them).
    pub(crate) types: Vec<(Option<Value>, bool)>,
    pub(crate) resolvers: HashMap<String, ResolverFn>,
    /// JSON Schemas of the model-supplied arguments, by name, in declaration order.
    pub(crate) arg_schemas: Vec<(String, Value)>,
    /// rmcp's form schemas by the engine's `requestedSchema` text (parsed once).
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
    /// The declaration `text` (elicit-core declaration JSON, e.g.
    /// `elicit_core::decl::Tool::to_json()`), its resolvers by parameter name (made by
    /// [`resolver`](crate::resolver)) and its model arguments' JSON Schemas by name,
    /// checked together. Errors name the declaration and the parameter.
    pub fn build(
        text: impl Into<String>,
        resolvers: Vec<(&str, Resolver)>,
        schemas: Vec<(&str, Value)>,
    ) -> Result<Declared, String> {
        let text: String = text.into();
        let decl: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let name = decl.get("tool").and_then(Value::as_str).unwrap_or_default();
        let what = format!("tool {name:?}");
        let compiled = Compiled::try_new(text.into_boxed_str(), |t| {
            Plan::compile(t).map_err(|e| format!("{what}: declaration rejected: {e}"))
        })?;
        let plan = compiled.borrow_dependent();
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
        let d = Declared {
            compiled,
            types,
            resolvers: resolvers
                .into_iter()
                .map(|(n, r)| (n.to_string(), r.0))
                .collect(),
            arg_schemas: schemas
                .into_iter()
                .map(|(n, s)| (n.to_string(), s))
                .collect(),
            schemas: Default::default(),
        };
        d.check_resolvers(&what)?;
        Ok(d)
    }

    /// The compiled plan.
    pub(crate) fn plan(&self) -> &Plan<'_, CAP> {
        self.compiled.borrow_dependent()
    }

    /// The declared name (of the tool, prompt or resource).
    pub fn name(&self) -> &str {
        self.plan().tool()
    }

    /// An rmcp `ToolRoute` serving this declaration, for a tool declared at run time:
    /// add it with `ToolRouter::add_route`. `tool` is the listing, named as the
    /// declaration (its `inputSchema` is set here); `body` gets the arguments and every
    /// elicited value as one `T` once all are settled. Errors: `tool` names another tool,
    /// or the declaration carries the fallback ([`Elicit::list_tools`] lists that per
    /// client for derived declarations only).
    pub fn into_route<S, T, F, Fut>(
        self,
        mut tool: Tool,
        elicit: Arc<Elicit>,
        body: F,
    ) -> Result<ToolRoute<S>, String>
    where
        S: Send + Sync + 'static,
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        if tool.name != self.name() {
            return Err(format!(
                "tool {:?}: the listing is named {:?}; give the declaration's name",
                self.name(),
                tool.name
            ));
        }
        if self.plan().has_fallback() {
            return Err(format!(
                "tool {:?} declares the fallback, which Elicit::list_tools lists per client \
                 for #[derive(Elicit)] declarations only; declare it with the derive",
                self.name()
            ));
        }
        tool.input_schema = Arc::new(self.input_schema());
        let declared = Arc::new(self);
        let body = Arc::new(body);
        Ok(ToolRoute::new_dyn(tool, move |mut context| {
            let call = Call::from_context_part(&mut context);
            let (elicit, declared, body) = (elicit.clone(), declared.clone(), body.clone());
            Box::pin(async move { elicit.serve(&declared, call?, |t, c| body(t, c)).await })
        }))
    }

    /// The `prompts/list` entry of this declaration served as a prompt
    /// ([`Elicit::prompt`]): the model arguments are its required arguments.
    pub fn prompt_listing(&self, description: Option<String>) -> Prompt {
        let args: Vec<PromptArgument> = self
            .arguments()
            .map(|n| {
                let mut a = PromptArgument::new(n);
                a.required = Some(true);
                a
            })
            .collect();
        Prompt::new(self.name(), description, (!args.is_empty()).then_some(args))
    }
}

/// A struct whose fields are one tool's parameters (`#[derive(Elicit)]`).
pub trait ElicitArgs: DeserializeOwned + Send + 'static {
    /// The compiled declaration (built once), or why it was refused, naming the field.
    fn declared() -> &'static Result<Declared, String>;

    /// The tool's `inputSchema` (the model arguments), for `#[tool(input_schema =
    /// T::input_schema())]`: rmcp evaluates it when `#[tool_router]` builds the router.
    ///
    /// # Panics
    ///
    /// When the declaration is refused, so the server stops at startup rather than list
    /// a tool every call fails. [`ElicitArgs::check`] returns the error instead.
    fn input_schema() -> Arc<JsonObject> {
        match Self::declared() {
            Ok(d) => {
                register(d);
                Arc::new(d.input_schema())
            }
            // By design (documented above): rmcp's input_schema is infallible.
            #[allow(clippy::panic)]
            Err(e) => panic!("elicit-rmcp: {e}"),
        }
    }

    /// The declaration's check, naming the field.
    fn check() -> Result<(), String> {
        Self::declared().as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

/// The derived tools declaring the fallback, registered by [`ElicitArgs::input_schema`]
/// for [`Elicit::list_tools`].
pub(crate) static FALLBACK_TOOLS: std::sync::RwLock<Vec<&'static Declared>> =
    std::sync::RwLock::new(Vec::new());

fn register(d: &'static Declared) {
    if !d.plan().has_fallback() {
        return;
    }
    if let Ok(mut tools) = FALLBACK_TOOLS.write() {
        if !tools.iter().any(|t| t.name() == d.name()) {
            tools.push(d);
        }
    }
}

impl Declared {
    pub(crate) fn check_resolvers(&self, what: &str) -> Result<(), String> {
        for i in 0..self.plan().len() {
            let name = self.plan().name(i).unwrap_or_default();
            let has = self.resolvers.contains_key(name);
            if self.plan().has_resolver(i) && !has {
                return Err(format!(
                    "{what}: parameter {name:?} is declared with a resolver; give one for it \
                     ({name:?}, elicit_rmcp::resolver(f)) in the resolvers"
                ));
            }
            if !self.plan().has_resolver(i) && has {
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
            if self.plan().index_of(name).is_none() {
                return Err(format!(
                    "{what}: a resolver is registered for {name:?}, which is not a declared \
                     parameter"
                ));
            }
        }
        Ok(())
    }

    /// The model-supplied parameters, in declaration order.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.plan().len())
            .filter(|&i| !self.plan().is_elicited(i))
            .filter_map(|i| self.plan().name(i))
    }

    pub(crate) fn input_schema(&self) -> JsonObject {
        let schema = |name| self.arg_schemas.iter().find(|(n, _)| n == name);
        let properties: Map<String, Value> = self
            .arguments()
            .map(|n| {
                (
                    n.into(),
                    schema(n).map_or_else(|| json!({}), |(_, s)| s.clone()),
                )
            })
            .collect();
        let required: Vec<&str> = self.arguments().collect();
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("additionalProperties".into(), json!(false));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::WORKSPACE;
    use elicit_core::{Capabilities, Era, Inputs, Round, Step};
    use rmcp::model::InputRequest;

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
        let mut space = vec![0u8; WORKSPACE];
        let inputs = Inputs::modern("{}", None, None).with_capabilities(all);
        let mut round = Round::<CAP>::new(d.plan(), Era::Modern, inputs, &mut space).unwrap();
        assert!(matches!(round.poll(), Ok(Step::InputRequired)));
        let requests = round.input_requests_json(true).unwrap();
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

    /// A rejected declaration's error names the tool as declared and the parameter; a
    /// resolved parameter without its resolver is named too.
    #[test]
    fn a_rejected_declaration_is_named_by_its_tool() {
        use elicit_core::decl::{AnswerType, Param, Tool as Decl};
        use elicit_core::InputKind;
        let decl = Decl::new("pay").param(
            Param::resolver("paid", &[])
                .kind(InputKind::Url)
                .ty(AnswerType::Boolean),
        );
        let err = Declared::build(decl.to_json(), Vec::new(), Vec::new())
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with("tool \"pay\": declaration rejected"),
            "{err}"
        );
        assert!(err.contains("'paid'"), "{err}");
        let decl = Decl::new("pay").param(Param::resolver("paid", &[]));
        let err = Declared::build(decl.to_json(), Vec::new(), Vec::new())
            .err()
            .unwrap_or_default();
        assert!(err.starts_with("tool \"pay\": parameter \"paid\""), "{err}");
    }

    /// A route is refused before anything is served when its listing names another
    /// tool or its declaration carries the fallback; otherwise it lists the
    /// declaration's model arguments.
    #[test]
    fn into_route_checks_the_listing_and_lists_the_arguments() {
        use elicit_core::decl::{AnswerType, Param, Tool as Decl};
        use rmcp::model::{CallToolResult, Implementation};
        let elicit = Arc::new(Elicit::new(
            Implementation::new("t", "1"),
            crate::StateCodec::insecure_plaintext(),
        ));
        let decl = || {
            Decl::new("order")
                .param(Param::argument("item").ty(AnswerType::String))
                .param(Param::ask("quantity", "How many?").ty(AnswerType::Integer))
        };
        let build = |d: Decl| {
            Declared::build(
                d.to_json(),
                Vec::new(),
                vec![("item", json!({"type": "string"}))],
            )
            .unwrap()
        };
        let body = |_: JsonObject, _: Call| async { Ok(CallToolResult::success(Vec::new())) };
        let route = build(decl())
            .into_route::<(), _, _, _>(
                Tool::new_with_raw("order", None, JsonObject::new()),
                elicit.clone(),
                body,
            )
            .unwrap();
        assert_eq!(
            Value::Object((*route.attr.input_schema).clone()),
            json!({"type": "object", "additionalProperties": false,
                   "properties": {"item": {"type": "string"}}, "required": ["item"]})
        );
        let err = build(decl())
            .into_route::<(), _, _, _>(
                Tool::new_with_raw("other", None, JsonObject::new()),
                elicit.clone(),
                body,
            )
            .err()
            .unwrap_or_default();
        assert!(
            err.contains("\"order\"") && err.contains("\"other\""),
            "{err}"
        );
        let err = build(decl().fallback_arguments(true))
            .into_route::<(), _, _, _>(
                Tool::new_with_raw("order", None, JsonObject::new()),
                elicit,
                body,
            )
            .err()
            .unwrap_or_default();
        assert!(err.contains("declares the fallback"), "{err}");
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
        assert!(d.plan().has_fallback());
        assert!(d.plan().falls_back(0));
        assert!(!d.plan().falls_back(1));
        let _ = FallsBack::input_schema();
        let _ = StaysPut::input_schema();
        assert!(!StaysPut::declared().as_ref().unwrap().plan().has_fallback());
        let registered = FALLBACK_TOOLS.read().unwrap();
        let names: Vec<&str> = registered.iter().map(|d| d.plan().tool()).collect();
        assert_eq!(names, ["falls_back"]);
    }
}
