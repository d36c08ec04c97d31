//! The transcript demo: every round printed, every RAM figure measured, the transcript
//! checked against `expected.txt`.

use core::fmt;
use core::mem::size_of;

use elicit_core::json::Value;
#[cfg(feature = "seal")]
use elicit_core::seal::{Binding, KeyRing, Sealer, UnixTime};
use elicit_core::{CompileError, Era, Error, Inputs, Plan, Round, SliceSink};

use crate::host::*;
use crate::stack;
use crate::transcript::Transcript;

include!(concat!(env!("OUT_DIR"), "/expected.rs"));

/// The text a measured call read and wrote, in bytes.
struct Io {
    /// Read: arguments, echoed state (the sealed token, unsealed in place), replies.
    input: usize,
    /// Written whole into RAM even when the output is streamed: a sealed round renders
    /// the plaintext state into the token's buffer and seals it there.
    held: usize,
    /// Written, and streamable through a `Sink`: inputRequests, a plaintext state,
    /// values, asks.
    output: usize,
}

/// RAM of one measured call: static + plan (+ the sealer's expanded keys, seal builds) +
/// peak stack (Round, workspace, engine and host frames) + the input text + the text that
/// must be held whole (sealing); and with the streamable output text, when that is
/// buffered in RAM rather than streamed out through a `Sink`. Everything counted is live
/// at the round's peak: the plan and the sealer outlive it, the input text is held until
/// the round ends (the echoed token is unsealed in place, so its plaintext adds nothing).
fn ram_line(t: &mut Transcript, what: &str, plan: usize, peak: usize, io: Io) {
    let st = stack::static_ram();
    #[cfg(feature = "seal")]
    let (keys, keys_what) = (size_of::<Sealer<'static, 1>>(), " + sealer ");
    #[cfg(not(feature = "seal"))]
    let (keys, keys_what) = (0, "");
    let streamed = st + plan + keys + peak + io.input + io.held;
    let mut extra: heapless::String<64> = heapless::String::new();
    if !keys_what.is_empty() {
        let _ = fmt::Write::write_fmt(&mut extra, format_args!("{keys_what}{keys}"));
    }
    let mut held: heapless::String<48> = heapless::String::new();
    if io.held > 0 {
        let _ = fmt::Write::write_fmt(&mut held, format_args!(" + token text {}", io.held));
    }
    say!(
        t,
        "# ram {what}: {} B with its output buffered, {streamed} B streaming it = static {st} + plan {plan}{extra} + stack peak {peak} + input text {}{held} (+ output text {})",
        streamed + io.output,
        io.input,
        io.output
    );
}

/// Run a batched conversation to the end. Returns whether the values matched.
fn modern_conversation<const N: usize, const WS: usize>(
    t: &mut Transcript,
    tool: &Tool<N>,
    script: Script,
    expected: &str,
    #[cfg(feature = "seal")] sealer: &Sealer<'static, 1>,
) {
    let args = "{}";
    let mut carried = [0u8; STATE_CAP];
    let mut carried_len: Option<usize> = None;
    let mut replies = [0u8; REPLIES_CAP];
    let mut replies_len: Option<usize> = None;
    let mut out = [0u8; OUT_CAP];
    let mut state_out = [0u8; STATE_CAP];
    let mut token_out = [0u8; STATE_CAP];
    for n in 1..=4u32 {
        say!(t, "-- round {n}");
        #[cfg(feature = "seal")]
        let seal = SealCtx {
            sealer,
            now: UnixTime::from_secs(1_780_000_000 + 30 * u64::from(n)),
            entropy: next_entropy(),
        };
        #[cfg(not(feature = "seal"))]
        let seal = SealCtx(core::marker::PhantomData);
        let mut log_buf = [0u8; 512];
        let mut log = Log::new(&mut log_buf);
        // The echoed requestState stays in `carried`, where it "arrived": a sealed token
        // is unsealed right there.
        let reply_text = replies_len.map(|l| utf8(replies.get(..l).unwrap_or(&[])));
        let io_in = args.len() + carried_len.unwrap_or(0) + reply_text.map_or(0, str::len);
        let echoed = carried_len.map(|l| (&mut carried[..], l));
        let (r, peak) = stack::measure(|| {
            let mut ws = [0u8; WS];
            modern_round::<N>(
                tool,
                &mut ws,
                args,
                echoed,
                reply_text,
                &seal,
                &mut out,
                &mut state_out,
                &mut token_out,
                &mut log,
            )
        });
        #[cfg(feature = "seal")]
        if carried_len.is_some() {
            say!(t, "[seal] unsealed the echoed requestState");
        }
        log.print(t);
        match r {
            Err(e) => {
                t.fail(format_args!("{} round {n} failed: {e}", tool.name));
                return;
            }
            Ok(Outcome::Done { values }) => {
                ram_line(
                    t,
                    &ram_what(tool.name, "batched round", n),
                    size_of::<Plan<'static, N>>(),
                    peak,
                    Io {
                        input: io_in,
                        held: 0,
                        output: values,
                    },
                );
                let v = utf8(out.get(..values).unwrap_or(&[]));
                say!(t, "== resolved: {v}");
                if v != expected {
                    t.fail(format_args!("{} values, expected {expected}", tool.name));
                }
                return;
            }
            Ok(Outcome::InputRequired {
                requests,
                state,
                token,
            }) => {
                ram_line(
                    t,
                    &ram_what(tool.name, "batched round", n),
                    size_of::<Plan<'static, N>>(),
                    peak,
                    // Sealing needs the state whole, and writes the token over it in the
                    // same buffer (the token is the longer); without sealing the state
                    // streams out like the requests.
                    if cfg!(feature = "seal") {
                        Io {
                            input: io_in,
                            held: token.max(state),
                            output: requests,
                        }
                    } else {
                        Io {
                            input: io_in,
                            held: 0,
                            output: requests + state,
                        }
                    },
                );
                let req_text = utf8(out.get(..requests).unwrap_or(&[]));
                // The plaintext state for the transcript; sealed, it is read back from the
                // token (a copy, unsealed outside the measurement).
                #[cfg(feature = "seal")]
                let state_text = {
                    if let (Some(d), Some(s)) = (state_out.get_mut(..token), token_out.get(..token))
                    {
                        d.copy_from_slice(s);
                    }
                    let binding = Binding::new("tools/call", tool.name, Value::parse(args).ok());
                    match sealer.unseal_in_place(&mut state_out, token, &binding, None, seal.now) {
                        Ok(text) if text.len() == state => text,
                        _ => {
                            t.fail(format_args!(
                                "round {n}'s token does not unseal to its state"
                            ));
                            return;
                        }
                    }
                };
                #[cfg(not(feature = "seal"))]
                let state_text = utf8(state_out.get(..state).unwrap_or(&[]));
                // The engine writes inputRequests as a JSON object.
                let Ok(reqs) = Value::parse(req_text) else {
                    t.fail(format_args!("round {n}'s inputRequests are not JSON"));
                    return;
                };
                let mut names: heapless::String<256> = heapless::String::new();
                for (i, (k, _)) in reqs.members().enumerate() {
                    if i > 0 {
                        let _ = names.push_str(", ");
                    }
                    let _ = names.push_str(k.raw());
                }
                say!(
                    t,
                    "  InputRequiredResult asks {}: {names}",
                    reqs.members().count()
                );
                say!(t, "  inputRequests: {req_text}");
                say!(t, "  requestState: {state_text}");
                // What travels to the client and comes back: the sealed token, or the
                // plaintext state itself.
                #[cfg(feature = "seal")]
                {
                    let tok = utf8(token_out.get(..token).unwrap_or(&[]));
                    say!(t, "[seal] sealed requestState ({token} bytes): {tok}");
                    if let (Some(d), Some(s)) = (carried.get_mut(..token), token_out.get(..token)) {
                        d.copy_from_slice(s);
                    }
                    carried_len = Some(token);
                    if n == 1 {
                        tamper_check(t, tool, sealer, &seal, tok);
                    }
                }
                #[cfg(not(feature = "seal"))]
                {
                    let _ = token;
                    if let (Some(d), Some(s)) = (carried.get_mut(..state), state_out.get(..state)) {
                        d.copy_from_slice(s);
                    }
                    carried_len = Some(state);
                }
                // The client answers every question from its script.
                for (k, req) in reqs.members() {
                    let message = req
                        .get("params")
                        .and_then(|p| p.get("message"))
                        .and_then(|m| m.as_str())
                        .map_or("", |m| m.raw());
                    say!(t, "  ? {message} -> {}", scripted(script, k.raw()));
                }
                match client_replies(script, reqs, &mut replies) {
                    Ok(l) => replies_len = Some(l),
                    Err(needed) => {
                        t.fail(format_args!("replies need {needed} bytes"));
                        return;
                    }
                }
            }
        }
    }
    t.fail(format_args!("{}: no result after 4 rounds", tool.name));
}

fn ram_what(tool: &str, what: &str, n: u32) -> heapless::String<64> {
    let mut s = heapless::String::new();
    let _ = fmt::Write::write_fmt(&mut s, format_args!("{tool} {what} {n}"));
    s
}

/// A token that was tampered with (one character changed) is refused.
#[cfg(feature = "seal")]
fn tamper_check<const N: usize>(
    t: &mut Transcript,
    tool: &Tool<N>,
    sealer: &Sealer<'static, 1>,
    seal: &SealCtx<'_>,
    token: &str,
) {
    let mut bad = [0u8; STATE_CAP];
    let Some(b) = bad.get_mut(..token.len()) else {
        return;
    };
    b.copy_from_slice(token.as_bytes());
    if let Some(c) = b.get_mut(b.len() / 2) {
        *c = if *c == b'A' { b'B' } else { b'A' };
    }
    let binding = Binding::new("tools/call", tool.name, Value::parse("{}").ok());
    let mut out = [0u8; STATE_CAP];
    match sealer.unseal(utf8(b), &binding, None, seal.now, &mut out) {
        Err(e) => say!(
            t,
            "[seal] a tampered requestState is refused: {e} ({})",
            e.reason().as_str()
        ),
        Ok(_) => t.fail(format_args!("a tampered token was accepted")),
    }
}

fn handshake_conversation<const N: usize, const WS: usize>(
    t: &mut Transcript,
    tool: &Tool<N>,
    script: Script,
    expected: &str,
) {
    let mut out = [0u8; 512];
    let mut log_buf = [0u8; 2048];
    let mut log = Log::new(&mut log_buf);
    let (r, peak) =
        stack::measure(|| handshake_call::<N, WS>(tool, "{}", script, &mut out, &mut log));
    log.print(t);
    match r {
        Ok(n) => {
            // The I/O of the whole call: the asks written and the replies read.
            let (io_in, io_out) = (2 + log.replies_in, n + log.asks_out);
            ram_line(
                t,
                &ram_what(tool.name, "handshake call", 1),
                size_of::<Plan<'static, N>>(),
                peak,
                Io {
                    input: io_in,
                    held: 0,
                    output: io_out,
                },
            );
            let v = utf8(out.get(..n).unwrap_or(&[]));
            say!(t, "== resolved: {v}");
            if v != expected {
                t.fail(format_args!("{} values, expected {expected}", tool.name));
            }
        }
        Err(e) => t.fail(format_args!("{} handshake failed: {e}", tool.name)),
    }
}

// ------------------------------------------------------------------- capacities

/// Load a plan (see [`load_plan`]) and say how.
fn load<const N: usize>(
    t: &mut Transcript,
    name: &str,
    index: usize,
) -> Result<Plan<'static, N>, CompileError> {
    let plan = load_plan::<N>(index)?;
    #[cfg(not(feature = "json-plan"))]
    {
        let bytes = if index == 0 {
            BOOKING_PLAN
        } else {
            SURVEY_PLAN
        };
        say!(
            t,
            "[postcard] plan {name}: loaded from {} bytes (format {}), {} parameters, capacity N={N}",
            bytes.len(),
            bytes.first().copied().unwrap_or(0),
            plan.len()
        );
    }
    #[cfg(feature = "json-plan")]
    say!(
        t,
        "[json] plan {name}: compiled on the device from {} bytes of JSON, {} parameters, capacity N={N}",
        if index == 0 { BOOKING_JSON } else { SURVEY_JSON }.len(),
        plan.len()
    );
    Ok(plan)
}

