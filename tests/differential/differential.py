#!/usr/bin/env python3
"""Differential test: the reference oracle vs the Rust `elicit-oracle-runner` runner.

    scripts/test-differential.sh [options]                 # creates/reuses the oracle venv
    PY=$(scripts/dev-oracle-env.sh); $PY tests/differential/differential.py [options]

Generates `--count` random scenarios from `--seed` (the scenario format of the
oracle's README), runs them all through the oracle (`scenario.py --compact`,
batched as JSON lists) and through the runner under test, and compares the two
outputs round by round, byte for byte.

A differing round is classified:

* dev1  the oracle's "the request was canceld." is our "...cancelled."; the
        rest of the round is identical.
* dev2  an accepted answer that is not of the schema's strict JSON type (the
        oracle accepted it under pydantic's lax mode, ours rejects it).
* dev3  a recorded answer in the incoming state whose data does not validate
        (strictly): ours drops it and asks again.
* dev4  an incoming state whose "v" is not the integer 1: ours treats it as no
        progress.
* dev5  both sides answered the round with a "wire_error" (details may differ).
* dev6  a round with inputResponses but no incoming state: ours takes a reply
        keyed to a question the round asks (the oracle ignores it and asks).

dev1 and dev5 are checked textually. dev2-dev4 are checked *concretely*: the
oracle is re-run on a surrogate scenario in which exactly the thing the
deviation concerns is replaced by something both engines agree on (dev2: the
lax answer's content by one that fails in both; dev3: the state without that
recorded answer; dev4: no state; dev6: the state the oracle itself writes when
it asks that round without the replies, so the replies answer what it asked),
and the surrogate's round must then equal
ours byte for byte (the round's `debug` member aside). Comparison continues on
later rounds against the surrogate's output, so a scenario stays checked after
an explained deviation. Anything else is UNEXPLAINED.

Prints `scenarios=N identical=.. explained=.. (dev1=.. ...) unexplained=..`,
writes unexplained scenarios (minimized input, both outputs) to `--out`, and
exits 1 if there are any (2 on a setup problem).

Runners (`--runner`): `cargo` (default: builds `elicit-oracle-runner` in release
mode and runs the binary), `oracle` (the oracle itself: must give 0
differences), `fake` (the oracle with the five deviations patched in, to test
this classifier: all differences must be explained), or any command line that
reads a scenario (or list) on stdin and prints the result line.

Generator knobs: --lax-rate (answers valid only under pydantic's lax rules),
--forge-rate (literal request states: stale, foreign, forged), --debug-rate,
--redeploy-rate, --max-rounds. `--replay FILE` runs scenarios from a JSON list
(or a previous --out file) instead of generating; `--dump FILE` writes the
generated scenarios.

Inputs the oracle cannot run are never generated (it raises instead of
answering): a model with an optional field or a title/description on a model
question (TypeError at ask time), a resolver depending on a plain parameter
missing from `arguments` or a `known` rule naming a non-dependency (KeyError),
an optional `response_type`, empty literals, a single-choice `list_literal`
(its items schema is a "const", which the oracle rejects with TypeError). If the oracle still crashes on a
scenario it is counted as `excluded` and shown on stderr.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import os
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parents[2]
# The reference beside the checkout, or beside the folder holding it (a worktree).
DEFAULT_ORACLE_DIR = Path(
    os.environ.get("ORACLE_DIR")
    or next(
        (p for p in (REPO.parent / "shared/reference/oracle", REPO.parent.parent / "shared/reference/oracle") if p.is_dir()),
        REPO.parent / "shared/reference/oracle",
    )
)
DEFAULT_ORACLE_PY = os.environ.get(
    "ORACLE_PY", str(Path(os.environ.get("ORACLE_VENV", Path.home() / ".cache/oracle-venv")) / "bin/python")
)

CANCEL_ORACLE = "the request was canceld."
CANCEL_OURS = "the request was cancelled."
BAD = "\u0000not-valid"  # a string no generated literal choice equals

# --------------------------------------------------------------------------- #
# JSON text: exact writing (number spellings, escaping, separators) and raw
# splitting of outputs (byte-exact comparison per scenario and per round)
# --------------------------------------------------------------------------- #

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?\Z")


def float_spellings(f: float) -> list[str]:
    """JSON spellings that parse back to exactly `f` (and stay floats)."""
    base = json.dumps(f)
    cands = [base, base.upper(), base.replace("e+", "e"), base.replace("e-0", "e-"),
             "%.17g" % f, "%.17e" % f, "%.3e" % f]
    if "e" not in base and "." in base:
        cands.append(base + "0")
        cands.append(base + "000")
        mant = base.replace("-", "").replace(".", "")
        exp = len(base.replace("-", "").split(".")[0])
        cands.append(("-" if base.startswith("-") else "") + "0." + mant + "e" + str(exp))
    out = []
    for c in cands:
        if not _NUMBER.match(c) or not any(ch in c for ch in ".eE"):
            continue
        try:
            g = float(c)
        except ValueError:
            continue
        if g == f and math.copysign(1, g) == math.copysign(1, f) and c not in out:
            out.append(c)
    return out


class Writer:
    """Serialises a scenario the way it is fed to both engines."""

    def __init__(self, rng: random.Random | None = None, ascii_: bool = False,
                 compact: bool = False, vary_numbers: bool = False) -> None:
        self.rng = rng
        self.ascii = ascii_
        self.item_sep, self.kv_sep = (",", ":") if compact else (", ", ": ")
        self.vary = vary_numbers and rng is not None

    def dump(self, o: Any) -> str:
        if o is None:
            return "null"
        if o is True:
            return "true"
        if o is False:
            return "false"
        if isinstance(o, int):
            return str(o)
        if isinstance(o, float):
            if self.vary and self.rng.random() < 0.5:
                return self.rng.choice(float_spellings(o))
            return json.dumps(o)
        if isinstance(o, str):
            return json.dumps(o, ensure_ascii=self.ascii)
        if isinstance(o, list):
            return "[" + self.item_sep.join(self.dump(x) for x in o) + "]"
        if isinstance(o, dict):
            return "{" + self.item_sep.join(
                json.dumps(k, ensure_ascii=self.ascii) + self.kv_sep + self.dump(v)
                for k, v in o.items()) + "}"
        raise TypeError(f"cannot write {type(o).__name__}")


def _skip_ws(s: str, i: int) -> int:
    return _WS.match(s, i).end()


def raw_items(s: str) -> list[str]:
    """Exact texts of the elements of a JSON array."""
    i = _skip_ws(s, 0)
    if s[i] != "[":
        raise ValueError("not an array")
    i = _skip_ws(s, i + 1)
    out: list[str] = []
    if s[i] == "]":
        return out
    while True:
        _, end = _DECODER.raw_decode(s, i)
        out.append(s[i:end])
        i = _skip_ws(s, end)
        if s[i] == "]":
            return out
        if s[i] != ",":
            raise ValueError(f"bad array at {i}")
        i = _skip_ws(s, i + 1)


def raw_members(s: str) -> list[tuple[str, str]]:
    """(key, exact value text) of a JSON object's members, in order."""
    i = _skip_ws(s, 0)
    if s[i] != "{":
        raise ValueError("not an object")
    i = _skip_ws(s, i + 1)
    out: list[tuple[str, str]] = []
    if s[i] == "}":
        return out
    while True:
        key, i = json.decoder.scanstring(s, i + 1)
        i = _skip_ws(s, i)
        if s[i] != ":":
            raise ValueError(f"bad object at {i}")
        i = _skip_ws(s, i + 1)
        _, end = _DECODER.raw_decode(s, i)
        out.append((key, s[i:end]))
        i = _skip_ws(s, end)
        if s[i] == "}":
            return out
        if s[i] != ",":
            raise ValueError(f"bad object at {i}")
        i = _skip_ws(s, i + 1)


def raw_rounds(element: str) -> Optional[list[str]]:
    """Exact texts of an output's rounds; None when it has no "rounds" member."""
    for key, value in raw_members(element):
        if key == "rounds":
            return raw_items(value)
    return None


