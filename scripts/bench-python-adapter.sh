#!/usr/bin/env bash
# bench-python-adapter.sh: python/bench/bench_elicitation.py: the same tools (3-round
# book_flight, 16-question survey16) served by (a) mcp 2.3's MCPServer with its own
# declared elicitation, (b) the same MCPServer on elicit's adapter, (c) elicit-rmcp-server:
# CPU per round with elicitation's part, in-process; then over streamable HTTP at 1 and 50
# concurrent calls, the server process's CPU per round and rounds per second.
# A measurement, never a test: CPU time is the meaningful figure on a shared machine.
#
#   scripts/bench-python-adapter.sh [--calls N] [--http-calls N] [--profile]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
CARGO_TARGET_DIR="$BUILD" cargo build --quiet --release -p elicit-ffi >&2
build_rmcp_server
export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
# The venv with mcp==2.3.0 (dev-python-server.sh creates it).
scripts/dev-python-server.sh --help >/dev/null
export ELICIT_LIB="$BUILD/release/libelicit_ffi.so" PYTHONPATH="$ROOT/python"
exec "$ROOT/.venv-python/bin/python" "$ROOT/python/bench/bench_elicitation.py" "$@"
