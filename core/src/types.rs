//! Answer types: compiling them from the declaration, rendering their `requestedSchema`
//! the way FastMCP renders it, validating answers strictly, and writing settled values.
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

use crate::error::Problem;
use crate::json::{
    f64_eq, f64_finite, f64_lt, parse_f64, write_f64, write_json_str, write_value, Kind, Number,
    Sink, Str, Style, Value,
};
use crate::pyfmt::{has_white_space, write_field_title};

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
/// With the `serde` feature it (de)serializes as part of a plan's bytes; a
/// deserialized type is only trusted once [`crate::Plan`]'s loader has checked it.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ty<'a> {
    pub(crate) kind: TypeKind,
    /// The type object (None for a shorthand string such as `"string"`).
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub(crate) spec: Option<Value<'a>>,
    /// For Enum/Multi: the array of choices.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub(crate) choices: Option<Value<'a>>,
}

/// Which form of a `requestedSchema` to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Render {
    /// Sorted keys, ASCII escapes: the digest input.
    pub digest: bool,
    /// Leave out what the MCP SDK's 2026-07-28 serializer drops (top-level title).
    pub client_view: bool,
}

impl Render {
    pub(crate) const DIGEST: Render = Render {
        digest: true,
        client_view: false,
    };
    pub(crate) fn wire(client_view: bool) -> Render {
        Render {
            digest: false,
            client_view,
        }
    }
}

/// Why a type is rejected (a static message, shown with the parameter's name).
pub(crate) type TyError = Problem;

const STRING_KEYS: &[&str] = &[
    "type",
    "minLength",
    "maxLength",
    "format",
    "enum",
    "title",
    "description",
    "default",
];
const NUMBER_KEYS: &[&str] = &[
    "type",
    "minimum",
    "maximum",
    "title",
    "description",
    "default",
];
const BOOL_KEYS: &[&str] = &["type", "title", "description", "default"];
const ARRAY_KEYS: &[&str] = &[
    "type",
    "items",
    "minItems",
    "maxItems",
    "title",
    "description",
    "default",
];
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

fn only_keys(v: Value<'_>, allowed: &[&str]) -> Result<(), TyError> {
    for (k, _) in v.members() {
        if !allowed.iter().any(|a| k.eq_str(a)) {
            return Err(Problem::TYPE_KEYWORD);
        }
    }
    Ok(())
}

fn check_count(v: Option<Value<'_>>) -> Result<(), TyError> {
    match v {
        None => Ok(()),
        Some(v) => match v.as_number() {
            Some(Number::Int(t)) if !t.starts_with('-') => Ok(()),
            _ => Err(Problem::COUNT_NOT_INTEGER),
        },
    }
}

fn check_bound(v: Option<Value<'_>>) -> Result<(), TyError> {
    match v {
        None => Ok(()),
        Some(v) if v.kind() == Kind::Number => Ok(()),
        Some(_) => Err(Problem::BOUND_NOT_NUMBER),
    }
}

