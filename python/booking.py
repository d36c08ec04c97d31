#!/usr/bin/env python3
"""booking.py: the book_flight flow across rounds, driven from Python through elicit.

A host (an MCP server) compiles the tool's declaration once, then runs one round per
``tools/call``: it runs the resolvers the round asks for and answers the call with
either the settled values (the tool body runs) or an InputRequiredResult (questions
plus a requestState the client sends back).

Modern era (2026-07-28), three calls with scripted client answers, the requestState
sealed between them (the MCP Python SDK's token format):
  1. no answers yet             -> asks destination, date, seat
  2. Paris, 2026-08-01, window  -> asks airport ("Which airport in Paris?") and proceed
  3. CDG, true                  -> done
Handshake era (<= 2025-11-25), one call with questions one at a time, flying to
London (the airport resolver knows the answer, "LHR", and asks nothing); the seat is
declined, so it takes its default (null).

Run: python python/booking.py   (with the package installed, or from the checkout after
cargo build --release -p elicit-ffi)
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List, Optional

import elicit

DECLARATION: Dict[str, Any] = {
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


def accept(value: Any) -> Dict[str, Any]:
    return {"action": "accept", "content": {"value": value}}


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def expect(ok: bool, what: str) -> None:
    if not ok:
        print(f"booking: expectation failed: {what}", file=sys.stderr)
        sys.exit(1)


# ------------------------------------------------------------------------ resolvers


def resolve(step: elicit.Resolve) -> None:
    """The host's resolvers: each returns a value or asks a question. They run again on
    every round (even after their question was answered), so they are cheap and pure."""
    if step.name == "airport":
        destination = step.input_text("destination")
        if destination == "London":
            print(f"  resolver airport({destination}) -> value \"LHR\"")
            step.value("LHR")
        else:
            question = f"Which airport in {destination}?"
            print(f"  resolver airport({destination}) -> question {show(question)}")
            step.question(question)
    elif step.name == "proceed":
        question = f"Book a flight to {step.input_text('destination')} on {step.input_text('date')}?"
        print(f"  resolver proceed -> question {show(question)}")
        step.question(question, title="Confirm")
    else:
        expect(False, f"no resolver for {step.name!r}")


# ---------------------------------------------------------------------- modern era


def modern(plan: elicit.Plan, sealer: elicit.Sealer) -> Dict[str, Any]:
    print("== modern era (2026-07-28): batched rounds, sealed requestState ==")
    script: List[Optional[Dict[str, Any]]] = [
        None,
        {"destination": accept("Paris"), "date": accept("2026-08-01"), "seat": accept("window")},
        {"airport": accept("CDG"), "proceed": accept(True)},
    ]
    token: Optional[str] = None
    for number, replies in enumerate(script, start=1):
        print(f"round {number} (inputResponses: {show(replies) if replies else 'none'})")
        # The tools/call params as the client sends them, the sealed state echoed back.
        params: Dict[str, Any] = {"name": "book_flight", "arguments": {}}
        if token is not None:
            params["requestState"] = token
            forged = token[:-5] + ("A" if token[-5] != "A" else "B") + token[-4:]
            try:
                sealer.unseal("tools/call", dict(params, requestState=forged))
                expect(False, "a tampered token is rejected")
            except elicit.RequestStateError as e:
                print(f"  tampered token -> {show(e.error)} (log: {e.reason})")
        state = sealer.unseal("tools/call", params)
        expect((state is None) == (token is None), "a state exactly when one was sent")
        with plan.modern({}, request_state=state, input_responses=replies) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit.Resolve):
                    resolve(step)
                elif isinstance(step, elicit.InputRequired):
                    requests = step.input_requests()
                    token = sealer.seal("tools/call", params, step.request_state())
                    for name, request in requests.items():
                        print(f"  asks {name}: {show(request['params']['message'])}")
                    print(f"  requestState: {step.request_state()}")
                    print(f"  sealed: {token[:24]}... ({len(token)} bytes)")
                    if number == 1:
                        expect(list(requests) == ["destination", "date", "seat"], "round 1 asks")
                    elif number == 2:
                        expect(list(requests) == ["airport", "proceed"], "round 2 asks")
                        expect(
                            requests["airport"]["params"]["message"] == "Which airport in Paris?",
                            "the airport question names the destination",
                        )
                elif isinstance(step, elicit.Done):
                    values = step.values()
                    print(f"  done: {show(values)}")
                    expect(number == 3, "done on the third round")
                    return values
    expect(False, "the call completed")
    raise AssertionError("unreachable")


# ------------------------------------------------------------------- handshake era


def handshake(plan: elicit.Plan) -> Dict[str, Any]:
    print("== handshake era (2025-11-25): one question at a time ==")
    answers = {
        "destination": accept("London"),
        "date": accept("2026-09-15"),
        "proceed": accept(True),
        "seat": {"action": "decline"},
    }
    asked: List[str] = []
    with plan.handshake() as rnd:
        for step in rnd.steps():
            if isinstance(step, elicit.Resolve):
                resolve(step)
            elif isinstance(step, elicit.Ask):
                request = step.request()
                reply = answers[step.name]
                print(f"  elicitation/create {show(request['message'])} -> {show(reply)}")
                asked.append(step.name)
                step.answer(reply)
            elif isinstance(step, elicit.Done):
                values = step.values()
                print(f"  done: {show(values)}")
                expect(asked == ["destination", "date", "proceed", "seat"], "questions in order")
                return values
    expect(False, "the call completed")
    raise AssertionError("unreachable")


def main() -> int:
    with elicit.Plan(DECLARATION) as plan:
        print(f"{plan.tool_name}: {len(plan.params)} parameters")
        for p in plan.params:
            print(f"  {p.name}: {'elicited' if p.elicited else 'argument'}"
                  f"{' (resolver)' if p.has_resolver else ''}")
        # The server's key ring: one fresh random key here (tokens die with the
        # process); a fleet shares its keys. Audience: the server's name.
        with elicit.KeyRing([os.urandom(32)]) as ring:
            sealer = elicit.Sealer(ring, audience="booking")
        with sealer:
            values = modern(plan, sealer)
        expect(
            values
            == {
                "destination": "Paris",
                "date": "2026-08-01",
                "airport": "CDG",
                "proceed": True,
                "seat": "window",
            },
            "modern values",
        )
        values = handshake(plan)
        expect(
            values
            == {
                "destination": "London",
                "date": "2026-09-15",
                "airport": "LHR",
                "proceed": True,
                "seat": None,
            },
            "handshake values (a declined seat takes its default)",
        )
    print(f"final values: {show(values)}")
    print("booking: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
