//! The sans-IO round machine.
//!
//! A [`Round`] decides one round of one call over a [`Plan`]. It never calls host code:
//! when it needs a resolver run it says so through [`Round::poll`], and the host answers
//! with [`Round::resolve_value`], [`Round::resolve_question`] or
//! [`Round::resolve_failed`]; on the handshake era it hands out one question at a time
//! ([`Step::Ask`]) and takes the client's reply with [`Round::answer`].
//!
//! # The drain rule
//!
//! After creating a round and after every `resolve_*`/`answer` call, call
//! [`Round::poll`] until it returns a step that needs the host ([`Step::Resolve`],
//! [`Step::Ask`]) or a terminal one ([`Step::Done`], [`Step::InputRequired`], or an
//! error). Answering a step that is not the current one returns
//! [`Error::WrongStep`] and changes nothing. Polling again without answering returns
//! the same step. Once a round fails, every later call returns the same error.
//!
//! # Memory
//!
//! The round holds no heap memory: room for `N` slots (one per parameter) inline, and a caller
//! workspace (`&mut [u8]`) into which it copies the JSON the host hands it (resolver
//! values and questions, handshake replies). The call's inputs (arguments, state,
//! replies) are borrowed. [`Round::modern_in`] and [`Round::handshake_in`] build the
//! round in a caller's `Option` instead of returning it, which spares a stack-counting
//! caller a temporary copy of the round while it is created.

use crate::error::{name, Error, Problem};
use crate::json::{scan_value, scan_value_in, skip_ws_at, walk_object, JsonError, Number};
use crate::json::{
    write_json_str, write_str, write_value, Kind, Sink, SliceSink, Str, Style, Value,
};
use crate::plan::{digest_text, question_digest, write_params, AskKind, Plan};
use crate::state::{compact_action, q_matches, Action, Recorded};
use crate::types::{Render, Ty};

/// Which protocol era the round serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28 and later: batched `InputRequiredResult` rounds.
    Modern,
    /// 2025-11-25 and earlier: one question at a time over `elicitation/create`.
    Handshake,
}

/// What the round needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Run the resolver of parameter `param` with the inputs from
    /// [`Round::write_resolve_inputs`]; answer with a `resolve_*` call.
    Resolve {
        /// The parameter (signature index).
        param: usize,
    },
    /// Handshake era: put the question from [`Round::write_ask`] to the client and
    /// answer with [`Round::answer`].
    Ask {
        /// The parameter (signature index).
        param: usize,
    },
    /// Every elicited parameter is settled: read [`Round::write_values`].
    Done,
    /// Questions remain: read [`Round::write_input_requests`] and
    /// [`Round::write_request_state`].
    InputRequired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Unvisited,
    /// Needs something unanswered; not rendered this round.
    Waiting,
    /// Asked this round.
    Pending,
    Settled,
}

#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    None,
    /// A resolver returned a value (carried nowhere).
    Host(Value<'a>),
    /// An answer (from the state or a reply); `value` is an accepted wrapped answer's
    /// `value` member, found once when it was checked.
    Answer {
        action: Action,
        content: Option<Value<'a>>,
        value: Option<Value<'a>>,
    },
}

/// How [`Round::settle`] treats accepted content.
#[derive(Clone, Copy)]
enum Check<'t, 'a> {
    /// Checked already; a wrapped type's `value` member (see [`Ty::accept`]).
    Done(Option<Value<'a>>),
    /// To check against this type.
    Against(&'t Ty<'a>),
}

#[derive(Debug, Clone, Copy)]
struct Question<'a> {
    message: Str<'a>,
    ty: Ty<'a>,
    title: Option<Str<'a>>,
    description: Option<Str<'a>>,
}

/// Which question a slot asks this round, kept small: a literal question lives in the
/// plan, a resolver's in the workspace (re-read when an output needs it).
#[derive(Debug, Clone, Copy)]
enum Asks<'a> {
    /// Not rendered (yet) this round.
    Nothing,
    /// The plan's literal question.
    Literal,
    /// A resolver's question (in the workspace): its message, and its whole JSON when
    /// it carries more than a message (`type`, `title`, `description`: re-read when an
    /// output needs them); `typed` when it carries its own answer type (else the
    /// parameter's type applies).
    Resolver {
        message: Str<'a>,
        more: Option<Value<'a>>,
        typed: bool,
    },
}

#[derive(Debug, Clone, Copy)]
struct Slot<'a> {
    status: Status,
    source: Source<'a>,
    asks: Asks<'a>,
    /// The digest of the question in `asks`.
    digest: [u8; 16],
    /// Whether the answer is carried in the next state.
    carried: bool,
    /// The state's `answers` entry for this parameter (last one wins), read once per
    /// round by [`Round::index`].
    recorded: Option<Recorded<'a>>,
    /// The state's `asked` digest for this parameter.
    asked: Option<Value<'a>>,
    /// This parameter's reply in `inputResponses`, classified.
    reply: Option<Reply<'a>>,
}

const EMPTY: Slot<'static> = Slot {
    status: Status::Unvisited,
    source: Source::None,
    asks: Asks::Nothing,
    digest: [0; 16],
    carried: false,
    recorded: None,
    asked: None,
    reply: None,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    AwaitResolve(u8),
    AwaitAnswer(u8),
    Done,
    InputRequired,
    Failed,
}

/// How a reply in `inputResponses` parsed.
#[derive(Debug, Clone, Copy)]
enum Reply<'a> {
    /// An ElicitResult: its action and its content (`None` when absent or null).
    Elicit {
        action: Action,
        content: Option<Value<'a>>,
    },
    /// Another InputResponse (roots, sampling): not an answer to a question.
    Other,
}

/// Something the round noticed that a host may want to log (the reference logs the
/// same events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// A reply was ignored because it does not answer the question asked last round
    /// (INFO in the reference).
    DiscardedReply {
        /// The parameter.
        param: usize,
    },
    /// A recorded answer was dropped because its question changed (DEBUG).
    DroppedRecorded {
        /// The parameter.
        param: usize,
    },
    /// A recorded answer was dropped because it no longer validates, and the question
    /// is asked again (deviation 3 from the reference, which fails the call).
    DroppedInvalidRecorded {
        /// The parameter.
        param: usize,
    },
}

