"""Shared helpers for the interop tests of servers/rmcp (elicit-rmcp-server)
against the real FastMCP 4.1.6 client (run by scripts/test-mcp.sh).

The server binary comes from $ELICIT_RMCP_SERVER_BIN (scripts/test-mcp.sh builds it);
HTTP servers are started on 127.0.0.1 with port 0 and report their port on stderr.
$ELICIT_SERVER_CMD (a shell-quoted command, e.g. scripts/dev-python-server.sh) puts
another server taking the same flags under test instead (scripts/test-python-server.sh);
the tests of what only the Rust server has are skipped then (`rust_only`).
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import threading
import time
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

REPO = Path(__file__).resolve().parents[3]
SERVER_BIN = os.environ.get(
    "ELICIT_RMCP_SERVER_BIN", str(REPO / "target" / "release" / "elicit-rmcp-server")
)
#: The server under test: $ELICIT_SERVER_CMD, else the Rust server.
SERVER_CMD = shlex.split(os.environ.get("ELICIT_SERVER_CMD", "")) or [SERVER_BIN]
IS_RUST = SERVER_CMD == [SERVER_BIN]
#: A test of what only elicit-rmcp-server has (its transports' wire details, its flags).
rust_only = pytest.mark.skipif(
    not IS_RUST,
    reason="elicit-rmcp-server only: its own transport's wire details and flags (the Python server's transport is the SDK's)",
)
MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"

# Two fixed test keys (hex, 32 bytes each) for processes that must share a ring.
KEY_A = "a1" * 32
KEY_B = "b2" * 32

DECLINE = object()
CANCEL = object()

# The scripted answers for book_flight, keyed by the exact question text.
PARIS = {
    "Where would you like to fly?": "Paris",
    "When would you like to fly?": "2026-08-01",
    "Which airport in Paris?": "CDG",
    "Book a flight to Paris on 2026-08-01?": True,
    "Window or aisle?": "window",
}
PARIS_BOOKED = "Booked Paris (CDG) on 2026-08-01, seat window"


def run(coro):
    return asyncio.run(coro)


class Script:
    """An elicitation handler that answers by question text and records what it saw.

    `rounds` groups the questions by round: the client fulfils every question of one
    InputRequiredResult concurrently, so each handler waits `delay` seconds, and a
    question arriving while none is in flight starts a new round. On the handshake era
    every question is its own round (one `elicitation/create` at a time).
    """

    def __init__(self, answers: dict, delay: float = 0.02):
        self.answers = dict(answers)
        self.delay = delay
        self.rounds: list[list[str]] = []
        self.keys: list[str] = []
        self.schemas: dict[str, dict] = {}
        self._in_flight = 0

    @property
    def asked(self) -> list[str]:
        return [m for r in self.rounds for m in r]

    async def __call__(self, message, response_type, params, context):
        if self._in_flight == 0:
            self.rounds.append([])
        self._in_flight += 1
        self.rounds[-1].append(message)
        self.keys.append(str(context.request_id))
        self.schemas[message] = params.requested_schema
        try:
            await asyncio.sleep(self.delay)
            if message not in self.answers:
                raise AssertionError(f"unexpected question {message!r}")
            answer = self.answers[message]
            if answer is DECLINE:
                return ElicitResult(action="decline")
            if answer is CANCEL:
                return ElicitResult(action="cancel")
            return answer
        finally:
            self._in_flight -= 1


class HttpServer:
    """An elicit-rmcp-server process serving streamable HTTP on 127.0.0.1 (free port).

    `command` starts another server taking the same `--http ADDR` option and printing the
    same "streamable HTTP on URL" line (default: [$ELICIT_RMCP_SERVER_BIN])."""

    def __init__(self, *args: str, keys: str | None = None, command: list[str] | None = None):
        env = dict(os.environ)
        env.pop("ELICIT_STATE_KEYS", None)
        if keys is not None:
            env["ELICIT_STATE_KEYS"] = keys
        # A server refuses HTTP without a ring unless told it serves alone.
        alone = ["--alone"] if keys is None and command is None else []
        self.proc = subprocess.Popen(
            [*(command or SERVER_CMD), "--http", "127.0.0.1:0", *alone, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.log: list[str] = []
        self.url = None
        deadline = time.monotonic() + 60
        while self.url is None:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError(f"server exited early: {self.log}")
            self.log.append(line.rstrip("\n"))
            m = re.search(r"streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)", line)
            if m:
                self.url = m.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {self.log}")
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])
        self._drain = threading.Thread(target=self._read_log, daemon=True)
        self._drain.start()

    def _read_log(self):
        for line in self.proc.stderr:
            self.log.append(line.rstrip("\n"))

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def stdio_transport(*args: str, keys: str | None = None) -> StdioTransport:
    env = dict(os.environ)
    env.pop("ELICIT_STATE_KEYS", None)
    if keys is not None:
        env["ELICIT_STATE_KEYS"] = keys
    return StdioTransport(SERVER_CMD[0], [*SERVER_CMD[1:], "--stdio", *args], env=env, keep_alive=False)


@pytest.fixture(scope="session")
def server_bin():
    if not IS_RUST:
        return SERVER_CMD[0]
    if not os.access(SERVER_BIN, os.X_OK):
        pytest.fail(f"elicit-rmcp-server binary not found at {SERVER_BIN}; run scripts/test-mcp.sh")
    return SERVER_BIN


@pytest.fixture(scope="session")
def http_server(server_bin):
    with HttpServer() as s:
        yield s


@pytest.fixture
def connect(request, server_bin):
    """connect(transport, mode, handler=None, *server_args) -> fastmcp.Client.

    `transport` is "stdio" (a fresh process per client) or "http" (the shared HTTP
    server unless `*server_args` ask for a dedicated one)."""
    owned: list[HttpServer] = []

    def make(transport: str, mode: str, handler=None, *server_args: str, keys=None) -> Client:
        if transport == "stdio":
            t = stdio_transport(*server_args, keys=keys)
        elif server_args or keys is not None:
            s = HttpServer(*server_args, keys=keys)
            owned.append(s)
            t = StreamableHttpTransport(s.url)
        else:
            t = StreamableHttpTransport(request.getfixturevalue("http_server").url)
        return Client(t, elicitation_handler=handler, mode=mode, timeout=30)

    yield make
    for s in owned:
        s.close()


def logged(servers, text, timeout=10.0):
    """Whether any of the servers logged a line containing `text`, waiting up to
    `timeout` seconds: the log is drained by a thread, so a line written as the response
    went out may not be read yet when the client has the response."""
    deadline = time.monotonic() + timeout
    while True:
        if any(text in line for s in servers for line in s.log):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
