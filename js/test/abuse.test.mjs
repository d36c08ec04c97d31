// Bad input gets a clear error and loses nothing: malformed arguments, answers, states
// and declarations, deep nesting, large texts and lone surrogates give ElicitError
// subclasses or JSON-RPC replies, never a trap; the instance goes on serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { abi } from "../dist/abi.js";
import { CallInputError, DeclarationError, ElicitError, KeyRing, Plan, Server } from "../dist/index.js";

const DECL = { tool: "t", parameters: [{ name: "a" }, { name: "x", elicit: { message: "X?" } }] };
const MODERN = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
const deep = (n) => "[".repeat(n) + "]".repeat(n);

test("round inputs: wrong shapes, deep nesting, large and odd texts are errors", () => {
  const before = abi();
  const plan = new Plan(DECL);
  const cases = [
    [() => plan.modern({ arguments: [1, 2] }).poll(), "ELICIT_ERR_ARGUMENTS"],
    [() => plan.modern({ arguments: { a: "1" }, inputResponses: { x: JSON.parse(deep(500)) } }).poll(), "ELICIT_ERR_INPUT_RESPONSES"],
    [() => plan.modern({ arguments: { a: "1" }, inputResponses: { x: { action: "accept", content: { value: 5 } } } }).poll(), "ELICIT_ERR_SCHEMA_MISMATCH"],
    [() => new Plan({ tool: "t", parameters: [{ name: "a".repeat(100) }] }), "ELICIT_ERR_DECLARATION"],
    [() => new Plan({ tool: "t", parameters: [{ name: "x", type: JSON.parse(deep(300)), elicit: { message: "?" } }] }), "ELICIT_ERR_DECLARATION_JSON"],
  ];
  for (const [f, codeName] of cases) {
    assert.throws(f, (e) => e instanceof ElicitError && e.codeName === codeName && e.message.length > 0, codeName);
  }
  assert.throws(() => plan.modern({ arguments: [1] }).poll(), CallInputError);
  assert.throws(() => new Plan({ tool: "t", parameters: [{ name: "a".repeat(100) }] }), DeclarationError);
  // An unreadable plaintext state is no progress (the reference's rule): asked again.
  const state = "{" + '"v":1,'.repeat(100000);
  assert.deepEqual(plan.modern({ arguments: { a: "1" }, requestState: state }).poll(), { kind: "inputRequired" });
  // A lone surrogate: JSON.stringify writes the escape \ud800, which the engine carries.
  const r = plan.modern({ arguments: { a: "\ud800" } });
  assert.deepEqual(r.poll(), { kind: "inputRequired" });
  // A 4 MiB argument is carried, not refused.
  assert.deepEqual(plan.modern({ arguments: { a: "z".repeat(4 << 20) } }).poll(), { kind: "inputRequired" });
  assert.equal(abi(), before, "no trap: the same instance serves on");
});

test("call level: garbage params and forged states are JSON-RPC replies", () => {
  const server = new Server({ entries: [{ plan: new Plan(DECL) }], keys: KeyRing.fromText("11".repeat(32)), audience: null });
  const cases = [
    ["{not json", -32602],
    [deep(2000), -32602],
    [JSON.stringify({ name: "t", arguments: "nope", _meta: MODERN }), -32602],
    [JSON.stringify({ name: "t", arguments: { a: 1 }, requestState: "v1." + "A".repeat(100000), _meta: MODERN }), -32602],
    [JSON.stringify({ name: "t", arguments: { a: 1 }, inputResponses: "x", _meta: MODERN }), -32602],
  ];
  for (const [params, code] of cases) {
    const call = server.call({ id: 1, method: "tools/call", params });
    // A refused request goes straight to its reply.
    assert.deepEqual(call.next(), { kind: "reply" });
    assert.equal(call.replyCode(), code);
    const reply = JSON.parse(call.reply());
    assert.equal(reply.error.code, code);
    assert.ok(reply.error.message.length > 0);
  }
});
