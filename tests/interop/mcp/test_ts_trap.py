"""Trap recovery of servers/ts over a real server process (js/test/mcp.test.mjs checks it
in process): when the engine's WebAssembly instance traps, the calls live in that instance
fail with -32603 "Internal error", the instance is rebuilt (plans and key ring made
again) and the same process serves on, in both eras.

The trap comes from servers/ts's test hook (servers/ts/test_trap.mjs): started with
ELICIT_TS_SERVER_TEST_TRAP=1, the server traps its instance on SIGUSR2 and logs it. A
2025-11-25 call is live in the instance while its question waits for the answer, so the
test traps there; a 2026-07-28 call lives in the instance only while one request is
served (its state is sealed into the client's token between rounds), so there a round
sealed before the trap must complete after it. Run by scripts/test-ts-server.sh
(ELICIT_SERVER_CMD=scripts/dev-ts-server.sh); skipped for the other servers.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time

import mcp_types
import pytest
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp import Client
from mcp.shared.exceptions import MCPError

from conftest import HANDSHAKE, SERVER_CMD, HttpServer, logged, run

pytestmark = pytest.mark.skipif(
    not SERVER_CMD[0].endswith("dev-ts-server.sh"), reason="servers/ts's test hook (ELICIT_TS_SERVER_TEST_TRAP)"
)

TRAPPED = "test hook: trapped the WebAssembly instance"
REBUILT = "trapped: its calls failed; the plans and the key ring are made again on a new instance"
INTERNAL = {"code": -32603, "message": "Internal error"}


def test_the_hook_takes_only_1():
    env = {**os.environ, "ELICIT_TS_SERVER_TEST_TRAP": "yes"}
    p = subprocess.run([*SERVER_CMD, "--stdio"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert 'ELICIT_TS_SERVER_TEST_TRAP="yes": the test hook takes 1' in p.stderr


class StdioServer:
    """The server over stdio, driven with raw JSON lines; its log read by a thread."""

    def __init__(self):
        env = {**os.environ, "ELICIT_TS_SERVER_TEST_TRAP": "1"}
        env.pop("ELICIT_STATE_KEYS", None)
        self.proc = subprocess.Popen(
            [*SERVER_CMD, "--stdio"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.log: list[str] = []
        threading.Thread(target=self._read_log, daemon=True).start()

    def _read_log(self):
        for line in self.proc.stderr:
            self.log.append(line.decode().rstrip("\n"))

    def send(self, msg: dict):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, f"the server ended; its log: {self.log}"
        return json.loads(line)

    def call_order(self, rid: int, item: str, on_question) -> tuple[dict, list[str]]:
        """tools/call order(item): each elicitation/create answered with on_question(message)."""
        self.send({"id": rid, "method": "tools/call", "params": {"name": "order", "arguments": {"item": item}}})
        asked = []
        while True:
            m = self.recv()
            if m.get("method") == "elicitation/create":
                asked.append(m["params"]["message"])
                self.send({"id": m["id"], "result": {"action": "accept", "content": {"value": on_question(m["params"]["message"])}}})
            elif m.get("id") == rid:
                return m, asked

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def trap(server) -> None:
    """SIGUSR2 to the server process (dev-ts-server.sh execs node), then wait for its log line."""
    os.kill(server.proc.pid, signal.SIGUSR2)
    assert logged([server], TRAPPED), server.log


def test_stdio_handshake_call_live_in_a_trapped_instance_fails_and_the_process_serves_on():
    s = StdioServer()
    try:
        s.send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": HANDSHAKE, "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "trap-test", "version": "0"}}})
        assert s.recv()["result"]["protocolVersion"] == HANDSHAKE
        s.send({"method": "notifications/initialized"})

        def trap_then_answer(message):
            trap(s)
            return 2

        reply, asked = s.call_order(2, "tea", trap_then_answer)
        assert asked == ["How many tea?"]
        assert reply["error"] == INTERNAL, reply
        # The same process and connection: the next call is served on a new instance.
        reply, asked = s.call_order(3, "tea", lambda message: 3)
        assert asked == ["How many tea?"]
        assert reply["result"]["content"] == [{"type": "text", "text": "Ordered 3 x tea"}], reply
        assert logged([s], REBUILT), s.log
        assert s.proc.poll() is None
    finally:
        s.close()
    assert s.proc.returncode == 0, s.log


def test_http_both_eras_after_a_trap(monkeypatch):
    monkeypatch.setenv("ELICIT_TS_SERVER_TEST_TRAP", "1")
    with HttpServer() as s:
        state = {"trap": True}

        async def handler(message, response_type, params, context):
            assert message == "How many tea?"
            if state.pop("trap", False):
                os.kill(s.proc.pid, signal.SIGUSR2)
                assert await asyncio.to_thread(logged, [s], TRAPPED), s.log
                return 2
            return 3

        async def unasked(message, response_type, params, context):
            raise AssertionError(f"the rounds are driven by hand, yet {message!r} reached the handler")

        async def five(message, response_type, params, context):
            assert message == "How many water?"
            return 5

        async def go():
            # 2026-07-28: a round sealed before the trap.
            async with Client(StreamableHttpTransport(s.url), mode="auto", elicitation_handler=unasked, timeout=30) as modern:
                first = await modern.session.call_tool("order", {"item": "tea"}, allow_input_required=True)
                assert isinstance(first, mcp_types.InputRequiredResult)
                assert list(first.input_requests) == ["quantity"]
            # 2025-11-25: a call waiting for its answer when the instance traps.
            async with Client(StreamableHttpTransport(s.url), mode="legacy", elicitation_handler=handler, timeout=30) as old:
                with pytest.raises(MCPError) as e:
                    await old.call_tool("order", {"item": "tea"})
                assert (e.value.error.code, e.value.error.message) == (INTERNAL["code"], INTERNAL["message"])
                # The round sealed before the trap opens with the ring made again, and completes.
                async with Client(StreamableHttpTransport(s.url), mode="auto", elicitation_handler=unasked, timeout=30) as modern:
                    done = await modern.session.call_tool(
                        "order", {"item": "tea"}, allow_input_required=True,
                        input_responses={"quantity": mcp_types.ElicitResult(action="accept", content={"value": 4})},
                        request_state=first.request_state,
                    )
                    assert isinstance(done, mcp_types.CallToolResult)
                    assert done.structured_content == {"result": "Ordered 4 x tea"}
                # A new 2026-07-28 call, its rounds answered by the client.
                async with Client(StreamableHttpTransport(s.url), mode="auto", elicitation_handler=five, timeout=30) as modern:
                    fresh = await modern.call_tool("order", {"item": "water"})
                    assert fresh.structured_content == {"result": "Ordered 5 x water"}
                # The session that lost its call serves a new one to completion.
                again = await old.call_tool("order", {"item": "tea"})
                assert again.structured_content == {"result": "Ordered 3 x tea"}

        run(go())
        assert state == {}, "the hook trapped once"
        assert logged([s], REBUILT), s.log
        assert s.proc.poll() is None
