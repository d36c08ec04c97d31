//! Declarations and the compiled, immutable [`Plan`].
//!
//! # Declaration format (JSON)
//!
//! ```json
//! {
//!   "tool": "book_flight",
//!   "returnsInputRequired": false,
//!   "parameters": [
//!     {"name": "item"},
//!     {"name": "destination", "elicit": {"message": "Where would you like to fly?"}},
//!     {"name": "airport", "elicit": {"needs": ["destination"], "declares": "string"}},
//!     {"name": "proceed", "type": "boolean", "elicit": {"needs": ["destination", "date"]}},
//!     {"name": "seat", "type": {"enum": ["window", "aisle"]}, "default": null,
//!      "elicit": {"message": "Window or aisle?", "title": "Seat", "description": "Where to sit"}},
//!     {"name": "confirm", "type": "boolean", "outcome": true,
//!      "elicit": {"message": "Go ahead?"}},
//!     {"name": "paid", "elicit": {"message": "Pay the fare", "url": "https://pay.example/f1"}},
//!     {"name": "summary", "elicit": {"sampling": {"messages": [{"role": "user",
//!      "content": {"type": "text", "text": "Summarise the trip"}}], "maxTokens": 100}}},
//!     {"name": "roots", "elicit": {"roots": {}}},
//!     {"name": "receipt", "elicit": {"needs": ["destination"], "kind": "sampling"}}
//!   ]
//! }
//! ```
//!
//! - `parameters` lists the tool's parameters in signature order. One without `elicit`
//!   is supplied by the model in the call's arguments.
//! - `type` is the answer type (default `"string"`), see [`crate::types`] for the
//!   grammar: string/integer/number/boolean with MCP constraints, single-select enum,
//!   multi-select array, an object of primitive fields, or a raw `requestedSchema`.
//! - `elicit` is a literal question or a resolver. A literal question's shape gives its
//!   kind (see [`crate::input`]):
//!   - form: `message`, optional `title`/`description` for the wrapped `value` field;
//!   - URL mode: `message` and `url` (the answer is the action alone; accepting settles
//!     the parameter to `true`);
//!   - sampling: `sampling`, a CreateMessageRequest's params (the parameter settles to
//!     the CreateMessageResult);
//!   - roots: `roots`, a ListRootsRequest's params, usually `{}` (the parameter settles
//!     to the roots array).
//!
//!   A resolver has `needs` (the names it is given), optional `kind` (`"form"` by
//!   default, `"url"`, `"sampling"`, `"roots"`: the kind of question it may ask, in the
//!   shape of the literal `elicit` of that kind) and, for a form resolver, optional
//!   `declares` (the answer type its questions use, which must equal `type`). The host
//!   runs a resolver when the round asks it to and answers with a value (nothing is
//!   asked) or a question. A parameter of a kind other than form has no `type`.
//! - `default` (any JSON, `null` included) makes the parameter optional: a decline or
//!   cancel settles to it. Without it, declining fails the call.
//! - `outcome: true` settles the parameter to the outcome itself
//!   (`{"action":"accept","value":...}`, `{"action":"decline"}`, `{"action":"cancel"}`),
//!   so declining never fails the call.
//! - `returnsInputRequired: true` says the tool body returns its own
//!   `InputRequiredResult`; such a tool may not also declare elicited parameters.
//!
//! Compiling checks what the reference checks at registration (unknown needed names,
//! cycles, declared-type mismatches, mixing with a hand-returned ask) with its messages,
//! plus duplicate names, types outside the MCP elicitation subset, and capacity.

#[cfg(feature = "fallback")]
use crate::error::Error;
use crate::error::{detail, name, CompileError, Problem, MAX_NAME};
use crate::input::{available, Capabilities, InputKind};
#[cfg(feature = "fallback")]
use crate::json::write_json_str;
#[cfg(any(feature = "fallback", feature = "test-helpers"))]
use crate::json::Sink;
use crate::json::{Kind, Str, Value};
use crate::question::{check_request_params, question_digest, Question, Request};
// Re-exported for round.rs, which reads a question's digest text from here.
/// The digest of arbitrary request params (a test and oracle helper, feature
/// `test-helpers`).
#[cfg(feature = "test-helpers")]
pub use crate::digest::digest_params;
use crate::digest::QDigest;
#[cfg(feature = "test-helpers")]
use crate::types::Render;
use crate::types::Ty;

/// Most names one resolver may need.
pub const MAX_NEEDS: usize = 16;

