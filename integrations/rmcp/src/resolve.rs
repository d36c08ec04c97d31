//! Resolvers: what one is given ([`Resolve`]) and what it decides ([`Resolution`]).

use std::future::Future;
use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use crate::{developer_error, plain, BoxFuture, ErrorData};

pub(crate) type ResolverFn =
    Arc<dyn Fn(Resolve) -> BoxFuture<Result<Resolution, ErrorData>> + Send + Sync>;

/// What a resolver is given: the parameter it decides, the values it named, and the
/// request's context.
pub struct Resolve {
    /// The parameter being resolved.
    pub param: String,
    /// The values this resolver named in its declaration, by name.
    pub values: Map<String, Value>,
    /// The request being served (the call's own, shared: [`Call::context`](crate::Call::context)).
    pub context: Arc<RequestContext<RoleServer>>,
}

impl Resolve {
    /// The value named `name`, deserialized. An error names the parameter and the value.
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<T, ErrorData> {
        let v = self.values.get(name).ok_or_else(|| {
            developer_error(format_args!(
                "the resolver of {:?} asked for {name:?}, which its declaration does not name \
                 in its needs; add it there",
                self.param
            ))
        })?;
        serde_json::from_value(v.clone()).map_err(|e| {
            developer_error(format_args!(
                "the resolver of {:?}: value {name:?} ({v}) does not read as the type asked for: {e}",
                self.param
            ))
        })
    }

    /// The value named `name` as text: a string unquoted, anything else as JSON, a
    /// missing one empty.
    pub fn text(&self, name: &str) -> String {
        self.values.get(name).map(plain).unwrap_or_default()
    }
}

/// What a resolver decided.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// The value itself: nothing is asked, nothing recorded.
    Value(Value),
    /// A question in the shape of the resolver's kind (elicit-core
    /// `Round::resolve_question`): `{"message": ...}` (form), `{"message", "url"}`,
    /// `{"sampling": {...}}` or `{"roots": {}}`.
    Question(Value),
}

impl Resolution {
    /// A value (anything serde can write).
    pub fn value(v: impl serde::Serialize) -> Self {
        Resolution::Value(serde_json::to_value(v).unwrap_or(Value::Null))
    }

    /// Ask `message` (a form resolver), with the parameter's declared answer type.
    pub fn ask(message: impl Into<String>) -> Self {
        Resolution::Question(json!({ "message": message.into() }))
    }

    /// Send the user to `url` with `message` (a URL-mode resolver).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Resolution::Question(json!({ "message": message.into(), "url": url.into() }))
    }

    /// Ask the client's model (a sampling resolver) with CreateMessageRequest `params`.
    pub fn sampling(params: Value) -> Self {
        Resolution::Question(json!({ "sampling": params }))
    }
}

/// A resolver as a declaration stores it (made by [`resolver`]).
pub struct Resolver(pub(crate) ResolverFn);

/// Store `f` as the resolver of a parameter: `async fn(Resolve) -> Result<Resolution,
/// ErrorData>`. `#[derive(Elicit)]` calls it for `#[elicit(resolver = f)]`.
pub fn resolver<F, Fut>(f: F) -> Resolver
where
    F: Fn(Resolve) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Resolution, ErrorData>> + Send + 'static,
{
    Resolver(Arc::new(move |r| Box::pin(f(r))))
}
