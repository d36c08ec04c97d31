#!/usr/bin/env python3
"""leak_check.py: many rounds through the binding, RSS measured at start and end.

Runs ``--rounds`` rounds (default 100,000) of the book_flight flow on one plan:
full three-call modern bookings and handshake bookings, with error paths mixed in
(a declined required answer, a malformed inputResponses, a rejected declaration, a
plan created and closed, a round left to the garbage collector). Prints the resident
set size after a warm-up and at the end. A measurement, not a timing assertion: it
fails (exit 1) only when RSS grew by more than ``--limit-mb`` (default 50 MB).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from typing import Any, Dict, Optional

import elicit_mcp
from booking_fixture import BOOKING, accept, booking_resolver

def rss_bytes() -> int:
    """The current resident set size (Linux /proc; else the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class Driver:
    def __init__(self, plan: elicit_mcp.Plan) -> None:
        self.plan = plan
        self.rounds = 0
        self.state: Optional[str] = None
        self.stage = 0
        self.bookings = 0
        self.errors = 0

    def modern_round(self, i: int) -> None:
        """One call of a three-call modern booking (the stage advances each call)."""
        replies: Optional[Dict[str, Any]] = None
        if self.stage == 1:
            replies = {
                "destination": accept(f"City {i}"),
                "date": accept("2026-08-01"),
                "seat": accept("window"),
            }
        elif self.stage == 2:
            replies = {"airport": accept("CDG"), "proceed": accept(True)}
        with self.plan.modern({}, request_state=self.state, input_responses=replies) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit_mcp.ResolveStep):
                    booking_resolver(step)
                elif isinstance(step, elicit_mcp.InputRequired):
                    step.input_requests()
                    self.state = step.request_state()
                    self.stage += 1
                elif isinstance(step, elicit_mcp.Done):
                    if step.values()["airport"] != "CDG":
                        raise AssertionError(step.values())
                    self.state, self.stage = None, 0
                    self.bookings += 1
            rnd.notes()
        self.rounds += 1

    def handshake_round(self, decline: bool) -> None:
        with self.plan.handshake() as rnd:
            try:
                for step in rnd.steps():
                    if isinstance(step, elicit_mcp.ResolveStep):
                        booking_resolver(step)
                    elif isinstance(step, elicit_mcp.Ask):
                        if step.name == "destination":
                            step.decline() if decline else step.accept("London")
                        elif step.name == "date":
                            step.accept("2026-09-15")
                        elif step.name == "proceed":
                            step.accept(True)
                        else:
                            step.decline()
                    elif isinstance(step, elicit_mcp.Done):
                        step.values_bytes()
                        self.bookings += 1
            except elicit_mcp.ResolutionError as e:
                if not e.message.startswith("Cannot continue without 'destination'"):
                    raise
                self.errors += 1
        self.rounds += 1

    def error_paths(self) -> None:
        try:
            self.plan.modern({}, input_responses={"seat": 5})
        except elicit_mcp.InputResponsesError:
            self.errors += 1
        try:
            elicit_mcp.Plan({"parameters": [{"name": "a"}, {"name": "a"}]})
        except elicit_mcp.DeclarationError:
            self.errors += 1
        with elicit_mcp.Plan(BOOKING) as other:
            other.modern().poll()  # a round left to the garbage collector
        self.rounds += 2

    def run(self, i: int) -> None:
        if i % 100 == 0:
            self.error_paths()
        elif i % 10 == 0:
            self.handshake_round(decline=(i % 20 == 0))
        else:
            self.modern_round(i)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--limit-mb", type=float, default=50.0)
    args = parser.parse_args()

    with elicit_mcp.Plan(BOOKING) as plan:
        d = Driver(plan)
        i = 0
        while d.rounds < args.warmup:
            d.run(i)
            i += 1
        gc.collect()
        start = rss_bytes()
        d.rounds = 0
        t0 = time.perf_counter()
        while d.rounds < args.rounds:
            d.run(i)
            i += 1
        elapsed = time.perf_counter() - t0
        gc.collect()
        end = rss_bytes()
    growth = (end - start) / 2**20
    print(f"leak check: RSS at start {start / 2**20:.1f} MiB ({start} bytes) after {args.warmup} warm-up rounds")
    print(f"leak check: RSS at end   {end / 2**20:.1f} MiB ({end} bytes) after {d.rounds} rounds "
          f"({d.bookings} bookings done, {d.errors} error paths, {elapsed:.1f} s)")
    print(f"leak check: growth {growth:+.2f} MiB (limit {args.limit_mb:g} MB)")
    if end - start > args.limit_mb * 1e6:
        print("leak check: FAILED: RSS grew past the limit", file=sys.stderr)
        return 1
    print("leak check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
