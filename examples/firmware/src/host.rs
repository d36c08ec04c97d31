//! The host side of the engine, as an MCP agent on the device runs it: the tools and
//! their resolvers, the scripted client, and one round (batched or handshake) with fixed
//! capacities, caller buffers and no heap. No formatting here: `demo` prints, `quiet`
//! only checks.

use core::fmt;

use elicit_core::json::Value;
#[cfg(feature = "seal")]
use elicit_core::seal::{Binding, Entropy, Reason, Sealer, UnixTime};
use elicit_core::{CompileError, Era, Error, Inputs, Plan, Round, Sink, SliceSink, Step, Style};

#[cfg(not(feature = "quiet"))]
use crate::transcript::Transcript;

// ------------------------------------------------------------------- capacities

/// Capacity (parameters) of every plan on this device: the survey has 16, the booking
/// tool 5. One capacity for all tools means one copy of the engine's code: each `N` a
/// firmware uses instantiates the generic round again (a second `N = 8` for the booking
/// tool cost 7.9 KB of flash to save 640 B of RAM in its rounds).
pub(crate) const N: usize = 16;
/// Capacity of the booking plan.
pub(crate) const BOOKING_N: usize = N;
/// Capacity of the survey plan.
pub(crate) const SURVEY_N: usize = N;
/// Workspace of a batched booking round: the resolvers' questions are copied into it.
pub(crate) const BOOKING_WS: usize = 160;
/// Workspace of a handshake booking call: resolver answers and the five client replies.
pub(crate) const HANDSHAKE_WS: usize = 384;
/// Workspace of a survey round: literal questions and borrowed replies copy nothing.
pub(crate) const SURVEY_WS: usize = 16;

/// Buffers of the host's transport (the I/O text, counted by bytes used).
pub(crate) const OUT_CAP: usize = 4096;
pub(crate) const STATE_CAP: usize = 2048;
pub(crate) const REPLIES_CAP: usize = 1024;

pub(crate) use crate::data::*;

pub(crate) fn scripted(script: Script, name: &str) -> &'static str {
    script
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| *a)
        .unwrap_or(r#"{"action":"cancel"}"#)
}

// ------------------------------------------------------------------- tools

/// What a host resolver decided.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    Value,
    Question,
}

/// A host resolver: parameter name and inputs in, a value or a question (JSON) out.
pub(crate) type Resolver = fn(&str, Value<'_>, &mut SliceSink<'_>) -> Resolved;

#[allow(dead_code)] // `name` binds sealed tokens and labels the transcript
pub(crate) struct Tool<const N: usize> {
    pub(crate) name: &'static str,
    pub(crate) plan: Plan<'static, N>,
    pub(crate) resolve: Resolver,
}

/// The seed docs' resolvers, as the booking fixture's rules write them: LHR for London,
/// else ask; always confirm.
pub(crate) fn booking_resolve(param: &str, inputs: Value<'_>, out: &mut SliceSink<'_>) -> Resolved {
    use booking_fixture::resolver::{AIRPORT, PROCEED};
    // book_flight's two resolvers (named, not looked up: no table of every rule in flash).
    let rule = if param == AIRPORT.param {
        &AIRPORT
    } else {
        &PROCEED
    };
    // The strings' raw JSON contents go straight into the question's JSON string.
    if rule.write_json_for(inputs, |b| out.put(b)) {
        Resolved::Value
    } else {
        Resolved::Question
    }
}

pub(crate) fn no_resolvers(_: &str, _: Value<'_>, out: &mut SliceSink<'_>) -> Resolved {
    out.put(b"null");
    Resolved::Value
}

// ------------------------------------------------------------------- errors and log

/// Why a round could not go on.
pub(crate) enum Fail {
    Engine(Error),
    #[cfg(feature = "seal")]
    Unseal(Reason),
    #[cfg(feature = "seal")]
    Seal(elicit_core::seal::SealError),
    Protocol(&'static str),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Engine(e)
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Engine(e) => write!(f, "{e}"),
            #[cfg(feature = "seal")]
            Fail::Unseal(r) => write!(f, "{} ({})", elicit_core::seal::ERROR_MESSAGE, r.as_str()),
            #[cfg(feature = "seal")]
            Fail::Seal(e) => write!(f, "{e}"),
            Fail::Protocol(p) => f.write_str(p),
        }
    }
}

