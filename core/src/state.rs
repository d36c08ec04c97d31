//! The plaintext `requestState`, version 1: read it and write it.
//!
//! ```text
//! {"v":1,"answers":{name:{"action":…,"data":…,"q":…}},"asked":{name:q}}
//! ```
//!
//! [`read`] takes a state in one pass, handing each entry to a [`Held`] store as it
//! goes: all-or-nothing, as the reference's pydantic model is, so anything that does not
//! have exactly this shape is "no progress" (an empty state). Deviation from the
//! reference: `v` must be the JSON integer `1` (the reference also takes `"1"`, `true`,
//! `1.0`). [`write`] renders a state in exactly that key order, the bytes the reference
//! writes.

use crate::json::{
    put_plain, scan_value, scan_value_in, scan_value_object, skip_ws_at, walk_object, write_value,
    JsonError, Kind, Number, Sink, Str, Style, Value,
};

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
        // Byte for byte first, decoded only when the text has an escape (`Str::which`).
        match v.as_str()?.which(&["accept", "decline", "cancel"])? {
            0 => Some(Action::Accept),
            1 => Some(Action::Decline),
            _ => Some(Action::Cancel),
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
    /// Whether `data` was read in the form `{"value":<scalar>}` (by
    /// [`scan_value_object`]): its `value` member is then the text between the two, and
    /// checking the answer need not look for it again ([`Value::wrapped_value`]).
    pub wrapped: bool,
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
                wrapped: false,
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
        // A scalar `value` alone (a wrapped type's answer) without the object walk.
        let (data, end, wrapped) = match scan_value_object(b, p, open + 1) {
            Some(end) => (Value::validated(text.get(p..end)?), end, true),
            None => {
                let (data, end) = scan_value_in(text, p, open + 1).ok()?;
                (data, end, false)
            }
        };
        const Q: &[u8] = b",\"q\":";
        if b.get(end..end + Q.len())? != Q || b.get(end + Q.len()) != Some(&b'"') {
            return None;
        }
        let (q, end) = scan_value_in(text, end + Q.len(), open + 1).ok()?;
        if b.get(end) != Some(&b'}') {
            return None;
        }
        let data = Some(data).filter(|d| !d.is_null());
        Some((
            end + 1,
            Recorded {
                action,
                data,
                wrapped,
                q,
            },
        ))
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
pub(crate) fn q_matches(q: Value<'_>, digest: &[u8; 22]) -> bool {
    q.as_str().is_some_and(|s| {
        let raw = s.raw().as_bytes();
        // Compared as fixed-size arrays: a few word compares, no call to `memcmp`. In
        // two parts shaped as a copy of the digest is stored (its first 16 bytes and its
        // last 8): `digest` is often the slot's copy made just before, and a load that
        // spans two of its stores cannot be served from the store buffer (a stall of
        // some ten cycles, 1.8 % of chain-8 final's native time; PERF.md).
        (raw.len() == digest.len()
            && raw.first_chunk::<16>() == digest.first_chunk::<16>()
            && raw.last_chunk::<8>() == digest.last_chunk::<8>())
            || (raw.contains(&b'\\') && s.units().eq(digest.iter().map(|&c| u32::from(c))))
    })
}

/// Where [`read`] puts what a state holds, entry by entry (the round matches names to
/// its parameters).
pub(crate) trait Held<'a> {
    /// Forget every recorded answer (a repeated `answers` key keeps its last value, and
    /// an unreadable state holds nothing).
    fn clear_answers(&mut self);
    /// Forget every `asked` digest (as [`Held::clear_answers`]).
    fn clear_asked(&mut self);
    /// An `answers` entry that reads as a recorded answer.
    fn answer(&mut self, name: Str<'a>, recorded: Recorded<'a>);
    /// An `asked` entry (a string).
    fn asked(&mut self, name: Str<'a>, q: Value<'a>);
}

/// A state's members, by index (see [`read`]).
const KEYS: [&str; 3] = ["v", "answers", "asked"];
const V: usize = 0;
const ANSWERS: usize = 1;
const ASKED: usize = 2;

/// Whether `text` is a sealed token rather than a plaintext state: it starts (after
/// whitespace, and an opening quote for a token passed as a JSON string) with the seal
/// format's `v1.` prefix. A plaintext state is a JSON object, so it never does.
pub(crate) fn is_sealed_token(text: &str) -> bool {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let t = t.strip_prefix('"').unwrap_or(t);
    t.starts_with("v1.")
}

