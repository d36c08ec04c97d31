#!/usr/bin/env bash
# test-ts-server.sh: the TypeScript example server (servers/ts: the booking tools on the
# MCP TypeScript SDK's McpServer through elicit-mcp's adapter, started by
# scripts/dev-ts-server.sh) against what the Rust and Python servers pass:
#
#  1. the official MCP conformance suite: every in-scope scenario clean and both
#     requirement sets as expected (scripts/test-mcp-conformance.sh scripts/dev-ts-server.sh:
#     the shared baseline plus tests/mcp-conformance/expected-failures.dev-ts-server.yaml);
#  2. the FastMCP 4.1.6 client's checks, both eras, stdio and HTTP
#     (tests/interop/mcp/test_booking_server.py and test_rmcp_prompts_resources.py with
#     ELICIT_SERVER_CMD; the checks of the Rust transport's own wire details are skipped),
#     and the abuse cases the Rust server survives (test_bad_input.py: garbage, invalid
#     UTF-8, deep nesting, 8 and 16 MiB lines over stdio; bad and oversized bodies, forged
#     state and abandoned sessions expiring over HTTP), and trap recovery over a real
#     process (test_ts_trap.py: the server's test hook ELICIT_TS_SERVER_TEST_TRAP=1 traps
#     the WebAssembly instance on SIGUSR2; the live 2025-11-25 call fails with -32603, the
#     same process serves on in both eras, stdio and HTTP);
#  3. the MCP Python SDK client and the TypeScript SDK clients, both eras, stdio and HTTP,
#     asserting the order questions reach the user, and the declared fallback with
#     --fallback arguments (scripts/test-mcp-clients.sh with ELICIT_INTEROP_SERVER).
#
# Needs js/ built (scripts/test-js.sh, earlier in scripts/test.sh, leaves it built;
# dev-ts-server.sh builds it otherwise) and elicit-rmcp-server (release, into $BUILD:
# lib.sh's build_rmcp_server, shared with scripts/test-mcp.sh). Extra arguments go to the
# pytest runs.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

# ELICIT_RMCP_SERVER_BIN set: that binary, no build.
if [[ -z "${ELICIT_RMCP_SERVER_BIN:-}" ]]; then
    build_rmcp_server
    export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
fi
# The package once, then every process starts without a build.
scripts/dev-ts-server.sh --help >/dev/null
export ELICIT_TS_SERVER_NO_BUILD=1

status=0
bash scripts/test-mcp-conformance.sh scripts/dev-ts-server.sh || status=1
py=$(mcp_test_venv)
ELICIT_SERVER_CMD="$ROOT/scripts/dev-ts-server.sh" timeout "${MCP_TEST_TIMEOUT:-900}" \
    "$py" -m pytest tests/interop/mcp/test_booking_server.py tests/interop/mcp/test_rmcp_prompts_resources.py \
    tests/interop/mcp/test_bad_input.py tests/interop/mcp/test_ts_trap.py \
    -p no:cacheprovider -q -rfE "$@" || status=1
ELICIT_INTEROP_SERVER="$ROOT/scripts/dev-ts-server.sh" bash scripts/test-mcp-clients.sh "$@" || status=1
exit $status
