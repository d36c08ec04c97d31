//! Property tests of the round machine's invariants (proptest).
//!
//! Random declarations (literal questions, resolvers over a random DAG of needs, some
//! resolvers returning values instead of asking, model-supplied arguments; every question
//! of a random input kind: form, URL mode, sampling or roots) are driven
//! to completion by a client that accepts every question, the way the reference's
//! multi-round flow goes. Checked on every round:
//!
//! 1. a question is never asked again once it was answered;
//! 2. every question that can be rendered this round (all its elicited needs settled)
//!    is in this round's batch, and nothing else is;
//! 3. the batch follows the plan's resolution order, which is the signature order
//!    for independent questions (depth-first over needs, visiting in signature order);
//! 4. a question's digest is the same on every round that renders it (and in the
//!    state's `asked`), and a different message or schema gives a different digest;
//! 5. a resolver only runs once every elicited value it needs is answered, and it is
//!    handed exactly those values.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};

use elicit_core::{Capabilities, Era, Inputs, Plan, Round, Step};
use proptest::prelude::*;
use serde_json::{json, Value};

const CAP: usize = 16;

/// One generated parameter.
#[derive(Debug, Clone)]
enum Spec {
    /// A model-supplied argument.
    Arg,
    /// A literal question of a kind (see [`KINDS`]).
    Literal(String, usize),
    /// A resolver needing these parameter indices; `true` when it returns a value
    /// instead of asking; the kind of question it asks.
    Resolver(Vec<usize>, bool, usize),
}

/// The input kinds, by index.
const KINDS: [&str; 4] = ["form", "url", "sampling", "roots"];

/// The `elicit` object (literal) or resolver question of `kind` with `text`.
fn question(kind: usize, text: &str) -> Value {
    match kind {
        0 => json!({"message": text}),
        1 => json!({"message": text, "url": format!("https://example.test/{}", text.len())}),
        2 => {
            json!({"sampling": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 10}})
        }
        _ => json!({"roots": {}}),
    }
}

/// The client's reply to parameter `i`'s question of `kind`.
fn reply_of(i: usize, kind: usize) -> Value {
    match kind {
        0 => json!({"action": "accept", "content": {"value": format!("ans-{i}")}}),
        1 => json!({"action": "accept"}),
        2 => {
            json!({"role": "assistant", "content": {"type": "text", "text": format!("ans-{i}")}, "model": "m"})
        }
        _ => json!({"roots": [{"uri": format!("file:///ans-{i}")}]}),
    }
}

/// A declaration: parameters `p0..pn` in signature order.
#[derive(Debug, Clone)]
struct Decl {
    specs: Vec<Spec>,
}

impl Decl {
    fn name(i: usize) -> String {
        format!("p{i}")
    }

    fn json(&self) -> String {
        let params: Vec<Value> = self
            .specs
            .iter()
            .enumerate()
            .map(|(i, s)| match s {
                Spec::Arg => json!({"name": Self::name(i)}),
                Spec::Literal(m, k) => json!({"name": Self::name(i), "elicit": question(*k, m)}),
                Spec::Resolver(needs, _, k) => json!({
                    "name": Self::name(i),
                    "elicit": {"needs": needs.iter().map(|&j| Self::name(j)).collect::<Vec<_>>(), "kind": KINDS[*k]}
                }),
            })
            .collect();
        json!({"tool": "t", "parameters": params}).to_string()
    }

    fn args(&self) -> String {
        let mut m = serde_json::Map::new();
        for (i, s) in self.specs.iter().enumerate() {
            if matches!(s, Spec::Arg) {
                m.insert(Self::name(i), json!(format!("arg-{i}")));
            }
        }
        Value::Object(m).to_string()
    }

    fn elicited(&self, i: usize) -> bool {
        !matches!(self.specs[i], Spec::Arg)
    }

    fn needs(&self, i: usize) -> &[usize] {
        match &self.specs[i] {
            Spec::Resolver(n, ..) => n,
            _ => &[],
        }
    }

    /// The value parameter `i` settles to.
    fn want(&self, i: usize) -> Value {
        match self.specs[i] {
            Spec::Resolver(_, true, _) => resolver_value(i),
            Spec::Literal(_, k) | Spec::Resolver(_, _, k) => match k {
                0 => json!(format!("ans-{i}")),
                1 => json!(true),
                2 => reply_of(i, 2),
                _ => reply_of(i, 3)["roots"].clone(),
            },
            Spec::Arg => json!(format!("arg-{i}")),
        }
    }