/// A question fixed in the declaration, with its digest computed once at compile time.
/// (Public for [`crate::plan_const`] only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LiteralQ<'a> {
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub message: Str<'a>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub title: Option<Str<'a>>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub description: Option<Str<'a>>,
    /// Not carried in plan bytes: recomputed (and so always consistent) on load.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub digest: QDigest,
}

/// A URL-mode question fixed in the declaration, with its digest computed once.
/// (Public for [`crate::plan_const`] only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UrlQ<'a> {
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub message: Str<'a>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub url: Str<'a>,
    /// Not carried in plan bytes: recomputed on load.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub digest: QDigest,
}

/// A sampling or roots request fixed in the declaration: its params, with their digest
/// computed once. (Public for [`crate::plan_const`] only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RequestQ<'a> {
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub params: Value<'a>,
    /// Not carried in plan bytes: recomputed on load.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub digest: QDigest,
}

/// How a parameter is asked. (Variant order is the plan bytes' numbering. Public for
/// [`crate::plan_const`] only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum AskKind<'a> {
    /// A form question fixed in the declaration.
    Literal(#[cfg_attr(feature = "serde", serde(borrow))] LiteralQ<'a>),
    /// A host resolver decides the value or a question of `kind`.
    Resolver {
        needs: Slots<u8, MAX_NEEDS>,
        #[cfg_attr(feature = "serde", serde(borrow))]
        declares: Option<Ty<'a>>,
        kind: InputKind,
    },
    /// A URL-mode elicitation fixed in the declaration.
    Url(#[cfg_attr(feature = "serde", serde(borrow))] UrlQ<'a>),
    /// A sampling request fixed in the declaration.
    Sampling(#[cfg_attr(feature = "serde", serde(borrow))] RequestQ<'a>),
    /// A roots request fixed in the declaration.
    Roots(#[cfg_attr(feature = "serde", serde(borrow))] RequestQ<'a>),
}

impl AskKind<'_> {
    /// The kind of request that asks the parameter. Without the `input-kinds` feature
    /// every parameter is a form parameter (plans with other kinds are refused when
    /// compiled or loaded), which lets the compiler drop the other kinds' paths.
    #[inline]
    pub(crate) fn kind(&self) -> InputKind {
        if !cfg!(feature = "input-kinds") {
            return InputKind::Form;
        }
        match self {
            AskKind::Literal(_) => InputKind::Form,
            AskKind::Resolver { kind, .. } => *kind,
            AskKind::Url(_) => InputKind::Url,
            AskKind::Sampling(_) => InputKind::Sampling,
            AskKind::Roots(_) => InputKind::Roots,
        }
    }
}

/// One parameter of the tool. (Public for [`crate::plan_const`] only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Param<'a> {
    pub name: &'a str,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub ty: Ty<'a>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub default: Option<Value<'a>>,
    /// `None` for a model-supplied argument.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub ask: Option<AskKind<'a>>,
    pub outcome: bool,
    /// For a client that cannot be asked for its kind, the parameter is an optional
    /// argument instead (the tool's `"fallback": "arguments"`, not opted out; form and
    /// roots only).
    pub fallback: bool,
}

/// A compiled declaration: immutable, `Send + Sync`, shared by every round of the tool.
///
/// `N` is the capacity: the most parameters (arguments and elicited ones together) the
/// plan can hold, at most 255. The plan borrows the declaration text.
#[derive(Debug, Clone)]
pub struct Plan<'a, const N: usize = 32> {
    pub(crate) tool: &'a str,
    pub(crate) params: heapless::Vec<Param<'a>, N>,
    /// Indices of elicited parameters in resolution order.
    pub(crate) order: heapless::Vec<u8, N>,
}

/// A list of at most `N` items in a fixed array: a resolver's needs. Unlike
/// `heapless::Vec` a constant can build one ([`Slots::from_array`]), which makes a
/// parameter const-constructible (see [`crate::plan_const`]). Reads go through
/// `Deref<Target = [T]>` (the first `len` items). (Public for [`crate::plan_const`]
/// only.)
#[doc(hidden)]
#[derive(Clone, Copy)]
// The length first (`repr(C)` keeps it there): reads of it are then at a small offset,
// which Thumb encodes in 2 bytes instead of 4 (−56 B of the C firmware image).
#[repr(C)]
pub struct Slots<T: Copy, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Copy, const N: usize> Slots<T, N> {
    /// An empty list; `fill` fills the unused slots.
    pub(crate) const fn new(fill: T) -> Self {
        Slots {
            items: [fill; N],
            len: 0,
        }
    }

