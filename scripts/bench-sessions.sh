#!/usr/bin/env bash
# bench-sessions.sh (a benchmark, not a test): the memory abandoned HTTP sessions hold.
# The steps of servers/rmcp/tests/http_sessions.rs (which runs them on the Rust server's
# debug build and asserts its bounds): a server on 127.0.0.1 with --alone
# --session-keep-alive $KEEP_ALIVE (default 20 s: none may expire while the 1,000 are
# opened, which the run checks); 10 sessions opened; its RSS; 1,000 handshake-era sessions
# opened (`initialize`, nothing after) and abandoned; RSS; once they have expired
# (KEEP_ALIVE + 1.5 s later, the oldest's ping is 404), RSS; 1,000 more; RSS. Prints one
# line per run: the RSS at the start and the two deltas (PERF.md, "Abandoned HTTP
# sessions").
#
#   SERVER=ts scripts/bench-sessions.sh                  servers/ts (scripts/dev-ts-server.sh)
#   SERVER=elicit-rmcp-server scripts/bench-sessions.sh  the release binary (lib.sh's build_rmcp_server)
#   RUNS=3 SERVER=ts scripts/bench-sessions.sh           that many runs, a fresh process each
#
# RSS is the server process's VmRSS (/proc/PID/status; dev-ts-server.sh execs node).
# Loopback only; every loop is bounded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

runs="${RUNS:-1}"
keep_alive="${KEEP_ALIVE:-20}"
case "${SERVER:-ts}" in
    ts)
        scripts/dev-ts-server.sh --help >/dev/null
        cmd=(env ELICIT_TS_SERVER_NO_BUILD=1 "$ROOT/scripts/dev-ts-server.sh") ;;
    elicit-rmcp-server)
        build_rmcp_server
        cmd=("$RMCP_SERVER_BIN") ;;
    *) echo "bench-sessions.sh: SERVER=${SERVER}: not a server here (ts, elicit-rmcp-server)" >&2; exit 2 ;;
esac

for _ in $(seq "$runs"); do
    node - "$keep_alive" "${cmd[@]}" <<'JS'
const { spawn } = require("node:child_process");
const { readFileSync } = require("node:fs");

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "t", version: "1" } },
});
const PING = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const [keepAlive, command, ...args] = process.argv.slice(2);
const server = spawn(command, [...args, "--http", "127.0.0.1:0", "--alone", "--session-keep-alive", keepAlive], {
  stdio: ["ignore", "ignore", "pipe"],
});
const rssMib = () => Number(/VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024;

async function main() {
  const url = await new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${log}`)), 60_000);
    server.stderr.on("data", (c) => {
      log += c;
      const m = /streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`the server exited (${code}): ${log}`)));
  });
  const open = async () => {
    const r = await fetch(url, { method: "POST", headers: HEADERS, body: INITIALIZE });
    await r.arrayBuffer();
    const id = r.headers.get("mcp-session-id");
    if (r.status !== 200 || !id) throw new Error(`initialize: ${r.status}, session ${id}`);
    return id;
  };
  const ping = async (id) => {
    const r = await fetch(url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
      body: PING,
    });
    await r.arrayBuffer();
    return r.status;
  };
  const openMany = async (n) => {
    for (let i = 0; i < n; i++) await open();
  };
  await openMany(10);
  const start = rssMib();
  const began = Date.now();
  const oldest = await open();
  await openMany(999);
  const first = rssMib() - start;
  const took = (Date.now() - began) / 1000;
  if (took >= Number(keepAlive)) throw new Error(`opening 1,000 took ${took} s, past KEEP_ALIVE=${keepAlive}: raise it`);
  await new Promise((r) => setTimeout(r, Number(keepAlive) * 1000 + 1_500));
  const status = await ping(oldest);
  if (status !== 404) throw new Error(`the first 1,000 have not expired: the oldest's ping is ${status}`);
  const expired = rssMib();
  await openMany(1_000);
  const second = rssMib() - expired;
  console.log(
    `bench-sessions.sh: RSS ${start.toFixed(1)} MiB; +${first.toFixed(1)} MiB for 1,000 abandoned sessions; ` +
      `after expiry ${expired.toFixed(1)} MiB, +${second.toFixed(1)} MiB for 1,000 more (the first 1,000 opened in ${took.toFixed(1)} s)`,
  );
}

main()
  .catch((e) => {
    console.error(`bench-sessions.sh: ${e.message}`);
    process.exitCode = 1;
  })
  .finally(() => server.kill());
JS
done
