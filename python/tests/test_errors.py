"""Every error path: each group's exception, with the engine's code and message."""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, Tuple

import pytest

import elicit_mcp
from elicit_mcp import errors
from elicit_mcp import Result

from conftest import BOOKING, accept

SIMPLE: Dict[str, Any] = {
    "tool": "t",
    "parameters": [
        {"name": "city"},
        {"name": "airport", "elicit": {"needs": ["city"]}},
        {"name": "n", "type": "integer", "elicit": {"message": "How many?"}},
    ],
}


@contextlib.contextmanager
def airport_step() -> Iterator[Tuple[elicit_mcp.Round, elicit_mcp.ResolveStep]]:
    """A modern round of SIMPLE (city Oslo) at its first step: the airport resolver."""
    with elicit_mcp.Plan(SIMPLE) as plan, plan.modern({"city": "Oslo"}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.ResolveStep)
        yield rnd, step


@pytest.mark.parametrize(
    ("declaration", "code", "fragment"),
    [
        ("{", Result.ERR_DECLARATION_JSON, "not valid JSON"),
        ('{"parameters": 5}', Result.ERR_DECLARATION, '"parameters" must be an array'),
        ({"parameters": [{"name": "a"}, {"name": "a"}]}, Result.ERR_DUPLICATE_NAME, "declared twice"),
        (
            {"parameters": [{"name": "a", "elicit": {"needs": ["zz"]}}]},
            Result.ERR_UNKNOWN_NEED,
            "'zz', which is not a parameter",
        ),
        (
            {
                "parameters": [
                    {"name": "a", "elicit": {"needs": ["b"]}},
                    {"name": "b", "elicit": {"needs": ["a"]}},
                ]
            },
            Result.ERR_CYCLE,
            "form a cycle: a -> b -> a",
        ),
        (
            {"parameters": [{"name": "a", "type": "integer", "elicit": {"needs": [], "declares": "string"}}]},
            Result.ERR_DECLARED_TYPE_MISMATCH,
            "Make the two agree",
        ),
        (
            {"returnsInputRequired": True, "parameters": [{"name": "a", "elicit": {"message": "x"}}]},
            Result.ERR_MIXED_WITH_INPUT_REQUIRED,
            "InputRequiredResult",
        ),
        (
            {"parameters": [{"name": "a", "type": {"type": "array"}, "elicit": {"message": "x"}}]},
            Result.ERR_UNSUPPORTED_SCHEMA,
            "outside the MCP elicitation schema subset",
        ),
        (
            {"parameters": [{"name": f"p{i}"} for i in range(elicit_mcp.MAX_PARAMS + 1)]},
            Result.ERR_CAPACITY,
            "",
        ),
    ],
)
def test_bad_declaration(declaration: Any, code: Result, fragment: str) -> None:
    with pytest.raises(elicit_mcp.DeclarationError) as e:
        elicit_mcp.Plan(declaration)
    assert e.value.code == code
    assert e.value.code_name == f"ELICIT_{code.name}"
    assert fragment in e.value.message
    assert e.value.message in str(e.value) and str(int(code)) in str(e.value)
    assert isinstance(e.value, elicit_mcp.ElicitError)


def test_declaration_not_utf8_is_a_usage_error() -> None:
    with pytest.raises(elicit_mcp.UsageError) as e:
        elicit_mcp.Plan(b'{"parameters":[{"name":"\xff"}]}')
    assert e.value.code == Result.ERR_UTF8
    assert "not valid UTF-8" in e.value.message


def test_declaration_must_be_text_or_mapping() -> None:
    with pytest.raises(TypeError):
        elicit_mcp.Plan(42)  # type: ignore[arg-type]


def test_arguments_not_an_object() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan:
        for bad in ("[]", b"5", '"x"'):
            with pytest.raises(elicit_mcp.CallInputError) as e:
                plan.modern(bad)
            assert e.value.code == Result.ERR_ARGUMENTS
            assert e.value.message == "Invalid tool arguments: must be a JSON object"
        with pytest.raises(elicit_mcp.CallInputError) as e:
            plan.handshake("[1]")
        assert e.value.code == Result.ERR_ARGUMENTS


