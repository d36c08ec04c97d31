"""One text through every surface: names and values holding the characters Python's
`repr` and JSON treat specially (U+0085, U+00A0, U+00AD, U+200B, U+2028, unassigned code
points), sent to elicit-rmcp-server (servers/rmcp), the firmware agent (QEMU,
scripts/dev-agent-qemu.sh) and the Python reference server (FastMCP 4.1.6 + the seed,
reference_server.py), all over raw stdio on the 2026-07-28 era with one key ring. The
three must give identical bytes:

- where `repr` is on the wire (an unknown tool's name in the error text): the text, and it
  is CPython's own `repr` (this test runs on CPython 3.11, as the reference does);
- the questions built from the values (`inputRequests`, compared as canonical JSON bytes);
- the engine state inside each sealed `requestState`, unsealed with the shared ring: the
  plaintext bytes (the question digests over these values and the recorded answers,
  ASCII-escaped the Python way);
- the final results.

The Rust server comes from $ELICIT_RMCP_SERVER_BIN, the agent image from $ELICIT_AGENT_ELF,
the reference's python from $ELICIT_REFERENCE_PYTHON (scripts/test-mcp.sh sets all three).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp.server.request_state import AESGCMRequestStateCodec

from conftest import KEY_A, MODERN, SERVER_BIN

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
REF_PY = os.environ.get("ELICIT_REFERENCE_PYTHON")
AGENT_ELF = os.environ.get("ELICIT_AGENT_ELF")

pytestmark = pytest.mark.skipif(
    not REF_PY or not AGENT_ELF,
    reason="ELICIT_REFERENCE_PYTHON or ELICIT_AGENT_ELF not set (scripts/test-mcp.sh sets them)",
)

SURFACES = {
    "rust": [SERVER_BIN, "--stdio"],
    "agent": ["bash", str(REPO / "scripts" / "dev-agent-qemu.sh")],
    "reference": [REF_PY or "python3", str(HERE / "reference_server.py"), "--stdio"],
}

# NEL, NO-BREAK SPACE, SOFT HYPHEN, ZERO WIDTH SPACE, LINE SEPARATOR, and unassigned code
# points in the BMP and beyond it (Unicode 14, CPython 3.11's).
SPECIAL = "\u0085\u00a0\u00ad\u200b\u2028\u0378\U000e0080"
NAME = f"x{SPECIAL}y"
QUOTED = f"it's {SPECIAL}"  # a single quote: repr picks double quotes
VALUE = f"Par{SPECIAL}is"
OTHER = f"2026\u00a008\u202801{SPECIAL}"


class Stdio:
    """A server process answering newline-delimited JSON-RPC on stdin/stdout."""

    def __init__(self, command: list[str]):
        env = {**os.environ, "ELICIT_STATE_KEYS": KEY_A, "ELICIT_AGENT_LINGER": "0"}
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.next_id = 1

    def call(self, params: dict) -> dict:
        """One 2026-07-28 tools/call; its result."""
        rid = self.next_id
        self.next_id += 1
        p = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "cross-surface", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        }
        line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": p})
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            reply = self.proc.stdout.readline()
            assert reply, f"{self.proc.args}: no answer to {line}"
            msg = json.loads(reply)
            if msg.get("id") == rid:
                assert "result" in msg, msg
                return msg["result"]

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture(scope="module")
def servers():
    if not os.access(SERVER_BIN, os.X_OK):
        pytest.fail(f"elicit-rmcp-server binary not found at {SERVER_BIN}; run scripts/test-mcp.sh")
    started = {name: Stdio(cmd) for name, cmd in SURFACES.items()}
    yield started
    for s in started.values():
        s.close()


def canonical(v) -> bytes:
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def state(result: dict) -> bytes:
    """The engine state inside a sealed requestState: its exact plaintext bytes."""
    claims = json.loads(AESGCMRequestStateCodec([bytes.fromhex(KEY_A)]).unseal(result["requestState"]))
    return claims["s"].encode()


def same(results: dict, what) -> bytes:
    """`what(result)` for every surface; they must be equal. Returns the common value."""
    got = {name: what(r) for name, r in results.items()}
    first = got["reference"]
    for name, v in got.items():
        assert v == first, f"{name} differs from the reference:\n  {v!r}\n  {first!r}"
    return first


def text(result: dict) -> bytes:
    return result["content"][0]["text"].encode()


def all_call(servers: dict, params_for) -> dict:
    return {name: s.call(params_for(name)) for name, s in servers.items()}


def next_round(servers: dict, tool: str, args: dict, previous: dict, values: dict) -> dict:
    """The next round of `tool` on every surface: its own requestState from `previous`,
    and `values` accepted (parameter -> value)."""
    replies = {k: {"action": "accept", "content": {"value": v}} for k, v in values.items()}
    return all_call(
        servers,
        lambda n: {
            "name": tool,
            "arguments": args,
            "requestState": previous[n]["requestState"],
            "inputResponses": replies,
        },
    )


@pytest.mark.parametrize("name", [NAME, QUOTED, "\u2028", "\U000e0080'\""])
def test_an_unknown_tool_is_named_by_cpythons_repr_everywhere(servers, name):
    results = all_call(servers, lambda _: {"name": name, "arguments": {}})
    assert all(r["isError"] is True for r in results.values())
    assert same(results, text) == f"Unknown tool: {name!r}".encode()


def test_questions_built_from_a_value_are_the_same_bytes(servers):
    args = {"item": VALUE}
    first = all_call(servers, lambda _: {"name": "order", "arguments": args})
    requests = same(first, lambda r: canonical(r["inputRequests"]))
    assert f"How many {VALUE}?".encode() in requests
    same(first, state)
    final = next_round(servers, "order", args, first, {"quantity": 3})
    assert same(final, text) == f"Ordered 3 x {VALUE}".encode()


def test_answers_holding_the_characters_are_recorded_and_used_alike(servers):
    """book_flight over three rounds: the answers (destination, date) are re-rendered into
    the state with Python's ASCII escapes, asked about again in the resolvers' questions,
    and written into the result."""
    answers = {"destination": VALUE, "date": OTHER, "seat": "window"}
    r1 = all_call(servers, lambda _: {"name": "book_flight", "arguments": {}})
    same(r1, lambda r: canonical(r["inputRequests"]))
    same(r1, state)
    r2 = next_round(servers, "book_flight", {}, r1, answers)
    asked = same(r2, lambda r: canonical(r["inputRequests"]))
    assert f"Which airport in {VALUE}?".encode() in asked
    assert f"Book a flight to {VALUE} on {OTHER}?".encode() in asked
    plaintext = same(r2, state)
    # The recorded answers, ASCII-escaped as Python's json.dumps writes them.
    assert json.dumps(VALUE).encode() in plaintext
    assert json.dumps(OTHER).encode() in plaintext
    r3 = next_round(servers, "book_flight", {}, r2, {"airport": NAME, "proceed": True})
    want = f"Booked {VALUE} ({NAME}) on {OTHER}, seat window"
    assert same(r3, text) == want.encode()
    same(r3, lambda r: canonical(r["structuredContent"]))


def test_an_unexpected_argument_is_named_alike_by_the_two_elicit_surfaces(servers):
    """The reference reports this through pydantic's validation text (a documented
    deviation: elicit names the argument with repr); the Rust server and the agent agree."""
    both = {k: servers[k] for k in ("rust", "agent")}
    results = all_call(both, lambda _: {"name": "order", "arguments": {"item": "x", QUOTED: 1}})
    got = {n: text(r) for n, r in results.items()}
    assert got["rust"] == got["agent"] == f"Unexpected argument {QUOTED!r} for tool 'order'".encode()
