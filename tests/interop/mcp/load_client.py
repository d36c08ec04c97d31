"""A small load client for elicit-rmcp-server over streamable HTTP (2026-07-28).

It speaks the wire exactly as fastmcp.Client 4.1.6 does (the `_meta` envelope, the
`mcp-protocol-version` / `mcp-method` / `mcp-name` headers, `inputResponses` plus the
echoed `requestState`), but drives the rounds itself so each round's latency can be
timed. Every call books a flight; its rounds may go to several servers in turn (a
horizontally scaled deployment sharing ELICIT_STATE_KEYS).

    python load_client.py --url http://127.0.0.1:PORT/mcp [--url ...] --calls 200 --concurrency 200

Only loopback URLs are accepted. Prints per-round latency percentiles and exits non-zero
unless every call completed with the expected result.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse

import httpx2

MODERN = "2026-07-28"
CAPS = {"elicitation": {"form": {}, "url": {}}}
DESTINATIONS = ["Paris", "London", "Tokyo", "Lima"]


def envelope() -> dict:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "load-client", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": CAPS,
    }


def answer(message: str, destination: str, n: int):
    """The scripted answer for one question of call number n."""
    if message == "Where would you like to fly?":
        return destination
    if message == "When would you like to fly?":
        return f"2026-08-{n % 28 + 1:02d}"
    if message.startswith("Which airport in "):
        return destination[:3].upper()
    if message.startswith("Book a flight to "):
        return True
    if message == "Window or aisle?":
        return "aisle" if n % 2 else "window"
    raise ValueError(f"unexpected question {message!r}")


def expected(destination: str, n: int) -> str:
    airport = "LHR" if destination == "London" else destination[:3].upper()
    seat = "aisle" if n % 2 else "window"
    return f"Booked {destination} ({airport}) on 2026-08-{n % 28 + 1:02d}, seat {seat}"


@dataclass
class Stats:
    # latency in seconds per round number (1-based)
    rounds: dict[int, list[float]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    completed: int = 0
    per_server: dict[str, int] = field(default_factory=dict)


class Caller:
    def __init__(self, client: httpx2.AsyncClient, urls: list[str]):
        self.client = client
        self.urls = itertools.cycle(urls)
        self.next_id = itertools.count(1)

    async def post(self, method: str, params: dict, stats: Stats | None = None) -> dict:
        url = next(self.urls)
        params = {**params, "_meta": envelope()}
        body = {"jsonrpc": "2.0", "id": next(self.next_id), "method": method, "params": params}
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
        }
        if method == "tools/call":
            headers["mcp-name"] = params["name"]
        r = await self.client.post(url, content=json.dumps(body), headers=headers)
        if stats is not None:
            stats.per_server[url] = stats.per_server.get(url, 0) + 1
        msg = r.json()
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg["result"]


async def book(caller: Caller, n: int, stats: Stats) -> None:
    destination = DESTINATIONS[n % len(DESTINATIONS)]
    params: dict = {"name": "book_flight", "arguments": {}}
    for round_no in itertools.count(1):
        if round_no > 10:
            stats.failures.append(f"call {n}: more than 10 rounds")
            return
        t0 = time.perf_counter()
        try:
            result = await caller.post("tools/call", params, stats)
        except Exception as e:  # noqa: BLE001 - reported, not raised
            stats.failures.append(f"call {n} round {round_no}: {e!r}")
            return
        stats.rounds.setdefault(round_no, []).append(time.perf_counter() - t0)
        if result.get("resultType") == "input_required":
            responses = {}
            for key, req in result["inputRequests"].items():
                value = answer(req["params"]["message"], destination, n)
                responses[key] = {"action": "accept", "content": {"value": value}}
            params = {
                "name": "book_flight",
                "arguments": {},
                "inputResponses": responses,
                "requestState": result["requestState"],
            }
            continue
        text = result["content"][0]["text"]
        want = expected(destination, n)
        if result.get("isError") or text != want or result.get("structuredContent") != {"result": want}:
            stats.failures.append(f"call {n}: got {text!r}, want {want!r}")
        else:
            stats.completed += 1
        return


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def run_load(urls: list[str], calls: int, concurrency: int) -> Stats:
    for u in urls:
        host = urlparse(u).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"refusing non-loopback URL {u}")
    stats = Stats()
    limits = httpx2.Limits(max_connections=concurrency + 8, max_keepalive_connections=concurrency + 8)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as client:
        caller = Caller(client, urls)
        # Like fastmcp.Client in auto mode: discover first.
        await caller.post("server/discover", {})
        sem = asyncio.Semaphore(concurrency)

        async def one(n: int):
            async with sem:
                await book(caller, n, stats)

        await asyncio.gather(*(one(n) for n in range(calls)))
    return stats


def report(stats: Stats, calls: int, wall: float) -> str:
    lines = [f"calls: {stats.completed}/{calls} completed correctly in {wall:.2f}s "
             f"({stats.completed / wall:.1f} calls/s)"]
    all_rounds = []
    for round_no in sorted(stats.rounds):
        lat = stats.rounds[round_no]
        all_rounds += lat
        lines.append(
            f"round {round_no}: n={len(lat):4d}  p50={percentile(lat, 50) * 1000:7.2f} ms  "
            f"p99={percentile(lat, 99) * 1000:7.2f} ms  max={max(lat) * 1000:7.2f} ms"
        )
    if all_rounds:
        lines.append(
            f"all rounds: n={len(all_rounds)}  p50={percentile(all_rounds, 50) * 1000:.2f} ms  "
            f"p99={percentile(all_rounds, 99) * 1000:.2f} ms  "
            f"mean={statistics.mean(all_rounds) * 1000:.2f} ms"
        )
    if len(stats.per_server) > 1:
        lines.append("requests per server: " + ", ".join(f"{u}={c}" for u, c in sorted(stats.per_server.items())))
    for f in stats.failures[:10]:
        lines.append(f"FAILED {f}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", action="append", required=True, help="server endpoint (repeat to alternate)")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=200)
    a = ap.parse_args()
    t0 = time.perf_counter()
    stats = asyncio.run(run_load(a.url, a.calls, a.concurrency))
    print(report(stats, a.calls, time.perf_counter() - t0))
    return 0 if stats.completed == a.calls and not stats.failures else 1


if __name__ == "__main__":
    sys.exit(main())
