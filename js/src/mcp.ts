/**
 * The adapter for `@modelcontextprotocol/server`'s `McpServer` (2.4): declared tools,
 * prompts and resources served in both eras by the call level ({@link Server},
 * {@link Call}): on 2026-07-28 one `InputRequiredResult` per round with a sealed
 * `requestState`; on 2025-11-25 one question at a time through
 * `ctx.mcpReq.elicitInput` (not the SDK's legacy shim, which sends a round's questions
 * all at once). The replies are the engine's, as on elicit's other servers.
 *
 * McpServer answers `tools/call` itself (it checks arguments with its own texts and
 * turns every error a callback throws into `isError`), so the adapter lists its
 * declarations through McpServer (`registerTool`, `registerPrompt`, `registerResource`:
 * declaration order, McpServer's listing) and answers `tools/call`, `prompts/get` and
 * `resources/read` for them itself, in front of McpServer's handlers, which go on
 * serving everything else. docs/deviations.md lists what the SDK still does first.
 *
 * ```ts
 * const elicitation = new Elicitation({ keys: KeyRing.fromEnv(), audience: "booking" });
 * elicitation.tool(bookFlight, { description: "Book a flight." });
 * serveStdio(() => elicitation.attach(new McpServer({ name: "booking", version: "1.0.0" })));
 * ```
 * @module
 */
import { type McpServer, ProtocolError } from "@modelcontextprotocol/server";
import { z } from "zod";
import { type Abi, abi } from "./abi.js";
import { Server, type Method } from "./calls.js";
import type { DeclaredTool, ParamShape } from "./declare.js";
import type { KeyRing } from "./seal.js";
import { type Json, Plan } from "./engine.js";

/** How a declared tool is listed (McpServer's `registerTool` config, less the schemas the declaration gives). */
export interface ToolListing {
  title?: string;
  description?: string;
  /** The listing's `_meta`. */
  _meta?: Record<string, unknown>;
  /**
   * The listed `outputSchema` (JSON Schema, listed as given) of a tool whose result is its
   * text wrapped as `structuredContent: {result: text}` (FastMCP's wrapped string result,
   * as elicit's other example servers serve it).
   */
  outputSchema?: Record<string, unknown>;
  /** The `_meta` of every complete, successful result (with `outputSchema`). */
  resultMeta?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** How a declared prompt is listed. */
export interface PromptListing {
  title?: string;
  description?: string;
}

/** How a declared resource is listed. */
export interface ResourceListing {
  /** The listed name (default: the declaration's name). */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What an {@link Elicitation} is made from. */
export interface ElicitationOptions {
  /** The key ring sealing `requestState` (one ring for every replica; the first key seals). */
  keys: KeyRing;
  /** The audience tokens are bound to (the server's name); null for none. */
  audience: string | null;
  /** Token lifetime in seconds (default 600). */
  ttl?: number;
  /** Called with why a request was refused or failed (a `requestState` that did not verify, a resolver that threw). */
  log?: (line: string) => void;
}

interface Entry {
  declared: DeclaredTool<ParamShape>;
  method: Method;
  /** The tool or prompt name, or the resource's URI. */
  target: string;
  listing: ToolListing | PromptListing | ResourceListing;
  /** The model arguments as one zod object (built once: zod compiles an object's parser on its first use). */
  args: z.ZodObject;
  /** The model arguments that must be given (their type refuses `undefined`), in declaration order. */
  required: string[];
  /** The config McpServer's `registerTool` / `registerPrompt` / `registerResource` takes, built once. */
  config: Record<string, unknown>;
}

/** The parts of McpServer's low-level `Server` the adapter uses (public API, plus the handler lookup). */
interface LowLevel {
  setRequestHandler(method: string, handler: (request: any, ctx: any) => unknown): void;
  removeRequestHandler(method: string): void;
  getClientCapabilities(): Record<string, unknown> | undefined;
  getNegotiatedProtocolVersion(): string | undefined;
  /** Protected in the SDK's types: the stored handler McpServer installed, to pass foreign requests on to. */
  _getRequestHandler(method: string): ((request: any, ctx: any) => Promise<unknown>) | undefined;
}

const INTERNAL = -32603;
const CAPS_META = "io.modelcontextprotocol/clientCapabilities";

/**
 * What an entry registers on every McpServer, built once at declaration: a server on the
 * SDK's `createMcpHandler` makes an McpServer per HTTP request, and McpServer does its
 * work on what it is given each time (it wraps a zod shape in `z.object`, and converts a
 * tool's schema to JSON Schema for each request it checks `Mcp-Param-*` headers on).
 * A tool's `inputSchema` is its zod object with the declaration's JSON Schema as its
 * `~standard.jsonSchema` (the schema the adapter lists; the SDK takes a Standard JSON
 * Schema's own conversion, and no longer converts the zod object per request).
 */
function registration(e: Pick<Entry, "declared" | "method" | "listing">): Pick<Entry, "args" | "required" | "config"> {
  const shape = e.declared.argumentsShape;
  const args = z.object(shape);
  const required = Object.entries(shape)
    .filter(([, type]) => !type.safeParse(undefined).success)
    .map(([name]) => name);
  let config: Record<string, unknown>;
  if (e.method === "tools/call") {
    const l = e.listing as ToolListing;
    const listed = e.declared.inputSchema;
    const standard = args["~standard"];
    config = {
      ...(l.title !== undefined && { title: l.title }),
      ...(l.description !== undefined && { description: l.description }),
      ...(l._meta !== undefined && { _meta: l._meta }),
      ...(l.annotations !== undefined && { annotations: l.annotations }),
      inputSchema: { "~standard": { ...standard, jsonSchema: { input: () => listed, output: () => listed } } },
    };
  } else if (e.method === "prompts/get") {
    const l = e.listing as PromptListing;
    config = {
      ...(l.title !== undefined && { title: l.title }),
      ...(l.description !== undefined && { description: l.description }),
      ...(Object.keys(shape).length > 0 && { argsSchema: args }),
    };
  } else {
    const l = e.listing as ResourceListing;
    config = {
      ...(l.title !== undefined && { title: l.title }),
      ...(l.description !== undefined && { description: l.description }),
      ...(l.mimeType !== undefined && { mimeType: l.mimeType }),
    };
  }
  return { args, required, config };
}

/**
 * Declared tools, prompts and resources with one engine {@link Server} (the plans, the
 * key ring, the audience), attached to every `McpServer` a transport makes
 * (`serveStdio` and `createMcpHandler` take a factory: attach in it).
 */
export class Elicitation {
  readonly #options: ElicitationOptions;
  readonly #entries: Entry[] = [];
  #server: Server | undefined;
  /** The WebAssembly instance #server, its plans and #keys live on. */
  #instance: Abi | undefined;
  #keys: KeyRing;

