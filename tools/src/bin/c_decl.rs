//! Write a JSON tool declaration as a C header of string literals, so C and C++ programs
//! use the booking fixture's declaration instead of a copy of it.
//!
//! ```text
//! c_decl DECLARATION.json PREFIX   > header.h
//! ```
//!
//! prints a header defining `PREFIX_TOOL` (the tool's name) and `PREFIX_PARAMETERS` (the
//! parameters as compact JSON objects separated by commas, without the brackets, one per
//! line), both string literals: a program writes
//! `"{\"tool\":\"" PREFIX_TOOL "\",\"parameters\":[" PREFIX_PARAMETERS "]}"`, and may
//! append parameters of its own before the `]`. The declaration must compile
//! (`elicit_plan_new`'s checks); an error names the problem and exits 1.
//! examples/c/booking_decl.h is this tool's output for
//! tests/fixture/decl/book_flight.json; scripts/test-c.sh regenerates it and fails on
//! a difference (`--update-header` rewrites it).

use std::fmt::Write as _;
use std::process::ExitCode;

use elicit_core::Plan;
use serde_json::Value;

/// `s` as the contents of a C string literal: quotes and backslashes escaped, every byte
/// outside printable ASCII as a three-digit octal escape (which no following digit can
/// extend, unlike `\x`).
fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out
}

/// The header for the declaration `json` read from `path`, or why not.
fn header(path: &str, json: &str, prefix: &str) -> Result<String, String> {
    Plan::<'_, 255>::compile(json).map_err(|e| format!("{path} does not compile: {e}"))?;
    let decl: Value = serde_json::from_str(json).map_err(|e| format!("{path}: {e}"))?;
    let tool = decl
        .get("tool")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{path}: \"tool\" must be a string"))?;
    let params = decl
        .get("parameters")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{path}: \"parameters\" must be an array"))?;
    let guard = format!("{prefix}_DECL_H");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* {path} as C string literals, made by tools/src/bin/c_decl.rs: do not edit.\n * scripts/test-c.sh fails when it differs from the file (--update-header rewrites it). */"
    );
    let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
    let _ = writeln!(
        out,
        "/* The tool's name. */\n#define {prefix}_TOOL \"{}\"\n",
        c_string(tool)
    );
    let _ = writeln!(
        out,
        "/* Its parameters: compact JSON objects separated by commas, without the brackets. */"
    );
    let _ = write!(out, "#define {prefix}_PARAMETERS");
    for (i, p) in params.iter().enumerate() {
        let comma = if i + 1 < params.len() { "," } else { "" };
        let _ = write!(out, " \\\n    \"{}{comma}\"", c_string(&p.to_string()));
    }
    let _ = writeln!(out, "\n\n#endif");
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, prefix] = args.as_slice() else {
        eprintln!("usage: c_decl DECLARATION.json PREFIX");
        return ExitCode::from(2);
    };
    if !prefix.starts_with(|c: char| c.is_ascii_uppercase())
        || !prefix
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        eprintln!("c_decl: PREFIX {prefix:?} must be an upper-case C identifier (A-Z, 0-9, _)");
        return ExitCode::from(2);
    }
    let written = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {path}: {e}"))
        .and_then(|json| header(path, &json, prefix));
    match written {
        Ok(h) => {
            print!("{h}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("c_decl: {e}");
            ExitCode::from(1)
        }
    }
}
