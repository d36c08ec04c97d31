// The HTTP front of servers/ts, and of its baseline (tests/baselines/ts, which the load
// benchmark compares it with, so both pay the same front): node:http in front of a fetch
// handler at /mcp. A Host or Origin other than loopback's is refused with 403 before the
// handler (DNS rebinding: the SDK's checks, as the Rust server's transport refuses it); a
// JSON reply is sent whole with its Content-Length (clients reading one reply per
// keep-alive exchange need it), a text/event-stream as it comes.
import { createServer } from "node:http";
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";

const HOSTS = localhostAllowedHostnames();
const ORIGINS = localhostAllowedOrigins();

/** The node:http request as a fetch Request. */
async function fetchRequest(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
    method: req.method,
    headers,
    ...(req.method !== "GET" && req.method !== "HEAD" && { body: Buffer.concat(chunks) }),
  });
}

async function answer(fetch, request) {
  if (new URL(request.url).pathname !== "/mcp") return new Response("Not Found", { status: 404 });
  return hostHeaderValidationResponse(request, HOSTS) ?? originValidationResponse(request, ORIGINS) ?? fetch(request);
}

/**
 * Serve `fetch` at http://HOST:PORT/mcp (port 0 picks one); `log` gets the first line,
 * "streamable HTTP on URL", and the errors of requests that failed (answered 500).
 */
export async function listen(fetch, { host, port }, log) {
  const server = createServer(async (req, res) => {
    try {
      const response = await answer(fetch, await fetchRequest(req));
      if (response.body && !response.headers.get("content-type")?.startsWith("text/event-stream")) {
        const body = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, { ...Object.fromEntries(response.headers), "content-length": body.length });
        res.end(body);
        return;
      }
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const c of response.body) res.write(c);
      res.end();
    } catch (e) {
      log(`HTTP: ${e?.message ?? String(e)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise((ok, fail) => server.once("error", fail).listen(port, host, 1024, ok));
  const bound = server.address().port;
  log(`streamable HTTP on http://${host.includes(":") ? `[${host}]` : host}:${bound}/mcp`);
}
