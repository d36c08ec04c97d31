"""The booking tools of servers/rmcp (elicit-rmcp-server) against the real
fastmcp.Client 4.1.6.

Every behavioural test runs over stdio and streamable HTTP, in `mode="auto"` (the
client probes `server/discover` and must settle on 2026-07-28) and `mode="legacy"`
(the initialize handshake, questions over `elicitation/create`).
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import tomllib

import httpx2
import mcp_types
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from conftest import (
    CANCEL,
    DECLINE,
    HANDSHAKE,
    KEY_A,
    KEY_B,
    MODERN,
    PARIS,
    PARIS_BOOKED,
    IS_RUST,
    SERVER_CMD,
    HttpServer,
    logged,
    rust_only,
    Script,
    run,
    stdio_transport,
)

TRANSPORTS = ["stdio", "http"]
MODES = ["auto", "legacy"]
both_eras = pytest.mark.parametrize("mode", MODES)
both_transports = pytest.mark.parametrize("transport", TRANSPORTS)

EXPECTED_VERSION = {"auto": MODERN, "legacy": HANDSHAKE}


async def call(client: Client, tool: str, args: dict | None = None, mode: str | None = None):
    async with client:
        if mode is not None:
            assert client.protocol_version == EXPECTED_VERSION[mode]
        return await client.call_tool(tool, args or {})


# ---------------------------------------------------------------------------------------
# Negotiation and listing


@both_transports
@both_eras
def test_negotiates_the_expected_era(connect, transport, mode):
    async def go():
        async with connect(transport, mode, Script({})) as c:
            assert c.protocol_version == EXPECTED_VERSION[mode]
            if mode == "auto":
                assert c.server_info.name == "booking"

    run(go())


@both_transports
@both_eras
def test_tools_list_hides_elicited_parameters(connect, transport, mode):
    async def go():
        async with connect(transport, mode, Script({})) as c:
            return await c.list_tools()

    tools = {t.name: t for t in run(go())}
    assert sorted(tools) == ["book_flight", "greet", "order"]
    assert tools["book_flight"].title == "Book Flight"
    assert tools["book_flight"].input_schema["properties"] == {}
    assert tools["greet"].input_schema["properties"] == {}
    assert tools["order"].input_schema["properties"] == {"item": {"type": "string"}}
    assert tools["order"].input_schema["required"] == ["item"]
    for t in tools.values():
        assert t.output_schema == {
            "properties": {"result": {"type": "string"}},
            "required": ["result"],
            "type": "object",
            "x-fastmcp-wrap-result": True,
        }


# ---------------------------------------------------------------------------------------
# book_flight


@both_transports
@both_eras
def test_book_flight_accepts_every_answer(connect, transport, mode):
    script = Script(PARIS)
    r = run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert r.data == PARIS_BOOKED
    assert r.structured_content == {"result": PARIS_BOOKED}
    assert r.meta["fastmcp"] == {"wrap_result": True}
    assert not r.is_error
    assert sorted(script.asked) == sorted(PARIS)


@both_transports
def test_modern_rounds_batch_independent_questions(connect, transport):
    """destination+date+seat arrive together in round 1, airport+proceed in round 2, each
    round in declaration order (the client asks in the order received)."""
    script = Script(PARIS, delay=0.05)
    r = run(call(connect(transport, "auto", script), "book_flight", mode="auto"))
    assert r.data == PARIS_BOOKED
    assert script.rounds == [
        ["Where would you like to fly?", "When would you like to fly?", "Window or aisle?"],
        ["Which airport in Paris?", "Book a flight to Paris on 2026-08-01?"],
    ]
    # The inputRequests keys are the parameter names, in declaration order.
    assert script.keys == ["destination", "date", "seat", "airport", "proceed"]


@both_transports
def test_handshake_asks_one_question_at_a_time_in_resolution_order(connect, transport):
    script = Script(PARIS)
    r = run(call(connect(transport, "legacy", script), "book_flight", mode="legacy"))
    assert r.data == PARIS_BOOKED
    assert script.rounds == [
        ["Where would you like to fly?"],
        ["When would you like to fly?"],
        ["Which airport in Paris?"],
        ["Book a flight to Paris on 2026-08-01?"],
        ["Window or aisle?"],
    ]


@both_transports
@both_eras
def test_question_schemas(connect, transport, mode):
    script = Script(PARIS)
    run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert script.schemas["Where would you like to fly?"] == {
        "properties": {"value": {"title": "Value", "type": "string"}},
        "required": ["value"],
        "type": "object",
    }
    assert script.schemas["Book a flight to Paris on 2026-08-01?"]["properties"]["value"]["type"] == "boolean"
    assert script.schemas["Window or aisle?"]["properties"]["value"]["enum"] == ["window", "aisle"]


@both_transports
@both_eras
def test_london_asks_no_airport(connect, transport, mode):
    answers = {
        "Where would you like to fly?": "London",
        "When would you like to fly?": "2026-09-09",
        "Book a flight to London on 2026-09-09?": True,
        "Window or aisle?": "aisle",
    }
    script = Script(answers, delay=0.05)
    r = run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert r.data == "Booked London (LHR) on 2026-09-09, seat aisle"
    assert not any("airport" in q for q in script.asked)
    if mode == "auto":
        assert [sorted(x) for x in script.rounds] == [
            sorted(["Where would you like to fly?", "When would you like to fly?", "Window or aisle?"]),
            ["Book a flight to London on 2026-09-09?"],
        ]


@both_transports
@both_eras
def test_declining_proceed_cancels_the_booking(connect, transport, mode):
    script = Script({**PARIS, "Book a flight to Paris on 2026-08-01?": False})
    r = run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert r.data == "Cancelled"


@both_transports
@both_eras
@pytest.mark.parametrize("refusal", [DECLINE, CANCEL], ids=["decline", "cancel"])
def test_refused_seat_takes_its_default(connect, transport, mode, refusal):
    script = Script({**PARIS, "Window or aisle?": refusal})
    r = run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert r.data == "Booked Paris (CDG) on 2026-08-01, seat no preference"


@both_transports
@both_eras
@pytest.mark.parametrize(
    "refusal,did,word",
    [(DECLINE, "declined to answer", "declined"), (CANCEL, "cancelled the question for", "cancelled")],
    ids=["decline", "cancel"],
)
def test_refused_required_answer_fails_the_call(connect, transport, mode, refusal, did, word):
    if IS_RUST:
        # elicit-rmcp's end-user text (docs/deviations.md, 7); the reference's developer
        # advice goes to the server's log.
        expected = f"Not done: you {did} 'destination', which is required."
    else:
        # The Python server (elicit_mcp) keeps the reference's text, as the C ABI does.
        expected = (
            f"Cannot continue without 'destination': the request was {word}. "
            "Give the parameter a default to make it optional."
        )
    check_refused_required_answer(connect, transport, mode, refusal, expected)


def check_refused_required_answer(connect, transport, mode, refusal, expected):
    """A refused required answer fails the call with `expected` (test_agent.py passes
    the reference's text, which the firmware agent keeps)."""
    script = Script({**PARIS, "Where would you like to fly?": refusal})
    with pytest.raises(ToolError) as e:
        run(call(connect(transport, mode, script), "book_flight", mode=mode))
    assert str(e.value) == expected
    if mode == "legacy":
        # The handshake era stops at the first refusal.
        assert script.asked == ["Where would you like to fly?"]


@both_transports
@both_eras
def test_answer_outside_the_schema_fails_the_call(connect, transport, mode):
    if IS_RUST:
        expected = "Not done: the answer for 'proceed' was not of the kind asked for."
    elif SERVER_CMD[0].endswith("dev-c-server.sh"):
        # The C server (servers/c) sends the engine's text through the C ABI's call level.
        expected = "The answer for 'proceed' does not match the requested schema"
    elif SERVER_CMD[0].endswith("dev-ts-server.sh"):
        # servers/ts: the engine's text on 2026-07-28 (the call level, as the C server); on
        # 2025-11-25 the SDK's elicitInput checks the answer first (docs/deviations.md, 11).
        expected = (
            "The answer for 'proceed' does not match the requested schema"
            if mode != "legacy"
            else "Error calling tool 'book_flight': Elicitation response content does not match requested schema: data/value must be boolean"
        )
    else:
        # The reference's text, with what the question expected (docs/deviations.md, 9).
        expected = "The answer for 'proceed' does not match the requested schema: expected a boolean (true or false)"
    check_answer_outside_the_schema(connect, transport, mode, expected)


def check_answer_outside_the_schema(connect, transport, mode, expected):
    # The boolean question answered with a string: the engine validates strictly.
    async def handler(message, response_type, params, context):
        if message.startswith("Book a flight"):
            from fastmcp.client.elicitation import ElicitResult

            return ElicitResult(action="accept", content={"value": "yes"})
        return PARIS[message]

    with pytest.raises(ToolError) as e:
        run(call(connect(transport, mode, handler), "book_flight", mode=mode))
    assert str(e.value) == expected


# ---------------------------------------------------------------------------------------
# greet and order


@both_transports
@both_eras
def test_greet(connect, transport, mode):
    script = Script({"Enter your name:": "Ada"})
    r = run(call(connect(transport, mode, script), "greet", mode=mode))
    assert r.data == "Hello, Ada"
    assert script.asked == ["Enter your name:"]


@both_transports
@both_eras
def test_order_asks_about_the_model_supplied_item(connect, transport, mode):
    script = Script({"How many apples?": 3})
    r = run(call(connect(transport, mode, script), "order", {"item": "apples"}, mode=mode))
    assert r.data == "Ordered 3 x apples"
    assert script.schemas["How many apples?"]["properties"]["value"]["type"] == "integer"


# Whole floats answering the integer quantity, and the integer the result shows.
WHOLE_FLOATS = [(3.0, "3"), (-0.0, "0"), (2.0**52, "4503599627370496"), (9e15, "9000000000000000")]


@both_transports
@both_eras
@pytest.mark.parametrize("answer, text", WHOLE_FLOATS)
def test_whole_float_answers_read_as_integers(connect, transport, mode, answer, text):
    """A whole float (sent as such: the handler returns the result itself) answering an
    integer parameter is that integer in the result, as pydantic's int makes it."""
    script = Script({"How many apples?": mcp_types.ElicitResult(action="accept", content={"value": answer})})
    r = run(call(connect(transport, mode, script), "order", {"item": "apples"}, mode=mode))
    assert r.data == f"Ordered {text} x apples"


@both_transports
@both_eras
def test_order_without_item_is_a_tool_error(connect, transport, mode):
    with pytest.raises(ToolError, match="Missing required argument 'item'"):
        run(call(connect(transport, mode, Script({})), "order", {}, mode=mode))


@both_transports
@both_eras
def test_unknown_tool_is_a_tool_error(connect, transport, mode):
    async def go():
        async with connect(transport, mode, Script({})) as c:
            return await c.call_tool_mcp("no_such_tool", {})

    if SERVER_CMD[0].endswith("dev-ts-server.sh"):
        # servers/ts: McpServer's own handler answers the name it does not know with the
        # protocol error the MCP specification gives for an unknown tool.
        with pytest.raises(MCPError, match="Tool no_such_tool not found") as e:
            run(go())
        assert e.value.error.code == -32602
        return
    r = run(go())
    assert r.is_error
    # A name not declared through elicit goes to the server's own handler: the Python
    # server's is MCPServer's (its wording); the Rust server writes FastMCP's.
    expected = "Unknown tool: 'no_such_tool'" if IS_RUST else "Unknown tool: no_such_tool"
    assert r.content[0].text == expected


# ---------------------------------------------------------------------------------------
# Clients that cannot answer


@both_transports
@both_eras
def test_client_without_handler_gets_missing_capability(connect, transport, mode):
    """No handler: the client declares no elicitation, the server answers -32021."""
    with pytest.raises(MCPError) as e:
        run(call(connect(transport, mode, None), "book_flight", mode=mode))
    err = e.value.error
    assert err.code == -32021
    assert err.message == (
        "Client did not declare the form elicitation capability required by question 'destination'"
    )
    assert err.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}


