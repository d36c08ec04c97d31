//! Questions: what a parameter asks, its digest, and its request params.
//!
//! - A form question (`{"message": "...", "type"?: <type>, "title"?: "...",
//!   "description"?: "..."}` from a resolver; the same fields fixed in a declaration) is
//!   checked and read in one pass, then turned into the question the round renders.
//! - The other kinds' questions (see [`crate::input`]) have the shape of the `elicit`
//!   object that declares them literally: `{"message": "...", "url": "..."}` (URL mode),
//!   `{"sampling": {CreateMessageRequest params}}`, `{"roots": {ListRootsRequest params}}`.
//! - Every kind is digested by the same formula: SHA-256 over its request params with
//!   sorted keys and ASCII escapes (the reference's `_digest`), first 16 bytes.

use crate::digest::{self, QDigest};
use crate::error::Problem;
use crate::input::InputKind;
use crate::json::{
    put_json_str_contents, scan_value_in, skip_ws_at, walk_object, write_json_str, write_value,
    Kind, Number, Sink, Str, Style, Value,
};
use crate::types::{Render, Ty, MODE_LEN, PARAMS_TAIL_HEAD, SCHEMA_AT};

/// A question as the round renders it: its message, answer type and labels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Question<'a> {
    /// The message (raw JSON string contents).
    pub message: Str<'a>,
    /// The answer type (the parameter's, unless the question types it).
    pub ty: Ty<'a>,
    /// A wrapped type's title.
    pub title: Option<Str<'a>>,
    /// A wrapped type's description.
    pub description: Option<Str<'a>>,
}

const QUESTION_NOT_OBJECT: Problem = Problem::QUESTION_NOT_OBJECT;
const QUESTION_UNKNOWN_KEY: Problem = Problem::QUESTION_UNKNOWN_KEY;

const QUESTION_NOT_JSON: Problem = Problem::QUESTION_NOT_JSON;

/// A question's members, by name (the last occurrence of a key wins).
#[derive(Clone, Copy, Default)]
pub(crate) struct QuestionFields<'a> {
    pub message: Option<Value<'a>>,
    pub ty: Option<Value<'a>>,
    pub title: Option<Value<'a>>,
    pub description: Option<Value<'a>>,
}

/// Validate a resolver's question text and read its members in the same pass: the
/// question (surrounding whitespace trimmed), its fields written into `f` (which the
/// caller starts empty). Not JSON comes first, then not an object, then a key outside the
/// four.
///
/// The fields go into the caller's memory rather than back by value: a returned
/// `(Value, QuestionFields)` is read back right after the callee's stores, a
/// store-forwarding stall once per resolver question (PERF.md).
pub(crate) fn scan_question<'t>(
    text: &'t str,
    f: &mut QuestionFields<'t>,
) -> Result<Value<'t>, Problem> {
    let b = text.as_bytes();
    let start = skip_ws_at(b, 0);
    if b.get(start) != Some(&b'{') {
        return Err(match Value::parse(text) {
            Ok(_) => QUESTION_NOT_OBJECT,
            Err(_) => QUESTION_NOT_JSON,
        });
    }
    match scan_question_compact(text, start, f) {
        Some(read) => Ok(read),
        None => scan_question_any(text, start, f),
    }
}

/// [`scan_question`] for a question object (at `start`) in any form.
fn scan_question_any<'t>(
    text: &'t str,
    start: usize,
    f: &mut QuestionFields<'t>,
) -> Result<Value<'t>, Problem> {
    let b = text.as_bytes();
    let mut unknown = false;
    let walked = walk_object(text, start, 0, &mut |k, p| {
        let (x, end) = scan_value_in(text, p, 1)?;
        let slot = match k.which(&["message", "type", "title", "description"]) {
            Some(0) => &mut f.message,
            Some(1) => &mut f.ty,
            Some(2) => &mut f.title,
            Some(3) => &mut f.description,
            _ => {
                unknown = true;
                return Ok(end);
            }
        };
        *slot = Some(x);
        Ok(end)
    });
    let end = match walked {
        Ok(end) if skip_ws_at(b, end) == b.len() => end,
        _ => return Err(QUESTION_NOT_JSON),
    };
    if unknown {
        return Err(QUESTION_UNKNOWN_KEY);
    }
    text.get(start..end)
        .map(Value::validated)
        .ok_or(QUESTION_NOT_JSON)
}

