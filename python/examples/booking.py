#!/usr/bin/env python3
"""booking.py: the book_flight flow across rounds, driven from Python through elicit.

A host (an MCP server) compiles the tool's declaration once, then runs one round per
``tools/call``: it runs the resolvers the round asks for and answers the call with
either the settled values (the tool body runs) or an InputRequiredResult (questions
plus a requestState the client sends back).

Besides form questions, the fare is paid by URL-mode elicitation (``payment``: the
user pays on a page the client opens; the answer is the action alone) and a travel tip
comes from the client's model by sampling (``tip``: a resolver builds the
CreateMessageRequest from the destination; the parameter settles to the
CreateMessageResult). Every round gets the client's ClientCapabilities; a client that
declared form elicitation only gets JSON-RPC -32021 with requiredCapabilities.

Modern era (2026-07-28), three calls with scripted client answers, the requestState
sealed between them (the MCP Python SDK's token format):
  1. no answers yet                   -> asks destination, date, seat, payment (URL)
  2. Paris, 2026-08-01, window, paid  -> asks airport ("Which airport in Paris?"),
                                         proceed and tip (sampling/createMessage)
  3. CDG, true, a CreateMessageResult -> done
Handshake era (<= 2025-11-25), one call with requests one at a time, flying to
London (the airport resolver knows the answer, "LHR", and asks nothing); the seat is
declined, so it takes its default (null).

Run: python python/examples/booking.py   (with the package installed, or from the checkout after
cargo build --release -p elicit-ffi). The declaration is the booking fixture's
(tests/fixture/decl/book_flight.json); a copy of booking.py elsewhere needs that file
beside it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import elicit_mcp


def fixture_path(name: str) -> Path:
    """A file of the booking fixture: beside this script (a copy), in the checkout
    (tests/fixture/decl) or in the unpacked sdist (rust/tests/fixture/decl)."""
    here = Path(__file__).resolve().parent
    for place in (here, here.parent.parent / "tests" / "fixture" / "decl", here.parent / "rust" / "tests" / "fixture" / "decl"):
        if (place / name).is_file():
            return place / name
    raise SystemExit(f"booking: {name} not found beside {here} nor in tests/fixture/decl: copy it beside booking.py")


#: The book_flight declaration every surface serves (tests/fixture/decl/book_flight.json:
#: destination, date, airport, proceed, seat), plus two parameters showing the other
#: input kinds: the fare paid by URL-mode elicitation and a travel tip by sampling.
DECLARATION: Dict[str, Any] = json.loads(fixture_path("book_flight.json").read_text(encoding="utf-8"))
DECLARATION["parameters"] += [
    {"name": "payment", "elicit": {"message": "Pay the fare", "url": "https://pay.example/fare"}},
    {"name": "tip", "elicit": {"needs": ["destination"], "kind": "sampling"}},
]

#: What the client declared: form and URL-mode elicitation, and sampling.
CLIENT_CAPABILITIES: Dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}}

#: The client model's answer to the tip request (a CreateMessageResult).
TIP_RESULT: Dict[str, Any] = {
    "role": "assistant",
    "content": {"type": "text", "text": "See the old town."},
    "model": "demo-model",
    "stopReason": "endTurn",
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


def resolve(step: elicit_mcp.ResolveStep) -> None:
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
    elif step.name == "tip":
        # A sampling question: CreateMessageRequest params.
        destination = step.input_text("destination")
        print(f"  resolver tip({destination}) -> sampling question")
        step.question(
            {
                "sampling": {
                    "messages": [
                        {"role": "user", "content": {"type": "text", "text": destination}}
                    ],
                    "systemPrompt": "Suggest one sight in the city the user names.",
                    "maxTokens": 60,
                }
            }
        )
    else:
        expect(False, f"no resolver for {step.name!r}")


# ---------------------------------------------------------------------- modern era


def modern(plan: elicit_mcp.Plan, sealer: elicit_mcp.Sealer) -> Dict[str, Any]:
    print("== modern era (2026-07-28): batched rounds, sealed requestState ==")
    # A client that declared form elicitation only cannot take the URL-mode payment:
    # the round fails before showing anything.
    with plan.modern({}, capabilities={"elicitation": {}}) as rnd:
        try:
            rnd.poll()
            expect(False, "a form-only client gets -32021")
        except elicit_mcp.MissingCapabilityError as e:
            print(f"  a form-only client -> {show(e.error)}")
            expect(e.required_capabilities == {"elicitation": {"url": {}}}, "URL mode is required")
    script: List[Optional[Dict[str, Any]]] = [
        None,
        {
            "destination": accept("Paris"),
            "date": accept("2026-08-01"),
            "seat": accept("window"),
            "payment": {"action": "accept"},
        },
        {"airport": accept("CDG"), "proceed": accept(True), "tip": TIP_RESULT},
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
            except elicit_mcp.RequestStateError as e:
                print(f"  tampered token -> {show(e.error)} (log: {e.reason})")
        state = sealer.unseal("tools/call", params)
        expect((state is None) == (token is None), "a state exactly when one was sent")
        with plan.modern(
            {}, request_state=state, input_responses=replies, capabilities=CLIENT_CAPABILITIES
        ) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit_mcp.ResolveStep):
                    resolve(step)
                elif isinstance(step, elicit_mcp.InputRequired):
                    requests = step.input_requests()
                    token = sealer.seal("tools/call", params, step.request_state())
                    for name, request in requests.items():
                        what = request["params"].get("message") or request["params"]["messages"]
                        print(f"  asks {name} ({request['method']}): {show(what)}")
                    print(f"  requestState: {step.request_state()}")
                    print(f"  sealed: {token[:24]}... ({len(token)} bytes)")
                    if number == 1:
                        expect(
                            list(requests) == ["destination", "date", "seat", "payment"],
                            "round 1 asks",
                        )
                        expect(requests["payment"]["params"]["mode"] == "url", "payment by URL")
                    elif number == 2:
                        expect(list(requests) == ["airport", "proceed", "tip"], "round 2 asks")
                        expect(
                            requests["tip"]["method"] == "sampling/createMessage",
                            "the tip is asked by sampling",
                        )
                        expect(
                            requests["airport"]["params"]["message"] == "Which airport in Paris?",
                            "the airport question names the destination",
                        )
                elif isinstance(step, elicit_mcp.Done):
                    values = step.values()
                    print(f"  done: {show(values)}")
                    expect(number == 3, "done on the third round")
                    return values
    expect(False, "the call completed")
    raise AssertionError("unreachable")


# ------------------------------------------------------------------- handshake era


def handshake(plan: elicit_mcp.Plan) -> Dict[str, Any]:
    print("== handshake era (2025-11-25): one request at a time ==")
    answers = {
        "destination": accept("London"),
        "date": accept("2026-09-15"),
        "proceed": accept(True),
        "seat": {"action": "decline"},
        "payment": {"action": "accept"},
        "tip": TIP_RESULT,
    }
    asked: List[str] = []
    with plan.handshake(capabilities=CLIENT_CAPABILITIES) as rnd:
        for step in rnd.steps():
            if isinstance(step, elicit_mcp.ResolveStep):
                resolve(step)
            elif isinstance(step, elicit_mcp.Ask):
                request = step.request()
                reply = answers[step.name]
                what = request.get("message") or request["messages"]
                # The request's method comes from the parameter's kind.
                print(f"  {step.method} {show(what)} -> {show(reply)}")
                if step.input_kind is elicit_mcp.InputKind.URL:
                    # Send notifications/elicitation/complete with this id once done.
                    expect("elicitationId" in request, "a URL request carries its id")
                asked.append(step.name)
                step.answer(reply)
            elif isinstance(step, elicit_mcp.Done):
                values = step.values()
                print(f"  done: {show(values)}")
                expect(
                    asked == ["destination", "date", "proceed", "seat", "payment", "tip"],
                    "requests in order",
                )
                return values
    expect(False, "the call completed")
    raise AssertionError("unreachable")


def main() -> int:
    with elicit_mcp.Plan(DECLARATION) as plan:
        print(f"{plan.tool_name}: {len(plan.params)} parameters")
        for p in plan.params:
            expect(p.kind is not None, "every book_flight parameter is elicited")
            kind = p.kind.name.lower() if p.kind is not None else "argument"
            print(f"  {p.name}: elicited by {kind}{' (resolver)' if p.has_resolver else ''}")
        # The server's key ring: one fresh random key here (tokens die with the
        # process); a fleet shares its keys. Audience: the server's name.
        with elicit_mcp.KeyRing([os.urandom(32)]) as ring:
            sealer = elicit_mcp.Sealer(ring, audience="booking")
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
                "payment": True,
                "tip": TIP_RESULT,
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
                "payment": True,
                "tip": TIP_RESULT,
            },
            "handshake values (a declined seat takes its default)",
        )
    print(f"final values: {show(values)}")
    print("booking: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
