"""The booking fixture (tests/fixture) as the package's tests, leak check and
benchmark use it.

The book_flight declaration, its resolvers' rules, questions and texts are the files
every surface reads (the Rust demo, the rmcp server, the firmware, the Python example
server), through tests/fixture/booking_texts.py. Outside a checkout (the installed
package's tests) ``$ELICIT_REPO`` names the folder holding ``tests/fixture``: the
sdist's ``rust/`` carries it.
"""

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Dict, Literal, Optional, Union

import elicit_mcp
from elicit_mcp import Elicit, Question
from elicit_mcp.declare import Declared

#: The repository root (python/tests → ../..), or $ELICIT_REPO.
REPO = Path(os.environ.get("ELICIT_REPO", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(REPO / "tests" / "fixture"))

from booking_texts import DECLARATIONS, ENTRIES, TEXTS, Q, ask, known_answer, result  # noqa: E402

__all__ = [
    "BOOKING", "DECLARATIONS", "ENTRIES", "Q", "REPO", "TEXTS",
    "accept", "ask", "book_flight_tool", "booking_resolver", "known_answer", "result",
]

#: The book_flight declaration (destination, date, airport, proceed, seat).
BOOKING: Dict[str, Any] = DECLARATIONS["book_flight"]


def accept(value: Any) -> Dict[str, Any]:
    """The client's answer accepting ``value``."""
    return {"action": "accept", "content": {"value": value}}


def booking_resolver(step: elicit_mcp.ResolveStep) -> None:
    """The booking host's resolvers by the fixture's rules: airport (LHR for London, else
    asks), proceed (asks for a boolean)."""
    inputs = step.inputs()
    # The fixture's build checks that a rule with known answers has exactly one input.
    answer = known_answer(step.name, next(iter(inputs.values())))
    if answer is not None:
        step.value(answer)
    else:
        step.question(ask(step.name, **inputs))


def book_flight_tool(
    register: Callable[..., Callable[[Callable[..., Any]], Declared]],
    pick_airport: Callable[[str], Union[str, Question]],
    confirm: Callable[..., Any],
) -> Declared:
    """The fixture's book_flight on the signature (``@elicit.tool``-style ``register``: its
    title and description, questions and result texts from the fixture), with these
    resolvers."""

    @register(title=ENTRIES["book_flight"]["title"], description=ENTRIES["book_flight"]["description"])
    async def book_flight(
        destination: Annotated[str, Elicit(Q["destination"])],
        date: Annotated[str, Elicit(Q["date"])],
        airport: Annotated[str, Elicit(resolver=pick_airport)],
        proceed: Annotated[bool, Elicit(resolver=confirm)],
        seat: Annotated[Optional[Literal["window", "aisle"]], Elicit(Q["seat"])] = None,
    ) -> str:
        if not proceed:
            return TEXTS["CANCELLED"]
        return result("book_flight", destination=destination, airport=airport, date=date, seat=seat)

    return book_flight
