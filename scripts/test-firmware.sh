#!/usr/bin/env bash
# Build examples/firmware for thumbv7em-none-eabihf (release: opt-level "z", LTO) and run
# it on QEMU's mps2-an386 (Cortex-M4F) through semihosting; check its exit code and its
# transcript against examples/firmware/expected.txt; print flash and RAM measurements.
#
#   scripts/test-firmware.sh            build the variants, run, check, measure
#   scripts/test-firmware.sh --strict   also fail when a size target is missed
#   scripts/test-firmware.sh --bless    rewrite expected.txt from this run's transcripts
#
# Variants (cargo features of the firmware crate):
#   seal      plans from build.rs's postcard bytes, requestState sealed (the default)
#   plain     plans from postcard bytes, plaintext requestState
#   json      the JSON declarations compiled on the device (to measure what that costs)
#   stub      no engine at all: the runtime, semihosting, core::fmt and the application's
#             data (the baseline)
#   quiet-*   the same conversations, checked on the device but not printed (no
#             core::fmt): quiet-X minus quiet-stub is the engine's (+ host loop's) flash.
#             Both link the application's data (src/data.rs: plan bytes, the scripted
#             client's replies, the expected final values), so the difference is the
#             engine's code and read-only data plus the host glue (src/host.rs, quiet.rs:
#             the drive loop, one batched round, one handshake call, the booking resolver,
#             the scripted client, the final-value checks).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

strict=0; bless=0
for a in "$@"; do
  case "$a" in
    --strict) strict=1 ;;
    --bless) bless=1 ;;
    *) echo "usage: $0 [--strict] [--bless]" >&2; exit 2 ;;
  esac
done

# --- tools -----------------------------------------------------------------------------
need_target thumbv7em-none-eabihf
need_qemu
pick() { for t in "$@"; do if command -v "$t" >/dev/null; then echo "$t"; return; fi; done; }
if [ -z "$(pick llvm-objcopy objcopy)" ] || [ -z "$(pick llvm-size size)" ] || [ -z "$(pick llvm-nm nm)" ]; then
  apt_install binutils || exit 1
fi
NM=$(pick llvm-nm nm)
SIZE=$(pick llvm-size size)
OBJCOPY=$(pick llvm-objcopy objcopy)
[ -n "$NM" ] && [ -n "$SIZE" ] && [ -n "$OBJCOPY" ] ||
  { echo "test-firmware: nm, size and objcopy are needed (binutils)" >&2; exit 1; }

export CARGO_TARGET_DIR=$BUILD_FIRMWARE
OUT=$CARGO_TARGET_DIR/firmware-variants
mkdir -p "$OUT"
FW=$ROOT/examples/firmware
ELF=$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/elicit-firmware

# --- build -----------------------------------------------------------------------------
declare -A FEATURES=(
  [seal]=""
  [plain]="--no-default-features"
  [json]="--no-default-features --features json-plan"
  [stub]="--no-default-features --features stub"
  [quiet-seal]="--features quiet"
  [quiet-plain]="--no-default-features --features quiet"
  [quiet-json]="--no-default-features --features quiet,json-plan"
  [quiet-stub]="--no-default-features --features quiet,stub"
)
VARIANTS="seal plain json stub quiet-seal quiet-plain quiet-json quiet-stub"
for v in $VARIANTS; do
  echo "=== build $v (cargo build --release ${FEATURES[$v]})"
  # shellcheck disable=SC2086
  (cd "$FW" && cargo build --release ${FEATURES[$v]})
  cp "$ELF" "$OUT/$v.elf"
done

# --- run -------------------------------------------------------------------------------
run() { # variant → $OUT/variant.txt, returns QEMU's exit code
  timeout 60 qemu-system-arm -M mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -kernel "$OUT/$1.elf" >"$OUT/$1.txt" 2>"$OUT/$1.err"
}
# The lines of expected.txt a variant prints (tags as in build.rs).
expected_for() {
  case "$1" in
    seal) grep -v -e '^\[json\] ' -e '^#' "$FW/expected.txt" ;;
    plain) grep -v -e '^\[json\] ' -e '^\[seal\] ' -e '^#' "$FW/expected.txt" ;;
    json) grep -v -e '^\[postcard\] ' -e '^\[seal\] ' -e '^#' "$FW/expected.txt" ;;
  esac
}