pub(crate) fn sink_len(s: &SliceSink<'_>) -> Result<usize, Error> {
    s.finish()
        .map_err(|needed| Error::BufferTooSmall { needed })
}

pub(crate) fn utf8(b: &[u8]) -> &str {
    core::str::from_utf8(b).unwrap_or("<not UTF-8>")
}

/// What the host did during a measured call, as transcript text written into a caller
/// buffer and printed afterwards (so printing is not part of the measurement), and the
/// bytes that went over the back-channel (handshake era).
pub(crate) struct Log<'b> {
    pub(crate) text: SliceSink<'b>,
    pub(crate) asks_out: usize,
    pub(crate) replies_in: usize,
}

impl<'b> Log<'b> {
    pub(crate) fn new(buf: &'b mut [u8]) -> Self {
        Log {
            text: SliceSink::new(buf),
            asks_out: 0,
            replies_in: 0,
        }
    }
    pub(crate) fn line(&mut self, parts: &[&str]) {
        // The quiet builds print nothing: no log text to write.
        if cfg!(feature = "quiet") {
            return;
        }
        for p in parts {
            self.text.put(p.as_bytes());
        }
        self.text.put(b"\n");
    }
    #[cfg(not(feature = "quiet"))]
    pub(crate) fn print(&self, t: &mut Transcript) {
        let _ = fmt::Write::write_str(t, utf8(self.text.written()));
        if self.text.finish().is_err() {
            t.fail(format_args!("the log buffer overflowed"));
        }
    }
}

// ------------------------------------------------------------------- the host loop

/// Poll until the round needs the client: run resolvers, and (handshake) answer asks
/// from `script`. Each step's buffers live in its own out-of-line function, so polling
/// (the deepest engine calls) runs below a small frame.
#[inline(never)]
pub(crate) fn drive<const N: usize>(
    round: &mut Round<'_, '_, N>,
    tool: &Tool<N>,
    script: Option<Script>,
    log: &mut Log<'_>,
) -> Result<Step, Fail> {
    loop {
        match round.poll()? {
            Step::Resolve { param } => run_resolver(round, tool, param, log)?,
            Step::Ask { param } => {
                let script = script.ok_or(Fail::Protocol("an ask in a batched round"))?;
                ask_client(round, tool, param, script, log)?;
            }
            other => return Ok(other),
        }
    }
}

/// Run the host's resolver for `param` and hand its value or question to the round.
#[inline(never)]
fn run_resolver<const N: usize>(
    round: &mut Round<'_, '_, N>,
    tool: &Tool<N>,
    param: usize,
    log: &mut Log<'_>,
) -> Result<(), Fail> {
    let name = tool.plan.name(param).unwrap_or("");
    let mut inputs = [0u8; 96];
    let mut sink = SliceSink::new(&mut inputs);
    round.write_resolve_inputs(&mut sink)?;
    let n = sink_len(&sink)?;
    let v = Value::parse(utf8(inputs.get(..n).unwrap_or(&[])))
        .map_err(|_| Fail::Protocol("resolver inputs are not JSON"))?;
    let mut answer = [0u8; 128];
    let mut sink = SliceSink::new(&mut answer);
    let kind = (tool.resolve)(name, v, &mut sink);
    let m = sink_len(&sink)?;
    let text = utf8(answer.get(..m).unwrap_or(&[]));
    let what = if kind == Resolved::Value {
        ") -> value "
    } else {
        ") -> question "
    };
    log.line(&[
        "  resolver ",
        name,
        "(",
        utf8(inputs.get(..n).unwrap_or(&[])),
        what,
        text,
    ]);
    match kind {
        Resolved::Value => round.resolve_value(text)?,
        Resolved::Question => round.resolve_question(text)?,
    }
    Ok(())
}

