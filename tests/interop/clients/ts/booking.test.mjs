// book_flight through the TypeScript SDK clients, run by scripts/test-mcp-clients.sh with
// `node --test` (plain ES modules: no TypeScript build step; the SDKs ship their own types):
//
// - @modelcontextprotocol/client 2.4.0: both eras. versionNegotiation "auto" must settle on
//   2026-07-28 (InputRequiredResult rounds, answered through the `elicitation/create`
//   handler, then the retry); "legacy" runs the initialize handshake (2025-11-25) and the
//   server sends `elicitation/create` requests;
// - @modelcontextprotocol/sdk 1.32.2: the handshake era only. It knows no 2026-07-28
//   (its newest version is 2025-11-25, it has no `server/discover` and no InputRequiredResult
//   driver), so that combination is skipped with this reason.
//
// Over stdio (the JSON array $ELICIT_INTEROP_CMD plus --stdio, a process per client) and streamable HTTP
// ($ELICIT_INTEROP_URL, started by the runner). The order in which the client hands the
// questions to the user is asserted (examples/fixture/decl/book_flight.json declares
// destination, date, airport, proceed, seat).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client as Client2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const MODERN = "2026-07-28";
const HANDSHAKE = "2025-11-25";
const TEST_TIMEOUT_MS = 60_000;

