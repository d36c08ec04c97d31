// zod declarations: the declaration JSON and inputSchema from one shape, mistakes thrown
// at registration naming the parameter, resolvers (sync and async) driven over rounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { DeclarationError, ResolutionError, ask, declareTool, elicit } from "../dist/index.js";

const fixture = (name) =>
  JSON.parse(readFileSync(new URL(`../../tests/fixture/decl/${name}.json`, import.meta.url), "utf8"));
const accept = (value) => ({ action: "accept", content: { value } });
const AIRPORTS = { London: "LHR" };

const bookFlight = () =>
  declareTool("book_flight", {
    description: "Book a flight.",
    params: {
      destination: elicit(z.string(), { message: "Where would you like to fly?" }),
      date: elicit(z.string(), { message: "When would you like to fly?" }),
      airport: elicit(z.string(), {
        needs: ["destination"],
        resolve: ({ destination }) => AIRPORTS[destination] ?? ask(`Which airport in ${destination}?`),
      }),
      proceed: elicit(z.boolean(), {
        needs: ["destination", "date"],
        resolve: async ({ destination, date }) => ask(`Book a flight to ${destination} on ${date}?`),
      }),
      seat: elicit(z.enum(["window", "aisle"]), { message: "Window or aisle?", default: null }),
    },
  });

test("the booking tool in zod declares what the fixture declares", () => {
  const tool = bookFlight();
  assert.deepEqual(tool.declaration, fixture("book_flight"));
  assert.deepEqual(tool.inputSchema.properties, {});
  const order = declareTool("order", {
    params: {
      item: z.string(),
      quantity: elicit(z.int(), { needs: ["item"], resolve: ({ item }) => ask(`How many ${item}?`) }),
    },
  });
  assert.deepEqual(order.declaration, fixture("order"));
  // The inputSchema holds the model arguments only.
  assert.deepEqual(order.inputSchema.properties, { item: { type: "string" } });
  assert.deepEqual(order.inputSchema.required, ["item"]);
  assert.deepEqual(Object.keys(order.argumentsShape), ["item"]);
});

test("zod constraints become the MCP elicitation subset's types", () => {
  const tool = declareTool("t", {
    params: {
      email: elicit(z.email().max(80), { message: "Email?" }),
      n: elicit(z.int().min(1), { message: "How many?" }),
      x: elicit(z.number().max(2.5), { message: "x?" }),
      tags: elicit(z.array(z.enum(["a", "b"])), { message: "Tags?" }),
      where: elicit(z.object({ code: z.string(), gates: z.int().default(3) }), { message: "Where?" }),
      go: elicit(z.boolean(), { message: "Go?", outcome: true }),
    },
  });
  assert.deepEqual(
    tool.declaration.parameters.map((p) => p.type),
    [
      { type: "string", maxLength: 80, format: "email" },
      { type: "integer", minimum: 1 },
      { type: "number", maximum: 2.5 },
      { type: "array", items: { enum: ["a", "b"] } },
      { type: "object", properties: { code: "string", gates: { default: 3, type: "integer" } } },
      "boolean",
    ],
  );
  assert.equal(tool.declaration.parameters[5].outcome, true);
});

test("declaration mistakes throw at registration, naming the parameter", () => {
  const throwsNaming = (f, name, pattern) =>
    assert.throws(f, (e) => e instanceof DeclarationError && e.message.includes(name) && pattern.test(e.message));
  throwsNaming(
    () => declareTool("t", { params: { a: elicit(z.string(), { message: "A?", needs: [], resolve: () => "x" }) } }),
    '"a"',
    /both a literal question .* and a resolver/,
  );
  throwsNaming(() => declareTool("t", { params: { when: elicit(z.date(), { message: "When?" }) } }), '"when"', /cannot be asked/);
  throwsNaming(
    () => declareTool("t", { params: { a: elicit(z.string().regex(/x+/), { message: "A?" }) } }),
    '"a"',
    /pattern cannot be asked/,
  );
  throwsNaming(
    () => declareTool("t", { params: { o: elicit(z.object({ f: z.string().optional() }), { message: "O?" }) } }),
    '"o"',
    /field "f" is optional without a default/,
  );
  throwsNaming(() => declareTool("t", { params: { a: elicit(z.string(), {}) } }), '"a"', /literal question .* or a resolver/);
  throwsNaming(() => declareTool("t", { params: { a: "string" } }), '"a"', /neither a zod type/);
  // The engine's own checks, with its messages: a need naming no parameter, a cycle.
  throwsNaming(
    () => declareTool("t", { params: { a: elicit(z.string(), { needs: ["b"], resolve: () => "x" }) } }),
    "'a'",
    /'b', which is not a parameter/,
  );
  throwsNaming(
    () =>
      declareTool("t", {
        params: {
          a: elicit(z.string(), { needs: ["b"], resolve: () => "x" }),
          b: elicit(z.string(), { needs: ["a"], resolve: () => "x" }),
        },
      }),
    "a -> b -> a",
    /./,
  );
});

