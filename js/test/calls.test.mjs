// The call level: whole MCP requests in, whole JSON-RPC replies out, the envelopes
// written by the engine (docs/c-abi.md, "Every reply, exactly").
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { KeyRing, NotFoundError, Plan, Sealer, Server } from "../dist/index.js";

const fixture = (name) =>
  JSON.parse(readFileSync(new URL(`../../tests/fixture/decl/${name}.json`, import.meta.url), "utf8"));
const KEYS = "5a".repeat(32);
const MODERN = (caps = { elicitation: { form: {} } }) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": caps,
});
const accept = (value) => ({ action: "accept", content: { value } });

function server() {
  return new Server({
    entries: [{ plan: new Plan(fixture("book_flight")) }, { plan: new Plan(fixture("greet")) }],
    keys: KeyRing.fromText(KEYS),
    audience: "booking",
  });
}

/** Drive a call to its reply; `resolve` answers resolver steps, `respond` handshake requests. */
function run(call, { resolve = () => undefined, respond, body = (v) => JSON.stringify(v) } = {}) {
  for (;;) {
    const step = call.next();
    if (step.kind === "resolve") {
      const inputs = call.resolveInputs();
      const answer = resolve(step.name, inputs);
      if (typeof answer === "string") call.resolveQuestion(answer);
      else call.resolveValue(answer.value);
    } else if (step.kind === "ask") {
      call.answer({ jsonrpc: "2.0", id: 99, result: respond(step.name, call.request()) });
    } else if (step.kind === "done") {
      call.finish(body(call.values()));
    } else {
      return { reply: JSON.parse(call.reply()), code: call.replyCode() };
    }
  }
}

const resolveBooking = (name, inputs) =>
  name === "airport"
    ? inputs.destination === "London"
      ? { value: "LHR" }
      : `Which airport in ${inputs.destination}?`
    : `Book a flight to ${inputs.destination} on ${inputs.date}?`;

test("2026-07-28: InputRequiredResult with a sealed state, then the tool result", () => {
  const s = server();
  const base = { name: "book_flight", arguments: {}, _meta: MODERN() };
  let { reply, code } = run(s.call({ id: 1, method: "tools/call", params: base }), { resolve: resolveBooking });
  assert.equal(code, 0);
  assert.equal(reply.id, 1);
  assert.equal(reply.result.resultType, "input_required");
  assert.deepEqual(Object.keys(reply.result.inputRequests), ["destination", "date", "seat"]);
  assert.match(reply.result.requestState, /^v1\./);
  // The token is the Sealer's: the same key ring and audience open it.
  const plain = new Sealer(KeyRing.fromText(KEYS), "booking").unseal("tools/call", {
    ...base,
    requestState: reply.result.requestState,
  });
  assert.match(plain, /^\{"v":1,/);

  const second = {
    ...base,
    requestState: reply.result.requestState,
    inputResponses: { destination: accept("London"), date: accept("2026-08-01"), seat: accept("window") },
  };
  ({ reply } = run(s.call({ id: "b", method: "tools/call", params: JSON.stringify(second) }), { resolve: resolveBooking }));
  assert.equal(reply.id, "b");
  assert.deepEqual(Object.keys(reply.result.inputRequests), ["proceed"]);
  const third = { ...base, requestState: reply.result.requestState, inputResponses: { proceed: accept(true) } };
  ({ reply } = run(s.call({ id: 3, method: "tools/call", params: third }), {
    resolve: resolveBooking,
    body: (v) => `Booked ${v.destination} (${v.airport}) on ${v.date}, seat ${v.seat}`,
  }));
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 3,
    result: {
      content: [{ type: "text", text: "Booked London (LHR) on 2026-08-01, seat window" }],
      isError: false,
      resultType: "complete",
    },
  });
});

test("2025-11-25: one elicitation/create at a time, in declaration order", () => {
  const s = server();
  const answers = { destination: "Paris", date: "2026-08-01", airport: "CDG", proceed: true, seat: "aisle" };
  const asked = [];
  const { reply } = run(
    s.call({
      id: 7,
      method: "tools/call",
      params: { name: "book_flight", arguments: {} },
      protocolVersion: "2025-11-25",
      clientCapabilities: { elicitation: {} },
    }),
    {
      resolve: resolveBooking,
      respond: (name, request) => {
        assert.equal(request.method, "elicitation/create");
        asked.push(name);
        return accept(answers[name]);
      },
      body: (v) => `Booked ${v.destination} (${v.airport}) on ${v.date}, seat ${v.seat}`,
    },
  );
  assert.deepEqual(asked, ["destination", "date", "airport", "proceed", "seat"]);
  assert.equal(reply.result.content[0].text, "Booked Paris (CDG) on 2026-08-01, seat aisle");
  assert.equal("resultType" in reply.result, false);
});

test("refusals are replies: -32021, a forged state, a declined question", () => {
  const s = server();
  let r = run(s.call({ id: 4, method: "tools/call", params: { name: "greet", _meta: MODERN({}) } }));
  assert.equal(r.code, -32021);
  assert.deepEqual(r.reply.error.data, { requiredCapabilities: { elicitation: { form: {} } } });

  const call = s.call({
    id: 5,
    method: "tools/call",
    params: { name: "greet", requestState: "v1.forged", _meta: MODERN() },
  });
  r = run(call);
  assert.deepEqual(r.reply, {
    jsonrpc: "2.0",
    id: 5,
    error: { code: -32602, message: "Invalid or expired requestState", data: { reason: "invalid_request_state" } },
  });
  assert.notEqual(call.lastError(), "");

  const first = run(s.call({ id: 6, method: "tools/call", params: { name: "greet", _meta: MODERN() } }));
  r = run(
    s.call({
      id: 6,
      method: "tools/call",
      params: {
        name: "greet",
        requestState: first.reply.result.requestState,
        inputResponses: { name: { action: "decline" } },
        _meta: MODERN(),
      },
    }),
  );
  assert.equal(r.code, 0);
  assert.equal(r.reply.result.isError, true);
  assert.match(r.reply.result.content[0].text, /^Cannot continue without 'name': the request was declined/);
});

test("a request for a target the server does not hold is NotFoundError", () => {
  assert.throws(() => server().call({ id: 1, method: "tools/call", params: { name: "other" } }), NotFoundError);
});

test("texts reach the engine whole at any size and in any script, and each call gives its scratch memory back", async () => {
  const { abi } = await import("../dist/abi.js");
  const s = server();
  // Strings are written as UTF-8 into the module's scratch arena (64 KB); the long id
  // (past it) takes its own block. Two- to four-byte characters, and a lone surrogate
  // (JSON.stringify escapes it: the reply gives it back).
  for (const id of ["é—🙂 ünïcödé", "x".repeat(100_000) + "🙂", "a\uD800b", ""]) {
    const question = `Fly to ${id.slice(0, 40)}?`;
    const { reply } = run(
      s.call({ id, method: "tools/call", params: { name: "book_flight", arguments: {}, _meta: MODERN() } }),
      { resolve: () => question },
    );
    assert.equal(reply.id, id);
    assert.deepEqual(Object.keys(reply.result.inputRequests), ["destination", "date", "seat"]);
    // Between calls the whole arena is free.
    assert.equal(abi().arenaTop, abi().arenaStart);
  }
});
