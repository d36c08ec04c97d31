//! Host side of the firmware build:
//!
//! 1. `memory.x` onto the linker's search path (cortex-m-rt's `link.x` includes it);
//! 2. the JSON declarations (`book_flight` from the booking fixture, tests/fixture;
//!    `survey16` from `decl/`) compiled with elicit-core's declaration compiler
//!    (here, on the host) into plan bytes (`Plan::to_postcard`: a format-version byte, the
//!    parameter count, postcard), which the device loads with `Plan::from_postcard`;
//! 3. the expected transcript (`expected.txt`, the lines this build's features print)
//!    reduced to its SHA-256 and line count, which the device checks its own against.

use std::env;
use std::fs;
use std::path::PathBuf;

use elicit_core::Plan;
use sha2::{Digest, Sha256};

/// A build failure: its message is printed and the build stops.
type Failed = Box<dyn std::error::Error>;

fn main() -> Result<(), Failed> {
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);

    fs::copy("memory.x", out.join("memory.x")).map_err(|e| format!("memory.x: {e}"))?;
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");

    println!("cargo:rerun-if-changed=decl/survey16.json");
    let survey =
        fs::read_to_string("decl/survey16.json").map_err(|e| format!("decl/survey16.json: {e}"))?;
    for (name, json) in [
        ("book_flight", booking_fixture::decl::BOOK_FLIGHT),
        ("survey16", survey.as_str()),
    ] {
        // The host's capacity only bounds compilation; the device picks its own N.
        let plan: Plan<'_, 255> =
            Plan::compile(json).map_err(|e| format!("{name} does not compile: {e}"))?;
        let bytes = plan.to_postcard_vec();
        // The round trip the device will do, checked here too.
        Plan::<'_, 255>::from_postcard(&bytes)
            .map_err(|e| format!("{name}: the plan bytes do not load back: {e}"))?;
        fs::write(out.join(format!("{name}.plan")), &bytes)?;
    }

    // Lines are tagged `[seal] `, `[postcard] ` or `[json] ` when only builds with that
    // feature print them.
    println!("cargo:rerun-if-changed=expected.txt");
    let seal = env::var_os("CARGO_FEATURE_SEAL").is_some();
    let json = env::var_os("CARGO_FEATURE_JSON_PLAN").is_some();
    let expected = fs::read_to_string("expected.txt").unwrap_or_default();
    let mut sha = Sha256::new();
    let mut lines = 0u32;
    for line in expected.lines() {
        let keep = if line.starts_with("[seal] ") {
            seal
        } else if line.starts_with("[postcard] ") {
            !json
        } else if line.starts_with("[json] ") {
            json
        } else {
            !line.starts_with('#')
        };
        if keep {
            sha.update(line.as_bytes());
            sha.update(b"\n");
            lines += 1;
        }
    }
    let digest: [u8; 32] = sha.finalize().into();
    fs::write(
        out.join("expected.rs"),
        format!(
            "/// SHA-256 of the expected transcript for this build's features.\n\
             pub const EXPECTED_SHA256: [u8; 32] = {digest:?};\n\
             /// Its number of lines.\n\
             pub const EXPECTED_LINES: u32 = {lines};\n"
        ),
    )?;
    Ok(())
}