@both_transports
@both_eras
def test_client_that_fails_to_answer(connect, transport, mode):
    """The handler raises: fastmcp answers the question with an error. On the handshake
    era the server turns it into the tool error FastMCP writes; on 2026-07-28 the
    client aborts the call itself and sends no retry."""

    async def handler(message, response_type, params, context):
        raise RuntimeError("Elicitation not supported")

    if mode == "legacy":
        with pytest.raises(ToolError) as e:
            run(call(connect(transport, mode, handler), "greet", mode=mode))
        assert str(e.value) == "Error calling tool 'greet': Elicitation not supported"
    else:
        with pytest.raises(MCPError, match="Elicitation not supported"):
            run(call(connect(transport, mode, handler), "greet", mode=mode))


@both_transports
def test_client_without_handler_needs_no_capability_when_nothing_is_asked(connect, transport):
    """The gate runs only when a question would be asked: tools/list works."""

    async def go():
        async with connect(transport, "auto", None) as c:
            return await c.list_tools()

    assert len(run(go())) == 3


@both_transports
def test_manual_driver_gets_the_ask_back(connect, transport):
    """Driving rounds by hand, the client gets the InputRequiredResult itself."""

    async def go():
        async with connect(transport, "auto", Script({})) as c:
            first = await c.session.call_tool("greet", {}, allow_input_required=True)
            assert isinstance(first, mcp_types.InputRequiredResult)
            assert list(first.input_requests) == ["name"]
            req = first.input_requests["name"]
            assert req.method == "elicitation/create"
            assert req.params.message == "Enter your name:"
            assert first.request_state.startswith("v1.")
            done = await c.session.call_tool(
                "greet",
                {},
                allow_input_required=True,
                input_responses={"name": mcp_types.ElicitResult(action="accept", content={"value": "Grace"})},
                request_state=first.request_state,
            )
            return done

    done = run(go())
    assert isinstance(done, mcp_types.CallToolResult)
    assert done.structured_content == {"result": "Hello, Grace"}


