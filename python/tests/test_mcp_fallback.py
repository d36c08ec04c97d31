"""The declared fallback (docs/fallback.md) through the adapter for the MCP Python SDK,
driven in-process by the SDK's own client in both eras: ``@elicit.tool(fallback=
"arguments")`` lists a client that declares no elicitation the elicited parameters as
optional arguments, takes its arguments as the answers and tells the model, in an
``isError`` result, what to ask the user; ``Elicit(..., fallback=False)`` keeps -32021;
a form client sees no change."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Dict, List, Tuple, Union

import pytest

import elicit_mcp
from elicit_mcp.declare import Elicit, FallbackResult, Question, tool

mcp_types = pytest.importorskip("mcp_types")
from mcp import Client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from elicit_mcp.mcp import Elicitation  # noqa: E402
from booking_fixture import Q, REPO, book_flight_tool  # noqa: E402

ERAS = ["auto", "legacy"]
ASK_USER = "elicit/askUser"
#: book_flight's fallback calls and what each tells the model to ask (shared with
#: tests/interop/clients/python/test_fallback.py).
FALLBACK = json.loads((REPO / "tests" / "fixture" / "fallback_asked.json").read_text(encoding="utf-8"))
CALLS = [(c["arguments"], [tuple(q) for q in c["asked"]]) for c in FALLBACK["book_flight"]]


def pick_airport(destination: str) -> Union[str, Question]:
    return "LHR" if destination == "London" else Question(f"Which airport in {destination}?")


def confirm(destination: str, date: str) -> Question:
    return Question(f"Book a flight to {destination} on {date}?")


def server(fallback: Any = "arguments") -> MCPServer:
    s = MCPServer("booking")
    elicit = Elicitation(s, keys=elicit_mcp.KeyRing([bytes(range(32))]))
    book_flight_tool(lambda **kw: elicit.tool(fallback=fallback, **kw), pick_airport, confirm)

    @elicit.tool(fallback=fallback)
    def pay(
        amount: Annotated[int, Elicit("How much?")],
        pin: Annotated[str, Elicit("Your PIN?", fallback=False)],
    ) -> str:
        return f"Paid {amount}"

    @elicit.prompt
    def welcome(name: Annotated[str, Elicit(Q["name"])]) -> str:
        return f"Welcome aboard, {name}!"

    return s


def asked(result: Any) -> List[Tuple[str, str, bool]]:
    """The fallback result's questions: (name, question, required), in order."""
    assert result.is_error and result.structured_content is None
    return [(q["name"], q["question"], q["required"]) for q in (result.meta or {})[ASK_USER]]


def text(result: Any) -> str:
    return str(getattr(result.content[0], "text"))


def schemas(listing: Any) -> Dict[str, Dict[str, Any]]:
    return {t.name: t.input_schema for t in listing.tools}


async def accept(context: Any, params: Any) -> Any:
    return mcp_types.ElicitResult(action="accept", content={"value": "Paris"})


@pytest.mark.parametrize("mode", ERAS)
def test_the_listing_shows_the_parameters_as_optional_arguments(mode: str) -> None:
    async def go() -> Tuple[Any, Any, Any]:
        async with Client(server(), mode=mode) as c:  # no elicitation capability
            fallback = await c.list_tools()
        async with Client(server(), mode=mode, elicitation_callback=accept) as c:
            form = await c.list_tools()
        async with Client(server(None), mode=mode) as c:
            plain = await c.list_tools()
        return fallback, form, plain

    fallback, form, plain = asyncio.run(go())
    book = schemas(fallback)["book_flight"]
    assert list(book["properties"]) == ["destination", "date", "airport", "proceed", "seat"]
    assert book["required"] == []
    assert book["properties"]["airport"]["description"] == "A question for the user that depends on destination."
    assert book["properties"]["seat"]["enum"] == ["window", "aisle"]
    # An opted-out parameter is never an argument.
    assert list(schemas(fallback)["pay"]["properties"]) == ["amount"]
    # A form client, and any client without the option, is listed what it was before.
    assert schemas(form) == schemas(plain)
    assert schemas(form)["book_flight"]["properties"] == {}


def test_the_listing_is_private_on_2026_07_28() -> None:
    async def go() -> Any:
        async with Client(server(), mode="auto") as c:
            return await c.session.send_request(
                mcp_types.ListToolsRequest(params=mcp_types.PaginatedRequestParams()), mcp_types.ListToolsResult
            )

    listing = asyncio.run(go())
    # Sent, not the model's default.
    assert "cache_scope" in listing.model_fields_set and listing.cache_scope == "private"


@pytest.mark.parametrize("mode", ERAS)
def test_a_client_that_cannot_be_asked_books_through_the_model(mode: str) -> None:
    async def go() -> List[Any]:
        async with Client(server(), mode=mode) as c:
            return [
                *[await c.call_tool("book_flight", args) for args, _ in CALLS],
                await c.call_tool(
                    "book_flight",
                    {"destination": "Paris", "date": "2026-08-01", "airport": "CDG", "proceed": True, "seat": "window"},
                ),
                await c.call_tool(
                    "book_flight", {"destination": "London", "date": "2026-08-01", "airport": "ORY", "proceed": True}
                ),
            ]

    first, second, third, london = asyncio.run(go())
    assert [asked(first), asked(second)] == [want for _, want in CALLS]
    assert "call book_flight again" in text(first)
    assert not third.is_error and text(third) == "Booked Paris (CDG) on 2026-08-01, seat window"
    # London's airport is the resolver's, whatever the argument says.
    assert text(london) == "Booked London (LHR) on 2026-08-01, seat no preference"


