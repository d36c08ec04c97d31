"""Sealed ``requestState``: :class:`KeyRing` and :class:`Sealer` over the C ABI.

Tokens are the MCP Python SDK's (mcp 2.3.0, ``RequestStateBoundary`` over
``AESGCMRequestStateCodec``) byte for byte: AES-256-GCM under HKDF-derived keys, claims
for expiry, the request binding (method, tool or prompt name or resource URI, arguments
digest), audience and principal. An elicit server and an SDK server sharing the keys and
the audience accept each other's tokens.
"""

from __future__ import annotations

import json
import os
import threading
import time
from ctypes import POINTER, byref, c_bool, c_char, c_char_p, c_size_t, string_at
from typing import Any, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _ffi
from ._calls import OK as _OK
from ._calls import Buffer, call_reporting, json_input, wire_value
from .constants import DEFAULT_TTL_SECS, MAX_KEYS, MAX_KEY_LEN, MIN_KEY_LEN, SEAL_RANDOM_LEN, Result
from .errors import ClosedError, RequestStateError, error_for

__all__ = ["KeyRing", "Sealer", "parse_keys"]

_REJECTED = int(Result.ERR_REQUEST_STATE)

#: A key: bytes of secret randomness (``str`` keys are refused: text invites weak keys).
Key = Union[bytes, bytearray]
#: Request params: a mapping, the SDK's params model, or raw JSON text.
Params = Union[Mapping[str, Any], str, bytes, Any]

#: The environment variable the house's servers read their key ring from.
STATE_KEYS_ENV = "ELICIT_STATE_KEYS"


def _key_bytes(key: Key, i: int) -> bytes:
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    if isinstance(key, str):
        raise TypeError(
            f"keys[{i}] is a str; a key is bytes of secret randomness (os.urandom(32), "
            "bytes.fromhex(...)), or use KeyRing.from_env / KeyRing.from_file"
        )
    raise TypeError(f"keys[{i}] is a {type(key).__name__}; a key is bytes")


def parse_keys(text: str, source: str) -> List[bytes]:
    """Parse a key ring in ``ELICIT_STATE_KEYS``'s form: comma-separated hex keys,
    whitespace around each ignored; the first seals, every key opens; each key
    :data:`~elicit_mcp.MIN_KEY_LEN` to :data:`~elicit_mcp.MAX_KEY_LEN` bytes (64 to 256
    hex digits); 1 to :data:`~elicit_mcp.MAX_KEYS` keys.

    ``source`` names where the text came from (``"ELICIT_STATE_KEYS"``, a file's path)
    in every error (``ValueError``), which never quotes a key.
    """
    parts = [p.strip() for p in text.split(",")]
    if parts == [""]:
        raise ValueError(f"{source}: no key; give 1 to {MAX_KEYS} comma-separated hex keys")
    if len(parts) > MAX_KEYS:
        raise ValueError(
            f"{source}: {len(parts)} keys given, at most {MAX_KEYS} are kept; drop retired ones"
        )
    keys: List[bytes] = []
    for i, part in enumerate(parts):
        if not part:
            raise ValueError(f"{source}: key {i} is empty")
        if len(part) % 2:
            raise ValueError(f"{source}: key {i} has an odd number of hex digits")
        try:
            key = bytes.fromhex(part)
        except ValueError:
            raise ValueError(f"{source}: key {i} is not hex") from None
        if not MIN_KEY_LEN <= len(key) <= MAX_KEY_LEN:
            raise ValueError(
                f"{source}: key {i} is {len(key)} bytes; a key is {MIN_KEY_LEN} to {MAX_KEY_LEN} "
                f"bytes ({2 * MIN_KEY_LEN} to {2 * MAX_KEY_LEN} hex digits). Make one with: "
                'python -c "import secrets; print(secrets.token_hex(32))"'
            )
        keys.append(key)
    return keys


def _params_bytes(params: Params) -> bytes:
    params = wire_value(params)
    keys: Any = params
    if isinstance(params, (str, bytes, bytearray, memoryview)):
        # JSON text (model_dump_json() without by_alias=True writes snake_case keys): read
        # its top-level keys for the same check; text that is not JSON is the library's to refuse.
        try:
            keys = json.loads(bytes(params) if not isinstance(params, str) else params)
        except ValueError:
            keys = None
    if isinstance(keys, Mapping) and "request_state" in keys and "requestState" not in keys:
        raise ValueError(
            "params: has 'request_state' but no 'requestState' (a model dumped without "
            "by_alias=True?); pass the SDK's params model itself, or its "
            "model_dump(by_alias=True) / model_dump_json(by_alias=True)"
        )
    return json_input(params, "params")


