"""The firmware MCP agent (examples/firmware-agent on QEMU's mps2-an386, microbit and
sifive_e boards, launched by scripts/dev-agent-qemu.sh --board NAME as a stdio server
command) against the real fastmcp.Client 4.1.6. Every test runs once per board.

The checks of test_booking_server.py that apply to a stdio server run here unchanged:
each wrapper below calls the server test's own body with a `connect` that starts
the agent instead (so the two servers are held to the same assertions), in both eras.
Then what only the agent has: a mixed fleet (rounds sealed by elicit-rmcp-server resume on
the agent and the other way round, sharing ELICIT_STATE_KEYS), its nonce scheme, its
provisioned clock, and its bounded line buffer.

The boards: $ELICIT_AGENT_BOARDS (comma-separated; default all three); each board's image
is <$ELICIT_AGENT_DIR>/<its target>/release/elicit-agent (scripts/test-mcp.sh builds them
into target/agent).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

import mcp_types
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.shared.exceptions import MCPError

import test_booking_server as booking
from conftest import HANDSHAKE, KEY_A, KEY_B, MODERN, PARIS, PARIS_BOOKED, Script, run, stdio_transport

REPO = Path(__file__).resolve().parents[3]
LAUNCHER = REPO / "scripts" / "dev-agent-qemu.sh"

both_eras = pytest.mark.parametrize("mode", ["auto", "legacy"])

TARGETS = {
    "mps2-an386": "thumbv7em-none-eabihf",
    "microbit": "thumbv6m-none-eabi",
    "sifive_e": "riscv32imc-unknown-none-elf",
}
BOARDS = [b.strip() for b in os.environ.get("ELICIT_AGENT_BOARDS", ",".join(TARGETS)).split(",") if b.strip()]

# The board of the running test (set by the agent_image fixture, module scope).
_image: tuple[str, str] | None = None


def launcher() -> list[str]:
    """The launcher's command line for the current board and its image."""
    assert _image is not None, "a test that starts the agent must use the agent_image fixture"
    board, elf = _image
    return ["bash", str(LAUNCHER), "--board", board, "--elf", elf]


def agent_transport(keys: str | None = None, **env_extra: str) -> StdioTransport:
    env = dict(os.environ)
    env.pop("ELICIT_STATE_KEYS", None)
    if keys is not None:
        env["ELICIT_STATE_KEYS"] = keys
    # The client closes stdin only after its last answer: stop QEMU at once.
    env["ELICIT_AGENT_LINGER"] = "0"
    env.update(env_extra)
    cmd = launcher()
    return StdioTransport(cmd[0], cmd[1:], env=env, keep_alive=False)


@pytest.fixture(scope="module", params=BOARDS)
def agent_image(request):
    """The board under test and its image (every test of this module runs per board)."""
    global _image
    board = request.param
    if board not in TARGETS:
        pytest.fail(f"ELICIT_AGENT_BOARDS names an unknown board {board!r}; boards: {', '.join(TARGETS)}")
    root = os.environ.get("ELICIT_AGENT_DIR", str(REPO / "target" / "agent"))
    elf = os.path.join(root, TARGETS[board], "release", "elicit-agent")
    if not os.path.isfile(elf):
        pytest.fail(f"no agent image for {board} at {elf}; run scripts/test-mcp.sh (it builds them)")
    _image = (board, elf)
    yield _image
    _image = None


@pytest.fixture
def agent(agent_image):
    """connect(transport, mode, handler=None) -> fastmcp.Client on a fresh agent (the
    server tests' `connect`; `transport` is ignored: the agent is stdio)."""

    def make(transport: str, mode: str, handler=None, *server_args: str, keys=None) -> Client:
        assert not server_args, "the agent takes no server arguments"
        return Client(agent_transport(keys), elicitation_handler=handler, mode=mode, timeout=30)

    return make


# ---------------------------------------------------------------------------------------
# The server's checks, on the agent


@both_eras
def test_negotiates_the_expected_era(agent, mode):
    booking.test_negotiates_the_expected_era(agent, "stdio", mode)


@both_eras
def test_tools_list_hides_elicited_parameters(agent, mode):
    booking.test_tools_list_hides_elicited_parameters(agent, "stdio", mode)


