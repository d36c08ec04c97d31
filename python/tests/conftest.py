"""Shared fixtures: the repository paths and the book_flight declaration."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import elicit_mcp

#: The repository root (python/tests → ../..), or $ELICIT_REPO.
REPO = Path(os.environ.get("ELICIT_REPO", Path(__file__).resolve().parents[2]))
HEADER = REPO / "include" / "elicit.h"
#: The header elicit.h includes: the version, the codes, the steps and the heap-free
#: surface (for C firmware; the binding does not use that part).
NOALLOC_HEADER = REPO / "include" / "elicit_noalloc.h"
VECTORS = REPO / "tests" / "vectors"

BOOKING: Dict[str, Any] = {
    "tool": "book_flight",
    "parameters": [
        {"name": "destination", "elicit": {"message": "Where would you like to fly?"}},
        {"name": "date", "elicit": {"message": "When would you like to fly?"}},
        {"name": "airport", "elicit": {"needs": ["destination"]}},
        {"name": "proceed", "type": "boolean", "elicit": {"needs": ["destination", "date"]}},
        {
            "name": "seat",
            "type": {"enum": ["window", "aisle"]},
            "default": None,
            "elicit": {"message": "Window or aisle?"},
        },
    ],
}


@pytest.fixture
def plan() -> Iterator[elicit_mcp.Plan]:
    with elicit_mcp.Plan(BOOKING) as p:
        yield p


def accept(value: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": {"value": value}}


def booking_resolver(step: elicit_mcp.Resolve) -> None:
    """The booking host's resolvers: airport (LHR for London), proceed (a boolean)."""
    inputs = step.inputs()
    if step.name == "airport":
        if inputs["destination"] == "London":
            step.value("LHR")
        else:
            step.question(f"Which airport in {inputs['destination']}?")
    elif step.name == "proceed":
        step.question(f"Book a flight to {inputs['destination']} on {inputs['date']}?")
    else:  # pragma: no cover - the plan has no other resolver
        raise AssertionError(step.name)
