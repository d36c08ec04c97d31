//! Plans as Rust constants (`elicit_core::plan_const`, what examples/firmware-agent links
//! instead of the plan loader): `write_plan`'s output, compiled, makes the plan that
//! `Plan::from_postcard` yields for the same bytes, for declarations using every kind of
//! parameter, answer type and question. The constants are tests/data/plan_const.rs,
//! written by `write_plan`; `constants_are_what_write_plan_writes` holds the file to the
//! writer (set ELICIT_WRITE_PLAN_CONST=1 to rewrite it after a change of the plan's
//! parts), and `constants_equal_the_loaded_plans` holds the compiled constants to the
//! loader.
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg(all(
    feature = "serde",
    feature = "alloc",
    feature = "input-kinds",
    feature = "object-types",
    feature = "raw-schema"
))]

use elicit_core::plan_const::{empty, plan_constant, write_plan, Parts};
use elicit_core::Plan;

/// Capacity of the test plans: more than any of them has, so vacant slots are written.
const N: usize = 12;

/// Every answer type, a literal question with a title and description (escapes and
/// non-ASCII text in place), a form resolver with a declared type, defaults, an outcome
/// and a model argument.
const FORMS: &str = r#"{"tool":"forms","parameters":[
 {"name":"destination","elicit":{"message":"Where would you like to \"fly\"?"}},
 {"name":"airport","elicit":{"needs":["destination"],"declares":"string"}},
 {"name":"proceed","type":"boolean","elicit":{"needs":["destination","seat"]}},
 {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
  "elicit":{"message":"Window or aisle?","title":"Seat","description":"Where to sit \u00e9 é"}},
 {"name":"n","type":{"type":"integer","minimum":1,"maximum":9},"default":3,"elicit":{"message":"How many?"}},
 {"name":"ratio","type":"number","elicit":{"message":"Ratio?"}},
 {"name":"name","type":{"type":"string","maxLength":10},"elicit":{"message":"Name?"}},
 {"name":"extras","type":{"type":"array","items":{"enum":["bag","meal"]}},"elicit":{"message":"Extras?"}},
 {"name":"who","type":{"type":"object","properties":{"first":{"type":"string","title":"First"},
   "age":{"type":"integer","default":3}}},"outcome":true,"elicit":{"message":"Who?"}},
 {"name":"raw","type":{"schema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
  "elicit":{"message":"Raw?"}},
 {"name":"item"}
]}"#;

/// Every other kind of question: URL mode, sampling, roots, and resolvers of those kinds.
const KINDS: &str = r#"{"tool":"kinds","parameters":[
 {"name":"paid","elicit":{"message":"Pay the fare","url":"https://pay.example/f1"}},
 {"name":"summary","elicit":{"sampling":{"messages":[{"role":"user",
   "content":{"type":"text","text":"Summarise the trip"}}],"maxTokens":100}}},
 {"name":"roots","default":[],"elicit":{"roots":{}}},
 {"name":"receipt","elicit":{"needs":["paid","summary"],"kind":"sampling"}},
 {"name":"login","outcome":true,"elicit":{"needs":["roots"],"kind":"url"}}
]}"#;

/// A tool without parameters.
const EMPTY: &str = r#"{"tool":"empty","parameters":[]}"#;

const DECLARATIONS: [(&str, &str); 3] = [("FORMS", FORMS), ("KINDS", KINDS), ("EMPTY", EMPTY)];

mod constants {
    use elicit_core::plan_const::Parts;
    include!("data/plan_const.rs");
}

/// The plan of `declaration` as a device would get it: compiled, written as bytes and
/// loaded back.
fn loaded(declaration: &str, bytes: &mut Vec<u8>) -> String {
    let compiled: Plan<'_, N> = Plan::compile(declaration).unwrap();
    *bytes = compiled.to_postcard_vec();
    let plan = Plan::<'_, N>::from_postcard(bytes).unwrap();
    // The loaded plan is the compiled one (digests recomputed, the same parts).
    assert_eq!(format!("{plan:?}"), format!("{compiled:?}"));
    format!("{plan:?}")
}

