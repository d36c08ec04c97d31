"""bench_elicitation.py: the same tools served by (a) mcp 2.3's MCPServer with its own
declared elicitation (``Annotated[T, Resolve(fn)]``) and (b) the same MCPServer on
elicit's adapter, driven in-process by the SDK's own client on 2026-07-28 (every round
sealed and unsealed, as on the wire, without a transport).

Two tools: ``book_flight`` (3 rounds: destination, date and seat; then airport and
proceed; then the booking) and ``survey16`` (16 independent questions: one round asks
all 16, the next settles them).

Per variant and tool it prints CPU per round (process CPU time, client and server in
one process) and the part of it spent in elicitation itself: for (a) the SDK's
``resolve_arguments`` plus its ``RequestStateBoundary`` unseal and seal; for (b)
``Declared.run`` plus elicit's ``SealingMiddleware`` (unseal and seal). Both measured
with ``time.thread_time`` around those calls (their resolvers are async, so nothing
runs on another thread). A measurement, never a test: the machine may be loaded; CPU
time, not wall time, is the meaningful figure.

Then, over streamable HTTP with each server in its own process (``--http``): (a), (b)
and (c) the Rust server (elicit-rmcp-server, ``$ELICIT_RMCP_SERVER_BIN``; book_flight
only, it has no 16-question tool), each driven by a raw 2026-07-28 client at 1 and 50
concurrent calls: the server process's CPU per round (utime + stime from /proc) and
rounds per second (wall: on a loaded machine, read it as an indication only).

    python bench_elicitation.py [--calls N] [--http-calls N] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import pstats
import re
import socket
import subprocess
import sys
import threading
import time
from typing import Annotated, Any, Awaitable, Callable, Dict, List, Literal, Optional, Union

import mcp_types as types
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver import resolve as sdk_resolve
from mcp.server.mcpserver.resolve import Elicit as SdkElicit
from mcp.server.mcpserver.resolve import Resolve
from mcp.server.mcpserver.tools import base as sdk_tools_base
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from pydantic import BaseModel

import elicit_mcp
from elicit_mcp import Elicit, Question
from elicit_mcp.declare import Declared
from elicit_mcp.mcp import Elicitation, SealingMiddleware

# The booking fixture's questions and rules (python/tests/booking_fixture.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from booking_fixture import Q, ask, book_flight_tool, known_answer, result  # noqa: E402

KEY = bytes(range(32))
N_SURVEY = 16

ANSWERS: Dict[str, Any] = {
    Q["destination"]: "Paris",
    Q["date"]: "2026-08-01",
    ask("airport", destination="Paris"): "CDG",
    ask("proceed", destination="Paris", date="2026-08-01"): True,
    Q["seat"]: "window",
}
ANSWERS.update({f"Question {i}?": f"answer {i}" for i in range(1, N_SURVEY + 1)})

# ------------------------------------------------------------------ (a) the SDK's own


class Text(BaseModel):
    value: str


class Flag(BaseModel):
    value: bool


class Seat(BaseModel):
    value: Optional[Literal["window", "aisle"]] = None


async def ask_destination() -> SdkElicit[Text]:
    return SdkElicit(Q["destination"], Text)


async def ask_date() -> SdkElicit[Text]:
    return SdkElicit(Q["date"], Text)


async def ask_seat() -> SdkElicit[Seat]:
    return SdkElicit(Q["seat"], Seat)


async def ask_airport(destination: Annotated[Text, Resolve(ask_destination)]) -> Union[SdkElicit[Text], Text]:
    known = known_answer("airport", destination.value)
    if known is not None:
        return Text(value=known)
    return SdkElicit(ask("airport", destination=destination.value), Text)


async def ask_proceed(
    destination: Annotated[Text, Resolve(ask_destination)], date: Annotated[Text, Resolve(ask_date)]
) -> SdkElicit[Flag]:
    return SdkElicit(ask("proceed", destination=destination.value, date=date.value), Flag)


def sdk_server() -> MCPServer:
    server = MCPServer("bench", request_state_security=RequestStateSecurity(keys=[KEY]))

    @server.tool()
    async def book_flight(
        destination: Annotated[Text, Resolve(ask_destination)],
        date: Annotated[Text, Resolve(ask_date)],
        airport: Annotated[Text, Resolve(ask_airport)],
        proceed: Annotated[Flag, Resolve(ask_proceed)],
        seat: Annotated[Seat, Resolve(ask_seat)],
    ) -> str:
        return result("book_flight", destination=destination.value, airport=airport.value, date=date.value, seat=seat.value)

    def asker(i: int) -> Callable[[], Awaitable[SdkElicit[Text]]]:
        async def ask() -> SdkElicit[Text]:
            return SdkElicit(f"Question {i}?", Text)

        ask.__qualname__ = ask.__name__ = f"ask_q{i}"
        return ask

    params = ", ".join(f"q{i}: Annotated[Text, Resolve(ask_q{i})]" for i in range(1, N_SURVEY + 1))
    namespace: Dict[str, Any] = {"Annotated": Annotated, "Text": Text, "Resolve": Resolve}
    namespace.update({f"ask_q{i}": asker(i) for i in range(1, N_SURVEY + 1)})
    exec(f"async def survey16({params}) -> str:\n    return 'done'\n", namespace)
    server.tool()(namespace["survey16"])
    return server


# ------------------------------------------------------------- (b) elicit's adapter


def pick_airport(destination: str) -> Union[str, Question]:
    return known_answer("airport", destination) or Question(ask("airport", destination=destination))


def confirm(destination: str, date: str) -> Question:
    return Question(ask("proceed", destination=destination, date=date))


def elicit_server() -> MCPServer:
    server = MCPServer("bench")
    elicit = Elicitation(server, keys=elicit_mcp.KeyRing([KEY]))

    book_flight_tool(elicit.tool, pick_airport, confirm)

    params = ", ".join(f"q{i}: Annotated[str, Elicit('Question {i}?')]" for i in range(1, N_SURVEY + 1))
    namespace: Dict[str, Any] = {"Annotated": Annotated, "Elicit": Elicit}
    exec(f"async def survey16({params}) -> str:\n    return 'done'\n", namespace)
    elicit.tool(namespace["survey16"])
    return server


# ---------------------------------------------------------------- instrumentation


class Meter:
    """CPU time (thread time) spent inside the wrapped elicitation calls."""

    def __init__(self) -> None:
        self.cpu = 0.0

    def sync(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            t = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.cpu += time.thread_time() - t

        return wrapped

    def coro(self, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            t = time.thread_time()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.cpu += time.thread_time() - t

        return wrapped


def instrument(meter: Meter) -> None:
    # (a): the SDK's resolver walk and its boundary's unseal and seal.
    setattr(sdk_tools_base, "resolve_arguments", meter.coro(sdk_resolve.resolve_arguments))
    RequestStateBoundary._unseal = meter.sync(RequestStateBoundary._unseal)  # type: ignore[method-assign]
    RequestStateBoundary._seal_result = meter.sync(RequestStateBoundary._seal_result)  # type: ignore[method-assign]
    # (b): elicit's round driver (the engine, the resolvers, the argument check) and its
    # sealing middleware.
    setattr(Declared, "run", meter.coro(Declared.run))
    SealingMiddleware._seal = meter.sync(SealingMiddleware._seal)  # type: ignore[method-assign]
    elicit_mcp.Sealer.unseal = meter.sync(elicit_mcp.Sealer.unseal)  # type: ignore[method-assign]


async def answer(context: Any, params: Any) -> Any:
    return types.ElicitResult(action="accept", content={"value": ANSWERS[params.message]})


ROUNDS = {"book_flight": 3, "survey16": 2}


async def drive(server: MCPServer, tool: str, calls: int) -> None:
    async with Client(server, mode="auto", elicitation_callback=answer) as c:
        for _ in range(calls):
            r = await c.call_tool(tool, {})
            assert not r.is_error, r


def measure(make: Callable[[], MCPServer], tool: str, calls: int, meter: Meter) -> Dict[str, float]:
    server = make()
    asyncio.run(drive(server, tool, 3))  # warm up
    meter.cpu = 0.0
    t0 = time.process_time()
    asyncio.run(drive(server, tool, calls))
    total = time.process_time() - t0
    rounds = calls * ROUNDS[tool]
    return {"total_us": total / rounds * 1e6, "elicitation_us": meter.cpu / rounds * 1e6}


# ------------------------------------------------------------------- over HTTP

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def serve(variant: str) -> None:
    """Serve (a) or (b) over streamable HTTP on a free loopback port (printed)."""
    import uvicorn

    server = sdk_server() if variant == "a" else elicit_server()
    app = server.streamable_http_app(host="127.0.0.1")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)  # connections queue from here on, before uvicorn accepts
    print(f"streamable HTTP on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_call(client: Any, url: str, tool: str) -> int:
    params: Dict[str, Any] = {"name": tool, "arguments": {}, "_meta": META}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": tool,
    }
    for rounds in range(1, 10):
        r = await client.post(url, json={"jsonrpc": "2.0", "id": rounds, "method": "tools/call", "params": params}, headers=headers)
        text = r.text
        if text.startswith("event:") or "\ndata:" in text:
            text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
        res = json.loads(text)["result"]
        if res.get("resultType") != "input_required":
            assert not res.get("isError"), res
            return rounds
        replies = {
            k: {"action": "accept", "content": {"value": ANSWERS[q["params"]["message"]]}}
            for k, q in res["inputRequests"].items()
        }
        params = {**params, "inputResponses": replies, "requestState": res["requestState"]}
    raise AssertionError("no final round")


async def load(url: str, tool: str, calls: int, concurrency: int) -> int:
    import httpx2 as httpx

    logging.getLogger("httpx2").setLevel(logging.WARNING)
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=concurrency)) as client:

        async def guarded() -> int:
            async with sem:
                return await one_call(client, url, tool)

        return sum(await asyncio.gather(*(guarded() for _ in range(calls))))


def start(command: List[str]) -> "tuple[subprocess.Popen[str], str]":
    env = dict(os.environ, ELICIT_STATE_KEYS=KEY.hex())
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=env)
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError(f"{command} exited")
        m = re.search(r"streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            # Keep draining the server's log, or a full pipe would stall it.
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1)


def http_rows(calls: int) -> List[str]:
    rows: List[str] = []
    rust = os.environ.get("ELICIT_RMCP_SERVER_BIN")
    servers = [("(a) MCPServer + Resolve(...)", [sys.executable, __file__, "--serve", "a"]),
               ("(b) MCPServer + elicit adapter", [sys.executable, __file__, "--serve", "b"])]
    if rust:
        servers.append(("(c) elicit-rmcp-server (Rust)", [rust, "--http", "127.0.0.1:0"]))
    for name, command in servers:
        proc, url = start(command)
        try:
            for tool in ("book_flight", "survey16"):
                if name.startswith("(c)") and tool == "survey16":
                    continue
                asyncio.run(load(url, tool, 5, 5))  # warm up
                for concurrency in (1, 50):
                    c0, w0 = cpu_seconds(proc.pid), time.perf_counter()
                    rounds = asyncio.run(load(url, tool, calls, concurrency))
                    cpu, wall = cpu_seconds(proc.pid) - c0, time.perf_counter() - w0
                    rows.append(f"| {tool} | {name} | {concurrency} | {cpu / rounds * 1e6:.0f} | {rounds / wall:.0f} |")
        finally:
            proc.terminate()
            proc.wait(10)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", action="store_true", help="print cProfile's top functions per variant")
    ap.add_argument("--http-calls", type=int, default=100, help="calls per HTTP row (0: skip HTTP)")
    ap.add_argument("--serve", choices=["a", "b"], help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.serve:
        serve(opts.serve)
        return 0
    meter = Meter()
    instrument(meter)
    rows: List[str] = []
    ratios: Dict[str, float] = {}
    for tool in ("book_flight", "survey16"):
        figures = {}
        for name, make in (("(a) MCPServer + Resolve(...)", sdk_server), ("(b) MCPServer + elicit adapter", elicit_server)):
            figures[name] = f = measure(make, tool, opts.calls, meter)
            rows.append(
                f"| {tool} | {name} | {f['total_us']:.0f} | {f['elicitation_us']:.0f} | "
                f"{f['elicitation_us'] / f['total_us'] * 100:.0f} % |"
            )
            if opts.profile:
                prof = cProfile.Profile()
                server = make()
                prof.enable()
                asyncio.run(drive(server, tool, 20))
                prof.disable()
                print(f"--- {tool} {name}: top 12 by cumulative time", file=sys.stderr)
                pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(12)
        a, b = figures.values()
        ratios[tool] = a["elicitation_us"] / b["elicitation_us"]
        ratios[tool + "/total"] = a["total_us"] / b["total_us"]
    print(f"python {sys.version.split()[0]}, {opts.calls} calls per row, pid {os.getpid()}")
    print("| tool | server | CPU per round (us) | elicitation's part (us) | share |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(r)
    for tool in ("book_flight", "survey16"):
        print(
            f"{tool}: elicitation {ratios[tool]:.1f}x cheaper in (b) than (a); "
            f"whole round {ratios[tool + '/total']:.2f}x"
        )
    if opts.http_calls:
        print()
        print(f"over streamable HTTP, {opts.http_calls} calls per row, server process CPU:")
        print("| tool | server | concurrent calls | server CPU per round (us) | rounds/s (wall) |")
        print("|---|---|---|---|---|")
        for r in http_rows(opts.http_calls):
            print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
