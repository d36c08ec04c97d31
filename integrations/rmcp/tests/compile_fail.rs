//! The mistakes `#[derive(Elicit)]` refuses at compile time, each with a message that
//! names the field (tests/ui/*.stderr hold the expected errors): a `needs` naming no
//! field, a resolver on a literal field, a type that cannot be asked (a generic type, or
//! a type that is no `Choice`), a duplicate parameter name.

// Debug test runs (`cargo test --workspace`) check them; release runs (scripts/test-mcp.sh
// runs `cargo test --release`) skip them rather than check every dependency a second time
// in another profile.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "compile-fail tests run in the debug test run (cargo test --workspace)"
)]
fn declaration_mistakes_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
