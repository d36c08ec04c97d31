//! Compile a JSON tool declaration on the host into plan bytes (`Plan::to_postcard`: a
//! format-version byte, the parameter count, postcard) and print them as C source, for
//! firmware that loads them with `elicit_noalloc_plan_init` (`include/elicit_noalloc.h`)
//! and so never links the declaration compiler.
//!
//! ```text
//! plan_bytes DECLARATION.json C_NAME   > plan.c
//! ```
//!
//! prints `const unsigned char C_NAME[] = {...};` and `const unsigned long C_NAME_len`.
//! The declaration is checked as `elicit_plan_new` checks it, at the device's capacity
//! (`ELICIT_NOALLOC_MAX_PARAMS`, 16 parameters); an error names the problem and exits 1.

use std::fmt::Write as _;
use std::process::ExitCode;

use elicit_core::Plan;

/// The heap-free C surface's capacity (`ELICIT_NOALLOC_MAX_PARAMS`).
const MAX_PARAMS: usize = 16;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, name] = args.as_slice() else {
        eprintln!("usage: plan_bytes DECLARATION.json C_NAME");
        return ExitCode::from(2);
    };
    if name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        eprintln!("plan_bytes: C_NAME {name:?} is not a C identifier (letters, digits, _)");
        return ExitCode::from(2);
    }
    let json = match std::fs::read_to_string(path) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("plan_bytes: cannot read {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let plan: Plan<'_, MAX_PARAMS> = match Plan::compile(&json) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("plan_bytes: {path} does not compile: {e}");
            return ExitCode::from(1);
        }
    };
    let bytes = plan.to_postcard_vec();
    if Plan::<'_, MAX_PARAMS>::from_postcard(&bytes).is_err() {
        eprintln!("plan_bytes: {path}: the plan bytes do not load back");
        return ExitCode::from(1);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Plan bytes of {path} (tool {:?}, {} parameters), made by tools/src/bin/plan_bytes.rs. */",
        plan.tool(),
        plan.len()
    );
    let _ = writeln!(out, "const unsigned char {name}[{}] = {{", bytes.len());
    for chunk in bytes.chunks(16) {
        let line: Vec<String> = chunk.iter().map(|b| format!("0x{b:02x}")).collect();
        let _ = writeln!(out, "    {},", line.join(", "));
    }
    let _ = writeln!(out, "}};");
    let _ = writeln!(out, "const unsigned long {name}_len = {};", bytes.len());
    print!("{out}");
    ExitCode::SUCCESS
}
