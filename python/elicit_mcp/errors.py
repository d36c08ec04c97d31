"""Exceptions: one class per group of ``elicit_result`` codes.

==========  ===============================  =========  ================================
codes       class                            JSON-RPC   meaning
==========  ===============================  =========  ================================
``1xx``     :class:`UsageError`              -32603     the host broke the calling contract
``2xx``     :class:`DeclarationError`        -32603     the declaration was rejected
``300-303`` :class:`CallInputError`          -32602     the call's inputs are invalid
``304``     :class:`MissingCapabilityError`  -32021     the client lacks a capability the
                                                        call needs (``requiredCapabilities``)
``4xx``     :class:`ResolutionError`         -32602     the call fails with ``message``
                                                        (a tool answers an ``isError`` result)
``9xx``     :class:`InternalError`           -32603     a panic in the library, or an
                                                        unknown code
==========  ===============================  =========  ================================

Every exception carries ``code`` (the number), ``code_name`` (``"ELICIT_ERR_..."``),
``message`` (worded for Python: for a :class:`ResolutionError` it is the text the tool
call fails with) and :attr:`~ElicitError.jsonrpc_error`, the JSON-RPC ``error`` object to
answer the request with. A :class:`RequestStateError` answers with the MCP Python SDK's
frozen object; the 1xx, 2xx and 9xx groups are server bugs, answered as
``-32603 "Internal error"`` (their message is for the server's log).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Type, Union

from .constants import (
    INTERNAL_ERROR_CODE,
    INVALID_PARAMS_CODE,
    MISSING_CAPABILITY_ERROR_CODE,
    REQUEST_STATE_ERROR_JSON,
    REQUEST_STATE_ERROR_MESSAGE,
    Result,
)

__all__ = [
    "CallInputError",
    "ClosedError",
    "DeclarationError",
    "ElicitError",
    "InputResponsesError",
    "InternalError",
    "MissingCapabilityError",
    "NotFoundError",
    "RequestStateError",
    "ResolutionError",
    "UsageError",
    "WrongStepError",
    "WrongTypeError",
    "code_name",
    "error_for",
]


def code_name(code: int) -> str:
    """The code's name alone, as ``elicit_result_name`` gives it: ``"ELICIT_ERR_NULL"``
    for 100, ``"ELICIT_OK"`` for 0, ``"ELICIT_ERR_UNKNOWN"`` for a code this version does
    not know (a test keeps it equal to the library's)."""
    try:
        return "ELICIT_" + Result(code).name
    except ValueError:
        return "ELICIT_ERR_UNKNOWN"


class ElicitError(Exception):
    """Base of every error the engine reports."""

    code: int
    code_name: str
    message: str
    #: The JSON-RPC error code this group answers with.
    jsonrpc_code: int = INTERNAL_ERROR_CODE

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.code_name = code_name(code)
        self.message = message
        super().__init__(code, message)

    @property
    def jsonrpc_error(self) -> Dict[str, Any]:
        """The JSON-RPC ``error`` object to answer the request with (a fresh dict).

        ``-32602`` with :attr:`message` for the call's own faults; a server bug (1xx,
        2xx, 9xx) is ``{"code": -32603, "message": "Internal error"}``: log
        :attr:`message`, never send it.
        """
        if self.jsonrpc_code == INTERNAL_ERROR_CODE:
            return {"code": INTERNAL_ERROR_CODE, "message": "Internal error"}
        return {"code": self.jsonrpc_code, "message": self.message}

    def __str__(self) -> str:
        text = self.message or "(no message)"
        return f"{text} [{self.code_name} {self.code}]"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class UsageError(ElicitError):
    """``1xx``: the host broke the calling contract (fix the host)."""


class WrongStepError(UsageError):
    """``ELICIT_ERR_WRONG_STEP`` (103): the call does not fit the round's current step
    (its message says in plain words what the round waits for and what it got)."""


class NotFoundError(UsageError, KeyError):
    """``ELICIT_ERR_NOT_FOUND`` (107): no parameter has that name."""

    def __str__(self) -> str:  # KeyError would quote the args tuple
        return ElicitError.__str__(self)


class WrongTypeError(UsageError, TypeError):
    """``ELICIT_ERR_WRONG_TYPE`` (110): a resolver input has another JSON type than the
    reader asked for (``Resolve.input_int`` on a string, ...)."""


class ClosedError(UsageError, ValueError):
    """The plan or round was closed: the binding refuses to touch a freed handle.

    Its ``code`` is ``ELICIT_ERR_NULL`` (a closed handle is a NULL one in the C ABI);
    ``str()`` says what was closed and what to do, without C names.
    """

    def __init__(self, what: str) -> None:
        super().__init__(
            int(Result.ERR_NULL),
            f"this {what} is closed; it cannot be used after close() or its `with` block: "
            f"make a new one",
        )

    def __str__(self) -> str:
        return self.message


class DeclarationError(ElicitError):
    """``2xx``: ``elicit_plan_new`` rejected the declaration (fix the declaration)."""


class CallInputError(ElicitError):
    """``300``-``303``: the call's inputs are invalid (arguments, ``inputResponses``,
    ``requestState``): JSON-RPC ``-32602``."""

    jsonrpc_code = INVALID_PARAMS_CODE


class InputResponsesError(CallInputError):
    """``ELICIT_ERR_INPUT_RESPONSES`` (302): answer with JSON-RPC error ``-32602``."""


class RequestStateError(CallInputError):
    """``ELICIT_ERR_REQUEST_STATE`` (303): the request's ``requestState`` did not verify.

    Answer the request with :attr:`error` (JSON-RPC ``-32602``, the MCP Python SDK's
    frozen message "Invalid or expired requestState"), whatever the reason;
    :attr:`reason` (``"expired"``, ``"unknown key"``, ``"request binding"``, ...) is for
    the server's log only.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(int(Result.ERR_REQUEST_STATE), REQUEST_STATE_ERROR_MESSAGE)
        self.reason = reason
        """Why the token was rejected (log it; never send it)."""

    @property
    def jsonrpc_error(self) -> Dict[str, Any]:
        """The JSON-RPC ``error`` object to answer with (the SDK's, byte for byte when
        serialized compactly)."""
        value: Dict[str, Any] = json.loads(REQUEST_STATE_ERROR_JSON)
        return value

    @property
    def error(self) -> Dict[str, Any]:
        """The same as :attr:`jsonrpc_error` (the older name)."""
        return self.jsonrpc_error

    def __reduce__(self) -> Any:
        return (type(self), (self.reason,))


class MissingCapabilityError(ElicitError):
    """``ELICIT_ERR_MISSING_CAPABILITY`` (304): the round needs a kind of request the
    client did not declare (URL-mode elicitation, sampling, roots, or form elicitation
    itself); nothing was shown to the client.

    Answer the request with :attr:`error`: JSON-RPC ``-32021`` (HTTP status 400), the
    message, and ``data.requiredCapabilities`` = :attr:`required_capabilities`, a
    ClientCapabilities object keyed by what is missing (e.g. ``{"sampling": {}}``).
    It is not a :class:`CallInputError`: ``except CallInputError`` (answering ``-32602``)
    does not catch it.
    """

    jsonrpc_code = MISSING_CAPABILITY_ERROR_CODE

    def __init__(
        self, code: int, message: str, required_capabilities: Optional[Dict[str, Any]] = None
    ) -> None:
        super().__init__(code, message)
        self.required_capabilities: Dict[str, Any] = dict(required_capabilities or {})
        """What the client must declare (``elicit_round_required_capabilities``)."""

    @property
    def jsonrpc_error(self) -> Dict[str, Any]:
        """The JSON-RPC ``error`` object to answer with (``-32021``, HTTP status 400)."""
        return {
            "code": self.jsonrpc_code,
            "message": self.message,
            "data": {"requiredCapabilities": dict(self.required_capabilities)},
        }

    @property
    def error(self) -> Dict[str, Any]:
        """The same as :attr:`jsonrpc_error` (the older name)."""
        return self.jsonrpc_error

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.message, self.required_capabilities))


class ResolutionError(ElicitError):
    """``4xx``: resolution failed; the tool call fails with :attr:`message` (a tool
    answers an ``isError`` result with it; ``prompts/get`` and ``resources/read``
    answer :attr:`jsonrpc_error`, ``-32602``).

    It is also how a resolver (or a tool body) fails on purpose:
    ``raise ResolutionError("no tables left")`` ends the call and the client reads
    the message (code ``ELICIT_ERR_RESOLVER_DEPENDENCY``, 405).
    ``ResolutionError(code, message)`` is the engine's own form.
    """

    jsonrpc_code = INVALID_PARAMS_CODE

    def __init__(self, code_or_message: Union[int, str], message: Optional[str] = None) -> None:
        if isinstance(code_or_message, str):
            if message is not None:
                raise TypeError(
                    "ResolutionError(message) or ResolutionError(code, message): got two texts"
                )
            super().__init__(int(Result.ERR_RESOLVER_DEPENDENCY), code_or_message)
        elif message is None:
            raise TypeError(
                f"ResolutionError({code_or_message!r}): give the message the client reads, "
                'as ResolutionError("no tables left")'
            )
        else:
            super().__init__(int(code_or_message), message)


class InternalError(ElicitError):
    """``9xx``: a panic inside the library (the handle is poisoned) or an unknown code."""


_SPECIFIC: Dict[int, Type[ElicitError]] = {
    int(Result.ERR_WRONG_STEP): WrongStepError,
    int(Result.ERR_NOT_FOUND): NotFoundError,
    int(Result.ERR_WRONG_TYPE): WrongTypeError,
    int(Result.ERR_INPUT_RESPONSES): InputResponsesError,
    int(Result.ERR_MISSING_CAPABILITY): MissingCapabilityError,
}


#: The library's C wording and its Python counterpart: the C ABI names C functions and
#: types in a few messages, which a Python host never calls or sees.
_C_TO_PYTHON = (
    ("read it as JSON with elicit_round_resolve_input", "read it with ResolveStep.input(name)"),
    ("read it with elicit_round_resolve_input", "read it with ResolveStep.input(name)"),
    ("an integer within int64_t", "an int within 64 bits (-2**63 to 2**63 - 1)"),
    ("random_len must be ELICIT_SEAL_RANDOM_LEN (20) bytes", "random must be 20 bytes (elicit_mcp.SEAL_RANDOM_LEN)"),
    ("; pass a positive finite number of seconds, or 0 for the default 600", "; pass a positive finite number of seconds"),
    ("ELICIT_MAX_KEYS", "elicit_mcp.MAX_KEYS"),
    ("ELICIT_MIN_KEY_LEN", "elicit_mcp.MIN_KEY_LEN"),
    ("ttl_secs", "ttl"),
    ("key_count", "the number of keys"),
)


def python_message(message: str) -> str:
    """The library's message worded for a Python host (C function and type names
    replaced by the Python API's)."""
    for c_text, py_text in _C_TO_PYTHON:
        if c_text in message:
            message = message.replace(c_text, py_text)
    return message


def error_for(code: int, message: str) -> ElicitError:
    """The exception for a non-zero ``elicit_result`` (the message worded for Python)."""
    message = python_message(message)
    cls = _SPECIFIC.get(code)
    if cls is None:
        group = code // 100
        if group == 1:
            cls = UsageError
        elif group == 2:
            cls = DeclarationError
        elif group == 3:
            cls = CallInputError
        elif group == 4:
            cls = ResolutionError
        else:
            cls = InternalError
    return cls(code, message)