def test_bad_json_text_inputs() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan:
        with pytest.raises(elicit_mcp.CallInputError):
            plan.modern("{")
        with pytest.raises(elicit_mcp.InputResponsesError) as e:
            plan.modern({"city": "Oslo"}, input_responses="{")
        assert e.value.code == Result.ERR_INPUT_RESPONSES
        assert e.value.jsonrpc_code == -32602
        assert e.value.message.startswith("Invalid inputResponses")
        with pytest.raises(elicit_mcp.InputResponsesError, match="matches no InputResponse shape"):
            plan.modern({"city": "Oslo"}, input_responses={"n": 5})
        with pytest.raises(elicit_mcp.UsageError) as u:
            plan.modern(b'{"city":"\xff"}')
        assert u.value.code == Result.ERR_UTF8
        # Unreadable state is no progress, never an error.
        with plan.modern({"city": "Oslo"}, request_state="garbage") as rnd:
            assert isinstance(rnd.poll(), elicit_mcp.ResolveStep)


def test_missing_argument_fails_the_round() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan, plan.modern({}) as rnd:
        with pytest.raises(elicit_mcp.CallInputError) as e:
            rnd.poll()
        assert e.value.code == Result.ERR_MISSING_ARGUMENT
        assert "'city'" in e.value.message
        # Every later call reports the same failure.
        with pytest.raises(elicit_mcp.CallInputError):
            rnd.poll()
        with pytest.raises(elicit_mcp.CallInputError):
            rnd.values()


def test_resolver_answer_not_json_can_be_answered_again() -> None:
    with airport_step() as (rnd, step):
        with pytest.raises(elicit_mcp.UsageError) as e:
            step.value_json("{not json")
        assert e.value.code == Result.ERR_RESOLVER_ANSWER
        assert rnd.last_error() == e.value.message
        with pytest.raises(elicit_mcp.UsageError):
            step.question_json("[1, 2]")
        # Nothing changed: the same step, answered properly now.
        again = rnd.poll()
        assert isinstance(again, elicit_mcp.ResolveStep) and again.name == "airport"
        again.value("OSL")
        assert isinstance(rnd.poll(), elicit_mcp.InputRequired)


def test_unusable_question_fails_the_round() -> None:
    with airport_step() as (rnd, step):
        with pytest.raises(elicit_mcp.UsageError) as e:
            step.question({"message": "?", "type": "bogus"})
        assert e.value.code == Result.ERR_RESOLVER_ANSWER
        with pytest.raises(elicit_mcp.UsageError):
            rnd.poll()


def test_non_finite_values_are_refused_in_python() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan, plan.modern({"city": "Oslo"}) as rnd:
        rnd.poll()
        with pytest.raises(ValueError):
            rnd.resolve_value(float("nan"))
        rnd.resolve_value("OSL")


def test_workspace_full_and_too_large() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan:
        with plan.modern({"city": "Oslo"}, workspace_size=16) as rnd:
            rnd.poll()
            with pytest.raises(elicit_mcp.UsageError) as e:
                rnd.resolve_question("x" * 500)
            assert e.value.code == Result.ERR_WORKSPACE_FULL
            rnd.resolve_value("OSL")  # nothing changed; a smaller answer fits
            assert isinstance(rnd.poll(), elicit_mcp.InputRequired)
        with pytest.raises(elicit_mcp.UsageError) as e:
            plan.modern({"city": "Oslo"}, workspace_size=2**62)
        assert e.value.code == Result.ERR_TOO_LARGE
        with pytest.raises(ValueError):
            plan.modern({"city": "Oslo"}, workspace_size=-1)


def test_wrong_step() -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.handshake() as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.Ask)
        for call in (
            rnd.values,
            rnd.resolve_inputs,
            rnd.input_requests,
            rnd.request_state,
            lambda: rnd.resolve_value("x"),
            lambda: rnd.resolve_question("x"),
            lambda: rnd.resolve_failed("db"),
        ):
            with pytest.raises(elicit_mcp.WrongStepError) as e:
                call()
            assert e.value.code == Result.ERR_WRONG_STEP
            assert "Out of order" in e.value.message
        # A stale step object: answering it again is out of order too.
        step.accept("Paris")
        with pytest.raises(elicit_mcp.WrongStepError):
            step.accept("Rome")
        nxt = rnd.poll()
        assert isinstance(nxt, elicit_mcp.Ask) and nxt.name == "date"
        with pytest.raises(elicit_mcp.WrongStepError):
            rnd.resolve_inputs()


def test_steps_requires_an_answer() -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.handshake() as rnd:
        with pytest.raises(elicit_mcp.WrongStepError, match="was not answered"):
            for _ in rnd.steps():
                pass


def test_steps_raises_the_round_failure_even_if_the_answer_error_was_caught() -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.handshake() as rnd:
        with pytest.raises(elicit_mcp.ResolutionError) as e:
            for step in rnd.steps():
                assert isinstance(step, elicit_mcp.Ask)
                try:
                    step.decline()
                except elicit_mcp.ResolutionError:
                    pass
        assert e.value.code == Result.ERR_DECLINED


