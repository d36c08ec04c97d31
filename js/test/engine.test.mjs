// Plan and Round over the WebAssembly C ABI: the booking tool in both eras, every input
// kind, unicode titles, and the errors each surface gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  ClosedError,
  DeclarationError,
  InputResponsesError,
  MissingCapabilityError,
  Plan,
  ResolutionError,
  WrongStepError,
} from "../dist/index.js";

const fixture = (name) =>
  JSON.parse(readFileSync(new URL(`../../tests/fixture/decl/${name}.json`, import.meta.url), "utf8"));
const accept = (value) => ({ action: "accept", content: { value } });
const FORM = { elicitation: { form: {} } };

test("the booking tool over 2026-07-28 rounds: batches, a resolver, the carried state", () => {
  const plan = new Plan(fixture("book_flight"));
  assert.equal(plan.toolName, "book_flight");
  assert.deepEqual(
    plan.params.map((p) => [p.name, p.elicited, p.hasResolver, p.kind]),
    [
      ["destination", true, false, "form"],
      ["date", true, false, "form"],
      ["airport", true, true, "form"],
      ["proceed", true, true, "form"],
      ["seat", true, false, "form"],
    ],
  );

  const r1 = plan.modern({ capabilities: FORM });
  assert.deepEqual(r1.poll(), { kind: "inputRequired" });
  // Declaration order on the wire; airport and proceed wait for what they need.
  assert.deepEqual(Object.keys(r1.inputRequests()), ["destination", "date", "seat"]);
  assert.equal(r1.inputRequests().seat.params.requestedSchema.properties.value.enum.join(), "window,aisle");
  const state1 = r1.requestState();
  r1.free();

  const r2 = plan.modern({
    capabilities: FORM,
    requestState: state1,
    inputResponses: { destination: accept("Paris"), date: accept("2026-08-01"), seat: accept("window") },
  });
  let step = r2.poll();
  assert.deepEqual(step, { kind: "resolve", param: 2, name: "airport" });
  assert.deepEqual(r2.resolveInputs(), { destination: "Paris" });
  r2.resolveQuestion("Which airport in Paris?", { title: "Airport" });
  step = r2.poll();
  assert.deepEqual(step, { kind: "resolve", param: 3, name: "proceed" });
  r2.resolveQuestion("Book a flight to Paris on 2026-08-01?");
  assert.deepEqual(r2.poll(), { kind: "inputRequired" });
  const asked = r2.inputRequests();
  assert.deepEqual(Object.keys(asked), ["airport", "proceed"]);
  assert.equal(asked.airport.params.message, "Which airport in Paris?");
  assert.equal(asked.proceed.params.requestedSchema.properties.value.type, "boolean");
  const state2 = r2.requestState();

  const r3 = plan.modern({
    capabilities: FORM,
    requestState: state2,
    inputResponses: { airport: accept("CDG"), proceed: accept(true) },
  });
  assert.equal(r3.poll().name, "airport");
  r3.resolveQuestion("Which airport in Paris?", { title: "Airport" });
  assert.equal(r3.poll().name, "proceed");
  r3.resolveQuestion("Book a flight to Paris on 2026-08-01?");
  assert.deepEqual(r3.poll(), { kind: "done" });
  assert.deepEqual(r3.values(), {
    destination: "Paris",
    date: "2026-08-01",
    airport: "CDG",
    proceed: true,
    seat: "window",
  });
  assert.equal(r3.valueOf("airport"), "CDG");
  assert.equal(r3.valueOf(4), "window");
  plan.free();
});

test("the handshake era asks one question at a time", () => {
  const plan = new Plan(fixture("order"));
  const r = plan.handshake({ arguments: { item: "tea" }, capabilities: FORM });
  assert.deepEqual(r.poll(), { kind: "resolve", param: 1, name: "quantity" });
  assert.deepEqual(r.resolveInputs(), { item: "tea" });
  r.resolveQuestion("How many tea?");
  assert.deepEqual(r.poll(), { kind: "ask", param: 1, name: "quantity" });
  const request = r.ask();
  assert.equal(request.mode, "form");
  assert.equal(request.message, "How many tea?");
  assert.equal(request.requestedSchema.properties.value.type, "integer");
  r.answer(accept(3));
  assert.deepEqual(r.poll(), { kind: "done" });
  assert.deepEqual(r.values(), { quantity: 3 });
});

