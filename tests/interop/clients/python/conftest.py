"""The MCP Python SDK client (mcp 2.3.0, `mcp.Client`) against a booking server.

scripts/test-mcp-clients.sh starts the server under test and sets:

- ELICIT_INTEROP_CMD: the server's command (a JSON array); stdio tests start
  `CMD --stdio` themselves, one process per client, as a host application does;
- ELICIT_INTEROP_URL: the streamable HTTP endpoint of one `CMD --http 127.0.0.1:0`
  process the runner started.
"""

from __future__ import annotations

import json
import os

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters


class User:
    """An elicitation callback that answers by question text ("@decline" and "@cancel"
    refuse; a question not in `answers` is declined) and records, in the order the client
    hands them over, the questions and the request ids (on 2026-07-28 the inputRequests
    keys)."""

    def __init__(self, answers: dict):
        self.answers = dict(answers)
        self.asked: list[str] = []
        self.ids: list[str] = []

    async def __call__(self, context, params: types.ElicitRequestParams):
        self.asked.append(params.message)
        self.ids.append(str(context.request_id))
        answer = self.answers.get(params.message, "@decline")
        if answer in ("@decline", "@cancel"):
            return types.ElicitResult(action=answer[1:])
        return types.ElicitResult(action="accept", content={"value": answer})


@pytest.fixture(scope="session")
def server_cmd() -> list[str]:
    cmd = json.loads(os.environ.get("ELICIT_INTEROP_CMD") or "[]")
    if not cmd:
        pytest.fail("ELICIT_INTEROP_CMD is not set; run scripts/test-mcp-clients.sh")
    return cmd


@pytest.fixture(scope="session")
def http_url() -> str:
    url = os.environ.get("ELICIT_INTEROP_URL", "")
    if not url.startswith("http://127.0.0.1:"):
        pytest.fail("ELICIT_INTEROP_URL is not a loopback URL; run scripts/test-mcp-clients.sh")
    return url


@pytest.fixture
def connect(request, server_cmd):
    """connect(transport, mode, user) -> mcp.Client over "stdio" or "http"."""

    def make(transport: str, mode: str, user: User) -> Client:
        if transport == "stdio":
            server = StdioServerParameters(
                command=server_cmd[0], args=[*server_cmd[1:], "--stdio"], env=dict(os.environ)
            )
        else:
            server = request.getfixturevalue("http_url")
        return Client(server, mode=mode, elicitation_callback=user, read_timeout_seconds=30)

    return make
