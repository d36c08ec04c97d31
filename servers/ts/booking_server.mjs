// The booking tools on the MCP TypeScript SDK (@modelcontextprotocol/server 2.4, McpServer)
// through elicit-mcp's adapter: the same tools, texts and sealed state as elicit-rmcp-server
// and the Python example server (the booking fixture, tests/fixture, is the one source), so
// clients, harnesses and key rings drive any of them.
//
//   scripts/dev-ts-server.sh --stdio
//   scripts/dev-ts-server.sh --http 127.0.0.1:8000      # endpoint /mcp; port 0 picks one
//   [--conformance] [--state-keys-file PATH] [--alone] [--state-ttl SECS]
//   [--fallback arguments]   the booking tools declare the fallback (docs/fallback.md)
//   [--session-keep-alive SECS] [--max-sessions N]        # HTTP: 2025-11-25 sessions
//
// Over stdio, lines the SDK's transport would drop or die on are answered in front of it
// (elicit-mcp/stdio's serveStdio); over HTTP, an idle 2025-11-25 session ends after --session-keep-alive
// seconds (default 300) and at most --max-sessions (default 1000) are held, the least
// recently used ending first, as on the Rust server.
//
// --conformance also serves the official MCP conformance suite's fixtures (conformance.mjs,
// as the Rust and Python servers do; scripts/test-mcp-conformance.sh drives them).
//
// ELICIT_TS_SERVER_TEST_TRAP=1 (tests only; test_trap.mjs): SIGUSR2 makes the engine's
// WebAssembly instance trap, for the trap recovery test over a real process. Unset, that
// file is never loaded; any other value refuses to start.
//
// Keys: ELICIT_STATE_KEYS (or --state-keys-file), comma-separated hex keys (32 to 128 bytes
// each, 1 to 8); the first seals, every key opens. Without a ring, stdio uses one ephemeral
// key; HTTP refuses to start unless --alone (the Rust and Python servers' rule).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { Elicitation, KeyRing, STATE_KEYS_ENV, ask, declareTool, elicit } from "elicit-mcp";
import { register as registerConformance, registerHooks } from "./conformance.mjs";
import { serveStdio } from "elicit-mcp/stdio";
import { listen } from "./http_front.mjs";

const FIXTURE_DIR = new URL("../../tests/fixture/", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, FIXTURE_DIR), "utf8"));
const FIXTURE = read("booking.json");
/** The entries (tools, prompts, resources) by name, as booking.json writes them. */
const ENTRIES = Object.fromEntries(
  ["tools", "prompts", "resources"].flatMap((kind) => FIXTURE[kind].map((e) => [e.name, e])),
);
/** The literal question of each parameter that has one (decl/<entry>.json). */
const Q = {};
for (const name of Object.keys(ENTRIES)) {
  for (const p of read(`decl/${name}.json`).parameters) if (p.elicit?.message) Q[p.name] = p.elicit.message;
}
const TEXTS = FIXTURE.texts;
const RULES = FIXTURE.resolvers;
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? TEXTS.NO_PREFERENCE));
const askText = (param, inputs) => fill(RULES[param].ask, inputs);
const result = (entry, values) => fill(ENTRIES[entry].result, values);

/** serverInfo.name, and the audience of sealed state (the other servers' too). */
const SERVER_NAME = "booking";
const VERSION = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url), "utf8")).version;
/** Every tool's listing extras and results, as FastMCP 4.1.6 writes them (the other servers' too). */
const FASTMCP_META = { fastmcp: { tags: [] } };
const OUTPUT_SCHEMA = FIXTURE.output_schema;

function log(line) {
  process.stderr.write(`elicit-ts-server: ${line}\n`);
}

/** The booking declarations; `fallback` ("arguments" or undefined) is the booking tools'
 * declared fallback (docs/fallback.md), no parameter opted out. */
