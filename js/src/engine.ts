/**
 * Plans and rounds over the C ABI: {@link Plan} (a compiled declaration,
 * `elicit_plan`) and {@link Round} (one round of one call, `elicit_round`).
 * @module
 */
import { type Abi, type Input, ERR_MISSING_CAPABILITY, OK, abi, finalizer, liveHandle, utf8 } from "./abi.js";
import { ClosedError, MissingCapabilityError, type ElicitError } from "./errors.js";

/** How an elicited parameter is asked. */
export type InputKind = "form" | "url" | "sampling" | "roots";
const KINDS: InputKind[] = ["form", "url", "sampling", "roots"];

/** A JSON value (serialized with `JSON.stringify`). */
export type Json = unknown;

/** A parameter of a plan, in signature order. */
export interface Param {
  /** Its index (signature order). */
  readonly index: number;
  readonly name: string;
  /** True when the user answers it (false: the model supplies it as an argument). */
  readonly elicited: boolean;
  /** True when a resolver the host runs decides its question (or value). */
  readonly hasResolver: boolean;
  /** How it is asked; null for a model-supplied argument. */
  readonly kind: InputKind | null;
}

/** What a round needs next ({@link Round.poll}). */
export type Step =
  | { kind: "resolve"; param: number; name: string }
  | { kind: "ask"; param: number; name: string }
  | { kind: "done" }
  | { kind: "inputRequired" }
  /** A declared fallback (docs/fallback.md): answer the call with {@link Round.fallbackResult}. */
  | { kind: "fallback" };

/** Options of {@link Plan.modern}. */
export interface ModernOptions {
  /** The call's arguments (default `{}`). */
  arguments?: Json;
  /** The plaintext state the client sent back, already unsealed ({@link Sealer.unseal}). */
  requestState?: string | null;
  /** The request's `inputResponses`. */
  inputResponses?: Json;
  /** The client's ClientCapabilities (absent: form elicitation only). */
  capabilities?: Json;
  /** The round's workspace in bytes (0: the library's default, 64 KiB). */
  workspaceSize?: number;
}

/** Options of {@link Plan.handshake}. */
export interface HandshakeOptions {
  arguments?: Json;
  /** The ClientCapabilities the client sent in `initialize`. */
  capabilities?: Json;
  workspaceSize?: number;
}

/** A value as the JSON text an input takes (`JSON.stringify`), UTF-8; `what` names it in errors. */
export function jsonInput(value: Json, what: string): Uint8Array {
  return utf8(jsonText(value, what));
}

/** {@link jsonInput} as a string (the binding encodes it straight into the module's memory). */
export function jsonText(value: Json, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new TypeError(`${what}: cannot be written as JSON (${(e as Error).message})`);
  }
  if (text === undefined) throw new TypeError(`${what}: ${typeof value} cannot be written as JSON`);
  return text;
}

function optionalJson(value: Json, what: string): Input {
  return value === undefined || value === null ? null : jsonInput(value, what);
}

function workspace(size: number | undefined): number {
  const n = size ?? 0;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`workspaceSize must be a non-negative integer, got ${String(size)}`);
  }
  return n;
}

/**
 * A compiled declaration (`elicit_plan`): immutable; make rounds from it. Throws
 * {@link DeclarationError} (2xx) when the engine rejects the declaration; the message
 * names the parameter at fault. Free it with {@link free} (or let the garbage collector
 * do it); rounds already made stay valid.
 */
export class Plan {
  readonly #abi: Abi;
  #handle: number;
  /** The declaration's `tool` name. */
  readonly toolName: string;
  /** Every parameter, in signature order. */
  readonly params: readonly Param[];

  /** Compile `declaration` (an object, or its JSON text as a string). */
  constructor(declaration: Json) {
    const text = typeof declaration === "string" ? utf8(declaration) : jsonInput(declaration, "declaration");
    this.#abi = abi();
    const a = this.#abi;
    const made = a.planNew(text);
    if (made.code !== OK || made.value === undefined) throw a.error(made.code, made.message);
    this.#handle = made.value;
    finalizer.register(this, { abi: a, kind: "plan", handle: made.value }, this);
    const name = a.planToolName(made.value);
    const count = a.planParamCount(made.value);
    if (name.code !== OK) throw a.error(name.code, name.message);
    if (count.code !== OK) throw a.error(count.code, count.message);
    const params: Param[] = [];
    for (let i = 0; i < (count.value ?? 0); i++) {
      const p = a.planParam(made.value, i);
      if (p.code !== OK || !p.value) throw a.error(p.code, p.message);
      params.push({
        index: i,
        name: p.value.name,
        elicited: p.value.elicited,
        hasResolver: p.value.resolver,
        kind: p.value.kind === null ? null : (KINDS[p.value.kind] ?? null),
      });
    }
    this.toolName = name.value ?? "";
    this.params = Object.freeze(params);
  }

  #live(): number {
    this.#abi.live("plan");
    return liveHandle(this.#handle, "plan");
  }

