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
#   apt_locked CMD...      CMD (apt-get, dpkg) holding the run's apt lock (apt_install does)
#   need_cmd CMD PKG...    apt_install PKG... when CMD is not on PATH
#   need_qemu [BIN]        qemu-system-arm (or BIN: qemu-system-riscv32 comes with
#                          qemu-system-misc)
#   pick CMD...            the first of CMD... on PATH (empty when none)
#   need_cargo_tool BIN CRATE VERSION
#                          cargo install --locked CRATE@VERSION unless BIN --version says it
#   npm_ci DIR             npm ci in DIR, unless DIR/node_modules was installed from the
#                          same package-lock.json
#   mcp_extra              the Python package's [mcp] extra (python/pyproject.toml), e.g.
#                          "mcp>=2.0.0,<3"; mcp_lowest: its lower bound ("2.0.0")
#   mcp_in_range PY        whether PY's installed mcp is within that range
#   python_dev_venv        the Python package's venv .venv-python (pytest, mypy, the [mcp]
#                          extra's newest release), made or repaired; prints its python
#   venv_at DIR            DIR made a venv unless it is one, kept out of git; prints its
#                          python (python_dev_venv and mcp_test_venv make theirs with it)
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
ROOT=$PWD
export RUSTUP_AUTO_INSTALL=0
export CARGO_TERM_COLOR=never
TOOLCHAIN=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)

# The build folders (cargo target directories). Every script builds into the one named
# here, so a step that runs what an earlier step built finds it under the same name, and
# scripts/test.sh frees them by these names (ELICIT_TIDY=1). One folder per profile and
# flags: builds with other features in one folder sit side by side (cargo hashes them
# apart) and the dependencies they agree on compile once. Under CARGO_TARGET_DIR if set.
#   BUILD             the workspace: debug (clippy, the workspace tests, the demo, tools,
#                     seal_cli, the packaged crates and the quick start of test-install.sh)
#                     and release (elicit-ffi for C and Python, elicit-rmcp-server for every
#                     interop step, the differential test's oracle runner)
#   BUILD_FIRMWARE    examples/firmware (its own workspace and profile: test-firmware.sh)
#   BUILD_AGENT       examples/firmware-agent, sealed and plaintext, every board
#                     (bench-agent-size.sh, test-mcp.sh, dev-agent-qemu.sh)
#   BUILD_C_FIRMWARE  ffi-noalloc/staticlib (test-c-firmware.sh; the `detail` builds in
#                     detail/ inside it, as both must be linked in one run)
#   BUILD_RELEASE_C   the C SDK (release.sh: fat LTO, linked by zig)
#   BUILD_WHEELS      the wheels (release.sh: cargo-zigbuild for x86_64 and aarch64)
#   RELEASE_TOOLS     the venv of release.sh's tools (zig, cargo-zigbuild, auditwheel)
#   BUILD_FUZZ        fuzz/ (cargo-fuzz, nightly, sanitizer flags: test-fuzz.sh)
BUILD=${CARGO_TARGET_DIR:-$ROOT/target}
BUILD_FIRMWARE=$BUILD/firmware
BUILD_AGENT=$BUILD/agent
BUILD_C_FIRMWARE=$BUILD/c-firmware
BUILD_RELEASE_C=$BUILD/release-c
BUILD_WHEELS=$BUILD/release-wheels
RELEASE_TOOLS=$BUILD/release-tools
BUILD_FUZZ=$ROOT/fuzz/target

# elicit-rmcp-server (servers/rmcp), release, as every interop step and benchmark runs it:
# build_rmcp_server builds it into $BUILD (extra arguments go to cargo build), and
# RMCP_SERVER_BIN is the binary.
RMCP_SERVER_BIN=$BUILD/release/elicit-rmcp-server
build_rmcp_server() {
  CARGO_TARGET_DIR="$BUILD" cargo build --quiet --release -p elicit-rmcp-server "$@" >&2
}

need_target() {
  local installed t
  installed=$(rustup target list --installed --toolchain "$TOOLCHAIN" 2>/dev/null)
  for t in "$@"; do
    grep -qx "$t" <<<"$installed" || rustup target add --toolchain "$TOOLCHAIN" "$t" >&2 ||
      { echo "lib.sh: cannot add the rustup target $t to $TOOLCHAIN" >&2; return 1; }
  done
}

