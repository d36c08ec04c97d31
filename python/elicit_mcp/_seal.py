"""Sealed ``requestState``: :class:`KeyRing` and :class:`Sealer` over the C ABI.

Tokens are the MCP Python SDK's (mcp 2.3.0, ``RequestStateBoundary`` over
``AESGCMRequestStateCodec``) byte for byte: AES-256-GCM under HKDF-derived keys, claims
for expiry, the request binding (method, tool or prompt name or resource URI, arguments
digest), audience and principal. An elicit server and an SDK server sharing the keys and
the audience accept each other's tokens.
"""

from __future__ import annotations

import os
import threading
import time
from ctypes import POINTER, byref, c_bool, c_char_p, c_size_t, c_uint8, string_at
from typing import Any, Mapping, Optional, Sequence, TypeVar, Union

from . import _ffi
from .constants import DEFAULT_TTL_SECS, MESSAGE_CAP, SEAL_RANDOM_LEN, Result
from .errors import ClosedError, RequestStateError, error_for

__all__ = ["KeyRing", "Sealer"]

_OK = int(Result.OK)
_TOO_SMALL = int(Result.ERR_BUFFER_TOO_SMALL)
_REJECTED = int(Result.ERR_REQUEST_STATE)

#: A key: bytes as they are, or text (its UTF-8 bytes, as the SDK takes a ``str`` key).
Key = Union[bytes, bytearray, str]
#: Request params: a mapping (serialized compactly) or raw JSON text.
Params = Union[Mapping[str, Any], str, bytes]


def _key_bytes(key: Key) -> bytes:
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    raise TypeError(f"a key is bytes or str, got {type(key).__name__}")


def _params_bytes(params: Params) -> bytes:
    from ._engine import _object_or_text

    return _object_or_text(params)


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
    key unseals. Each key is at least 32 bytes of secret randomness (``bytes``, or
    ``str`` taken as UTF-8 as the SDK does); at most 8 keys, none twice.

    Raises :class:`~elicit_mcp.UsageError` (``ELICIT_ERR_INVALID_ARGUMENT``) naming the key
    at fault. The ring copies the keys; :class:`Sealer` copies them again, so close the
    ring (or leave its ``with`` block) once the sealers exist: its copy is wiped then.
    """

    _what = "key ring"
    _free = "elicit_key_ring_free"

    def __init__(self, keys: Sequence[Key]) -> None:
        self._lib = _ffi.load()
        secrets = [_key_bytes(k) for k in keys]
        ptrs = (c_char_p * max(1, len(secrets)))(*secrets)
        lens = (c_size_t * max(1, len(secrets)))(*[len(s) for s in secrets])
        handle = POINTER(_ffi.ElicitKeyRing)()
        err = (c_uint8 * MESSAGE_CAP)()
        err_len = c_size_t(0)
        rc = int(
            self._lib.elicit_key_ring_new(
                ptrs, lens, len(secrets), byref(handle), err, MESSAGE_CAP, byref(err_len)
            )
        )
        if rc != _OK:
            raise error_for(rc, string_at(err, err_len.value).decode("utf-8", "replace"))
        self._handle: Optional[Any] = handle
        self._lock = threading.Lock()

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
            err = (c_uint8 * MESSAGE_CAP)()
            err_len = c_size_t(0)
            rc = int(
                self._lib.elicit_sealer_new(
                    key_ring._live(),
                    aud,
                    0 if aud is None else len(aud),
                    float(ttl),
                    byref(handle),
                    err,
                    MESSAGE_CAP,
                    byref(err_len),
                )
            )
            if rc != _OK:
                raise error_for(rc, string_at(err, err_len.value).decode("utf-8", "replace"))
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
        cap = 0
        buf: Any = None
        out_len = c_size_t(0)
        detail = c_char_p()
        h = self._live()
        while True:
            rc = int(
                self._lib.elicit_sealer_seal(
                    h, m, len(m), p, len(p), pr, 0 if pr is None else len(pr), t, rnd, len(rnd),
                    s, len(s), buf, cap, byref(out_len), byref(detail),
                )
            )
            needed = int(out_len.value)
            if rc == _OK and buf is not None:
                return string_at(buf, needed).decode("ascii")
            if rc != _OK and rc != _TOO_SMALL:
                raise error_for(rc, _detail(detail))
            cap = needed
            buf = (c_uint8 * max(1, cap))()

    def unseal(
        self,
        method: str,
        params: Params,
        *,
        principal: Optional[str] = None,
        now: Optional[float] = None,
    ) -> Optional[str]:
        """Verify ``params["requestState"]``: ``None`` when the request carries no state
        (a first round), else the plaintext state for :meth:`Plan.modern`.

        Raises :class:`~elicit_mcp.RequestStateError` when the token does not verify
        (answer with ``e.error``, the SDK's frozen JSON-RPC error; ``e.reason`` is for
        the log only).
        """
        m = method.encode("utf-8")
        p = _params_bytes(params)
        pr = None if principal is None else principal.encode("utf-8")
        t = time.time() if now is None else float(now)
        # The params' length always suffices for the state they carry.
        buf = (c_uint8 * max(1, len(p)))()
        out_len = c_size_t(0)
        has_state = c_bool(False)
        detail = c_char_p()
        rc = int(
            self._lib.elicit_sealer_unseal(
                self._live(), m, len(m), p, len(p), pr, 0 if pr is None else len(pr), t,
                byref(has_state), buf, len(p), byref(out_len), byref(detail),
            )
        )
        if rc == _REJECTED:
            raise RequestStateError(_detail(detail))
        if rc != _OK:
            raise error_for(rc, _detail(detail))
        if not has_state.value:
            return None
        return string_at(buf, out_len.value).decode("utf-8")

