//! Criterion benchmarks for exactly the reference's cases (`reference/oracle/bench.py`):
//! one round of `indep-1/4/16/64` and `chain-8`, first and final, plus plan compilation
//! and (feature `seal`) sealing/unsealing a round's state.
//!
//! Results land in `target/criterion/<group>/<case>/<round>/new/estimates.json`;
//! `scripts/bench-vs-reference.sh` puts them beside the reference's numbers.
//!
//!     cargo bench -p elicit-core --features seal --bench rounds [-- FILTER]
// A benchmark over fixed, generated cases: a failed unwrap, expect, index or panic is a
// broken benchmark, as in a test (clippy.toml's allow-*-in-tests covers only #[test]).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use elicit_core::Plan;

#[path = "support/cases.rs"]
mod cases;
use cases::{run_round, Case, Outcome, CAP, OUT, WORKSPACE};

fn rounds(c: &mut Criterion) {
    let mut g = c.benchmark_group("round");
    for case in Case::all_with_extras() {
        // Each plan is sized to its case, as a host sizes `Plan<N>` to its largest tool:
        // a round holds N slots inline, so its fixed cost grows with N, not with the
        // parameters in use.
        match case.n {
            0..=8 => bench_case::<8>(&mut g, &case),
            9..=16 => bench_case::<16>(&mut g, &case),
            _ => bench_case::<CAP>(&mut g, &case),
        }
    }
    g.finish();
}

fn bench_case<const N: usize>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &Case,
) {
    let plan = Plan::<N>::compile(&case.declaration).expect("compiles");
    let mut ws = vec![0u8; WORKSPACE];
    let mut out = vec![0u8; OUT];
    let mut question = String::new();
    // Check each round does what bench.py expects before timing it.
    match run_round(&plan, None, None, &mut ws, &mut out, &mut question) {
        Outcome::Ask(..) => {}
        o => panic!("{}: first round should ask, got {o:?}", case.label),
    }
    let (st, rp) = (case.final_state.as_str(), case.final_replies.as_str());
    match run_round(&plan, Some(st), Some(rp), &mut ws, &mut out, &mut question) {
        Outcome::Values(_) => {}
        o => panic!("{}: final round should settle, got {o:?}", case.label),
    }
    g.bench_function(BenchmarkId::new(case.label, "first"), |b| {
        b.iter(|| {
            black_box(run_round(
                black_box(&plan),
                black_box(None),
                black_box(None),
                &mut ws,
                &mut out,
                &mut question,
            ))
        })
    });
    g.bench_function(BenchmarkId::new(case.label, "final"), |b| {
        b.iter(|| {
            black_box(run_round(
                black_box(&plan),
                black_box(Some(st)),
                black_box(Some(rp)),
                &mut ws,
                &mut out,
                &mut question,
            ))
        })
    });
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    for case in Case::all() {
        let text = case.declaration.clone();
        g.bench_function(case.label, |b| {
            b.iter(|| black_box(Plan::<CAP>::compile(black_box(&text)).expect("compiles")).len())
        });
    }
    g.finish();
}

#[cfg(feature = "seal")]
fn seal(c: &mut Criterion) {
    use elicit_core::json::Value;
    use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime};

    let mut g = c.benchmark_group("seal");
    let sealer = Sealer::new(KeyRing::<2>::new(&[&[0x42u8; 32]]).unwrap(), Some("bench"));
    let params = r#"{"name":"tool","arguments":{}}"#;
    let binding = Binding::from_params("tools/call", Some(Value::parse(params).unwrap())).unwrap();
    let entropy = Entropy {
        nonce: [7; 12],
        principal_salt: [9; 8],
    };
    let now = UnixTime::from_secs(1_780_000_000);
    let later = UnixTime::from_secs(1_780_000_010);
    // The states the indep-16 and indep-64 final rounds receive.
    for label in ["indep-16", "indep-64"] {
        let (_, kind, n) = *cases::CASES.iter().find(|c| c.0 == label).unwrap();
        let state = Case::new(label, kind, n).final_state;
        let mut token_buf = vec![0u8; 4 * state.len() + 512];
        let mut plain_buf = vec![0u8; 4 * state.len() + 512];
        let token = sealer
            .seal(
                &state,
                &binding,
                Some("alice"),
                now,
                &entropy,
                &mut token_buf,
            )
            .unwrap()
            .to_string();
        assert_eq!(
            sealer
                .unseal(&token, &binding, Some("alice"), later, &mut plain_buf)
                .unwrap(),
            state
        );
        g.bench_function(BenchmarkId::new("seal", label), |b| {
            b.iter(|| {
                sealer
                    .seal(
                        black_box(&state),
                        &binding,
                        Some("alice"),
                        now,
                        &entropy,
                        &mut token_buf,
                    )
                    .unwrap()
                    .len()
            })
        });
        g.bench_function(BenchmarkId::new("unseal", label), |b| {
            b.iter(|| {
                sealer
                    .unseal(
                        black_box(&token),
                        &binding,
                        Some("alice"),
                        later,
                        &mut plain_buf,
                    )
                    .unwrap()
                    .len()
            })
        });
    }
    g.finish();
}

#[cfg(not(feature = "seal"))]
fn seal(_: &mut Criterion) {}

fn config() -> Criterion {
    // Modest runs: the machine is shared.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = rounds, compile, seal
}
criterion_main!(benches);
