// The test files' client end: a fresh McpServer from `factory` served through serveStdio
// over an in-memory pair, driven with raw JSON-RPC as a client sends it. (Not a test file:
// it registers no tests.)
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/**
 * A connection to `factory()`'s server: `send` (a message, `jsonrpc` added), `recv` (the
 * next message), `request(method, params, answer)` (the reply and the server-to-client
 * requests on the way, each answered with `answer(request)`), `close`.
 */
export async function connect(factory) {
  const [client, wire] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(factory, { transport: wire });
  const inbox = [];
  let wake;
  client.onmessage = (m) => {
    inbox.push(m);
    wake?.();
  };
  await client.start();
  let next = 100;
  const recv = async () => {
    while (inbox.length === 0) await new Promise((r) => (wake = r));
    return inbox.shift();
  };
  return {
    send: (m) => client.send({ jsonrpc: "2.0", ...m }),
    recv,
    async request(method, params, answer) {
      const id = next++;
      await client.send({ jsonrpc: "2.0", id, method, params });
      const asked = [];
      for (;;) {
        const m = await recv();
        if (m.method !== undefined && m.id !== undefined) {
          asked.push(m);
          await client.send({ jsonrpc: "2.0", id: m.id, result: answer(m) });
        } else if (m.id === id) {
          return { reply: m, asked };
        }
      }
    },
    close: async () => {
      await handle.close?.();
      await client.close();
    },
  };
}
