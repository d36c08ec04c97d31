"""Sealing (KeyRing, Sealer) and the resolver helpers (inputs by name, questions from
plain text) through the binding."""

from __future__ import annotations

import base64
import pickle
from typing import Any, Dict, Iterator

import pytest

import elicit_mcp

from conftest import BOOKING, accept

KEY = bytes(range(32))
OTHER = b"another key, at least 32 bytes long!"
PARAMS: Dict[str, Any] = {"name": "book_flight", "arguments": {"n": 1, "who": "Zo\u00eb"}}
NOW = 1_780_000_000.25
RANDOM = bytes(range(100, 120))


@pytest.fixture
def sealer() -> Iterator[elicit_mcp.Sealer]:
    with elicit_mcp.Sealer([KEY], audience="svc") as s:
        yield s


def with_state(token: Any) -> Dict[str, Any]:
    return dict(PARAMS, requestState=token)


def test_seal_and_unseal_round_trip(sealer: elicit_mcp.Sealer) -> None:
    state = '{"v":1,"answers":{},"asked":{"x":"abc"}} \u00e9\U0001f600'
    token = sealer.seal("tools/call", PARAMS, state, now=NOW, random=RANDOM)
    assert token.startswith("v1.")
    assert sealer.seal("tools/call", PARAMS, state, now=NOW, random=RANDOM) == token
    assert sealer.unseal("tools/call", with_state(token), now=NOW + 1) == state
    # Raw JSON text works as well as a mapping, and key order does not matter.
    raw = '{"arguments":{"who":"Zo\\u00eb","n":1},"name":"book_flight","requestState":"%s"}' % token
    assert sealer.unseal("tools/call", raw, now=NOW + 1) == state
    assert sealer.unseal("tools/call", PARAMS, now=NOW) is None
    assert sealer.unseal("tools/call", with_state(None), now=NOW) is None
    # Defaults: the clock and os.urandom.
    fresh = sealer.seal("tools/call", PARAMS, "s")
    assert sealer.unseal("tools/call", with_state(fresh)) == "s"


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"now": NOW + 600}, "expired"),
        ({"now": NOW - 61}, "minted in the future"),
        ({"method": "prompts/get"}, "request binding"),
        ({"params": dict(PARAMS, name="other")}, "request binding"),
        ({"params": dict(PARAMS, arguments={"n": 2, "who": "Zo\u00eb"})}, "request binding"),
        ({"principal": '["c",null,null]'}, "principal drift"),
        ({"sealer": "other-audience"}, "audience"),
        ({"sealer": None}, "audience"),
        ({"sealer": "other-key"}, "unknown key"),
    ],
)
def test_every_rejection_is_one_error_with_a_logged_reason(
    sealer: elicit_mcp.Sealer, change: Dict[str, Any], reason: str
) -> None:
    token = sealer.seal("tools/call", PARAMS, "state", now=NOW, random=RANDOM)
    params = dict(change.get("params", PARAMS), requestState=token)
    verifier = sealer
    if "sealer" in change:
        which = change["sealer"]
        verifier = (
            elicit_mcp.Sealer([OTHER], audience="svc") if which == "other-key" else elicit_mcp.Sealer([KEY], which)
        )
    with pytest.raises(elicit_mcp.RequestStateError) as e:
        verifier.unseal(
            change.get("method", "tools/call"),
            params,
            principal=change.get("principal"),
            now=change.get("now", NOW + 1),
        )
    assert e.value.reason == reason
    assert e.value.code == elicit_mcp.Result.ERR_REQUEST_STATE and e.value.code_name == "ELICIT_ERR_REQUEST_STATE"
    assert e.value.message == "Invalid or expired requestState" == str(e.value).split(" [")[0]
    assert e.value.error == {
        "code": -32602,
        "message": "Invalid or expired requestState",
        "data": {"reason": "invalid_request_state"},
    }
    assert isinstance(e.value, elicit_mcp.CallInputError) and e.value.jsonrpc_code == -32602
    assert pickle.loads(pickle.dumps(e.value)).reason == reason