/// The common form of a question, `{"message":"…"}` at `start` (whitespace after it
/// only), read without walking its keys; `None` (and `f` untouched) for any other form.
fn scan_question_compact<'t>(
    text: &'t str,
    start: usize,
    f: &mut QuestionFields<'t>,
) -> Option<Value<'t>> {
    const MESSAGE: &[u8] = b"{\"message\":\"";
    let b = text.as_bytes();
    if b.get(start..start + MESSAGE.len())? != MESSAGE {
        return None;
    }
    let (m, end) = scan_value_in(text, start + MESSAGE.len() - 1, 1).ok()?;
    if b.get(end) != Some(&b'}') || skip_ws_at(b, end + 1) != b.len() {
        return None;
    }
    let v = Value::validated(text.get(start..end + 1)?);
    f.message = Some(m);
    Some(v)
}

/// A question from its fields (the answer type is the parameter's unless the question
/// types it), and whether it carried its own type.
pub(crate) fn question_parts<'a>(
    f: QuestionFields<'a>,
    param_ty: &Ty<'a>,
) -> Result<(Question<'a>, bool), Problem> {
    let message = f
        .message
        .and_then(|m| m.as_str())
        .ok_or(Problem::QUESTION_MESSAGE)?;
    let (ty, typed) = match f.ty {
        None => (*param_ty, false),
        Some(t) if t.is_null() => (*param_ty, false),
        Some(t) => (Ty::compile(t, false)?, true),
    };
    let opt = |x: Option<Value<'a>>| -> Result<Option<Str<'a>>, Problem> {
        match x {
            None => Ok(None),
            Some(x) if x.is_null() => Ok(None),
            Some(x) => x
                .as_str()
                .map(Some)
                .ok_or(Problem::QUESTION_LABELS_NOT_STRINGS),
        }
    };
    let title = opt(f.title)?;
    let description = opt(f.description)?;
    if (title.is_some() || description.is_some()) && !ty.wrapped() {
        return Err(Problem::QUESTION_LABELS);
    }
    let question = Question {
        message,
        ty,
        title,
        description,
    };
    Ok((question, typed))
}

/// The parts of a question already checked (a resolver's question, re-read from the
/// workspace).
pub(crate) fn parse_question<'a>(
    v: Value<'a>,
    param_ty: &Ty<'a>,
) -> Result<(Question<'a>, bool), Problem> {
    let mut f = QuestionFields::default();
    scan_question(v.raw(), &mut f)?;
    question_parts(f, param_ty)
}

/// The digest of a question (the reference's `_digest` of its request params, first 16
/// bytes): SHA-256 over the params' digest form. `ascii`: as [`write_params`].
pub(crate) fn question_digest(
    message: Str<'_>,
    ascii: bool,
    ty: &Ty<'_>,
    title: Option<Str<'_>>,
    description: Option<Str<'_>>,
    out: &mut QDigest,
) {
    digest::question(
        |h| write_params(message, ascii, ty, title, description, Render::DIGEST, h),
        out,
    )
}