failed=0
declare -A RC
for v in $VARIANTS; do
  set +e; run "$v"; RC[$v]=$?; set -e
done
echo
echo "=== transcript (seal variant), tail"
grep -v '^#' "$OUT/seal.txt" | tail -n 12 | cut -c1-200

if [ "$bless" = 1 ]; then
  # Merge: the checked lines of the seal run, with the json run's [json] lines in place
  # of the [postcard] ones.
  python3 - "$OUT/seal.txt" "$OUT/json.txt" "$FW/expected.txt" <<'PY'
import sys
seal = [l for l in open(sys.argv[1]).read().splitlines() if not l.startswith('#')]
js = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith('[json] ')]
out, pending = [], list(js)
for l in seal:
    out.append(l)
    if l.startswith('[postcard] ') and pending:
        out.append(pending.pop(0))
open(sys.argv[3], 'w').write('\n'.join(out) + '\n')
PY
  echo "expected.txt rewritten; rebuild and run again to check it"
  exit 0
fi

echo
echo "=== checks"
for v in seal plain json; do
  if [ "${RC[$v]}" -ne 0 ]; then
    echo "FAIL: $v exited ${RC[$v]}"; failed=1
    grep -E '^(MISMATCH|PANIC)' "$OUT/$v.txt" | head -5 || true
    cat "$OUT/$v.err" | head -5
  else
    echo "ok: $v exited 0 (device checks passed, transcript identical to expected.txt)"
  fi
  if ! diff <(expected_for "$v") <(grep -v '^#' "$OUT/$v.txt") >"$OUT/$v.diff"; then
    echo "FAIL: $v transcript differs from expected.txt:"; head -20 "$OUT/$v.diff" | cut -c1-200; failed=1
  fi
done
for v in stub quiet-seal quiet-plain quiet-json quiet-stub; do
  if [ "${RC[$v]}" -ne 0 ]; then echo "FAIL: $v exited ${RC[$v]}: $(head -c 200 "$OUT/$v.txt")"; failed=1; fi
done
echo "ok: quiet variants: $(cat "$OUT/quiet-seal.txt" "$OUT/quiet-plain.txt" "$OUT/quiet-json.txt" | tr '\n' ' ')"

# The device's plaintext requestState lines equal the host demo's, byte for byte.
# The demo's debug build is the workspace's ($BUILD: the demo step of scripts/test.sh built it).
host=$( (CARGO_TARGET_DIR="$BUILD" cargo run -q -p booking-demo -- --script 2>"$OUT/booking-demo.err" || true) | sed -n 's/^  requestState: //p')
dev=$(awk '/^== book_flight, batched/{on=1} /^== book_flight, one question/{on=0} on' "$OUT/plain.txt" |
  sed -n 's/^  requestState: //p')
if [ -n "$host" ] && [ "$host" = "$dev" ]; then
  echo "ok: book_flight requestState on the device = on the host (booking-demo --script), $(echo "$dev" | wc -l) rounds"
else
  echo "FAIL: book_flight requestState differs between device and host (or the host demo failed:" \
    "$(head -c 300 "$OUT/booking-demo.err"))"; failed=1
fi

# The device build that loads postcard plans does not link the declaration compiler:
# none of Plan::compile's messages is in its .rodata (the json variant has them).
compiler_strings() {
  "$OBJCOPY" -O binary --only-section=.rodata "$OUT/$1.elf" "$OUT/$1.rodata"
  local n=0
  for s in 'a declaration has "tool", "parameters"' '"parameters" must be an array of parameters' \
           '"declares" belongs to a resolver' "a resolver's questions carry their own title"; do
    if grep -qaF "$s" "$OUT/$1.rodata"; then n=$((n + 1)); fi
  done
  echo "$n"
}
compile_syms() { "$NM" -C "$OUT/$1.elf" | grep -cE 'Plan<.*>::compile|Plan\$LT\$.*\$GT\$::compile|plan::.*compile_ask' || true; }
plain_strings=$(compiler_strings plain); json_strings=$(compiler_strings json)
echo "declaration compiler: postcard build has $plain_strings/4 of Plan::compile's messages and $(compile_syms plain) compile symbols;" \
  "json build has $json_strings/4 and $(compile_syms json)"
