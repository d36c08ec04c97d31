#!/usr/bin/env bash
# test-python-server.sh: the Python example server (servers/python: the booking
# tools on the MCP Python SDK's MCPServer through elicit's adapter, started by
# scripts/dev-python-server.sh) against what the Rust server passes:
#
#  1. the official MCP conformance suite: every in-scope scenario clean and both
#     requirement sets as tests/mcp-conformance/expected-failures.yaml expects
#     (scripts/test-mcp-conformance.sh scripts/dev-python-server.sh);
#  2. the FastMCP 4.1.6 client's checks, both eras, stdio and HTTP
#     (tests/interop/mcp/test_booking_server.py, test_rmcp_kinds.py (sampling, roots, URL
#     mode) and test_rmcp_prompts_resources.py with ELICIT_SERVER_CMD; the checks of the
#     Rust transport's own wire details are skipped: the SDK's transport serves this one);
#  3. the mixed fleet: rounds alternating between this server, the TypeScript server
#     (scripts/dev-ts-server.sh), elicit-rmcp-server and the Python reference server
#     (FastMCP 4.1.6 + the seed), one key ring (tests/interop/mcp/test_mixed_fleet.py;
#     its one run in scripts/test.sh: test-mcp.sh leaves it to this step, which has the
#     Python and TypeScript servers set up).
#
# Builds elicit-ffi and elicit-rmcp-server (release, into $BUILD: lib.sh; shared with
# scripts/test-mcp.sh and the other interop steps). Extra arguments go to the pytest runs. The last line is
# pytest's summary of steps 2-3; the exit status is non-zero on any failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

echo "test-python-server: building elicit-ffi and elicit-rmcp-server (release)" >&2
CARGO_TARGET_DIR="$BUILD" cargo build --quiet --release -p elicit-ffi >&2
build_rmcp_server
export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
# The servers' venv, library and package once, then every process starts without a build
# (js/ as scripts/test-js.sh left it, or built here).
scripts/dev-python-server.sh --help >/dev/null
export ELICIT_PY_SERVER_NO_BUILD=1
scripts/dev-ts-server.sh --help >/dev/null
export ELICIT_TS_SERVER_NO_BUILD=1

status=0
bash scripts/test-mcp-conformance.sh scripts/dev-python-server.sh || status=1

py=$(mcp_test_venv)
echo "test-python-server: the reference oracle's venv (scripts/dev-oracle-env.sh)" >&2
ELICIT_REFERENCE_PYTHON="$(scripts/dev-oracle-env.sh)"
export ELICIT_REFERENCE_PYTHON
ELICIT_SERVER_CMD="$ROOT/scripts/dev-python-server.sh" timeout "${MCP_TEST_TIMEOUT:-1200}" \
    "$py" -m pytest tests/interop/mcp/test_booking_server.py tests/interop/mcp/test_rmcp_kinds.py \
    tests/interop/mcp/test_rmcp_prompts_resources.py tests/interop/mcp/test_mixed_fleet.py \
    -p no:cacheprovider -q -rfE "$@" || status=1
exit $status