impl Note {
    /// The log line the reference writes for this event (`param_name` is the
    /// parameter's name), and its level.
    pub fn write_message(
        &self,
        param_name: &str,
        out: &mut dyn core::fmt::Write,
    ) -> core::fmt::Result {
        use crate::pyfmt::PyRepr;
        match self {
            Note::DiscardedReply { .. } => write!(out, "Discarding the reply for {}: the question changed since it was asked", PyRepr(param_name)),
            Note::DroppedRecorded { .. } => write!(out, "Dropping the recorded answer for {}: the question changed since it was asked", PyRepr(param_name)),
            Note::DroppedInvalidRecorded { .. } => write!(out, "Dropping the recorded answer for {}: it no longer matches the requested schema, asking again", PyRepr(param_name)),
        }
    }
    /// `"INFO"` or `"DEBUG"`, as the reference logs it.
    pub fn level(&self) -> &'static str {
        match self {
            Note::DiscardedReply { .. } => "INFO",
            _ => "DEBUG",
        }
    }
    /// The parameter concerned.
    pub fn param(&self) -> usize {
        match *self {
            Note::DiscardedReply { param }
            | Note::DroppedRecorded { param }
            | Note::DroppedInvalidRecorded { param } => param,
        }
    }
}

/// One round of one call. See the module docs for the drain rule.
#[derive(Debug)]
pub struct Round<'r, 'a, const N: usize = 32> {
    plan: &'r Plan<'a, N>,
    era: Era,
    args: Value<'a>,
    free: &'a mut [u8],
    /// One slot per parameter (signature order), filled on the first poll: creating a
    /// round costs nothing per unused unit of capacity.
    slots: heapless::Vec<Slot<'a>, N>,
    cursor: usize,
    phase: Phase,
    error: Option<Error>,
    notes: heapless::Vec<Note, N>,
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

    /// The kind the MCP types' union resolves these members to.
    fn classify(self) -> Option<Reply<'a>> {
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
            return Some(Reply::Elicit { action, content });
        }
        if let Some(roots) = self.roots {
            let ok = roots.kind() == Kind::Array
                && roots
                    .items()
                    .all(|r| r.get("uri").is_some_and(|u| u.kind() == Kind::String));
            return ok.then_some(Reply::Other);
        }
        if self.role.is_some() && self.content.is_some() && self.model.is_some() {
            return Some(Reply::Other);
        }
        None
    }
}

