//! Plans as Rust constants (not API: hidden from the docs, no semver promise).
//!
//! # Why a second way to make a [`Plan`]
//!
//! A plan is made by [`Plan::compile`] (from a JSON declaration) or loaded by
//! `Plan::from_postcard` (from plan bytes, checked on load). A firmware that serves fixed
//! tools needs neither on the device: the loader alone is about 2.4 KB of a Cortex-M4's
//! flash (examples/firmware-agent). So its build script makes each plan on the host with
//! the engine's own code (compile, write the bytes, load them back with `from_postcard`:
//! every check a device would run) and writes the loaded plan's parts with `write_plan`
//! as a Rust constant, a [`Parts`]; the firmware keeps it in a `static` and makes the plan
//! from it with [`Parts::plan`], which copies the parts into the plan and checks nothing:
//! only `write_plan` writes them, from a checked plan. core/tests/plan_const.rs compiles
//! `write_plan`'s output and holds the plans it makes equal to what `from_postcard` yields
//! for the same bytes, so the two paths cannot drift.
//!
//! The parts, not the plan, are the constant: a plan keeps its parameters in a
//! `heapless::Vec`, which a constant cannot fill, and an array of its own would cost
//! every round a length check per read of the plan (no `unsafe` in core) and every
//! loaded plan the filling of its unused slots.
//!
//! What the device build leaves out (the `input-kinds`, `object-types` and `raw-schema`
//! features) the loader would refuse at run time; here the constructors for those kinds
//! are not compiled, so a plan using one fails the firmware's build, naming the
//! constructor.
//!
//! `plan_constant` (features `alloc` and `serde`) is the one generator:
//! examples/firmware-agent's build script and the `plan_const` tool (elicit-tools, for
//! the C ABI's builtin plans: ffi-noalloc's
//! `elicit_noalloc_plan_builtin`) both call it. The C ABI keeps its plan-bytes loader
//! too, for firmware that receives plans at run time.

use crate::json::{Str, Value};
pub use crate::plan::{AskKind, LiteralQ, Param, Plan, Slots, MAX_NEEDS};
use crate::types::{Shape, Ty};
#[cfg(feature = "input-kinds")]
pub use crate::{
    input::InputKind,
    plan::{RequestQ, UrlQ},
};

/// A plan's parts as a Rust constant (see the module docs): its tool, its parameters in
/// signature order and the elicited ones' indices in resolution order.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The parameters.
    pub params: &'a [Param<'a>],
    /// The resolution order.
    pub order: &'a [u8],
}

impl<'a> Parts<'a> {
    /// The plan of these parts at capacity `N` (`None` when it has more than `N`
    /// parameters). Nothing is checked: the parts must be written by `write_plan` (feature `alloc`).
    pub fn plan<const N: usize>(&self) -> Option<Plan<'a, N>> {
        Some(Plan {
            tool: self.tool,
            params: heapless::Vec::from_slice(self.params).ok()?,
            order: heapless::Vec::from_slice(self.order).ok()?,
        })
    }

    /// Make `plan` the plan of these parts in place, as [`Parts::plan`] makes a new one:
    /// for a plan in memory of its own (the C ABI's builtin plans), with no plan-sized
    /// copy on the stack. `None` when they have more than `N` parameters (`plan` is then
    /// left with some of them).
    pub fn fill<const N: usize>(&self, plan: &mut Plan<'a, N>) -> Option<()> {
        plan.tool = self.tool;
        plan.params.clear();
        plan.order.clear();
        plan.params.extend_from_slice(self.params).ok()?;
        plan.order.extend_from_slice(self.order).ok()
    }
}

/// A plan with no tool and no parameters, to be made a plan of parts in place by
/// [`Parts::fill`].
pub const fn empty<'a, const N: usize>() -> Plan<'a, N> {
    Plan {
        tool: "",
        params: heapless::Vec::new(),
        order: heapless::Vec::new(),
    }
}

/// A JSON value from its text, validated when the plan was made.
pub const fn value(raw: &str) -> Value<'_> {
    Value::validated(raw)
}

/// JSON string contents (escapes in place), validated when the plan was made.
pub const fn text(raw: &str) -> Str<'_> {
    Str::validated(raw)
}

