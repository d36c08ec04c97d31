#!/usr/bin/env bash
# test-c.sh: prove the C ABI.
#
#  1. builds elicit-ffi (release: staticlib, cdylib, rlib);
#  2. regenerates include/elicit.h and include/elicit_noalloc.h with cbindgen 0.29.4, and
#     examples/c/booking_decl.h (the booking fixture's declaration for the C and C++
#     examples) with tools' c_decl, into temporary files and fails on any difference from
#     the committed headers (--update-header rewrites them instead);
#  3. compiles every C snippet of docs/c-abi.md and ffi/README.md (-std=c99 -Wall
#     -Wextra -Werror -pedantic) with what they take from the host around them
#     (ffi/tests/c/snippets_prelude.h);
#  4. builds examples/c/booking.c, ffi/tests/c/contract_test.c (-std=c99) and
#     examples/cpp/booking.cpp (-std=c++17), all with -Wall -Wextra -Werror -pedantic,
#     each linked once against the staticlib and once against the cdylib, and runs them;
#  5. runs them again under valgrind memcheck (errors and definite/indirect leaks fail);
#  6. builds and runs them with -fsanitize=address,undefined.
#
# Exits non-zero on any failure. Installs cbindgen and valgrind when missing.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

UPDATE_HEADER=0
for arg in "$@"; do
    case "$arg" in
        --update-header) UPDATE_HEADER=1 ;;
        *) echo "usage: $0 [--update-header]" >&2; exit 2 ;;
    esac
done

CC=${CC:-cc}
CXX=${CXX:-c++}
OUT="$BUILD/c-abi"
LIBDIR="$BUILD/release"
CFLAGS=(-std=c99 -Wall -Wextra -Werror -pedantic -g -I"$ROOT/include")
# examples/c: booking_decl.h, the booking fixture's declaration (C finds it beside booking.c).
CXXFLAGS=(-std=c++17 -Wall -Wextra -Werror -pedantic -g -I"$ROOT/include" -I"$ROOT/examples/c")
rm -rf "$OUT"
mkdir -p "$OUT"

step() { printf '\n==> %s\n' "$*"; }

# ------------------------------------------------------------------------ 1. build
step "building elicit-ffi (release)"
cargo build -p elicit-ffi --release
for f in libelicit_ffi.a libelicit_ffi.so; do
    [ -f "$LIBDIR/$f" ] || { echo "missing $LIBDIR/$f" >&2; exit 1; }
done
# The system libraries the staticlib needs (as rustc reports them; this list is what
# `--print native-static-libs` gives for x86_64-unknown-linux-gnu).
NATIVE_LIBS=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)

# ----------------------------------------------------------------------- 2. header
step "checking include/elicit.h and include/elicit_noalloc.h against cbindgen 0.29.4"
if [ "$(cbindgen --version 2>/dev/null || true)" != "cbindgen 0.29.4" ]; then
    cargo install --locked cbindgen --version 0.29.4
fi
# header CRATE_DIR NAME: regenerate include/NAME from CRATE_DIR/cbindgen.toml and compare.
header() {
    local crate=$1 name=$2
    cbindgen --config "$crate/cbindgen.toml" --output "$OUT/$name" "$crate" 2>"$OUT/cbindgen-$name.log" || {
        cat "$OUT/cbindgen-$name.log" >&2
        exit 1
    }
    if [ "$UPDATE_HEADER" = 1 ]; then
        cp "$OUT/$name" "include/$name"
        echo "include/$name regenerated"
    elif ! diff -u "include/$name" "$OUT/$name"; then
        echo "include/$name is stale: run scripts/test-c.sh --update-header and commit it" >&2
        exit 1
    else
        echo "include/$name is up to date"
    fi
}
header ffi elicit.h
header ffi-noalloc elicit_noalloc.h

step "checking examples/c/booking_decl.h against tests/fixture/decl/book_flight.json"
# The C and C++ examples' declaration: the booking fixture's, as C string literals.
cargo run -q -p elicit-tools --bin c_decl -- tests/fixture/decl/book_flight.json BOOK_FLIGHT >"$OUT/booking_decl.h"
if [ "$UPDATE_HEADER" = 1 ]; then
    cp "$OUT/booking_decl.h" examples/c/booking_decl.h
    echo "examples/c/booking_decl.h regenerated"
elif ! diff -u examples/c/booking_decl.h "$OUT/booking_decl.h"; then
    echo "examples/c/booking_decl.h is stale: run scripts/test-c.sh --update-header and commit it" >&2
    exit 1
else
    echo "examples/c/booking_decl.h is up to date"
fi

# ------------------------------------------------------------------ 3. doc snippets
step "compiling the C snippets of docs/c-abi.md and ffi/README.md"
# Each ```c block: one starting with `typedef` at file scope, any other as a function's
# body; errors point at the page's own lines (#line).
mkdir -p "$OUT/snippets"
"${PYTHON:-python3}" - "$OUT/snippets" "$ROOT/ffi/tests/c/snippets_prelude.h" docs/c-abi.md ffi/README.md <<'PY'
import pathlib, re, sys

