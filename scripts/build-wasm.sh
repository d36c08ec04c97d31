#!/usr/bin/env bash
# build-wasm.sh: the C ABI (elicit-ffi) as WebAssembly, embedded into the npm package js/.
#
#   scripts/build-wasm.sh        build target/elicit-wasm/elicit.wasm and js/src/wasm.generated.ts
#
# Steps (PERF.md, "WebAssembly module size", has the figures of each):
#  1. cargo rustc -p elicit-ffi for wasm32-unknown-unknown, profile `wasm` (Cargo.toml:
#     opt-level s, fat LTO, one codegen unit, panic abort), with elicit-core's
#     small-float (table-free float parsing and printing: the same bytes, smaller code).
#     The build imports nothing: elicit_os_time and elicit_os_random are left out for
#     this target (JavaScript passes Date.now() and crypto.getRandomValues bytes), and
#     elicit_wasm_alloc / elicit_wasm_free are the host's allocator pair.
#  2. wasm-metadce (binaryen, from Debian) drops the exports of the heap-free surface
#     (elicit_noalloc_*: plans and rounds in caller memory, for firmware; a JavaScript
#     host has a heap and never calls them) and the code only they reach. Every
#     function of include/elicit.h that the WebAssembly build has stays exported.
#  3. wasm-opt -Oz (binaryen).
#  4. js/scripts/embed.mjs writes the module as base64 into js/src/wasm.generated.ts,
#     so the package loads with no file system access (bundlers, workers).
# Prints the raw and gzip sizes. Installs the rustup target and binaryen when missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_target wasm32-unknown-unknown
need_cmd wasm-opt binaryen
need_cmd node nodejs

cargo rustc -q -p elicit-ffi --lib --target wasm32-unknown-unknown --profile wasm \
  --crate-type cdylib --features elicit-core/small-float
built="$BUILD/wasm32-unknown-unknown/wasm/elicit_ffi.wasm"
# Not target/wasm: cargo keeps the `wasm` profile's host builds (build scripts, proc macros) there.
out="$BUILD/elicit-wasm"
mkdir -p "$out"

# The reachability graph wasm-metadce keeps: one root reaching every export but the
# heap-free surface's.
node - "$built" >"$out/metadce-graph.json" <<'JS'
const fs = require("fs");
const names = WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(process.argv[2])))
  .map((e) => e.name);
const keep = names.filter((n) => !n.startsWith("elicit_noalloc_"));
const graph = [{ name: "host", root: true, reaches: keep.map((n) => `export:${n}`) }];
for (const n of names) graph.push({ name: `export:${n}`, export: n });
process.stdout.write(JSON.stringify(graph));
JS
features=(--enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int)
wasm-metadce "${features[@]}" -f "$out/metadce-graph.json" "$built" -o "$out/elicit.dce.wasm" >/dev/null
wasm-opt -Oz "${features[@]}" --strip-debug --strip-producers "$out/elicit.dce.wasm" -o "$out/elicit.wasm"
node js/scripts/embed.mjs "$out/elicit.wasm" js/src/wasm.generated.ts

raw=$(wc -c <"$out/elicit.wasm")
gz=$(gzip -9c "$out/elicit.wasm" | wc -c)
echo "build-wasm.sh: $out/elicit.wasm: $raw bytes raw, $gz bytes gzip -9 (cargo: $(wc -c <"$built") raw)"
