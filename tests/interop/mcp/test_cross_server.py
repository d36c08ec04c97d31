"""Rounds of one call alternating between booking-server and elicit-rmcp-server (two
implementations, one key ring): each serves the other's sealed requestState.

Needs both binaries: $ELICIT_BOOKING_SERVER_BIN (booking-server) and $ELICIT_RMCP_SERVER_BIN
(elicit-rmcp-server); scripts/test-mcp.sh sets both. Skipped only when the rmcp server
is not named at all (a run of the suite against a single server).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import conftest
from conftest import KEY_A, KEY_B, MODERN, PARIS, PARIS_BOOKED, HttpServer, Script, run
from test_booking_server import alternating_client

REPO = Path(__file__).resolve().parents[3]
RMCP_BIN = os.environ.get("ELICIT_RMCP_SERVER_BIN")
# Not $BOOKING_SERVER_BIN: scripts/test-mcp.sh points that at the server under test, which
# is elicit-rmcp-server in the pass that runs this file.
BOOKING_BIN = os.environ.get(
    "ELICIT_BOOKING_SERVER_BIN", str(REPO / "target" / "server" / "release" / "booking-server")
)

pytestmark = pytest.mark.skipif(
    not RMCP_BIN, reason="ELICIT_RMCP_SERVER_BIN not set (scripts/test-mcp.sh sets it)"
)


class BinServer(HttpServer):
    """HttpServer for a given binary (conftest's starts $BOOKING_SERVER_BIN)."""

    def __init__(self, binary: str, keys: str):
        saved = conftest.SERVER_BIN
        conftest.SERVER_BIN = binary
        try:
            super().__init__(keys=keys)
        finally:
            conftest.SERVER_BIN = saved


def both(keys_a: str, keys_b: str):
    for b in (BOOKING_BIN, RMCP_BIN):
        if not b or not os.access(b, os.X_OK):
            pytest.fail(f"server binary {b!r} missing; run scripts/test-mcp.sh")
    if os.path.basename(BOOKING_BIN) == os.path.basename(RMCP_BIN):
        pytest.fail(f"both servers are {RMCP_BIN!r}: set $ELICIT_BOOKING_SERVER_BIN to booking-server")
    return BinServer(BOOKING_BIN, keys_a), BinServer(RMCP_BIN, keys_b)


def test_rounds_alternate_between_booking_server_and_rmcp_server():
    a, b = both(f"{KEY_A},{KEY_B}", f"{KEY_B},{KEY_A}")
    with a, b:
        answers = {**PARIS, "How many apples?": 2, "Enter your name:": "Ada"}
        for first, second in ((a, b), (b, a)):
            client, alt = alternating_client([first, second], Script(answers))

            async def go():
                results = []
                async with client:
                    assert client.protocol_version == MODERN
                    for _ in range(2):
                        results.append((await client.call_tool("book_flight", {})).data)
                    results.append((await client.call_tool("order", {"item": "apples"})).data)
                    results.append((await client.call_tool("greet", {})).data)
                return results

            assert run(go()) == [PARIS_BOOKED] * 2 + ["Ordered 2 x apples", "Hello, Ada"]
            assert alt.hits[first.port] >= 5 and alt.hits[second.port] >= 5
        assert not any("rejected" in line for line in a.log + b.log)


def test_other_keys_are_refused_across_implementations():
    a, b = both(KEY_A, KEY_B)
    with a, b:
        client, _ = alternating_client([a, b], Script(PARIS))

        async def go():
            async with client:
                await client.call_tool("book_flight", {})

        from mcp.shared.exceptions import MCPError

        with pytest.raises(MCPError) as e:
            run(go())
        assert e.value.error.code == -32602
        assert e.value.error.message == "Invalid or expired requestState"
