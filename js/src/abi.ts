/**
 * The low-level binding: the C ABI (include/elicit.h) compiled to WebAssembly, as the
 * Python package binds the same library with ctypes. This file is the one place that
 * knows the module's export names and signatures; the classes (Plan, Round, KeyRing,
 * Sealer) call its methods only, so a signature change of the C ABI is one edit here.
 *
 * Conventions of the C ABI seen from here: every pointer and `size_t` is a wasm32 `i32`
 * (a JavaScript number), `double` is a number, `int64_t` a BigInt; text goes in as UTF-8
 * `(ptr, len)` in buffers from `elicit_wasm_alloc`, and comes out through
 * `(buf, cap, out_len)` (too small: `ELICIT_ERR_BUFFER_TOO_SMALL` with the size needed,
 * then one retry with that size).
 *
 * A trap (a panic inside the library: wasm32-unknown-unknown cannot unwind) leaves the
 * instance unusable: it is marked dead, the call throws {@link InternalError}, every
 * handle made on it throws the same from then on, and the next handle made gets a new
 * instance.
 * @module
 */
import { ClosedError, InternalError, errorFor, type ElicitError } from "./errors.js";
import { WASM_BASE64 } from "./wasm.generated.js";

/** `ELICIT_OK`. */
export const OK = 0;
/** `ELICIT_ERR_BUFFER_TOO_SMALL`. */
export const ERR_BUFFER_TOO_SMALL = 102;
/** `ELICIT_ERR_REQUEST_STATE`. */
export const ERR_REQUEST_STATE = 303;
/** `ELICIT_ERR_MISSING_CAPABILITY`. */
export const ERR_MISSING_CAPABILITY = 304;
/**
 * The C ABI version (major.minor) this binding's signatures are written for. The module
 * is embedded from the same checkout, so it must be exactly this one: before 1.0 a minor
 * version may change signatures, and a stale binding would pass wrong arguments.
 */
export const ABI_MAJOR = 0;
/** See {@link ABI_MAJOR}. */
export const ABI_MINOR = 5;

/** A handle (a pointer into the instance's memory); 0 is NULL. */
export type Ptr = number;
/** A text input: UTF-8 bytes, or a string (encoded as UTF-8 straight into the module's memory). */
export type Text = Uint8Array | string;
/** An input: a {@link Text}, or null for NULL with length 0. */
export type Input = Text | null;