    /// The first `len` items of `items` (all of them when `len` is larger).
    pub const fn from_array(items: [T; N], len: u8) -> Self {
        Slots { items, len }
    }

    /// Append `item`; gives it back when the list is full (or longer than 255 items).
    pub(crate) fn push(&mut self, item: T) -> Result<(), T> {
        let len = usize::from(self.len);
        match (self.items.get_mut(len), u8::try_from(len + 1)) {
            (Some(slot), Ok(next)) => {
                *slot = item;
                self.len = next;
                Ok(())
            }
            _ => Err(item),
        }
    }
}

impl<T: Copy, const N: usize> core::ops::Deref for Slots<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        let len = usize::from(self.len).min(N);
        self.items.get(..len).unwrap_or_default()
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for Slots<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(feature = "serde")]
impl<'de, const N: usize> serde::Deserialize<'de> for Slots<u8, N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let items = heapless::Vec::<u8, N>::deserialize(d)?;
        let mut slots = Slots::new(0);
        for i in items {
            // Fits: the same capacity.
            let _ = slots.push(i);
        }
        Ok(slots)
    }
}

#[cfg(feature = "serde")]
impl<T: Copy + serde::Serialize, const N: usize> serde::Serialize for Slots<T, N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

fn decl_err(at: &str, problem: &'static str) -> CompileError {
    CompileError::Declaration {
        at: name(at),
        problem: Problem::text(problem),
    }
}

fn plain<'a>(v: Value<'a>, at: &str, what: &'static str) -> Result<&'a str, CompileError> {
    let s = v.as_str().ok_or_else(|| decl_err(at, what))?;
    let p = s
        .as_plain()
        .ok_or_else(|| decl_err(at, "names must be written without JSON escapes"))?;
    if p.is_empty() || p.len() > MAX_NAME {
        return Err(decl_err(at, "names must be 1 to 64 bytes long"));
    }
    Ok(p)
}

fn opt_str<'a>(
    v: Value<'a>,
    key: &str,
    at: &str,
    problem: &'static str,
) -> Result<Option<Str<'a>>, CompileError> {
    match v.get(key) {
        None => Ok(None),
        Some(x) if x.is_null() => Ok(None),
        Some(x) => x.as_str().map(Some).ok_or_else(|| decl_err(at, problem)),
    }
}

/// Whether a parameter of `kind` may fall back to an argument (see [`Plan::falls_back`]):
/// form questions and roots; URL-mode and sampling inputs never do.
fn may_fall_back(kind: InputKind) -> bool {
    matches!(kind, InputKind::Form | InputKind::Roots)
}

/// Whether this build has the fallback (feature `fallback`); the error names the feature.
pub(crate) fn fallback_available() -> Result<(), Problem> {
    if cfg!(feature = "fallback") {
        Ok(())
    } else {
        Err(Problem::FALLBACK_LEFT_OUT)
    }
}

