#!/usr/bin/env bash
# test-c-firmware.sh: elicit's heap-free C ABI (include/elicit_noalloc.h) in C firmware.
#
#  1. makes book_flight's and survey16's declarations into builtin plans on the host
#     (tools plan_const: Rust constants, checked as the plan loader checks plan bytes),
#     and book_flight's into plan bytes for the contract test (tools plan_bytes);
#  2. builds libelicit_noalloc.a (ffi-noalloc/staticlib: no_std, no allocator, panic =
#     "abort", opt-level "z", LTO) with those plans built in (ELICIT_NOALLOC_BUILTIN_PLANS)
#     for thumbv7em-none-eabihf and, with the same crate, plans and features, for the
#     host; and both again with the `detail` feature (the engine's own error texts
#     through core::fmt instead of static texts);
#  3. builds examples/c-firmware (startup.c, mps2-an386.ld, main.c) with Debian's
#     arm-none-eabi-gcc and newlib, linked against the device library, and runs it in
#     QEMU mps2-an386 under `timeout`: the booking tool in both eras (sealed batched
#     rounds, then one question at a time), the 16-question survey, the capacity demos;
#     it must exit 0 and print the Rust firmware's transcript (examples/firmware/expected.txt)
#     byte for byte, less its banner and its Plan<4> demo, except the two capacity lines
#     that print an engine error's message: the default library's static texts are in
#     examples/c-firmware/static-messages.txt; the same firmware linked against the
#     `detail` library must print the Rust transcript byte for byte, those lines included;
#  4. runs the heap-free contract test (ffi-noalloc/tests/c/contract_noalloc.c) on the
#     host, plain, under valgrind memcheck and with AddressSanitizer + UBSan, and once
#     against the `detail` library (-DELICIT_TEST_DETAIL=1);
#  5. lists the panic paths left in an image that links every heap-free ABI function,
#     and measures the C image: flash (.vector_table + .text + .rodata + .ARM.exidx +
#     .data, as scripts/test-firmware.sh counts), the library's share of it (from the
#     linker map), static RAM (.data + .bss) and the stack peaks the device reports.
#
# Installs what it needs when missing: the thumbv7em target, gcc-arm-none-eabi and
# libnewlib-arm-none-eabi, qemu-system-arm, valgrind (Debian packages). Exits non-zero
# on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# ------------------------------------------------------------------------ tools
need_target thumbv7em-none-eabihf
if ! command -v arm-none-eabi-gcc >/dev/null || ! arm-none-eabi-gcc -print-file-name=libc_nano.a | grep -q /; then
  apt_install gcc-arm-none-eabi libnewlib-arm-none-eabi
fi
need_qemu
need_cmd valgrind valgrind
CC=${CC:-cc}
command -v "$CC" >/dev/null || apt_install gcc

OUT=$BUILD_C_FIRMWARE
FW=$OUT/fw
HOST=$OUT/host
mkdir -p "$FW" "$HOST"
DEVICE_LIB=$OUT/thumbv7em-none-eabihf/release/libelicit_noalloc.a
HOST_LIB=$OUT/release/libelicit_noalloc.a
# The `detail` builds in a target folder of their own (switching features in one folder
# would rebuild the other every run).
DETAIL=$OUT/detail
DEVICE_LIB_DETAIL=$DETAIL/thumbv7em-none-eabihf/release/libelicit_noalloc.a
HOST_LIB_DETAIL=$DETAIL/release/libelicit_noalloc.a

# ------------------------------------------------------------------------ 1. builtin plans
step "making the declarations into builtin plans on the host (book_flight, survey16; tools plan_const)"
cargo run -q -p elicit-tools --bin plan_const -- tests/fixture/decl/book_flight.json \
  examples/firmware/decl/survey16.json >"$FW/builtin_plans.rs.new"
# Replaced only when changed: the libraries rebuild when the file does.
cmp -s "$FW/builtin_plans.rs.new" "$FW/builtin_plans.rs" 2>/dev/null || mv "$FW/builtin_plans.rs.new" "$FW/builtin_plans.rs"
rm -f "$FW/builtin_plans.rs.new"
grep '^    //' "$FW/builtin_plans.rs"
export ELICIT_NOALLOC_BUILTIN_PLANS=$FW/builtin_plans.rs
# And book_flight's plan bytes (tools plan_bytes), for the contract test: the builtin plan
# against the plan its bytes load to.
cargo run -q -p elicit-tools --bin plan_bytes -- tests/fixture/decl/book_flight.json book_flight_plan \
  >"$HOST/plans.c"