@pytest.mark.parametrize("mode", ERAS)
def test_a_wrong_argument_is_the_answers_error_naming_the_parameter(mode: str) -> None:
    async def go() -> List[Any]:
        async with Client(server(), mode=mode) as c:
            return [
                await c.call_tool("book_flight", {"destination": 5}),
                await c.call_tool("book_flight", {"destination": "Paris", "date": "x", "seat": "middle"}),
            ]

    wrong_type, out_of_enum = asyncio.run(go())
    assert wrong_type.is_error
    assert text(wrong_type) == "The answer for 'destination' does not match the requested schema: expected a string"
    assert out_of_enum.is_error
    assert text(out_of_enum) == "The answer for 'seat' does not match the requested schema: expected one of 'window', 'aisle'"


@pytest.mark.parametrize("mode", ERAS)
def test_an_opted_out_parameter_and_a_tool_without_the_option_keep_32021(mode: str) -> None:
    async def go() -> List[MCPError]:
        errors = []
        async with Client(server(), mode=mode) as c:
            for arguments in ({}, {"amount": 5}):
                with pytest.raises(MCPError) as e:
                    await c.call_tool("pay", arguments)
                errors.append(e.value)
            # A prompt without the option, on the same server.
            with pytest.raises(MCPError) as e:
                await c.get_prompt("welcome", {})
            errors.append(e.value)
        async with Client(server(None), mode=mode) as c:
            with pytest.raises(MCPError) as e:
                await c.call_tool("book_flight", {})
            errors.append(e.value)
        return errors

    for error in asyncio.run(go()):
        assert error.code == -32021
        assert error.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}


@pytest.mark.parametrize("mode", ERAS)
def test_a_form_client_is_asked_as_before(mode: str) -> None:
    async def go() -> Any:
        async with Client(server(), mode=mode, elicitation_callback=answer) as c:
            return await c.call_tool("book_flight", {})

    answers = {
        "Where would you like to fly?": "Paris",
        "When would you like to fly?": "2026-08-01",
        "Which airport in Paris?": "CDG",
        "Book a flight to Paris on 2026-08-01?": True,
        "Window or aisle?": "window",
    }

    async def answer(context: Any, params: Any) -> Any:
        return mcp_types.ElicitResult(action="accept", content={"value": answers[params.message]})

    result = asyncio.run(go())
    assert not result.is_error and text(result) == "Booked Paris (CDG) on 2026-08-01, seat window"


def test_the_declaration_carries_the_options() -> None:
    @tool(fallback="arguments")
    def pay(
        amount: Annotated[int, Elicit("How much?")],
        pin: Annotated[str, Elicit("Your PIN?", fallback=False)],
    ) -> str:
        return f"Paid {amount}"

    assert pay.declaration["fallback"] == "arguments"
    assert pay.declaration["parameters"][1]["elicit"] == {"message": "Your PIN?", "title": "Pin", "fallback": False}
    schema, private = pay.listed_schema({})
    assert private and list(schema["properties"]) == ["amount"]
    assert pay.listed_schema({"elicitation": {}}) == (pay.input_schema, True)
    # pin may not fall back and must be asked now: -32021, not a result for the model.
    with pytest.raises(elicit_mcp.MissingCapabilityError):
        asyncio.run(pay.run({"amount": 5}, era="modern", capabilities={}))

    @tool(fallback="arguments")
    def tip(amount: Annotated[int, Elicit("How much?")]) -> str:
        return f"Tipped {amount}"

    for era in ("modern", "handshake"):
        ask = None if era == "modern" else lambda method, request: asyncio.sleep(0)
        told = asyncio.run(tip.run({}, era=era, capabilities={}, ask=ask))
        assert isinstance(told, FallbackResult)
        assert [q["name"] for q in told.result["_meta"][ASK_USER]] == ["amount"]
        done = asyncio.run(tip.run({"amount": 2}, era=era, capabilities={}, ask=ask))
        assert done.value == "Tipped 2"  # type: ignore[union-attr]


def test_a_fallback_other_than_arguments_is_refused() -> None:
    with pytest.raises(elicit_mcp.DeclarationError, match="fallback"):

        @tool(fallback="model")
        def f(x: Annotated[str, Elicit("?")]) -> None: ...


@pytest.mark.parametrize("mode", ERAS)
def test_a_prompt_declaring_the_fallback_is_32602(mode: str) -> None:
    s = MCPServer("booking")
    elicit = Elicitation(s, keys=elicit_mcp.KeyRing([bytes(range(32))]))

    @elicit.prompt
    @tool(fallback="arguments")
    def welcome(name: Annotated[str, Elicit("Enter your name:")]) -> str:
        return f"Welcome aboard, {name}!"

    async def go() -> MCPError:
        async with Client(s, mode=mode) as c:
            with pytest.raises(MCPError) as e:
                await c.get_prompt("welcome", {})
            return e.value

    error = asyncio.run(go())
    assert error.code == -32602
    assert error.message == (
        "The client cannot be asked for what this request needs, and the declared fallback serves tools/call only"
    )
