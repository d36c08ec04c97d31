"""The C server (servers/c, on elicit's call level) and elicit-rmcp-server share rounds:
a requestState sealed by one completes on the other, with one key ring (2026-07-28, over
stdio, one JSON-RPC line at a time). The FastMCP and SDK client suites run against the
C server through scripts/test-c-server.sh."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import KEY_A, SERVER_BIN

REPO = Path(__file__).resolve().parents[3]
C_SERVER = [os.environ.get("ELICIT_C_SERVER_CMD", str(REPO / "scripts" / "dev-c-server.sh"))]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


class Stdio:
    """One server process spoken to a JSON-RPC line at a time."""

    def __init__(self, cmd: list[str]) -> None:
        env = {**os.environ, "ELICIT_STATE_KEYS": KEY_A}
        self.p = subprocess.Popen(
            [*cmd, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
        )
        self.next_id = 0

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        assert reply["id"] == self.next_id, reply
        return reply

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        assert self.p.wait(timeout=30) == 0


@pytest.mark.parametrize("first, second", [("c", "rust"), ("rust", "c")])
def test_a_round_sealed_by_one_server_completes_on_the_other(first, second):
    servers = {"c": Stdio(C_SERVER), "rust": Stdio([SERVER_BIN])}
    try:
        r1 = servers[first].call("tools/call", {"name": "greet", "arguments": {}, "_meta": META})
        result = r1["result"]
        assert result["resultType"] == "input_required"
        assert list(result["inputRequests"]) == ["name"]
        token = result["requestState"]
        answer = {"name": {"action": "accept", "content": {"value": "Ada"}}}
        params = {"name": "greet", "arguments": {}, "inputResponses": answer, "requestState": token, "_meta": META}
        r2 = servers[second].call("tools/call", params)
        assert r2["result"]["content"][0]["text"] == "Hello, Ada"
        assert r2["result"]["structuredContent"] == {"result": "Hello, Ada"}
        # The token is bound to its tool: the other server refuses it for another one.
        forged = {**params, "name": "book_flight"}
        r3 = servers[second].call("tools/call", forged)
        assert r3["error"]["code"] == -32602
        assert r3["error"]["message"] == "Invalid or expired requestState"
    finally:
        for s in servers.values():
            s.close()
