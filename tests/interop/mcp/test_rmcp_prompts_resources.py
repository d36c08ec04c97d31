"""elicit-rmcp's prompts/get and resources/read paths, with the real fastmcp.Client
4.1.6, both eras and both transports, plus the sealed state's binding to the prompt or
resource."""

from __future__ import annotations

import pytest
import mcp_types
from mcp.shared.exceptions import MCPError

from conftest import IS_RUST, Script, run

both_eras = pytest.mark.parametrize("mode", ["auto", "legacy"])
both_transports = pytest.mark.parametrize("transport", ["stdio", "http"])
ITINERARY = "booking://itinerary"


@both_transports
@both_eras
def test_prompt_asks_then_renders(connect, transport, mode):
    script = Script({"Enter your name:": "Ada"})

    async def go():
        async with connect(transport, mode, script) as c:
            return await c.get_prompt("welcome", {})

    r = run(go())
    assert r.messages[0].content.text == "Welcome aboard, Ada!"
    assert script.asked == ["Enter your name:"]


@both_transports
@both_eras
def test_resource_asks_in_rounds_then_reads(connect, transport, mode):
    script = Script({"Where would you like to fly?": "Lima", "Which airport in Lima?": "LIM"}, delay=0.05)

    async def go():
        async with connect(transport, mode, script) as c:
            return await c.read_resource(ITINERARY)

    contents = run(go())
    assert contents[0].text == "Itinerary: Lima via LIM"
    assert script.rounds == [["Where would you like to fly?"], ["Which airport in Lima?"]]


@both_transports
@both_eras
def test_prompt_without_capability_is_32021(connect, transport, mode):
    async def go():
        async with connect(transport, mode, None) as c:
            return await c.get_prompt("welcome", {})

    with pytest.raises(MCPError) as e:
        run(go())
    assert e.value.error.code == -32021


@both_transports
def test_declined_prompt_answer_is_an_error(connect, transport):
    from conftest import DECLINE

    async def go():
        async with connect(transport, "auto", Script({"Enter your name:": DECLINE})) as c:
            return await c.get_prompt("welcome", {})

    with pytest.raises(MCPError) as e:
        run(go())
    assert e.value.error.code == -32602
    if IS_RUST:
        # elicit-rmcp's end-user text (docs/deviations.md, 7).
        assert e.value.error.message == "Not done: you declined to answer 'name', which is required."
    else:
        # The Python server keeps the reference's text.
        assert e.value.error.message == (
            "Cannot continue without 'name': the request was declined. "
            "Give the parameter a default to make it optional."
        )


def test_state_is_bound_to_prompt_and_resource(connect):
    async def go():
        async with connect("http", "auto", Script({})) as c:
            p = await c.session.get_prompt("welcome", {}, allow_input_required=True)
            assert isinstance(p, mcp_types.InputRequiredResult)
            # The prompt's token on the tool of the same name and arguments: refused.
            with pytest.raises(MCPError) as e:
                await c.session.call_tool("greet", {}, allow_input_required=True, request_state=p.request_state)
            assert e.value.error.message == "Invalid or expired requestState"
            r = await c.session.read_resource(ITINERARY, allow_input_required=True)
            assert isinstance(r, mcp_types.InputRequiredResult)
            with pytest.raises(MCPError) as e:
                await c.session.get_prompt("welcome", {}, allow_input_required=True, request_state=r.request_state)
            assert e.value.error.message == "Invalid or expired requestState"

    run(go())
