"""Cross-implementation check of sealed requestState: elicit vs mcp==2.3.0.

Usage: python interop.py PATH/TO/seal_cli [PATH/TO/seal_c]

Three elicit sides, each checked against the SDK with every scenario below:
  * "Rust": elicit-core's `seal` module (core/examples/seal_cli.rs);
  * "C ABI": a C host sealing through include/elicit.h (tests/interop/seal/seal_c.c),
    when its path is given;
  * "Python": the `elicit` package's Sealer (ctypes over the same C ABI); it must import
    (scripts/test-seal-interop.sh puts python/ on PYTHONPATH and sets ELICIT_LIB).

The Python side is the SDK's own code: `RequestStateBoundary` (claims envelope, binding,
audience, principal checks) over `AESGCMRequestStateCodec`, with `time.time` and (for the
byte-for-byte cases) `os.urandom` patched. The Rust side is `tools/src/bin/seal_cli.rs`,
driven in batches over stdin/stdout.

Shows, for every scenario:
  * the SDK accepts a token sealed by our code, and we accept one sealed by the SDK
    (same key ring and audience), each returning the original state;
  * with the same clock and random bytes both sides mint the identical token;
  * every single-bit flip of the token (of its text and of its decoded bytes) is rejected
    by both sides, for the same logged reason;
  * wrong arguments / target / method / audience / principal, expiry and future skew are
    rejected by both sides for the same reason.

The last line is `N passed, M failed`; the exit status is non-zero on any failure.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import logging
import subprocess
import sys
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import mcp.server.request_state as rs
from mcp.shared.exceptions import MCPError

FROZEN = {"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}}

# --------------------------------------------------------------------------------------
# Bookkeeping

PASSED = 0
FAILED = 0


def check(name: str, ok: bool, detail: Any = "") -> None:
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print(f"ok    {name}")
    else:
        FAILED += 1
        print(f"FAIL  {name}: {detail}")


# --------------------------------------------------------------------------------------
# The SDK side

_clock = [0.0]
rs.time = SimpleNamespace(time=lambda: _clock[0])  # the boundary reads time.time()
_real_os = rs.os


class _Reasons(logging.Handler):
    """Captures the log-only rejection reason of `_reject`."""

    def __init__(self) -> None:
        super().__init__()
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("requestState rejected on"):
            self.last = str(record.args[1])


REASONS = _Reasons()
_log = logging.getLogger(rs.__name__)
_log.addHandler(REASONS)
_log.setLevel(logging.WARNING)
_log.propagate = False


@dataclass
class Scenario:
    name: str
    keys: list[bytes | str]  # the SDK's ring (index 0 seals)
    audience: str | None
    method: str
    params: dict[str, Any]
    state: str
    now: float
    principal: str | None = None
    ttl: float = 600.0
    rust_keys: list[bytes | str] | None = None  # our ring, when it differs

    def ctx(self, request_state: Any = None, **changes: Any) -> SimpleNamespace:
        params = dict(changes.get("params", self.params))
        if request_state is not None:
            params["requestState"] = request_state
        return SimpleNamespace(method=changes.get("method", self.method), params=params)


def _secret(k: bytes | str) -> bytes:
    return k.encode() if isinstance(k, str) else bytes(k)


def boundary(keys: list[bytes | str], audience: str | None, ttl: float, principal: str | None):
    security = rs.RequestStateSecurity(keys=keys, ttl=ttl, audience=audience, bind_principal=lambda ctx: principal)
    return rs.RequestStateBoundary(security, default_audience=None)


def sdk_seal(sc: Scenario, *, nonce: bytes | None = None, salt: bytes | None = None) -> str:
    _clock[0] = sc.now
    b = boundary(sc.keys, sc.audience, sc.ttl, sc.principal)
    if nonce is None:
        return b._seal(sc.ctx(), sc.state)
    draws = ([salt] if sc.principal is not None else []) + [nonce]

    def urandom(n: int) -> bytes:
        out = draws.pop(0)
        assert len(out) == n, (n, out)
        return out

    rs.os = SimpleNamespace(urandom=urandom)
    try:
        return b._seal(sc.ctx(), sc.state)
    finally:
        rs.os = _real_os
    assert not draws


_SDK_VERDICTS: dict[str, tuple[str, Any]] = {}


def sdk_verdict(sc: Scenario, request_state: Any, now: float, **changes: Any) -> tuple[str, Any]:
    """('accept', plaintext) or ('reject', log reason) from the SDK's inbound check
    (memoized: the same questions come from each elicit side)."""
    key = repr((sc.name, request_state, now, sorted(changes.items(), key=lambda kv: kv[0])))
    if key not in _SDK_VERDICTS:
        _SDK_VERDICTS[key] = _sdk_verdict(sc, request_state, now, **changes)
    return _SDK_VERDICTS[key]


def _sdk_verdict(sc: Scenario, request_state: Any, now: float, **changes: Any) -> tuple[str, Any]:
    _clock[0] = now
    keys = changes.get("keys", sc.keys)
    audience = changes.get("audience", sc.audience)
    principal = changes.get("principal", sc.principal)
    b = boundary(keys, audience, sc.ttl, principal)
    REASONS.last = None
    try:
        plaintext, _binding = b._unseal(sc.ctx(request_state, **changes))
        return ("accept", plaintext)
    except MCPError as exc:
        wire = {"code": exc.code, "message": exc.message, "data": exc.data}
        if wire != FROZEN:
            return ("bad-wire", wire)
        return ("reject", REASONS.last)


# --------------------------------------------------------------------------------------
# The Rust side (batched)


class Rust:
    def __init__(self, cli: str) -> None:
        self.cli = cli

    def run(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        text = "".join(json.dumps(r) + "\n" for r in requests)
        proc = subprocess.run([self.cli], input=text, capture_output=True, text=True, check=False)
        lines = proc.stdout.splitlines()
        if proc.returncode != 0 or len(lines) != len(requests):
            raise RuntimeError(f"seal_cli failed ({proc.returncode}): {proc.stderr[:2000]} {proc.stdout[:2000]}")
        return [json.loads(line) for line in lines]


def rust_request(sc: Scenario, op: str, now: float, **changes: Any) -> dict[str, Any]:
    keys = changes.get("keys", sc.rust_keys if sc.rust_keys is not None else sc.keys)
    return {
        "op": op,
        "keys": [_secret(k).hex() for k in keys],
        "audience": changes.get("audience", sc.audience),
        "ttl": sc.ttl,
        "method": changes.get("method", sc.method),
        "params": changes.get("params", sc.params),
        "principal": changes.get("principal", sc.principal),
        "now": now,
    }


def rust_seal_req(sc: Scenario, *, nonce: bytes | None = None, salt: bytes | None = None) -> dict[str, Any]:
    req = rust_request(sc, "seal", sc.now)
    req["state"] = sc.state
    if nonce is not None:
        req["nonce"] = nonce.hex()
    if salt is not None:
        req["salt"] = salt.hex()
    return req


def rust_unseal_req(sc: Scenario, request_state: Any, now: float, **changes: Any) -> dict[str, Any]:
    req = rust_request(sc, "unseal", now, **changes)
    req["params"] = dict(req["params"])
    req["params"]["requestState"] = request_state
    return req


def rust_verdict(answer: dict[str, Any]) -> tuple[str, Any]:
    if "error" in answer:
        return ("error", answer["error"])
    if answer["ok"]:
        return ("accept", answer["state"])
    wire = {"code": answer["code"], "message": answer["message"], "data": answer["data"]}
    if wire != FROZEN:
        return ("bad-wire", wire)
    return ("reject", answer["reason"])


class CAbi:
    """tests/interop/seal/seal_c.c: the same requests over a tab-separated hex protocol
    (the C side has no JSON parser), answers mapped back to seal_cli's form."""

    def __init__(self, exe: str) -> None:
        self.exe = exe

    @staticmethod
    def _hex(text: str | None) -> str:
        return "-" if text is None else text.encode("utf-8").hex()

    def run(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        lines = []
        for r in requests:
            random = None
            if r.get("nonce") is not None:
                random = r["nonce"] + r["salt"]
            lines.append("\t".join([
                r["op"], ",".join(r["keys"]), self._hex(r["audience"]), repr(float(r["ttl"])),
                self._hex(r["method"]), self._hex(json.dumps(r["params"])), self._hex(r["principal"]),
                repr(float(r["now"])), random or "-", self._hex(r.get("state")),
            ]))
        proc = subprocess.run([self.exe], input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
        out = proc.stdout.splitlines()
        if proc.returncode != 0 or len(out) != len(requests):
            raise RuntimeError(f"seal_c failed ({proc.returncode}): {proc.stderr[:2000]} {proc.stdout[:2000]}")
        answers: list[dict[str, Any]] = []
        for line in out:
            kind, _, rest = line.partition(" ")
            if kind == "token":
                answers.append({"token": rest})
            elif kind == "state":
                answers.append({"ok": True, "state": bytes.fromhex(rest).decode("utf-8")})
            elif kind == "none":
                answers.append({"ok": True, "state": None})
            elif kind == "reject":
                reason, _, wire = rest.partition("\t")
                answers.append({"ok": False, "reason": reason, **json.loads(wire)})
            else:
                answers.append({"error": rest})
        return answers


class PyPackage:
    """The `elicit` Python package's Sealer (ctypes over the C ABI), in this process."""

    def __init__(self) -> None:
        import elicit_mcp

        self.elicit = elicit_mcp

    def one(self, r: dict[str, Any]) -> dict[str, Any]:
        e = self.elicit
        sealer = e.Sealer([bytes.fromhex(k) for k in r["keys"]], r["audience"], ttl=r["ttl"])
        if r["op"] == "seal":
            random = None if r.get("nonce") is None else bytes.fromhex(r["nonce"] + r["salt"])
            token = sealer.seal(r["method"], r["params"], r["state"], principal=r["principal"], now=r["now"], random=random)
            return {"token": token}
        try:
            state = sealer.unseal(r["method"], r["params"], principal=r["principal"], now=r["now"])
            return {"ok": True, "state": state}
        except e.RequestStateError as err:
            return {"ok": False, "reason": err.reason, **err.error}

    def run(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for r in requests:
            try:
                out.append(self.one(r))
            except Exception as exc:  # a failure of the binding itself
                out.append({"error": repr(exc)})
        return out


# --------------------------------------------------------------------------------------
# Tampering


def b64u(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def b64u_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def text_flips(token: str) -> list[str]:
    """Every single-bit flip of every character of the token text."""
    out = []
    for i, ch in enumerate(token):
        for bit in range(8):
            out.append(token[:i] + chr(ord(ch) ^ (1 << bit)) + token[i + 1 :])
    return out


def body_flips(token: str) -> list[str]:
    """Every single-bit flip of the decoded body, re-encoded canonically."""
    raw = b64u_decode(token[3:])
    out = []
    for i in range(len(raw)):
        for bit in range(8):
            mutated = bytearray(raw)
            mutated[i] ^= 1 << bit
            out.append("v1." + b64u(bytes(mutated)))
    return out


# --------------------------------------------------------------------------------------
# Scenarios

OLD = bytes(range(32))
NEW = b"new rotation key, at least 32 bytes long"
UNI_KEY = "correct horse battery staple, 32+ bytes!"

SCENARIOS = [
    Scenario(
        "tools/call basic",
        keys=[OLD],
        audience="example-server",
        method="tools/call",
        params={"name": "book_table", "arguments": {"city": "Paris", "guests": 4}},
        state='{"v":3,"outcomes":{},"asked":{"party":"abc"}}',
        now=1780000000.0,
    ),
    Scenario(
        "principal, unicode, floats, key order",
        keys=[UNI_KEY],
        audience="svc-a",
        method="tools/call",
        params={
            "name": "deploy",
            "arguments": {
                "z": [1, 2.5, None, True, -0.0, 1e-07, 1e16, 12345678901234567890, 0.1],
                "b": 1,
                "a": {"y": "\u00e9", "b": False, "\U0001f600": "x", "\ue000": "pua", "B": "up", "a\u0000": "nul"},
                "M": "x\n\"q\"\u2028",
            },
        },
        principal='["client-\u00e9","https://issuer.example","user-\U0001f600"]',
        state="\u00e9tat \u2713 \U0001f600 \"quoted\"\n\x01\\",
        now=1780000123.456789,
    ),
    Scenario(
        "no audience, no arguments, ttl 30, empty state",
        keys=[b"\xff" * 48],
        audience=None,
        method="tools/call",
        params={"name": "noargs"},
        state="",
        now=1700000000.5,
        ttl=30.0,
    ),
    Scenario(
        "prompts/get",
        keys=[OLD],
        audience="prompt-server",
        method="prompts/get",
        params={"name": "greet", "arguments": {"who": "world", "lang": "fr"}},
        state="round 2",
        now=1780000500.25,
        principal='["client-1",null,null]',
    ),
    Scenario(
        "resources/read",
        keys=[OLD],
        audience="res-server",
        method="resources/read",
        params={"uri": "file:///tmp/r\u00e9sum\u00e9.txt"},
        state="{}",
        now=1780000999.0,
    ),
    Scenario(
        "rotation: SDK [old,new] vs ours [new,old]",
        keys=[OLD, NEW],
        rust_keys=[NEW, OLD],
        audience="example-server",
        method="tools/call",
        params={"name": "book_table", "arguments": {"city": "Paris"}},
        state="rotating",
        now=1780002000.0,
    ),
]


def negative_cases(sc: Scenario) -> list[tuple[str, float, dict[str, Any]]]:
    """(label, verifier clock, changes) that must be rejected."""
    later = sc.now + 1.0
    target_key = "uri" if sc.method == "resources/read" else "name"
    other_params = dict(sc.params)
    other_params[target_key] = str(sc.params.get(target_key, "")) + "-other"
    cases = [
        ("other target", later, {"params": other_params}),
        ("other method", later, {"method": "prompts/get" if sc.method != "prompts/get" else "tools/call"}),
        ("other audience", later, {"audience": (sc.audience or "") + "-other"}),
        ("expired (now == exp)", sc.now + sc.ttl, {}),
        ("future (iat = now + 61)", sc.now - 61.0, {}),
        ("unknown key", later, {"keys": [b"k" * 32]}),
    ]
    if sc.method != "resources/read":
        args = dict(sc.params.get("arguments") or {})
        args["zz-extra"] = 1
        cases.append(("other arguments", later, {"params": {**sc.params, "arguments": args}}))
    if sc.audience is not None:
        cases.append(("audience dropped", later, {"audience": None}))
    if sc.principal is None:
        cases.append(("principal appears", later, {"principal": '["intruder",null,null]'}))
    else:
        cases.append(("principal drops", later, {"principal": None}))
        cases.append(("other principal", later, {"principal": sc.principal + " "}))
    return cases


# --------------------------------------------------------------------------------------


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    print(f"mcp {importlib.metadata.version('mcp')} from {rs.__file__}")
    check("SDK under test is mcp 2.3.0", importlib.metadata.version("mcp") == "2.3.0", importlib.metadata.version("mcp"))
    sides: list[tuple[str, Any]] = [("Rust", Rust(sys.argv[1]))]
    if len(sys.argv) == 3:
        sides.append(("C ABI", CAbi(sys.argv[2])))
    try:
        sides.append(("Python", PyPackage()))
    except ImportError as exc:
        check("the elicit Python package imports (PYTHONPATH=python)", False, exc)
    for name, side in sides:
        print(f"== elicit side: {name}")
        check_side(name, side)
    return 1 if FAILED else 0


def check_side(side_name: str, rust: Any) -> None:
    for sc in SCENARIOS:
        tag = f"[{side_name}: {sc.name}]"
        later = sc.now + 1.0
        nonce, salt = bytes(range(100, 112)), bytes(range(200, 208))

        # Ours seals (fresh random nonce), and ours seals deterministically.
        ours_random, ours_fixed = rust.run([rust_seal_req(sc), rust_seal_req(sc, nonce=nonce, salt=salt)])
        t_rust = ours_random["token"]
        check(f"{tag} SDK accepts our token", sdk_verdict(sc, t_rust, later) == ("accept", sc.state), sdk_verdict(sc, t_rust, later))

        # The SDK seals; ours accepts.
        t_sdk = sdk_seal(sc)
        got = rust_verdict(rust.run([rust_unseal_req(sc, t_sdk, later)])[0])
        check(f"{tag} we accept the SDK's token", got == ("accept", sc.state), got)

        # Same clock and random bytes: the same token, byte for byte.
        if sc.rust_keys is None or _secret(sc.rust_keys[0]) == _secret(sc.keys[0]):
            t_sdk_fixed = sdk_seal(sc, nonce=nonce, salt=salt)
            check(f"{tag} identical token from identical inputs", ours_fixed.get("token") == t_sdk_fixed,
                  (ours_fixed, t_sdk_fixed))
        else:
            # Rotation: each side seals with its own first key, the other still verifies.
            kid = lambda t: b64u_decode(t[3:])[:4]  # noqa: E731
            check(f"{tag} SDK seals with its first key, we with ours",
                  kid(t_sdk) != kid(t_rust), (kid(t_sdk).hex(), kid(t_rust).hex()))
            only_new = rust_verdict(rust.run([rust_unseal_req(sc, t_sdk, later, keys=[NEW])])[0])
            check(f"{tag} ring [new] rejects the old key's token", only_new == ("reject", "unknown key")
                  and sdk_verdict(sc, t_sdk, later, keys=[NEW]) == ("reject", "unknown key"), only_new)

        # Every single-bit flip, of the text and of the decoded bytes, both tokens.
        for origin, token in (("our", t_rust), ("the SDK's", t_sdk)):
            for kind, flips in (("text", text_flips(token)), ("body", body_flips(token))):
                answers = rust.run([rust_unseal_req(sc, f, later) for f in flips])
                bad = []
                for f, answer in zip(flips, answers):
                    ours = rust_verdict(answer)
                    theirs = sdk_verdict(sc, f, later)
                    if ours[0] != "reject" or ours != theirs:
                        bad.append((f, ours, theirs))
                check(f"{tag} {len(flips)} {kind} bit flips of {origin} token rejected by both, same reason",
                      not bad, bad[:3])

        # Binding, audience, principal and clock mismatches: same verdict and reason.
        for origin, token in (("our", t_rust), ("the SDK's", t_sdk)):
            cases = negative_cases(sc)
            answers = rust.run([rust_unseal_req(sc, token, now, **ch) for _, now, ch in cases])
            for (label, now, changes), answer in zip(cases, answers):
                ours = rust_verdict(answer)
                theirs = sdk_verdict(sc, token, now, **changes)
                check(f"{tag} {label} on {origin} token: both reject ({theirs[1]})",
                      ours[0] == "reject" and ours == theirs, (ours, theirs))
            # Edges that accept: just before expiry, iat exactly now + 60.
            edges = [sc.now + sc.ttl - 0.001, sc.now - 60.0]
            answers = rust.run([rust_unseal_req(sc, token, now) for now in edges])
            for now, answer in zip(edges, answers):
                ours, theirs = rust_verdict(answer), sdk_verdict(sc, token, now)
                check(f"{tag} clock edge now={now!r} on {origin} token: both accept",
                      ours == theirs == ("accept", sc.state), (ours, theirs))

    # Wire-level oddities: non-string and empty states, padding, missing prefix.
    sc = SCENARIOS[0]
    token = sdk_seal(sc)
    oddities = [
        ("non-string state", 12345),
        ("empty string state", ""),
        ("padded token", token + "=" * (-len(token[3:]) % 4 or 4)),
        ("missing prefix", token[3:]),
        ("v2 prefix", "v2." + token[3:]),
        ("short body", "v1." + b64u(bytes(31))),
    ]
    answers = rust.run([rust_unseal_req(sc, value, sc.now + 1) for _, value in oddities])
    for (label, value), answer in zip(oddities, answers):
        ours, theirs = rust_verdict(answer), sdk_verdict(sc, value, sc.now + 1)
        check(f"[{side_name}: wire] {label}: both reject ({theirs[1]})", ours[0] == "reject" and ours == theirs, (ours, theirs))



if __name__ == "__main__":
    try:
        status = main()
    except Exception as exc:  # an unexpected crash is a failure, and still gets a summary line
        import traceback

        traceback.print_exc()
        check("interop run completed", False, repr(exc))
        status = 1
    if FAILED and status == 0:
        status = 1
    if status != 2:
        print(f"{PASSED} passed, {FAILED} failed")
    sys.exit(status)
