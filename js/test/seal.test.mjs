// Sealing: the MCP Python SDK's vectors byte for byte, the ELICIT_STATE_KEYS format, and
// one key ring across surfaces: a token sealed here opens in the Rust seal_cli (tools/)
// and the Python package, and the reverse.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  KeyRing,
  MAX_KEYS,
  RequestStateError,
  SEAL_RANDOM_LEN,
  Sealer,
  UsageError,
  parseKeys,
} from "../dist/index.js";

const root = new URL("../../", import.meta.url);
const vectors = JSON.parse(readFileSync(new URL("core/tests/data/seal_vectors.json", root), "utf8"));
const hex = (h) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));

test("seal vectors: the SDK's tokens byte for byte", () => {
  for (const v of vectors.seal) {
    const sealer = new Sealer([hex(v.key_hex)], v.audience, v.ttl_seconds);
    const params = { name: v.name, ...(v.arguments === null ? {} : { arguments: v.arguments }) };
    // The random bytes: the nonce, then the principal salt.
    const random = new Uint8Array(SEAL_RANDOM_LEN);
    random.set(hex(v.nonce_hex), 0);
    if (v.principal_salt_hex) random.set(hex(v.principal_salt_hex), 12);
    const token = sealer.seal(v.method, params, v.state, { principal: v.principal, now: v.iat, random });
    assert.equal(token, v.expected.token, v.id);
    sealer.free();
  }
});

test("verify vectors: accepted and rejected as the SDK decides", () => {
  for (const v of vectors.verify) {
    const sealer = new Sealer(v.keys_hex.map(hex), v.audience, v.ttl_seconds ?? 600);
    const run = () => sealer.unseal(v.method, v.params, { principal: v.principal, now: v.now });
    if (v.expected.result === "accept") {
      assert.equal(run(), v.expected.plaintext_state ?? null, v.id);
    } else {
      assert.throws(run, (e) => e instanceof RequestStateError && e.jsonrpcError.code === -32602, v.id);
    }
    sealer.free();
  }
});

test("ELICIT_STATE_KEYS: comma-separated hex, 1 to 8 keys, errors naming the source", () => {
  const k = (b) => b.repeat(32);
  assert.equal(parseKeys(` ${k("aa")} , ${k("bb")}\n`, "X").length, 2);
  assert.throws(() => parseKeys("", "ELICIT_STATE_KEYS"), /^Error: ELICIT_STATE_KEYS: no key/);
  assert.throws(() => parseKeys("abc", "F"), /F: key 0 has an odd number of hex digits/);
  assert.throws(() => parseKeys("zz".repeat(32), "F"), /F: key 0 is not hex/);
  assert.throws(() => parseKeys("aa".repeat(31), "F"), /F: key 0 is 31 bytes; a key is 32 to 128 bytes/);
  assert.throws(() => parseKeys(Array(9).fill(k("aa")).join(","), "F"), /9 keys given, at most 8/);
  assert.throws(() => KeyRing.fromEnv("ELICIT_STATE_KEYS", {}), /ELICIT_STATE_KEYS is not set/);
  // 8 keys: the first seals, every one opens.
  const keys = Array.from({ length: MAX_KEYS }, (_, i) => k((i + 16).toString(16)));
  const ring = KeyRing.fromEnv("ELICIT_STATE_KEYS", { ELICIT_STATE_KEYS: keys.join(",") });
  const all = new Sealer(ring, "svc");
  const last = new Sealer(KeyRing.fromText(keys[0]), "svc");
  const params = { name: "t", arguments: { a: 1 } };
  const token = last.seal("tools/call", params, "state");
  assert.equal(all.unseal("tools/call", { ...params, requestState: token }), "state");
  assert.equal(all.unseal("tools/call", params), null);
  // Bound to the call: other arguments are refused.
  assert.throws(
    () => all.unseal("tools/call", { name: "t", arguments: { a: 2 }, requestState: token }),
    (e) => e instanceof RequestStateError && e.reason !== "",
  );
  // The library's own checks, as Error subclasses with its code.
  assert.throws(() => new KeyRing([hex(k("aa")), hex(k("aa"))]), (e) => e instanceof UsageError && e.code === 106);
  assert.throws(() => new KeyRing(["aa"]), TypeError);
  for (const [ttl, shown] of [[-1, "-1.0"], [NaN, "NaN"], [Infinity, "Infinity"]]) {
    assert.throws(
      () => new Sealer([hex(k("aa"))], "svc", ttl),
      (e) => e instanceof UsageError && e.message.startsWith(`ttl_secs is ${shown}; pass a positive finite number`),
    );
  }
});

