//! Compiled plans as bytes (feature `serde`).
//!
//! A [`Plan`] can be compiled once, where there is room for the declaration compiler
//! (a build script, a host tool), written with [`Plan::to_postcard`], and loaded on a
//! small device with [`Plan::from_postcard`], which neither parses the JSON declaration
//! nor links [`Plan::compile`]. The loaded plan borrows its strings from the bytes
//! (zero-copy), as a compiled plan borrows them from the declaration text.
//!
//! # Format
//!
//! ```text
//! byte 0      PLAN_FORMAT_VERSION
//! byte 1      number of parameters (so a too-small capacity N is reported as such)
//! bytes 2..   postcard of the plan: {tool, params, order}
//! ```
//!
//! The bytes are checked on load, so a corrupted or hand-made plan is an error and never
//! a panic later: every JSON fragment is validated, every answer type must be one the
//! type compiler produces, resolver needs and the resolution order must be consistent
//! (each resolver after the elicited parameters it needs, so no cycle), and the literal
//! questions' digests are recomputed rather than read.
//!
//! Plans also implement serde's `Serialize`/`Deserialize` (without the two header bytes),
//! with the same checks on deserialization, for hosts that carry them in another format.

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::error::{name, CompileError, Error, Problem, MAX_NAME};
use crate::input::{self, InputKind};
use crate::json::{Str, Value};
use crate::plan::{AskKind, LiteralQ, Param, Plan, RequestQ, Slots, UrlQ, MAX_NEEDS};
use crate::question::{check_request_params, question_digest, Request};
use crate::types::{available, Ty, TypeKind};

/// The first byte of [`Plan::to_postcard`]'s output; bumped whenever the layout changes.
pub const PLAN_FORMAT_VERSION: u8 = 3;

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.raw())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Value<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <&'de str>::deserialize(d)?;
        match Value::parse(text) {
            Ok(v) if v.raw().len() == text.len() => Ok(v),
            _ => Err(D::Error::custom(
                "a JSON fragment of the plan is not valid JSON",
            )),
        }
    }
}

impl Serialize for Str<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.raw())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <&'de str>::deserialize(d)?;
        Str::from_contents(text).ok_or_else(|| {
            D::Error::custom("a string of the plan is not valid JSON string contents")
        })
    }
}

impl<const N: usize> Serialize for Plan<'_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Plan", 3)?;
        st.serialize_field("tool", self.tool)?;
        st.serialize_field("params", &self.params)?;
        st.serialize_field("order", &self.order)?;
        st.end()
    }
}

/// An answer type as plan bytes carry it: its kind, type object and choices (the same
/// layout as before types became one enum per kind). Checked on load by
/// [`Ty::from_parts`].
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
#[serde(rename = "Ty")]
struct TyWire<'a> {
    kind: TypeKind,
    #[serde(borrow)]
    spec: Option<Value<'a>>,
    #[serde(borrow)]
    choices: Option<Value<'a>>,
}

impl Serialize for Ty<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (kind, spec, choices) = self.parts();
        TyWire {
            kind,
            spec,
            choices,
        }
        .serialize(s)
    }
}

/// How a parameter is asked, as it comes off the wire ([`AskKind`]'s layout).
#[derive(serde::Deserialize)]
#[serde(rename = "AskKind")]
enum AskWire<'a> {
    Literal(#[serde(borrow)] LiteralQ<'a>),
    Resolver {
        needs: Slots<u8, MAX_NEEDS>,
        #[serde(borrow)]
        declares: Option<TyWire<'a>>,
        kind: InputKind,
    },
    Url(#[serde(borrow)] UrlQ<'a>),
    Sampling(#[serde(borrow)] RequestQ<'a>),
    Roots(#[serde(borrow)] RequestQ<'a>),
}

/// A parameter as it comes off the wire ([`Param`]'s layout).
#[derive(serde::Deserialize)]
#[serde(rename = "Param")]
struct ParamWire<'a> {
    name: &'a str,
    #[serde(borrow)]
    ty: TyWire<'a>,
    #[serde(borrow)]
    default: Option<Value<'a>>,
    #[serde(borrow)]
    ask: Option<AskWire<'a>>,
    outcome: bool,
    fallback: bool,
}

/// The plan as it comes off the wire, before it is checked.
#[derive(serde::Deserialize)]
struct PlanWire<'a, const N: usize> {
    tool: &'a str,
    #[serde(borrow)]
    params: heapless::Vec<ParamWire<'a>, N>,
    order: heapless::Vec<u8, N>,
}

impl<'de: 'a, 'a, const N: usize> Deserialize<'de> for Plan<'a, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = PlanWire::<'a, N>::deserialize(d)?;
        let mut plan = Plan {
            tool: wire.tool,
            params: heapless::Vec::new(),
            order: wire.order,
        };
        for p in wire.params {
            let p = param_of(p).map_err(|(at, problem)| D::Error::custom(bad(at, problem)))?;
            // Fits: the wire vector has the same capacity.
            let _ = plan.params.push(p);
        }
        check(&mut plan).map_err(D::Error::custom)?;
        Ok(plan)
    }
}

