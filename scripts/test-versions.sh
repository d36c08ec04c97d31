#!/usr/bin/env bash
# test-versions.sh: every place that states elicit's version states the same one
# (CHANGELOG.md, "Versioning": one number for the crates, the C ABI, pkg-config and the
# Python package). The number is the workspace's `[workspace.package] version`; checked
# against it:
#   - every workspace crate's version (cargo metadata);
#   - every dependency of a publishable crate on another workspace crate: `=<version>`;
#   - ELICIT_ABI_VERSION_MAJOR/MINOR/PATCH in include/elicit_noalloc.h (the header the
#     constants in ffi-noalloc/src/codes.rs generate; test-c.sh checks for drift);
#   - cargo-c's library version (file name libelicit.so.<version>, SONAME major) and
#     pkg-config version in ffi/Cargo.toml;
#   - python/pyproject.toml's version, elicit_mcp.__version__ and
#     elicit_mcp.constants.ABI_VERSION_*;
#   - js/package.json's version (the npm package elicit-mcp);
#   - every committed Cargo.lock (the workspace's and the separate workspaces': firmware,
#     agent, staticlib, fuzz): the version it records for each crate of this checkout
#     (no `source` line), so a bump cannot leave a lock that the next build rewrites;
#   - the newest release heading in CHANGELOG.md.
# Reads files only (no build). Exits non-zero on any disagreement, naming each.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cargo metadata --format-version 1 --no-deps >"${TMPDIR:-/tmp}/elicit-versions.$$.json"
trap 'rm -f "${TMPDIR:-/tmp}/elicit-versions.$$.json"' EXIT
"${PYTHON:-python3}" - "${TMPDIR:-/tmp}/elicit-versions.$$.json" <<'EOF'
import json, os, re, sys, tomllib
from pathlib import Path

def toml(path):
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))

version = toml("Cargo.toml")["workspace"]["package"]["version"]
major, minor, patch = (int(x) for x in version.split("."))
found = []  # (where, what it says)

meta = json.load(open(sys.argv[1]))
members = {p["name"]: p for p in meta["packages"]}
for p in meta["packages"]:
    found.append((f"{os.path.relpath(p['manifest_path'])}: version", p["version"]))
    if p["publish"] is not None:
        continue
    for d in p["dependencies"]:
        if d["name"] in members and d.get("path"):
            found.append((f"{p['name']}: dependency on {d['name']}", d["req"].lstrip("=")
                          if d["req"].startswith("=") else f"{d['req']} (want ={version})"))

header = Path("include/elicit_noalloc.h").read_text(encoding="utf-8")
abi = {}
for part in ("MAJOR", "MINOR", "PATCH"):
    m = re.search(rf"^#define ELICIT_ABI_VERSION_{part} (\d+)$", header, re.M)
    abi[part] = m.group(1) if m else "missing"
found.append(("include/elicit_noalloc.h: ELICIT_ABI_VERSION_MAJOR.MINOR.PATCH",
              f"{abi['MAJOR']}.{abi['MINOR']}.{abi['PATCH']}"))

capi = toml("ffi/Cargo.toml")["package"]["metadata"]["capi"]
found.append(("ffi/Cargo.toml: [package.metadata.capi.library] version", capi["library"]["version"]))
found.append(("ffi/Cargo.toml: [package.metadata.capi.pkg_config] version", capi["pkg_config"]["version"]))

found.append(("python/pyproject.toml: version", toml("python/pyproject.toml")["project"]["version"]))
init = Path("python/elicit_mcp/__init__.py").read_text(encoding="utf-8")
m = re.search(r'^__version__ = "([^"]*)"', init, re.M)
found.append(("python/elicit_mcp/__init__.py: __version__", m.group(1) if m else "missing"))
consts = Path("python/elicit_mcp/constants.py").read_text(encoding="utf-8")
py_abi = {}
for part in ("MAJOR", "MINOR", "PATCH"):
    m = re.search(rf"^ABI_VERSION_{part} = (\d+)", consts, re.M)
    py_abi[part] = m.group(1) if m else "missing"
found.append(("python/elicit_mcp/constants.py: ABI_VERSION_MAJOR.MINOR.PATCH",
              f"{py_abi['MAJOR']}.{py_abi['MINOR']}.{py_abi['PATCH']}"))

found.append(("js/package.json: version", json.loads(Path("js/package.json").read_text(encoding="utf-8"))["version"]))

import subprocess
for lock in subprocess.run(["git", "ls-files", "*Cargo.lock"], capture_output=True, text=True,
                          check=True).stdout.split():
    for pkg in toml(lock).get("package", []):
        if "source" not in pkg and pkg["name"] in members:
            found.append((f"{lock}: {pkg['name']}", pkg["version"]))

m = re.search(r"^## (\d+\.\d+\.\d+)\b", Path("CHANGELOG.md").read_text(encoding="utf-8"), re.M)
found.append(("CHANGELOG.md: newest release heading", m.group(1) if m else "missing"))

bad = [(w, v) for w, v in found if v != version]
for w, v in found:
    print(f"{'ok ' if v == version else 'BAD'} {v:>10}  {w}")
if bad:
    print(f"test-versions.sh: {len(bad)} place(s) disagree with the workspace version {version}:", file=sys.stderr)
    for w, v in bad:
        print(f"  {w}: {v}", file=sys.stderr)
    sys.exit(1)
print(f"test-versions.sh: {len(found)} places agree on {version}")
EOF
