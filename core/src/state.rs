//! The plaintext `requestState`: `{"v":1,"answers":{name:{"action","data","q"}},"asked":{name:q}}`.
//!
//! The round reads a state in one pass while matching it to its parameters
//! (`Round::index`): all-or-nothing, as the reference's pydantic model is, so anything
//! that does not have exactly this shape is "no progress" (an empty state). Deviation from
//! the reference: `v` must be the JSON integer `1` (the reference also takes `"1"`,
//! `true`, `1.0`).

use crate::json::{scan_value, scan_value_in, walk_object, JsonError, Kind, Value};

/// What the user did with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Submitted content.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed.
    Cancel,
}

impl Action {
    pub(crate) fn parse(v: Value<'_>) -> Option<Action> {
        let s = v.as_str()?;
        match s.raw() {
            "accept" => return Some(Action::Accept),
            "decline" => return Some(Action::Decline),
            "cancel" => return Some(Action::Cancel),
            _ => {}
        }
        if s.eq_str("accept") {
            Some(Action::Accept)
        } else if s.eq_str("decline") {
            Some(Action::Decline)
        } else if s.eq_str("cancel") {
            Some(Action::Cancel)
        } else {
            None
        }
    }
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
}

/// One recorded answer read from a state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recorded<'a> {
    pub action: Action,
    /// `None` when `data` is absent or `null`.
    pub data: Option<Value<'a>>,
    pub q: Value<'a>,
}

impl<'a> Recorded<'a> {
    /// Validate one `answers` entry at `at` of `text` (`open` containers around it) and
    /// read it in the same pass: the index after it, and the entry when it is an object
    /// with a known `action` and a string `q`. A repeated key keeps its last value, as a
    /// Python dict does.
    pub(crate) fn scan(
        text: &'a str,
        at: usize,
        open: usize,
    ) -> Result<(usize, Option<Recorded<'a>>), JsonError> {
        if let Some((end, rec)) = Self::scan_compact(text, at, open) {
            return Ok((end, Some(rec)));
        }
        Self::scan_any(text, at, open)
    }