# ---------------------------------------------------------------------------------------
# Sealed requestState


async def first_round(c: Client, tool: str, args: dict):
    r = await c.session.call_tool(tool, args, allow_input_required=True)
    assert isinstance(r, mcp_types.InputRequiredResult)
    return r


def assert_invalid_state(e: pytest.ExceptionInfo):
    err = e.value.error
    assert err.code == -32602
    assert err.message == "Invalid or expired requestState"
    assert err.data == {"reason": "invalid_request_state"}


def tamper(token: str) -> str:
    i = len(token) // 2
    return token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1 :]


@both_transports
@pytest.mark.parametrize(
    "forge",
    [tamper, lambda t: t[:-2], lambda t: "", lambda t: t + "A", lambda t: "v2." + t[3:]],
    ids=["flipped", "truncated", "empty", "extended", "prefix"],
)
def test_tampered_request_state_is_rejected(connect, transport, forge):
    async def go():
        async with connect(transport, "auto", Script({})) as c:
            first = await first_round(c, "greet", {})
            answer = {"name": mcp_types.ElicitResult(action="accept", content={"value": "Eve"})}
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(
                    "greet", {}, allow_input_required=True,
                    input_responses=answer, request_state=forge(first.request_state),
                )
            assert_invalid_state(e)

    run(go())


