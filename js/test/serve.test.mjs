// A zod-declared tool served through the call level: resolvers awaited, the body typed,
// the replies the engine writes, in both eras.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { KeyRing, Server, ask, declareTool, elicit } from "../dist/index.js";

const MODERN = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};
const accept = (value) => ({ action: "accept", content: { value } });

const order = (body) =>
  declareTool("order", {
    params: {
      item: z.string(),
      quantity: elicit(z.int().min(1), {
        needs: ["item"],
        resolve: async ({ item }) => (item === "water" ? 1 : ask(`How many ${item}?`)),
      }),
      note: elicit(z.string(), { message: "Any note?", default: "" }),
    },
    body,
  });

const serverFor = (tool) => new Server({ entries: [{ plan: tool.plan }], keys: KeyRing.fromText("c3".repeat(32)), audience: "shop" });

test("2026-07-28: rounds through the call level, then the body's text", async () => {
  const tool = order(({ item, quantity, note }) => `Ordered ${quantity} x ${item}${note ? ` (${note})` : ""}`);
  const server = serverFor(tool);
  const params = { name: "order", arguments: { item: "tea" }, _meta: MODERN };
  const first = JSON.parse(await tool.serve(server.call({ id: 1, method: "tools/call", params })));
  assert.equal(first.result.resultType, "input_required");
  assert.deepEqual(Object.keys(first.result.inputRequests), ["quantity", "note"]);
  assert.equal(first.result.inputRequests.quantity.params.message, "How many tea?");
  const second = JSON.parse(
    await tool.serve(
      server.call({
        id: 2,
        method: "tools/call",
        params: {
          ...params,
          requestState: first.result.requestState,
          inputResponses: { quantity: accept(3), note: { action: "decline" } },
        },
      }),
    ),
  );
  assert.deepEqual(second.result, {
    content: [{ type: "text", text: "Ordered 3 x tea" }],
    isError: false,
    resultType: "complete",
  });
});

test("2025-11-25: each question through options.ask; a client error ends the call", async () => {
  const tool = order(({ item, quantity }) => `Ordered ${quantity} x ${item}`);
  const server = serverFor(tool);
  const request = { id: 3, method: "tools/call", params: { name: "order", arguments: { item: "tea" } }, protocolVersion: "2025-11-25", clientCapabilities: { elicitation: {} } };
  const seen = [];
  const reply = JSON.parse(
    await tool.serve(server.call(request), {
      ask: async (r) => {
        seen.push(r.params.message);
        return r.params.message === "How many tea?" ? accept(2) : accept("");
      },
    }),
  );
  assert.deepEqual(seen, ["How many tea?", "Any note?"]);
  assert.equal(reply.result.content[0].text, "Ordered 2 x tea");

  const refused = JSON.parse(
    await tool.serve(server.call(request), {
      ask: async () => {
        throw Object.assign(new Error("user closed the dialog"), { code: -1 });
      },
    }),
  );
  assert.equal(refused.result.isError, true);
  assert.match(refused.result.content[0].text, /user closed the dialog/);
});

test("a body that throws is an isError result; a resolver that throws rejects", async () => {
  const tool = declareTool("t", {
    params: {
      a: z.string(),
      b: elicit(z.string(), {
        needs: ["a"],
        resolve: () => {
          throw new Error("backend down");
        },
      }),
    },
    body: () => "never",
  });
  await assert.rejects(
    tool.serve(serverFor(tool).call({ id: 5, method: "tools/call", params: { name: "t", arguments: { a: "x" }, _meta: MODERN } })),
    /backend down/,
  );

  const bodyFails = declareTool("u", { params: { a: z.string() }, body: () => Promise.reject(new Error("out of stock")) });
  const r = JSON.parse(
    await bodyFails.serve(serverFor(bodyFails).call({ id: 6, method: "tools/call", params: { name: "u", arguments: { a: "x" }, _meta: MODERN } })),
  );
  assert.deepEqual(r.result.content, [{ type: "text", text: "out of stock" }]);
  assert.equal(r.result.isError, true);
});