fn check_choices(v: Value<'_>) -> Result<(), TyError> {
    if v.kind() != Kind::Array || v.is_empty() {
        return Err(Problem::ENUM_NOT_STRINGS);
    }
    for item in v.items() {
        if item.kind() != Kind::String {
            return Err(Problem::ENUM_NOT_STRINGS);
        }
    }
    Ok(())
}

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
    /// Compile a type from the declaration. `field` allows the field-only keys
    /// (title/description/default) and forbids objects and raw schemas.
    pub(crate) fn compile(v: Value<'a>, field: bool) -> Result<Ty<'a>, TyError> {
        if let Some(s) = v.as_str() {
            let kind = if s.eq_str("string") {
                TypeKind::String
            } else if s.eq_str("integer") {
                TypeKind::Integer
            } else if s.eq_str("number") {
                TypeKind::Number
            } else if s.eq_str("boolean") {
                TypeKind::Boolean
            } else {
                return Err(Problem::TYPE_NAME_UNKNOWN);
            };
            return Ok(Ty {
                kind,
                spec: None,
                choices: None,
            });
        }
        if v.kind() != Kind::Object {
            return Err(Problem::TYPE_NOT_NAME_OR_OBJECT);
        }
        if let Some(schema) = v.get("schema") {
            if field {
                return Err(Problem::FIELD_RAW_SCHEMA);
            }
            if v.len() != 1 {
                return Err(Problem::SCHEMA_OTHER_KEYS);
            }
            available(TypeKind::Schema)?;
            check_raw_schema(schema)?;
            return Ok(Ty {
                kind: TypeKind::Schema,
                spec: Some(schema),
                choices: None,
            });
        }
        let is_object = v
            .get("type")
            .is_some_and(|t| t.as_str().is_some_and(|t| t.eq_str("object")));
        if !field
            && !is_object
            && ["title", "description", "default"]
                .iter()
                .any(|k| v.get(k).is_some())
        {
            return Err(Problem::LABELS_ON_OBJECT_TYPE);
        }
        let ty = match v.get("type") {
            None => {
                // {"enum": [...]} shorthand
                let Some(choices) = v.get("enum") else {
                    return Err(Problem::TYPE_OBJECT_NEEDS_TYPE);
                };
                only_keys(v, STRING_KEYS)?;
                check_choices(choices)?;
                return Ok(Ty {
                    kind: TypeKind::Enum,
                    spec: Some(v),
                    choices: Some(choices),
                });
            }
            Some(t) => t,
        };
        let t = ty.as_str().ok_or(Problem::TYPE_NOT_STRING)?;
        if t.eq_str("string") {
            only_keys(v, STRING_KEYS)?;
            check_count(v.get("minLength"))?;
            check_count(v.get("maxLength"))?;
            if let Some(f) = v.get("format") {
                let ok = f
                    .as_str()
                    .is_some_and(|f| FORMATS.iter().any(|x| f.eq_str(x)));
                if !ok {
                    return Err(Problem::FORMAT_UNKNOWN);
                }
            }
            if let Some(choices) = v.get("enum") {
                check_choices(choices)?;
                return Ok(Ty {
                    kind: TypeKind::Enum,
                    spec: Some(v),
                    choices: Some(choices),
                });
            }
            Ok(Ty {
                kind: TypeKind::String,
                spec: Some(v),
                choices: None,
            })
        } else if t.eq_str("integer") || t.eq_str("number") {
            only_keys(v, NUMBER_KEYS)?;
            check_bound(v.get("minimum"))?;
            check_bound(v.get("maximum"))?;
            let kind = if t.eq_str("integer") {
                TypeKind::Integer
            } else {
                TypeKind::Number
            };
            Ok(Ty {
                kind,
                spec: Some(v),
                choices: None,
            })
        } else if t.eq_str("boolean") {
            only_keys(v, BOOL_KEYS)?;
            Ok(Ty {
                kind: TypeKind::Boolean,
                spec: Some(v),
                choices: None,
            })
        } else if t.eq_str("array") {
            only_keys(v, ARRAY_KEYS)?;
            check_count(v.get("minItems"))?;
            check_count(v.get("maxItems"))?;
            let items = v.get("items").ok_or(Problem::ARRAY_NEEDS_ITEMS)?;
            let choices = items
                .get("enum")
                .filter(|_| {
                    items.len() == 1
                        || (items.len() == 2
                            && items
                                .get("type")
                                .is_some_and(|t| t.as_str().is_some_and(|s| s.eq_str("string"))))
                })
                .ok_or(Problem::ARRAY_ITEMS_NOT_ENUM)?;
            check_choices(choices)?;
            Ok(Ty {
                kind: TypeKind::Multi,
                spec: Some(v),
                choices: Some(choices),
            })
        } else if t.eq_str("object") {
            if field {
                return Err(Problem::NESTED_OBJECT);
            }
            available(TypeKind::Object)?;
            for (k, _) in v.members() {
                if !(k.eq_str("type") || k.eq_str("title") || k.eq_str("properties")) {
                    return Err(Problem::OBJECT_TYPE_KEYS);
                }
            }
            if let Some(title) = v.get("title") {
                if title.kind() != Kind::String {
                    return Err(Problem::OBJECT_TITLE_NOT_STRING);
                }
            }
            let props = v
                .get("properties")
                .ok_or(Problem::OBJECT_NEEDS_PROPERTIES)?;
            if props.kind() != Kind::Object || props.is_empty() {
                return Err(Problem::PROPERTIES_NOT_FIELDS);
            }
            if props.members().count() != props.len() {
                return Err(Problem::FIELD_TWICE);
            }
            for (_, f) in props.members() {
                let fty = Ty::compile(f, true)?;
                if f.kind() != Kind::Object && fty.kind != TypeKind::Object {
                    // shorthand field types are fine
                }
                for key in ["title", "description"] {
                    if let Some(x) = f.get(key) {
                        if x.kind() != Kind::String {
                            return Err(Problem::FIELD_LABELS_NOT_STRINGS);
                        }
                    }
                }
            }
            Ok(Ty {
                kind: TypeKind::Object,
                spec: Some(v),
                choices: None,
            })
        } else {
            Err(Problem::TYPE_UNKNOWN)
        }
    }

    /// The kind.
    pub fn kind(&self) -> TypeKind {
        self.kind
    }

    /// True when the schema is FastMCP's `{"value": ...}` wrapper.
    pub(crate) fn wrapped(&self) -> bool {
        !matches!(self.kind, TypeKind::Object | TypeKind::Schema)
    }

    fn key(&self, k: &str) -> Option<Value<'a>> {
        self.spec.and_then(|s| s.get(k))
    }

    /// Render the `requestedSchema` object. `digest` selects the sorted, ASCII-escaped
    /// digest form; otherwise the wire form in FastMCP's key order, UTF-8.
    pub(crate) fn write_schema(
        &self,
        title: Option<Str<'_>>,
        description: Option<Str<'_>>,
        render: Render,
        out: &mut dyn Sink,
    ) {
        let digest = render.digest;
        let style = if digest { Style::DIGEST } else { Style::WIRE };
        match self.kind {
            // Never built without the feature (see `available`).
            TypeKind::Schema if !cfg!(feature = "raw-schema") => {}
            TypeKind::Schema => {
                let s = self.spec.expect("raw schemas have a spec");
                if render.client_view {
                    // The SDK's 2026-07-28 wire model keeps only these top-level keys.
                    out.put(b"{");
                    let mut first = true;
                    for (k, v) in s.members() {
                        if ["$schema", "properties", "required", "type"]
                            .iter()
                            .any(|x| k.eq_str(x))
                        {
                            if !first {
                                out.put(b",");
                            }
                            first = false;
                            write_json_str(k, false, out);
                            out.put(b":");
                            write_value(v, style, out);
                        }
                    }
                    out.put(b"}");
                } else {
                    write_value(s, style, out);
                }
            }
            TypeKind::Object if !cfg!(feature = "object-types") => {}
            TypeKind::Object => {
                let spec = self.spec.expect("object types have a spec");
                let props = spec.get("properties").expect("checked at compile");
                out.put(b"{\"properties\":{");
                // The digest form sorts the field names too (`sort_keys` is recursive);
                // names are distinct (checked at compile), so pick the next one each time.
                let mut last: Option<Str<'_>> = None;
                for (i, member) in props.members().enumerate() {
                    let (name, field) = if digest {
                        props
                            .members()
                            .filter(|(k, _)| last.is_none_or(|l| k.cmp_decoded(l).is_gt()))
                            .min_by(|(x, _), (y, _)| x.cmp_decoded(*y))
                            .unwrap_or(member)
                    } else {
                        member
                    };
                    last = Some(name);
                    if i > 0 {
                        out.put(b",");
                    }
                    write_json_str(name, style.ascii, out);
                    out.put(b":");
                    let fty = Ty::compile(field, true).expect("checked at compile");
                    fty.write_property(Some(field), FieldTitle::Name(name), None, digest, out);
                }
                out.put(b"}");
                let mut any_required = false;
                for (name, field) in props.members() {
                    if field.kind() == Kind::Object && field.get("default").is_some() {
                        continue;
                    }
                    out.put(if any_required {
                        b","
                    } else {
                        b",\"required\":["
                    });
                    any_required = true;
                    write_json_str(name, style.ascii, out);
                }
                if any_required {
                    out.put(b"]");
                }
                if let Some(t) = spec.get("title").filter(|_| !render.client_view) {
                    out.put(b",\"title\":");
                    write_value(t, style, out);
                }
                out.put(b",\"type\":\"object\"}");
            }
            _ if self.spec.is_none() && title.is_none() && description.is_none() => {
                // A shorthand scalar ("string", ...): the schema is a constant, the same
                // bytes in the digest and wire forms (its keys are already sorted). One
                // write per schema (it is on the hot path of every round).
                out.put(match self.kind {
                    TypeKind::Integer => {
                        b"{\"properties\":{\"value\":{\"title\":\"Value\",\"type\":\"integer\"}},\"required\":[\"value\"],\"type\":\"object\"}"
                    }
                    TypeKind::Number => {
                        b"{\"properties\":{\"value\":{\"title\":\"Value\",\"type\":\"number\"}},\"required\":[\"value\"],\"type\":\"object\"}"
                    }
                    TypeKind::Boolean => {
                        b"{\"properties\":{\"value\":{\"title\":\"Value\",\"type\":\"boolean\"}},\"required\":[\"value\"],\"type\":\"object\"}"
                    }
                    _ => {
                        b"{\"properties\":{\"value\":{\"title\":\"Value\",\"type\":\"string\"}},\"required\":[\"value\"],\"type\":\"object\"}"
                    }
                });
            }
            _ => {
                out.put(b"{\"properties\":{\"value\":");
                let t = match title {
                    Some(t) => FieldTitle::Given(t),
                    None => FieldTitle::Value,
                };
                self.write_property(self.spec, t, description, digest, out);
                out.put(b"},\"required\":[\"value\"],\"type\":\"object\"}");
            }
        }
    }

    /// One property schema, keys sorted as pydantic sorts them. `extra_description` is
    /// FastMCP's `response_description`, which it appends after the sorted keys (the
    /// digest form sorts it into place).
    fn write_property(
        &self,
        field: Option<Value<'_>>,
        title: FieldTitle<'_>,
        extra_description: Option<Str<'_>>,
        digest: bool,
        out: &mut dyn Sink,
    ) {
        let style = if digest { Style::DIGEST } else { Style::WIRE };
        let mut w = ObjWriter {
            out,
            first: true,
            style,
        };
        let single = self
            .choices
            .filter(|c| c.len() == 1 && self.kind == TypeKind::Enum);
        if let Some(c) = single {
            w.key("const");
            write_value(c.items().next().expect("one choice"), style, w.out);
        }
        if let Some(d) = field.and_then(|f| f.get("default")) {
            w.key("default");
            write_value(d, style, w.out);
        }
        let desc_in_field = field
            .and_then(|f| f.get("description"))
            .and_then(|d| d.as_str());
        let desc_sorted = if digest {
            extra_description.or(desc_in_field)
        } else {
            desc_in_field
        };
        if let Some(d) = desc_sorted {
            w.key("description");
            write_json_str(d, style.ascii, w.out);
        }
        if self.kind == TypeKind::Enum && single.is_none() {
            w.key("enum");
            write_value(self.choices.expect("enum has choices"), style, w.out);
        }
        if let Some(f) = self.key("format") {
            w.key("format");
            write_value(f, style, w.out);
        }
        if self.kind == TypeKind::Multi {
            w.key("items");
            let choices = self.choices.expect("multi has choices");
            if choices.len() == 1 {
                w.out.put(b"{\"const\":");
                write_value(choices.items().next().expect("one"), style, w.out);
            } else {
                w.out.put(b"{\"enum\":");
                write_value(choices, style, w.out);
            }
            w.out.put(b",\"type\":\"string\"}");
        }
        for k in [
            "maxItems",
            "maxLength",
            "maximum",
            "minItems",
            "minLength",
            "minimum",
        ] {
            if let Some(v) = self.key(k) {
                w.key(k);
                write_value(v, style, w.out);
            }
        }
        w.key("title");
        match title {
            FieldTitle::Value => w.out.put(b"\"Value\""),
            FieldTitle::Given(t) => write_json_str(t, style.ascii, w.out),
            FieldTitle::Name(n) => {
                if let Some(t) = field.and_then(|f| f.get("title")).and_then(|t| t.as_str()) {
                    write_json_str(t, style.ascii, w.out);
                } else {
                    write_title_of(n, style.ascii, w.out);
                }
            }
        }
        w.key("type");
        w.out.put(match self.kind {
            TypeKind::String | TypeKind::Enum => b"\"string\"",
            TypeKind::Integer => b"\"integer\"",
            TypeKind::Number => b"\"number\"",
            TypeKind::Boolean => b"\"boolean\"",
            TypeKind::Multi => b"\"array\"",
            TypeKind::Object | TypeKind::Schema => b"\"object\"",
        });
        if !digest {
            if let Some(d) = extra_description {
                w.key("description");
                write_json_str(d, style.ascii, w.out);
            }
        }
        w.out.put(b"}");
    }
}