/// Handshake era: put the question for `param` to the (scripted) client and pass its
/// reply to the round.
#[inline(never)]
fn ask_client<const N: usize>(
    round: &mut Round<'_, '_, N>,
    tool: &Tool<N>,
    param: usize,
    script: Script,
    log: &mut Log<'_>,
) -> Result<(), Fail> {
    let name = tool.plan.name(param).unwrap_or("");
    let mut ask = [0u8; 320];
    let mut sink = SliceSink::new(&mut ask);
    round.write_ask(&mut sink)?;
    let n = sink_len(&sink)?;
    let answer = scripted(script, name);
    log.line(&[
        "-- elicitation/create for ",
        name,
        ": ",
        utf8(ask.get(..n).unwrap_or(&[])),
    ]);
    log.line(&["  client -> ", answer]);
    log.asks_out += n;
    log.replies_in += answer.len();
    round.answer(answer)?;
    Ok(())
}

/// How a batched round ended.
pub(crate) enum Outcome {
    Done {
        values: usize,
    },
    InputRequired {
        requests: usize,
        state: usize,
        token: usize,
    },
}

/// Sealing for one round (seal builds): the request binding, clock and nonce.
#[cfg(feature = "seal")]
pub(crate) struct SealCtx<'s> {
    pub(crate) sealer: &'s Sealer<'static, 1>,
    pub(crate) now: UnixTime,
    pub(crate) entropy: Entropy,
}
#[cfg(not(feature = "seal"))]
pub(crate) struct SealCtx<'s>(pub(crate) core::marker::PhantomData<&'s ()>);

/// Demo entropy: a counter, so no nonce repeats under the key. A device draws both
/// from its TRNG.
#[cfg(feature = "seal")]
pub(crate) fn next_entropy() -> Entropy {
    use core::sync::atomic::{AtomicU32, Ordering};
    static SEALS: AtomicU32 = AtomicU32::new(1);
    let n = SEALS.fetch_add(1, Ordering::Relaxed);
    let mut nonce = [0u8; 12];
    nonce[8..].copy_from_slice(&n.to_be_bytes());
    Entropy {
        nonce,
        principal_salt: [0; 8],
    }
}

/// Unseal the echoed token in its own buffer, kept out of line (as [`seal_state`]): the
/// round's frame does not hold the codec's too. (Inlined into the one batched-round
/// function, the two added about 600 B to its stack peak.)
#[cfg(feature = "seal")]
#[inline(never)]
fn unseal<'b>(
    seal: &SealCtx<'_>,
    buf: &'b mut [u8],
    len: usize,
    binding: &Binding<'_>,
) -> Result<&'b str, Fail> {
    seal.sealer
        .unseal_in_place(buf, len, binding, None, seal.now)
        .map_err(|e| Fail::Unseal(e.reason()))
}

/// Seal the state written at the start of `buf` (`len` bytes) in place; returns the
/// token's length. Out of line (see [`unseal`]).
#[cfg(feature = "seal")]
#[inline(never)]
fn seal_state(
    seal: &SealCtx<'_>,
    buf: &mut [u8],
    len: usize,
    binding: &Binding<'_>,
) -> Result<usize, Fail> {
    seal.sealer
        .seal_in_place(buf, len, binding, None, seal.now, &seal.entropy)
        .map(str::len)
        .map_err(Fail::Seal)
}