def without_debug(round_raw: str) -> list[tuple[str, str]]:
    return [(k, v) for k, v in raw_members(round_raw) if k != "debug"]


# --------------------------------------------------------------------------- #
# Types, values, strict validation
# --------------------------------------------------------------------------- #


def strip_optional(t: Any) -> Any:
    if isinstance(t, dict) and "optional" in t:
        return t["optional"]
    return t


def is_model(t: Any) -> bool:
    return isinstance(t, dict) and "model" in t


def model_fields(t: Any) -> list[tuple[str, Any, bool, Any]]:
    """[(name, type, has_default, default)] of a model spec."""
    out = []
    for fname, fspec in t["model"].get("fields", {}).items():
        if isinstance(fspec, dict) and "type" in fspec:
            out.append((fname, fspec["type"], "default" in fspec, fspec.get("default")))
        else:
            out.append((fname, fspec, False, None))
    return out


def strict_scalar(t: Any, v: Any) -> bool:
    """Ours: a value must have the schema's JSON type (integer takes integral
    floats, number takes integers; bool is never a number)."""
    if t == "str":
        return isinstance(v, str)
    if t == "int":
        if isinstance(v, bool):
            return False
        # pydantic's float_as_int: a float must lie strictly between -2**63 and 2**63.
        return isinstance(v, int) or (isinstance(v, float) and math.isfinite(v) and v.is_integer()
                                      and -(2.0**63) < v < 2.0**63)
    if t == "float":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "bool":
        return isinstance(v, bool)
    if isinstance(t, dict) and "literal" in t:
        return isinstance(v, str) and v in t["literal"]
    if isinstance(t, dict) and "list_literal" in t:
        return isinstance(v, list) and all(isinstance(x, str) and x in t["list_literal"] for x in v)
    raise ValueError(f"no strict rule for {t!r}")


def strict_ok(t: Any, content: Any) -> bool:
    """Would ours accept `content` for a question of type `t` (stripped)?"""
    if not isinstance(content, dict):
        return False
    if is_model(t):
        for fname, ftype, has_default, _ in model_fields(t):
            if fname in content:
                if not strict_scalar(ftype, content[fname]):
                    return False
            elif not has_default:
                return False
        return True
    return "value" in content and strict_scalar(t, content["value"])


def bad_content(t: Any) -> dict:
    """Content that fails for type `t` in both engines but passes the wire."""
    if is_model(t):
        return {fname: [BAD] for fname, *_ in model_fields(t)}
    return {"value": [BAD]}


def effective_type(param: dict) -> Any:
    """The type a parameter's question asks for (Elicit response_type wins)."""
    q = param.get("question") or {}
    src = q if "literal" in q else q.get("resolver", {})
    if "response_type" in src:
        return src["response_type"]
    return strip_optional(param.get("type", "str"))


def render(v: Any) -> str:
    """The harness's placeholder / `known` key rendering."""
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- #
# Generator
# --------------------------------------------------------------------------- #

STRS = ["Paris", "CDG", "Zürich 🏔", "東京", "Où ? ✈", "", " ", 'say "hi"', "back\\slash",
        "line\nbreak", "tab\tx", "{x}", "\u0001ctl", "\u007fdel", "sep\u2028x", "🛫🛬",
        "naïve café", "ÄÖÜ", "null", "3", "true", "Ω≈ç√", "\U0001F600 grin", "e\u0301",
        "a/b", "<tag>&amp;", "x" * 40]
MESSAGES = ["Where to?", "When?", "How many?", "Window or aisle?", "Pick one", "Seat?",
            "Où voulez-vous aller ? ✈ 東京 🛫", 'Quote "this"', "Braces {stay} {}", "",
            "Emoji 🛫 only", "Back\\slash", "Line\nbreak", "Tab\tin", "Confirm?",
            "\u0002 control", "Größe?", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢?"]
CHOICES = ["window", "aisle", "middle", "a", "b", "c", "é", "東京", "x y", "", "🛫", "None"]
ELICITED = ["seat", "date", "airport", "gate", "count", "meal", "extras", "profile", "ok",
            "tier", "ratio", "note", "city", "x", "y", "z", "q1", "q2", "value", "answers"]
ELICITED_RARE = ["città", "größe", "ñ"]
PLAIN = ["destination", "n", "flag", "ratio_in", "mode", "who"]
FIELDS = ["code", "gates", "vip", "ratio", "tier", "label", "seat_row", "gate2b", "x"]
# Field names whose pydantic titles (str.title()) need more than ASCII: a digraph, a
# ligature, ß, Georgian, Greek with the final sigma and ypogegrammeni.
FIELDS_RARE = ["\u01c6emal", "\ufb00_x", "stra\u00dfe", "\u10d0_b", "\u039f\u0394\u039f\u03a3_\u1fb3"]
MODEL_NAMES = ["Airport", "Profile", "Model", "Séjour", "Box"]
TITLES = ["Seats", "Value", "Choix ✈", "", "T"]
DESCRIPTIONS = ["Number of seats", "Pick wisely 🛫", "", "multi\nline"]
GHOSTS = ["ghost", "nope", "missing_arg"]

INTS = [0, 1, -7, 3, 42, 2**31, 2**53, -(2**53), 3.0, 1e16, 7.0,
        # The 64-bit edge: the largest floats below 2**63 in magnitude, and integers
        # written as integers beyond it (both accepted).
        9.223372036854775e+18, -9.223372036854775e+18, 12345678901234567890, -(2**63)]
FLOATS = [2.5, 0.1, 3.0, 1e16, 1e-05, 3, -1.5, 0, 123456.789, 1e22, -0.0, 7, 1.5e-7, 0.30000000000000004]
LAX = {
    "int": ["3", "-4", True, False, "12", " 7 "],
    "float": ["2.5", "1e3", True, False, "3", "-0.5"],
    "bool": ["yes", "no", "on", "off", "true", "false", "1", "0", "t", "f", "y", "n", 1, 0, 1.0, 0.0],
}
INVALID = {
    "str": [7, True, ["x"], 2.5, None],
    "int": ["abc", 3.5, ["1"], None, "",
            # Integral floats at or beyond 2**63 in magnitude (pydantic refuses them).
            9.223372036854776e+18, -9.223372036854776e+18, 1e+19, 1e+300, -1e+300],
    "float": ["abc", ["x"], None, ""],
    "bool": ["maybe", 2, ["true"], None, 0.5],
}
SAMPLING_RESULT = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
WIRE_BREAKERS = [{"action": "maybe"}, {}, {"action": "accept", "content": {"value": {"n": 1}}},
                 {"action": "accept", "content": {"value": [1, 2]}}, "text", None,
                 {"action": "accept", "content": "flat"}]


class DigestRef:
    """Placeholder for the oracle's digest of a statically known question."""

    def __init__(self, request: dict) -> None:
        self.request = request
        self.key = json.dumps(request, sort_keys=True, ensure_ascii=False)


class ForgedState:
    """A literal request_state still holding DigestRefs; rendered after the
    digests are known."""

    def __init__(self, obj: Any, style: str) -> None:
        self.obj = obj
        self.style = style

    def refs(self) -> list[DigestRef]:
        out: list[DigestRef] = []

        def walk(o: Any) -> None:
            if isinstance(o, DigestRef):
                out.append(o)
            elif isinstance(o, dict):
                for v in o.values():
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)

        walk(self.obj)
        return out

    def render(self, digests: dict[str, str]) -> str:
        def sub(o: Any) -> Any:
            if isinstance(o, DigestRef):
                return digests[o.key]
            if isinstance(o, dict):
                return {k: sub(v) for k, v in o.items()}
            if isinstance(o, list):
                return [sub(v) for v in o]
            return o

        obj = sub(self.obj)
        if self.style == "engine":
            return json.dumps(obj, separators=(",", ":"))
        if self.style == "spaced":
            return json.dumps(obj)
        if self.style == "raw_utf8":
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        return json.dumps(obj, indent=1)


