/**
 * Sealed `requestState`: {@link KeyRing} and {@link Sealer} over the C ABI. Tokens are
 * the MCP Python SDK's byte for byte (AES-256-GCM under HKDF-derived keys, claims for
 * expiry, the request binding, audience and principal), so a TypeScript, Rust or Python
 * replica sharing the key ring and the audience opens what any of them sealed.
 * @module
 */
import { type Abi, ERR_REQUEST_STATE, OK, abi, finalizer, liveHandle, utf8 } from "./abi.js";
import { ClosedError, RequestStateError } from "./errors.js";
import { type Json, jsonInput } from "./engine.js";

/** The environment variable every elicit server reads its key ring from. */
export const STATE_KEYS_ENV = "ELICIT_STATE_KEYS";
/** Most keys a ring holds. */
export const MAX_KEYS = 8;
/** Shortest key, in bytes. */
export const MIN_KEY_LEN = 32;
/** Longest key, in bytes. */
export const MAX_KEY_LEN = 128;
/** Random bytes one seal takes (the nonce, then the principal salt). */
export const SEAL_RANDOM_LEN = 20;
/** The token lifetime when none is given, in seconds (the SDK's). */
export const DEFAULT_TTL_SECS = 600;

const KEY_HINT = `node -e "console.log(require('crypto').randomBytes(32).toString('hex'))"`;

/**
 * Parse a key ring in `ELICIT_STATE_KEYS`'s form: comma-separated hex keys, whitespace
 * around each ignored; the first seals, every key opens; each key 32 to 128 bytes (64 to
 * 256 hex digits); 1 to 8 keys. `source` names where the text came from in every error
 * (an `Error`), which never quotes a key.
 */
export function parseKeys(text: string, source: string): Uint8Array[] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length === 1 && parts[0] === "") {
    throw new Error(`${source}: no key; give 1 to ${MAX_KEYS} comma-separated hex keys`);
  }
  if (parts.length > MAX_KEYS) {
    throw new Error(`${source}: ${parts.length} keys given, at most ${MAX_KEYS} are kept; drop retired ones`);
  }
  return parts.map((part, i) => {
    if (!part) throw new Error(`${source}: key ${i} is empty`);
    if (part.length % 2) throw new Error(`${source}: key ${i} has an odd number of hex digits`);
    if (!/^[0-9a-fA-F]*$/.test(part)) throw new Error(`${source}: key ${i} is not hex`);
    const key = new Uint8Array(part.length / 2);
    for (let j = 0; j < key.length; j++) key[j] = parseInt(part.slice(2 * j, 2 * j + 2), 16);
    if (key.length < MIN_KEY_LEN || key.length > MAX_KEY_LEN) {
      throw new Error(
        `${source}: key ${i} is ${key.length} bytes; a key is ${MIN_KEY_LEN} to ${MAX_KEY_LEN} bytes ` +
          `(${2 * MIN_KEY_LEN} to ${2 * MAX_KEY_LEN} hex digits). Make one with: ${KEY_HINT}`,
      );
    }
    return key;
  });
}

/**
 * A rotation ring of sealing keys (`elicit_key_ring`): `keys[0]` seals, every key
 * opens. Each key is a `Uint8Array` of 32 to 128 bytes of secret randomness; 1 to 8 keys,
 * none twice (strings are refused: text invites weak keys). Keys come from
 * {@link KeyRing.fromEnv} (`ELICIT_STATE_KEYS`), {@link KeyRing.fromText}, or bytes
 * (`crypto.getRandomValues(new Uint8Array(32))`). Rotation, each phase rolled out to
 * every replica before the next: `[old, new]`, then `[new, old]`, then `[new]` one token
 * lifetime later. Throws {@link UsageError} naming the key at fault.
 */
export class KeyRing {
  readonly #abi: Abi;
  #handle: number;
  /** A copy of the keys, to make the ring again on a new instance after a trap ({@link remake}); wiped by {@link free}. */
  readonly #keys: Uint8Array[];