/// Read a state into `held`, validating and checking it in the same pass; all or
/// nothing: when the text is not exactly a v1 state, `held` ends up empty.
pub(crate) fn read<'a>(text: &'a str, held: &mut impl Held<'a>) {
    let b = text.as_bytes();
    let start = skip_ws_at(b, 0);
    let (mut v, mut answers_ok, mut asked_ok) = (None, None, None);
    // An object of entries at `p`, each handed to `each` by the object walk (which clears
    // `ok` for an entry that is not one); anything but an object is not ok. The index
    // after it, and whether it was an object. (`each` goes to the walk itself: a wrapper
    // closure around it cost a second indirect call per entry and its own code.)
    type Each<'e, 't> = dyn FnMut(Str<'t>, usize) -> Result<usize, JsonError> + 'e;
    let entries = |p: usize, each: &mut Each<'_, 'a>| -> Result<(usize, bool), JsonError> {
        if b.get(p) != Some(&b'{') {
            return Ok((scan_value(b, p, 1)?, false));
        }
        Ok((walk_object(text, p, 1, each)?, true))
    };
    // A member's value at `p`, by its key's index in [`KEYS`] (`KEYS.len()`: any other).
    let mut member = |k: usize, p: usize| -> Result<usize, JsonError> {
        let mut ok = true;
        if k == ANSWERS {
            // A repeated key keeps its last value.
            held.clear_answers();
            let (end, object) = entries(p, &mut |name, at| {
                let (end, rec) = Recorded::scan(text, at, 2)?;
                match rec {
                    Some(rec) => held.answer(name, rec),
                    None => ok = false,
                }
                Ok(end)
            })?;
            answers_ok = Some(ok && object);
            Ok(end)
        } else if k == ASKED {
            held.clear_asked();
            let (end, object) = entries(p, &mut |name, at| {
                let (q, end) = scan_value_in(text, at, 2)?;
                match q.kind() {
                    Kind::String => held.asked(name, q),
                    _ => ok = false,
                }
                Ok(end)
            })?;
            asked_ok = Some(ok && object);
            Ok(end)
        } else {
            let (x, end) = scan_value_in(text, p, 1)?;
            if k == V {
                v = Some(x);
            }
            Ok(end)
        }
    };
    // The state as this module writes it, `{"v":…,"answers":…,"asked":…}`: its keys are
    // taken in place instead of read. Any other form is walked from the start (which
    // reads the same members again, in the same order, so whatever this set is set again
    // or, if the walk fails, the state is unreadable anyway).
    let compact = (|| -> Option<usize> {
        let mut p = start;
        // A constant table, read in place (not built on the stack each call); the keys
        // are known here, so they are not compared again.
        const MEMBERS: [(usize, &[u8]); 3] = [
            (V, b"{\"v\":"),
            (ANSWERS, b",\"answers\":"),
            (ASKED, b",\"asked\":"),
        ];
        for &(key, at) in &MEMBERS {
            if b.get(p..p + at.len())? != at {
                return None;
            }
            p = member(key, p + at.len()).ok()?;
        }
        (b.get(p) == Some(&b'}')).then_some(p + 1)
    })();
    let walked = match compact {
        Some(end) => Ok(end),
        None => walk_object(text, start, 0, &mut |k, p| {
            member(k.which(&KEYS).unwrap_or(KEYS.len()), p)
        }),
    };
    let readable = matches!(walked, Ok(end) if skip_ws_at(b, end) == b.len())
        && v.and_then(|v: Value<'_>| v.as_number()) == Some(Number::Int("1"))
        && answers_ok != Some(false)
        && asked_ok != Some(false);
    if !readable {
        // Unreadable: no progress at all.
        held.clear_answers();
        held.clear_asked();
    }
}

/// One answer to carry in a state: the parameter's name, what the user did, the content
/// as the client sent it (`None`: `null`) and the digest text of the question answered.
pub(crate) struct Carried<'n, 'a> {
    pub name: &'n str,
    pub action: Action,
    pub data: Option<Value<'a>>,
    pub q: [u8; 22],
}

/// Write a v1 state: `answers` and `asked` (name and digest text) in the order given,
/// which is resolution order; `data` re-rendered the Python way ([`Style::STATE`]).
pub(crate) fn write<'n, 'a>(
    answers: impl Iterator<Item = Carried<'n, 'a>>,
    asked: impl Iterator<Item = (&'n str, [u8; 22])>,
    out: &mut dyn Sink,
) {
    // Each name's quotes go with the text around it (a sink's cost is per call; the
    // digests and actions are not merged too: templates for them cost ~270 B of flash for
    // ~40 instructions a round).
    out.put(b"{\"v\":1,\"answers\":{");
    for (k, c) in answers.enumerate() {
        out.put(if k > 0 { b",\"" } else { b"\"" });
        put_plain(c.name, true, out);
        out.put(b"\":{\"action\":\"");
        out.put(c.action.as_str().as_bytes());
        out.put(b"\",\"data\":");
        match c.data {
            Some(d) => write_value(d, Style::STATE, out),
            None => out.put(b"null"),
        }
        out.put(b",\"q\":\"");
        out.put(&c.q);
        out.put(b"\"}");
    }
    out.put(b"},\"asked\":{");
    for (k, (name, q)) in asked.enumerate() {
        out.put(if k > 0 { b",\"" } else { b"\"" });
        put_plain(name, true, out);
        out.put(b"\":\"");
        out.put(&q);
        out.put(b"\"");
    }
    out.put(b"}}");
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
                "{\"value\":-2.5e1}",
                "{\"value\":false}",
                "{\"value\":null}",
                "{\"value\":\"\\u00e9\"}",
                "{\"value\":[\"x\"]}",
                "{\"value\":\"x\",\"value\":1}",
                "{\"value\":\"x\" }",
                "{\"value\":nul}",
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
        // Every third under miri (minutes for all); every one natively.
        for e in entries.iter().step_by(if cfg!(miri) { 3 } else { 1 }) {
            for tail in ["", "}", ",1]", " "] {
                let text = format!("{e}{tail}");
                let any = show(Recorded::scan_any(&text, 0, 2));
                assert_eq!(show(Recorded::scan(&text, 0, 2)), any, "{text}");
                if let Some((end, rec)) = Recorded::scan_compact(&text, 0, 2) {
                    assert_eq!(show(Ok((end, Some(rec)))), any, "{text}");
                    // Content it found wrapped has the `value` the general lookup finds.
                    if rec.wrapped {
                        let data = rec.data.expect("wrapped content is not null");
                        assert_eq!(
                            data.wrapped_value().map(|v| v.raw()),
                            data.get_value().map(|v| v.raw()),
                            "{text}"
                        );
                    }
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