class Generator:
    def __init__(self, seed: int, opts: argparse.Namespace) -> None:
        self.rng = random.Random(seed)
        self.o = opts

    # -- small helpers ------------------------------------------------------ #
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    def weighted(self, table: list[tuple[Any, float]]):
        r = self.rng.random() * sum(w for _, w in table)
        for item, w in table:
            r -= w
            if r <= 0:
                return item
        return table[-1][0]

    def choices(self, single: bool = True) -> list[str]:
        """Literal choices, always in CHOICES order: the oracle caches schemas
        per Literal type and Literal["a","b"] == Literal["b","a"], so a
        permutation seen earlier in the same process would leak its order
        into a later scenario's schema (and digest)."""
        k = 1 if single and self.chance(0.2) else self.rng.randint(2, 4)
        return sorted(self.rng.sample(CHOICES, k), key=CHOICES.index)

    # -- types --------------------------------------------------------------- #
    def scalar_type(self, literal=True) -> Any:
        table = [("str", 4), ("int", 2), ("float", 1.5), ("bool", 1.5)]
        if literal:
            table.append(("literal", 1.5))
        t = self.weighted(table)
        return {"literal": self.choices()} if t == "literal" else t

    def model_type(self) -> dict:
        pool = FIELDS + (FIELDS_RARE if self.chance(0.1) else [])
        names = self.rng.sample(pool, self.rng.randint(1, 3))
        fields: dict[str, Any] = {}
        for fname in names:
            ftype = self.scalar_type()
            if self.chance(0.4):
                default = self.valid_value(ftype)
                if ftype == "int" and isinstance(default, float) and self.chance(0.9):
                    default = int(default)  # an unvalidated 3.0 default stays a float
                fields[fname] = {"type": ftype, "default": default}
            else:
                fields[fname] = ftype
        body: dict[str, Any] = {"fields": fields}
        if self.chance(0.7):
            body = {"name": self.pick(MODEL_NAMES), **body}
        return {"model": body}

    def gen_type(self, optional=True) -> Any:
        kind = self.weighted([("scalar", 62), ("list_literal", 8), ("model", 9),
                              ("optional", 12 if optional else 0)])
        if kind == "scalar":
            return self.scalar_type()
        if kind == "list_literal":  # one choice: items {"const"} -> TypeError in the oracle
            return {"list_literal": self.choices(single=False)}
        if kind == "model":
            return self.model_type()
        return {"optional": self.gen_type(optional=False)}

    # -- values -------------------------------------------------------------- #
    def valid_value(self, t: Any) -> Any:
        if t == "str":
            return self.pick(STRS)
        if t == "int":
            return self.pick(INTS)
        if t == "float":
            return self.pick(FLOATS)
        if t == "bool":
            return self.chance(0.5)
        if "literal" in t:
            return self.pick(t["literal"])
        if "list_literal" in t:
            ch = t["list_literal"]
            if self.chance(0.1):
                return []
            k = self.rng.randint(1, len(ch) + (1 if self.chance(0.1) else 0))
            return [self.pick(ch) for _ in range(k)] if k > len(ch) else self.rng.sample(ch, k)
        if "optional" in t:
            return self.valid_value(t["optional"])
        if is_model(t):
            out: dict[str, Any] = {}
            for fname, ftype, has_default, _ in model_fields(t):
                if not has_default or self.chance(0.5):
                    out[fname] = self.valid_value(ftype)
            if self.chance(0.1):
                out["extra_field"] = self.pick(["x", 1, ["a"], None])
            return out
        raise ValueError(t)

    def settled(self, t: Any, v: Any) -> Any:
        """What a valid answer settles to (for `known` keys); approximate."""
        if t == "int" and isinstance(v, float):
            return int(v)
        if t == "float" and isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        if is_model(t) and isinstance(v, dict):
            return {f: self.settled(ft, v[f]) if f in v else d for f, ft, _, d in model_fields(t)}
        return v

    def content(self, t: Any, mode: str) -> Any:
        """Accept content for a question of (stripped) type t."""
        if is_model(t):
            fields = model_fields(t)
            if mode == "valid":
                return self.valid_value(t)
            if mode == "lax":
                laxable = [f for f in fields if isinstance(f[1], str) and f[1] in LAX]
                out = self.valid_value(t)
                if laxable:
                    f = self.pick(laxable)
                    out[f[0]] = self.pick(LAX[f[1]])
                return out
            # invalid: a required field missing, or a field of the wrong type
            out = self.valid_value(t)
            required = [f for f in fields if not f[2]]
            if required and self.chance(0.5):
                out.pop(self.pick(required)[0], None)
            else:
                f = self.pick(fields)
                out[f[0]] = self.invalid_scalar(f[1])
            return out
        if mode == "valid":
            v = self.valid_value(t)
        elif mode == "lax" and isinstance(t, str) and t in LAX:
            v = self.pick(LAX[t])
        elif mode == "lax":
            v = self.valid_value(t)
        else:
            v = self.invalid_scalar(t)
        c = {"value": v}
        if self.chance(0.05):
            c["other"] = "ignored"
        return c

    def invalid_scalar(self, t: Any) -> Any:
        if isinstance(t, str):
            return self.pick(INVALID[t])
        if "literal" in t:
            return self.pick(["zzz", 1, ["a"], None, "WINDOW"])
        if "list_literal" in t:
            return self.pick(["x", ["zzz"], [t["list_literal"][0], "zzz"], None, [""] if "" not in t["list_literal"] else ["q"]])
        raise ValueError(t)

    def arg_value(self, t: Any) -> Any:
        return self.valid_value(t)

    # -- parameters ---------------------------------------------------------- #
    def scenario(self) -> dict:
        n_plain = self.weighted([(0, 3), (1, 4), (2, 3), (3, 1)])
        n_elicit = self.weighted([(1, 3), (2, 4), (3, 4), (4, 2), (5, 1)])
        plain_names = self.rng.sample(PLAIN, n_plain)
        pool = ELICITED + (ELICITED_RARE if self.chance(0.1) else [])
        elicit_names = self.rng.sample(pool, n_elicit)
        self.plain = {n: self.weighted([("str", 4), ("int", 2.5), ("float", 1.5), ("bool", 1)])
                      if not self.chance(0.1) else {"literal": self.choices()} for n in plain_names}
        self.arguments = {n: self.arg_value(t) for n, t in self.plain.items()}
        self.elicit_types: dict[str, Any] = {}
        topo = list(elicit_names)
        self.rng.shuffle(topo)
        params = []
        for idx, name in enumerate(topo):
            params.append(self.elicited_param(name, topo[:idx]))
        params += [{"name": n, "type": t} for n, t in self.plain.items()]
        self.rng.shuffle(params)
        self.inject_registration_errors(params)

        sc: dict[str, Any] = {}
        if self.chance(0.15):
            sc["tool_name"] = self.pick(["book_flight", "réserver", "t"])
        if self.chance(self.o.debug_rate):
            sc["debug"] = True
        sc["parameters"] = params
        if self.arguments or self.chance(0.5):
            sc["arguments"] = dict(self.arguments)
        sc["rounds"] = self.rounds(params)
        return sc

    def elicited_param(self, name: str, earlier: list[str], t: Any = None) -> dict:
        t = t if t is not None else self.gen_type()
        p: dict[str, Any] = {"name": name, "type": t}
        if self.chance(0.35):
            p["default"] = self.weighted([(self.valid_value(t), 7), (None, 2),
                                          (self.pick(STRS + [5, 2.5, True, [1], {"k": "v"}]), 1)])
        if self.chance(0.55):
            q: dict[str, Any] = {"literal": self.pick(MESSAGES)}
            self.question_extras(q, t)
            p["question"] = q
        else:
            p["question"] = {"resolver": self.resolver(name, t, earlier)}
        self.elicit_types[name] = effective_type(p)
        return p

    def question_extras(self, q: dict, param_type: Any, resolver=False) -> None:
        if self.chance(0.1):
            q["response_type"] = self.gen_type(optional=False)
        eff = q.get("response_type", strip_optional(param_type))
        if not is_model(eff):  # a model question with title/description raises TypeError
            if self.chance(0.15):
                q["title"] = self.pick(TITLES)
            if self.chance(0.15):
                q["description"] = self.pick(DESCRIPTIONS)
        elif resolver and self.chance(0.3):
            q["title"] = None  # explicit null is the same as absent

    def dep_candidates(self, dep: str) -> list[Any]:
        """Values a dependency may take (to build `known` keys and rules)."""
        if dep in self.plain:
            t = self.plain[dep]
            vals = [self.arg_value(t) for _ in range(2)]
            if self.chance(0.6):
                vals.append(self.arguments[dep])
            return vals
        t = self.elicit_types.get(dep, "str")
        return [self.settled(t, self.valid_value(t)) for _ in range(3)]

    def resolver(self, name: str, t: Any, earlier: list[str]) -> dict:
        deps = [d for d in self.plain if self.chance(0.4)]
        deps += [d for d in earlier if self.chance(0.4)]
        self.rng.shuffle(deps)
        r: dict[str, Any] = {"depends_on": deps}
        parts = [self.pick(MESSAGES)]
        for d in deps:
            if self.chance(0.85):
                parts.append("{" + d + "}")
        if self.chance(0.1):
            parts.append(self.pick(["{other}", "{}", "{{x}}", "{" + name + "}"]))
        r["template"] = self.pick([" ", "/", " | ", ""]).join(parts)
        if self.chance(0.3):
            if deps and self.chance(0.6):
                keys = [render(v) for v in self.dep_candidates(deps[0])]
                r["known"] = {k: self.known_value(t) for k in keys[: self.rng.randint(1, len(keys))]}
            else:
                rules = []
                for _ in range(self.rng.randint(1, 3)):
                    when = {}
                    for d in deps:
                        if self.chance(0.6):
                            when[d] = self.pick(self.dep_candidates(d))
                    rules.append({"when": when, "value": self.known_value(t)})
                r["known"] = rules
        self.question_extras(r, t, resolver=True)
        if not (isinstance(t, dict) and "optional" in t):
            if self.chance(0.15):
                r["declares"] = copy.deepcopy(t)
        if self.chance(0.2):
            r["async"] = True
        self.elicit_types[name] = r.get("response_type", strip_optional(t))
        return r

    def known_value(self, t: Any) -> Any:
        if self.chance(0.8):
            return self.settled(strip_optional(t), self.valid_value(t))
        return self.pick([5, "str", None, 1e16, 3.0, [1, "a"], {"nested": {"k": [True]}}, "Zürich 🏔"])

    def other_type(self, t: Any) -> Any:
        while True:
            u = self.gen_type(optional=False)
            same = json.dumps(u, sort_keys=True) == json.dumps(t, sort_keys=True)
            if isinstance(u, dict) and isinstance(t, dict) and "literal" in u and "literal" in t:
                same = set(u["literal"]) == set(t["literal"])
            if isinstance(u, dict) and isinstance(t, dict) and "list_literal" in u and "list_literal" in t:
                same = set(u["list_literal"]) == set(t["list_literal"])
            if not same:
                return u

    def inject_registration_errors(self, params: list[dict]) -> None:
        resolvers = [p for p in params if "resolver" in (p.get("question") or {})]
        r = self.rng.random()
        if r < 0.025 and resolvers:  # unknown dependency
            self.pick(resolvers)["question"]["resolver"]["depends_on"].append(self.pick(GHOSTS))
        elif r < 0.05 and resolvers:  # cycle (self, or two resolvers)
            a = self.pick(resolvers)
            b = self.pick(resolvers)
            if b["name"] not in a["question"]["resolver"]["depends_on"]:
                a["question"]["resolver"]["depends_on"].append(b["name"])
            if a is not b and a["name"] not in b["question"]["resolver"]["depends_on"]:
                b["question"]["resolver"]["depends_on"].append(a["name"])
        elif r < 0.075 and resolvers:  # declared type mismatch
            p = self.pick(resolvers)
            if not (isinstance(p["type"], dict) and "optional" in p["type"]):
                p["question"]["resolver"]["declares"] = self.other_type(p["type"])

    # -- registration check (mirrors the oracle; used to track redeploys) ---- #
    @staticmethod
    def registers(params: list[dict]) -> bool:
        names = {p["name"] for p in params}
        elicited = {p["name"]: p for p in params if p.get("question")}
        for p in elicited.values():
            r = p["question"].get("resolver")
            if not r:
                continue
            if "declares" in r and json.dumps(r["declares"], sort_keys=True) != json.dumps(
                    strip_optional(p.get("type", "str")), sort_keys=True):
                d, t = r["declares"], strip_optional(p.get("type", "str"))
                if not (isinstance(d, dict) and isinstance(t, dict) and "literal" in d
                        and "literal" in t and set(d["literal"]) == set(t["literal"])):
                    return False
            if any(d not in names for d in r.get("depends_on", [])):
                return False
        state: dict[str, int] = {}

        def visit(n: str) -> bool:
            if state.get(n) == 2:
                return True
            if state.get(n) == 1:
                return False
            state[n] = 1
            r = elicited[n]["question"].get("resolver") or {}
            for d in r.get("depends_on", []):
                if d in elicited and not visit(d):
                    return False
            state[n] = 2
            return True

        return all(visit(n) for n in elicited)

    # -- rounds -------------------------------------------------------------- #
    def rounds(self, params: list[dict]) -> list[dict]:
        n = self.weighted([(1, 1), (2, 4), (3, 4), (4, 3), (5, 2), (6, 1)])
        n = min(n, self.o.max_rounds)
        active = params if self.registers(params) else None
        out: list[dict] = []
        for i in range(n):
            rnd: dict[str, Any] = {}
            if i > 0 and self.chance(self.o.redeploy_rate):
                new = self.redeploy(active or params)
                rnd["parameters"] = new
                if self.registers(new):
                    active = new
            if i > 0 and self.chance(0.1):
                self.arguments = {k: (self.arg_value(t) if self.chance(0.7) else self.arguments[k])
                                  for k, t in self.plain.items()}
                rnd["arguments"] = dict(self.arguments)
            cur = active or params
            answer_p = 0.15 if i == 0 else 0.75
            if self.chance(self.o.forge_rate):
                rnd["state"] = self.literal_state(cur)
                answer_p = 0.6
            elif i > 0 and self.chance(0.05):
                rnd["state"] = "none"
            elif i > 0 and self.chance(0.03):
                rnd["state"] = "carry"
            replies = {}
            for p in cur:
                if p.get("question") and self.chance(answer_p):
                    replies[p["name"]] = self.reply(effective_type(p))
            if self.chance(0.03):
                replies[self.pick(GHOSTS)] = self.reply("str")
            if replies:
                keys = list(replies)
                self.rng.shuffle(keys)
                rnd["input_responses"] = {k: replies[k] for k in keys}
            out.append(rnd)
        return out

    def reply(self, t: Any) -> Any:
        o = self.o
        kind = self.weighted([
            ("valid", 70), ("decline", 7), ("cancel", 6), ("wrong", 4), ("missing", 2),
            ("nocontent", 1.5), ("other_kind", 1.5), ("lax", 100 * o.lax_rate),
            ("wire", 100 * o.wire_rate)])
        if kind == "valid":
            return {"action": "accept", "content": self.content(t, "valid")}
        if kind in ("decline", "cancel"):
            r: dict[str, Any] = {"action": kind}
            if self.chance(0.25):
                r["content"] = self.content(t, self.pick(["valid", "valid", "invalid"]))
            return r
        if kind == "wrong":
            return {"action": "accept", "content": self.content(t, "invalid")}
        if kind == "missing":
            return {"action": "accept", "content": self.pick([{"other": 1}, {}, {"Value": "x"}])}
        if kind == "nocontent":
            return self.pick([{"action": "accept"}, {"action": "accept", "content": None}])
        if kind == "other_kind":
            return self.pick([{"roots": []}, {"roots": [{"uri": "file:///tmp"}]}, SAMPLING_RESULT])
        if kind == "lax":
            return {"action": "accept", "content": self.content(t, "lax")}
        return copy.deepcopy(self.pick(WIRE_BREAKERS))

    def redeploy(self, params: list[dict]) -> list[dict]:
        new = copy.deepcopy(params)
        elicited = [p for p in new if p.get("question")]
        for _ in range(self.rng.randint(1, 2)):
            op = self.weighted([("reword", 5), ("retype", 2), ("default", 2), ("reorder", 2),
                                ("add", 2), ("remove", 1), ("same", 1), ("break", 1)])
            if op == "reword" and elicited:
                p = self.pick(elicited)
                q = p["question"]
                if "literal" in q:
                    q["literal"] = self.pick(MESSAGES)
                else:
                    q["resolver"]["template"] = self.pick(MESSAGES) + " {" + p["name"] + "}"
            elif op == "retype" and elicited:
                p = self.pick(elicited)
                p["type"] = self.gen_type()
                p.pop("default", None)
                q = p["question"]
                src = q if "literal" in q else q["resolver"]
                src.pop("declares", None)
                if is_model(src.get("response_type", strip_optional(p["type"]))):
                    src.pop("title", None)
                    src.pop("description", None)
                if "resolver" in q:
                    self.elicit_types[p["name"]] = src.get("response_type", strip_optional(p["type"]))
            elif op == "default" and elicited:
                p = self.pick(elicited)
                if "default" in p:
                    del p["default"]
                else:
                    p["default"] = self.valid_value(p["type"]) if self.chance(0.7) else None
            elif op == "reorder":
                self.rng.shuffle(new)
            elif op == "add":
                used = {p["name"] for p in new}
                free = [n for n in ELICITED if n not in used and n not in self.plain]
                if free:
                    name = self.pick(free)
                    t = self.gen_type()
                    p = {"name": name, "type": t, "question": {"literal": self.pick(MESSAGES)}}
                    self.question_extras(p["question"], t)
                    new.insert(self.rng.randint(0, len(new)), p)
            elif op == "remove" and elicited:
                p = self.pick(elicited)
                new.remove(p)
                elicited.remove(p)
            elif op == "break":
                self.inject_registration_errors(new)
        return new

    def literal_state(self, params: list[dict]) -> Any:
        kind = self.weighted([("garbage", 1), ("version", 2), ("forged", 5)])
        if kind == "garbage":
            return {"literal": self.pick(["", "not json", "[]", "{}", "null", "1", '"s"', '{"v":1',
                                          '{"v":1,"answers":[]}', '{"v":1,"asked":{"x":5}}',
                                          '{"v":1,"answers":{"seat":{"action":"maybe","q":"x"}}}',
                                          '{"v":2,"outcomes":{},"asked":{}}'])}
        static = {}
        for p in params:
            q = p.get("question") or {}
            eff = effective_type(p)
            if "literal" in q:
                msg, src = q["literal"], q
            elif "resolver" in q and not q["resolver"].get("depends_on") and not isinstance(
                    q["resolver"].get("known"), list):
                msg, src = q["resolver"].get("template", ""), q["resolver"]
            else:
                continue
            req = {"mode": "digest", "message": msg, "type": eff}
            for k in ("title", "description"):
                if src.get(k) is not None:
                    req[k] = src[k]
            static[p["name"]] = (DigestRef(req), eff)
        answers: dict[str, Any] = {}
        asked: dict[str, Any] = {}
        for name, (ref, eff) in static.items():
            r = self.rng.random()
            if r < 0.4:
                asked[name] = ref if self.chance(0.85) else "AAAAAAAAAAAAAAAAAAAAAA"
            elif r < 0.75:
                action = self.weighted([("accept", 6), ("decline", 1), ("cancel", 1)])
                a: dict[str, Any] = {"action": action}
                if action == "accept" or self.chance(0.3):
                    mode = self.weighted([("valid", 6), ("lax", 2), ("invalid", 2)])
                    a["data"] = self.content(eff, mode) if not self.chance(0.03) else None
                a["q"] = ref if self.chance(0.9) else "stale-digest-xxxxxxxxxx"
                if self.chance(0.3):
                    a = dict(reversed(list(a.items())))
                answers[name] = a
        v = 1
        if kind == "version":
            v = self.pick([0, 2, 999, -1, "1", True, 1.0, None, "x", 1.5, "01", [1]])
        state: dict[str, Any] = {"v": v, "answers": answers, "asked": asked}
        if self.chance(0.15):
            del state["answers"]
        if self.chance(0.05):
            del state["asked"]
        if self.chance(0.2):
            items = list(state.items())
            self.rng.shuffle(items)
            state = dict(items)
        style = self.weighted([("engine", 6), ("spaced", 2), ("raw_utf8", 1), ("pretty", 1)])
        return ForgedState(state, style)