/// The ElicitRequest params: digest form (`{"message","mode","requestedSchema"}` sorted,
/// ASCII) or wire form (`{"mode","message","requestedSchema"}`, UTF-8). `ascii`: the
/// caller has checked that the message renders as it is in both (no escape, nothing past
/// `~`; `json_contents_ascii`), so it goes out whole, unscanned; `false` when not known.
pub(crate) fn write_params(
    message: Str<'_>,
    ascii: bool,
    ty: &Ty<'_>,
    title: Option<Str<'_>>,
    description: Option<Str<'_>>,
    render: Render,
    out: &mut dyn Sink,
) {
    // The message's quotes go with the text around it (a sink's cost is per call).
    // Sorted (the digest form), and the MCP SDK's 2026-07-28 wire model serializes
    // `message` first too.
    let message_first = render.digest || render.client_view;
    out.put(if message_first {
        b"{\"message\":\""
    } else {
        b"{\"mode\":\"form\",\"message\":\""
    });
    if ascii {
        out.put(message.raw().as_bytes());
    } else {
        put_json_str_contents(message, render.digest, out);
    }
    // Then `","mode":"form","requestedSchema":` (without `mode` when it went first) and
    // the schema: a shorthand scalar's in two writes.
    let from = if message_first { 0 } else { MODE_LEN };
    let shorthand = match (title, description) {
        (None, None) => ty.shorthand_tail(),
        _ => None,
    };
    match shorthand {
        Some(tail) => {
            out.put(PARAMS_TAIL_HEAD.get(from..).unwrap_or_default());
            out.put(tail);
        }
        None => {
            out.put(PARAMS_TAIL_HEAD.get(from..SCHEMA_AT).unwrap_or_default());
            ty.write_schema(title, description, render, out);
            out.put(b"}");
        }
    }
}

/// A question of any kind, as the round renders it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Request<'a> {
    /// A form question.
    Form(Question<'a>),
    /// A URL-mode elicitation.
    Url { message: Str<'a>, url: Str<'a> },
    /// A sampling or roots request: its params.
    Params(Value<'a>),
}

impl<'a> Request<'a> {
    /// Write the request's params: `render` says digest or wire form (and, for a form,
    /// whether the client view drops the schema's title); `elicitation_id` is added to a
    /// URL-mode request's wire params (the handshake era's `elicitationId`).
    #[inline]
    pub(crate) fn write_params(
        &self,
        render: Render,
        elicitation_id: Option<&[u8]>,
        out: &mut dyn Sink,
    ) {
        // By reference: a form question is large, and copying it costs more than the
        // dispatch.
        match self {
            Request::Form(q) => {
                write_params(q.message, false, &q.ty, q.title, q.description, render, out)
            }
            // Only form questions exist without `input-kinds` (the other arms drop out).
            _ if !cfg!(feature = "input-kinds") => {}
            Request::Url { message, url } => {
                write_url_params(*message, *url, render.digest, elicitation_id, out)
            }
            Request::Params(params) => write_value(
                *params,
                if render.digest {
                    Style::DIGEST
                } else {
                    Style::WIRE
                },
                out,
            ),
        }
    }

    /// The digest of the request: SHA-256 over its params' digest form (sorted keys,
    /// ASCII escapes), first 16 bytes — one formula for every kind.
    pub(crate) fn digest(&self) -> QDigest {
        let mut out = [0; 22];
        digest::question(|h| self.write_params(Render::DIGEST, None, h), &mut out);
        out
    }

    /// The message shown to the user (form and URL mode).
    pub(crate) fn message(&self) -> Option<Str<'a>> {
        match *self {
            Request::Form(q) => Some(q.message),
            Request::Url { message, .. } => Some(message),
            Request::Params(_) => None,
        }
    }
}

/// A URL-mode request's params: digest form `{"message","mode","url"}` (sorted, ASCII),
/// wire form `{"mode":"url","message","url"}` (UTF-8, with `elicitationId` when given).
fn write_url_params(
    message: Str<'_>,
    url: Str<'_>,
    digest: bool,
    elicitation_id: Option<&[u8]>,
    out: &mut dyn Sink,
) {
    if digest {
        out.put(b"{\"message\":");
        write_json_str(message, true, out);
        out.put(b",\"mode\":\"url\",\"url\":");
        write_json_str(url, true, out);
    } else {
        out.put(b"{\"mode\":\"url\",\"message\":");
        write_json_str(message, false, out);
        out.put(b",\"url\":");
        write_json_str(url, false, out);
        if let Some(id) = elicitation_id {
            out.put(b",\"elicitationId\":\"");
            out.put(id);
            out.put(b"\"");
        }
    }
    out.put(b"}");
}

