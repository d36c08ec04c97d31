// A trap (a panic inside the library, or any fault of the WebAssembly instance) fails
// the calls on that instance with InternalError, the handles made on it refuse further
// use, and new handles get a fresh instance.
import { test } from "node:test";
import assert from "node:assert/strict";
import { abi } from "../dist/abi.js";
import { InternalError, KeyRing, Plan, Sealer } from "../dist/index.js";

const DECL = { tool: "t", parameters: [{ name: "a", elicit: { message: "A?" } }] };

test("after a trap, old handles throw InternalError and new ones work on a new instance", () => {
  const plan = new Plan(DECL);
  const sealer = new Sealer(KeyRing.fromText("ab".repeat(32)), "svc");
  const round = plan.modern();
  const before = abi();
  // A read far outside the instance's memory traps (as a panic does: wasm32 cannot unwind).
  assert.throws(
    () => before.call(() => before.x.elicit_plan_param_count(0xfffffff0, 0xfffffff0)),
    (e) => e instanceof InternalError && e.code === 900 && /trapped/.test(e.message),
  );
  assert.equal(before.dead, true);
  for (const use of [() => round.poll(), () => plan.modern(), () => sealer.seal("tools/call", { name: "t" }, "s")]) {
    assert.throws(use, (e) => e instanceof InternalError && /make the .* again/.test(e.message));
  }
  // Freeing what lived on the dead instance is harmless.
  round.free();
  plan.free();
  sealer.free();
  const again = new Plan(DECL);
  assert.notEqual(abi(), before);
  const r = again.modern();
  assert.deepEqual(r.poll(), { kind: "inputRequired" });
});
