#!/usr/bin/env bash
# test-install.sh: the C library installs like one (cargo-c, as rustls-ffi does), and the
# Python package installs as a wheel.
#
# C (cargo-c 0.10.24, installed with `cargo install --locked` when missing):
#  1. `cargo cinstall` into two temporary prefixes, one with the shared library only and
#     one with the static library only;
#  2. checks the layout: include/elicit.h and elicit_noalloc.h (the committed headers), lib/libelicit.so.$VERSION
#     with SONAME libelicit.so.0 and its links, lib/libelicit.a, lib/pkgconfig/elicit.pc;
#     and that the release artifacts carry no debug info of their own (no .debug_*
#     sections in the shared object; the static archive's objects from this workspace
#     have none either: what remains in it is the Rust standard library's line tables);
#  3. builds examples/c/booking.c, ffi/tests/c/contract_test.c and
#     examples/cpp/booking.cpp from each prefix with `pkg-config --cflags --libs elicit`
#     (`--static` for the static prefix) and nothing else, and runs them: the shared
#     builds resolve libelicit.so.0 from the prefix (LD_LIBRARY_PATH=<prefix>/lib, as for
#     any library in a non-system prefix), the static builds need no libelicit at all.
#
# Python (a venv outside the checkout, no environment variable for the library):
#  4. builds the wheel (pip wheel python/) and checks it is a platform wheel carrying
#     libelicit_ffi.so, without debug info;
#  5. in a fresh venv in a temporary folder: pip install the wheel, then `import elicit_mcp`
#     and run python/booking.py (copied out of the checkout);
#  6. in another fresh venv: pip install a copy of the source (the working tree's
#     tracked and unignored files, copied to a temporary folder), and the same booking
#     run; the copy's python/ folder gains no build products.
#
# Exits non-zero on any failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1
CARGO_C_VERSION=0.10.24
# The C library's version (cargo-c's [package.metadata.capi.library] in ffi/Cargo.toml).
VERSION=$(sed -n '/^\[package.metadata.capi.library\]/,/^\[/s/^version = "\(.*\)"/\1/p' ffi/Cargo.toml)
PY=${PYTHON:-python3}
CC=${CC:-cc}
CXX=${CXX:-c++}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/elicit-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
step() { printf '\n==> %s\n' "$*"; }
fail() { echo "test-install.sh: $*" >&2; exit 1; }

# ------------------------------------------------------------------------- cargo-c
step "cargo-c $CARGO_C_VERSION"
if [ "$(cargo cinstall --version 2>/dev/null | awk '{print $2}')" != "$CARGO_C_VERSION" ]; then
    cargo install --locked "cargo-c@$CARGO_C_VERSION"
fi
cargo cinstall --version
for tool in pkg-config readelf; do
    if ! command -v "$tool" >/dev/null; then
        pkg=$tool
        [ "$tool" = readelf ] && pkg=binutils
        apt-get install -y "$pkg" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$pkg" >/dev/null; }
    fi
done

# --------------------------------------------------------------- 1. cargo cinstall
SHARED="$TMP/shared"
STATIC="$TMP/static"
step "cargo cinstall (shared) --prefix $SHARED"
cargo cinstall -p elicit-ffi --release --library-type cdylib --prefix "$SHARED" --libdir lib
step "cargo cinstall (static) --prefix $STATIC"
cargo cinstall -p elicit-ffi --release --library-type staticlib --prefix "$STATIC" --libdir lib

# ------------------------------------------------------------------------ 2. layout
step "installed layout"
for prefix in "$SHARED" "$STATIC"; do
    cmp "$prefix/include/elicit.h" include/elicit.h || fail "$prefix/include/elicit.h differs from include/elicit.h"
    cmp "$prefix/include/elicit_noalloc.h" include/elicit_noalloc.h ||
        fail "$prefix/include/elicit_noalloc.h differs from include/elicit_noalloc.h (elicit.h includes it)"
    cmp "$prefix/include/elicit.hpp" include/elicit.hpp || fail "$prefix/include/elicit.hpp differs from include/elicit.hpp"
    [ -f "$prefix/lib/pkgconfig/elicit.pc" ] || fail "no $prefix/lib/pkgconfig/elicit.pc"
