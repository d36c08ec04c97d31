#!/usr/bin/env bash
# Build the firmware MCP agent (examples/firmware-agent) for every board (sealed; on
# mps2-an386 also plaintext), and measure what it takes on the device:
#   flash  the whole image: .vector_table + .text + .rodata + .data's load image
#          (runtime, UART driver, JSON-RPC, MCP, the engine, sealing, the plans);
#   RAM    .data + .bss + .uninit, plus the stack's peak, read back from the device's RAM
#          after scripted sessions in both eras: the start-up code paints the stack at
#          reset (cortex-m-rt's feature paint-stack on the Arm boards, src/board/sifive_e.rs
#          on RISC-V), QEMU's QMP `memsave` dumps RAM as the CPU sees it (`pmemsave` reads
#          the machine's system memory, where the nRF51's RAM is not mapped), and the deepest word
#          that no longer holds the paint is the peak. The agent keeps all its buffers
#          (line, state, token, workspace) and its key ring in main's frame, so the peak
#          includes them.
#
#   scripts/bench-agent-size.sh            build, run the sessions, print the figures
#   scripts/bench-agent-size.sh --strict   also fail when a goal is missed: RAM <= 16 KiB on
#                                    every board (all of it on microbit and sifive_e),
#                                    sealed flash <= 60 KiB on mps2-an386
#
# Boards: mps2-an386 (Cortex-M4F), microbit (nRF51, Cortex-M0), sifive_e (FE310, RV32);
# scripts/dev-agent-qemu.sh runs each.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
strict=0
for a in "$@"; do
  case "$a" in --strict) strict=1 ;; *) echo "usage: $0 [--strict]" >&2; exit 2 ;; esac
done

BOARDS=(mps2-an386 microbit sifive_e)
declare -A TRIPLE=([mps2-an386]=thumbv7em-none-eabihf [microbit]=thumbv6m-none-eabi [sifive_e]=riscv32imc-unknown-none-elf)
declare -A RAM_AT=([mps2-an386]=0x20000000 [microbit]=0x20000000 [sifive_e]=0x80000000)
need_target "${TRIPLE[@]}"
need_qemu
need_qemu qemu-system-riscv32
NM=$(pick llvm-nm nm)
SIZE=$(pick llvm-size size)
[ -n "$NM" ] && [ -n "$SIZE" ] || { apt_install llvm; NM=$(pick llvm-nm); SIZE=$(pick llvm-size); }

OUT=$BUILD/agent-size
mkdir -p "$OUT"
# Every build in $BUILD_AGENT (the features hash apart, the dependencies compile once), each
# image copied out at once; the plaintext one first, so the sealed images (the launcher's
# defaults, scripts/dev-agent-qemu.sh) are the ones left in place.
(cd examples/firmware-agent && CARGO_TARGET_DIR=$BUILD_AGENT cargo build --release --no-default-features)
cp "$BUILD_AGENT/thumbv7em-none-eabihf/release/elicit-agent" "$OUT/mps2-an386-plain.elf"
for b in "${BOARDS[@]}"; do
  (cd examples/firmware-agent && CARGO_TARGET_DIR=$BUILD_AGENT cargo build --release --target "${TRIPLE[$b]}")
  cp "$BUILD_AGENT/${TRIPLE[$b]}/release/elicit-agent" "$OUT/$b-seal.elf"
done

flash() { "$SIZE" -A "$1" | awk '$1 ~ /^\.(vector_table|text|rodata|data)$/ { s += $2 } END { print s }'; }
static_ram() { "$SIZE" -A "$1" | awk '$1 ~ /^\.(data|bss|uninit)$/ { s += $2 } END { print s + 0 }'; }
sym() { "$NM" "$1" | awk -v n="$2" '$3 == n { print $1 }'; }

