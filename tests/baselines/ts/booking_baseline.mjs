// The TypeScript baseline of `SERVER=ts-baseline scripts/bench-load.sh`: book_flight on the
// MCP TypeScript SDK's McpServer (@modelcontextprotocol/server 2.4) with its questions
// written by hand on the SDK's own `inputRequired()` builder and `requestState` under the
// SDK's HMAC codec (createRequestStateCodec, 600 s, verified by the seam before the
// handler) — no elicit. The same three rounds as servers/ts's tool and the Rust baseline
// (tests/baselines/rmcp): destination, date and seat; then the airport unless London, and
// the confirmation; then the booking. Served as servers/ts serves 2026-07-28 traffic
// (createMcpHandler behind servers/ts/http_front.mjs, with the same era check per request). What it leaves out against elicit: declared
// parameters, the handshake era, capability checks, resolvers, AES-GCM sealing shared
// with other servers, declaration order on the wire.
//
//   node tests/baselines/ts/booking_baseline.mjs --http 127.0.0.1:0   # (scripts/bench-load.sh links its modules)
//
// One process: the state key is random per process.
import { McpServer, createMcpHandler, createRequestStateCodec, inputRequired, isLegacyRequest } from "@modelcontextprotocol/server";
import { listen } from "../../../servers/ts/http_front.mjs";

const codec = createRequestStateCodec({ key: globalThis.crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: 600 });
const schema = (value) => ({ type: "object", properties: { value: { title: "Value", ...value } }, required: ["value"] });
const TEXT = schema({ type: "string" });
const BOOLEAN = schema({ type: "boolean" });
const SEAT = schema({ type: "string", enum: ["window", "aisle"] });
const FIRST = [
  ["destination", "Where would you like to fly?", TEXT],
  ["date", "When would you like to fly?", TEXT],
  ["seat", "Window or aisle?", SEAT],
];
const ask = (message, requestedSchema) => ({ method: "elicitation/create", params: { mode: "form", message, requestedSchema } });
const text = (t) => ({ content: [{ type: "text", text: t }], structuredContent: { result: t }, isError: false });

/** One round of book_flight: the answers so far from the verified state, this round's from inputResponses. */
async function book(ctx) {
  const answers = { ...(ctx.mcpReq.requestState() ?? {}) };
  for (const [name, response] of Object.entries(ctx.mcpReq.inputResponses ?? {})) {
    if (response?.action !== "accept") return text(`Booking cancelled: no ${name} given`);
    const value = response.content?.value;
    const ok = name === "proceed" ? typeof value === "boolean" : name === "seat" ? value === "window" || value === "aisle" : typeof value === "string";
    if (!ok) return text(`Invalid answer for ${name}`);
    answers[name] = value;
  }
  const questions = {};
  for (const [name, message, s] of FIRST) if (!(name in answers)) questions[name] = ask(message, s);
  if (Object.keys(questions).length === 0) {
    const { destination, date } = answers;
    if (destination === "London") answers.airport ??= "LHR";
    if (!("airport" in answers)) questions.airport = ask(`Which airport in ${destination}?`, TEXT);
    if (!("proceed" in answers)) questions.proceed = ask(`Book a flight to ${destination} on ${date}?`, BOOLEAN);
    if (Object.keys(questions).length === 0) {
      if (answers.proceed !== true) return text("Booking cancelled");
      return text(`Booked ${destination} (${answers.airport}) on ${date}, seat ${answers.seat}`);
    }
  }
  return inputRequired({ inputRequests: questions, requestState: await codec.mint(answers) });
}

function factory() {
  const mcp = new McpServer({ name: "booking-baseline", version: "1.0.0" }, { requestState: { verify: codec.verify } });
  mcp.registerTool("book_flight", { description: "Book a flight" }, async (ctx) => book(ctx));
  return mcp;
}

const addr = process.argv[2] === "--http" ? /^127\.0\.0\.1:(\d+)$/.exec(process.argv[3] ?? "") : null;
if (!addr) {
  process.stderr.write("usage: booking_baseline.mjs --http 127.0.0.1:PORT\n");
  process.exit(2);
}
const modern = createMcpHandler(factory, { legacy: "reject" });
const log = (line) => process.stderr.write(`booking-baseline: ${line}\n`);
// servers/ts's HTTP front (Host and Origin checks, whole JSON replies), and its era check;
// 2025-11-25 is not served here.
await listen(
  async (request) =>
    (await isLegacyRequest(request.clone()))
      ? new Response("2025-11-25 is not served by the baseline", { status: 400 })
      : modern.fetch(request),
  { host: "127.0.0.1", port: Number(addr[1]) },
  log,
);
