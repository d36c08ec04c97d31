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

/// True when a JSON string value equals the digest text (ASCII), compared decoded as a
/// Python dict would (a digest sent with escapes still matches).
pub(crate) fn q_matches(q: Value<'_>, digest: &[u8]) -> bool {
    q.as_str().is_some_and(|s| {
        let raw = s.raw().as_bytes();
        crate::json::eq_bytes(raw, digest)
            || (raw.contains(&b'\\') && s.units().eq(digest.iter().map(|&c| u32::from(c))))
    })
}
