"""One plan shared by many threads, each running its own rounds."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

import elicit_mcp

from conftest import BOOKING, accept, booking_resolver

THREADS = 8
ROUNDS = 200


def booking_call(plan: elicit_mcp.Plan, tid: int, i: int) -> Dict[str, Any]:
    """A full three-round modern booking with data unique to (tid, i)."""
    destination = "London" if i % 5 == 0 else f"City-{tid}-{i}"
    date = f"2026-{1 + tid:02d}-{1 + i % 28:02d}"
    state: Optional[str] = None
    replies: Optional[Dict[str, Any]] = None
    script = [
        {"destination": accept(destination), "date": accept(date), "seat": accept("aisle")},
        {"airport": accept(f"A{tid}{i}"), "proceed": accept(i % 2 == 0)},
    ]
    for n in range(3):
        with plan.modern({}, request_state=state, input_responses=replies) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit_mcp.ResolveStep):
                    booking_resolver(step)
                elif isinstance(step, elicit_mcp.Done):
                    values: Dict[str, Any] = step.values()
                    return values
                elif isinstance(step, elicit_mcp.InputRequired):
                    state = step.request_state()
                    replies = script[n] if n < len(script) else None
    raise AssertionError("booking did not finish in 3 rounds")


def worker(plan: elicit_mcp.Plan, tid: int, barrier: threading.Barrier) -> List[str]:
    barrier.wait()
    errors: List[str] = []
    for i in range(ROUNDS):
        got = booking_call(plan, tid, i)
        london = i % 5 == 0
        want = {
            "destination": "London" if london else f"City-{tid}-{i}",
            "date": f"2026-{1 + tid:02d}-{1 + i % 28:02d}",
            "airport": "LHR" if london else f"A{tid}{i}",
            "proceed": i % 2 == 0,
            "seat": "aisle",
        }
        if got != want:
            errors.append(f"thread {tid} round {i}: {got} != {want}")
    return errors


def test_one_plan_many_threads() -> None:
    barrier = threading.Barrier(THREADS)
    with elicit_mcp.Plan(BOOKING) as plan:
        with ThreadPoolExecutor(THREADS) as pool:
            futures = [pool.submit(worker, plan, t, barrier) for t in range(THREADS)]
            errors = [e for f in futures for e in f.result()]
    assert errors == []


def test_one_round_shared_by_threads_is_serialized() -> None:
    """Misuse (a round from two threads at once) is serialized, never a crash."""
    with elicit_mcp.Plan(BOOKING) as plan, plan.modern() as rnd:
        rnd.poll()
        expected = rnd.input_requests_bytes()

        def read() -> Tuple[bytes, ...]:
            return tuple(rnd.input_requests_bytes() for _ in range(300))

        with ThreadPoolExecutor(4) as pool:
            results = [f.result() for f in [pool.submit(read) for _ in range(4)]]
        assert all(r == expected for res in results for r in res)


def test_closing_the_plan_while_threads_use_it() -> None:
    """Every round started before close() finishes; later starts get ClosedError."""
    plan = elicit_mcp.Plan(BOOKING)
    started = threading.Event()
    outcomes: List[str] = []
    lock = threading.Lock()

    def run(tid: int) -> None:
        for i in range(ROUNDS):
            try:
                booking_call(plan, tid, i)
                result = "ok"
            except elicit_mcp.ClosedError:
                result = "closed"
            started.set()
            with lock:
                outcomes.append(result)
            if result == "closed":
                return

    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    started.wait()
    plan.close()
    for t in threads:
        t.join()
    assert plan.closed and plan._handle is None
    assert set(outcomes) <= {"ok", "closed"}
    assert outcomes.count("closed") == 4
