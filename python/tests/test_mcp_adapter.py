"""Declarations on the signature (elicit_mcp.declare) and the adapter for the MCP Python
SDK (elicit_mcp.mcp), driven in-process by the SDK's own client in both eras."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Annotated, Dict, List, Literal, Union

import pytest

import elicit_mcp
from elicit_mcp.declare import ArgumentsError, Elicit, Finished, Pending, Question, tool

mcp_types = pytest.importorskip("mcp_types")
from mcp import Client  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.request_state import RequestStateSecurity  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from elicit_mcp.mcp import Elicitation  # noqa: E402
from booking_fixture import ENTRIES, book_flight_tool  # noqa: E402

KEY = bytes(range(32))
ERAS = ["auto", "legacy"]
CALLS: List[str] = []


def pick_airport(destination: str) -> Union[str, Question]:
    CALLS.append(f"airport({destination})")
    return "LHR" if destination == "London" else Question(f"Which airport in {destination}?")


async def confirm(destination: str, date: str) -> Question:
    CALLS.append("confirm")
    return Question(f"Book a flight to {destination} on {date}?")


def quantity(item: str) -> Question:
    CALLS.append(f"quantity({item})")
    return Question(f"How many {item}?")


def make(server: Any) -> Elicitation:
    elicit = Elicitation(server, keys=elicit_mcp.KeyRing([KEY]))

    book_flight_tool(elicit.tool, pick_airport, confirm)

    @elicit.tool
    def order(item: str, count: Annotated[int, Elicit(resolver=quantity)]) -> str:
        return f"Ordered {count} x {item}"

    @elicit.prompt
    def welcome(name: Annotated[str, Elicit("Enter your name:")]) -> str:
        """A welcome message."""
        return f"Welcome aboard, {name}!"

    @elicit.resource("booking://itinerary", mime_type="text/plain")
    def itinerary(destination: Annotated[str, Elicit("Where would you like to fly?")]) -> str:
        return f"Itinerary: {destination}"

    return elicit


ANSWERS: Dict[str, Any] = {
    "Where would you like to fly?": "Paris",
    "When would you like to fly?": "2026-08-01",
    "Which airport in Paris?": "CDG",
    "Book a flight to Paris on 2026-08-01?": True,
    "Window or aisle?": "window",
    "How many apples?": 3,
    "Enter your name:": "Ada",
}


def answering(asked: List[str]) -> Any:
    async def callback(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"value": ANSWERS[params.message]})

    return callback


def first_text(result: Any) -> str:
    return str(getattr(result.content[0], "text"))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(params=["MCPServer", "Server"])
def server(request: pytest.FixtureRequest) -> Any:
    s: Any = MCPServer("booking") if request.param == "MCPServer" else Server("booking")
    make(s)
    return s


@pytest.mark.parametrize("mode", ERAS)
def test_both_eras_serve_every_declared_kind_of_request(server: Any, mode: str) -> None:
    asked: List[str] = []

    async def go() -> None:
        async with Client(server, mode=mode, elicitation_callback=answering(asked)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["book_flight"].input_schema["properties"] == {}
            assert tools["book_flight"].title == "Book Flight"
            assert tools["book_flight"].description == ENTRIES["book_flight"]["description"]
            assert tools["order"].input_schema["properties"] == {"item": {"type": "string"}}
            assert tools["order"].input_schema["required"] == ["item"]
            r = await c.call_tool("book_flight", {})
            assert not r.is_error and first_text(r) == "Booked Paris (CDG) on 2026-08-01, seat window"
            r = await c.call_tool("order", {"item": "apples"})
            assert first_text(r) == "Ordered 3 x apples"
            p = await c.get_prompt("welcome", {})
            assert getattr(p.messages[0].content, "text") == "Welcome aboard, Ada!"
            res = await c.read_resource("booking://itinerary")
            assert getattr(res.contents[0], "text") == "Itinerary: Paris"

    run(go())
    assert sorted(set(asked)) == sorted(ANSWERS)


def test_modern_rounds_return_sealed_state_and_refuse_a_forged_one(server: Any) -> None:
    async def go() -> None:
        async with Client(server, mode="auto", elicitation_callback=answering([])) as c:
            first = await c.session.call_tool("order", {"item": "apples"}, allow_input_required=True)
            assert isinstance(first, mcp_types.InputRequiredResult)
            assert list(first.input_requests or {}) == ["count"]
            assert first.request_state and first.request_state.startswith("v1.")
            assert "apples" not in first.request_state  # sealed, not plaintext
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(
                    "order", {"item": "apples"}, allow_input_required=True, request_state=first.request_state[:-2] + "AA"
                )
            assert (e.value.code, e.value.message) == (-32602, "Invalid or expired requestState")
            # Bound to the arguments: the same token for other arguments is refused.
            with pytest.raises(MCPError):
                await c.session.call_tool("order", {"item": "pears"}, allow_input_required=True, request_state=first.request_state)
            done = await c.session.call_tool(
                "order",
                {"item": "apples"},
                allow_input_required=True,
                input_responses={"count": mcp_types.ElicitResult(action="accept", content={"value": 2})},
                request_state=first.request_state,
            )
            assert isinstance(done, mcp_types.CallToolResult) and first_text(done) == "Ordered 2 x apples"

    run(go())


@pytest.mark.parametrize("mode", ERAS)
def test_arguments_are_checked_before_any_resolver_runs(server: Any, mode: str) -> None:
    async def go() -> List[Any]:
        async with Client(server, mode=mode, elicitation_callback=answering([])) as c:
            return [await c.call_tool("order", {"item": 4}), await c.call_tool("order", {})]

    CALLS.clear()
    wrong, missing = run(go())
    assert wrong.is_error and first_text(wrong) == "argument 'item' must be a string, got a number"
    assert missing.is_error and first_text(missing) == "Missing required argument 'item'"
    assert CALLS == []


@pytest.mark.parametrize("mode", ERAS)
def test_errors_take_their_jsonrpc_form(server: Any, mode: str) -> None:
    async def decline(context: Any, params: Any) -> Any:
        return mcp_types.ElicitResult(action="decline")

    async def go() -> None:
        async with Client(server, mode=mode) as c:  # no elicitation capability
            with pytest.raises(MCPError) as e:
                await c.call_tool("book_flight", {})
            assert e.value.code == -32021
            assert e.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
        async with Client(server, mode=mode, elicitation_callback=decline) as c:
            r = await c.call_tool("order", {"item": "apples"})
            assert r.is_error and "declined" in first_text(r)
            with pytest.raises(MCPError) as e:
                await c.get_prompt("welcome", {})
            assert e.value.code == -32602 and "declined" in e.value.message

    run(go())


def test_sdk_tools_and_elicit_tools_share_one_server_and_one_key_ring() -> None:
    """An MCPServer's own tool keeps working beside the declared ones, and a token
    sealed by elicit's middleware opens on an SDK server holding the same key."""
    ours = MCPServer("booking")
    make(ours)

    @ours.tool()
    def plain(x: int) -> str:
        return f"plain {x}"

    theirs = MCPServer("booking", request_state_security=RequestStateSecurity(keys=[KEY]))

    @theirs.tool()
    def order(item: str) -> str:  # only its request binding matters here
        return "sdk"

    async def go() -> None:
        async with Client(ours, mode="auto", elicitation_callback=answering([])) as c:
            assert first_text(await c.call_tool("plain", {"x": 4})) == "plain 4"
            first = await c.session.call_tool("order", {"item": "apples"}, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        async with Client(theirs, mode="auto") as c:
            # The SDK's boundary verifies elicit's token (no -32602) and runs its tool.
            r = await c.session.call_tool("order", {"item": "apples"}, allow_input_required=True, request_state=first.request_state)
            assert isinstance(r, mcp_types.CallToolResult) and first_text(r) == "sdk"

    run(go())


def test_declaration_mistakes_fail_at_decoration() -> None:
    with pytest.raises(elicit_mcp.DeclarationError, match="'zz', which is not a parameter"):

        @tool
        def a(x: Annotated[str, Elicit(resolver=lambda zz: zz)]) -> None: ...

    with pytest.raises(elicit_mcp.DeclarationError, match=r"b\(x\): complex cannot be asked"):

        @tool
        def b(x: Annotated[complex, Elicit("?")]) -> None: ...

    with pytest.raises(elicit_mcp.DeclarationError, match="exactly one of"):

        @tool
        def c(x: Annotated[str, Elicit("?", resolver=lambda: 1)]) -> None: ...

    with pytest.raises(elicit_mcp.DeclarationError, match="cycle"):

        @tool
        def d(
            x: Annotated[str, Elicit(resolver=lambda y: y)], y: Annotated[str, Elicit(resolver=lambda x: x)]
        ) -> None: ...

    with pytest.raises(elicit_mcp.DeclarationError, match=r"kind='fax'"):

        @tool
        def e(x: Annotated[str, Elicit(resolver=lambda: 1, kind="fax")]) -> None: ...


def test_run_without_an_sdk_and_the_declaration_it_compiles() -> None:
    @tool
    def kinds(
        topic: str,
        n: int = 2,
        paid: Annotated[bool, Elicit("Pay", url="https://pay.example/1")] = False,
        dirs: Annotated[Any, Elicit(roots={})] = None,
        size: Annotated[List[Literal["s", "m"]], Elicit("Sizes?", title="Sizes")] = ["s"],
    ) -> str:
        return f"{topic} {n} {paid} {dirs} {size}"

    assert kinds.declaration["parameters"] == [
        {"name": "topic"},
        {"name": "n", "default": 2},
        {"name": "paid", "default": False, "elicit": {"message": "Pay", "url": "https://pay.example/1"}},
        {"name": "dirs", "default": None, "elicit": {"roots": {}}},
        {
            "name": "size",
            "type": {"type": "array", "items": {"enum": ["s", "m"]}},
            "default": ["s"],
            "elicit": {"message": "Sizes?", "title": "Sizes"},
        },
    ]
    assert kinds.input_schema == {
        "type": "object",
        "properties": {"topic": {"type": "string"}, "n": {"type": "integer", "default": 2}},
        "required": ["topic"],
    }
    caps: Dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "roots": {}}
    first = asyncio.run(kinds.run({"topic": "t"}, era="modern", capabilities=caps))
    assert isinstance(first, Pending) and sorted(first.input_requests) == ["dirs", "paid", "size"]
    assert first.result()["resultType"] == "input_required"
    with pytest.raises(elicit_mcp.MissingCapabilityError) as e:
        asyncio.run(kinds.run({"topic": "t"}, era="modern"))
    assert e.value.jsonrpc_error["code"] == -32021
    with pytest.raises(ArgumentsError, match="argument 'n' must be an integer, got a string"):
        asyncio.run(kinds.run({"topic": "t", "n": "4"}, era="modern", capabilities=caps))
    replies = {
        "paid": {"action": "accept"},
        "dirs": {"roots": [{"uri": "file:///w"}]},
        "size": {"action": "decline"},
    }
    done = asyncio.run(
        kinds.run({"topic": "t"}, era="modern", capabilities=caps, request_state=first.request_state, input_responses=replies)
    )
    assert done == Finished("t 2 True [{'uri': 'file:///w'}] ['s']")
    assert kinds("x") == "x 2 False None ['s']"  # still the plain function


def test_adapter_refuses_what_is_not_a_server() -> None:
    with pytest.raises(TypeError, match="expected mcp.server.lowlevel.Server or mcp.server.mcpserver.MCPServer"):
        Elicitation(object(), keys=elicit_mcp.KeyRing([os.urandom(32)]))
