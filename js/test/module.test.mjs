// The embedded WebAssembly module: it imports nothing, and exports every function of
// the C headers a WebAssembly host can use (the OS time and entropy entry points are left
// out of this target; the heap-free surface is dropped by scripts/build-wasm.sh), plus
// the allocator pair.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { WASM_BASE64 } from "../dist/wasm.generated.js";
import { ABI_MAJOR, ABI_MINOR, Plan } from "../dist/index.js";

const module = new WebAssembly.Module(Buffer.from(WASM_BASE64, "base64"));
const header = (name) => readFileSync(new URL(`../../include/${name}`, import.meta.url), "utf8");
const functions = (text) => [...text.matchAll(/^[A-Za-z][\w\s*]*?\b(elicit_\w+)\(/gm)].map((m) => m[1]);

test("the module imports nothing", () => {
  assert.deepEqual(WebAssembly.Module.imports(module), []);
});

test("the module exports the C ABI's functions and the allocator pair", () => {
  const exported = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const hosted = functions(header("elicit.h"));
  const shared = functions(header("elicit_noalloc.h")).filter((n) => !n.startsWith("elicit_noalloc_"));
  assert.ok(hosted.length >= 40, `found ${hosted.length} functions in elicit.h`);
  const leftOut = new Set(["elicit_os_time", "elicit_os_random"]);
  for (const name of [...hosted, ...shared]) {
    assert.equal(exported.has(name), !leftOut.has(name), name);
  }
  for (const name of ["memory", "elicit_wasm_alloc", "elicit_wasm_free"]) assert.ok(exported.has(name), name);
  assert.deepEqual([...exported].filter((n) => n.startsWith("elicit_noalloc_")), []);
});

test("the module's ABI version is the one the binding is written for", () => {
  const { exports } = new WebAssembly.Instance(module, {});
  const v = exports.elicit_abi_version();
  assert.equal(v >>> 16, ABI_MAJOR);
  assert.equal((v >>> 8) & 0xff, ABI_MINOR);
  // And the classes run on it.
  assert.equal(new Plan({ tool: "t", parameters: [{ name: "a" }] }).toolName, "t");
});

test("the allocator pair: aligned buffers, NULL for 0, free accepts NULL", () => {
  const { exports } = new WebAssembly.Instance(module, {});
  const p = exports.elicit_wasm_alloc(10);
  assert.ok(p > 0 && p % 8 === 0);
  exports.elicit_wasm_free(p, 10);
  assert.equal(exports.elicit_wasm_alloc(0), 0);
  exports.elicit_wasm_free(0, 0);
});
