/**
 * The call level: a {@link Server} made once from plans, a key ring and an audience,
 * and a {@link Call} made from what the transport received (the JSON-RPC `id`,
 * `method` and `params` exactly as received). The call reads the era, the arguments,
 * `inputResponses`, `requestState` (unsealing it) and the client's capabilities itself,
 * hands the host its resolver steps and (on 2025-11-25) the requests to send, and
 * writes the whole JSON-RPC reply: the `InputRequiredResult` with a sealed
 * `requestState`, the -32021 / -32602 / -32603 errors, or the body's result. The MCP
 * envelopes live once, in the engine (docs/c-abi.md shows every reply's JSON).
 * @module
 */
import { type Abi, OK, type Text, abi, finalizer, liveHandle, utf8 } from "./abi.js";
import type { ElicitError } from "./errors.js";
import { type Json, jsonText, type Plan } from "./engine.js";
import { DEFAULT_TTL_SECS, type KeyRing, randomBytes } from "./seal.js";

/** The methods a plan can serve. */
export type Method = "tools/call" | "prompts/get" | "resources/read";
const METHODS: Record<Method, number> = { "tools/call": 0, "prompts/get": 1, "resources/read": 2 };

/** One declaration a server serves. */
export interface ServerEntry {
  plan: Plan;
  /** Default `"tools/call"`. */
  method?: Method;
  /** The tool or prompt name (default: the plan's tool name), or the resource's URI (required). */
  target?: string;
}

/** What a {@link Server} is made from. */
export interface ServerOptions {
  entries: readonly ServerEntry[];
  /** The key ring that seals and unseals `requestState` (may be freed afterwards). */
  keys: KeyRing;
  /** The audience tokens are bound to (the server's name); null for none. */
  audience: string | null;
  /** Token lifetime in seconds (default 600). */
  ttl?: number;
  /** Each call's workspace in bytes (0: the library's default). */
  workspaceSize?: number;
}

/** A request as the transport received it. */
export interface CallRequest {
  /** The JSON-RPC `id` (a number or a string). */
  id: number | string;
  method: Method;
  /** The request's `params`: its JSON text exactly as received, or the parsed object. */
  params: string | Json;
  /** The authenticated principal (absent: unauthenticated). */
  principal?: string | null;
  /** The version negotiated in `initialize` (absent when there was none). */
  protocolVersion?: string | null;
  /** The `capabilities` the client sent in `initialize` (absent when there was none). */
  clientCapabilities?: Json;
  /** Unix seconds (default `Date.now() / 1000`). */
  now?: number;
  /** 20 random bytes for sealing (default `crypto.getRandomValues`). */
  random?: Uint8Array;
}

/** What a call needs next ({@link Call.next}). */
export type CallStep =
  | { kind: "resolve"; param: number; name: string }
  | { kind: "ask"; param: number; name: string }
  | { kind: "done" }
  | { kind: "reply" };

/**
 * The plans a process serves, with its key ring and audience (`elicit_server`).
 * Throws {@link UsageError} for a bad entry (an unknown method, a resource without its
 * URI, the same target twice) or TTL.
 */
export class Server {
  readonly #abi: Abi;
  #handle: number;

  constructor(options: ServerOptions) {
    this.#abi = abi();
    const a = this.#abi;
    const entries = options.entries.map((e, i) => {
      const method = METHODS[e.method ?? "tools/call"];
      if (method === undefined) {
        throw new TypeError(`entries[${i}].method: ${String(e.method)} is not tools/call, prompts/get or resources/read`);
      }
      return { plan: e.plan.handle(a), method, target: e.target === undefined ? null : utf8(e.target) };
    });
    const made = a.serverNew(
      entries,
      options.keys.handle(a),
      options.audience === null ? null : utf8(options.audience),
      options.ttl ?? DEFAULT_TTL_SECS,
      options.workspaceSize ?? 0,
    );
    if (made.code !== OK || made.value === undefined) throw a.error(made.code, made.message);
    this.#handle = made.value;
    finalizer.register(this, { abi: a, kind: "server", handle: made.value }, this);
  }

