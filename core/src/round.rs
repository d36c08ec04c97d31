//! The sans-IO round machine.
//!
//! A [`Round`] decides one round of one call over a [`Plan`]. It never calls host code:
//! when it needs a resolver run it says so through [`Round::poll`], and the host answers
//! with [`Round::resolve_value`], [`Round::resolve_question`] (or, for a message alone
//! given as text, [`Round::resolve_message`]) or [`Round::resolve_failed`]; on the handshake era it hands out one question at a time
//! ([`Step::Ask`]) and takes the client's reply with [`Round::answer`].
//!
//! # The drain rule
//!
//! After creating a round ([`Round::new`]) and after every `resolve_*`/`answer` call,
//! call [`Round::poll`] until it returns a step that needs the host ([`Step::Resolve`],
//! [`Step::Ask`]) or a terminal one ([`Step::Done`], [`Step::InputRequired`], or an
//! error); read a step's outputs (`write_*`) only while the round is at that step. Answering a step that is not the current one returns
//! [`Error::WrongStep`] and changes nothing. Polling again without answering returns
//! the same step. Once a round fails, every later call returns the same error.
//!
//! # Memory
//!
//! The round holds no heap memory: room for `N` slots (one per parameter) inline, and a caller
//! workspace (`&mut [u8]`) into which it copies the JSON the host hands it (resolver
//! values and questions, handshake replies; of a question that is a message alone, only
//! the message's text, and only while it is asked). The call's [`Inputs`] (arguments, state,
//! replies) are borrowed. [`Round::new_in`] builds the round in a caller's `Option`
//! instead of returning it (the same checks), which spares a stack-counting caller a
//! temporary copy of the round while it is created.
//!
//! # Outputs
//!
//! A resolver's inputs are read one by one, by name, as the JSON the round holds
//! ([`Round::resolve_input`]), or written as one object ([`Round::write_resolve_inputs`]).
//! Every output is written into a [`Sink`] by a `write_*` method (a [`crate::SliceSink`]
//! over a caller buffer reports the size needed when the buffer is too small). With
//! `alloc`, `*_json` methods collect the same bytes into a `String`.
//!
//! # Where the parts live
//!
//! This file is the machine. The state's codec is `state.rs`; a resolver's
//! question is read by `question.rs`; replies (`inputResponses`, a handshake
//! ElicitResult) by `reply.rs`.

use crate::digest::QDigest;
use crate::error::{name, Error, Problem};
use crate::input::{Capabilities, InputKind};
use crate::json::{
    json_contents_ascii, put_plain, write_json_str, write_str, write_value, Kind, Sink, Str, Style,
    Value,
};
use crate::plan::{AskKind, LiteralQ, Param, Plan, RequestQ, UrlQ};
use crate::question::{
    parse_question, question_digest, question_parts, read_request, scan_question, scan_request,
    Question, QuestionFields, Request,
};
use crate::reply::{classify_reply, read_replies, Reply};
use crate::state::{self, q_matches, Action, Carried, Held, Recorded};
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
    /// Handshake era: send the request whose params [`Round::write_ask`] writes (its
    /// method is [`InputKind::method`] of the parameter's [`Plan::kind`]) to the client
    /// and answer with [`Round::answer`].
    Ask {
        /// The parameter (signature index).
        param: usize,
    },
    /// Every elicited parameter is settled: read [`Round::write_values`].
    Done,
    /// Questions remain: read [`Round::write_input_requests`] and
    /// [`Round::write_request_state`].
    InputRequired,
    /// A declared fallback (docs/fallback.md): the client cannot be asked for some
    /// parameter that must still be answered, and the call's arguments do not answer
    /// it. Answer the call with the tool result [`Round::write_fallback_result`]
    /// writes (`isError: true`, telling the model what to ask the user). Only a plan
    /// compiled with `"fallback": "arguments"` (feature `fallback`) gets here.
    Fallback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Unvisited,
    /// Needs something unanswered; not rendered this round.
    Waiting,
    /// Asked this round.
    Pending,
    /// A declared fallback: the client cannot be asked, the arguments do not answer it,
    /// and it has no default (see [`Round::fall_back`]). The private parts of the
    /// fallback are compiled only with the feature (a device without it links none).
    #[cfg(feature = "fallback")]
    Fallback,
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
    /// To check against this type (`true`: content read as `{"value":<scalar>}`, see
    /// [`Reply::Elicit`]).
    Against(&'t Ty<'a>, bool),
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
    /// A resolver's question of another kind (URL mode, sampling, roots), whole, in the
    /// workspace.
    Request { question: Value<'a> },
    /// A resolver's question that is a message alone, answered already (from the state
    /// or a reply): settled, it is never rendered, so only its digest is kept and its
    /// message is not copied into the workspace.
    Answered,
}

#[derive(Debug, Clone, Copy)]
struct Slot<'a> {
    status: Status,
    source: Source<'a>,
    asks: Asks<'a>,
    /// The digest of the question in `asks`.
    digest: QDigest,
    /// Whether the answer is carried in the next state.
    carried: bool,
    /// Settled, this round, by a reply that came without a state, or from a value
    /// that was: a question built from it would not have been asked yet, so a reply to
    /// it does not count (see [`Round::decide`]).
    late: bool,
    /// The state's `answers` entry for this parameter (last one wins), read once per
    /// round by [`Round::index`].
    recorded: Option<Recorded<'a>>,
    /// The state's `asked` digest for this parameter.
    asked: Option<Value<'a>>,
    /// This parameter's reply in `inputResponses`, classified.
    reply: Option<Reply<'a>>,
    /// A declared fallback with no argument for it: listed in the fallback result
    /// (required when its status is [`Status::Fallback`], else settled to its default).
    #[cfg(feature = "fallback")]
    listed: bool,
}

/// The error for a parameter index outside the plan (see [`Round::param`]).
const NO_PARAM: Error = Error::WrongStep {
    expected: "a parameter index of the plan",
    got: "an index past its end",
};

impl Slot<'_> {
    /// A slot before its parameter is visited, built field by field where it is pushed:
    /// pushing a `const` slot copied all its 192 bytes with a call to `memcpy` per
    /// parameter (PERF.md), where these stores write only the fields' tags and the digest.
    #[inline]
    fn empty() -> Self {
        Slot {
            status: Status::Unvisited,
            source: Source::None,
            asks: Asks::Nothing,
            digest: [0; 22],
            carried: false,
            late: false,
            recorded: None,
            asked: None,
            reply: None,
            #[cfg(feature = "fallback")]
            listed: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    AwaitResolve(u8),
    AwaitAnswer(u8),
    Done,
    InputRequired,
    #[cfg(feature = "fallback")]
    Fallback,
    Failed,
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
    /// The kinds of request the client declared.
    caps: Capabilities,
    /// The kinds of the questions pending this round (see [`Round::gate`]).
    asking: Capabilities,
    /// No `requestState` came with the call: a reply counts for the question this round
    /// asks (see [`Round::decide`]).
    stateless: bool,
    /// A parameter is at [`Status::Fallback`].
    #[cfg(feature = "fallback")]
    falling_back: bool,
}

/// The call's inputs to a round, borrowed for the round's life (see [`Round::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inputs<'a> {
    /// The call's `arguments` (a JSON object).
    pub arguments: &'a str,
    /// The plaintext `requestState` (already unsealed; anything unreadable counts as no
    /// progress). 2026-07-28 era only.
    pub request_state: Option<&'a str>,
    /// The raw `inputResponses` object. 2026-07-28 era only.
    pub input_responses: Option<&'a str>,
    /// The kinds of request the client declared ([`Capabilities::from_client_json`] of
    /// its ClientCapabilities). A round that would ask a question of another kind fails
    /// with [`Error::MissingCapability`] before showing anything. The constructors
    /// default to [`Capabilities::FORM`] (what `elicitation: {}` declares); pass the
    /// client's own with [`Inputs::with_capabilities`].
    pub capabilities: Capabilities,
}

