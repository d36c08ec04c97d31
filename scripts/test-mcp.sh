#!/usr/bin/env bash
# Interop tests of examples/mcp-server (booking-server) and examples/rmcp-server
# (elicit-rmcp-server, on rmcp) against the real FastMCP 4.1.6
# client: stdio and streamable HTTP, mode="auto" (2026-07-28) and mode="legacy"
# (handshake era), sealed requestState, two processes sharing ELICIT_STATE_KEYS, and 200
# concurrent calls. See tests/interop/mcp/.
#
# Python: the venv $ELICIT_MCP_VENV if set, else .venv-mcp/ at the repository root;
# created (or repaired) on first use with fastmcp==4.1.6 and pytest.
# Builds booking-server (release) into $CARGO_TARGET_DIR (default target/server).
# Extra arguments go to pytest (e.g. -k legacy). Every server listens on 127.0.0.1 only.
#
# Prints pytest's summary last; the exit status is non-zero on any failure.
set -euo pipefail

export RUSTUP_AUTO_INSTALL=0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/server}"

venv="${ELICIT_MCP_VENV:-$root/.venv-mcp}"
py="$venv/bin/python"
if [[ ! -x "$py" ]] || ! "$py" - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(m.version("fastmcp") != "4.1.6" or not m.version("pytest"))
PY
then
    echo "test-mcp: setting up $venv with fastmcp==4.1.6 and pytest" >&2
    python3 -m venv "$venv"
    "$py" -m pip install --quiet --disable-pip-version-check "fastmcp==4.1.6" pytest >&2
fi
# Keep the environment out of git whatever the repository's .gitignore says.
[[ -e "$venv/.gitignore" ]] || printf '*\n' > "$venv/.gitignore"

echo "test-mcp: building booking-server and elicit-rmcp-server (release)" >&2
cargo build --quiet --release -p booking-server -p elicit-rmcp-server >&2
echo "test-mcp: unit tests of booking-server, elicit-rmcp and elicit-rmcp-server" >&2
cargo test --quiet --release -p booking-server -p elicit-rmcp -p elicit-rmcp-server >&2

# The same suite against each server (SERVER_KIND in conftest.py tells them apart);
# test_cross_server.py needs both binaries.
export ELICIT_RMCP_SERVER_BIN="$CARGO_TARGET_DIR/release/elicit-rmcp-server"
status=0
for server in booking-server elicit-rmcp-server; do
    echo "test-mcp: the suite against $server" >&2
    only_rmcp=()
    if [[ "$server" == booking-server ]]; then
        # Prompts and resources exist on elicit-rmcp-server only; the cross-server test
        # starts both binaries itself and runs once, in the elicit-rmcp-server pass.
        only_rmcp=(--ignore "$root/tests/interop/mcp/test_rmcp_prompts_resources.py"
                   --ignore "$root/tests/interop/mcp/test_cross_server.py")
    fi
    BOOKING_SERVER_BIN="$CARGO_TARGET_DIR/release/$server" \
        "$py" -m pytest "$root/tests/interop/mcp" "${only_rmcp[@]}" -p no:cacheprovider -q -rfE "$@" \
        || status=1
done
exit $status