function declarations(fallback) {
  const opt = fallback === undefined ? {} : { fallback };
  const bookFlight = declareTool("book_flight", {
    ...opt,
    params: {
      destination: elicit(z.string(), { message: Q.destination }),
      date: elicit(z.string(), { message: Q.date }),
      airport: elicit(z.string(), {
        needs: ["destination"],
        resolve: ({ destination }) =>
          RULES.airport.known?.[destination] ?? ask(askText("airport", { destination })),
      }),
      proceed: elicit(z.boolean(), {
        needs: ["destination", "date"],
        resolve: ({ destination, date }) => ask(askText("proceed", { destination, date })),
      }),
      seat: elicit(z.enum(["window", "aisle"]), { message: Q.seat, default: null }),
    },
    body: (v) => (v.proceed ? result("book_flight", v) : TEXTS.CANCELLED),
  });
  const greet = declareTool("greet", {
    ...opt,
    params: { name: elicit(z.string(), { message: Q.name }) },
    body: (v) => result("greet", v),
  });
  const order = declareTool("order", {
    ...opt,
    params: {
      item: z.string(),
      quantity: elicit(z.int(), { needs: ["item"], resolve: ({ item }) => ask(askText("quantity", { item })) }),
    },
    body: (v) => result("order", v),
  });
  const welcome = declareTool("welcome", {
    params: { name: elicit(z.string(), { message: Q.name }) },
    body: (v) => result("welcome", v),
  });
  const itinerary = declareTool("itinerary", {
    params: {
      destination: elicit(z.string(), { message: Q.destination }),
      // Asked for every destination, as the other servers' itinerary does.
      airport: elicit(z.string(), {
        needs: ["destination"],
        resolve: ({ destination }) => ask(askText("airport", { destination })),
      }),
    },
    body: (v) => result("itinerary", v),
  });
  return { bookFlight, greet, order, welcome, itinerary };
}

/** The ring from --state-keys-file or ELICIT_STATE_KEYS; without one, an ephemeral key for
 * stdio, and for HTTP only with --alone. Throws a message to print. */
function keyRing(keysFile, { http, alone }) {
  if (keysFile === undefined && process.env[STATE_KEYS_ENV] === undefined && http && !alone) {
    throw new Error(
      `--http needs a key ring (${STATE_KEYS_ENV} or --state-keys-file), or --alone when this process serves its calls alone`,
    );
  }
  const source = keysFile ?? STATE_KEYS_ENV;
  try {
    return ring(keysFile);
  } catch (e) {
    throw new Error(e.message.startsWith(`${source}:`) ? e.message : `${source}: ${e.message}`);
  }
}

function ring(keysFile) {
  if (keysFile !== undefined) {
    const ring = KeyRing.fromText(readFileSync(keysFile, "utf8").trim(), keysFile);
    log(`sealing requestState with the key(s) from ${keysFile}`);
    return ring;
  }
  if (process.env[STATE_KEYS_ENV] !== undefined) {
    const ring = KeyRing.fromEnv();
    log(`sealing requestState with the key(s) from ${STATE_KEYS_ENV}`);
    return ring;
  }
  log("sealing requestState with an ephemeral key (set ELICIT_STATE_KEYS to share state across processes)");
  return new KeyRing([globalThis.crypto.getRandomValues(new Uint8Array(32))]);
}

/** The server: the conformance fixtures first (with `conformance`), then the booking
 * fixture's tools, the welcome prompt and the itinerary resource (their texts from
 * tests/fixture); returns the factory the transports take. `notifier`: where the
 * conformance hooks publish list changes (the HTTP entry fills it in). */
function build(keys, { ttl, fallback, conformance, notifier }) {
  const elicitation = new Elicitation({ keys, audience: SERVER_NAME, ttl, log });
  if (conformance) registerConformance(elicitation);
  const d = declarations(fallback);
  const listed = (name) => ({
    title: ENTRIES[name].title,
    description: ENTRIES[name].description,
    _meta: FASTMCP_META,
    outputSchema: OUTPUT_SCHEMA,
    resultMeta: { fastmcp: { wrap_result: true } },
  });
  elicitation.tool(d.bookFlight, listed("book_flight"));
  elicitation.tool(d.greet, listed("greet"));
  elicitation.tool(d.order, listed("order"));
  elicitation.prompt(d.welcome, { description: ENTRIES.welcome.description });
  elicitation.resource(d.itinerary, ENTRIES.itinerary.uri, { name: "itinerary" });
  return () => {
    const mcp = elicitation.attach(new McpServer({ name: SERVER_NAME, version: VERSION }));
    if (conformance) registerHooks(mcp, notifier);
    return mcp;
  };
}

function loopback(text) {
  const m = /^\[?([0-9a-fA-F:.]+)\]?:(\d+)$/.exec(text ?? "");
  if (!m) throw new Error(`--http ${text}: not an IP:PORT address`);
  const host = m[1];
  if (host !== "127.0.0.1" && host !== "::1") {
    throw new Error(`--http ${text}: not a loopback address; this example serves 127.0.0.1/::1 only`);
  }
  return { host, port: Number(m[2]) };
}

/**
 * The endpoint: 2026-07-28 requests through the SDK's stateless entry (createMcpHandler);
 * 2025-11-25 traffic (initialize, then a session) through a sessionful streamable HTTP
 * transport per session, since a 2025-11-25 call asks its questions over the session
 * (the entry's stateless legacy fallback has no session to send elicitation/create on).
 */
