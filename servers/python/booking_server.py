"""The booking tools on the MCP Python SDK (mcp 2.3, ``MCPServer``) through elicit's
adapter: the same tools, texts and sealed state as ``elicit-rmcp-server`` (the Rust
example), so clients, harnesses and key rings drive either.

    scripts/dev-python-server.sh --stdio
    scripts/dev-python-server.sh --http 127.0.0.1:8000      # endpoint /mcp
    scripts/dev-python-server.sh --conformance --http 127.0.0.1:0
    scripts/dev-python-server.sh --stdio --fallback arguments

Keys: ``ELICIT_STATE_KEYS`` (or ``--state-keys-file``), comma-separated hex keys (32 to
128 bytes each, 1 to 8 keys); the first seals, every key opens. Without a ring, stdio
uses one ephemeral key; HTTP refuses to start unless ``--alone`` (the Rust server's rule).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import socket
import sys
from typing import Annotated, Any, Literal, Optional, Union

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

import elicit_mcp
from elicit_mcp import Elicit, Question
from elicit_mcp.mcp import Elicitation
from booking_texts import ENTRIES, OUTPUT_SCHEMA, TEXTS, Q, ask, known_answer, result  # tests/fixture

#: serverInfo.name, and the audience of sealed state (the Rust server's too).
SERVER_NAME = "booking"

#: The literal questions' field title: the reference's (FastMCP 4.1.6's) "Value", said
#: explicitly (elicit's default is the parameter's name, titled), so the questions and their
#: digests stay byte-identical to the reference's and elicit-rmcp-server's across a fleet.
REF_TITLE = "Value"

#: Every tool's listing extras, as FastMCP 4.1.6 writes them (the Rust server's too).
FASTMCP_META = {"fastmcp": {"tags": []}}


def wrapped(text: str) -> CallToolResult:
    """A successful result as FastMCP 4.1.6 writes a string result (returned as it is:
    the listing's outputSchema is FastMCP's, given with output_schema=)."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"result": text},
        _meta={"fastmcp": {"wrap_result": True}},
    )


# The resolvers, by the booking fixture's rules (tests/fixture/booking.json).


def pick_airport(destination: str) -> Union[str, Question]:
    return known_answer("airport", destination) or Question(ask("airport", destination=destination))


def confirm(destination: str, date: str) -> Question:
    return Question(ask("proceed", destination=destination, date=date))


def how_many(item: str) -> Question:
    return Question(ask("quantity", item=item))


def which_airport(destination: str) -> Question:
    # The itinerary asks for every destination, as elicit-rmcp-server's does.
    return Question(ask("airport", destination=destination))


def build(keys: elicit_mcp.KeyRing, *, ttl: float, conformance: bool, fallback: Optional[str] = None) -> MCPServer:
    """The server: the conformance fixtures first (with ``conformance``), then the
    booking fixture's tools, the welcome prompt and the itinerary resource (their texts
    from tests/fixture). ``fallback="arguments"``: the three booking tools declare the
    fallback through the model (docs/fallback.md), no parameter opted out."""
    server = MCPServer(SERVER_NAME, version=elicit_mcp.__version__)
    elicit = Elicitation(server, keys=keys, ttl=ttl)
    if conformance:
        from conformance import register

        register(elicit)

    def listed(name: str) -> Any:
        entry = ENTRIES[name]
        return elicit.tool(
            title=entry["title"],
            description=entry["description"],
            meta=FASTMCP_META,
            output_schema=OUTPUT_SCHEMA,
            fallback=fallback,
        )

    @listed("book_flight")
    def book_flight(
        destination: Annotated[str, Elicit(Q["destination"], title=REF_TITLE)],
        date: Annotated[str, Elicit(Q["date"], title=REF_TITLE)],
        airport: Annotated[str, Elicit(resolver=pick_airport)],
        proceed: Annotated[bool, Elicit(resolver=confirm)],
        seat: Annotated[Optional[Literal["window", "aisle"]], Elicit(Q["seat"], title=REF_TITLE)] = None,
    ) -> CallToolResult:
        if not proceed:
            return wrapped(TEXTS["CANCELLED"])
        return wrapped(result("book_flight", destination=destination, airport=airport, date=date, seat=seat))

    @listed("greet")
    def greet(name: Annotated[str, Elicit(Q["name"], title=REF_TITLE)]) -> CallToolResult:
        return wrapped(result("greet", name=name))

    @listed("order")
    def order(item: str, quantity: Annotated[int, Elicit(resolver=how_many)]) -> CallToolResult:
        return wrapped(result("order", item=item, quantity=quantity))

    @elicit.prompt(description=ENTRIES["welcome"]["description"])
    def welcome(name: Annotated[str, Elicit(Q["name"], title=REF_TITLE)]) -> str:
        return result("welcome", name=name)

    @elicit.resource(ENTRIES["itinerary"]["uri"], name="itinerary")
    def itinerary(
        destination: Annotated[str, Elicit(Q["destination"], title=REF_TITLE)],
        airport: Annotated[str, Elicit(resolver=which_airport)],
    ) -> str:
        return result("itinerary", destination=destination, airport=airport)

    return server


