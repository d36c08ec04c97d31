#!/usr/bin/env bash
# Interop tests of servers/rmcp (elicit-rmcp-server, on rmcp) against the real
# FastMCP 4.1.6 client: stdio and streamable HTTP, mode="auto" (2026-07-28) and
# mode="legacy" (handshake era), sealed requestState, two processes sharing
# ELICIT_STATE_KEYS, and 200 concurrent calls; of the firmware agent (examples/firmware-agent
# on QEMU's mps2-an386, microbit and sifive_e boards, scripts/dev-agent-qemu.sh --board)
# with the same checks on every board, plus rounds shared between the two
# (tests/interop/mcp/test_agent.py; ELICIT_AGENT_BOARDS=a,b picks boards); and rounds shared with the Python
# reference server (FastMCP 4.1.6 + the seed, tests/interop/mcp/reference_server.py, run on
# the oracle venv that scripts/dev-oracle-env.sh creates or reuses;
# tests/interop/mcp/test_reference_server.py). See tests/interop/mcp/.
#
# Python: the venv $ELICIT_MCP_VENV if set, else .venv-mcp/ at the repository root;
# created (or repaired) on first use with fastmcp==4.1.6 and pytest.
# Builds elicit-rmcp-server (release) into $BUILD and the agent images into $BUILD_AGENT
# (lib.sh); runs no Rust tests (the workspace test of scripts/test.sh runs elicit-rmcp's
# and elicit-rmcp-server's, once per run).
# Extra arguments go to pytest (e.g. -k legacy). Every server listens on 127.0.0.1 only.
#
# Prints pytest's summary last; the exit status is non-zero on any failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$ROOT

py=$(mcp_test_venv)

echo "test-mcp: building elicit-rmcp-server (release)" >&2
build_rmcp_server

# The firmware agent: each board's target, QEMU, and the sealed images ($BUILD_AGENT/<target>).
declare -A agent_targets=([mps2-an386]=thumbv7em-none-eabihf [microbit]=thumbv6m-none-eabi [sifive_e]=riscv32imc-unknown-none-elf)
export ELICIT_AGENT_BOARDS="${ELICIT_AGENT_BOARDS:-mps2-an386,microbit,sifive_e}"
export ELICIT_AGENT_DIR="$BUILD_AGENT"
IFS=',' read -r -a agent_boards <<<"$ELICIT_AGENT_BOARDS"
for b in "${agent_boards[@]}"; do
  t=${agent_targets[$b]:-}
  [[ -n "$t" ]] || { echo "test-mcp: unknown board '$b' in ELICIT_AGENT_BOARDS" >&2; exit 2; }
  need_target "$t"
  if [[ $b == sifive_e ]]; then need_qemu qemu-system-riscv32; else need_qemu; fi
  echo "test-mcp: building the firmware agent for $b ($t, release)" >&2
  (cd examples/firmware-agent && CARGO_TARGET_DIR="$ELICIT_AGENT_DIR" cargo build --quiet --release --target "$t" >&2)
done
# The cross-surface rounds (test_cross_surface.py) run the agent on the default board.
if [[ ",$ELICIT_AGENT_BOARDS," == *,mps2-an386,* ]]; then
  export ELICIT_AGENT_ELF="$ELICIT_AGENT_DIR/thumbv7em-none-eabihf/release/elicit-agent"
fi

# The suite against elicit-rmcp-server, the agent's checks, and rounds shared with the
# agent and with the Python reference server.
export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
# The mixed fleet (test_mixed_fleet.py) runs once per scripts/test.sh run, in
# scripts/test-python-server.sh, which sets up what it starts (the Python server's venv and
# elicit-ffi, the TypeScript server's package js/); and the rounds shared with the C
# server (test_c_server.py) in scripts/test-c-server.sh, which builds that server; not here.
echo "test-mcp: the reference oracle's venv (scripts/dev-oracle-env.sh)" >&2
ELICIT_REFERENCE_PYTHON="$("$root/scripts/dev-oracle-env.sh")"
export ELICIT_REFERENCE_PYTHON
timeout "${MCP_TEST_TIMEOUT:-1800}" "$py" -m pytest "$root/tests/interop/mcp" \
    --ignore="$root/tests/interop/mcp/test_mixed_fleet.py" --ignore="$root/tests/interop/mcp/test_c_server.py" \
    -p no:cacheprovider -q -rfE "$@"