@both_eras
def test_book_flight_accepts_every_answer(agent, mode):
    booking.test_book_flight_accepts_every_answer(agent, "stdio", mode)


def test_modern_rounds_batch_independent_questions(agent):
    booking.test_modern_rounds_batch_independent_questions(agent, "stdio")


def test_handshake_asks_one_question_at_a_time_in_resolution_order(agent):
    booking.test_handshake_asks_one_question_at_a_time_in_resolution_order(agent, "stdio")


@both_eras
def test_question_schemas(agent, mode):
    booking.test_question_schemas(agent, "stdio", mode)


@both_eras
def test_london_asks_no_airport(agent, mode):
    booking.test_london_asks_no_airport(agent, "stdio", mode)


@both_eras
def test_declining_proceed_cancels_the_booking(agent, mode):
    booking.test_declining_proceed_cancels_the_booking(agent, "stdio", mode)


@both_eras
@pytest.mark.parametrize("refusal", [booking.DECLINE, booking.CANCEL], ids=["decline", "cancel"])
def test_refused_seat_takes_its_default(agent, mode, refusal):
    booking.test_refused_seat_takes_its_default(agent, "stdio", mode, refusal)


@both_eras
@pytest.mark.parametrize(
    "refusal,word", [(booking.DECLINE, "declined"), (booking.CANCEL, "cancelled")], ids=["decline", "cancel"]
)
def test_refused_required_answer_fails_the_call(agent, mode, refusal, word):
    # The agent keeps the reference's text (elicit-rmcp's differs: docs/deviations.md, 7).
    expected = (
        f"Cannot continue without 'destination': the request was {word}. "
        "Give the parameter a default to make it optional."
    )
    booking.check_refused_required_answer(agent, "stdio", mode, refusal, expected)


@both_eras
def test_answer_outside_the_schema_fails_the_call(agent, mode):
    expected = "The answer for 'proceed' does not match the requested schema"
    booking.check_answer_outside_the_schema(agent, "stdio", mode, expected)


@both_eras
def test_greet(agent, mode):
    booking.test_greet(agent, "stdio", mode)


@both_eras
def test_order_asks_about_the_model_supplied_item(agent, mode):
    booking.test_order_asks_about_the_model_supplied_item(agent, "stdio", mode)


@both_eras
@pytest.mark.parametrize("answer, text", booking.WHOLE_FLOATS)
def test_whole_float_answers_read_as_integers(agent, mode, answer, text):
    booking.test_whole_float_answers_read_as_integers(agent, "stdio", mode, answer, text)


@both_eras
def test_order_without_item_is_a_tool_error(agent, mode):
    booking.test_order_without_item_is_a_tool_error(agent, "stdio", mode)


@both_eras
def test_unknown_tool_is_a_tool_error(agent, mode):
    booking.test_unknown_tool_is_a_tool_error(agent, "stdio", mode)


@both_eras
def test_client_without_handler_gets_missing_capability(agent, mode):
    booking.test_client_without_handler_gets_missing_capability(agent, "stdio", mode)


@both_eras
def test_client_that_fails_to_answer(agent, mode):
    booking.test_client_that_fails_to_answer(agent, "stdio", mode)


def test_client_without_handler_needs_no_capability_when_nothing_is_asked(agent):
    booking.test_client_without_handler_needs_no_capability_when_nothing_is_asked(agent, "stdio")


def test_manual_driver_gets_the_ask_back(agent):
    booking.test_manual_driver_gets_the_ask_back(agent, "stdio")


@pytest.mark.parametrize(
    "forge",
    [booking.tamper, lambda t: t[:-2], lambda t: "", lambda t: t + "A", lambda t: "v2." + t[3:]],
    ids=["flipped", "truncated", "empty", "extended", "prefix"],
)
def test_tampered_request_state_is_rejected(agent, forge):
    booking.test_tampered_request_state_is_rejected(agent, "stdio", forge)


def test_request_state_is_bound_to_tool_and_arguments(agent):
    booking.test_request_state_is_bound_to_tool_and_arguments(agent, "stdio")


# ---------------------------------------------------------------------------------------
# Mixed fleet: elicit-rmcp-server and the agent share ELICIT_STATE_KEYS


