//! Host side of the agent's build:
//!
//! 1. `memory.x` onto the linker's search path (cortex-m-rt's `link.x` includes it);
//! 2. the booking tools' declarations (the same as examples/rmcp-server's `src/booking.rs`,
//!    built with elicit-core's typed builder) compiled on the host into plan bytes
//!    (`Plan::to_postcard`), which the device loads with `Plan::from_postcard`: the
//!    declaration compiler never reaches the device.

use std::env;
use std::fs;
use std::path::PathBuf;

use elicit_core::decl::{AnswerType, Param, Tool};
use elicit_core::Plan;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x");
    // cortex-m-rt's `device` feature includes a device.x naming the interrupt handlers;
    // the agent's vectors all point at DefaultHandler (src/board.rs), so it is empty.
    fs::write(out.join("device.x"), "/* src/board.rs: __INTERRUPTS */\n").expect("device.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");

    // Keep these in step with examples/rmcp-server/src/booking.rs: the mixed-fleet tests
    // (a round sealed by one server resumed on the other) fail when they differ.
    let book_flight = Tool::new("book_flight")
        .param(Param::ask("destination", "Where would you like to fly?"))
        .param(Param::ask("date", "When would you like to fly?"))
        .param(Param::resolver("airport", &["destination"]))
        .param(Param::resolver("proceed", &["destination", "date"]).ty(AnswerType::Boolean))
        .param(
            Param::ask("seat", "Window or aisle?")
                .ty(AnswerType::choice(["window", "aisle"]))
                .default_json("null"),
        )
        .to_json();
    let greet = Tool::new("greet")
        .param(Param::ask("name", "Enter your name:"))
        .to_json();
    let order = Tool::new("order")
        .param(Param::argument("item").ty(AnswerType::String))
        .param(Param::resolver("quantity", &["item"]).ty(AnswerType::Integer))
        .to_json();
    for (name, json) in [
        ("book_flight", book_flight),
        ("greet", greet),
        ("order", order),
    ] {
        let plan: Plan<'_, 255> =
            Plan::compile(&json).unwrap_or_else(|e| panic!("{name} does not compile: {e}"));
        let bytes = plan.to_postcard_vec();
        Plan::<'_, 255>::from_postcard(&bytes).expect("plan bytes load back");
        fs::write(out.join(format!("{name}.plan")), &bytes).expect("write plan");
    }
}
