"""Input kinds through the binding: each parameter's kind, the client's capabilities,
MissingCapabilityError (-32021) with requiredCapabilities, and replies of every kind
in both eras."""

from __future__ import annotations

import json
import pickle
from typing import Any, Dict, List

import pytest

import elicit_mcp
from elicit_mcp import InputKind, MissingCapabilityError, Result

SAMPLING = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Sum up"}}],
    "maxTokens": 20,
}
CREATE_MESSAGE_RESULT = {
    "role": "assistant",
    "content": {"type": "text", "text": "Short."},
    "model": "m",
    "stopReason": "endTurn",
}
KINDS: Dict[str, Any] = {
    "tool": "kinds",
    "parameters": [
        {"name": "topic"},
        {"name": "name", "elicit": {"message": "Your name?"}},
        {"name": "paid", "elicit": {"message": "Pay", "url": "https://pay.example/1"}},
        {"name": "summary", "elicit": {"sampling": SAMPLING}},
        {"name": "dirs", "elicit": {"roots": {}}},
        {"name": "login", "elicit": {"needs": ["topic"], "kind": "url"}},
    ],
}
ALL: Dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


@pytest.fixture
def plan() -> Any:
    with elicit_mcp.Plan(KINDS) as p:
        yield p


def login(step: elicit_mcp.ResolveStep) -> None:
    assert step.name == "login"
    # A form question is the wrong shape for a URL resolver: refused, nothing changed.
    with pytest.raises(elicit_mcp.UsageError) as e:
        step.question("?")
    assert e.value.code == Result.ERR_RESOLVER_ANSWER
    step.question({"message": "Sign in", "url": f"https://id.example/{step.input_text('topic')}"})


def drive(rnd: elicit_mcp.Round) -> elicit_mcp.Step:
    for step in rnd.steps():
        if isinstance(step, elicit_mcp.ResolveStep):
            login(step)
        else:
            return step
    raise AssertionError("steps() ended without a step")  # pragma: no cover


def test_each_parameter_has_its_kind(plan: elicit_mcp.Plan) -> None:
    kinds = [p.kind for p in plan.params]
    assert kinds == [
        None,
        InputKind.FORM,
        InputKind.URL,
        InputKind.SAMPLING,
        InputKind.ROOTS,
        InputKind.URL,
    ]
    assert [k.method for k in InputKind] == [
        "elicitation/create",
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
    ]
    assert plan.param("summary").kind is InputKind.SAMPLING


@pytest.mark.parametrize("caps", [None, {"elicitation": {}}, '{"elicitation":{}}'])
def test_a_form_only_client_gets_32021_before_anything_is_shown(
    plan: elicit_mcp.Plan, caps: Any
) -> None:
    with plan.modern({"topic": "t"}, capabilities=caps) as rnd:
        with pytest.raises(MissingCapabilityError) as e:
            drive(rnd)
        err = e.value
        assert not isinstance(err, elicit_mcp.CallInputError)
        assert err.jsonrpc_error == err.error
        assert err.code == Result.ERR_MISSING_CAPABILITY and err.code == 304
        assert err.message == (
            "Client did not declare the url elicitation capability required by question 'paid'"
        )
        required: Dict[str, Any] = {"elicitation": {"url": {}}, "sampling": {}, "roots": {}}
        assert err.required_capabilities == required
        assert err.error == {
            "code": -32021,
            "message": err.message,
            "data": {"requiredCapabilities": required},
        }
        assert rnd.required_capabilities() == required
        # The round stays failed: every later call raises the same error.
        with pytest.raises(MissingCapabilityError):
            rnd.input_requests()
        again = pickle.loads(pickle.dumps(err))
        assert isinstance(again, MissingCapabilityError)
        assert again.required_capabilities == required and again.message == err.message


def test_required_capabilities_only_after_that_failure(plan: elicit_mcp.Plan) -> None:
    with plan.modern({"topic": "t"}, capabilities=ALL) as rnd:
        with pytest.raises(elicit_mcp.WrongStepError):
            rnd.required_capabilities()
        assert isinstance(drive(rnd), elicit_mcp.InputRequired)
        with pytest.raises(elicit_mcp.WrongStepError):
            rnd.required_capabilities()