def server_client(keys: str) -> Client:
    """An elicit-rmcp-server over stdio; rounds are driven by hand (the handler only declares
    the capability)."""
    return Client(stdio_transport(keys=keys), elicitation_handler=Script({}), mode="auto", timeout=30)


def agent_client(keys: str, **env) -> Client:
    return Client(agent_transport(keys, **env), elicitation_handler=Script({}), mode="auto", timeout=30)


def accept(value) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"value": value})


def answers_for(result: mcp_types.InputRequiredResult, by_message: dict) -> dict:
    return {k: accept(by_message[r.params.message]) for k, r in result.input_requests.items()}


@pytest.mark.parametrize("order", [("server", "agent"), ("agent", "server")], ids=["server-first", "agent-first"])
def test_rounds_alternate_between_server_and_agent(agent_image, server_bin, order):
    """book_flight's three rounds alternate between the two processes (the key ring is
    a rotation ring on one side: [B, A] opens A's tokens); every round's questions and the
    result are the ones a single server gives."""
    rings = {"server": f"{KEY_A},{KEY_B}", "agent": f"{KEY_B},{KEY_A}"}

    async def go():
        clients = {
            "server": server_client(rings["server"]),
            "agent": agent_client(rings["agent"]),
        }
        async with clients["server"] as s, clients["agent"] as a:
            sides = {"server": s, "agent": a}
            assert s.protocol_version == MODERN and a.protocol_version == MODERN
            seen = []
            state, replies = None, None
            for i in range(3):
                c = sides[order[i % 2]]
                r = await c.session.call_tool(
                    "book_flight", {}, allow_input_required=True,
                    input_responses=replies, request_state=state,
                )
                if isinstance(r, mcp_types.InputRequiredResult):
                    seen.append(sorted(q.params.message for q in r.input_requests.values()))
                    state, replies = r.request_state, answers_for(r, PARIS)
                else:
                    return seen, r
            raise AssertionError("book_flight did not finish in three rounds")

    seen, done = run(go())
    assert seen == [
        sorted(["Where would you like to fly?", "When would you like to fly?", "Window or aisle?"]),
        sorted(["Which airport in Paris?", "Book a flight to Paris on 2026-08-01?"]),
    ]
    assert isinstance(done, mcp_types.CallToolResult)
    assert done.structured_content == {"result": PARIS_BOOKED}


def test_a_token_of_another_key_ring_is_rejected_across_the_fleet(agent_image, server_bin):
    async def go():
        async with server_client(KEY_A) as s, agent_client(KEY_B) as a:
            first = await booking.first_round(s, "greet", {})
            with pytest.raises(MCPError) as e:
                await a.session.call_tool(
                    "greet", {}, allow_input_required=True,
                    input_responses={"name": accept("Eve")}, request_state=first.request_state,
                )
            booking.assert_invalid_state(e)

    run(go())


# ---------------------------------------------------------------------------------------
# The agent's nonces and clock (examples/firmware-agent/src/provision.rs)


def token_nonce(token: str) -> bytes:
    assert token.startswith("v1.")
    body = token[3:]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    return raw[4:16]  # kid (4) | nonce (12) | ciphertext+tag


def test_nonces_are_the_boot_seed_then_a_counter(agent_image):
    """Within a boot: one 8-byte seed, then the seal counter 0, 1, 2, ... big-endian.
    Across boots: a fresh seed each time."""

    async def tokens(n: int) -> list[str]:
        async with agent_client(KEY_A) as a:
            return [(await booking.first_round(a, "greet", {})).request_state for _ in range(n)]

    boot1 = [token_nonce(t) for t in run(tokens(3))]
    boot2 = [token_nonce(t) for t in run(tokens(2))]
    for boot in (boot1, boot2):
        assert len({n[:8] for n in boot}) == 1
        assert [int.from_bytes(n[8:], "big") for n in boot] == list(range(len(boot)))
    assert boot1[0][:8] != boot2[0][:8]
    assert len(set(boot1 + boot2)) == 5


