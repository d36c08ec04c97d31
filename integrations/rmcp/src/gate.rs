//! Capability gating: a question goes out only to a client that declared the capability
//! its kind needs (`-32021` otherwise, as the MCP Python SDK answers).

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::{json, Value};

use crate::py_repr;

/// JSON-RPC code of "Missing Required Client Capability".
pub const MISSING_CAPABILITY: i32 = -32021;

/// Form elicitation counts as declared when `elicitation` is present and has `form`, or
/// has no `url` (the pre-modes shape `elicitation: {}`), as the MCP Python SDK decides.
pub fn declares_form_elicitation(caps: &Value) -> bool {
    match caps.get("elicitation") {
        Some(Value::Object(e)) => e.contains_key("form") || !e.contains_key("url"),
        Some(Value::Null) | None => false,
        Some(_) => true,
    }
}

/// The capability a question (`{"method", "params"}`) needs: its name in messages,
/// whether `caps` declares it, and the `requiredCapabilities` object to report.
pub fn required_capability(caps: &Value, request: &Value) -> (&'static str, bool, Value) {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let mode = request
        .get("params")
        .and_then(|p| p.get("mode"))
        .and_then(Value::as_str)
        .unwrap_or("form");
    let has = |key: &str| caps.get(key).is_some_and(|v| !v.is_null());
    match (method, mode) {
        ("elicitation/create", "url") => (
            "url elicitation",
            caps.get("elicitation")
                .and_then(|e| e.get("url"))
                .is_some_and(|v| !v.is_null()),
            json!({"elicitation": {"url": {}}}),
        ),
        ("sampling/createMessage", _) => ("sampling", has("sampling"), json!({"sampling": {}})),
        ("roots/list", _) => ("roots", has("roots"), json!({"roots": {}})),
        _ => (
            "form elicitation",
            declares_form_elicitation(caps),
            json!({"elicitation": {"form": {}}}),
        ),
    }
}

/// Check one question for parameter `param` against the client's capabilities
/// (`version`: the handshake era's negotiated version, where elicitation exists from
/// 2025-06-18 on). `Err` is the `-32021` to answer.
pub(crate) fn check(
    caps: &Value,
    version: Option<&str>,
    param: &str,
    request: &Value,
) -> Result<(), ErrorData> {
    let (what, declared, required) = required_capability(caps, request);
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let too_old = method == "elicitation/create" && version.is_some_and(|v| v < "2025-06-18");
    if declared && !too_old {
        return Ok(());
    }
    Err(ErrorData::new(
        ErrorCode(MISSING_CAPABILITY),
        format!(
            "Client did not declare the {what} capability required by resolver {}",
            py_repr(param)
        ),
        Some(json!({ "requiredCapabilities": required })),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form_q() -> Value {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": "m"}})
    }

    #[test]
    fn form_rule_matches_the_sdk() {
        assert!(declares_form_elicitation(&json!({"elicitation": {}})));
        assert!(declares_form_elicitation(
            &json!({"elicitation": {"form": {}}})
        ));
        assert!(declares_form_elicitation(
            &json!({"elicitation": {"form": {}, "url": {}}})
        ));
        assert!(!declares_form_elicitation(
            &json!({"elicitation": {"url": {}}})
        ));
        assert!(!declares_form_elicitation(&json!({})));
    }

    #[test]
    fn missing_form_capability_is_32021_naming_the_parameter() {
        let e = check(&json!({}), None, "name", &form_q()).unwrap_err();
        assert_eq!(e.code.0, -32021);
        assert_eq!(
            e.message,
            "Client did not declare the form elicitation capability required by resolver 'name'"
        );
        assert_eq!(
            e.data,
            Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
        );
        assert!(check(&json!({"elicitation": {}}), None, "name", &form_q()).is_ok());
        // Before 2025-06-18 there is no elicitation/create, whatever was declared.
        assert!(check(
            &json!({"elicitation": {}}),
            Some("2025-03-26"),
            "name",
            &form_q()
        )
        .is_err());
    }

    #[test]
    fn other_kinds_need_their_own_capability() {
        let sampling = json!({"method": "sampling/createMessage", "params": {}});
        assert!(check(&json!({"elicitation": {}}), None, "s", &sampling).is_err());
        assert!(check(&json!({"sampling": {}}), None, "s", &sampling).is_ok());
        let url = json!({"method": "elicitation/create", "params": {"mode": "url"}});
        assert!(check(&json!({"elicitation": {}}), None, "u", &url).is_err());
        assert!(check(&json!({"elicitation": {"url": {}}}), None, "u", &url).is_ok());
        let roots = json!({"method": "roots/list"});
        assert!(check(&json!({"roots": {}}), None, "r", &roots).is_ok());
    }
}
