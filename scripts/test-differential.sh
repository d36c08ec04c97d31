#!/usr/bin/env bash
# Differential test of the Rust engine against the reference oracle.
#
#   scripts/test-differential.sh [--seed N] [--count N] [--runner cargo|oracle|fake|CMD] ...
#
# Creates/reuses the oracle venv (scripts/dev-oracle-env.sh), then runs
# tests/differential/differential.py with that interpreter; all arguments are passed on
# (see `scripts/test-differential.sh --help`). Exit status: 0 when every difference
# is explained by a documented deviation, 1 otherwise, 2 on setup problems.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ORACLE_DIR="${ORACLE_DIR:-$(cd "$HERE/../../shared/reference/oracle" 2>/dev/null || cd "$HERE/../../../shared/reference/oracle" 2>/dev/null && pwd)}"
PY="$("$HERE/dev-oracle-env.sh")"
exec "$PY" "$HERE/../tests/differential/differential.py" --oracle-python "$PY" --oracle-dir "$ORACLE_DIR" "$@"
