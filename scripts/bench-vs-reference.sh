#!/usr/bin/env bash
# Side-by-side per-round latency: elicit-core (criterion, core/benches/rounds.rs) vs the
# reference engine (reference/oracle/bench.py, FastMCP + seed overlay), same cases.
#
#   scripts/bench-vs-reference.sh
#
# Prints one line per case and round:   case round ours_us reference_us ratio
# (medians, µs; ratio = reference / ours), then `#` lines: the per-question cost and
# the issue's goals (ratio ≥ 1000 on indep-16 first, ≥ 500 on every final round,
# ≤ 0.5 µs per rendered resolver question, measured on our resolve-16 case).
#
# Environment:
#   ORACLE_DIR     the oracle (default: reference/oracle in the shared folder)
#   ORACLE_VENV    its venv (default $HOME/.cache/oracle-venv; built by its install.sh)
#   REF_ITERS      bench.py --iters (default 1000; bench.py's own default is 4000)
#   REFERENCE      "live" (default: run bench.py now, on this machine) or "recorded"
#                  (the fastmcp-seed rows of the oracle's bench_results.txt)
#   BENCH_FILTER   criterion filter (default "round/")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export RUSTUP_AUTO_INSTALL=0
ROOT=$PWD
ORACLE_DIR="${ORACLE_DIR:-}"
if [ -z "$ORACLE_DIR" ]; then
  # The reference beside the checkout (or beside a worktree folder one level down).
  for d in "$ROOT/../shared/reference/oracle" "$ROOT/../../shared/reference/oracle"; do
    [ -f "$d/bench.py" ] && ORACLE_DIR="$d" && break
  done
fi
[ -f "${ORACLE_DIR:-}/bench.py" ] || { echo "bench-vs-reference: no oracle bench.py found (set ORACLE_DIR)" >&2; exit 2; }
VENV="${ORACLE_VENV:-$HOME/.cache/oracle-venv}"
REFERENCE="${REFERENCE:-live}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The reference.
if [ "$REFERENCE" = recorded ]; then
  awk '$1 == "fastmcp-seed" { printf "{\"case\":\"%s\",\"round\":\"%s\",\"median_us\":%s}\n", $2, $3, $5 }' \
    "$ORACLE_DIR/bench_results.txt" | python3 -c 'import sys,json; print(json.dumps([json.loads(l) for l in sys.stdin]))' \
    > "$tmp/ref.json"
else
  "$ORACLE_DIR/install.sh" "$VENV" >&2
  echo "[bench] reference: bench.py --iters ${REF_ITERS:-1000} (fastmcp-seed only)" >&2
  (cd "$ORACLE_DIR" && "$VENV/bin/python" bench.py --json --no-sdk \
     --iters "${REF_ITERS:-1000}" --warmup 50) > "$tmp/ref.json"
fi

# 2. Ours.
echo "[bench] ours: cargo bench -p elicit-core --features seal --bench rounds" >&2
CARGO_TARGET_DIR="$TARGET" cargo bench -q -p elicit-core --features seal --bench rounds -- \
  "${BENCH_FILTER:-round/}" >&2

# 3. The table.
python3 - "$tmp/ref.json" "$TARGET/criterion" "$REFERENCE" <<'PY'
import json, os, sys
ref_rows, crit, which = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
ref = {(r["case"], r["round"]): r["median_us"] for r in ref_rows
       if r.get("engine", "fastmcp-seed") == "fastmcp-seed"}
cases = ["indep-1", "indep-4", "indep-16", "indep-64", "chain-8"]
extra = ["resolve-16"]  # ours only: bench.py has no such case
ours = {}
for c in cases + extra:
    for rd in ("first", "final"):
        p = os.path.join(crit, "round", c, rd, "new", "estimates.json")
        if os.path.exists(p):
            ours[(c, rd)] = json.load(open(p))["median"]["point_estimate"] / 1000.0
print("case round ours_us reference_us ratio")
for c in cases:
    for rd in ("first", "final"):
        o, r = ours.get((c, rd)), ref.get((c, rd))
        if o is None or r is None:
            print(f"{c} {rd} {'-' if o is None else f'{o:.3f}'} {'-' if r is None else f'{r:.1f}'} -")
            continue
        print(f"{c} {rd} {o:.3f} {r:.1f} {r / o:.0f}")
for c in extra:
    for rd in ("first", "final"):
        o = ours.get((c, rd))
        print(f"{c} {rd} {'-' if o is None else f'{o:.3f}'} - -")
print(f"# reference: {which}")
goals = []
def ratio(c, rd):
    o, r = ours.get((c, rd)), ref.get((c, rd))
    return None if o is None or r is None else r / o
r = ratio("indep-16", "first")
if r is not None:
    goals.append(("indep-16 first ratio >= 1000", r >= 1000, f"{r:.0f}"))
for c in cases:
    r = ratio(c, "final")
    if r is not None:
        goals.append((f"{c} final ratio >= 500", r >= 500, f"{r:.0f}"))
if ("resolve-16", "first") in ours:
    # resolve-16's first round: 16 resolvers each return a question, which the engine
    # checks, renders, hashes and writes into inputRequests and requestState. The whole
    # round (creating it, the host's resolver code, both outputs) is charged to them.
    per = ours[("resolve-16", "first")] / 16
    goals.append(("per rendered resolver question <= 0.5 us (resolve-16 first / 16, whole round)", per <= 0.5, f"{per:.3f} us"))
    if ("indep-16", "first") in ours:
        m = (ours[("resolve-16", "first")] - ours[("indep-16", "first")]) / 16
        print(f"# resolver question over a literal one (resolve-16 first - indep-16 first) / 16: {m:.3f} us")
if ("chain-8", "final") in ours:
    # chain-8's final round re-renders 7 resolver questions and also re-checks 7 recorded
    # answers, matches 8 digests and writes every value: a loose upper bound.
    per = ours[("chain-8", "final")] / 8
    print(f"# chain-8 final / 8 (also re-checks recorded answers and writes the values): {per:.3f} us")
for name, ok, got in goals:
    print(f"# {'ok  ' if ok else 'MISS'} {name}: {got}")
PY