# ------------------------------------------------------------------------ 2. libraries
step "building libelicit_noalloc.a for thumbv7em-none-eabihf and for the host (default, and --features detail)"
(cd ffi-noalloc/staticlib && CARGO_TARGET_DIR=$OUT cargo build --release --target thumbv7em-none-eabihf)
(cd ffi-noalloc/staticlib && CARGO_TARGET_DIR=$OUT cargo build --release)
(cd ffi-noalloc/staticlib && CARGO_TARGET_DIR=$DETAIL cargo build --release --features detail --target thumbv7em-none-eabihf)
(cd ffi-noalloc/staticlib && CARGO_TARGET_DIR=$DETAIL cargo build --release --features detail)
for lib in "$DEVICE_LIB" "$HOST_LIB" "$DEVICE_LIB_DETAIL" "$HOST_LIB_DETAIL"; do
  [ -f "$lib" ] || fail "$lib was not built"
done

# ------------------------------------------------------------------------ 3. firmware
step "building examples/c-firmware (arm-none-eabi-gcc $(arm-none-eabi-gcc -dumpversion), newlib-nano)"
ARM_FLAGS=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
# -flto: GCC's link-time optimization across main.c and startup.c (the Rust
# library is already one LTO unit): -52 B. -fno-tree-loop-distribute-patterns: C loops stay
# loops rather than calls to memcpy/memset (which startup.c defines with such loops): -24 B.
FW_CFLAGS=(-std=c99 -Wall -Wextra -Werror -pedantic -Os -flto -fno-tree-loop-distribute-patterns -g
  -ffunction-sections -fdata-sections
  -I"$ROOT/include" -I"$ROOT/examples/c-firmware")
# The Rust objects carry no .note.GNU-stack; there is no such thing as an executable stack
# on this core, so the linker's warning about it says nothing here.
FW_LDFLAGS=(-nostartfiles -specs=nano.specs -T "$ROOT/examples/c-firmware/mps2-an386.ld"
  -Wl,--gc-sections -Wl,--no-warn-execstack)
SRC=("$ROOT/examples/c-firmware/startup.c" "$ROOT/examples/c-firmware/main.c")
arm-none-eabi-gcc "${ARM_FLAGS[@]}" "${FW_CFLAGS[@]}" "${FW_LDFLAGS[@]}" -Wl,-Map="$FW/c-firmware.map" \
  "${SRC[@]}" "$DEVICE_LIB" -lc -lgcc -o "$FW/c-firmware.elf"
arm-none-eabi-gcc "${ARM_FLAGS[@]}" "${FW_CFLAGS[@]}" "${FW_LDFLAGS[@]}" \
  "${SRC[@]}" "$DEVICE_LIB_DETAIL" -lc -lgcc -o "$FW/c-firmware-detail.elf"

# The Rust firmware's transcript (its seal build's lines, without its RAM lines), less
# its banner and its demo of a plan capacity too small (the heap-free surface has one
# capacity): the C firmware prints the rest through the C ABI.
grep -v -e '^#' -e '^\[json\] ' -e '^elicit-firmware: ' -e '^capacity: book_flight in a Plan<4>' \
  examples/firmware/expected.txt >"$FW/expected-detail.txt"
grep -q '^== survey16' "$FW/expected-detail.txt" || fail "examples/firmware/expected.txt lacks the survey16 section"
# The default library's messages are static texts: the two capacity lines that print an
# engine error's message read as examples/c-firmware/static-messages.txt says, in order.
awk -v static="$ROOT/examples/c-firmware/static-messages.txt" '
  /^capacity: a (16-byte workspace|64-byte buffer)/ { if ((getline line < static) <= 0) exit 1; print line; next }
  { print }' "$FW/expected-detail.txt" >"$FW/expected.txt" || fail "examples/c-firmware/static-messages.txt has too few lines"