@pytest.mark.parametrize(
    ("reply", "code", "message"),
    [
        (
            {"action": "decline"},
            Result.ERR_DECLINED,
            "Cannot continue without 'destination': the request was declined. "
            "Give the parameter a default to make it optional.",
        ),
        (
            {"action": "cancel"},
            Result.ERR_CANCELLED,
            "Cannot continue without 'destination': the request was cancelled. "
            "Give the parameter a default to make it optional.",
        ),
        (
            accept(5),
            Result.ERR_SCHEMA_MISMATCH,
            "The answer for 'destination' does not match the requested schema",
        ),
        (
            {"action": "accept"},
            Result.ERR_ACCEPTED_WITHOUT_CONTENT,
            "The answer for 'destination' was accepted but carries no content",
        ),
    ],
)
def test_resolution_errors_carry_the_tool_error(reply: Dict[str, Any], code: Result, message: str) -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.handshake() as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.Ask)
        with pytest.raises(elicit_mcp.ResolutionError) as e:
            step.answer(reply)
        assert e.value.code == code
        assert e.value.message.startswith(message)
        # The round stays failed with the same error.
        with pytest.raises(elicit_mcp.ResolutionError) as again:
            rnd.poll()
        assert (again.value.code, again.value.message) == (e.value.code, e.value.message)
        assert rnd.last_error() == e.value.message


def test_modern_reply_that_is_not_an_elicit_result() -> None:
    with elicit_mcp.Plan(BOOKING) as plan:
        with plan.modern() as first:
            step = first.poll()
            assert isinstance(step, elicit_mcp.InputRequired)
            state = step.request_state()
        replies: Dict[str, Any] = {"destination": {"roots": []}}
        with plan.modern(request_state=state, input_responses=replies) as rnd:
            with pytest.raises(elicit_mcp.ResolutionError) as e:
                rnd.poll()
            assert e.value.code == Result.ERR_WRONG_REPLY
            assert e.value.message == "The response for 'destination' is not an elicitation result"


def test_resolver_dependency_failure() -> None:
    with airport_step() as (rnd, step):
        with pytest.raises(elicit_mcp.ResolutionError) as e:
            step.fail("database")
        assert e.value.code == Result.ERR_RESOLVER_DEPENDENCY
        assert e.value.message == "The resolver for 'airport' depends on 'database', which could not be resolved"


def test_index_and_name_errors() -> None:
    with elicit_mcp.Plan(SIMPLE) as plan:
        with pytest.raises(elicit_mcp.NotFoundError) as e:
            plan.index_of("nope")
        assert e.value.code == Result.ERR_NOT_FOUND
        assert isinstance(e.value, KeyError)
        with pytest.raises(KeyError):
            plan.param("nope")
        with pytest.raises(elicit_mcp.UsageError) as u:
            plan.param(99)
        assert u.value.code == Result.ERR_INDEX
        with plan.handshake({"city": "Oslo"}) as rnd:
            with pytest.raises(elicit_mcp.UsageError) as u:
                rnd.value_of(99)
            assert u.value.code == Result.ERR_INDEX
            with pytest.raises(elicit_mcp.NotFoundError):
                rnd.value_of("nope")


def test_unknown_flags() -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.modern() as rnd:
        assert isinstance(rnd.poll(), elicit_mcp.InputRequired)
        with pytest.raises(elicit_mcp.UsageError) as e:
            rnd.input_requests_bytes(flags=0x8)
        assert e.value.code == Result.ERR_INVALID_ARGUMENT


def test_error_for_maps_every_group() -> None:
    assert type(errors.error_for(100, "m")) is elicit_mcp.UsageError
    assert type(errors.error_for(103, "m")) is elicit_mcp.WrongStepError
    assert type(errors.error_for(201, "m")) is elicit_mcp.DeclarationError
    assert type(errors.error_for(300, "m")) is elicit_mcp.CallInputError
    assert type(errors.error_for(302, "m")) is elicit_mcp.InputResponsesError
    assert type(errors.error_for(402, "m")) is elicit_mcp.ResolutionError
    assert type(errors.error_for(900, "m")) is elicit_mcp.InternalError
    assert type(errors.error_for(901, "m")) is elicit_mcp.InternalError
    assert type(errors.error_for(999, "m")) is elicit_mcp.InternalError
    assert type(errors.error_for(777, "m")) is elicit_mcp.InternalError
    e = errors.error_for(402, "msg")
    assert (e.code, e.message, e.code_name) == (402, "msg", "ELICIT_ERR_SCHEMA_MISMATCH")
    assert errors.error_for(777, "m").code_name == "ELICIT_ERR_UNKNOWN"