impl<'a, const N: usize> Plan<'a, N> {
    /// Compile a JSON declaration (see the module docs for the format).
    pub fn compile(declaration: &'a str) -> Result<Self, CompileError> {
        let doc = Value::parse(declaration).map_err(CompileError::DeclarationJson)?;
        if doc.kind() != Kind::Object {
            return Err(decl_err(
                "tool",
                "the declaration must be a JSON object with \"parameters\"",
            ));
        }
        for (k, _) in doc.members() {
            if k.which(&["tool", "parameters", "returnsInputRequired", "fallback"])
                .is_none()
            {
                return Err(decl_err("tool", "unknown key; a declaration has \"tool\", \"parameters\", \"returnsInputRequired\" and \"fallback\""));
            }
        }
        let tool_fallback = match doc.get("fallback") {
            None => false,
            Some(v) if v.as_str().is_some_and(|s| s.eq_str("arguments")) => {
                fallback_available().map_err(|problem| CompileError::Declaration {
                    at: name("tool"),
                    problem,
                })?;
                true
            }
            Some(_) => return Err(decl_err("tool", "\"fallback\" must be \"arguments\" (for a client that cannot be asked, elicited parameters become optional arguments) or left out")),
        };
        let tool = match doc.get("tool") {
            Some(t) => plain(t, "tool", "\"tool\" must be a string")?,
            None => "tool",
        };
        let returns_ask = match doc.get("returnsInputRequired") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| decl_err("tool", "\"returnsInputRequired\" must be a boolean"))?,
        };
        let list = doc
            .get("parameters")
            .filter(|p| p.kind() == Kind::Array)
            .ok_or_else(|| decl_err("tool", "\"parameters\" must be an array of parameters"))?;
        if N > 255 {
            return Err(CompileError::Capacity {
                what: "parameters (the capacity N may be at most 255)",
                limit: 255,
            });
        }
        let mut params: heapless::Vec<Param<'a>, N> = heapless::Vec::new();
        // First pass: shapes and names.
        for p in list.items() {
            if p.kind() != Kind::Object {
                return Err(decl_err(
                    "tool",
                    "every parameter must be an object with a \"name\"",
                ));
            }
            let pname = plain(
                p.get("name")
                    .ok_or_else(|| decl_err("tool", "every parameter needs a \"name\""))?,
                "tool",
                "a parameter's \"name\" must be a string",
            )?;
            for (k, _) in p.members() {
                if !["name", "type", "default", "elicit", "outcome"]
                    .iter()
                    .any(|x| k.eq_str(x))
                {
                    return Err(decl_err(pname, "unknown key; a parameter has \"name\", \"type\", \"default\", \"elicit\" and \"outcome\""));
                }
            }
            if params.iter().any(|q: &Param<'_>| q.name == pname) {
                return Err(CompileError::DuplicateName { name: name(pname) });
            }
            let ty = match p.get("type") {
                None => Ty::STRING,
                Some(t) => {
                    Ty::compile(t, false).map_err(|problem| CompileError::UnsupportedSchema {
                        param: name(pname),
                        problem,
                    })?
                }
            };
            let outcome = match p.get("outcome") {
                None => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| decl_err(pname, "\"outcome\" must be a boolean"))?,
            };
            let ask = match p.get("elicit") {
                None => None,
                Some(e) => Some(Self::compile_ask(e, pname, &ty)?),
            };
            if ask.as_ref().is_some_and(|a| a.kind() != InputKind::Form) && p.get("type").is_some()
            {
                return Err(decl_err(
                    pname,
                    "\"type\" is a form question's answer type; a url, sampling or roots parameter settles to its result (true, the CreateMessageResult, the roots array): remove \"type\"",
                ));
            }
            let opt_in = match p.get("elicit").and_then(|e| e.get("fallback")) {
                None => None,
                Some(v) => Some(v.as_bool().ok_or_else(|| {
                    decl_err(pname, "\"fallback\" in \"elicit\" must be a boolean (false: only the user may answer, never the model)")
                })?),
            };
            let kind_falls_back = ask.as_ref().is_some_and(|a| may_fall_back(a.kind()));
            if opt_in == Some(true) && !kind_falls_back {
                return Err(decl_err(pname, "URL-mode and sampling inputs never fall back to arguments: remove \"fallback\""));
            }
            let fallback = tool_fallback && kind_falls_back && opt_in != Some(false);
            if ask.is_none() && outcome {
                return Err(decl_err(
                    pname,
                    "\"outcome\" needs \"elicit\": only an elicited parameter has an outcome",
                ));
            }
            params
                .push(Param {
                    name: pname,
                    ty,
                    default: p.get("default"),
                    ask,
                    outcome,
                    fallback,
                })
                .map_err(|_| CompileError::Capacity {
                    what: "parameters",
                    limit: N,
                })?;
        }
        // Second pass: needs → indices, in signature order (declared type, then names).
        let mut resolved_needs: heapless::Vec<(u8, Slots<u8, MAX_NEEDS>), N> = heapless::Vec::new();
        // The first pass compiled one parameter per item, so the two run side by side.
        for (i, (p, item)) in params.iter().zip(list.items()).enumerate() {
            let Some(AskKind::Resolver { declares, .. }) = &p.ask else {
                continue;
            };
            if let Some(d) = declares {
                if !d.same_as(&p.ty) {
                    let mut declared = detail("");
                    let mut annotated = detail("");
                    let _ = d.write_py_name(&mut declared);
                    let _ = p.ty.write_py_name(&mut annotated);
                    return Err(CompileError::DeclaredTypeMismatch {
                        tool: name(tool),
                        param: name(p.name),
                        declared,
                        annotated,
                    });
                }
            }
            // A resolver was compiled from an "elicit" with "needs" (an array).
            let declared_needs = item.get("elicit").and_then(|e| e.get("needs"));
            let mut needs = Slots::new(0);
            for n in declared_needs.into_iter().flat_map(|n| n.items()) {
                let nname = n.as_str().and_then(|s| s.as_plain()).unwrap_or("");
                let Some(j) = params.iter().position(|q| q.name == nname) else {
                    return Err(CompileError::UnknownNeed {
                        tool: name(tool),
                        param: name(p.name),
                        need: name(nname),
                    });
                };
                needs.push(j as u8).map_err(|_| CompileError::Capacity {
                    what: "needs of one resolver",
                    limit: MAX_NEEDS,
                })?;
            }
            let _ = resolved_needs.push((i as u8, needs));
        }
        for (i, needs) in resolved_needs {
            if let Some(Param {
                ask: Some(AskKind::Resolver { needs: slot, .. }),
                ..
            }) = params.get_mut(i as usize)
            {
                *slot = needs;
            }
        }
        // Resolution order: depth-first over elicited needs, visiting in signature order.
        let mut plan = Plan {
            tool,
            params,
            order: heapless::Vec::new(),
        };
        let mut visiting = [false; 256];
        let mut done = [false; 256];
        let mut trail: heapless::Vec<u8, 256> = heapless::Vec::new();
        for i in 0..plan.params.len() {
            if plan.is_elicited(i) {
                plan.visit(i, &mut visiting, &mut done, &mut trail)?;
            }
        }
        if returns_ask && !plan.order.is_empty() {
            return Err(CompileError::MixedWithInputRequired { tool: name(tool) });
        }
        Ok(plan)
    }

    fn compile_ask(e: Value<'a>, pname: &str, ty: &Ty<'a>) -> Result<AskKind<'a>, CompileError> {
        const SHAPES: &str = "\"elicit\" must be an object: {\"message\"} (a form question), {\"message\", \"url\"} (URL mode), {\"sampling\": {...}}, {\"roots\": {...}}, or {\"needs\": [...]} (a resolver)";
        if e.kind() != Kind::Object {
            return Err(decl_err(pname, SHAPES));
        }
        const KEYS: &[&str] = &[
            "message",
            "title",
            "description",
            "needs",
            "declares",
            "kind",
            "url",
            "sampling",
            "roots",
            "fallback",
        ];
        if e.members().any(|(k, _)| k.which(KEYS).is_none()) {
            return Err(decl_err(pname, "unknown key in \"elicit\"; use \"message\" (with \"title\"/\"description\", or \"url\"), \"sampling\", \"roots\", or \"needs\" with \"kind\"/\"declares\"; any of them with \"fallback\""));
        }
        let has = |k: &str| e.get(k).is_some();
        let left_out = |kind| {
            available(kind).map_err(|problem| CompileError::Declaration {
                at: name(pname),
                problem,
            })
        };
        // `fallback` goes with every shape (read by the caller).
        let others = |allowed: &[&str]| {
            e.members()
                .any(|(k, _)| !k.eq_str("fallback") && k.which(allowed).is_none())
        };
        let message = e.get("message");
        if has("needs") {
            if others(&["needs", "declares", "kind"]) {
                return Err(decl_err(pname, "a resolver (\"needs\") takes only \"kind\" and \"declares\": its questions carry their own message, title and description"));
            }
            return Self::compile_resolver(e, pname);
        }
        if has("kind") || has("declares") {
            return Err(decl_err(pname, "\"kind\" and \"declares\" belong to a resolver (\"needs\"); a literal question's shape gives its kind"));
        }
        if let Some(params) = e.get("sampling").or(e.get("roots")) {
            let kind = if has("sampling") {
                InputKind::Sampling
            } else {
                InputKind::Roots
            };
            left_out(kind)?;
            if others(&[kind.as_str()]) {
                return Err(decl_err(pname, SHAPES));
            }
            check_request_params(kind, params).map_err(|problem| CompileError::Declaration {
                at: name(pname),
                problem,
            })?;
            let q = RequestQ {
                params,
                digest: Request::Params(params).digest(),
            };
            return Ok(if kind == InputKind::Sampling {
                AskKind::Sampling(q)
            } else {
                AskKind::Roots(q)
            });
        }
        let Some(m) = message else {
            return Err(decl_err(pname, SHAPES));
        };
        let message = m
            .as_str()
            .ok_or_else(|| decl_err(pname, "\"message\" must be a string"))?;
        if let Some(u) = e.get("url") {
            left_out(InputKind::Url)?;
            if others(&["message", "url"]) {
                return Err(decl_err(
                    pname,
                    "a URL-mode question has only \"message\" and \"url\"",
                ));
            }
            let url = u
                .as_str()
                .ok_or_else(|| decl_err(pname, "\"url\" must be a string"))?;
            return Ok(AskKind::Url(UrlQ {
                message,
                url,
                digest: Request::Url { message, url }.digest(),
            }));
        }
        let title = opt_str(e, "title", pname, "\"title\" must be a string")?;
        let description = opt_str(e, "description", pname, "\"description\" must be a string")?;
        if (title.is_some() || description.is_some()) && !ty.wrapped() {
            return Err(CompileError::UnsupportedSchema {
                param: name(pname),
                problem: Problem::text("a question's title and description label the wrapped value of a scalar, enum or array answer; for an object type, put titles and descriptions on its fields"),
            });
        }
        let mut digest = [0; 22];
        question_digest(message, false, ty, title, description, &mut digest);
        Ok(AskKind::Literal(LiteralQ {
            message,
            title,
            description,
            digest,
        }))
    }

    fn compile_resolver(e: Value<'a>, pname: &str) -> Result<AskKind<'a>, CompileError> {
        let n = e
            .get("needs")
            .filter(|n| n.kind() == Kind::Array)
            .ok_or_else(|| decl_err(pname, "\"needs\" must be an array of parameter names"))?;
        for x in n.items() {
            plain(x, pname, "\"needs\" must be an array of parameter names")?;
        }
        if n.items().count() > MAX_NEEDS {
            return Err(CompileError::Capacity {
                what: "needs of one resolver",
                limit: MAX_NEEDS,
            });
        }
        let kind = match e.get("kind") {
            None => InputKind::Form,
            Some(k) => k
                .as_str()
                .and_then(|k| k.as_plain())
                .and_then(InputKind::from_name)
                .ok_or_else(|| {
                    decl_err(
                        pname,
                        "\"kind\" must be \"form\", \"url\", \"sampling\" or \"roots\"",
                    )
                })?,
        };
        available(kind).map_err(|problem| CompileError::Declaration {
            at: name(pname),
            problem,
        })?;
        let declares = match e.get("declares") {
            None => None,
            Some(_) if kind != InputKind::Form => {
                return Err(decl_err(pname, "\"declares\" names a form question's answer type; a url, sampling or roots resolver has none"));
            }
            Some(d) => {
                Some(
                    Ty::compile(d, false).map_err(|problem| CompileError::UnsupportedSchema {
                        param: name(pname),
                        problem,
                    })?,
                )
            }
        };
        Ok(AskKind::Resolver {
            needs: Slots::new(0),
            declares,
            kind,
        })
    }

    fn visit(
        &mut self,
        i: usize,
        visiting: &mut [bool; 256],
        done: &mut [bool; 256],
        trail: &mut heapless::Vec<u8, 256>,
    ) -> Result<(), CompileError> {
        // `i < params.len() <= 255`: both marks and the parameter are always there.
        let (Some(is_done), Some(is_visiting)) = (done.get_mut(i), visiting.get_mut(i)) else {
            return Ok(());
        };
        if *is_done {
            return Ok(());
        }
        if *is_visiting {
            let mut path = detail("");
            for t in trail.iter() {
                let _ = path.push_str(self.name(*t as usize).unwrap_or(""));
                let _ = path.push_str(" -> ");
            }
            let _ = path.push_str(self.name(i).unwrap_or(""));
            return Err(CompileError::Cycle {
                tool: name(self.tool),
                path,
            });
        }
        *is_visiting = true;
        let _ = trail.push(i as u8);
        if let Some(AskKind::Resolver { needs, .. }) =
            self.params.get(i).and_then(|p| p.ask.as_ref())
        {
            let needs = *needs;
            for &j in needs.iter() {
                if self.is_elicited(j as usize) {
                    self.visit(j as usize, visiting, done, trail)?;
                }
            }
        }
        trail.pop();
        if let Some(v) = visiting.get_mut(i) {
            *v = false;
        }
        if let Some(d) = done.get_mut(i) {
            *d = true;
        }
        let _ = self.order.push(i as u8);
        Ok(())
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// Number of parameters (arguments and elicited).
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// True when the tool has no parameters.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The name of parameter `index` (signature order).
    pub fn name(&self, index: usize) -> Option<&'a str> {
        self.params.get(index).map(|p| p.name)
    }

    /// True when parameter `index` is elicited — a server hides it from `inputSchema`.
    pub fn is_elicited(&self, index: usize) -> bool {
        self.params.get(index).is_some_and(|p| p.ask.is_some())
    }

    /// The index of the parameter called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The elicited parameters' indices in resolution order.
    pub fn resolution_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.order.iter().map(|i| *i as usize)
    }

    /// The names parameter `index`'s resolver needs (empty for a literal question or
    /// an argument).
    pub fn needs(&self, index: usize) -> impl Iterator<Item = &'a str> + '_ {
        let needs: &[u8] = match self.params.get(index).and_then(|p| p.ask.as_ref()) {
            Some(AskKind::Resolver { needs, .. }) => needs,
            _ => &[],
        };
        // Every need is a parameter index (checked when compiled or read).
        needs.iter().filter_map(move |j| self.name(*j as usize))
    }

    /// True when parameter `index` is filled by a resolver the host runs.
    pub fn has_resolver(&self, index: usize) -> bool {
        matches!(
            self.params.get(index).and_then(|p| p.ask.as_ref()),
            Some(AskKind::Resolver { .. })
        )
    }
}

