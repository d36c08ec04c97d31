//! The library's builtin plans (`elicit_noalloc_plan_builtin`, src/plan.rs): the file
//! `ELICIT_NOALLOC_BUILTIN_PLANS` names (made by elicit-tools' `plan_const` from JSON
//! declarations; an absolute path, or one relative to this crate's folder), copied to
//! `OUT_DIR/builtin_plans.rs`; none when it is unset or empty.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() -> Result<(), String> {
    const VAR: &str = "ELICIT_NOALLOC_BUILTIN_PLANS";
    println!("cargo::rerun-if-env-changed={VAR}");
    let out =
        PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?).join("builtin_plans.rs");
    match env::var_os(VAR).filter(|p| !p.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            println!("cargo::rerun-if-changed={}", path.display());
            fs::copy(&path, &out).map_err(|e| {
                format!(
                    "{VAR}={}: {e}; name a file made by `cargo run -p elicit-tools --bin plan_const -- DECLARATION.json...` (or unset it for a library without builtin plans)",
                    path.display()
                )
            })?;
        }
        None => fs::write(&out, "&[]\n").map_err(|e| format!("{}: {e}", out.display()))?,
    }
    Ok(())
}