# One scripted session against the agent; prints the stack peak in bytes.
session() { # board elf era
  local board=$1 elf=$2 era=$3
  local sock="$OUT/qmp-$era.sock" dump="$OUT/ram-$era.bin"
  rm -f "$sock" "$dump"
  ELICIT_STATE_KEYS=$(printf 'a1%.0s' {1..32}),$(printf 'b2%.0s' {1..32}) ELICIT_AGENT_LINGER=0 \
  ELICIT_AGENT_QEMU_ARGS="-qmp unix:$sock,server=on,wait=off" \
    timeout 180 python3 - "$ROOT/scripts/dev-agent-qemu.sh" "$board" "$elf" "$era" "$sock" "$dump" \
      "$(sym "$elf" _stack_end)" "$(sym "$elf" _stack_start)" "${RAM_AT[$board]}" <<'PY'
import json, os, socket, subprocess, sys, time
launcher, board, elf, era, sock, dump, lo, hi, base = sys.argv[1:]
lo, hi, base = int(lo, 16), int(hi, 16), int(base, 16)
p = subprocess.Popen(["bash", launcher, "--board", board, "--elf", elf], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
ids = iter(range(100, 10**6))

def send(msg):
    p.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)).encode() + b"\n"); p.stdin.flush()

def recv():
    line = p.stdout.readline()
    assert line, "the agent stopped"
    return json.loads(line)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
# The questions from the booking fixture (tests/fixture): literal ones by parameter,
# resolver templates filled with the answers ({name} placeholders, as str.format reads them).
FIXTURE = os.path.join(os.path.dirname(launcher), "..", "tests", "fixture")
Q = {}
for tool in ("book_flight", "greet", "order"):
    with open(os.path.join(FIXTURE, "decl", tool + ".json")) as f:
        Q |= {p["name"]: p["elicit"]["message"] for p in json.load(f)["parameters"]
              if "message" in p.get("elicit", {})}
with open(os.path.join(FIXTURE, "booking.json")) as f:
    R = {k: v["ask"] for k, v in json.load(f)["resolvers"].items()}
ANSWERS = {Q["destination"]: "Paris", Q["date"]: "2026-08-01",
           R["airport"].format(destination="Paris"): "CDG",
           R["proceed"].format(destination="Paris", date="2026-08-01"): True,
           Q["seat"]: "window", Q["name"]: "Ada Lovelace", R["quantity"].format(item="apples"): 3}

def modern(method, params=None):
    send({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": {**(params or {}), "_meta": META}})
    return recv()

def modern_call(name, args):
    state, replies = None, None
    for _ in range(5):
        params = {"name": name, "arguments": args}
        if state is not None:
            params |= {"requestState": state, "inputResponses": replies}
        r = modern("tools/call", params)["result"]
        if r["resultType"] == "complete":
            return r
        state = r["requestState"]
        replies = {k: {"action": "accept", "content": {"value": ANSWERS[q["params"]["message"]]}}
                   for k, q in r["inputRequests"].items()}
    raise AssertionError(name)

def handshake_call(name, args):
    send({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": name, "arguments": args}})
    while True:
        m = recv()
        if m.get("method") != "elicitation/create":
            return m["result"]
        value = ANSWERS[m["params"]["message"]]
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "accept", "content": {"value": value}}})

if era == "modern":
    modern("server/discover"); modern("tools/list")
    results = [modern_call("book_flight", {}), modern_call("greet", {}), modern_call("order", {"item": "apples"})]
    first = modern("tools/call", {"name": "greet", "arguments": {}})["result"]["requestState"]
    bad = modern("tools/call", {"name": "greet", "arguments": {}, "requestState": first[:-4] + "AAAA",
                                "inputResponses": {"name": {"action": "accept", "content": {"value": "Eve"}}}})
    if first.startswith("v1."):  # sealed build: the tampered token is refused
        assert bad["error"]["code"] == -32602, bad
else:
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "size", "version": "0"}}})
    recv(); send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}); recv()
    results = [handshake_call("book_flight", {}), handshake_call("greet", {}), handshake_call("order", {"item": "apples"})]
send("x" * 5000); assert recv()["error"]["code"] == -32600
texts = [r["structuredContent"]["result"] for r in results]
assert texts == ["Booked Paris (CDG) on 2026-08-01, seat window", "Hello, Ada Lovelace", "Ordered 3 x apples"], texts

q = socket.socket(socket.AF_UNIX); q.connect(sock); f = q.makefile("rw")
def qmp(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args} if args else {"execute": cmd}) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
f.readline(); qmp("qmp_capabilities")
r = qmp("memsave", val=base, size=hi - base, filename=dump)
assert "return" in r, r
p.stdin.close(); p.wait(20)
ram = open(dump, "rb").read()
paint = b"\xcc\xcc\xcc\xcc"
deepest = hi
for a in range(lo, hi, 4):
    if ram[a - base:a - base + 4] != paint:
        deepest = a
        break