/// Each capacity the firmware chose, too small once on purpose: the error says so.
fn capacity_demos(t: &mut Transcript, booking: &Tool<BOOKING_N>) {
    // 1. Too many parameters for the plan's capacity N.
    match load::<4>(t, "book_flight", 0) {
        Err(e @ CompileError::Capacity { .. }) => {
            say!(t, "capacity: book_flight in a Plan<4> -> {e}")
        }
        Err(e) => t.fail(format_args!("Plan<4>: unexpected error {e}")),
        Ok(_) => t.fail(format_args!("a Plan<4> held 5 parameters")),
    }
    // 2. A workspace too small for the client's reply (handshake era copies it in).
    let mut ws = [0u8; 16];
    let r = Round::new(
        &booking.plan,
        Era::Handshake,
        Inputs::handshake("{}"),
        &mut ws,
    )
    .and_then(|mut round| {
        round.poll()?;
        round.answer(scripted(PARIS, "destination"))
    });
    match r {
        Err(e @ Error::Workspace { .. }) => say!(
            t,
            "capacity: a 16-byte workspace for a handshake reply -> {e}"
        ),
        Err(e) => t.fail(format_args!("workspace: unexpected error {e}")),
        Ok(()) => t.fail(format_args!("a 16-byte workspace held a reply")),
    }
    // 3. An output buffer too small for the round's inputRequests.
    let mut ws = [0u8; BOOKING_WS];
    let mut small = [0u8; 64];
    let r = Round::new(
        &booking.plan,
        Era::Modern,
        Inputs::modern("{}", None, None),
        &mut ws,
    )
    .and_then(|mut round| {
        round.poll()?;
        let mut s = SliceSink::new(&mut small);
        round.write_input_requests(false, &mut s)?;
        sink_len(&s)
    });
    match r {
        Err(e @ Error::BufferTooSmall { .. }) => {
            say!(t, "capacity: a 64-byte buffer for inputRequests -> {e}")
        }
        Err(e) => t.fail(format_args!("buffer: unexpected error {e}")),
        Ok(_) => t.fail(format_args!("64 bytes held the inputRequests")),
    }
}

