#!/usr/bin/env bash
# test-rmcp-versions.sh: elicit-rmcp's rmcp requirement (a semver range in
# integrations/rmcp/Cargo.toml, e.g. "3.11", which integrations/rmcp-transport/Cargo.toml
# must state too) holds at both of its ends: the lower bound
# it states and the newest rmcp the registry serves (`cargo info rmcp`). The version
# Cargo.lock pins is left out: the workspace test (`cargo test --workspace --all-features`,
# a step of scripts/test.sh) already ran elicit-rmcp's tests on it, so when both ends are the
# pinned version nothing is compiled (the script says so). For each other version (once when
# both ends are the same) a scratch copy of the checkout pins rmcp with
# `cargo update -p rmcp --precise V` and runs elicit-rmcp's tests with the `testing`
# feature and elicit-rmcp-transport's: unit tests, the test driver's plays, the compile-fail tests and the README's
# quick start (a doc test). Needs the registry (the index, and the crates it names).
#
#   scripts/test-rmcp-versions.sh
#
# Builds into $BUILD (lib.sh; the dependencies are shared with the workspace's debug test).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rmcp_req() { "${PYTHON:-python3}" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["dependencies"]["rmcp"]["version"])' "$1"; }
req=$(rmcp_req integrations/rmcp/Cargo.toml)
transport_req=$(rmcp_req integrations/rmcp-transport/Cargo.toml)
[ "$req" = "$transport_req" ] || { echo "test-rmcp-versions: elicit-rmcp requires rmcp \"$req\", elicit-rmcp-transport \"$transport_req\": state one range in both" >&2; exit 1; }
case "$req" in
  [0-9]*.[0-9]*.[0-9]*) lower=$req ;;
  [0-9]*.[0-9]*) lower=$req.0 ;;
  *) echo "test-rmcp-versions: rmcp requirement '$req' is not a plain MAJOR.MINOR[.PATCH] range" >&2; exit 1 ;;
esac
newest=$(cargo info rmcp 2>/dev/null | awk '/^version:/ {print $2; exit}')
[ -n "$newest" ] || { echo "test-rmcp-versions: cargo info rmcp named no version (registry unreachable?)" >&2; exit 1; }
locked=$("${PYTHON:-python3}" -c 'import tomllib; print(*{p["version"] for p in tomllib.load(open("Cargo.lock", "rb"))["package"] if p["name"] == "rmcp"})')
[[ "$locked" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  { echo "test-rmcp-versions: Cargo.lock should pin one rmcp version, it pins '$locked'" >&2; exit 1; }
echo "test-rmcp-versions: rmcp \"$req\": lower bound $lower, newest $newest; Cargo.lock pins $locked" >&2
versions=()
for v in $(printf '%s\n' "$lower" "$newest" | sort -uV); do
  if [ "$v" = "$locked" ]; then
    echo "test-rmcp-versions: rmcp $v is the pinned version: the workspace test covers it" >&2
  else
    versions+=("$v")
  fi
done
if [ ${#versions[@]} -eq 0 ]; then
  echo "test-rmcp-versions: ok (nothing to compile: both ends are the pinned rmcp $locked)" >&2
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z | tar --null -cf - -T - | tar -xf - -C "$tmp"
for v in "${versions[@]}"; do
  echo "test-rmcp-versions: elicit-rmcp on rmcp $v" >&2
  (cd "$tmp" && cargo update -q -p rmcp --precise "$v" &&
    CARGO_TARGET_DIR="$BUILD" cargo test -q -p elicit-rmcp --features testing -p elicit-rmcp-transport >&2) ||
    { echo "test-rmcp-versions: elicit-rmcp fails on rmcp $v" >&2; exit 1; }
done
echo "test-rmcp-versions: ok" >&2
