// The engine's path alone: book_flight's three rounds (2026-07-28, sealed requestState)
// through elicit-mcp's call level (Server.call, the WebAssembly module), no MCP SDK and
// no HTTP, in one process; prints the process's CPU time per round. PERF.md,
// "TypeScript server load", has the figures. Needs js/ built (scripts/test-js.sh or
// scripts/dev-ts-server.sh builds it).
//
//   node js/scripts/bench-engine.mjs [CALLS]     (default 3000, after 500 to warm up)
import { readFileSync } from "node:fs";
import { KeyRing, Plan, Server } from "../dist/index.js";

const calls = Number(process.argv[2] ?? 3000);
if (!Number.isInteger(calls) || calls < 1) {
  console.error("bench-engine: CALLS must be a positive integer");
  process.exit(2);
}
const declaration = JSON.parse(
  readFileSync(new URL("../../tests/fixture/decl/book_flight.json", import.meta.url), "utf8"),
);
const server = new Server({
  entries: [{ plan: new Plan(declaration) }],
  keys: KeyRing.fromText("5a".repeat(32)),
  audience: "booking",
});
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};
const accept = (value) => ({ action: "accept", content: { value } });

/** One round: the call driven to its reply, as the adapter drives it. */
function round(id, params) {
  const call = server.call({ id, method: "tools/call", params: JSON.stringify(params) });
  try {
    for (;;) {
      const step = call.next();
      if (step.kind === "resolve") {
        const inputs = call.resolveInputs();
        if (step.name === "airport") call.resolveValue("LHR");
        else call.resolveQuestion(`Book a flight to ${inputs.destination} on ${inputs.date}?`);
      } else if (step.kind === "done") {
        const v = call.values();
        call.finish(`Booked ${v.destination} (${v.airport}) on ${v.date}, seat ${v.seat}`);
      } else if (step.kind === "reply") {
        return JSON.parse(call.reply());
      } else {
        throw new Error(`bench-engine: unexpected step ${step.kind}`);
      }
    }
  } finally {
    call.free();
  }
}

function booking(id) {
  const base = { name: "book_flight", arguments: {}, _meta: meta };
  let r = round(id, base);
  const answers = { destination: accept("London"), date: accept("2026-08-01"), seat: accept("window") };
  r = round(id, { ...base, requestState: r.result.requestState, inputResponses: answers });
  r = round(id, { ...base, requestState: r.result.requestState, inputResponses: { proceed: accept(true) } });
  if (r.result?.content?.[0]?.text !== "Booked London (LHR) on 2026-08-01, seat window") {
    throw new Error(`bench-engine: wrong result ${JSON.stringify(r)}`);
  }
}

for (let i = 0; i < 500; i++) booking(i);
const start = process.cpuUsage();
for (let i = 0; i < calls; i++) booking(i);
const used = process.cpuUsage(start);
const us = (used.user + used.system) / (calls * 3);
console.log(`bench-engine: ${calls} calls, ${calls * 3} rounds: ${us.toFixed(1)} us CPU a round`);
