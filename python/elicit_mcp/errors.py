"""Exceptions: one class per group of ``elicit_result`` codes.

=========  =======================  ==========================================
codes      class                    meaning
=========  =======================  ==========================================
``1xx``    :class:`UsageError`      the host broke the calling contract
``2xx``    :class:`DeclarationError`  the declaration was rejected
``3xx``    :class:`CallInputError`  the call's inputs are invalid, or the client
                                    lacks a capability the call needs
``4xx``    :class:`ResolutionError`  the tool call fails with ``message``
``9xx``    :class:`InternalError`   a panic in the library, or an unknown code
=========  =======================  ==========================================

Every exception carries ``code`` (the number), ``code_name`` (``"ELICIT_ERR_..."``)
and ``message`` (the engine's wording, exactly: for a :class:`ResolutionError` it is
the text the tool call fails with).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Type

from .constants import (
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

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.code_name = code_name(code)
        self.message = message
        super().__init__(code, message)

    def __str__(self) -> str:
        text = self.message or "(no message)"
        return f"{text} [{self.code_name} {self.code}]"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class UsageError(ElicitError):
    """``1xx``: the host broke the calling contract (fix the host)."""


class WrongStepError(UsageError):
    """``ELICIT_ERR_WRONG_STEP`` (103): the call does not fit the round's current step."""


class NotFoundError(UsageError, KeyError):
    """``ELICIT_ERR_NOT_FOUND`` (107): no parameter has that name."""

    def __str__(self) -> str:  # KeyError would quote the args tuple
        return ElicitError.__str__(self)


class WrongTypeError(UsageError, TypeError):
    """``ELICIT_ERR_WRONG_TYPE`` (110): a resolver input has another JSON type than the
    reader asked for (``Resolve.input_int`` on a string, ...)."""


class ClosedError(UsageError, ValueError):
    """The plan or round was closed: the binding refuses to touch a freed handle.

    Its ``code`` is ``ELICIT_ERR_NULL``: a closed handle is a NULL one.
    """

    def __init__(self, what: str) -> None:
        super().__init__(
            int(Result.ERR_NULL), f"this {what} is closed; it cannot be used after close()"
        )


class DeclarationError(ElicitError):
    """``2xx``: ``elicit_plan_new`` rejected the declaration (fix the declaration)."""


class CallInputError(ElicitError):
    """``3xx``: the call's inputs are invalid (arguments, ``inputResponses``)."""


class InputResponsesError(CallInputError):
    """``ELICIT_ERR_INPUT_RESPONSES`` (302): answer with JSON-RPC error ``-32602``."""

    jsonrpc_code = -32602


class RequestStateError(CallInputError):
    """``ELICIT_ERR_REQUEST_STATE`` (303): the request's ``requestState`` did not verify.

    Answer the request with :attr:`error` (JSON-RPC ``-32602``, the MCP Python SDK's
    frozen message "Invalid or expired requestState"), whatever the reason;
    :attr:`reason` (``"expired"``, ``"unknown key"``, ``"request binding"``, ...) is for
    the server's log only.
    """

    jsonrpc_code = -32602

    def __init__(self, reason: str) -> None:
        super().__init__(int(Result.ERR_REQUEST_STATE), REQUEST_STATE_ERROR_MESSAGE)
        self.reason = reason
        """Why the token was rejected (log it; never send it)."""

    @property
    def error(self) -> Dict[str, Any]:
        """The JSON-RPC ``error`` object to answer with (the SDK's, byte for byte when
        serialized compactly)."""
        value: Dict[str, Any] = json.loads(REQUEST_STATE_ERROR_JSON)
        return value

    def __reduce__(self) -> Any:
        return (type(self), (self.reason,))


class MissingCapabilityError(CallInputError):
    """``ELICIT_ERR_MISSING_CAPABILITY`` (304): the round needs a kind of request the
    client did not declare (URL-mode elicitation, sampling, roots, or form elicitation
    itself); nothing was shown to the client.

    Answer the request with :attr:`error`: JSON-RPC ``-32021`` (HTTP status 400), the
    message, and ``data.requiredCapabilities`` = :attr:`required_capabilities`, a
    ClientCapabilities object keyed by what is missing (e.g. ``{"sampling": {}}``).
    """

    jsonrpc_code = MISSING_CAPABILITY_ERROR_CODE

    def __init__(
        self, code: int, message: str, required_capabilities: Optional[Dict[str, Any]] = None
    ) -> None:
        super().__init__(code, message)
        self.required_capabilities: Dict[str, Any] = dict(required_capabilities or {})
        """What the client must declare (``elicit_round_required_capabilities``)."""

    @property
    def error(self) -> Dict[str, Any]:
        """The JSON-RPC ``error`` object to answer with."""
        return {
            "code": self.jsonrpc_code,
            "message": self.message,
            "data": {"requiredCapabilities": self.required_capabilities},
        }

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.message, self.required_capabilities))


class ResolutionError(ElicitError):
    """``4xx``: resolution failed; the tool call fails with :attr:`message`."""


class InternalError(ElicitError):
    """``9xx``: a panic inside the library (the handle is poisoned) or an unknown code."""


_SPECIFIC: Dict[int, Type[ElicitError]] = {
    int(Result.ERR_WRONG_STEP): WrongStepError,
    int(Result.ERR_NOT_FOUND): NotFoundError,
    int(Result.ERR_WRONG_TYPE): WrongTypeError,
    int(Result.ERR_INPUT_RESPONSES): InputResponsesError,
    int(Result.ERR_MISSING_CAPABILITY): MissingCapabilityError,
}


def error_for(code: int, message: str) -> ElicitError:
    """The exception for a non-zero ``elicit_result``."""
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