print(hi - deepest)
PY
}

declare -A F S P
BUILDS=()
for b in "${BOARDS[@]}"; do BUILDS+=("$b-seal"); done
BUILDS+=(mps2-an386-plain)
for v in "${BUILDS[@]}"; do
  b=${v%-*}
  F[$v]=$(flash "$OUT/$v.elf")
  S[$v]=$(static_ram "$OUT/$v.elf")
  pm=$(session "$b" "$OUT/$v.elf" modern)
  ph=$(session "$b" "$OUT/$v.elf" handshake)
  P[$v]="$pm $ph"
done

buffers=$(grep -E 'pub const (LINE|AUX|TOKEN|WS)_CAP' examples/firmware-agent/src/agent.rs |
  sed "s/.*= *\([0-9]*\);/\1/" | paste -sd+)
buffers=$((buffers))
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
echo
echo "=== elicit-agent per board (opt-level \"z\", LTO, codegen-units 1, panic abort)"
printf '  %-22s %9s %9s %18s %18s %11s\n' build flash static "stack peak 2026" "stack peak 2025" "RAM total"
miss=0
for v in "${BUILDS[@]}"; do
  read -r pm ph <<<"${P[$v]}"
  peak=$(( pm > ph ? pm : ph )); total=$(( S[$v] + peak ))
  printf '  %-22s %7d B %7d B %16d B %16d B %9d B   (flash %s, RAM %s)\n' "$v" "${F[$v]}" "${S[$v]}" "$pm" "$ph" "$total" \
    "$(kib "${F[$v]}")" "$(kib "$total")"
  [ "$total" -le 16384 ] || miss=1
  if [ "$v" = mps2-an386-seal ] && [ "${F[$v]}" -gt 61440 ]; then miss=1; fi
done
echo "  the stack peak includes the agent's I/O buffers ($buffers B: line, state, token, workspace)"
echo "  and its key ring; goals: RAM <= 16384 B on every board, sealed flash <= 61440 B on mps2-an386"
echo
echo "=== flash by crate, sealed build on mps2-an386 (named symbols; LTO inlines engine code into the agent's functions)"
"$NM" -C -S --size-sort "$OUT/mps2-an386-seal.elf" | awk '
  function hex(s,   i, n) { n = 0; s = tolower(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
  NF >= 4 && $3 ~ /^[tTrRdD]$/ {
    size = hex($2); name = $0; sub(/^[0-9a-fA-F]+ [0-9a-fA-F]+ [a-zA-Z] /, "", name); c = "other"
    if (name ~ /elicit_core(::|\.\.)seal(::|\.\.)compact(::|\.\.)|(aes|ghash|polyval|cipher|universal_hash|subtle|zeroize)::/) c = "AES-256, GHASH (elicit_core::seal::compact), subtle, zeroize"
    else if (name ~ /elicit_core::seal/) c = "elicit_core::seal"
    else if (name ~ /elicit_core/) c = "elicit_core"
    else if (name ~ /elicit_agent/) c = "elicit_agent (with inlined engine code)"
    else if (name ~ /sha2::|digest::|block_buffer::/) c = "sha2"
    else if (name ~ /postcard::|serde::|serde_core::/) c = "postcard, serde"
    else if (name ~ /compiler_builtins|^__aeabi|^__[a-z]/) c = "compiler_builtins (soft f64, mem)"
    else if (name ~ /cortex_m|__INTERRUPTS|__EXCEPTIONS|__RESET_VECTOR|Reset/) c = "cortex-m runtime"
    else if (name ~ /core::|<char>|<f64|<u[0-9]+ |<i[0-9]+ |<str/) c = "core"
    s[c] += size; t += size }
  END { for (c in s) printf "    %7d B  %s\n", s[c], c; printf "    %7d B  all named symbols\n", t }' | sort -rn
echo "  .rodata $("$SIZE" -A "$OUT/mps2-an386-seal.elf" | awk '$1 == ".rodata" { print $2 }') B (strings: tools/list, messages, JSON keys; the plans)"
echo
if [ "$strict" = 1 ] && [ "$miss" = 1 ]; then echo "agent-size: a goal was missed (--strict)"; exit 1; fi
echo "agent-size: ok"
