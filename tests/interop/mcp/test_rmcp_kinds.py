"""Sampling, roots and URL-mode parameters (elicit-rmcp-server --conformance) with the real
fastmcp.Client 4.1.6, both eras and both transports: the client's sampling handler and
roots answer the engine's declared requests, batched with a form question on
2026-07-28 and one at a time on the handshake era; a client that declares no sampling
gets -32021 before anything is asked."""

from __future__ import annotations

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp.shared.exceptions import MCPError

from conftest import HttpServer, Script, run, stdio_transport

both_eras = pytest.mark.parametrize("mode", ["auto", "legacy"])
both_transports = pytest.mark.parametrize("transport", ["stdio", "http"])
ROOTS = ["file:///work/a", "file:///work/b"]


@pytest.fixture(scope="module")
def conformance_server(server_bin):
    with HttpServer("--conformance") as s:
        yield s


class Sampler:
    """A sampling handler that answers by the prompt's text and records the prompts."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers
        self.prompts: list[str] = []

    async def __call__(self, messages, params, context):
        text = messages[0].content.text
        self.prompts.append(text)
        return self.answers[text]


def client(transport, mode, conformance_server, **handlers) -> Client:
    if transport == "stdio":
        t = stdio_transport("--conformance")
    else:
        t = StreamableHttpTransport(conformance_server.url)
    return Client(t, mode=mode, timeout=30, **handlers)


@both_transports
@both_eras
def test_sampling_parameter_is_answered_by_the_clients_model(conformance_server, transport, mode):
    sampler = Sampler({"Tell me a joke": "Why did the chicken cross the road?"})

    async def go():
        async with client(transport, mode, conformance_server, sampling_handler=sampler) as c:
            return await c.call_tool("test_sampling", {"prompt": "Tell me a joke"})

    r = run(go())
    assert r.content[0].text == "LLM response: Why did the chicken cross the road?"
    assert sampler.prompts == ["Tell me a joke"]


@both_transports
@both_eras
def test_form_sampling_and_roots_in_one_call(conformance_server, transport, mode):
    sampler = Sampler({"Generate a greeting": "Hello there!"})
    script = Script({"What is your name?": {"name": "Ada"}})

    async def go():
        async with client(
            transport, mode, conformance_server,
            sampling_handler=sampler, elicitation_handler=script, roots=ROOTS,
        ) as c:
            return await c.call_tool("test_input_required_result_multiple_inputs", {})

    r = run(go())
    assert r.content[0].text == "Name: Ada; Greeting: Hello there!; Roots: 2"
    assert sampler.prompts == ["Generate a greeting"]
    assert script.asked == ["What is your name?"]


@both_transports
@both_eras
def test_roots_parameter_settles_to_the_clients_roots(conformance_server, transport, mode):
    async def go():
        async with client(transport, mode, conformance_server, roots=ROOTS) as c:
            return await c.call_tool("test_input_required_result_list_roots", {})

    r = run(go())
    assert r.content[0].text == "Found 2 root(s)"


@both_transports
@both_eras
def test_no_sampling_capability_is_32021(conformance_server, transport, mode):
    async def go():
        async with client(transport, mode, conformance_server) as c:
            return await c.call_tool("test_missing_capability", {})

    with pytest.raises(MCPError) as e:
        run(go())
    assert e.value.error.code == -32021
    assert e.value.error.data == {"requiredCapabilities": {"sampling": {}}}


class UrlVisitor:
    """An elicitation handler for URL mode: records (message, url) and answers `action`."""

    def __init__(self, action: str):
        self.action = action
        self.seen: list[tuple[str, str, str | None]] = []
        self.ids: list[str | None] = []

    async def __call__(self, message, response_type, params, context):
        from fastmcp.client.elicitation import ElicitResult

        self.seen.append((params.mode, message, getattr(params, "url", None)))
        self.ids.append(getattr(params, "elicitation_id", None))
        return ElicitResult(action=self.action)


class Notes:
    """A message handler that records the server's notifications (method, params)."""

    def __init__(self):
        self.seen: list[tuple[str, object]] = []

    async def __call__(self, message):
        method = getattr(message, "method", None)
        if method is not None:
            self.seen.append((method, getattr(message, "params", None)))


@both_transports
@both_eras
@pytest.mark.parametrize("action,text", [("accept", "Payment started"), ("decline", "Not paid")])
def test_url_mode_parameter_settles_to_the_action(conformance_server, transport, mode, action, text):
    visitor = UrlVisitor(action)
    notes = Notes()

    async def go():
        async with client(
            transport, mode, conformance_server, elicitation_handler=visitor, message_handler=notes
        ) as c:
            return await c.call_tool("test_url_elicitation", {"order": "A17"})

    r = run(go())
    assert r.content[0].text == text
    assert visitor.seen == [("url", "Pay for order A17", "https://pay.example/orders/A17")]
    completions = [p for m, p in notes.seen if m == "notifications/elicitation/complete"]
    if mode == "legacy" and action == "accept":
        # 2025-11-25: the accepted URL flow ends with the completion notification, naming
        # the request's elicitationId (elicit's digest of the question: 22 characters).
        (eid,) = visitor.ids
        assert eid is not None and len(eid) == 22
        assert [p.elicitation_id for p in completions] == [eid]
    else:
        # Declined: nothing completed. 2026-07-28: the retry carrying accept is the
        # completion; the request is stateless, with no channel for a notification.
        assert completions == []