fn bad(at: &str, problem: Problem) -> CompileError {
    CompileError::Declaration {
        at: name(at),
        problem,
    }
}

const MALFORMED: Problem = Problem::PLAN_MALFORMED;

/// The answer type of parameter `at` from its wire parts: a type this build leaves out
/// is named as such (the feature to enable), any other mismatch is `problem`.
fn ty_of<'a>(t: TyWire<'a>, problem: Problem) -> Result<Ty<'a>, Problem> {
    available(t.kind)?;
    Ty::from_parts(t.kind, t.spec, t.choices).ok_or(problem)
}

/// The plan's postcard layout, read by hand: what `postcard::take_from_bytes::<PlanWire>`
/// reads, accepting exactly the same bytes (the tests compare the two), without serde's
/// generic deserializer (about 3 KB of a firmware's flash). `None` for malformed bytes.
///
/// Each parameter is turned into a [`Param`] as soon as it is read ([`param_of`]), so
/// no second vector of wire parameters is held. When one is refused (its answer type,
/// its question, or, without the `input-kinds` feature, a kind this build leaves out:
/// its bytes are not read, nor is the reader for them linked) the reader stops and keeps
/// that parameter's name and problem (the second field) for the error.
struct Reader<'a>(&'a [u8], Option<(&'a str, Problem)>);

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    /// A LEB128 varint of an integer `bits` wide, as postcard reads it: at most
    /// ceil(bits / 7) bytes, the last one within the bits left. In a `usize` (the word:
    /// no 64-bit arithmetic on a 32-bit device); a value that does not fit one (a
    /// variant index past 65,535 where `usize` is 16 bits) is refused, as no such index
    /// names a variant.
    fn varint(&mut self, bits: u32) -> Option<usize> {
        let n = bits.div_ceil(7);
        let mut out = 0usize;
        for i in 0..n {
            let b = self.byte()?;
            // The last byte's check below keeps the bits within `bits`.
            out |= usize::from(b & 0x7F).checked_shl(7 * i)?;
            if b & 0x80 == 0 {
                return (i + 1 < n || b < 1 << (bits % 7)).then_some(out);
            }
        }
        None
    }
    /// A length (postcard writes `usize`).
    fn len(&mut self) -> Option<usize> {
        self.varint(usize::BITS)
    }
    /// An enum's variant index (postcard writes `u32`).
    fn variant(&mut self) -> Option<usize> {
        self.varint(32)
    }
    /// A `bool`, or an `Option`'s tag.
    fn flag(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.flag()? {
            read(self).map(Some)
        } else {
            Some(None)
        }
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        if n > self.0.len() {
            return None;
        }
        let (text, rest) = self.0.split_at(n);
        self.0 = rest;
        core::str::from_utf8(text).ok()
    }
    /// A JSON fragment: one whole JSON value (see `Value`'s `Deserialize`).
    fn value(&mut self) -> Option<Value<'a>> {
        let text = self.str()?;
        Value::parse(text)
            .ok()
            .filter(|v| v.raw().len() == text.len())
    }
    /// JSON string contents (see `Str`'s `Deserialize`).
    fn json_str(&mut self) -> Option<Str<'a>> {
        Str::from_contents(self.str()?)
    }
    /// A resolver's needs: a sequence of at most [`MAX_NEEDS`] bytes.
    fn needs(&mut self) -> Option<Slots<u8, MAX_NEEDS>> {
        let n = self.len()?;
        let mut v = Slots::new(0);
        for _ in 0..n {
            v.push(self.byte()?).ok()?;
        }
        Some(v)
    }
    fn ty(&mut self) -> Option<TyWire<'a>> {
        use TypeKind::*;
        let kinds = [
            String, Integer, Number, Boolean, Enum, Multi, Object, Schema,
        ];
        let kind = *kinds.get(self.variant()?)?;
        Some(TyWire {
            kind,
            spec: self.option(Self::value)?,
            choices: self.option(Self::value)?,
        })
    }
    fn ask(&mut self, param: &'a str) -> Option<AskWire<'a>> {
        Some(match self.variant()? {
            2..=4 if !cfg!(feature = "input-kinds") => {
                self.1 = Some((param, Problem::INPUT_KINDS_LEFT_OUT));
                return None;
            }
            0 => AskWire::Literal(LiteralQ {
                message: self.json_str()?,
                title: self.option(Self::json_str)?,
                description: self.option(Self::json_str)?,
                digest: [0; 22],
            }),
            1 => AskWire::Resolver {
                needs: self.needs()?,
                declares: self.option(Self::ty)?,
                kind: *InputKind::ALL.get(self.variant()?)?,
            },
            2 => AskWire::Url(UrlQ {
                message: self.json_str()?,
                url: self.json_str()?,
                digest: [0; 22],
            }),
            3 => AskWire::Sampling(self.request()?),
            4 => AskWire::Roots(self.request()?),
            _ => return None,
        })
    }
    fn request(&mut self) -> Option<RequestQ<'a>> {
        Some(RequestQ {
            params: self.value()?,
            digest: [0; 22],
        })
    }
    fn param(&mut self) -> Option<Param<'a>> {
        let name = self.str()?;
        let wire = ParamWire {
            name,
            ty: self.ty()?,
            default: self.option(Self::value)?,
            ask: self.option(|r| r.ask(name))?,
            outcome: self.flag()?,
            fallback: self.flag()?,
        };
        param_of(wire).map_err(|e| self.1 = Some(e)).ok()
    }
    /// The plan, read into `plan` (built in place: a plan is large, and every move of
    /// it is a copy on a device's stack).
    fn plan_into<const N: usize>(&mut self, plan: &mut Plan<'a, N>) -> Option<()> {
        plan.tool = self.str()?;
        for _ in 0..self.len()? {
            let p = self.param()?;
            plan.params.push(p).ok()?;
        }
        for _ in 0..self.len()? {
            let i = self.byte()?;
            plan.order.push(i).ok()?;
        }
        Some(())
    }
}

