"""The traps a new user met with mcp 2.x (issue 43), each a test: through the SDK's own
client (both eras) where the client is involved, at decoration otherwise.

The tool is the one the user wrote: ``reserve_table``, a literal question, a choice asked
only for small parties, an optional note."""


import asyncio
import json
import logging
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

import pytest

import elicit_mcp
from elicit_mcp import DeclarationError, Elicit, Question, ResolutionError
from elicit_mcp.declare import default_title

mcp_types = pytest.importorskip("mcp_types")
from mcp import Client  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver import Elicit as SdkElicit  # noqa: E402
from mcp.server.mcpserver import Resolve as SdkResolve  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from elicit_mcp.mcp import Elicitation  # noqa: E402

KEY = bytes(range(32))
ERAS = ["auto", "legacy"]
Seating = Literal["indoor", "outdoor"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def answering(answers: Dict[str, Any], asked: Optional[List[Any]] = None) -> Any:
    async def callback(context: Any, params: Any) -> Any:
        if asked is not None:
            asked.append(params)
        return mcp_types.ElicitResult(action="accept", content={"value": answers[params.message]})

    return callback


def first_text(result: Any) -> str:
    return str(getattr(result.content[0], "text"))


def restaurant(seating: Any = None, fail: bool = False) -> MCPServer:
    """The user's server: MCPServer, a Context in the body and in a resolver."""
    server = MCPServer("restaurant")
    elicit = Elicitation(server, keys=elicit_mcp.KeyRing([KEY]))
    seen: List[str] = []

    async def pick_seating(party_size: int, ctx: Context) -> Union[str, Question]:
        seen.append(type(ctx).__name__)
        if fail:
            raise ResolutionError("no tables left")
        if seating is not None:
            return seating  # type: ignore[no-any-return]
        return "indoor" if party_size > 6 else Question("Indoor or outdoor?")

    @elicit.tool
    async def reserve_table(
        party_size: Annotated[int, Elicit("How many people?")],
        seating: Annotated[Seating, Elicit(resolver=pick_seating)],
        ctx: Context,
        note: Annotated[Optional[str], Elicit("Anything we should know?")] = None,
    ) -> str:
        assert ctx.request_id is not None
        await ctx.report_progress(1, 2)
        return f"Table for {party_size}, {seating}, note={note}, ctx={type(ctx).__name__}"

    server.seen = seen  # type: ignore[attr-defined]
    return server


ANSWERS = {"How many people?": 2, "Indoor or outdoor?": "outdoor", "Anything we should know?": "window"}


# ----------------------------------------------------------------------- Context


@pytest.mark.parametrize("mode", ERAS)
def test_context_reaches_the_body_and_the_resolver_and_is_never_an_argument(mode: str) -> None:
    server = restaurant()

    async def go() -> Any:
        async with Client(server, mode=mode, elicitation_callback=answering(ANSWERS)) as c:
            (tool,) = (await c.list_tools()).tools
            assert tool.input_schema["properties"] == {} and tool.input_schema["required"] == []
            return await c.call_tool("reserve_table", {})

    result = run(go())
    assert not result.is_error, first_text(result)
    assert first_text(result) == "Table for 2, outdoor, note=window, ctx=Context"
    assert set(server.seen) == {"Context"}  # type: ignore[attr-defined]


def test_context_is_found_by_its_hint_under_any_name_optional_included() -> None:
    def body(
        when: Annotated[str, Elicit("When?")],
        the_context: Optional[Context] = None,
    ) -> str:
        return when

    d = elicit_mcp.tool(body)
    assert d.context_param == "the_context"
    assert d.input_schema == {"type": "object", "properties": {}, "required": []}
    assert [p["name"] for p in d.declaration["parameters"]] == ["when"]


def test_context_on_a_lowlevel_server_is_a_declaration_error_naming_it() -> None:
    elicit = Elicitation(Server("low"), keys=elicit_mcp.KeyRing([KEY]))

    def needs_ctx(ctx: Context) -> str:
        return "x"

    with pytest.raises(DeclarationError, match=r"reserve\(ctx\): takes the SDK's Context, which only MCPServer builds"):

        @elicit.tool
        def reserve(ctx: Context, when: Annotated[str, Elicit("When?")]) -> str:
            return when

    with pytest.raises(DeclarationError, match=r"reserve2\(who\)'s resolver needs_ctx\(ctx\)"):

        @elicit.tool
        def reserve2(who: Annotated[str, Elicit(resolver=needs_ctx)]) -> str:
            return who


def test_elicit_on_a_plain_sdk_tool_is_reported_at_install_naming_the_tool() -> None:
    server = MCPServer("plain")

    @server.tool()
    def book(when: Annotated[str, Elicit("When?")]) -> str:
        return when

    with pytest.raises(DeclarationError, match=r"tool 'book': parameter 'when' carries elicit_mcp.Elicit .* @elicit.tool\(\)"):
        Elicitation(server, keys=elicit_mcp.KeyRing([KEY]))


def test_elicit_on_a_plain_sdk_tool_added_later_fails_the_first_listing(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("plain")
    Elicitation(server, keys=elicit_mcp.KeyRing([KEY]))

    @server.tool()
    def book(when: Annotated[str, Elicit("When?")]) -> str:
        return when

    async def go() -> None:
        async with Client(server) as c:
            with pytest.raises(MCPError) as e:
                await c.list_tools()
            assert (e.value.code, e.value.message) == (-32603, "Internal error")

    with caplog.at_level(logging.ERROR, logger="elicit_mcp.mcp"):
        run(go())
    assert "tool 'book': parameter 'when' carries elicit_mcp.Elicit" in caplog.text


# ------------------------------------------------------------------ SDK markers


def test_the_sdks_resolve_marker_is_a_declaration_error_saying_what_to_write() -> None:
    def ask(party_size: int) -> Any:
        return SdkElicit("Indoor?", type(None))  # never run

    with pytest.raises(
        DeclarationError,
        match=r"reserve\(seating\): mcp's Resolve\(\.\.\.\) marker .* write Annotated\[T, Elicit\(resolver=fn\)\]",
    ):

        @elicit_mcp.tool
        def reserve(party_size: int, seating: Annotated[str, SdkResolve(ask)]) -> str:
            return seating


def test_the_old_step_name_still_imports_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match=r"renamed elicit_mcp.ResolveStep .*elicit_mcp.Elicit\(resolver=fn\)"):
        old = elicit_mcp.Resolve
    assert old is elicit_mcp.ResolveStep
    assert "Resolve" not in elicit_mcp.__all__


# -------------------------------------------------------------------- resolvers


@pytest.mark.parametrize("mode", ERAS)
def test_resolution_error_with_a_message_is_the_tool_error_the_client_reads(mode: str) -> None:
    assert ResolutionError("no tables left").message == "no tables left"

    async def go() -> Any:
        async with Client(restaurant(fail=True), mode=mode, elicitation_callback=answering(ANSWERS)) as c:
            return await c.call_tool("reserve_table", {})

    result = run(go())
    assert result.is_error and first_text(result) == "no tables left"


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("value", ["patio", 42])
def test_a_resolver_value_outside_its_enum_is_internal_error_and_logged(
    mode: str, value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        async with Client(restaurant(seating=value), mode=mode, elicitation_callback=answering(ANSWERS)) as c:
            with pytest.raises(MCPError) as e:
                await c.call_tool("reserve_table", {})
            assert (e.value.code, e.value.message) == (-32603, "Internal error")

    with caplog.at_level(logging.ERROR, logger="elicit_mcp.mcp"):
        run(go())
    assert f"reserve_table(seating): resolver pick_seating returned {value!r}" in caplog.text
    assert "one of ['indoor', 'outdoor']" in caplog.text


# ------------------------------------------------------------- what the client reads


def test_titles_default_to_the_parameter_name() -> None:
    assert default_title("party_size") == "Party size"

    @elicit_mcp.tool
    def reserve(
        party_size: Annotated[int, Elicit("How many?")],
        kept: Annotated[str, Elicit("Kept?", title="Value")],
    ) -> str:
        return "x"

    questions = {p["name"]: p["elicit"] for p in reserve.declaration["parameters"]}
    assert questions["party_size"]["title"] == "Party size"
    assert questions["kept"]["title"] == "Value"


@pytest.mark.parametrize("mode", ERAS)
def test_the_client_sees_the_titled_field(mode: str) -> None:
    asked: List[Any] = []

    async def go() -> Any:
        async with Client(restaurant(), mode=mode, elicitation_callback=answering(ANSWERS, asked)) as c:
            return await c.call_tool("reserve_table", {})

    run(go())
    titles = {p.message: p.requested_schema["properties"]["value"].get("title") for p in asked}
    assert titles["How many people?"] == "Party size"
    assert titles["Anything we should know?"] == "Note"
    assert titles["Indoor or outdoor?"] == "Value"  # a resolver's Question carries its own


@pytest.mark.parametrize("mode", ERAS)
def test_output_schema_and_structured_content_are_mcpservers_for_the_return_type(mode: str) -> None:
    plain = MCPServer("restaurant")

    @plain.tool()
    def reserve_table() -> str:
        return "Table for 2, outdoor, note=window, ctx=Context"

    async def listing_and_call(server: Any) -> Any:
        async with Client(server, mode=mode, elicitation_callback=answering(ANSWERS)) as c:
            (tool,) = (await c.list_tools()).tools
            return tool.output_schema, await c.call_tool("reserve_table", {})

    ours_schema, ours = run(listing_and_call(restaurant()))
    sdk_schema, sdk = run(listing_and_call(plain))
    assert ours_schema == sdk_schema and ours_schema["properties"]["result"]["type"] == "string"
    assert ours.structured_content == sdk.structured_content == {"result": first_text(sdk)}
    assert first_text(ours) == first_text(sdk)


@pytest.mark.parametrize("mode", ERAS)
def test_32021_names_the_question_for_a_literal_question(mode: str) -> None:
    async def go() -> None:
        async with Client(restaurant(), mode=mode) as c:  # no elicitation callback: not declared
            with pytest.raises(MCPError) as e:
                await c.call_tool("reserve_table", {})
            assert e.value.code == -32021
            assert e.value.message == (
                "Client did not declare the form elicitation capability required by question 'party_size'"
            )

    run(go())


@pytest.mark.parametrize("mode", ERAS)
def test_a_wrong_answer_says_what_was_expected(mode: str) -> None:
    async def callback(context: Any, params: Any) -> Any:
        return mcp_types.ElicitResult(action="accept", content={"value": "two"})

    async def go() -> Any:
        async with Client(restaurant(), mode=mode, elicitation_callback=callback) as c:
            return await c.call_tool("reserve_table", {})

    result = run(go())
    assert result.is_error
    assert first_text(result) == (
        "The answer for 'party_size' does not match the requested schema: expected an integer"
    )


# ------------------------------------------------------------------ smaller traps


def test_unseal_refuses_snake_case_json_text() -> None:
    sealer = elicit_mcp.Sealer([KEY], "restaurant")
    params = mcp_types.CallToolRequestParams(name="reserve_table", arguments={}, request_state="v1.x")
    with pytest.raises(ValueError, match="has 'request_state' but no 'requestState'"):
        sealer.unseal("tools/call", params.model_dump_json())
    with pytest.raises(ValueError, match="has 'request_state' but no 'requestState'"):
        sealer.unseal("tools/call", params.model_dump_json().encode())
    # By alias, it is read (a first round: no state).
    assert sealer.unseal("tools/call", json.dumps({"name": "reserve_table", "arguments": {}})) is None


def test_elicitation_without_keys_says_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"Elicitation\(keys=None\): .* KeyRing.from_env\(\)"):
        Elicitation(MCPServer("restaurant"), keys=None)  # type: ignore[arg-type]


def test_wrong_step_and_closed_errors_speak_python() -> None:
    plan = elicit_mcp.Plan({"tool": "t", "parameters": [{"name": "a", "elicit": {"needs": []}}]})
    rnd = plan.modern({})
    step = rnd.poll()
    assert isinstance(step, elicit_mcp.ResolveStep)
    step.value(1)
    with pytest.raises(elicit_mcp.WrongStepError) as e:
        step.value(2)
    assert "not a resolver's value" in e.value.message
    rnd.close()
    with pytest.raises(elicit_mcp.ClosedError) as c:
        rnd.poll()
    assert str(c.value) == "this round is closed; it cannot be used after close() or its `with` block: make a new one"
    for text in (e.value.message, str(c.value)):
        assert "ELICIT_ERR_NULL" not in text and "resolve_value" not in text and "elicit_round" not in text
    plan.close()