/// tests/data/plan_const.rs as `write_plan` writes it for the loaded plans.
fn written() -> String {
    let mut out = String::from(
        "// Written by elicit_core::plan_const::write_plan (tests/plan_const.rs: \
         ELICIT_WRITE_PLAN_CONST=1 rewrites it).\n",
    );
    for (name, declaration) in DECLARATIONS {
        // The one generator (examples/firmware-agent's build and the `plan_const` tool
        // call it): write_plan of the loaded plan, and the length of its bytes.
        let made = plan_constant::<N>(declaration).unwrap();
        let (parts, bytes_len) = (made.expr, made.bytes_len);
        let compiled: Plan<'_, N> = Plan::compile(declaration).unwrap();
        let bytes = compiled.to_postcard_vec();
        let plan = Plan::<'_, N>::from_postcard(&bytes).unwrap();
        assert_eq!(parts, write_plan(&plan), "{name}");
        assert_eq!(bytes_len, bytes.len(), "{name}");
        assert_eq!(made.tool, plan.tool(), "{name}");
        out.push_str(&format!("pub static {name}: Parts<'static> = {parts};\n"));
    }
    out
}

#[test]
fn constants_are_what_write_plan_writes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/plan_const.rs");
    let expected = written();
    if std::env::var_os("ELICIT_WRITE_PLAN_CONST").is_some() {
        std::fs::write(path, &expected).unwrap();
    }
    let file = std::fs::read_to_string(path).unwrap();
    assert!(
        file == expected,
        "tests/data/plan_const.rs is not what write_plan writes now; rewrite it with \
         ELICIT_WRITE_PLAN_CONST=1 cargo test -p elicit-core --features serde --test plan_const"
    );
}

#[test]
fn constants_equal_the_loaded_plans() {
    let constants: [(&str, &Parts<'static>); 3] = [
        ("FORMS", &constants::FORMS),
        ("KINDS", &constants::KINDS),
        ("EMPTY", &constants::EMPTY),
    ];
    let mut bytes = Vec::new();
    for ((name, declaration), (const_name, constant)) in DECLARATIONS.into_iter().zip(constants) {
        assert_eq!(name, const_name);
        let plan = loaded(declaration, &mut bytes);
        let made: Plan<'_, N> = constant.plan().unwrap();
        assert_eq!(format!("{made:?}"), plan, "{name}");
        // And it writes the same plan bytes.
        assert_eq!(made.to_postcard_vec(), bytes, "{name}");
    }
    // A capacity too small for the parts makes no plan.
    assert!(constants::FORMS.plan::<4>().is_none());
    assert!(constants::FORMS.fill(&mut empty::<4>()).is_none());
    // A plan of other parts made in place is the plan of these (nothing of the old kept).
    let mut bytes = Vec::new();
    let mut filled: Plan<'_, N> = empty();
    for ((name, declaration), parts) in
        DECLARATIONS
            .into_iter()
            .zip([&constants::FORMS, &constants::KINDS, &constants::EMPTY])
    {
        parts.fill(&mut filled).unwrap();
        assert_eq!(
            format!("{filled:?}"),
            loaded(declaration, &mut bytes),
            "{name}"
        );
    }
    // An error says which step failed, at the capacity asked for.
    let too_many = plan_constant::<4>(FORMS).unwrap_err();
    assert!(
        too_many.starts_with("the plan bytes do not load back: "),
        "{too_many}"
    );
    let broken = plan_constant::<N>("{").unwrap_err();
    assert!(
        broken.starts_with("the declaration does not compile: "),
        "{broken}"
    );
}

/// The constant plans behave as the loaded ones through the public API too.
#[test]
fn constants_answer_as_the_loaded_plans() {
    let mut bytes = Vec::new();
    for (declaration, parts) in [(FORMS, &constants::FORMS), (KINDS, &constants::KINDS)] {
        loaded(declaration, &mut bytes);
        let constant: Plan<'_, N> = parts.plan().unwrap();
        let plan = Plan::<'_, N>::from_postcard(&bytes).unwrap();
        assert_eq!(constant.tool(), plan.tool());
        assert_eq!(constant.len(), plan.len());
        assert!(constant.resolution_order().eq(plan.resolution_order()));
        assert_eq!(constant.kinds(), plan.kinds());
        for i in 0..plan.len() {
            assert_eq!(constant.name(i), plan.name(i));
            assert_eq!(constant.kind(i), plan.kind(i));
            assert_eq!(constant.literal_digest(i), plan.literal_digest(i));
            assert!(constant.needs(i).eq(plan.needs(i)));
        }
    }
}
