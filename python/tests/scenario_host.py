"""The conformance host, in Python, through the binding.

A port of ``tests/oracle-runner/src/main.rs`` (the ``elicit-oracle-runner`` runner): it
reads one scenario document in the reference oracle's format (``scenario.py``), maps
its Python-flavoured types onto the engine's declaration, runs the data-driven
resolvers (``template``, ``known``) as the host, drives every round through
:mod:`elicit_mcp`, and returns the result object whose
``json.dumps(result, ensure_ascii=False)`` is the oracle's ``--compact`` line.

Only the engine is reached through the library. The debug digests of the rendered
requests (SHA-256 over the sorted-key, compact, ASCII-escaped params, first 16 bytes,
base64url without padding) are computed here, exactly as the reference's ``_digest``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import elicit_mcp
from elicit_mcp import _engine


class HostError(Exception):
    """The scenario or the host is wrong (not an engine outcome)."""


Json = Any


# ------------------------------------------------------------------------------ types


def map_type(spec: Json) -> Json:
    """The oracle's type spec → the engine's type grammar (as a JSON value)."""
    if isinstance(spec, str):
        scalars = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
        if spec not in scalars:
            raise HostError(f"unknown scalar type {spec!r}")
        return scalars[spec]
    if isinstance(spec, dict):
        if "literal" in spec:
            return {"enum": spec["literal"]}
        if "list_literal" in spec:
            return {"type": "array", "items": {"enum": spec["list_literal"]}}
        if "optional" in spec:
            # `T | None` as an answer type is asked as `T`.
            return map_type(spec["optional"])
        if "model" in spec:
            model = spec["model"]
            props: Dict[str, Json] = {}
            for key, fspec in (model.get("fields") or {}).items():
                if isinstance(fspec, dict) and "type" in fspec:
                    field = field_object(map_type(fspec["type"]))
                    if "default" in fspec:
                        field = dict(field)
                        field["default"] = fspec["default"]
                else:
                    field = field_object(map_type(fspec))
                props[key] = field
            return {
                "type": "object",
                "title": model.get("name", "Model"),
                "properties": props,
            }
    raise HostError(f"bad type spec {spec!r}")


def field_object(ty: Json) -> Json:
    """A mapped type as an object (shorthand names expanded), for model fields."""
    return {"type": ty} if isinstance(ty, str) else ty


def param_type(p: Mapping[str, Json]) -> Json:
    return map_type(p["type"]) if "type" in p else "string"


# ------------------------------------------------------------------------ declaration


def declaration(params: List[Json], tool: str) -> Dict[str, Json]:
    out = []
    for p in params:
        if "name" not in p:
            raise HostError("parameter without name")
        entry: Dict[str, Json] = {"name": p["name"]}
        ty = param_type(p)
        q = p.get("question")
        if q is not None and "question" in p:
            if "literal" in q:
                if "response_type" in q:
                    ty = map_type(q["response_type"])
                e: Dict[str, Json] = {"message": q["literal"]}
                for k in ("title", "description"):
                    if q.get(k) is not None:
                        e[k] = q[k]
                entry["elicit"] = e
            elif "resolver" in q:
                r = q["resolver"]
                e = {"needs": r.get("depends_on", [])}
                if "declares" in r:
                    e["declares"] = map_type(r["declares"])
                entry["elicit"] = e
            else:
                raise HostError("bad question spec")
        entry["type"] = ty
        if "default" in p:
            entry["default"] = p["default"]
        out.append(entry)
    return {"tool": tool, "parameters": out}


# -------------------------------------------------------------------------- resolvers


def placeholder(v: Json) -> str:
    """Strings verbatim; anything else as compact JSON with non-ASCII kept."""
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


Decision = Tuple[str, Json]  # ("value", v) or ("question", {...})


def run_resolver(spec: Mapping[str, Json], inputs: Mapping[str, Json]) -> Decision:
    depends: List[str] = [d for d in spec.get("depends_on", []) if isinstance(d, str)]
    known = spec.get("known")
    if isinstance(known, dict) and depends:
        key = placeholder(inputs[depends[0]]) if depends[0] in inputs else ""
        if key in known:
            return ("value", known[key])
    elif isinstance(known, list):
        for rule in known:
            when = rule.get("when")
            if when is None or all(k in inputs and inputs[k] == v for k, v in when.items()):
                return ("value", rule.get("value"))
    message = spec.get("template")
    message = message if isinstance(message, str) else ""
    for name in depends:
        rendered = placeholder(inputs[name]) if name in inputs else ""
        message = message.replace("{" + name + "}", rendered)
    q: Dict[str, Json] = {"message": message}
    if "response_type" in spec:
        q["type"] = map_type(spec["response_type"])
    for k in ("title", "description"):
        if spec.get(k) is not None:
            q[k] = spec[k]
    return ("question", q)


# --------------------------------------------------------------------------- digests


def digest_input(params: Json) -> str:
    """What the reference hashes: sorted keys, compact, ASCII-escaped."""
    return json.dumps(params, separators=(",", ":"), sort_keys=True)


def digest(params: Json) -> str:
    packed = hashlib.sha256(digest_input(params).encode()).digest()[:16]
    return base64.urlsafe_b64encode(packed).decode().rstrip("=")


# -------------------------------------------------------------------------- scenario


class Sticky:
    """The deployed declaration: the plan and the resolver specs by parameter name."""

    def __init__(self, params: List[Json], tool: str) -> None:
        self.declaration = declaration(params, tool)
        self.resolvers: Dict[str, Json] = {}
        for p in params:
            q = p.get("question")
            if isinstance(q, dict) and "resolver" in q and isinstance(p.get("name"), str):
                self.resolvers[p["name"]] = q["resolver"]


def registration_error(decl: Mapping[str, Json]) -> Optional[str]:
    try:
        elicit_mcp.Plan(decl).close()
    except elicit_mcp.DeclarationError as e:
        return e.message
    return None


def scenario(sc: Mapping[str, Json]) -> Dict[str, Json]:
    tool = sc.get("tool_name")
    tool = tool if isinstance(tool, str) else "tool"
    debug = sc.get("debug") is True
    if "parameters" not in sc:
        raise HostError("scenario without parameters")
    sticky = Sticky(sc["parameters"], tool)
    err = registration_error(sticky.declaration)
    if err is not None:
        return {"registration_error": err}
    arguments: Json = sc.get("arguments", {})
    prev_state: Optional[str] = None
    rounds_out: List[Json] = []
    for rnd in sc.get("rounds", [{}]):
        if "parameters" in rnd:
            sticky = Sticky(rnd["parameters"], tool)
            err = registration_error(sticky.declaration)
            if err is not None:
                rounds_out.append({"registration_error": err})
                prev_state = None
                continue
        if "arguments" in rnd:
            arguments = rnd["arguments"]
        mode = rnd.get("state", "carry")
        request_state: Optional[str]
        if mode == "carry":
            request_state = prev_state
        elif mode == "none":
            request_state = None
        elif isinstance(mode, dict) and "literal" in mode:
            lit = mode["literal"]
            request_state = lit if isinstance(lit, str) else None
        else:
            raise HostError("bad round state")
        replies = rnd.get("input_responses")
        result, prev_state = one_round(sticky, arguments, request_state, replies, debug)
        rounds_out.append(result)
    return {"rounds": rounds_out}


def one_round(
    sticky: Sticky,
    arguments: Json,
    request_state: Optional[str],
    replies: Json,
    debug: bool,
) -> Tuple[Dict[str, Json], Optional[str]]:
    with elicit_mcp.Plan(sticky.declaration) as plan:
        try:
            rnd = plan.modern(
                _engine.dumps(arguments),
                request_state=request_state,
                input_responses=None if replies is None else _engine.dumps(replies),
            )
        except elicit_mcp.InputResponsesError:
            out: Dict[str, Json] = {
                "wire_error": "input_responses failed validation",
                "details": [],
            }
            if debug:
                out["debug"] = {"request_state_in": request_state, "logs": []}
            return out, None
    with rnd:
        result: Dict[str, Json]
        next_state: Optional[str] = None
        dbg: Dict[str, Json] = {}
        try:
            terminal = drive(rnd, sticky)
        except elicit_mcp.ElicitError as e:
            result = {"error": e.message}
        else:
            if isinstance(terminal, elicit_mcp.Done):
                result = {"values": terminal.values()}
            else:
                reqs = terminal.input_requests()
                next_state = terminal.request_state()
                result = {"input_required": {"input_requests": reqs, "request_state": next_state}}
                if debug:
                    dbg["digest_inputs"] = {k: digest_input(r["params"]) for k, r in reqs.items()}
                    dbg["digests"] = {k: digest(r["params"]) for k, r in reqs.items()}
                    cv = terminal.input_requests(client_view=True)
                    dbg["client_view_params"] = {k: r["params"] for k, r in cv.items()}
        if debug:
            dbg["request_state_in"] = request_state
            dbg["logs"] = [
                {"level": n.level.name, "message": n.message} for n in rnd.notes()
            ]
            result["debug"] = dbg
        return result, next_state


def drive(rnd: elicit_mcp.Round, sticky: Sticky) -> Union[elicit_mcp.Done, elicit_mcp.InputRequired]:
    """Run the round's steps with the scenario's resolvers; the terminal step."""
    for step in rnd.steps():
        if isinstance(step, elicit_mcp.ResolveStep):
            spec = sticky.resolvers.get(step.name)
            if spec is None:
                raise HostError(f"resolver spec missing for {step.name!r}")
            kind, answer = run_resolver(spec, step.inputs())
            try:
                if kind == "value":
                    step.value(answer)
                else:
                    step.question(answer)
            except elicit_mcp.ElicitError as e:
                # A failed round reports its error on the next poll (raised from
                # there); anything else is the host's mistake.
                rnd.poll()
                raise HostError(f"host error: {e}") from e
        elif isinstance(step, (elicit_mcp.Done, elicit_mcp.InputRequired)):
            return step
        else:
            raise HostError("modern rounds never ask one at a time")
    raise HostError("the steps ended without a terminal step")


# ------------------------------------------------------------------------ digest mode


def digest_mode(doc: Mapping[str, Json]) -> Dict[str, Json]:
    if "request" in doc:
        p = doc["request"].get("params")
        if p is None:
            raise HostError("request without params")
        # The reference validates the wire request into its model: mode defaults to
        # "form", keys in model order.
        params: Dict[str, Json] = {"mode": p.get("mode", "form")}
        for k in ("message", "requestedSchema"):
            if k in p:
                params[k] = p[k]
    else:
        e: Dict[str, Json] = {"message": doc.get("message", "")}
        for k in ("title", "description"):
            if doc.get(k) is not None:
                e[k] = doc[k]
        decl = {"parameters": [{"name": "q", "type": map_type(doc.get("type", "str")), "elicit": e}]}
        # The engine renders the question: a round of a one-question plan asks it.
        with elicit_mcp.Plan(decl) as plan, plan.modern() as rnd:
            step = rnd.poll()
            if not isinstance(step, elicit_mcp.InputRequired):
                raise HostError(f"a one-question plan should ask, got {step!r}")
            params = step.input_requests()["q"]["params"]
    text = digest_input(params)
    return {
        "request": {"method": "elicitation/create", "params": params},
        "digest_input": text,
        "digest_input_utf8_hex": text.encode("utf-8").hex(),
        "digest": digest(params),
    }


# ---------------------------------------------------------------------------- entry


def process(doc: Mapping[str, Json]) -> Dict[str, Json]:
    mode = doc.get("mode", "scenario")
    if mode == "scenario":
        return scenario(doc)
    if mode == "digest":
        return digest_mode(doc)
    raise HostError("unsupported mode (scenario and digest are supported)")


def run(document: Union[str, bytes]) -> str:
    """A whole input document (an object or a list of them) → the output line."""
    doc = json.loads(document)
    result: Json = [process(d) for d in doc] if isinstance(doc, list) else process(doc)
    return json.dumps(result, ensure_ascii=False)
