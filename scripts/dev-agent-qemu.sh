#!/usr/bin/env bash
# Run the firmware MCP agent (examples/firmware-agent) on QEMU's mps2-an386 with UART0 on
# this script's stdin/stdout: a stdio MCP server command, e.g. for the FastMCP client
#   StdioTransport("scripts/dev-agent-qemu.sh", [])
#
#   scripts/dev-agent-qemu.sh [--elf PATH]
#
# The image: --elf, else $ELICIT_AGENT_ELF, else the sealed release build in
# target/agent (scripts/test-agent.sh and scripts/bench-agent-size.sh build it; build it by hand
# with `cd examples/firmware-agent && cargo build --release`).
#
# Provisioning (examples/firmware-agent/src/provision.rs): a 512-byte block that QEMU's
# generic loader puts at 0x203FF000, read and wiped by the agent at start:
#   - the key ring: ELICIT_STATE_KEYS as elicit-rmcp-server reads it (comma-separated hex
#     secrets of 32 to 128 bytes, at most 2: the first seals, all unseal); unset, one
#     ephemeral random key for this run (tokens die with it);
#   - the time: Unix seconds and hundredths now (the agent adds the board's 100 Hz counter);
#     $ELICIT_AGENT_START_MS overrides it (the tests start an agent whose clock is behind);
#   - the nonce seed: 8 fresh bytes from /dev/urandom for every start.
# The block is written to a private temporary directory (mode 0600) removed on exit.
#
# QEMU does not stop when its stdin ends, so the client's stdin is copied into QEMU through
# a FIFO; when the client closes it, QEMU is stopped $ELICIT_AGENT_LINGER seconds later
# (default 1: time to answer what it read; a client that closes only after its last answer
# can set 0), and at once when this script is signalled.
# stderr carries QEMU's own messages only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

elf="${ELICIT_AGENT_ELF:-$root/target/agent/thumbv7em-none-eabihf/release/elicit-agent}"
while [ $# -gt 0 ]; do
  case "$1" in
    --elf) elf="$2"; shift 2 ;;
    *) echo "usage: $0 [--elf PATH]" >&2; exit 2 ;;
  esac
done
if [ ! -f "$elf" ]; then
  echo "agent-qemu: no agent image at $elf; build it: (cd examples/firmware-agent && cargo build --release)" >&2
  exit 2
fi
command -v qemu-system-arm >/dev/null || {
  echo "agent-qemu: qemu-system-arm is missing (apt-get install qemu-system-arm)" >&2; exit 2; }

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

# --- the provisioning block --------------------------------------------------------------
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

hexbytes() { # hex digits -> the bytes
  local h="$1" out="" i
  for ((i = 0; i < ${#h}; i += 2)); do out+="\\x${h:i:2}"; done
  printf '%b' "$out"
}
le64() { # integer -> 8 bytes little-endian, as hex digits
  local v="$1" out="" i
  for ((i = 0; i < 8; i++)); do out+=$(printf '%02x' $(( (v >> (8 * i)) & 255 ))); done
  echo "$out"
}
umask 077
{
  printf 'ELAG'
  start_ms="${ELICIT_AGENT_START_MS:-$(date +%s%3N)}"
  hexbytes "01$(printf '%02x%02x' ${#keys[@]} $(( start_ms % 1000 / 10 )))00"
  hexbytes "$(le64 $(( start_ms / 1000 )))"
  head -c 8 /dev/urandom
  for k in "${keys[@]}"; do
    hexbytes "$(printf '%02x' $(( ${#k} / 2 )))$k"
  done
} >"$dir/provision.bin"
truncate -s 512 "$dir/provision.bin"

# --- run -----------------------------------------------------------------------------------
mkfifo "$dir/uart-in"
qemu-system-arm -M mps2-an386 -nographic -monitor none -serial stdio \
  -kernel "$elf" -device "loader,file=$dir/provision.bin,addr=0x203FF000,force-raw=on" \
  ${ELICIT_AGENT_QEMU_ARGS:-} <"$dir/uart-in" &
qpid=$!
exec 3>"$dir/uart-in"
# In the background so that a signal reaches the trap at once (bash runs traps only
# between foreground commands); stdin is passed on explicitly.
cat <&0 >&3 &
cpid=$!
wait "$cpid" || true
# The input has ended: let the agent answer what it has read, then stop it.
sleep "${ELICIT_AGENT_LINGER:-1}"
exec 3>&-
