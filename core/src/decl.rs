//! A typed Rust builder for declarations (feature `alloc`).
//!
//! The builder writes the same JSON declaration a C or Python host would write (see
//! [`crate::plan`]), so both routes compile to the same [`Plan`](crate::Plan):
//!
//! ```
//! use elicit_core::decl::{AnswerType, Param, Tool};
//! use elicit_core::{InputKind, Plan};
//!
//! let decl = Tool::new("book_flight")
//!     .param(Param::ask("destination", "Where would you like to fly?"))
//!     .param(Param::ask("date", "When would you like to fly?"))
//!     .param(Param::resolver("airport", &["destination"]))
//!     .param(Param::resolver("proceed", &["destination", "date"]).ty(AnswerType::Boolean))
//!     .param(
//!         Param::ask("seat", "Window or aisle?")
//!             .ty(AnswerType::choice(["window", "aisle"]))
//!             .default_json("null"),
//!     )
//!     .param(Param::url("paid", "Pay the fare", "https://pay.example/f1"))
//!     .param(Param::sampling(
//!         "summary",
//!         r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarise"}}],"maxTokens":100}"#,
//!     ))
//!     .param(Param::roots("roots"))
//!     .param(Param::resolver("receipt", &["destination"]).kind(InputKind::Sampling))
//!     .to_json();
//! let plan: Plan<'_, 16> = Plan::compile(&decl).unwrap();
//! assert_eq!(plan.resolution_order().count(), 9);
//! assert_eq!(plan.kind(8), Some(InputKind::Sampling));
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use crate::input::InputKind;
use crate::json::write_str;

fn quote(s: &str) -> String {
    let mut out = Vec::new();
    write_str(s, false, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    alloc::format!("[{}]", quoted.join(","))
}

/// An answer type (see [`crate::types`] for what each renders as).
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerType {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// A boolean.
    Boolean,
    /// One of these strings (single-select).
    Choice(Vec<String>),
    /// Any of these strings (multi-select).
    Choices(Vec<String>),
    /// An object of primitive fields, rendered like a pydantic model.
    Object {
        /// The schema's `title` (a pydantic model's class name).
        title: Option<String>,
        /// The fields, in order.
        fields: Vec<Field>,
    },
    /// A type object written as JSON (e.g. `{"type":"string","format":"email"}`).
    Json(String),
    /// A raw `requestedSchema`, sent verbatim.
    Schema(String),
}

impl AnswerType {
    /// A single-select enum.
    pub fn choice<I: IntoIterator<Item = S>, S: Into<String>>(choices: I) -> Self {
        AnswerType::Choice(choices.into_iter().map(Into::into).collect())
    }
    /// A multi-select enum.
    pub fn choices<I: IntoIterator<Item = S>, S: Into<String>>(choices: I) -> Self {
        AnswerType::Choices(choices.into_iter().map(Into::into).collect())
    }

    /// The type as declaration JSON.
    pub fn to_json(&self) -> String {
        match self {
            AnswerType::String => "\"string\"".into(),
            AnswerType::Integer => "\"integer\"".into(),
            AnswerType::Number => "\"number\"".into(),
            AnswerType::Boolean => "\"boolean\"".into(),
            AnswerType::Choice(c) => alloc::format!("{{\"enum\":{}}}", list(c)),
            AnswerType::Choices(c) => {
                alloc::format!("{{\"type\":\"array\",\"items\":{{\"enum\":{}}}}}", list(c))
            }
            AnswerType::Object { title, fields } => {
                let mut s = String::from("{\"type\":\"object\"");
                if let Some(t) = title {
                    s.push_str(",\"title\":");
                    s.push_str(&quote(t));
                }
                s.push_str(",\"properties\":{");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(&quote(&f.name));
                    s.push(':');
                    s.push_str(&f.to_json());
                }
                s.push_str("}}");
                s
            }
            AnswerType::Json(j) => j.clone(),
            AnswerType::Schema(j) => alloc::format!("{{\"schema\":{j}}}"),
        }
    }
}

/// A field of an [`AnswerType::Object`].
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    name: String,
    ty: AnswerType,
    title: Option<String>,
    description: Option<String>,
    default: Option<String>,
}