impl<'a, const N: usize> Plan<'a, N> {
    /// The question fixed in the declaration for parameter `index` (any kind), if it
    /// has one.
    #[inline]
    pub(crate) fn literal_request(&self, index: usize) -> Option<(Request<'a>, QDigest)> {
        let p = self.params.get(index)?;
        Some(match p.ask.as_ref()? {
            AskKind::Literal(q) => (
                Request::Form(Question {
                    message: q.message,
                    ty: p.ty,
                    title: q.title,
                    description: q.description,
                }),
                q.digest,
            ),
            _ if !cfg!(feature = "input-kinds") => return None,
            AskKind::Url(q) => (
                Request::Url {
                    message: q.message,
                    url: q.url,
                },
                q.digest,
            ),
            AskKind::Sampling(q) => (Request::Params(q.params), q.digest),
            AskKind::Roots(q) => (Request::Params(q.params), q.digest),
            AskKind::Resolver { .. } => return None,
        })
    }

    /// For a parameter asked with a question fixed in the declaration (any kind): write
    /// its request params, in the digest form (`digest = true`: sorted keys, ASCII
    /// escapes — the exact bytes hashed) or the wire form. Returns false for other
    /// parameters. A test and oracle helper (feature `test-helpers`).
    #[cfg(feature = "test-helpers")]
    pub fn write_literal_params(&self, index: usize, digest: bool, out: &mut dyn Sink) -> bool {
        let Some((request, _)) = self.literal_request(index) else {
            return false;
        };
        let render = if digest {
            Render::DIGEST
        } else {
            Render::wire(false)
        };
        request.write_params(render, None, out);
        true
    }