/// Classify one InputResponse (validated JSON) the way the MCP types' union resolves it.
fn classify_reply(v: Value<'_>) -> Option<Reply<'_>> {
    if v.kind() != Kind::Object {
        return None;
    }
    let mut parts = ReplyParts::default();
    for (k, x) in v.members() {
        parts.take(k, x);
    }
    parts.classify()
}

/// Validate the InputResponse at `at` in `text` (inside `open` containers) and classify it
/// in the same pass: the index after it, and its kind (`None`: no InputResponse shape).
fn scan_reply(text: &str, at: usize, open: usize) -> Result<(usize, Option<Reply<'_>>), JsonError> {
    if !cfg!(feature = "small-code") {
        if let Some((end, reply)) = scan_reply_compact(text, at, open) {
            return Ok((end, Some(reply)));
        }
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
            },
        ));
    }
    if b.get(p..p + CONTENT.len())? != CONTENT {
        return None;
    }
    let start = p + CONTENT.len() - 1;
    let mut flat = true;
    let end = walk_object(text, start, open + 1, &mut |_, f| {
        let (x, end) = scan_value_in(text, f, open + 2)?;
        flat &= flat_field(x);
        Ok(end)
    })
    .ok()?;
    if !flat || b.get(end) != Some(&b'}') {
        return None;
    }
    let content = Value::validated(text.get(start..end)?);
    Some((
        end + 1,
        Reply::Elicit {
            action,
            content: Some(content),
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
    Ok((end, parts.classify()))
}

impl<'r, 'a, const N: usize> Round<'r, 'a, N> {
    /// A 2026-07-28 round: the call's `arguments` (a JSON object), the plaintext
    /// `requestState` (already unsealed; anything unreadable counts as no progress) and
    /// the raw `inputResponses` object. `workspace` holds what the host hands over
    /// later (resolver values and questions).
    ///
    /// Errors: arguments that are not a JSON object; `inputResponses` that is not an
    /// object of InputResponses (the protocol layer's `-32602`).
    #[inline(always)]
    pub fn modern(
        plan: &'r Plan<'a, N>,
        arguments: &'a str,
        request_state: Option<&'a str>,
        input_responses: Option<&'a str>,
        workspace: &'a mut [u8],
    ) -> Result<Self, Error> {
        let args = Self::parse_arguments(arguments)?;
        let mut round = Self::build(plan, Era::Modern, args, workspace);
        round.index(request_state, input_responses)?;
        Ok(round)
    }

    /// A handshake-era round (≤ 2025-11-25): questions go out one at a time.
    #[inline]
    pub fn handshake(
        plan: &'r Plan<'a, N>,
        arguments: &'a str,
        workspace: &'a mut [u8],
    ) -> Result<Self, Error> {
        let args = Self::parse_arguments(arguments)?;
        let mut round = Self::build(plan, Era::Handshake, args, workspace);
        round.index(None, None)?;
        Ok(round)
    }

    /// [`Round::modern`], built in the caller's `slot` instead of returned, for callers
    /// that count their stack: a `Round` holds its `N` slots inline, and returning it
    /// (inside a `Result`) costs a temporary copy of `size_of::<Round>()` bytes of stack
    /// while it is created. Returns the round, now in `slot`. Same inputs and errors as
    /// [`Round::modern`]; on an error `slot` holds a failed round (every call on it
    /// returns that error, as on any failed round).
    ///
    /// ```
    /// # use elicit_core::{Plan, Round, Step};
    /// # let plan: Plan<'_, 4> = Plan::compile(r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#)?;
    /// let mut workspace = [0u8; 64];
    /// let mut slot = None;
    /// let round = Round::modern_in(&mut slot, &plan, "{}", None, None, &mut workspace)?;
    /// assert_eq!(round.poll()?, Step::InputRequired);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn modern_in<'s>(
        slot: &'s mut Option<Self>,
        plan: &'r Plan<'a, N>,
        arguments: &'a str,
        request_state: Option<&'a str>,
        input_responses: Option<&'a str>,
        workspace: &'a mut [u8],
    ) -> Result<&'s mut Self, Error> {
        Self::build_in(
            slot,
            plan,
            Era::Modern,
            arguments,
            request_state,
            input_responses,
            workspace,
        )
    }

    /// [`Round::handshake`], built in the caller's `slot` (see [`Round::modern_in`]).
    pub fn handshake_in<'s>(
        slot: &'s mut Option<Self>,
        plan: &'r Plan<'a, N>,
        arguments: &'a str,
        workspace: &'a mut [u8],
    ) -> Result<&'s mut Self, Error> {
        Self::build_in(slot, plan, Era::Handshake, arguments, None, None, workspace)
    }

    /// Build the round straight into `slot` (no temporary the size of a round: the
    /// struct literal is written field by field) and index it there. A failure leaves a
    /// failed round in `slot`.
    fn build_in<'s>(
        slot: &'s mut Option<Self>,
        plan: &'r Plan<'a, N>,
        era: Era,
        arguments: &'a str,
        request_state: Option<&'a str>,
        input_responses: Option<&'a str>,
        workspace: &'a mut [u8],
    ) -> Result<&'s mut Self, Error> {
        let parsed = Self::parse_arguments(arguments);
        let args = match parsed {
            Ok(args) => args,
            Err(_) => Value::validated("{}"),
        };
        let round = slot.insert(Self::build(plan, era, args, workspace));
        match parsed.and_then(|_| round.index(request_state, input_responses)) {
            Ok(()) => Ok(round),
            Err(e) => Err(round.fail(e)),
        }
    }

    fn parse_arguments(arguments: &'a str) -> Result<Value<'a>, Error> {
        let args = Value::parse(arguments).map_err(|_| Error::Arguments {
            problem: Problem::NOT_JSON,
        })?;
        if args.kind() != Kind::Object {
            return Err(Error::Arguments {
                problem: Problem::NOT_OBJECT,
            });
        }
        Ok(args)
    }

    /// The round as one struct literal, so it is built in place: a round holds `N`
    /// slots inline, and every move after construction would copy them all.
    #[inline(always)]
    fn build(plan: &'r Plan<'a, N>, era: Era, args: Value<'a>, workspace: &'a mut [u8]) -> Self {
        Round {
            plan,
            era,
            args,
            free: workspace,
            slots: heapless::Vec::new(),
            cursor: 0,
            phase: Phase::Running,
            error: None,
            notes: heapless::Vec::new(),
        }
    }

    /// Lay out the slots and match the replies and the state's `answers` and `asked`
    /// entries to parameters, once per round, while checking them: one pass over each
    /// object instead of a scan per parameter (keys usually come in resolution order,
    /// so the next parameter is tried first). A repeated key keeps its last entry, as a
    /// Python dict does.
    ///
    /// Every reply must be an InputResponse (else [`Error::InputResponses`]). The state
    /// is all-or-nothing, as the reference's pydantic model is: anything without exactly
    /// the shape `{"v":1,"answers":{name:{"action","data","q"}},"asked":{name:q}}` is no
    /// progress. Deviation: `v` must be the JSON integer `1` (the reference also takes
    /// `"1"`, `true`, `1.0`).
    fn index(
        &mut self,
        request_state: Option<&'a str>,
        input_responses: Option<&'a str>,
    ) -> Result<(), Error> {
        let plan = self.plan;
        for _ in 0..plan.params.len() {
            // Cannot fail: a plan holds at most N parameters.
            let _ = self.slots.push(EMPTY);
        }
        let order = &plan.order;
        let find = |guess: &mut usize, key: Str<'_>| -> Option<usize> {
            if let Some(&i) = order.get(*guess) {
                if key.eq_str(plan.params[i as usize].name) {
                    *guess += 1;
                    return Some(i as usize);
                }
            }
            let pos = order
                .iter()
                .position(|&i| key.eq_str(plan.params[i as usize].name))?;
            *guess = pos + 1;
            Some(order[pos] as usize)
        };
        let slots = &mut self.slots;

        // The replies: validated, classified and matched in one pass.
        if let Some(text) = input_responses {
            let not_json = || Error::InputResponses {
                key: name(""),
                problem: Problem::NOT_JSON,
            };
            let b = text.as_bytes();
            let start = skip_ws_at(b, 0);
            if b.get(start) == Some(&b'{') {
                let mut first_bad: Option<Str<'a>> = None;
                let mut guess = 0;
                let walked = walk_object(text, start, 0, &mut |k, p| {
                    let (end, reply) = scan_reply(text, p, 1)?;
                    match reply {
                        Some(reply) => {
                            if let Some(i) = find(&mut guess, k) {
                                slots[i].reply = Some(reply);
                            }
                        }
                        None => {
                            first_bad = first_bad.or(Some(k));
                        }
                    }
                    Ok(end)
                });
                // Not JSON wins over a malformed entry, as parsing comes first.
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
            } else if !Value::parse(text).map_err(|_| not_json())?.is_null() {
                return Err(Error::InputResponses {
                    key: name(""),
                    problem: Problem::NOT_KEYED_OBJECT,
                });
            }
        }

        // The state: validated, checked and matched in one pass; all or nothing.
        let Some(text) = request_state else {
            return Ok(());
        };
        let b = text.as_bytes();
        let start = skip_ws_at(b, 0);
        let (mut v, mut answers_ok, mut asked_ok) = (None, None, None);
        // An object of entries at `p`, each read by `each` → (end, entry ok); anything
        // but an object is not ok. The index after it, and whether every entry was ok.
        type Each<'e, 't> = dyn FnMut(Str<'t>, usize) -> Result<(usize, bool), JsonError> + 'e;
        let entries = |p: usize, each: &mut Each<'_, 'a>| -> Result<(usize, bool), JsonError> {
            if b.get(p) != Some(&b'{') {
                return Ok((scan_value(b, p, 1)?, false));
            }
            let mut ok = true;
            let end = walk_object(text, p, 1, &mut |name, at| {
                let (end, good) = each(name, at)?;
                ok &= good;
                Ok(end)
            })?;
            Ok((end, ok))
        };
        let mut guess = 0;
        let mut member = |k: Str<'a>, p: usize| -> Result<usize, JsonError> {
            if k.eq_str("answers") {
                // A repeated key keeps its last value.
                for slot in slots.iter_mut() {
                    slot.recorded = None;
                }
                guess = 0;
                let (end, ok) = entries(p, &mut |name, at| {
                    let (end, rec) = Recorded::scan(text, at, 2)?;
                    if let Some(rec) = rec {
                        if let Some(i) = find(&mut guess, name) {
                            slots[i].recorded = Some(rec);
                        }
                    }
                    Ok((end, rec.is_some()))
                })?;
                answers_ok = Some(ok);
                Ok(end)
            } else if k.eq_str("asked") {
                for slot in slots.iter_mut() {
                    slot.asked = None;
                }
                guess = 0;
                let (end, ok) = entries(p, &mut |name, at| {
                    let (q, end) = scan_value_in(text, at, 2)?;
                    let ok = q.kind() == Kind::String;
                    if let Some(i) = find(&mut guess, name).filter(|_| ok) {
                        slots[i].asked = Some(q);
                    }
                    Ok((end, ok))
                })?;
                asked_ok = Some(ok);
                Ok(end)
            } else {
                let (x, end) = scan_value_in(text, p, 1)?;
                if k.eq_str("v") {
                    v = Some(x);
                }
                Ok(end)
            }
        };
        // The state as the engine writes it, `{"v":…,"answers":…,"asked":…}`: its keys
        // are taken in place instead of read. Any other form is walked from the start
        // (which reads the same members again, in the same order, so whatever this
        // set is set again or, if the walk fails, the state is unreadable anyway).
        let compact = (|| -> Option<usize> {
            if cfg!(feature = "small-code") {
                return None;
            }
            let mut p = start;
            for (key, at) in [
                ("v", &b"{\"v\":"[..]),
                ("answers", b",\"answers\":"),
                ("asked", b",\"asked\":"),
            ] {
                if b.get(p..p + at.len())? != at {
                    return None;
                }
                p = member(Str::validated(key), p + at.len()).ok()?;
            }
            (b.get(p) == Some(&b'}')).then_some(p + 1)
        })();
        let walked = match compact {
            Some(end) => Ok(end),
            None => walk_object(text, start, 0, &mut member),
        };
        let readable = matches!(walked, Ok(end) if skip_ws_at(b, end) == b.len())
            && v.and_then(|v: Value<'_>| v.as_number()) == Some(Number::Int("1"))
            && answers_ok != Some(false)
            && asked_ok != Some(false);
        if !readable {
            // Unreadable: no progress at all.
            for slot in slots.iter_mut() {
                slot.recorded = None;
                slot.asked = None;
            }
        }
        Ok(())
    }

    /// The era this round serves.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The plan this round runs.
    pub fn plan(&self) -> &'r Plan<'a, N> {
        self.plan
    }

    /// The terminal error, once the round has failed.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// What the round noticed so far (for the host's log).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Bytes of workspace still free.
    pub fn workspace_left(&self) -> usize {
        self.free.len()
    }

    fn fail(&mut self, e: Error) -> Error {
        self.phase = Phase::Failed;
        self.error = Some(e.clone());
        e
    }

    /// The parameters asked this round (signature index and slot), in resolution order.
    fn pending(&self) -> impl Iterator<Item = (usize, &Slot<'a>)> + '_ {
        self.plan
            .order
            .iter()
            .map(|&i| (i as usize, &self.slots[i as usize]))
            .filter(|(_, slot)| slot.status == Status::Pending)
    }

    /// The error for reading an output the current step does not offer: the terminal
    /// error once the round failed, else [`Error::WrongStep`].
    fn out_of_step(&self, expected: &'static str, got: &'static str) -> Error {
        self.error
            .clone()
            .unwrap_or(Error::WrongStep { expected, got })
    }

    fn copy_in(&mut self, text: &str) -> Result<&'a str, Error> {
        let buf = core::mem::take(&mut self.free);
        if text.len() > buf.len() {
            let needed = text.len() - buf.len();
            self.free = buf;
            return Err(Error::Workspace { needed });
        }
        let (head, tail) = buf.split_at_mut(text.len());
        crate::json::copy_bytes(head, text.as_bytes());
        self.free = tail;
        let head: &'a [u8] = head;
        core::str::from_utf8(head).map_err(|_| Error::Workspace { needed: 0 })
    }

    /// Advance the round. See the module docs for the drain rule.
    pub fn poll(&mut self) -> Result<Step, Error> {
        match self.phase {
            Phase::Failed => Err(self.error.clone().unwrap_or(Error::WrongStep {
                expected: "nothing",
                got: "poll",
            })),
            Phase::Done => Ok(Step::Done),
            Phase::InputRequired => Ok(Step::InputRequired),
            Phase::AwaitResolve(i) => Ok(Step::Resolve { param: i as usize }),
            Phase::AwaitAnswer(i) => Ok(Step::Ask { param: i as usize }),
            Phase::Running => match self.advance() {
                Ok(s) => Ok(s),
                Err(e) => Err(self.fail(e)),
            },
        }
    }

    fn advance(&mut self) -> Result<Step, Error> {
        let plan = self.plan;
        while self.cursor < plan.order.len() {
            let i = plan.order[self.cursor] as usize;
            let p = &plan.params[i];
            match &p.ask {
                Some(AskKind::Literal(q)) => {
                    self.cursor += 1;
                    if let Some(step) = self.decide(i, p.ty, q.digest, Asks::Literal)? {
                        return Ok(step);
                    }
                }
                Some(AskKind::Resolver { needs, .. }) => {
                    let mut waiting = false;
                    for &j in needs.iter() {
                        let j = j as usize;
                        if plan.params[j].ask.is_some() {
                            if self.slots[j].status != Status::Settled {
                                waiting = true;
                            }
                        } else if self.args.get(plan.params[j].name).is_none()
                            && plan.params[j].default.is_none()
                        {
                            return Err(Error::MissingArgument {
                                name: name(plan.params[j].name),
                            });
                        }
                    }
                    if waiting {
                        self.slots[i].status = Status::Waiting;
                        self.cursor += 1;
                        continue;
                    }
                    self.phase = Phase::AwaitResolve(i as u8);
                    return Ok(Step::Resolve { param: i });
                }
                None => self.cursor += 1,
            }
        }
        if self.pending().next().is_some() {
            self.phase = Phase::InputRequired;
            Ok(Step::InputRequired)
        } else {
            self.phase = Phase::Done;
            Ok(Step::Done)
        }
    }

    /// The question parameter `i` asks this round, if it was rendered: a literal one
    /// from the plan, a resolver's re-read from the workspace.
    fn question(&self, i: usize) -> Option<Question<'a>> {
        let slot = self.slots.get(i)?;
        let p = self.plan.params.get(i)?;
        match (slot.asks, &p.ask) {
            (Asks::Literal, Some(AskKind::Literal(q))) => Some(Question {
                message: q.message,
                ty: p.ty,
                title: q.title,
                description: q.description,
            }),
            (
                Asks::Resolver {
                    message,
                    more: None,
                    ..
                },
                _,
            ) => Some(Question {
                message,
                ty: p.ty,
                title: None,
                description: None,
            }),
            (
                Asks::Resolver {
                    more: Some(json), ..
                },
                _,
            ) => {
                let (message, ty, title, description, _) = parse_question(json, &p.ty).ok()?;
                Some(Question {
                    message,
                    ty,
                    title,
                    description,
                })
            }
            _ => None,
        }
    }

    /// Decide parameter `i` given the question it asks. Returns a step when the host
    /// must act (handshake ask).
    fn decide(
        &mut self,
        i: usize,
        ty: Ty<'a>,
        digest: [u8; 16],
        asks: Asks<'a>,
    ) -> Result<Option<Step>, Error> {
        self.slots[i].asks = asks;
        self.slots[i].digest = digest;
        if self.era == Era::Handshake {
            self.phase = Phase::AwaitAnswer(i as u8);
            return Ok(Some(Step::Ask { param: i }));
        }
        let pname = self.plan.params[i].name;
        if self.slots[i].recorded.is_none() && self.slots[i].reply.is_none() {
            // Nothing recorded, nothing replied: asked this round.
            self.slots[i].status = Status::Pending;
            return Ok(None);
        }
        let dbuf = digest_text(&digest);
        let digest = &dbuf[..];
        // 1. A recorded answer to this same question (checked against the type here, so
        // settling it does not check it again).
        let mut answer = None;
        let mut checked = None;
        if let Some(rec) = self.slots[i].recorded {
            if q_matches(rec.q, digest) {
                let usable = match (rec.action, rec.data) {
                    (Action::Accept, Some(d)) => ty.accept(d),
                    (Action::Accept, None) => None,
                    _ => Some(None),
                };
                // Deviation 3: a recorded answer that no longer validates is dropped
                // and asked again rather than failing the call.
                if let Some(value) = usable {
                    answer = Some((rec.action, rec.data));
                    checked = Some(value);
                } else {
                    let _ = self.notes.push(Note::DroppedInvalidRecorded { param: i });
                }
            } else {
                let _ = self.notes.push(Note::DroppedRecorded { param: i });
            }
        }
        // 2. A fresh reply, only for the question asked last round.
        if answer.is_none() {
            if let Some(reply) = self.slots[i].reply {
                if !self.slots[i].asked.is_some_and(|a| q_matches(a, digest)) {
                    let _ = self.notes.push(Note::DiscardedReply { param: i });
                } else {
                    let Reply::Elicit { action, content } = reply else {
                        return Err(Error::NotElicitResult { param: name(pname) });
                    };
                    if action == Action::Accept && content.is_none() {
                        return Err(Error::AcceptedWithoutContent { param: name(pname) });
                    }
                    answer = Some((action, content));
                }
            }
        }
        match answer {
            None => {
                self.slots[i].status = Status::Pending;
                Ok(None)
            }
            Some((action, content)) => {
                let check = match checked {
                    Some(value) => Check::Done(value),
                    None => Check::Against(&ty),
                };
                self.settle(i, check, action, content)?;
                self.slots[i].carried = true;
                Ok(None)
            }
        }
    }

    /// Settle parameter `i` with an answer, checking accepted content as `check` says.
    fn settle(
        &mut self,
        i: usize,
        check: Check<'_, 'a>,
        action: Action,
        content: Option<Value<'a>>,
    ) -> Result<(), Error> {
        let p = &self.plan.params[i];
        let mut value = None;
        match action {
            Action::Accept => {
                let accepted = match (check, content) {
                    (_, None) => None,
                    (Check::Done(v), Some(_)) => Some(v),
                    (Check::Against(ty), Some(c)) => ty.accept(c),
                };
                let Some(v) = accepted else {
                    return Err(Error::SchemaMismatch {
                        param: name(p.name),
                    });
                };
                value = v;
            }
            Action::Decline | Action::Cancel => {
                if p.default.is_none() && !p.outcome {
                    return Err(Error::Refused {
                        param: name(p.name),
                        cancelled: action == Action::Cancel,
                    });
                }
            }
        }
        self.slots[i].status = Status::Settled;
        self.slots[i].source = Source::Answer {
            action,
            content,
            value,
        };
        Ok(())
    }

    fn expect_resolve(&self, got: &'static str) -> Result<usize, Error> {
        match self.phase {
            Phase::AwaitResolve(i) => Ok(i as usize),
            Phase::Failed => Err(self.error.clone().expect("failed rounds keep their error")),
            Phase::AwaitAnswer(_) => Err(Error::WrongStep {
                expected: "an answer to the Ask step",
                got,
            }),
            _ => Err(Error::WrongStep {
                expected: "a poll",
                got,
            }),
        }
    }

    /// Answer the current [`Step::Resolve`] with the value the resolver returned (any
    /// JSON): nothing is asked and nothing is carried.
    pub fn resolve_value(&mut self, value_json: &str) -> Result<(), Error> {
        let i = self.expect_resolve("resolve_value")?;
        let pname = self.plan.params[i].name;
        if Value::parse(value_json).is_err() {
            return Err(Error::ResolverAnswer {
                param: name(pname),
                problem: Problem::VALUE_NOT_JSON,
            });
        }
        let text = self.copy_in(value_json)?;
        let v = Value::parse(text).map_err(|_| Error::ResolverAnswer {
            param: name(pname),
            problem: Problem::VALUE_NOT_JSON,
        })?;
        self.slots[i].status = Status::Settled;
        self.slots[i].source = Source::Host(v);
        self.cursor += 1;
        self.phase = Phase::Running;
        Ok(())
    }

    /// Answer the current [`Step::Resolve`] with the question the resolver decided to
    /// ask: `{"message": "...", "type"?: <type>, "title"?: "...", "description"?: "..."}`
    /// (`type` defaults to the parameter's type).
    pub fn resolve_question(&mut self, question_json: &str) -> Result<(), Error> {
        let i = self.expect_resolve("resolve_question")?;
        let pname = self.plan.params[i].name;
        let bad = |problem| Error::ResolverAnswer {
            param: name(pname),
            problem,
        };
        // Check before copying so a bad answer costs no workspace and changes nothing.
        let (probe, fields) = scan_question(question_json).map_err(bad)?;
        let param_ty = self.plan.params[i].ty;
        // Only a message: outputs need nothing else from it.
        let plain = fields.ty.is_none() && fields.title.is_none() && fields.description.is_none();
        let (digest, typed, message) = match question_parts(fields, &param_ty) {
            Ok((message, ty, title, description, typed)) => (
                question_digest(message, &ty, title, description),
                typed,
                message,
            ),
            Err(problem) => {
                // A question of the right shape with bad contents fails the round.
                self.copy_in(question_json)?;
                return Err(self.fail(bad(problem)));
            }
        };
        // The probe's and the message's places in the text (parsing trims surrounding
        // whitespace).
        let offset =
            |part: &str| (part.as_ptr() as usize).wrapping_sub(question_json.as_ptr() as usize);
        let (start, at) = (offset(probe.raw()), offset(message.raw()));
        let text = self.copy_in(question_json)?;
        // The copy is byte for byte the validated text: no second validation.
        let v = text
            .get(start..start + probe.raw().len())
            .map(Value::validated)
            .ok_or_else(|| bad(Problem::QUESTION_NOT_JSON))?;
        let message = text
            .get(at..at + message.raw().len())
            .map(Str::validated)
            .ok_or_else(|| bad(Problem::QUESTION_NOT_JSON))?;
        // Its own answer type, borrowed from the copy (the rare case: read it again).
        let ty = match typed {
            false => param_ty,
            true => match parse_question(v, &param_ty) {
                Ok((_, ty, ..)) => ty,
                Err(problem) => return Err(self.fail(bad(problem))),
            },
        };
        self.cursor += 1;
        self.phase = Phase::Running;
        let more = (!plain).then_some(v);
        match self.decide(
            i,
            ty,
            digest,
            Asks::Resolver {
                message,
                more,
                typed,
            },
        ) {
            Ok(Some(step)) => {
                // handshake: decide() moved to AwaitAnswer
                let _ = step;
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Fail the current [`Step::Resolve`]: the resolver's own dependency `dependency`
    /// could not be built. The round fails with the reference's message.
    pub fn resolve_failed(&mut self, dependency: &str) -> Result<(), Error> {
        let i = self.expect_resolve("resolve_failed")?;
        let e = Error::ResolverDependency {
            param: name(self.plan.params[i].name),
            dependency: name(dependency),
        };
        Err(self.fail(e))
    }

    /// Handshake era: answer the current [`Step::Ask`] with the client's ElicitResult
    /// (`{"action":"accept","content":{...}}`, `{"action":"decline"}`, ...).
    pub fn answer(&mut self, elicit_result_json: &str) -> Result<(), Error> {
        let i = match self.phase {
            Phase::AwaitAnswer(i) => i as usize,
            Phase::Failed => {
                return Err(self.error.clone().expect("failed rounds keep their error"))
            }
            Phase::AwaitResolve(_) => {
                return Err(Error::WrongStep {
                    expected: "a resolve_* answer to the Resolve step",
                    got: "answer",
                })
            }
            _ => {
                return Err(Error::WrongStep {
                    expected: "a poll",
                    got: "answer",
                })
            }
        };
        let pname = self.plan.params[i].name;
        let probe = match Value::parse(elicit_result_json) {
            Ok(v) => v,
            Err(_) => return Err(self.fail(Error::NotElicitResult { param: name(pname) })),
        };
        if !matches!(classify_reply(probe), Some(Reply::Elicit { .. })) {
            return Err(self.fail(Error::NotElicitResult { param: name(pname) }));
        }
        let text = self.copy_in(elicit_result_json)?;
        let v = Value::parse(text).map_err(|_| Error::NotElicitResult { param: name(pname) })?;
        let Some(Reply::Elicit { action, content }) = classify_reply(v) else {
            return Err(self.fail(Error::NotElicitResult { param: name(pname) }));
        };
        if action == Action::Accept && content.is_none() {
            return Err(self.fail(Error::AcceptedWithoutContent { param: name(pname) }));
        }
        let ty = self.question(i).map_or(self.plan.params[i].ty, |q| q.ty);
        if let Err(e) = self.settle(i, Check::Against(&ty), action, content) {
            return Err(self.fail(e));
        }
        self.phase = Phase::Running;
        Ok(())
    }

    // ------------------------------------------------------------------ outputs

    /// During [`Step::Resolve`]: the resolver's inputs as a JSON object
    /// `{"need": value, ...}` (arguments as the call sent them, elicited values settled).
    pub fn write_resolve_inputs(&self, out: &mut dyn Sink) -> Result<(), Error> {
        let Phase::AwaitResolve(i) = self.phase else {
            return Err(self.out_of_step("a Resolve step", "write_resolve_inputs"));
        };
        let needs: &[u8] = match &self.plan.params[i as usize].ask {
            Some(AskKind::Resolver { needs, .. }) => needs,
            _ => &[],
        };
        out.put(b"{");
        for (k, &j) in needs.iter().enumerate() {
            if k > 0 {
                out.put(b",");
            }
            write_str(self.plan.params[j as usize].name, false, out);
            out.put(b":");
            self.write_param_value(j as usize, Style::WIRE, out);
        }
        out.put(b"}");
        Ok(())
    }

    /// [`Round::write_resolve_inputs`] into a caller buffer; returns the length, or
    /// [`Error::BufferTooSmall`] with the size needed.
    pub fn resolve_inputs_into(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let mut s = SliceSink::new(buf);
        self.write_resolve_inputs(&mut s)?;
        s.finish()
            .map_err(|needed| Error::BufferTooSmall { needed })
    }

    /// The value a parameter has now (argument, default, resolver value or settled
    /// answer) in `style`.
    fn write_param_value(&self, j: usize, style: Style, out: &mut dyn Sink) {
        let p = &self.plan.params[j];
        if p.ask.is_none() {
            match self.args.get(p.name).or(p.default) {
                Some(v) => write_value(v, style, out),
                None => out.put(b"null"),
            }
            return;
        }
        let slot = &self.slots[j];
        match slot.source {
            Source::None => out.put(b"null"),
            Source::Host(v) => write_value(v, style, out),
            Source::Answer {
                action,
                content,
                value,
            } => {
                let ty = match slot.asks {
                    Asks::Resolver { typed: true, .. } => self.question(j).map_or(p.ty, |q| q.ty),
                    _ => p.ty,
                };
                // An accepted answer as the Python value it settles to.
                let settled = |c: Value<'_>, out: &mut dyn Sink| match value {
                    Some(v) => ty.write_normalized(v, style, out),
                    None => ty.write_settled(c, style, out),
                };
                let sep: &[u8] = if style.spaced { b", " } else { b"," };
                let colon: &[u8] = if style.spaced { b": " } else { b":" };
                if p.outcome {
                    out.put(b"{\"action\"");
                    out.put(colon);
                    write_str(action.as_str(), style.ascii, out);
                    if action == Action::Accept {
                        out.put(sep);
                        out.put(b"\"value\"");
                        out.put(colon);
                        match content {
                            Some(c) => settled(c, out),
                            None => out.put(b"null"),
                        }
                    }
                    out.put(b"}");
                } else if action == Action::Accept {
                    match content {
                        Some(c) => settled(c, out),
                        None => out.put(b"null"),
                    }
                } else {
                    match p.default {
                        Some(d) => write_value(d, style, out),
                        None => out.put(b"null"),
                    }
                }
            }
        }
    }

    /// During [`Step::Ask`] (handshake era): the `elicitation/create` params
    /// `{"mode":"form","message":...,"requestedSchema":...}`.
    pub fn write_ask(&self, out: &mut dyn Sink) -> Result<(), Error> {
        let Phase::AwaitAnswer(i) = self.phase else {
            return Err(self.out_of_step("an Ask step", "write_ask"));
        };
        let Some(q) = self.question(i as usize) else {
            return Err(self.out_of_step("an Ask step", "write_ask"));
        };
        write_params(
            q.message,
            &q.ty,
            q.title,
            q.description,
            Render::wire(false),
            out,
        );
        Ok(())
    }

    /// After [`Step::Done`]: the elicited parameters' values, `{"name": value, ...}` in
    /// resolution order, rendered in `style` (use [`Style::WIRE`] for compact UTF-8).
    pub fn write_values(&self, style: Style, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::Done {
            return Err(self.out_of_step("Done", "write_values"));
        }
        out.put(b"{");
        for (k, &i) in self.plan.order.iter().enumerate() {
            if k > 0 {
                out.put(if style.spaced { b", " } else { b"," });
            }
            write_str(self.plan.params[i as usize].name, style.ascii, out);
            out.put(if style.spaced { b": " } else { b":" });
            self.write_param_value(i as usize, style, out);
        }
        out.put(b"}");
        Ok(())
    }

    /// After [`Step::Done`]: one parameter's value (by signature index), elicited or not.
    pub fn write_value_of(
        &self,
        param: usize,
        style: Style,
        out: &mut dyn Sink,
    ) -> Result<(), Error> {
        if self.phase != Phase::Done {
            return Err(self.out_of_step("Done", "write_value_of"));
        }
        if param >= self.plan.params.len() {
            return Err(Error::WrongStep {
                expected: "a parameter index of the plan",
                got: "write_value_of",
            });
        }
        self.write_param_value(param, style, out);
        Ok(())
    }

    /// After [`Step::InputRequired`]: the `inputRequests` object,
    /// `{"name":{"method":"elicitation/create","params":{...}}, ...}`, compact UTF-8.
    /// With `client_view`, a schema's top-level `title` is left out, as the MCP SDK's
    /// 2026-07-28 serializer leaves it out (the digest still covers it).
    pub fn write_input_requests(&self, client_view: bool, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::InputRequired {
            return Err(self.out_of_step("InputRequired", "write_input_requests"));
        }
        out.put(b"{");
        let mut first = true;
        for (i, _) in self.pending() {
            let Some(q) = self.question(i) else { continue };
            if !first {
                out.put(b",");
            }
            first = false;
            write_str(self.plan.params[i].name, false, out);
            out.put(b":{\"method\":\"elicitation/create\",\"params\":");
            write_params(
                q.message,
                &q.ty,
                q.title,
                q.description,
                Render::wire(client_view),
                out,
            );
            out.put(b"}");
        }
        out.put(b"}");
        Ok(())
    }

    /// After [`Step::InputRequired`]: the plaintext `requestState` to seal and send.
    pub fn write_request_state(&self, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::InputRequired {
            return Err(self.out_of_step("InputRequired", "write_request_state"));
        }
        out.put(b"{\"v\":1,\"answers\":{");
        let mut first = true;
        for &i in self.plan.order.iter() {
            let slot = &self.slots[i as usize];
            if !slot.carried {
                continue;
            }
            let Source::Answer {
                action, content, ..
            } = slot.source
            else {
                continue;
            };
            if !first {
                out.put(b",");
            }
            first = false;
            write_str(self.plan.params[i as usize].name, true, out);
            out.put(b":{\"action\":\"");
            out.put(action.as_str().as_bytes());
            out.put(b"\",\"data\":");
            match content {
                Some(c) => write_value(c, Style::STATE, out),
                None => out.put(b"null"),
            }
            out.put(b",\"q\":\"");
            out.put(&digest_text(&slot.digest));
            out.put(b"\"}");
        }
        out.put(b"},\"asked\":{");
        let mut first = true;
        for (i, slot) in self.pending() {
            if !first {
                out.put(b",");
            }
            first = false;
            write_str(self.plan.params[i].name, true, out);
            out.put(b":\"");
            out.put(&digest_text(&slot.digest));
            out.put(b"\"");
        }
        out.put(b"}}");
        Ok(())
    }

    /// The digest (22 characters, base64url) of the question parameter `param` asks
    /// this round, if it was rendered.
    pub fn digest_of(&self, param: usize) -> Option<[u8; 22]> {
        let slot = self.slots.get(param)?;
        match slot.asks {
            Asks::Nothing => None,
            _ => Some(digest_text(&slot.digest)),
        }
    }

    /// The message text of the question parameter `param` asks this round (raw JSON
    /// string contents), if rendered; write it decoded with [`write_json_str`].
    pub fn write_message_of(&self, param: usize, out: &mut dyn Sink) -> bool {
        match self.question(param) {
            Some(q) => {
                write_json_str(q.message, false, out);
                true
            }
            None => false,
        }
    }
}

const QUESTION_NOT_OBJECT: Problem = Problem::QUESTION_NOT_OBJECT;
const QUESTION_UNKNOWN_KEY: Problem = Problem::QUESTION_UNKNOWN_KEY;

const QUESTION_NOT_JSON: Problem = Problem::QUESTION_NOT_JSON;

/// A question's members, by name (the last occurrence of a key wins).
#[derive(Clone, Copy, Default)]
struct QuestionFields<'a> {
    message: Option<Value<'a>>,
    ty: Option<Value<'a>>,
    title: Option<Value<'a>>,
    description: Option<Value<'a>>,
}

