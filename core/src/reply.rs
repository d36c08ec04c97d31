//! Replies: the call's `inputResponses` and the handshake era's ElicitResult.
//!
//! Each entry is classified the way the MCP types' union resolves it: an ElicitResult, a
//! CreateMessageResult, a ListRootsResult, or no InputResponse at all (an error of the
//! whole call). Whether a reply answers the parameter it is keyed to (the right result for
//! the kind of request that asked it) is the round's decision.

use crate::error::{name, Error, Problem};
use crate::json::{
    scan_value, scan_value_in, scan_value_object, skip_ws_at, walk_object, JsonError, Kind, Str,
    Value,
};
use crate::state::{compact_action, Action};

/// How a reply in `inputResponses` parsed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reply<'a> {
    /// An ElicitResult: its action and its content (`None` when absent or null).
    /// `wrapped`: the content was read in the form `{"value":<scalar>}`, so checking it
    /// need not look for its `value` again (see [`crate::state::Recorded`]).
    Elicit {
        action: Action,
        content: Option<Value<'a>>,
        wrapped: bool,
    },
    /// A CreateMessageResult (the whole result).
    Sampling(Value<'a>),
    /// A ListRootsResult (the whole result).
    Roots(Value<'a>),
}

/// The members of an InputResponse that decide its kind (a repeated key keeps its last
/// value).
#[derive(Debug, Default, Clone, Copy)]
struct ReplyParts<'a> {
    action: Option<Value<'a>>,
    content: Option<Value<'a>>,
    roots: Option<Value<'a>>,
    role: Option<Value<'a>>,
    model: Option<Value<'a>>,
    /// Whether `content` (an object) was seen to hold flat fields only, when that was
    /// checked while it was validated.
    content_flat: Option<bool>,
}

/// A content field an ElicitResult may carry: a scalar or an array of strings.
fn flat_field(x: Value<'_>) -> bool {
    match x.kind() {
        Kind::String | Kind::Number | Kind::Bool | Kind::Null => true,
        Kind::Array => x.items().all(|i| i.kind() == Kind::String),
        Kind::Object => false,
    }
}

impl<'a> ReplyParts<'a> {
    fn take(&mut self, k: Str<'_>, x: Value<'a>) {
        match k.which(&["action", "content", "roots", "role", "model"]) {
            Some(0) => self.action = Some(x),
            Some(1) => {
                self.content = Some(x);
                self.content_flat = None;
            }
            Some(2) => self.roots = Some(x),
            Some(3) => self.role = Some(x),
            Some(4) => self.model = Some(x),
            _ => {}
        }
    }

