"""elicit_mcp: Python bindings (ctypes) for the elicit C ABI (``libelicit_ffi``).

An embeddable engine for MCP declared elicitation. Compile a tool declaration once
into a :class:`Plan`, then drive one :class:`Round` per ``tools/call``::

    import elicit_mcp

    with elicit_mcp.Plan({"tool": "book_flight", "parameters": [...]}) as plan:
        with plan.modern({"destination": "Paris"}) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit_mcp.ResolveStep):
                    step.question(f"Which airport in {step.inputs()['destination']}?")
                elif isinstance(step, elicit_mcp.InputRequired):
                    send(step.input_requests(), seal(step.request_state()))
                elif isinstance(step, elicit_mcp.Done):
                    run_tool(step.values())

Between rounds the state is sealed with a :class:`Sealer` (the MCP Python SDK's token
format: servers sharing the keys accept each other's tokens)::

    sealer = elicit_mcp.Sealer(elicit_mcp.KeyRing.from_env(), audience="my-server")
    state = sealer.unseal("tools/call", params)          # None on a first round
    token = sealer.seal("tools/call", params, step.request_state())

The library ships inside the package (the wheel carries it); ``$ELICIT_LIB`` (the file,
or its folder) overrides it, and a source checkout falls back to the cargo workspace's
``target/release`` / ``target/debug``; see :func:`find_library`.
"""

from __future__ import annotations

import warnings
from typing import Any

from ._engine import (
    Ask,
    Done,
    Fallback,
    InputRequired,
    JsonText,
    Note,
    Param,
    Plan,
    Round,
    Step,
)
from ._engine import Resolve as ResolveStep
from .declare import ArgumentsError, Declared, Elicit, Question, ResolverValueError, tool
from ._ffi import LIB_ENV, LibraryError, LibraryNotFoundError, find_library, load
from ._seal import STATE_KEYS_ENV, KeyRing, Sealer, parse_keys
from .constants import (
    ABI_VERSION,
    DEFAULT_TTL_SECS,
    DEFAULT_WORKSPACE,
    INTERNAL_ERROR_CODE,
    INVALID_PARAMS_CODE,
    MAX_KEY_LEN,
    MAX_KEYS,
    MAX_PARAMS,
    MESSAGE_CAP,
    MIN_KEY_LEN,
    MISSING_CAPABILITY_ERROR_CODE,
    NO_PARAM,
    REQUEST_STATE_ERROR_CODE,
    REQUEST_STATE_ERROR_JSON,
    REQUEST_STATE_ERROR_MESSAGE,
    REQUESTS_CLIENT_VIEW,
    SEAL_RANDOM_LEN,
    InputKind,
    NoteLevel,
    Result,
    StepKind,
)
from .errors import (
    CallInputError,
    ClosedError,
    DeclarationError,
    ElicitError,
    InputResponsesError,
    InternalError,
    MissingCapabilityError,
    NotFoundError,
    RequestStateError,
    ResolutionError,
    UsageError,
    WrongStepError,
    WrongTypeError,
    code_name,
)

__version__ = "0.5.0"
"""The package version."""


def abi_version() -> int:
    """The loaded library's ``elicit_abi_version()`` (``(major << 16) | (minor << 8) | patch``)."""
    return load().abi_version


def __getattr__(name: str) -> Any:
    # The step class was exported as ``Resolve``, the MCP Python SDK's marker name
    # (``Annotated[T, Resolve(fn)]``): it is ``ResolveStep`` now, the old name kept,
    # deprecated, for one release (0.5 removes it).
    if name == "Resolve":
        warnings.warn(
            "elicit_mcp.Resolve is the engine's step class, renamed elicit_mcp.ResolveStep "
            "(the old name goes in 0.6); it is not the MCP SDK's Resolve(fn) marker: for a "
            "parameter a resolver fills, write Annotated[T, elicit_mcp.Elicit(resolver=fn)]",
            DeprecationWarning,
            stacklevel=2,
        )
        return ResolveStep
    raise AttributeError(f"module 'elicit_mcp' has no attribute {name!r}")


__all__ = [
    "ABI_VERSION",
    "ArgumentsError",
    "Declared",
    "Elicit",
    "Question",
    "tool",
    "Ask",
    "CallInputError",
    "ClosedError",
    "DEFAULT_TTL_SECS",
    "DEFAULT_WORKSPACE",
    "DeclarationError",
    "Done",
    "ElicitError",
    "Fallback",
    "InputKind",
    "InputRequired",
    "InputResponsesError",
    "InternalError",
    "JsonText",
    "KeyRing",
    "LIB_ENV",
    "LibraryError",
    "LibraryNotFoundError",
    "INTERNAL_ERROR_CODE",
    "INVALID_PARAMS_CODE",
    "MAX_KEY_LEN",
    "MAX_KEYS",
    "MAX_PARAMS",
    "MESSAGE_CAP",
    "MIN_KEY_LEN",
    "MISSING_CAPABILITY_ERROR_CODE",
    "MissingCapabilityError",
    "NO_PARAM",
    "NotFoundError",
    "Note",
    "NoteLevel",
    "Param",
    "Plan",
    "REQUESTS_CLIENT_VIEW",
    "REQUEST_STATE_ERROR_CODE",
    "REQUEST_STATE_ERROR_JSON",
    "REQUEST_STATE_ERROR_MESSAGE",
    "RequestStateError",
    "ResolveStep",
    "ResolutionError",
    "ResolverValueError",
    "Result",
    "Round",
    "SEAL_RANDOM_LEN",
    "STATE_KEYS_ENV",
    "Sealer",
    "Step",
    "StepKind",
    "UsageError",
    "WrongStepError",
    "WrongTypeError",
    "abi_version",
    "code_name",
    "find_library",
    "parse_keys",
]