    fn kind(&self, i: usize) -> usize {
        match self.specs[i] {
            Spec::Literal(_, k) | Spec::Resolver(_, _, k) => k,
            Spec::Arg => 0,
        }
    }
}

/// Random declarations: a random rank order makes the needs a DAG whose edges may point
/// forwards or backwards in the signature.
fn decls() -> impl Strategy<Value = Decl> {
    (1usize..=8)
        .prop_flat_map(|n| {
            (
                Just(n),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                proptest::collection::vec(
                    (
                        0u8..10,
                        any::<u16>(),
                        any::<bool>(),
                        "[a-z ?é\"\\\\☃]{0,12}",
                        0usize..4,
                    ),
                    n,
                ),
            )
        })
        .prop_map(|(n, rank, raw)| {
            let mut specs = Vec::new();
            for (i, (kind, mask, value, msg, input)) in raw.into_iter().enumerate() {
                let lower: Vec<usize> = (0..n).filter(|&j| rank[j] < rank[i]).collect();
                let spec = match kind {
                    0..=1 => Spec::Arg,
                    2..=4 => Spec::Literal(format!("L{i} {msg}"), input),
                    _ => {
                        let needs: Vec<usize> = lower
                            .iter()
                            .copied()
                            .filter(|j| mask & (1 << (j % 16)) != 0)
                            .collect();
                        Spec::Resolver(needs, value && kind % 2 == 0, input)
                    }
                };
                specs.push(spec);
            }
            Decl { specs }
        })
}

/// The value a value-returning resolver gives.
fn resolver_value(i: usize) -> Value {
    json!(format!("val-{i}"))
}

/// What one round produced.
#[derive(Debug)]
enum Out {
    Ask {
        batch: Vec<String>,
        digests: BTreeMap<String, String>,
        state: String,
    },
    Done(Value),
}

/// Run one modern round, the host running resolvers; checks invariant 5 on every
/// Resolve step against `settled` (the values the model says are settled).
fn round(
    decl: &Decl,
    plan: &Plan<'_, CAP>,
    state: Option<&str>,
    replies: Option<&str>,
    answered: &BTreeSet<usize>,
) -> Result<Out, TestCaseError> {
    let args = decl.args();
    let mut ws = vec![0u8; 1 << 14];
    let mut r = Round::new(
        plan,
        Era::Modern,
        Inputs::modern(&args, state, replies).with_capabilities(Capabilities::ALL),
        &mut ws,
    )
    .map_err(|e| TestCaseError::fail(format!("round start: {e}")))?;
    // Values settled so far this round (answers recorded/replied, resolver values).
    let mut settled: BTreeSet<usize> = answered.clone();
    loop {
        match r
            .poll()
            .map_err(|e| TestCaseError::fail(format!("poll: {e}")))?
        {
            Step::Resolve { param } => {
                let inputs: Value =
                    serde_json::from_str(&r.resolve_inputs_json().unwrap()).unwrap();
                for &j in decl.needs(param) {
                    let name = Decl::name(j);
                    // A need the engine holds reads by name as the same value.
                    if let Some(v) = r.resolve_input(&name).unwrap() {
                        let held: Value = serde_json::from_str(v.raw()).unwrap();
                        prop_assert_eq!(&held, &inputs[&name], "p{}'s input by name", param);
                    }
                    if decl.elicited(j) {
                        // 5: needs are answered (or valued) before the resolver runs.
                        prop_assert!(
                            settled.contains(&j),
                            "p{} resolved before its need p{} was settled",
                            param,
                            j
                        );
                        prop_assert_eq!(
                            &inputs[&name],
                            &decl.want(j),
                            "p{} got the wrong p{}",
                            param,
                            j
                        );
                    } else {
                        prop_assert_eq!(&inputs[&name], &json!(format!("arg-{j}")));
                    }
                }
                match decl.specs[param] {
                    Spec::Resolver(_, true, _) => {
                        r.resolve_value(&resolver_value(param).to_string()).unwrap();
                        settled.insert(param);
                    }
                    _ => {
                        // The question quotes the inputs, so it is stable across rounds.
                        let q = question(decl.kind(param), &format!("R{param} with {inputs}"));
                        r.resolve_question(&q.to_string()).unwrap();
                    }
                }
            }
            Step::Ask { .. } => unreachable!("modern era"),
            Step::Fallback => unreachable!("these declarations have no fallback"),
            Step::Done => {
                return Ok(Out::Done(
                    serde_json::from_str(&r.values_json().unwrap()).unwrap(),
                ))
            }
            Step::InputRequired => {
                let requests: serde_json::Map<String, Value> =
                    serde_json::from_str(&r.input_requests_json(false).unwrap()).unwrap();
                let mut digests = BTreeMap::new();
                for name in requests.keys() {
                    let i = plan.index_of(name).unwrap();
                    let d = r.digest_of(i).expect("asked questions have digests");
                    digests.insert(name.clone(), String::from_utf8(d.to_vec()).unwrap());
                }
                let state = r.request_state_json().unwrap();
                let sv: Value = serde_json::from_str(&state).unwrap();
                // 4: the state records the digest of each question shown.
                for (name, d) in &digests {
                    prop_assert_eq!(sv["asked"][name].as_str(), Some(d.as_str()));
                }
                return Ok(Out::Ask {
                    batch: requests.keys().cloned().collect(),
                    digests,
                    state,
                });
            }
        }
    }
}

