"""Bad input never ends a connection or the process.

stdio: malformed JSON, invalid UTF-8, wrong id types, non-object messages and an
oversized line, each followed by a good request on the same connection. HTTP: the same
plus an oversized body, then a good request to the same process; abandoned sessions
expire. Replayed sealed state replays its round (stateless by design) and never mixes
into another call. The server is $ELICIT_SERVER_CMD (conftest.py: the Rust server by
default; scripts/test-ts-server.sh runs the TypeScript one, scripts/test-c-server.sh the
C one over stdio).
"""

from __future__ import annotations

import json
import subprocess
import time

import httpx2
import mcp_types
import pytest

from conftest import HANDSHAKE, MODERN, SERVER_CMD, HttpServer, Script, run


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
PING = {"jsonrpc": "2.0", "id": 99, "method": "ping"}

BAD_LINES = [
    b"{not json",
    b"\xff\xfe\x80 invalid utf-8",
    b'{"jsonrpc":"2.0","id":"\xc3\x28","method":"ping"}',
    json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": [1], "method": "tools/list"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": True, "method": "ping"}).encode(),
    json.dumps([1, 2, 3]).encode(),
    json.dumps("just a string").encode(),
    json.dumps({"jsonrpc": "1.0", "id": 5, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 6}).encode(),
    b"{" + b'"a":' * 10 + b"1",
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":' + b"[" * 5000 + b"]" * 5000 + b"}",
]


def stdio_session(lines: list[bytes]) -> tuple[list[dict], int]:
    p = subprocess.run(
        [*SERVER_CMD, "--stdio"], input=b"".join(line + b"\n" for line in lines),
        capture_output=True, timeout=30,
    )
    out = [json.loads(x) for x in p.stdout.decode().splitlines() if x.strip()]
    return out, p.returncode


@pytest.mark.parametrize("bad", BAD_LINES, ids=[f"line{i}" for i in range(len(BAD_LINES))])
def test_stdio_survives_bad_line_before_handshake(server_bin, bad):
    out, code = stdio_session([bad, json.dumps(INIT).encode(), json.dumps(PING).encode()])
    assert code == 0
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in out
    # Every reply to the bad line is a JSON-RPC error, never a result.
    for msg in out:
        if msg.get("id") not in (1, 99):
            assert "error" in msg and isinstance(msg["error"]["code"], int), msg


@pytest.mark.parametrize("bad", BAD_LINES, ids=[f"line{i}" for i in range(len(BAD_LINES))])
def test_stdio_survives_bad_line_after_handshake(server_bin, bad):
    out, code = stdio_session([json.dumps(INIT).encode(), bad, json.dumps(PING).encode()])
    assert code == 0
    # Replies may come in any order (JSON-RPC); the handshake's is there.
    assert any(m.get("id") == 1 and "result" in m for m in out)
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in out


def test_stdio_survives_an_oversized_line(server_bin):
    huge = b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"' + b"x" * (12 * 1024 * 1024) + b'"}}'
    out, code = stdio_session([json.dumps(INIT).encode(), huge, json.dumps(PING).encode()])
    assert code == 0
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in out


#: Lines JSON-RPC never answers (responses nobody asked for, notifications the server does
#: not know); before the handshake rmcp alone would end the process on them.
NEVER_ANSWERED = [
    json.dumps({"jsonrpc": "2.0", "id": 77, "result": {}}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 78, "error": {"code": -1, "message": "stray"}}).encode(),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/no_such_thing", "params": {"x": 1}}).encode(),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 5}).encode(),
]


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("line", NEVER_ANSWERED, ids=["result", "error", "notification", "bad-notification"])
def test_stdio_ignores_stray_responses_and_unknown_notifications(server_bin, line, where):
    lines = [line, json.dumps(INIT).encode()] if where == "before" else [json.dumps(INIT).encode(), line]
    out, code = stdio_session([*lines, json.dumps(PING).encode()])
    assert code == 0
    assert [m.get("id") for m in out] == [1, 99], out


def test_stdio_answers_what_it_cannot_serve_with_the_request_id(server_bin):
    bad_params = {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": 5}
    old_version = {"jsonrpc": "1.0", "id": 13, "method": "ping"}
    out, code = stdio_session([json.dumps(INIT).encode(), json.dumps(bad_params).encode(),
                               json.dumps(old_version).encode(), json.dumps(PING).encode()])
    assert code == 0
    codes = {m["id"]: m["error"]["code"] for m in out if "error" in m}
    assert codes == {12: -32602, 13: -32600}


def test_stdio_answers_a_16_mib_line_naming_the_limit(server_bin):
    huge = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"pad":"' \
        + b"x" * (16 * 1024 * 1024) + b'"}}}'
    out, code = stdio_session([json.dumps(INIT).encode(), huge, json.dumps(PING).encode()])
    assert code == 0
    [err] = [m for m in out if m.get("id") == 3]
    assert err["error"]["code"] == -32600 and str(8 * 1024 * 1024) in err["error"]["message"]
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in out


