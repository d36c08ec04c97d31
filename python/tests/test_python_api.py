"""The Python-facing contract: every exception's JSON-RPC error object, messages worded
for Python (no C names), pydantic models where mappings are taken, the key-ring
helpers, and ``unseal`` refusing params dumped without ``by_alias``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

import elicit_mcp
from elicit_mcp import errors

from conftest import BOOKING, accept

pydantic = pytest.importorskip("pydantic")

KEY = bytes(range(32))
PARAMS: Dict[str, Any] = {"name": "book_flight", "arguments": {"n": 1}}
#: C-side words a Python host must never read in a message.
C_WORDS = re.compile(r"int64_t|size_t|uint8_t|\belicit_[a-z_]+\(|\belicit_round_|NULL|_len\b|out_len|buf\b|ttl_secs|key_count")


def test_each_group_carries_its_jsonrpc_error() -> None:
    call = errors.error_for(300, "arguments: 'n' is not an integer")
    assert isinstance(call, elicit_mcp.CallInputError)
    assert call.jsonrpc_error == {"code": -32602, "message": "arguments: 'n' is not an integer"}
    failed = errors.error_for(403, "the user declined")
    assert isinstance(failed, elicit_mcp.ResolutionError)
    assert failed.jsonrpc_error == {"code": -32602, "message": "the user declined"}
    for code in (103, 201, 900, 999):
        bug = errors.error_for(code, "detail for the log")
        assert bug.jsonrpc_error == {"code": -32603, "message": "Internal error"}
    state = elicit_mcp.RequestStateError("expired")
    assert state.jsonrpc_error == {
        "code": -32602,
        "message": "Invalid or expired requestState",
        "data": {"reason": "invalid_request_state"},
    }
    missing = elicit_mcp.MissingCapabilityError(304, "needs sampling", {"sampling": {}})
    assert missing.jsonrpc_error == {
        "code": -32021,
        "message": "needs sampling",
        "data": {"requiredCapabilities": {"sampling": {}}},
    }
    # Its own class: `except CallInputError` (answering -32602) does not swallow it.
    assert not isinstance(missing, elicit_mcp.CallInputError)
    assert isinstance(errors.error_for(304, "x"), elicit_mcp.MissingCapabilityError)
    # A fresh dict each time: a caller's edit does not leak into the next answer.
    missing.jsonrpc_error["data"]["requiredCapabilities"]["x"] = 1
    assert missing.required_capabilities == {"sampling": {}}


def _messages_of_error_paths() -> List[str]:
    """Messages of the paths whose C ABI wording names C functions or types."""
    out: List[str] = []
    typed = {
        "tool": "typed",
        "parameters": [{"name": "s"}, {"name": "n", "type": "integer"}, {"name": "x", "elicit": {"needs": ["s", "n"]}}],
    }
    with elicit_mcp.Plan(typed) as plan, plan.modern({"s": "a", "n": 2**70}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.ResolveStep)
        for read in (step.input_int, step.input_bool, step.input_number):
            with pytest.raises(elicit_mcp.WrongTypeError) as e:
                read("s")
            out.append(str(e.value))
        with pytest.raises(elicit_mcp.WrongTypeError) as e:
            step.input_int("n")
        out.append(str(e.value))
        with pytest.raises(elicit_mcp.WrongTypeError) as e:
            step.input_text("n")
        out.append(str(e.value))
    for ttl in (-1.0, float("nan")):
        with pytest.raises(elicit_mcp.UsageError) as u:
            elicit_mcp.Sealer([KEY], "svc", ttl=ttl)
        out.append(str(u.value))
    with pytest.raises(elicit_mcp.UsageError) as u:
        elicit_mcp.KeyRing([])
    out.append(str(u.value))
    with pytest.raises(elicit_mcp.UsageError) as u:
        elicit_mcp.KeyRing([KEY] * 9)
    out.append(str(u.value))
    with elicit_mcp.Sealer([KEY], "svc") as s, pytest.raises(elicit_mcp.UsageError) as u:
        s.seal("tools/call", PARAMS, "s", random=b"short")
    out.append(str(u.value))
    return out


def test_messages_speak_python() -> None:
    messages = _messages_of_error_paths()
    assert len(messages) == 10
    for m in messages:
        assert not C_WORDS.search(m), m
    assert "an int within 64 bits" in messages[3]
    assert "read it with ResolveStep.input(name)" in messages[0]


def test_pydantic_models_are_taken_where_mappings_are() -> None:
    class Caps(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        model_config = pydantic.ConfigDict(populate_by_name=True)
        elicitation: Dict[str, Any] = {}
        list_roots: Any = pydantic.Field(default=None, alias="roots")

    class Args(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        destination: str
        date: str

    decl = {
        "tool": "t",
        "parameters": [{"name": "destination"}, {"name": "date"}, {"name": "airport", "elicit": {"needs": ["destination"]}}],
    }
    with elicit_mcp.Plan(decl) as plan:
        with plan.modern(Args(destination="London", date="2026-08-01"), capabilities=Caps()) as rnd:
            step = rnd.poll()
            assert isinstance(step, elicit_mcp.ResolveStep) and step.inputs() == {"destination": "London"}
        # A model nested in a mapping is dumped the same way.
        with plan.handshake({"destination": "London", "date": "d"}, capabilities={"caps": Caps()}) as rnd:
            assert isinstance(rnd.poll(), elicit_mcp.ResolveStep)
        with pytest.raises(TypeError, match=r"arguments: expected a mapping, a pydantic model or JSON text .*got int"):
            plan.modern(42)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="capabilities: expected a mapping"):
            plan.modern({}, capabilities=[1])
        with pytest.raises(TypeError, match="is not JSON"):
            plan.modern({"destination": object()})


def test_unseal_refuses_params_dumped_without_by_alias() -> None:
    class Params(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        model_config = pydantic.ConfigDict(populate_by_name=True)
        name: str
        arguments: Dict[str, Any]
        request_state: Any = pydantic.Field(default=None, alias="requestState")

    with elicit_mcp.Sealer([KEY], "svc") as s:
        token = s.seal("tools/call", PARAMS, "state")
        model = Params(name="book_flight", arguments={"n": 1}, request_state=token)
        # The model itself is dumped by alias: its state verifies.
        assert s.unseal("tools/call", model) == "state"
        with pytest.raises(ValueError, match="'request_state' but no 'requestState'.*by_alias=True"):
            s.unseal("tools/call", model.model_dump())
        assert s.unseal("tools/call", model.model_dump(by_alias=True)) == "state"
        assert s.unseal("tools/call", Params(name="book_flight", arguments={"n": 1})) is None


def test_key_rings_come_from_a_variable_or_a_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    a, b = "ab" * 32, "cd" * 64
    assert elicit_mcp.parse_keys(f" {a} ,\n{b}\n", "X") == [bytes.fromhex(a), bytes.fromhex(b)]
    bad = {
        "": "X: no key",
        "  ": "X: no key",
        "ab" * 31: "X: key 0 is 31 bytes; a key is 32 to 128 bytes",
        "ab" * 129: "X: key 0 is 129 bytes",
        f"{a},": "X: key 1 is empty",
        f"{a},abc": "X: key 1 has an odd number of hex digits",
        "zz" * 32: "X: key 0 is not hex",
        ",".join([a] * 9): "X: 9 keys given, at most 8",
    }
    for text, message in bad.items():
        with pytest.raises(ValueError, match=re.escape(message)) as e:
            elicit_mcp.parse_keys(text, "X")
        assert "ab" * 8 not in str(e.value)  # a key never appears in an error
    monkeypatch.delenv("ELICIT_STATE_KEYS", raising=False)
    with pytest.raises(ValueError, match="ELICIT_STATE_KEYS is not set"):
        elicit_mcp.KeyRing.from_env()
    monkeypatch.setenv("ELICIT_STATE_KEYS", "ab" * 16)
    with pytest.raises(ValueError, match="ELICIT_STATE_KEYS: key 0 is 16 bytes"):
        elicit_mcp.KeyRing.from_env()
    monkeypatch.setenv("ELICIT_STATE_KEYS", f"{a}, {b}")
    monkeypatch.setenv("OTHER_KEYS", b)
    path = tmp_path / "keys"
    path.write_text(f"{b}\n")
    with elicit_mcp.KeyRing.from_env() as ring, elicit_mcp.KeyRing.from_env("OTHER_KEYS") as other:
        with elicit_mcp.KeyRing.from_file(path) as from_file:
            old_first = elicit_mcp.Sealer(ring, "svc")
            new_only = elicit_mcp.Sealer(other, "svc")
            file_sealer = elicit_mcp.Sealer(from_file, "svc")
    token = new_only.seal("tools/call", PARAMS, "s")
    # Every key opens: the ring sealing with a opens b's token; the file holds b too.
    assert old_first.unseal("tools/call", dict(PARAMS, requestState=token)) == "s"
    assert file_sealer.unseal("tools/call", dict(PARAMS, requestState=token)) == "s"
    path.write_text("ab" * 20)
    with pytest.raises(ValueError, match=re.escape(f"{path}: key 0 is 20 bytes")):
        elicit_mcp.KeyRing.from_file(path)


def test_answers_take_models() -> None:
    class Reply(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        action: str
        content: Dict[str, Any]

    with elicit_mcp.Plan(BOOKING) as plan, plan.handshake({}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.Ask) and step.name == "destination"
        step.answer(Reply(action="accept", content={"value": "London"}))
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.Ask) and step.name == "date"
        step.answer(accept("2026-08-01"))