/// Keys a CreateMessageRequest's params may have (MCP 2026-07-28).
const SAMPLING_KEYS: &[&str] = &[
    "messages",
    "maxTokens",
    "systemPrompt",
    "modelPreferences",
    "includeContext",
    "temperature",
    "stopSequences",
    "metadata",
    "tools",
    "toolChoice",
    "_meta",
];

/// Check a sampling or roots request's params: a CreateMessageRequest's params need
/// `messages` (a non-empty array of `{"role": "user"|"assistant", "content": ...}`) and a
/// positive integer `maxTokens`, and take only the keys MCP defines; a ListRootsRequest's
/// params are an object with at most `_meta`. Form and URL questions are checked where
/// they are read.
pub(crate) fn check_request_params(kind: InputKind, v: Value<'_>) -> Result<(), Problem> {
    match kind {
        InputKind::Sampling => {
            let bad = Problem::SAMPLING_PARAMS;
            if v.kind() != Kind::Object
                || v.members().any(|(k, _)| k.which(SAMPLING_KEYS).is_none())
            {
                return Err(bad);
            }
            let messages = v
                .get("messages")
                .filter(|m| m.kind() == Kind::Array && !m.is_empty())
                .ok_or(bad)?;
            let message_ok = |m: Value<'_>| {
                let role_ok = m
                    .get("role")
                    .and_then(|r| r.as_str())
                    .is_some_and(|r| r.eq_str("user") || r.eq_str("assistant"));
                let content_ok = m
                    .get("content")
                    .is_some_and(|c| matches!(c.kind(), Kind::Object | Kind::Array));
                m.kind() == Kind::Object && role_ok && content_ok
            };
            if !messages.items().all(message_ok) {
                return Err(bad);
            }
            match v.get("maxTokens").and_then(|t| t.as_number()) {
                Some(Number::Int(t)) if !t.starts_with('-') && t.bytes().any(|c| c != b'0') => {
                    Ok(())
                }
                _ => Err(bad),
            }
        }
        InputKind::Roots => {
            if v.kind() == Kind::Object && v.members().all(|(k, _)| k.eq_str("_meta")) {
                Ok(())
            } else {
                Err(Problem::ROOTS_PARAMS)
            }
        }
        InputKind::Form | InputKind::Url => Ok(()),
    }
}

/// Check a resolver's question of a kind other than form (see the module docs) and
/// compute its digest: the question (surrounding whitespace trimmed) and the digest.
pub(crate) fn scan_request<'a>(
    kind: InputKind,
    text: &'a str,
    param_ty: &Ty<'a>,
) -> Result<(Value<'a>, QDigest), Problem> {
    let v = Value::parse(text).map_err(|_| Problem::QUESTION_NOT_JSON)?;
    Ok((v, read_request(kind, v, param_ty)?.digest()))
}