done
SO="$SHARED/lib/libelicit.so.$VERSION"
[ -f "$SO" ] || fail "no $SO (found: $(ls "$SHARED/lib"))"
[ "$(readlink "$SHARED/lib/libelicit.so.0")" = libelicit.so.$VERSION ] || fail "libelicit.so.0 does not link to libelicit.so.$VERSION"
[ "$(readlink "$SHARED/lib/libelicit.so")" = libelicit.so.$VERSION ] || fail "libelicit.so does not link to libelicit.so.$VERSION"
soname=$(readelf -d "$SO" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libelicit.so.0 ] || fail "SONAME is '$soname', not libelicit.so.0"
A="$STATIC/lib/libelicit.a"
[ -f "$A" ] || fail "no $A"
[ ! -e "$STATIC/lib/libelicit.so" ] || fail "the static prefix has a shared library"
debug_sections=$(readelf -S -W "$SO" | grep -c ' \.debug_' || true)
[ "$debug_sections" = 0 ] || fail "$SO has $debug_sections .debug_* sections"
# The archive's objects from this workspace (elicit_ffi, elicit_core) carry no debug info.
mkdir "$TMP/ar" && (cd "$TMP/ar" && ar x "$A")
own_debug=0
for o in "$TMP"/ar/elicit_ffi-*.o "$TMP"/ar/elicit_core-*.o; do
    [ -e "$o" ] || continue
    n=$(readelf -S -W "$o" | grep -c ' \.debug_info' || true)
    own_debug=$((own_debug + n))
done
[ "$own_debug" = 0 ] || fail "the workspace's objects in $A carry debug info"
echo "elicit.pc:"; sed 's/^/    /' "$SHARED/lib/pkgconfig/elicit.pc"
echo "$(basename "$SO"): SONAME $soname, $(stat -c %s "$SO") bytes, no debug sections"
echo "libelicit.a: $(stat -c %s "$A") bytes (workspace objects without debug info)"

# ----------------------------------------------------- 3. build and run from prefixes
# build PREFIX STATIC_FLAG NAME LANG SOURCE
build() {
    local prefix=$1 static=$2 name=$3 lang=$4 src=$5 compiler std cflags libs
    if [ "$lang" = c ]; then compiler=$CC; std=-std=c99; else compiler=$CXX; std=-std=c++17; fi
    cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags $static elicit)
    libs=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs $static elicit)
    # shellcheck disable=SC2086 # pkg-config output is a list of flags
    "$compiler" $std -Wall -Wextra -Werror -pedantic $cflags "$src" $libs -pthread -o "$TMP/$name"
}
PROGRAMS=("booking_c c examples/c/booking.c" "contract_test c ffi/tests/c/contract_test.c" "booking_cpp cpp examples/cpp/booking.cpp")
for entry in "${PROGRAMS[@]}"; do
    read -r name lang src <<<"$entry"
    step "$name: shared, then static, with pkg-config only"
    build "$SHARED" "" "$name.shared" "$lang" "$src"
    deps=$(LD_LIBRARY_PATH="$SHARED/lib" ldd "$TMP/$name.shared")
    grep -q "libelicit.so.0 => $SHARED/lib/libelicit.so.0" <<<"$deps" ||
        fail "$name.shared does not load libelicit.so.0 from the prefix: $deps"
    LD_LIBRARY_PATH="$SHARED/lib" "$TMP/$name.shared" >"$TMP/$name.shared.log" 2>&1 ||
        { cat "$TMP/$name.shared.log"; fail "$name.shared failed"; }
    echo "ok  $name.shared: $(tail -n 1 "$TMP/$name.shared.log")"
    build "$STATIC" --static "$name.static" "$lang" "$src"
    deps=$(ldd "$TMP/$name.static")
    if grep -q libelicit <<<"$deps"; then fail "$name.static depends on a shared libelicit"; fi
    "$TMP/$name.static" >"$TMP/$name.static.log" 2>&1 ||
        { cat "$TMP/$name.static.log"; fail "$name.static failed"; }
    echo "ok  $name.static: $(tail -n 1 "$TMP/$name.static.log")"