@both_transports
def test_request_state_is_bound_to_tool_and_arguments(connect, transport):
    async def go():
        async with connect(transport, "auto", Script({})) as c:
            greet = await first_round(c, "greet", {})
            order = await first_round(c, "order", {"item": "apples"})
            # greet's token on book_flight (same empty arguments, other tool)
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(
                    "book_flight", {}, allow_input_required=True, request_state=greet.request_state
                )
            assert_invalid_state(e)
            # order's token on other arguments
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(
                    "order", {"item": "pears"}, allow_input_required=True,
                    request_state=order.request_state,
                )
            assert_invalid_state(e)
            # and on its own call it still works
            again = await c.session.call_tool(
                "order", {"item": "apples"}, allow_input_required=True,
                request_state=order.request_state,
            )
            assert isinstance(again, mcp_types.InputRequiredResult)

    run(go())


@both_transports
def test_expired_request_state_is_rejected(connect, transport):
    async def go():
        async with connect(transport, "auto", Script({}), "--state-ttl", "1") as c:
            first = await first_round(c, "greet", {})
            await asyncio.sleep(1.3)
            answer = {"name": mcp_types.ElicitResult(action="accept", content={"value": "Eve"})}
            with pytest.raises(MCPError) as e:
                await c.session.call_tool(
                    "greet", {}, allow_input_required=True,
                    input_responses=answer, request_state=first.request_state,
                )
            assert_invalid_state(e)

    run(go())


