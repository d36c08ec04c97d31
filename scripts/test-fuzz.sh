#!/usr/bin/env bash
# Run every cargo-fuzz target of fuzz/ for a while each (default 30 s).
#
#   scripts/test-fuzz.sh [seconds] [target...]
#
# Installs cargo-fuzz (cargo install --locked) and the nightly toolchain when missing.
# Corpora are seeded from tests/vectors and the reference oracle's vectors (fuzz/seed.py;
# a failed seeding fails the run) and kept in fuzz/corpus/<target>; crashes land in
# fuzz/artifacts/<target>. Prints one summary line per target:
#   <target> runs=<execs> seconds=<s> corpus=<files> result=ok|CRASH
# Exits non-zero if any target crashed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"
export RUSTUP_AUTO_INSTALL=0
secs="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(compile state_round replies host_actions unseal ffi call ffi_noalloc)

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing the nightly toolchain (cargo-fuzz needs it)" >&2
  rustup toolchain install nightly --profile minimal || exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz || exit 2
fi
python3 seed.py >/dev/null || { echo "fuzz.sh: seeding the corpora (fuzz/seed.py) failed" >&2; exit 2; }

cargo +nightly fuzz build -O || exit 2
status=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t/last-run.log"
  t0=$SECONDS
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  result=ok
  if [ $rc -ne 0 ]; then
    result=CRASH; status=1
    grep -E "panicked|ERROR|SUMMARY|Test unit written" "$log" | head -5 >&2
  fi
  summary+=("$t runs=${runs:-?} seconds=$((SECONDS - t0)) corpus=$(ls "corpus/$t" | wc -l) result=$result")
  echo "${summary[-1]}"
done
echo "--- fuzz summary (${secs}s each)"
printf '%s\n' "${summary[@]}"
exit $status