def generate(opts: argparse.Namespace) -> list[dict]:
    gen = Generator(opts.seed, opts)
    return [gen.scenario() for _ in range(opts.count)]


def resolve_forged(scenarios: list[dict], oracle: "Runner") -> None:
    """Ask the oracle (digest mode) for every DigestRef, then render states."""
    forged = [rnd["state"] for sc in scenarios for rnd in sc["rounds"]
              if isinstance(rnd.get("state"), ForgedState)]
    requests: dict[str, dict] = {}
    for f in forged:
        for ref in f.refs():
            requests[ref.key] = ref.request
    digests: dict[str, str] = {}
    if requests:
        keys = list(requests)
        outs = oracle.run([json.dumps(requests[k], ensure_ascii=False) for k in keys])
        for k, out in zip(keys, outs):
            if out is None:
                raise SystemExit(f"oracle failed on digest request {k}")
            digests[k] = json.loads(out)["digest"]
    for sc in scenarios:
        for rnd in sc["rounds"]:
            if isinstance(rnd.get("state"), ForgedState):
                rnd["state"] = {"literal": rnd["state"].render(digests)}


def write_scenario(sc: dict, rng: random.Random) -> str:
    w = Writer(rng, ascii_=rng.random() < 0.3, compact=rng.random() < 0.5,
               vary_numbers=rng.random() < 0.4)
    return w.dump(sc)


