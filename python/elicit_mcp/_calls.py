"""Helpers shared by the handle classes (:class:`Plan`, :class:`Round`, :class:`KeyRing`,
:class:`Sealer`): the one way each of them calls a constructor that reports into a
message buffer, reads an output of any size, and turns a Python value (a mapping, a
pydantic model, JSON text) into the engine's JSON input."""

from __future__ import annotations

import json
from ctypes import byref, c_char, c_size_t, string_at
from typing import Any, Callable, Mapping, Union

from .constants import MESSAGE_CAP, Result
from .errors import ElicitError, error_for

__all__ = ["Buffer", "JsonText", "call_reporting", "dumps", "json_input", "text_input", "wire_value"]

#: Raw JSON text: ``str`` (encoded as UTF-8) or ``bytes`` (passed as they are).
JsonText = Union[str, bytes]
_TEXT_TYPES = (str, bytes, bytearray, memoryview)

OK = int(Result.OK)
TOO_SMALL = int(Result.ERR_BUFFER_TOO_SMALL)


def call_reporting(fn: Callable[..., Any], *args: Any) -> None:
    """Call a library function whose last three arguments are a message buffer
    (``err_buf, err_cap, err_len``), raising the error it reports."""
    err = (c_char * MESSAGE_CAP)()
    err_len = c_size_t(0)
    rc = int(fn(*args, err, MESSAGE_CAP, byref(err_len)))
    if rc != OK:
        n = min(int(err_len.value), MESSAGE_CAP)
        raise error_for(rc, string_at(err, n).decode("utf-8", "replace") if n else "")


class Buffer:
    """An output buffer that grows to fit: :meth:`read` calls a reader
    (``..., buf, cap, out_len``) and, when the output did not fit, grows the buffer
    to the size the library asked for and calls it again."""

    def __init__(self, size: int) -> None:
        self.cap = max(1, int(size))
        self.buf: Any = (c_char * self.cap)()

    def read(self, call: Callable[[Any, int, Any], Any], fail: Callable[[int], ElicitError]) -> bytes:
        """``call(buf, cap, byref(out_len))`` until the output fits; a code other than
        OK or too-small raises ``fail(code)``."""
        out_len = c_size_t(0)
        while True:
            rc = int(call(self.buf, self.cap, byref(out_len)))
            needed = int(out_len.value)
            if rc == OK and needed <= self.cap:
                return string_at(self.buf, needed) if needed else b""
            if rc != OK and rc != TOO_SMALL:
                raise fail(rc)
            self.cap = max(needed, 2 * self.cap)
            self.buf = (c_char * self.cap)()


def dumps(value: Any) -> bytes:
    """A Python value as the engine's input: compact UTF-8 JSON, non-ASCII kept.

    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``; NaN and the
    infinities are refused (``ValueError``: they are not JSON). A string holding a lone
    surrogate has no UTF-8 form, so such a value is sent ASCII-escaped instead (the
    same JSON value).
    """
    try:
        text = json.dumps(
            value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_nested
        )
        return text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(
            value, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=_nested
        )
        return text.encode("ascii")


def _nested(value: Any) -> Any:
    """``json.dumps``'s fallback: a pydantic model inside a mapping or list is dumped as
    the SDK sends it; anything else is not JSON."""
    dumped = wire_value(value)
    if dumped is value:
        raise TypeError(f"a {type(value).__name__} is not JSON (pass JSON values or pydantic models)")
    return dumped


def text_input(raw: Union[JsonText, bytearray, memoryview], what: str = "the value") -> bytes:
    """JSON text given as ``str`` or ``bytes``, as bytes."""
    if isinstance(raw, str):
        return raw.encode("utf-8")
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    raise TypeError(f"{what}: expected JSON text as str or bytes, got {type(raw).__name__}")


def wire_value(value: Any) -> Any:
    """A pydantic model as the SDK puts it on the wire (``model_dump(mode="json",
    by_alias=True, exclude_none=True)``: camelCase keys such as ``requestState``);
    anything else as it is."""
    dump = getattr(value, "model_dump", None)
    if dump is not None and callable(dump) and not isinstance(value, type):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return value


def json_input(value: Union[Mapping[str, Any], JsonText, Any], what: str) -> bytes:
    """An object input: a mapping (serialized with :func:`dumps`), a pydantic model
    (dumped as the SDK sends it: by alias, ``None`` fields left out), or JSON text.

    Anything else is a ``TypeError`` naming ``what`` and what to pass instead.
    """
    value = wire_value(value)
    if isinstance(value, Mapping):
        return dumps(value)
    if isinstance(value, _TEXT_TYPES):
        return text_input(value, what)
    raise TypeError(
        f"{what}: expected a mapping, a pydantic model or JSON text (str or bytes), "
        f"got {type(value).__name__}"
    )