test("resolvers run over the rounds, sync and async, value or question", async () => {
  const tool = bookFlight();
  const r1 = tool.plan.modern();
  assert.deepEqual(await tool.drive(r1), { kind: "inputRequired" });
  const r2 = tool.plan.modern({
    requestState: r1.requestState(),
    inputResponses: { destination: accept("London"), date: accept("2026-08-01"), seat: accept("aisle") },
  });
  // The airport is known for London: only proceed is asked.
  assert.deepEqual(await tool.drive(r2), { kind: "inputRequired" });
  assert.deepEqual(Object.keys(r2.inputRequests()), ["proceed"]);
  assert.equal(r2.inputRequests().proceed.params.message, "Book a flight to London on 2026-08-01?");
  const r3 = tool.plan.modern({ requestState: r2.requestState(), inputResponses: { proceed: accept(true) } });
  assert.deepEqual(await tool.drive(r3), { kind: "done" });
  assert.deepEqual(tool.values(r3, {}), {
    destination: "London",
    date: "2026-08-01",
    airport: "LHR",
    proceed: true,
    seat: "aisle",
  });

  // Handshake: the same declaration, one question at a time.
  const h = tool.plan.handshake();
  const answers = { destination: "Oslo", date: "2026-09-09", airport: "OSL", proceed: true, seat: "window" };
  let step;
  while ((step = await tool.drive(h)).kind === "ask") h.answer(accept(answers[step.name]));
  assert.equal(step.kind, "done");
  assert.deepEqual(h.values(), answers);
});

test("a resolver that throws fails the round and the error reaches the caller", async () => {
  const tool = declareTool("t", {
    params: {
      item: z.string(),
      n: elicit(z.int(), {
        needs: ["item"],
        resolve: async () => {
          throw new Error("stock service down");
        },
      }),
    },
  });
  const r = tool.plan.modern({ arguments: { item: "tea" } });
  await assert.rejects(tool.drive(r), /stock service down/);
  assert.throws(() => r.poll(), (e) => e instanceof ResolutionError && e.code === 405);
});

test("a requestedSchema as written, literal sampling and roots requests, one round", async () => {
  const form = { type: "object", properties: { name: { type: "string", description: "Yours" } }, required: ["name"] };
  const sampling = { messages: [{ role: "user", content: { type: "text", text: "Hi?" } }], maxTokens: 20 };
  const tool = declareTool("t", {
    params: {
      who: elicit(z.record(z.string(), z.unknown()), { message: "Who?", requestedSchema: form }),
      greeting: elicit(z.record(z.string(), z.unknown()), { sampling }),
      roots: elicit(z.array(z.unknown()), { roots: {} }),
    },
  });
  assert.deepEqual(tool.declaration.parameters, [
    { name: "who", type: { schema: form }, elicit: { message: "Who?" } },
    { name: "greeting", elicit: { sampling } },
    { name: "roots", elicit: { roots: {} } },
  ]);
  const r = tool.plan.modern({ capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  assert.deepEqual(await tool.drive(r), { kind: "inputRequired" });
  const asked = r.inputRequests();
  assert.deepEqual(asked.who.params.requestedSchema, form);
  assert.equal(asked.greeting.method, "sampling/createMessage");
  assert.equal(asked.roots.method, "roots/list");
  const r2 = tool.plan.modern({
    requestState: r.requestState(),
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    inputResponses: {
      who: { action: "accept", content: { name: "Ada" } },
      greeting: { role: "assistant", content: { type: "text", text: "Hello" }, model: "m" },
      roots: { roots: [{ uri: "file:///a" }] },
    },
  });
  assert.deepEqual(await tool.drive(r2), { kind: "done" });
  const v = r2.values();
  assert.deepEqual(v.who, { name: "Ada" });
  assert.equal(v.greeting.content.text, "Hello");
  assert.deepEqual(v.roots, [{ uri: "file:///a" }]);
});

test("requestedSchema, sampling and roots mistakes name the parameter", () => {
  const throwsNaming = (f, pattern) =>
    assert.throws(f, (e) => e instanceof DeclarationError && e.message.includes('"p"') && pattern.test(e.message));
  throwsNaming(
    () => declareTool("t", { params: { p: elicit(z.unknown(), { message: "?", sampling: { messages: [], maxTokens: 1 } }) } }),
    /exactly one of message, sampling, roots or a resolver \(got message, sampling\)/,
  );
  throwsNaming(
    () => declareTool("t", { params: { p: elicit(z.unknown(), { roots: {}, requestedSchema: { type: "object" } }) } }),
    /requestedSchema belongs to a form question, not a roots one/,
  );
  throwsNaming(
    () => declareTool("t", { params: { p: elicit(z.unknown(), { message: "?", requestedSchema: "name" }) } }),
    /requestedSchema must be a JSON Schema object/,
  );
});
