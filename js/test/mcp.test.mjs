// The McpServer adapter (Elicitation): declared tools, prompts and resources on
// @modelcontextprotocol/server 2.4's McpServer, served through serveStdio over an in-memory
// pair, driven with raw JSON-RPC as a client sends it: both eras, capability gating,
// declaration order, the errors on the wire, and McpServer's own tools beside them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/server";
import { Elicitation, KeyRing, ask, declareTool, elicit } from "../dist/index.js";
import { connect as connectTo } from "./wire.mjs";
import { abi } from "../dist/abi.js";

const MODERN = "2026-07-28";
const meta = (capabilities = { elicitation: { form: {} } }) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "0" },
});
const accept = (value) => ({ action: "accept", content: { value } });

function declarations() {
  const order = declareTool("order", {
    params: {
      item: z.string(),
      quantity: elicit(z.int(), { needs: ["item"], resolve: async ({ item }) => (item === "water" ? 1 : ask(`How many ${item}?`)) }),
      note: elicit(z.string(), { message: "Any note?", default: "" }),
    },
    body: ({ item, quantity, note }) => `Ordered ${quantity} x ${item}${note ? ` (${note})` : ""}`,
  });
  const welcome = declareTool("welcome", {
    params: { name: elicit(z.string(), { message: "Enter your name:" }) },
    body: ({ name }) => `Welcome aboard, ${name}!`,
  });
  const itinerary = declareTool("itinerary", {
    params: { destination: elicit(z.string(), { message: "Where would you like to fly?" }) },
    body: ({ destination }) => `Itinerary: ${destination}`,
  });
  return { order, welcome, itinerary };
}

/** A connection to a fresh McpServer (the adapter's declarations and one plain tool). */
function connect(elicitation) {
  return connectTo(() => {
    const mcp = new McpServer({ name: "shop", version: "1.0.0" });
    mcp.registerTool("plain", { description: "Not declared", inputSchema: { x: z.string() } }, ({ x }) => ({
      content: [{ type: "text", text: `plain ${x}` }],
    }));
    return elicitation.attach(mcp);
  });
}

const elicitation = (lines = []) => {
  const d = declarations();
  return new Elicitation({ keys: KeyRing.fromText("c3".repeat(32)), audience: "shop", log: (l) => lines.push(l) })
    .tool(d.order, { description: "Order an item." })
    .prompt(d.welcome, { description: "A welcome." })
    .resource(d.itinerary, "booking://itinerary");
};

test("2026-07-28: one InputRequiredResult per round, sealed requestState, then the body's result", async () => {
  const c = await connect(elicitation());
  const params = { name: "order", arguments: { item: "tea" }, _meta: meta() };
  const first = (await c.request("tools/call", params)).reply;
  assert.equal(first.result.resultType, "input_required");
  assert.deepEqual(Object.keys(first.result.inputRequests), ["quantity", "note"]);
  assert.equal(first.result.inputRequests.quantity.params.message, "How many tea?");
  assert.match(first.result.requestState, /^v1\./);
  const done = (
    await c.request("tools/call", {
      ...params,
      requestState: first.result.requestState,
      inputResponses: { quantity: accept(3), note: accept("green") },
    })
  ).reply;
  assert.deepEqual(done.result.content, [{ type: "text", text: "Ordered 3 x tea (green)" }]);
  assert.equal(done.result.isError, false);
  await c.close();
});

test("2026-07-28: state refusals are the fixed -32602; a missing capability is -32021", async () => {
  const lines = [];
  const c = await connect(elicitation(lines));
  const forged = (
    await c.request("tools/call", { name: "order", arguments: { item: "tea" }, _meta: meta(), requestState: "v1.forged" })
  ).reply;
  assert.deepEqual(forged.error, { code: -32602, message: "Invalid or expired requestState", data: { reason: "invalid_request_state" } });
  assert.match(lines[0], /^tools\/call order: refused: /);
  const gated = (await c.request("tools/call", { name: "order", arguments: { item: "tea" }, _meta: meta({}) })).reply;
  assert.equal(gated.error.code, -32021);
  assert.deepEqual(gated.error.data, { requiredCapabilities: { elicitation: { form: {} } } });
  assert.match(gated.error.message, /form elicitation capability required by resolver 'quantity'/);
  await c.close();
});

test("2026-07-28: a declined answer is a tool error; prompts and resources are served too", async () => {
  const c = await connect(elicitation());
  const first = (await c.request("tools/call", { name: "order", arguments: { item: "tea" }, _meta: meta() })).reply;
  const declined = (
    await c.request("tools/call", {
      name: "order",
      arguments: { item: "tea" },
      _meta: meta(),
      requestState: first.result.requestState,
      inputResponses: { quantity: { action: "decline" }, note: accept("") },
    })
  ).reply;
  assert.equal(declined.result.isError, true);
  assert.match(declined.result.content[0].text, /Cannot continue without 'quantity': the request was declined/);
  const prompt = (await c.request("prompts/get", { name: "welcome", _meta: meta() })).reply;
  const state = prompt.result.requestState;
  const welcomed = (
    await c.request("prompts/get", { name: "welcome", _meta: meta(), requestState: state, inputResponses: { name: accept("Ann") } })
  ).reply;
  assert.equal(welcomed.result.messages[0].content.text, "Welcome aboard, Ann!");
  const read = (await c.request("resources/read", { uri: "booking://itinerary", _meta: meta() })).reply;
  assert.deepEqual(Object.keys(read.result.inputRequests), ["destination"]);
  await c.close();
});