enum FieldTitle<'x> {
    Value,
    Given(Str<'x>),
    Name(Str<'x>),
}

struct ObjWriter<'o> {
    out: &'o mut dyn Sink,
    first: bool,
    style: Style,
}

impl ObjWriter<'_> {
    fn key(&mut self, k: &str) {
        self.out.put(if self.first { b"{" } else { b"," });
        self.first = false;
        crate::json::write_str(k, self.style.ascii, self.out);
        self.out.put(b":");
    }
}

/// pydantic's title for a field name, as a quoted JSON string. Out of line: its 768 bytes
/// of buffers would otherwise sit in the frame of every property written.
#[inline(never)]
fn write_title_of(name: Str<'_>, ascii: bool, out: &mut dyn Sink) {
    // Field names are plain in practice; decode into a small stack buffer.
    let mut buf = [0u8; 256];
    let mut len = 0usize;
    let mut ok = true;
    for u in name.units() {
        match char::from_u32(u) {
            Some(c) if len + c.len_utf8() <= buf.len() => {
                c.encode_utf8(&mut buf[len..]);
                len += c.len_utf8();
            }
            _ => ok = false,
        }
    }
    let decoded = core::str::from_utf8(&buf[..len]).unwrap_or("");
    if !ok {
        write_json_str(name, ascii, out);
        return;
    }
    let mut tbuf = [0u8; 512];
    let mut tlen = 0usize;
    write_field_title(decoded, |p| {
        let end = (tlen + p.len()).min(tbuf.len());
        let n = end - tlen;
        tbuf[tlen..end].copy_from_slice(&p.as_bytes()[..n]);
        tlen = end;
    });
    let title = core::str::from_utf8(&tbuf[..tlen]).unwrap_or("");
    crate::json::write_str(title, ascii, out);
}