/// One batched (2026-07-28) round in the workspace `ws`: the measured unit. `echoed` is
/// the buffer holding the requestState text the client sent back, and its length: the
/// sealed token (seal builds), unsealed right there so its plaintext is a slice of the
/// same buffer, or the plaintext state itself. Runs the round, and writes
/// `inputRequests` into `out` and the next state into `state_out` (plain builds) or into
/// `token_out`, sealed there in place (seal builds), or the values into `out`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn modern_round<const N: usize>(
    tool: &Tool<N>,
    ws: &mut [u8],
    args: &str,
    echoed: Option<(&mut [u8], usize)>,
    replies: Option<&str>,
    seal: &SealCtx<'_>,
    out: &mut [u8],
    state_out: &mut [u8],
    token_out: &mut [u8],
    log: &mut Log<'_>,
) -> Result<Outcome, Fail> {
    #[cfg(feature = "seal")]
    let binding = Binding::new("tools/call", tool.name, Value::parse(args).ok());
    #[cfg(feature = "seal")]
    let state = match echoed {
        None => None,
        Some((buf, len)) => Some(unseal(seal, buf, len, &binding)?),
    };
    #[cfg(not(feature = "seal"))]
    let (state, _) = (
        echoed.map(|(buf, len)| utf8(buf.get(..len).unwrap_or(&[]))),
        seal,
    );

    // Built in place: returning a `Round<16>` (1.6 KB) would put a second copy of it on
    // the stack while it is created.
    let mut slot = None;
    let round = Round::new_in(
        &mut slot,
        &tool.plan,
        Era::Modern,
        Inputs::modern(args, state, replies),
        ws,
    )?;
    match drive(round, tool, None, log)? {
        Step::Done => {
            let mut s = SliceSink::new(out);
            round.write_values(Style::WIRE, &mut s)?;
            Ok(Outcome::Done {
                values: sink_len(&s)?,
            })
        }
        Step::InputRequired => {
            let mut s = SliceSink::new(out);
            round.write_input_requests(false, &mut s)?;
            let requests = sink_len(&s)?;
            // Sealed: the state is written where its token goes, and sealed there (the
            // token replaces it). Plain: the state is the output.
            #[cfg(feature = "seal")]
            let (state, token) = {
                let _ = state_out;
                let mut s = SliceSink::new(token_out);
                round.write_request_state(&mut s)?;
                let state = sink_len(&s)?;
                (state, seal_state(seal, token_out, state, &binding)?)
            };
            #[cfg(not(feature = "seal"))]
            let (state, token) = {
                let _ = token_out;
                let mut s = SliceSink::new(state_out);
                round.write_request_state(&mut s)?;
                (sink_len(&s)?, 0)
            };
            Ok(Outcome::InputRequired {
                requests,
                state,
                token,
            })
        }
        _ => Err(Fail::Protocol("the round stopped at an unexpected step")),
    }
}

/// A whole handshake-era (≤ 2025-11-25) call: one round object, one question at a time
/// over the back-channel. The measured unit.
#[inline(never)]
pub(crate) fn handshake_call<const N: usize, const WS: usize>(
    tool: &Tool<N>,
    args: &str,
    script: Script,
    out: &mut [u8],
    log: &mut Log<'_>,
) -> Result<usize, Fail> {
    let mut ws = [0u8; WS];
    let mut slot = None;
    let round = Round::new_in(
        &mut slot,
        &tool.plan,
        Era::Handshake,
        Inputs::handshake(args),
        &mut ws,
    )?;
    match drive(round, tool, Some(script), log)? {
        Step::Done => {
            let mut s = SliceSink::new(out);
            round.write_values(Style::WIRE, &mut s)?;
            Ok(sink_len(&s)?)
        }
        _ => Err(Fail::Protocol("a handshake call ended without values")),
    }
}

/// Load a plan: from the bytes build.rs compiled (default), or by compiling the JSON
/// declaration here (feature `json-plan`, to measure what that costs). `index` 0 is
/// `book_flight`, 1 is `survey16`.
pub(crate) fn load_plan<const N: usize>(index: usize) -> Result<Plan<'static, N>, CompileError> {
    #[cfg(not(feature = "json-plan"))]
    return Plan::from_postcard(if index == 0 {
        BOOKING_PLAN
    } else {
        SURVEY_PLAN
    });
    #[cfg(feature = "json-plan")]
    return Plan::compile(if index == 0 {
        BOOKING_JSON
    } else {
        SURVEY_JSON
    });
}

/// The scripted client: the `inputResponses` object answering every request of
/// `requests` (an `inputRequests` object) from `script`, written into `out`. Returns the
/// length, or the size needed.
pub(crate) fn client_replies(
    script: Script,
    requests: Value<'_>,
    out: &mut [u8],
) -> Result<usize, usize> {
    let mut s = SliceSink::new(out);
    s.put(b"{");
    for (i, (k, _)) in requests.members().enumerate() {
        if i > 0 {
            s.put(b",");
        }
        s.put(b"\"");
        s.put(k.raw().as_bytes());
        s.put(b"\":");
        s.put(scripted(script, k.raw()).as_bytes());
    }
    s.put(b"}");
    s.finish()
}
