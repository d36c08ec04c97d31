#!/usr/bin/env bash
# Interop tests of examples/mcp-server (booking-server) against the real FastMCP 4.1.6
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

echo "test-mcp: building booking-server (release)" >&2
cargo build --quiet --release -p booking-server >&2
echo "test-mcp: unit tests of booking-server" >&2
cargo test --quiet --release -p booking-server >&2

export BOOKING_SERVER_BIN="$CARGO_TARGET_DIR/release/booking-server"
exec "$py" -m pytest "$root/tests/interop/mcp" -p no:cacheprovider -q -rfE "$@"
