//! Answer types: the compiled type ([`Ty`]) and its kinds, split by job:
//!
//! - `compile`: a declaration's type text → [`Ty`];
//! - `render`: the `requestedSchema` the way FastMCP renders it;
//! - `validate`: checking accepted content strictly, and writing settled values;
//! - `raw`: raw `requestedSchema` types (checked against the MCP elicitation subset, and
//!   content validated against them).
//!
//! The type grammar (JSON):
//!
//! ```text
//! type   := "string" | "integer" | "number" | "boolean"
//!         | {"type":"string", "minLength"?, "maxLength"?, "format"?, "enum"?: [string, ...]}
//!         | {"enum": [string, ...]}                                 single-select shorthand
//!         | {"type":"integer"|"number", "minimum"?, "maximum"?}
//!         | {"type":"boolean"}
//!         | {"type":"array", "items": {"enum": [string, ...]}, "minItems"?, "maxItems"?}
//!         | {"type":"object", "title"?: string, "properties": {name: field, ...}}
//!         | {"schema": <requestedSchema>}                             sent verbatim
//! field  := a scalar or array type object above, plus "title"?, "description"?, "default"?
//! ```
//!
//! Scalars, enums and arrays are wrapped in an object with one required property
//! `value`, as FastMCP wraps them; objects render as a pydantic model does (sorted keys,
//! field titles derived from names, `required` = the fields without a default).

mod compile;
mod raw;
mod render;
mod validate;

pub(crate) use render::{Render, MODE_LEN, PARAMS_TAIL_HEAD, SCHEMA_AT};
#[cfg(feature = "fallback")]
pub(crate) use validate::roots_argument_ok;

use crate::digest::Sha256;
use crate::error::Problem;
use crate::json::{write_value, Sink, Str, Style, Value};

/// The kind of an answer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TypeKind {
    /// A string (optionally constrained).
    String,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// A boolean.
    Boolean,
    /// One of a list of strings.
    Enum,
    /// Several of a list of strings.
    Multi,
    /// An object of primitive fields.
    Object,
    /// A raw `requestedSchema`.
    Schema,
}

/// A compiled answer type: its kind and the declaration text that defines it.
///
/// Only the type compiler makes one (from a declaration, a resolver's question, or plan
/// bytes, whose types are recompiled from their text), so every kind carries exactly the
/// data it needs.
#[derive(Debug, Clone, Copy)]
pub struct Ty<'a>(pub(crate) Shape<'a>);

/// A type's kind with the declaration text it is read from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape<'a> {
    /// A string: `None` for the shorthand `"string"`, else the type object.
    String(Option<Value<'a>>),
    /// An integer: `None` for the shorthand, else the type object.
    Integer(Option<Value<'a>>),
    /// A number: `None` for the shorthand, else the type object.
    Number(Option<Value<'a>>),
    /// A boolean: `None` for the shorthand, else the type object.
    Boolean(Option<Value<'a>>),
    /// A single-select enum: the type object and its array of string choices.
    Enum { spec: Value<'a>, choices: Value<'a> },
    /// A multi-select array: the type object and its items' array of string choices.
    Multi { spec: Value<'a>, choices: Value<'a> },
    /// An object type: the type object and its `properties` (an object of fields, each
    /// of which compiles as a field type).
    Object { spec: Value<'a>, props: Value<'a> },
    /// A raw `requestedSchema` (checked against the subset).
    Schema(Value<'a>),
}

/// Why a type is rejected (a static message, shown with the parameter's name).
pub(crate) type TyError = Problem;

/// Whether this build handles types of `kind`: object types need the `object-types`
/// feature and raw schemas the `raw-schema` feature (both default; a device build may
/// leave them out). The error names the feature to enable; the caller names the
/// parameter.
pub(crate) fn available(kind: TypeKind) -> Result<(), TyError> {
    match kind {
        TypeKind::Object if !cfg!(feature = "object-types") => Err(Problem::OBJECT_TYPES_LEFT_OUT),
        TypeKind::Schema if !cfg!(feature = "raw-schema") => Err(Problem::RAW_SCHEMA_LEFT_OUT),
        _ => Ok(()),
    }
}

impl<'a> Ty<'a> {
    /// The shorthand string type (`"string"`), a parameter's type when none is declared.
    pub(crate) const STRING: Ty<'static> = Ty(Shape::String(None));

    /// The kind.
    pub fn kind(&self) -> TypeKind {
        match self.0 {
            Shape::String(_) => TypeKind::String,
            Shape::Integer(_) => TypeKind::Integer,
            Shape::Number(_) => TypeKind::Number,
            Shape::Boolean(_) => TypeKind::Boolean,
            Shape::Enum { .. } => TypeKind::Enum,
            Shape::Multi { .. } => TypeKind::Multi,
            Shape::Object { .. } => TypeKind::Object,
            Shape::Schema(_) => TypeKind::Schema,
        }
    }

    /// The type object (`None` for a shorthand name such as `"string"`).
    pub(crate) fn spec(&self) -> Option<Value<'a>> {
        match self.0 {
            Shape::String(s) | Shape::Integer(s) | Shape::Number(s) | Shape::Boolean(s) => s,
            Shape::Enum { spec, .. } | Shape::Multi { spec, .. } | Shape::Object { spec, .. } => {
                Some(spec)
            }
            Shape::Schema(s) => Some(s),
        }
    }

    /// An enum's or a multi-select's choices.
    pub(crate) fn choices(&self) -> Option<Value<'a>> {
        match self.0 {
            Shape::Enum { choices, .. } | Shape::Multi { choices, .. } => Some(choices),
            _ => None,
        }
    }

    /// A key of the type object.
    fn key(&self, k: &str) -> Option<Value<'a>> {
        self.spec().and_then(|s| s.get(k))
    }

    /// True when the schema is FastMCP's `{"value": ...}` wrapper.
    pub(crate) fn wrapped(&self) -> bool {
        !matches!(self.0, Shape::Object { .. } | Shape::Schema(_))
    }

    /// The type plan bytes carry as (kind, type object, choices), if it is exactly what
    /// the type compiler makes of that text (`None` otherwise, or when this build leaves
    /// the kind out).
    #[cfg(any(feature = "serde", test))]
    pub(crate) fn from_parts(
        kind: TypeKind,
        spec: Option<Value<'a>>,
        choices: Option<Value<'a>>,
    ) -> Option<Ty<'a>> {
        let shorthand = match kind {
            TypeKind::String => Some(Shape::String(None)),
            TypeKind::Integer => Some(Shape::Integer(None)),
            TypeKind::Number => Some(Shape::Number(None)),
            TypeKind::Boolean => Some(Shape::Boolean(None)),
            _ => None,
        };
        match (spec, choices) {
            (None, None) => shorthand.map(Ty),
            (None, Some(_)) => None,
            (Some(s), None) if kind == TypeKind::Schema => {
                available(kind).ok()?;
                raw::check_raw_schema(s).ok()?;
                Some(Ty(Shape::Schema(s)))
            }
            (Some(s), choices) => {
                let c = Ty::compile(s, false).ok()?;
                let same = c.kind() == kind
                    && c.spec().is_some()
                    && c.choices().map(Value::raw) == choices.map(Value::raw);
                same.then_some(c)
            }
        }
    }

    /// The type as plan bytes carry it: (kind, type object, choices).
    #[cfg(any(feature = "serde", test))]
    pub(crate) fn parts(&self) -> (TypeKind, Option<Value<'a>>, Option<Value<'a>>) {
        (self.kind(), self.spec(), self.choices())
    }
}