if [ "$plain_strings" -ne 0 ] || [ "$(compile_syms plain)" -ne 0 ]; then
  echo "FAIL: the postcard build links the declaration compiler"; failed=1
fi
if [ "$json_strings" -eq 0 ]; then
  echo "FAIL: the string check is blind (the json build shows none of the messages)"; failed=1
fi

# --- measurements ----------------------------------------------------------------------
flash() { # vector table + code + read-only data + .data's load image
  "$SIZE" -A "$OUT/$1.elf" | awk '$1 ~ /^\.(vector_table|text|rodata|data)$/ { s += $2 } END { print s }'
}
declare -A F
for v in $VARIANTS; do F[$v]=$(flash "$v"); done
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
echo
echo "=== flash (opt-level \"z\", LTO, codegen-units 1, panic abort; .vector_table+.text+.rodata+.data)"
printf '  %-12s %7d B  %s\n' stub "${F[stub]}" "(runtime, semihosting, core::fmt, the application's data: the transcript builds' baseline)"
for v in plain seal json; do
  printf '  %-12s %7d B  engine + demo and transcript code = %d B (%s)\n' "$v" "${F[$v]}" $((F[$v] - F[stub])) "$(kib $((F[$v] - F[stub])))"
done
printf '  %-12s %7d B  %s\n' quiet-stub "${F[quiet-stub]}" "(runtime, semihosting, the application's data: the engine measurements' baseline)"
for v in quiet-plain quiet-seal quiet-json; do
  printf '  %-12s %7d B  engine + host glue = %d B (%s)\n' "$v" "${F[$v]}" $((F[$v] - F[quiet-stub])) "$(kib $((F[$v] - F[quiet-stub])))"
done
echo "  (both sides link the application's data: plan bytes, scripted replies, expected values;" \
  "the difference is the engine's code and read-only data (messages, JSON keys) plus the host glue:" \
  "drive loop, batched round, handshake call, booking resolver, scripted client, checks;" \
  "quiet-json links the JSON declarations where the stub has the plan bytes)"
echo "  sealing adds $((F[quiet-seal] - F[quiet-plain])) B ($(kib $((F[quiet-seal] - F[quiet-plain]))))"
echo "  compiling the JSON declarations on the device instead of loading postcard plans costs" \
  "$((F[quiet-json] - F[quiet-plain])) B ($(kib $((F[quiet-json] - F[quiet-plain])))) quiet," \
  "$((F[json] - F[plain])) B ($(kib $((F[json] - F[plain])))) with the transcript (error messages)"
planbytes=$(cd "$CARGO_TARGET_DIR"/thumbv7em-none-eabihf/release/build && ls -t elicit-firmware-*/out/book_flight.plan | head -1 | xargs dirname)
echo "  plan bytes: book_flight $(stat -c %s "$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/build/$planbytes/book_flight.plan") B," \
  "survey16 $(stat -c %s "$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/build/$planbytes/survey16.plan") B;" \
  "their JSON: $(stat -c %s "$FW/../fixture/decl/book_flight.json") B, $(stat -c %s "$FW/decl/survey16.json") B"