[ "$(grep -c '^capacity: a ' "$FW/expected.txt")" -eq 2 ] || fail "the capacity lines of examples/firmware/expected.txt changed"

# run ELF TRANSCRIPT EXPECTED WHAT: run the image in QEMU, check its exit and transcript.
run() {
  local elf=$1 out=$2 expected=$3 what=$4 rc
  set +e
  timeout 60 qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native \
    -kernel "$elf" >"$out" 2>"$FW/qemu.err"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || { grep -E '^(MISMATCH|ABORT|FAULT)' "$out" | head; head -5 "$FW/qemu.err"; fail "the C firmware ($what) exited $rc"; }
  if ! diff <(cat "$expected") <(grep -v '^#' "$out") >"$out.diff"; then
    head -20 "$out.diff" | cut -c1-200
    fail "the C firmware's transcript ($what) differs from $expected"
  fi
}
step "running it in QEMU mps2-an386 (timeout 60 s), with the default library and with --features detail"
run "$FW/c-firmware.elf" "$FW/transcript.txt" "$FW/expected.txt" "static messages"
grep '^#' "$FW/transcript.txt" || true
echo "ok: the C firmware exited 0 (its checks passed); its transcript = the Rust firmware's, byte for byte," \
  "sealed tokens included ($(wc -l <"$FW/expected.txt") lines; not its banner and Plan<4> demo), but for" \
  "the 2 capacity lines in static texts (examples/c-firmware/static-messages.txt)"
run "$FW/c-firmware-detail.elf" "$FW/transcript-detail.txt" "$FW/expected-detail.txt" "detail"
echo "ok: with --features detail, the transcript = the Rust firmware's byte for byte, the capacity lines included"

# ------------------------------------------------------------------------ 4. contract test
step "heap-free contract test on the host (plain, valgrind, ASan + UBSan)"
HOST_CFLAGS=(-std=c99 -D_GNU_SOURCE -Wall -Wextra -Werror -pedantic -g -I"$ROOT/include")
"$CC" "${HOST_CFLAGS[@]}" ffi-noalloc/tests/c/contract_noalloc.c "$HOST/plans.c" "$HOST_LIB" -o "$HOST/contract_noalloc"
"$HOST/contract_noalloc" | tail -1
valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  "$HOST/contract_noalloc" | tail -1
"$CC" "${HOST_CFLAGS[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  ffi-noalloc/tests/c/contract_noalloc.c "$HOST/plans.c" "$HOST_LIB" -o "$HOST/contract_noalloc_asan"
ASAN_OPTIONS=detect_leaks=1 "$HOST/contract_noalloc_asan" | tail -1
"$CC" "${HOST_CFLAGS[@]}" -DELICIT_TEST_DETAIL=1 ffi-noalloc/tests/c/contract_noalloc.c "$HOST/plans.c" "$HOST_LIB_DETAIL" \
  -o "$HOST/contract_noalloc_detail"
"$HOST/contract_noalloc_detail" | tail -1
echo "ok: contract test passed plain, under valgrind and with ASan + UBSan, and against the detail library"

# ------------------------------------------------------------------------ 5. panics, sizes
step "panic paths in an image that links every heap-free ABI function"
mapfile -t syms < <(arm-none-eabi-nm -g --defined-only "$DEVICE_LIB" 2>/dev/null |
  awk '$2 == "T" && $3 ~ /^elicit_/ { print $3 }' | sort -u)
[ "${#syms[@]}" -gt 20 ] || fail "too few elicit_* symbols in $DEVICE_LIB (${#syms[@]})"
undef=()
for s in "${syms[@]}"; do undef+=("-Wl,-u,$s"); done
arm-none-eabi-gcc "${ARM_FLAGS[@]}" "${FW_CFLAGS[@]}" "${FW_LDFLAGS[@]}" "${undef[@]}" \
  "${SRC[@]}" "$DEVICE_LIB" -lc -lgcc -o "$FW/all-abi.elf"
