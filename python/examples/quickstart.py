from typing import Annotated, Literal, Optional, Union

from mcp.server.mcpserver import MCPServer

from elicit_mcp import Elicit, KeyRing, Question
from elicit_mcp.mcp import Elicitation

mcp = MCPServer("booking")
elicit = Elicitation(mcp, keys=KeyRing.from_env())  # ELICIT_STATE_KEYS: hex keys, the first seals


def pick_airport(destination: str) -> Union[str, Question]:
    return "LHR" if destination == "London" else Question(f"Which airport in {destination}?")


@elicit.tool(title="Book Flight")
async def book_flight(
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    airport: Annotated[str, Elicit(resolver=pick_airport)],
    seat: Annotated[Optional[Literal["window", "aisle"]], Elicit("Window or aisle?")] = None,
) -> str:
    return f"Booked {destination} ({airport}), seat {seat or 'any'}"


if __name__ == "__main__":
    mcp.run()
