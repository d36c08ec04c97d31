/**
 * Tool declarations in zod, the TypeScript SDK's schema library. A tool declares its
 * parameters in one zod shape, in signature order: a plain zod type is a model argument;
 * {@link elicit} marks a parameter the user answers, with a literal question or a
 * resolver (sync or async, given the values it needs by name, returning a value or an
 * {@link ask}ed question), an optional default and an input kind. {@link declareTool}
 * checks the declaration and compiles its {@link Plan} at once: a mistake throws there,
 * naming the parameter. The tool's `inputSchema` comes from the same shape, and its body
 * receives every value typed by inference ({@link Values}).
 *
 * ```ts
 * const book = declareTool("book_flight", {
 *   params: {
 *     destination: elicit(z.string(), { message: "Where would you like to fly?" }),
 *     airport: elicit(z.string(), {
 *       needs: ["destination"],
 *       resolve: ({ destination }) => KNOWN[destination] ?? ask(`Which airport in ${destination}?`),
 *     }),
 *     seat: elicit(z.enum(["window", "aisle"]), { message: "Window or aisle?", default: null }),
 *   },
 * });
 * ```
 * @module
 */
import { z } from "zod";
import { DeclarationError } from "./errors.js";
import { type InputKind, Plan, type Round, type Step } from "./engine.js";
import type { Call } from "./calls.js";

/** A question a resolver asks instead of returning a value ({@link ask}). */
export class Question {
  /** @internal */
  constructor(
    /** A form question's message (text), or a question object in the shape of the parameter's kind. */
    readonly question: string | Record<string, unknown>,
    /** Title and description of a text question. */
    readonly options: { title?: string; description?: string } = {},
  ) {}
}

/**
 * The question a resolver returns to have its parameter asked: a message (a form
 * question, with an optional title and description), or an object in the shape of the
 * parameter's kind: URL `{message, url}`, sampling `{sampling: {...}}`, roots `{roots: {}}`,
 * a form question with its own type `{message, type}`.
 */
export function ask(
  question: string | Record<string, unknown>,
  options: { title?: string; description?: string } = {},
): Question {
  return new Question(question, options);
}

type MaybePromise<T> = T | Promise<T>;

/** A resolver: given the values it needs by name, a value or a {@link Question}. */
export type Resolver<T> = (inputs: Record<string, any>) => MaybePromise<T | Question>;

/**
 * Options of {@link elicit}: a literal question (a form or URL-mode `message`, a
 * `sampling` request or a `roots` request), or a resolver.
 */
export type ElicitOptions<T> = {
  /** The value when the user declines or cancels (makes the parameter optional). */
  default?: T | null;
  /** The parameter settles to the outcome itself (`{action, value?}`). */
  outcome?: boolean;
  /**
   * `false` keeps the parameter out of its tool's declared fallback
   * ({@link ToolDeclaration.fallback}, docs/fallback.md): what only the user may answer
   * (a confirmation, a secret) is never taken from the model, and a client that cannot
   * be asked it gets -32021. Default `true`.
   */
  fallback?: boolean;
} & (
  | {
      /** The literal question shown to the user. */
      message: string;
      title?: string;
      description?: string;
      /** URL-mode elicitation: the page the user visits (the value is `true` when accepted). */
      url?: string;
      /**
       * A form question's `requestedSchema`, sent as written (JSON Schema in the MCP
       * elicitation subset, checked at registration) instead of the one the zod type
       * gives; the parameter settles to the accepted content object.
       */
      requestedSchema?: Record<string, unknown>;
      needs?: never;
      resolve?: never;
      sampling?: never;
      roots?: never;
    }
  | {
      /** A literal sampling request: CreateMessageRequest params (the value is the client's CreateMessageResult). */
      sampling: Record<string, unknown>;
      message?: never;
      needs?: never;
      resolve?: never;
      roots?: never;
    }
  | {
      /** A literal roots request: ListRootsRequest params, usually `{}` (the value is the roots array). */
      roots: Record<string, unknown>;
      message?: never;
      needs?: never;
      resolve?: never;
      sampling?: never;
    }
  | {
      /** The names (other parameters) the resolver is given. */
      needs: readonly string[];
      /** Decides the value, or the question to ask. */
      resolve: Resolver<T>;
      /** How the resolver's questions are asked (default form). */
      kind?: InputKind;
      /** As a literal question's: the `requestedSchema` of the resolver's form questions, sent as written. */
      requestedSchema?: Record<string, unknown>;
      message?: never;
      sampling?: never;
      roots?: never;
    }
);

