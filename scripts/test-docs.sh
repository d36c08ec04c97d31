#!/usr/bin/env bash
# The docs check: fails on what goes stale when files move, or when a doc is written on
# one machine. Cheap (about a second; no build). It reads every file git knows (tracked,
# or new and not ignored) except the golden data (tests/vectors, lock files, recorded
# transcripts), CHANGELOG.md (history may name anything) and this script (it must spell
# what it refuses). Each finding is printed as FILE:LINE: what; exit 1 when there is one.
#
#   1. Links, in markdown files. A relative link `[text](path)` must lead to a file or
#      folder of the checkout, resolved from the linking file's folder (`#anchors` and
#      URLs are not checked). A backticked repository path — a word inside backticks
#      that starts with one of the checkout's top-level folders and a `/`, such as
#      scripts/test.sh or core/src/state.rs — must name a file or folder, from the
#      checkout's root or the file's own folder; a `*` in it must match a file. Words
#      holding `{`, `<`, `$` or `…` are patterns, and MCP method names (tools/call) are
#      not paths: both are skipped.
#   2. Absolute paths of this machine, in every file: the prefixes /work/, /root/ and
#      /tmp/ (the checkouts and the shared reference, the root home, scratch folders)
#      exist only here. The one exception is a URI (file:///tmp/a.txt in a test is data
#      a client sends, not a place on this machine). Scripts find the reference through
#      ORACLE_DIR or the checkout's neighbourhood (../shared/reference), and make scratch
#      folders with mktemp; docs write "$(mktemp -d)" or $TMPDIR for a user's own.
#   3. README.md is at most 250 lines (the front door; the guides and docs/ hold the rest).
#   4. Stale names, in every file: what was renamed or never existed (a DESIGN.md, the
#      retired examples/mcp-server and booking-server, the ffi-static crate and its
#      elicit_static_* symbols and header, the scripts' old names), and commit hashes in
#      prose (a lowercase hex word of 7 to 40 digits holding a letter and a digit, not a
#      float such as 1e16, outside markdown code blocks, which may show hex data, and
#      naming a commit of this repository, so a hex constant is not one): what changed
#      when belongs in CHANGELOG.md.
#   5. README.md's Rust examples are ones core/README.md compiles as elicit-core's
#      doctests: each rust code block of README.md appears verbatim in core/README.md.
#
#   scripts/test-docs.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmd python3 python3 || exit 2
git rev-parse --git-dir >/dev/null 2>&1 || { echo "test-docs: not a git checkout" >&2; exit 2; }

python3 - <<'PY'
import fnmatch, os, re, subprocess, sys

# Symbolic links are read where they point (a link to a checked file is not read twice).
files = sorted({f for f in subprocess.run(
    ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    capture_output=True, check=True).stdout.decode().split("\0") if f and os.path.isfile(f) and not os.path.islink(f)})
folders = {os.path.dirname(f) for f in files}
for f in list(folders):
    while f:
        f = os.path.dirname(f)
        folders.add(f)
top = sorted({f.split("/", 1)[0] for f in files if "/" in f})
known = set(files)

# Data whose bytes are fixed by other programs (golden vectors, lock files, recorded
# transcripts): not prose, never edited by hand.
DATA = re.compile(r"(^tests/vectors/.*\.(json|txt)$|\.lock$|package-lock\.json$|^core/tests/data/|\.proptest-regressions$|expected\.txt$)")
# CHANGELOG.md records history; this script must spell the names it refuses.
SKIP = {"CHANGELOG.md", "scripts/test-docs.sh"}
# MCP method names that look like paths under tools/.
METHOD = re.compile(r"^(tools|prompts|resources|roots|sampling|elicitation|notifications|completion|logging)/[a-zA-Z_]+$")

problems = []
hex_candidates = []  # (path, line, word): reported only when the word names a commit
def bad(path, n, what):
    problems.append(f"{path}:{n}: {what}")

def exists(p):
    p = os.path.normpath(p)
    return p in known or p in folders

