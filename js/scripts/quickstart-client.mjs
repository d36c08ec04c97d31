// quickstart-client.mjs: run from a fresh project where the packed elicit-mcp tarball is
// installed (scripts/test-js.sh copies it there beside quickstart.js, the README's quick
// start as written, compiled): the TypeScript SDK's client (@modelcontextprotocol/client)
// starts the quick start over stdio and books a flight in both eras, as a user's client
// would: 2026-07-28 (InputRequiredResult rounds, sealed requestState) and 2025-11-25 (the
// initialize handshake, elicitation/create one question at a time). Prints one line per era.
// Then the quick start's serveStdio (elicit-mcp/stdio) over a raw pipe: an unreadable line
// is answered with -32700 and the connection serves on.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const ANSWERS = {
  "Where would you like to fly?": "Paris",
  "When would you like to fly?": "2026-08-01",
  "Which airport in Paris?": "CDG",
  "Window or aisle?": "window",
};
// The order the questions reach the user: declaration order; on 2026-07-28 the airport's
// resolver needs the destination, so it is asked in the second round.
const ORDER = {
  auto: ["Where would you like to fly?", "When would you like to fly?", "Window or aisle?", "Which airport in Paris?"],
  legacy: ["Where would you like to fly?", "When would you like to fly?", "Which airport in Paris?", "Window or aisle?"],
};

for (const mode of ["auto", "legacy"]) {
  const asked = [];
  const client = new Client(
    { name: "quickstart-check", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { value: ANSWERS[request.params.message] } };
  });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ["quickstart.js"], env: { ...process.env }, stderr: "inherit" }),
  );
  const version = client.getNegotiatedProtocolVersion();
  assert.equal(version, mode === "auto" ? "2026-07-28" : "2025-11-25");
  let result;
  try {
    result = await client.callTool({ name: "book_flight", arguments: {} });
  } finally {
    await client.close();
  }
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  assert.equal(result.content[0].text, "Booked Paris (CDG) on 2026-08-01, seat window");
  assert.deepEqual(asked, ORDER[mode], "the questions, in the order they reached the user");
  console.log(`${version}: ${result.content[0].text}`);
}

// Raw lines, as a broken client writes them: the filter answers the unreadable one.
const child = spawn(process.execPath, ["quickstart.js"], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env } });
const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } };
child.stdin.write(
  `{not json\n${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init })}\n` +
    `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`,
);
let text = "";
for await (const chunk of child.stdout) {
  text += chunk;
  if (text.includes('"id":2')) break;
}
child.stdin.end();
const replies = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
assert.deepEqual(replies[0], { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
assert.deepEqual(replies.at(-1), { jsonrpc: "2.0", id: 2, result: {} });
console.log("an unreadable line (elicit-mcp/stdio): -32700 Parse error, then ping answered");
