#!/usr/bin/env bash
# test-duplicates.sh: a copy-paste scan of the places where code must exist once.
#
# The tool: jscpd 5.3.2 from npm (pinned: 5.4.1 installs but its Linux build is not
# served), installed by this script into target/tools/jscpd with `npm install -E`.
# It compares token streams (Rust, Python, C, shell, ...), so a clone is the same code
# whatever its layout or comments' places.
#
# Scopes, each with its threshold (jscpd's --min-tokens / --min-lines):
#
#   c-abi     clones BETWEEN ffi/ (elicit-ffi, the hosted C ABI) and ffi-noalloc/
#             (elicit-ffi-noalloc, the heap-free one), their C contract tests included
#             (--skip-local: a folder's clones with itself are not this scope's business).
#             60 tokens, 5 lines. Why not jscpd's default 50: both surfaces write each
#             `extern "C"` entry point out by hand (cbindgen must see every item; no
#             macro-generated FFI items), and an entry point whose whole body is one
#             line calling a shared body (`read!`, `answer!`, `abi::poll`, ...) has a
#             signature tail of the same shape in both: 51 to 56 tokens. Real logic
#             repeated across the crates is longer than that.
#   tests     clones BETWEEN the test runners: tests/oracle-runner, tests/interop/mcp,
#             tests/interop/seal, tests/interop/clients, tests/differential
#             (--skip-local). 50 tokens, 5 lines.
#   python    clones WITHIN python/ (the package, its tests and examples). 50 tokens.
#   examples  clones WITHIN examples/. 50 tokens, 5 lines.
#
# Excluded everywhere: build and tool folders (target/, node_modules/, .venv*/,
# __pycache__/), the staticlib's lock and config, and data rather than code: *.json,
# *.lock, *.txt, *.md, *.yaml, *.toml, *.ld.
#
# Marked in the code (jscpd's `jscpd:ignore-start` / `jscpd:ignore-end` comments), the one
# kind of code left out: the typing.overload signatures of python/'s decorators
# (elicit_mcp.declare.tool, Elicitation.tool and Elicitation.prompt). `@tool` and
# `@tool(title=...)` need two overloads and the implementation, each spelling out the same
# keyword parameters (Python has no way to share a parameter list that mypy --strict and
# help() both see); the options are each decorator's API, the shared parts (the return
# type `Decorator`, turning a function into a `Declared`) are shared. Nothing else is marked.
#
# Gating: a scope listed in DUPLICATES_GATE fails the step when it has a clone; the others
# are scanned and reported only. Every scope is gated by default.
#
#   scripts/test-duplicates.sh             scan every scope, fail on any clone
#   DUPLICATES_GATE="c-abi" scripts/test-duplicates.sh     gate one scope, report the rest
#
# Exits non-zero when a gated scope has a clone, or when the tool cannot be installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

JSCPD_VERSION=5.3.2
GATE=${DUPLICATES_GATE:-"c-abi tests python examples"}
TOOLS=$BUILD/tools/jscpd
JSCPD=$TOOLS/node_modules/.bin/jscpd

need_cmd npm npm
if [ "$("$JSCPD" --version 2>/dev/null)" != "jscpd $JSCPD_VERSION" ]; then
  mkdir -p "$TOOLS"
  echo "installing jscpd $JSCPD_VERSION (npm)" >&2
  (cd "$TOOLS" && npm install -E --no-audit --no-fund --loglevel=error "jscpd@$JSCPD_VERSION" >&2)
fi
[ "$("$JSCPD" --version 2>/dev/null)" = "jscpd $JSCPD_VERSION" ] || { echo "test-duplicates: jscpd $JSCPD_VERSION did not install" >&2; exit 1; }

IGNORE="**/target/**,**/node_modules/**,**/.venv*/**,**/__pycache__/**,**/.cargo/**"
IGNORE+=",**/*.json,**/*.lock,**/*.txt,**/*.md,**/*.yaml,**/*.toml,**/*.ld"

failed=0
# scan NAME TOKENS [--skip-local] PATH...: run jscpd on one scope and report it.
scan() {
  local name=$1 tokens=$2 out n gated=no
  shift 2
  case " $GATE " in *" $name "*) gated=yes ;; esac
  out=$("$JSCPD" --min-tokens "$tokens" --min-lines 5 --no-colors --ignore "$IGNORE" "$@" 2>&1) || true
  n=$(sed -n 's/^Found \([0-9]*\) clones\.$/\1/p' <<<"$out" | tail -1)
  [ -n "$n" ] || { echo "$out" | tail -5; echo "FAIL: $name: jscpd printed no result"; failed=1; return; }
  if [ "$n" -eq 0 ]; then
    echo "ok: $name: no clone ($tokens tokens)"
    return
  fi
  grep -A2 '^Clone found' <<<"$out" | grep -v '^--' | sed 's/^/    /'
  if [ "$gated" = yes ]; then
    echo "FAIL: $name: $n clone(s) ($tokens tokens)"
    failed=1
  else
    echo "report: $name: $n clone(s) ($tokens tokens; not gated: DUPLICATES_GATE leaves it out)"
  fi
}

echo "jscpd $JSCPD_VERSION; gated scopes: $GATE"
scan c-abi 60 --skip-local ffi ffi-noalloc
scan tests 50 --skip-local tests/oracle-runner tests/interop/mcp tests/interop/seal \
    tests/interop/clients tests/differential
scan python 50 python
scan examples 50 examples

if [ "$failed" -ne 0 ]; then
  echo "test-duplicates: a gated scope has clones: share the code (a function, a macro for bodies) instead of copying it"
  exit 1
fi
echo "test-duplicates: gated scopes clean"
