#!/usr/bin/env bash
# Create or reuse the reference-oracle venv and print its python's path.
#
#   PY=$(scripts/dev-oracle-env.sh)
#
# Runs the oracle's own install.sh (idempotent: it reuses the venv, skips pip
# when the pinned packages are present, and re-copies the overlay) into
# ${ORACLE_VENV:-$HOME/.cache/oracle-venv}. install.sh's progress goes to
# stderr; stdout is only the interpreter path.
#   ORACLE_DIR      the oracle checkout (default /work/shared/reference/oracle)
#   ORACLE_OFFLINE  passed through to install.sh (1: never call pip)
set -euo pipefail
ORACLE_DIR="${ORACLE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../shared/reference/oracle" 2>/dev/null && pwd || echo /work/shared/reference/oracle)}"
VENV="${ORACLE_VENV:-$HOME/.cache/oracle-venv}"
if [[ ! -x "$ORACLE_DIR/install.sh" ]]; then
  echo "oracle-env: no install.sh in $ORACLE_DIR" >&2
  exit 2
fi
"$ORACLE_DIR/install.sh" "$VENV" >&2
echo "$VENV/bin/python"