def test_tokens_from_an_agent_whose_clock_is_behind_have_expired(agent_image, server_bin):
    """The device's `now` is the provisioned start time plus its 100 Hz counter: started
    700 s in the past, it mints tokens that expired 100 s ago (600 s lifetime), which the
    agent and elicit-rmcp-server both refuse; a token it mints with the right time is taken."""
    past = str(int(time.time() * 1000) - 700_000)

    async def go():
        async with agent_client(KEY_A, ELICIT_AGENT_START_MS=past) as old, agent_client(KEY_A) as a, \
                server_client(KEY_A) as s:
            stale = await booking.first_round(old, "greet", {})
            fresh = await booking.first_round(a, "greet", {})
            for c in (a, s):
                with pytest.raises(MCPError) as e:
                    await c.session.call_tool(
                        "greet", {}, allow_input_required=True,
                        input_responses={"name": accept("Eve")}, request_state=stale.request_state,
                    )
                booking.assert_invalid_state(e)
            done = await s.session.call_tool(
                "greet", {}, allow_input_required=True,
                input_responses={"name": accept("Ada")}, request_state=fresh.request_state,
            )
            assert done.structured_content == {"result": "Hello, Ada"}

    run(go())


# ---------------------------------------------------------------------------------------
# Raw stdio: what the client does not exercise


def exchange(lines: list[str | bytes | dict], replies: int) -> list[dict]:
    """Send `lines` to a fresh agent and read `replies` lines back (responses and the
    agent's own `elicitation/create` requests), keeping stdin open until they arrived."""
    env = {**os.environ, "ELICIT_STATE_KEYS": KEY_A, "ELICIT_AGENT_LINGER": "0"}
    p = subprocess.Popen(
        launcher(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env,
    )
    out = []
    try:
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line)
            if isinstance(line, str):
                line = line.encode()
            p.stdin.write(line + b"\n")
        p.stdin.flush()
        for _ in range(replies):
            reply = p.stdout.readline()
            assert reply, f"the agent answered {len(out)} lines of {replies}: {out}"
            out.append(json.loads(reply))
    finally:
        p.stdin.close()
        p.wait(timeout=20)
    return out


def _modern(method, params=None, id=7, caps=None):
    return booking._modern(method, params, caps) | {"id": id}


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": HANDSHAKE, "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "x", "version": "0"}}}


def test_modern_connection_refuses_initialize(agent_image):
    out = exchange([_modern("server/discover"), INIT], 2)
    assert out[0]["result"]["supportedVersions"] == [MODERN]
    assert out[1]["error"]["code"] == -32022
    assert out[1]["error"]["data"] == {"supported": [MODERN], "requested": HANDSHAKE}