md_link = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
tick = re.compile(r"`([^`\n]+)`")
repo_word = re.compile(r"^(?:%s)/[^\s]*$" % "|".join(re.escape(t) for t in top)) if top else None
machine = re.compile(r"(?<![A-Za-z0-9_.~-])(/work/|/root/|/tmp/)")
stale = [
    (re.compile(r"(?<![\w/.-])DESIGN\.md"), "DESIGN.md (never existed in this repository; the engine model is in docs/)"),
    (re.compile(r"examples/mcp-server"), "examples/mcp-server (retired: servers/rmcp)"),
    (re.compile(r"examples/rmcp-server"), "examples/rmcp-server (moved: servers/rmcp)"),
    (re.compile(r"examples/python-server"), "examples/python-server (moved: servers/python)"),
    (re.compile(r"examples/fixture"), "examples/fixture (moved: tests/fixture)"),
    (re.compile(r"examples/rmcp-baseline"), "examples/rmcp-baseline (moved: tests/baselines/rmcp)"),
    (re.compile(r"(?<![\w/.-])python/booking\.py"), "python/booking.py (moved: python/examples/booking.py)"),
    (re.compile(r"booking-server"), "booking-server (retired: elicit-rmcp-server)"),
    (re.compile(r"elicit_static(_|\.h)|libelicit_static"), "elicit_static_*, elicit_static.h, libelicit_static (renamed: elicit_noalloc)"),
    (re.compile(r"ffi-static"), "ffi-static (renamed: ffi-noalloc)"),
    (re.compile(r"(?<![\w-])agent-qemu\.sh"), "agent-qemu.sh (renamed: scripts/dev-agent-qemu.sh)"),
    (re.compile(r"(?<![\w-])agent-size\.sh"), "agent-size.sh (renamed: scripts/bench-agent-size.sh)"),
    (re.compile(r"(?<![\w-])run-(c-)?firmware(\.sh)?\b"), "run-firmware / run-c-firmware (renamed: scripts/test-firmware.sh, scripts/test-c-firmware.sh)"),
    (re.compile(r"(?<![\w-])load-mcp\.sh"), "load-mcp.sh (renamed: scripts/bench-load.sh)"),
]
hexword = re.compile(r"(?<![\w.+-])([0-9a-f]{7,40})(?![\w])")
sci = re.compile(r"^[0-9]*e[0-9]+$")

for path in files:
    if path in SKIP or DATA.search(path):
        continue
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue  # binary
    is_md = path.endswith(".md")
    here = os.path.dirname(path)
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if is_md and line.lstrip().startswith("```"):
            fenced = not fenced
        # 2. absolute paths of this machine (not inside a URI such as file:///tmp/x)
        for m in machine.finditer(line):
            if line[max(0, m.start() - 3):m.start()] == "://" or line[max(0, m.start() - 2):m.start()] == ":/":
                continue
            bad(path, n, f"absolute path of this machine ({m.group(1)}...): use a path relative to the checkout, ORACLE_DIR, or mktemp")
        # 4. stale names
        for rx, why in stale:
            if rx.search(line):
                bad(path, n, f"stale name {why}")
        for m in ([] if fenced else hexword.finditer(line)):
            w = m.group(1)
            if re.search(r"[a-f]", w) and re.search(r"[0-9]", w) and not sci.match(w) and w not in "0123456789abcdef":
                hex_candidates.append((path, n, w))
        # 1. links
        if is_md:
            for m in md_link.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                p = target.split("#", 1)[0]
                if p and not exists(os.path.join(here, p)):
                    bad(path, n, f"link to a missing file: {target}")
        if repo_word is None or not is_md:
            continue
        for m in tick.finditer(line):
            for word in m.group(1).split():
                word = word.rstrip(".,;:)'\"").lstrip("('\"")
                if not repo_word.match(word) or re.search(r"[{<$…]", word) or METHOD.match(word):
                    continue
                word = re.sub(r":\d+(-\d+)?$", "", word)  # path:line
                if "*" in word:
                    pats = [word, os.path.join(here, word)]
                    if not any(fnmatch.fnmatch(f, q) for f in files for q in pats):
                        bad(path, n, f"`{word}` matches no file")
                elif not exists(word) and not exists(os.path.join(here, word)):
                    bad(path, n, f"`{word}` names a file that does not exist")

# 3. README length
if os.path.isfile("README.md"):
    lines = open("README.md", encoding="utf-8").read().count("\n")
    if lines > 250:
        bad("README.md", lines, f"README.md is {lines} lines (at most 250: move detail to a guide or docs/)")

# 5. README's Rust examples are core/README.md's compiled ones
def rust_blocks(p):
    out, cur = [], None
    for line in open(p, encoding="utf-8").read().splitlines():
        if cur is None and re.match(r"^```rust\b", line):
            cur = []
        elif cur is not None and line.startswith("```"):
            out.append("\n".join(cur)); cur = None
        elif cur is not None:
            cur.append(line)
    return out
if os.path.isfile("README.md") and os.path.isfile("core/README.md"):
    compiled = rust_blocks("core/README.md")
    for i, block in enumerate(rust_blocks("README.md"), 1):
        if block not in compiled:
            bad("README.md", 0, f"Rust example {i} is not one of core/README.md's (compiled) examples: keep them identical")

for p in problems:
    print(p)
# A hex word is a commit hash when this repository has a commit by that name (so a hex
# constant such as a protocol magic is not one).
if hex_candidates:
    words = sorted({w for _, _, w in hex_candidates})
    out = subprocess.run(["git", "cat-file", "--batch-check=%(objecttype)"],
                         input="".join(w + "\n" for w in words), capture_output=True, text=True).stdout.split("\n")
    commits = {w for w, kind in zip(words, out) if kind == "commit"}
    for path, n, w in hex_candidates:
        if w in commits:
            bad(path, n, f"commit hash '{w}' in prose (history belongs in CHANGELOG.md)")
print(f"test-docs: {len(files)} files checked, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
PY
