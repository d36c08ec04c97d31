#!/usr/bin/env bash
# Side-by-side per-round latency: elicit-core (criterion, core/benches/rounds.rs) vs the
# reference engine (reference/oracle/bench.py, FastMCP + seed overlay), same cases.
#
#   scripts/bench-vs-reference.sh
#
# Runs SITTINGS sittings (default 5), interleaved: within a sitting the two sides
# alternate per case (the reference's case, then ours), so each case's pair sees the same
# stretch of machine load; the reference's cases are timed by bench.py's own functions
# in one Python process per sitting, as bench.py times them. Prints one line per case
# and round:
#   case round ours_us reference_us ratio  [ratio of each sitting]
# (ours_us and reference_us are the medians over the sittings of each sitting's median,
# µs; ratio = reference / ours of those), the 1-minute load average before every sitting
# and whether the machine was quiet (every one under 1: issue 30's protocol; a ratio from
# a loaded machine says little), then `#` lines: the per-question cost and
# the goals (issue 30: ratio ≥ 1000 on every round, first and final, as the median of five
# quiet sittings; ≤ 0.5 µs per rendered resolver question, measured on our resolve-16 case).
#
# Environment:
#   ORACLE_DIR     the oracle (default: reference/oracle in the shared folder)
#   ORACLE_VENV    its venv (default $HOME/.cache/oracle-venv; built by its install.sh)
#   REF_ITERS      bench.py's base iteration count, its --iters (default 1000; bench.py's own
#                  default is 4000)
#   REFERENCE      "live" (default: run bench.py now, on this machine) or "recorded"
#                  (the fastmcp-seed rows of the oracle's bench_results.txt)
#   BENCH_FILTER   run our side of a case only when "round/<case>/" contains this text
#                  (default "round/": every case)
#   SITTINGS       how many interleaved sittings (default 5)
#   QUIET_WAIT     seconds to wait before a sitting for the 1-minute load average to fall
#                  under 1 (default 240; the previous sitting's own busy core lifts it)
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

SITTINGS="${SITTINGS:-5}"
[[ "$SITTINGS" =~ ^[1-9][0-9]*$ ]] || { echo "bench-vs-reference: SITTINGS must be a positive integer, not '$SITTINGS'" >&2; exit 2; }
if [ "$REFERENCE" != recorded ]; then "$ORACLE_DIR/install.sh" "$VENV" >&2; fi
QUIET_WAIT="${QUIET_WAIT:-240}"
[[ "$QUIET_WAIT" =~ ^[0-9]+$ ]] || { echo "bench-vs-reference: QUIET_WAIT must be a whole number of seconds, not '$QUIET_WAIT'" >&2; exit 2; }
# The previous sitting (a busy core) lifts the 1-minute load average itself: before each
# sitting, wait up to QUIET_WAIT seconds for it to fall under 1 again.
wait_quiet() {
  local waited=0
  while awk '{ exit !($1 >= 1) }' /proc/loadavg && [ "$waited" -lt "$QUIET_WAIT" ]; do
    sleep 5; waited=$((waited + 5))
  done
  [ "$waited" -eq 0 ] || echo "[bench] waited ${waited} s for the load average to fall under 1" >&2
}
# The reference, one case at a time: a Python process per sitting that imports bench.py
# and, for each case label read from stdin, times that case's first and final rounds
# as bench.py's own loop does (its fm_states, fm_time, iters_for and summarize, the same
# warm-up and iterations, cases prepared in bench.py's order as they are first asked
# for), printing one JSON line. bench.py itself runs every case in one go; this lets the
# two sides alternate per case, so each case's pair of numbers sees the same stretch of
# machine load.
cat > "$tmp/ref_cases.py" <<'PY'
import asyncio, json, os, sys
sys.path.insert(0, os.getcwd())
import bench  # ORACLE_DIR/bench.py (the working directory)

