//! The mistakes `#[derive(Elicit)]` refuses at compile time, each with a message that
//! names the field (tests/ui/*.stderr hold the expected errors): a `needs` naming no
//! field, a resolver on a literal field, a type that cannot be asked (a generic type, or
//! a type that is no `Choice`), a duplicate parameter name.

#[test]
fn declaration_mistakes_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