// ---------------------------------------------------------------------------------------
// Raw schemas
// ---------------------------------------------------------------------------------------

const RAW_TOP: &[&str] = &[
    "type",
    "properties",
    "required",
    "title",
    "description",
    "$schema",
];
const RAW_PROP: &[&str] = &[
    "type",
    "title",
    "description",
    "default",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "items",
    "minItems",
    "maxItems",
];

pub(crate) fn check_raw_schema(s: Value<'_>) -> Result<(), TyError> {
    const TOP: TyError = Problem::RAW_SCHEMA_SHAPE;
    if s.kind() != Kind::Object
        || !s
            .get("type")
            .is_some_and(|t| t.as_str().is_some_and(|t| t.eq_str("object")))
    {
        return Err(TOP);
    }
    for (k, _) in s.members() {
        if !RAW_TOP.iter().any(|a| k.eq_str(a)) {
            return Err(TOP);
        }
    }
    let props = s
        .get("properties")
        .filter(|p| p.kind() == Kind::Object)
        .ok_or(TOP)?;
    for (_, p) in props.members() {
        if p.kind() != Kind::Object {
            return Err(Problem::RAW_PROPERTY_NOT_OBJECT);
        }
        for (k, _) in p.members() {
            if !RAW_PROP.iter().any(|a| k.eq_str(a)) {
                return Err(Problem::RAW_KEYWORD);
            }
        }
        let t = p.get("type").and_then(|t| t.as_str());
        let prim = t.is_some_and(|t| {
            ["string", "integer", "number", "boolean"]
                .iter()
                .any(|x| t.eq_str(x))
        });
        let arr = t.is_some_and(|t| t.eq_str("array"));
        if arr {
            let items = p.get("items").ok_or(Problem::RAW_ARRAY_NEEDS_ITEMS)?;
            let ok = items.get("enum").is_some_and(|e| check_choices(e).is_ok())
                || items.get("anyOf").is_some_and(|a| {
                    a.kind() == Kind::Array
                        && !a.is_empty()
                        && a.items().all(|c| c.get("const").is_some())
                });
            if !ok {
                return Err(Problem::RAW_ARRAY_NOT_MULTI);
            }
        } else if !prim {
            return Err(Problem::RAW_PROPERTY_TYPE);
        }
        for k in ["enum", "oneOf", "anyOf"] {
            if let Some(e) = p.get(k) {
                if e.kind() != Kind::Array {
                    return Err(Problem::RAW_CHOICES_NOT_ARRAY);
                }
            }
        }
    }
    if let Some(r) = s.get("required") {
        if r.kind() != Kind::Array || r.items().any(|x| x.kind() != Kind::String) {
            return Err(Problem::RAW_REQUIRED_NOT_NAMES);
        }
        for name in r.items() {
            let n = name.as_str().expect("checked");
            if !props.members().any(|(k, _)| k.cmp_decoded(n).is_eq()) {
                return Err(Problem::RAW_REQUIRED_UNKNOWN);
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Validation (strict: JSON types as MCP defines them) and settled values
// ---------------------------------------------------------------------------------------

fn num_f64(n: Number<'_>) -> f64 {
    match n {
        Number::Int(t) => parse_f64(t).unwrap_or(f64::NAN),
        Number::Float(f) => f,
    }
}

fn within_bounds(spec: Option<Value<'_>>, x: f64) -> bool {
    let get = |k: &str| {
        spec.and_then(|s| s.get(k))
            .and_then(|v| v.as_number())
            .map(num_f64)
    };
    if let Some(min) = get("minimum") {
        if f64_lt(x, min) {
            return false;
        }
    }
    if let Some(max) = get("maximum") {
        if f64_lt(max, x) {
            return false;
        }
    }
    true
}

/// Whether a count (computed only when `spec` bounds it) is within `spec`'s bounds.
fn count_ok(
    spec: Option<Value<'_>>,
    min_key: &str,
    max_key: &str,
    count: impl FnOnce() -> usize,
) -> bool {
    let Some(spec) = spec else { return true };
    let get = |k: &str| spec.get(k).and_then(|v| v.as_number()).map(num_f64);
    let (min, max) = (get(min_key), get(max_key));
    if min.is_none() && max.is_none() {
        return true;
    }
    let n = count();
    if let Some(min) = min {
        if f64_lt(n as f64, min) {
            return false;
        }
    }
    if let Some(max) = max {
        if f64_lt(max, n as f64) {
            return false;
        }
    }
    true
}

fn in_choices(choices: Value<'_>, s: Str<'_>) -> bool {
    choices
        .items()
        .any(|c| c.as_str().is_some_and(|c| c.cmp_decoded(s).is_eq()))
}

/// Out of line: its 128-byte buffer stays out of the validator's frame (a device's
/// stack peak is a round validating answers).
#[inline(never)]
fn format_ok(format: Str<'_>, s: Str<'_>) -> bool {
    let mut buf = [0u8; 128];
    let Some(text) = decode_small(s, &mut buf) else {
        // Longer than any date; fine for email/uri.
        return !(format.eq_str("date") || format.eq_str("date-time"));
    };
    // Byte searches: the patterns are ASCII, and UTF-8 never uses ASCII bytes inside a
    // longer character.
    let b = text.as_bytes();
    if format.eq_str("email") {
        let Some(at) = b.iter().rposition(|&c| c == b'@') else {
            return false;
        };
        at > 0 && at + 1 < b.len() && !has_white_space(b)
    } else if format.eq_str("uri") {
        let Some(colon) = b.iter().position(|&c| c == b':') else {
            return false;
        };
        let scheme = &b[..colon];
        scheme.first().is_some_and(u8::is_ascii_alphabetic)
            && scheme
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
            && !has_white_space(b)
    } else if format.eq_str("date") {
        is_date(b)
    } else if format.eq_str("date-time") {
        is_date_time(b)
    } else {
        true
    }
}

fn decode_small<'b>(s: Str<'_>, buf: &'b mut [u8]) -> Option<&'b str> {
    if let Some(p) = s.as_plain() {
        if p.len() > buf.len() {
            return None;
        }
        buf[..p.len()].copy_from_slice(p.as_bytes());
        return core::str::from_utf8(&buf[..p.len()]).ok();
    }
    let mut len = 0;
    for u in s.units() {
        let c = char::from_u32(u)?;
        if len + c.len_utf8() > buf.len() {
            return None;
        }
        c.encode_utf8(&mut buf[len..]);
        len += c.len_utf8();
    }
    core::str::from_utf8(&buf[..len]).ok()
}

// Dates on bytes (every accepted byte is ASCII): str slicing links core's
// char-boundary panics.

fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    // At most 4 digits here: no overflow.
    s.iter().try_fold(0u32, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

fn is_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    (1..=12).contains(&m) && d >= 1 && d <= days[(m - 1) as usize]
}

fn is_date_time(s: &[u8]) -> bool {
    // A date in the first 10 bytes is ASCII, so byte 10 starts a character.
    if s.len() < 20 || !is_date(&s[..10]) {
        return false;
    }
    let rest = match s[10..].split_first() {
        Some((b'T' | b't' | b' ', rest)) => rest,
        _ => return false,
    };
    if rest.len() < 9 || rest[2] != b':' || rest[5] != b':' {
        return false;
    }
    let (Some(h), Some(mi), Some(se)) =
        (digits(&rest[..2]), digits(&rest[3..5]), digits(&rest[6..8]))
    else {
        return false;
    };
    if h > 23 || mi > 59 || se > 60 {
        return false;
    }
    let mut tail = &rest[8..];
    if let Some((b'.', frac)) = tail.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        tail = &frac[n..];
    }
    if tail == b"Z" || tail == b"z" {
        return true;
    }
    tail.len() == 6
        && (tail[0] == b'+' || tail[0] == b'-')
        && tail[3] == b':'
        && digits(&tail[1..3]).is_some_and(|h| h <= 23)
        && digits(&tail[4..6]).is_some_and(|m| m <= 59)
}

impl Ty<'_> {
    /// Validate one scalar/enum/array value against this (non-object) type.
    fn check_scalar(&self, v: Value<'_>) -> bool {
        match self.kind {
            TypeKind::String => {
                let Some(s) = v.as_str() else { return false };
                if !count_ok(self.spec, "minLength", "maxLength", || s.char_len()) {
                    return false;
                }
                match self.key("format").and_then(|f| f.as_str()) {
                    Some(f) => format_ok(f, s),
                    None => true,
                }
            }
            TypeKind::Integer => match v.as_number() {
                Some(Number::Int(t)) => within_bounds(self.spec, parse_f64(t).unwrap_or(0.0)),
                Some(Number::Float(f)) => {
                    f64_finite(f)
                        && f.to_bits() == libm_trunc(f).to_bits()
                        && within_bounds(self.spec, f)
                }
                None => false,
            },
            // A literal that overflows to ±inf is refused: it has no JSON rendering.
            TypeKind::Number => match v.as_number() {
                Some(n) => f64_finite(num_f64(n)) && within_bounds(self.spec, num_f64(n)),
                None => false,
            },
            TypeKind::Boolean => v.as_bool().is_some(),
            TypeKind::Enum => v
                .as_str()
                .is_some_and(|s| in_choices(self.choices.expect("enum"), s)),
            TypeKind::Multi => {
                if v.kind() != Kind::Array {
                    return false;
                }
                let choices = self.choices.expect("multi");
                let mut n = 0;
                for item in v.items() {
                    n += 1;
                    if !item.as_str().is_some_and(|s| in_choices(choices, s)) {
                        return false;
                    }
                }
                count_ok(self.spec, "minItems", "maxItems", || n)
            }
            TypeKind::Object | TypeKind::Schema => false,
        }
    }

    /// Validate accepted content (the `content` object of an ElicitResult), handing back
    /// what its settled value renders from: `None` when the content does not validate,
    /// else `Some(value)` with a wrapped type's `value` member (`Some(None)` for object
    /// and raw-schema types, which render the content).
    pub(crate) fn accept<'c>(&self, content: Value<'c>) -> Option<Option<Value<'c>>> {
        if content.kind() != Kind::Object {
            return None;
        }
        match self.kind {
            // Never built without the features (see `available`).
            TypeKind::Object if !cfg!(feature = "object-types") => None,
            TypeKind::Schema if !cfg!(feature = "raw-schema") => None,
            TypeKind::Object => {
                let props = self
                    .spec
                    .and_then(|s| s.get("properties"))
                    .expect("checked");
                props
                    .members()
                    .all(|(name, field)| {
                        let fty = Ty::compile(field, true).expect("checked at compile");
                        match get_decoded(content, name) {
                            Some(v) => fty.check_scalar(v),
                            None => field.kind() == Kind::Object && field.get("default").is_some(),
                        }
                    })
                    .then_some(None)
            }
            TypeKind::Schema => {
                check_raw_content(self.spec.expect("schema"), content).then_some(None)
            }
            _ => {
                let v = content.get("value")?;
                self.check_scalar(v).then_some(Some(v))
            }
        }
    }

    /// Write the settled value of validated content (the Python value FastMCP settles
    /// to, rendered with `style`).
    pub(crate) fn write_settled(&self, content: Value<'_>, style: Style, out: &mut dyn Sink) {
        match self.kind {
            // Never built without the feature (see `available`).
            TypeKind::Object if !cfg!(feature = "object-types") => {}
            TypeKind::Object => {
                let props = self
                    .spec
                    .and_then(|s| s.get("properties"))
                    .expect("checked");
                out.put(b"{");
                let mut first = true;
                for (name, field) in props.members() {
                    if !first {
                        out.put(if style.spaced { b", " } else { b"," });
                    }
                    first = false;
                    write_json_str(name, style.ascii, out);
                    out.put(if style.spaced { b": " } else { b":" });
                    let fty = Ty::compile(field, true).expect("checked at compile");
                    match (get_decoded(content, name), field.get("default")) {
                        (Some(v), _) => fty.write_normalized(v, style, out),
                        // pydantic never validates a default, and serializes an integer
                        // field's float default as the float it is; a number field's
                        // integer default does become a float.
                        (None, Some(d)) if fty.kind == TypeKind::Integer => {
                            write_value(d, style, out)
                        }
                        (None, Some(d)) => fty.write_normalized(d, style, out),
                        (None, None) => out.put(b"null"),
                    }
                }
                out.put(b"}");
            }
            TypeKind::Schema => write_value(content, style, out),
            _ => match content.get("value") {
                Some(v) => self.write_normalized(v, style, out),
                None => out.put(b"null"),
            },
        }
    }

    /// A value as the Python value of this type renders: ints for integer types,
    /// floats for number types, everything else as is.
    pub(crate) fn write_normalized(&self, v: Value<'_>, style: Style, out: &mut dyn Sink) {
        match (self.kind, v.as_number()) {
            (TypeKind::Number, Some(n)) => write_f64(num_f64(n), out),
            (TypeKind::Integer, Some(Number::Float(f)))
                if f64_finite(f) && f.to_bits() == libm_trunc(f).to_bits() =>
            {
                write_integral_f64(f, out)
            }
            _ => write_value(v, style, out),
        }
    }
}

