"""elicit: Python bindings (ctypes) for the elicit C ABI (``libelicit_ffi``).

An embeddable engine for MCP declared elicitation. Compile a tool declaration once
into a :class:`Plan`, then drive one :class:`Round` per ``tools/call``::

    import elicit

    with elicit.Plan({"tool": "book_flight", "parameters": [...]}) as plan:
        with plan.modern({"destination": "Paris"}) as rnd:
            for step in rnd.steps():
                if isinstance(step, elicit.Resolve):
                    step.question(f"Which airport in {step.inputs()['destination']}?")
                elif isinstance(step, elicit.InputRequired):
                    send(step.input_requests(), seal(step.request_state()))
                elif isinstance(step, elicit.Done):
                    run_tool(step.values())

The library is found through ``$ELICIT_LIB`` (the file, or its folder) or the cargo
workspace's ``target/release`` / ``target/debug``; see :func:`find_library`.
"""

from __future__ import annotations

from ._engine import (
    Ask,
    Done,
    InputRequired,
    JsonText,
    Note,
    Param,
    Plan,
    Resolve,
    Round,
    Step,
    dumps,
)
from ._ffi import (
    LIB_ENV,
    Lib,
    LibraryError,
    LibraryNotFoundError,
    candidate_paths,
    find_library,
    library_filename,
    load,
)
from .constants import (
    ABI_VERSION,
    DEFAULT_WORKSPACE,
    MAX_PARAMS,
    MESSAGE_CAP,
    NO_PARAM,
    REQUESTS_CLIENT_VIEW,
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
    NotFoundError,
    ResolutionError,
    UsageError,
    WrongStepError,
    code_name,
    error_for,
)

__version__ = "0.1.0"


def abi_version() -> int:
    """The loaded library's ``elicit_abi_version()`` (``(major << 16) | (minor << 8) | patch``)."""
    return load().abi_version


__all__ = [
    "ABI_VERSION",
    "Ask",
    "CallInputError",
    "ClosedError",
    "DEFAULT_WORKSPACE",
    "DeclarationError",
    "Done",
    "ElicitError",
    "InputRequired",
    "InputResponsesError",
    "InternalError",
    "JsonText",
    "LIB_ENV",
    "Lib",
    "LibraryError",
    "LibraryNotFoundError",
    "MAX_PARAMS",
    "MESSAGE_CAP",
    "NO_PARAM",
    "NotFoundError",
    "Note",
    "NoteLevel",
    "Param",
    "Plan",
    "REQUESTS_CLIENT_VIEW",
    "Resolve",
    "ResolutionError",
    "Result",
    "Round",
    "Step",
    "StepKind",
    "UsageError",
    "WrongStepError",
    "abi_version",
    "candidate_paths",
    "code_name",
    "dumps",
    "error_for",
    "find_library",
    "library_filename",
    "load",
]
