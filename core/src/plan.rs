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
//!      "elicit": {"message": "Go ahead?"}}
//!   ]
//! }
//! ```
//!
//! - `parameters` lists the tool's parameters in signature order. One without `elicit`
//!   is supplied by the model in the call's arguments.
//! - `type` is the answer type (default `"string"`), see [`crate::types`] for the
//!   grammar: string/integer/number/boolean with MCP constraints, single-select enum,
//!   multi-select array, an object of primitive fields, or a raw `requestedSchema`.
//! - `elicit` is a literal question (`message`, optional `title`/`description` for the
//!   wrapped `value` field) or a resolver (`needs`: the names it is given; optional
//!   `declares`: the answer type its questions use, which must equal `type`). The host
//!   runs a resolver when the round asks it to and answers with a value (nothing is
//!   asked) or a question.
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

use crate::digest;
use crate::error::{detail, name, CompileError, Problem, MAX_NAME};
use crate::json::{write_json_str, Kind, Sink, Str, Value};
// Re-exported for round.rs, which reads a question's digest text from here.
/// The digest of arbitrary request params (a test and oracle helper, feature
/// `test-helpers`).
#[cfg(feature = "test-helpers")]
pub use crate::digest::digest_params;
use crate::digest::digest_text;
use crate::types::{Render, Ty};

/// Most names one resolver may need.
pub const MAX_NEEDS: usize = 16;

/// A question fixed in the declaration, with its digest computed once at compile time.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct LiteralQ<'a> {
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub message: Str<'a>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub title: Option<Str<'a>>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub description: Option<Str<'a>>,
    /// Not carried in plan bytes: recomputed (and so always consistent) on load.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub digest: [u8; 16],
}

/// How a parameter is asked.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub(crate) enum AskKind<'a> {
    Literal(#[cfg_attr(feature = "serde", serde(borrow))] LiteralQ<'a>),
    Resolver {
        needs: heapless::Vec<u8, MAX_NEEDS>,
        #[cfg_attr(feature = "serde", serde(borrow))]
        declares: Option<Ty<'a>>,
    },
}

/// One parameter of the tool.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub(crate) struct Param<'a> {
    pub name: &'a str,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub ty: Ty<'a>,
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub default: Option<Value<'a>>,
    /// `None` for a model-supplied argument.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub ask: Option<AskKind<'a>>,
    pub outcome: bool,
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

/// The digest of a question (the reference's `_digest` of its request params, first 16
/// bytes): SHA-256 over the params' digest form.
pub(crate) fn question_digest(
    message: Str<'_>,
    ty: &Ty<'_>,
    title: Option<Str<'_>>,
    description: Option<Str<'_>>,
) -> [u8; 16] {
    digest::short(|h| write_params(message, ty, title, description, Render::DIGEST, h))
}

