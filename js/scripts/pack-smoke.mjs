// pack-smoke.mjs: run from a fresh project where the packed elicit-mcp tarball is
// installed (scripts/test-js.sh copies it there): imports the package as a user does and
// runs a declared tool's rounds, sealed between rounds, through the public API only.
import assert from "node:assert/strict";
import { z } from "zod";
import { KeyRing, Sealer, ask, declareTool, elicit } from "elicit-mcp";

const tool = declareTool("order", {
  params: {
    item: z.string(),
    quantity: elicit(z.int().min(1), { needs: ["item"], resolve: ({ item }) => ask(`How many ${item}?`) }),
  },
});
const sealer = new Sealer(KeyRing.fromText("ab".repeat(32)), "smoke");
const call = { name: "order", arguments: { item: "tea" } };

const first = tool.plan.modern({ arguments: call.arguments });
assert.equal((await tool.drive(first)).kind, "inputRequired");
const token = sealer.seal("tools/call", call, first.requestState());

const params = { ...call, requestState: token, inputResponses: { quantity: { action: "accept", content: { value: 3 } } } };
const second = tool.plan.modern({
  arguments: call.arguments,
  requestState: sealer.unseal("tools/call", params),
  inputResponses: params.inputResponses,
});
assert.equal((await tool.drive(second)).kind, "done");
const values = tool.values(second, call.arguments);
console.log(`Ordered ${values.quantity} x ${values.item}`);
