"""The declared fallback (docs/fallback.md) end to end: the MCP Python SDK client (mcp
2.3.0) declaring no elicitation, against a booking server started with `--fallback
arguments`, both eras (`mode="auto"`: 2026-07-28; `mode="legacy"`: 2025-11-25), over
stdio and streamable HTTP. One driver for every server scripts/test-mcp-clients.sh runs
(elicit-rmcp-server, the Python, TypeScript and C example servers).

- the listing shows destination, date, airport, proceed and seat as optional arguments
  (`cacheScope: "private"` on 2026-07-28);
- `book_flight {}` asks, through an `isError` result, what can be asked now (destination,
  date; seat optional), not airport or proceed; Paris and a date ask "Which airport in
  Paris?" and the confirmation; the third call completes with the text a form client's
  booking gets; London's airport is LHR whatever argument is given;
- a wrong-typed and an out-of-enum argument get the answer's error naming the parameter;
- the same client of the server without the flag gets -32021;
- a form client of the flagged server is listed and booked as before.

The flagged processes are started here (`CMD --stdio --fallback arguments`, and one
`CMD --http 127.0.0.1:0 --fallback arguments` for the module); the runner's own HTTP
server is the one without the flag. Against a stdio-only server (the C server,
ELICIT_INTEROP_STDIO_ONLY=1) the runner deselects the HTTP cases with `-k stdio`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import User

FLAG = ["--fallback", "arguments"]
ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}
ASK_USER = "elicit/askUser"
PARIS = {"destination": "Paris", "date": "2026-08-01"}
#: book_flight's fallback calls ({} and PARIS) and what each tells the model to ask
#: (tests/fixture/fallback_asked.json, shared with python/tests/test_mcp_fallback.py).
FALLBACK = json.loads(
    (Path(__file__).resolve().parents[3] / "fixture" / "fallback_asked.json").read_text(encoding="utf-8")
)
CALLS = [(c["arguments"], [tuple(q) for q in c["asked"]]) for c in FALLBACK["book_flight"]]
ANSWERS = {
    "Where would you like to fly?": "Paris",
    "When would you like to fly?": "2026-08-01",
    "Which airport in Paris?": "CDG",
    "Book a flight to Paris on 2026-08-01?": True,
    "Window or aisle?": "window",
}


@pytest.fixture(scope="module")
def fallback_url(server_cmd):
    """One `CMD --http 127.0.0.1:0 --fallback arguments` for the module (the runner's
    ELICIT_STATE_KEYS ring; --alone without one)."""
    alone = [] if os.environ.get("ELICIT_STATE_KEYS") else ["--alone"]
    proc = subprocess.Popen(
        [*server_cmd, "--http", "127.0.0.1:0", *alone, *FLAG],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = None
    for line in proc.stderr:
        m = re.search(r"streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        pytest.fail(f"{server_cmd} --http ... --fallback arguments did not start (exit {proc.wait()})")
    # Keep draining its log so the server never blocks on it.
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    yield url
    proc.kill()
    proc.wait()


@pytest.fixture
def client(request, server_cmd):
    """client(transport, mode, flagged, user=None) -> mcp.Client; no user: no elicitation."""

    def make(transport: str, mode: str, flagged: bool, user: User | None = None) -> Client:
        if transport == "stdio":
            server = StdioServerParameters(
                command=server_cmd[0],
                args=[*server_cmd[1:], "--stdio", *(FLAG if flagged else [])],
                env=dict(os.environ),
            )
        else:
            server = request.getfixturevalue("fallback_url" if flagged else "http_url")
        return Client(server, mode=mode, elicitation_callback=user, read_timeout_seconds=30)

    return make


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 90))


def asked(result) -> list[tuple[str, str, bool]]:
    """The fallback result's questions: (name, question, required), in order."""
    assert result.is_error, result.content
    assert result.structured_content is None
    return [(q["name"], q["question"], q["required"]) for q in (result.meta or {})[ASK_USER]]


def text(result) -> str:
    return result.content[0].text


def book_flight_schema(listing) -> dict:
    return next(t for t in listing.tools if t.name == "book_flight").input_schema


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", list(ERAS))
def test_a_client_that_cannot_be_asked_books_through_the_model(client, transport, mode):
    async def go():
        async with client(transport, mode, flagged=True) as c:
            assert c.protocol_version == ERAS[mode]
            listing = await c.list_tools()
            calls = [
                *[await c.call_tool("book_flight", args) for args, _ in CALLS],
                await c.call_tool("book_flight", {**PARIS, "airport": "CDG", "proceed": True, "seat": "window"}),
                await c.call_tool("book_flight", {"destination": "London", "date": "2026-08-01", "airport": "ORY", "proceed": True}),
                await c.call_tool("book_flight", {"destination": 5}),
                await c.call_tool("book_flight", {"destination": "Paris", "date": "x", "seat": "middle"}),
            ]
        # The text a form client's booking gets, from the same server.
        async with client(transport, mode, flagged=True, user=User(ANSWERS)) as c:
            form = await c.call_tool("book_flight", {})
        return listing, calls, form

    listing, (first, second, third, london, wrong_type, out_of_enum), form = run(go())
    schema = book_flight_schema(listing)
    assert list(schema["properties"]) == ["destination", "date", "airport", "proceed", "seat"]
    assert not schema.get("required")
    assert schema["properties"]["airport"]["description"] == "A question for the user that depends on destination."
    assert schema["properties"]["seat"]["enum"] == ["window", "aisle"]
    # Sent on 2026-07-28 (not the SDK model's default); a 2025-11-25 result has no cache fields.
    sent = "cache_scope" in listing.model_fields_set
    assert (sent and listing.cache_scope == "private") if mode == "auto" else not sent

    assert [asked(first), asked(second)] == [want for _, want in CALLS]
    assert "call book_flight again" in text(first)
    assert not form.is_error and text(form) == "Booked Paris (CDG) on 2026-08-01, seat window"
    assert not third.is_error and text(third) == text(form)
    assert third.structured_content == form.structured_content
    assert not london.is_error and text(london) == "Booked London (LHR) on 2026-08-01, seat no preference"
    # The answer's error, naming the parameter (each server words it as its answers' error).
    for result, name in ((wrong_type, "destination"), (out_of_enum, "seat")):
        assert result.is_error and f"answer for '{name}'" in text(result).lower(), text(result)
        assert not (result.meta or {}).get(ASK_USER)


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", list(ERAS))
def test_without_the_flag_the_same_client_gets_32021(client, transport, mode):
    async def go():
        async with client(transport, mode, flagged=False) as c:
            listing = await c.list_tools()
            with pytest.raises(MCPError) as e:
                await c.call_tool("book_flight", {})
            return listing, e.value

    listing, error = run(go())
    assert book_flight_schema(listing)["properties"] == {}
    assert error.code == -32021
    assert error.data["requiredCapabilities"] == {"elicitation": {"form": {}}}


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", list(ERAS))
def test_a_form_client_sees_no_change(client, transport, mode):
    async def listing(flagged: bool):
        async with client(transport, mode, flagged, user=User(ANSWERS)) as c:
            return (await c.list_tools()).tools

    flagged, plain = run(listing(True)), run(listing(False))
    assert [t.model_dump() for t in flagged] == [t.model_dump() for t in plain]