def test_legacy_connection_refuses_enveloped_requests(agent_image):
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    out = exchange([INIT, _modern("tools/list"), ping], 3)
    assert out[0]["result"]["protocolVersion"] == HANDSHAKE
    assert out[0]["result"]["serverInfo"]["name"] == "booking"
    assert out[1]["error"]["code"] == -32600
    assert out[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_modern_envelope_version_and_methods(agent_image):
    no_meta = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    future = _modern("tools/list", id=2)
    future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    out = exchange([_modern("server/discover", id=0), no_meta, future, _modern("ping", id=3)], 4)
    assert out[1]["error"]["code"] == -32602
    assert out[2]["error"] == {"code": -32022, "message": "Unsupported protocol version",
                               "data": {"supported": [MODERN], "requested": "2099-01-01"}}
    assert out[3]["error"] == {"code": -32601, "message": "Method not found", "data": "ping"}


def test_over_long_and_malformed_lines_get_errors_and_the_agent_reads_on(agent_image):
    long_ping = {"jsonrpc": "2.0", "id": 41, "method": "ping", "params": {"pad": "x" * 5000}}
    out = exchange([
        INIT,
        json.dumps(long_ping),
        "x" * 20000,
        "{not json",
        '"just a string"',
        '{"jsonrpc":"1.0","id":5,"method":"ping"}',
        '{"jsonrpc":"2.0","id":6}',
        b"\xff\xfe",
        "[" * 200 + "]" * 200,
        {"jsonrpc": "2.0", "id": 9, "method": "ping"},
    ], 10)
    too_long = "Request too large: the agent reads JSON-RPC lines of at most 2560 bytes"
    assert out[1] == {"jsonrpc": "2.0", "id": 41, "error": {"code": -32600, "message": too_long}}
    assert out[2] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": too_long}}
    assert [o["error"]["code"] for o in out[3:9]] == [-32700, -32600, -32600, -32600, -32700, -32700]
    assert all(o["id"] is None for o in out[3:9])
    assert out[9] == {"jsonrpc": "2.0", "id": 9, "result": {}}


def test_handshake_answers_ping_while_it_waits_for_an_answer(agent_image):
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}
    out = exchange([
        INIT,
        call,  # -> elicitation/create id 1
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
        {"jsonrpc": "2.0", "id": 99, "result": {"action": "accept", "content": {"value": "nobody"}}},
        {"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"value": "Ada"}}},
    ], 5)
    assert out[1]["method"] == "elicitation/create" and out[1]["id"] == 1
    assert out[2] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert out[3]["id"] == 4 and out[3]["error"]["code"] == -32000
    assert out[4]["id"] == 2 and out[4]["result"]["structuredContent"] == {"result": "Hello, Ada"}


def test_the_agent_refuses_to_start_with_bad_keys(agent_image):
    for keys in ["ab" * 31, "zz" * 32, "ab" * 32 + ",", ",".join(["ab" * 32] * 3)]:
        p = subprocess.run(
            launcher(), input="", capture_output=True, text=True, timeout=20,
            env={**os.environ, "ELICIT_STATE_KEYS": keys},
        )
        assert p.returncode == 2, keys
        assert "ELICIT_STATE_KEYS" in p.stderr


@pytest.mark.parametrize("era", ["modern", "handshake"])
def test_mutated_requests_never_stop_the_agent(agent_image, era):
    """Seeded byte flips, truncations and splices of real requests (a sealed round-2
    book_flight call among them): the agent answers or ignores each, and still answers a
    ping after all of them (a panic would halt it: the final ping would go unanswered)."""
    import random
    import threading

    rng = random.Random(18)
    calls = [
        {"name": "book_flight", "arguments": {}},
        {"name": "order", "arguments": {"item": "apples"}},
        {"name": "book_flight", "arguments": {}, "requestState": "v1." + "A" * 300,
         "inputResponses": {"destination": {"action": "accept", "content": {"value": "Paris"}},
                            "date": {"action": "decline"}, "seat": {"action": "cancel"}}},
    ]
    if era == "modern":
        first = [_modern("server/discover", id=0)]
        seeds = [json.dumps(_modern("tools/call", c, id=i + 1)) for i, c in enumerate(calls)]
        final = _modern("tools/list", id=424242)
    else:
        first = [INIT]
        seeds = [json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": c})
                 for i, c in enumerate(calls)]
        final = {"jsonrpc": "2.0", "id": 424242, "method": "ping"}
    lines = []
    for _ in range(150):
        b = bytearray(rng.choice(seeds).encode())
        for _ in range(rng.randint(1, 4)):
            op, at = rng.randrange(3), rng.randrange(len(b))
            if op == 0:
                b[at] = rng.randrange(256)
            elif op == 1:
                del b[at:at + rng.randint(1, 40)]
            else:
                b[at:at] = rng.choice(seeds).encode()[: rng.randint(1, 60)]
        lines.append(bytes(c for c in b if c != 0x0A))
    env = {**os.environ, "ELICIT_STATE_KEYS": KEY_A, "ELICIT_AGENT_LINGER": "0"}
    p = subprocess.Popen(launcher(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    seen = []
    done = threading.Event()

    def read():
        for raw in p.stdout:
            msg = json.loads(raw)
            seen.append(msg)
            if msg.get("method") == "elicitation/create":
                # Handshake asks: answer each one (declined) so the call ends.
                p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                          "result": {"action": "decline"}}).encode() + b"\n")
                p.stdin.flush()
            if msg.get("id") == 424242:
                done.set()
                return

    t = threading.Thread(target=read, daemon=True)
    t.start()
    try:
        for line in [json.dumps(m).encode() for m in first] + lines + [json.dumps(final).encode()]:
            p.stdin.write(line + b"\n")
            p.stdin.flush()
        assert done.wait(120), f"no answer to the final request; last lines: {seen[-3:]}"
    finally:
        p.stdin.close()
        p.wait(timeout=20)
    assert not any(m.get("error", {}).get("message", "").startswith("Internal error: the agent stopped") for m in seen)
    assert len(seen) > 20