def test_http_abandoned_sessions_expire_and_past_the_cap_the_least_recently_used_ends(server_bin):
    """Sessions a client opened and left: one unused for --session-keep-alive ends, and a
    new one past --max-sessions ends the one used least recently (404 after)."""
    accept = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with HttpServer("--session-keep-alive", "1.5", "--max-sessions", "3") as s:

        def open_session():
            r = httpx2.post(s.url, content=json.dumps(INIT), headers=accept, timeout=10)
            assert r.status_code == 200
            return r.headers["mcp-session-id"]

        def ping(sid):
            headers = {**accept, "mcp-session-id": sid, "mcp-protocol-version": HANDSHAKE}
            return httpx2.post(s.url, content=json.dumps(PING), headers=headers, timeout=10).status_code

        a, b, c = open_session(), open_session(), open_session()
        assert ping(a) == 200
        d = open_session()  # past the cap: b is the one used least recently
        assert ping(b) == 404
        assert [ping(x) for x in (a, c, d)] == [200, 200, 200]
        time.sleep(2.5)
        assert [ping(x) for x in (a, c, d)] == [404, 404, 404]
        _alive(s.url)


def test_http_delete_of_an_unknown_session_is_404(http_server):
    headers = {"mcp-session-id": "forged-0000", "mcp-protocol-version": HANDSHAKE}
    assert httpx2.delete(http_server.url, headers=headers, timeout=10).status_code == 404
    _alive(http_server.url)


def _modern_body(method, params=None, rid=7):
    p = dict(params or {})
    p["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "0"},
    }
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}


def _headers(method):
    return {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN, "mcp-method": method}


def _alive(url):
    r = httpx2.post(url, content=json.dumps(_modern_body("tools/list")), headers=_headers("tools/list"), timeout=10)
    assert r.status_code == 200
    assert len(r.json()["result"]["tools"]) == 3


HTTP_BAD = [
    b"{not json",
    b"\xff\xfe\x80",
    b"",
    json.dumps([1, 2]).encode(),
    json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": None, "method": "tools/list"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "nope"}).encode(),
    json.dumps(_modern_body("tools/call", {"name": "greet", "arguments": [1]})).encode(),
    json.dumps(_modern_body("tools/call", {"name": "greet", "arguments": {}, "inputResponses": [1]})).encode(),
    json.dumps(_modern_body("tools/call", {"name": "greet", "arguments": {}, "requestState": 12})).encode(),
]


@pytest.mark.parametrize("bad", HTTP_BAD, ids=[f"body{i}" for i in range(len(HTTP_BAD))])
def test_http_bad_body_is_an_error_and_the_server_lives(http_server, bad):
    method = "tools/call" if b"tools/call" in bad else "tools/list"
    r = httpx2.post(http_server.url, content=bad, headers=_headers(method), timeout=10)
    assert 400 <= r.status_code < 500 or (r.status_code == 200 and "error" in r.json())
    if r.headers.get("content-type", "").startswith("application/json"):
        assert "error" in r.json()
    _alive(http_server.url)


def test_http_oversized_body_is_413_and_the_server_lives(http_server):
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + b"x" * (5 * 1024 * 1024) + b'"}}'
    r = httpx2.post(http_server.url, content=body, headers=_headers("tools/list"), timeout=30)
    assert r.status_code == 413
    _alive(http_server.url)


def test_replayed_state_replays_its_own_round_only(connect):
    """A sealed token is stateless: sent again it yields the same round again (the
    answers it carries, nothing more); on another tool or arguments it is refused."""

    async def go():
        async with connect("http", "auto", Script({})) as c:
            first = await c.session.call_tool("greet", {}, allow_input_required=True)
            again = await c.session.call_tool("greet", {}, allow_input_required=True,
                                              request_state=first.request_state)
            assert isinstance(again, mcp_types.InputRequiredResult)
            assert list(again.input_requests) == ["name"]
            answer = {"name": mcp_types.ElicitResult(action="accept", content={"value": "Ada"})}
            done1 = await c.session.call_tool("greet", {}, allow_input_required=True,
                                              input_responses=answer, request_state=first.request_state)
            done2 = await c.session.call_tool("greet", {}, allow_input_required=True,
                                              input_responses=answer, request_state=first.request_state)
            return done1, done2

    d1, d2 = run(go())
    assert d1.structured_content == d2.structured_content == {"result": "Hello, Ada"}


@pytest.mark.parametrize("bad", [b"{not json", b"\xff\xfe\x80 invalid utf-8", b"[1, 2"], ids=["syntax", "utf8", "eof"])
def test_stdio_unreadable_line_is_parse_error(server_bin, bad):
    """Both servers answer an unreadable line with -32700 (id null); elicit-rmcp's stdio
    filter does it in front of rmcp, which would drop the line silently."""
    out, code = stdio_session([json.dumps(INIT).encode(), bad, json.dumps(PING).encode()])
    assert code == 0
    assert {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}} in out
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in out
