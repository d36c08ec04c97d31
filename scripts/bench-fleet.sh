#!/usr/bin/env bash
# Load through the balancer (a benchmark, not a test): 1, 2 and 4 elicit-rmcp-server
# replicas behind HAProxy 2.6 (deploy/haproxy/haproxy.cfg), 1, 50 and 200 concurrent
# book_flight calls (3 rounds each) from the load client of scripts/bench-load.sh
# (booking-load). Prints a markdown table: throughput, round latency p50/p99, failed
# calls, and the CPU seconds the balancer, the replicas and the client used per 1000
# rounds; then the per-round CPU model (docs: PERF.md, "Through the balancer").
#
#   scripts/bench-fleet.sh
#   REPLICAS="1 2" CONCURRENCY="50 200" CALLS=3000 scripts/bench-fleet.sh
#
# CALLS (default 2000) calls per cell; at concurrency 1 a fifth of them. Loopback only;
# every process is killed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
replicas_list="${REPLICAS:-1 2 4}"
concurrency_list="${CONCURRENCY:-1 50 200}"
calls="${CALLS:-2000}"

need_cmd haproxy haproxy
build_rmcp_server --bins
bin="$BUILD/release"
tick=$(getconf CLK_TCK)

work=$(mktemp -d)
pids=()
stop_all() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

# CPU seconds (user + system) a process has used so far.
cpu() { awk -v t="$tick" '{printf "%.3f", ($14 + $15) / t}' "/proc/$1/stat"; }

export ELICIT_STATE_KEYS="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
port_of() {
  local log=$1 url=
  for _ in $(seq 400); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
    [[ -n "$url" ]] && break
    sleep 0.05
  done
  [[ -n "$url" ]] || { echo "bench-fleet: a replica did not start" >&2; cat "$log" >&2; exit 1; }
  url=${url#http://127.0.0.1:}
  echo "${url%/mcp}"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "bench-fleet: $(nproc) cores, $(haproxy -v | head -1 | awk '{print $1, $2, $3}'), $calls calls per cell (concurrency 1: $((calls / 5)))"
echo
echo "| replicas | concurrent | calls/s | rounds/s | p50 ms | p99 ms | failed | CPU s/1000 rounds: balancer | replicas | client |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
model=()
for r in $replicas_list; do
  stop_all
  cfg="$work/haproxy-$r.cfg"
  cp deploy/haproxy/haproxy.cfg "$cfg"
  rpids=()
  for i in $(seq "$r"); do
    log="$work/replica-$r-$i.log"
    "$bin/elicit-rmcp-server" --http 127.0.0.1:0 2>"$log" &
    pids+=("$!"); rpids+=("$!")
    echo "    server r$i 127.0.0.1:$(port_of "$log")" >>"$cfg"
  done
  bind_port=$(free_port); ops_port=$(free_port)
  ELICIT_FLEET_BIND="127.0.0.1:$bind_port" ELICIT_FLEET_OPS="127.0.0.1:$ops_port" \
    haproxy -db -f "$cfg" >"$work/haproxy-$r.log" 2>&1 &
  hpid=$!; pids+=("$hpid")
  # Until every replica is up at the balancer (health checks, rise 2).
  for _ in $(seq 200); do
    up=$({ curl -s "http://127.0.0.1:$ops_port/stats;csv" || true; } | awk -F, '$1=="replicas" && $2!="BACKEND" && $18 ~ /^UP/' | wc -l)
    [[ "$up" -eq "$r" ]] && break
    sleep 0.05
  done
  for c in $concurrency_list; do
    n=$calls; [[ "$c" -eq 1 ]] && n=$((calls / 5))
    h0=$(cpu "$hpid"); s0=0; for p in "${rpids[@]}"; do s0=$(awk -v a="$s0" -v b="$(cpu "$p")" 'BEGIN{print a+b}'); done
    TIMEFORMAT='%U %S'
    { time "$bin/booking-load" --url "http://127.0.0.1:$bind_port/mcp" --calls "$n" --concurrency "$c" >"$work/out" 2>&1 || true; } 2>"$work/time"
    h1=$(cpu "$hpid"); s1=0; for p in "${rpids[@]}"; do s1=$(awk -v a="$s1" -v b="$(cpu "$p")" 'BEGIN{print a+b}'); done
    ok=$(sed -n 's/^booking-load: \([0-9]*\)\/.*/\1/p' "$work/out")
    wall=$(sed -n 's/.* \([0-9.]*\)s wall.*/\1/p' "$work/out")
    rounds=$(sed -n 's/^  all rounds: n=\([0-9]*\) .*/\1/p' "$work/out")
    p50=$(sed -n 's/^  all rounds: .*p50=\([0-9.]*\) ms.*/\1/p' "$work/out")
    p99=$(sed -n 's/^  all rounds: .*p99=\([0-9.]*\) ms.*/\1/p' "$work/out")
    [[ -n "$wall" && -n "$rounds" ]] || { echo "bench-fleet: the load client failed:" >&2; cat "$work/out" >&2; exit 1; }
    read -r cu cs <"$work/time"
    awk -v r="$r" -v c="$c" -v n="$n" -v ok="$ok" -v w="$wall" -v k="$rounds" -v p50="$p50" -v p99="$p99" \
        -v h="$(awk -v a="$h0" -v b="$h1" 'BEGIN{print b-a}')" -v s="$(awk -v a="$s0" -v b="$s1" 'BEGIN{print b-a}')" \
        -v cl="$(awk -v a="$cu" -v b="$cs" 'BEGIN{print a+b}')" \
        'BEGIN { printf "| %d | %d | %.0f | %.0f | %.2f | %.2f | %d | %.3f | %.3f | %.3f |\n",
                 r, c, ok / w, k / w, p50, p99, n - ok, h * 1000 / k, s * 1000 / k, cl * 1000 / k }'
    model+=("$r $c $(awk -v w="$wall" -v k="$rounds" 'BEGIN{print k/w}') $(awk -v a="$h0" -v b="$h1" -v s0="$s0" -v s1="$s1" -v cu="$cu" -v cs="$cs" -v k="$rounds" 'BEGIN{print (b-a+s1-s0+cu+cs)/k}')")
  done
done

# The model: with every process CPU-bound, rounds/s = cores / (CPU seconds per round of
# balancer + replicas + client). Checked against each measured cell at the highest
# concurrency.
echo
echo "model (cores / CPU per round, $(nproc) cores) against the measured rounds/s:"
for m in "${model[@]}"; do
  read -r r c rps cpr <<<"$m"
  awk -v r="$r" -v c="$c" -v rps="$rps" -v cpr="$cpr" -v cores="$(nproc)" \
    'BEGIN { printf "  %d replica(s), %3d concurrent: %.3f ms CPU per round -> model %.0f rounds/s, measured %.0f\n",
             r, c, cpr * 1000, cores / cpr, rps }'
done