def test_nothing_declared_means_form_is_missing_too(plan: elicit_mcp.Plan) -> None:
    with plan.modern({"topic": "t"}, capabilities="[]") as rnd:
        with pytest.raises(MissingCapabilityError) as e:
            drive(rnd)
    assert e.value.required_capabilities == ALL


def test_every_kind_in_the_modern_era(plan: elicit_mcp.Plan) -> None:
    with plan.modern({"topic": "t"}, capabilities=json.dumps(ALL)) as rnd:
        step = drive(rnd)
        assert isinstance(step, elicit_mcp.InputRequired)
        requests = step.input_requests()
        state = step.request_state()
    assert list(requests) == ["name", "paid", "summary", "dirs", "login"]
    assert requests["paid"] == {
        "method": "elicitation/create",
        "params": {"mode": "url", "message": "Pay", "url": "https://pay.example/1"},
    }
    assert requests["summary"] == {"method": "sampling/createMessage", "params": SAMPLING}
    assert requests["dirs"] == {"method": "roots/list", "params": {}}
    assert requests["login"]["params"]["url"] == "https://id.example/t"

    # A CreateMessageResult where an ElicitResult was asked: a clear error.
    wrong = {"paid": CREATE_MESSAGE_RESULT}
    with plan.modern({"topic": "t"}, request_state=state, input_responses=wrong, capabilities=ALL) as rnd:
        with pytest.raises(elicit_mcp.ResolutionError) as e:
            drive(rnd)
    assert e.value.code == Result.ERR_WRONG_REPLY and e.value.code == 400
    assert e.value.message.startswith("The response for 'paid' is not a URL elicitation result")

    replies = {
        "name": {"action": "accept", "content": {"value": "Ann"}},
        "paid": {"action": "accept"},
        "summary": CREATE_MESSAGE_RESULT,
        "dirs": {"roots": [{"uri": "file:///w", "name": "w"}]},
        "login": {"action": "accept"},
    }
    with plan.modern({"topic": "t"}, request_state=state, input_responses=replies, capabilities=ALL) as rnd:
        done = drive(rnd)
        assert isinstance(done, elicit_mcp.Done)
        assert done.values() == {
            "name": "Ann",
            "paid": True,
            "summary": CREATE_MESSAGE_RESULT,
            "dirs": [{"uri": "file:///w", "name": "w"}],
            "login": True,
        }


def test_the_handshake_era_sends_each_kind_with_its_method(plan: elicit_mcp.Plan) -> None:
    sent: List[str] = []
    answers: Dict[InputKind, Any] = {
        InputKind.FORM: {"action": "accept", "content": {"value": "Ann"}},
        InputKind.URL: {"action": "accept"},
        InputKind.SAMPLING: CREATE_MESSAGE_RESULT,
        InputKind.ROOTS: {"roots": []},
    }
    with plan.handshake({"topic": "t"}, capabilities=ALL) as rnd:
        for step in rnd.steps():
            if isinstance(step, elicit_mcp.ResolveStep):
                login(step)
            elif isinstance(step, elicit_mcp.Ask):
                request = step.request()
                sent.append(f"{step.name} {step.method}")
                if step.input_kind is InputKind.URL:
                    assert request["mode"] == "url" and "elicitationId" in request
                if step.input_kind is InputKind.SAMPLING:
                    assert request == SAMPLING
                step.answer(answers[step.input_kind])
            elif isinstance(step, elicit_mcp.Done):
                values = step.values()
    assert sent == [
        "name elicitation/create",
        "paid elicitation/create",
        "summary sampling/createMessage",
        "dirs roots/list",
        "login elicitation/create",
    ]
    assert values["summary"] == CREATE_MESSAGE_RESULT and values["dirs"] == []

    # A refused sampling request (answered as a decline) fails a parameter without a
    # default; a form-only client never sees the URL request.
    with plan.handshake({"topic": "t"}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.Ask) and step.input_kind is InputKind.FORM
        step.accept("Ann")
        with pytest.raises(MissingCapabilityError) as e:
            rnd.poll()
    assert e.value.required_capabilities == {"elicitation": {"url": {}}}