function endpoint(factory, notifier, { keepAlive, maxSessions }) {
  const modern = createMcpHandler(factory, { legacy: "reject" });
  notifier.toolsChanged = () => modern.notify.toolsChanged();
  notifier.promptsChanged = () => modern.notify.promptsChanged();
  // The 2025-11-25 sessions, least recently used first: { transport, used (ms) }. One unused
  // for keepAlive seconds ends (a sweep every second at most); a new one past maxSessions
  // ends the least recently used (the Rust server's --session-keep-alive, --max-sessions).
  const sessions = new Map();
  const end = (sid) => {
    const s = sessions.get(sid);
    sessions.delete(sid);
    s?.transport.close().catch((e) => log(`closing session ${sid}: ${e?.message ?? e}`));
  };
  const sweep = setInterval(() => {
    const stale = Date.now() - keepAlive * 1000;
    for (const [sid, s] of sessions) if (s.used < stale) end(sid);
  }, Math.min(1000, keepAlive * 500));
  sweep.unref();
  return async (request) => {
    if (!(await isLegacyRequest(request.clone()))) return modern.fetch(request);
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = sessions.get(id);
      if (session && session.used >= Date.now() - keepAlive * 1000) {
        sessions.delete(id);
        sessions.set(id, session);
        session.used = Date.now();
        return session.transport.handleRequest(request);
      }
      if (session) end(id);
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => globalThis.crypto.randomUUID(),
      onsessioninitialized: (sid) => {
        while (sessions.size >= maxSessions) end(sessions.keys().next().value);
        sessions.set(sid, { transport, used: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await factory().connect(transport);
    return transport.handleRequest(request);
  };
}

async function serveHttp(factory, notifier, addr, limits) {
  await listen(endpoint(factory, notifier, limits), addr, log);
}

const USAGE =
  "usage: dev-ts-server.sh --stdio | --http 127.0.0.1:PORT [--conformance] [--state-keys-file PATH] [--alone] [--state-ttl SECS] [--fallback arguments] [--session-keep-alive SECS] [--max-sessions N]";

async function main() {
  let opts;
  try {
    ({ values: opts } = parseArgs({
      options: {
        stdio: { type: "boolean" },
        http: { type: "string" },
        conformance: { type: "boolean" },
        "state-keys-file": { type: "string" },
        alone: { type: "boolean" },
        "state-ttl": { type: "string" },
        fallback: { type: "string" },
        "session-keep-alive": { type: "string" },
        "max-sessions": { type: "string" },
        help: { type: "boolean" },
      },
    }));
    if (opts.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!!opts.stdio === (opts.http !== undefined)) throw new Error("give one of --stdio or --http ADDR");
    if (opts.fallback !== undefined && opts.fallback !== "arguments") {
      throw new Error(`--fallback: ${JSON.stringify(opts.fallback)} is not a fallback; the one there is: --fallback arguments`);
    }
  } catch (e) {
    log(`${e.message}\n${USAGE}`);
    return 2;
  }
  const ttl = opts["state-ttl"] === undefined ? 600 : Number(opts["state-ttl"]);
  if (!(ttl > 0)) {
    log(`--state-ttl must be a positive number of seconds, not ${opts["state-ttl"]}`);
    return 2;
  }
  const keepAlive = opts["session-keep-alive"] === undefined ? 300 : Number(opts["session-keep-alive"]);
  if (!(keepAlive > 0)) {
    log(`--session-keep-alive must be more than 0 seconds, not ${opts["session-keep-alive"]}`);
    return 2;
  }
  const maxSessions = opts["max-sessions"] === undefined ? 1000 : Number(opts["max-sessions"]);
  if (!Number.isInteger(maxSessions) || maxSessions < 1) {
    log(`--max-sessions: ${JSON.stringify(opts["max-sessions"])} is not a whole number >= 1`);
    return 2;
  }
  let keys;
  let addr;
  try {
    if (opts.http !== undefined) addr = loopback(opts.http);
    keys = keyRing(opts["state-keys-file"], { http: addr !== undefined, alone: !!opts.alone });
  } catch (e) {
    log(e.message);
    return 2;
  }
  const trapHook = process.env.ELICIT_TS_SERVER_TEST_TRAP;
  if (trapHook !== undefined) {
    if (trapHook !== "1") {
      log(`ELICIT_TS_SERVER_TEST_TRAP=${JSON.stringify(trapHook)}: the test hook takes 1 (tests only); unset it to serve`);
      return 2;
    }
    (await import("./test_trap.mjs")).installTrapHook(log);
  }
  const notifier = {};
  const factory = build(keys, { ttl, fallback: opts.fallback, conformance: !!opts.conformance, notifier });
  if (addr) await serveHttp(factory, notifier, addr, { keepAlive, maxSessions });
  else serveStdio(factory, { onerror: (e) => log(e.message) });
  return undefined;
}

const code = await main();
if (code !== undefined) process.exitCode = code;
