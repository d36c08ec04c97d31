// The declared fallback (docs/fallback.md) through the McpServer adapter, both eras, over
// an in-memory pair with raw JSON-RPC: declareTool(..., { fallback: "arguments" }) lists a
// client that declares no elicitation the elicited parameters as optional arguments, takes
// its arguments as the answers and tells the model, in an isError result, what to ask the
// user; elicit(..., { fallback: false }) keeps -32021; a form client sees no change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/server";
import { Elicitation, KeyRing, ask, declareTool, elicit } from "../dist/index.js";
import { connect as connectTo } from "./wire.mjs";

const MODERN = "2026-07-28";
const ASK_USER = "elicit/askUser";
const FORM = { elicitation: { form: {} } };

function declarations(fallback) {
  const opt = fallback ? { fallback } : {};
  const bookFlight = declareTool("book_flight", {
    ...opt,
    params: {
      destination: elicit(z.string(), { message: "Where would you like to fly?" }),
      date: elicit(z.string(), { message: "When would you like to fly?" }),
      airport: elicit(z.string(), {
        needs: ["destination"],
        resolve: ({ destination }) => (destination === "London" ? "LHR" : ask(`Which airport in ${destination}?`)),
      }),
      proceed: elicit(z.boolean(), {
        needs: ["destination", "date"],
        resolve: ({ destination, date }) => ask(`Book a flight to ${destination} on ${date}?`),
      }),
      seat: elicit(z.enum(["window", "aisle"]), { message: "Window or aisle?", default: null }),
    },
    body: (v) => `Booked ${v.destination} (${v.airport}) on ${v.date}, seat ${v.seat ?? "no preference"}`,
  });
  const pay = declareTool("pay", {
    ...opt,
    params: {
      amount: elicit(z.int(), { message: "How much?" }),
      pin: elicit(z.string(), { message: "Your PIN?", fallback: false }),
    },
    body: ({ amount }) => `Paid ${amount}`,
  });
  return new Elicitation({ keys: KeyRing.fromText("c3".repeat(32)), audience: "shop" })
    .tool(bookFlight, { description: "Book a flight." })
    .tool(pay, { description: "Pay." });
}

/** A client of a fresh McpServer declaring `capabilities`, in `era`. */
async function connect(elicitation, era, capabilities) {
  const c = await connectTo(() => elicitation.attach(new McpServer({ name: "shop", version: "1.0.0" })));
  const request = async (method, params, answer) => {
    const sent = era === MODERN
      ? { ...params, _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "0" },
        } }
      : params;
    return (await c.request(method, sent, answer)).reply;
  };
  if (era !== MODERN) {
    const init = await request("initialize", { protocolVersion: era, capabilities, clientInfo: { name: "t", version: "0" } });
    assert.equal(init.result.protocolVersion, era);
    await c.send({ method: "notifications/initialized" });
  }
  return {
    request,
    listing: async () => (await request("tools/list", {})).result,
    call: (name, args, answer) => request("tools/call", { name, arguments: args }, answer),
    close: c.close,
  };
}

const schemaOf = (listing, name) => listing.tools.find((t) => t.name === name).inputSchema;
const text = (reply) => reply.result.content[0].text;
/** The fallback result's questions: [name, question, required], in order. */
function asked(reply) {
  assert.equal(reply.result.isError, true, JSON.stringify(reply));
  assert.equal(reply.result.structuredContent, undefined);
  return reply.result._meta[ASK_USER].map((q) => [q.name, q.question, q.required]);
}

