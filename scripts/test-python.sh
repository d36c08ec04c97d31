#!/usr/bin/env bash
# test-python.sh: prove the Python package (python/, ctypes over the cdylib) from the
# source tree. (scripts/test-install.sh proves the built wheel and `pip install`.)
#
#  1. builds elicit-ffi (release) and points ELICIT_LIB at libelicit_ffi.so;
#  2. creates or reuses the venv .venv-python (its own .gitignore keeps it out of git)
#     and installs pytest, mypy and mcp==2.3.0 (the [mcp] extra) into it when missing; the package runs from python/
#     (PYTHONPATH), not installed, so nothing is built into the source folder;
#  3. type-checks the package, its tests and the examples with mypy --strict;
#  4. runs python/examples/booking.py (the book_flight flow, both eras, sealed state);
#  5. runs the leak check: 100,000 rounds through the binding, RSS at start and end
#     (fails only when RSS grew past 50 MB: a measurement, not a timing assertion);
#  6. runs the pytest suite (-q); its summary is this script's last line.
#
# Exits non-zero on any failure. LEAK_ROUNDS=N changes the leak check's round count.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1

PY=${PYTHON:-python3}
VENV="$ROOT/.venv-python"
PKG="$ROOT/python"
PYTEST_SPEC=${PYTEST_SPEC:-"pytest>=8,<10"}
MYPY_SPEC=${MYPY_SPEC:-"mypy>=1.10,<3"}
# The adapter (elicit_mcp.mcp) is tested against the SDK it adapts: the package's [mcp] extra.
MCP_SPEC=${MCP_SPEC:-"mcp==2.3.0"}
LEAK_ROUNDS=${LEAK_ROUNDS:-100000}

step() { printf '\n==> %s\n' "$*"; }

# ------------------------------------------------------------------------ 1. build
step "building elicit-ffi (release)"
cargo build -p elicit-ffi --release
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case "$(uname -s)" in
    Darwin) LIBNAME=libelicit_ffi.dylib ;;
    *) LIBNAME=libelicit_ffi.so ;;
esac
export ELICIT_LIB="$TARGET_DIR/release/$LIBNAME"
[ -f "$ELICIT_LIB" ] || { echo "missing $ELICIT_LIB" >&2; exit 1; }
echo "ELICIT_LIB=$ELICIT_LIB"

# ------------------------------------------------------------------------- 2. venv
step "venv $VENV"
if [ ! -x "$VENV/bin/python" ]; then
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
        # Debian splits venv (ensurepip) out of the interpreter.
        rm -rf "$VENV"
        apt-get install -y python3-venv >/dev/null 2>&1 ||
            { apt-get update >/dev/null && apt-get install -y python3-venv >/dev/null; }
        "$PY" -m venv "$VENV"
    fi
fi
echo '*' >"$VENV/.gitignore"
VPY="$VENV/bin/python"
if ! "$VPY" -c 'import pytest, mypy, importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' 2>/dev/null; then
    "$VPY" -m pip install -q "$PYTEST_SPEC" "$MYPY_SPEC" "$MCP_SPEC"
fi
# An earlier version of this script installed the package (editable): remove it, so the
# source tree's package is the one imported.
if "$VPY" -m pip show -q elicit-ctypes >/dev/null 2>&1; then
    "$VPY" -m pip uninstall -q -y elicit-ctypes
fi
export PYTHONPATH="$PKG"
"$VPY" -c 'import sys, pytest, mypy.version, elicit_mcp; print(f"python {sys.version.split()[0]}, pytest {pytest.__version__}, mypy {mypy.version.__version__}, elicit_mcp {elicit_mcp.__version__} from {elicit_mcp.__file__}")'
"$VPY" -c 'import elicit_mcp; print(f"library {elicit_mcp._ffi.load().path}, C ABI version {elicit_mcp.abi_version():#08x}")'

# ------------------------------------------------------------------------- 3. mypy
step "mypy --strict (package, tests, examples)"
(cd "$PKG" && "$VPY" -m mypy --strict --cache-dir "$VENV/mypy-cache")

# ---------------------------------------------------------------------- 4. booking
step "booking.py"
"$VPY" "$PKG/examples/booking.py" >"$VENV/booking.log" 2>&1 || { cat "$VENV/booking.log"; echo "FAILED: booking.py" >&2; exit 1; }
cat "$VENV/booking.log"

# -------------------------------------------------------------------- 5. leak check
step "leak check ($LEAK_ROUNDS rounds)"
"$VPY" "$PKG/tests/leak_check.py" --rounds "$LEAK_ROUNDS"

# ------------------------------------------------------------------------ 6. pytest
step "pytest"
cd "$PKG"
exec "$VPY" -m pytest -q -p no:cacheprovider tests