const ELICITED = Symbol("elicit-mcp.elicited");

/** An elicited parameter (made by {@link elicit}); `T` is its value's type. */
export interface Elicited<T> {
  readonly [ELICITED]: true;
  /** The answer's type (null for kinds whose answer is not a form value). */
  readonly schema: z.ZodType | null;
  /** The declaration's `elicit` member and the parameter's other keys. */
  readonly spec: {
    elicit: Record<string, unknown>;
    extra: Record<string, unknown>;
    kind: InputKind;
    /** The `requestedSchema` given as written (`requestedSchema`), if any. */
    requestedSchema?: Record<string, unknown>;
    /** More than one of message, sampling, roots and a resolver were given: their names. */
    conflict?: string[];
  };
  readonly resolve: Resolver<unknown> | undefined;
  /** Phantom: the value's type. */
  readonly __value?: T;
}

function isElicited(v: unknown): v is Elicited<unknown> {
  return typeof v === "object" && v !== null && ELICITED in v;
}

type Settled<T, O> = O extends { outcome: true }
  ? { action: "accept"; value: T } | { action: "decline" } | { action: "cancel" }
  : O extends { default: infer D }
    ? T | D
    : T;

/**
 * A parameter the user answers, of type `schema` (string, number, integer, boolean,
 * enum, array of enum, or an object of such fields; constraints such as `.min()`,
 * `.max()`, `z.email()` carry over). See {@link ElicitOptions}.
 */
export function elicit<S extends z.ZodType, const O extends ElicitOptions<z.output<S>>>(
  schema: S,
  options: O,
): Elicited<Settled<z.output<S>, O>> {
  // Read loosely: a JavaScript caller may pass any mix (checked at registration).
  const o = options as unknown as Record<string, any>;
  const extra: Record<string, unknown> = {};
  if ("default" in o) extra.default = o.default;
  if (o.outcome) extra.outcome = true;
  let e: Record<string, unknown>;
  let kind: InputKind = "form";
  // Caught at registration, where the parameter's name is known.
  const given: string[] = ["message", "sampling", "roots"].filter((k) => o[k] !== undefined);
  if (typeof o.resolve === "function" || o.needs !== undefined) given.push("resolver");
  const conflict = given.length > 1 ? given : undefined;
  if (typeof o.resolve === "function" || o.needs !== undefined) {
    if (o.message !== undefined) {
      e = { message: o.message, needs: o.needs, __resolverAndMessage: true };
    } else {
      e = { needs: [...(o.needs ?? [])] };
      if (o.kind && o.kind !== "form") e.kind = o.kind;
      kind = o.kind ?? "form";
    }
  } else if (o.sampling !== undefined) {
    e = { sampling: o.sampling };
    kind = "sampling";
  } else if (o.roots !== undefined) {
    e = { roots: o.roots };
    kind = "roots";
  } else {
    e = { message: o.message };
    if (o.title !== undefined) e.title = o.title;
    if (o.description !== undefined) e.description = o.description;
    if (o.url !== undefined) {
      e.url = o.url;
      kind = "url";
    }
  }
  // The engine checks the value (a boolean; true on a URL-mode or sampling input is refused).
  if ("fallback" in o && o.fallback !== true) e.fallback = o.fallback;
  return {
    [ELICITED]: true,
    schema,
    spec: {
      elicit: e,
      extra,
      kind,
      ...(o.requestedSchema !== undefined && { requestedSchema: o.requestedSchema }),
      ...(conflict && { conflict }),
    },
    resolve: typeof o.resolve === "function" ? o.resolve : undefined,
  } as Elicited<Settled<z.output<S>, O>>;
}

/** The zod shape of a tool's parameters: model arguments (zod types) and elicited ones. */
export type ParamShape = Record<string, z.ZodType | Elicited<unknown>>;

/** The values a tool's body receives: every parameter, typed. */
export type Values<S extends ParamShape> = {
  [K in keyof S]: S[K] extends Elicited<infer V> ? V : S[K] extends z.ZodType ? z.output<S[K]> : never;
};

