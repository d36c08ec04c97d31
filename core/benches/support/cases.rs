//! The reference benchmark's cases (`reference/oracle/bench.py`), as elicit-core
//! declarations, and one timed round of each.
//!
//! - `indep-N` (N = 1, 4, 16, 64): N independent **literal** questions
//!   `q{i}: Annotated[str, Elicit("Question number {i}?")]`, string answers.
//! - `chain-8`: `q0` literal `"First?"`; `q{i}` (i ≥ 1) is a **resolver** that needs
//!   `q{i-1}` and asks `f"After {q{i-1}}, then?"` (declared answer type `str`).
//!
//! Rounds, as bench.py times them:
//! - `first`: nothing answered (no state, no replies) → input required;
//! - `final`: the state from the previous round plus replies for what that round asked
//!   (`{"action":"accept","content":{"value":"ans-<name>"}}`, as `fm_reply` builds
//!   them) → every value.
//!
//! A timed round is the whole engine call a server makes: create the round (parse the
//! arguments, decode the plaintext state, check `inputResponses`), drain it (running the
//! chain's resolvers in the "host", which formats the question from the resolver
//! inputs), and write the outputs (`inputRequests` + `requestState`, or the values) into
//! a caller buffer. The reference's time covers the same (its outputs are Python objects,
//! not serialized, so ours does slightly more). Shared by `benches/rounds.rs` and
//! `examples/bench_driver.rs`.
#![allow(dead_code)]

use elicit_core::json::{SliceSink, Style, Value};
use elicit_core::{Era, Inputs, Plan, Round, Step};

/// Capacity that fits 64 parameters.
pub const CAP: usize = 80;
/// Workspace for resolver questions (chain-8 needs a few hundred bytes).
pub const WORKSPACE: usize = 4096;
/// Output buffer for one round's outputs (indep-64 first round writes ~12 KB).
pub const OUT: usize = 1 << 15;

/// The cases in bench.py's order: (label, kind, n).
pub const CASES: &[(&str, Kind, usize)] = &[
    ("indep-1", Kind::Indep, 1),
    ("indep-4", Kind::Indep, 4),
    ("indep-16", Kind::Indep, 16),
    ("indep-64", Kind::Indep, 64),
    ("chain-8", Kind::Chain, 8),
];

/// Our own cases (not in bench.py): `resolve-16` isolates rendering resolver questions.
pub const EXTRA_CASES: &[(&str, Kind, usize)] = &[("resolve-16", Kind::Resolve, 16)];

/// Independent literal questions, a resolver chain, or independent resolvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `indep-N`
    Indep,
    /// `chain-N`
    Chain,
    /// `resolve-N`: N independent resolvers (no inputs) whose questions are indep-N's
    /// (`"Question number {i}?"`), so every question is rendered and hashed per round.
    Resolve,
}