/// A string answer type (`None`: the shorthand `"string"`).
pub const fn string(spec: Option<Value<'_>>) -> Ty<'_> {
    Ty(Shape::String(spec))
}

/// An integer answer type.
pub const fn integer(spec: Option<Value<'_>>) -> Ty<'_> {
    Ty(Shape::Integer(spec))
}

/// A number answer type.
pub const fn number(spec: Option<Value<'_>>) -> Ty<'_> {
    Ty(Shape::Number(spec))
}

/// A boolean answer type.
pub const fn boolean(spec: Option<Value<'_>>) -> Ty<'_> {
    Ty(Shape::Boolean(spec))
}

/// A single-select enum: the type object and its choices.
pub const fn single<'a>(spec: Value<'a>, choices: Value<'a>) -> Ty<'a> {
    Ty(Shape::Enum { spec, choices })
}

/// A multi-select array: the type object and its items' choices.
pub const fn multi<'a>(spec: Value<'a>, choices: Value<'a>) -> Ty<'a> {
    Ty(Shape::Multi { spec, choices })
}

/// An object type: the type object and its `properties`.
#[cfg(feature = "object-types")]
pub const fn object<'a>(spec: Value<'a>, props: Value<'a>) -> Ty<'a> {
    Ty(Shape::Object { spec, props })
}

/// A raw `requestedSchema`.
#[cfg(feature = "raw-schema")]
pub const fn schema(spec: Value<'_>) -> Ty<'_> {
    Ty(Shape::Schema(spec))
}

/// A parameter.
pub const fn param<'a>(
    name: &'a str,
    ty: Ty<'a>,
    default: Option<Value<'a>>,
    ask: Option<AskKind<'a>>,
    outcome: bool,
    fallback: bool,
) -> Param<'a> {
    Param {
        name,
        ty,
        default,
        ask,
        outcome,
        fallback,
    }
}

/// A form question fixed in the declaration, with its digest.
pub const fn literal<'a>(
    message: Str<'a>,
    title: Option<Str<'a>>,
    description: Option<Str<'a>>,
    digest: [u8; 22],
) -> AskKind<'a> {
    AskKind::Literal(LiteralQ {
        message,
        title,
        description,
        digest,
    })
}

/// A form resolver: the indices of the parameters it needs and its declared type.
pub const fn resolver<'a>(needs: Slots<u8, MAX_NEEDS>, declares: Option<Ty<'a>>) -> AskKind<'a> {
    AskKind::Resolver {
        needs,
        declares,
        kind: crate::input::InputKind::Form,
    }
}

/// A resolver of another kind (url, sampling, roots).
#[cfg(feature = "input-kinds")]
pub const fn resolver_of<'a>(kind: InputKind, needs: Slots<u8, MAX_NEEDS>) -> AskKind<'a> {
    AskKind::Resolver {
        needs,
        declares: None,
        kind,
    }
}

/// A URL-mode question fixed in the declaration, with its digest.
#[cfg(feature = "input-kinds")]
pub const fn url<'a>(message: Str<'a>, url: Str<'a>, digest: [u8; 22]) -> AskKind<'a> {
    AskKind::Url(UrlQ {
        message,
        url,
        digest,
    })
}