/** The declaration {@link declareTool} takes. */
export interface ToolDeclaration<S extends ParamShape> {
  title?: string;
  description?: string;
  /** Every parameter in signature order (the order questions go out in). */
  params: S;
  /**
   * `"arguments"`: a client that cannot be asked answers through the model
   * (docs/fallback.md): its listing shows the parameters that fall back as optional
   * arguments, a call takes those arguments as the answers, and while something must
   * still be asked the call's result (`isError`) names the questions for the model to
   * ask the user. Absent: such a client gets -32021.
   */
  fallback?: "arguments";
  /** The tool's body: every value typed, its text the tool's result ({@link DeclaredTool.serve}). */
  body?: (values: Values<S>) => MaybePromise<string>;
}

/** Options of {@link DeclaredTool.serve}. */
export interface ServeOptions {
  /**
   * 2025-11-25: send the request (`{method, params}`: `elicitation/create`,
   * `sampling/createMessage` or `roots/list`) to the client and resolve to its result
   * (a rejection is passed on as the client's error response).
   */
  ask?: (request: { method: string; params: Record<string, unknown> }) => Promise<unknown>;
  /** Called with why, when the reply is a JSON-RPC error (`Call.lastError`: a `requestState` refused for an unknown key, ...), for the log. */
  refused?: (why: string) => void;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** A JSON Schema from zod → the declaration's type (the MCP elicitation subset's forms). */
function typeOf(schema: Record<string, unknown>, where: string): unknown {
  const s: Record<string, unknown> = { ...schema };
  delete s.$schema;
  // z.int() states the safe-integer range: not a constraint of the question.
  if (s.type === "integer") {
    if (s.minimum === -SAFE) delete s.minimum;
    if (s.maximum === SAFE) delete s.maximum;
  }
  // zod writes a pattern beside a format (z.email()); the format is what MCP carries.
  if (s.format !== undefined) delete s.pattern;
  if (s.pattern !== undefined) {
    throw mistake(`${where}: a regex pattern cannot be asked (MCP elicitation has no pattern); use a format or none`);
  }
  if (s.type === "object") {
    const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((s.required as string[] | undefined) ?? []);
    const fields: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(props)) {
      if (!required.has(name) && !("default" in field)) {
        throw mistake(`${where}: field "${name}" is optional without a default; give it a .default(...)`);
      }
      fields[name] = typeOf(field, `${where}, field "${name}"`);
    }
    const out: Record<string, unknown> = { type: "object", properties: fields };
    if (s.title !== undefined) out.title = s.title;
    return out;
  }
  if (s.type === "array" && typeof s.items === "object" && s.items !== null) {
    const items = { ...(s.items as Record<string, unknown>) };
    if (items.type === "string" && Array.isArray(items.enum)) delete items.type;
    s.items = items;
    return s;
  }
  if (s.type === "string" && Array.isArray(s.enum)) delete s.type;
  const keys = Object.keys(s);
  if (keys.length === 1 && keys[0] === "type" && typeof s.type === "string") return s.type;
  return s;
}

function jsonSchema(schema: z.ZodType, where: string): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as Record<string, unknown>;
  } catch (e) {
    throw mistake(`${where}: its type cannot be asked (${(e as Error).message})`);
  }
}

/** A declaration mistake found before the engine sees it (code 201, as the engine's). */
function mistake(message: string): DeclarationError {
  return new DeclarationError(201, "ELICIT_ERR_DECLARATION", message);
}

/**
 * A declared tool: its declaration, its compiled {@link Plan}, its `inputSchema`, its
 * resolvers. Made by {@link declareTool}.
 */
export class DeclaredTool<S extends ParamShape> {
  /** The tool's name. */
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string | undefined;
  /** The declaration JSON the plan is compiled from. */
  readonly declaration: Record<string, unknown>;
  /** The compiled plan. */
  readonly plan: Plan;
  /** The model arguments' zod shape (what McpServer's `registerTool` takes as `inputSchema`). */
  readonly argumentsShape: Record<string, z.ZodType>;
  /** The tool's `inputSchema` (JSON Schema of the model arguments; elicited ones are left out). */
  readonly inputSchema: Record<string, unknown>;
  /** The declared fallback (`"arguments"`, docs/fallback.md), or undefined. */
  readonly fallback: "arguments" | undefined;
  readonly #resolvers: Map<string, Resolver<unknown>>;
  readonly #body: ((values: Values<S>) => MaybePromise<string>) | undefined;

