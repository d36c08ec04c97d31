"""The booking flow in both eras through the step iterator, plus plan metadata,
notes and the client view."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import elicit_mcp
from elicit_mcp import _engine
from elicit_mcp import StepKind

from conftest import accept, booking_resolver


def test_plan_metadata(plan: elicit_mcp.Plan) -> None:
    assert plan.tool_name == "book_flight"
    assert [p.name for p in plan.params] == ["destination", "date", "airport", "proceed", "seat"]
    assert [p.index for p in plan.params] == [0, 1, 2, 3, 4]
    assert all(p.elicited for p in plan.params)
    assert [p.name for p in plan.params if p.has_resolver] == ["airport", "proceed"]
    assert plan.index_of("proceed") == 3
    assert plan.param("seat") == plan.params[4]
    assert plan.elicited == ("destination", "date", "airport", "proceed", "seat")
    assert "book_flight" in repr(plan)


def test_plan_with_arguments_and_default_tool_name() -> None:
    decl = {"parameters": [{"name": "city"}, {"name": "airport", "elicit": {"needs": ["city"]}}]}
    with elicit_mcp.Plan(json.dumps(decl)) as plan:
        assert plan.tool_name == "tool"
        assert [(p.name, p.elicited, p.has_resolver) for p in plan.params] == [
            ("city", False, False),
            ("airport", True, True),
        ]


def modern_call(
    plan: elicit_mcp.Plan, state: Optional[str], replies: Optional[Dict[str, Any]]
) -> elicit_mcp.Step:
    with plan.modern({}, request_state=state, input_responses=replies) as rnd:
        for step in rnd.steps():
            if isinstance(step, elicit_mcp.ResolveStep):
                booking_resolver(step)
            elif step.terminal:
                # Read everything before the round is freed.
                step.snapshot = (  # type: ignore[attr-defined]
                    step.values() if isinstance(step, elicit_mcp.Done) else None,
                    step.input_requests() if isinstance(step, elicit_mcp.InputRequired) else None,
                    step.request_state() if isinstance(step, elicit_mcp.InputRequired) else None,
                )
                return step
    raise AssertionError("no terminal step")


def test_modern_booking(plan: elicit_mcp.Plan) -> None:
    first = modern_call(plan, None, None)
    assert isinstance(first, elicit_mcp.InputRequired)
    _, reqs, state = first.snapshot  # type: ignore[attr-defined]
    assert list(reqs) == ["destination", "date", "seat"]
    assert reqs["seat"]["params"]["requestedSchema"]["properties"]["value"]["enum"] == ["window", "aisle"]
    second = modern_call(
        plan,
        state,
        {"destination": accept("Paris"), "date": accept("2026-08-01"), "seat": accept("window")},
    )
    assert isinstance(second, elicit_mcp.InputRequired)
    _, reqs, state = second.snapshot  # type: ignore[attr-defined]
    assert list(reqs) == ["airport", "proceed"]
    assert reqs["airport"]["params"]["message"] == "Which airport in Paris?"
    assert reqs["proceed"]["params"]["message"] == "Book a flight to Paris on 2026-08-01?"
    assert reqs["proceed"]["params"]["requestedSchema"]["properties"]["value"]["type"] == "boolean"
    third = modern_call(plan, state, {"airport": accept("CDG"), "proceed": accept(True)})
    assert isinstance(third, elicit_mcp.Done)
    values, _, _ = third.snapshot  # type: ignore[attr-defined]
    assert values == {
        "destination": "Paris",
        "date": "2026-08-01",
        "airport": "CDG",
        "proceed": True,
        "seat": "window",
    }


def test_handshake_booking(plan: elicit_mcp.Plan) -> None:
    answers: Dict[str, Dict[str, Any]] = {
        "destination": accept("London"),
        "date": accept("2026-09-15"),
        "proceed": accept(True),
        "seat": {"action": "decline"},
    }
    asked: List[str] = []
    kinds: List[StepKind] = []
    with plan.handshake() as rnd:
        for step in rnd.steps():
            kinds.append(step.kind)
            if isinstance(step, elicit_mcp.ResolveStep):
                booking_resolver(step)
            elif isinstance(step, elicit_mcp.Ask):
                request = step.request()
                assert request["mode"] == "form"
                assert json.loads(step.request_bytes()) == request
                asked.append(step.name)
                step.answer(answers[step.name])
            elif isinstance(step, elicit_mcp.Done):
                assert step.values() == {
                    "destination": "London",
                    "date": "2026-09-15",
                    "airport": "LHR",
                    "proceed": True,
                    "seat": None,
                }
                assert step.value_of("seat") is None
    assert asked == ["destination", "date", "proceed", "seat"]
    assert kinds[-1] == StepKind.DONE
    assert StepKind.RESOLVE in kinds


def test_poll_is_idempotent_and_raw(plan: elicit_mcp.Plan) -> None:
    with plan.handshake() as rnd:
        assert rnd.poll_raw() == (StepKind.ASK, 0)
        assert rnd.poll_raw() == (StepKind.ASK, 0)
        a = rnd.poll()
        assert isinstance(a, elicit_mcp.Ask) and (a.param, a.name) == (0, "destination")
        assert rnd.param_name(0) == "destination"
    with plan.modern() as rnd:
        assert rnd.poll_raw() == (StepKind.INPUT_REQUIRED, elicit_mcp.NO_PARAM)
        s = rnd.poll()
        assert s.param is None and s.name is None and s.terminal


def test_steps_accepts_answers_through_the_round(plan: elicit_mcp.Plan) -> None:
    with plan.handshake() as rnd:
        seen = 0
        for step in rnd.steps():
            seen += 1
            if isinstance(step, elicit_mcp.Ask):
                rnd.answer(accept("London" if step.name == "destination" else "2026-01-01"))
                if step.name == "date":
                    break
        assert seen == 2


def test_client_view_and_notes() -> None:
    decl = {"parameters": [{"name": "city"}, {"name": "airport", "elicit": {"needs": ["city"]}}]}

    def ask(step: elicit_mcp.Step) -> None:
        assert isinstance(step, elicit_mcp.ResolveStep)
        step.question(f"Which airport in {step.inputs()['city']}?")

    with elicit_mcp.Plan(decl) as plan:
        with plan.modern({"city": "Paris"}) as rnd:
            ask(rnd.poll())
            ir = rnd.poll()
            assert isinstance(ir, elicit_mcp.InputRequired)
            state = ir.request_state()
            assert state == '{"v":1,"answers":{},"asked":{"airport":"ppNxUviQE6L_CTcfRIA27A"}}'
            cv = ir.input_requests(client_view=True)["airport"]["params"]
            assert list(cv) == ["message", "mode", "requestedSchema"]
            assert "title" not in cv["requestedSchema"]
            wire = ir.input_requests()["airport"]["params"]
            assert list(wire) == ["mode", "message", "requestedSchema"]
            assert rnd.notes() == []
        # The city changed: the question changed, the reply is discarded (a note).
        replies = {"airport": accept("CDG")}
        with plan.modern({"city": "Rome"}, request_state=state, input_responses=replies) as rnd:
            ask(rnd.poll())
            assert isinstance(rnd.poll(), elicit_mcp.InputRequired)
            assert rnd.note_count() == 1
            (note,) = rnd.notes()
            assert note.level == elicit_mcp.NoteLevel.INFO and note.level.name == "INFO"
            assert (note.param, note.name) == (1, "airport")
            assert note.message == "Discarding the reply for 'airport': the question changed since it was asked"
            assert rnd.input_requests()["airport"]["params"]["message"] == "Which airport in Rome?"


def test_dumps_is_compact_utf8() -> None:
    assert _engine.dumps({"a": "é✈", "b": [1, 2.5]}) == '{"a":"é✈","b":[1,2.5]}'.encode("utf-8")
    assert _engine.dumps("\ud800") == b'"\\ud800"'