impl<'a> Inputs<'a> {
    /// A 2026-07-28 round's inputs: the call's arguments, its `requestState` and its
    /// `inputResponses` (both `None` on the first round).
    pub const fn modern(
        arguments: &'a str,
        request_state: Option<&'a str>,
        input_responses: Option<&'a str>,
    ) -> Self {
        Inputs {
            arguments,
            request_state,
            input_responses,
            capabilities: Capabilities::FORM,
        }
    }

    /// The same inputs for a client that declared `capabilities`.
    pub const fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// A handshake-era round's inputs: the call's arguments alone.
    pub const fn handshake(arguments: &'a str) -> Self {
        Self::modern(arguments, None, None)
    }
}

impl Default for Inputs<'_> {
    /// No arguments (`{}`), no state, no replies.
    fn default() -> Self {
        Self::handshake("{}")
    }
}

/// Lays out the slots and matches what the state holds to parameters (see
/// [`crate::state::read`]): keys usually come in resolution order, so the parameter after
/// the last match is tried first.
struct Matcher<'m, 'r, 'a, const N: usize> {
    plan: &'r Plan<'a, N>,
    slots: &'m mut heapless::Vec<Slot<'a>, N>,
    guess: usize,
}

impl<'a, const N: usize> Matcher<'_, '_, 'a, N> {
    /// The slot of the parameter named `key`, if one.
    fn find(&mut self, key: Str<'_>) -> Option<&mut Slot<'a>> {
        let plan = self.plan;
        let named = |i: u8| {
            plan.params
                .get(usize::from(i))
                .is_some_and(|p| key.eq_str(p.name))
        };
        let i = match plan.order.get(self.guess) {
            Some(&i) if named(i) => {
                self.guess += 1;
                i
            }
            _ => {
                let (at, &i) = plan.order.iter().enumerate().find(|(_, &i)| named(i))?;
                self.guess = at + 1;
                i
            }
        };
        self.slots.get_mut(usize::from(i))
    }
}

impl<'a, const N: usize> Held<'a> for Matcher<'_, '_, 'a, N> {
    fn clear_answers(&mut self) {
        self.guess = 0;
        for slot in self.slots.iter_mut() {
            slot.recorded = None;
        }
    }
    fn clear_asked(&mut self) {
        // The guess stays: `asked` usually names what follows the last answer.
        for slot in self.slots.iter_mut() {
            slot.asked = None;
        }
    }
    fn answer(&mut self, name: Str<'a>, recorded: Recorded<'a>) {
        if let Some(slot) = self.find(name) {
            slot.recorded = Some(recorded);
        }
    }
    fn asked(&mut self, name: Str<'a>, q: Value<'a>) {
        if let Some(slot) = self.find(name) {
            slot.asked = Some(q);
        }
    }
}

impl<'r, 'a, const N: usize> Round<'r, 'a, N> {
    /// Start a round of one call over `plan` for `era`. `workspace` holds what the host
    /// hands over later (resolver values and questions, handshake replies). Then drain
    /// it (see the module docs).
    ///
    /// ```
    /// # use elicit_core::{Era, Inputs, Plan, Round, Step};
    /// # let plan: Plan<'_, 4> = Plan::compile(r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#)?;
    /// let mut workspace = [0u8; 64];
    /// let mut round = Round::new(&plan, Era::Modern, Inputs::modern("{}", None, None), &mut workspace)?;
    /// assert_eq!(round.poll()?, Step::InputRequired);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Errors: a handshake-era round given a `requestState` or `inputResponses`
    /// ([`Error::HandshakeInputs`]: that era carries no state); arguments that are not a
    /// JSON object ([`Error::Arguments`]); `inputResponses` that is not an object of
    /// InputResponses ([`Error::InputResponses`], the protocol layer's `-32602`).
    #[inline(always)]
    pub fn new(
        plan: &'r Plan<'a, N>,
        era: Era,
        inputs: Inputs<'a>,
        workspace: &'a mut [u8],
    ) -> Result<Self, Error> {
        let mut round = Self::build(plan, era, workspace);
        round.start(inputs)?;
        Ok(round)
    }