  constructor(keys: readonly Uint8Array[]) {
    if (!Array.isArray(keys)) throw new TypeError("keys: pass an array of keys (Uint8Array), not one key");
    keys.forEach((k, i) => {
      if (!(k instanceof Uint8Array)) {
        throw new TypeError(
          typeof k === "string"
            ? `keys[${i}] is a string; a key is bytes of secret randomness (a Uint8Array), or use KeyRing.fromEnv / KeyRing.fromText`
            : `keys[${i}] is not a Uint8Array; a key is bytes`,
        );
      }
    });
    this.#abi = abi();
    const made = this.#abi.keyRingNew([...keys]);
    if (made.code !== OK || made.value === undefined) {
      throw this.#abi.error(made.code, made.message);
    }
    this.#handle = made.value;
    this.#keys = keys.map((k) => k.slice());
    finalizer.register(this, { abi: this.#abi, kind: "key ring", handle: made.value }, this);
  }

  /**
   * @internal The same keys as a new ring on the live instance: after a trap killed the
   * instance this ring was made on (the {@link Elicitation} adapter rebuilds its server
   * with it). Throws {@link ClosedError} once this ring was freed.
   */
  remake(): KeyRing {
    if (this.#handle === 0) throw new ClosedError("key ring");
    return new KeyRing(this.#keys);
  }

  /** The ring in `ELICIT_STATE_KEYS`'s text form (see {@link parseKeys}); errors name `source`. */
  static fromText(text: string, source = STATE_KEYS_ENV): KeyRing {
    return new KeyRing(parseKeys(text, source));
  }

  /**
   * The ring in environment variable `variable` (default `ELICIT_STATE_KEYS`) of `env`
   * (default `process.env`). An unset or empty variable is an `Error` naming it.
   */
  static fromEnv(variable = STATE_KEYS_ENV, env?: Record<string, string | undefined>): KeyRing {
    const vars = env ?? (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
    const text = vars[variable];
    if (text === undefined || !text.trim()) {
      throw new Error(
        `${variable} is not set; give 1 to ${MAX_KEYS} comma-separated hex keys of ${MIN_KEY_LEN} to ${MAX_KEY_LEN} bytes (${KEY_HINT})`,
      );
    }
    return KeyRing.fromText(text, variable);
  }

  /** @internal The live handle, for {@link Sealer}. */
  handle(a: Abi): number {
    if (a !== this.#abi) {
      throw new ClosedError("key ring (made on a WebAssembly instance that trapped)");
    }
    this.#abi.live("key ring");
    return liveHandle(this.#handle, "key ring");
  }

  /** Free the ring (idempotent); its copies of the keys are wiped. */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    for (const k of this.#keys) k.fill(0);
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("key ring", h);
    }
  }
}

/** Options of {@link Sealer.seal} and {@link Sealer.unseal}. */
export interface SealOptions {
  /** The authenticated principal (absent: unauthenticated). */
  principal?: string | null;
  /** Unix seconds (default `Date.now() / 1000`). */
  now?: number;
}

/** Random bytes drawn from `crypto.getRandomValues` a block at a time (one call per 204 seals, not one per seal). */
const POOL = new Uint8Array(SEAL_RANDOM_LEN * 204);
let pooled = 0;

/**
 * @internal {@link SEAL_RANDOM_LEN} fresh random bytes for one seal: a copy of the next
 * unused part of a pool filled by `crypto.getRandomValues` (each byte handed out once).
 */
export function randomBytes(): Uint8Array {
  if (pooled < SEAL_RANDOM_LEN) {
    globalThis.crypto.getRandomValues(POOL);
    pooled = POOL.length;
  }
  pooled -= SEAL_RANDOM_LEN;
  return POOL.slice(pooled, pooled + SEAL_RANDOM_LEN);
}

function paramsInput(params: Json): Uint8Array {
  if (params !== null && typeof params === "object" && "request_state" in params && !("requestState" in params)) {
    throw new TypeError("params: has 'request_state' but no 'requestState'; pass the params as on the wire");
  }
  return jsonInput(params, "params");
}

/**
 * Seals and verifies `requestState` (`elicit_sealer`): immutable. `ring` is a
 * {@link KeyRing} (or its keys); `audience` the service identity every token is bound to
 * (the server name; null for none); `ttl` the token lifetime in seconds.
 */
export class Sealer {
  readonly #abi: Abi;
  #handle: number;
  /** The audience tokens are bound to (null: none). */
  readonly audience: string | null;
  /** The token lifetime in seconds. */
  readonly ttl: number;

  constructor(ring: KeyRing | readonly Uint8Array[], audience: string | null, ttl: number = DEFAULT_TTL_SECS) {
    const own = !(ring instanceof KeyRing);
    const keyRing = ring instanceof KeyRing ? ring : new KeyRing(ring);
    this.#abi = abi();
    try {
      const made = this.#abi.sealerNew(keyRing.handle(this.#abi), audience === null ? null : utf8(audience), ttl);
      if (made.code !== OK || made.value === undefined) {
        throw this.#abi.error(made.code, made.message);
      }
      this.#handle = made.value;
    } finally {
      if (own) keyRing.free();
    }
    finalizer.register(this, { abi: this.#abi, kind: "sealer", handle: this.#handle }, this);
    this.audience = audience;
    this.ttl = ttl;
  }

  #live(): number {
    this.#abi.live("sealer");
    return liveHandle(this.#handle, "sealer");
  }

  /**
   * Seal the round's plaintext `state` into a token for the request it answers.
   * `method` is the JSON-RPC method (`"tools/call"`); `params` the request's params as
   * received (an object): `name` and `arguments` are bound (`uri` for
   * `resources/read`). `random`: 20 bytes (default `crypto.getRandomValues`).
   */
  seal(method: string, params: Json, state: string, options: SealOptions & { random?: Uint8Array } = {}): string {
    const h = this.#live();
    const r = this.#abi.sealerSeal(
      h,
      utf8(method),
      paramsInput(params),
      options.principal == null ? null : utf8(options.principal),
      options.now ?? Date.now() / 1000,
      options.random ?? randomBytes(),
      utf8(state),
    );
    if (r.code !== OK || r.value === undefined) {
      throw this.#abi.error(r.code, r.message);
    }
    return r.value;
  }

  /**
   * Verify `params.requestState`: null when the request carries none (a first round),
   * else the plaintext state for {@link Plan.modern}. Throws {@link RequestStateError}
   * when the token does not verify (answer with its `jsonrpcError`; `reason` is for the
   * log only).
   */
  unseal(method: string, params: Json, options: SealOptions = {}): string | null {
    const h = this.#live();
    const r = this.#abi.sealerUnseal(
      h,
      utf8(method),
      paramsInput(params),
      options.principal == null ? null : utf8(options.principal),
      options.now ?? Date.now() / 1000,
    );
    if (r.code === ERR_REQUEST_STATE) throw new RequestStateError(r.message ?? "");
    if (r.code !== OK || r.value === undefined) {
      throw this.#abi.error(r.code, r.message);
    }
    return r.value;
  }

  /** Free the sealer (idempotent); its derived keys are wiped. */
  free(): void {
    const h = this.#handle;
    this.#handle = 0;
    if (h !== 0) {
      finalizer.unregister(this);
      this.#abi.free("sealer", h);
    }
  }
}