arm-none-eabi-objdump -d -C "$FW/all-abi.elf" >"$FW/all-abi.dis"
# Functions that branch to a panic entry point (core::panicking::*, the panic handler,
# or core's out-of-line failure helpers), grouped by crate.
awk '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); next }
  /\t(bl|b|b\.w|beq|bne|bcs|bcc|bhi|bls|bge|blt|bgt|ble|bmi|bpl|bvs|bvc|bhs|blo)(\.w|\.n)?\t/ &&
  /<(core::panicking::[^>]*|__rustc::rust_begin_unwind|core::option::expect_failed|core::result::unwrap_failed|core::slice::index::[^>]*fail[^>]*|core::slice::copy_from_slice_impl::len_mismatch_fail)>/ {
    if (fn !~ /^(core::panicking|__rustc::rust_begin_unwind|core::option::expect_failed|core::result::unwrap_failed|core::slice::index::.*fail|core::slice::copy_from_slice_impl::len_mismatch_fail)/) print fn
  }' "$FW/all-abi.dis" | sort -u >"$FW/panic-callers.txt"
panic_handler=$(arm-none-eabi-nm "$FW/all-abi.elf" | grep -c 'rust_begin_unwind' || true)
if [ "$panic_handler" -eq 0 ]; then
  echo "ok: no panic path: the panic handler is not linked"
else
  echo "the panic handler is linked; functions with a branch to a panic path ($(wc -l <"$FW/panic-callers.txt")):"
  awk '{ c = "other"
         if ($0 ~ /^aes::|^cipher::|^ghash::|^polyval::|^generic_array::|^universal_hash::/) c = "aes, ghash and their helpers"
         else if ($0 ~ /^sha2::|^digest::|^block_buffer::/) c = "sha2"
         else if ($0 ~ /^postcard::|^serde::|^serde_core::/) c = "postcard, serde"
         else if ($0 ~ /^elicit_core::/) c = "elicit-core"
         else if ($0 ~ /^elicit_noalloc_|^elicit_/) c = "elicit-ffi-noalloc (the ABI functions, engine code inlined)"
         else if ($0 ~ /^core::|^<core::|^<&/) c = "core (fmt, slices, chars)"
         else if ($0 ~ /^OUTLINED_FUNCTION/) c = "outlined code (shared by the functions above)"
         print c "\t" $0 }' "$FW/panic-callers.txt" | sort | awk -F'\t' '
         $1 != last { if (last != "") printf "\n"; printf "  %s:", $1; last = $1; n = 0 }
         { printf "%s %s", (n++ ? "," : ""), $2 } END { printf "\n" }' | cut -c1-400
  echo "  (a panic would call abort(): the firmware's prints ABORT and exits 1)"
fi

