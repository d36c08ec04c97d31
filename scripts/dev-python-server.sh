#!/usr/bin/env bash
# dev-python-server.sh: the booking tools on the MCP Python SDK (mcp 2.3, MCPServer) through
# elicit's adapter (servers/python), with the Rust server's flags, so every harness
# drives either:
#
#   scripts/dev-python-server.sh --stdio
#   scripts/dev-python-server.sh --http 127.0.0.1:PORT       # endpoint /mcp; port 0 picks one
#   scripts/dev-python-server.sh --conformance --http 127.0.0.1:0
#   [--state-keys-file PATH] [--alone] [--state-ttl SECS] [--fallback arguments]
#
# ELICIT_STATE_KEYS (or --state-keys-file): comma-separated hex keys (32 to 128 bytes each,
# 1 to 8), the first seals; without a ring, stdio uses one ephemeral key and --http refuses
# to start unless --alone. Builds elicit-ffi (release) once and runs
# on the venv .venv-python (created with the package's [mcp] extra, the newest 2.x, when
# missing or outside that range; test-python.sh shares it).
# Log lines go to stderr; with --http the first names the URL ("streamable HTTP on ...").
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1

VENV="$ROOT/.venv-python"
VPY="$VENV/bin/python"
export ELICIT_LIB="$BUILD/release/libelicit_ffi.so"
# The venv's check (a Python start) and a no-op build are cheap; skip them only when asked
# (harnesses starting many processes, after one start without the flag).
if [ -z "${ELICIT_PY_SERVER_NO_BUILD:-}" ] || [ ! -x "$VPY" ] || [ ! -f "$ELICIT_LIB" ]; then
    # The Python package's venv (lib.sh: made or repaired, one caller at a time).
    VPY=$(python_dev_venv) || exit 1
    CARGO_TARGET_DIR="$BUILD" cargo build --quiet --release -p elicit-ffi >&2
fi
# tests/fixture: booking_texts.py, the booking fixture the server serves.
export PYTHONPATH="$ROOT/python:$ROOT/servers/python:$ROOT/tests/fixture"
exec "$VPY" "$ROOT/servers/python/booking_server.py" "$@"