done

# ------------------------------------------------------------------ 4. the wheel
venv() {
    if ! "$PY" -m venv "$1" 2>/dev/null; then
        rm -rf "$1"
        apt-get install -y python3-venv >/dev/null 2>&1 ||
            { apt-get update >/dev/null && apt-get install -y python3-venv >/dev/null; }
        "$PY" -m venv "$1"
    fi
}
step "pip wheel python/"
venv "$TMP/build-venv"
"$TMP/build-venv/bin/python" -m pip wheel -q --no-deps -w "$TMP/wheels" ./python
WHEEL=$(ls "$TMP"/wheels/elicit_mcp-*.whl)
case "$(basename "$WHEEL")" in
    elicit_mcp-*-py3-none-linux_*.whl) ;;
    *) fail "not a py3-none platform wheel: $(basename "$WHEEL")" ;;
esac
"$TMP/build-venv/bin/python" - "$WHEEL" "$TMP/unzipped" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert "elicit_mcp/libelicit_ffi.so" in names, names
assert "elicit_mcp/py.typed" in names, names
zipfile.ZipFile(sys.argv[1]).extract("elicit_mcp/libelicit_ffi.so", sys.argv[2])
EOF
debug_sections=$(readelf -S -W "$TMP/unzipped/elicit_mcp/libelicit_ffi.so" | grep -c ' \.debug_' || true)
[ "$debug_sections" = 0 ] || fail "the wheel's library has $debug_sections .debug_* sections"
[ -z "$(git status --porcelain --ignored python/ | grep -v '^!! python/.*__pycache__' || true)" ] ||
    fail "building the wheel left files in python/: $(git status --porcelain --ignored python/)"
echo "$(basename "$WHEEL"): $(stat -c %s "$WHEEL") bytes, library without debug sections"

# ---------------------------------------------------------- 5. and 6. fresh venvs
run_booking() {
    local venv=$1 work=$2
    mkdir -p "$work"
    cp python/booking.py "$work/"
    # Outside the checkout, no ELICIT_LIB, no PYTHONPATH: the installed package alone.
    (cd "$work" && env -u ELICIT_LIB -u PYTHONPATH -u CARGO_TARGET_DIR "$venv/bin/python" - <<'EOF'
import elicit_mcp, pathlib
lib = elicit_mcp._ffi.load().path
pkg = pathlib.Path(elicit_mcp.__file__).resolve().parent
assert lib.parent == pkg, (lib, pkg)
print(f"elicit_mcp {elicit_mcp.__version__}: library {lib}")
EOF
    ) || fail "import elicit_mcp in $venv"
    (cd "$work" && env -u ELICIT_LIB -u PYTHONPATH -u CARGO_TARGET_DIR "$venv/bin/python" booking.py >booking.log 2>&1) ||
        { cat "$work/booking.log"; fail "booking.py in $venv"; }
    echo "ok  booking.py: $(tail -n 1 "$work/booking.log")"
}
step "fresh venv: pip install the wheel"
venv "$TMP/wheel-venv"
"$TMP/wheel-venv/bin/python" -m pip install -q "$WHEEL"
run_booking "$TMP/wheel-venv" "$TMP/run-wheel"

step "fresh venv: pip install a copy of the source"
mkdir "$TMP/src"
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c '[ ! -e "$1" ] || printf "%s\0" "$1"' _ {} |
    tar --null -T - -cf - | tar -x -C "$TMP/src"
venv "$TMP/src-venv"
# (The checkout's cargo target folder is reused so the copy does not rebuild every
# dependency; the copy's own sources are what cargo compiles.)
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}" "$TMP/src-venv/bin/python" -m pip install -q "$TMP/src/python"
run_booking "$TMP/src-venv" "$TMP/run-src"
[ -z "$(ls "$TMP/src/python" | grep -v -x -e README.md -e booking.py -e elicit_mcp -e leak_check.py -e pyproject.toml -e setup.py -e tests)" ] ||
    fail "pip install left files in the source copy: $(ls "$TMP/src/python")"

step "test-install.sh: the C library (shared and static, pkg-config) and the Python wheel install and run"