    /// [`Recorded::scan`] for an entry in any form.
    fn scan_any(
        text: &'a str,
        at: usize,
        open: usize,
    ) -> Result<(usize, Option<Recorded<'a>>), JsonError> {
        let b = text.as_bytes();
        if b.get(at) != Some(&b'{') {
            return Ok((scan_value(b, at, open)?, None));
        }
        let (mut action, mut data, mut q) = (None, None, None);
        let end = walk_object(text, at, open, &mut |k, p| {
            let (v, end) = scan_value_in(text, p, open + 1)?;
            match k.which(&["action", "data", "q"]) {
                Some(0) => action = Some(v),
                Some(1) => data = Some(v),
                Some(2) => q = Some(v),
                _ => {}
            }
            Ok(end)
        })?;
        let rec = (|| {
            Some(Recorded {
                action: Action::parse(action?)?,
                data: data.filter(|d: &Value<'_>| !d.is_null()),
                q: q.filter(|q: &Value<'_>| q.kind() == Kind::String)?,
            })
        })();
        Ok((end, rec))
    }
}

impl<'a> Recorded<'a> {
    /// An entry in the form this crate writes, `{"action":"…","data":…,"q":"…"}` with no
    /// whitespace, read without walking its keys (the same validation of `data` and
    /// `q`, the same result). `None` for any other form, which [`Recorded::scan`] then
    /// reads in general (and reports, if it is not JSON).
    fn scan_compact(text: &'a str, at: usize, open: usize) -> Option<(usize, Recorded<'a>)> {
        const DATA: &[u8] = b",\"data\":";
        let b = text.as_bytes();
        let (p, action) = compact_action(b, at)?;
        if b.get(p..p + DATA.len())? != DATA {
            return None;
        }
        let p = p + DATA.len();
        let (data, end) = scan_value_in(text, p, open + 1).ok()?;
        const Q: &[u8] = b",\"q\":";
        if b.get(end..end + Q.len())? != Q || b.get(end + Q.len()) != Some(&b'"') {
            return None;
        }
        let (q, end) = scan_value_in(text, end + Q.len(), open + 1).ok()?;
        if b.get(end) != Some(&b'}') {
            return None;
        }
        let data = Some(data).filter(|d| !d.is_null());
        Some((end + 1, Recorded { action, data, q }))
    }
}

/// An object opening with its `action` member, compactly: `{"action":"accept"` (or
/// `decline`, `cancel`) at `at`; the index after it and the action.
pub(crate) fn compact_action(b: &[u8], at: usize) -> Option<(usize, Action)> {
    const HEAD: &[u8] = b"{\"action\":\"";
    if b.get(at..at + HEAD.len())? != HEAD {
        return None;
    }
    let p = at + HEAD.len();
    [Action::Accept, Action::Decline, Action::Cancel]
        .into_iter()
        .find_map(|action| {
            let word = action.as_str().as_bytes();
            let end = p + word.len();
            (b.get(p..end)? == word && b.get(end) == Some(&b'"')).then_some((end + 1, action))
        })
}

/// True when a JSON string value equals the digest text (ASCII), compared decoded as a
/// Python dict would (a digest sent with escapes still matches).
pub(crate) fn q_matches(q: Value<'_>, digest: &[u8]) -> bool {
    q.as_str().is_some_and(|s| {
        let raw = s.raw().as_bytes();
        raw == digest
            || (raw.contains(&b'\\') && s.units().eq(digest.iter().map(|&c| u32::from(c))))
    })
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::Recorded;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    fn show(r: Result<(usize, Option<Recorded<'_>>), crate::json::JsonError>) -> String {
        match r {
            Ok((end, Some(r))) => format!(
                "{end} {:?} {:?} {:?}",
                r.action,
                r.data.map(|d| d.raw()),
                r.q.raw()
            ),
            Ok((end, None)) => format!("{end} none"),
            Err(e) => format!("{e:?}"),
        }
    }

    /// The compact reader, where it applies, reads exactly what the general one reads;
    /// and `scan` agrees with the general reader on every entry, compact or not.
    #[test]
    fn compact_entries_read_as_any_entry() {
        let mut entries: Vec<String> = Vec::new();
        for action in ["accept", "decline", "cancel", "acc\\u0065pt", "nope"] {
            for data in [
                "{\"value\":\"x\"}",
                "null",
                "{}",
                "[1,2]",
                "{\"a\":{\"b\":[]}}",
                "{\"value\":",
                "1e",
                "\"s\"",
            ] {
                for q in ["\"AbC-_\"", "\"\"", "1", "\"a\\u0041\"", "\"x"] {
                    entries.push(format!(
                        "{{\"action\":\"{action}\",\"data\":{data},\"q\":{q}}}"
                    ));
                    entries.push(format!(
                        "{{\"action\":\"{action}\",\"data\":{data},\"q\":{q},\"q\":\"z\"}}"
                    ));
                    entries.push(format!(
                        "{{\"action\":\"{action}\",\"data\":{data},\"q\":{q} }}"
                    ));
                    entries.push(format!(
                        "{{\"action\":\"{action}\", \"data\":{data},\"q\":{q}}}"
                    ));
                    entries.push(format!(
                        "{{\"data\":{data},\"action\":\"{action}\",\"q\":{q}}}"
                    ));
                }
            }
        }
        for e in &entries {
            for tail in ["", "}", ",1]", " "] {
                let text = format!("{e}{tail}");
                let any = show(Recorded::scan_any(&text, 0, 2));
                assert_eq!(show(Recorded::scan(&text, 0, 2)), any, "{text}");
                if let Some((end, rec)) = Recorded::scan_compact(&text, 0, 2) {
                    assert_eq!(show(Ok((end, Some(rec)))), any, "{text}");
                }
            }
        }
        // The compact form is taken for what this crate writes.
        assert!(
            Recorded::scan_compact(r#"{"action":"accept","data":{"value":1},"q":"Q"}"#, 0, 2)
                .is_some()
        );
        assert!(
            Recorded::scan_compact(r#"{"action":"cancel","data":null,"q":"Q"}"#, 0, 2).is_some()
        );
    }
}
