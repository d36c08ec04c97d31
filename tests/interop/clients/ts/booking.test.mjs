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
// Over stdio (the JSON array $ELICIT_INTEROP_CMD plus --stdio, a process per client) and
// streamable HTTP ($ELICIT_INTEROP_URL, started by the runner), every scenario of ../book_flight.json: the
// order in which the client hands the questions to the user (it dispatches a round's
// inputRequests in the order they arrive), the answers, decline and cancel.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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

const SCENARIOS = JSON.parse(readFileSync(new URL("../book_flight.json", import.meta.url), "utf8")).scenarios;

/**
 * Answers by question text ("@decline" and "@cancel" refuse; a question not in `answers`
 * is declined); records the questions in the order the client hands them over.
 */
function user(answers) {
  const asked = [];
  const handler = async (request) => {
    const message = request.params.message;
    asked.push(message);
    const answer = message in answers ? answers[message] : "@decline";
    if (answer === "@decline" || answer === "@cancel") return { action: answer.slice(1) };
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

/** The same questions first (so a wrong order is reported as such), then their order. */
function assertOrder(asked, expected) {
  assert.deepEqual([...asked].sort(), [...expected].sort(), "the questions asked");
  assert.deepEqual(asked, expected, "the order in which the questions reached the user");
}

for (const [name, kit] of Object.entries(CLIENTS)) {
  for (const mode of ["auto", "legacy"]) {
    const version = mode === "auto" ? MODERN : HANDSHAKE;
    for (const transport of ["stdio", "http"]) {
      describe(`${name} ${version} ${transport}`, { skip: kit.skip[mode] ?? false }, () => {
        for (const scenario of SCENARIOS) {
          test(scenario.name, { timeout: TEST_TIMEOUT_MS }, async () => {
            const { asked, handler } = user(scenario.answers);
            const client = await kit.connect(transport, mode, handler);
            let r;
            try {
              r = await client.callTool({ name: "book_flight", arguments: {} });
            } finally {
              await client.close();
            }
            assert.equal(r.content.length, 1);
            if ("result" in scenario) {
              assert.equal(r.isError ?? false, false, r.content[0].text);
              assert.equal(r.content[0].text, scenario.result);
              assert.deepEqual(r.structuredContent, { result: scenario.result });
            } else {
              assert.equal(r.isError, true);
              assert.ok(r.content[0].text.includes(scenario.error_mentions), r.content[0].text);
            }
            assertOrder(asked, scenario.asked[version]);
          });
        }
      });
    }
  }
}
