#!/usr/bin/env bash
# Create or reuse the reference-oracle venv and print its python's path.
#
#   PY=$(scripts/dev-oracle-env.sh)
#
# Runs the oracle's own install.sh (idempotent: it reuses the venv, skips pip
# when the pinned packages are present, and re-copies the overlay) into
# ${ORACLE_VENV:-$HOME/.cache/oracle-venv}. install.sh's progress goes to
# stderr; stdout is only the interpreter path.
#   ORACLE_DIR      the oracle checkout (default: shared/reference/oracle beside the
#                   checkout, or beside the folder holding it)
#   ORACLE_OFFLINE  passed through to install.sh (1: never call pip)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORACLE_DIR="${ORACLE_DIR:-$(cd "$HERE/../../shared/reference/oracle" 2>/dev/null || cd "$HERE/../../../shared/reference/oracle" 2>/dev/null && pwd)}"
VENV="${ORACLE_VENV:-$HOME/.cache/oracle-venv}"
if [[ ! -x "$ORACLE_DIR/install.sh" ]]; then
  echo "dev-oracle-env: no install.sh in ${ORACLE_DIR:-shared/reference/oracle beside the checkout} (set ORACLE_DIR)" >&2
  exit 2
fi
# install.sh re-copies the overlay on every call: a server of the venv importing it at that
# moment (scripts/test.sh runs two steps at once) could read a file half written. So it
# runs only when the venv's overlay differs from the checkout's, one caller at a time.
current() {
  local site
  site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null) || return 1
  (cd "$ORACLE_DIR/overlay/fastmcp" && find . -name '*.py' -print0 |
    xargs -0 -I{} cmp -s {} "$site/fastmcp/{}")
}
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
current || "$ORACLE_DIR/install.sh" "$VENV" >&2
echo "$VENV/bin/python"
