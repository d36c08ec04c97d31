#!/usr/bin/env bash
# test-js.sh: the npm package js/ (elicit-mcp), as CI runs it and as a user installs it.
#  1. scripts/release.sh npm: the C ABI as WebAssembly (scripts/build-wasm.sh) embedded,
#     npm ci in js/ (typescript, @types/node, zod and the peer dependencies, pinned by
#     js/package-lock.json), tsc, npm pack: the tarball a release ships;
#  2. tsc on the type-level checks of js/test/types.check.ts;
#  3. node --test js/test/: the module imports nothing, Plan/Round in both eras and every
#     input kind, the call level, the zod declarations, the seal vectors, and sealing
#     interop with the Rust seal_cli and the Python package (one key ring, both ways);
#  4. the tarball installed into a fresh project outside the tree: a sealed round run
#     there through the public API (js/scripts/pack-smoke.mjs), and js/README.md's quick
#     start, taken from the README as written (its first ts block, at most 30 lines),
#     compiled with tsc against the installed package and driven over stdio by the
#     TypeScript SDK's client (@modelcontextprotocol/client, pinned below) in both eras,
#     then over a raw pipe, where its serveStdio (the subpath elicit-mcp/stdio) answers an
#     unreadable line with -32700 and serves on (js/scripts/quickstart-client.mjs).
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
cp js/scripts/pack-smoke.mjs js/scripts/quickstart-client.mjs "$fresh/"
# The README's quick start: its first ```ts block, as written.
awk '/^```ts$/ {f=1; next} /^```$/ && f {exit} f' js/README.md >"$fresh/quickstart.ts"
lines=$(wc -l <"$fresh/quickstart.ts")
[ "$lines" -ge 10 ] && [ "$lines" -le 30 ] ||
  { echo "test-js.sh: js/README.md's quick start is $lines lines (wanted a booking tool in at most 30)" >&2; exit 1; }
tsc="$ROOT/js/node_modules/.bin/tsc"
(
  cd "$fresh"
  npm init -y >/dev/null
  npm pkg set type=module
  # The peer dependencies (the SDK's server package, zod) come with it, as npm installs peers.
  npm install --no-audit --no-fund --loglevel=error "$tarball" @modelcontextprotocol/client@2.4.0
  out=$(node pack-smoke.mjs)
  [ "$out" = "Ordered 3 x tea" ] || { echo "test-js.sh: pack smoke printed: $out" >&2; exit 1; }
  echo "test-js.sh: the packed tarball installs and runs outside the tree: $out"
  "$tsc" --strict --skipLibCheck --module nodenext --target es2022 quickstart.ts
  ELICIT_STATE_KEYS="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" node quickstart-client.mjs |
    sed "s/^/test-js.sh: js\/README.md's quick start ($lines lines), from the tarball: /"
)