  /** @internal The live handle, for {@link Server}. */
  handle(a: Abi): number {
    if (a !== this.#abi) throw new ClosedError("plan (made on a WebAssembly instance that trapped)");
    return this.#live();
  }

  /** The parameter called `name` (undefined when there is none). */
  param(name: string): Param | undefined {
    return this.params.find((p) => p.name === name);
  }

  /**
   * The tool's `inputSchema` as listed for one client (`elicit_plan_input_schema`,
   * docs/fallback.md): `inputSchema` is the schema of the model's arguments, as a client
   * that can be asked sees it; `capabilities` the client's ClientCapabilities (absent:
   * form elicitation only). For a tool declared with `"fallback": "arguments"` and a
   * client that cannot be asked, each parameter that falls back is added as an optional
   * property. `cachePrivate` is true when the tool declares the fallback at all: list it
   * with `cacheScope: "private"` on 2026-07-28. Throws `ELICIT_ERR_INPUT_SCHEMA` when
   * `inputSchema` is not a JSON object.
   */
  inputSchema(inputSchema: Json, capabilities?: Json): { inputSchema: Record<string, unknown>; cachePrivate: boolean } {
    const h = this.#live();
    const schema = jsonInput(inputSchema, "inputSchema");
    const caps = optionalJson(capabilities, "capabilities");
    const out = this.#abi.planInputSchema(h, schema, caps);
    if (out.code !== OK || out.value === undefined) throw this.#abi.error(out.code, out.message);
    return { inputSchema: JSON.parse(out.value.schema) as Record<string, unknown>, cachePrivate: out.value.cachePrivate };
  }

  /** Start a 2026-07-28 round (`elicit_round_new_modern`). */
  modern(options: ModernOptions = {}): Round {
    const h = this.#live();
    const args = jsonInput(options.arguments ?? {}, "arguments");
    const state = options.requestState == null ? null : utf8(options.requestState);
    const replies = optionalJson(options.inputResponses, "inputResponses");
    const caps = optionalJson(options.capabilities, "capabilities");
    const made = this.#abi.roundNewModern(h, args, state, replies, caps, workspace(options.workspaceSize));
    if (made.code !== OK || made.value === undefined) throw this.#abi.error(made.code, made.message);
    return new Round(this.#abi, made.value, this, "modern");
  }

  /** Start a handshake-era round (questions one at a time: `ask` steps). */
  handshake(options: HandshakeOptions = {}): Round {
    const h = this.#live();
    const args = jsonInput(options.arguments ?? {}, "arguments");
    const caps = optionalJson(options.capabilities, "capabilities");
    const made = this.#abi.roundNewHandshake(h, args, caps, workspace(options.workspaceSize));
    if (made.code !== OK || made.value === undefined) throw this.#abi.error(made.code, made.message);
    return new Round(this.#abi, made.value, this, "handshake");
  }

  /** Free the plan (idempotent); later calls throw {@link ClosedError}. */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("plan", h);
    }
  }
}

/** A note the round left for the host's log. */
export interface Note {
  /** 10 debug, 20 info. */
  level: number;
  /** The parameter it concerns (undefined for none). */
  param?: string;
  message: string;
}

const NO_PARAM = 0xffffffff;

/**
 * One round of one call (`elicit_round`), from {@link Plan.modern} or
 * {@link Plan.handshake}. Drive it: {@link poll}, answer the step it names, poll again,
 * until `done` (read {@link values}), `inputRequired` (read {@link inputRequests} and
 * {@link requestState}, seal the state, answer the call) or, for a tool declared with
 * `"fallback": "arguments"` and a client that cannot be asked, `fallback` (answer the
 * call with {@link fallbackResult}). A failed step throws the
 * round's error (an {@link ElicitError} subclass) from then on.
 */
export class Round {
  readonly #abi: Abi;
  #handle: number;
  readonly #plan: Plan;
  /** `"modern"` (2026-07-28) or `"handshake"` (2025-11-25 and earlier). */
  readonly era: "modern" | "handshake";

  /** @internal Made by {@link Plan.modern} and {@link Plan.handshake}. */
  constructor(a: Abi, handle: number, plan: Plan, era: "modern" | "handshake") {
    this.#abi = a;
    this.#handle = handle;
    this.#plan = plan;
    this.era = era;
    finalizer.register(this, { abi: a, kind: "round", handle }, this);
  }

  #live(): number {
    this.#abi.live("round");
    return liveHandle(this.#handle, "round");
  }

  /** The round's error for a non-zero code (its message; -32021 data for 304). */
  #fail(h: number, code: number): ElicitError {
    const a = this.#abi;
    const m = a.roundRead(h, "last_error");
    const message = m.code === OK && m.value ? m.value : a.codeText(code);
    if (code === ERR_MISSING_CAPABILITY) {
      const r = a.roundRead(h, "required_capabilities");
      const required = r.code === OK && r.value ? (JSON.parse(r.value) as Record<string, unknown>) : {};
      return new MissingCapabilityError(code, a.codeName(code), message, required);
    }
    return a.error(code, message);
  }