/// Validate a resolver's question text and read its members in the same pass: the
/// question (surrounding whitespace trimmed) and its fields. Not JSON comes first, then
/// not an object, then a key outside the four.
fn scan_question(text: &str) -> Result<(Value<'_>, QuestionFields<'_>), Problem> {
    let b = text.as_bytes();
    let start = skip_ws_at(b, 0);
    if b.get(start) != Some(&b'{') {
        return Err(match Value::parse(text) {
            Ok(_) => QUESTION_NOT_OBJECT,
            Err(_) => QUESTION_NOT_JSON,
        });
    }
    let compact = match cfg!(feature = "small-code") {
        true => None,
        false => scan_question_compact(text, start),
    };
    match compact {
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

/// A question's parts from its fields: message, answer type (the parameter's unless the
/// question types it), title, description, and whether it carried its own type.
#[allow(clippy::type_complexity)]
fn question_parts<'a>(
    f: QuestionFields<'a>,
    param_ty: &Ty<'a>,
) -> Result<(Str<'a>, Ty<'a>, Option<Str<'a>>, Option<Str<'a>>, bool), Problem> {
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
    Ok((message, ty, title, description, typed))
}

/// The parts of a question already checked (a resolver's question, re-read from the
/// workspace).
#[allow(clippy::type_complexity)]
fn parse_question<'a>(
    v: Value<'a>,
    param_ty: &Ty<'a>,
) -> Result<(Str<'a>, Ty<'a>, Option<Str<'a>>, Option<Str<'a>>, bool), Problem> {
    let (_, f) = scan_question(v.raw())?;
    question_parts(f, param_ty)
}

