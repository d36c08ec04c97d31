#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/mcp-conformance/package.json with the Node 22 it needs) against
# `elicit-rmcp-server --conformance`, sealed, over streamable HTTP:
#
#   scripts/test-mcp-conformance.sh                  the Rust server (elicit-rmcp-server)
#   scripts/test-mcp-conformance.sh CMD [ARG...]     another server taking the same flags,
#                                                    e.g. scripts/dev-python-server.sh
#
# The server is started as `CMD ARG... --conformance --http 127.0.0.1:0` and must print
# "streamable HTTP on http://HOST:PORT/mcp" on stderr.
#
# 1. every in-scope scenario on its own with an EMPTY expected-failures baseline, so a
#    failure or a warning fails the run: each input-required-result-*, server-stateless,
#    tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums and
#    tools-call-sampling;
# 2. `--requirements 2026-07-28` and `--requirements 2025-11-25` with
#    tests/mcp-conformance/expected-failures.yaml, which lists only what is out of
#    scope, each with its reason (a new failure or a stale entry fails the run), plus
#    the server's own tests/mcp-conformance/expected-failures.<CMD's name>.yaml when
#    there is one (the out-of-scope scenarios a server fails where the others pass by
#    accident, each with its reason).
#
# Installs the suite with `npm ci` (lib.sh's npm_ci: once a run; needs npm, Node 20's is
# enough). Builds
# elicit-rmcp-server (release) with lib.sh's build_rmcp_server, into $BUILD (shared with
# scripts/test-mcp.sh and the other interop steps). The suite's
# checks.json files go to target/conformance/; a table (scenario, passed, failed,
# warnings) is printed per run. Exits non-zero on any unexpected result.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$ROOT
suite="$root/tests/mcp-conformance"
server_cmd=("$@")
if [[ ${#server_cmd[@]} -eq 0 ]]; then
    out="$root/target/conformance"
else
    out="$root/target/conformance-$(basename "${server_cmd[0]}" .sh)"
fi

echo "conformance: npm ci (the suite and Node 22) unless current" >&2
npm_ci "$suite"
node="$suite/node_modules/.bin/node"
cli="$suite/node_modules/@modelcontextprotocol/conformance/dist/index.js"
conformance() { "$node" "$cli" "$@"; }
echo "conformance: suite $(conformance --version) on node $("$node" --version)" >&2

if [[ ${#server_cmd[@]} -eq 0 ]]; then
    echo "conformance: building elicit-rmcp-server (release)" >&2
    build_rmcp_server
    server_cmd=("$RMCP_SERVER_BIN")
fi

rm -rf "$out"
mkdir -p "$out"
# The log exists before the server starts: the loop below reads it at once (a read of a
# file the background process had not opened yet once failed the run under set -e).
: >"$out/server.log"
# Sealed, with a fresh key ring; port 0 picks a free port, read from the server's log.
ELICIT_STATE_KEYS="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" \
    "${server_cmd[@]}" --conformance --http 127.0.0.1:0 \
    2>"$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 3000); do
    url=$(sed -n 's|.*streamable HTTP on \(http://[^ ]*/mcp\).*|\1|p' "$out/server.log")
    [[ -n "$url" ]] && break
    kill -0 "$server" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$url" ]] || { echo "conformance: the server did not start" >&2; cat "$out/server.log" >&2; exit 1; }
echo "conformance: server at $url" >&2

# One row per scenario of a run's output directory: scenario, passed, failed, warnings.
table() {
    "$node" - "$1" <<'JS'
const fs = require("fs"), path = require("path");
const dir = process.argv[2];
console.log("| scenario | passed | failed | warnings |\n|---|---|---|---|");
for (const d of fs.readdirSync(dir).sort()) {
  const f = path.join(dir, d, "checks.json");
  if (!fs.existsSync(f)) continue;
  const checks = JSON.parse(fs.readFileSync(f, "utf8"));
  const n = (s) => checks.filter((c) => c.status === s).length;
  const name = d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
  console.log(`| ${name} | ${n("SUCCESS")} | ${n("FAILURE")} | ${n("WARNING")} |`);
}
JS
}

scenarios=$(conformance list --server | grep -oE 'input-required-result-[a-z-]+' | sort -u)
if [[ $(wc -w <<<"$scenarios") -lt 14 ]]; then
    echo "conformance: expected the suite to list 14 input-required-result-* scenarios, got: $scenarios" >&2
    exit 1
fi
scenarios="$scenarios server-stateless tools-call-elicitation elicitation-sep1034-defaults
elicitation-sep1330-enums tools-call-sampling"

# The baseline of the requirement runs: the shared one, plus the server's own entries.
baseline="$suite/expected-failures.yaml"
own="$suite/expected-failures.$(basename "${server_cmd[0]}" .sh).yaml"
if [[ -f "$own" ]]; then
    baseline="$out/expected-failures.yaml"
    { cat "$suite/expected-failures.yaml"; sed '1,/^server:/d' "$own"; } >"$baseline"
fi

status=0
failed=()
for s in $scenarios; do
    # An empty baseline: a warning is as unexpected as a failure.
    if ! timeout 300 "$node" "$cli" server --url "$url" --scenario "$s" \
        --expected-failures /dev/null -o "$out/scenarios" >"$out/$s.log" 2>&1; then
        status=1
        failed+=("$s")
        echo "conformance: $s FAILED:" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$out/$s.log" >&2
    fi
done
echo "conformance: in-scope scenarios, one by one (empty baseline)"
table "$out/scenarios"

for rev in 2026-07-28 2025-11-25; do
    if ! timeout 600 "$node" "$cli" server --url "$url" --requirements "$rev" \
        --expected-failures "$baseline" -o "$out/requirements-$rev" \
        >"$out/requirements-$rev.log" 2>&1; then
        status=1
        failed+=("--requirements $rev")
    fi
    echo "conformance: --requirements $rev (baseline ${baseline#"$root"/})"
    table "$out/requirements-$rev"
    # The suite's verdict on the baseline (its colour codes removed).
    sed 's/\x1b\[[0-9;]*m//g' "$out/requirements-$rev.log" |
        sed -n '/^Expected failures\|^Stale\|^Unexpected\|^Baseline/,$p'
done

if [[ $status -ne 0 ]]; then
    echo "conformance: FAILED: ${failed[*]} (logs in $out)" >&2
else
    echo "conformance: every in-scope scenario clean; both requirement sets as expected"
fi
exit $status
