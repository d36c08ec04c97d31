#!/usr/bin/env bash
# Run the firmware MCP agent (examples/firmware-agent) on one of QEMU's boards with the
# board's UART on this script's stdin/stdout: a stdio MCP server command, e.g. for the
# FastMCP client
#   StdioTransport("scripts/dev-agent-qemu.sh", ["--board", "microbit"])
#
#   scripts/dev-agent-qemu.sh [--board NAME] [--elf PATH]
#
# Boards (NAME is QEMU's -M), each with its target and image in target/agent:
#   mps2-an386 (default)  Cortex-M4F      thumbv7em-none-eabihf        qemu-system-arm
#   microbit              nRF51 Cortex-M0 thumbv6m-none-eabi           qemu-system-arm
#   sifive_e              FE310 RV32      riscv32imc-unknown-none-elf  qemu-system-riscv32
# The image: --elf, else $ELICIT_AGENT_ELF, else the board's sealed release build in
# target/agent/<target>/release (scripts/test-mcp.sh and scripts/bench-agent-size.sh build
# it; by hand: `cd examples/firmware-agent && cargo build --release --target <target>`).
#
# Provisioning (examples/firmware-agent/src/provision.rs): the first line this script
# writes to the board's UART, ahead of the client's stdin, is a block in hexadecimal that
# the agent decodes in its line buffer and wipes (no RAM is set aside for it, no secret is
# written to a file or to flash):
#   - the key ring: ELICIT_STATE_KEYS as elicit-rmcp-server reads it (comma-separated hex
#     secrets of 32 to 128 bytes, at most 2: the first seals, all unseal); unset, one
#     ephemeral random key for this run (tokens die with it);
#   - the time: Unix seconds and hundredths now (the agent adds the board's counter);
#     $ELICIT_AGENT_START_MS overrides it (the tests start an agent whose clock is behind);
#   - the nonce seed: 8 fresh bytes from /dev/urandom for every start;
#   - sifive_e only: the rate of its mtime counter, which QEMU's version decides (10 MHz
#     before 9.0, 32,768 Hz from 9.0 on).
#
# QEMU does not stop when its stdin ends, so the client's stdin is copied into QEMU through
# a FIFO; when the client closes it, QEMU is stopped $ELICIT_AGENT_LINGER seconds later
# (default 1: time to answer what it read; a client that closes only after its last answer
# can set 0), and at once when this script is signalled.
# stderr carries QEMU's own messages only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

board=mps2-an386
elf="${ELICIT_AGENT_ELF:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --board) board="${2:-}"; shift 2 || { echo "agent-qemu: --board needs a NAME" >&2; exit 2; } ;;
    --elf) elf="${2:-}"; shift 2 || { echo "agent-qemu: --elf needs a PATH" >&2; exit 2; } ;;
    *) echo "usage: $0 [--board mps2-an386|microbit|sifive_e] [--elf PATH]" >&2; exit 2 ;;
  esac
done
case "$board" in
  mps2-an386) triple=thumbv7em-none-eabihf; qemu=qemu-system-arm; pkg=qemu-system-arm ;;
  microbit) triple=thumbv6m-none-eabi; qemu=qemu-system-arm; pkg=qemu-system-arm ;;
  sifive_e) triple=riscv32imc-unknown-none-elf; qemu=qemu-system-riscv32; pkg=qemu-system-misc ;;
  *) echo "agent-qemu: unknown board '$board'; --board takes mps2-an386, microbit or sifive_e" >&2; exit 2 ;;
esac
elf="${elf:-$root/target/agent/$triple/release/elicit-agent}"
if [ ! -f "$elf" ]; then
  echo "agent-qemu: no agent image at $elf; build it: (cd examples/firmware-agent && cargo build --release --target $triple)" >&2
  exit 2
fi
command -v "$qemu" >/dev/null || {
  echo "agent-qemu: $qemu is missing (apt-get install $pkg)" >&2; exit 2; }