    /// The kind the MCP types' union resolves these members (of `whole`) to.
    fn classify(self, whole: Value<'a>) -> Option<Reply<'a>> {
        if let Some(action) = self.action {
            let action = Action::parse(action)?;
            let content = match self.content {
                None => None,
                Some(c) if c.is_null() => None,
                Some(c) if c.kind() == Kind::Object => {
                    let flat = match self.content_flat {
                        Some(flat) => flat,
                        None => c.members().all(|(_, x)| flat_field(x)),
                    };
                    if !flat {
                        return None;
                    }
                    Some(c)
                }
                Some(_) => return None,
            };
            return Some(Reply::Elicit {
                action,
                content,
                wrapped: false,
            });
        }
        if let Some(roots) = self.roots {
            let ok = roots.kind() == Kind::Array
                && roots
                    .items()
                    .all(|r| r.get("uri").is_some_and(|u| u.kind() == Kind::String));
            return ok.then_some(Reply::Roots(whole));
        }
        let is_str = |x: Option<Value<'_>>| x.is_some_and(|x| x.kind() == Kind::String);
        let content_ok = self
            .content
            .is_some_and(|c| matches!(c.kind(), Kind::Object | Kind::Array));
        if is_str(self.role) && content_ok && is_str(self.model) {
            return Some(Reply::Sampling(whole));
        }
        None
    }
}

/// Classify one InputResponse (validated JSON) the way the MCP types' union resolves it.
pub(crate) fn classify_reply(v: Value<'_>) -> Option<Reply<'_>> {
    if v.kind() != Kind::Object {
        return None;
    }
    let mut parts = ReplyParts::default();
    for (k, x) in v.members() {
        parts.take(k, x);
    }
    parts.classify(v)
}

/// Validate the InputResponse at `at` in `text` (inside `open` containers) and classify it
/// in the same pass: the index after it, and its kind (`None`: no InputResponse shape).
fn scan_reply(text: &str, at: usize, open: usize) -> Result<(usize, Option<Reply<'_>>), JsonError> {
    if let Some((end, reply)) = scan_reply_compact(text, at, open) {
        return Ok((end, Some(reply)));
    }
    scan_reply_any(text, at, open)
}

/// An ElicitResult in the form clients send it, `{"action":"…"}` or
/// `{"action":"…","content":{…}}` with no whitespace and flat content, read without
/// walking its keys (the same validation, the same result). `None` for any other form,
/// which [`scan_reply_any`] then reads (and reports, if it is not JSON).
fn scan_reply_compact(text: &str, at: usize, open: usize) -> Option<(usize, Reply<'_>)> {
    const CONTENT: &[u8] = b",\"content\":{";
    let b = text.as_bytes();
    let (p, action) = compact_action(b, at)?;
    if b.get(p) == Some(&b'}') {
        return Some((
            p + 1,
            Reply::Elicit {
                action,
                content: None,
                wrapped: false,
            },
        ));
    }
    if b.get(p..p + CONTENT.len())? != CONTENT {
        return None;
    }
    let start = p + CONTENT.len() - 1;
    let mut flat = true;
    // A scalar `value` alone (the common content) is flat: no walk.
    let (end, wrapped) = match scan_value_object(b, start, open + 1) {
        Some(end) => (end, true),
        None => {
            let end = walk_object(text, start, open + 1, &mut |_, f| {
                let (x, end) = scan_value_in(text, f, open + 2)?;
                flat &= flat_field(x);
                Ok(end)
            })
            .ok()?;
            (end, false)
        }
    };
    if !flat || b.get(end) != Some(&b'}') {
        return None;
    }
    let content = Value::validated(text.get(start..end)?);
    Some((
        end + 1,
        Reply::Elicit {
            action,
            content: Some(content),
            wrapped,
        },
    ))
}

/// [`scan_reply`] for an InputResponse in any form.
fn scan_reply_any(
    text: &str,
    at: usize,
    open: usize,
) -> Result<(usize, Option<Reply<'_>>), JsonError> {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'{') {
        return Ok((scan_value(b, at, open)?, None));
    }
    let mut parts = ReplyParts::default();
    let end = walk_object(text, at, open, &mut |k, p| {
        if b.get(p) == Some(&b'{') && k.raw() == "content" {
            // Check the fields are flat while validating them.
            let mut flat = true;
            let end = walk_object(text, p, open + 1, &mut |_, f| {
                let (x, end) = scan_value_in(text, f, open + 2)?;
                flat &= flat_field(x);
                Ok(end)
            })?;
            parts.take(k, Value::validated(text.get(p..end).unwrap_or("{}")));
            parts.content_flat = Some(flat);
            return Ok(end);
        }
        let (x, end) = scan_value_in(text, p, open + 1)?;
        parts.take(k, x);
        Ok(end)
    })?;
    let whole = Value::validated(text.get(at..end).unwrap_or("{}"));
    Ok((end, parts.classify(whole)))
}

/// Read the call's `inputResponses` object (raw JSON text): validate it, classify each
/// entry and hand it to `each` with its key, in one pass. A repeated key is handed over
/// again (the last one wins, as in a Python dict). `null` holds no replies.
///
/// Errors ([`Error::InputResponses`], the protocol layer's `-32602`): not JSON (which
/// wins, as parsing comes first), not an object, or an entry of no InputResponse shape
/// (the first such key is named).
pub(crate) fn read_replies<'a>(
    text: &'a str,
    each: &mut impl FnMut(Str<'a>, Reply<'a>),
) -> Result<(), Error> {
    let not_json = || Error::InputResponses {
        key: name(""),
        problem: Problem::NOT_JSON,
    };
    let b = text.as_bytes();
    let start = skip_ws_at(b, 0);
    if b.get(start) != Some(&b'{') {
        return match Value::parse(text) {
            Err(_) => Err(not_json()),
            Ok(v) if v.is_null() => Ok(()),
            Ok(_) => Err(Error::InputResponses {
                key: name(""),
                problem: Problem::NOT_KEYED_OBJECT,
            }),
        };
    }
    let mut first_bad: Option<Str<'a>> = None;
    let walked = walk_object(text, start, 0, &mut |k, p| {
        let (end, reply) = scan_reply(text, p, 1)?;
        match reply {
            Some(reply) => each(k, reply),
            None => first_bad = first_bad.or(Some(k)),
        }
        Ok(end)
    });
    if !matches!(walked, Ok(end) if skip_ws_at(b, end) == b.len()) {
        return Err(not_json());
    }
    if let Some(k) = first_bad {
        let mut key = name("");
        for u in k.units() {
            if key.push(char::from_u32(u).unwrap_or('\u{fffd}')).is_err() {
                break;
            }
        }
        return Err(Error::InputResponses {
            key,
            problem: Problem::NOT_INPUT_RESPONSE,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{scan_reply, scan_reply_any, scan_reply_compact, Reply};
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    fn show(r: Result<(usize, Option<Reply<'_>>), crate::json::JsonError>) -> String {
        match r {
            Ok((
                end,
                Some(Reply::Elicit {
                    action, content, ..
                }),
            )) => {
                format!("{end} {action:?} {:?}", content.map(|c| c.raw()))
            }
            Ok((end, Some(Reply::Sampling(v)))) => format!("{end} sampling {}", v.raw()),
            Ok((end, Some(Reply::Roots(v)))) => format!("{end} roots {}", v.raw()),
            Ok((end, None)) => format!("{end} none"),
            Err(e) => format!("{e:?}"),
        }
    }

    /// The compact reader, where it applies, reads exactly what the general one reads;
    /// and `scan_reply` agrees with the general reader on every reply, compact or not.
    #[test]
    fn compact_replies_read_as_any_reply() {
        let mut replies: Vec<String> = Vec::new();
        for action in ["accept", "decline", "cancel", "acc\\u0065pt", "nope"] {
            replies.push(format!(r#"{{"action":"{action}"}}"#));
            replies.push(format!(r#"{{"action":"{action}" }}"#));
            for content in [
                r#"{"value":"x"}"#,
                r#"{"value":-1.5}"#,
                r#"{"value":true}"#,
                r#"{"value":null}"#,
                r#"{"value":"\u00e9\""}"#,
                r#"{"value":["x"]}"#,
                r#"{"value":{"a":1}}"#,
                r#"{"value":"x","value":2}"#,
                r#"{"value":"x" }"#,
                r#"{"value":tru}"#,
                r#"{"value":"x"#,
                r#"{}"#,
                r#"{"a":1,"b":[ "x" ],"c":null,"d":true}"#,
                r#"{"a":{"b":1}}"#,
                r#"{"a":[1]}"#,
                r#"{"a":"#,
                r#"{"a":1,}"#,
                "null",
                "[1]",
                r#""s""#,
            ] {
                replies.push(format!(r#"{{"action":"{action}","content":{content}}}"#));
                replies.push(format!(
                    r#"{{"action":"{action}","content":{content},"content":{{}}}}"#
                ));
                replies.push(format!(r#"{{"action":"{action}","content":{content} }}"#));
                replies.push(format!(r#"{{"content":{content},"action":"{action}"}}"#));
                replies.push(format!(
                    r#"{{"action":"{action}","content":{content},"x":1}}"#
                ));
            }
        }
        // Every third under miri (minutes for all); every one natively.
        for r in replies.iter().step_by(if cfg!(miri) { 3 } else { 1 }) {
            for tail in ["", "}", ",1]", " "] {
                let text = format!("{r}{tail}");
                let any = show(scan_reply_any(&text, 0, 1));
                assert_eq!(show(scan_reply(&text, 0, 1)), any, "{text}");
                if let Some((end, reply)) = scan_reply_compact(&text, 0, 1) {
                    assert_eq!(show(Ok((end, Some(reply)))), any, "{text}");
                    // Content it found wrapped has the `value` the general lookup finds.
                    if let Reply::Elicit {
                        content: Some(c),
                        wrapped: true,
                        ..
                    } = reply
                    {
                        assert_eq!(
                            c.wrapped_value().map(|v| v.raw()),
                            c.get_value().map(|v| v.raw()),
                            "{text}"
                        );
                    }
                }
            }
        }
        assert!(scan_reply_compact(r#"{"action":"accept","content":{"value":1}}"#, 0, 1).is_some());
        assert!(scan_reply_compact(r#"{"action":"decline"}"#, 0, 1).is_some());
    }
}