    /// [`Round::new`], built in the caller's `slot` instead of returned, for callers
    /// that count their stack: a `Round` holds its `N` slots inline, and returning it
    /// (inside a `Result`) costs a temporary copy of `size_of::<Round>()` bytes of stack
    /// while it is created. Returns the round, now in `slot`. Same inputs, same checks
    /// and same errors as [`Round::new`]; on an error `slot` holds that failed round
    /// (every call on it returns the error, as on any failed round).
    ///
    /// ```
    /// # use elicit_core::{Era, Inputs, Plan, Round, Step};
    /// # let plan: Plan<'_, 4> = Plan::compile(r#"{"tool":"t","parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#)?;
    /// let mut workspace = [0u8; 64];
    /// let mut slot = None;
    /// let round = Round::new_in(&mut slot, &plan, Era::Modern, Inputs::default(), &mut workspace)?;
    /// assert_eq!(round.poll()?, Step::InputRequired);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_in<'s>(
        slot: &'s mut Option<Self>,
        plan: &'r Plan<'a, N>,
        era: Era,
        inputs: Inputs<'a>,
        workspace: &'a mut [u8],
    ) -> Result<&'s mut Self, Error> {
        let round = slot.insert(Self::build(plan, era, workspace));
        match round.start(inputs) {
            Ok(()) => Ok(round),
            Err(e) => Err(round.fail(e)),
        }
    }

    /// The round as one struct literal, so it is built in place: a round holds `N`
    /// slots inline, and every move after construction would copy them all.
    #[inline(always)]
    fn build(plan: &'r Plan<'a, N>, era: Era, workspace: &'a mut [u8]) -> Self {
        Round {
            plan,
            era,
            args: Value::validated("{}"),
            free: workspace,
            slots: heapless::Vec::new(),
            cursor: 0,
            phase: Phase::Running,
            error: None,
            notes: heapless::Vec::new(),
            caps: Capabilities::FORM,
            asking: Capabilities::NONE,
            stateless: true,
            #[cfg(feature = "fallback")]
            falling_back: false,
        }
    }

    /// Check the inputs, lay out the slots and match the replies and the state's
    /// `answers` and `asked` entries to parameters, once per round, while checking them:
    /// one pass over each object instead of a scan per parameter. A repeated key keeps
    /// its last entry, as a Python dict does. Every reply must be an InputResponse; the
    /// state is all-or-nothing (see [`crate::state`]).
    #[inline(always)]
    fn start(&mut self, inputs: Inputs<'a>) -> Result<(), Error> {
        if self.era == Era::Handshake {
            if inputs.request_state.is_some() {
                return Err(Error::HandshakeInputs {
                    input: "requestState",
                });
            }
            if inputs.input_responses.is_some() {
                return Err(Error::HandshakeInputs {
                    input: "inputResponses",
                });
            }
        }
        // No arguments at all (a tool whose parameters are all elicited): the text
        // `build` already holds, without the validating walk.
        let args = match inputs.arguments {
            "{}" => self.args,
            text => Value::parse(text).map_err(|_| Error::Arguments {
                problem: Problem::NOT_JSON,
            })?,
        };
        if args.kind() != Kind::Object {
            return Err(Error::Arguments {
                problem: Problem::NOT_OBJECT,
            });
        }
        self.args = args;
        if inputs.request_state.is_some_and(state::is_sealed_token) {
            return Err(Error::SealedState);
        }
        self.caps = inputs.capabilities;
        self.stateless = inputs.request_state.is_none();
        for _ in 0..self.plan.params.len() {
            // Cannot fail: a plan holds at most N parameters.
            let _ = self.slots.push(Slot::empty());
        }
        let mut matcher = Matcher {
            plan: self.plan,
            slots: &mut self.slots,
            guess: 0,
        };
        if let Some(text) = inputs.input_responses {
            read_replies(text, &mut |k, reply| {
                if let Some(slot) = matcher.find(k) {
                    slot.reply = Some(reply);
                }
            })?;
        }
        if let Some(text) = inputs.request_state {
            matcher.guess = 0;
            state::read(text, &mut matcher);
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

    // Out of line (as `out_of_step`): inlined, the callers' frames each grow by an
    // error's copy, and so does a device's stack peak.
    #[inline(never)]
    fn fail(&mut self, e: Error) -> Error {
        self.phase = Phase::Failed;
        self.error = Some(e);
        e
    }

    /// The error every call on a failed round returns.
    fn failed(&self, got: &'static str) -> Error {
        self.error.unwrap_or(Error::WrongStep {
            expected: "nothing (the round failed)",
            got,
        })
    }

    /// Parameter `i` of the plan. Every index the round uses comes from the plan (its
    /// order, a resolver's needs, a step the round handed out), and the round lays out
    /// one slot per parameter, so this and [`Round::slot_mut`] always find theirs; were
    /// one not to, the call fails instead of panicking.
    fn param(&self, i: usize) -> Result<&'r Param<'a>, Error> {
        self.plan.params.get(i).ok_or(NO_PARAM)
    }

    /// Parameter `i`'s slot (see [`Round::param`]).
    fn slot_mut(&mut self, i: usize) -> Result<&mut Slot<'a>, Error> {
        self.slots.get_mut(i).ok_or(NO_PARAM)
    }

    /// The parameters asked this round (signature index and slot), in resolution order.
    fn pending(&self) -> impl Iterator<Item = (usize, &'r Param<'a>, &Slot<'a>)> + '_ {
        let plan = self.plan;
        plan.order
            .iter()
            .filter_map(|&i| {
                let i = usize::from(i);
                Some((i, plan.params.get(i)?, self.slots.get(i)?))
            })
            .filter(|(_, _, slot)| slot.status == Status::Pending)
    }

    /// The error for reading an output the current step does not offer: the terminal
    /// error once the round failed, else [`Error::WrongStep`].
    #[inline(never)]
    fn out_of_step(&self, got: &'static str) -> Error {
        self.error.unwrap_or(Error::WrongStep {
            expected: self.waiting_for(),
            got,
        })
    }

    /// What the round waits for now, in words every surface can show (no method names).
    fn waiting_for(&self) -> &'static str {
        match self.phase {
            Phase::Running => "a request for its next step",
            Phase::AwaitResolve(_) => "the resolver's value or question",
            Phase::AwaitAnswer(_) => "the client's answer to the question asked",
            Phase::Done => "nothing more (it is done: read the values)",
            Phase::InputRequired => {
                "nothing more (it needs input: read the input requests and the request state)"
            }
            #[cfg(feature = "fallback")]
            Phase::Fallback => {
                "nothing more (the client cannot be asked: read the fallback result)"
            }
            Phase::Failed => "nothing (the round failed)",
        }
    }

    fn copy_in(&mut self, text: &str) -> Result<&'a str, Error> {
        let buf = core::mem::take(&mut self.free);
        if text.len() > buf.len() {
            let needed = text.len() - buf.len();
            self.free = buf;
            return Err(Error::Workspace { needed });
        }
        let (head, tail) = buf.split_at_mut(text.len());
        // A whole answer, not one of the renderers' short pieces: a plain copy (the
        // short-copy routine inlined here cost about 150 B of flash, and no speed).
        head.copy_from_slice(text.as_bytes());
        self.free = tail;
        let head: &'a [u8] = head;
        core::str::from_utf8(head).map_err(|_| Error::Workspace { needed: 0 })
    }

    /// Advance the round. See the module docs for the drain rule.
    pub fn poll(&mut self) -> Result<Step, Error> {
        match self.phase {
            Phase::Failed => Err(self.failed("a request for the next step")),
            Phase::Done => Ok(Step::Done),
            Phase::InputRequired => Ok(Step::InputRequired),
            #[cfg(feature = "fallback")]
            Phase::Fallback => Ok(Step::Fallback),
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
        while let Some(&i) = plan.order.get(self.cursor) {
            let i = usize::from(i);
            // Every order index is a parameter's (checked when the plan was made).
            let ask = plan.params.get(i).map(|p| (p, &p.ask));
            match ask {
                Some((p, Some(AskKind::Literal(LiteralQ { digest, .. })))) => {
                    self.cursor += 1;
                    if let Some(step) = self.decide(i, p, &p.ty, digest, Asks::Literal)? {
                        return Ok(step);
                    }
                }
                // Without `input-kinds`, plans hold none of these (refused on load).
                Some((p, Some(AskKind::Url(UrlQ { digest, .. }))))
                | Some((p, Some(AskKind::Sampling(RequestQ { digest, .. }))))
                | Some((p, Some(AskKind::Roots(RequestQ { digest, .. }))))
                    if cfg!(feature = "input-kinds") =>
                {
                    self.cursor += 1;
                    if let Some(step) = self.decide(i, p, &p.ty, digest, Asks::Literal)? {
                        return Ok(step);
                    }
                }
                Some((_, Some(AskKind::Resolver { needs, .. }))) => {
                    let mut waiting = false;
                    for &j in needs.iter() {
                        let j = usize::from(j);
                        // Every need is a parameter's (checked when the plan was made).
                        let Some(need) = plan.params.get(j) else {
                            continue;
                        };
                        if need.ask.is_some() {
                            if self
                                .slots
                                .get(j)
                                .is_none_or(|s| s.status != Status::Settled)
                            {
                                waiting = true;
                            }
                        } else if self.args.get(need.name).is_none() && need.default.is_none() {
                            return Err(Error::MissingArgument {
                                name: name(need.name),
                            });
                        }
                    }
                    if waiting {
                        if let Some(slot) = self.slots.get_mut(i) {
                            slot.status = Status::Waiting;
                        }
                        self.cursor += 1;
                        continue;
                    }
                    self.phase = Phase::AwaitResolve(i as u8);
                    return Ok(Step::Resolve { param: i });
                }
                _ => self.cursor += 1,
            }
        }
        #[cfg(feature = "fallback")]
        if self.falling_back {
            // The gate first: a parameter that must be asked and may not fall back fails
            // the call as without the fallback.
            if self.pending().next().is_some() {
                self.gate()?;
            }
            self.phase = Phase::Fallback;
            return Ok(Step::Fallback);
        }
        if self.pending().next().is_some() {
            self.gate()?;
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
            ) => parse_question(json, &p.ty).ok().map(|(q, _)| q),
            _ => None,
        }
    }

    /// The request parameter `i` makes this round (any kind), if it was rendered.
    #[inline]
    fn request(&self, i: usize) -> Option<Request<'a>> {
        if !cfg!(feature = "input-kinds") {
            return self.question(i).map(Request::Form);
        }
        let slot = self.slots.get(i)?;
        let p = self.plan.params.get(i)?;
        match slot.asks {
            Asks::Nothing | Asks::Answered => None,
            Asks::Literal => self.plan.literal_request(i).map(|(r, _)| r),
            Asks::Resolver { .. } => self.question(i).map(Request::Form),
            Asks::Request { question } => read_request(kind_of(p), question, &p.ty).ok(),
        }
    }

    /// Whether a resolver parameter's elicited needs include a value settled by a
    /// stateless reply of this call (directly or through a resolver's value).
    fn late_needs(&self, p: &Param<'a>) -> bool {
        let Some(AskKind::Resolver { needs, .. }) = &p.ask else {
            return false;
        };
        needs
            .iter()
            .any(|&j| self.slots.get(usize::from(j)).is_some_and(|s| s.late))
    }

    /// Capability gating, before anything is shown: the error when a question this
    /// round asks needs a kind the client did not declare (naming the first such
    /// parameter and every missing kind). `asking` (the kinds of the pending questions,
    /// gathered as they were decided) settles the common case without a walk.
    fn gate(&self) -> Result<(), Error> {
        if self.asking.without(self.caps).is_empty() {
            return Ok(());
        }
        let mut first = None;
        let mut missing = Capabilities::NONE;
        for (_, p, _) in self.pending() {
            let kind = kind_of(p);
            if !self.caps.contains(kind) {
                first = first.or(Some((p.name, kind, is_resolver(p))));
                missing = missing.with(kind);
            }
        }
        match first {
            None => Ok(()),
            Some((pname, kind, resolver)) => Err(Error::MissingCapability {
                param: name(pname),
                kind,
                resolver,
                missing,
            }),
        }
    }

    /// Decide parameter `i` (`p`) given the question it asks. Returns a step when the
    /// host must act (handshake ask).
    ///
    /// A reply counts when it answers the question asked last round (the state's
    /// `asked` digest equals this question's), or, when the call carries no
    /// `requestState` at all, when it answers a question the call's first round asks
    /// (deliberate deviation 6: a stateless client that answers the questions it would
    /// be asked gets the same result one round trip sooner; a question built from such
    /// an answer is asked in the next round, as it would have been).
    ///
    /// Records the question first (`asks`, and its `digest`), in the caller: inlined, the
    /// caller's question is stored straight into the slot. Passed on by value to an
    /// outlined function, it was reloaded whole right after the caller's smaller stores,
    /// a store-forwarding stall per question (PERF.md).
    #[inline(always)]
    fn decide(
        &mut self,
        i: usize,
        p: &'r Param<'a>,
        ty: &Ty<'a>,
        digest: &QDigest,
        asks: Asks<'a>,
    ) -> Result<Option<Step>, Error> {
        let kind = kind_of(p);
        #[cfg(feature = "fallback")]
        if p.fallback && !self.caps.contains(kind) {
            let slot = self.slots.get_mut(i).ok_or(NO_PARAM)?;
            slot.asks = asks;
            slot.digest = *digest;
            return self.fall_back(i, p, ty, kind);
        }
        if self.era == Era::Handshake && !self.caps.contains(kind) {
            return Err(Error::MissingCapability {
                param: name(p.name),
                kind,
                resolver: is_resolver(p),
                missing: Capabilities::NONE.with(kind),
            });
        }
        let slot = self.slots.get_mut(i).ok_or(NO_PARAM)?;
        slot.asks = asks;
        slot.digest = *digest;
        self.decide_recorded(i, p, ty, kind)
    }

    /// [`Round::decide`] for a parameter the client cannot be asked for, whose tool
    /// declares the fallback (docs/fallback.md), once the slot holds its question: the
    /// call's argument of the same name is the answer, checked as an accepted answer is
    /// (`ty`: the question's type) and never carried in the state; without one (or
    /// with `null`) a parameter with a default settles to it, any other is left at
    /// [`Status::Fallback`] for [`Step::Fallback`]. Either way it is listed in the
    /// fallback result. Replies and recorded answers are not read: the client was never
    /// asked.
    #[cfg(feature = "fallback")]
    #[inline(never)]
    fn fall_back(
        &mut self,
        i: usize,
        p: &'r Param<'a>,
        ty: &Ty<'a>,
        kind: InputKind,
    ) -> Result<Option<Step>, Error> {
        let argument = self.args.get(p.name).filter(|a| !a.is_null());
        let slot = self.slots.get_mut(i).ok_or(NO_PARAM)?;
        match (argument, p.default) {
            (Some(a), _) => {
                let value = match kind {
                    InputKind::Roots => crate::types::roots_argument_ok(a).then_some(None),
                    _ => ty.accept_argument(a),
                };
                let Some(value) = value else {
                    return Err(Error::SchemaMismatch {
                        param: name(p.name),
                    });
                };
                slot.source = Source::Answer {
                    action: Action::Accept,
                    content: Some(a),
                    value,
                };
                slot.status = Status::Settled;
            }
            (None, Some(default)) => {
                slot.source = Source::Host(default);
                slot.status = Status::Settled;
                slot.listed = true;
            }
            (None, None) => {
                slot.status = Status::Fallback;
                slot.listed = true;
                self.falling_back = true;
            }
        }
        Ok(None)
    }

    /// [`Round::decide`] once the slot holds the question and its digest.
    fn decide_recorded(
        &mut self,
        i: usize,
        p: &'r Param<'a>,
        ty: &Ty<'a>,
        kind: InputKind,
    ) -> Result<Option<Step>, Error> {
        let handshake = self.era == Era::Handshake;
        // Stateless, a reply counts only for a question the call's first round asks:
        // none of its elicited needs may stem from a reply of this same call.
        // (Only worked out when a reply could count that way.)
        let stateless = self.stateless
            && self
                .slots
                .get(i)
                .is_some_and(|s| s.reply.is_some() && s.asked.is_none())
            && !self.late_needs(p);
        let Some(slot) = self.slots.get_mut(i) else {
            return Err(NO_PARAM);
        };
        if handshake {
            self.phase = Phase::AwaitAnswer(i as u8);
            return Ok(Some(Step::Ask { param: i }));
        }
        let digest = &slot.digest;
        // 1. A recorded answer to this same question (checked here, so settling it does
        // not check it again).
        let mut answer = None;
        let mut checked = None;
        if let Some(rec) = &slot.recorded {
            if q_matches(rec.q, digest) {
                let usable = match rec.action {
                    Action::Accept => accepts(kind, ty, rec.data, rec.wrapped),
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
        // 2. A fresh reply, only for the question asked last round (or, stateless,
        // this round).
        let mut wrapped = false;
        if answer.is_none() {
            if let Some(reply) = &slot.reply {
                let asked_this = match slot.asked {
                    Some(a) => q_matches(a, digest),
                    None => stateless,
                };
                if !asked_this {
                    let _ = self.notes.push(Note::DiscardedReply { param: i });
                } else {
                    answer = Some(take_reply(kind, *reply, p.name)?);
                    wrapped = matches!(reply, Reply::Elicit { wrapped: true, .. });
                    slot.late = slot.asked.is_none();
                }
            }
        }
        match answer {
            // Nothing recorded or replied that counts: asked this round.
            None => {
                slot.status = Status::Pending;
                self.asking = self.asking.with(kind);
                Ok(None)
            }
            Some((action, content)) => {
                let check = match (checked, kind) {
                    (Some(value), _) => Check::Done(value),
                    (None, InputKind::Form) => Check::Against(ty, wrapped),
                    (None, _) => Check::Done(None),
                };
                let value = settle(p, check, action, content)?;
                slot.source = Source::Answer {
                    action,
                    content,
                    value,
                };
                slot.status = Status::Settled;
                slot.carried = true;
                Ok(None)
            }
        }
    }

    fn expect_resolve(&self, got: &'static str) -> Result<usize, Error> {
        match self.phase {
            Phase::AwaitResolve(i) => Ok(i as usize),
            Phase::Failed => Err(self.failed(got)),
            _ => Err(Error::WrongStep {
                expected: self.waiting_for(),
                got,
            }),
        }
    }

    /// Answer the current [`Step::Resolve`] with the value the resolver returned (any
    /// JSON): nothing is asked and nothing is carried.
    pub fn resolve_value(&mut self, value_json: &str) -> Result<(), Error> {
        let i = self.expect_resolve("a resolver's value")?;
        let param = self.param(i)?;
        let Ok(checked) = Value::parse(value_json) else {
            return Err(Error::ResolverAnswer {
                param: name(param.name),
                problem: Problem::VALUE_NOT_JSON,
            });
        };
        let late = self.late_needs(param);
        let at = (checked.raw().as_ptr() as usize).wrapping_sub(value_json.as_ptr() as usize);
        let text = self.copy_in(value_json)?;
        // The copy is byte for byte the checked text: the value is at the same place in
        // it, and needs no second parse.
        let v = text
            .get(at..at + checked.raw().len())
            .map(Value::validated)
            .ok_or(Error::Workspace { needed: 0 })?;
        let slot = self.slot_mut(i)?;
        slot.status = Status::Settled;
        slot.source = Source::Host(v);
        slot.late = late;
        self.cursor += 1;
        self.phase = Phase::Running;
        Ok(())
    }

    /// Answer the current [`Step::Resolve`] with the question the resolver decided to
    /// ask, in the shape of its kind: a form question
    /// `{"message": "...", "type"?: <type>, "title"?: "...", "description"?: "..."}`
    /// (`type` defaults to the parameter's type), `{"message": "...", "url": "..."}`,
    /// `{"sampling": {...}}` or `{"roots": {...}}`. The question takes its length of
    /// workspace (a form question that is a message alone, only its message's text, and
    /// none once it is answered; it must fit all the same).
    pub fn resolve_question(&mut self, question_json: &str) -> Result<(), Error> {
        let i = self.expect_resolve("a resolver's question")?;
        let param = self.param(i)?;
        let kind = kind_of(param);
        if kind != InputKind::Form {
            return self.resolve_request(i, param, kind, question_json);
        }
        let pname = param.name;
        let bad = |problem| Error::ResolverAnswer {
            param: name(pname),
            problem,
        };
        // Check before copying so a bad answer costs no workspace and changes nothing.
        let mut fields = QuestionFields::default();
        let probe = scan_question(question_json, &mut fields).map_err(bad)?;
        // Only a message: outputs need nothing else from it.
        let plain = fields.ty.is_none() && fields.title.is_none() && fields.description.is_none();
        let simple = match plain {
            true => fields.message.and_then(|m| m.as_str()),
            false => None,
        };
        // The common question, a message alone, is digested with the parameter's type
        // in place: no question value is assembled and handed back by value.
        let mut digest = [0; 22];
        let (typed, message) = match simple {
            Some(message) => {
                question_digest(message, false, &param.ty, None, None, &mut digest);
                (false, message)
            }
            None => match question_parts(fields, &param.ty) {
                Ok((q, typed)) => {
                    question_digest(q.message, false, &q.ty, q.title, q.description, &mut digest);
                    (typed, q.message)
                }
                Err(problem) => {
                    // A question of the right shape with bad contents fails the round.
                    self.copy_in(question_json)?;
                    return Err(self.fail(bad(problem)));
                }
            },
        };
        // What the slot keeps: a plain question's message alone (nothing else of it is
        // read again), else the question (surrounding whitespace trimmed), copied.
        let keep = if plain { message.raw() } else { probe.raw() };
        let (asks, ty) = if plain {
            // Decided first and copied only if it is asked (see `Asks::Answered`); a
            // question that would not fit fails the same way either way.
            if keep.len() > self.free.len() {
                return Err(Error::Workspace {
                    needed: keep.len() - self.free.len(),
                });
            }
            (Asks::Answered, param.ty)
        } else {
            let at = (message.raw().as_ptr() as usize).wrapping_sub(keep.as_ptr() as usize);
            let text = self.copy_in(keep)?;
            // The copy is byte for byte the validated text: no second validation.
            let Some(copied) = text.get(at..at + message.raw().len()) else {
                return Err(Error::Workspace { needed: 0 });
            };
            let more = Value::validated(text);
            // Its own answer type, borrowed from the copy (the rare case: read it again).
            let ty = match typed {
                true => match parse_question(more, &param.ty) {
                    Ok((q, _)) => q.ty,
                    Err(problem) => return Err(self.fail(bad(problem))),
                },
                false => param.ty,
            };
            let asks = Asks::Resolver {
                message: Str::validated(copied),
                more: Some(more),
                typed,
            };
            (asks, ty)
        };
        self.cursor += 1;
        self.phase = Phase::Running;
        // A handshake round moves on to its Ask step here.
        if let Err(e) = self.decide(i, param, &ty, &digest, asks) {
            return Err(self.fail(e));
        }
        if plain && self.slots.get(i).is_some_and(keeps_message) {
            let message = Str::validated(self.copy_in(keep)?);
            self.slot_mut(i)?.asks = Asks::Resolver {
                message,
                more: None,
                typed: false,
            };
        }
        Ok(())
    }

    /// Answer the current [`Step::Resolve`] with a form question that is a message alone,
    /// given as text rather than JSON: the same as [`Round::resolve_question`] with
    /// `{"message": <message as a JSON string>}`, for a host whose resolver returns its
    /// message (as the reference's returns `Elicit("…")`), so that it need not write it as
    /// JSON for the round to read again. A message with a character JSON escapes (a
    /// quote, a backslash, a control character) is refused ([`Error::ResolverAnswer`],
    /// nothing changed): pass that one to [`Round::resolve_question`] as JSON; so is a
    /// message for a resolver of another kind than form.
    ///
    /// Decided as `resolve_question` decides a message alone, by a call of its own: a
    /// firmware that answers with JSON links none of it (sharing the decision with
    /// `resolve_question` cost the firmware agent 72 B of flash; even the last step alone,
    /// keeping a still-asked message, as a helper of both cost the C firmware 40 B and the
    /// agent 56 B of flash and 128 B of stack, inlined or not).
    pub fn resolve_message(&mut self, message: &str) -> Result<(), Error> {
        let i = self.expect_resolve("a resolver's question")?;
        let param = self.param(i)?;
        // A message that renders as it is is checked and digested in one pass; any other
        // is checked first (refused if JSON would escape it), then digested through the
        // sink, `ascii` saying whether it renders as it is in the digest form (the check
        // has looked at every byte; the digest's writer need not look again).
        let kind = kind_of(param);
        let mut digest = [0; 22];
        let joined = kind == InputKind::Form
            && param.ty.shorthand_params_tail().is_some_and(|tail| {
                crate::digest::message_question(message.as_bytes(), tail, &mut digest)
            });
        if !joined {
            let checked = match kind {
                InputKind::Form => json_contents_ascii(message).ok_or(Problem::MESSAGE_NEEDS_JSON),
                _ => Err(Problem::MESSAGE_NOT_FORM),
            };
            let ascii = match checked {
                Ok(ascii) => ascii,
                Err(problem) => {
                    return Err(Error::ResolverAnswer {
                        param: name(param.name),
                        problem,
                    })
                }
            };
            // Digested with the parameter's type, decided, and copied only if it is
            // asked (it must fit all the same).
            question_digest(
                Str::validated(message),
                ascii,
                &param.ty,
                None,
                None,
                &mut digest,
            );
        }
        if message.len() > self.free.len() {
            return Err(Error::Workspace {
                needed: message.len() - self.free.len(),
            });
        }
        self.cursor += 1;
        self.phase = Phase::Running;
        if let Err(e) = self.decide(i, param, &param.ty, &digest, Asks::Answered) {
            return Err(self.fail(e));
        }
        if self.slots.get(i).is_some_and(keeps_message) {
            let message = Str::validated(self.copy_in(message)?);
            self.slot_mut(i)?.asks = Asks::Resolver {
                message,
                more: None,
                typed: false,
            };
        }
        Ok(())
    }

    /// [`Round::resolve_question`] for a resolver of a kind other than form: the question
    /// is checked before it is copied (a malformed one costs no workspace and changes
    /// nothing), then decided like a form question.
    fn resolve_request(
        &mut self,
        i: usize,
        param: &'r Param<'a>,
        kind: InputKind,
        question_json: &str,
    ) -> Result<(), Error> {
        let pname = param.name;
        let bad = |problem| Error::ResolverAnswer {
            param: name(pname),
            problem,
        };
        let (probe, digest) = scan_request(kind, question_json, &param.ty).map_err(bad)?;
        let start = (probe.raw().as_ptr() as usize).wrapping_sub(question_json.as_ptr() as usize);
        let len = probe.raw().len();
        let text = self.copy_in(question_json)?;
        // The copy is byte for byte the checked text.
        let question = text
            .get(start..start + len)
            .map(Value::validated)
            .ok_or(Error::Workspace { needed: 0 })?;
        self.cursor += 1;
        self.phase = Phase::Running;
        match self.decide(i, param, &param.ty, &digest, Asks::Request { question }) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Fail the current [`Step::Resolve`]: the resolver's own dependency `dependency`
    /// could not be built. The round fails with the reference's message.
    pub fn resolve_failed(&mut self, dependency: &str) -> Result<(), Error> {
        let i = self.expect_resolve("a resolver's failure")?;
        let e = Error::ResolverDependency {
            param: name(self.param(i)?.name),
            dependency: name(dependency),
        };
        Err(self.fail(e))
    }

    /// Handshake era: answer the current [`Step::Ask`] with the client's result for
    /// the request's kind: an ElicitResult (`{"action":"accept","content":{...}}`,
    /// `{"action":"decline"}`, ...; URL mode: the action alone), a CreateMessageResult
    /// (sampling) or a ListRootsResult (roots). When the client refused a sampling or
    /// roots request (a JSON-RPC error), answer `{"action":"decline"}`.
    pub fn answer(&mut self, result_json: &str) -> Result<(), Error> {
        let i = match self.phase {
            Phase::AwaitAnswer(i) => i as usize,
            Phase::Failed => return Err(self.failed("the client's answer")),
            _ => {
                return Err(Error::WrongStep {
                    expected: self.waiting_for(),
                    got: "the client's answer",
                })
            }
        };
        let param = self.param(i)?;
        let pname = param.name;
        let kind = kind_of(param);
        // Check before copying: a bad answer costs no workspace.
        let checked = match Value::parse(result_json).ok().and_then(classify_reply) {
            Some(reply) => take_reply(kind, reply, pname),
            None => Err(Error::WrongReply {
                param: name(pname),
                kind,
            }),
        };
        let (action, content) = match checked {
            Ok(answer) => answer,
            Err(e) => return Err(self.fail(e)),
        };
        let text = self.copy_in(result_json)?;
        // The copy is byte for byte the checked text: the content is at the same place
        // in it, and needs no second reading.
        let content = match content {
            None => None,
            Some(c) => {
                let at = (c.raw().as_ptr() as usize).wrapping_sub(result_json.as_ptr() as usize);
                let copied = text.get(at..at + c.raw().len());
                Some(
                    copied
                        .map(Value::validated)
                        .ok_or(Error::Workspace { needed: 0 })?,
                )
            }
        };
        let ty = self.question(i).map_or(param.ty, |q| q.ty);
        let check = match kind {
            InputKind::Form => Check::Against(&ty, false),
            _ => Check::Done(None),
        };
        let value = match settle(param, check, action, content) {
            Ok(value) => value,
            Err(e) => return Err(self.fail(e)),
        };
        let slot = self.slot_mut(i)?;
        slot.status = Status::Settled;
        slot.source = Source::Answer {
            action,
            content,
            value,
        };
        self.phase = Phase::Running;
        Ok(())
    }

    // ------------------------------------------------------------------ outputs

    /// During [`Step::Resolve`]: the resolver's inputs as a JSON object
    /// `{"need": value, ...}` (arguments as the call sent them, elicited values settled).
    /// A host that binds its resolver's inputs by name reads them without parsing this
    /// object with [`Round::resolve_input`].
    pub fn write_resolve_inputs(&self, out: &mut dyn Sink) -> Result<(), Error> {
        let Phase::AwaitResolve(i) = self.phase else {
            return Err(self.out_of_step("a read of the resolver's inputs"));
        };
        let needs: &[u8] = match &self.param(usize::from(i))?.ask {
            Some(AskKind::Resolver { needs, .. }) => needs,
            _ => &[],
        };
        // Each key's quotes go with the text around it (the sink's cost is per call).
        for (k, &j) in needs.iter().enumerate() {
            out.put(if k > 0 { b",\"" } else { b"{\"" });
            let need = self.param(usize::from(j))?;
            put_plain(need.name, false, out);
            out.put(b"\":");
            self.write_param_value(usize::from(j), need, Style::WIRE, out);
        }
        out.put(if needs.is_empty() { b"{}" } else { b"}" });
        Ok(())
    }

    /// During [`Step::Resolve`]: the value of the resolver's need `need` (a name from its
    /// `needs`) as the JSON the engine holds it in, for a host that reads its resolver's
    /// inputs by name rather than as the object [`Round::write_resolve_inputs`] writes
    /// (which it would parse again). It is the value that object carries for `need`,
    /// spelled as it arrived (an argument as the call sent it, a resolver's value, an
    /// accepted answer's value, a default). `Ok(None)` when `need` is not one of the
    /// resolver's needs, or its value is one the engine writes rather than holds: no
    /// value yet (`null`), an outcome parameter's `{"action":…,"value":…}`, a number
    /// answer written as Python prints it (`3` to a `number` parameter is `3.0`), a URL
    /// answer's `true`; read those from [`Round::write_resolve_inputs`]. Not at a
    /// [`Step::Resolve`]: [`Error::WrongStep`].
    pub fn resolve_input(&self, need: &str) -> Result<Option<Value<'a>>, Error> {
        let Phase::AwaitResolve(i) = self.phase else {
            return Err(self.out_of_step("a read of the resolver's inputs"));
        };
        let Some(AskKind::Resolver { needs, .. }) = &self.param(usize::from(i))?.ask else {
            return Ok(None);
        };
        for &j in needs.iter() {
            let p = self.param(usize::from(j))?;
            if p.name == need {
                return Ok(self.held_value(usize::from(j), p));
            }
        }
        Ok(None)
    }

    /// The value parameter `j` (`p`) has now, when it is held JSON that is written as
    /// it is (see [`Round::resolve_input`]); `None` when the engine writes it otherwise.
    /// [`Round::write_param_value`] writes every value by its own dispatch (tests pin
    /// that it writes this value): routed through this one, the firmware agent's
    /// `write_values` cost 208 B more flash for no speed.
    fn held_value(&self, j: usize, p: &Param<'a>) -> Option<Value<'a>> {
        if p.ask.is_none() {
            return self.args.get(p.name).or(p.default);
        }
        match self.slots.get(j)?.source {
            Source::None => None,
            Source::Host(v) => Some(v),
            Source::Answer { .. } if p.outcome => None,
            Source::Answer {
                action: Action::Accept,
                content,
                value,
            } => match (kind_of(p), content) {
                (InputKind::Form, Some(_)) => value.filter(|&v| self.answer_ty(j, p).keeps(v)),
                (InputKind::Sampling, c) => c,
                (InputKind::Roots, Some(c)) => c.get("roots"),
                _ => None,
            },
            Source::Answer { .. } => p.default,
        }
    }

    /// The type an answer to parameter `j` (`p`) is settled by: the parameter's, or the
    /// one its resolver's question declared (as `write_accepted` picks it, by reference
    /// there: a copy of the type per value written cost indep-1 final ~3 % natively).
    fn answer_ty(&self, j: usize, p: &Param<'a>) -> Ty<'a> {
        match self.slots.get(j).map(|s| s.asks) {
            Some(Asks::Resolver { typed: true, .. }) => self.question(j).map_or(p.ty, |q| q.ty),
            _ => p.ty,
        }
    }

    /// The value parameter `j` (`p`) has now (argument, default, resolver value or
    /// settled answer) in `style`; `null` while it has none.
    fn write_param_value(&self, j: usize, p: &Param<'a>, style: Style, out: &mut dyn Sink) {
        if p.ask.is_none() {
            match self.args.get(p.name).or(p.default) {
                Some(v) => write_value(v, style, out),
                None => out.put(b"null"),
            }
            return;
        }
        let Some(slot) = self.slots.get(j) else {
            out.put(b"null");
            return;
        };
        match slot.source {
            Source::None => out.put(b"null"),
            Source::Host(v) => write_value(v, style, out),
            Source::Answer {
                action,
                content,
                value,
            } => {
                if p.outcome {
                    let sep: &[u8] = if style.spaced { b", " } else { b"," };
                    let colon: &[u8] = if style.spaced { b": " } else { b":" };
                    out.put(b"{\"action\"");
                    out.put(colon);
                    write_str(action.as_str(), style.ascii, out);
                    if action == Action::Accept {
                        out.put(sep);
                        out.put(b"\"value\"");
                        out.put(colon);
                        self.write_accepted(j, p, content, value, style, out);
                    }
                    out.put(b"}");
                } else if action == Action::Accept {
                    self.write_accepted(j, p, content, value, style, out);
                } else {
                    match p.default {
                        Some(d) => write_value(d, style, out),
                        None => out.put(b"null"),
                    }
                }
            }
        }
    }

    /// What an accepted answer to parameter `j` (`p`) settles to, by kind
    /// (see [`crate::input`]): a form answer as the Python value it settles to (`value`:
    /// the wrapped answer's value, when already picked out), URL mode `true`, sampling
    /// the whole result, roots the roots array.
    fn write_accepted(
        &self,
        j: usize,
        p: &Param<'a>,
        content: Option<Value<'a>>,
        value: Option<Value<'a>>,
        style: Style,
        out: &mut dyn Sink,
    ) {
        match (kind_of(p), content) {
            (InputKind::Form, Some(c)) => {
                let question_ty;
                let ty = match self.slots.get(j).map(|s| s.asks) {
                    Some(Asks::Resolver { typed: true, .. }) => {
                        question_ty = self.question(j).map_or(p.ty, |q| q.ty);
                        &question_ty
                    }
                    _ => &p.ty,
                };
                match value {
                    Some(v) => ty.write_normalized(v, style, out),
                    None => ty.write_settled(c, style, out),
                }
            }
            (InputKind::Url, _) => out.put(b"true"),
            (InputKind::Sampling, Some(c)) => write_value(c, style, out),
            // A declared fallback's argument: an array of URIs, settled as the roots
            // array a ListRootsResult carries.
            (InputKind::Roots, Some(c))
                if cfg!(feature = "fallback") && c.kind() == Kind::Array =>
            {
                for (k, uri) in c.items().enumerate() {
                    out.put(if k == 0 { b"[{\"uri\":" } else { b",{\"uri\":" });
                    write_value(uri, style, out);
                    out.put(b"}");
                }
                out.put(if c.items().next().is_none() {
                    b"[]"
                } else {
                    b"]"
                });
            }
            (InputKind::Roots, Some(c)) => match c.get("roots") {
                Some(roots) => write_value(roots, style, out),
                None => out.put(b"null"),
            },
            (_, None) => out.put(b"null"),
        }
    }

    /// During [`Step::Ask`] (handshake era): the request's params, to send with the
    /// method of the parameter's kind ([`Plan::kind`], [`InputKind::method`]): for a
    /// form `{"mode":"form","message":...,"requestedSchema":...}`; for URL mode
    /// `{"mode":"url","message":...,"url":...,"elicitationId":...}`, whose
    /// `elicitationId` is the question's digest ([`Round::digest_of`]; send
    /// `notifications/elicitation/complete` with it when the out-of-band flow is done);
    /// for sampling and roots the declared params.
    pub fn write_ask(&self, out: &mut dyn Sink) -> Result<(), Error> {
        let Phase::AwaitAnswer(i) = self.phase else {
            return Err(self.out_of_step("a read of the question"));
        };
        let (Some(request), Some(id)) = (self.request(i as usize), self.digest_of(i as usize))
        else {
            return Err(self.out_of_step("a read of the question"));
        };
        request.write_params(Render::wire(false), Some(&id), out);
        Ok(())
    }

    /// After [`Step::Done`]: the elicited parameters' values, `{"name": value, ...}` in
    /// resolution order, rendered in `style` (use [`Style::WIRE`] for compact UTF-8).
    pub fn write_values(&self, style: Style, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::Done {
            return Err(self.out_of_step("a read of the values"));
        }
        let params = &self.plan.params;
        // Every index of the order is a parameter's (checked when the plan was made).
        let order = self
            .plan
            .order
            .iter()
            .filter_map(|&i| Some((i, params.get(usize::from(i))?)));
        // Each name's quotes go with the text around it (the sink's cost is per call).
        let mut any = false;
        for (i, p) in order {
            out.put(match (any, style.spaced) {
                (false, _) => b"{\"",
                (true, false) => b",\"",
                (true, true) => b", \"",
            });
            any = true;
            put_plain(p.name, style.ascii, out);
            out.put(if style.spaced { b"\": " } else { b"\":" });
            self.write_param_value(usize::from(i), p, style, out);
        }
        out.put(if any { b"}" } else { b"{}" });
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
            return Err(self.out_of_step("a read of a value"));
        }
        let Some(p) = self.plan.params.get(param) else {
            return Err(Error::WrongStep {
                expected: "a parameter index of the plan",
                got: "an index past its end",
            });
        };
        self.write_param_value(param, p, style, out);
        Ok(())
    }

    /// After [`Step::InputRequired`]: the `inputRequests` object,
    /// `{"name":{"method":"elicitation/create","params":{...}}, ...}` (each with its
    /// kind's method and params), compact UTF-8.
    /// With `client_view`, a schema's top-level `title` is left out, as the MCP SDK's
    /// 2026-07-28 serializer leaves it out (the digest still covers it).
    pub fn write_input_requests(&self, client_view: bool, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::InputRequired {
            return Err(self.out_of_step("a read of the input requests"));
        }
        let mut first = true;
        for (i, p, _) in self.pending() {
            let Some(request) = self.request(i) else {
                continue;
            };
            // The key's quotes go with the text around it, and the request's head is one
            // write (the sink's cost is per call).
            out.put(if first { b"{\"" } else { b",\"" });
            first = false;
            put_plain(p.name, false, out);
            out.put(kind_of(p).request_head());
            request.write_params(Render::wire(client_view), None, out);
            out.put(b"}");
        }
        out.put(if first { b"{}" } else { b"}" });
        Ok(())
    }

    /// After [`Step::InputRequired`]: the plaintext `requestState` to seal and send.
    pub fn write_request_state(&self, out: &mut dyn Sink) -> Result<(), Error> {
        if self.phase != Phase::InputRequired {
            return Err(self.out_of_step("a read of the request state"));
        }
        let plan = self.plan;
        let carried = plan.order.iter().filter_map(|&i| {
            let (p, slot) = (
                plan.params.get(usize::from(i))?,
                self.slots.get(usize::from(i))?,
            );
            match slot.source {
                Source::Answer {
                    action, content, ..
                } if slot.carried => Some(Carried {
                    name: p.name,
                    action,
                    data: content,
                    q: slot.digest,
                }),
                _ => None,
            }
        });
        let asked = self.pending().map(|(_, p, slot)| (p.name, slot.digest));
        state::write(carried, asked, out);
        Ok(())
    }

    /// After [`Step::Fallback`]: the tool result to answer the call with (a declared
    /// fallback, docs/fallback.md), compact UTF-8:
    /// `{"content":[{"type":"text","text":...}],"isError":true,"_meta":{"elicit/askUser":[...]}}`,
    /// with `"resultType":"complete"` after `_meta` on the 2026-07-28 era.
    /// The text tells the model which questions to ask the user and to call the tool
    /// again with each answer as the argument of the same name; the `_meta` list
    /// ([`crate::plan::FALLBACK_META_KEY`]) holds one
    /// `{"name","question","schema","required"}` per parameter, in resolution order: the
    /// ones that must still be answered (`required: true`) and those with a default
    /// that the arguments did not give (`required: false`). Nothing goes in
    /// `structuredContent`.
    #[cfg_attr(not(feature = "fallback"), allow(unused_variables))]
    pub fn write_fallback_result(&self, out: &mut dyn Sink) -> Result<(), Error> {
        #[cfg(feature = "fallback")]
        if self.phase == Phase::Fallback {
            self.write_fallback(out);
            return Ok(());
        }
        Err(self.out_of_step("a read of the fallback result"))
    }

    /// [`Round::write_fallback_result`] at [`Step::Fallback`].
    #[cfg(feature = "fallback")]
    fn write_fallback(&self, out: &mut dyn Sink) {
        let tool = self.plan.tool;
        out.put(b"{\"content\":[{\"type\":\"text\",\"text\":\"");
        put_plain(tool, false, out);
        out.put(b" needs answers from the user before it can run. Ask the user these questions (do not answer them yourself), then call ");
        put_plain(tool, false, out);
        out.put(
            b" again with the same arguments plus each answer as the argument of the same name:",
        );
        for (i, p, slot) in self.listed() {
            out.put(b"\\n- ");
            put_plain(p.name, false, out);
            if slot.status != Status::Fallback {
                out.put(b" (optional)");
            }
            out.put(b": ");
            self.write_question_text(i, p, out);
        }
        out.put(b"\"}],\"isError\":true,\"_meta\":{\"");
        out.put(crate::plan::FALLBACK_META_KEY.as_bytes());
        out.put(b"\":[");
        for (k, (i, p, slot)) in self.listed().enumerate() {
            out.put(if k == 0 {
                b"{\"name\":\""
            } else {
                b",{\"name\":\""
            });
            put_plain(p.name, false, out);
            out.put(b"\",\"question\":\"");
            self.write_question_text(i, p, out);
            out.put(b"\",\"schema\":");
            let ty = self.answer_ty(i, p);
            Plan::<'a, N>::write_argument_schema(
                p,
                &ty,
                &mut |o| self.write_question_text(i, p, o),
                out,
            );
            out.put(if slot.status == Status::Fallback {
                b",\"required\":true}"
            } else {
                b",\"required\":false}"
            });
        }
        out.put(b"]}");
        // A complete result on 2026-07-28, as every tool result of that era.
        if self.era == Era::Modern {
            out.put(b",\"resultType\":\"complete\"");
        }
        out.put(b"}");
    }

    /// The parameters listed in the fallback result, in resolution order.
    #[cfg(feature = "fallback")]
    fn listed(&self) -> impl Iterator<Item = (usize, &'r Param<'a>, &Slot<'a>)> + '_ {
        let plan = self.plan;
        plan.order.iter().filter_map(|&i| {
            let i = usize::from(i);
            let slot = self.slots.get(i)?;
            slot.listed.then_some((i, plan.params.get(i)?, slot))
        })
    }

    /// The question parameter `i` (`p`) is listed with in the fallback result (escaped
    /// JSON string contents): the question it asks this call, or, with none (roots),
    /// the listing's description.
    #[cfg(feature = "fallback")]
    fn write_question_text(&self, i: usize, p: &Param<'a>, out: &mut dyn Sink) {
        let message = match kind_of(p) {
            InputKind::Form => self.request(i).and_then(|r| r.message()),
            _ => None,
        };
        match message {
            Some(m) => out.put(m.raw().as_bytes()),
            None => self.plan.write_description(p, out),
        }
    }

    /// The digest (22 characters, base64url) of the question parameter `param` asks
    /// this round, if it was rendered.
    pub fn digest_of(&self, param: usize) -> Option<[u8; 22]> {
        let slot = self.slots.get(param)?;
        match slot.asks {
            Asks::Nothing => None,
            _ => Some(slot.digest),
        }
    }

    /// The message text of the question parameter `param` asks this round (raw JSON
    /// string contents), if rendered; write it decoded with [`write_json_str`]. `false`
    /// for a resolver's question that is a message alone once it is answered (from the
    /// state or a reply): its message is not kept.
    pub fn write_message_of(&self, param: usize, out: &mut dyn Sink) -> bool {
        match self.request(param).and_then(|r| r.message()) {
            Some(message) => {
                write_json_str(message, false, out);
                true
            }
            None => false,
        }
    }
}

/// Settle parameter `p` with an answer, checking accepted content as `check` says: the
/// value an accepted answer settles to (`None` for a refusal that may fall back). The
/// caller writes the [`Source::Answer`] straight into its slot: assembled here and
/// returned, it was stored field by field and reloaded whole, a store-forwarding stall
/// once per settled answer (PERF.md).
#[inline]
fn settle<'a>(
    p: &Param<'a>,
    check: Check<'_, 'a>,
    action: Action,
    content: Option<Value<'a>>,
) -> Result<Option<Value<'a>>, Error> {
    let mut value = None;
    match action {
        Action::Accept => {
            let accepted = match (check, content) {
                (Check::Done(v), _) => Some(v),
                (Check::Against(..), None) => None,
                (Check::Against(ty, wrapped), Some(c)) => ty.accept(c, wrapped),
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
    Ok(value)
}

/// Whether a resolver's question that is a message alone is kept once decided: while
/// it is asked (or, with a declared fallback, listed in the fallback result).
fn keeps_message(s: &Slot<'_>) -> bool {
    #[cfg(feature = "fallback")]
    if s.listed {
        return true;
    }
    s.status != Status::Settled
}

/// The kind of request that asks parameter `p` (form for an argument, which is never
/// asked).
#[inline]
fn kind_of(p: &Param<'_>) -> InputKind {
    p.ask.as_ref().map_or(InputKind::Form, AskKind::kind)
}

/// Whether a resolver asks `p`'s question (else the declaration's literal question).
fn is_resolver(p: &Param<'_>) -> bool {
    matches!(p.ask, Some(AskKind::Resolver { .. }))
}

/// Whether recorded accepted `data` still settles a parameter of `kind` (answer type
/// `ty`): `Some(value)` when it does (`value`: a wrapped form answer's `value` member),
/// `None` when it must be asked again. `wrapped`: see [`Recorded`].
fn accepts<'a>(
    kind: InputKind,
    ty: &Ty<'a>,
    data: Option<Value<'a>>,
    wrapped: bool,
) -> Option<Option<Value<'a>>> {
    match (kind, data) {
        (InputKind::Form, Some(d)) => ty.accept(d, wrapped),
        (InputKind::Url, None) => Some(None),
        (InputKind::Sampling, Some(d)) => {
            matches!(classify_reply(d), Some(Reply::Sampling(_))).then_some(None)
        }
        (InputKind::Roots, Some(d)) => {
            matches!(classify_reply(d), Some(Reply::Roots(_))).then_some(None)
        }
        _ => None,
    }
}

/// The answer a reply gives a parameter of `kind` (`pname`): its action and content, or
/// the error for a reply of the wrong kind. Form: an ElicitResult (accepted with
/// content); URL mode: an ElicitResult without content; sampling and roots: their result
/// (accepted) or an ElicitResult that declines or cancels (the client refused).
fn take_reply<'a>(
    kind: InputKind,
    reply: Reply<'a>,
    pname: &str,
) -> Result<(Action, Option<Value<'a>>), Error> {
    match (kind, reply) {
        (
            InputKind::Form,
            Reply::Elicit {
                action, content, ..
            },
        ) => {
            if action == Action::Accept && content.is_none() {
                return Err(Error::AcceptedWithoutContent { param: name(pname) });
            }
            Ok((action, content))
        }
        (
            InputKind::Url,
            Reply::Elicit {
                action,
                content: None,
                ..
            },
        ) => Ok((action, None)),
        (InputKind::Sampling, Reply::Sampling(v)) | (InputKind::Roots, Reply::Roots(v)) => {
            Ok((Action::Accept, Some(v)))
        }
        (
            InputKind::Sampling | InputKind::Roots,
            Reply::Elicit {
                action: action @ (Action::Decline | Action::Cancel),
                content: None,
                ..
            },
        ) => Ok((action, None)),
        _ => Err(Error::WrongReply {
            param: name(pname),
            kind,
        }),
    }
}

/// Owned-`String` conveniences (`alloc`): each is the `write_*` output of the same name
/// collected into a `String`, nothing more.
#[cfg(feature = "alloc")]
impl<const N: usize> Round<'_, '_, N> {
    /// [`Round::write_resolve_inputs`] as a `String`.
    pub fn resolve_inputs_json(&self) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_resolve_inputs(out))
    }
    /// [`Round::write_ask`] as a `String`.
    pub fn ask_json(&self) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_ask(out))
    }
    /// [`Round::write_values`] in [`Style::WIRE`] (compact UTF-8) as a `String`.
    pub fn values_json(&self) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_values(Style::WIRE, out))
    }
    /// [`Round::write_input_requests`] as a `String`.
    pub fn input_requests_json(&self, client_view: bool) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_input_requests(client_view, out))
    }
    /// [`Round::write_request_state`] as a `String`.
    pub fn request_state_json(&self) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_request_state(out))
    }
    /// [`Round::write_fallback_result`] as a `String`.
    pub fn fallback_result_json(&self) -> Result<alloc::string::String, Error> {
        owned(|out| self.write_fallback_result(out))
    }
}

/// Collect a writer's output into a `String` (every writer writes UTF-8; were one not
/// to, its bytes would read as U+FFFD rather than fail).
#[cfg(feature = "alloc")]
fn owned(
    write: impl FnOnce(&mut alloc::vec::Vec<u8>) -> Result<(), Error>,
) -> Result<alloc::string::String, Error> {
    let mut bytes = alloc::vec::Vec::new();
    write(&mut bytes)?;
    Ok(match alloc::string::String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => alloc::string::String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