def _detail(ptr: c_char_p) -> str:
    return ptr.value.decode("utf-8", "replace") if ptr.value else ""


_O = TypeVar("_O", bound="_Owned")


class _Owned:
    """The lifetime of one C handle, shared by :class:`KeyRing` and :class:`Sealer`:
    ``close`` (idempotent, thread-safe, calls the class's ``_free`` function), ``closed``,
    the ``with`` protocol and freeing on garbage collection."""

    #: What the handle is, for :class:`~elicit_mcp.ClosedError`.
    _what = "handle"
    #: The C ABI function that frees the handle.
    _free = ""
    _lib: _ffi.Lib
    _handle: Optional[Any]
    _lock: threading.Lock

    def _live(self) -> Any:
        h = self._handle
        if h is None:
            raise ClosedError(self._what)
        return h

    def close(self) -> None:
        """Free the handle (idempotent); a key ring wipes its copy of the keys."""
        with self._lock:
            h, self._handle = self._handle, None
        if h is not None:
            getattr(self._lib, self._free)(h)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._handle is None

    def __enter__(self: _O) -> _O:
        self._live()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass


class KeyRing(_Owned):
    """A rotation ring of sealing keys (``elicit_key_ring``): ``keys[0]`` seals, every
    key unseals. Each key is ``bytes``, 32 to 128 bytes of secret randomness; 1 to 8
    keys, none twice. ``str`` keys are refused (a deliberate break from the MCP Python
    SDK, which takes text: text keys invite weak ones); tokens stay the SDK's.

    Keys come from :meth:`from_env` (``ELICIT_STATE_KEYS``, the variable every elicit
    server reads) or :meth:`from_file`, or as bytes (``os.urandom(32)``).

    Rotation, each phase rolled out to every replica before the next: seal with OLD and
    open NEW (``[old, new]``), then seal with NEW and open OLD (``[new, old]``), then,
    one token lifetime later, drop OLD (``[new]``).

    Raises ``TypeError`` for a key that is not bytes and
    :class:`~elicit_mcp.UsageError` (``ELICIT_ERR_INVALID_ARGUMENT``) naming the key at
    fault. The ring copies the keys; :class:`Sealer` copies them again, so close the
    ring (or leave its ``with`` block) once the sealers exist: its copy is wiped then.
    """

    _what = "key ring"
    _free = "elicit_key_ring_free"

    def __init__(self, keys: Sequence[Key]) -> None:
        self._lib = _ffi.load()
        if isinstance(keys, (bytes, bytearray, str)):
            raise TypeError("keys: pass a list of keys (bytes), not one key")
        secrets = [_key_bytes(k, i) for i, k in enumerate(keys)]
        ptrs = (c_char_p * max(1, len(secrets)))(*secrets)
        lens = (c_size_t * max(1, len(secrets)))(*[len(s) for s in secrets])
        handle = POINTER(_ffi.ElicitKeyRing)()
        call_reporting(self._lib.elicit_key_ring_new, ptrs, lens, len(secrets), byref(handle))
        self._handle: Optional[Any] = handle
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, variable: str = STATE_KEYS_ENV) -> "KeyRing":
        """The ring in environment variable ``variable`` (default ``ELICIT_STATE_KEYS``):
        comma-separated hex keys (see :func:`parse_keys`). An unset or empty variable,
        a short key or too many keys is a ``ValueError`` naming the variable."""
        text = os.environ.get(variable)
        if text is None or not text.strip():
            raise ValueError(
                f"{variable} is not set; give 1 to {MAX_KEYS} comma-separated hex keys of "
                f"{MIN_KEY_LEN} to {MAX_KEY_LEN} bytes (python -c \"import secrets; "
                'print(secrets.token_hex(32))")'
            )
        return cls(parse_keys(text, variable))

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "KeyRing":
        """The ring in file ``path``, holding the same text as ``ELICIT_STATE_KEYS``
        (a trailing newline is fine). Errors name the file."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return cls(parse_keys(text, os.fspath(path)))

    def __repr__(self) -> str:
        return f"<elicit_mcp.KeyRing {'closed' if self.closed else 'open'}>"


class Sealer(_Owned):
    """Seals and verifies ``requestState`` (``elicit_sealer``): immutable, thread-safe.

    ``ring`` is a :class:`KeyRing` (or its keys); ``audience`` the service identity every
    token is bound to (the server name, as FastMCP and the SDK's ``MCPServer`` use;
    ``None`` for none); ``ttl`` the token lifetime in seconds (the SDK's 600 by default).
    """

    _what = "sealer"
    _free = "elicit_sealer_free"

    def __init__(
        self,
        ring: Union[KeyRing, Sequence[Key]],
        audience: Optional[str],
        ttl: float = float(DEFAULT_TTL_SECS),
    ) -> None:
        self._lib = _ffi.load()
        own = not isinstance(ring, KeyRing)
        key_ring = KeyRing(ring) if not isinstance(ring, KeyRing) else ring
        try:
            aud = None if audience is None else audience.encode("utf-8")
            handle = POINTER(_ffi.ElicitSealer)()
            call_reporting(
                self._lib.elicit_sealer_new,
                key_ring._live(),
                aud,
                0 if aud is None else len(aud),
                float(ttl),
                byref(handle),
            )
        finally:
            if own:
                key_ring.close()
        self._handle: Optional[Any] = handle
        self._lock = threading.Lock()
        self.audience = audience
        """The audience tokens are bound to (``None``: none)."""
        self.ttl = float(ttl)
        """The token lifetime in seconds."""

    def __repr__(self) -> str:
        return f"<elicit_mcp.Sealer audience={self.audience!r} {'closed' if self.closed else 'open'}>"

    def seal(
        self,
        method: str,
        params: Params,
        state: str,
        *,
        principal: Optional[str] = None,
        now: Optional[float] = None,
        random: Optional[bytes] = None,
    ) -> str:
        """Seal the round's plaintext ``state`` into a token for the request it answers.

        ``method`` is the JSON-RPC method (``"tools/call"``); ``params`` the request's
        params as received (``name`` and ``arguments`` are bound, ``uri`` for
        ``resources/read``); ``principal`` the authenticated principal (``None`` when
        unauthenticated); ``now`` Unix seconds (default ``time.time()``); ``random``
        :data:`~elicit_mcp.SEAL_RANDOM_LEN` bytes (default ``os.urandom``), the nonce then
        the principal salt.
        """
        m = method.encode("utf-8")
        p = _params_bytes(params)
        pr = None if principal is None else principal.encode("utf-8")
        s = state.encode("utf-8")
        rnd = os.urandom(SEAL_RANDOM_LEN) if random is None else bytes(random)
        t = time.time() if now is None else float(now)
        detail = c_char_p()
        h = self._live()
        request = _ffi.texts(_ffi.ElicitRequest, method=m, params=p, principal=pr, now=t, random=rnd)
        # A token is about 4/3 of the state plus the claims: one read fits nearly always.
        out = Buffer(256 + 2 * (len(s) + len(p)))
        token = out.read(
            lambda buf, cap, out_len: self._lib.elicit_sealer_seal(
                h, byref(request), s, len(s), buf, cap, out_len, byref(detail)
            ),
            lambda rc: error_for(rc, _detail(detail)),
        )
        return token.decode("ascii")

    def unseal(
        self,
        method: str,
        params: Params,
        *,
        principal: Optional[str] = None,
        now: Optional[float] = None,
    ) -> Optional[str]:
        """Verify ``params["requestState"]``: ``None`` when the request carries no state
        (a first round), else the plaintext state for :meth:`Plan.modern`. ``params``
        is the request's params as received: the SDK's params model, a mapping keyed as
        on the wire, or JSON text; a mapping with ``request_state`` but no
        ``requestState`` (a model dumped without ``by_alias=True``) is a ``ValueError``,
        never a silent first round.

        Raises :class:`~elicit_mcp.RequestStateError` when the token does not verify
        (answer with ``e.error``, the SDK's frozen JSON-RPC error; ``e.reason`` is for
        the log only).
        """
        m = method.encode("utf-8")
        p = _params_bytes(params)
        pr = None if principal is None else principal.encode("utf-8")
        t = time.time() if now is None else float(now)
        # The params' length always suffices for the state they carry.
        buf = (c_char * max(1, len(p)))()
        out_len = c_size_t(0)
        has_state = c_bool(False)
        detail = c_char_p()
        request = _ffi.texts(_ffi.ElicitRequest, method=m, params=p, principal=pr, now=t)
        rc = int(
            self._lib.elicit_sealer_unseal(
                self._live(), byref(request), byref(has_state), buf, len(p), byref(out_len), byref(detail)
            )
        )
        if rc == _REJECTED:
            raise RequestStateError(_detail(detail))
        if rc != _OK:
            raise error_for(rc, _detail(detail))
        if not has_state.value:
            return None
        return string_at(buf, out_len.value).decode("utf-8")