/// The ElicitRequest params: digest form (`{"message","mode","requestedSchema"}` sorted,
/// ASCII) or wire form (`{"mode","message","requestedSchema"}`, UTF-8).
pub(crate) fn write_params(
    message: Str<'_>,
    ty: &Ty<'_>,
    title: Option<Str<'_>>,
    description: Option<Str<'_>>,
    render: Render,
    out: &mut dyn Sink,
) {
    if render.digest {
        out.put(b"{\"message\":");
        write_json_str(message, true, out);
        out.put(b",\"mode\":\"form\",\"requestedSchema\":");
    } else if render.client_view {
        // The MCP SDK's 2026-07-28 wire model serializes `message` first.
        out.put(b"{\"message\":");
        write_json_str(message, false, out);
        out.put(b",\"mode\":\"form\",\"requestedSchema\":");
    } else {
        out.put(b"{\"mode\":\"form\",\"message\":");
        write_json_str(message, false, out);
        out.put(b",\"requestedSchema\":");
    }
    ty.write_schema(title, description, render, out);
    out.put(b"}");
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
            if !(k.eq_str("tool") || k.eq_str("parameters") || k.eq_str("returnsInputRequired")) {
                return Err(decl_err("tool", "unknown key; a declaration has \"tool\", \"parameters\" and \"returnsInputRequired\""));
            }
        }
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
                })
                .map_err(|_| CompileError::Capacity {
                    what: "parameters",
                    limit: N,
                })?;
        }
        // Second pass: needs → indices, in signature order (declared type, then names).
        let mut resolved_needs: heapless::Vec<(u8, heapless::Vec<u8, MAX_NEEDS>), N> =
            heapless::Vec::new();
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
            let mut needs = heapless::Vec::new();
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
        if e.kind() != Kind::Object {
            return Err(decl_err(pname, "\"elicit\" must be an object with \"message\" (a literal question) or \"needs\" (a resolver)"));
        }
        let message = e.get("message");
        let needs = e.get("needs");
        for (k, _) in e.members() {
            if !["message", "title", "description", "needs", "declares"]
                .iter()
                .any(|x| k.eq_str(x))
            {
                return Err(decl_err(pname, "unknown key in \"elicit\"; use \"message\", \"title\", \"description\", or \"needs\" and \"declares\""));
            }
        }
        match (message, needs) {
            (Some(m), None) => {
                let message = m.as_str().ok_or_else(|| decl_err(pname, "\"message\" must be a string"))?;
                if e.get("declares").is_some() {
                    return Err(decl_err(pname, "\"declares\" belongs to a resolver (\"needs\"), not a literal question"));
                }
                let title = opt_str(e, "title", pname, "\"title\" must be a string")?;
                let description = opt_str(e, "description", pname, "\"description\" must be a string")?;
                if (title.is_some() || description.is_some()) && !ty.wrapped() {
                    return Err(CompileError::UnsupportedSchema {
                        param: name(pname),
                        problem: Problem::text("a question's title and description label the wrapped value of a scalar, enum or array answer; for an object type, put titles and descriptions on its fields"),
                    });
                }
                let digest = question_digest(message, ty, title, description);
                Ok(AskKind::Literal(LiteralQ { message, title, description, digest }))
            }
            (None, Some(n)) => {
                if n.kind() != Kind::Array {
                    return Err(decl_err(pname, "\"needs\" must be an array of parameter names"));
                }
                if e.get("title").is_some() || e.get("description").is_some() {
                    return Err(decl_err(pname, "a resolver's questions carry their own title and description; remove them from \"elicit\""));
                }
                for x in n.items() {
                    plain(x, pname, "\"needs\" must be an array of parameter names")?;
                }
                if n.items().count() > MAX_NEEDS {
                    return Err(CompileError::Capacity { what: "needs of one resolver", limit: MAX_NEEDS });
                }
                let declares = match e.get("declares") {
                    None => None,
                    Some(d) => Some(Ty::compile(d, false).map_err(|problem| CompileError::UnsupportedSchema { param: name(pname), problem })?),
                };
                Ok(AskKind::Resolver { needs: heapless::Vec::new(), declares })
            }
            _ => Err(decl_err(pname, "\"elicit\" must have exactly one of \"message\" (a literal question) or \"needs\" (a resolver)")),
        }
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
            let needs = needs.clone();
            for j in needs {
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

impl<const N: usize> Plan<'_, N> {
    /// For a parameter asked with a literal question: write its ElicitRequest params,
    /// in the digest form (`digest = true`: sorted keys, ASCII escapes — the exact bytes
    /// hashed) or the wire form. Returns false for other parameters. A test and oracle
    /// helper (feature `test-helpers`).
    #[cfg(feature = "test-helpers")]
    pub fn write_literal_params(&self, index: usize, digest: bool, out: &mut dyn Sink) -> bool {
        let Some(p) = self.params.get(index) else {
            return false;
        };
        let Some(AskKind::Literal(q)) = &p.ask else {
            return false;
        };
        let render = if digest {
            Render::DIGEST
        } else {
            Render::wire(false)
        };
        write_params(q.message, &p.ty, q.title, q.description, render, out);
        true
    }

    /// The digest (22 characters of base64url) of a literal question, computed once
    /// when the plan was compiled.
    pub fn literal_digest(&self, index: usize) -> Option<[u8; 22]> {
        match &self.params.get(index)?.ask {
            Some(AskKind::Literal(q)) => Some(digest_text(&q.digest)),
            _ => None,
        }
    }
}