/** The module's exports, as include/elicit.h declares them (wasm32: pointers and size_t are i32). */
interface Exports {
  memory: WebAssembly.Memory;
  elicit_wasm_alloc(len: number): Ptr;
  elicit_wasm_free(ptr: Ptr, len: number): void;
  elicit_abi_version(): number;
  elicit_result_str(code: number): Ptr;
  elicit_result_name(code: number): Ptr;
  elicit_plan_new(decl: Ptr, len: number, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr): number;
  elicit_plan_free(plan: Ptr): void;
  elicit_plan_tool_name(plan: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_plan_param_count(plan: Ptr, out: Ptr): number;
  elicit_plan_param_name(plan: Ptr, i: number, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_plan_param_is_elicited(plan: Ptr, i: number, out: Ptr): number;
  elicit_plan_param_has_resolver(plan: Ptr, i: number, out: Ptr): number;
  elicit_plan_param_kind(plan: Ptr, i: number, out: Ptr): number;
  elicit_plan_input_schema(
    plan: Ptr,
    schema: Ptr,
    schemaLen: number,
    caps: Ptr,
    capsLen: number,
    cachePrivate: Ptr,
    buf: Ptr,
    cap: number,
    outLen: Ptr,
  ): number;
  elicit_round_new_modern(
    plan: Ptr, input: Ptr, workspace: number, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr,
  ): number;
  elicit_round_new_handshake(
    plan: Ptr, input: Ptr, workspace: number, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr,
  ): number;
  elicit_round_free(round: Ptr): void;
  elicit_round_poll(round: Ptr, kind: Ptr, param: Ptr): number;
  elicit_round_resolve_value(round: Ptr, text: Ptr, len: number): number;
  elicit_round_resolve_question(round: Ptr, text: Ptr, len: number): number;
  elicit_round_resolve_failed(round: Ptr, text: Ptr, len: number): number;
  elicit_round_resolve_question_text(
    round: Ptr, message: Ptr, messageLen: number, title: Ptr, titleLen: number,
    description: Ptr, descriptionLen: number,
  ): number;
  elicit_round_answer(round: Ptr, text: Ptr, len: number): number;
  elicit_round_resolve_inputs(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_ask(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_values(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_request_state(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_required_capabilities(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_fallback_result(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_last_error(round: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_value_of(round: Ptr, i: number, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_input_requests(round: Ptr, flags: number, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_round_note_count(round: Ptr, out: Ptr): number;
  elicit_round_note(
    round: Ptr, i: number, kind: Ptr, param: Ptr, buf: Ptr, cap: number, outLen: Ptr,
  ): number;
  elicit_key_ring_new(
    keys: Ptr, lens: Ptr, count: number, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr,
  ): number;
  elicit_key_ring_free(ring: Ptr): void;
  elicit_sealer_new(
    ring: Ptr, audience: Ptr, audienceLen: number, ttl: number, out: Ptr, errBuf: Ptr,
    errCap: number, errLen: Ptr,
  ): number;
  elicit_sealer_free(sealer: Ptr): void;
  elicit_sealer_seal(
    sealer: Ptr, request: Ptr, state: Ptr, stateLen: number, buf: Ptr, cap: number, outLen: Ptr,
    detail: Ptr,
  ): number;
  elicit_server_new(config: Ptr, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr): number;
  elicit_server_free(server: Ptr): void;
  elicit_call_new(server: Ptr, request: Ptr, out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr): number;
  elicit_call_next(call: Ptr, step: Ptr, param: Ptr): number;
  elicit_call_resolve_value(call: Ptr, text: Ptr, len: number): number;
  elicit_call_resolve_question(call: Ptr, text: Ptr, len: number): number;
  elicit_call_answer(call: Ptr, text: Ptr, len: number): number;
  elicit_call_finish(call: Ptr, text: Ptr, len: number, isError: number): number;
  elicit_call_reply(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_reply_code(call: Ptr, code: Ptr): number;
  elicit_call_request(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_param_name(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_resolve_inputs(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_values(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_last_error(call: Ptr, buf: Ptr, cap: number, outLen: Ptr): number;
  elicit_call_free(call: Ptr): void;
  elicit_sealer_unseal(
    sealer: Ptr, request: Ptr, hasState: Ptr, buf: Ptr, cap: number, outLen: Ptr, detail: Ptr,
  ): number;
}

/** One request as the transport received it (`struct elicit_request`). */
export interface Request {
  id: Text;
  method: Text;
  params: Input;
  principal: Input;
  protocolVersion: Input;
  clientCapabilities: Input;
  now: number;
  random: Uint8Array;
}

/** Which handle type a free function releases. */
export type HandleKind = "plan" | "round" | "key ring" | "sealer" | "server" | "call";

/** A call's result: the code, and on failure the message the ABI gave (if any). */
export interface Outcome<T> {
  code: number;
  value?: T;
  message?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
/** The error buffer a constructor writes its message to (messages are cut to fit). */
const ERR_CAP = 4096;
/** The first output buffer of a reader (grown to the size needed when too small). */
const FIRST_CAP = 1024;

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

let compiled: WebAssembly.Module | undefined;

function module(): WebAssembly.Module {
  if (!compiled) {
    const text = atob(WASM_BASE64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

/**
 * The scratch arena's size: one block of the module's memory per instance, taken once,
 * that every call's inputs, out-parameters and output buffers are carved from (a
 * request's texts, the 4 KB error buffer and the 1 KB first output buffer fit many
 * times over). An allocation that does not fit in what is left gets its own block.
 */
const ARENA = 64 * 1024;

/**
 * Temporary allocations of one call: inputs copied in, out-parameters, output buffers.
 * They come from the instance's scratch arena, 8-aligned (the C structs hold a
 * `double`), by moving its top; the frame puts the top back where it found it when the
 * call returns (frames nest: a frame made inside another ends first). What does not fit
 * is allocated in the module and freed then.
 */
class Frame {
  private readonly held: Array<[Ptr, number]> = [];
  private readonly mark: number;
  constructor(private readonly abi: Abi) {
    this.mark = abi.arenaTop;
  }

  alloc(len: number): Ptr {
    if (len === 0) return 0;
    const a = this.abi;
    const at = (a.arenaTop + 7) & ~7;
    if (at + len <= a.arenaEnd) {
      a.arenaTop = at + len;
      return at;
    }
    const p = a.x.elicit_wasm_alloc(len);
    if (p === 0) {
      throw new InternalError(999, "ELICIT_ERR_OTHER", `cannot allocate ${len} bytes in the WebAssembly memory`);
    }
    this.held.push([p, len]);
    return p;
  }

  /** A zeroed out-parameter of `len` bytes. */
  out(len = 8): Ptr {
    const p = this.alloc(len);
    this.abi.view().fill(0, p, p + len);
    return p;
  }

  /** `text` copied in (a string as UTF-8); `[ptr, len]` (NULL and 0 for null). */
  input(text: Input): [Ptr, number] {
    if (text === null) return [0, 0];
    const a = this.abi;
    if (!(text instanceof Uint8Array)) {
      // (A caller without types may pass another value: written as its string, as
      // TextEncoder does.) At most 3 UTF-8 bytes per UTF-16 unit. In the arena, encoded in place and the
      // unused end given back; a longer text is encoded first and copied in below.
      const str = String(text);
      const most = Math.max(1, 3 * str.length);
      const start = (a.arenaTop + 7) & ~7;
      if (start + most > a.arenaEnd) return this.input(utf8(str));
      const p = this.alloc(most);
      const { written } = encoder.encodeInto(str, a.view().subarray(p, p + most));
      a.arenaTop = p + Math.max(1, written);
      return [p, written];
    }
    // A zero-length text is a valid pointer with length 0 (NULL would mean "absent").
    const p = this.alloc(Math.max(1, text.length));
    a.view().set(text, p);
    return [p, text.length];
  }

  free(): void {
    this.abi.arenaTop = this.mark;
    for (const [p, len] of this.held) this.abi.x.elicit_wasm_free(p, len);
    this.held.length = 0;
  }
}

/** One instance of the module. */
export class Abi {
  /** The instance's exports (for this file and its tests only). */
  readonly x: Exports;
  /** True once the instance trapped: nothing made on it may be used again. */
  dead = false;
  /** The scratch arena: `[arenaStart, arenaEnd)`, free from `arenaTop` (for {@link Frame} only). */
  readonly arenaStart: Ptr;
  /** See {@link arenaStart}. */
  arenaTop: Ptr;
  /** See {@link arenaStart}. */
  readonly arenaEnd: Ptr;
  /** The memory's buffer the cached views are of (a call that grows the memory replaces it). */
  private buffer: ArrayBuffer | undefined;
  private bytes = new Uint8Array(0);
  private words = new DataView(new ArrayBuffer(0));

  constructor() {
    const instance = new WebAssembly.Instance(module(), {});
    this.x = instance.exports as unknown as Exports;
    const version = this.x.elicit_abi_version();
    const major = version >>> 16;
    const minor = (version >>> 8) & 0xff;
    if (major !== ABI_MAJOR || minor !== ABI_MINOR) {
      throw new InternalError(
        999,
        "ELICIT_ERR_OTHER",
        `the embedded module has C ABI ${major}.${minor}; this binding is written for ${ABI_MAJOR}.${ABI_MINOR}: follow the signature changes in js/src/abi.ts`,
      );
    }
    const arena = this.x.elicit_wasm_alloc(ARENA);
    if (arena === 0) {
      throw new InternalError(999, "ELICIT_ERR_OTHER", `cannot allocate ${ARENA} bytes in the WebAssembly memory`);
    }
    this.arenaStart = arena;
    this.arenaTop = arena;
    this.arenaEnd = arena + ARENA;
  }

  /** A view of the whole memory, made again after a call grew it (which detaches the old one). */
  view(): Uint8Array {
    this.refresh();
    return this.bytes;
  }

  /** A DataView of the whole memory, as {@link view}. */
  private data(): DataView {
    this.refresh();
    return this.words;
  }

  private refresh(): void {
    const buffer = this.x.memory.buffer;
    if (buffer !== this.buffer) {
      this.buffer = buffer;
      this.bytes = new Uint8Array(buffer);
      this.words = new DataView(buffer);
    }
  }

  u32(p: Ptr): number {
    return this.data().getUint32(p, true);
  }

  f64(p: Ptr): number {
    return this.data().getFloat64(p, true);
  }

  bool(p: Ptr): boolean {
    return this.view()[p] !== 0;
  }

  /** The `len` bytes at `p`, decoded as UTF-8. */
  text(p: Ptr, len: number): string {
    return decoder.decode(this.view().subarray(p, p + len));
  }

  /** A static NUL-terminated string at `p` ("" for NULL). */
  cstr(p: Ptr): string {
    if (p === 0) return "";
    const mem = this.view();
    let end = p;
    while (end < mem.length && mem[end] !== 0) end++;
    return decoder.decode(mem.subarray(p, end));
  }

  /** `elicit_result_name(code)`. */
  codeName(code: number): string {
    return this.cstr(this.x.elicit_result_name(code));
  }

  /** `elicit_result_str(code)`. */
  codeText(code: number): string {
    return this.cstr(this.x.elicit_result_str(code));
  }

  /** The error for a failed call: its class by `code`, the ABI's `message` or else the code's text. */
  error(code: number, message?: string): ElicitError {
    return errorFor(code, this.codeName(code), message || this.codeText(code));
  }

  /** Fail when the instance trapped before. */
  live(what: HandleKind): void {
    if (this.dead) {
      throw new InternalError(
        900,
        "ELICIT_ERR_PANIC",
        `the WebAssembly instance this ${what} was made on trapped; make the ${what} again`,
      );
    }
  }

  /** Run `f` with a frame, freeing its allocations after; a trap kills the instance. */
  call<T>(f: (frame: Frame) => T): T {
    if (this.dead) {
      throw new InternalError(900, "ELICIT_ERR_PANIC", "the WebAssembly instance trapped; make the handles again");
    }
    const frame = new Frame(this);
    try {
      return f(frame);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        this.dead = true;
        throw new InternalError(
          900,
          "ELICIT_ERR_PANIC",
          `the WebAssembly instance trapped (${e.message}); every plan, round and sealer made on it is gone: make them again`,
        );
      }
      throw e;
    } finally {
      if (!this.dead) frame.free();
    }
  }

  /** A reader `(…, buf, cap, out_len)`: the whole output, growing the buffer once. */
  private read(frame: Frame, fn: (buf: Ptr, cap: number, outLen: Ptr) => number): Outcome<string> {
    const outLen = frame.out(4);
    let cap = FIRST_CAP;
    let buf = frame.alloc(cap);
    let code = fn(buf, cap, outLen);
    if (code === ERR_BUFFER_TOO_SMALL) {
      cap = this.u32(outLen);
      buf = frame.alloc(Math.max(1, cap));
      code = fn(buf, cap, outLen);
    }
    return code === OK ? { code, value: this.text(buf, this.u32(outLen)) } : { code };
  }

  /** A constructor `(…, out, err_buf, err_cap, err_len)`: the handle, or the message. */
  private construct(frame: Frame, fn: (out: Ptr, errBuf: Ptr, errCap: number, errLen: Ptr) => number): Outcome<Ptr> {
    const out = frame.out(4);
    const errBuf = frame.alloc(ERR_CAP);
    const errLen = frame.out(4);
    const code = fn(out, errBuf, ERR_CAP, errLen);
    if (code === OK) return { code, value: this.u32(out) };
    return { code, message: this.text(errBuf, Math.min(ERR_CAP, this.u32(errLen))) };
  }

  // ------------------------------------------------------------------ free functions

  /** Release a handle of `kind` (NULL is fine). Nothing is freed on a dead instance. */
  free(kind: HandleKind, handle: Ptr): void {
    if (this.dead || handle === 0) return;
    this.call(() => {
      switch (kind) {
        case "plan":
          return this.x.elicit_plan_free(handle);
        case "round":
          return this.x.elicit_round_free(handle);
        case "key ring":
          return this.x.elicit_key_ring_free(handle);
        case "sealer":
          return this.x.elicit_sealer_free(handle);
        case "server":
          return this.x.elicit_server_free(handle);
        case "call":
          return this.x.elicit_call_free(handle);
      }
    });
  }

  // --------------------------------------------------------------------------- plans

  planNew(declaration: Text): Outcome<Ptr> {
    return this.call((f) => {
      const [d, dl] = f.input(declaration);
      return this.construct(f, (out, eb, ec, el) => this.x.elicit_plan_new(d, dl, out, eb, ec, el));
    });
  }

  planToolName(plan: Ptr): Outcome<string> {
    return this.call((f) => this.read(f, (buf, cap, outLen) => this.x.elicit_plan_tool_name(plan, buf, cap, outLen)));
  }

  planParamCount(plan: Ptr): Outcome<number> {
    return this.call((f) => {
      const n = f.out(4);
      const code = this.x.elicit_plan_param_count(plan, n);
      return code === OK ? { code, value: this.u32(n) } : { code };
    });
  }

  /** Parameter `i`: its name, whether it is elicited, has a resolver, and its input kind. */
  planParam(
    plan: Ptr,
    i: number,
  ): Outcome<{ name: string; elicited: boolean; resolver: boolean; kind: number | null }> {
    return this.call((f) => {
      const read = this.read(f, (buf, cap, outLen) => this.x.elicit_plan_param_name(plan, i, buf, cap, outLen));
      if (read.code !== OK || read.value === undefined) return { code: read.code };
      const name = read.value;
      const b = f.out(1);
      let code = this.x.elicit_plan_param_is_elicited(plan, i, b);
      if (code !== OK) return { code };
      const elicited = this.bool(b);
      if (!elicited) return { code, value: { name, elicited, resolver: false, kind: null } };
      code = this.x.elicit_plan_param_has_resolver(plan, i, b);
      if (code !== OK) return { code };
      const resolver = this.bool(b);
      const k = f.out(4);
      code = this.x.elicit_plan_param_kind(plan, i, k);
      if (code !== OK) return { code };
      return { code, value: { name, elicited, resolver, kind: this.u32(k) } };
    });
  }

  /**
   * `elicit_plan_input_schema`: the tool's `inputSchema` as listed for a client with
   * these capabilities (a declared fallback adds optional properties), and whether the
   * listing differs by client.
   */
  planInputSchema(plan: Ptr, schema: Text, caps: Input): Outcome<{ schema: string; cachePrivate: boolean }> {
    return this.call((f) => {
      const [s, sl] = f.input(schema);
      const [c, cl] = f.input(caps);
      const priv = f.out(1);
      const read = this.read(f, (buf, cap, outLen) => this.x.elicit_plan_input_schema(plan, s, sl, c, cl, priv, buf, cap, outLen));
      if (read.code !== OK || read.value === undefined) return { code: read.code };
      return { code: OK, value: { schema: read.value, cachePrivate: this.bool(priv) } };
    });
  }

  // -------------------------------------------------------------------------- rounds

  roundNewModern(
    plan: Ptr,
    args: Text,
    state: Input,
    replies: Input,
    caps: Input,
    workspace: number,
  ): Outcome<Ptr> {
    return this.call((f) => {
      const input = this.roundTexts(f, args, state, replies, caps);
      return this.construct(f, (out, eb, ec, el) =>
        this.x.elicit_round_new_modern(plan, input, workspace, out, eb, ec, el),
      );
    });
  }

  roundNewHandshake(plan: Ptr, args: Text, caps: Input, workspace: number): Outcome<Ptr> {
    return this.call((f) => {
      const input = this.roundTexts(f, args, null, null, caps);
      return this.construct(f, (out, eb, ec, el) =>
        this.x.elicit_round_new_handshake(plan, input, workspace, out, eb, ec, el),
      );
    });
  }

  /** `struct elicit_round_input` as wasm32 C lays it out: four (pointer, size_t) pairs. */
  private roundTexts(f: Frame, args: Text, state: Input, replies: Input, caps: Input): Ptr {
    const texts = [args, state, replies, caps].map((t) => f.input(t));
    const input = f.out(32);
    const dv = this.data();
    texts.forEach(([p, l], i) => {
      dv.setUint32(input + 8 * i, p, true);
      dv.setUint32(input + 8 * i + 4, l, true);
    });
    return input;
  }

  /** `elicit_round_poll`: the step kind and the parameter index (`ELICIT_NO_PARAM` = 2^32 - 1). */
  roundPoll(round: Ptr): Outcome<{ kind: number; param: number }> {
    return this.call((f) => {
      const k = f.out(4);
      const p = f.out(4);
      const code = this.x.elicit_round_poll(round, k, p);
      return code === OK ? { code, value: { kind: this.u32(k), param: this.u32(p) } } : { code };
    });
  }

  /** The round's text inputs: `resolve_value`, `resolve_question`, `resolve_failed`, `answer`. */
  roundInput(round: Ptr, which: "value" | "question" | "failed" | "answer", text: Text): number {
    return this.call((f) => {
      const [t, tl] = f.input(text);
      switch (which) {
        case "value":
          return this.x.elicit_round_resolve_value(round, t, tl);
        case "question":
          return this.x.elicit_round_resolve_question(round, t, tl);
        case "failed":
          return this.x.elicit_round_resolve_failed(round, t, tl);
        case "answer":
          return this.x.elicit_round_answer(round, t, tl);
      }
    });
  }

  roundQuestionText(round: Ptr, message: Text, title: Input, description: Input): number {
    return this.call((f) => {
      const [m, ml] = f.input(message);
      const [t, tl] = f.input(title);
      const [d, dl] = f.input(description);
      return this.x.elicit_round_resolve_question_text(round, m, ml, t, tl, d, dl);
    });
  }

  /** The round's readers, each returning UTF-8 (JSON, or the plaintext state, or a message). */
  roundRead(
    round: Ptr,
    which: "resolve_inputs" | "ask" | "values" | "request_state" | "required_capabilities" | "fallback_result" | "last_error",
  ): Outcome<string> {
    return this.call((f) =>
      this.read(f, (buf, cap, outLen) => {
        switch (which) {
          case "resolve_inputs":
            return this.x.elicit_round_resolve_inputs(round, buf, cap, outLen);
          case "ask":
            return this.x.elicit_round_ask(round, buf, cap, outLen);
          case "values":
            return this.x.elicit_round_values(round, buf, cap, outLen);
          case "request_state":
            return this.x.elicit_round_request_state(round, buf, cap, outLen);
          case "required_capabilities":
            return this.x.elicit_round_required_capabilities(round, buf, cap, outLen);
          case "fallback_result":
            return this.x.elicit_round_fallback_result(round, buf, cap, outLen);
          case "last_error":
            return this.x.elicit_round_last_error(round, buf, cap, outLen);
        }
      }),
    );
  }

  roundValueOf(round: Ptr, i: number): Outcome<string> {
    return this.call((f) => this.read(f, (b, c, l) => this.x.elicit_round_value_of(round, i, b, c, l)));
  }

  /** `elicit_round_input_requests`; `clientView` sets `ELICIT_REQUESTS_CLIENT_VIEW`. */
  roundInputRequests(round: Ptr, clientView: boolean): Outcome<string> {
    return this.call((f) =>
      this.read(f, (b, c, l) => this.x.elicit_round_input_requests(round, clientView ? 1 : 0, b, c, l)),
    );
  }

  /** Every note of the round: `[kind, param, message]`. */
  roundNotes(round: Ptr): Outcome<Array<{ kind: number; param: number; message: string }>> {
    return this.call((f) => {
      const n = f.out(4);
      let code = this.x.elicit_round_note_count(round, n);
      if (code !== OK) return { code };
      const notes: Array<{ kind: number; param: number; message: string }> = [];
      const count = this.u32(n);
      for (let i = 0; i < count; i++) {
        const k = f.out(4);
        const p = f.out(4);
        const r = this.read(f, (b, c, l) => this.x.elicit_round_note(round, i, k, p, b, c, l));
        code = r.code;
        if (code !== OK) return { code };
        notes.push({ kind: this.u32(k), param: this.u32(p), message: r.value ?? "" });
      }
      return { code: OK, value: notes };
    });
  }

  // ---------------------------------------------------------------------- sealing

  keyRingNew(keys: Uint8Array[]): Outcome<Ptr> {
    return this.call((f) => {
      const ptrs = f.out(Math.max(4, 4 * keys.length));
      const lens = f.out(Math.max(4, 4 * keys.length));
      const placed = keys.map((k) => f.input(k));
      const dv = this.data();
      placed.forEach(([p, l], i) => {
        dv.setUint32(ptrs + 4 * i, p, true);
        dv.setUint32(lens + 4 * i, l, true);
      });
      return this.construct(f, (out, eb, ec, el) =>
        this.x.elicit_key_ring_new(ptrs, lens, keys.length, out, eb, ec, el),
      );
    });
  }

  sealerNew(ring: Ptr, audience: Input, ttl: number): Outcome<Ptr> {
    return this.call((f) => {
      const [a, al] = f.input(audience);
      return this.construct(f, (out, eb, ec, el) => this.x.elicit_sealer_new(ring, a, al, ttl, out, eb, ec, el));
    });
  }

  sealerSeal(
    sealer: Ptr,
    method: Text,
    params: Text,
    principal: Input,
    now: number,
    random: Uint8Array,
    state: Text,
  ): Outcome<string> {
    return this.call((f) => {
      const req = this.request(f, { method, params, principal, now, random });
      const [s, sl] = f.input(state);
      const detail = f.out(4);
      const out = this.read(f, (b, c, l) => this.x.elicit_sealer_seal(sealer, req, s, sl, b, c, l, detail));
      return out.code === OK ? out : { code: out.code, message: this.cstr(this.u32(detail)) };
    });
  }

  /** `value` is the plaintext state, or null when the request carries none. */
  sealerUnseal(
    sealer: Ptr,
    method: Text,
    params: Text,
    principal: Input,
    now: number,
  ): Outcome<string | null> {
    return this.call((f) => {
      const req = this.request(f, { method, params, principal, now });
      const has = f.out(1);
      const detail = f.out(4);
      // The params' length (in UTF-8 bytes, at most 3 a UTF-16 unit) always suffices for
      // the state they carry.
      const cap = Math.max(1, typeof params === "string" ? 3 * params.length : params.length);
      const buf = f.alloc(cap);
      const outLen = f.out(4);
      const code = this.x.elicit_sealer_unseal(sealer, req, has, buf, cap, outLen, detail);
      if (code !== OK) return { code, message: this.cstr(this.u32(detail)) };
      return { code, value: this.bool(has) ? this.text(buf, this.u32(outLen)) : null };
    });
  }

  // ------------------------------------------------------------------ the call level

  /**
   * `elicit_server_new` from its config: `struct elicit_server_config` and its
   * `struct elicit_server_entry` array laid out as wasm32 C lays them out (pointers and
   * size_t 4 bytes, the double 8-aligned).
   */
  serverNew(
    entries: Array<{ plan: Ptr; method: number; target: Input }>,
    keys: Ptr,
    audience: Input,
    ttl: number,
    workspace: number,
  ): Outcome<Ptr> {
    return this.call((f) => {
      const ENTRY = 16;
      const list = f.out(Math.max(ENTRY, ENTRY * entries.length));
      const targets = entries.map((e) => f.input(e.target));
      const [a, al] = f.input(audience);
      const config = f.out(40);
      const dv = this.data();
      entries.forEach((e, i) => {
        const at = list + ENTRY * i;
        const [t, tl] = targets[i] ?? [0, 0];
        dv.setUint32(at, e.plan, true);
        dv.setUint32(at + 4, e.method, true);
        dv.setUint32(at + 8, t, true);
        dv.setUint32(at + 12, tl, true);
      });
      dv.setUint32(config, list, true);
      dv.setUint32(config + 4, entries.length, true);
      dv.setUint32(config + 8, keys, true);
      dv.setUint32(config + 12, a, true);
      dv.setUint32(config + 16, al, true);
      dv.setFloat64(config + 24, ttl, true);
      dv.setUint32(config + 32, workspace, true);
      return this.construct(f, (out, eb, ec, el) => this.x.elicit_server_new(config, out, eb, ec, el));
    });
  }

  /** `elicit_call_new` from a request. */
  callNew(server: Ptr, request: Request): Outcome<Ptr> {
    return this.call((f) => {
      const req = this.request(f, request);
      return this.construct(f, (out, eb, ec, el) => this.x.elicit_call_new(server, req, out, eb, ec, el));
    });
  }

  /**
   * `struct elicit_request` as wasm32 C lays it out (six (pointer, size_t) text pairs,
   * the 8-aligned double `now`, the random bytes' pair); a field left out is NULL with
   * length 0 (the sealers read no id, version or capabilities).
   */
  private request(f: Frame, request: Partial<Request> & { method: Text; now: number }): Ptr {
    const texts = [
      request.id ?? null,
      request.method,
      request.params ?? null,
      request.principal ?? null,
      request.protocolVersion ?? null,
      request.clientCapabilities ?? null,
    ].map((t) => f.input(t));
    const [r, rl] = f.input(request.random ?? null);
    const req = f.out(64);
    const dv = this.data();
    texts.forEach(([p, l], i) => {
      dv.setUint32(req + 8 * i, p, true);
      dv.setUint32(req + 8 * i + 4, l, true);
    });
    dv.setFloat64(req + 48, request.now, true);
    dv.setUint32(req + 56, r, true);
    dv.setUint32(req + 60, rl, true);
    return req;
  }

  /** `elicit_call_next`: the step and the parameter index (`ELICIT_NO_PARAM` = 2^32 - 1). */
  callNext(call: Ptr): Outcome<{ kind: number; param: number }> {
    return this.call((f) => {
      const k = f.out(4);
      const p = f.out(4);
      const code = this.x.elicit_call_next(call, k, p);
      return code === OK ? { code, value: { kind: this.u32(k), param: this.u32(p) } } : { code };
    });
  }

  /** The call's text inputs: `resolve_value`, `resolve_question`, `answer`. */
  callInput(call: Ptr, which: "value" | "question" | "answer", text: Text): number {
    return this.call((f) => {
      const [t, tl] = f.input(text);
      switch (which) {
        case "value":
          return this.x.elicit_call_resolve_value(call, t, tl);
        case "question":
          return this.x.elicit_call_resolve_question(call, t, tl);
        case "answer":
          return this.x.elicit_call_answer(call, t, tl);
      }
    });
  }

  callFinish(call: Ptr, text: Text, isError: boolean): number {
    return this.call((f) => {
      const [t, tl] = f.input(text);
      return this.x.elicit_call_finish(call, t, tl, isError ? 1 : 0);
    });
  }

  /** The call's readers (one signature for all). */
  callRead(
    call: Ptr,
    which: "reply" | "request" | "param_name" | "resolve_inputs" | "values" | "last_error",
  ): Outcome<string> {
    return this.call((f) =>
      this.read(f, (buf, cap, outLen) => {
        switch (which) {
          case "reply":
            return this.x.elicit_call_reply(call, buf, cap, outLen);
          case "request":
            return this.x.elicit_call_request(call, buf, cap, outLen);
          case "param_name":
            return this.x.elicit_call_param_name(call, buf, cap, outLen);
          case "resolve_inputs":
            return this.x.elicit_call_resolve_inputs(call, buf, cap, outLen);
          case "values":
            return this.x.elicit_call_values(call, buf, cap, outLen);
          case "last_error":
            return this.x.elicit_call_last_error(call, buf, cap, outLen);
        }
      }),
    );
  }

  /** `elicit_call_reply_code`: 0 for a result, else the JSON-RPC error code. */
  callReplyCode(call: Ptr): Outcome<number> {
    return this.call((f) => {
      const c = f.out(4);
      const code = this.x.elicit_call_reply_code(call, c);
      return code === OK ? { code, value: this.data().getInt32(c, true) } : { code };
    });
  }
}

let current: Abi | undefined;

/** The live instance new handles are made on (a new one after a trap). */
export function abi(): Abi {
  if (!current || current.dead) current = new Abi();
  return current;
}

/**
 * Frees a handle when its owner is garbage-collected without `free()`; `free()`
 * unregisters it.
 */
export const finalizer = new FinalizationRegistry<{ abi: Abi; kind: HandleKind; handle: Ptr }>(
  ({ abi: a, kind, handle }) => a.free(kind, handle),
);

/** Throw {@link ClosedError} for a freed handle (0). */
export function liveHandle(handle: Ptr, what: HandleKind): Ptr {
  if (handle === 0) throw new ClosedError(what);
  return handle;
}
