# shellcheck shell=bash
# Shared setup for the scripts in this folder: sourced, never run.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# After sourcing: the working directory is the checkout's root, ROOT names it, TOOLCHAIN is
# the channel pinned in rust-toolchain.toml, and rustup never installs on its own
# (RUSTUP_AUTO_INSTALL=0; never `rustup update`: the mirror's newer stable lacks the
# embedded targets). The helpers install what a fresh machine lacks, once:
#
#   need_target T...       add rustup targets to the pinned toolchain
#   apt_install PKG...     apt-get install (apt-get update first only when needed)
#   need_cmd CMD PKG...    apt_install PKG... when CMD is not on PATH
#   need_qemu [BIN]        qemu-system-arm (or BIN: qemu-system-riscv32 comes with
#                          qemu-system-misc)
#   pick CMD...            the first of CMD... on PATH (empty when none)
#   need_cargo_tool BIN CRATE VERSION
#                          cargo install --locked CRATE@VERSION unless BIN --version says it
#   mcp_extra              the Python package's [mcp] extra (python/pyproject.toml), e.g.
#                          "mcp>=2.0.0,<3"; mcp_lowest: its lower bound ("2.0.0")
#   mcp_in_range PY        whether PY's installed mcp is within that range
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
ROOT=$PWD
export RUSTUP_AUTO_INSTALL=0
export CARGO_TERM_COLOR=never
TOOLCHAIN=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)

need_target() {
  local installed t
  installed=$(rustup target list --installed --toolchain "$TOOLCHAIN" 2>/dev/null)
  for t in "$@"; do
    grep -qx "$t" <<<"$installed" || rustup target add --toolchain "$TOOLCHAIN" "$t" >&2 ||
      { echo "lib.sh: cannot add the rustup target $t to $TOOLCHAIN" >&2; return 1; }
  done
}

apt_install() {
  echo "installing $* (apt-get)" >&2
  (apt-get install -y -qq "$@" >/dev/null 2>&1) ||
    (apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null) ||
    { echo "lib.sh: apt-get install $* failed" >&2; return 1; }
}

need_cmd() {
  local cmd=$1; shift
  command -v "$cmd" >/dev/null || apt_install "$@"
}

need_qemu() {
  local bin=${1:-qemu-system-arm}
  case "$bin" in
    qemu-system-arm) need_cmd "$bin" qemu-system-arm ;;
    *) need_cmd "$bin" qemu-system-misc ;;
  esac
}

pick() {
  local t
  for t in "$@"; do
    if command -v "$t" >/dev/null; then echo "$t"; return 0; fi
  done
}

need_cargo_tool() {
  local bin=$1 crate=$2 version=$3
  if [ "$("$bin" --version 2>/dev/null | awk '{print $NF}')" != "$version" ]; then
    cargo install --locked "$crate@$version" >&2 ||
      { echo "lib.sh: cargo install --locked $crate@$version failed" >&2; return 1; }
  fi
}

mcp_extra() {
  sed -n 's/^mcp = \["\(.*\)"\]$/\1/p' "$ROOT/python/pyproject.toml"
}

mcp_lowest() {
  local spec
  spec=$(mcp_extra)
  spec=${spec#*>=}
  echo "${spec%%,*}"
}

mcp_in_range() {
  "$1" - "$(mcp_extra)" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
from pip._vendor.packaging.requirements import Requirement
sys.exit(m.version("mcp") not in Requirement(sys.argv[1]).specifier)
PY
}

# The venv the MCP interop tests run on (the FastMCP 4.1.6 client, the MCP Python SDK client
# mcp 2.3.0, pytest): $ELICIT_MCP_VENV if set, else .venv-mcp/ at the root; created or
# repaired on first use. Prints its python.
mcp_test_venv() {
  local venv="${ELICIT_MCP_VENV:-$ROOT/.venv-mcp}"
  local py="$venv/bin/python"
  if [[ ! -x "$py" ]] || ! "$py" - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(m.version("fastmcp") != "4.1.6" or m.version("mcp") != "2.3.0" or not m.version("pytest"))
PY
  then
    echo "setting up $venv with fastmcp==4.1.6, mcp==2.3.0 and pytest" >&2
    python3 -m venv "$venv" >&2
    "$py" -m pip install --quiet --disable-pip-version-check "fastmcp==4.1.6" "mcp==2.3.0" pytest >&2
  fi
  # Keep the environment out of git whatever the repository's .gitignore says.
  [[ -e "$venv/.gitignore" ]] || printf '*\n' >"$venv/.gitignore"
  echo "$py"
}
