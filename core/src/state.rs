//! The plaintext `requestState`: `{"v":1,"answers":{name:{"action","data","q"}},"asked":{name:q}}`.
//!
//! Decoding is all-or-nothing, as the reference's pydantic model is: anything that does
//! not have exactly this shape is "no progress" (an empty state). Deviation from the
//! reference: `v` must be the JSON integer `1` (the reference also takes `"1"`, `true`,
//! `1.0`).

use crate::json::{Kind, Number, Str, Value};

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

/// A decoded state (validated; lookups cannot fail on shape).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct State<'a> {
    answers: Option<Value<'a>>,
    asked: Option<Value<'a>>,
}

impl<'a> State<'a> {
    /// Decode a plaintext state; anything unreadable is the empty state.
    pub(crate) fn decode(text: Option<&'a str>) -> State<'a> {
        text.and_then(Self::try_decode).unwrap_or_default()
    }

    fn try_decode(text: &'a str) -> Option<State<'a>> {
        let doc = Value::parse(text).ok()?;
        if doc.kind() != Kind::Object {
            return None;
        }
        // One pass over the top level (a repeated key keeps its last value).
        let (mut v, mut answers, mut asked) = (None, None, None);
        for (k, x) in doc.members() {
            if k.eq_str("v") {
                v = Some(x);
            } else if k.eq_str("answers") {
                answers = Some(x);
            } else if k.eq_str("asked") {
                asked = Some(x);
            }
        }
        match v?.as_number()? {
            Number::Int("1") => {}
            _ => return None,
        }
        let answers = match answers {
            None => None,
            Some(a) if a.kind() == Kind::Object => {
                for (_, entry) in a.members() {
                    if entry.kind() != Kind::Object {
                        return None;
                    }
                    if Recorded::of(entry)?.q.kind() != Kind::String {
                        return None;
                    }
                }
                Some(a)
            }
            Some(_) => return None,
        };
        let asked = match asked {
            None => None,
            Some(a) if a.kind() == Kind::Object => {
                if a.members().any(|(_, q)| q.kind() != Kind::String) {
                    return None;
                }
                Some(a)
            }
            Some(_) => return None,
        };
        Some(State { answers, asked })
    }

    /// The `answers` members (name, entry), in document order, duplicates included.
    pub(crate) fn answers(&self) -> impl Iterator<Item = (Str<'a>, Value<'a>)> {
        self.answers.into_iter().flat_map(|a| a.members())
    }

    /// The `asked` members (name, digest), in document order, duplicates included.
    pub(crate) fn asked_all(&self) -> impl Iterator<Item = (Str<'a>, Value<'a>)> {
        self.asked.into_iter().flat_map(|a| a.members())
    }
}

impl<'a> Recorded<'a> {
    /// Read one `answers` entry (checked by [`State::decode`]) in a single pass; a
    /// repeated key keeps its last value, as `Value::get` does.
    pub(crate) fn of(entry: Value<'a>) -> Option<Recorded<'a>> {
        let (mut action, mut data, mut q) = (None, None, None);
        for (k, v) in entry.members() {
            if k.eq_str("action") {
                action = Some(v);
            } else if k.eq_str("data") {
                data = Some(v);
            } else if k.eq_str("q") {
                q = Some(v);
            }
        }
        Some(Recorded {
            action: Action::parse(action?)?,
            data: data.filter(|d| !d.is_null()),
            q: q?,
        })
    }
}

/// True when a JSON string value equals the digest text.
pub(crate) fn q_matches(q: Value<'_>, digest: &str) -> bool {
    q.as_str().is_some_and(|s| s.eq_str(digest))
}