const KEYS = ["11".repeat(32), "22".repeat(32)];
const CALL = { name: "book_flight", arguments: { city: "Zürich", n: 2 } };
const NOW = 1780000000.25;
const STATE = '{"v":1,"answers":{},"asked":{"destination":"VDjflZNJPpbHBSnmAt8HHw"}}';

const sealCli = process.env.ELICIT_SEAL_CLI;
test("interop with the Rust seal_cli: one key ring, both directions", { skip: !sealCli && "ELICIT_SEAL_CLI is not set (scripts/test-js.sh sets it)" }, () => {
  assert.ok(existsSync(sealCli), `ELICIT_SEAL_CLI=${sealCli} does not exist`);
  const sealer = new Sealer(KeyRing.fromText(KEYS.join(",")), "booking");
  const ours = sealer.seal("tools/call", CALL, STATE, { now: NOW });
  const base = { keys: KEYS, audience: "booking", method: "tools/call", principal: null, now: NOW + 1 };
  const lines = [
    { op: "unseal", ...base, params: { ...CALL, requestState: ours } },
    { op: "seal", ...base, keys: [KEYS[1], KEYS[0]], params: CALL, state: "état ✓" },
  ];
  const out = execFileSync(sealCli, { input: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" })
    .toString()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(out[0], { ok: true, state: STATE });
  // Sealed in Rust with the second key first: our ring opens it.
  assert.equal(sealer.unseal("tools/call", { ...CALL, requestState: out[1].token }, { now: NOW + 2 }), "état ✓");
});

const pythonLib = process.env.ELICIT_PYTHON_LIB;
test("interop with the Python package: one key ring, both directions", { skip: !pythonLib && "ELICIT_PYTHON_LIB is not set (scripts/test-js.sh sets it)" }, () => {
  const sealer = new Sealer(KeyRing.fromText(KEYS.join(",")), "booking");
  const ours = sealer.seal("tools/call", CALL, STATE, { now: NOW, principal: "user-1" });
  const script = `
import json, sys
from elicit_mcp import KeyRing, Sealer
req = json.load(sys.stdin)
s = Sealer(KeyRing.from_env(), "booking")
opened = s.unseal("tools/call", req["params"], principal="user-1", now=req["now"])
token = s.seal("tools/call", req["call"], "Python ✓", principal="user-1", now=req["now"])
print(json.dumps({"opened": opened, "token": token}))
`;
  const out = JSON.parse(
    execFileSync("python3", ["-c", script], {
      input: JSON.stringify({ params: { ...CALL, requestState: ours }, call: CALL, now: NOW + 1 }),
      env: {
        ...process.env,
        ELICIT_LIB: pythonLib,
        PYTHONPATH: new URL("python", root).pathname,
        ELICIT_STATE_KEYS: `${KEYS[1]},${KEYS[0]}`,
      },
    }).toString(),
  );
  assert.equal(out.opened, STATE);
  assert.equal(
    sealer.unseal("tools/call", { ...CALL, requestState: out.token }, { now: NOW + 2, principal: "user-1" }),
    "Python ✓",
  );
  // Bound to the principal.
  assert.throws(
    () => sealer.unseal("tools/call", { ...CALL, requestState: out.token }, { now: NOW + 2, principal: "user-2" }),
    RequestStateError,
  );
});
