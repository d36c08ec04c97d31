//! A resolver's question, `{"message": "...", "type"?: <type>, "title"?: "...",
//! "description"?: "..."}`: checked and read in one pass, then turned into the question the
//! round renders.

use crate::error::Problem;
use crate::json::{scan_value_in, skip_ws_at, walk_object, Str, Value};
use crate::types::Ty;

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
/// question (surrounding whitespace trimmed) and its fields. Not JSON comes first, then
/// not an object, then a key outside the four.
pub(crate) fn scan_question(text: &str) -> Result<(Value<'_>, QuestionFields<'_>), Problem> {
    let b = text.as_bytes();
    let start = skip_ws_at(b, 0);
    if b.get(start) != Some(&b'{') {
        return Err(match Value::parse(text) {
            Ok(_) => QUESTION_NOT_OBJECT,
            Err(_) => QUESTION_NOT_JSON,
        });
    }
    match scan_question_compact(text, start) {
        Some(read) => Ok(read),
        None => scan_question_any(text, start),
    }
}

/// [`scan_question`] for a question object (at `start`) in any form.
fn scan_question_any(text: &str, start: usize) -> Result<(Value<'_>, QuestionFields<'_>), Problem> {
    let b = text.as_bytes();
    let mut f = QuestionFields::default();
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
    let v = text
        .get(start..end)
        .map(Value::validated)
        .ok_or(QUESTION_NOT_JSON)?;
    Ok((v, f))
}

/// The common form of a question, `{"message":"…"}` at `start` (whitespace after it
/// only), read without walking its keys; `None` for any other form.
fn scan_question_compact(text: &str, start: usize) -> Option<(Value<'_>, QuestionFields<'_>)> {
    const MESSAGE: &[u8] = b"{\"message\":\"";
    let b = text.as_bytes();
    if b.get(start..start + MESSAGE.len())? != MESSAGE {
        return None;
    }
    let (m, end) = scan_value_in(text, start + MESSAGE.len() - 1, 1).ok()?;
    if b.get(end) != Some(&b'}') || skip_ws_at(b, end + 1) != b.len() {
        return None;
    }
    let f = QuestionFields {
        message: Some(m),
        ..QuestionFields::default()
    };
    Some((Value::validated(text.get(start..end + 1)?), f))
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
    let (_, f) = scan_question(v.raw())?;
    question_parts(f, param_ty)
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
            let show = |r: Option<(crate::json::Value<'_>, super::QuestionFields<'_>)>| {
                r.map(|(v, f)| format!("{} {:?}", v.raw(), f.message.map(|m| m.raw())))
            };
            let general = super::scan_question_any(q, start)
                .ok()
                .map(|(v, f)| format!("{} {:?}", v.raw(), f.message.map(|m| m.raw())));
            if let Some(c) = show(super::scan_question_compact(q, start)) {
                assert_eq!(Some(c), general, "{q}");
            }
        }
        assert!(super::scan_question_compact(r#"{"message":"A?"}"#, 0).is_some());
    }
}
