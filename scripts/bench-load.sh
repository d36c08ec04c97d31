#!/usr/bin/env bash
# Load run (a benchmark, not a test): N concurrent book_flight calls (default 200) over
# streamable HTTP, each driven to completion through its 3 rounds, against
# elicit-rmcp-server on 127.0.0.1; prints round latency p50/p99 and exits non-zero unless
# every call returned the right booking.
#
#   scripts/bench-load.sh                         one server, 200 calls, 200 concurrent
#   CALLS=2000 CONCURRENCY=200 scripts/bench-load.sh
#   SERVERS=2 scripts/bench-load.sh               rounds alternate between two processes
#                                               sharing ELICIT_STATE_KEYS
#   PY_CLIENT=1 scripts/bench-load.sh             also run the Python (httpx) load client
#   SERVER=reference scripts/bench-load.sh        the Python reference server (FastMCP 4.1.6 +
#                                               the seed, tests/interop/mcp/reference_server.py,
#                                               on the oracle venv from scripts/dev-oracle-env.sh)
#   SERVER=mixed SERVERS=2 scripts/bench-load.sh  elicit-rmcp-server and the reference in turn
#   SERVER=baseline scripts/bench-load.sh         the same tool on plain rmcp, questions written
#                                               by hand (tests/baselines/rmcp, no elicit)
#   SERVER=ts scripts/bench-load.sh               servers/ts (the TypeScript SDK's McpServer through
#                                               elicit-mcp, scripts/dev-ts-server.sh)
#   SERVER=ts-baseline scripts/bench-load.sh      the same tool on the TypeScript SDK, written by hand
#                                               on its inputRequired() and HMAC requestState
#                                               (tests/baselines/ts, no elicit)
#
# After the run: each server process's CPU time (user + system, /proc/PID/stat) per round
# (CALLS of a few thousand make the 10 ms clock tick negligible).
#
# The load client is servers/rmcp/src/bin/booking-load.rs (raw HTTP/1.1
# keep-alive, the wire fastmcp.Client speaks). Loopback only; every loop is bounded by
# CALLS.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$ROOT
calls="${CALLS:-200}"
concurrency="${CONCURRENCY:-200}"
servers="${SERVERS:-1}"

server="${SERVER:-elicit-rmcp-server}"
case "$server" in
    elicit-rmcp-server|mixed|reference|ts) ;;
    baseline|ts-baseline) [[ "$server" == baseline ]] && server=elicit-rmcp-baseline
        [[ "$servers" == 1 ]] || { echo "load-mcp: the baseline's key is per process: SERVERS=1 only" >&2; exit 2; } ;;
    *) echo "load-mcp: SERVER must be elicit-rmcp-server, baseline, mixed, reference, ts or ts-baseline" >&2; exit 2 ;;
esac
if [[ "$server" == ts || "$server" == ts-baseline ]]; then
    # js/ built once (and its modules, which the baseline resolves through a link).
    "$root/scripts/dev-ts-server.sh" --help >/dev/null
    export ELICIT_TS_SERVER_NO_BUILD=1
    mkdir -p "$root/tests/baselines/ts/node_modules/@modelcontextprotocol"
    ln -sfn ../../../../../js/node_modules/@modelcontextprotocol/server \
        "$root/tests/baselines/ts/node_modules/@modelcontextprotocol/server"
fi
build_rmcp_server -p elicit-rmcp-baseline --bins
bin="$BUILD/release"
if [[ "$server" == reference || "$server" == mixed ]]; then
    reference=("$("$root/scripts/dev-oracle-env.sh")" "$root/tests/interop/mcp/reference_server.py")
fi

# A fresh shared ring for this run (two 32-byte keys).
export ELICIT_STATE_KEYS="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n'),$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"

pids=()
urls=()
logs=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -f "${logs[@]}"; }
trap cleanup EXIT
for i in $(seq "$servers"); do
    log="$(mktemp)"
    logs+=("$log")
    this="$server"
    if [[ "$server" == mixed ]]; then
        this=$([[ $((i % 2)) -eq 1 ]] && echo elicit-rmcp-server || echo reference)
    fi
    if [[ "$this" == reference ]]; then
        "${reference[@]}" --http 127.0.0.1:0 2>"$log" &
    elif [[ "$this" == ts ]]; then
        "$root/scripts/dev-ts-server.sh" --http 127.0.0.1:0 2>"$log" &
    elif [[ "$this" == ts-baseline ]]; then
        node "$root/tests/baselines/ts/booking_baseline.mjs" --http 127.0.0.1:0 2>"$log" &
    else
        "$bin/$this" --http 127.0.0.1:0 2>"$log" &
    fi
    pids+=("$!")
    for _ in $(seq 400); do
        url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)"
        [[ -n "$url" ]] && break
        sleep 0.05
    done
    [[ -n "$url" ]] || { echo "load-mcp: server did not start" >&2; cat "$log" >&2; exit 1; }
    urls+=(--url "$url")
done

cpu_ticks() { local t=0 p; for p in "${pids[@]}"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }
echo "load-mcp: $server, $calls calls, $concurrency concurrent, $servers server(s), $(nproc) cores"
before=$(cpu_ticks)
out="$("$bin/booking-load" "${urls[@]}" --calls "$calls" --concurrency "$concurrency")" || { echo "$out"; exit 1; }
after=$(cpu_ticks)
echo "$out"
rounds=$(sed -n 's/.*all rounds: n=\([0-9]*\).*/\1/p' <<<"$out")
awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$rounds" \
    'BEGIN { printf "  server CPU: %.3f s for %d rounds = %.1f us/round\n", t / hz, n, 1e6 * t / hz / n }'

if [[ -n "${PY_CLIENT:-}" ]]; then
    py="${ELICIT_MCP_VENV:-$root/.venv-mcp}/bin/python"
    echo "load-mcp: the same load from the Python client (httpx2, one asyncio loop)"
    "$py" "$root/tests/interop/mcp/load_client.py" "${urls[@]}" --calls "$calls" --concurrency "$concurrency"
fi