    /// The digest (22 characters of base64url) of a question fixed in the declaration,
    /// computed once when the plan was compiled.
    pub fn literal_digest(&self, index: usize) -> Option<[u8; 22]> {
        self.literal_request(index).map(|(_, d)| d)
    }

    /// The kind of request that asks parameter `index` (`None` for a model-supplied
    /// argument).
    pub fn kind(&self, index: usize) -> Option<InputKind> {
        self.params.get(index)?.ask.as_ref().map(AskKind::kind)
    }

    /// Every kind of request the plan's elicited parameters may be asked by (what a
    /// client must declare to use the tool in full).
    pub fn kinds(&self) -> Capabilities {
        self.params
            .iter()
            .filter_map(|p| p.ask.as_ref())
            .fold(Capabilities::NONE, |c, a| c.with(a.kind()))
    }
}

/// The question a roots parameter is listed with in a fallback (it has no text of its
/// own).
#[cfg(feature = "fallback")]
pub(crate) const ROOTS_QUESTION: &str =
    "Which folders or files may this tool work in? Give their URIs.";

/// The `_meta` key of a fallback result's list of questions (docs/fallback.md).
pub const FALLBACK_META_KEY: &str = "elicit/askUser";

/// A declared fallback (docs/fallback.md): what a client that cannot be asked sees.
impl<'a, const N: usize> Plan<'a, N> {
    /// True when the tool declares the fallback for at least one parameter: its listing
    /// then differs by client, and should carry `cacheScope: "private"` (2026-07-28).
    pub fn has_fallback(&self) -> bool {
        cfg!(feature = "fallback") && self.params.iter().any(|p| p.fallback)
    }

