"""The 42 reference vectors through the binding, byte for byte.

Each ``tests/vectors/NAME.input.json`` runs through :mod:`scenario_host` (the
conformance runner's host logic in Python); its line must equal
``NAME.deviation.txt`` when that exists, else ``NAME.expected.txt`` (one trailing
newline trimmed from the file, nothing else normalized).
"""

from __future__ import annotations

import json
from typing import List

import pytest

import scenario_host
from conftest import VECTORS

EXPECTED_FILES = 42
EXPECTED_DOCUMENTS = 53
EXPECTED_DEVIATIONS = {
    "07_cancel_required",
    "19_state_version_lax_coercion",
    # Deviation 6: a reply without requestState answers the question asked now.
    "20_reply_without_state_ignored",
    "22_recorded_bad_data_errors",
    "26_int_answers",
    "28_bool_answers",
    "35_explicit_response_type_wins",
}


def vector_names() -> List[str]:
    return sorted(p.name[: -len(".input.json")] for p in VECTORS.glob("*.input.json"))


def golden(name: str) -> str:
    dev = VECTORS / f"{name}.deviation.txt"
    path = dev if dev.exists() else VECTORS / f"{name}.expected.txt"
    text = path.read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


def test_vector_set() -> None:
    names = vector_names()
    assert len(names) == EXPECTED_FILES
    docs = 0
    for n in names:
        doc = json.loads((VECTORS / f"{n}.input.json").read_bytes())
        docs += len(doc) if isinstance(doc, list) else 1
    assert docs == EXPECTED_DOCUMENTS
    devs = {p.name[: -len(".deviation.txt")] for p in VECTORS.glob("*.deviation.txt")}
    assert devs == EXPECTED_DEVIATIONS


@pytest.mark.parametrize("name", vector_names())
def test_vector(name: str) -> None:
    expected = golden(name)
    got = scenario_host.run((VECTORS / f"{name}.input.json").read_bytes())
    if got != expected:
        i = next(
            (i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
            min(len(got), len(expected)),
        )
        pytest.fail(
            f"{name}: first difference at char {i}\n"
            f"  got:      ...{got[max(0, i - 80) : i + 80]}\n"
            f"  expected: ...{expected[max(0, i - 80) : i + 80]}"
        )


def test_engine_outputs_round_trip_through_json() -> None:
    """json.loads then json.dumps of the engine's outputs gives the engine's bytes
    back (as compact Python JSON): numbers keep Python's float repr."""
    import elicit_mcp

    decl = {"parameters": [{"name": "x", "type": "number", "elicit": {"message": "x?"}}]}
    with elicit_mcp.Plan(decl) as plan:
        for raw in ["3", "2.5", "1e16", "1e-7", "-0.0", "123456789.123", "1E5"]:
            with plan.handshake() as rnd:
                step = rnd.poll()
                assert isinstance(step, elicit_mcp.Ask)
                step.answer_json('{"action":"accept","content":{"value":' + raw + "}}")
                done = rnd.poll()
                assert isinstance(done, elicit_mcp.Done)
                b = done.values_bytes()
                again = json.dumps(json.loads(b), ensure_ascii=False, separators=(",", ":"))
                assert again.encode() == b, (raw, b)
                assert json.loads(b)["x"] == float(raw)
