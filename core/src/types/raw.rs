//! Raw `requestedSchema` types (`{"schema": {...}}`): the schema is checked against the
//! MCP elicitation subset when the type compiles, and accepted content is validated
//! against it.

use super::compile::check_choices;
use super::validate::{count_ok, format_ok, get_decoded, integer_ok, num_f64, within_bounds};
use super::TyError;
use crate::error::Problem;
use crate::json::{f64_eq, f64_finite, Kind, Value};

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

/// Check a raw `requestedSchema` against the MCP elicitation subset: an object schema of
/// primitive properties (string, integer, number, boolean) and multi-select arrays.
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
        for n in r.items().filter_map(|name| name.as_str()) {
            if !props.members().any(|(k, _)| k.cmp_decoded(n).is_eq()) {
                return Err(Problem::RAW_REQUIRED_UNKNOWN);
            }
        }
    }
    Ok(())
}

/// Whether accepted content validates against a (checked) raw schema.
pub(super) fn check_raw_content(schema: Value<'_>, content: Value<'_>) -> bool {
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
        // The same integers as a declared integer type takes.
        integer_ok(Some(p), v.as_number())
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