# scripts/test.sh runs two steps at once (its lanes), and an apt-get or dpkg started while
# another holds dpkg's lock fails at once: every apt and dpkg call of these scripts waits
# for this lock instead.
APT_LOCK=${TMPDIR:-/tmp}/elicit-apt.lock
apt_locked() {
  flock "$APT_LOCK" "$@"
}

apt_install() {
  echo "installing $* (apt-get)" >&2
  (apt_locked apt-get install -y -qq "$@" >/dev/null 2>&1) ||
    (apt_locked apt-get update -qq >/dev/null && apt_locked apt-get install -y -qq "$@" >/dev/null) ||
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

# `npm ci` wipes node_modules and installs it again (Node 22 among it for the suites): the
# interop steps sharing a folder (the conformance suite, the SDK clients) install it once a
# run. A stamp (the lock file it was installed from) says the folder is current.
# One caller at a time per folder (scripts/test.sh's lanes): npm ci would wipe the folder
# under a step running from it.
npm_ci() {
  local dir stamp
  dir=$(cd "$1" && pwd) || return 1
  stamp=$dir/node_modules/.elicit-installed-from.json
  (
    flock 9
    if [[ -f "$stamp" ]] && cmp -s "$dir/package-lock.json" "$stamp"; then
      exit 0
    fi
    need_cmd npm npm || exit 1
    (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >&2) &&
      cp "$dir/package-lock.json" "$stamp"
  ) 9>"$(lock_of "$dir")"
}

# lock_of PATH: the file to flock for PATH, outside the checkout.
lock_of() {
  echo "${TMPDIR:-/tmp}/elicit-$(printf '%s' "$1" | md5sum | cut -c1-12).lock"
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
# repaired on first use, one caller at a time (scripts/test.sh's lanes). Prints its python.
mcp_test_venv() {
  local venv="${ELICIT_MCP_VENV:-$ROOT/.venv-mcp}"
  local py="$venv/bin/python"
  exec 8>"$(lock_of "$venv")"
  flock 8
  if [[ ! -x "$py" ]] || ! "$py" - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(m.version("fastmcp") != "4.1.6" or m.version("mcp") != "2.3.0" or not m.version("pytest"))
PY
  then
    echo "setting up $venv with fastmcp==4.1.6, mcp==2.3.0 and pytest" >&2
    venv_at "$venv" >/dev/null &&
      "$py" -m pip install --quiet --disable-pip-version-check "fastmcp==4.1.6" "mcp==2.3.0" pytest >&2 ||
      { exec 8>&-; return 1; }
  fi
  exec 8>&-
  echo "$py"
}

# venv_at DIR: DIR made a venv unless it is one (Debian's python3-venv installed first when
# the interpreter, $PYTHON or python3, cannot make one: Debian splits ensurepip out), kept
# out of git whatever the repository's .gitignore says. Prints its python. The caller holds
# DIR's lock (lock_of).
venv_at() {
  local venv=$1
  if [ ! -x "$venv/bin/python" ]; then
    if ! "${PYTHON:-python3}" -m venv "$venv" >&2 2>/dev/null; then
      rm -rf "$venv"
      apt_install python3-venv && "${PYTHON:-python3}" -m venv "$venv" >&2 || return 1
    fi
  fi
  [ -e "$venv/.gitignore" ] || printf '*\n' >"$venv/.gitignore"
  echo "$venv/bin/python"
}

# The Python package's venv, .venv-python (its own .gitignore keeps it out of git):
# pytest, mypy and the [mcp] extra's newest release (python/pyproject.toml: a range),
# installed when missing or outside their ranges (PYTEST_SPEC, MYPY_SPEC and MCP_SPEC
# override them; PYTHON, the interpreter that makes it). test-python.sh runs on it, and the
# Python server (dev-python-server.sh, which needs only the extra); scripts/test.sh's installs lane
# makes it beside the first steps. One caller at a time. Prints its python.
python_dev_venv() {
  local venv="$ROOT/.venv-python"
  local py="$venv/bin/python"
  exec 7>"$(lock_of "$venv")"
  flock 7
  venv_at "$venv" >/dev/null || { exec 7>&-; return 1; }
  if ! "$py" -c 'import pytest, mypy' 2>/dev/null || ! mcp_in_range "$py"; then
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip install -q --upgrade "${PYTEST_SPEC:-pytest>=8,<10}" \
      "${MYPY_SPEC:-mypy>=1.10,<3}" "${MCP_SPEC:-$(mcp_extra)}" >&2 || { exec 7>&-; return 1; }
  fi
  exec 7>&-
  echo "$py"
}