def test_non_string_and_malformed_states(sealer: elicit_mcp.Sealer) -> None:
    for value, reason in [(12345, "non-string requestState"), ("", "malformed"), ("v1.", "malformed")]:
        with pytest.raises(elicit_mcp.RequestStateError) as e:
            sealer.unseal("tools/call", with_state(value), now=NOW)
        assert e.value.reason == reason


def test_every_bit_flip_of_a_token_is_rejected(sealer: elicit_mcp.Sealer) -> None:
    token = sealer.seal("tools/call", PARAMS, "state", now=NOW, random=RANDOM)
    flips = 0
    for i, ch in enumerate(token):
        for bit in range(8):
            flipped = token[:i] + chr(ord(ch) ^ (1 << bit)) + token[i + 1 :]
            with pytest.raises(elicit_mcp.RequestStateError):
                sealer.unseal("tools/call", with_state(flipped), now=NOW + 1)
            flips += 1
    raw = base64.urlsafe_b64decode(token[3:] + "=" * (-len(token[3:]) % 4))
    for i in range(len(raw)):
        for bit in range(8):
            body = bytearray(raw)
            body[i] ^= 1 << bit
            flipped = "v1." + base64.urlsafe_b64encode(bytes(body)).decode().rstrip("=")
            with pytest.raises(elicit_mcp.RequestStateError):
                sealer.unseal("tools/call", with_state(flipped), now=NOW + 1)
            flips += 1
    assert flips == 8 * (len(token) + len(raw))


def test_rotation_and_principal() -> None:
    with elicit_mcp.KeyRing([OTHER, KEY]) as ring:
        new_first = elicit_mcp.Sealer(ring, "svc")
    old = elicit_mcp.Sealer([KEY], "svc")
    principal = '["client-\u00e9","https://issuer.example","user-1"]'
    token = old.seal("tools/call", PARAMS, "s", principal=principal, now=NOW)
    assert new_first.unseal("tools/call", with_state(token), principal=principal, now=NOW) == "s"
    with pytest.raises(elicit_mcp.RequestStateError) as e:
        new_first.unseal("tools/call", with_state(token), principal=principal + " ", now=NOW)
    assert e.value.reason == "principal"
    with pytest.raises(elicit_mcp.RequestStateError) as e:
        new_first.unseal("tools/call", with_state(token), now=NOW)
    assert e.value.reason == "principal drift"


def test_key_ring_and_sealer_errors_name_the_problem() -> None:
    with pytest.raises(elicit_mcp.UsageError, match=r"keys\[1\] is 31 bytes") as e:
        elicit_mcp.KeyRing([KEY, b"x" * 31])
    assert e.value.code == elicit_mcp.Result.ERR_INVALID_ARGUMENT
    with pytest.raises(elicit_mcp.UsageError, match="at least one key"):
        elicit_mcp.KeyRing([])
    with pytest.raises(elicit_mcp.UsageError, match="at most 8"):
        elicit_mcp.KeyRing([bytes([i]) * 32 for i in range(9)])
    with pytest.raises(elicit_mcp.UsageError, match=r"keys\[1\] duplicates"):
        elicit_mcp.KeyRing([KEY, KEY])
    with pytest.raises(TypeError, match=r"keys\[0\] is a int"):
        elicit_mcp.KeyRing([42])  # type: ignore[list-item]
    # A str key is refused (the SDK takes text; elicit takes bytes only).
    with pytest.raises(TypeError, match=r"keys\[0\] is a str; a key is bytes"):
        elicit_mcp.Sealer(["k" * 32], None)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not one key"):
        elicit_mcp.KeyRing(KEY)  # type: ignore[arg-type]
    for ttl in (-1.0, float("nan"), float("inf")):
        with pytest.raises(elicit_mcp.UsageError, match=r"ttl is .*; pass a positive finite number of seconds\ \["):
            elicit_mcp.Sealer([KEY], "svc", ttl=ttl)
    s = elicit_mcp.Sealer([KEY], "svc", ttl=30)
    token = s.seal("tools/call", PARAMS, "s", now=NOW)
    with pytest.raises(elicit_mcp.RequestStateError, match="Invalid or expired requestState"):
        s.unseal("tools/call", with_state(token), now=NOW + 30)
    with pytest.raises(elicit_mcp.UsageError, match=r"random must be 20 bytes"):
        s.seal("tools/call", PARAMS, "s", random=b"short")
    with pytest.raises(elicit_mcp.UsageError, match="params is not valid JSON"):
        s.seal("tools/call", "{", "s")
    with pytest.raises(elicit_mcp.UsageError, match="now"):
        s.seal("tools/call", PARAMS, "s", now=-1.0)