/// The member whose decoded key equals `name`'s decoded key (last one wins).
fn get_decoded<'c>(obj: Value<'c>, name: Str<'_>) -> Option<Value<'c>> {
    if let Some(p) = name.as_plain() {
        return obj.get(p);
    }
    let mut found = None;
    for (k, v) in obj.members() {
        if k.cmp_decoded(name).is_eq() {
            found = Some(v);
        }
    }
    found
}

fn check_raw_content(schema: Value<'_>, content: Value<'_>) -> bool {
    let Some(props) = schema.get("properties") else {
        return false;
    };
    if let Some(req) = schema.get("required") {
        for r in req.items() {
            let Some(r) = r.as_str() else { return false };
            if get_decoded(content, r).is_none() {
                return false;
            }
        }
    }
    for (name, p) in props.members() {
        let Some(v) = get_decoded(content, name) else {
            continue;
        };
        if !check_raw_property(p, v) {
            return false;
        }
    }
    true
}

fn check_raw_property(p: Value<'_>, v: Value<'_>) -> bool {
    let t = p.get("type").and_then(|t| t.as_str());
    let is = |name: &str| t.is_some_and(|t| t.eq_str(name));
    let base = if is("string") {
        v.as_str().is_some_and(|s| {
            count_ok(Some(p), "minLength", "maxLength", || s.char_len())
                && p.get("format")
                    .and_then(|f| f.as_str())
                    .is_none_or(|f| format_ok(f, s))
        })
    } else if is("integer") {
        match v.as_number() {
            Some(Number::Int(t)) => within_bounds(Some(p), parse_f64(t).unwrap_or(0.0)),
            Some(Number::Float(f)) => {
                f64_finite(f) && f.to_bits() == libm_trunc(f).to_bits() && within_bounds(Some(p), f)
            }
            None => false,
        }
    } else if is("number") {
        v.as_number()
            .is_some_and(|n| f64_finite(num_f64(n)) && within_bounds(Some(p), num_f64(n)))
    } else if is("boolean") {
        v.as_bool().is_some()
    } else if is("array") {
        let Some(items) = p.get("items") else {
            return false;
        };
        v.kind() == Kind::Array
            && v.items().all(|item| const_or_enum_ok(items, item))
            && count_ok(Some(p), "minItems", "maxItems", || v.items().count())
    } else {
        false
    };
    base && const_or_enum_ok(p, v)
}

