#!/usr/bin/env python3
"""Seed the fuzz corpora from the conformance vectors (tests/vectors/*.input.json) and
the reference oracle's vectors (reference/oracle/vectors/*.json).

    python3 fuzz/seed.py [ORACLE_VECTORS_DIR]

Writes corpus/<target>/seed-*: declarations (the oracle's parameters mapped to the
engine's declaration format, as tests/conformance does), plaintext states and
inputResponses from the scenarios' rounds and expected outputs, sealed-looking tokens,
and host-action inputs combining them. Idempotent (content-named files).
"""
import glob
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORACLE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    ROOT, "..", "shared", "reference", "oracle", "vectors")
if not os.path.isdir(ORACLE):
    ORACLE = "/work/shared/reference/oracle/vectors"


def dumps(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def map_type(t):
    if isinstance(t, str):
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(t, "string")
    if "literal" in t:
        return {"enum": t["literal"]}
    if "list_literal" in t:
        return {"type": "array", "items": {"enum": t["list_literal"]}}
    if "optional" in t:
        return map_type(t["optional"])
    if "model" in t:
        m = t["model"]
        props = {}
        for k, f in (m.get("fields") or {}).items():
            if isinstance(f, dict) and "type" in f:
                ft = map_type(f["type"])
                ft = {"type": ft} if isinstance(ft, str) else dict(ft)
                if "default" in f:
                    ft["default"] = f["default"]
            else:
                ft = map_type(f)
                ft = {"type": ft} if isinstance(ft, str) else ft
            props[k] = ft
        return {"type": "object", "title": m.get("name", "Model"), "properties": props}
    return "string"


def declaration(params):
    out = []
    for p in params:
        d = {"name": p["name"], "type": map_type(p.get("type", "str"))}
        q = p.get("question")
        if q and "literal" in q:
            if "response_type" in q:
                d["type"] = map_type(q["response_type"])
            e = {"message": q["literal"]}
            for k in ("title", "description"):
                if q.get(k) is not None:
                    e[k] = q[k]
            d["elicit"] = e
        elif q and "resolver" in q:
            r = q["resolver"]
            e = {"needs": r.get("depends_on", [])}
            if "declares" in r:
                e["declares"] = map_type(r["declares"])
            d["elicit"] = e
        if "default" in p:
            d["default"] = p["default"]
        out.append(d)
    return {"tool": "tool", "parameters": out}


decls, states, replies, args = [], [], [], []


def walk_expected(v):
    """Collect request_state strings from expected outputs."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "request_state" and isinstance(x, str):
                states.append(x)
            else:
                walk_expected(x)
    elif isinstance(v, list):
        for x in v:
            walk_expected(x)


def scenario(inp):
    if not isinstance(inp, dict) or "parameters" not in inp:
        return
    decls.append(dumps(declaration(inp["parameters"])))
    if "arguments" in inp:
        args.append(dumps(inp["arguments"]))
    for r in inp.get("rounds", []):
        if "input_responses" in r:
            replies.append(dumps(r["input_responses"]))
        if isinstance(r.get("state"), str):
            states.append(r["state"])


for f in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "*.input.json"))):
    d = json.load(open(f))
    for inp in d if isinstance(d, list) else [d]:
        scenario(inp)
for f in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "*.expected.txt"))):
    for line in open(f):
        try:
            walk_expected(json.loads(line))
        except ValueError:
            pass
for f in sorted(glob.glob(os.path.join(ORACLE, "*.json"))):
    d = json.load(open(f))
    inp = d.get("input")
    for i in inp if isinstance(inp, list) else [inp]:
        scenario(i)
    walk_expected(d.get("expected", d.get("output")))

states.append('{"v":1,"answers":{},"asked":{}}')
replies.append('{"destination":{"action":"accept","content":{"value":"Paris"}}}')


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


for x in decls:
    write("compile", x)
for s in states:
    write("state_round", s)
    for r in replies[:8]:
        write("state_round", s + "\0" + r)
for r in replies:
    write("replies", r)
for s in states[:20]:
    write("unseal", s)
write("unseal", "v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
write("unseal", '"v1.AAAA"')
for i, x in enumerate(decls):
    s = states[i % len(states)]
    r = replies[i % len(replies)]
    script = bytes([i % 4]) + bytes((7 * i + k) % 256 for k in range(24))
    write("host_actions", x.encode() + b"\0{}\0" + s.encode() + b"\0" + r.encode() + b"\0" + script)
    write("host_actions", x.encode() + b"\0{}\0\0\0" + bytes([1]) + bytes([5, 0] * 12))
print(f"seeded: {len(decls)} declarations, {len(states)} states, {len(replies)} replies")