test("2025-11-25: elicitation/create one question at a time, in declaration order; McpServer's own tools beside", async () => {
  const c = await connect(elicitation());
  const init = (
    await c.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "t", version: "0" },
    })
  ).reply;
  assert.equal(init.result.protocolVersion, "2025-11-25");
  await c.send({ method: "notifications/initialized" });
  const answers = { "How many tea?": 2, "Any note?": "hot" };
  const { reply, asked } = await c.request("tools/call", { name: "order", arguments: { item: "tea" } }, (m) =>
    accept(answers[m.params.message]),
  );
  assert.deepEqual(
    asked.map((m) => [m.method, m.params.message]),
    [
      ["elicitation/create", "How many tea?"],
      ["elicitation/create", "Any note?"],
    ],
  );
  assert.deepEqual(reply.result.content, [{ type: "text", text: "Ordered 2 x tea (hot)" }]);
  const plain = (await c.request("tools/call", { name: "plain", arguments: { x: "y" } })).reply;
  assert.deepEqual(plain.result.content, [{ type: "text", text: "plain y" }]);
  const list = (await c.request("tools/list", {})).reply;
  assert.deepEqual(
    list.result.tools.map((t) => t.name),
    ["plain", "order"],
  );
  assert.deepEqual(Object.keys(list.result.tools[1].inputSchema.properties), ["item"]);
  await c.close();
});

test("2025-11-25: a client without the elicitation capability gets -32021 and is asked nothing", async () => {
  const c = await connect(elicitation());
  await c.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } });
  await c.send({ method: "notifications/initialized" });
  const { reply, asked } = await c.request("tools/call", { name: "order", arguments: { item: "tea" } }, () => {
    throw new Error("asked");
  });
  assert.equal(asked.length, 0);
  assert.equal(reply.error.code, -32021);
  await c.close();
});

test("declarations are fixed once attached, and a name is served once", () => {
  const e = elicitation();
  const d = declarations();
  assert.throws(() => e.tool(d.order), /"order" is declared twice for tools\/call/);
  e.attach(new McpServer({ name: "shop", version: "1.0.0" }));
  assert.throws(() => e.prompt(declarations().order), /before the first attach\(\)/);
  assert.throws(() => new Elicitation({ audience: "x" }), /give \{ keys: KeyRing, audience \}/);
});

test("model arguments are checked against the declaration: a tool error naming the argument", async () => {
  const c = await connect(elicitation());
  const missing = (await c.request("tools/call", { name: "order", arguments: {}, _meta: meta() })).reply;
  assert.deepEqual(missing.result.content, [{ type: "text", text: "Missing required argument 'item' for tool 'order'" }]);
  assert.equal(missing.result.isError, true);
  const wrong = (await c.request("tools/call", { name: "order", arguments: { item: 5 }, _meta: meta() })).reply;
  assert.equal(wrong.result.isError, true);
  assert.match(wrong.result.content[0].text, /^Invalid argument 'item' for tool 'order': /);
  await c.close();
});

/** Make the live WebAssembly instance trap (a read far outside its memory, as a panic traps). */
function trap() {
  const a = abi();
  assert.throws(() => a.call(() => a.x.elicit_plan_param_count(0xfffffff0, 0xfffffff0)), /trapped/);
  assert.equal(a.dead, true);
}

test("a trap fails the calls live on the instance with -32603; the plans and key ring are made again and serving goes on", async () => {
  const lines = [];
  const e = elicitation(lines);
  const modern = await connect(e);
  // A 2026-07-28 round sealed before the trap.
  const params = { name: "order", arguments: { item: "tea" }, _meta: meta() };
  const first = (await modern.request("tools/call", params)).reply;
  assert.equal(first.result.resultType, "input_required");

  // A 2025-11-25 call waiting for its answer when the instance traps.
  const old = await connect(e);
  await old.request("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "t", version: "0" } });
  await old.send({ method: "notifications/initialized" });
  const { reply, asked } = await old.request("tools/call", { name: "order", arguments: { item: "tea" } }, (m) => {
    trap();
    return accept(m.params.message === "How many tea?" ? 2 : "");
  });
  assert.equal(asked.length, 1);
  assert.deepEqual(reply.error, { code: -32603, message: "Internal error" });

  // The next request rebuilds: the round sealed before the trap opens with the ring made again.
  const done = (
    await modern.request("tools/call", {
      ...params,
      requestState: first.result.requestState,
      inputResponses: { quantity: accept(3), note: accept("") },
    })
  ).reply;
  assert.deepEqual(done.result.content, [{ type: "text", text: "Ordered 3 x tea" }]);
  assert.ok(lines.some((l) => /trapped: its calls failed; the plans and the key ring are made again/.test(l)), lines.join("\n"));
  // And the connection that lost its call serves on.
  const again = await old.request("tools/call", { name: "order", arguments: { item: "water" } }, () => accept("none"));
  assert.deepEqual(again.reply.result.content, [{ type: "text", text: "Ordered 1 x water (none)" }]);
  await old.close();
  await modern.close();
});