/// Checks `enum` / `oneOf` / `anyOf` (of consts) constraints when present.
fn const_or_enum_ok(p: Value<'_>, v: Value<'_>) -> bool {
    if let Some(e) = p.get("enum") {
        if !e.items().any(|c| json_eq(c, v)) {
            return false;
        }
    }
    for k in ["oneOf", "anyOf"] {
        if let Some(alts) = p.get(k) {
            let consts = alts.items().filter_map(|a| a.get("const"));
            let mut any_const = false;
            let mut hit = false;
            for c in consts {
                any_const = true;
                hit |= json_eq(c, v);
            }
            if any_const && !hit {
                return false;
            }
        }
    }
    true
}

/// Semantic equality for scalars (strings decoded, numbers by value).
#[cfg_attr(not(feature = "raw-schema"), allow(dead_code))]
fn json_eq(a: Value<'_>, b: Value<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::String, Kind::String) => a
            .as_str()
            .zip(b.as_str())
            .is_some_and(|(x, y)| x.cmp_decoded(y).is_eq()),
        (Kind::Number, Kind::Number) => a
            .as_number()
            .zip(b.as_number())
            .is_some_and(|(x, y)| f64_eq(num_f64(x), num_f64(y))),
        (Kind::Bool, Kind::Bool) => a.as_bool() == b.as_bool(),
        (Kind::Null, Kind::Null) => true,
        _ => false,
    }
}