  constructor(options: ElicitationOptions) {
    if (typeof options !== "object" || options === null || typeof options.keys?.handle !== "function") {
      throw new TypeError("Elicitation: give { keys: KeyRing, audience } (KeyRing.fromEnv() reads ELICIT_STATE_KEYS)");
    }
    if (options.ttl !== undefined && !(options.ttl > 0)) {
      throw new TypeError(`Elicitation: ttl must be a positive number of seconds, not ${String(options.ttl)}`);
    }
    this.#options = options;
    this.#keys = options.keys;
  }

  #add(given: Pick<Entry, "declared" | "method" | "target" | "listing">): this {
    const entry = Object.assign(given, registration(given));
    if (this.#server) {
      throw new TypeError(`Elicitation: declare "${entry.target}" before the first attach(); the engine is built from every declaration at once`);
    }
    if (this.#entries.some((e) => e.method === entry.method && e.target === entry.target)) {
      throw new TypeError(`Elicitation: "${entry.target}" is declared twice for ${entry.method}; give each a distinct name`);
    }
    this.#entries.push(entry);
    return this;
  }

  /** Serve `declared` as a tool (its name, its `inputSchema` from the model arguments). It needs a body. */
  tool(declared: DeclaredTool<any>, listing: ToolListing = {}): this {
    return this.#add({ declared, method: "tools/call", target: declared.name, listing });
  }

  /** Serve `declared` as a prompt of the same name (its model arguments are the prompt's arguments). */
  prompt(declared: DeclaredTool<any>, listing: PromptListing = {}): this {
    return this.#add({ declared, method: "prompts/get", target: declared.name, listing });
  }

  /** Serve `declared` as the resource at `uri`. */
  resource(declared: DeclaredTool<any>, uri: string, listing: ResourceListing = {}): this {
    if (typeof uri !== "string" || !uri) throw new TypeError(`Elicitation: resource "${declared.name}": give its URI`);
    return this.#add({ declared, method: "resources/read", target: uri, listing });
  }