/// Read a resolver's question of `kind` (a form question's type defaults to
/// `param_ty`).
pub(crate) fn read_request<'a>(
    kind: InputKind,
    v: Value<'a>,
    param_ty: &Ty<'a>,
) -> Result<Request<'a>, Problem> {
    let only = |key: &str| v.kind() == Kind::Object && v.members().all(|(k, _)| k.eq_str(key));
    match kind {
        InputKind::Url => {
            let shape = v.kind() == Kind::Object
                && v.members()
                    .all(|(k, _)| k.eq_str("message") || k.eq_str("url"));
            let message = v.get("message").and_then(|m| m.as_str());
            let url = v.get("url").and_then(|u| u.as_str());
            match (shape, message, url) {
                (true, Some(message), Some(url)) => Ok(Request::Url { message, url }),
                _ => Err(Problem::URL_QUESTION),
            }
        }
        InputKind::Sampling | InputKind::Roots => {
            let key = kind.as_str();
            let params = v.get(key).filter(|_| only(key)).ok_or(match kind {
                InputKind::Sampling => Problem::SAMPLING_QUESTION,
                _ => Problem::ROOTS_QUESTION,
            })?;
            check_request_params(kind, params)?;
            Ok(Request::Params(params))
        }
        InputKind::Form => parse_question(v, param_ty).map(|(q, _)| Request::Form(q)),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::format;

    /// A question in the common form reads as the general reader reads it.
    #[test]
    fn compact_questions_read_as_any_question() {
        for q in [
            r#"{"message":"A?"}"#,
            r#" {"message":"A\u0041\"?"}  "#,
            r#"{"message":""}"#,
            r#"{"message":1}"#,
            r#"{"message":"A?"} x"#,
            r#"{"message":"A?","message":"B"}"#,
            r#"{"message":"A?"}}"#,
            r#"{"message":"A?""#,
        ] {
            let start = crate::json::skip_ws_at(q.as_bytes(), 0);
            let show = |v: crate::json::Value<'_>, f: super::QuestionFields<'_>| {
                format!("{} {:?}", v.raw(), f.message.map(|m| m.raw()))
            };
            let mut f = super::QuestionFields::default();
            let general = super::scan_question_any(q, start, &mut f)
                .ok()
                .map(|v| show(v, f));
            let mut f = super::QuestionFields::default();
            match super::scan_question_compact(q, start, &mut f) {
                Some(v) => assert_eq!(Some(show(v, f)), general, "{q}"),
                // Not the common form: the fields are left as they were.
                None => assert!(f.message.is_none(), "{q}"),
            }
        }
        let mut f = super::QuestionFields::default();
        assert!(super::scan_question_compact(r#"{"message":"A?"}"#, 0, &mut f).is_some());
    }

    /// A message alone digested in one buffer (`digest::message_question`) has the digest
    /// the sink's writer gives it, for every shorthand type and every length up to where
    /// it takes a sixth block (then, and for any message that does not render as it is,
    /// it declines and leaves the digest alone).
    #[test]
    fn a_message_digested_in_one_buffer_is_the_sinks_digest() {
        use crate::types::{Ty, TypeKind};
        use std::vec::Vec;
        let printable: Vec<u8> = (0x20u8..0x7F)
            .filter(|&c| c != b'"' && c != b'\\')
            .collect();
        for kind in [
            TypeKind::String,
            TypeKind::Integer,
            TypeKind::Number,
            TypeKind::Boolean,
        ] {
            let ty = Ty::from_parts(kind, None, None).unwrap();
            let tail = ty.shorthand_params_tail().unwrap();
            let mut joined_some = false;
            // Every length natively; under miri every 23rd (and the block edges).
            for n in (0..330).filter(|n| !cfg!(miri) || n % 23 == 0 || (28..=34).contains(n)) {
                let message: Vec<u8> = (0..n)
                    .map(|i| printable[(i * 7 + n) % printable.len()])
                    .collect();
                let text = core::str::from_utf8(&message).unwrap();
                let mut want = [0u8; 22];
                super::question_digest(
                    crate::json::Str::validated(text),
                    true,
                    &ty,
                    None,
                    None,
                    &mut want,
                );
                let mut got = [b'?'; 22];
                let fits = 12 + n + tail.len() + 9 <= 5 * 64;
                assert_eq!(
                    crate::digest::message_question(&message, tail, &mut got),
                    fits,
                    "{kind:?} {n}"
                );
                if fits {
                    assert_eq!(got, want, "{kind:?} {n}");
                    joined_some = true;
                } else {
                    assert_eq!(got, [b'?'; 22]);
                }
                // A byte that does not render as it is, anywhere: declined, untouched.
                // Some twenty places, the last byte among them.
                for at in (0..n).step_by(n / 20 + 1).chain(n.checked_sub(1)) {
                    for bad in [b'"', b'\\', 0x00, 0x1F, 0x7F, 0x80, 0xFF] {
                        let mut m = message.clone();
                        m[at] = bad;
                        let mut got = [b'?'; 22];
                        assert!(!crate::digest::message_question(&m, tail, &mut got));
                        assert_eq!(got, [b'?'; 22]);
                    }
                }
            }
            assert!(joined_some);
        }
    }
}
