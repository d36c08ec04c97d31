//! The builders of tools, prompts and resources declared at run time.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolResult, GetPromptResult, JsonObject, MetaObject, Prompt, ReadResourceResult, Resource,
    Tool,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::resolve::ResolverFn;
use crate::{developer_error, BoxFuture, Call, Declared, ErrorData, Resolution, Resolve};

pub(crate) type BodyFn<R> =
    Arc<dyn Fn(Map<String, Value>, Call) -> BoxFuture<Result<R, ErrorData>> + Send + Sync>;

pub(crate) fn compile(decl: elicit_core::decl::Tool) -> Result<Declared, String> {
    // A declaration lives as long as the server: the plan borrows its text.
    Declared::compile(Box::leak(decl.to_json().into_boxed_str()))
}

/// Shared builder steps of [`ElicitTool`], [`ElicitPrompt`] and [`ElicitResource`].
macro_rules! builder_common {
    () => {
        /// Register the async resolver of parameter `name` (declared with
        /// `Param::resolver`). It runs whenever the engine needs that parameter decided.
        pub fn resolver<F, Fut>(mut self, name: &str, f: F) -> Self
        where
            F: Fn(Resolve) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Resolution, ErrorData>> + Send + 'static,
        {
            let f = Arc::new(f);
            let boxed: ResolverFn = Arc::new(move |r| {
                let f = f.clone();
                Box::pin(async move { f(r).await })
            });
            if let Ok(pending) = &mut self.pending {
                pending.resolvers.insert(name.to_string(), boxed);
            }
            self
        }

        /// The JSON Schema of model-supplied argument `name` (listed in the input schema;
        /// its `type` is checked on every call).
        pub fn argument_schema(mut self, name: &str, schema: Value) -> Self {
            if let Ok(pending) = &mut self.pending {
                pending.arg_schemas.push((name.to_string(), schema));
            }
            self
        }
    };
}

pub(crate) fn body<T, R, F, Fut>(f: F, what: String) -> BodyFn<R>
where
    T: DeserializeOwned + Send + 'static,
    F: Fn(T, Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ErrorData>> + Send + 'static,
    R: 'static,
{
    let f = Arc::new(f);
    Arc::new(move |values, call| {
        let f = f.clone();
        let what = what.clone();
        Box::pin(async move {
            let input: T = serde_json::from_value(Value::Object(values)).map_err(|e| {
                developer_error(format_args!(
                    "{what}: the settled values do not fit the body's input type: {e}"
                ))
            })?;
            f(input, call).await
        })
    })
}

/// An elicited tool: declaration, resolvers, listing and typed body.
pub struct ElicitTool {
    /// The compiled declaration, or why it was refused (reported by `run`).
    pub(crate) pending: Result<Declared, String>,
    pub(crate) tool: Tool,
}

/// A finished tool (see [`ElicitTool::run`]).
pub struct ReadyTool {
    pub(crate) declared: Declared,
    pub(crate) tool: Tool,
    pub(crate) body: BodyFn<CallToolResult>,
}

impl ElicitTool {
    /// Start from a declaration (elicit-core's builder). The tool's name is the
    /// declaration's.
    pub fn new(decl: elicit_core::decl::Tool) -> Self {
        // A rejected declaration keeps its name, so `run`'s error names the tool.
        let declared_name = decl.name().to_string();
        let tool = Tool::new_with_raw(declared_name, None, JsonObject::new());
        ElicitTool {
            pending: compile(decl),
            tool,
        }
    }

    builder_common!();

    /// The tool's human title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// The tool's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into().into());
        self
    }

    /// The tool's `outputSchema`.
    pub fn output_schema(mut self, schema: JsonObject) -> Self {
        self.tool.output_schema = Some(Arc::new(schema));
        self
    }

    /// The listing's `_meta`.
    pub fn meta(mut self, meta: MetaObject) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// The tool body: it gets the model's arguments and every elicited value as one
    /// typed input `T` (field names are parameter names), once all are settled.
    /// Finishes the tool; errors name what is wrong with the declaration.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyTool, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        let what = format!("tool {:?}", self.tool.name);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        let mut tool = self.tool;
        tool.input_schema = Arc::new(pending.input_schema());
        Ok(ReadyTool {
            body: body(f, what),
            declared: pending,
            tool,
        })
    }
}