  #check(h: number, code: number): void {
    if (code !== OK) throw this.#fail(h, code);
  }

  #read(
    which: "resolve_inputs" | "ask" | "values" | "request_state" | "fallback_result",
  ): string {
    const h = this.#live();
    const r = this.#abi.roundRead(h, which);
    if (r.code !== OK || r.value === undefined) throw this.#fail(h, r.code);
    return r.value;
  }

  #name(param: number): string {
    return this.#plan.params[param]?.name ?? `#${param}`;
  }

  /** What the round needs next. */
  poll(): Step {
    const h = this.#live();
    const r = this.#abi.roundPoll(h);
    if (r.code !== OK || !r.value) throw this.#fail(h, r.code);
    const { kind, param } = r.value;
    switch (kind) {
      case 1:
        return { kind: "resolve", param, name: this.#name(param) };
      case 2:
        return { kind: "ask", param, name: this.#name(param) };
      case 3:
        return { kind: "done" };
      case 6:
        return { kind: "fallback" };
      default:
        return { kind: "inputRequired" };
    }
  }

  /** During `resolve`: the resolver's inputs `{need: value}`. */
  resolveInputs(): Record<string, unknown> {
    return JSON.parse(this.#read("resolve_inputs")) as Record<string, unknown>;
  }

  /** During `resolve`: the resolver returned a value (nothing is asked). */
  resolveValue(value: Json): void {
    const h = this.#live();
    this.#check(h, this.#abi.roundInput(h, "value", jsonInput(value, "value")));
  }

  /**
   * During `resolve`: the resolver asks. A string is a form question's message (with an
   * optional title and description); an object is a question in the shape of the
   * parameter's kind: form `{"message", "type"?, "title"?, "description"?}`, URL
   * `{"message", "url"}`, sampling `{"sampling": {...}}`, roots `{"roots": {}}`.
   */
  resolveQuestion(question: string | object, options: { title?: string; description?: string } = {}): void {
    const h = this.#live();
    const code =
      typeof question === "string"
        ? this.#abi.roundQuestionText(
            h,
            utf8(question),
            options.title === undefined ? null : utf8(options.title),
            options.description === undefined ? null : utf8(options.description),
          )
        : this.#abi.roundInput(h, "question", jsonInput(question, "question"));
    this.#check(h, code);
  }

  /** During `resolve`: the resolver's own dependency could not be built; the round fails. */
  resolveFailed(dependency: string): void {
    const h = this.#live();
    this.#check(h, this.#abi.roundInput(h, "failed", utf8(dependency)));
  }

  /** During `ask` (handshake era): the request's params to send to the client. */
  ask(): Record<string, unknown> {
    return JSON.parse(this.#read("ask")) as Record<string, unknown>;
  }

  /** During `ask`: the client's result (an ElicitResult, CreateMessageResult or ListRootsResult). */
  answer(result: Json): void {
    const h = this.#live();
    this.#check(h, this.#abi.roundInput(h, "answer", jsonInput(result, "result")));
  }

  /** At `done`: the elicited values `{name: value}`, in resolution order. */
  values(): Record<string, unknown> {
    return JSON.parse(this.#read("values")) as Record<string, unknown>;
  }

  /** At `done`: one parameter's value, by name or index. */
  valueOf(key: string | number): unknown {
    const h = this.#live();
    const index = typeof key === "number" ? key : (this.#plan.param(key)?.index ?? NO_PARAM);
    const r = this.#abi.roundValueOf(h, index);
    if (r.code !== OK || r.value === undefined) throw this.#fail(h, r.code);
    return JSON.parse(r.value);
  }

  /** At `inputRequired`: the `inputRequests` object (`clientView`: as the SDK's client renders it). */
  inputRequests(clientView = false): Record<string, unknown> {
    const h = this.#live();
    const r = this.#abi.roundInputRequests(h, clientView);
    if (r.code !== OK || r.value === undefined) throw this.#fail(h, r.code);
    return JSON.parse(r.value) as Record<string, unknown>;
  }

  /** At `inputRequired`: the plaintext `requestState` to seal ({@link Sealer.seal}). */
  requestState(): string {
    return this.#read("request_state");
  }

  /**
   * At `fallback`: the tool result for the model (`isError`, the questions to ask the
   * user under `_meta["elicit/askUser"]`; docs/fallback.md).
   */
  fallbackResult(): Record<string, unknown> {
    return JSON.parse(this.#read("fallback_result")) as Record<string, unknown>;
  }

  /** The notes the round left for the log. */
  notes(): Note[] {
    const h = this.#live();
    const r = this.#abi.roundNotes(h);
    if (r.code !== OK || !r.value) throw this.#fail(h, r.code);
    return r.value.map((n) =>
      n.param === NO_PARAM
        ? { level: n.kind, message: n.message }
        : { level: n.kind, param: this.#name(n.param), message: n.message },
    );
  }

  /** Free the round (idempotent). */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("round", h);
    }
  }
}