// ------------------------------------------------------------------- main

/// The whole demo; true when every check passed and the transcript matches.
pub fn run(t: &mut Transcript) -> bool {
    say!(
        t,
        "elicit-firmware: elicit-core on QEMU mps2-an386 (Cortex-M4F), no_std, no allocator"
    );
    let booking = match load::<BOOKING_N>(t, BOOKING_NAME, 0) {
        Ok(plan) => Tool {
            name: BOOKING_NAME,
            plan,
            resolve: booking_resolve,
        },
        Err(e) => {
            t.fail(format_args!("book_flight plan: {e}"));
            return false;
        }
    };
    let survey = match load::<SURVEY_N>(t, SURVEY_NAME, 1) {
        Ok(plan) => Tool {
            name: SURVEY_NAME,
            plan,
            resolve: no_resolvers,
        },
        Err(e) => {
            t.fail(format_args!("survey16 plan: {e}"));
            return false;
        }
    };
    say!(
        t,
        "# sizes: Plan<{BOOKING_N}> {} B, Plan<{SURVEY_N}> {} B, Round<{BOOKING_N}> {} B, Round<{SURVEY_N}> {} B, Error {} B, CompileError {} B; workspaces {BOOKING_WS}/{HANDSHAKE_WS}/{SURVEY_WS} B",
        size_of::<Plan<'static, BOOKING_N>>(),
        size_of::<Plan<'static, SURVEY_N>>(),
        size_of::<Round<'static, 'static, BOOKING_N>>(),
        size_of::<Round<'static, 'static, SURVEY_N>>(),
        size_of::<Error>(),
        size_of::<CompileError>(),
    );
    capacity_demos(t, &booking);

    #[cfg(feature = "seal")]
    let sealer = {
        // Demo key and nonces: a device derives the key from provisioned secret storage
        // and draws every nonce from its TRNG.
        const SECRET: &[u8; 32] = b"elicit-firmware-demo-secret-0001";
        // A 32-byte secret, the one key: `KeyRing::new` accepts it (core's tests).
        #[allow(clippy::expect_used)]
        let ring = KeyRing::<1>::new(&[SECRET]).expect("a 32-byte secret");
        let sealer = Sealer::new(ring, Some("elicit-firmware"));
        say!(
            t,
            "# sizes: Sealer<1> (AES-256-GCM key schedule, HKDF-derived) {} B",
            size_of::<Sealer<'static, 1>>()
        );
        sealer
    };

    say!(t, "== book_flight, batched rounds (2026-07-28): Paris");
    modern_conversation::<BOOKING_N, BOOKING_WS>(
        t,
        &booking,
        PARIS,
        PARIS_VALUES,
        #[cfg(feature = "seal")]
        &sealer,
    );
    say!(
        t,
        "== book_flight, one question at a time (2025-11-25): London, seat declined"
    );
    handshake_conversation::<BOOKING_N, HANDSHAKE_WS>(t, &booking, LONDON, LONDON_VALUES);
    say!(
        t,
        "== survey16, batched rounds (2026-07-28): 16 questions at once"
    );
    modern_conversation::<SURVEY_N, SURVEY_WS>(
        t,
        &survey,
        SURVEY,
        SURVEY_VALUES,
        #[cfg(feature = "seal")]
        &sealer,
    );

    let lines = t.lines;
    let digest = t.digest();
    let matches = digest == EXPECTED_SHA256 && lines == EXPECTED_LINES;
    say!(
        t,
        "# transcript: {lines} lines; expected.txt has {EXPECTED_LINES} for this build: {}",
        if matches { "identical" } else { "DIFFERENT" }
    );
    let failures = t.failures;
    say!(t, "# checks failed: {failures}");
    matches && failures == 0
}