/// An elicited prompt: `prompts/get` asks before the prompt is rendered.
pub struct ElicitPrompt {
    pending: Result<Declared, String>,
    prompt: Prompt,
}

/// A finished prompt (see [`ElicitPrompt::run`]).
pub struct ReadyPrompt {
    pub(crate) declared: Declared,
    pub(crate) prompt: Prompt,
    pub(crate) body: BodyFn<GetPromptResult>,
}

impl ElicitPrompt {
    /// Start from a declaration; the prompt's name is the declaration's. Model
    /// arguments are listed as the prompt's (required) arguments.
    pub fn new(decl: elicit_core::decl::Tool, description: Option<String>) -> Self {
        let tool = ElicitTool::new(decl);
        let prompt = Prompt::new(tool.tool.name.to_string(), description, None);
        ElicitPrompt {
            pending: tool.pending,
            prompt,
        }
    }

    builder_common!();

    /// The prompt body, once every elicited value is settled.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyPrompt, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'static,
    {
        let what = format!("prompt {:?}", self.prompt.name);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        let mut prompt = self.prompt;
        let args: Vec<rmcp::model::PromptArgument> = pending
            .arguments()
            .map(|n| {
                let mut a = rmcp::model::PromptArgument::new(n);
                a.required = Some(true);
                a
            })
            .collect();
        prompt.arguments = (!args.is_empty()).then_some(args);
        Ok(ReadyPrompt {
            body: body(f, what),
            declared: pending,
            prompt,
        })
    }
}

/// An elicited resource: `resources/read` of its URI asks before the contents are
/// returned. Resources take no model arguments.
pub struct ElicitResource {
    pending: Result<Declared, String>,
    resource: Resource,
}

/// A finished resource (see [`ElicitResource::run`]).
pub struct ReadyResource {
    pub(crate) declared: Declared,
    pub(crate) resource: Resource,
    pub(crate) body: BodyFn<ReadResourceResult>,
}

impl ElicitResource {
    /// Start from a declaration and the resource's listing (its `uri` is what
    /// `resources/read` names).
    pub fn new(decl: elicit_core::decl::Tool, resource: Resource) -> Self {
        let tool = ElicitTool::new(decl);
        ElicitResource {
            pending: tool.pending,
            resource,
        }
    }

    builder_common!();

    /// The resource body, once every elicited value is settled.
    pub fn run<T, F, Fut>(self, f: F) -> Result<ReadyResource, String>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(T, Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, ErrorData>> + Send + 'static,
    {
        let what = format!("resource {:?}", self.resource.uri);
        let pending = self.pending.map_err(|e| format!("{what}: {e}"))?;
        pending.check_resolvers(&what)?;
        if let Some(arg) = pending.arguments().next() {
            return Err(format!(
                "{what}: parameter {arg:?} is a model argument, but resources/read carries no \
                 arguments; elicit it or drop it"
            ));
        }
        Ok(ReadyResource {
            body: body(f, what),
            declared: pending,
            resource: self.resource,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use elicit_core::InputKind;

    /// A rejected declaration's error names the tool as declared and the parameter.
    #[test]
    fn a_rejected_declaration_is_named_by_its_tool() {
        use elicit_core::decl::{AnswerType, Param, Tool as Decl};
        let decl = Decl::new("pay").param(
            Param::resolver("paid", &[])
                .kind(InputKind::Url)
                .ty(AnswerType::Boolean),
        );
        let err = ElicitTool::new(decl)
            .run(|_: Map<String, Value>, _call| async { Ok(CallToolResult::success(Vec::new())) })
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with("tool \"pay\": declaration rejected"),
            "{err}"
        );
        assert!(err.contains("'paid'"), "{err}");
    }
}