impl Field {
    /// A required field.
    pub fn new(name: &str, ty: AnswerType) -> Self {
        Field {
            name: name.into(),
            ty,
            title: None,
            description: None,
            default: None,
        }
    }
    /// Its title (pydantic derives one from the name otherwise).
    pub fn title(mut self, t: &str) -> Self {
        self.title = Some(t.into());
        self
    }
    /// Its description.
    pub fn description(mut self, d: &str) -> Self {
        self.description = Some(d.into());
        self
    }
    /// A default (JSON text), which makes the field optional.
    pub fn default_json(mut self, json: &str) -> Self {
        self.default = Some(json.into());
        self
    }

    fn to_json(&self) -> String {
        let base = self.ty.to_json();
        let mut s = if base.starts_with('"') {
            alloc::format!("{{\"type\":{base}")
        } else {
            let mut b = base;
            b.pop();
            b
        };
        if let Some(t) = &self.title {
            s.push_str(",\"title\":");
            s.push_str(&quote(t));
        }
        if let Some(d) = &self.description {
            s.push_str(",\"description\":");
            s.push_str(&quote(d));
        }
        if let Some(d) = &self.default {
            s.push_str(",\"default\":");
            s.push_str(d);
        }
        s.push('}');
        s
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Question {
    Argument,
    Literal {
        message: String,
        title: Option<String>,
        description: Option<String>,
    },
    Resolver {
        needs: Vec<String>,
        declares: Option<AnswerType>,
        kind: InputKind,
    },
    /// URL mode, sampling or roots, fixed: the `elicit` object's JSON.
    Request(String),
}

/// One parameter of a [`Tool`].
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    name: String,
    ty: Option<AnswerType>,
    question: Question,
    default: Option<String>,
    outcome: bool,
    /// `"fallback": false` in its `elicit`: only the user may answer.
    user_only: bool,
}

impl Param {
    /// A model-supplied argument.
    pub fn argument(name: &str) -> Self {
        Param {
            name: name.into(),
            ty: None,
            question: Question::Argument,
            default: None,
            outcome: false,
            user_only: false,
        }
    }
    /// An elicited parameter asked with a literal question (a string unless
    /// [`Param::ty`] says otherwise).
    pub fn ask(name: &str, message: &str) -> Self {
        Param {
            name: name.into(),
            ty: None,
            question: Question::Literal {
                message: message.into(),
                title: None,
                description: None,
            },
            default: None,
            outcome: false,
            user_only: false,
        }
    }
    /// An elicited parameter whose question (or value) a host resolver decides from the
    /// named parameters.
    pub fn resolver(name: &str, needs: &[&str]) -> Self {
        Param {
            name: name.into(),
            ty: None,
            question: Question::Resolver {
                needs: needs.iter().map(|s| String::from(*s)).collect(),
                declares: None,
                kind: InputKind::Form,
            },
            default: None,
            outcome: false,
            user_only: false,
        }
    }
    /// An elicited parameter asked by URL-mode elicitation: the user is sent to `url`
    /// with `message`; accepting settles it to `true`.
    pub fn url(name: &str, message: &str, url: &str) -> Self {
        let json = alloc::format!("{{\"message\":{},\"url\":{}}}", quote(message), quote(url));
        Self::request(name, json)
    }
    /// An elicited parameter asked by sampling: `params_json` is the
    /// CreateMessageRequest's params (`{"messages": [...], "maxTokens": ...}`); the
    /// parameter settles to the CreateMessageResult.
    pub fn sampling(name: &str, params_json: &str) -> Self {
        Self::request(name, alloc::format!("{{\"sampling\":{params_json}}}"))
    }
    /// An elicited parameter asked by `roots/list`; it settles to the roots array.
    pub fn roots(name: &str) -> Self {
        Self::request(name, "{\"roots\":{}}".into())
    }
    fn request(name: &str, elicit: String) -> Self {
        Param {
            name: name.into(),
            ty: None,
            question: Question::Request(elicit),
            default: None,
            outcome: false,
            user_only: false,
        }
    }
    /// The kind of question a resolver asks (form unless set; see [`crate::input`]).
    pub fn kind(mut self, k: InputKind) -> Self {
        if let Question::Resolver { kind, .. } = &mut self.question {
            *kind = k;
        }
        self
    }
    /// The answer type.
    pub fn ty(mut self, ty: AnswerType) -> Self {
        self.ty = Some(ty);
        self
    }
    /// Title of the wrapped `value` field (literal questions).
    pub fn title(mut self, t: &str) -> Self {
        if let Question::Literal { title, .. } = &mut self.question {
            *title = Some(t.into());
        }
        self
    }
    /// Description of the wrapped `value` field (literal questions).
    pub fn description(mut self, d: &str) -> Self {
        if let Question::Literal { description, .. } = &mut self.question {
            *description = Some(d.into());
        }
        self
    }
    /// The type a resolver declares it asks for (must equal [`Param::ty`]).
    pub fn declares(mut self, ty: AnswerType) -> Self {
        if let Question::Resolver { declares, .. } = &mut self.question {
            *declares = Some(ty);
        }
        self
    }
    /// A default (JSON text): declining or cancelling settles to it.
    pub fn default_json(mut self, json: &str) -> Self {
        self.default = Some(json.into());
        self
    }
    /// Settle to the outcome itself (accept + value, decline, cancel).
    pub fn outcome(mut self) -> Self {
        self.outcome = true;
        self
    }
    /// Only the user may answer (a confirmation, a secret): never an argument through
    /// the model, even when the tool declares [`Tool::fallback_arguments`]
    /// (`"fallback": false`; docs/fallback.md).
    pub fn no_fallback(mut self) -> Self {
        self.user_only = true;
        self
    }