  constructor(name: string, decl: ToolDeclaration<S>) {
    if (typeof name !== "string" || !name) throw mistake("tool name: give a non-empty string");
    if (typeof decl !== "object" || decl === null || typeof decl.params !== "object" || decl.params === null) {
      throw mistake(`tool "${name}": give its parameters as { params: { name: zod type or elicit(...) } }`);
    }
    const params: Record<string, unknown>[] = [];
    const args: Record<string, z.ZodType> = {};
    const resolvers = new Map<string, Resolver<unknown>>();
    for (const [pname, p] of Object.entries(decl.params)) {
      const where = `tool "${name}", parameter "${pname}"`;
      if (isElicited(p)) {
        const e = p.spec.elicit;
        if (e.__resolverAndMessage) {
          throw mistake(`${where}: has both a literal question (message) and a resolver; a resolver asks its own questions, so give one or the other`);
        }
        if (p.spec.conflict) {
          throw mistake(`${where}: give exactly one of message, sampling, roots or a resolver (got ${p.spec.conflict.join(", ")})`);
        }
        if (e.message === undefined && e.sampling === undefined && e.roots === undefined && !p.resolve) {
          throw mistake(`${where}: give a literal question (message, sampling or roots) or a resolver (needs and resolve)`);
        }
        if (p.resolve === undefined && Array.isArray(e.needs)) {
          throw mistake(`${where}: has needs but no resolve function`);
        }
        const param: Record<string, unknown> = { name: pname };
        const raw = p.spec.requestedSchema;
        if (raw !== undefined) {
          if (p.spec.kind !== "form") throw mistake(`${where}: requestedSchema belongs to a form question, not a ${p.spec.kind} one`);
          if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
            throw mistake(`${where}: requestedSchema must be a JSON Schema object ({type: "object", properties: {...}})`);
          }
          param.type = { schema: raw };
        } else if (p.spec.kind === "form" && p.schema) {
          const type = typeOf(jsonSchema(p.schema, where), where);
          if (type !== "string") param.type = type;
        }
        Object.assign(param, p.spec.extra);
        param.elicit = e;
        params.push(param);
        if (p.resolve) resolvers.set(pname, p.resolve);
      } else if (p instanceof z.ZodType) {
        args[pname] = p;
        const param: Record<string, unknown> = { name: pname };
        try {
          param.type = typeOf(jsonSchema(p, where), where);
        } catch {
          // A model argument of a type outside the elicitation subset: the engine only
          // needs its name (zod checks the value).
        }
        params.push(param);
      } else {
        throw mistake(`${where}: is neither a zod type (a model argument) nor elicit(...)`);
      }
    }
    this.name = name;
    this.title = decl.title;
    this.description = decl.description;
    this.declaration = { tool: name, parameters: params };
    // The engine checks the value (only "arguments" is a fallback).
    if (decl.fallback !== undefined) this.declaration.fallback = decl.fallback;
    this.fallback = decl.fallback;
    this.argumentsShape = args;
    // Strict: the model passes the declared arguments only (additionalProperties false, as
    // elicit's other servers list them).
    const schema = z.toJSONSchema(z.strictObject(args), { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    this.inputSchema = schema;
    this.#resolvers = resolvers;
    this.#body = decl.body;
    // The engine checks the rest (needs naming no parameter, cycles, declared types,
    // capacities) with its own
    // messages, naming the parameter: a DeclarationError here, at registration.
    this.plan = new Plan(this.declaration);
  }

  /**
   * The `inputSchema` to list for a client with these ClientCapabilities
   * ({@link Plan.inputSchema}) and whether the listing differs by client (list it with
   * `cacheScope: "private"` on 2026-07-28). A tool without a declared fallback is
   * {@link inputSchema} for every client (the engine would write it back unchanged: no
   * call is made).
   */
  listedSchema(capabilities: unknown): { inputSchema: Record<string, unknown>; cachePrivate: boolean } {
    if (this.fallback === undefined) return { inputSchema: this.inputSchema, cachePrivate: false };
    return this.plan.inputSchema(this.inputSchema, capabilities);
  }

  /**
   * Run the resolvers the round asks for (`resolve` steps), awaiting async ones, until
   * it needs something else: the step returned is `ask`, `done`, `inputRequired` or
   * `fallback`. A resolver that throws fails the round through `resolveFailed` and the
   * error is rethrown.
   */
  async drive(round: Round): Promise<Exclude<Step, { kind: "resolve" }>> {
    for (;;) {
      const step = round.poll();
      if (step.kind !== "resolve") return step;
      let result: unknown;
      try {
        result = await this.#resolve(step.name, round.resolveInputs());
      } catch (e) {
        round.resolveFailed(`${step.name}: ${(e as Error)?.message ?? String(e)}`);
        throw e;
      }
      if (result instanceof Question) round.resolveQuestion(result.question, result.options);
      else round.resolveValue(result === undefined ? null : result);
    }
  }

  /** The resolver of parameter `name`, run on its inputs: a value or a {@link Question}. */
  async #resolve(name: string, inputs: Record<string, unknown>): Promise<unknown> {
    const resolver = this.#resolvers.get(name);
    if (!resolver) {
      // The plan and the resolvers come from one declaration: cannot happen.
      throw mistake(`tool "${this.name}", parameter "${name}": no resolver is registered`);
    }
    return resolver(inputs);
  }

