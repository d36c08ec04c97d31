"""The declared fallback (docs/fallback.md) through the binding's round API: a tool
opted in with ``"fallback": "arguments"``, called by a client that declared no
elicitation, ends at a :class:`~elicit_mcp.Fallback` step whose result tells the model
what to ask the user; arguments answer the questions; without the opt-in the same
client gets -32021."""

from __future__ import annotations

import copy
from typing import Any, Dict

import pytest

import elicit_mcp
from elicit_mcp import MissingCapabilityError, StepKind
from booking_fixture import BOOKING

NO_ELICITATION: Dict[str, Any] = {}


def opted_in() -> Dict[str, Any]:
    decl = copy.deepcopy(BOOKING)
    decl["fallback"] = "arguments"
    return decl


def drive(rnd: elicit_mcp.Round) -> elicit_mcp.Step:
    """Answer resolvers by the fixture's rule (London is LHR, else ask)."""
    for step in rnd.steps():
        if isinstance(step, elicit_mcp.ResolveStep):
            city = step.inputs().get("destination")
            if step.name == "airport" and city == "London":
                step.value("LHR")
            elif step.name == "airport":
                step.question({"message": f"Which airport in {city}?"})
            else:
                step.question({"message": f"Fly to {city}?"})
        else:
            return step
    raise AssertionError("the round ended without a terminal step")


def test_a_client_that_cannot_be_asked_gets_the_fallback_result() -> None:
    with elicit_mcp.Plan(opted_in()) as plan, plan.modern({}, capabilities=NO_ELICITATION) as rnd:
        step = drive(rnd)
        assert isinstance(step, elicit_mcp.Fallback)
        assert step.kind is StepKind.FALLBACK and step.terminal
        result = step.result()
        assert result["isError"] is True
        asked = [entry["name"] for entry in result["_meta"]["elicit/askUser"]]
        # Only what can be asked now: the airport and the confirmation need answers first.
        assert "destination" in asked and "date" in asked
        assert "airport" not in asked and "proceed" not in asked
        assert "destination" in result["content"][0]["text"]
        assert step.result_bytes() == rnd.fallback_result_bytes()


def test_arguments_answer_the_questions_and_a_resolver_value_wins() -> None:
    args = {"destination": "London", "date": "2026-08-01", "airport": "CDG", "proceed": True, "seat": "window"}
    with elicit_mcp.Plan(opted_in()) as plan, plan.modern(args, capabilities=NO_ELICITATION) as rnd:
        step = drive(rnd)
        assert isinstance(step, elicit_mcp.Done)
        values = step.values()
        assert values["airport"] == "LHR" and values["destination"] == "London"


def test_without_the_opt_in_the_client_gets_32021() -> None:
    with elicit_mcp.Plan(BOOKING) as plan, plan.modern({}, capabilities=NO_ELICITATION) as rnd:
        with pytest.raises(MissingCapabilityError):
            drive(rnd)