    /// True when parameter `index` becomes an optional argument for a client that cannot
    /// be asked for its kind (the tool's `"fallback": "arguments"`, not opted out with
    /// `"fallback": false`; form and roots parameters only).
    pub fn falls_back(&self, index: usize) -> bool {
        cfg!(feature = "fallback") && self.params.get(index).is_some_and(|p| p.fallback)
    }

    /// The parameters listed as arguments for a client that declared `caps`, in
    /// signature order.
    #[cfg(feature = "fallback")]
    fn fallback_for(&self, caps: Capabilities) -> impl Iterator<Item = (usize, &Param<'a>)> {
        self.params.iter().enumerate().filter(move |(_, p)| {
            cfg!(feature = "fallback")
                && p.fallback
                && p.ask.as_ref().is_some_and(|a| !caps.contains(a.kind()))
        })
    }

    /// The listing's description of parameter `p` (escaped JSON string contents): its
    /// literal question, the roots question, or, for a resolver, what its question
    /// depends on.
    #[cfg(feature = "fallback")]
    pub(crate) fn write_description(&self, p: &Param<'a>, out: &mut dyn Sink) {
        match &p.ask {
            Some(AskKind::Literal(q)) => out.put(q.message.raw().as_bytes()),
            Some(AskKind::Resolver {
                kind: InputKind::Roots,
                ..
            })
            | Some(AskKind::Roots(_)) => out.put(ROOTS_QUESTION.as_bytes()),
            Some(AskKind::Resolver { needs, .. }) => {
                out.put(b"A question for the user");
                let count = needs.len();
                for (k, &j) in needs.iter().enumerate() {
                    out.put(match k {
                        0 => b" that depends on ",
                        _ if k + 1 == count => b" and ",
                        _ => b", ",
                    });
                    crate::json::put_plain(self.name(usize::from(j)).unwrap_or(""), false, out);
                }
                out.put(b".");
            }
            _ => {}
        }
    }