#[cfg(feature = "alloc")]
impl<const N: usize> Round<'_, '_, N> {
    fn owned(
        f: impl FnOnce(&mut alloc::vec::Vec<u8>) -> Result<(), Error>,
    ) -> Result<alloc::string::String, Error> {
        let mut v = alloc::vec::Vec::new();
        f(&mut v)?;
        alloc::string::String::from_utf8(v).map_err(|_| Error::BufferTooSmall { needed: 0 })
    }
    /// [`Round::write_resolve_inputs`] as a `String`.
    pub fn resolve_inputs_json(&self) -> Result<alloc::string::String, Error> {
        Self::owned(|v| self.write_resolve_inputs(v))
    }
    /// [`Round::write_ask`] as a `String`.
    pub fn ask_json(&self) -> Result<alloc::string::String, Error> {
        Self::owned(|v| self.write_ask(v))
    }
    /// [`Round::write_values`] (compact UTF-8) as a `String`.
    pub fn values_json(&self) -> Result<alloc::string::String, Error> {
        Self::owned(|v| self.write_values(Style::WIRE, v))
    }
    /// [`Round::write_input_requests`] as a `String`.
    pub fn input_requests_json(&self, client_view: bool) -> Result<alloc::string::String, Error> {
        Self::owned(|v| self.write_input_requests(client_view, v))
    }
    /// [`Round::write_request_state`] as a `String`.
    pub fn request_state(&self) -> Result<alloc::string::String, Error> {
        Self::owned(|v| self.write_request_state(v))
    }
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
            Ok((end, Some(Reply::Elicit { action, content }))) => {
                format!("{end} {action:?} {:?}", content.map(|c| c.raw()))
            }
            Ok((end, Some(Reply::Other))) => format!("{end} other"),
            Ok((end, None)) => format!("{end} none"),
            Err(e) => format!("{e:?}"),
        }
    }

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
        for r in &replies {
            for tail in ["", "}", ",1]", " "] {
                let text = format!("{r}{tail}");
                let any = show(scan_reply_any(&text, 0, 1));
                assert_eq!(show(scan_reply(&text, 0, 1)), any, "{text}");
                if let Some((end, reply)) = scan_reply_compact(&text, 0, 1) {
                    assert_eq!(show(Ok((end, Some(reply)))), any, "{text}");
                }
            }
        }
        assert!(scan_reply_compact(r#"{"action":"accept","content":{"value":1}}"#, 0, 1).is_some());
        assert!(scan_reply_compact(r#"{"action":"decline"}"#, 0, 1).is_some());
    }
}
