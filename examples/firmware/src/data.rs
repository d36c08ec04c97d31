//! The application's data: the plan bytes (or JSON declarations), the scripted client's
//! replies and the final values each conversation must end with. Every build links it,
//! the stubs too (`main` passes it through `black_box`), so that the quiet builds' flash
//! minus the quiet stub's is the engine and the host loop, not this data.

#[cfg(not(feature = "json-plan"))]
pub(crate) static BOOKING_PLAN: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/book_flight.plan"));
#[cfg(not(feature = "json-plan"))]
pub(crate) static SURVEY_PLAN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/survey16.plan"));
#[cfg(feature = "json-plan")]
pub(crate) static BOOKING_JSON: &str = booking_fixture::decl::BOOK_FLIGHT;
#[cfg(feature = "json-plan")]
pub(crate) static SURVEY_JSON: &str = include_str!("../decl/survey16.json");

/// The client's answers: parameter name → ElicitResult JSON.
pub(crate) type Script = &'static [(&'static str, &'static str)];

pub(crate) const PARIS: Script = &[
    (
        "destination",
        r#"{"action":"accept","content":{"value":"Paris"}}"#,
    ),
    (
        "date",
        r#"{"action":"accept","content":{"value":"2026-08-01"}}"#,
    ),
    (
        "airport",
        r#"{"action":"accept","content":{"value":"CDG"}}"#,
    ),
    ("proceed", r#"{"action":"accept","content":{"value":true}}"#),
    (
        "seat",
        r#"{"action":"accept","content":{"value":"window"}}"#,
    ),
];
pub(crate) const PARIS_VALUES: &str =
    r#"{"destination":"Paris","date":"2026-08-01","airport":"CDG","proceed":true,"seat":"window"}"#;

pub(crate) const LONDON: Script = &[
    (
        "destination",
        r#"{"action":"accept","content":{"value":"London"}}"#,
    ),
    (
        "date",
        r#"{"action":"accept","content":{"value":"2026-09-15"}}"#,
    ),
    ("proceed", r#"{"action":"accept","content":{"value":true}}"#),
    ("seat", r#"{"action":"decline"}"#),
];
pub(crate) const LONDON_VALUES: &str =
    r#"{"destination":"London","date":"2026-09-15","airport":"LHR","proceed":true,"seat":null}"#;

pub(crate) const SURVEY: Script = &[
    ("name", r#"{"action":"accept","content":{"value":"Ada"}}"#),
    (
        "email",
        r#"{"action":"accept","content":{"value":"ada@example.com"}}"#,
    ),
    ("age", r#"{"action":"accept","content":{"value":36}}"#),
    ("height", r#"{"action":"accept","content":{"value":1.65}}"#),
    (
        "newsletter",
        r#"{"action":"accept","content":{"value":false}}"#,
    ),
    (
        "color",
        r#"{"action":"accept","content":{"value":"green"}}"#,
    ),
    (
        "toppings",
        r#"{"action":"accept","content":{"value":["olives","basil"]}}"#,
    ),
    (
        "city",
        r#"{"action":"accept","content":{"value":"Z\u00fcrich"}}"#,
    ),
    ("country", r#"{"action":"accept","content":{"value":"CH"}}"#),
    ("rating", r#"{"action":"accept","content":{"value":5}}"#),
    ("comment", r#"{"action":"decline"}"#),
    ("contact_time", r#"{"action":"cancel"}"#),
    (
        "start",
        r#"{"action":"accept","content":{"value":"2026-09-01"}}"#,
    ),
    (
        "vegetarian",
        r#"{"action":"accept","content":{"value":true}}"#,
    ),
    (
        "budget",
        r#"{"action":"accept","content":{"value":1250.5}}"#,
    ),
    (
        "referral",
        r#"{"action":"accept","content":{"value":"a friend"}}"#,
    ),
];
pub(crate) const SURVEY_VALUES: &str = "{\"name\":\"Ada\",\"email\":\"ada@example.com\",\"age\":36,\"height\":1.65,\
\"newsletter\":false,\"color\":\"green\",\"toppings\":[\"olives\",\"basil\"],\"city\":\"Z\u{fc}rich\",\
\"country\":\"CH\",\"rating\":5,\"comment\":\"\",\"contact_time\":null,\"start\":\"2026-09-01\",\
\"vegetarian\":true,\"budget\":1250.5,\"referral\":\"a friend\"}";

/// The tools' names (sealed tokens are bound to them; the transcript labels them).
pub(crate) const BOOKING_NAME: &str = "book_flight";
/// See [`BOOKING_NAME`].
pub(crate) const SURVEY_NAME: &str = "survey16";

/// Keep all of the above in the image of a build that does not use it (the stubs): what
/// `black_box` is given must exist, so its bytes are linked just as the engine builds
/// link them, and the difference between the two images is the code that uses them.
#[cfg(feature = "stub")]
pub(crate) fn keep() {
    use core::hint::black_box;
    #[cfg(not(feature = "json-plan"))]
    black_box((BOOKING_PLAN, SURVEY_PLAN));
    #[cfg(feature = "json-plan")]
    black_box((BOOKING_JSON, SURVEY_JSON));
    black_box((PARIS, LONDON, SURVEY));
    black_box((PARIS_VALUES, LONDON_VALUES, SURVEY_VALUES));
    black_box((BOOKING_NAME, SURVEY_NAME));
}
