//! Declaration parsing: `Plan::compile` on arbitrary text never panics; a plan that
//! compiles answers its accessors (each elicited parameter has a kind, and the plan's
//! kinds are theirs), renders JSON for its literal questions of every kind, and starts
//! rounds in both eras, for a client that declared every kind and for one that
//! declared form elicitation only.
// A fuzz harness: a failed unwrap, expect, index or panic is a bug found, as a test's
// assertion is (the targets check the engine's invariants by panicking).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![no_main]
use elicit_core::{Capabilities, Era, Inputs, Plan, Round};
use elicit_fuzz::{check_json, run_canned};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Workspaces first: a round ties them to the plan's lifetime.
    let mut wss: Vec<Vec<u8>> = (0..4).map(|_| vec![0u8; 1 << 14]).collect();
    let Ok(plan) = Plan::<16>::compile(text) else {
        return;
    };
    let order: Vec<usize> = plan.resolution_order().collect();
    for &i in &order {
        assert!(plan.is_elicited(i));
        // Resolution order puts every elicited need before its dependant.
        for need in plan.needs(i) {
            let j = plan.index_of(need).expect("needs name parameters");
            if plan.is_elicited(j) {
                let (pi, pj) = (
                    order.iter().position(|&x| x == i).unwrap(),
                    order.iter().position(|&x| x == j).unwrap(),
                );
                assert!(pj < pi, "a need resolves before its dependant");
            }
        }
    }
    let mut kinds = Capabilities::NONE;
    for i in 0..plan.len() {
        assert_eq!(plan.kind(i).is_some(), plan.is_elicited(i));
        if let Some(k) = plan.kind(i) {
            kinds = kinds.with(k);
        }
        let name = plan.name(i).expect("in range");
        assert_eq!(plan.index_of(name), Some(i));
        let mut out = Vec::new();
        if plan.write_literal_params(i, true, &mut out) {
            check_json("digest params", &out);
            out.clear();
            assert!(plan.write_literal_params(i, false, &mut out));
            check_json("wire params", &out);
            assert!(plan.literal_digest(i).is_some());
        }
    }
    assert_eq!(plan.kinds(), kinds);
    // Rounds with no arguments: either a missing-argument (or missing-capability) error
    // or a proper step.
    let mut wss = wss.iter_mut();
    for caps in [Capabilities::ALL, Capabilities::FORM] {
        let (Some(ws1), Some(ws2)) = (wss.next(), wss.next()) else {
            return;
        };
        let modern = Inputs::modern("{}", None, None).with_capabilities(caps);
        if let Ok(mut r) = Round::new(&plan, Era::Modern, modern, ws1) {
            let _ = run_canned(&mut r, false);
        }
        let handshake = Inputs::handshake("{}").with_capabilities(caps);
        if let Ok(mut r) = Round::new(&plan, Era::Handshake, handshake, ws2) {
            let _ = run_canned(&mut r, true);
        };
    }
});