/// `f.trunc()` without std, and without floating-point arithmetic (soft-float on a
/// Cortex-M4): the fraction bits below the binary point are cleared.
pub(crate) fn libm_trunc(f: f64) -> f64 {
    let bits = f.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exp >= 52 {
        f // integral already (or inf, NaN)
    } else if exp < 0 {
        f64::from_bits(bits & 1 << 63) // |f| < 1: ±0
    } else {
        f64::from_bits(bits & !((1u64 << (52 - exp)) - 1))
    }
}

/// Write an integral, finite f64 as Python's `int(f)` prints (exact, any magnitude).
pub(crate) fn write_integral_f64(f: f64, out: &mut dyn Sink) {
    let bits = f.to_bits();
    let neg = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    if exp < 10 {
        // Below 2^63: the integer itself (the shift drops only zero bits; ±0 has
        // exp = -1075 and prints 0, as int(-0.0) does).
        let v = if exp >= 0 {
            mant << exp
        } else {
            mant.checked_shr(exp.unsigned_abs()).unwrap_or(0)
        } as i64;
        crate::json::write_i64(if neg { -v } else { v }, out);
        return;
    }
    // Exact decimal expansion of mantissa * 2^exp with a fixed digit buffer.
    // little-endian base-1e9 limbs; 2^1024 < 1e309 needs 35 limbs
    // mantissa × 2^exp by doubling, one bit of the mantissa (top first) or of 2^exp at a
    // time: 32-bit arithmetic only (2 × limb + 1 < 2^31).
    let mut limbs = [0u32; 40];
    let mut n = 0usize;
    for i in (0..53 + exp.max(0)).rev() {
        let mut carry = u32::from(i >= exp && (mant >> (i - exp)) & 1 == 1);
        for limb in limbs.iter_mut().take(n) {
            let v = *limb * 2 + carry;
            carry = u32::from(v >= 1_000_000_000);
            *limb = v - carry * 1_000_000_000;
        }
        if carry > 0 && n < limbs.len() {
            limbs[n] = carry;
            n += 1;
        }
    }
    if neg {
        out.put(b"-");
    }
    let mut buf = [0u8; 9];
    for (i, limb) in limbs[..n].iter().rev().enumerate() {
        let mut v = *limb;
        for b in buf.iter_mut().rev() {
            *b = b'0' + (v % 10) as u8;
            v /= 10;
        }
        if i == 0 {
            let start = buf.iter().position(|&b| b != b'0').unwrap_or(8);
            out.put(&buf[start..]);
        } else {
            out.put(&buf);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Type identity and the reference's names for types
// ---------------------------------------------------------------------------------------

impl Ty<'_> {
    /// Whether two types are the same type (for the declared-type check).
    pub(crate) fn same_as(&self, other: &Ty<'_>) -> bool {
        if self.kind != other.kind {
            return false;
        }
        match self.kind {
            TypeKind::Enum | TypeKind::Multi => {
                let (a, b) = (self.choices.expect("c"), other.choices.expect("c"));
                // Choices are strings (checked when the type was compiled or loaded):
                // compared decoded, as `json_eq` compares strings.
                let subset = |x: Value<'_>, y: Value<'_>| {
                    x.items()
                        .all(|i| i.as_str().is_some_and(|s| in_choices(y, s)))
                };
                subset(a, b) && subset(b, a)
            }
            _ => canonical_digest(self) == canonical_digest(other),
        }
    }

    /// The reference's `repr` of the Python type this maps to.
    pub(crate) fn write_py_name(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        match self.kind {
            TypeKind::String => out.write_str("<class 'str'>"),
            TypeKind::Integer => out.write_str("<class 'int'>"),
            TypeKind::Number => out.write_str("<class 'float'>"),
            TypeKind::Boolean => out.write_str("<class 'bool'>"),
            TypeKind::Enum | TypeKind::Multi => {
                if self.kind == TypeKind::Multi {
                    out.write_str("list[")?;
                }
                out.write_str("typing.Literal[")?;
                for (i, c) in self.choices.expect("c").items().enumerate() {
                    if i > 0 {
                        out.write_str(", ")?;
                    }
                    let s = c.as_str().expect("strings");
                    let mut buf = [0u8; 128];
                    let text = decode_small(s, &mut buf).unwrap_or("...");
                    write!(out, "{}", crate::pyfmt::PyRepr(text))?;
                }
                out.write_str("]")?;
                if self.kind == TypeKind::Multi {
                    out.write_str("]")?;
                }
                Ok(())
            }
            TypeKind::Object => {
                let mut buf = [0u8; 128];
                let title = self
                    .spec
                    .and_then(|s| s.get("title"))
                    .and_then(|t| t.as_str())
                    .and_then(|t| decode_small(t, &mut buf))
                    .unwrap_or("Model");
                write!(out, "<class '__main__.{title}'>")
            }
            TypeKind::Schema => out.write_str("<requestedSchema>"),
        }
    }
}

fn canonical_digest(t: &Ty<'_>) -> [u8; 32] {
    // The block-level hasher the question digests use (no second SHA-256 front end).
    let mut h = crate::plan::HashSink::new();
    match t.spec {
        Some(s) => write_value(s, Style::DIGEST, &mut h),
        None => {
            h.put(b"{\"type\":");
            h.put(match t.kind {
                TypeKind::String => b"\"string\"}",
                TypeKind::Integer => b"\"integer\"}",
                TypeKind::Number => b"\"number\"}",
                _ => b"\"boolean\"}",
            });
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    struct Buf(Vec<u8>);

    impl Sink for Buf {
        fn put(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    /// Floats around every binary exponent, and the special values.
    fn samples() -> Vec<f64> {
        let mut v = std::vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for biased in 0..2047u64 {
            for k in 0..8u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let fraction = match k {
                    0 => 0,
                    1 => 1,
                    2 => (1 << 52) - 1,
                    _ => x & ((1 << 52) - 1),
                };
                let f = f64::from_bits(biased << 52 | fraction);
                v.push(f);
                v.push(-f);
                v.push(f.trunc());
                v.push(-f.trunc());
            }
        }
        v
    }

    /// Object types and raw schemas compile when the build has their features; without,
    /// the error names the feature (the caller names the parameter).
    #[test]
    fn left_out_types_name_their_feature() {
        let object = Value::parse(r#"{"type":"object","properties":{"a":"string"}}"#);
        let raw = Value::parse(r#"{"schema":{"type":"object","properties":{}}}"#);
        for (v, on, feature) in [
            (object, cfg!(feature = "object-types"), "\"object-types\""),
            (raw, cfg!(feature = "raw-schema"), "\"raw-schema\""),
        ] {
            match Ty::compile(v.expect("JSON"), false) {
                Ok(_) => assert!(on, "compiled without {feature}"),
                Err(p) => {
                    assert!(!on, "{feature} is on: {}", p.as_str());
                    assert!(p.as_str().contains(feature), "{}", p.as_str());
                }
            }
        }
    }

    #[test]
    fn trunc_is_std_trunc() {
        for f in samples() {
            let (want, got) = (f.trunc(), libm_trunc(f));
            assert!(
                want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                "{f:e}: {got:e}"
            );
        }
    }

    #[test]
    fn dates_and_date_times() {
        for (s, want) in [
            ("2026-07-28", true),
            ("2024-02-29", true),
            ("2026-02-29", false),
            ("2026-13-01", false),
            ("2026-7-28", false),
            ("+026-07-28", false),
            ("2026-07-28 ", false),
        ] {
            assert_eq!(is_date(s.as_bytes()), want, "{s}");
        }
        for (s, want) in [
            ("2026-07-28T12:30:00Z", true),
            ("2026-07-28t12:30:00z", true),
            ("2026-07-28 12:30:00+02:00", true),
            ("2026-07-28T12:30:00.123Z", true),
            ("2026-07-28T12:30:00.Z", false),
            ("2026-07-28T24:00:00Z", false),
            ("2026-07-28T23:59:60Z", true),
            ("2024-02-29T00:00:00-23:59", true),
            ("2026-02-29T00:00:00Z", false),
            ("2026-07-28T12:30:00+24:00", false),
            ("2026-07-28T12:30:00", false),
            ("2026-07-28X12:30:00Z", false),
            ("2026-07-28T12:30:00+0200", false),
            ("2026-07-28\u{e9}12:30:00Z", false),
            ("2026-07-2\u{e9}T12:30:00Z", false),
            ("2026-07-28T12:30:00.5+01:00x", false),
            // A non-ASCII character inside the time: the str-slicing version panicked.
            ("2024-02-29 23:59:6\u{e9}0Z", false),
            ("2026-07-28T12:30:00+0\u{e9}:00", false),
        ] {
            assert_eq!(is_date_time(s.as_bytes()), want, "{s}");
        }
    }

    #[test]
    fn integral_f64_is_python_int() {
        for f in samples() {
            if !f.is_finite() || f != f.trunc() {
                continue;
            }
            let mut b = Buf(Vec::new());
            write_integral_f64(f, &mut b);
            let got = String::from_utf8(b.0).expect("ASCII");
            // std prints an integral f64 exactly, with no fraction: Python's int(f).
            let want = format!("{f:.0}");
            let want = if want == "-0" {
                String::from("0")
            } else {
                want
            };
            assert_eq!(got, want, "{f:e}");
        }
    }
}
