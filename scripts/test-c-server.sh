#!/usr/bin/env bash
# test-c-server.sh: the MCP server in C (servers/c, on elicit's call level; started by
# scripts/dev-c-server.sh) against what the other servers pass, over stdio:
#
#  1. the FastMCP 4.1.6 client's checks, both eras (tests/interop/mcp/test_booking_server.py
#     and test_rmcp_prompts_resources.py with ELICIT_SERVER_CMD, -k stdio; the Rust
#     transport's own wire details are skipped, as for the Python server);
#  2. rounds shared with elicit-rmcp-server, one key ring: a requestState sealed by either
#     completes on the other (tests/interop/mcp/test_c_server.py); and the stdio
#     transport's checks of lines no client should send (tests/interop/mcp/test_bad_input.py
#     -k stdio: unreadable lines, bad ids and versions, stray responses, a 16 MiB line);
#  3. the MCP Python SDK and TypeScript SDK clients (scripts/test-mcp-clients.sh with
#     ELICIT_INTEROP_SERVER=scripts/dev-c-server.sh, stdio only), with the declared
#     fallback from a client that declares no elicitation (python/test_fallback.py against
#     `--stdio --fallback arguments`; its HTTP cases deselected);
#  4. the server built with -fsanitize=address,undefined, then run under valgrind
#     memcheck, each through the FastMCP checks of book_flight, greet, order and the
#     prompt and resource (both eras) and the declared fallback's stdio checks
#     (python/test_fallback.py); any sanitizer report, valgrind error or definite leak
#     fails.
#
# Builds elicit-ffi (release), the server (target/c-server), and elicit-rmcp-server
# (release, lib.sh's build_rmcp_server into $BUILD, shared with scripts/test-mcp.sh); installs
# libcjson-dev and valgrind when missing. Extra arguments go to the pytest runs. Exits
# non-zero on any failure; the last lines are one verdict per part.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
cd "$ROOT"

out="$BUILD/c-server"
mkdir -p "$out"
py=$(mcp_test_venv)
echo "test-c-server: building the C server, elicit-ffi and elicit-rmcp-server (release)" >&2
scripts/dev-c-server.sh --stdio </dev/null
# Built: every server start below runs the binary (no cargo or cc check per start).
export ELICIT_C_SERVER_BIN="$out/booking_server"
build_rmcp_server
export ELICIT_RMCP_SERVER_BIN="$RMCP_SERVER_BIN"
export ELICIT_SERVER_CMD="$ROOT/scripts/dev-c-server.sh"
suites=(tests/interop/mcp/test_booking_server.py tests/interop/mcp/test_rmcp_prompts_resources.py)

status=0
verdicts=()
verdict() { # verdict NAME COMMAND...
    local name=$1
    shift
    if "$@"; then verdicts+=("$name: passed"); else status=1; verdicts+=("$name: FAILED"); fi
}

verdict "FastMCP client, stdio, both eras" timeout 600 "$py" -m pytest "${suites[@]}" -k stdio \
    -p no:cacheprovider -q -rfE "$@"
verdict "rounds shared with elicit-rmcp-server" timeout 300 "$py" -m pytest \
    tests/interop/mcp/test_c_server.py -p no:cacheprovider -q -rfE "$@"
verdict "bad lines over stdio" env ELICIT_RMCP_SERVER_BIN="$ROOT/scripts/dev-c-server.sh" \
    timeout 300 "$py" -m pytest tests/interop/mcp/test_bad_input.py -k stdio -p no:cacheprovider -q -rfE "$@"
# --fallback arguments: python/test_fallback.py's stdio cases (the server has no HTTP).
verdict "MCP Python SDK and TypeScript SDK clients, stdio" env ELICIT_INTEROP_SERVER="$ROOT/scripts/dev-c-server.sh" \
    ELICIT_INTEROP_STDIO_ONLY=1 bash scripts/test-mcp-clients.sh "$@"

# 4. Sanitizers and valgrind, each through the same subset of the FastMCP checks.
subset="stdio and (book_flight_accepts or greet or order_asks or refused_seat or prompt or resource)"
# client_checks BIN: that subset, then the declared fallback's checks, against BIN.
client_checks() {
    ELICIT_C_SERVER_BIN=$1 timeout 600 "$py" -m pytest "${suites[@]}" -k "$subset" -p no:cacheprovider -q -rfE \
        "${extra[@]}" &&
        ELICIT_C_SERVER_BIN=$1 ELICIT_INTEROP_CMD="[\"$ROOT/scripts/dev-c-server.sh\"]" \
            ELICIT_INTEROP_URL="http://127.0.0.1:9/mcp" timeout 300 "$py" -m pytest \
            tests/interop/clients/python/test_fallback.py -k stdio -p no:cacheprovider -q -rfE "${extra[@]}"
}
extra=("$@")
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
CC=${CC:-cc}
"$CC" -std=c99 -Wall -Wextra -Werror -g "${SAN[@]}" -I"$ROOT/include" servers/c/booking_server.c \
    "$BUILD/release/libelicit_ffi.a" -lcjson -lgcc_s -lutil -lrt \
    -lpthread -lm -ldl -lc -o "$out/booking_server.asan"
rm -f "$out"/asan.* "$out"/valgrind.*
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$out/asan" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$out/asan"
verdict "ASan+UBSan" client_checks "$out/booking_server.asan"
if compgen -G "$out/asan.*" >/dev/null; then
    cat "$out"/asan.* >&2
    status=1
    verdicts+=("ASan+UBSan reports: FAILED")
fi
need_cmd valgrind valgrind
cat >"$out/valgrind-server.sh" <<SH
#!/bin/sh
exec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=99 --log-file="$out/valgrind.%p.log" "$out/booking_server" "\$@"
SH
chmod +x "$out/valgrind-server.sh"
verdict "valgrind" client_checks "$out/valgrind-server.sh"
# --quiet: a log holds only what valgrind found.
runs=$(ls "$out"/valgrind.*.log 2>/dev/null | wc -l)
if [ "$runs" -eq 0 ] || grep -l . "$out"/valgrind.*.log >/dev/null 2>&1; then
    grep -h . "$out"/valgrind.*.log >&2 || true
    status=1
    verdicts+=("valgrind reports ($runs server runs): FAILED")
else
    verdicts+=("valgrind: $runs server runs, no error, no leak")
fi
printf 'test-c-server: %s\n' "${verdicts[@]}"
exit $status
