/**
 * `elicit-mcp/stdio`: McpServer over stdio with the lines the SDK's transport would drop
 * silently or die on answered in front of it, as elicit-rmcp's stdio filter answers them
 * (tests/interop/mcp/test_bad_input.py drives both). Node only (it reads `node:stream`
 * and the SDK's `@modelcontextprotocol/server/stdio`), so it is a subpath of its own: the
 * main entry stays free of Node imports and loads in bundlers and workers.
 *
 * The SDK's `StdioServerTransport` skips a line that is not JSON without a word, decodes
 * invalid UTF-8 into U+FFFD and serves it, drops a message its schema refuses, and closes
 * the connection when a line passes its 10 MiB buffer. Through {@link serveStdio} or
 * {@link stdioTransport}:
 *
 *  - a line longer than {@link LINE_LIMIT} (8 MiB) is skipped as it streams in and
 *    answered with -32600 naming the limit (with the request's id when its first bytes
 *    carry one);
 *  - a line that is not UTF-8 or not JSON is -32700 "Parse error" (id null);
 *  - a request (method and id) that is not JSON-RPC 2.0 or whose id is neither a string
 *    nor a number is -32600 "Invalid Request"; one whose params are not an object is
 *    -32602;
 *  - everything else goes to the SDK's transport as it came.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { PassThrough } from "node:stream";
import type { McpServerFactory } from "@modelcontextprotocol/server";
import {
  StdioServerTransport,
  serveStdio as sdkServeStdio,
  type ServeStdioOptions as SdkServeStdioOptions,
  type StdioServerHandle,
} from "@modelcontextprotocol/server/stdio";

export type { StdioServerHandle };

/** The longest line served, in bytes (elicit-rmcp's limit). */
export const LINE_LIMIT = 8 * 1024 * 1024;

/** The streams to serve on; the process's stdin and stdout when left out. */
export interface StdioStreams {
  /** Where the client's lines come from (default `process.stdin`). */
  stdin?: Readable;
  /** Where replies go (default `process.stdout`). */
  stdout?: Writable;
}

/** {@link serveStdio}'s options: the SDK's `serveStdio` options, with streams in place of a transport. */
export interface ServeStdioOptions extends Omit<SdkServeStdioOptions, "transport">, StdioStreams {}

/**
 * The SDK's `serveStdio` (one McpServer from `factory` per connection, the era chosen by
 * the opening exchange) on {@link stdioTransport}: a drop-in for
 * `serveStdio` of `@modelcontextprotocol/server/stdio`.
 */
export function serveStdio(factory: McpServerFactory, options: ServeStdioOptions = {}): StdioServerHandle {
  const { stdin, stdout, ...rest } = options;
  return sdkServeStdio(factory, { ...rest, transport: stdioTransport({ stdin, stdout }) });
}

/**
 * The SDK's `StdioServerTransport` reading through the line filter: for
 * `mcpServer.connect(transport)`, or for the SDK's `serveStdio` options
 * ({@link serveStdio} is that). Replies to refused lines are written to `stdout`.
 */
export function stdioTransport(streams: StdioStreams = {}): StdioServerTransport {
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout ?? process.stdout;
  return new StdioServerTransport(filteredLines(stdin, (line) => stdout.write(line)), stdout);
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A JSON-RPC error reply, before its `jsonrpc` member. */
interface Refusal {
  id: string | number | null;
  error: { code: number; message: string };
}

/** The JSON-RPC id at the head of a line (`"id": 3` or `"id": "x"`), or null. */
function idIn(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/.exec(head);
  if (!m?.[1]) return null;
  try {
    return JSON.parse(m[1]) as string | number;
  } catch {
    return null;
  }
}

/** The error reply for one complete line, or undefined when it goes to the SDK. */
function refusal(line: Uint8Array): Refusal | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(utf8.decode(line));
  } catch {
    return { id: null, error: { code: -32700, message: "Parse error" } };
  }
  if (typeof msg !== "object" || msg === null || Array.isArray(msg) || !("method" in msg) || !("id" in msg)) {
    return undefined;
  }
  const { id, jsonrpc, method } = msg as { id: unknown; jsonrpc?: unknown; method: unknown };
  const usable = typeof id === "string" || typeof id === "number";
  if (jsonrpc !== "2.0" || !usable || typeof method !== "string") {
    return { id: usable ? id : null, error: { code: -32600, message: "Invalid Request" } };
  }
  if ("params" in msg) {
    const { params } = msg as { params: unknown };
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      return { id, error: { code: -32602, message: `Invalid params: ${method}'s params must be an object` } };
    }
  }
  return undefined;
}

/** `input` filtered: the stream the SDK's transport reads. Replies to refused lines go to `write` (one JSON line each). */
function filteredLines(input: Readable, write: (line: string) => void): Readable {
  const out = new PassThrough();
  let parts: Buffer[] = [];
  let size = 0;
  /** Skipping a line past the limit: its first bytes, for the id. */
  let skipping: string | null = null;
  const reply = (r: Refusal) => write(`${JSON.stringify({ jsonrpc: "2.0", ...r })}\n`);
  const line = (bytes: Buffer) => {
    const text = bytes.at(-1) === CR ? bytes.subarray(0, -1) : bytes;
    if (text.every((b) => b === 0x20 || b === 0x09)) return;
    const r = refusal(text);
    if (r) reply(r);
    else out.write(Buffer.concat([text, Buffer.from("\n")]));
  };
  input.on("data", (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, at);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(at, end);
      if (skipping === null && size + piece.length > LINE_LIMIT) {
        skipping = Buffer.concat([...parts, piece]).subarray(0, 256).toString("latin1");
        parts = [];
        size = 0;
      }
      if (skipping === null) {
        parts.push(piece);
        size += piece.length;
      }
      if (nl === -1) break;
      if (skipping !== null) {
        reply({
          id: idIn(skipping),
          error: { code: -32600, message: `Request line too long: over ${LINE_LIMIT} bytes, the most this server reads` },
        });
        skipping = null;
      } else {
        line(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
      }
      parts = [];
      size = 0;
      at = nl + 1;
    }
  });
  input.on("end", () => out.end());
  input.on("error", (e) => out.destroy(e));
  return out;
}