def test_a_forged_plaintext_state_is_rejected_when_sealing(connect):
    """The engine's plaintext state, sent as is, is refused by a sealing server."""
    forged = json.dumps(
        {"v": 1, "answers": {"name": {"action": "accept", "data": {"value": "Mallory"}, "q": "x"}}, "asked": {}}
    )

    async def go():
        async with connect("http", "auto", Script({})) as c:
            with pytest.raises(MCPError) as e:
                await c.session.call_tool("greet", {}, allow_input_required=True, request_state=forged)
            assert_invalid_state(e)

    run(go())


@pytest.mark.parametrize("keys", ["ab" * 31, "zz" * 32, "ab" * 32 + ",", ("ab" * 32 + ",") * 2 + "ab" * 32])
def test_bad_state_keys_are_refused_at_startup(server_bin, keys):
    import os
    import subprocess

    p = subprocess.run(
        [*SERVER_CMD, "--stdio"], input="", capture_output=True, text=True, timeout=10,
        env={**os.environ, "ELICIT_STATE_KEYS": keys},
    )
    assert p.returncode == 2
    assert "ELICIT_STATE_KEYS" in p.stderr


def test_http_without_a_ring_refuses_to_start_unless_alone(server_bin, tmp_path):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "ELICIT_STATE_KEYS"}
    p = subprocess.run(
        [*SERVER_CMD, "--http", "127.0.0.1:0"], input="", capture_output=True, text=True, timeout=20, env=env
    )
    assert p.returncode == 2
    assert "ELICIT_STATE_KEYS" in p.stderr and "--state-keys-file" in p.stderr and "--alone" in p.stderr
    bad = tmp_path / "ring"
    bad.write_text("ab" * 31 + "\n")
    p = subprocess.run(
        [*SERVER_CMD, "--http", "127.0.0.1:0", "--state-keys-file", str(bad)],
        input="", capture_output=True, text=True, timeout=20, env=env,
    )
    assert p.returncode == 2
    assert str(bad) in p.stderr and "ELICIT_STATE_KEYS" not in p.stderr.replace("--state-keys-file", "")


@rust_only
def test_insecure_plaintext_switch_sends_the_engine_state(connect):
    async def go():
        async with connect("stdio", "auto", Script({"Enter your name:": "Ada"}), "--insecure-plaintext-state") as c:
            first = await first_round(c, "greet", {})
            state = json.loads(first.request_state)
            assert state["v"] == 1 and list(state["asked"]) == ["name"]
            return await c.call_tool("greet", {})

    assert run(go()).data == "Hello, Ada"


# ---------------------------------------------------------------------------------------
# Horizontal scale: rounds alternate between processes sharing ELICIT_STATE_KEYS


class Alternating(httpx2.AsyncBaseTransport):
    """An httpx2 transport sending each POST to the next server in turn."""

    def __init__(self, ports: list[int]):
        self.inner = httpx2.AsyncHTTPTransport()
        self.ports = ports
        self.i = 0
        self.hits: dict[int, int] = {p: 0 for p in ports}

    async def handle_async_request(self, request):
        port = self.ports[self.i % len(self.ports)]
        self.i += 1
        self.hits[port] += 1
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


def alternating_client(servers: list[HttpServer], handler) -> tuple[Client, Alternating]:
    alt = Alternating([s.port for s in servers])

    def factory(headers=None, timeout=None, auth=None, **kw):
        return httpx2.AsyncClient(
            transport=alt, headers=headers, auth=auth,
            timeout=timeout or httpx2.Timeout(30.0, read=300.0),
        )

    t = StreamableHttpTransport(servers[0].url, httpx_client_factory=factory)
    return Client(t, elicitation_handler=handler, mode="auto", timeout=30), alt


