#!/usr/bin/env bash
# dev-ts-server.sh: the booking tools on the MCP TypeScript SDK (@modelcontextprotocol/server
# 2.4, McpServer) through elicit-mcp's adapter (servers/ts), with the Rust server's flags,
# so every harness drives either:
#
#   scripts/dev-ts-server.sh --stdio
#   scripts/dev-ts-server.sh --http 127.0.0.1:PORT       # endpoint /mcp; port 0 picks one
#   [--conformance] [--state-keys-file PATH] [--alone] [--state-ttl SECS] [--fallback arguments]
#   [--session-keep-alive SECS] [--max-sessions N]       # HTTP: 2025-11-25 sessions
#   (--conformance: also the official conformance suite's fixtures, servers/ts/conformance.mjs)
#
# ELICIT_STATE_KEYS (or --state-keys-file): comma-separated hex keys (32 to 128 bytes each,
# 1 to 8), the first seals; without a ring, stdio uses one ephemeral key and --http refuses
# to start unless --alone. Builds the package js/ when js/dist is missing or older than its
# sources (scripts/build-wasm.sh, npm ci, tsc; test-js.sh builds it the same way); set
# ELICIT_TS_SERVER_NO_BUILD=1 to skip the check (harnesses starting many processes).
# Log lines go to stderr; with --http the first names the URL ("streamable HTTP on ...").
# ELICIT_TS_SERVER_TEST_TRAP=1 is for tests only (servers/ts/test_trap.mjs: SIGUSR2 traps
# the engine's WebAssembly instance; tests/interop/mcp/test_ts_trap.py); never set it to serve.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

if [ -z "${ELICIT_TS_SERVER_NO_BUILD:-}" ] || [ ! -f js/dist/index.js ]; then
    if [ ! -f js/src/wasm.generated.ts ]; then
        bash scripts/build-wasm.sh >&2
    fi
    [ -d js/node_modules/@modelcontextprotocol/server ] || (cd js && npm ci --no-audit --no-fund --loglevel=error >&2)
    if [ ! -f js/dist/index.js ] || [ -n "$(find js/src -newer js/dist/index.js -print -quit)" ]; then
        (cd js && npx tsc -p tsconfig.json >&2)
    fi
fi
# servers/ts resolves elicit-mcp, the SDK and zod through links into js/ (one copy of each).
# Made only when missing or wrong: every server start runs this, also while other servers
# (scripts/test.sh's lanes) start from the same links.
mods=servers/ts/node_modules
mkdir -p "$mods/@modelcontextprotocol"
link() { [ "$(readlink "$2")" = "$1" ] || ln -sfn "$1" "$2"; }
link ../../../js "$mods/elicit-mcp"
link ../../../../js/node_modules/@modelcontextprotocol/server "$mods/@modelcontextprotocol/server"
link ../../../js/node_modules/zod "$mods/zod"
exec node "$ROOT/servers/ts/booking_server.mjs" "$@"