# mps2-an386: -icount. QEMU's model of its UART (CMSDK APB UART) does not tell the
# character backend when it can take input again, so input written before the agent has
# enabled the receiver (the provisioning line and the client's first request usually are)
# waits until QEMU's main loop next wakes: ~1 s on most starts, measured. With -icount the
# idle core's clock is advanced by a timer of that loop, which wakes it: first answer in
# ~0.1 s. Its clock still follows the host's while the agent waits (shift=auto).
board_args=()
if [ "$board" = mps2-an386 ]; then board_args=(-icount shift=auto); fi
timer_hz=0
if [ "$board" = sifive_e ]; then
  qv=$("$qemu" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p;q')
  if [ "${qv:-0}" -ge 9 ]; then timer_hz=32768; else timer_hz=10000000; fi
fi

# --- the key ring ------------------------------------------------------------------------
# The same rules and words as elicit_core::keyring (the one parser: 1 to 8 comma-separated
# keys of 32 to 128 bytes, white space around each ignored, errors naming the variable and
# the key from 0), with the agent's capacity of 2 keys. Checked here in bash rather than by
# calling the parser: this script is a stdio server command that starts in a fraction of a
# second with only bash and QEMU, and calling a Rust build from it would put cargo (its
# compile, its output) in every MCP client's start path. The device then holds what it is
# given (src/provision.rs checks count and lengths again).
keys=()
if [ -n "${ELICIT_STATE_KEYS+set}" ]; then
  if [ -z "${ELICIT_STATE_KEYS//[[:space:]]/}" ]; then
    echo "ELICIT_STATE_KEYS: no key; give 1 to 8 comma-separated hex keys of 32 to 128 bytes" >&2; exit 2
  fi
  IFS=',' read -r -a parts <<<"$ELICIT_STATE_KEYS,"
  # `read` drops one trailing empty field: "a," gives ("a"), "a,," gives ("a" "").
  if [ ${#parts[@]} -gt 2 ]; then
    echo "ELICIT_STATE_KEYS: ${#parts[@]} keys given, at most 2 are held here; drop retired ones (the first seals, every key opens)" >&2; exit 2
  fi
  i=0
  for part in "${parts[@]}"; do
    k="${part#"${part%%[![:space:]]*}"}"; k="${k%"${k##*[![:space:]]}"}"
    if [ -z "$k" ]; then echo "ELICIT_STATE_KEYS: key $i is empty" >&2; exit 2; fi
    if [ $(( ${#k} % 2 )) -ne 0 ]; then echo "ELICIT_STATE_KEYS: key $i has an odd number of hex digits" >&2; exit 2; fi
    if [[ ! "$k" =~ ^[0-9a-fA-F]+$ ]]; then echo "ELICIT_STATE_KEYS: key $i is not hex" >&2; exit 2; fi
    if [ ${#k} -lt 64 ] || [ ${#k} -gt 256 ]; then
      echo "ELICIT_STATE_KEYS: key $i is $(( ${#k} / 2 )) bytes; a key is 32 to 128 bytes (64 to 256 hex digits)" >&2; exit 2
    fi
    keys+=("$k"); i=$((i + 1))
  done
else
  keys=("$(od -An -v -tx1 -N32 /dev/urandom | tr -d ' \n')")
fi

# --- the provisioning line ---------------------------------------------------------------
dir="$(mktemp -d)"
qpid=""
cpid=""
cleanup() {
  if [ -n "$cpid" ]; then kill "$cpid" 2>/dev/null || true; fi
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

le() { # integer bytes -> that many bytes little-endian, as hex digits
  local v="$1" n="$2" out="" i
  for ((i = 0; i < n; i++)); do out+=$(printf '%02x' $(( (v >> (8 * i)) & 255 ))); done
  echo "$out"
}
start_ms="${ELICIT_AGENT_START_MS:-$(date +%s%3N)}"
line="454c4147$(printf '02%02x%02x00' ${#keys[@]} $(( start_ms % 1000 / 10 )))"
line+="$(le $(( start_ms / 1000 )) 8)$(od -An -v -tx1 -N8 /dev/urandom | tr -d ' \n')$(le "$timer_hz" 4)"
for k in "${keys[@]}"; do line+="$(printf '%02x' $(( ${#k} / 2 )))$k"; done

# --- run -----------------------------------------------------------------------------------
mkfifo -m 600 "$dir/uart-in"
"$qemu" -M "$board" "${board_args[@]}" -nographic -monitor none -serial stdio -kernel "$elf" \
  ${ELICIT_AGENT_QEMU_ARGS:-} <"$dir/uart-in" &
qpid=$!
exec 3>"$dir/uart-in"
printf '%s\n' "$line" >&3
line=""
# In the background so that a signal reaches the trap at once (bash runs traps only
# between foreground commands); stdin is passed on explicitly.
cat <&0 >&3 &
cpid=$!
wait "$cpid" || true
# The input has ended: let the agent answer what it has read, then stop it.
sleep "${ELICIT_AGENT_LINGER:-1}"
exec 3>&-