async def main(base_iters: int, warmup: int) -> None:
    prepared = {}
    for line in sys.stdin:
        label = line.strip()
        kind, n = label.rsplit("-", 1)  # bench.py's labels: indep-N, chain-N
        n = int(n)
        if label not in prepared:
            fn = bench.fm_independent_tool(n) if kind == "indep" else bench.fm_chain_tool(n)
            specs = bench.find_elicit_parameters(fn)
            prepared[label] = (specs, await bench.fm_states(specs))
        specs, (first, final, rounds) = prepared[label]
        iters = bench.iters_for(n, base_iters)
        rows = []
        for which, ctx, expect in (("first", first, False), ("final", final, True)):
            await bench.fm_time(specs, ctx, warmup, expect)
            s = bench.summarize(await bench.fm_time(specs, ctx, iters, expect))
            rows.append({"engine": "fastmcp-seed", "case": label, "round": which,
                         "rounds_total": rounds, **s})
        print(json.dumps(rows), flush=True)

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
PY
# Ours: one case's criterion estimates (µs) as a JSON object line.
ours_case() {
  python3 - "$TARGET/criterion" "$1" <<'PY'
import json, os, sys
out = {}
for rd in ("first", "final"):
    p = os.path.join(sys.argv[1], "round", sys.argv[2], rd, "new", "estimates.json")
    if os.path.exists(p):
        out[f"{sys.argv[2]} {rd}"] = json.load(open(p))["median"]["point_estimate"] / 1000.0
print(json.dumps(out))
PY
}
# Ours, one case of sitting $1: `cargo bench` on round/$2/, its estimates appended to the
# sitting's file (skipped unless "round/<case>/" contains BENCH_FILTER).
run_ours() {
  [[ "round/$2/" == *"${BENCH_FILTER:-round/}"* ]] || return 0
  echo "[bench] sitting $1/$SITTINGS, $2, ours: cargo bench -p elicit-core --features seal --bench rounds -- round/$2/" >&2
  CARGO_TARGET_DIR="$TARGET" cargo bench -q -p elicit-core --features seal --bench rounds -- \
    "round/$2/" >&2
  ours_case "$2" >> "$tmp/ours-$1.jsonl"
}
# Build once before the first sitting, so compiling is not inside any sitting.
CARGO_TARGET_DIR="$TARGET" cargo bench -q -p elicit-core --features seal --bench rounds --no-run >&2
REF_CASES=(indep-1 indep-4 indep-16 indep-64 chain-8)
OUR_ONLY=(resolve-16)  # bench.py has no such case
for ((i = 1; i <= SITTINGS; i++)); do
  wait_quiet
  cut -d' ' -f1 /proc/loadavg > "$tmp/load-$i"
  if [ "$REFERENCE" = recorded ]; then
    awk '$1 == "fastmcp-seed" { printf "{\"case\":\"%s\",\"round\":\"%s\",\"median_us\":%s}\n", $2, $3, $5 }' \
      "$ORACLE_DIR/bench_results.txt" | python3 -c 'import sys,json; print(json.dumps([json.loads(l) for l in sys.stdin]))' \
      > "$tmp/ref-$i.jsonl"
  else
    coproc REF { cd "$ORACLE_DIR" && exec "$VENV/bin/python" "$tmp/ref_cases.py" "${REF_ITERS:-1000}" 50; }
  fi
  : > "$tmp/ours-$i.jsonl"
  for c in "${REF_CASES[@]}"; do
    # 1. The reference's case (live), then 2. ours, the same case.
    if [ "$REFERENCE" != recorded ]; then
      echo "[bench] sitting $i/$SITTINGS, $c, reference: bench.py's rounds, --iters ${REF_ITERS:-1000} (fastmcp-seed)" >&2
      echo "$c" >&"${REF[1]}"
      read -r line <&"${REF[0]}" || { echo "bench-vs-reference: the reference stopped at $c" >&2; exit 1; }
      echo "$line" >> "$tmp/ref-$i.jsonl"
    fi
    run_ours "$i" "$c"
  done
  for c in "${OUR_ONLY[@]}"; do run_ours "$i" "$c"; done
  if [ "$REFERENCE" != recorded ]; then
    exec {REF[1]}>&-
    wait "$REF_PID"
  fi
done

# 3. The table.
python3 - "$tmp" "$SITTINGS" "$REFERENCE" <<'PY'
import json, os, statistics, sys
tmp, n, which = sys.argv[1], int(sys.argv[2]), sys.argv[3]
refs, oursl, loads = [], [], []
for i in range(1, n + 1):
    rows = [r for l in open(os.path.join(tmp, f"ref-{i}.jsonl")) for r in json.loads(l)]
    refs.append({(r["case"], r["round"]): r["median_us"] for r in rows
                 if r.get("engine", "fastmcp-seed") == "fastmcp-seed"})
    oursl.append({tuple(k.split(" ")): v for l in open(os.path.join(tmp, f"ours-{i}.jsonl"))
                  for k, v in json.loads(l).items()})
    loads.append(float(open(os.path.join(tmp, f"load-{i}")).read()))
def med(maps, key):
    vals = [m[key] for m in maps if key in m]
    return statistics.median(vals) if vals else None
cases = ["indep-1", "indep-4", "indep-16", "indep-64", "chain-8"]
extra = ["resolve-16"]  # ours only: bench.py has no such case
keys = {k for m in oursl for k in m} | {k for m in refs for k in m}
ours = {k: med(oursl, k) for k in keys if med(oursl, k) is not None}
ref = {k: med(refs, k) for k in keys if med(refs, k) is not None}
def sittings(c, rd):
    rs = [f"{r[(c, rd)] / o[(c, rd)]:.0f}" for r, o in zip(refs, oursl) if (c, rd) in r and (c, rd) in o]
    return " [" + " ".join(rs) + "]" if rs else ""
print("case round ours_us reference_us ratio")
for c in cases:
    for rd in ("first", "final"):
        o, r = ours.get((c, rd)), ref.get((c, rd))
        if o is None or r is None:
            print(f"{c} {rd} {'-' if o is None else f'{o:.3f}'} {'-' if r is None else f'{r:.1f}'} -")
            continue
        print(f"{c} {rd} {o:.3f} {r:.1f} {r / o:.0f}{sittings(c, rd)}")
for c in extra:
    for rd in ("first", "final"):
        o = ours.get((c, rd))
        print(f"{c} {rd} {'-' if o is None else f'{o:.3f}'} - -")
print(f"# reference: {which}; {n} interleaved sittings, medians of the sittings' medians")
quiet = all(l < 1 for l in loads)
print(f"# load average (1 min) before each sitting: {' '.join(f'{l:.2f}' for l in loads)}; "
      f"{'quiet (all under 1)' if quiet else 'NOT quiet: a load average of 1 or more; these ratios are not the issue measure'}")
goals = []
def ratio(c, rd):
    o, r = ours.get((c, rd)), ref.get((c, rd))
    return None if o is None or r is None else r / o
for c in cases:
    for rd in ("first", "final"):
        r = ratio(c, rd)
        if r is not None:
            goals.append((f"{c} {rd} ratio >= 1000", r >= 1000, f"{r:.0f}"))
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