out, prelude, docs = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
n = 0
for doc in docs:
    text = pathlib.Path(doc).read_text(encoding="utf-8")
    for m in re.finditer(r"^([ \t]*)```c\n(.*?)^\1```", text, re.M | re.S):
        indent, body = m.group(1), m.group(2)
        body = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in body.split("\n"))
        line = text.count("\n", 0, m.start()) + 2
        top = body.lstrip().startswith("typedef")
        n += 1
        src = f'#include "{prelude}"\n' + ("" if top else f"int snippet_{n}(void) {{\n")
        src += f'#line {line} "{doc}"\n{body}' + ("" if top else "\nreturn 0;\n}\n")
        (out / f"snippet_{n}.c").write_text(src, encoding="utf-8")
print(f"{n} snippets")
PY
for f in "$OUT"/snippets/snippet_*.c; do
    "$CC" "${CFLAGS[@]}" -c "$f" -o "${f%.c}.o"
done
echo "ok  every snippet compiles"

# ---------------------------------------------------------------- 4. build and run
# build NAME LANG SOURCE LINK EXTRA...   (LINK: static | dynamic)
build() {
    local name=$1 lang=$2 src=$3 link=$4
    shift 4
    local compiler flags
    if [ "$lang" = c ]; then compiler=$CC; flags=("${CFLAGS[@]}"); else compiler=$CXX; flags=("${CXXFLAGS[@]}"); fi
    if [ "$link" = static ]; then
        "$compiler" "${flags[@]}" "$@" -pthread "$src" "$LIBDIR/libelicit_ffi.a" "${NATIVE_LIBS[@]}" -o "$OUT/$name"
    else
        "$compiler" "${flags[@]}" "$@" -pthread "$src" -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lelicit_ffi -o "$OUT/$name"
    fi
}

PROGRAMS=(booking_c contract_test booking_cpp)
source_of() {
    case $1 in
        booking_c) echo "c examples/c/booking.c" ;;
        contract_test) echo "c ffi/tests/c/contract_test.c" ;;
        booking_cpp) echo "cpp examples/cpp/booking.cpp" ;;
    esac
}

step "building the examples (-Werror -pedantic), static and dynamic"
for p in "${PROGRAMS[@]}"; do
    read -r lang src < <(source_of "$p")
    build "$p.static" "$lang" "$src" static
    build "$p.dynamic" "$lang" "$src" dynamic
    # The dynamic build really uses the shared library.
    # (capture first: `ldd | grep -q` can die of SIGPIPE under pipefail)
    deps=$(ldd "$OUT/$p.dynamic")
    if ! grep -q libelicit_ffi.so <<<"$deps"; then
        echo "$p.dynamic is not linked against libelicit_ffi.so" >&2
        exit 1
    fi
done

run() {
    local label=$1
    shift
    if ! "$@" >"$OUT/$label.log" 2>&1; then
        cat "$OUT/$label.log"
        echo "FAILED: $label" >&2
        exit 1
    fi
}

step "running the examples"
for p in "${PROGRAMS[@]}"; do
    for link in static dynamic; do
        run "$p.$link" "$OUT/$p.$link"
        echo "ok  $p.$link: $(tail -n 1 "$OUT/$p.$link.log")"
    done
done
CONTRACT_LINE=$(tail -n 1 "$OUT/contract_test.static.log")

# ---------------------------------------------------------------------- 5. valgrind
step "valgrind memcheck"
need_cmd valgrind valgrind
for p in "${PROGRAMS[@]}"; do
    for link in static dynamic; do
        run "$p.$link.valgrind" valgrind --error-exitcode=1 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect "$OUT/$p.$link"
        summary=$(grep -E "ERROR SUMMARY" "$OUT/$p.$link.valgrind.log" | tail -n 1 | sed 's/^==[0-9]*== //')
        leaks=$(grep -E "definitely lost|All heap blocks were freed" "$OUT/$p.$link.valgrind.log" | tail -n 1 | sed 's/^==[0-9]*== *//')
        echo "ok  $p.$link under valgrind: $summary; $leaks"
    done
done

# ---------------------------------------------------------------- 6. sanitizers
step "AddressSanitizer + UndefinedBehaviorSanitizer"
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
for p in "${PROGRAMS[@]}"; do
    read -r lang src < <(source_of "$p")
    build "$p.asan" "$lang" "$src" static "${SAN[@]}"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run "$p.asan" "$OUT/$p.asan"
    echo "ok  $p under ASan+UBSan: $(tail -n 1 "$OUT/$p.asan.log")"
done

step "C ABI checks passed"
echo "contract test: $CONTRACT_LINE"
echo "test-c.sh: header, $(ls "$OUT"/snippets/snippet_*.o | wc -l) doc snippets, 6 builds run, 6 valgrind runs, 3 sanitizer runs: all passed"
