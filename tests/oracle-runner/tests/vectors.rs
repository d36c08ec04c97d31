//! Golden vectors: replays every `tests/vectors/NAME.input.json` through the
//! `elicit-oracle-runner` binary and requires its stdout to be byte-identical to
//! `NAME.deviation.txt` when that file exists (a deliberate deviation from the
//! reference, see `tests/vectors/README.md`), else to `NAME.expected.txt` (the
//! reference oracle's `scenario.py --compact` line).
//!
//! One trailing `\n` is trimmed from stdout and from the golden file before
//! comparing; nothing else is normalised. Every vector is run and every
//! mismatch is reported before the test fails.
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
use std::process::{Command, Stdio};

/// Number of `*.input.json` files (one per reference vector file).
const EXPECTED_FILES: usize = 42;
/// Number of scenario documents inside them: 38 files hold one document, the
/// list inputs 18 (4), 19 (4), 24 (4) and 36 (3) hold 15, so 38 + 15 = 53.
const EXPECTED_DOCUMENTS: usize = 53;
/// Vectors that carry a `.deviation.txt` (deviations 1-4 and 6 of docs/deviations.md).
const EXPECTED_DEVIATIONS: &[&str] = &[
    "07_cancel_required",
    "19_state_version_lax_coercion",
    "20_reply_without_state_ignored",
    "22_recorded_bad_data_errors",
    "26_int_answers",
    "28_bool_answers",
    "35_explicit_response_type_wins",
];

fn vectors_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors");
    dir.canonicalize().unwrap_or(dir)
}

fn trim_final_newline(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// Number of top-level documents: the element count of a top-level JSON
/// array, else 1. A tiny scanner (strings and escapes aware) so the test needs
/// no JSON dependency.
fn document_count(json: &str) -> usize {
    let trimmed = json.trim_start();
    if !trimmed.starts_with('[') {
        return 1;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut commas, mut saw_value) = (0usize, false);
    for c in trimmed.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                if depth == 1 {
                    saw_value = true;
                }
            }
            '[' | '{' => {
                if depth == 1 {
                    saw_value = true;
                }
                depth += 1;
            }
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => commas += 1,
            c if depth == 1 && !c.is_whitespace() => saw_value = true,
            _ => {}
        }
    }
    if saw_value {
        commas + 1
    } else {
        0
    }
}

/// Where two strings first differ, with a little context on both sides.
fn first_difference(expected: &str, actual: &str) -> String {
    let offset = expected
        .bytes()
        .zip(actual.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.len().min(actual.len()));
    let window = |s: &str| {
        let mut start = offset.saturating_sub(60).min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (offset + 60).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_string()
    };
    format!(
        "first difference at byte {offset} (expected len {}, actual len {})\n  \
         expected …{}…\n  actual   …{}…",
        expected.len(),
        actual.len(),
        window(expected),
        window(actual),
    )
}

#[test]
fn golden_vectors() {
    let dir = vectors_dir();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".input.json"))
        })
        .collect();
    inputs.sort();

    let binary = env!("CARGO_BIN_EXE_elicit-oracle-runner");
    let mut failures = String::new();
    let mut failed = 0usize;
    let mut documents = 0usize;
    let mut deviations: Vec<String> = Vec::new();

    for input_path in &inputs {
        let file_name = input_path.file_name().unwrap().to_str().unwrap();
        let name = file_name.strip_suffix(".input.json").unwrap().to_string();
        let input = std::fs::read_to_string(input_path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", input_path.display()));
        documents += document_count(&input);

        let deviation_path = dir.join(format!("{name}.deviation.txt"));
        let expected_path = dir.join(format!("{name}.expected.txt"));
        let (golden_path, kind) = if deviation_path.exists() {
            deviations.push(name.clone());
            (deviation_path, "deviation")
        } else {
            (expected_path, "expected")
        };
        let golden = std::fs::read_to_string(&golden_path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", golden_path.display()));
        let golden = trim_final_newline(&golden);

        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {binary}: {e}"));
        {
            let mut stdin = child.stdin.take().unwrap();
            // A runner that exits early closes its stdin; report that below
            // through its status rather than panicking here.
            let _ = stdin.write_all(input.as_bytes());
        }
        let output = child
            .wait_with_output()
            .expect("wait for elicit-oracle-runner");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let actual = trim_final_newline(&stdout);

        let mut problem = String::new();
        if !output.status.success() {
            let _ = writeln!(problem, "  exit status: {}", output.status);
        }
        if actual != golden {
            let _ = writeln!(problem, "  {}", first_difference(golden, actual));
            let _ = writeln!(problem, "  --- {kind} ({})", golden_path.display());
            let _ = writeln!(problem, "  {golden}");
            let _ = writeln!(problem, "  +++ actual");
            let _ = writeln!(problem, "  {actual}");
        }
        if !problem.is_empty() {
            failed += 1;
            let stderr = String::from_utf8_lossy(&output.stderr);
            let _ = writeln!(failures, "MISMATCH {name} (compared with {kind})");
            failures.push_str(&problem);
            if !stderr.trim().is_empty() {
                let _ = writeln!(failures, "  stderr: {}", stderr.trim_end());
            }
            failures.push('\n');
        }
    }

    let mut summary = String::new();
    if inputs.len() != EXPECTED_FILES {
        let _ = writeln!(
            summary,
            "expected {EXPECTED_FILES} vector files, found {} in {}",
            inputs.len(),
            dir.display()
        );
    }
    if documents != EXPECTED_DOCUMENTS {
        let _ = writeln!(
            summary,
            "expected {EXPECTED_DOCUMENTS} scenario documents, counted {documents}"
        );
    }
    if deviations != EXPECTED_DEVIATIONS {
        let _ = writeln!(
            summary,
            "deviation files differ from the documented list: found {deviations:?}, \
             expected {EXPECTED_DEVIATIONS:?}"
        );
    }
    if failed > 0 || !summary.is_empty() {
        panic!(
            "\n{failures}{summary}{failed} of {} vector files mismatched \
             ({documents} documents run)\n",
            inputs.len()
        );
    }
    eprintln!(
        "{} vector files ({documents} documents) match, {} via deviation files",
        inputs.len(),
        deviations.len()
    );
}

#[test]
fn document_counter() {
    assert_eq!(document_count("{\"a\": [1, 2]}"), 1);
    assert_eq!(document_count("[]"), 0);
    assert_eq!(document_count(" [ {\"a\": \"x,]\\\"\"}, {}, [1, 2] ]"), 3);
    assert_eq!(document_count("[\"a\"]"), 1);
}
