#!/usr/bin/env bash
# Cross-implementation check of sealed requestState: elicit against the MCP Python SDK
# (mcp==2.3.0) — tokens sealed by either side must verify on the other, identical inputs
# must give identical tokens, and every flipped bit must be rejected by both for the same
# reason. Three elicit sides: elicit-core's `seal` module (Rust), a C host through the C
# ABI (tests/interop/seal/seal_c.c) and the Python package (python/, ctypes over the C
# ABI). See tests/interop/seal/interop.py.
#
# Python: $ELICIT_PY if set (an interpreter with mcp==2.3.0 installed); otherwise the MCP
# interop tests' venv (lib.sh's mcp_test_venv: .venv-mcp/, mcp==2.3.0 among it; created on
# first use, and by scripts/test.sh's installs lane before this step).
#
# The last line printed is `N passed, M failed`; the exit status is non-zero on failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$ROOT

py=${ELICIT_PY:-$(mcp_test_venv)}

echo "seal-interop: building seal_cli (tools/)" >&2
cargo build --quiet -p elicit-tools --bin seal_cli >&2
cli="$BUILD/debug/seal_cli"

echo "seal-interop: building the C library and the C side (seal_c.c)" >&2
cargo build --quiet -p elicit-ffi --release >&2
lib_dir="$BUILD/release"
seal_c="$BUILD/seal-interop/seal_c"
mkdir -p "$(dirname "$seal_c")"
${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I"$root/include" \
    "$root/tests/interop/seal/seal_c.c" -L"$lib_dir" -Wl,-rpath,"$lib_dir" -lelicit_ffi -o "$seal_c"

export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export ELICIT_LIB="$lib_dir/libelicit_ffi.so"
exec "$py" "$root/tests/interop/seal/interop.py" "$cli" "$seal_c"