def test_rounds_alternate_between_two_servers_sharing_keys(server_bin):
    keys = f"{KEY_A},{KEY_B}"
    # The second server seals with KEY_B and still opens KEY_A's tokens (a rotation ring).
    with HttpServer(keys=keys) as a, HttpServer(keys=f"{KEY_B},{KEY_A}") as b:
        client, alt = alternating_client([a, b], Script({**PARIS, "How many apples?": 2, "Enter your name:": "Ada"}))

        async def go():
            results = []
            async with client:
                assert client.protocol_version == MODERN
                for _ in range(3):
                    results.append((await client.call_tool("book_flight", {})).data)
                results.append((await client.call_tool("order", {"item": "apples"})).data)
                results.append((await client.call_tool("greet", {})).data)
            return results

        assert run(go()) == [PARIS_BOOKED] * 3 + ["Ordered 2 x apples", "Hello, Ada"]
        # Both processes served rounds of the same calls.
        assert alt.hits[a.port] >= 6 and alt.hits[b.port] >= 6
        assert not any("rejected" in line for line in a.log + b.log)


def test_rounds_alternating_between_servers_with_different_keys_fail(server_bin):
    with HttpServer(keys=KEY_A) as a, HttpServer(keys=KEY_B) as b:
        client, _ = alternating_client([a, b], Script(PARIS))

        async def go():
            async with client:
                await client.call_tool("book_flight", {})

        with pytest.raises(MCPError) as e:
            run(go())
        assert_invalid_state(e)
        assert logged([a, b], "requestState rejected (unknown key)")


def test_two_hundred_concurrent_http_calls_complete(http_server):
    """Correctness under load (timings are scripts/bench-load.sh's business)."""
    from load_client import run_load

    stats = run(run_load([http_server.url], calls=200, concurrency=200))
    assert stats.failures == []
    assert stats.completed == 200


# ---------------------------------------------------------------------------------------
# Wire details the client does not exercise (raw HTTP and raw stdio)


def _post(url, body, headers=None):
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    h.update(headers or {})
    return httpx2.post(url, content=json.dumps(body), headers=h, timeout=10)


def _modern(method, params=None, caps=None):
    p = dict(params or {})
    p["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {"elicitation": {"form": {}}},
    }
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": p}


MODERN_HEADERS = {"mcp-protocol-version": MODERN}

# Raw wire details rmcp's Streamable HTTP and stdio transports decide (where the MCP
# Python SDK decides differently, the difference is rmcp's):
# * 2026-07-28 POSTs must carry the Mcp-Method routing header (absent: -32020), so the
#   requests below send it; its messages are rmcp's own.
# * -32022 lists every version the server speaks (rmcp also serves the handshake era).
# * a handshake-era POST without a session is a plain-text 400; GET without an
#   `Accept: text/event-stream` is 406; with it, a session-less GET is a plain 400.
# * stdio: `server/discover` is a bootstrap probe (rmcp#1248), so `initialize` after it
#   still opens a handshake connection, and a request carrying the 2026-07-28 `_meta`
#   is served inline on a handshake connection.
ALL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN]


def _routing(method: str) -> dict:
    """The Mcp-Method header rmcp requires on 2026-07-28 POSTs."""
    return {"mcp-method": method}


def test_http_ping_on_modern_is_method_not_found(http_server):
    r = _post(http_server.url, _modern("ping"), {**MODERN_HEADERS, "mcp-method": "ping"})
    assert r.status_code == 404
    assert r.json()["error"]["code"] == -32601


def test_http_missing_envelope_is_invalid_params(http_server):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    r = _post(http_server.url, body, MODERN_HEADERS)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32602


