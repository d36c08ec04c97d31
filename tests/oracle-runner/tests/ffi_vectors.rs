//! The C ABI gives the engine's results byte for byte: every
//! `tests/vectors/NAME.input.json` is run through the `elicit-oracle-runner` binary twice,
//! once driving elicit-core directly and once with `--ffi` (through elicit-ffi's
//! `extern "C"` functions), and the two outputs (stdout and exit status) must be
//! identical. A missing or empty vector folder fails the test. (`vectors.rs` checks the
//! outputs against the golden files.)
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn run(input: &str, ffi: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_elicit-oracle-runner"));
    if ffi {
        cmd.arg("--ffi");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run elicit-oracle-runner");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input.as_bytes());
    }
    child
        .wait_with_output()
        .expect("wait for elicit-oracle-runner")
}

#[test]
fn ffi_matches_core_on_every_vector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "cannot read the vector folder {}: {e} (it holds the reference's vectors, \
             see tests/vectors/README.md)",
            dir.display()
        )
    });
    let mut inputs: Vec<PathBuf> = entries
        .map(|e| e.expect("vector folder entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".input.json"))
        })
        .collect();
    inputs.sort();
    assert!(
        !inputs.is_empty(),
        "no *.input.json in {}: the vectors are missing",
        dir.display()
    );

    let mut compared = 0usize;
    let mut failures = String::new();
    for path in &inputs {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".input.json"))
            .expect("vector name")
            .to_string();
        let input = std::fs::read_to_string(path).expect("read vector input");
        let core = run(&input, false);
        let ffi = run(&input, true);
        compared += 1;
        if core.status.code() != ffi.status.code() {
            let _ = writeln!(
                failures,
                "{name}: exit status {:?} (core) vs {:?} (ffi); ffi stderr: {}",
                core.status.code(),
                ffi.status.code(),
                String::from_utf8_lossy(&ffi.stderr).trim_end()
            );
        }
        if core.stdout != ffi.stdout {
            let a = String::from_utf8_lossy(&core.stdout);
            let b = String::from_utf8_lossy(&ffi.stdout);
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or_else(|| a.len().min(b.len()));
            let _ = writeln!(
                failures,
                "{name}: outputs differ at byte {at}\n  core: {a}\n  ffi:  {b}"
            );
        }
        if !core.status.success() {
            let _ = writeln!(
                failures,
                "{name}: the runner failed in both modes: {}",
                String::from_utf8_lossy(&core.stderr).trim_end()
            );
        }
    }
    assert!(
        failures.is_empty(),
        "\n{failures}\n{compared} vectors compared through the C ABI"
    );
    eprintln!("{compared} vector files give identical output through the C ABI");
}
