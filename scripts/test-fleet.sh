#!/usr/bin/env bash
# The fleet: elicit-rmcp-server replicas sharing one key ring behind HAProxy 2.6 (Debian's
# package) running deploy/haproxy/haproxy.cfg, on loopback ports (docs/deployment.md).
#
#   scripts/test-fleet.sh           the short mode (scripts/test.sh runs it)
#   scripts/test-fleet.sh --full    also the rolling upgrade, with more calls per load
#
# Both modes (tests/interop/fleet/test_fleet.py): /health, /metrics and the SIGTERM drain
# of one replica; the FastMCP 4.1.6 client through the balancer in both eras; the rounds
# of one call landing on two replicas (their /metrics); a replica SIGKILLed mid-run and a
# three-step rolling key rotation mid-run, each with zero failed calls; the mixed fleet
# (Rust replicas, the Python reference server and the TypeScript server behind one
# balancer, one ring).
# The short mode runs ELICIT_FLEET_CALLS=300 calls per load; --full runs 3000 and adds
# the rolling upgrade: replicas built from the previous commit (FLEET_PREVIOUS, default
# HEAD~1) rolled to this one under load.
#
# Extra arguments go to pytest. Every process listens on 127.0.0.1 and is killed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

full=
if [[ "${1:-}" == --full ]]; then full=1; shift; fi

need_cmd haproxy haproxy
py=$(mcp_test_venv)
ELICIT_REFERENCE_PYTHON="$("$ROOT/scripts/dev-oracle-env.sh")"
export ELICIT_REFERENCE_PYTHON

work=$(mktemp -d)
pid=
cleanup() {
  # pytest runs in its own process group: it, the replicas and HAProxy it started.
  if [[ -n "$pid" ]]; then kill -- "-$pid" 2>/dev/null || true; fi
  if [[ -d "$work/previous" ]]; then git worktree remove --force "$work/previous" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -n "$full" ]]; then
  previous=$(git rev-parse --verify "${FLEET_PREVIOUS:-HEAD~1}^{commit}")
  echo "test-fleet: building elicit-rmcp-server at the previous commit $previous (release)" >&2
  git worktree add --detach --quiet "$work/previous" "$previous"
  # The same target folder: only the crates that changed are rebuilt.
  (cd "$work/previous" && CARGO_TARGET_DIR="$BUILD" cargo build --quiet --release -p elicit-rmcp-server >&2)
  cp "$RMCP_SERVER_BIN" "$work/elicit-rmcp-server-previous"
  export ELICIT_FLEET_PREVIOUS_BIN="$work/elicit-rmcp-server-previous"
  export ELICIT_FLEET_CALLS="${ELICIT_FLEET_CALLS:-3000}"
fi
echo "test-fleet: building elicit-rmcp-server (release)" >&2
build_rmcp_server
# The TypeScript replica's package js/ once (test-js.sh leaves it built), then no build per start.
"$ROOT/scripts/dev-ts-server.sh" --help >/dev/null
export ELICIT_TS_SERVER_NO_BUILD=1
export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
export ELICIT_FLEET_CALLS="${ELICIT_FLEET_CALLS:-300}"

echo "test-fleet: $(haproxy -v | head -1)" >&2
# setsid: a new process group, so the trap reaches every process the tests started.
setsid timeout "${FLEET_TEST_TIMEOUT:-900}" "$py" -m pytest "$ROOT/tests/interop/fleet" \
  -p no:cacheprovider -q -rfEs "$@" &
pid=$!
wait "$pid"
