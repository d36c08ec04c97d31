"""Rounds of one call shared between the Python reference server (FastMCP 4.1.6 + the
seed's declared elicitation, tests/interop/mcp/reference_server.py) and elicit-rmcp-server
on one key ring.

The reference server runs on the oracle's python, $ELICIT_REFERENCE_PYTHON
(scripts/test-mcp.sh sets it from scripts/dev-oracle-env.sh); the Rust server comes from
$ELICIT_RMCP_SERVER_BIN. Skipped only when
$ELICIT_REFERENCE_PYTHON is not set at all (a run of the suite without the oracle).

Each round of a raw-wire call goes to the next server in turn; the same request is also
sent to the other server (a sealed token may be opened any number of times within its
lifetime), and the two answers must agree: the same `inputRequests`, and, unsealed with
the shared ring, the same claims (method, target, arguments digest, audience) and the
byte-identical plaintext engine state. So a mismatch in schema, digest or state bytes
shows up as the exact round and bytes that differ, not only as a failed call.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path

import httpx2
import pytest
from mcp.server.request_state import AESGCMRequestStateCodec
from mcp.shared.exceptions import MCPError

from conftest import KEY_A, KEY_B, MODERN, PARIS, PARIS_BOOKED, HttpServer, Script, run
from test_booking_server import alternating_client

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
REF_PY = os.environ.get("ELICIT_REFERENCE_PYTHON")
RUST_BINS = {
    "elicit-rmcp-server": os.environ.get(
        "ELICIT_RMCP_SERVER_BIN", str(REPO / "target" / "release" / "elicit-rmcp-server")
    ),
}

pytestmark = pytest.mark.skipif(
    not REF_PY,
    reason="ELICIT_REFERENCE_PYTHON not set (scripts/test-mcp.sh sets it from scripts/dev-oracle-env.sh)",
)

RING = f"{KEY_A},{KEY_B}"
CAPS = {"elicitation": {"form": {}}}
ANSWERS = {
    **PARIS,
    "Where would you like to fly?": "Paris",
    "Enter your name:": "Ada",
    "How many apples?": 2,
}
INVALID_STATE = {
    "code": -32602,
    "message": "Invalid or expired requestState",
    "data": {"reason": "invalid_request_state"},
}


def reference(keys: str | None) -> HttpServer:
    return HttpServer(keys=keys, command=[REF_PY, str(HERE / "reference_server.py")])


def rust(name: str, keys: str | None) -> HttpServer:
    binary = RUST_BINS[name]
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail(f"{name} binary {binary!r} missing; run scripts/test-mcp.sh")
    if os.path.basename(binary) != name:
        pytest.fail(f"{binary!r} is not {name}; check $ELICIT_RMCP_SERVER_BIN")
    return HttpServer(keys=keys, command=[binary])


def post(url: str, method: str, params: dict, caps: dict = CAPS) -> dict:
    """One 2026-07-28 request as fastmcp.Client sends it; the JSON-RPC response."""
    p = {
        **params,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "interop-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": caps,
        },
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        "mcp-name": params["name"],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": p}
    r = httpx2.post(url, content=json.dumps(body), headers=headers, timeout=30)
    return r.json()


def unseal(token: str) -> dict:
    """The claims of a token sealed under the shared ring (either key)."""
    return json.loads(AESGCMRequestStateCodec([bytes.fromhex(KEY_A), bytes.fromhex(KEY_B)]).unseal(token))


def replies(input_requests: dict, answers: dict) -> dict:
    return {
        key: {"action": "accept", "content": {"value": answers[req["params"]["message"]]}}
        for key, req in input_requests.items()
    }


def comparable(result: dict) -> dict:
    """A final result without `_meta.serverInfo` (each server names its own version)."""
    meta = {k: v for k, v in result.get("_meta", {}).items() if k != "io.modelcontextprotocol/serverInfo"}
    return {**result, "_meta": meta}


def drive(servers: list[HttpServer], tool: str, args: dict, answers: dict) -> tuple[dict, list[list[str]]]:
    """Drive one call, round i on servers[i % len(servers)], checking every round against
    the next server. Returns the final result and the keys asked per round."""
    params: dict = {"name": tool, "arguments": args}
    asked: list[list[str]] = []
    for i in range(8):
        here, there = servers[i % len(servers)], servers[(i + 1) % len(servers)]
        mine, theirs = post(here.url, "tools/call", params), post(there.url, "tools/call", params)
        assert "result" in mine, f"round {i + 1} on {here.url}: {mine}"
        assert "result" in theirs, f"round {i + 1} on {there.url}: {theirs}"
        res, other = mine["result"], theirs["result"]
        if res.get("resultType") != "input_required":
            assert comparable(res) == comparable(other), f"final round {i + 1} differs"
            return res, asked
        assert other.get("resultType") == "input_required", f"round {i + 1}: {other}"
        assert res["inputRequests"] == other["inputRequests"], f"round {i + 1}: questions differ"
        a, b = unseal(res["requestState"]), unseal(other["requestState"])
        for claim in ("v", "m", "t", "a", "aud"):
            assert a.get(claim) == b.get(claim), f"round {i + 1}: claim {claim!r} differs"
        assert a["aud"] == "booking" and a["m"] == "tools/call" and a["t"] == tool
        assert a["s"] == b["s"], f"round {i + 1}: plaintext state bytes differ"
        assert "p" not in a and "p" not in b  # unauthenticated: no principal claim
        asked.append(list(res["inputRequests"]))
        params = {
            "name": tool,
            "arguments": args,
            "inputResponses": replies(res["inputRequests"], answers),
            "requestState": res["requestState"],
        }
    raise AssertionError(f"{tool}: more than 8 rounds")


def text(result: dict) -> str:
    assert result["isError"] is False and result["structuredContent"] == {"result": result["content"][0]["text"]}
    return result["content"][0]["text"]


# ---------------------------------------------------------------------------------------
# The reference server alone


def test_reference_server_completes_book_flight_through_its_rounds():
    with reference(RING) as ref:
        script = Script(PARIS)
        client, _ = alternating_client([ref], script)

        async def go():
            async with client:
                assert client.protocol_version == MODERN
                return (await client.call_tool("book_flight", {})).data

        assert run(go()) == PARIS_BOOKED
        assert script.rounds == [
            ["Where would you like to fly?", "When would you like to fly?", "Window or aisle?"],
            ["Which airport in Paris?", "Book a flight to Paris on 2026-08-01?"],
        ]
        result, asked = drive([ref], "book_flight", {}, ANSWERS)
        assert text(result) == PARIS_BOOKED
        assert asked == [["destination", "date", "seat"], ["airport", "proceed"]]


# ---------------------------------------------------------------------------------------
# Rounds alternating between the reference server and a Rust server


@pytest.fixture(params=["elicit-rmcp-server"])
def pair(request):
    """The reference server and a Rust server on one ring (each seals with its own first
    key and opens both)."""
    with reference(RING) as ref, rust(request.param, f"{KEY_B},{KEY_A}") as other:
        yield ref, other


CALLS = [
    ("book_flight", {}, PARIS_BOOKED, [["destination", "date", "seat"], ["airport", "proceed"]]),
    ("greet", {}, "Hello, Ada", [["name"]]),
    ("order", {"item": "apples"}, "Ordered 2 x apples", [["quantity"]]),
]


@pytest.mark.parametrize("tool,args,want,rounds", CALLS, ids=[c[0] for c in CALLS])
def test_rounds_alternate_on_the_wire(pair, tool, args, want, rounds):
    ref, other = pair
    for servers in ([ref, other], [other, ref]):
        result, asked = drive(servers, tool, args, ANSWERS)
        assert text(result) == want
        assert [sorted(r) for r in asked] == [sorted(r) for r in rounds]
    assert not any("rejected" in line for line in ref.log + other.log)


def test_london_needs_no_airport_on_either_server(pair):
    ref, other = pair
    london = {**ANSWERS, "Where would you like to fly?": "London", "Book a flight to London on 2026-08-01?": True}
    for servers in ([ref, other], [other, ref]):
        result, asked = drive(servers, "book_flight", {}, london)
        assert text(result) == "Booked London (LHR) on 2026-08-01, seat window"
        assert [sorted(r) for r in asked] == [["date", "destination", "seat"], ["proceed"]]


def test_fastmcp_client_alternating_between_the_servers(pair):
    ref, other = pair
    for servers in ([ref, other], [other, ref]):
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
        assert alt.hits[ref.port] >= 3 and alt.hits[other.port] >= 3


# ---------------------------------------------------------------------------------------
# Tokens neither server may accept


def first_round(server: HttpServer, tool: str = "greet") -> dict:
    res = post(server.url, "tools/call", {"name": tool, "arguments": {}})["result"]
    assert res["resultType"] == "input_required"
    return res


def retry(server: HttpServer, token, tool: str = "greet") -> dict:
    return post(
        server.url,
        "tools/call",
        {
            "name": tool,
            "arguments": {},
            "inputResponses": {"name": {"action": "accept", "content": {"value": "Ada"}}},
            "requestState": token,
        },
    )


@pytest.mark.parametrize("rust_server", ["elicit-rmcp-server"])
def test_other_keys_are_refused_both_ways(rust_server):
    with reference(KEY_A) as ref, rust(rust_server, KEY_B) as other:
        for minted, opened in ((ref, other), (other, ref)):
            token = first_round(minted)["requestState"]
            assert retry(opened, token).get("error") == INVALID_STATE
            # The minting server still takes it (the refusal is the key, not the token).
            assert text(retry(minted, token)["result"]) == "Hello, Ada"


def tamper(token: str) -> str:
    """Flip one bit of the ciphertext, keeping the base64url canonical."""
    raw = bytearray(base64.urlsafe_b64decode(token[3:] + "=" * (-len(token[3:]) % 4)))
    raw[20] ^= 0x01
    return "v1." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def forge(claims: dict) -> str:
    """A token sealed with the shared ring's key around chosen claims."""
    return AESGCMRequestStateCodec([bytes.fromhex(KEY_A)]).seal(
        json.dumps(claims, separators=(",", ":")).encode()
    )


def test_forged_tokens_are_refused_by_both(pair):
    ref, other = pair
    token = first_round(ref)["requestState"]
    claims = unseal(token)
    now = time.time()
    forged = {
        "tampered ciphertext": tamper(token),
        "plaintext state": '{"v":1,"answers":{},"asked":{}}',
        "empty string": "",
        "non-string": 7,
        "other audience": forge({**claims, "iat": now, "exp": now + 600, "aud": "elsewhere"}),
        "no audience": forge({k: v for k, v in {**claims, "iat": now, "exp": now + 600}.items() if k != "aud"}),
        "other tool": forge({**claims, "iat": now, "exp": now + 600, "t": "book_flight"}),
        "expired": forge({**claims, "iat": now - 700, "exp": now - 100}),
    }
    for server in (ref, other):
        for what, bad in forged.items():
            assert retry(server, bad).get("error") == INVALID_STATE, f"{what} on {server.url}"
    # The genuine token, re-sealed by the test with fresh times, still passes on both: the
    # refusals above are for the changed claim, not the test's sealing.
    good = forge({**claims, "iat": now, "exp": now + 600})
    for server in (ref, other):
        assert text(retry(server, good)["result"]) == "Hello, Ada"