/// The model: which parameters can be rendered given what is answered.
fn expected_batch(decl: &Decl, answered: &BTreeSet<usize>) -> BTreeSet<usize> {
    let n = decl.specs.len();
    // Settled this round: answered, plus value resolvers whose needs settle (fixpoint).
    let mut settled = answered.clone();
    loop {
        let before = settled.len();
        for i in 0..n {
            if let Spec::Resolver(needs, true, _) = &decl.specs[i] {
                if needs
                    .iter()
                    .all(|&j| !decl.elicited(j) || settled.contains(&j))
                {
                    settled.insert(i);
                }
            }
        }
        if settled.len() == before {
            break;
        }
    }
    (0..n)
        .filter(|&i| decl.elicited(i) && !settled.contains(&i))
        .filter(|&i| !matches!(decl.specs[i], Spec::Resolver(_, true, _)))
        .filter(|&i| {
            decl.needs(i)
                .iter()
                .all(|&j| !decl.elicited(j) || settled.contains(&j))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Invariants 1, 2, 3, 4 (stability) and 5 over whole multi-round calls.
    #[test]
    fn rounds_follow_the_rules(decl in decls()) {
        let text = decl.json();
        let plan = Plan::<CAP>::compile(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        let order: Vec<usize> = plan.resolution_order().collect();
        // 3: with no needs at all, resolution order is signature order.
        if decl.specs.iter().all(|s| !matches!(s, Spec::Resolver(n, ..) if !n.is_empty())) {
            let elicited: Vec<usize> = (0..decl.specs.len()).filter(|&i| decl.elicited(i)).collect();
            prop_assert_eq!(&order, &elicited);
        }
        let mut answered: BTreeSet<usize> = BTreeSet::new();
        let mut seen_digest: BTreeMap<String, String> = BTreeMap::new();
        let (mut state, mut replies): (Option<String>, Option<String>) = (None, None);
        for _ in 0..=decl.specs.len() + 1 {
            match round(&decl, &plan, state.as_deref(), replies.as_deref(), &answered)? {
                Out::Done(values) => {
                    // Every elicited parameter has its value.
                    for i in (0..decl.specs.len()).filter(|&i| decl.elicited(i)) {
                        prop_assert_eq!(&values[Decl::name(i)], &decl.want(i));
                    }
                    prop_assert_eq!(expected_batch(&decl, &answered), BTreeSet::new());
                    return Ok(());
                }
                Out::Ask { batch, digests, state: s } => {
                    let idx: Vec<usize> = batch.iter().map(|n| plan.index_of(n).unwrap()).collect();
                    // 1: never asked again once answered.
                    for i in &idx {
                        prop_assert!(!answered.contains(i), "p{} asked again after its answer", i);
                    }
                    // 2: exactly the renderable questions.
                    let got: BTreeSet<usize> = idx.iter().copied().collect();
                    prop_assert_eq!(&got, &expected_batch(&decl, &answered), "batch for {}", text);
                    // 3: in resolution order.
                    let mut pos = idx.iter().map(|i| order.iter().position(|x| x == i).unwrap());
                    let mut last = None;
                    for p in pos.by_ref() {
                        prop_assert!(last < Some(p), "batch out of resolution order: {:?}", batch);
                        last = Some(p);
                    }
                    // 4: a question keeps its digest from round to round.
                    for (name, d) in &digests {
                        if let Some(prev) = seen_digest.get(name) {
                            prop_assert_eq!(prev, d, "digest of {} changed", name);
                        }
                        seen_digest.insert(name.clone(), d.clone());
                    }
                    let mut m = serde_json::Map::new();
                    for i in &idx {
                        m.insert(Decl::name(*i), reply_of(*i, decl.kind(*i)));
                        answered.insert(*i);
                    }
                    state = Some(s);
                    replies = Some(Value::Object(m).to_string());
                }
            }
        }
        prop_assert!(false, "did not finish within n + 2 rounds: {}", text);
    }

    /// Invariant 4 (sensitivity): the digest changes with any change to the message or
    /// the schema, and only depends on them.
    #[test]
    fn digest_tracks_message_and_schema(
        m1 in "[a-zA-Z0-9 ?é\"\\\\\n☃]{0,16}",
        m2 in "[a-zA-Z0-9 ?é\"\\\\\n☃]{0,16}",
        t1 in 0usize..TYPES.len(),
        t2 in 0usize..TYPES.len(),
    ) {
        let digest = |m: &str, t: usize| {
            let text = json!({"parameters": [{"name": "x", "type": serde_json::from_str::<Value>(TYPES[t]).unwrap(), "elicit": {"message": m}}]}).to_string();
            let plan = Plan::<4>::compile(&text).unwrap();
            let d = plan.literal_digest(0).unwrap();
            // The same on every round: a round shows the compiled digest.
            let mut ws = [0u8; 64];
            let mut r = Round::new(&plan, Era::Modern, Inputs::modern("{}", None, None), &mut ws).unwrap();
            assert_eq!(r.poll().unwrap(), Step::InputRequired);
            assert_eq!(r.digest_of(0), Some(d));
            d
        };
        let d11 = digest(&m1, t1);
        prop_assert_eq!(d11, digest(&m1, t1));
        prop_assert_eq!(d11 == digest(&m2, t1), m1 == m2);
        prop_assert_eq!(d11 == digest(&m1, t2), t1 == t2);
    }
}

/// Answer types whose schemas all differ.
const TYPES: &[&str] = &[
    r#""string""#,
    r#""integer""#,
    r#""number""#,
    r#""boolean""#,
    r#"{"type":"string","minLength":1}"#,
    r#"{"type":"string","maxLength":5}"#,
    r#"{"type":"string","format":"email"}"#,
    r#"{"enum":["a","b"]}"#,
    r#"{"enum":["b","a"]}"#,
    r#"{"type":"array","items":{"enum":["x","y"]}}"#,
    r#"{"type":"object","properties":{"a":{"type":"string"}}}"#,
    r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The JSON scanner (word-at-a-time string scanning) agrees with serde_json: any
    /// string round-trips through an object key and value, and a quoted run of raw
    /// characters (quotes, backslashes, control characters included) is accepted
    /// exactly when serde_json accepts it.
    #[test]
    fn json_strings_scan_like_serde(
        s in "[a-z\"\\\\\u{1}\u{1f} é☃\n/]{0,40}",
        raw in "[a-z\"\\\\\u{1} é/nu0]{0,24}",
    ) {
        use elicit_core::json::Value as J;
        let doc = json!({ &s: s, "next": [s.clone(), 1] }).to_string();
        let v = J::parse(&doc).unwrap();
        let members: Vec<_> = v.members().collect();
        prop_assert_eq!(members.len(), 2);
        let key: String = members[0].0.units().map(|u| char::from_u32(u).unwrap()).collect();
        prop_assert_eq!(&key, &s);
        let val: String = members[0].1.as_str().unwrap().units().map(|u| char::from_u32(u).unwrap()).collect();
        prop_assert_eq!(&val, &s);
        prop_assert_eq!(v.get("next").unwrap().items().count(), 2);
        // Decoded comparison, with the escapes serde_json writes and with ASCII escapes.
        prop_assert!(members[0].0.eq_str(&s));
        let longer = format!("{}x", s);
        prop_assert!(!members[0].0.eq_str(&longer));
        prop_assert!(s.is_empty() || !members[0].0.eq_str(&s[..s.len() - s.chars().last().unwrap().len_utf8()]));
        let mut ascii = Vec::new();
        elicit_core::json::write_str(&s, true, &mut ascii);
        let ascii = String::from_utf8(ascii).unwrap();
        let a = J::parse(&ascii).unwrap().as_str().unwrap();
        prop_assert!(a.eq_str(&s), "{:?} vs {:?}", ascii, s);
        let longer = format!("{}é", s);
        prop_assert!(!a.eq_str(&longer));
        let quoted = format!("\"{raw}\"");
        prop_assert_eq!(
            J::parse(&quoted).is_ok(),
            serde_json::from_str::<Value>(&quoted).is_ok(),
            "{:?}", quoted
        );
    }
}