    /// The argument schema of parameter `p` answered as type `ty`, its description
    /// written by `describe` (see `Ty::write_argument_schema`); a roots parameter's is an
    /// array of URI strings.
    #[cfg(feature = "fallback")]
    pub(crate) fn write_argument_schema(
        p: &Param<'a>,
        ty: &Ty<'a>,
        describe: &mut dyn FnMut(&mut dyn Sink),
        out: &mut dyn Sink,
    ) {
        if p.ask.as_ref().map(AskKind::kind) == Some(InputKind::Roots) {
            out.put(b"{\"description\":\"");
            describe(out);
            out.put(b"\",\"items\":{\"format\":\"uri\",\"type\":\"string\"},\"type\":\"array\"}");
        } else {
            ty.write_argument_schema(p.name, describe, out);
        }
    }

    /// The tool's `inputSchema` as listed for a client that declared `caps`: the host's
    /// `input_schema` (a JSON object: the model's arguments) with, when the tool declares
    /// the fallback, every parameter that falls back and that the client cannot be
    /// asked for added to `properties` as an optional property (its answer schema,
    /// described by its question; docs/fallback.md). Written compact, UTF-8; unchanged
    /// (byte for byte) when nothing is added. Returns [`Plan::has_fallback`]: whether the
    /// listing differs by client (`cacheScope: "private"` on 2026-07-28).
    ///
    /// Errors: [`Error::InputSchema`] when `input_schema` is not a JSON object.
    ///
    /// Feature `fallback` (a default).
    #[cfg(feature = "fallback")]
    pub fn write_input_schema(
        &self,
        input_schema: &str,
        caps: Capabilities,
        out: &mut dyn Sink,
    ) -> Result<bool, Error> {
        let base = Value::parse(input_schema).map_err(|_| Error::InputSchema {
            problem: Problem::NOT_JSON,
        })?;
        if base.kind() != Kind::Object {
            return Err(Error::InputSchema {
                problem: Problem::NOT_OBJECT,
            });
        }
        if self.fallback_for(caps).next().is_none() {
            out.put(input_schema.as_bytes());
            return Ok(self.has_fallback());
        }
        let added = |out: &mut dyn Sink, mut first: bool| {
            for (_, p) in self.fallback_for(caps) {
                out.put(if first { b"\"" } else { b",\"" });
                first = false;
                crate::json::put_plain(p.name, false, out);
                out.put(b"\":");
                Self::write_argument_schema(p, &p.ty, &mut |o| self.write_description(p, o), out);
            }
        };
        out.put(b"{");
        let mut had_properties = false;
        for (k, (key, v)) in base.members().enumerate() {
            if k > 0 {
                out.put(b",");
            }
            write_json_str(key, false, out);
            out.put(b":");
            if key.eq_str("properties") && v.kind() == Kind::Object && !had_properties {
                had_properties = true;
                out.put(b"{");
                let mut first = true;
                for (pk, pv) in v.members() {
                    if !first {
                        out.put(b",");
                    }
                    first = false;
                    write_json_str(pk, false, out);
                    out.put(b":");
                    out.put(pv.raw().as_bytes());
                }
                added(out, first);
                out.put(b"}");
            } else {
                out.put(v.raw().as_bytes());
            }
        }
        if !had_properties {
            out.put(if base.members().next().is_some() {
                b",\"properties\":{"
            } else {
                b"\"properties\":{"
            });
            added(out, true);
            out.put(b"}");
        }
        out.put(b"}");
        Ok(true)
    }
}