  /**
   * The engine server, built from every declaration at the first attach, and built again
   * after a trap: a trap kills the WebAssembly instance and everything made on it (the
   * plans, the key ring, the server, the calls in progress, which fail with -32603), so
   * the plans are compiled again from the declarations and the ring made again from its
   * keys, on a new instance.
   */
  #engine(): Server {
    if (this.#server && this.#instance?.dead) {
      this.#options.log?.("the WebAssembly instance trapped: its calls failed; the plans and the key ring are made again on a new instance");
      this.#keys = this.#keys.remake();
      this.#server = new Server({
        entries: this.#entries.map((e) => ({ plan: new Plan(e.declared.declaration), method: e.method, target: e.target })),
        keys: this.#keys,
        audience: this.#options.audience,
        ...(this.#options.ttl !== undefined && { ttl: this.#options.ttl }),
      });
      this.#instance = abi();
    }
    if (!this.#server) {
      this.#server = new Server({
        entries: this.#entries.map((e) => ({ plan: e.declared.plan, method: e.method, target: e.target })),
        keys: this.#keys,
        audience: this.#options.audience,
        ...(this.#options.ttl !== undefined && { ttl: this.#options.ttl }),
      });
      this.#instance = abi();
    }
    return this.#server;
  }

  /**
   * Register every declaration on `mcp` (in declaration order) and serve their calls.
   * Returns `mcp`, so a transport's factory can be `() => elicitation.attach(new McpServer(...))`.
   */
  attach<M extends McpServer>(mcp: M): M {
    this.#engine();
    const unreachable = (what: string) => () => {
      throw new ProtocolError(INTERNAL, `Internal error: elicit serves ${what} itself`);
    };
    for (const e of this.#entries) {
      if (e.method === "tools/call") {
        mcp.registerTool(e.target, e.config as never, unreachable(`tool ${e.target}`) as never);
      } else if (e.method === "prompts/get") {
        mcp.registerPrompt(e.target, e.config as never, unreachable(`prompt ${e.target}`) as never);
      } else {
        const l = e.listing as ResourceListing;
        mcp.registerResource(l.name ?? e.declared.name, e.target, e.config as never, unreachable(`resource ${e.target}`) as never);
      }
    }
    const low = mcp.server as unknown as LowLevel;
    // McpServer lists a tool's schemas through its own converter (a `$schema` key, zod's
    // shapes); the listing of a declared tool is the declaration's, as on the other servers,
    // for the client asking: a declared fallback lists a client that cannot be asked the
    // parameters that fall back (its capabilities read as its calls are: the request's
    // envelope on 2026-07-28, the session's from initialize on 2025-11-25).
    const listed = new Map(this.#entries.filter((e) => e.method === "tools/call").map((e) => [e.target, e]));
    const list = low._getRequestHandler("tools/list");
    if (list && listed.size > 0) {
      low.removeRequestHandler("tools/list");
      low.setRequestHandler("tools/list", async (request: any, ctx: any) => {
        const result = (await list(request, ctx)) as { tools: Record<string, unknown>[]; cacheScope?: string };
        const envelope = ctx?.mcpReq?.envelope as Record<string, unknown> | undefined;
        const capabilities = envelope?.[CAPS_META] ?? low.getClientCapabilities() ?? {};
        let differs = false;
        for (const tool of result.tools) {
          const e = listed.get(tool.name as string);
          if (!e) continue;
          const { inputSchema, cachePrivate } = e.declared.listedSchema(capabilities);
          tool.inputSchema = inputSchema;
          differs ||= cachePrivate;
          const out = (e.listing as ToolListing).outputSchema;
          if (out !== undefined) tool.outputSchema = out;
        }
        // A listing that differs by client is never a shared cache's (2026-07-28 only: a
        // 2025-11-25 result has no cache fields), whatever the server's cache hints say.
        if (differs && envelope !== undefined) result.cacheScope = "private";
        return result;
      });
    }
    for (const method of ["tools/call", "prompts/get", "resources/read"] as const) {
      const ours = new Map(this.#entries.filter((e) => e.method === method).map((e) => [e.target, e]));
      if (ours.size === 0) continue;
      const theirs = low._getRequestHandler(method);
      low.removeRequestHandler(method);
      low.setRequestHandler(method, async (request: any, ctx: any) => {
        const params = (request?.params ?? {}) as Record<string, unknown>;
        const target = method === "resources/read" ? params.uri : params.name;
        const entry = typeof target === "string" ? ours.get(target) : undefined;
        if (!entry) {
          if (!theirs) throw new ProtocolError(-32602, `Unknown ${method === "resources/read" ? "resource" : method === "prompts/get" ? "prompt" : "tool"}: ${String(target)}`);
          return theirs(request, ctx);
        }
        return this.#serve(low, entry, request, ctx);
      });
    }
    return mcp;
  }

  /**
   * The model arguments checked against the declaration's zod shape (the engine reads
   * arguments by name; their types are the adapter's to check, as on the other servers):
   * the refusal's text, or undefined.
   */
  #argumentsRefused(entry: Entry, args: unknown): string | undefined {
    const kind = entry.method === "tools/call" ? "tool" : entry.method === "prompts/get" ? "prompt" : "resource";
    const given = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
    for (const name of entry.required) {
      if (given[name] === undefined) return `Missing required argument '${name}' for ${kind} '${entry.target}'`;
    }
    const parsed = entry.args.safeParse(given);
    if (parsed.success) return undefined;
    const issue = parsed.error.issues[0];
    return `Invalid argument '${issue?.path.join(".") ?? "?"}' for ${kind} '${entry.target}': ${issue?.message ?? "invalid"}`;
  }

  /** One request for a declaration, served by the engine; the reply becomes McpServer's result or error. */
  async #serve(low: LowLevel, entry: Entry, request: any, ctx: any): Promise<unknown> {
    const params = { ...(request.params as Record<string, unknown>) };
    if (entry.method !== "resources/read") {
      const refused = this.#argumentsRefused(entry, params.arguments);
      if (refused !== undefined) {
        // As the engine answers refused arguments: a tool result the model reads, or -32602.
        if (entry.method === "tools/call") return { content: [{ type: "text", text: refused }], isError: true };
        throw new ProtocolError(-32602, refused);
      }
    }
    // McpServer lifts the 2026-07-28 envelope out of params: put back what was received.
    // (The envelope's keys, protocol version and client capabilities among them, and the
    // rest of `_meta`, such as a progress token, arrive apart.)
    const { _meta: rest, envelope } = ctx?.mcpReq ?? {};
    if (rest !== undefined || envelope !== undefined) {
      params._meta = { ...(params._meta as object | undefined), ...rest, ...envelope };
    }
    const state = typeof ctx?.mcpReq?.requestState === "function" ? ctx.mcpReq.requestState() : undefined;
    if (state !== undefined && params.requestState === undefined) params.requestState = state;
    if (ctx?.mcpReq?.inputResponses !== undefined && params.inputResponses === undefined) {
      params.inputResponses = ctx.mcpReq.inputResponses;
    }
    const protocolVersion = low.getNegotiatedProtocolVersion() ?? null;
    const capabilities = low.getClientCapabilities();
    let text: string;
    try {
      // Per request: after a trap the engine is built again (#engine).
      const call = this.#engine().call({
        id: ctx?.mcpReq?.id ?? 0,
        method: entry.method,
        params: params as Json,
        protocolVersion,
        ...(capabilities !== undefined && { clientCapabilities: capabilities as Json }),
        principal: ctx?.http?.authInfo?.clientId ?? null,
      });
      text = await entry.declared.serve(call, {
        refused: (why) => this.#options.log?.(`${entry.method} ${entry.target}: refused: ${why}`),
        // Related to the call, so a streamable HTTP transport sends each question on the
        // call's own response stream (unrelated, it goes to the standalone GET stream, and
        // is lost when the client has not opened that yet).
        ask: (req) => {
          const related = { relatedRequestId: ctx.mcpReq.id };
          if (req.method === "elicitation/create") return ctx.mcpReq.elicitInput(req.params, related);
          if (req.method === "sampling/createMessage") return ctx.mcpReq.requestSampling(req.params, related);
          return ctx.mcpReq.send(req);
        },
      });
    } catch (e) {
      this.#options.log?.(`${entry.method} ${entry.target}: ${e instanceof Error ? e.message : String(e)}`);
      throw new ProtocolError(INTERNAL, "Internal error");
    }
    const reply = JSON.parse(text) as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
    if (reply.error) {
      throw new ProtocolError(reply.error.code, reply.error.message, reply.error.data);
    }
    const result = reply.result ?? {};
    const l = entry.listing as ToolListing;
    if (entry.method === "tools/call" && l.outputSchema !== undefined && result.isError !== true && result.resultType !== "input_required") {
      const content = result.content as { type: string; text?: string }[] | undefined;
      const first = content?.[0];
      if (first?.type === "text") {
        result.structuredContent = { result: first.text };
        if (l.resultMeta !== undefined) result._meta = l.resultMeta;
      }
    }
    return result;
  }
}