# --------------------------------------------------------------------------- #
# Runners
# --------------------------------------------------------------------------- #


class Runner:
    """Runs scenario texts through a command that reads a JSON list on stdin
    and prints the list of results on one line. A failing batch is bisected
    so one bad scenario does not sink the others (its result is None)."""

    def __init__(self, name: str, cmd: list[str], cwd: Path | None = None, jobs: int = 1,
                 env: dict | None = None) -> None:
        self.name, self.cmd, self.cwd, self.jobs, self.env = name, cmd, cwd, max(1, jobs), env
        self.failures: list[tuple[str, str]] = []
        self.seconds = 0.0
        self.first_seconds: Optional[float] = None

    def _run(self, texts: list[str]) -> list[Optional[str]]:
        if not texts:
            return []
        doc = "[" + ",\n".join(texts) + "]"
        proc = subprocess.run(self.cmd, input=doc.encode("utf-8"), capture_output=True,
                              cwd=self.cwd, env=self.env)
        if proc.returncode == 0:
            try:
                line = proc.stdout.decode("utf-8")
                line = line[:-1] if line.endswith("\n") else line
                items = raw_items(line)
                if len(items) == len(texts):
                    return items
            except (ValueError, IndexError, UnicodeDecodeError):
                pass
        if len(texts) == 1:
            err = proc.stderr.decode("utf-8", "replace")[-2000:]
            if proc.returncode == 0:
                err = "unparseable output: " + proc.stdout.decode("utf-8", "replace")[:500]
            self.failures.append((texts[0], err))
            return [None]
        mid = len(texts) // 2
        return self._run(texts[:mid]) + self._run(texts[mid:])

    def run(self, texts: list[str]) -> list[Optional[str]]:
        t0 = time.monotonic()
        n = len(texts)
        jobs = min(self.jobs, max(1, n // 20))
        bounds = [(n * k // jobs, n * (k + 1) // jobs) for k in range(jobs)]
        results: list[list[Optional[str]]] = [[] for _ in bounds]

        def work(k: int) -> None:
            a, b = bounds[k]
            results[k] = self._run(texts[a:b])

        threads = [threading.Thread(target=work, args=(k,)) for k in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.seconds += time.monotonic() - t0
        return [x for part in results for x in part]


def make_runner(spec: str, opts: argparse.Namespace) -> Runner:
    scenario_py = str(opts.oracle_dir / "scenario.py")
    if spec == "oracle":
        return Runner("oracle", [opts.oracle_python, scenario_py, "--compact"], jobs=opts.jobs)
    if spec == "fake":
        return Runner("fake", [opts.oracle_python, str(Path(__file__).resolve()), "--fake-runner",
                               "--oracle-dir", str(opts.oracle_dir)], jobs=opts.jobs)
    if spec == "cargo":
        build = subprocess.run(["cargo", "build", "-q", "--release", "-p", "elicit-oracle-runner"],
                               cwd=REPO)
        if build.returncode != 0:
            raise SystemExit("cargo build of elicit-oracle-runner failed")
        target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        if not target.is_absolute():
            target = REPO / target
        return Runner("rust", [str(target / "release" / "elicit-oracle-runner")], jobs=opts.jobs)
    return Runner("runner", shlex.split(spec), cwd=REPO, jobs=opts.jobs)


# --------------------------------------------------------------------------- #
# Comparison and classification
# --------------------------------------------------------------------------- #


class Case:
    """One scenario under comparison."""

    def __init__(self, index: int, text: str) -> None:
        self.index = index
        self.text = text  # exact bytes both runners got
        self.doc = json.loads(text)
        self.base_doc = self.doc  # current surrogate (the oracle side)
        self.base_out: Optional[str] = None
        self.ours: Optional[str] = None
        self.start = 0
        self.devs: Counter = Counter()
        self.status = "pending"  # identical | explained | unexplained | excluded
        self.reason = ""
        self.bad_round: Optional[int] = None
        self.candidates: list[tuple[tuple[int, ...], dict]] = []
        self.tried: list[dict] = []


def deploy_at(doc: dict, out_rounds: list[dict], i: int) -> list[dict]:
    params = doc["parameters"]
    for j in range(i + 1):
        rnd = doc["rounds"][j]
        if "parameters" in rnd and "registration_error" not in out_rounds[j]:
            params = rnd["parameters"]
    return params


def incoming_state(doc: dict, out_rounds: list[dict], i: int) -> Optional[str]:
    mode = doc["rounds"][i].get("state", "carry")
    if mode == "carry":
        if i == 0:
            return None
        prev = out_rounds[i - 1]
        return prev["input_required"]["request_state"] if "input_required" in prev else None
    if mode == "none":
        return None
    return mode["literal"]


def surrogates(doc: dict, out_rounds: list[dict], i: int) -> list[tuple[tuple[int, ...], dict]]:
    """Candidate surrogate scenarios for a differing round i, smallest first."""
    rnd = doc["rounds"][i]
    if "registration_error" in out_rounds[i] or "wire_error" in out_rounds[i]:
        return []
    params = deploy_at(doc, out_rounds, i)
    types = {p["name"]: effective_type(p) for p in params if p.get("question")}
    state_text = incoming_state(doc, out_rounds, i)
    try:
        state = json.loads(state_text) if state_text else None
    except ValueError:
        state = None
    mods: dict[int, Callable[[dict], None]] = {}

    # dev2: accepted replies that are not of the strict type
    lax = [name for name, reply in (rnd.get("input_responses") or {}).items()
           if name in types and isinstance(reply, dict) and reply.get("action") == "accept"
           and reply.get("content") is not None and not strict_ok(types[name], reply["content"])]
    if lax:
        def mod2(r: dict, lax=lax) -> None:
            for name in lax:
                r["input_responses"][name]["content"] = bad_content(types[name])
        mods[2] = mod2

    # dev3: recorded accepted answers whose data does not validate strictly
    if isinstance(state, dict) and isinstance(state.get("answers"), dict):
        stale = [name for name, a in state["answers"].items()
                 if name in types and isinstance(a, dict) and a.get("action") == "accept"
                 and not strict_ok(types[name], a.get("data"))]
        if stale:
            def mod3(r: dict, stale=stale) -> None:
                st = copy.deepcopy(state)
                for name in stale:
                    del st["answers"][name]
                r["state"] = {"literal": json.dumps(st, separators=(",", ":"))}
            mods[3] = mod3

    # dev4: a state whose "v" is not exactly the integer 1
    if isinstance(state, dict) and "v" in state and not (type(state["v"]) is int and state["v"] == 1):
        def mod4(r: dict) -> None:
            r["state"] = "none"
        mods[4] = mod4

    # dev6: replies with no incoming state. The surrogate's state is the oracle's own
    # state for this round asked without the replies; `evaluate` fills it in (a pre-pass
    # through the oracle) where the marker stands.
    if state_text is None and rnd.get("input_responses"):
        def mod6(r: dict) -> None:
            r[DEV6_MARK] = True
        mods[6] = mod6

    out = []
    keys = sorted(mods)
    for size in range(1, len(keys) + 1):
        for combo in itertools.combinations(keys, size):
            cand = copy.deepcopy(doc)
            for k in sorted(combo, reverse=True):  # dev4 (no state) last
                mods[k](cand["rounds"][i])
            out.append((combo, cand))
    return out


DEV6_MARK = "__dev6_state__"


def fill_dev6(cands: list[tuple[object, int, dict]], oracle: "Runner") -> set[int]:
    """Resolve the dev6 markers in candidates (`(owner, round index, doc)`): run each
    marked round through the oracle without its replies and no state, and give the
    candidate's round the state the oracle wrote. Returns the `id`s of candidates that
    cannot be built (the oracle did not ask anything that round)."""
    marked = [(o, i, d) for o, i, d in cands if d["rounds"][i].get(DEV6_MARK)]
    if not marked:
        return set()
    pre = []
    for _, i, d in marked:
        p = copy.deepcopy(d)
        p["rounds"] = p["rounds"][: i + 1]
        r = p["rounds"][i]
        r.pop(DEV6_MARK, None)
        r.pop("input_responses", None)
        pre.append(json.dumps(p, ensure_ascii=False))
    outs = oracle.run(pre)
    bad = set()
    for (_, i, d), out in zip(marked, outs):
        r = d["rounds"][i]
        r.pop(DEV6_MARK, None)
        rounds = raw_rounds(out) if out is not None else None
        if not rounds or len(rounds) <= i:
            bad.add(id(d))
            continue
        asked = json.loads(rounds[i])
        if "input_required" not in asked:
            bad.add(id(d))
            continue
        r["state"] = {"literal": asked["input_required"]["request_state"]}
    return bad


def rounds_match(oracle_round: str, ours_round: str, ignore_debug: bool) -> Optional[tuple[int, ...]]:
    """() if equal, (1,) if equal up to the cancel message, None otherwise."""
    if oracle_round == ours_round:
        return ()
    if CANCEL_ORACLE in oracle_round and oracle_round.replace(CANCEL_ORACLE, CANCEL_OURS) == ours_round:
        return (1,)
    if ignore_debug:
        try:
            a, b = without_debug(oracle_round), without_debug(ours_round)
        except (ValueError, IndexError):
            return None
        if a == b:
            return ()
        a1 = [(k, v.replace(CANCEL_ORACLE, CANCEL_OURS)) for k, v in a]
        if a1 == b and a1 != a:
            return (1,)
    return None


def advance(case: Case) -> None:
    """Compare from case.start; stop at a round that needs surrogates."""
    o, r = case.base_out, case.ours
    if o is None:
        case.status, case.reason = "excluded", "the oracle failed on this scenario"
        return
    if r is None:
        case.status, case.reason = "unexplained", "the runner failed on this scenario"
        return
    if o == r:
        case.status = "explained" if case.devs else "identical"
        return
    try:
        orounds, rrounds = raw_rounds(o), raw_rounds(r)
    except (ValueError, IndexError) as e:
        case.status, case.reason = "unexplained", f"unparseable runner output ({e})"
        return
    if orounds is None or rrounds is None:
        case.status, case.reason = "unexplained", "top-level output differs"
        return
    if len(orounds) != len(rrounds):
        case.status, case.reason = "unexplained", f"{len(orounds)} vs {len(rrounds)} rounds"
        return
    parsed = [json.loads(x) for x in orounds]
    for i in range(case.start, len(orounds)):
        m = rounds_match(orounds[i], rrounds[i], ignore_debug=False)
        if m is not None:
            case.devs.update(m)
            continue
        ours_round = json.loads(rrounds[i])
        if "wire_error" in parsed[i] and "wire_error" in ours_round:
            case.devs[5] += 1
            continue
        cands = surrogates(case.base_doc, parsed, i)
        case.bad_round = i
        if not cands:
            case.status, case.reason = "unexplained", f"round {i} differs"
            return
        case.candidates = cands
        return
    # every round matched: the envelope around them must be the oracle's
    if '{"rounds": [' + ", ".join(rrounds) + "]}" != r:
        case.status, case.reason = "unexplained", "same rounds, different element text"
        return
    case.status = "explained" if case.devs else "identical"


def evaluate(texts: list[str], oracle: Runner, ours: Runner) -> list[Case]:
    cases = [Case(i, t) for i, t in enumerate(texts)]
    o_out = oracle.run(texts)
    if oracle.first_seconds is None:
        oracle.first_seconds = oracle.seconds
    r_out = ours.run(texts)
    for c, o, r in zip(cases, o_out, r_out):
        c.base_out, c.ours = o, r
        advance(c)
    while True:
        waiting = [c for c in cases if c.status == "pending" and c.candidates]
        if not waiting:
            break
        flat = [(c, combo, cand) for c in waiting for combo, cand in c.candidates]
        unbuilt = fill_dev6([(c, c.bad_round, cand) for c, _, cand in flat], oracle)
        flat = [(c, combo, cand) for c, combo, cand in flat if id(cand) not in unbuilt]
        outs = oracle.run([json.dumps(cand, ensure_ascii=False) for _, _, cand in flat])
        by_case: dict[int, list] = {}
        for (c, combo, cand), out in zip(flat, outs):
            by_case.setdefault(c.index, []).append((combo, cand, out))
        for c in waiting:
            i = c.bad_round
            rr = raw_rounds(c.ours)
            chosen = None
            for combo, cand, out in by_case.get(c.index, []):
                if out is None:
                    continue
                orr = raw_rounds(out)
                if orr is None or len(orr) != len(rr):
                    continue
                m = rounds_match(orr[i], rr[i], ignore_debug=True)
                c.tried.append({"deviations": list(combo), "surrogate_round": orr[i]})
                if m is not None:
                    chosen = (combo + m, cand, out)
                    break
            c.candidates = []
            if chosen is None:
                c.status, c.reason = "unexplained", f"round {i} differs (no surrogate matches)"
                continue
            c.devs.update(chosen[0])
            c.base_doc, c.base_out, c.start = chosen[1], chosen[2], i + 1
            c.tried = []
            advance(c)
    for c in cases:
        if c.status == "pending":
            c.status = "explained" if c.devs else "identical"
    return cases


# --------------------------------------------------------------------------- #
# Minimization of unexplained scenarios
# --------------------------------------------------------------------------- #


def reductions(doc: dict, bad_round: Optional[int]) -> list[dict]:
    out = []

    def variant(fn):
        d = copy.deepcopy(doc)
        try:
            if fn(d) is False:
                return
        except (KeyError, IndexError, ValueError):
            return
        if d != doc:
            out.append(d)

    if bad_round is not None and len(doc.get("rounds", [])) > bad_round + 1:
        variant(lambda d: d.__setitem__("rounds", d["rounds"][: bad_round + 1]))
    for j in range(len(doc.get("rounds", []))):
        variant(lambda d, j=j: d["rounds"].pop(j))
    for k in ("debug", "tool_name"):
        variant(lambda d, k=k: d.pop(k))
    # arguments nobody depends on (dropping a used one would crash the oracle)
    used = set()
    for params in [doc.get("parameters", [])] + [r["parameters"] for r in doc.get("rounds", [])
                                                  if isinstance(r.get("parameters"), list)]:
        for p in params:
            used.update(((p.get("question") or {}).get("resolver") or {}).get("depends_on", []))
    for name in list(doc.get("arguments") or {}):
        if name not in used:
            variant(lambda d, name=name: d["arguments"].pop(name))
    for j, rnd in enumerate(doc.get("rounds", [])):
        if "arguments" in rnd:
            for name in list(rnd["arguments"]):
                if name not in used:
                    variant(lambda d, j=j, name=name: d["rounds"][j]["arguments"].pop(name))
    for j in range(len(doc.get("parameters", []))):
        variant(lambda d, j=j: d["parameters"].pop(j))
    for j, rnd in enumerate(doc.get("rounds", [])):
        for name in list(rnd.get("input_responses") or {}):
            variant(lambda d, j=j, name=name: d["rounds"][j]["input_responses"].pop(name))
        for k in ("parameters", "arguments", "state", "input_responses"):
            if k in rnd:
                variant(lambda d, j=j, k=k: d["rounds"][j].pop(k))
        for name, reply in (rnd.get("input_responses") or {}).items():
            if isinstance(reply, dict) and isinstance(reply.get("content"), dict):
                for f in list(reply["content"]):
                    variant(lambda d, j=j, name=name, f=f:
                            d["rounds"][j]["input_responses"][name]["content"].pop(f))
    for j, p in enumerate(doc.get("parameters", [])):
        for k in ("default", "title", "description"):
            if k in p:
                variant(lambda d, j=j, k=k: d["parameters"][j].pop(k))
        q = p.get("question") or {}
        src_key = "resolver" if "resolver" in q else None
        for k in ("title", "description", "response_type", "known", "declares", "async"):
            if src_key and k in q[src_key]:
                variant(lambda d, j=j, k=k: d["parameters"][j]["question"]["resolver"].pop(k))
            elif not src_key and k in q:
                variant(lambda d, j=j, k=k: d["parameters"][j]["question"].pop(k))
    return out


def minimize_all(cases: list[Case], oracle: Runner, ours: Runner,
                 max_passes: int = 30) -> list[tuple[str, Case]]:
    """Greedy, all cases in parallel: each pass tries every one-step reduction
    of every case in one batch and keeps, per case, the first reduction that
    still shows an unexplained difference."""
    best = [(c.text, c) for c in cases]
    active = list(range(len(cases)))
    for _ in range(max_passes):
        flat: list[tuple[int, str]] = []
        for k in active:
            text, case = best[k]
            for d in reductions(json.loads(text), case.bad_round):
                flat.append((k, json.dumps(d, ensure_ascii=False)))
        if not flat:
            break
        results = evaluate([t for _, t in flat], oracle, ours)
        improved = set()
        for (k, text), res in zip(flat, results):
            if k not in improved and res.status == "unexplained":
                best[k] = (text, res)
                improved.add(k)
        active = [k for k in active if k in improved]
        if not active:
            break
    return best


# --------------------------------------------------------------------------- #
# Fake runner: the oracle with the five deviations patched in
# --------------------------------------------------------------------------- #


def schema_strict_ok(schema: dict, content: Any) -> bool:
    """Strict validation against the requested JSON schema (independent of
    the type-spec version above, on purpose)."""

    def prop_ok(ps: dict, v: Any) -> bool:
        t = ps.get("type")
        if "enum" in ps and v not in ps["enum"]:
            return False
        if "const" in ps and v != ps["const"]:
            return False
        if t == "string":
            return isinstance(v, str)
        if t == "integer":
            return (isinstance(v, int) and not isinstance(v, bool)) or (
                isinstance(v, float) and math.isfinite(v) and v.is_integer())
        if t == "number":
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        if t == "boolean":
            return isinstance(v, bool)
        if t == "array":
            return isinstance(v, list) and all(isinstance(x, str) and prop_ok(ps["items"], x) for x in v)
        return False

    if not isinstance(content, dict):
        return False
    for key, ps in schema.get("properties", {}).items():
        if key in content:
            if not prop_ok(ps, content[key]):
                return False
        elif key in schema.get("required", []):
            return False
    return True


def fake_runner_main(oracle_dir: Path) -> None:
    import runpy

    sys.path.insert(0, str(oracle_dir))
    import fastmcp.server._elicit_resolution as engine  # type: ignore
    from fastmcp.exceptions import ToolError  # type: ignore

    last_config: dict[str, Any] = {}
    orig_config = engine.ElicitParam.config

    def config(self, request):
        cfg = orig_config(self, request)
        last_config[self.name] = cfg
        return cfg

    engine.ElicitParam.config = config

    orig_accept = engine.handle_elicit_accept

    def handle_elicit_accept(cfg, content):  # dev2
        if not schema_strict_ok(cfg.schema, content):
            raise ValueError("not of the strict JSON type")
        return orig_accept(cfg, content)

    engine.handle_elicit_accept = handle_elicit_accept

    orig_settle = engine._settle

    def _settle(spec, action, content, cfg):  # dev1
        try:
            return orig_settle(spec, action, content, cfg)
        except ToolError as e:
            if CANCEL_ORACLE in str(e):
                raise ToolError(str(e).replace(CANCEL_ORACLE, CANCEL_OURS)) from None
            raise

    engine._settle = _settle

    orig_recall = engine._recall

    def _recall(state, name, question):  # dev3
        answer = orig_recall(state, name, question)
        if answer is not None and answer.action == "accept":
            try:
                handle_elicit_accept(last_config[name], answer.data)
            except Exception:
                return None
        return answer

    engine._recall = _recall

    orig_decode = engine._decode_state

    def _decode_state(request_state):  # dev4
        if request_state:
            try:
                raw = json.loads(request_state)
            except ValueError:
                raw = None
            if isinstance(raw, dict) and "v" in raw and not (type(raw["v"]) is int and raw["v"] == 1):
                return engine._State(v=engine._STATE_VERSION)
        return orig_decode(request_state)

    engine._decode_state = _decode_state

    sys.argv = [str(oracle_dir / "scenario.py"), "--compact"]
    runpy.run_path(str(oracle_dir / "scenario.py"), run_name="__main__")


# --------------------------------------------------------------------------- #
# Main
# --------------------------------------------------------------------------- #


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--runner", default="cargo",
                    help="cargo (default) | oracle | fake | a command line")
    ap.add_argument("--oracle-python", default=DEFAULT_ORACLE_PY)
    ap.add_argument("--oracle-dir", type=Path, default=DEFAULT_ORACLE_DIR)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=REPO / "target/differential/unexplained.json")
    ap.add_argument("--dump", type=Path, help="write the generated scenarios (JSON list)")
    ap.add_argument("--replay", type=Path, help="run scenarios from this JSON list / --out file")
    ap.add_argument("--lax-rate", type=float, default=0.03,
                    help="share of replies valid only under pydantic's lax rules (dev2)")
    ap.add_argument("--wire-rate", type=float, default=0.01,
                    help="share of replies that fail the wire parse (dev5)")
    ap.add_argument("--forge-rate", type=float, default=0.08,
                    help="share of rounds with a literal (stale/foreign/forged) state")
    ap.add_argument("--redeploy-rate", type=float, default=0.08)
    ap.add_argument("--debug-rate", type=float, default=0.1)
    ap.add_argument("--max-rounds", type=int, default=6)
    ap.add_argument("--minimize", type=int, default=10,
                    help="minimize at most this many unexplained scenarios (0: none)")
    ap.add_argument("--show", type=int, default=3, help="unexplained cases to print")
    ap.add_argument("--explained", type=Path,
                    help="also write the explained scenarios (deviations, surrogate input)")
    ap.add_argument("--fake-runner", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args()

    if opts.fake_runner:
        fake_runner_main(opts.oracle_dir)
        return 0

    if not Path(opts.oracle_python).exists():
        print(f"oracle python not found: {opts.oracle_python} (run scripts/dev-oracle-env.sh)",
              file=sys.stderr)
        return 2
    oracle = make_runner("oracle", opts)
    ours = make_runner(opts.runner, opts)

    t0 = time.monotonic()
    if opts.replay:
        data = json.loads(opts.replay.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "unexplained" in data:
            texts = [u["input_text"] for u in data["unexplained"]]
        else:
            texts = [json.dumps(d, ensure_ascii=False) for d in data]
    else:
        scenarios = generate(opts)
        resolve_forged(scenarios, oracle)
        wrng = random.Random(opts.seed ^ 0x5EED)
        texts = [write_scenario(sc, wrng) for sc in scenarios]
    gen_seconds = time.monotonic() - t0
    if opts.dump:
        opts.dump.parent.mkdir(parents=True, exist_ok=True)
        opts.dump.write_text("[" + ",\n".join(texts) + "]\n", encoding="utf-8")

    oracle.seconds, oracle.first_seconds = 0.0, None
    cases = evaluate(texts, oracle, ours)
    oracle_first = oracle.first_seconds
    counts = Counter(c.status for c in cases)
    devs: Counter = Counter()
    for c in cases:
        if c.status == "explained":
            devs.update({k: 1 for k in c.devs})

    unexplained = [c for c in cases if c.status == "unexplained"]
    t1 = time.monotonic()
    minimized = minimize_all(unexplained[: opts.minimize], oracle, ours) if opts.minimize else []
    min_seconds = time.monotonic() - t1
    report = []
    for n, c in enumerate(unexplained):
        text, best = minimized[n] if n < len(minimized) else (c.text, c)
        report.append({
            "index": c.index,
            "reason": best.reason,
            "round": best.bad_round,
            "input": json.loads(text),
            "input_text": text,
            "oracle": best.base_out,
            "ours": best.ours,
            "surrogates_tried": best.tried,
            "original_input_text": c.text,
            "original_reason": c.reason,
        })
    excluded = [c for c in cases if c.status == "excluded"]
    for c in excluded:
        print(f"excluded #{c.index}: the oracle failed: {c.text[:300]}", file=sys.stderr)
    for text, err in oracle.failures[:5]:
        print(f"oracle failure: {err.strip().splitlines()[-1] if err.strip() else '?'}\n  on {text[:300]}",
              file=sys.stderr)

    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.write_text(json.dumps({"seed": opts.seed, "count": len(texts), "runner": opts.runner,
                                    "unexplained": report}, ensure_ascii=False, indent=1) + "\n",
                        encoding="utf-8")
    if opts.explained:
        opts.explained.parent.mkdir(parents=True, exist_ok=True)
        opts.explained.write_text(json.dumps([
            {"index": c.index, "deviations": dict(sorted(c.devs.items())), "input_text": c.text,
             "surrogate_input": c.base_doc if c.base_doc is not c.doc else None,
             "oracle_surrogate": c.base_out, "ours": c.ours}
            for c in cases if c.status == "explained"], ensure_ascii=False, indent=1) + "\n",
            encoding="utf-8")
    for entry in report[: opts.show]:
        print(f"UNEXPLAINED #{entry['index']} round {entry['round']}: {entry['reason']}")
        print(f"  input:  {entry['input_text'][:1500]}")
        print(f"  oracle: {(entry['oracle'] or '')[:1500]}")
        print(f"  ours:   {(entry['ours'] or '')[:1500]}")
    print(f"timing: generate {gen_seconds:.1f}s, oracle {oracle_first:.1f}s, "
          f"{ours.name} {ours.seconds:.1f}s (all oracle runs incl. surrogates "
          f"and minimizing {oracle.seconds:.1f}s; minimizing {min_seconds:.1f}s)")
    dev_text = " ".join(f"dev{k}={devs[k]}" for k in range(1, 7))
    print(f"scenarios={len(cases)} identical={counts['identical']} "
          f"explained={counts['explained']} ({dev_text}) unexplained={counts['unexplained']}"
          + (f" excluded={counts['excluded']}" if counts["excluded"] else ""))
    if unexplained:
        print(f"unexplained scenarios written to {opts.out}")
    return 1 if unexplained or excluded else 0


if __name__ == "__main__":
    sys.exit(main())
