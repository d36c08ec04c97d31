//! A declaration's type text → [`Ty`] (the grammar is in the module above).

use super::raw::check_raw_schema;
use super::{available, Shape, Ty, TyError, TypeKind};
use crate::error::Problem;
use crate::json::{Kind, Number, Value};

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
/// The string formats the type compiler accepts (`validate::format_ok` checks them by
/// their index here: email, uri, date, date-time).
pub(super) const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

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

/// A non-empty array of strings.
pub(super) fn check_choices(v: Value<'_>) -> Result<(), TyError> {
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

fn is_str(v: Option<Value<'_>>, name: &str) -> bool {
    v.is_some_and(|t| t.as_str().is_some_and(|t| t.eq_str(name)))
}

impl<'a> Ty<'a> {
    /// Compile a type from the declaration. `field` allows the field-only keys
    /// (title/description/default) and forbids objects and raw schemas.
    pub(crate) fn compile(v: Value<'a>, field: bool) -> Result<Ty<'a>, TyError> {
        if let Some(s) = v.as_str() {
            let shape = if s.eq_str("string") {
                Shape::String(None)
            } else if s.eq_str("integer") {
                Shape::Integer(None)
            } else if s.eq_str("number") {
                Shape::Number(None)
            } else if s.eq_str("boolean") {
                Shape::Boolean(None)
            } else {
                return Err(Problem::TYPE_NAME_UNKNOWN);
            };
            return Ok(Ty(shape));
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
            return Ok(Ty(Shape::Schema(schema)));
        }
        let is_object = is_str(v.get("type"), "object");
        if !field
            && !is_object
            && ["title", "description", "default"]
                .iter()
                .any(|k| v.get(k).is_some())
        {
            return Err(Problem::LABELS_ON_OBJECT_TYPE);
        }
        let Some(ty) = v.get("type") else {
            // {"enum": [...]} shorthand
            let Some(choices) = v.get("enum") else {
                return Err(Problem::TYPE_OBJECT_NEEDS_TYPE);
            };
            only_keys(v, STRING_KEYS)?;
            check_choices(choices)?;
            return Ok(Ty(Shape::Enum { spec: v, choices }));
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
                return Ok(Ty(Shape::Enum { spec: v, choices }));
            }
            Ok(Ty(Shape::String(Some(v))))
        } else if t.eq_str("integer") || t.eq_str("number") {
            only_keys(v, NUMBER_KEYS)?;
            check_bound(v.get("minimum"))?;
            check_bound(v.get("maximum"))?;
            Ok(Ty(if t.eq_str("integer") {
                Shape::Integer(Some(v))
            } else {
                Shape::Number(Some(v))
            }))
        } else if t.eq_str("boolean") {
            only_keys(v, BOOL_KEYS)?;
            Ok(Ty(Shape::Boolean(Some(v))))
        } else if t.eq_str("array") {
            only_keys(v, ARRAY_KEYS)?;
            check_count(v.get("minItems"))?;
            check_count(v.get("maxItems"))?;
            let items = v.get("items").ok_or(Problem::ARRAY_NEEDS_ITEMS)?;
            let choices = items
                .get("enum")
                .filter(|_| {
                    items.len() == 1 || (items.len() == 2 && is_str(items.get("type"), "string"))
                })
                .ok_or(Problem::ARRAY_ITEMS_NOT_ENUM)?;
            check_choices(choices)?;
            Ok(Ty(Shape::Multi { spec: v, choices }))
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
                // Shorthand field types ("string", ...) are fine.
                Ty::compile(f, true)?;
                for key in ["title", "description"] {
                    if let Some(x) = f.get(key) {
                        if x.kind() != Kind::String {
                            return Err(Problem::FIELD_LABELS_NOT_STRINGS);
                        }
                    }
                }
            }
            Ok(Ty(Shape::Object { spec: v, props }))
        } else {
            Err(Problem::TYPE_UNKNOWN)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Every kind carries its own data: choices for enums and arrays, the properties for
    /// objects, the type object unless it was a shorthand name.
    #[test]
    fn shapes_carry_their_data() {
        let cases = [
            (r#""integer""#, TypeKind::Integer, false, false),
            (
                r#"{"type":"integer","minimum":1}"#,
                TypeKind::Integer,
                true,
                false,
            ),
            (r#"{"enum":["a","b"]}"#, TypeKind::Enum, true, true),
            (
                r#"{"type":"string","enum":["a"]}"#,
                TypeKind::Enum,
                true,
                true,
            ),
            (
                r#"{"type":"array","items":{"enum":["x"]}}"#,
                TypeKind::Multi,
                true,
                true,
            ),
        ];
        for (text, kind, spec, choices) in cases {
            let t = Ty::compile(Value::parse(text).expect("JSON"), false).expect(text);
            assert_eq!(t.kind(), kind, "{text}");
            assert_eq!(t.spec().is_some(), spec, "{text}");
            assert_eq!(t.choices().is_some(), choices, "{text}");
            let (k, s, c) = t.parts();
            let back = Ty::from_parts(k, s, c).expect("its own parts");
            assert_eq!(back.kind(), kind);
        }
        // Parts the compiler never makes are refused.
        let spec = Value::parse(r#"{"enum":["a","b"]}"#).expect("JSON");
        assert!(Ty::from_parts(TypeKind::Enum, None, None).is_none());
        assert!(Ty::from_parts(TypeKind::String, Some(spec), None).is_none());
        assert!(Ty::from_parts(TypeKind::Enum, Some(spec), None).is_none());
        assert!(Ty::from_parts(TypeKind::Boolean, None, Some(spec)).is_none());
    }
}
