//! Declaration parsing: `Plan::compile` on arbitrary text never panics; a plan that
//! compiles answers its accessors, renders JSON for its literal questions, and starts
//! rounds in both eras.
#![no_main]
use elicit_core::{Era, Inputs, Plan, Round};
use elicit_fuzz::{check_json, run_canned};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Workspaces first: a round ties them to the plan's lifetime.
    let (mut ws1, mut ws2) = (vec![0u8; 1 << 14], vec![0u8; 1 << 14]);
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
    for i in 0..plan.len() {
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
    // Rounds with no arguments: either a missing-argument error or a proper step.
    if let Ok(mut r) = Round::new(&plan, Era::Modern, Inputs::modern("{}", None, None), &mut ws1) {
        let _ = run_canned(&mut r, false);
    }
    if let Ok(mut r) = Round::new(&plan, Era::Handshake, Inputs::handshake("{}"), &mut ws2) {
        let _ = run_canned(&mut r, true);
    };
});