  /**
   * Serve one call of this tool (made by a {@link Server} holding {@link plan}) to its
   * reply: resolvers run (awaited), on 2025-11-25 each request goes through
   * `options.ask`, the body runs with every value typed, and the JSON-RPC reply the
   * engine wrote is returned (JSON text: send it as it is). A body that throws gives a
   * tool result with `isError` and its message; a resolver that throws rejects (a
   * server bug: answer -32603 "Internal error" and log it). The call is freed.
   */
  async serve(call: Call, options: ServeOptions = {}): Promise<string> {
    // An input the engine refuses (a declined answer a resolver re-asks, a question of a
    // kind the client did not declare) returns its code and moves the call to its reply
    // (the JSON-RPC error or tool error written): the code is only an error when the call
    // does not then reply.
    let refused: unknown;
    const input = (give: () => void): void => {
      try {
        give();
      } catch (e) {
        refused = e;
      }
    };
    try {
      for (;;) {
        const step = call.next();
        if (refused !== undefined && step.kind !== "reply") throw refused;
        refused = undefined;
        switch (step.kind) {
          case "resolve": {
            const result = await this.#resolve(step.name, call.resolveInputs());
            if (result instanceof Question) input(() => call.resolveQuestion(result.question, result.options));
            else input(() => call.resolveValue(result === undefined ? null : result));
            break;
          }
          case "ask": {
            if (!options.ask) {
              throw new TypeError(`tool "${this.name}": a 2025-11-25 call asks the client; pass options.ask`);
            }
            let response: unknown;
            try {
              response = { result: await options.ask(call.request()) };
            } catch (e) {
              const err = e as { code?: unknown; message?: unknown };
              response = {
                error: {
                  code: typeof err?.code === "number" ? err.code : -32603,
                  message: typeof err?.message === "string" ? err.message : String(e),
                },
              };
            }
            input(() => call.answer(response));
            break;
          }
          case "done": {
            if (!this.#body) throw new TypeError(`tool "${this.name}": declared without a body`);
            let text: string;
            let failed = false;
            try {
              text = await this.#body(call.values() as Values<S>);
            } catch (e) {
              text = e instanceof Error ? e.message : String(e);
              failed = true;
            }
            call.finish(text, failed);
            break;
          }
          case "reply":
            if (options.refused && call.replyCode() !== 0) options.refused(call.lastError());
            return call.reply();
        }
      }
    } finally {
      call.free();
    }
  }

  /** The values of a round at `done` with the call's arguments, typed as the body receives them. */
  values(round: Round, args: Record<string, unknown>): Values<S> {
    return { ...args, ...round.values() } as Values<S>;
  }
}

/** Declare a tool (see the module's example); throws {@link DeclarationError} naming the parameter at fault. */
export function declareTool<S extends ParamShape>(name: string, decl: ToolDeclaration<S>): DeclaredTool<S> {
  return new DeclaredTool(name, decl);
}
