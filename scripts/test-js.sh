#!/usr/bin/env bash
# test-js.sh: the npm package js/ (elicit-mcp), as CI runs it and as a user installs it.
#  1. scripts/release.sh npm: the C ABI as WebAssembly (scripts/build-wasm.sh) embedded,
#     npm ci in js/ (typescript, @types/node, zod and the peer dependencies, pinned by
#     js/package-lock.json), tsc, npm pack: the tarball a release ships;
#  2. tsc on the type-level checks of js/test/types.check.ts;
#  3. node --test js/test/: the module imports nothing, Plan/Round in both eras and every
#     input kind, the call level, the zod declarations, the seal vectors, and sealing
#     interop with the Rust seal_cli and the Python package (one key ring, both ways);
#  4. the tarball installed into a fresh project outside the tree, and a sealed round
#     run there through the public API (js/scripts/pack-smoke.mjs).
# Installs what it needs (the rustup target and binaryen via build-wasm.sh, npm).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmd npm npm
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || { echo "test-js.sh: Node >= 20 needed, found $(node --version)" >&2; exit 1; }

fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
t0=$SECONDS
DIST="$fresh/dist" bash scripts/release.sh npm
echo "test-js.sh: wasm build, npm ci, tsc, npm pack: $((SECONDS - t0)) s" >&2
(cd js && npx tsc -p tsconfig.test.json)

# The other ends of the interop tests: the Rust seal_cli and the C library the Python
# package loads (debug builds; the workspace tests built them already).
cargo build -q -p elicit-tools --bin seal_cli
cargo build -q -p elicit-ffi --lib
debug="$BUILD/debug"
ELICIT_SEAL_CLI="$debug/seal_cli" ELICIT_PYTHON_LIB="$debug/libelicit_ffi.so" \
  node --test --test-reporter=spec js/test/

# As a user installs it: the release's tarball in a fresh project outside the tree.
tarball=$(ls "$fresh"/dist/elicit-mcp-*.tgz)
echo "test-js.sh: $(basename "$tarball"): $(wc -c <"$tarball") bytes; files: $(tar tzf "$tarball" | tr '\n' ' ')" >&2
cp js/scripts/pack-smoke.mjs "$fresh/"
(
  cd "$fresh"
  npm init -y >/dev/null
  npm pkg set type=module
  npm install --no-audit --no-fund --loglevel=error "$tarball"
  out=$(node pack-smoke.mjs)
  [ "$out" = "Ordered 3 x tea" ] || { echo "test-js.sh: pack smoke printed: $out" >&2; exit 1; }
  echo "test-js.sh: the packed tarball installs and runs outside the tree: $out"
)
