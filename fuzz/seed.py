#!/usr/bin/env python3
"""Seed the fuzz corpora from the conformance vectors (tests/vectors/*.input.json) and
the reference oracle's vectors (reference/oracle/vectors/*.json).

    python3 fuzz/seed.py [ORACLE_VECTORS_DIR]

Writes corpus/<target>/seed-*: declarations (the oracle's parameters mapped to the
engine's declaration format, as tests/oracle-runner does), plaintext states and
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
    # A worktree one folder further down.
    ORACLE = os.path.join(ROOT, "..", "..", "shared", "reference", "oracle", "vectors")


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
scenarios = []  # (declaration, arguments, [(state, replies) per round]) for the ffi target


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
    rounds = []
    for r in inp.get("rounds", []):
        if "input_responses" in r:
            replies.append(dumps(r["input_responses"]))
        if isinstance(r.get("state"), str):
            states.append(r["state"])
        rounds.append((r.get("state") if isinstance(r.get("state"), str) else None,
                       dumps(r["input_responses"]) if "input_responses" in r else None,
                       dumps(r["arguments"]) if "arguments" in r else None))
    scenarios.append((decls[-1], dumps(inp.get("arguments", {})), rounds))


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


# ffi: programs for fuzz_targets/ffi.rs (its header documents the encoding).
def raw(text):
    b = text.encode() if isinstance(text, str) else text
    b = b[:0xFFFF]
    return bytes([1, len(b) & 0xFF, len(b) >> 8]) + b


def opt(text):
    return bytes([5]) if text is None else raw(text)


PLAN_NEW, PLAN_QUERY, MODERN, HANDSHAKE, POLL, OUTPUT, ANSWER, HOST, NEXT, RESULT_STR, ALL = (
    0, 2, 3, 4, 6, 7, 8, 9, 10, 11, 13)


def ffi_program(decl, arguments, rounds, k, caps=None):
    p = bytes([PLAN_NEW, 0]) + raw(decl) + bytes([2])
    p += bytes([PLAN_QUERY, 0, k % 7, k % 5])
    if k % 2 == 0:
        state, reps, a = rounds[0] if rounds else (None, None, None)
        p += bytes([MODERN, 0, 0]) + raw(a or arguments) + opt(state) + opt(reps) + opt(caps)
        p += bytes([0, 2])
        p += bytes([POLL, 0, 0, ALL, 0])
        p += bytes([HOST, 0, 7]) + bytes((k * 13 + j) % 256 for j in range(8))
        p += bytes([NEXT, 0, 1, k % 7]) + bytes((k + j) % 7 for j in range(16))
        p += bytes([HOST, 1, 7]) + bytes((k * 5 + j) % 256 for j in range(8))
        p += bytes([ALL, 1])
        for state, reps, a in rounds[1:]:
            p += bytes([MODERN, 2, 0]) + raw(a or arguments) + opt(state) + opt(reps) + opt(caps)
            p += bytes([0, 2])
            p += bytes([HOST, 2, 7]) + bytes((k + j) % 256 for j in range(8)) + bytes([ALL, 2])
    else:
        p += bytes([HANDSHAKE, 0, 0]) + raw(arguments) + opt(caps) + bytes([0, 2])
        p += bytes([HOST, 0, 7]) + bytes((k * 11 + 2 * j) % 256 for j in range(8))
        p += bytes([ANSWER, 0, 3, 0, 9])  # answer out of step, from the built-ins
        p += bytes([OUTPUT, 0, 8, 0, 5, 0])  # a note
        p += bytes([OUTPUT, 0, 7, 0, 5, 0])  # requiredCapabilities (after a -32021)
        p += bytes([ALL, 0])
    p += bytes([RESULT_STR, 2, k % 12])
    return p


for k, (decl, arguments, rounds) in enumerate(scenarios):
    write("ffi", ffi_program(decl, arguments, rounds, 2 * k))
    write("ffi", ffi_program(decl, arguments, rounds, 2 * k + 1))
for x in decls[:20]:
    write("ffi", bytes([PLAN_NEW, 1]) + raw(x) + bytes([1, HANDSHAKE, 0, 1, 0, 5, 5, 3, 2, POLL, 0, 0, ALL, 0]))

# The input kinds: URL mode, sampling and roots, literal and from resolvers (the KINDS
# declaration of fuzz/src/lib.rs), with every kind declared, with form only, and
# with nothing; replies of each kind's result.
KINDS = json.dumps({"tool": "kinds", "parameters": [
    {"name": "topic"},
    {"name": "name", "elicit": {"message": "Your name?"}},
    {"name": "paid", "elicit": {"message": "Pay the fare", "url": "https://pay.example/f1"}},
    {"name": "summary", "elicit": {"sampling": {"messages": [
        {"role": "user", "content": {"type": "text", "text": "Summarise"}}], "maxTokens": 50}}},
    {"name": "dirs", "default": [], "elicit": {"roots": {}}},
    {"name": "login", "outcome": True, "elicit": {"needs": ["topic"], "kind": "url"}},
    {"name": "answer", "elicit": {"needs": ["name"], "kind": "sampling"}},
    {"name": "more_roots", "default": None, "elicit": {"needs": ["topic"], "kind": "roots"}},
    {"name": "confirm", "type": "boolean", "elicit": {"needs": ["answer"], "kind": "form"}},
]}, separators=(",", ":"))
KINDS_ARGS = '{"topic":"t"}'
CAPS = ['{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}', '{"elicitation":{}}', "{}",
        '{"elicitation":{"url":{}},"sampling":{}}']
CMR = '{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m","stopReason":"endTurn"}'
KIND_REPLIES = [
    '{"name":{"action":"accept","content":{"value":"Ann"}},"paid":{"action":"accept"},'
    '"summary":' + CMR + ',"dirs":{"roots":[{"uri":"file:///w","name":"w"}]},"login":{"action":"decline"},'
    '"more_roots":{"roots":[]}}',
    '{"paid":' + CMR + '}',
    '{"summary":{"action":"accept","content":{"value":"x"}}}',
    '{"dirs":{"roots":"x"}}',
    '{"paid":{"action":"accept","content":{"value":1}}}',
]
write("compile", KINDS)
for r in KIND_REPLIES:
    write("replies", r)
    write("state_round", "\0" + r + "\0" + CAPS[0])
for c in CAPS:
    write("state_round", "\0\0" + c)
for bits in range(16):
    script = bytes([0x40 | (bits << 2) | (bits & 1)]) + bytes([5, bits * 3 % 256] * 16)
    write("host_actions", b"\0\0\0\0" + script)
for k, c in enumerate(CAPS):
    write("ffi", ffi_program(KINDS, KINDS_ARGS, [(None, None, None)], 2 * k, caps=c))
    write("ffi", ffi_program(KINDS, KINDS_ARGS, [], 2 * k + 1, caps=c))

# ffi_noalloc: programs for fuzz_targets/ffi_noalloc.rs (its header documents the encoding):
# both built-in plans in both eras, outputs at every step, a sealed and unsealed state.
POLL_S, INPUTS_S, RESOLVE_S, ANSWER_S, ASK_S, VALUES_S, VALUE_OF_S, REQUESTS_S, STATE_S, CAPS_S, ERROR_S = 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
BIG = 2  # output capacity selector: 4096 bytes
def static_head(plan, era, caps, args_sel=0):
    # plan bytes (src 0), which plan, exact aligned memory; era, caps, exact aligned
    # round memory, 256 B of workspace, the plan's arguments, no state, no replies.
    return bytes([0, plan, 0, 0, era, caps, 0, 0, 32, args_sel, 4, 4])
seal_ok = bytes([0, 0, 1, 7, 2, 0])  # sealer: exact memory, one key, cap 4096, intact token
write("ffi_noalloc", static_head(0, 0, 0) + bytes([POLL_S, 0, REQUESTS_S, BIG, 0, REQUESTS_S, BIG, 1,
    STATE_S, BIG]) + seal_ok + bytes([VALUES_S, BIG, ERROR_S, BIG]))
write("ffi_noalloc", static_head(0, 0, 0) + bytes([POLL_S, 0, STATE_S, BIG, 0, 0, 1, 7, 2, 1, 5, 3]))
write("ffi_noalloc", static_head(0, 1, 0) + bytes([
    POLL_S, 0, ASK_S, BIG, ANSWER_S, 0, 1, 0, 0,  # Paris
    POLL_S, 0, INPUTS_S, BIG, RESOLVE_S, 0, 1, 7, 0,  # the airport resolver answers "CDG"
    POLL_S, 0, ASK_S, BIG, ANSWER_S, 0, 1, 1, 0,  # window
    POLL_S, 0, VALUES_S, BIG, VALUE_OF_S, BIG, 1, ERROR_S, BIG]))
write("ffi_noalloc", static_head(1, 0, 1) + bytes([POLL_S, 0, REQUESTS_S, BIG, 0, STATE_S, BIG]) + seal_ok
      + bytes([CAPS_S, BIG]))
write("ffi_noalloc", static_head(1, 0, 0) + bytes([POLL_S, 0, CAPS_S, BIG, CAPS_S, 0, ERROR_S, 1, 10]))
write("ffi_noalloc", bytes([3, 0, 0, 0, 0, 0, 0, 0, 32, 0, 4, 4, POLL_S, 0, REQUESTS_S, BIG, 0]))
print(f"seeded: {len(decls)} declarations, {len(states)} states, {len(replies)} replies")
