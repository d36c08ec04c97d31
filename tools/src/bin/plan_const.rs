//! Make JSON tool declarations into builtin plans for the heap-free C ABI's device
//! library: a firmware that serves fixed tools gets its plans with
//! `elicit_noalloc_plan_builtin` and links neither the plan loader nor the declaration
//! compiler (ffi-noalloc/README.md says why, and how to build the library with them).
//!
//! ```text
//! plan_const DECLARATION.json... > builtin_plans.rs
//! ELICIT_NOALLOC_BUILTIN_PLANS=$PWD/builtin_plans.rs cargo build --release ...   # in ffi-noalloc/staticlib
//! ```
//!
//! prints a Rust expression of type `&[(Parts<'static>, usize)]` for ffi-noalloc's build:
//! each declaration's plan as a constant and the length of the plan bytes it was loaded
//! from, made by `elicit_core::plan_const::plan_constant` (as examples/firmware-agent's
//! build makes its plans): compiled, written as plan bytes and loaded back at the device's
//! capacity (`ELICIT_NOALLOC_MAX_PARAMS`, 16 parameters), every check a device would run.
//! An error names the file and the problem and exits 1; two declarations of one tool
//! are an error (the builtin plans are found by their tool's name).

use std::fmt::Write as _;
use std::process::ExitCode;

use elicit_core::plan_const::plan_constant;

/// The heap-free C surface's capacity (`ELICIT_NOALLOC_MAX_PARAMS`).
const MAX_PARAMS: usize = 16;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: plan_const DECLARATION.json... > builtin_plans.rs");
        return ExitCode::from(2);
    }
    let mut tools: Vec<String> = Vec::new();
    let mut out = String::from(
        "// The builtin plans of elicit_noalloc_plan_builtin, made by tools/src/bin/plan_const.rs.\n&[\n",
    );
    for path in &paths {
        let json = match std::fs::read_to_string(path) {
            Ok(j) => j,
            Err(e) => {
                eprintln!("plan_const: cannot read {path}: {e}");
                return ExitCode::from(1);
            }
        };
        let made = match plan_constant::<MAX_PARAMS>(&json) {
            Ok(made) => made,
            Err(e) => {
                eprintln!("plan_const: {path}: {e}");
                return ExitCode::from(1);
            }
        };
        let (parts, bytes_len, tool) = (made.expr, made.bytes_len, made.tool);
        if tools.contains(&tool) {
            eprintln!(
                "plan_const: {path}: a second declaration of tool {tool:?}; give each builtin plan's tool its own name"
            );
            return ExitCode::from(1);
        }
        let _ = writeln!(
            out,
            "    // {path}: tool {tool:?}, loaded from {bytes_len} plan bytes\n    ({parts}, {bytes_len}),"
        );
        tools.push(tool);
    }
    out.push_str("]\n");
    print!("{out}");
    ExitCode::SUCCESS
}