def key_ring(keys_file: Optional[str], *, http: bool, alone: bool) -> elicit_mcp.KeyRing:
    """The ring from --state-keys-file or ELICIT_STATE_KEYS; without one, an ephemeral key
    for stdio, and for HTTP only with --alone (tokens die with the process, so no other
    process could serve the same calls)."""
    source = keys_file or elicit_mcp.STATE_KEYS_ENV
    try:
        if keys_file is not None:
            ring = elicit_mcp.KeyRing.from_file(keys_file)
        elif os.environ.get(elicit_mcp.STATE_KEYS_ENV) is not None:
            ring = elicit_mcp.KeyRing.from_env()
        elif http and not alone:
            raise ValueError(
                f"--http needs a key ring ({elicit_mcp.STATE_KEYS_ENV} or --state-keys-file), "
                "or --alone when this process serves its calls alone"
            )
        else:
            log("sealing requestState with an ephemeral key (set ELICIT_STATE_KEYS to share state across processes)")
            return elicit_mcp.KeyRing([os.urandom(32)])
    except elicit_mcp.ElicitError as e:  # a duplicate key: the library names keys[i]
        raise ValueError(f"{source}: {e.message}") from None
    except OSError as e:
        raise ValueError(f"{source}: {e.strerror}") from None
    log(f"sealing requestState with the key(s) from {source}")
    return ring


def log(line: str) -> None:
    print(f"elicit-python-server: {line}", file=sys.stderr, flush=True)


def loopback(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    try:
        if not ipaddress.ip_address(host).is_loopback:
            raise argparse.ArgumentTypeError(f"{text} is not a loopback address; this example serves 127.0.0.1/::1 only")
        return host, int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP:PORT address") from None


async def serve_http(server: MCPServer, host: str, port: int) -> None:
    app = server.streamable_http_app(host=host)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)  # connections queue from here on: the URL line may go out now
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    http = uvicorn.Server(config)
    log(f"streamable HTTP on http://{shown}:{bound}/mcp")
    await http.serve(sockets=[sock])


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="elicit-python-server", description=__doc__.split("\n\n")[0])
    transport = parser.add_mutually_exclusive_group(required=True)
    transport.add_argument("--stdio", action="store_true", help="serve MCP over stdin/stdout")
    transport.add_argument("--http", type=loopback, metavar="ADDR", help="serve streamable HTTP at http://ADDR/mcp (loopback only; port 0 picks a free port, printed on stderr)")
    parser.add_argument("--state-keys-file", metavar="PATH", help="read the key ring from PATH (the text ELICIT_STATE_KEYS takes)")
    parser.add_argument("--alone", action="store_true", help="HTTP without a ring: this process serves alone, so one ephemeral key will do")
    parser.add_argument("--state-ttl", type=float, default=float(elicit_mcp.DEFAULT_TTL_SECS), metavar="SECS", help="lifetime of a sealed requestState (default 600)")
    parser.add_argument("--conformance", action="store_true", help="also serve the official MCP conformance suite's fixtures")
    parser.add_argument(
        "--fallback",
        choices=["arguments"],
        help="the booking tools declare the fallback (docs/fallback.md): a client that cannot be asked is told, in a tool result, what to ask the user, and passes the answers as arguments",
    )
    opts = parser.parse_args(argv)
    if not opts.state_ttl > 0:
        parser.error("--state-ttl must be positive")
    try:
        keys = key_ring(opts.state_keys_file, http=opts.http is not None, alone=opts.alone)
    except (ValueError, elicit_mcp.ElicitError) as e:
        log(str(e))
        return 2
    with keys:
        server = build(keys, ttl=opts.state_ttl, conformance=opts.conformance, fallback=opts.fallback)
    if opts.stdio:
        server.run("stdio")
    else:
        host, port = opts.http
        asyncio.run(serve_http(server, host, port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
