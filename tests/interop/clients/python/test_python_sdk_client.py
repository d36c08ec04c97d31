"""book_flight through the MCP Python SDK client (mcp 2.3.0): both eras (`mode="auto"`
settles on 2026-07-28 and answers InputRequiredResult rounds; `mode="legacy"` runs the
initialize handshake and answers `elicitation/create`), over stdio and streamable HTTP.

The order in which the client hands the questions to the user is asserted: on
2026-07-28 the client dispatches a round's `inputRequests` in the order they arrive,
so the first round must read destination, date, seat (declaration order), then
airport, proceed; on the handshake era one question at a time in resolution order.
"""

from __future__ import annotations

import asyncio

import pytest

from conftest import CANCEL, DECLINE, ERAS, PARIS, PARIS_BOOKED, User

TRANSPORTS = ["stdio", "http"]
MODES = ["auto", "legacy"]
both_transports = pytest.mark.parametrize("transport", TRANSPORTS)
both_eras = pytest.mark.parametrize("mode", MODES)

#: The order the user must read the questions in, per era.
ORDER = {
    "auto": [
        "Where would you like to fly?",
        "When would you like to fly?",
        "Window or aisle?",
        "Which airport in Paris?",
        "Book a flight to Paris on 2026-08-01?",
    ],
    "legacy": [
        "Where would you like to fly?",
        "When would you like to fly?",
        "Which airport in Paris?",
        "Book a flight to Paris on 2026-08-01?",
        "Window or aisle?",
    ],
}


def book(connect, transport: str, mode: str, user: User):
    async def go():
        async with connect(transport, mode, user) as client:
            assert client.protocol_version == ERAS[mode]
            return await client.call_tool("book_flight", {})

    return asyncio.run(asyncio.wait_for(go(), 60))


def assert_order(asked: list[str], expected: list[str]) -> None:
    """The same questions first (so a wrong order is reported as such), then their order."""
    assert sorted(asked) == sorted(expected), "the questions asked"
    assert asked == expected, "the order in which the questions reached the user"


def text(result) -> str:
    assert len(result.content) == 1
    return result.content[0].text


@both_transports
@both_eras
def test_questions_reach_the_user_in_declaration_order(connect, transport, mode):
    user = User(PARIS)
    r = book(connect, transport, mode, user)
    assert not r.is_error
    assert text(r) == PARIS_BOOKED
    assert r.structured_content == {"result": PARIS_BOOKED}
    assert_order(user.asked, ORDER[mode])
    if mode == "auto":
        # The inputRequests keys are the parameter names, in the same order.
        assert_order(user.ids, ["destination", "date", "seat", "airport", "proceed"])


@both_transports
@both_eras
def test_london_skips_the_airport_question(connect, transport, mode):
    user = User(
        {
            "Where would you like to fly?": "London",
            "When would you like to fly?": "2026-09-09",
            "Book a flight to London on 2026-09-09?": True,
            "Window or aisle?": "aisle",
        }
    )
    r = book(connect, transport, mode, user)
    assert text(r) == "Booked London (LHR) on 2026-09-09, seat aisle"
    expected = {
        "auto": ["Where", "When", "Window", "Book"],
        "legacy": ["Where", "When", "Book", "Window"],
    }[mode]
    assert_order([q.split()[0] for q in user.asked], expected)


@both_transports
@both_eras
@pytest.mark.parametrize("refusal", [DECLINE, CANCEL], ids=["decline", "cancel"])
def test_refused_seat_takes_its_default(connect, transport, mode, refusal):
    user = User({**PARIS, "Window or aisle?": refusal})
    r = book(connect, transport, mode, user)
    assert not r.is_error
    assert text(r) == "Booked Paris (CDG) on 2026-08-01, seat no preference"
    assert_order(user.asked, ORDER[mode])


@both_transports
@both_eras
@pytest.mark.parametrize("refusal", [DECLINE, CANCEL], ids=["decline", "cancel"])
def test_refused_destination_ends_the_call(connect, transport, mode, refusal):
    user = User({**PARIS, "Where would you like to fly?": refusal})
    r = book(connect, transport, mode, user)
    assert r.is_error
    assert "destination" in text(r)
    # No question depending on the destination is asked: the handshake era stops at
    # the refusal, 2026-07-28 after the first round (asked together).
    expected = {
        "auto": ORDER["auto"][:3],
        "legacy": ORDER["legacy"][:1],
    }[mode]
    assert_order(user.asked, expected)


@both_transports
@both_eras
def test_declining_the_confirmation_cancels_the_booking(connect, transport, mode):
    user = User({**PARIS, "Book a flight to Paris on 2026-08-01?": False})
    r = book(connect, transport, mode, user)
    assert not r.is_error
    assert text(r) == "Cancelled"