for (const era of [MODERN, "2025-11-25"]) {
  test(`${era}: the listing shows the parameters that fall back as optional arguments`, async () => {
    const c = await connect(declarations("arguments"), era, {});
    const listing = await c.listing();
    const book = schemaOf(listing, "book_flight");
    assert.deepEqual(Object.keys(book.properties), ["destination", "date", "airport", "proceed", "seat"]);
    assert.deepEqual(book.required ?? [], []);
    assert.equal(book.properties.airport.description, "A question for the user that depends on destination.");
    assert.deepEqual(book.properties.seat.enum, ["window", "aisle"]);
    // An opted-out parameter is never an argument.
    assert.deepEqual(Object.keys(schemaOf(listing, "pay").properties), ["amount"]);
    assert.equal(listing.cacheScope, era === MODERN ? "private" : undefined);
    await c.close();
    // A form client, and any client of a server without the option, is listed as before.
    const form = await connect(declarations("arguments"), era, FORM);
    const plain = await connect(declarations(undefined), era, {});
    assert.deepEqual((await form.listing()).tools, (await plain.listing()).tools);
    assert.deepEqual(schemaOf(await form.listing(), "book_flight").properties, {});
    await form.close();
    await plain.close();
  });

  test(`${era}: a client that cannot be asked books through the model`, async () => {
    const c = await connect(declarations("arguments"), era, {});
    const first = await c.call("book_flight", {});
    assert.deepEqual(asked(first), [
      ["destination", "Where would you like to fly?", true],
      ["date", "When would you like to fly?", true],
      ["seat", "Window or aisle?", false],
    ]);
    assert.match(text(first), /call book_flight again/);
    const second = await c.call("book_flight", { destination: "Paris", date: "2026-08-01" });
    assert.deepEqual(asked(second), [
      ["airport", "Which airport in Paris?", true],
      ["proceed", "Book a flight to Paris on 2026-08-01?", true],
      ["seat", "Window or aisle?", false],
    ]);
    const third = await c.call("book_flight", { destination: "Paris", date: "2026-08-01", airport: "CDG", proceed: true, seat: "window" });
    assert.equal(third.result.isError, false, JSON.stringify(third));
    assert.equal(text(third), "Booked Paris (CDG) on 2026-08-01, seat window");
    // London's airport is the resolver's, whatever the argument says.
    const london = await c.call("book_flight", { destination: "London", date: "2026-08-01", airport: "ORY", proceed: true });
    assert.equal(text(london), "Booked London (LHR) on 2026-08-01, seat no preference");
    await c.close();
  });

  test(`${era}: a wrong argument is the answer's error naming the parameter`, async () => {
    const c = await connect(declarations("arguments"), era, {});
    const wrongType = await c.call("book_flight", { destination: 5 });
    assert.equal(wrongType.result.isError, true);
    assert.equal(text(wrongType), "The answer for 'destination' does not match the requested schema");
    const outOfEnum = await c.call("book_flight", { destination: "Paris", date: "x", seat: "middle" });
    assert.equal(outOfEnum.result.isError, true);
    assert.equal(text(outOfEnum), "The answer for 'seat' does not match the requested schema");
    await c.close();
  });

  test(`${era}: an opted-out parameter and a tool without the option keep -32021`, async () => {
    const c = await connect(declarations("arguments"), era, {});
    for (const args of [{}, { amount: 5 }]) {
      const refused = await c.call("pay", args);
      assert.equal(refused.error?.code, -32021, JSON.stringify(refused));
      assert.deepEqual(refused.error.data, { requiredCapabilities: { elicitation: { form: {} } } });
    }
    await c.close();
    const plain = await connect(declarations(undefined), era, {});
    assert.equal((await plain.call("book_flight", {})).error?.code, -32021);
    await plain.close();
  });

  test(`${era}: a form client is asked as before`, async () => {
    const answers = {
      "Where would you like to fly?": "Paris",
      "When would you like to fly?": "2026-08-01",
      "Which airport in Paris?": "CDG",
      "Book a flight to Paris on 2026-08-01?": true,
      "Window or aisle?": "window",
    };
    const c = await connect(declarations("arguments"), era, FORM);
    const first = await c.call("book_flight", {}, (m) => ({ action: "accept", content: { value: answers[m.params.message] } }));
    if (era === MODERN) {
      assert.equal(first.result.resultType, "input_required");
      assert.deepEqual(Object.keys(first.result.inputRequests), ["destination", "date", "seat"]);
    } else {
      assert.equal(text(first), "Booked Paris (CDG) on 2026-08-01, seat window");
    }
    await c.close();
  });
}

test("declareTool carries the options into the declaration; the listing for one client", () => {
  const pay = declareTool("pay", {
    fallback: "arguments",
    params: { amount: elicit(z.int(), { message: "How much?" }), pin: elicit(z.string(), { message: "Your PIN?", fallback: false }) },
  });
  assert.equal(pay.declaration.fallback, "arguments");
  assert.equal(pay.declaration.parameters[1].elicit.fallback, false);
  const { inputSchema, cachePrivate } = pay.listedSchema({});
  assert.equal(cachePrivate, true);
  assert.deepEqual(inputSchema.properties.amount, { description: "How much?", title: "Amount", type: "integer" });
  assert.deepEqual(pay.listedSchema(FORM), { inputSchema: pay.inputSchema, cachePrivate: true });
  assert.throws(() => declareTool("t", { fallback: "model", params: { x: elicit(z.string(), { message: "?" }) } }), /fallback/);
});

test("the round API ends at the fallback step with the result for the model", async () => {
  const tip = declareTool("tip", { fallback: "arguments", params: { amount: elicit(z.int(), { message: "How much?" }) } });
  for (const era of ["modern", "handshake"]) {
    const round = tip.plan[era]({ capabilities: {} });
    assert.deepEqual(await tip.drive(round), { kind: "fallback" });
    const result = round.fallbackResult();
    assert.equal(result.isError, true);
    assert.deepEqual(result._meta[ASK_USER].map((q) => q.name), ["amount"]);
    round.free();
    const answered = tip.plan[era]({ arguments: { amount: 2 }, capabilities: {} });
    assert.deepEqual(await tip.drive(answered), { kind: "done" });
    assert.deepEqual(answered.values(), { amount: 2 });
    answered.free();
  }
});