step "sizes of the C image (opt-level \"z\" + LTO library, -Os -flto C, --gc-sections)"
flash() { arm-none-eabi-size -A "$1" | awk '$1 ~ /^\.(vector_table|text|rodata|ARM\.exidx|data)$/ { s += $2 } END { print s }'; }
static_ram() { arm-none-eabi-size -A "$1" | awk '$1 ~ /^\.(data|bss)$/ { s += $2 } END { print s }'; }
# The library's share of flash: its input sections in the linker map.
lib_flash=$(awk '
  function hex(h,   i, n) { n = 0; h = tolower(substr(h, 3)); for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return n }
  /^Linker script and memory map/ { on = 1 }
  !on { next }
  /^ \.(text|rodata|data|ARM\.exidx)[^ ]*$/ { pending = 1; next }
  pending && NF >= 3 && $1 ~ /^0x/ { if ($3 ~ /libelicit_noalloc\.a\(/) s += hex($2); pending = 0; next }
  /^ \.(text|rodata|data|ARM\.exidx)[^ ]* +0x/ { if ($4 ~ /libelicit_noalloc\.a\(/) s += hex($3); next }
  { pending = 0 }
  END { print s + 0 }' "$FW/c-firmware.map")
F=$(flash "$FW/c-firmware.elf")
R=$(static_ram "$FW/c-firmware.elf")
echo "  flash, whole image:                 $F B"
echo "  flash, libelicit_noalloc.a's share:  $lib_flash B (engine, sealing, the heap-free ABI)"
echo "  flash, image with every ABI function: $(flash "$FW/all-abi.elf") B"
echo "  flash, the same image with --features detail: $(flash "$FW/c-firmware-detail.elf") B (core::fmt and the engine's texts)"
echo "  RAM, static (.data + .bss):         $R B (plan $(sed -n 's/^# sizes: elicit_noalloc_plan \([0-9]*\) B.*/\1/p' "$FW/transcript.txt") B, round, sealer, workspace, I/O buffers)"
grep '^# stack peak' "$FW/transcript.txt" | sed 's/^# /  RAM, /'

# What the flash is: each input section of the linker map by the file it came from, and
# the library's part by crate from its symbols (LTO inlines engine code into the ABI
# functions, so those carry part of the engine); what no symbol covers is string
# literals and constant tables.
step "flash of the C image by origin (linker map) and the library's by crate (symbols)"
awk '
  function hex(h,   i, n) { n = 0; h = tolower(substr(h, 3)); for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return n }
  function origin(f) {
    if (f ~ /libelicit_noalloc\.a\(/) return "libelicit_noalloc.a (the engine, sealing, the heap-free ABI)"
    if (f ~ /libc(_nano)?\.a\(/) return "newlib-nano (memcpy, memset, strlen, ...)"
    if (f ~ /libgcc\.a\(/) return "libgcc"
    return "the C firmware: main.c (its transcript printing and JSON walking), startup.c"
  }
  /^Linker script and memory map/ { on = 1 }
  !on { next }
  /^ \.(vector_table|text|rodata|data|ARM\.exidx)[^ ]*$/ { pending = 1; next }
  pending && NF >= 3 && $1 ~ /^0x/ { s[origin($3)] += hex($2); pending = 0; next }
  /^ \.(vector_table|text|rodata|data|ARM\.exidx)[^ ]* +0x/ { s[origin($4)] += hex($3); next }
  { pending = 0 }
  END { for (k in s) printf "  %7d B  %s\n", s[k], k }' "$FW/c-firmware.map" | sort -rn
echo "  the library by crate (named symbols):"
arm-none-eabi-nm -C -S "$FW/c-firmware.elf" | awk -v lib="$lib_flash" '
  function hex(s,   i, n) { n = 0; s = tolower(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
  NF >= 4 && $3 ~ /^[tTrRdD]$/ {
    size = hex($2); name = $0; sub(/^[0-9a-fA-F]+ [0-9a-fA-F]+ [a-zA-Z] /, "", name); c = ""
    if (name ~ /^elicit_noalloc_|^elicit_result|^elicit_abi|elicit_ffi_noalloc::/) c = "elicit-ffi-noalloc: the ABI functions (with engine code inlined), messages, codes"
    else if (name ~ /elicit_core(::|\.\.)seal(::|\.\.)compact(::|\.\.)/) c = "AES-256, GHASH (elicit_core::seal::compact), subtle, zeroize"
    else if (name ~ /elicit_core::seal/) c = "elicit_core::seal (tokens, claims, key ring)"
    else if (name ~ /elicit_core::json::float/) c = "elicit_core::json::float (small-float parsing and printing)"
    else if (name ~ /elicit_core::json/) c = "elicit_core::json (reader, writer)"
    else if (name ~ /elicit_core::types/) c = "elicit_core::types (answer types: compile, validate)"
    else if (name ~ /elicit_core/) c = "elicit_core: round, question, reply, state, digest, plan bytes"
    else if (name ~ /(aes|ghash|polyval|cipher|universal_hash|subtle|zeroize)::/) c = "AES-256, GHASH (elicit_core::seal::compact), subtle, zeroize"
    else if (name ~ /sha2::|digest::|block_buffer::/) c = "sha2 (SHA-256, compact)"
    else if (name ~ /postcard::|serde::|serde_core::/) c = "postcard, serde (plan bytes)"
    else if (name ~ /compiler_builtins/) c = "compiler_builtins (soft f64 add, memcpy)"
    else if (name ~ /^core::|^<core::|^<&|^<char|^<str|^<\[/) c = "core (str, slices, panics)"
    if (c != "") { s[c] += size; t += size }
  }
  END { for (c in s) printf "    %7d B  %s\n", s[c], c
        printf "    %7d B  no symbol: string literals (messages, JSON keys, error texts), tables, the builtin plans\n", lib - t }' | sort -rn
echo
echo "test-c-firmware: all checks passed"
