#!/usr/bin/env bash
# test-mcp-clients.sh: the official SDK clients against the booking servers, asserting the
# order in which book_flight's questions reach the user (declaration order), the answers,
# and decline/cancel (tests/interop/clients/):
#
#  - the MCP Python SDK client (mcp 2.3.0, `mcp.Client`; python/, on the venv of
#    scripts/lib.sh's mcp_test_venv);
#  - the TypeScript SDK clients @modelcontextprotocol/client 2.4.0 and
#    @modelcontextprotocol/sdk 1.32.2 (ts/, pinned in its package-lock.json with the Node 22
#    they run on; the 1.x SDK speaks only the handshake era, so its 2026-07-28 runs are
#    skipped with that reason);
#
# each in both eras (2026-07-28 InputRequiredResult rounds; the initialize handshake with
# elicitation/create), over stdio (a server process per client) and streamable HTTP (one
# server this script starts on 127.0.0.1, port 0); and the declared fallback
# (docs/fallback.md) from the MCP Python SDK client declaring no elicitation, against the
# server started with --fallback arguments (python/test_fallback.py starts those processes).
# Against, in turn:
#
#   rust    elicit-rmcp-server (servers/rmcp; release build in $BUILD: lib.sh's
#           build_rmcp_server, shared with scripts/test-mcp.sh)
#   python  the Python example server, scripts/dev-python-server.sh (servers/python)
#
#   scripts/test-mcp-clients.sh                              both servers
#   ELICIT_INTEROP_SERVER=python scripts/test-mcp-clients.sh  one of them, or a command
#                                                            taking the same flags
#   ELICIT_INTEROP_STDIO_ONLY=1                              a server without --http
#                                                            (the C server): stdio only
#
# Every server gets a fresh ELICIT_STATE_KEYS ring. Extra arguments go to pytest. Exits
# non-zero when any suite fails against any server; the last lines are one verdict per run.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
clients="$ROOT/tests/interop/clients"
out="$ROOT/target/mcp-clients"
mkdir -p "$out"

py=$(mcp_test_venv)
echo "test-mcp-clients: npm ci (the TypeScript SDK clients and Node 22) unless current" >&2
npm_ci "$clients/ts"
node="$clients/ts/node_modules/.bin/node"

case "${ELICIT_INTEROP_SERVER:-}" in
    "") servers=(rust python) ;;
    rust | python) servers=("$ELICIT_INTEROP_SERVER") ;;
    *) servers=(command) ;;
esac

# Sets cmd to the command of a name in $servers (built first).
server_cmd() {
    case "$1" in
        rust)
            echo "test-mcp-clients: building elicit-rmcp-server (release)" >&2
            build_rmcp_server
            cmd=("$RMCP_SERVER_BIN") ;;
        python)
            # Its venv and elicit-ffi once; then every process starts without a build.
            "$ROOT/scripts/dev-python-server.sh" --help >/dev/null
            export ELICIT_PY_SERVER_NO_BUILD=1
            cmd=("$ROOT/scripts/dev-python-server.sh") ;;
        command) read -r -a cmd <<<"$ELICIT_INTEROP_SERVER" ;;
    esac
}

server=""
trap '[[ -z "$server" ]] || kill "$server" 2>/dev/null || true' EXIT
status=0
verdicts=()
for name in "${servers[@]}"; do
    server_cmd "$name"
    # The suites start `CMD --stdio` themselves: the command goes to them as a JSON array.
    ELICIT_INTEROP_CMD=$("$py" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "${cmd[@]}")
    export ELICIT_INTEROP_CMD
    ELICIT_STATE_KEYS="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
    export ELICIT_STATE_KEYS
    log="$out/$name-server.log"
    : >"$log"
    only=()
    if [[ -n "${ELICIT_INTEROP_STDIO_ONLY:-}" ]]; then
        # No HTTP server to start: the suites' HTTP runs are deselected (the URL only
        # satisfies their check of it and is never dialled).
        export ELICIT_INTEROP_URL="http://127.0.0.1:9/mcp"
        only=(--test-name-pattern=stdio)
        set -- -k stdio "$@"
        echo "test-mcp-clients: $name server: ${cmd[*]} (stdio only)" >&2
    else
        "${cmd[@]}" --http 127.0.0.1:0 2>"$log" &
        server=$!
        url=""
        for _ in $(seq 1 600); do
            url=$(sed -n 's|.*streamable HTTP on \(http://127\.0\.0\.1:[0-9]*/mcp\).*|\1|p' "$log")
            [[ -n "$url" ]] && break
            kill -0 "$server" 2>/dev/null || break
            sleep 0.1
        done
        if [[ -z "$url" ]]; then
            echo "test-mcp-clients: the $name server did not start:" >&2
            cat "$log" >&2
            exit 1
        fi
        export ELICIT_INTEROP_URL="$url"
        echo "test-mcp-clients: $name server: ${cmd[*]} (HTTP at $url)" >&2
    fi

    if timeout 300 "$py" -m pytest "$clients/python" -p no:cacheprovider -q -rfE "$@"; then
        verdicts+=("$name server, MCP Python SDK client: passed")
    else
        status=1
        verdicts+=("$name server, MCP Python SDK client: FAILED")
    fi
    if (cd "$clients/ts" && timeout 300 "$node" --test --test-reporter=spec "${only[@]}" booking.test.mjs); then
        verdicts+=("$name server, TypeScript SDK clients: passed")
    else
        status=1
        verdicts+=("$name server, TypeScript SDK clients: FAILED")
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
done
printf 'test-mcp-clients: %s\n' "${verdicts[@]}"
exit $status