test("a resolver's value asks nothing", () => {
  const plan = new Plan(fixture("order"));
  const r = plan.modern({ arguments: { item: "tea" } });
  r.poll();
  r.resolveValue(2);
  assert.deepEqual(r.poll(), { kind: "done" });
  assert.deepEqual(r.values(), { quantity: 2 });
});

test("every input kind: URL, sampling and roots, gated on the client's capabilities", () => {
  const plan = new Plan({
    tool: "kinds",
    parameters: [
      { name: "paid", elicit: { message: "Pay the fare", url: "https://pay.example/fare" } },
      { name: "summary", elicit: { sampling: { messages: [{ role: "user", content: { type: "text", text: "Sum up" } }], maxTokens: 50 } } },
      { name: "roots", elicit: { roots: {} } },
    ],
  });
  assert.deepEqual(plan.params.map((p) => p.kind), ["url", "sampling", "roots"]);

  const missing = plan.modern({ capabilities: FORM });
  assert.throws(
    () => missing.poll(),
    (e) => {
      assert.ok(e instanceof MissingCapabilityError);
      assert.equal(e.code, 304);
      assert.equal(e.jsonrpcError.code, -32021);
      assert.ok("requiredCapabilities" in e.jsonrpcError.data);
      assert.ok(Object.keys(e.requiredCapabilities).length > 0, JSON.stringify(e.requiredCapabilities));
      return true;
    },
  );

  const caps = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
  const r = plan.modern({ capabilities: caps });
  assert.deepEqual(r.poll(), { kind: "inputRequired" });
  const requests = r.inputRequests();
  assert.deepEqual(
    Object.values(requests).map((q) => q.method),
    ["elicitation/create", "sampling/createMessage", "roots/list"],
  );
  assert.equal(requests.paid.params.mode, "url");
  const done = plan.modern({
    capabilities: caps,
    requestState: r.requestState(),
    inputResponses: {
      paid: { action: "accept" },
      summary: { role: "assistant", content: { type: "text", text: "Short." }, model: "m" },
      roots: { roots: [{ uri: "file:///work" }] },
    },
  });
  assert.deepEqual(done.poll(), { kind: "done" });
  const values = done.values();
  assert.equal(values.paid, true);
  assert.equal(values.summary.content.text, "Short.");
  assert.deepEqual(values.roots, [{ uri: "file:///work" }]);
});

test("unicode field titles follow Python's str.title(), as the other servers render them", () => {
  const plan = new Plan({
    tool: "t",
    parameters: [
      {
        name: "where",
        type: { type: "object", properties: { "σοφία_ζωή": "string", "straße_número": "string", "élan": "integer" } },
        elicit: { message: "Où ?" },
      },
    ],
  });
  const r = plan.modern();
  r.poll();
  const props = r.inputRequests().where.params.requestedSchema.properties;
  assert.deepEqual(
    Object.values(props).map((p) => p.title),
    ["Σοφία Ζωή", "Straße Número", "Élan"],
  );
  assert.equal(r.inputRequests().where.params.message, "Où ?");
});

test("errors are Error subclasses with the ABI's code, name and text", () => {
  assert.throws(
    () => new Plan({ tool: "t", parameters: [{ name: "a", elicit: { needs: ["b"] } }] }),
    (e) =>
      e instanceof DeclarationError &&
      e instanceof Error &&
      e.code === 203 &&
      e.codeName === "ELICIT_ERR_UNKNOWN_NEED" &&
      e.message.includes("'a'") &&
      e.message.includes("'b'"),
  );
  assert.throws(() => new Plan("{not json"), (e) => e instanceof DeclarationError && e.code === 200);
  const plan = new Plan(fixture("greet"));
  assert.throws(
    () => plan.modern({ inputResponses: [1] }).poll(),
    (e) => e instanceof InputResponsesError && e.code === 302 && e.jsonrpcError.code === -32602,
  );
  const r = plan.modern();
  assert.throws(() => r.values(), (e) => e instanceof WrongStepError && e.code === 103);
  assert.deepEqual(r.poll(), { kind: "inputRequired" });
  const declined = plan.modern({ requestState: r.requestState(), inputResponses: { name: { action: "decline" } } });
  assert.throws(
    () => declined.poll(),
    (e) => e instanceof ResolutionError && e.code === 403 && e.jsonrpcError.code === -32602,
  );
  r.free();
  r.free();
  assert.throws(() => r.poll(), ClosedError);
  plan.free();
  assert.throws(() => plan.modern(), ClosedError);
});
