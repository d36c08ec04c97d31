#!/usr/bin/env bash
# The README's test command: installs what it needs, then runs every test.
#
#   scripts/test.sh            everything
#   QUICK=1 scripts/test.sh    skip the slow interop/differential steps
#
# Ends with a table of each step's wall-clock and CPU seconds and the run's total; exits
# non-zero when any step fails; the last line summarises the steps. The build folders are
# lib.sh's (BUILD, BUILD_AGENT, ...): each is built once per run and shared by name.
#
# Two lanes: most steps keep one core busy, the machine (CI's too) has two. A step started
# with `lane` runs in the background beside the steps after it, its output kept in a log
# printed whole (with its times) when `join_lane` collects it; it shares with the steps
# beside it no build folder that a tidy frees, no port (every server picks port 0) and no
# venv or npm folder that either creates.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# One clean build per run: incremental caches only help an edit loop, and they doubled the
# debug target's size (the CI disk ran out once).
export CARGO_INCREMENTAL=0
df -h . | sed -n 2p | awk '{print "test.sh: disk before the run: " $4 " free of " $2}'

passed=0; failed=0; failures=()
# Every step's result, wall-clock seconds and CPU seconds (user + system of the processes it
# waited for, from bash's `times`: unlike wall time, barely moved by other work on the
# machine), for the table at the end.
rows=()
work=$(mktemp -d)
cpu_file=$work/times
lane_pids=()
# A run that ends early (a signal) stops the lanes still running.
trap 'for p in "${lane_pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
# cpu_cs FILE: the CPU time in a `times` output (both lines: the shell's own, its waited-for
# children's), in centiseconds, into $cs.
cpu_cs() {
  local user sys cuser csys t m sec
  { read -r user sys; read -r cuser csys; } <"$1"
  cs=0
  for t in "$user" "$sys" "$cuser" "$csys"; do # e.g. 12m3.456s
    m=${t%%m*}; sec=${t#*m}; sec=${sec%s}
    cs=$((cs + (m * 60 + 10#${sec%.*}) * 100 + 10#${sec#*.} / 10))
  done
}
# Inside a lane: the file its steps' results go to (join_lane reads them), else empty.
lane_steps=
step() {
  local name="$1"; shift
  echo
  echo "=== $name"
  local t0=$SECONDS result mark=" "
  # In a subshell that writes its `times`: the step's CPU alone (this shell's own count of
  # its children also takes in a lane that ends meanwhile).
  rm -f "$cpu_file"
  if ( "$@"; rc=$?; times >"$cpu_file"; exit "$rc" ); then
    passed=$((passed + 1)); result=ok
  else
    failed=$((failed + 1)); failures+=("$name"); result=FAILED
  fi
  cs=0
  [ ! -s "$cpu_file" ] || cpu_cs "$cpu_file"
  [ -z "$lane_steps" ] || mark="&"
  rows+=("$(printf '%6d %7d  %-6s %s %s' $((SECONDS - t0)) $((cs / 100)) "$result" "$mark" "$name")")
  echo "=== $result: $name ($((SECONDS - t0)) s, CPU $((cs / 100)) s)"
  echo "=== disk: $(df -h . | awk 'NR==2 {print $4}') free; build folders: $(du -sch "$BUILD" "$BUILD_FUZZ" 2>/dev/null | awk 'END {print $1}')"
  [ -z "$lane_steps" ] || printf '%s\t%s\t%s\n' "$result" "$name" "${rows[-1]}" >>"$lane_steps"
}
# lane NAME COMMAND...: runs COMMAND (`step ...`, or a function calling `step`; those steps
# count as any other) in the background, its output into a log; join_lane NAME waits for
# it, prints the log and adds its steps' rows (marked & in the table: their wall time
# overlaps the steps run beside them) and results. Every lane is joined before the table.
declare -A lane_pid=()
lane() {
  local name=$1; shift
  echo
  echo "=== lane $name: starts now, beside the steps below (its output when it ends)"
  (
    lane_steps=$work/lane-$name.steps cpu_file=$work/lane-$name.times
    : >"$lane_steps"
    "$@"
    : >"$work/lane-$name.done"
  ) >"$work/lane-$name.log" 2>&1 </dev/null &
  lane_pid[$name]=$!
  lane_pids+=($!)
}
join_lane() {
  local name=$1 result sname row t0=$SECONDS
  wait "${lane_pid[$name]}"
  echo
  echo "=== lane $name: waited $((SECONDS - t0)) s for it; its output:"
  sed 's/^/  | /' "$work/lane-$name.log"
  while IFS=$'\t' read -r result sname row; do
    rows+=("$row")
    if [ "$result" = ok ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); failures+=("$sname")
    fi
  done <"$work/lane-$name.steps"
  # A lane that ended before its last step (a shell error) has failed too.
  if [ ! -e "$work/lane-$name.done" ]; then
    failed=$((failed + 1)); failures+=("lane $name (ended early)")
  fi
}
# ELICIT_TIDY=1 (set by .ci/run) removes a step's build folder once no later step needs
# it, so the run's disk peak stays low on small CI disks (two runs ran out of space there).
# Left unset, every build folder stays for the next run's incremental builds.
tidy() {
  [ -n "${ELICIT_TIDY:-}" ] || return 0
  local d
  for d in "$@"; do rm -rf "$d"; done
}

# --- toolchain (pinned in rust-toolchain.toml; never `rustup update`) ---------------
if ! rustup run "$TOOLCHAIN" rustc --version >/dev/null 2>&1; then
  rustup toolchain install "$TOOLCHAIN" --profile minimal -c rustfmt,clippy
fi
rustup component add --toolchain "$TOOLCHAIN" rustfmt clippy >/dev/null ||
  { echo "test.sh: cannot add rustfmt and clippy to $TOOLCHAIN" >&2; exit 1; }
# Every rustup target a step adds, added here before the lanes start: rustup takes no lock,
# and two steps adding targets at once could leave the toolchain broken. (The scripts add
# their own when run alone.)
need_target thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imc-unknown-none-elf \
  wasm32-unknown-unknown aarch64-unknown-linux-gnu || exit 1

# The firmware steps (QEMU, one core, and their own build folders: $BUILD_FIRMWARE,
# $BUILD_C_FIRMWARE, $BUILD_AGENT, $BUILD/agent-size), the C ABI's, elicit-rmcp-server's
# build, the packaged crates' and elicit-core's feature sets' run beside the steps from fmt
# to the release: they write nothing into the checkout outside the build folders and
# dist/crates (the release step checks that installing the sdist leaves the checkout as
# it was).
firmware_lane() {
  step "firmware: no-heap engine in QEMU mps2-an386 (both eras, sealed state)" bash scripts/test-firmware.sh
  tidy "$BUILD_FIRMWARE"
  step "C firmware: heap-free C ABI (libelicit_noalloc.a) in QEMU mps2-an386, contract test (valgrind, ASan)" \
    bash scripts/test-c-firmware.sh
  tidy "$BUILD_C_FIRMWARE"
  step "firmware MCP agent on mps2-an386, microbit, sifive_e: sizes (flash, static + painted stack) after scripted sessions in both eras; fails over 60 KiB sealed flash on mps2-an386 or 16 KiB RAM" \
    bash scripts/bench-agent-size.sh --strict
  # $BUILD_AGENT stays: the MCP interop step runs its sealed images.
  tidy "$BUILD/agent-size"
  # Into $BUILD/c-abi; elicit-ffi (release) as lib.sh's $BUILD has it.
  step "C ABI: header, examples, contract test, valgrind, ASan" bash scripts/test-c.sh
  # This lane's core is free from here until the release step ends (the steps above take
  # about half as long): the interop steps' elicit-rmcp-server (release, $BUILD/release:
  # their builds find it fresh), then the release's packaged crates, whose cargo runs in
  # $BUILD/debug and $BUILD/package (the release step's other parts use neither). The
  # server first: the crates' cargo then starts after the steps beside this lane are done
  # with $BUILD/debug (one cargo at a time holds a build folder's lock). The other lane's
  # release builds meanwhile: the Python step's elicit-ffi, ~70 s before this lane gets
  # here in CI's run (a later one would wait for the server's build), and the release
  # step's developer install, at its end.
  [ -n "${QUICK:-}" ] ||
    step "elicit-rmcp-server (release) for the interop steps (lib.sh's build_rmcp_server)" build_rmcp_server
  step "release: the packaged crates (cargo test of the unpacked packages, elicit-rmcp's quick start, docs as docs.rs builds them)" \
    bash scripts/test-install.sh crates
  tidy "$BUILD/package"
  # elicit-core's other feature sets, here for the same reason ($BUILD/debug, and the
  # no_std builds' own folder). --all-features (the workspace test) turns on small-float:
  # test core's parser and ryu path (the default) too.
  step "cargo test elicit-core (default features)" cargo test -p elicit-core
  # Without object-types and raw-schema (as the firmware builds it): those types are errors
  # naming the parameter and the feature.
  step "cargo test elicit-core (types left out)" \
    cargo test -p elicit-core --no-default-features --features serde,alloc --lib left_out
  step "no_std build thumbv7em (no default features)" \
    cargo build -p elicit-core --no-default-features --target thumbv7em-none-eabihf
  step "no_std build thumbv7em (small-float)" \
    cargo build -p elicit-core --no-default-features --features small-float --target thumbv7em-none-eabihf
  step "no_std build thumbv7em (seal)" \
    cargo build -p elicit-core --no-default-features --features seal --target thumbv7em-none-eabihf
  tidy "$BUILD/thumbv7em-none-eabihf"
}
lane firmware firmware_lane
# The Python package's venv and the interop steps' venvs and npm folders, installed (from
# the registries: mostly waiting) beside the steps from fmt on, and joined before the
# first interop step (the Python step waits on the venv's lock if it comes first); each
# install is the one its step would make (lib.sh, dev-oracle-env.sh), skipped there when
# current.
installs() (
  set -e
  python_dev_venv >/dev/null
  mcp_test_venv >/dev/null
  scripts/dev-oracle-env.sh >/dev/null
  npm_ci tests/mcp-conformance
  npm_ci tests/interop/clients/ts
)
[ -n "${QUICK:-}" ] || lane installs step \
  "installs for the Python and interop steps: .venv-python, .venv-mcp, the oracle's venv, the conformance suite and the SDK clients (npm, Node 22)" installs

step "cargo fmt --check" cargo fmt --all --check
step "docs: links, paths of this machine, README length, stale names" bash scripts/test-docs.sh
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets --all-features -- -D warnings
step "duplicate scan (jscpd): the C ABIs, the test runners, python/, examples/" bash scripts/test-duplicates.sh
step "cargo test (workspace)" cargo test --workspace --all-features
step "demo runs (scripted, both eras)" bash -c '
  set -e
  cargo run -q -p booking-demo -- --script | tail -1 | grep -qx "Booked Paris (CDG) on 2026-08-01, seat window"
  cargo run -q -p booking-demo -- --script --era handshake | tail -1 | grep -qx "Booked Paris (CDG) on 2026-08-01, seat window"
  cargo run -q -p booking-demo -- --script --destination London | tail -1 | grep -qx "Booked London (LHR) on 2026-08-01, seat window"'

step "Python package: mypy, pytest, leak loop" bash scripts/test-python.sh
# Reuses the debug builds above (seal_cli, libelicit_ffi.so) for its interop tests.
step "npm package js/ (elicit-mcp): C ABI as WebAssembly (imports nothing), node --test, sealing interop with Rust and Python, npm pack installed outside the tree running the README quick start (both eras)" \
  bash scripts/test-js.sh
tidy "$BUILD/wasm32-unknown-unknown" "$BUILD/wasm" "$BUILD/elicit-wasm"
step "versions: crates, C header, pkg-config, Python metadata, npm package and CHANGELOG agree" bash scripts/test-versions.sh
step "elicit-rmcp at both ends of its rmcp range (lower bound, newest on the registry)" bash scripts/test-rmcp-versions.sh
# scripts/release.sh builds every artifact into dist/ (installs cargo-c 0.10.24, zig and
# cargo-zigbuild, auditwheel, an arm64 sysroot once); each one is installed outside the
# tree and run. The crates part runs in the firmware lane.
step "release: C SDK (CMake, pkg-config), manylinux wheels (aarch64 under qemu), sdist install and run" \
  bash scripts/test-install.sh c wheels sdist
tidy "$BUILD_RELEASE_C" "$BUILD_WHEELS" "$RELEASE_TOOLS" "$BUILD/arm64-sysroot"
join_lane firmware
# The steps QUICK=1 runs end here (the installs lane beside them is not QUICK=1's).
quick_end=$SECONDS
if [ -z "${QUICK:-}" ]; then
  join_lane installs
  # Beside the interop steps: the fuzz targets first (nightly, their own build folder
  # $BUILD_FUZZ, so their build waits on no lock of the other lane's cargo; one libFuzzer
  # process at a time), and the Python server's interop. (The differential test ends the
  # other lane: the two lanes then take about as long.)
  slow_lane() {
    step "fuzz: every cargo-fuzz target for ${FUZZ_SECONDS:-30} s" bash scripts/test-fuzz.sh "${FUZZ_SECONDS:-30}"
    tidy "$BUILD_FUZZ"
    # Its servers listen on port 0 as every other; the conformance suite's npm folder, the
    # venvs and the release builds it shares are the installs lane's and lib.sh's (npm_ci,
    # mcp_test_venv: one installer at a time, none while current).
    step "Python MCP server on the SDK adapter: conformance suite, FastMCP client (both eras), mixed fleet" \
      bash scripts/test-python-server.sh
  }
  lane fuzz slow_lane
  step "seal interop with the MCP Python SDK" bash scripts/test-seal-interop.sh
  # The debug builds (workspace tests, demo, seal_cli) are done with; the other steps
  # build into $BUILD/release (lib.sh), $BUILD_AGENT and $BUILD_FUZZ.
  tidy "$BUILD/debug"
  # Every step from here on runs the release elicit-rmcp-server the firmware lane built
  # (lib.sh: build_rmcp_server, $RMCP_SERVER_BIN; their builds find it fresh).
  step "MCP server and the firmware agent (mps2-an386, microbit, sifive_e) vs the real FastMCP 4.1.6 client (stdio + HTTP, both eras)" bash scripts/test-mcp.sh
  step "official MCP conformance suite vs elicit-rmcp-server (in-scope scenarios clean, both requirement sets)" \
    bash scripts/test-mcp-conformance.sh
  # After the two above: reuses .venv-mcp and Node 22.
  step "MCP Python SDK and TypeScript SDK clients vs the Rust and Python servers (both eras, stdio + HTTP, question order, declared fallback)" \
    bash scripts/test-mcp-clients.sh
  # After the two above: reuses .venv-mcp, Node 22, the conformance suite's install and js/
  # as test-js.sh built it.
  step "TypeScript MCP server on McpServer (servers/ts): conformance suite, FastMCP client, abuse cases, MCP Python and TypeScript SDK clients (both eras, stdio + HTTP)" \
    bash scripts/test-ts-server.sh
  # After the two above: reuses .venv-mcp and Node 22.
  step "C MCP server on the call level: FastMCP client (stdio, both eras), SDK clients, rounds shared with elicit-rmcp-server, ASan+UBSan, valgrind" \
    bash scripts/test-c-server.sh
  step "fleet: replicas behind HAProxy 2.6 (FastMCP both eras, SIGKILL and rolling key rotation under load, mixed fleet, health, metrics, drain)" \
    bash scripts/test-fleet.sh
  tidy "$BUILD_AGENT"
  # Its oracle runner builds into $BUILD/release (freed once both lanes are done).
  step "differential: random scenarios vs the reference oracle" bash scripts/test-differential.sh --count "${DIFF_COUNT:-1000}"
  join_lane fuzz
  tidy "$BUILD/release"
fi

echo
df -h . | sed -n 2p | awk '{print "test.sh: disk after the run: " $4 " free"}'
du -sh "$BUILD" "$BUILD_FUZZ" 2>/dev/null | sed 's/^/test.sh: build output: /'
times >"$cpu_file"
cpu_cs "$cpu_file"
echo
echo "test.sh: time per step${QUICK:+ (QUICK=1)}: wall-clock and CPU seconds (CPU: user + system)"
echo "(&: ran in the second lane, beside the steps run meanwhile; their wall times overlap)"
printf '%6s %7s  %-6s %s %s\n' wall cpu result " " step
printf '%s\n' "${rows[@]}"
printf '%6d %7d  %-6s %s %s\n' "$SECONDS" $((cs / 100)) total " " "the whole run, with the toolchain setup ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
[ -n "${QUICK:-}" ] ||
  echo "test.sh: the steps QUICK=1 runs were done after $quick_end s ($((quick_end / 60)) min $((quick_end % 60)) s)"
if [ "$failed" -gt 0 ]; then
  echo "failed steps: ${failures[*]}"
fi
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