  /**
   * Start serving `request`. A request the server cannot serve as sent (malformed
   * params, a `requestState` that does not verify, ...) is not an error here: the call
   * starts at its `reply` step with the JSON-RPC error written. Throws
   * {@link NotFoundError} when no entry serves the request's target.
   */
  call(request: CallRequest): Call {
    const a = this.#abi;
    a.live("server");
    const h = liveHandle(this.#handle, "server");
    const random = request.random ?? randomBytes();
    const made = a.callNew(h, {
      id: jsonText(request.id, "id"),
      method: request.method,
      params: typeof request.params === "string" ? request.params : jsonText(request.params, "params"),
      principal: request.principal ?? null,
      protocolVersion: request.protocolVersion ?? null,
      clientCapabilities:
        request.clientCapabilities == null ? null : jsonText(request.clientCapabilities, "clientCapabilities"),
      now: request.now ?? Date.now() / 1000,
      random,
    });
    if (made.code !== OK || made.value === undefined) throw a.error(made.code, made.message);
    return new Call(a, made.value);
  }

  /** Free the server (idempotent); calls made from it stay valid. */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("server", h);
    }
  }
}

/**
 * One request served from a {@link Server} (`elicit_call`): call {@link next} and
 * answer each step until `reply`, then send {@link reply}.
 */
export class Call {
  readonly #abi: Abi;
  #handle: number;

  /** @internal Made by {@link Server.call}. */
  constructor(a: Abi, handle: number) {
    this.#abi = a;
    this.#handle = handle;
    finalizer.register(this, { abi: a, kind: "call", handle }, this);
  }

  #live(): number {
    this.#abi.live("call");
    return liveHandle(this.#handle, "call");
  }

  #fail(h: number, code: number): ElicitError {
    const m = this.#abi.callRead(h, "last_error");
    return this.#abi.error(code, m.code === OK ? m.value : undefined);
  }

  #read(which: "reply" | "request" | "param_name" | "resolve_inputs" | "values" | "last_error"): string {
    const h = this.#live();
    const r = this.#abi.callRead(h, which);
    if (r.code !== OK || r.value === undefined) throw this.#fail(h, r.code);
    return r.value;
  }

  #input(which: "value" | "question" | "answer", text: Text): void {
    const h = this.#live();
    const code = this.#abi.callInput(h, which, text);
    if (code !== OK) throw this.#fail(h, code);
  }

  /** Advance the call: what it needs next. Every refusal of the request is a `reply`, not an error. */
  next(): CallStep {
    const h = this.#live();
    const r = this.#abi.callNext(h);
    if (r.code !== OK || !r.value) throw this.#fail(h, r.code);
    switch (r.value.kind) {
      case 1:
        return { kind: "resolve", param: r.value.param, name: this.#read("param_name") };
      case 2:
        return { kind: "ask", param: r.value.param, name: this.#read("param_name") };
      case 3:
        return { kind: "done" };
      default:
        return { kind: "reply" };
    }
  }

  /** At `resolve`: the resolver's inputs `{need: value}`. */
  resolveInputs(): Record<string, unknown> {
    return JSON.parse(this.#read("resolve_inputs")) as Record<string, unknown>;
  }

  /** At `resolve`: the resolver's value. */
  resolveValue(value: Json): void {
    this.#input("value", jsonText(value, "value"));
  }

  /** At `resolve`: the resolver's question: a form question's message, or a question object of the parameter's kind. */
  resolveQuestion(question: string | object, options: { title?: string; description?: string } = {}): void {
    const q = typeof question === "string" ? { message: question, ...options } : question;
    this.#input("question", jsonText(q, "question"));
  }

  /** At `ask` (2025-11-25): the request to send the client, `{method, params}` (add `jsonrpc` and an id). */
  request(): { method: string; params: Record<string, unknown> } {
    return JSON.parse(this.#read("request")) as { method: string; params: Record<string, unknown> };
  }

  /** At `ask`: the client's JSON-RPC response (the whole message, or its `result`). */
  answer(response: Json): void {
    this.#input("answer", jsonText(response, "response"));
  }

  /** At `done`: every parameter's value (model arguments and elicited ones), in signature order. */
  values(): Record<string, unknown> {
    return JSON.parse(this.#read("values")) as Record<string, unknown>;
  }

  /** After `done`: the body's text becomes the result (`isError` for a body that failed). */
  finish(text: string, isError = false): void {
    const h = this.#live();
    const code = this.#abi.callFinish(h, text, isError);
    if (code !== OK) throw this.#fail(h, code);
  }

  /** At `reply`: the whole JSON-RPC response to send (compact JSON text). */
  reply(): string {
    return this.#read("reply");
  }

  /** At `reply`: 0 for a result, else its JSON-RPC error code (-32021 is HTTP 400). */
  replyCode(): number {
    const h = this.#live();
    const r = this.#abi.callReplyCode(h);
    if (r.code !== OK || r.value === undefined) throw this.#fail(h, r.code);
    return r.value;
  }

  /** The most recent failure's message, for the log (why a `requestState` was refused, ...). */
  lastError(): string {
    return this.#read("last_error");
  }

  /** Free the call (idempotent). */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("call", h);
    }
  }
}
