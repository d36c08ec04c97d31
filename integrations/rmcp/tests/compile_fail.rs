//! The mistakes `#[derive(Elicit)]` refuses at compile time, each with a message that
//! names the field (tests/ui/*.stderr hold the expected errors).

#[test]
fn declaration_mistakes_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
