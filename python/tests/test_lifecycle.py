"""Deterministic freeing, use after close, buffers, and the raw C contract."""

from __future__ import annotations

import ctypes
import gc
from ctypes import byref, c_bool, c_char, c_size_t, c_uint32
from typing import Any, Callable, List

import pytest

import elicit_mcp
from elicit_mcp import Result, _ffi

from conftest import BOOKING


def round_calls(rnd: elicit_mcp.Round) -> List[Callable[[], Any]]:
    return [
        rnd.poll,
        rnd.poll_raw,
        lambda: list(rnd.steps()),
        rnd.resolve_inputs,
        rnd.resolve_inputs_bytes,
        rnd.ask,
        rnd.ask_bytes,
        rnd.values,
        rnd.values_bytes,
        lambda: rnd.value_of(0),
        lambda: rnd.value_of_bytes("seat"),
        rnd.input_requests,
        rnd.input_requests_bytes,
        rnd.request_state,
        rnd.request_state_bytes,
        rnd.note_count,
        rnd.notes,
        lambda: rnd.note(0),
        rnd.last_error,
        rnd.last_error_bytes,
        lambda: rnd.resolve_value(1),
        lambda: rnd.resolve_value_json("1"),
        lambda: rnd.resolve_question("q"),
        lambda: rnd.resolve_question_json('{"message":"q"}'),
        lambda: rnd.resolve_failed("d"),
        lambda: rnd.answer({"action": "decline"}),
        lambda: rnd.answer_json('{"action":"decline"}'),
        rnd.__enter__,
    ]


def test_round_use_after_close_raises() -> None:
    with elicit_mcp.Plan(BOOKING) as plan:
        rnd = plan.modern()
        step = rnd.poll()
        rnd.close()
        assert rnd.closed
        rnd.close()  # idempotent
        for call in round_calls(rnd):
            with pytest.raises(elicit_mcp.ClosedError) as e:
                call()
            assert "closed" in str(e.value)
            assert e.value.code == Result.ERR_NULL
        # A step object from before the close is no back door.
        assert isinstance(step, elicit_mcp.InputRequired)
        with pytest.raises(elicit_mcp.ClosedError):
            step.input_requests()
        # ClosedError is a UsageError and a ValueError (like a closed file).
        assert isinstance(e.value, elicit_mcp.UsageError) and isinstance(e.value, ValueError)


def test_round_context_manager_frees() -> None:
    with elicit_mcp.Plan(BOOKING) as plan:
        with plan.modern() as rnd:
            assert not rnd.closed
        assert rnd.closed
        with pytest.raises(elicit_mcp.ClosedError):
            rnd.poll()
        # Closed even when the body raises.
        with pytest.raises(RuntimeError):
            with plan.handshake() as rnd2:
                raise RuntimeError("boom")
        assert rnd2.closed


def test_plan_use_after_close_raises() -> None:
    plan = elicit_mcp.Plan(BOOKING)
    plan.close()
    plan.close()
    assert plan.closed
    calls: List[Callable[[], Any]] = [
        plan.modern,
        plan.handshake,
        lambda: plan.tool_name,
        lambda: plan.params,
        lambda: plan.elicited,
        lambda: plan.index_of("seat"),
        lambda: plan.param(0),
        plan.__enter__,
    ]
    for call in calls:
        with pytest.raises(elicit_mcp.ClosedError, match="plan is closed"):
            call()
    assert "closed" in repr(plan)


def test_rounds_outlive_their_plan() -> None:
    plan = elicit_mcp.Plan(BOOKING)
    rnd = plan.handshake()
    plan.close()
    del plan
    gc.collect()
    answers = {"destination": "London", "date": "2026-09-15", "proceed": True}
    for step in rnd.steps():
        if isinstance(step, elicit_mcp.Ask):
            if step.name == "seat":
                step.decline()
            else:
                step.accept(answers[step.name])
        elif isinstance(step, elicit_mcp.ResolveStep):
            if step.name == "airport":
                step.value("LHR")
            else:
                step.question("Proceed?")
    assert rnd.values()["airport"] == "LHR"
    rnd.close()


def test_garbage_collected_handles_are_freed() -> None:
    # No close(): __del__ frees them; nothing crashes, the process stays sane.
    for _ in range(200):
        plan = elicit_mcp.Plan(BOOKING)
        rnd = plan.modern()
        rnd.poll()
        del plan, rnd
    gc.collect()


@pytest.mark.parametrize("initial", [0, 1, 7, 64])
def test_too_small_buffers_are_grown(monkeypatch: pytest.MonkeyPatch, initial: int) -> None:
    with elicit_mcp.Plan(BOOKING) as plan:
        with plan.modern() as rnd:
            rnd.poll()
            reference = (rnd.input_requests_bytes(), rnd.request_state_bytes())
        monkeypatch.setattr(elicit_mcp.Round, "initial_buffer_size", initial)
        with plan.modern() as rnd:
            rnd.poll()
            assert (rnd.input_requests_bytes(), rnd.request_state_bytes()) == reference
            assert len(reference[0]) > 500
        with plan.handshake() as rnd:
            with pytest.raises(elicit_mcp.WrongStepError) as e:
                rnd.values()  # the error message read through a tiny buffer
            assert e.value.message.startswith("Out of order")
            assert len(e.value.message) > 60


