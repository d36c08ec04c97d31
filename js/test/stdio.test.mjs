// elicit-mcp/stdio: McpServer over a stream pair through the line filter, fed bytes as a
// client's pipe carries them (lines split across chunks, a line past the limit in pieces);
// and the main entry's import graph holds nothing of Node (it loads in bundlers and
// workers), the subpath is where node:stream and the SDK's stdio entry come in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { McpServer } from "@modelcontextprotocol/server";
import { LINE_LIMIT, serveStdio } from "elicit-mcp/stdio";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};
const PING = { jsonrpc: "2.0", id: 99, method: "ping" };
const line = (m) => Buffer.from(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);

/** Serve a McpServer on a stream pair, write `chunks` (then end), and collect every reply line. */
async function session(chunks) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = "";
  stdout.on("data", (c) => (text += c));
  const handle = serveStdio(() => new McpServer({ name: "t", version: "0" }), { stdin, stdout });
  for (const c of chunks) {
    stdin.write(c);
    await new Promise((r) => setImmediate(r));
  }
  // Until the ping's reply: everything before it was answered or dropped.
  while (!text.includes('"id":99')) await new Promise((r) => setTimeout(r, 5));
  stdin.end();
  await handle.close();
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

const pong = { jsonrpc: "2.0", id: 99, result: {} };

test("an unreadable line is -32700 with id null, and the connection serves on", async () => {
  for (const bad of [Buffer.from("{not json\n"), Buffer.from([0xff, 0xfe, 0x80, 0x0a]), Buffer.from("[1, 2\n")]) {
    const out = await session([line(INIT), bad, line(PING)]);
    assert.deepEqual(out[1], { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    assert.deepEqual(out.at(-1), pong);
  }
});

test("a request that is not JSON-RPC 2.0, or has an unusable id, is -32600; params not an object -32602", async () => {
  const out = await session([
    line(INIT),
    line({ jsonrpc: "1.0", id: 13, method: "ping" }),
    line({ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }),
    line({ jsonrpc: "2.0", id: 12, method: "tools/call", params: 5 }),
    line(PING),
  ]);
  const errors = out.filter((m) => m.error).map((m) => [m.id, m.error.code]);
  assert.deepEqual(errors, [
    [13, -32600],
    [null, -32600],
    [12, -32602],
  ]);
  assert.match(out.find((m) => m.id === 12).error.message, /tools\/call's params must be an object/);
  assert.deepEqual(out.at(-1), pong);
});

test("a line split across chunks is one line; a CRLF line is served", async () => {
  const ping = JSON.stringify(PING);
  const out = await session([line(INIT), Buffer.from(ping.slice(0, 10)), Buffer.from(`${ping.slice(10)}\r\n`)]);
  assert.deepEqual(out.at(-1), pong);
});

test("a line past LINE_LIMIT is skipped as it streams in and answered with -32600 naming the limit and its id", async () => {
  assert.equal(LINE_LIMIT, 8 * 1024 * 1024);
  const head = Buffer.from('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"pad":"');
  const mib = Buffer.alloc(1024 * 1024, "x");
  const chunks = [line(INIT), head, ...Array.from({ length: 16 }, () => mib), Buffer.from('"}}\n'), line(PING)];
  const out = await session(chunks);
  const err = out.find((m) => m.id === 3);
  assert.equal(err.error.code, -32600);
  assert.match(err.error.message, new RegExp(`over ${LINE_LIMIT} bytes`));
  assert.deepEqual(out.at(-1), pong);
});

test("the main entry imports nothing of Node; the stdio subpath is where Node comes in", () => {
  const seen = new Set();
  const specifiers = [];
  const walk = (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const source = readFileSync(url, "utf8");
    for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\b[^"';]*?from\s*"([^"]+)"|import\s*\(\s*"([^"]+)"\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) walk(new URL(spec, url));
      else specifiers.push(spec);
    }
  };
  walk(new URL("../dist/index.js", import.meta.url));
  assert.ok(seen.size >= 8, `walked ${seen.size} files`);
  assert.deepEqual(
    specifiers.filter((s) => s.startsWith("node:") || s.endsWith("/stdio")),
    [],
    "the main entry's import graph",
  );
  const stdio = readFileSync(new URL("../dist/stdio.js", import.meta.url), "utf8");
  assert.match(stdio, /from "node:stream"/);
  assert.match(stdio, /from "@modelcontextprotocol\/server\/stdio"/);
});