/// A sampling request fixed in the declaration, with its digest.
#[cfg(feature = "input-kinds")]
pub const fn sampling(params: Value<'_>, digest: [u8; 22]) -> AskKind<'_> {
    AskKind::Sampling(RequestQ { params, digest })
}

/// A roots request fixed in the declaration, with its digest.
#[cfg(feature = "input-kinds")]
pub const fn roots(params: Value<'_>, digest: [u8; 22]) -> AskKind<'_> {
    AskKind::Roots(RequestQ { params, digest })
}

#[cfg(feature = "alloc")]
pub use writer::write_plan;
#[cfg(all(feature = "alloc", feature = "serde"))]
pub use writer::{plan_constant, PlanConstant};

#[cfg(feature = "alloc")]
mod writer {
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    use crate::json::{Str, Value};
    use crate::plan::{AskKind, Param, Plan, Slots};
    use crate::plan_const::MAX_NEEDS;
    use crate::types::{Shape, Ty};

    fn opt<T>(x: Option<T>, write: impl FnOnce(T) -> String) -> String {
        x.map_or_else(|| "None".into(), |x| format!("Some({})", write(x)))
    }

    fn value(v: Value<'_>) -> String {
        format!("value({:?})", v.raw())
    }

    fn text(s: Str<'_>) -> String {
        format!("text({:?})", s.raw())
    }

    fn ty(t: Ty<'_>) -> String {
        match t.0 {
            Shape::String(s) => format!("string({})", opt(s, value)),
            Shape::Integer(s) => format!("integer({})", opt(s, value)),
            Shape::Number(s) => format!("number({})", opt(s, value)),
            Shape::Boolean(s) => format!("boolean({})", opt(s, value)),
            Shape::Enum { spec, choices } => {
                format!("single({}, {})", value(spec), value(choices))
            }
            Shape::Multi { spec, choices } => {
                format!("multi({}, {})", value(spec), value(choices))
            }
            Shape::Object { spec, props } => format!("object({}, {})", value(spec), value(props)),
            Shape::Schema(s) => format!("schema({})", value(s)),
        }
    }

    /// `Slots::from_array([...], len)` of a resolver's needs, the unused slots 0.
    fn needs_of(items: &Slots<u8, MAX_NEEDS>) -> String {
        let mut all: Vec<String> = items.iter().map(|j| format!("{j}")).collect();
        all.resize(MAX_NEEDS, "0".into());
        format!("Slots::from_array([{}], {})", all.join(", "), items.len())
    }

    fn ask(a: AskKind<'_>) -> String {
        match a {
            AskKind::Literal(q) => format!(
                "literal({}, {}, {}, {:?})",
                text(q.message),
                opt(q.title, text),
                opt(q.description, text),
                q.digest
            ),
            AskKind::Resolver {
                needs,
                declares,
                kind: crate::input::InputKind::Form,
            } => format!("resolver({}, {})", needs_of(&needs), opt(declares, ty)),
            AskKind::Resolver { needs, kind, .. } => {
                format!("resolver_of(InputKind::{kind:?}, {})", needs_of(&needs))
            }
            AskKind::Url(q) => format!("url({}, {}, {:?})", text(q.message), text(q.url), q.digest),
            AskKind::Sampling(q) => format!("sampling({}, {:?})", value(q.params), q.digest),
            AskKind::Roots(q) => format!("roots({}, {:?})", value(q.params), q.digest),
        }
    }

    fn param(p: &Param<'_>) -> String {
        format!(
            "param({:?}, {}, {}, {}, {}, {})",
            p.name,
            ty(p.ty),
            opt(p.default, value),
            opt(p.ask, ask),
            p.outcome,
            p.fallback
        )
    }

    /// `plan`'s parts as a Rust expression of type `Parts<'static>` for a `const` or
    /// `static` of a crate that depends on elicit-core as `elicit_core` (see the module
    /// docs: only for a plan made by [`Plan::compile`] or `Plan::from_postcard`).
    pub fn write_plan<const N: usize>(plan: &Plan<'_, N>) -> String {
        let params: Vec<String> = plan.params.iter().map(param).collect();
        format!(
            "{{ use ::elicit_core::plan_const::*; Parts {{ tool: {:?}, params: &[{}], order: &{:?} }} }}",
            plan.tool,
            params.join(", "),
            &plan.order[..]
        )
    }

    /// A JSON declaration as a plan constant at capacity `N`, made as a device would see
    /// it: compiled (`Plan::compile`), written as plan bytes and loaded back
    /// (`Plan::from_postcard`, every check a device runs, `N` included), the loaded
    /// plan's parts written by [`write_plan`]. Returns the constant's expression and the
    /// length of the plan bytes it was loaded from, with the tool's name; an error says
    /// which step failed.
    #[cfg(feature = "serde")]
    pub fn plan_constant<const N: usize>(declaration: &str) -> Result<PlanConstant, String> {
        // Compiled at the largest capacity (255), so that a plan too large for `N` is the
        // loader's capacity error, as on a device.
        let plan: Plan<'_, 255> = Plan::compile(declaration)
            .map_err(|e| format!("the declaration does not compile: {e}"))?;
        let bytes = plan.to_postcard_vec();
        let loaded = Plan::<'_, N>::from_postcard(&bytes)
            .map_err(|e| format!("the plan bytes do not load back: {e}"))?;
        Ok(PlanConstant {
            expr: write_plan(&loaded),
            bytes_len: bytes.len(),
            tool: loaded.tool.into(),
        })
    }

    /// What [`plan_constant`] makes of a declaration.
    #[cfg(feature = "serde")]
    #[derive(Debug, Clone)]
    pub struct PlanConstant {
        /// The plan's parts as a Rust expression of type `Parts<'static>` ([`write_plan`]).
        pub expr: String,
        /// The length of the plan bytes it was loaded from.
        pub bytes_len: usize,
        /// The plan's tool name.
        pub tool: String,
    }
}
