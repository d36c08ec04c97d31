// The stdio lines the SDK's transport would drop silently or die on, answered in front of
// it as elicit-rmcp's stdio filter answers them (tests/interop/mcp/test_bad_input.py drives
// both): the SDK's StdioServerTransport skips a line that is not JSON without a word,
// decodes invalid UTF-8 into U+FFFD and serves it, drops a message its schema refuses, and
// closes the connection when a line passes its 10 MiB buffer. Here:
//
//  - a line longer than LINE_LIMIT (8 MiB) is skipped as it streams in and answered with
//    -32600 naming the limit (with the request's id when its first bytes carry one);
//  - a line that is not UTF-8 or not JSON is -32700 "Parse error" (id null);
//  - a request (method and id) that is not JSON-RPC 2.0 or whose id is neither a string nor
//    a number is -32600 "Invalid Request"; one whose params are not an object is -32602;
//  - everything else goes to the SDK's transport as it came.
import { PassThrough } from "node:stream";

/** The longest line served, in bytes (elicit-rmcp's limit). */
export const LINE_LIMIT = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The JSON-RPC id at the head of a line (`"id": 3` or `"id": "x"`), or null. */
function idIn(head) {
  const m = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]);
  } catch {
    return null;
  }
}

/** The error reply for one complete line, or undefined when it goes to the SDK. */
function refusal(line) {
  let msg;
  try {
    msg = JSON.parse(utf8.decode(line));
  } catch {
    return { id: null, error: { code: -32700, message: "Parse error" } };
  }
  if (typeof msg !== "object" || msg === null || Array.isArray(msg) || !("method" in msg) || !("id" in msg)) {
    return undefined;
  }
  const usable = typeof msg.id === "string" || typeof msg.id === "number";
  if (msg.jsonrpc !== "2.0" || !usable || typeof msg.method !== "string") {
    return { id: usable ? msg.id : null, error: { code: -32600, message: "Invalid Request" } };
  }
  if ("params" in msg && (typeof msg.params !== "object" || msg.params === null || Array.isArray(msg.params))) {
    return { id: msg.id, error: { code: -32602, message: `Invalid params: ${msg.method}'s params must be an object` } };
  }
  return undefined;
}

/**
 * `input` (process.stdin) filtered: the stream to give the SDK's StdioServerTransport.
 * Replies to refused lines go to `write` (one JSON line each).
 */
export function filteredLines(input, write) {
  const out = new PassThrough();
  let parts = [];
  let size = 0;
  /** Skipping a line past the limit: its first bytes, for the id. */
  let skipping = null;
  const reply = (r) => write(`${JSON.stringify({ jsonrpc: "2.0", ...r })}\n`);
  const line = (bytes) => {
    const text = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (text.every((b) => b === 0x20 || b === 0x09)) return;
    const r = refusal(text);
    if (r) reply(r);
    else out.write(Buffer.concat([text, Buffer.from("\n")]));
  };
  input.on("data", (chunk) => {
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
        line(parts.length === 1 ? parts[0] : Buffer.concat(parts));
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