    /// Close the `elicit` object, opting out of the fallback if asked to.
    fn close_elicit(&self, s: &mut String) {
        if self.user_only {
            s.push_str(",\"fallback\":false");
        }
        s.push('}');
    }

    fn to_json(&self) -> String {
        let mut s = alloc::format!("{{\"name\":{}", quote(&self.name));
        if let Some(t) = &self.ty {
            s.push_str(",\"type\":");
            s.push_str(&t.to_json());
        }
        match &self.question {
            Question::Argument => {}
            Question::Literal {
                message,
                title,
                description,
            } => {
                s.push_str(",\"elicit\":{\"message\":");
                s.push_str(&quote(message));
                if let Some(t) = title {
                    s.push_str(",\"title\":");
                    s.push_str(&quote(t));
                }
                if let Some(d) = description {
                    s.push_str(",\"description\":");
                    s.push_str(&quote(d));
                }
                self.close_elicit(&mut s);
            }
            Question::Resolver {
                needs,
                declares,
                kind,
            } => {
                s.push_str(",\"elicit\":{\"needs\":");
                s.push_str(&list(needs));
                if let Some(d) = declares {
                    s.push_str(",\"declares\":");
                    s.push_str(&d.to_json());
                }
                if *kind != InputKind::Form {
                    s.push_str(",\"kind\":");
                    s.push_str(&quote(kind.as_str()));
                }
                self.close_elicit(&mut s);
            }
            Question::Request(elicit) => {
                s.push_str(",\"elicit\":");
                // The object without its closing brace (it is written here as one).
                s.push_str(elicit.strip_suffix('}').unwrap_or(elicit));
                self.close_elicit(&mut s);
            }
        }
        if let Some(d) = &self.default {
            s.push_str(",\"default\":");
            s.push_str(d);
        }
        if self.outcome {
            s.push_str(",\"outcome\":true");
        }
        s.push('}');
        s
    }
}

/// A tool declaration under construction.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    name: String,
    returns_input_required: bool,
    fallback_arguments: bool,
    params: Vec<Param>,
}

impl Tool {
    /// A tool called `name`.
    pub fn new(name: &str) -> Self {
        Tool {
            name: name.into(),
            returns_input_required: false,
            fallback_arguments: false,
            params: Vec::new(),
        }
    }

    /// The tool's name, as given to [`Tool::new`].
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Add the next parameter (signature order).
    pub fn param(mut self, p: Param) -> Self {
        self.params.push(p);
        self
    }
    /// Say the tool body returns its own InputRequiredResult (then it may not declare
    /// elicited parameters; compiling reports the conflict).
    pub fn returns_input_required(mut self, yes: bool) -> Self {
        self.returns_input_required = yes;
        self
    }
    /// Serve a client that cannot be asked through the model (`"fallback": "arguments"`;
    /// docs/fallback.md): its elicited form and roots parameters become optional
    /// arguments for such a client.
    pub fn fallback_arguments(mut self, yes: bool) -> Self {
        self.fallback_arguments = yes;
        self
    }
    /// The declaration JSON, ready for [`crate::Plan::compile`].
    pub fn to_json(&self) -> String {
        let mut s = alloc::format!("{{\"tool\":{}", quote(&self.name));
        if self.returns_input_required {
            s.push_str(",\"returnsInputRequired\":true");
        }
        if self.fallback_arguments {
            s.push_str(",\"fallback\":\"arguments\"");
        }
        s.push_str(",\"parameters\":[");
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&p.to_json());
        }
        s.push_str("]}");
        s
    }
}
