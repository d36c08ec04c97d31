// Type-level checks of the zod declarations and of elicit-mcp/stdio, compiled by
// `tsc -p tsconfig.test.json` (scripts/test-js.sh): the body's values are typed by
// inference from the one shape.
// Each @ts-expect-error line must be an error, or tsc fails.
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ask, declareTool, elicit } from "../dist/index.js";
import { LINE_LIMIT, serveStdio, stdioTransport } from "elicit-mcp/stdio";

const tool = declareTool("book_flight", {
  params: {
    item: z.string(),
    count: z.int(),
    destination: elicit(z.string(), { message: "Where would you like to fly?" }),
    airport: elicit(z.string(), {
      needs: ["destination"],
      resolve: async ({ destination }) => (destination === "London" ? "LHR" : ask("Which airport?")),
    }),
    seat: elicit(z.enum(["window", "aisle"]), { message: "Window or aisle?", default: null }),
    go: elicit(z.boolean(), { message: "Go?", outcome: true }),
  },
});

// What the body receives.
declare const values: ReturnType<typeof tool.values>;
const item: string = values.item;
const count: number = values.count;
const destination: string = values.destination;
const seat: "window" | "aisle" | null = values.seat;
const go: { action: "accept"; value: boolean } | { action: "decline" } | { action: "cancel" } = values.go;
// @ts-expect-error a string is not a number
const wrong: number = values.destination;
// @ts-expect-error the seat may be null (its default)
const noNull: "window" | "aisle" = values.seat;
// @ts-expect-error no such parameter
void values.nothing;
void [item, count, destination, seat, go, wrong, noNull];

// @ts-expect-error a resolver on a literal question
elicit(z.string(), { message: "A?", needs: ["b"], resolve: () => "x" });

// elicit-mcp/stdio: the SDK's serveStdio options, with streams in place of a transport.
const factory = () => new McpServer({ name: "t", version: "0" });
const handle = serveStdio(factory, { onerror: (e: Error) => void e.message, legacy: "serve", stdin: process.stdin });
const closing: Promise<void> = handle.close();
const limit: number = LINE_LIMIT;
// @ts-expect-error the transport is what serveStdio makes (stdioTransport); give streams
serveStdio(factory, { transport: stdioTransport() });
void [closing, limit];
