#!/usr/bin/env bash
# test-python.sh: prove the Python package (python/, ctypes over the cdylib) from the
# source tree. (scripts/test-install.sh proves the built wheel and `pip install`.)
#
#  1. builds elicit-ffi (release) and points ELICIT_LIB at libelicit_ffi.so;
#  2. creates or reuses the venv .venv-python (lib.sh's python_dev_venv: pytest, mypy
#     and the [mcp] extra's newest release, python/pyproject.toml's range, installed
#     when missing or outside their ranges); the package runs from python/
#     (PYTHONPATH), not installed, so nothing is built into the source folder;
#  3. type-checks the package, its tests and the examples with mypy --strict;
#  4. runs python/examples/booking.py (the book_flight flow, both eras, sealed state);
#  5. runs the leak check: 100,000 rounds through the binding, RSS at start and end
#     (fails only when RSS grew past 50 MB: a measurement, not a timing assertion),
#     beside step 7 (each a single-threaded process; their reports are printed in turn);
#  6. the adapter at the [mcp] extra's lower bound, in the background beside 3-5: mcp and
#     mcp-types at that version alone (pip --no-deps --target .venv-python/mcp-lowest,
#     two wheels) ahead of the venv's on PYTHONPATH, the adapter's tests
#     (test_mcp_adapter.py, test_mcp_fallback.py, test_traps.py, test_readme.py: the quick
#     start, both eras);
#  7. runs the pytest suite (-q) on the newest release; its summary is this script's last line.
#
# Exits non-zero on any failure. LEAK_ROUNDS=N changes the leak check's round count.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1

VENV="$ROOT/.venv-python"
PKG="$ROOT/python"
# The adapter (elicit_mcp.mcp) is tested against the SDK it adapts: the package's [mcp]
# extra, a range (at its newest here, at its lower bound in step 6).
MCP_LOWEST=$(mcp_lowest)
LEAK_ROUNDS=${LEAK_ROUNDS:-100000}

step() { printf '\n==> %s\n' "$*"; }

# ------------------------------------------------------------------------ 1. build
step "building elicit-ffi (release)"
cargo build -p elicit-ffi --release
case "$(uname -s)" in
    Darwin) LIBNAME=libelicit_ffi.dylib ;;
    *) LIBNAME=libelicit_ffi.so ;;
esac
export ELICIT_LIB="$BUILD/release/$LIBNAME"
[ -f "$ELICIT_LIB" ] || { echo "missing $ELICIT_LIB" >&2; exit 1; }
echo "ELICIT_LIB=$ELICIT_LIB"

# ------------------------------------------------------------------------- 2. venv
step "venv $VENV"
VPY=$(python_dev_venv)
# An earlier version of this script installed the package (editable): remove it, so the
# source tree's package is the one imported.
if "$VPY" -m pip show -q elicit-ctypes >/dev/null 2>&1; then
    "$VPY" -m pip uninstall -q -y elicit-ctypes
fi
export PYTHONPATH="$PKG"
"$VPY" -c 'import sys, pytest, mypy.version, elicit_mcp; print(f"python {sys.version.split()[0]}, pytest {pytest.__version__}, mypy {mypy.version.__version__}, elicit_mcp {elicit_mcp.__version__} from {elicit_mcp.__file__}")'
"$VPY" -c 'import elicit_mcp; print(f"library {elicit_mcp._ffi.load().path}, C ABI version {elicit_mcp.abi_version():#08x}")'

# --------------------------------------------- 6. the lower bound (in the background)
LOWEST="$VENV/mcp-lowest"
lowest() {
    if [ ! -d "$LOWEST/mcp-$MCP_LOWEST.dist-info" ]; then
        rm -rf "$LOWEST"
        "$VPY" -m pip install -q --no-deps --target "$LOWEST" "mcp==$MCP_LOWEST" "mcp-types==$MCP_LOWEST"
    fi
    cd "$PKG" && PYTHONPATH="$LOWEST:$PKG" "$VPY" - <<'PY'
import importlib.metadata as m, sys
print(f"mcp {m.version('mcp')}, mcp-types {m.version('mcp-types')} from {sys.path[1]}")
PY
    cd "$PKG" && PYTHONPATH="$LOWEST:$PKG" "$VPY" -m pytest -q -p no:cacheprovider \
        tests/test_mcp_adapter.py tests/test_mcp_fallback.py tests/test_traps.py tests/test_readme.py
}
lowest >"$VENV/lowest.log" 2>&1 &
LOWEST_PID=$!

# ------------------------------------------------------------------------- 3. mypy
step "mypy --strict (package, tests, examples)"
(cd "$PKG" && "$VPY" -m mypy --strict --cache-dir "$VENV/mypy-cache")

step "the adapter at the [mcp] extra's lower bound (mcp $MCP_LOWEST)"
if ! wait "$LOWEST_PID"; then
    cat "$VENV/lowest.log"
    echo "FAILED: the adapter at mcp $MCP_LOWEST" >&2
    exit 1
fi
head -1 "$VENV/lowest.log"; tail -1 "$VENV/lowest.log"

# ---------------------------------------------------------------------- 4. booking
step "booking.py"
"$VPY" "$PKG/examples/booking.py" >"$VENV/booking.log" 2>&1 || { cat "$VENV/booking.log"; echo "FAILED: booking.py" >&2; exit 1; }
cat "$VENV/booking.log"

# ------------------------------------- 5. leak check and 7. pytest, side by side
# Each is one single-threaded process: run together, their reports printed in turn.
"$VPY" "$PKG/tests/leak_check.py" --rounds "$LEAK_ROUNDS" >"$VENV/leak.log" 2>&1 &
LEAK_PID=$!
MCP_NEWEST=$("$VPY" -c 'import importlib.metadata as m; print(m.version("mcp"))')
status=0
(cd "$PKG" && "$VPY" -m pytest -q -p no:cacheprovider tests) >"$VENV/pytest.log" 2>&1 || status=$?
step "leak check ($LEAK_ROUNDS rounds)"
leak=0
wait "$LEAK_PID" || leak=$?
cat "$VENV/leak.log"
[ "$leak" -eq 0 ] || { echo "FAILED: leak check" >&2; status=1; }
step "pytest (mcp $MCP_NEWEST)"
cat "$VENV/pytest.log"
exit "$status"
