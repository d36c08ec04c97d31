"""The mixed fleet: rounds of one call alternating between the Python server on elicit's
adapter (scripts/dev-python-server.sh), the TypeScript server on elicit-mcp's McpServer
adapter (scripts/dev-ts-server.sh), the Rust server (elicit-rmcp-server) and the Python
reference server (FastMCP 4.1.6 + the seed), one key ring (each seals with its own first
key and opens every key): a token sealed by any is opened by the others.

Every round is checked against the next server: the same `inputRequests`, the same
claims and byte-identical plaintext engine state (see test_reference_server.drive). Run
by scripts/test-python-server.sh; the Python server's command is $ELICIT_PYTHON_SERVER_CMD
(default scripts/dev-python-server.sh), the TypeScript server's $ELICIT_TS_SERVER_CMD
(default scripts/dev-ts-server.sh), the reference's interpreter $ELICIT_REFERENCE_PYTHON
(required: scripts/dev-oracle-env.sh makes it).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from conftest import KEY_A, KEY_B, MODERN, PARIS_BOOKED, HttpServer, Script, run
from test_booking_server import alternating_client
from test_reference_server import ANSWERS, CALLS, REF_PY, drive, reference, rust, text

HERE = Path(__file__).resolve().parent
PYTHON_SERVER = shlex.split(os.environ.get("ELICIT_PYTHON_SERVER_CMD", "")) or [
    str(HERE.parents[2] / "scripts" / "dev-python-server.sh")
]
TS_SERVER = shlex.split(os.environ.get("ELICIT_TS_SERVER_CMD", "")) or [
    str(HERE.parents[2] / "scripts" / "dev-ts-server.sh")
]

pytestmark = pytest.mark.skipif(
    not REF_PY,
    reason="ELICIT_REFERENCE_PYTHON not set (scripts/test-python-server.sh sets it from scripts/dev-oracle-env.sh)",
)


@pytest.fixture(scope="module")
def fleet():
    with HttpServer(keys=f"{KEY_A},{KEY_B}", command=PYTHON_SERVER) as py, HttpServer(
        keys=f"{KEY_B},{KEY_A}", command=TS_SERVER
    ) as ts, rust("elicit-rmcp-server", f"{KEY_B},{KEY_A}") as rs, reference(f"{KEY_A},{KEY_B}") as ref:
        yield py, ts, rs, ref


@pytest.mark.parametrize("tool,args,want,rounds", CALLS, ids=[c[0] for c in CALLS])
def test_rounds_alternate_across_the_fleet_on_the_wire(fleet, tool, args, want, rounds):
    py, ts, rs, ref = fleet
    # Every server seals a round that each of the others opens (and checks it against the
    # next one): the TypeScript server first, second and last among the rest.
    orders = ([py, rs, ref], [rs, py, ref], [ref, py, rs], [py, ref, rs])
    orders += ([ts, py, rs, ref], [py, ts, ref, rs], [rs, ref, ts, py], [ref, rs, py, ts], [ts, rs], [ref, ts])
    for servers in orders:
        result, asked = drive(servers, tool, args, ANSWERS)
        assert text(result) == want
        assert [sorted(r) for r in asked] == [sorted(r) for r in rounds]
    assert not any("rejected" in line for s in fleet for line in s.log)


def test_fastmcp_client_alternating_across_the_fleet(fleet):
    for servers in (list(fleet), list(reversed(fleet))):
        client, alt = alternating_client(servers, Script(ANSWERS))

        async def go():
            async with client:
                assert client.protocol_version == MODERN
                return [
                    (await client.call_tool("book_flight", {})).data,
                    (await client.call_tool("order", {"item": "apples"})).data,
                    (await client.call_tool("greet", {})).data,
                ]

        assert run(go()) == [PARIS_BOOKED, "Ordered 2 x apples", "Hello, Ada"]
        assert all(alt.hits[s.port] >= 2 for s in servers)
