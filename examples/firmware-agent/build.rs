//! Host side of the agent's build:
//!
//! 1. the board from the target (`cfg(board = …)`, src/board) and its linker script
//!    onto the linker's search path: `boards/<board>.x` as `memory.x` (cortex-m-rt's
//!    `link.x` includes it) on the Arm boards, as `agent.x` (the whole script) on RISC-V;
//! 2. the booking tools' declarations (the booking fixture, tests/fixture, which
//!    servers/rmcp serves too) made into plans on the host by the engine's own
//!    code (`elicit_core::plan_const::plan_constant`: compiled, written as plan bytes
//!    and loaded back with every check a device would run, and the loaded plan's parts
//!    written as a Rust constant; the C ABI's builtin plans are made by it too): neither
//!    the declaration compiler nor the plan loader reaches the device;
//! 3. the `tools` array of `tools/list` and the tool table (`tools.rs` in OUT_DIR),
//!    generated from the same fixture.

use std::env;
use std::fs;
use std::path::PathBuf;

use booking_fixture::{Entry, OUTPUT_SCHEMA, TOOLS};
use elicit_core::json::write_str;
use elicit_core::plan_const::plan_constant;

/// The agent's plan capacity (`N` in src/tools.rs): every tool's parameters must fit (the
/// device's `Parts::plan` refuses more, as the loader did).
const PLAN_CAPACITY: usize = 5;

/// `s` as a JSON string (UTF-8 kept, as FastMCP writes it).
fn json_str(s: &str) -> String {
    let mut out = Vec::new();
    write_str(s, false, &mut out);
    // The JSON writer writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// One tool of the listing, shaped like FastMCP 4.1.6's (and elicit-rmcp-server's):
/// elicited parameters are hidden from `inputSchema`. In pieces, alternately the same for
/// every tool (stored once in flash) and the tool's own; `last` closes the array.
fn listed(tool: &Entry, last: bool) -> [String; 6] {
    let properties: Vec<String> = tool
        .arguments
        .iter()
        .map(|(name, schema)| format!("{}:{schema}", json_str(name)))
        .collect();
    let required: Vec<String> = tool.arguments.iter().map(|(n, _)| json_str(n)).collect();
    let required = if required.is_empty() {
        String::new()
    } else {
        format!(",\"required\":[{}]", required.join(","))
    };
    [
        "{\"_meta\":{\"fastmcp\":{\"tags\":[]}},\"description\":".to_string(),
        json_str(tool.description.unwrap_or("")),
        ",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
            .to_string(),
        format!(
            "{}}}{required}}},\"name\":{}",
            properties.join(","),
            json_str(tool.name)
        ),
        format!(",\"outputSchema\":{OUTPUT_SCHEMA},\"title\":"),
        format!(
            "{}}}{}",
            json_str(tool.title.unwrap_or("")),
            if last { "]" } else { "," }
        ),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let target = env::var("TARGET").map_err(|_| "TARGET is not set")?;
    let (board, script) = match target.as_str() {
        "thumbv7em-none-eabihf" => ("mps2-an386", "memory.x"),
        "thumbv6m-none-eabi" => ("microbit", "memory.x"),
        "riscv32imc-unknown-none-elf" | "riscv32imac-unknown-none-elf" => ("sifive_e", "agent.x"),
        other => {
            return Err(format!(
                "elicit-agent builds for thumbv7em-none-eabihf (mps2-an386), thumbv6m-none-eabi \
                 (microbit) or riscv32imc-unknown-none-elf / riscv32imac-unknown-none-elf \
                 (sifive_e), not {other}"
            )
            .into())
        }
    };
    println!(
        "cargo::rustc-check-cfg=cfg(board, values(\"mps2-an386\", \"microbit\", \"sifive_e\"))"
    );
    println!("cargo::rustc-cfg=board=\"{board}\"");
    fs::copy(format!("boards/{board}.x"), out.join(script))
        .map_err(|e| format!("boards/{board}.x: {e}"))?;
    // cortex-m-rt's `device` feature includes a device.x naming the interrupt handlers;
    // the agent's vectors all point at DefaultHandler (src/board), so it is empty.
    fs::write(out.join("device.x"), "/* src/board: __INTERRUPTS */\n")?;
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=boards");
    println!("cargo:rerun-if-changed=build.rs");

    let mut table = Vec::new();
    let mut plans = Vec::new();
    for tool in TOOLS {
        let name = tool.name;
        let parts = plan_constant::<PLAN_CAPACITY>(tool.declaration)
            .map_err(|e| format!("{name}: {e}"))?
            .expr;
        let constant = name.to_ascii_uppercase();
        plans.push(format!(
            "/// `{name}`'s plan, made on the host (build.rs).\n\
             static {constant}_PLAN: Parts<'static> = {parts};\n"
        ));
        // The agent checks model arguments as strings only.
        for (arg, schema) in tool.arguments {
            if *schema != r#"{"type":"string"}"# {
                return Err(format!("{name}: argument {arg} has schema {schema}; the agent takes string arguments only (src/tools.rs check_arguments)").into());
            }
        }
        let args: Vec<String> = tool
            .arguments
            .iter()
            .map(|(a, _)| format!("{a:?}"))
            .collect();
        table.push(format!(
            "Tool {{ name: {name:?}, plan: &{constant}_PLAN, string_args: &[{}], \
             result: booking_fixture::entry::{constant}.result }}",
            args.join(", "),
        ));
    }
    let mut listing = vec!["[".to_string()];
    for (i, tool) in TOOLS.iter().enumerate() {
        listing.extend(listed(tool, i + 1 == TOOLS.len()));
    }
    fs::write(
        out.join("tools.rs"),
        format!(
            "{}\
             /// The tools the agent lists and calls (the booking fixture's, in its order).\n\
             pub const TOOLS: [Tool; {}] = [{}];\n\
             /// The `tools` array of `tools/list` in pieces (see [`write_listing`]).\n\
             const LISTING: [&str; {}] = {:?};\n",
            plans.concat(),
            table.len(),
            table.join(", "),
            listing.len(),
            listing
        ),
    )?;
    Ok(())
}