attribute() { # flash by crate, from symbol sizes (LTO inlines engine code into callers)
  "$NM" -C -S --size-sort "$OUT/$1.elf" | awk '
    function hex(s,   i, n) { n = 0; s = tolower(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
    NF >= 4 && $3 ~ /^[tTrRdD]$/ {
      size = hex($2); name = $0; sub(/^[0-9a-fA-F]+ [0-9a-fA-F]+ [a-zA-Z] /, "", name); c = "other"
      if (name ~ /elicit_core::seal/) c = "elicit_core::seal"
      else if (name ~ /elicit_core/) c = "elicit_core"
      else if (name ~ /elicit_firmware/) c = "firmware demo (with inlined engine code)"
      else if (name ~ /(aes|ghash|polyval|cipher|universal_hash|subtle|zeroize)::/) c = "aes, ghash (AES-256 block cipher, GHASH)"
      else if (name ~ /sha2::|digest::|block_buffer::/) c = "sha2"
      else if (name ~ /ryu::/) c = "ryu (float printing)"
      else if (name ~ /dec2flt/) c = "core dec2flt (float parsing)"
      else if (name ~ /base64::/) c = "base64"
      else if (name ~ /postcard::|serde::|serde_core::/) c = "postcard, serde"
      else if (name ~ /heapless::/) c = "heapless"
      else if (name ~ /compiler_builtins|^__aeabi|^__[a-z]/) c = "compiler_builtins (soft f64, mem)"
      else if (name ~ /cortex_m/) c = "cortex-m runtime, semihosting"
      else if (name ~ /core::|<char>|<f64|<u[0-9]+ |<i[0-9]+ |<str/) c = "core (fmt, str, panics)"
      s[c] += size; t += size }
    END { for (c in s) printf "    %7d B  %s\n", s[c], c; printf "    %7d B  all named symbols\n", t }' | sort -rn
}
unnamed() { # read-only bytes no symbol covers: string literals, and tables such as
             # core's Unicode case conversion (to_uppercase/to_lowercase)
  local named
  named=$("$NM" -S "$OUT/$1.elf" | awk 'NF >= 4 && $3 ~ /^[rR]$/ { print $2 }' | while read -r h; do echo $((16#$h)); done | awk '{ s += $1 } END { print s + 0 }')
  echo $(( $("$SIZE" -A "$OUT/$1.elf" | awk '$1 == ".rodata" { print $2 }') - named ))
}
for v in quiet-plain quiet-seal; do
  echo "  by crate, $v (named symbols; LTO inlines engine code into the host loop's functions):"
  attribute "$v"
  echo "    $(printf '%7d' "$(unnamed "$v")") B  unnamed .rodata (string literals: error messages, JSON keys; the application's data: plan bytes, scripts, expected values)"
done

echo
echo "=== RAM (static + plan + painted-stack peak + the round's I/O text), from the device"
for v in plain seal; do
  echo "  $v:"
  grep -E '^# (ram|sizes)' "$OUT/$v.txt" | sed 's/^# /    /'
done

# --- targets ---------------------------------------------------------------------------
echo
echo "=== targets"
miss=0
target() { # label value limit
  if [ "$2" -le "$3" ]; then echo "  ok    $1: $2 B <= $3 B"; else echo "  MISS  $1: $2 B > $3 B"; miss=1; fi
}
target "engine without sealing (quiet-plain - quiet-stub), flash" $((F[quiet-plain] - F[quiet-stub])) 32768
target "engine with sealing (quiet-seal - quiet-stub), flash" $((F[quiet-seal] - F[quiet-stub])) 65536
for v in plain seal; do
  buffered=$(sed -n 's/^# ram survey16 batched round [0-9]*: \([0-9]*\) B with.*/\1/p' "$OUT/$v.txt" | sort -n | tail -1)
  streamed=$(sed -n 's/^# ram survey16 batched round [0-9]*: [0-9]* B with its output buffered, \([0-9]*\) B streaming.*/\1/p' "$OUT/$v.txt" | sort -n | tail -1)
  target "one round of the 16-question tool ($v), RAM, output streamed" "${streamed:-999999}" 8192
  target "one round of the 16-question tool ($v), RAM, output buffered" "${buffered:-999999}" 8192
done

echo
if [ "$failed" -ne 0 ]; then echo "test-firmware: FAILED"; exit 1; fi
if [ "$strict" = 1 ] && [ "$miss" -ne 0 ]; then echo "test-firmware: a size target was missed (--strict)"; exit 1; fi
echo "test-firmware: ok"