// ---------------------------------------------------------------------------------------
// Type identity and the reference's names for types
// ---------------------------------------------------------------------------------------

impl Ty<'_> {
    /// Whether two types are the same type (for the declared-type check).
    pub(crate) fn same_as(&self, other: &Ty<'_>) -> bool {
        if self.kind() != other.kind() {
            return false;
        }
        match (self.choices(), other.choices()) {
            (Some(a), Some(b)) => {
                // Choices are strings (checked when the type was compiled or loaded):
                // compared decoded, as `json_eq` compares strings.
                let subset = |x: Value<'_>, y: Value<'_>| {
                    x.items()
                        .all(|i| i.as_str().is_some_and(|s| validate::in_choices(y, s)))
                };
                subset(a, b) && subset(b, a)
            }
            _ => canonical_digest(self) == canonical_digest(other),
        }
    }

    /// The reference's `repr` of the Python type this maps to.
    pub(crate) fn write_py_name(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        match self.0 {
            Shape::String(_) => out.write_str("<class 'str'>"),
            Shape::Integer(_) => out.write_str("<class 'int'>"),
            Shape::Number(_) => out.write_str("<class 'float'>"),
            Shape::Boolean(_) => out.write_str("<class 'bool'>"),
            Shape::Enum { choices, .. } => write_literal_name(choices, out),
            Shape::Multi { choices, .. } => {
                out.write_str("list[")?;
                write_literal_name(choices, out)?;
                out.write_str("]")
            }
            Shape::Object { spec, .. } => {
                let mut buf = [0u8; 128];
                let title = spec
                    .get("title")
                    .and_then(|t| t.as_str())
                    .and_then(|t| decode_small(t, &mut buf))
                    .unwrap_or("Model");
                write!(out, "<class '__main__.{title}'>")
            }
            Shape::Schema(_) => out.write_str("<requestedSchema>"),
        }
    }
}

/// `typing.Literal['a', 'b']` for an array of string choices.
fn write_literal_name(choices: Value<'_>, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
    out.write_str("typing.Literal[")?;
    for (i, c) in choices.items().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        let mut buf = [0u8; 128];
        let text = c
            .as_str()
            .and_then(|s| decode_small(s, &mut buf))
            .unwrap_or("...");
        write!(out, "{}", crate::pyfmt::PyRepr(text))?;
    }
    out.write_str("]")
}

/// SHA-256 of a type's canonical text (its type object in the digest style, or the
/// shorthand's `{"type": name}`).
fn canonical_digest(t: &Ty<'_>) -> [u8; 32] {
    let mut h = Sha256::new();
    match t.spec() {
        Some(s) => write_value(s, Style::DIGEST, &mut h),
        None => {
            h.put(b"{\"type\":");
            h.put(match t.0 {
                Shape::String(_) => b"\"string\"}",
                Shape::Integer(_) => b"\"integer\"}",
                Shape::Number(_) => b"\"number\"}",
                _ => b"\"boolean\"}",
            });
        }
    }
    h.finish()
}

/// A JSON string decoded into `buf` (`None` when it does not fit).
fn decode_small<'b>(s: Str<'_>, buf: &'b mut [u8]) -> Option<&'b str> {
    if let Some(p) = s.as_plain() {
        let dst = buf.get_mut(..p.len())?;
        dst.copy_from_slice(p.as_bytes());
        return core::str::from_utf8(dst).ok();
    }
    let mut len = 0;
    for u in s.units() {
        let c = char::from_u32(u)?;
        let dst = buf.get_mut(len..len + c.len_utf8())?;
        c.encode_utf8(dst);
        len += c.len_utf8();
    }
    core::str::from_utf8(buf.get(..len)?).ok()
}
