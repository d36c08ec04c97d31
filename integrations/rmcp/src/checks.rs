//! What a call brings, checked against its declaration: the model's arguments, resolver
//! values, and the engine's questions as rmcp's typed requests.

use std::collections::HashMap;

use elicit_core::{InputKind, PyRepr};
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests, JsonObject,
};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::{developer_error, Declared, ErrorData, CAP};

/// Most distinct form schemas a declaration remembers (resolvers may vary theirs).
const SCHEMA_MEMO: usize = 4 * CAP;

impl Declared {
    /// A resolver's value against the parameter's declared type and enum (a developer
    /// error otherwise).
    pub(crate) fn check_value(&self, param: &str, v: &Value) -> Result<(), ErrorData> {
        let (ty, default) = self
            .plan()
            .index_of(param)
            .and_then(|i| self.types.get(i))
            .map_or((None, false), |(ty, default)| (ty.as_ref(), *default));
        let fits = match ty {
            _ if v.is_null() && default => true,
            Some(Value::String(t)) => json_type_matches(t, v),
            Some(Value::Object(o)) => match o.get("enum").and_then(Value::as_array) {
                Some(choices) => choices.contains(v),
                None => true,
            },
            _ => true,
        };
        if fits {
            return Ok(());
        }
        let declared = ty.map(Value::to_string).unwrap_or_default();
        Err(developer_error(format_args!(
            "the resolver of {param:?} returned {v}, which is not a {declared}; \
             return a value of the declared type (or ask)"
        )))
    }

    /// Whole numbers settled for integer parameters as integers (the engine accepts
    /// `3.0` for an integer; a body's `i64` field reads `3`).
    pub(crate) fn normalize(&self, values: &mut Map<String, Value>) {
        for (i, (ty, _)) in self.types.iter().enumerate() {
            let name = self.plan().name(i).unwrap_or_default();
            if let (Some("integer"), Some(v)) =
                (ty.as_ref().and_then(Value::as_str), values.get_mut(name))
            {
                if let Some(n) = whole(v) {
                    *v = n;
                }
            }
        }
    }

    /// Whole numbers given for integer arguments (`5.0`, schema `type` `"integer"` or a
    /// list holding it) as integers, before any resolver or body reads them: a
    /// normalised copy, or `None` when nothing needs it (no copy on the usual call).
    pub(crate) fn normalized_arguments(&self, args: &JsonObject) -> Option<JsonObject> {
        let mut copy: Option<JsonObject> = None;
        for (name, schema) in &self.arg_schemas {
            let integer = match schema.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            if let Some(n) = args
                .get(name)
                .filter(|v| integer && v.is_f64())
                .and_then(whole)
            {
                copy.get_or_insert_with(|| args.clone())
                    .insert(name.clone(), n);
            }
        }
        copy
    }

    /// The engine's `inputRequests` text as rmcp's typed requests, and their names in
    /// declaration order. A form question's schema is parsed once ([`Declared::schema`]);
    /// other kinds go through rmcp's deserializer.
    pub(crate) fn input_requests(
        &self,
        text: &str,
    ) -> Result<(InputRequests, Vec<String>), String> {
        #[derive(serde::Deserialize)]
        struct Form<'a> {
            #[serde(borrow)]
            params: FormParams<'a>,
        }
        #[derive(serde::Deserialize)]
        struct FormParams<'a> {
            message: String,
            #[serde(rename = "requestedSchema", borrow)]
            schema: &'a RawValue,
        }
        let mut batch: HashMap<String, &RawValue> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut requests = InputRequests::new();
        let mut order = Vec::with_capacity(batch.len());
        // The engine asks in the plan's resolution order.
        for i in self.plan().resolution_order() {
            let Some((param, raw)) = self.plan().name(i).and_then(|n| batch.remove_entry(n)) else {
                continue;
            };
            let request = match self.plan().kind(i) {
                Some(InputKind::Form) => serde_json::from_str(raw.get()).and_then(|f: Form<'_>| {
                    Ok(InputRequest::Elicitation(ElicitRequest::new(
                        ElicitRequestParams::FormElicitationParams {
                            meta: None,
                            message: f.params.message,
                            requested_schema: self.schema(f.params.schema.get())?,
                        },
                    )))
                }),
                _ => serde_json::from_str(raw.get()),
            }
            .map_err(|e| format!("question for {param:?} is not a valid input request: {e}"))?;
            order.push(param.clone());
            requests.insert(param, request);
        }
        Ok((requests, order))
    }

    /// rmcp's form schema of the engine's `requestedSchema` text, remembered (up to
    /// [`SCHEMA_MEMO`] distinct schemas per declaration).
    pub(crate) fn schema(&self, text: &str) -> Result<ElicitationSchema, serde_json::Error> {
        if let Some(s) = self.schemas.read().ok().and_then(|m| m.get(text).cloned()) {
            return Ok(s);
        }
        let schema: ElicitationSchema = serde_json::from_str(text)?;
        if let Ok(mut memo) = self.schemas.write() {
            if memo.len() < SCHEMA_MEMO {
                memo.insert(text.into(), schema.clone());
            }
        }
        Ok(schema)
    }

    /// Model arguments against the declaration: no unknown names, every declared one
    /// present, of its schema's `type`. The message is the caller-facing error.
    pub(crate) fn check_arguments(
        &self,
        kind: &str,
        target: &str,
        args: &JsonObject,
    ) -> Result<(), String> {
        for key in args.keys() {
            // An elicited parameter that falls back may come as an argument
            // (docs/fallback.md).
            let known = self
                .plan()
                .index_of(key)
                .is_some_and(|i| !self.plan().is_elicited(i) || self.plan().falls_back(i));
            if !known {
                return Err(format!(
                    "Unexpected argument {} for {kind} {}",
                    PyRepr(key),
                    PyRepr(target)
                ));
            }
        }
        for name in self.arguments() {
            let Some(v) = args.get(name) else {
                return Err(format!(
                    "Missing required argument {} for {kind} {}",
                    PyRepr(name),
                    PyRepr(target)
                ));
            };
            let schema = self.arg_schemas.iter().find(|(n, _)| n == name);
            if let Some(ty) = schema
                .and_then(|(_, s)| s.get("type"))
                .and_then(Value::as_str)
            {
                if !json_type_matches(ty, v) {
                    return Err(format!(
                        "Argument {} of {kind} {} must be of type {ty}",
                        PyRepr(name),
                        PyRepr(target)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A whole number written as a float (`5.0`) as an integer.
fn whole(v: &Value) -> Option<Value> {
    let f = v
        .as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)?;
    Some(json!(f as i64))
}

pub(crate) fn json_type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}
