//! A small driver for profiling the benchmark cases under valgrind/callgrind:
//! runs one case's round `ITERS` times (no criterion, no timing code in the way).
//!
//! ```text
//! cargo build --release -p elicit-tools --bin bench_driver
//! valgrind --tool=callgrind target/release/bench_driver indep-16 first 1000
//! ```
//!
//! Cases and rounds as in `core/benches/rounds.rs` (`indep-1|4|16|64`, `chain-8`;
//! `first|final|compile`). Prints the instructions-free summary: what the round wrote.

use std::hint::black_box;

use elicit_core::Plan;

// The benchmark's own case definitions, so both run the very same rounds.
// The benchmarks' generated cases: a failure there is a broken benchmark, as in a test.
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#[path = "../../../core/benches/support/cases.rs"]
mod cases;
use cases::{run_round, Case, Kind, CAP, CASES, OUT, WORKSPACE};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("sizes") {
        println!(
            "size_of: Plan<{CAP}> = {} B, Round<{CAP}> = {} B, Error = {} B, CompileError = {} B",
            std::mem::size_of::<Plan<'static, CAP>>(),
            std::mem::size_of::<elicit_core::Round<'static, 'static, CAP>>(),
            std::mem::size_of::<elicit_core::Error>(),
            std::mem::size_of::<elicit_core::CompileError>(),
        );
        return;
    }
    let label = args.get(1).map(String::as_str).unwrap_or("indep-16");
    let which = args.get(2).map(String::as_str).unwrap_or("first");
    let iters: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    // The reference's cases, or any `indep-<n>` / `chain-<n>` (for marginal costs).
    let other = label.split_once('-').and_then(|(k, n)| {
        let kind = match k {
            "indep" => Kind::Indep,
            "chain" => Kind::Chain,
            "resolve" => Kind::Resolve,
            _ => return None,
        };
        let n: usize = n.parse().ok().filter(|&n| (1..=64).contains(&n))?;
        Some((&*String::leak(label.to_string()), kind, n))
    });
    let Some((label, kind, n)) = CASES.iter().find(|c| c.0 == label).copied().or(other) else {
        eprintln!(
            "unknown case {label}; one of {:?}",
            CASES.iter().map(|c| c.0).collect::<Vec<_>>()
        );
        std::process::exit(2);
    };
    let case = Case::new(label, kind, n);
    let (state, replies) = match which {
        "first" => (None, None),
        "final" => (
            Some(case.final_state.as_str()),
            Some(case.final_replies.as_str()),
        ),
        "compile" => {
            for _ in 0..iters {
                // The generated cases compile (core's benchmarks and tests run them).
                #[allow(clippy::expect_used)]
                let plan = Plan::<CAP>::compile(black_box(&case.declaration)).expect("compiles");
                black_box(plan.len());
            }
            println!("{label} compile x{iters}");
            return;
        }
        other => {
            eprintln!("unknown round {other}; first, final or compile");
            std::process::exit(2);
        }
    };
    // Plans sized to the case, as in core/benches/rounds.rs.
    let last = match n {
        0..=8 => repeat::<8>(&case.declaration, state, replies, iters),
        9..=16 => repeat::<16>(&case.declaration, state, replies, iters),
        _ => repeat::<CAP>(&case.declaration, state, replies, iters),
    };
    println!(
        "{label} {which} x{iters}: {last:?} ({} rounds to completion)",
        case.rounds
    );
}

fn repeat<const N: usize>(
    declaration: &str,
    state: Option<&str>,
    replies: Option<&str>,
    iters: usize,
) -> Option<cases::Outcome> {
    // The generated cases compile (core's benchmarks and tests run them).
    #[allow(clippy::expect_used)]
    let plan = Plan::<N>::compile(declaration).expect("compiles");
    let mut ws = vec![0u8; WORKSPACE];
    let mut out = vec![0u8; OUT];
    let mut question = String::new();
    let mut last = None;
    for _ in 0..iters {
        last = Some(black_box(run_round(
            &plan,
            black_box(state),
            black_box(replies),
            &mut ws,
            &mut out,
            &mut question,
        )));
    }
    last
}