@rust_only
def test_http_header_mismatch_is_32020(http_server):
    body = _modern("tools/call", {"name": "greet", "arguments": {}})
    r = _post(http_server.url, body, {**MODERN_HEADERS, "mcp-method": "tools/call", "mcp-name": "book_flight"})
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": -32020,
        "message": "Mcp-Name header `book_flight` does not match body value `greet`",
    }
    r = _post(http_server.url, body, {**MODERN_HEADERS, "mcp-method": "tools/list"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, -32020)


@rust_only
def test_http_unsupported_version_is_32022(http_server):
    body = _modern("tools/list")
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    r = _post(http_server.url, body, {"mcp-protocol-version": "2099-01-01", **_routing("tools/list")})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32022
    assert r.json()["error"]["data"] == {"supported": ALL_VERSIONS, "requested": "2099-01-01"}


@rust_only
def test_http_modern_post_without_mcp_method_is_32020(http_server):
    """rmcp requires the Mcp-Method routing header on 2026-07-28 POSTs."""
    r = _post(http_server.url, _modern("tools/list"), MODERN_HEADERS)
    assert r.status_code == 400
    assert r.json()["error"] == {"code": -32020, "message": "missing required Mcp-Method header"}


# The server reports its crate's version (env!("CARGO_PKG_VERSION")), which is the workspace's.
WORKSPACE_VERSION = tomllib.loads(
    (pathlib.Path(__file__).resolve().parents[3] / "Cargo.toml").read_text()
)["workspace"]["package"]["version"]


@rust_only
def test_http_modern_tools_call_is_plain_json(http_server):
    r = _post(
        http_server.url,
        _modern("tools/call", {"name": "greet", "arguments": {}}),
        {**MODERN_HEADERS, "mcp-method": "tools/call", "mcp-name": "greet"},
    )
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    result = r.json()["result"]
    assert result["resultType"] == "input_required"
    assert result["_meta"] == {"io.modelcontextprotocol/serverInfo": {"name": "booking", "version": WORKSPACE_VERSION}}


def test_http_missing_capability_is_400(http_server):
    r = _post(
        http_server.url,
        _modern("tools/call", {"name": "greet", "arguments": {}}, caps={"elicitation": {"url": {}}}),
        {**MODERN_HEADERS, "mcp-method": "tools/call", "mcp-name": "greet"},
    )
    assert r.status_code == 400
    assert r.json()["error"]["code"] == -32021


@rust_only
def test_http_handshake_needs_a_session(http_server):
    r = _post(http_server.url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"mcp-protocol-version": HANDSHAKE})
    assert r.status_code == 400
    assert r.text == "Bad Request: Session ID is required"


@rust_only
def test_http_get_stream_is_not_offered(http_server):
    assert httpx2.get(http_server.url, timeout=10).status_code == 406
    r = httpx2.get(http_server.url, headers={"accept": "text/event-stream"}, timeout=10)
    assert (r.status_code, r.text) == (400, "Bad Request: Session ID is required")


def test_http_notification_is_accepted(http_server):
    r = _post(
        http_server.url,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {**MODERN_HEADERS, **_routing("notifications/initialized")},
    )
    assert r.status_code == 202


def _stdio_exchange(lines: list[dict]) -> list[dict]:
    import subprocess

    p = subprocess.run(
        [*SERVER_CMD, "--stdio"],
        input="".join(json.dumps(m) + "\n" for m in lines),
        capture_output=True,
        text=True,
        timeout=20,
    )
    return [json.loads(x) for x in p.stdout.splitlines() if x.strip()]


@rust_only
def test_stdio_modern_connection_refuses_initialize(server_bin):
    init = {"jsonrpc": "2.0", "id": 2, "method": "initialize",
            "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
    out = _stdio_exchange([_modern("server/discover"), init])
    # discover is a bootstrap probe on rmcp (rmcp#1248): the handshake may still follow.
    assert out[0]["result"]["supportedVersions"] == ALL_VERSIONS
    assert out[1]["result"]["protocolVersion"] == HANDSHAKE


@rust_only
def test_stdio_legacy_connection_refuses_enveloped_requests(server_bin):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    out = _stdio_exchange([init, _modern("tools/list"), ping])
    assert out[0]["result"]["protocolVersion"] == HANDSHAKE
    assert out[0]["result"]["serverInfo"]["name"] == "booking"
    # rmcp serves a request carrying its own 2026-07-28 _meta inline.
    assert [t["name"] for t in out[1]["result"]["tools"]] == ["book_flight", "greet", "order"]
    assert out[1]["result"]["resultType"] == "complete"
    assert out[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}