/// A parameter off the wire as a [`Param`]: its answer type and question checked on
/// their own (what needs the other parameters, and the digests, [`check`] does).
/// Errors name the parameter and the problem.
fn param_of(p: ParamWire<'_>) -> Result<Param<'_>, (&str, Problem)> {
    let ty = ty_of(p.ty, Problem::PLAN_TYPE).map_err(|q| (p.name, q))?;
    if p.outcome && p.ask.is_none() {
        return Err((p.name, Problem::PLAN_OUTCOME));
    }
    if p.fallback {
        crate::plan::fallback_available().map_err(|e| (p.name, e))?;
    }
    let ask = match p.ask {
        None => None,
        Some(AskWire::Resolver {
            needs,
            declares,
            kind,
        }) => {
            input::available(kind).map_err(|e| (p.name, e))?;
            let declares = match declares {
                None => None,
                Some(_) if kind != InputKind::Form => {
                    return Err((p.name, Problem::PLAN_DECLARED_TYPE));
                }
                Some(d) => {
                    let d = ty_of(d, Problem::PLAN_DECLARED_TYPE).map_err(|q| (p.name, q))?;
                    if !d.same_as(&ty) {
                        return Err((p.name, Problem::PLAN_DECLARED_TYPE));
                    }
                    Some(d)
                }
            };
            Some(AskKind::Resolver {
                needs,
                declares,
                kind,
            })
        }
        Some(AskWire::Url(_) | AskWire::Sampling(_) | AskWire::Roots(_))
            if !cfg!(feature = "input-kinds") =>
        {
            return Err((p.name, Problem::INPUT_KINDS_LEFT_OUT));
        }
        Some(AskWire::Url(q)) => Some(AskKind::Url(q)),
        Some(AskWire::Sampling(q)) => {
            check_request_params(InputKind::Sampling, q.params).map_err(|e| (p.name, e))?;
            Some(AskKind::Sampling(q))
        }
        Some(AskWire::Roots(q)) => {
            check_request_params(InputKind::Roots, q.params).map_err(|e| (p.name, e))?;
            Some(AskKind::Roots(q))
        }
        Some(AskWire::Literal(q))
            if (q.title.is_some() || q.description.is_some()) && !ty.wrapped() =>
        {
            return Err((p.name, Problem::PLAN_LABELS));
        }
        Some(AskWire::Literal(q)) => Some(AskKind::Literal(q)),
    };
    let kind = ask.as_ref().map(AskKind::kind);
    if p.fallback && !matches!(kind, Some(InputKind::Form | InputKind::Roots)) {
        return Err((p.name, Problem::PLAN_FALLBACK));
    }
    Ok(Param {
        name: p.name,
        ty,
        default: p.default,
        ask,
        outcome: p.outcome,
        fallback: p.fallback,
    })
}

/// Check a plan's parameters together (names, needs, the resolution order) and compute
/// what is derived (the question digests).
fn check<const N: usize>(plan: &mut Plan<'_, N>) -> Result<(), CompileError> {
    let Plan {
        tool,
        params,
        order,
    } = plan;
    let tool = *tool;
    if N > 255 {
        return Err(CompileError::Capacity {
            what: "parameters (the capacity N may be at most 255)",
            limit: 255,
        });
    }
    let name_ok = |n: &str| !n.is_empty() && n.len() <= MAX_NAME;
    if !name_ok(tool) {
        return Err(bad("plan", Problem::PLAN_TOOL_NAME));
    }
    let len = params.len();
    for (i, p) in params.iter().enumerate() {
        if !name_ok(p.name) {
            return Err(bad("plan", Problem::PLAN_PARAM_NAME));
        }
        if params.iter().take(i).any(|q| q.name == p.name) {
            return Err(CompileError::DuplicateName { name: name(p.name) });
        }
        if let Some(AskKind::Resolver { needs, .. }) = &p.ask {
            if needs.iter().any(|&j| j as usize >= len) {
                return Err(bad(p.name, Problem::PLAN_NEED));
            }
        }
    }
    // Derived, never read from the bytes: always consistent with the question.
    for p in params.iter_mut() {
        let ty = p.ty;
        match &mut p.ask {
            Some(AskKind::Literal(q)) => {
                question_digest(q.message, false, &ty, q.title, q.description, &mut q.digest);
            }
            Some(AskKind::Url(q)) if cfg!(feature = "input-kinds") => {
                q.digest = Request::Url {
                    message: q.message,
                    url: q.url,
                }
                .digest();
            }
            Some(AskKind::Sampling(q) | AskKind::Roots(q)) if cfg!(feature = "input-kinds") => {
                q.digest = Request::Params(q.params).digest();
            }
            _ => {}
        }
    }
    // The resolution order: every elicited parameter exactly once, each resolver after
    // the elicited parameters it needs (which also rules out cycles).
    let mut placed = [false; N];
    for &i in order.iter() {
        let i = i as usize;
        let Some(p) = params.get(i) else {
            return Err(bad("plan", Problem::PLAN_ORDER_UNKNOWN));
        };
        // `i < params.len() <= N`, so `placed` has a slot for every parameter.
        let Some(&was_placed) = placed.get(i) else {
            return Err(bad("plan", Problem::PLAN_ORDER_UNKNOWN));
        };
        if p.ask.is_none() || was_placed {
            return Err(bad(p.name, Problem::PLAN_ORDER));
        }
        if let Some(AskKind::Resolver { needs, .. }) = &p.ask {
            // Every need was checked to be a parameter index above.
            let later = needs.iter().any(|&j| {
                let j = j as usize;
                params.get(j).is_some_and(|q| q.ask.is_some())
                    && !placed.get(j).copied().unwrap_or(false)
            });
            if later {
                return Err(bad(p.name, Problem::PLAN_ORDER_RESOLVER));
            }
        }
        if let Some(slot) = placed.get_mut(i) {
            *slot = true;
        }
    }
    if params.iter().filter(|p| p.ask.is_some()).count() != order.len() {
        return Err(bad("plan", Problem::PLAN_ORDER_MISSING));
    }
    Ok(())
}

impl<'a, const N: usize> Plan<'a, N> {
    /// Load a plan written by [`Plan::to_postcard`], borrowing its strings from `bytes`.
    /// No JSON declaration is parsed and [`Plan::compile`] is not needed (nor linked).
    ///
    /// Errors: [`CompileError::Capacity`] when the plan has more than `N` parameters;
    /// [`CompileError::Declaration`] (at `"plan"` or a parameter) or
    /// [`CompileError::DuplicateName`] when the bytes come from another format version,
    /// are malformed, or describe an inconsistent plan.
    pub fn from_postcard(bytes: &'a [u8]) -> Result<Self, CompileError> {
        let Some((&version, rest)) = bytes.split_first() else {
            return Err(bad("plan", MALFORMED));
        };
        if version != PLAN_FORMAT_VERSION {
            return Err(bad("plan", Problem::PLAN_VERSION));
        }
        let Some((&count, rest)) = rest.split_first() else {
            return Err(bad("plan", MALFORMED));
        };
        if count as usize > N {
            return Err(CompileError::Capacity {
                what: "parameters",
                limit: N,
            });
        }
        let mut r = Reader(rest, None);
        let mut plan = Plan {
            tool: "",
            params: heapless::Vec::new(),
            order: heapless::Vec::new(),
        };
        match r.plan_into(&mut plan) {
            Some(()) if r.0.is_empty() && plan.params.len() == count as usize => {
                check(&mut plan)?;
                Ok(plan)
            }
            _ => Err(match r.1 {
                Some((param, problem)) => bad(param, problem),
                None => bad("plan", MALFORMED),
            }),
        }
    }
}

impl<const N: usize> Plan<'_, N> {
    /// Length of [`Plan::to_postcard`]'s output.
    pub fn postcard_len(&self) -> usize {
        let body = postcard::serialize_with_flavor::<Self, _, usize>(
            self,
            postcard::ser_flavors::Size::default(),
        );
        2 + body.unwrap_or(0)
    }

    /// Write the plan as bytes for [`Plan::from_postcard`]: the format version, the
    /// parameter count, then the plan in postcard. Returns the length written, or
    /// [`Error::BufferTooSmall`] with the size needed.
    pub fn to_postcard(&self, out: &mut [u8]) -> Result<usize, Error> {
        let needed = self.postcard_len();
        let too_small = Error::BufferTooSmall { needed };
        // `needed` counts the two header bytes, so a buffer that holds it splits.
        let Some(([version, count], body)) = out
            .get_mut(..needed)
            .and_then(|o| o.split_first_chunk_mut::<2>())
        else {
            return Err(too_small);
        };
        *version = PLAN_FORMAT_VERSION;
        *count = self.params.len() as u8;
        let written = postcard::to_slice(self, body).map_err(|_| too_small)?;
        Ok(2 + written.len())
    }

    /// [`Plan::to_postcard`] into a new `Vec`.
    #[cfg(feature = "alloc")]
    pub fn to_postcard_vec(&self) -> alloc::vec::Vec<u8> {
        let mut out = alloc::vec![0u8; self.postcard_len()];
        // Sized by `postcard_len`, so writing cannot fail; were it to, the empty result
        // would fail `from_postcard` rather than pass as a plan.
        match self.to_postcard(&mut out) {
            Ok(n) => out.truncate(n),
            Err(_) => out.clear(),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plan bytes (written by hand, as `Plan::to_postcard` lays them out) of a tool with
    /// one literal question whose answer type is of `kind` with the text `spec`.
    fn one_param(kind: u8, spec: &str) -> heapless::Vec<u8, 256> {
        let mut b = heapless::Vec::new();
        let mut put = |bytes: &[u8]| b.extend_from_slice(bytes).expect("room");
        put(&[PLAN_FORMAT_VERSION, 1]);
        put(&[1, b't']); // tool
        put(&[1]); // one parameter
        put(&[1, b'p']); // its name
        put(&[kind, 1, spec.len() as u8]); // type: kind, Some(spec)
        put(spec.as_bytes());
        put(&[0]); // no choices
        put(&[0]); // no default
        put(&[1, 0, 2, b'Q', b'?', 0, 0]); // Some(Literal { "Q?", no title/description })
        put(&[0, 0]); // not an outcome, no fallback
        put(&[1, 0]); // order: [0]
        b
    }

    /// A plan with a URL-mode question loads when the build has `input-kinds`, and
    /// otherwise fails naming the parameter and the feature; so does a declaration.
    #[test]
    fn left_out_input_kinds_are_named() {
        let mut b: heapless::Vec<u8, 64> = heapless::Vec::new();
        let mut put = |bytes: &[u8]| b.extend_from_slice(bytes).expect("room");
        put(&[PLAN_FORMAT_VERSION, 1]);
        put(&[1, b't', 1, 1, b'p']); // tool "t", one parameter "p"
        put(&[0, 0, 0, 0]); // type: string, no spec, no choices; no default
        put(&[1, 2, 2, b'Q', b'?', 1, b'u']); // Some(Url { "Q?", "u" })
        put(&[0, 0, 1, 0]); // not an outcome, no fallback; order [0]
        let on = cfg!(feature = "input-kinds");
        match Plan::<'_, 4>::from_postcard(&b) {
            Ok(plan) => assert!(on && plan.kind(0) == Some(InputKind::Url)),
            Err(CompileError::Declaration { at, problem }) => {
                assert!(!on, "{}", problem.as_str());
                assert_eq!(at.as_str(), "p");
                assert!(problem.as_str().contains("\"input-kinds\""));
            }
            Err(e) => panic!("{e:?}"),
        }
        let decl = r#"{"tool":"t","parameters":[{"name":"p","elicit":{"roots":{}}}]}"#;
        match Plan::<'_, 4>::compile(decl) {
            Ok(_) => assert!(on),
            Err(e) => {
                assert!(!on);
                let text = alloc::string::ToString::to_string(&e);
                assert!(
                    text.contains("'p'") && text.contains("\"input-kinds\""),
                    "{text}"
                );
            }
        }
    }

    /// A plan that declares the fallback loads (and a declaration compiles) when the
    /// build has the `fallback` feature, and otherwise fails naming the feature.
    #[test]
    fn left_out_fallback_is_named() {
        let mut b = one_param(0, r#"{"type":"string"}"#);
        let at = b.len() - 3; // the parameter's fallback flag, before the order
        b[at] = 1;
        let on = cfg!(feature = "fallback");
        match Plan::<'_, 4>::from_postcard(&b) {
            Ok(plan) => assert!(on && plan.falls_back(0)),
            Err(CompileError::Declaration { at, problem }) => {
                assert!(!on, "{}", problem.as_str());
                assert_eq!(at.as_str(), "p");
                assert!(problem.as_str().contains("\"fallback\" feature"));
            }
            Err(e) => panic!("{e:?}"),
        }
        let decl = r#"{"tool":"t","fallback":"arguments","parameters":[{"name":"p","elicit":{"message":"P?"}}]}"#;
        match Plan::<'_, 4>::compile(decl) {
            Ok(plan) => assert!(on && plan.has_fallback()),
            Err(e) => {
                assert!(!on);
                let text = alloc::string::ToString::to_string(&e);
                assert!(text.contains("\"fallback\" feature"), "{text}");
            }
        }
    }

    /// A plan with an object type or a raw schema loads when the build has the feature,
    /// and otherwise fails naming the parameter and the feature to enable.
    #[test]
    fn left_out_types_are_named_on_load() {
        let object = one_param(6, r#"{"type":"object","properties":{"a":"string"}}"#);
        let raw = one_param(
            7,
            r#"{"type":"object","properties":{"a":{"type":"string"}}}"#,
        );
        for (bytes, on, feature) in [
            (&object, cfg!(feature = "object-types"), "\"object-types\""),
            (&raw, cfg!(feature = "raw-schema"), "\"raw-schema\""),
        ] {
            match Plan::<'_, 4>::from_postcard(bytes) {
                Ok(_) => assert!(on, "loaded without {feature}"),
                Err(CompileError::Declaration { at, problem }) => {
                    assert!(!on, "{feature} is on: {}", problem.as_str());
                    assert_eq!(at.as_str(), "p");
                    assert!(problem.as_str().contains(feature), "{}", problem.as_str());
                }
                Err(e) => panic!("{e:?}"),
            }
        }
    }
}
