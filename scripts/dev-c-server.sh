#!/usr/bin/env bash
# dev-c-server.sh: the booking fixture's tools, prompt and resource served by the MCP
# server in C (servers/c/booking_server.c, on elicit's call level and cJSON), with the
# Rust server's flags, so every harness drives it:
#
#   scripts/dev-c-server.sh --stdio [--state-keys-file PATH] [--state-ttl SECS] [--fallback arguments]
#
# ELICIT_STATE_KEYS (or --state-keys-file): comma-separated hex keys, the first seals;
# without a ring, one ephemeral key. Builds elicit-ffi (release) and the server
# (target/c-server/booking_server, -Wall -Wextra -Werror) when they are missing or older
# than their sources; installs libcjson-dev (apt) when cJSON is missing. CC and CFLAGS
# pick another compiler or add flags (ELICIT_C_SERVER_BIN runs a prebuilt binary, e.g.
# the sanitizer build of scripts/test-c-server.sh). Log lines go to stderr.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"

BIN=${ELICIT_C_SERVER_BIN:-$BUILD/c-server/booking_server}
if [ -z "${ELICIT_C_SERVER_BIN:-}" ]; then
    if [ ! -f /usr/include/cjson/cJSON.h ]; then
        apt_install libcjson-dev
    fi
    cargo build --quiet --release -p elicit-ffi >&2
    LIB="$BUILD/release/libelicit_ffi.a"
    SRC="$ROOT/servers/c/booking_server.c"
    if [ ! -x "$BIN" ] || [ "$SRC" -nt "$BIN" ] || [ "$LIB" -nt "$BIN" ] || [ "$ROOT/include/elicit.h" -nt "$BIN" ]; then
        mkdir -p "$(dirname "$BIN")"
        # shellcheck disable=SC2086
        ${CC:-cc} -std=c99 -Wall -Wextra -Werror -g ${CFLAGS:-} -I"$ROOT/include" "$SRC" "$LIB" \
            -lcjson -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$BIN.tmp.$$"
        mv "$BIN.tmp.$$" "$BIN"
    fi
fi
exec "$BIN" --fixture "$ROOT/tests/fixture" "$@"