const CMD = JSON.parse(process.env.ELICIT_INTEROP_CMD || "[]");
const URL_ = process.env.ELICIT_INTEROP_URL ?? "";
assert.ok(CMD.length > 0, "ELICIT_INTEROP_CMD is not set; run scripts/test-mcp-clients.sh");
assert.match(URL_, /^http:\/\/127\.0\.0\.1:\d+\//, "ELICIT_INTEROP_URL is not a loopback URL");

const DECLINE = Symbol("decline");
const CANCEL = Symbol("cancel");
const PARIS = {
  "Where would you like to fly?": "Paris",
  "When would you like to fly?": "2026-08-01",
  "Which airport in Paris?": "CDG",
  "Book a flight to Paris on 2026-08-01?": true,
  "Window or aisle?": "window",
};
const PARIS_BOOKED = "Booked Paris (CDG) on 2026-08-01, seat window";

// The order the user must read the questions in, per era: on 2026-07-28 the first round
// carries destination, date, seat (declaration order), the second airport, proceed; on the
// handshake era one question at a time in resolution order.
const ORDER = {
  auto: [
    "Where would you like to fly?",
    "When would you like to fly?",
    "Window or aisle?",
    "Which airport in Paris?",
    "Book a flight to Paris on 2026-08-01?",
  ],
  legacy: [
    "Where would you like to fly?",
    "When would you like to fly?",
    "Which airport in Paris?",
    "Book a flight to Paris on 2026-08-01?",
    "Window or aisle?",
  ],
};

/** Answers by question text; records the questions in the order the client hands them over. */
function user(answers) {
  const asked = [];
  const handler = async (request) => {
    const message = request.params.message;
    asked.push(message);
    const answer = message in answers ? answers[message] : DECLINE;
    if (answer === DECLINE) return { action: "decline" };
    if (answer === CANCEL) return { action: "cancel" };
    return { action: "accept", content: { value: answer } };
  };
  return { asked, handler };
}

function stdioParams() {
  return { command: CMD[0], args: [...CMD.slice(1), "--stdio"], env: { ...process.env }, stderr: "ignore" };
}

const CLIENTS = {
  "@modelcontextprotocol/client 2.4.0": {
    skip: {},
    async connect(transport, mode, handler) {
      const client = new Client2(
        { name: "elicit-interop", version: "1.0.0" },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
      );
      client.setRequestHandler("elicitation/create", handler);
      const t = transport === "stdio" ? new Stdio2(stdioParams()) : new Http2(new URL(URL_));
      await client.connect(t);
      assert.equal(client.getNegotiatedProtocolVersion(), mode === "auto" ? MODERN : HANDSHAKE);
      return client;
    },
  },
  "@modelcontextprotocol/sdk 1.32.2": {
    skip: {
      auto: "@modelcontextprotocol/sdk 1.32.2 cannot speak 2026-07-28: its newest protocol version is 2025-11-25; it has no server/discover and no InputRequiredResult rounds",
    },
    async connect(transport, mode, handler) {
      assert.equal(mode, "legacy");
      const client = new Client1({ name: "elicit-interop", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, handler);
      const t = transport === "stdio" ? new Stdio1(stdioParams()) : new Http1(new URL(URL_));
      await client.connect(t);
      return client;
    },
  },
};

/** One book_flight call; returns [result, asked]. The client (and a stdio server) is closed after. */
async function book(kit, transport, mode, answers) {
  const { asked, handler } = user(answers);
  const client = await kit.connect(transport, mode, handler);
  try {
    const result = await client.callTool({ name: "book_flight", arguments: {} });
    return [result, asked];
  } finally {
    await client.close();
  }
}

function text(result) {
  assert.equal(result.content.length, 1);
  return result.content[0].text;
}

/** The same questions first (so a wrong order is reported as such), then their order. */
function assertOrder(asked, expected) {
  assert.deepEqual([...asked].sort(), [...expected].sort(), "the questions asked");
  assert.deepEqual(asked, expected, "the order in which the questions reached the user");
}

for (const [name, kit] of Object.entries(CLIENTS)) {
  for (const mode of ["auto", "legacy"]) {
    for (const transport of ["stdio", "http"]) {
      const skip = kit.skip[mode] ?? false;
      describe(`${name} ${mode === "auto" ? MODERN : HANDSHAKE} ${transport}`, { skip }, () => {
        const opts = { timeout: TEST_TIMEOUT_MS };

        test("questions reach the user in declaration order", opts, async () => {
          const [r, asked] = await book(kit, transport, mode, PARIS);
          assert.equal(r.isError ?? false, false);
          assert.equal(text(r), PARIS_BOOKED);
          assert.deepEqual(r.structuredContent, { result: PARIS_BOOKED });
          assertOrder(asked, ORDER[mode]);
        });

        test("London skips the airport question", opts, async () => {
          const [r, asked] = await book(kit, transport, mode, {
            "Where would you like to fly?": "London",
            "When would you like to fly?": "2026-09-09",
            "Book a flight to London on 2026-09-09?": true,
            "Window or aisle?": "aisle",
          });
          assert.equal(text(r), "Booked London (LHR) on 2026-09-09, seat aisle");
          const expected = { auto: ["Where", "When", "Window", "Book"], legacy: ["Where", "When", "Book", "Window"] }[mode];
          assertOrder(asked.map((q) => q.split(" ")[0]), expected);
        });

        for (const [refusal, how] of [[DECLINE, "declined"], [CANCEL, "cancelled"]]) {
          test(`a ${how} seat takes its default`, opts, async () => {
            const [r, asked] = await book(kit, transport, mode, { ...PARIS, "Window or aisle?": refusal });
            assert.equal(r.isError ?? false, false);
            assert.equal(text(r), "Booked Paris (CDG) on 2026-08-01, seat no preference");
            assertOrder(asked, ORDER[mode]);
          });

          test(`a ${how} destination ends the call`, opts, async () => {
            const [r, asked] = await book(kit, transport, mode, { ...PARIS, "Where would you like to fly?": refusal });
            assert.equal(r.isError, true);
            assert.match(text(r), /destination/);
            // Nothing depending on the destination is asked: the handshake era stops at the
            // refusal, 2026-07-28 after the first round (asked together).
            assertOrder(asked, mode === "auto" ? ORDER.auto.slice(0, 3) : ORDER.legacy.slice(0, 1));
          });
        }

        test("declining the confirmation cancels the booking", opts, async () => {
          const [r] = await book(kit, transport, mode, { ...PARIS, "Book a flight to Paris on 2026-08-01?": false });
          assert.equal(r.isError ?? false, false);
          assert.equal(text(r), "Cancelled");
        });
      });
    }
  }
}
