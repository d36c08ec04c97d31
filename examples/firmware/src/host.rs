//! The host side of the engine, as an MCP agent on the device runs it: the tools and
//! their resolvers, the scripted client, and one round (batched or handshake) with fixed
//! capacities, caller buffers and no heap. No formatting here: `demo` prints, `quiet`
//! only checks.

use core::fmt;

use elicit_core::json::Value;
#[cfg(feature = "seal")]
use elicit_core::seal::{Binding, Entropy, Reason, Sealer, UnixTime};
use elicit_core::{CompileError, Error, Plan, Round, Sink, SliceSink, Step, Style};

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

/// The seed docs' resolvers: LHR for London, else ask; always confirm.
pub(crate) fn booking_resolve(param: &str, inputs: Value<'_>, out: &mut SliceSink<'_>) -> Resolved {
    let get = |k: &str| inputs.get(k).and_then(|v| v.as_str());
    // The strings' raw JSON contents go straight into the question's JSON string.
    let raw = |k: &str| get(k).map(|s| s.raw()).unwrap_or("");
    match param {
        "airport" if get("destination").is_some_and(|d| d.eq_str("London")) => {
            out.put(b"\"LHR\"");
            Resolved::Value
        }
        "airport" => {
            out.put(b"{\"message\":\"Which airport in ");
            out.put(raw("destination").as_bytes());
            out.put(b"?\"}");
            Resolved::Question
        }
        _ => {
            out.put(b"{\"message\":\"Book a flight to ");
            out.put(raw("destination").as_bytes());
            out.put(b" on ");
            out.put(raw("date").as_bytes());
            out.put(b"?\"}");
            Resolved::Question
        }
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
/// from `script`.
#[inline(never)]
pub(crate) fn drive<const N: usize>(
    round: &mut Round<'_, '_, N>,
    tool: &Tool<N>,
    script: Option<Script>,
    log: &mut Log<'_>,
) -> Result<Step, Fail> {
    loop {
        match round.poll()? {
            Step::Resolve { param } => {
                let name = tool.plan.name(param).unwrap_or("");
                let mut inputs = [0u8; 96];
                let n = round.resolve_inputs_into(&mut inputs)?;
                let v = Value::parse(utf8(&inputs[..n]))
                    .map_err(|_| Fail::Protocol("resolver inputs are not JSON"))?;
                let mut answer = [0u8; 128];
                let mut sink = SliceSink::new(&mut answer);
                let kind = (tool.resolve)(name, v, &mut sink);
                let m = sink_len(&sink)?;
                let text = utf8(&answer[..m]);
                let what = if kind == Resolved::Value {
                    ") -> value "
                } else {
                    ") -> question "
                };
                log.line(&["  resolver ", name, "(", utf8(&inputs[..n]), what, text]);
                match kind {
                    Resolved::Value => round.resolve_value(text)?,
                    Resolved::Question => round.resolve_question(text)?,
                }
            }
            Step::Ask { param } => {
                let script = script.ok_or(Fail::Protocol("an ask in a batched round"))?;
                let name = tool.plan.name(param).unwrap_or("");
                let mut ask = [0u8; 320];
                let mut sink = SliceSink::new(&mut ask);
                round.write_ask(&mut sink)?;
                let n = sink_len(&sink)?;
                let answer = scripted(script, name);
                log.line(&["-- elicitation/create for ", name, ": ", utf8(&ask[..n])]);
                log.line(&["  client -> ", answer]);
                log.asks_out += n;
                log.replies_in += answer.len();
                round.answer(answer)?;
            }
            other => return Ok(other),
        }
    }
}

/// How a batched round ended. `unsealed`: bytes of plaintext state the round read from
/// the echoed token (seal builds; 0 otherwise).
pub(crate) enum Outcome {
    Done {
        values: usize,
        unsealed: usize,
    },
    InputRequired {
        requests: usize,
        state: usize,
        token: usize,
        unsealed: usize,
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

/// Unseal the echoed token into `out`, kept out of line (as [`seal_state`]): the
/// round's frame does not hold the codec's too. (Inlined into the one batched-round
/// function, the two added about 600 B to its stack peak.)
#[cfg(feature = "seal")]
#[inline(never)]
fn unseal<'o>(
    seal: &SealCtx<'_>,
    token: &str,
    binding: &Binding<'_>,
    out: &'o mut [u8],
) -> Result<&'o str, Fail> {
    seal.sealer
        .unseal(token, binding, None, seal.now, out)
        .map_err(|e| Fail::Unseal(e.reason()))
}

/// Seal the next state into `out`; returns the token's length. Out of line (see
/// [`unseal`]).
#[cfg(feature = "seal")]
#[inline(never)]
fn seal_state(
    seal: &SealCtx<'_>,
    state: &str,
    binding: &Binding<'_>,
    out: &mut [u8],
) -> Result<usize, Fail> {
    seal.sealer
        .seal(state, binding, None, seal.now, &seal.entropy, out)
        .map(str::len)
        .map_err(Fail::Seal)
}

/// `Round::modern`, kept out of line: its temporaries are gone by the time the round
/// runs, instead of adding to the frame the round runs in.
#[inline(never)]
pub(crate) fn new_modern<'r, 'a, const N: usize>(
    plan: &'r Plan<'a, N>,
    args: &'a str,
    state: Option<&'a str>,
    replies: Option<&'a str>,
    ws: &'a mut [u8],
) -> Result<Round<'r, 'a, N>, Error> {
    Round::modern(plan, args, state, replies, ws)
}

/// `Round::handshake`, kept out of line (see [`new_modern`]).
#[inline(never)]
pub(crate) fn new_handshake<'r, 'a, const N: usize>(
    plan: &'r Plan<'a, N>,
    args: &'a str,
    ws: &'a mut [u8],
) -> Result<Round<'r, 'a, N>, Error> {
    Round::handshake(plan, args, ws)
}

/// One batched (2026-07-28) round, in the workspace `ws`: the measured unit. Unseals the echoed state (seal
/// builds), runs the round, and writes `inputRequests` into `out` and the next state into
/// `state_out` (then sealed into `token_out`), or the values into `out`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn modern_round<const N: usize>(
    tool: &Tool<N>,
    ws: &mut [u8],
    args: &str,
    echoed: Option<&str>,
    replies: Option<&str>,
    seal: &SealCtx<'_>,
    state_in: &mut [u8],
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
        Some(token) => Some(unseal(seal, token, &binding, state_in)?),
    };
    #[cfg(not(feature = "seal"))]
    let (state, _, _) = (echoed, seal, state_in);
    let unsealed = if cfg!(feature = "seal") {
        state.map_or(0, str::len)
    } else {
        0
    };

    // The round is used where it was returned, inside the Result: moving a
    // `Round<16>` (2.3 KB) out of it costs a copy of that size on the stack.
    let mut created = new_modern(&tool.plan, args, state, replies, ws);
    let round = created.as_mut().map_err(|e| Fail::Engine(e.clone()))?;
    match drive(round, tool, None, log)? {
        Step::Done => {
            let mut s = SliceSink::new(out);
            round.write_values(Style::WIRE, &mut s)?;
            Ok(Outcome::Done {
                values: sink_len(&s)?,
                unsealed,
            })
        }
        Step::InputRequired => {
            let mut s = SliceSink::new(out);
            round.write_input_requests(false, &mut s)?;
            let requests = sink_len(&s)?;
            let mut s = SliceSink::new(state_out);
            round.write_request_state(&mut s)?;
            let state = sink_len(&s)?;
            #[cfg(feature = "seal")]
            let token = seal_state(seal, utf8(&state_out[..state]), &binding, token_out)?;
            #[cfg(not(feature = "seal"))]
            let token = {
                let _ = token_out;
                0
            };
            Ok(Outcome::InputRequired {
                requests,
                state,
                token,
                unsealed,
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
    let mut created = new_handshake(&tool.plan, args, &mut ws);
    let round = created.as_mut().map_err(|e| Fail::Engine(e.clone()))?;
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
    return Plan::from_postcard([BOOKING_PLAN, SURVEY_PLAN][index]);
    #[cfg(feature = "json-plan")]
    return Plan::compile([BOOKING_JSON, SURVEY_JSON][index]);
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