def test_closed_handles_refuse_to_work() -> None:
    ring = elicit_mcp.KeyRing([KEY])
    s = elicit_mcp.Sealer(ring, "svc")
    ring.close()
    ring.close()
    assert ring.closed and "closed" in repr(ring)
    with pytest.raises(elicit_mcp.ClosedError):
        elicit_mcp.Sealer(ring, "svc")
    assert s.unseal("tools/call", PARAMS) is None  # the sealer keeps its own keys
    s.close()
    with pytest.raises(elicit_mcp.ClosedError):
        s.seal("tools/call", PARAMS, "s")
    with pytest.raises(elicit_mcp.ClosedError):
        s.unseal("tools/call", PARAMS)


# ---------------------------------------------------------------- resolver helpers

TYPED: Dict[str, Any] = {
    "tool": "typed",
    "parameters": [
        {"name": "n", "type": "integer"},
        {"name": "f", "type": "number"},
        {"name": "b", "type": "boolean"},
        {"name": "s"},
        {"name": "x", "elicit": {"needs": ["n", "f", "b", "s"]}},
    ],
}


def test_inputs_by_name_and_questions_from_text() -> None:
    args = {"n": -42, "f": 2.5, "b": True, "s": 'Zo\u00eb "Z"\n'}
    with elicit_mcp.Plan(TYPED) as plan, plan.modern(args) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.ResolveStep) and step.name == "x"
        assert step.input_int("n") == -42 and step.input_number("n") == -42.0
        assert step.input_number("f") == 2.5 and step.input_bool("b") is True
        assert step.input_text("s") == 'Zo\u00eb "Z"\n' == step.input("s")
        assert step.input("f") == 2.5
        with pytest.raises(
            elicit_mcp.WrongTypeError,
            match=r'input "s" is a string, not an int within 64 bits .*; read it with ResolveStep.input\(name\)',
        ):
            step.input_int("s")
        with pytest.raises(elicit_mcp.WrongTypeError):
            step.input_int("f")
        with pytest.raises(elicit_mcp.WrongTypeError):
            step.input_text("n")
        with pytest.raises(elicit_mcp.WrongTypeError):
            step.input_bool("n")
        with pytest.raises(elicit_mcp.NotFoundError, match=r"its inputs are \[n, f, b, s\]"):
            step.input("nope")
        with pytest.raises(TypeError):
            step.question({"message": "m"}, title="t")
        step.question('Zo\u00eb says "hi" \\ \x01', title="T", description="D")
        final = rnd.poll()
        assert isinstance(final, elicit_mcp.InputRequired)
        params = final.input_requests()["x"]["params"]
        assert params["message"] == 'Zo\u00eb says "hi" \\ \x01'
        assert params["requestedSchema"]["properties"]["value"]["title"] == "T"
        assert params["requestedSchema"]["properties"]["value"]["description"] == "D"
        with pytest.raises(elicit_mcp.WrongStepError):
            rnd.resolve_input_int("n")


def test_resolver_values_are_taken_as_given(plan: elicit_mcp.Plan) -> None:
    """A resolver's value is not validated against its parameter's type (the reference
    does the same: tests/vectors/06_resolver_value_bypasses_validation)."""
    state = None
    replies = {"destination": accept("Paris"), "date": accept("2026-08-01"), "seat": accept("aisle")}
    with plan.modern({}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.InputRequired)
        state = step.request_state()
    with plan.modern({}, request_state=state, input_responses=replies) as rnd:
        for step in rnd.steps():
            if isinstance(step, elicit_mcp.ResolveStep):
                step.value(5 if step.name == "airport" else "not a boolean")
            elif isinstance(step, elicit_mcp.Done):
                values = step.values()
    assert values["airport"] == 5 and values["proceed"] == "not a boolean"
    assert BOOKING["parameters"][3]["type"] == "boolean"