def test_raw_buffer_protocol() -> None:
    """The C contract under the binding: size query, too small, exact fit."""
    lib = _ffi.load()
    with elicit_mcp.Plan(BOOKING) as plan, plan.modern() as rnd:
        rnd.poll()
        h = rnd._handle
        needed = c_size_t(0)
        assert lib.elicit_round_request_state(h, None, 0, byref(needed)) == Result.OK
        n = needed.value
        assert n == len(rnd.request_state_bytes())
        small = (c_char * (n - 1))(*([b"\xaa"] * (n - 1)))
        got = c_size_t(0)
        assert lib.elicit_round_request_state(h, small, n - 1, byref(got)) == Result.ERR_BUFFER_TOO_SMALL
        assert got.value == n
        assert bytes(small) == b"\xaa" * (n - 1), "a too-small buffer is left untouched"
        exact = (c_char * n)()
        assert lib.elicit_round_request_state(h, exact, n, byref(got)) == Result.OK
        assert bytes(exact) == rnd.request_state_bytes()
        # buf NULL with a non-zero cap is a NULL error.
        assert lib.elicit_round_request_state(h, None, 5, byref(got)) == Result.ERR_NULL


def test_raw_null_pointers_are_refused() -> None:
    lib = _ffi.load()
    out = _ffi.PlanPtr()
    assert lib.elicit_plan_new(None, 3, byref(out), None, 0, None) == Result.ERR_NULL
    assert not out, "out is untouched on failure"
    assert lib.elicit_plan_param_count(None, byref(c_size_t())) == Result.ERR_NULL
    assert lib.elicit_round_poll(None, byref(c_uint32()), byref(c_size_t())) == Result.ERR_NULL
    assert lib.elicit_round_last_error(None, None, 0, byref(c_size_t())) == Result.ERR_NULL
    flag = c_bool()
    assert lib.elicit_plan_param_is_elicited(None, 0, byref(flag)) == Result.ERR_NULL
    lib.elicit_plan_free(None)
    lib.elicit_round_free(None)


def test_raw_plan_new_error_message_is_cut_to_fit() -> None:
    lib = _ffi.load()
    text = b"{"
    out = _ffi.PlanPtr()
    buf = (c_char * 10)()
    n = c_size_t(0)
    rc = lib.elicit_plan_new(text, len(text), byref(out), buf, 10, byref(n))
    assert rc == Result.ERR_DECLARATION_JSON
    assert n.value == 10 and bytes(buf)[: n.value] == b"The declar"


def test_raw_plan_names_are_read_as_every_text() -> None:
    lib = _ffi.load()
    with elicit_mcp.Plan(BOOKING) as plan:
        h = plan._acquire()
        try:
            buf = (c_char * 8)()
            n = c_size_t(0)
            assert lib.elicit_plan_param_name(h, 4, None, 0, byref(n)) == Result.OK and n.value == 4
            assert lib.elicit_plan_param_name(h, 4, buf, 3, byref(n)) == Result.ERR_BUFFER_TOO_SMALL
            assert lib.elicit_plan_param_name(h, 4, buf, 8, byref(n)) == Result.OK
            assert ctypes.string_at(buf, n.value) == b"seat"
            assert lib.elicit_plan_param_name(h, 5, buf, 8, byref(n)) == Result.ERR_INDEX
        finally:
            plan._release()


def test_plan_close_waits_for_calls_in_flight() -> None:
    plan = elicit_mcp.Plan(BOOKING)
    h = plan._acquire()  # a call "in flight"
    plan.close()
    assert plan.closed and plan._handle is not None, "not freed under a user"
    with pytest.raises(elicit_mcp.ClosedError):
        plan.modern()
    plan._release()
    assert plan._handle is None, "freed by the last user"
    del h


def test_values_and_raw_bytes_agree() -> None:
    with elicit_mcp.Plan(BOOKING) as plan:
        with plan.handshake() as rnd:
            answers = {"destination": "Zürich ✈", "date": "2026-08-01", "proceed": True}
            for step in rnd.steps():
                if isinstance(step, elicit_mcp.Ask):
                    if step.name == "seat":
                        step.accept("aisle")
                    else:
                        step.accept(answers[step.name])
                elif isinstance(step, elicit_mcp.ResolveStep):
                    step.value("ZRH" if step.name == "airport" else True)
            raw = rnd.values_bytes()
            assert raw == (
                '{"destination":"Zürich ✈","date":"2026-08-01","airport":"ZRH",'
                '"proceed":true,"seat":"aisle"}'
            ).encode("utf-8")
            assert rnd.values() == {
                "destination": "Zürich ✈",
                "date": "2026-08-01",
                "airport": "ZRH",
                "proceed": True,
                "seat": "aisle",
            }
            assert rnd.value_of_bytes("destination") == '"Zürich ✈"'.encode("utf-8")
            assert rnd.value_of(3) is True


def test_lone_surrogates_survive() -> None:
    decl = {"parameters": [{"name": "city"}, {"name": "x", "elicit": {"needs": ["city"]}}]}
    with elicit_mcp.Plan(decl) as plan, plan.modern({"city": "\ud800"}) as rnd:
        step = rnd.poll()
        assert isinstance(step, elicit_mcp.ResolveStep)
        assert step.inputs() == {"city": "\ud800"}
        step.value("a\udc00b")
        assert rnd.poll().kind == elicit_mcp.StepKind.DONE
        assert rnd.values() == {"x": "a\udc00b"}
        assert rnd.values_bytes() == b'{"x":"a\\udc00b"}'
