"""Shared fixtures: the repository paths and the book_flight declaration (booking_fixture.py)."""

from __future__ import annotations

from typing import Iterator

import pytest

import elicit_mcp
from booking_fixture import BOOKING, REPO, accept, booking_resolver

__all__ = ["BOOKING", "HEADER", "NOALLOC_HEADER", "REPO", "VECTORS", "accept", "booking_resolver", "plan"]

HEADER = REPO / "include" / "elicit.h"
#: The header elicit.h includes: the version, the codes, the steps and the heap-free
#: surface (for C firmware; the binding does not use that part).
NOALLOC_HEADER = REPO / "include" / "elicit_noalloc.h"
VECTORS = REPO / "tests" / "vectors"


@pytest.fixture
def plan() -> Iterator[elicit_mcp.Plan]:
    with elicit_mcp.Plan(BOOKING) as p:
        yield p