/// The declaration for a case.
pub fn declaration(kind: Kind, n: usize) -> String {
    let mut params = Vec::new();
    for i in 0..n {
        params.push(match (kind, i) {
            (Kind::Indep, _) => {
                format!(r#"{{"name":"q{i}","elicit":{{"message":"Question number {i}?"}}}}"#)
            }
            (Kind::Chain, 0) => r#"{"name":"q0","elicit":{"message":"First?"}}"#.to_string(),
            (Kind::Resolve, _) => {
                format!(r#"{{"name":"q{i}","elicit":{{"needs":[],"declares":"string"}}}}"#)
            }
            (Kind::Chain, _) => format!(
                r#"{{"name":"q{i}","elicit":{{"needs":["q{}"],"declares":"string"}}}}"#,
                i - 1
            ),
        });
    }
    format!(r#"{{"tool":"tool","parameters":[{}]}}"#, params.join(","))
}

/// What a round ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Input required: bytes of `inputRequests` and of `requestState` written.
    Ask(usize, usize),
    /// Done: bytes of the values written.
    Values(usize),
}

/// The chain's resolver, run by the host: its input `q{i-1}` (a string answer) → the
/// message `After <answer>, then?`, written into `question` (cleared first).
///
/// The host reads the input by name ([`Round::resolve_input`]), as a Rust host binds a
/// resolver's arguments, rather than writing the inputs object and parsing it again, and
/// hands back the message as text ([`Round::resolve_message`]) rather than as a JSON
/// question for the round to read again; the reference's resolver is handed the Python
/// `str` and returns `Elicit(f"After {q}, then?", response_type=str)`. The message is
/// built as a Rust host builds text, in a `String` (reused from round to round, as the
/// bench's other buffers are).
fn chain_resolver(prev: Value<'_>, question: &mut String) {
    let prev = prev.as_str().and_then(|s| s.as_plain());
    question.clear();
    question.push_str("After ");
    question.push_str(prev.expect("a string answer without escapes"));
    question.push_str(", then?");
}

/// `resolve-N`'s resolvers, run by the host: parameter `i` (no inputs) →
/// `{"message":"Question number {i}?"}` (indep-N's literal question), into `question`
/// (cleared first).
fn resolve_resolver(param: usize, question: &mut String) {
    question.clear();
    question.push_str("{\"message\":\"Question number ");
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut v = param;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    question.push_str(core::str::from_utf8(&digits[k..]).expect("digits"));
    question.push_str("?\"}");
}

/// One round, as a server runs it. `out` receives the outputs; `question` is the host's
/// buffer for a resolver's question.
pub fn run_round<const N: usize>(
    plan: &Plan<'_, N>,
    state: Option<&str>,
    replies: Option<&str>,
    workspace: &mut [u8],
    out: &mut [u8],
    question: &mut String,
) -> Outcome {
    // Built in place (`Round::new_in`): a round holds its N slots inline, and
    // `Round::new` would return it by value (two copies of the round per call).
    let mut slot = None;
    let round = Round::new_in(
        &mut slot,
        plan,
        Era::Modern,
        Inputs::modern("{}", state, replies),
        workspace,
    )
    .expect("round starts");
    loop {
        match round.poll().expect("round runs") {
            Step::Resolve { param } => {
                // The resolver's declared need, read by name; `resolve-N`'s have none (and
                // hand back JSON questions, so that path stays measured).
                match plan.needs(param).next() {
                    Some(need) => {
                        let prev = round.resolve_input(need).expect("inputs");
                        chain_resolver(prev.expect("a held string answer"), question);
                        round.resolve_message(question).expect("message accepted");
                    }
                    None => {
                        resolve_resolver(param, question);
                        round.resolve_question(question).expect("question accepted");
                    }
                }
            }
            Step::Ask { .. } => unreachable!("modern rounds batch their questions"),
            Step::Fallback => unreachable!("the cases declare no fallback"),
            Step::Done => {
                let mut s = SliceSink::new(out);
                round.write_values(Style::WIRE, &mut s).expect("values");
                return Outcome::Values(s.finish().expect("output buffer"));
            }
            Step::InputRequired => {
                let (a, b) = out.split_at_mut(out.len() / 2);
                let mut s = SliceSink::new(a);
                round.write_input_requests(false, &mut s).expect("requests");
                let na = s.finish().expect("output buffer");
                let mut s = SliceSink::new(b);
                round.write_request_state(&mut s).expect("state");
                let nb = s.finish().expect("output buffer");
                return Outcome::Ask(na, nb);
            }
        }
    }
}

/// A case's first and final round inputs, found by driving rounds to completion the way
/// bench.py's `fm_states` does.
pub struct Case {
    /// The label (`indep-16`, ...).
    pub label: &'static str,
    /// The declaration text.
    pub declaration: String,
    /// Rounds to completion (asks + the final one).
    pub rounds: usize,
    /// The final round's plaintext state.
    pub final_state: String,
    /// The final round's replies.
    pub final_replies: String,
    /// Questions rendered in the final round (the chain's resolvers run again).
    pub n: usize,
    /// Case kind.
    pub kind: Kind,
}

/// `fm_reply`: accept every asked name with `ans-<name>`.
fn replies_for(requests: &str) -> String {
    let v = Value::parse(requests).expect("requests JSON");
    let items: Vec<String> = v
        .members()
        .map(|(k, _)| {
            format!(
                r#""{0}":{{"action":"accept","content":{{"value":"ans-{0}"}}}}"#,
                k.raw()
            )
        })
        .collect();
    format!("{{{}}}", items.join(","))
}

impl Case {
    /// Build a case.
    pub fn new(label: &'static str, kind: Kind, n: usize) -> Case {
        let declaration = declaration(kind, n);
        let plan = Plan::<CAP>::compile(&declaration).expect("declaration compiles");
        let mut ws = vec![0u8; WORKSPACE];
        let mut out = vec![0u8; OUT];
        let mut question = String::new();
        let (mut state, mut replies): (Option<String>, Option<String>) = (None, None);
        let mut rounds = 0;
        #[allow(clippy::while_let_loop)]
        loop {
            rounds += 1;
            match run_round(
                &plan,
                state.as_deref(),
                replies.as_deref(),
                &mut ws,
                &mut out,
                &mut question,
            ) {
                Outcome::Values(_) => break,
                Outcome::Ask(na, nb) => {
                    let requests = core::str::from_utf8(&out[..na]).expect("utf8");
                    let half = out.len() / 2;
                    let s = core::str::from_utf8(&out[half..half + nb]).expect("utf8");
                    replies = Some(replies_for(requests));
                    state = Some(s.to_string());
                }
            }
        }
        drop(plan);
        Case {
            label,
            declaration,
            rounds,
            final_state: state.expect("at least one ask"),
            final_replies: replies.expect("at least one ask"),
            n,
            kind,
        }
    }

    /// Every case of bench.py.
    pub fn all() -> Vec<Case> {
        CASES.iter().map(|&(l, k, n)| Case::new(l, k, n)).collect()
    }

    /// Every case of bench.py, then ours ([`EXTRA_CASES`]).
    pub fn all_with_extras() -> Vec<Case> {
        CASES
            .iter()
            .chain(EXTRA_CASES)
            .map(|&(l, k, n)| Case::new(l, k, n))
            .collect()
    }
}
