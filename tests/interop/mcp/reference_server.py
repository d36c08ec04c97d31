"""The Python reference server: the booking tools on FastMCP 4.1.6 with the seed's
declared elicitation (`Annotated[T, Elicit(...)]`).

It is the Python peer of elicit-rmcp-server (servers/rmcp): the same tools (`book_flight`, `greet`, `order`), declarations,
question texts, results and server name ("booking", which is also the audience of the
sealed requestState). Its state is sealed by the MCP Python SDK's own
`RequestStateBoundary` under the key ring given in ELICIT_STATE_KEYS (comma-separated hex
secrets of >= 32 bytes, the first seals, all unseal: the Rust servers' format); unset, an
ephemeral key per process. So rounds of one call may alternate between this server and
elicit-rmcp-server sharing the ring (tests/interop/mcp/test_reference_server.py), and the
same load client measures both (`SERVER=reference scripts/bench-load.sh`).

It needs the reference oracle's environment (fastmcp 4.1.6 + the seed overlay), whose
python `scripts/dev-oracle-env.sh` prints; nothing of the seed is copied here:

    PY=$(scripts/dev-oracle-env.sh)
    $PY tests/interop/mcp/reference_server.py --http 127.0.0.1:0     # endpoint /mcp
    $PY tests/interop/mcp/reference_server.py --stdio

With `--http`, the endpoint is printed on stderr as
`reference-server: streamable HTTP on http://127.0.0.1:PORT/mcp` (port 0 picks a free
port). Loopback addresses only.
"""

# No `from __future__ import annotations`: the elicited annotations name local resolvers,
# which FastMCP evaluates when the tool is registered.
import argparse
import asyncio
import ipaddress
import os
import socket
import sys
from typing import Annotated, Literal

from fastmcp import FastMCP
from fastmcp.elicitation import Elicit
from mcp.server.request_state import RequestStateSecurity

SERVER_NAME = "booking"


def state_keys(text: str) -> list[bytes]:
    """ELICIT_STATE_KEYS as the Rust servers read it: comma-separated hex secrets.

    Not through elicit_core::keyring (the one parser, which sets the limits: 1 to 8 keys of
    32 to 128 bytes): this is the reference the Rust side is measured against, a FastMCP
    program with no Rust build under it, and its keys go straight to the MCP SDK's
    RequestStateSecurity, which enforces the SDK's own rules (32 bytes at least). The
    syntax and the words of its errors are the parser's.
    """
    keys = []
    for i, part in enumerate(text.split(",")):
        part = part.strip()
        if not part:
            raise ValueError(f"ELICIT_STATE_KEYS: key {i} is empty")
        try:
            keys.append(bytes.fromhex(part))
        except ValueError:
            raise ValueError(f"ELICIT_STATE_KEYS: key {i} is not hex") from None
    return keys


def build(keys: list[bytes] | None) -> FastMCP:
    """The booking server; `keys` is the sealing ring (None: an ephemeral key)."""
    security = RequestStateSecurity(keys=keys) if keys else None
    mcp = FastMCP(SERVER_NAME, request_state_security=security)

    def which_airport(destination: str) -> str | Elicit[str]:
        if destination == "London":
            return "LHR"
        return Elicit(f"Which airport in {destination}?", response_type=str)

    def confirm(destination: str, date: str) -> Elicit[bool]:
        return Elicit(f"Book a flight to {destination} on {date}?", response_type=bool)

    @mcp.tool(
        title="Book Flight",
        description="Book a flight. Asks the user for the destination, date, airport, "
        "confirmation and seat.",
    )
    async def book_flight(
        destination: Annotated[str, Elicit("Where would you like to fly?")],
        date: Annotated[str, Elicit("When would you like to fly?")],
        airport: Annotated[str, Elicit(which_airport)],
        proceed: Annotated[bool, Elicit(confirm)],
        seat: Annotated[Literal["window", "aisle"] | None, Elicit("Window or aisle?")] = None,
    ) -> str:
        if not proceed:
            return "Cancelled"
        return f"Booked {destination} ({airport}) on {date}, seat {seat or 'no preference'}"

    @mcp.tool(title="Greet", description="Greet the user by the name they enter.")
    async def greet(name: Annotated[str, Elicit("Enter your name:")]) -> str:
        return f"Hello, {name}"

    def how_many(item: str) -> Elicit[int]:
        return Elicit(f"How many {item}?", response_type=int)

    @mcp.tool(title="Order", description="Order an item. Asks the user how many.")
    async def order(item: str, quantity: Annotated[int, Elicit(how_many)]) -> str:
        return f"Ordered {quantity} x {item}"

    return mcp


def loopback(addr: str) -> tuple[str, int]:
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--http: {addr!r} is not an IP:PORT address")
    host = host.strip("[]")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"--http: {host!r} is not an IP address") from None
    if not ip.is_loopback:
        raise ValueError(f"--http: {addr} is not a loopback address; 127.0.0.1/::1 only")
    return host, int(port)


async def serve_http(mcp: FastMCP, host: str, port: int) -> None:
    # Bind first so port 0 can be reported, then hand the socket to uvicorn.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    print(f"reference-server: streamable HTTP on http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
    await mcp.run_http_async(
        show_banner=False,
        host=host,
        port=port,
        path="/mcp",
        log_level="warning",
        sockets=[sock],
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--stdio", action="store_true", help="serve MCP over stdin/stdout")
    g.add_argument("--http", metavar="ADDR", help="serve streamable HTTP at http://ADDR/mcp")
    args = p.parse_args()
    try:
        text = os.environ.get("ELICIT_STATE_KEYS", "")
        keys = state_keys(text) if text.strip() else None
        mcp = build(keys)
        where = loopback(args.http) if args.http else None
    except ValueError as e:  # bad keys (incl. the SDK's "shorter than 32 bytes") or address
        print(f"reference-server: {e}", file=sys.stderr)
        return 2
    source = f"{len(keys)} key(s) from ELICIT_STATE_KEYS" if keys else "an ephemeral key"
    print(f"reference-server: sealing requestState with {source}", file=sys.stderr, flush=True)
    if where is None:
        mcp.run("stdio", show_banner=False)
    else:
        asyncio.run(serve_http(mcp, *where))
    return 0


if __name__ == "__main__":
    sys.exit(main())
