// Tests only: a way to make the engine's WebAssembly instance trap inside a running server
// process, so tests/interop/mcp/test_ts_trap.py can check trap recovery over a real
// transport (js/test/mcp.test.mjs checks it in process). booking_server.mjs loads this
// file only when ELICIT_TS_SERVER_TEST_TRAP=1 is set (any other value refuses to start);
// in a normal run it is never loaded, and no client message can reach it: the trap comes
// from a signal (SIGUSR2) that only a process of the same user can send.
//
// The trap is the one js/test/trap.test.mjs makes: a read far outside the instance's
// memory, which traps as a panic does (wasm32 cannot unwind). It uses the package's
// internal binding (js/dist/abi.js, not exported: the server resolves elicit-mcp through
// a link to js/, so this is the same module instance the adapter runs on).
import { abi } from "../../js/dist/abi.js";

/** The variable that turns the hook on, and the one value it takes. */
export const TRAP_ENV = "ELICIT_TS_SERVER_TEST_TRAP";

/** Trap the live instance on every SIGUSR2, logging "test hook: trapped ..." after. */
export function installTrapHook(log) {
  log(`test hook on (${TRAP_ENV}=1): SIGUSR2 makes the WebAssembly instance trap; tests only`);
  process.on("SIGUSR2", () => {
    const a = abi();
    try {
      a.call(() => a.x.elicit_plan_param_count(0xfffffff0, 0xfffffff0));
      log("test hook: SIGUSR2, but the instance did not trap");
    } catch (e) {
      log(`test hook: trapped the WebAssembly instance (${e.message})`);
    }
  });
}
