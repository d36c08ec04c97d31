"""book_flight through the MCP Python SDK client (mcp 2.3.0): both eras (`mode="auto"`
settles on 2026-07-28 and answers InputRequiredResult rounds; `mode="legacy"` runs the
initialize handshake and answers `elicitation/create`), over stdio and streamable HTTP,
every scenario of ../book_flight.json: the order in which the client hands the questions
to the user (it dispatches a round's inputRequests in the order they arrive), the
answers, decline and cancel.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conftest import User

SCENARIOS = json.loads((Path(__file__).parent.parent / "book_flight.json").read_text())["scenarios"]
#: Client mode -> the protocol version it must settle on with the booking server.
ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def assert_order(asked: list[str], expected: list[str]) -> None:
    """The same questions first (so a wrong order is reported as such), then their order."""
    assert sorted(asked) == sorted(expected), "the questions asked"
    assert asked == expected, "the order in which the questions reached the user"


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", list(ERAS))
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_book_flight(connect, transport, mode, scenario):
    version = ERAS[mode]
    user = User(scenario["answers"])

    async def go():
        async with connect(transport, mode, user) as client:
            assert client.protocol_version == version
            return await client.call_tool("book_flight", {})

    r = asyncio.run(asyncio.wait_for(go(), 60))
    assert len(r.content) == 1
    if "result" in scenario:
        assert not r.is_error, r.content[0].text
        assert r.content[0].text == scenario["result"]
        assert r.structured_content == {"result": scenario["result"]}
    else:
        assert r.is_error
        assert scenario["error_mentions"] in r.content[0].text
    assert_order(user.asked, scenario["asked"][version])
    if version in scenario.get("keys", {}):
        assert_order(user.ids, scenario["keys"][version])
