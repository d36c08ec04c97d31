"""The ``#define`` constants of ``include/elicit.h`` and the ``include/elicit_noalloc.h`` it
includes (a test checks they match)."""

from __future__ import annotations

import ctypes
import enum

ABI_VERSION_MAJOR = 0
ABI_VERSION_MINOR = 5
ABI_VERSION_PATCH = 0
ABI_VERSION = (ABI_VERSION_MAJOR << 16) | (ABI_VERSION_MINOR << 8) | ABI_VERSION_PATCH

MAX_PARAMS = 64
DEFAULT_WORKSPACE = 65536
MESSAGE_CAP = 1024

#: ``ELICIT_NO_PARAM``: ``(size_t)~0``, the ``param`` of DONE and INPUT_REQUIRED.
NO_PARAM = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1

REQUESTS_CLIENT_VIEW = 1

#: ``ELICIT_METHOD_*``: the request method an ``elicit_server_entry`` serves (the C
#: call level; this package serves its calls through the round API).
METHOD_TOOLS_CALL = 0
METHOD_PROMPTS_GET = 1
METHOD_RESOURCES_READ = 2

#: ``ELICIT_NOALLOC_*``: limits of the heap-free surface (for C firmware; not bound here).
NOALLOC_MAX_PARAMS = 16
NOALLOC_MAX_KEYS = 2
NOALLOC_ALIGN = 16
NOALLOC_PLAN_FORMAT = 3

#: ``ELICIT_MAX_KEYS``: most keys a :class:`~elicit_mcp.KeyRing` holds.
MAX_KEYS = 8
#: ``ELICIT_MIN_KEY_LEN``: shortest key, in bytes.
MIN_KEY_LEN = 32
#: Longest key, in bytes (the house's key-ring limit: 256 hex digits).
MAX_KEY_LEN = 128
#: ``ELICIT_SEAL_RANDOM_LEN``: random bytes one seal consumes (nonce, principal salt).
SEAL_RANDOM_LEN = 20
#: ``ELICIT_DEFAULT_TTL_SECS``: the token lifetime by default, the SDK's.
DEFAULT_TTL_SECS = 600
#: JSON-RPC ``Invalid params``: the call's own faults (arguments, replies, state).
INVALID_PARAMS_CODE = -32602
#: JSON-RPC ``Internal error``: a server bug (usage, declaration, panic).
INTERNAL_ERROR_CODE = -32603
#: JSON-RPC code of ``ELICIT_ERR_MISSING_CAPABILITY`` (HTTP status 400).
MISSING_CAPABILITY_ERROR_CODE = -32021
#: ``ELICIT_REQUEST_STATE_ERROR_CODE``: JSON-RPC code of a rejected requestState.
REQUEST_STATE_ERROR_CODE = -32602
#: ``ELICIT_REQUEST_STATE_ERROR_MESSAGE``: the SDK's frozen message, whatever the reason.
REQUEST_STATE_ERROR_MESSAGE = "Invalid or expired requestState"
#: ``ELICIT_REQUEST_STATE_ERROR_JSON``: the whole JSON-RPC ``error`` object, as the SDK
#: sends it.
REQUEST_STATE_ERROR_JSON = (
    '{"code":-32602,"message":"Invalid or expired requestState",'
    '"data":{"reason":"invalid_request_state"}}'
)


class StepKind(enum.IntEnum):
    """``ELICIT_STEP_*``: what ``elicit_round_poll`` says the round needs next."""

    RESOLVE = 1
    ASK = 2
    DONE = 3
    INPUT_REQUIRED = 4
    REPLY = 5
    #: A declared fallback (docs/fallback.md): the round's reply is the tool result for the
    #: model (:class:`~elicit_mcp.Fallback`); the ``MCPServer`` adapter does not serve it yet.
    FALLBACK = 6


class InputKind(enum.IntEnum):
    """``ELICIT_KIND_*``: how a parameter is asked (``elicit_plan_param_kind``)."""

    FORM = 0
    URL = 1
    SAMPLING = 2
    ROOTS = 3

    @property
    def method(self) -> str:
        """The JSON-RPC method of the request: ``elicitation/create`` (form and URL
        mode), ``sampling/createMessage`` or ``roots/list``."""
        if self is InputKind.SAMPLING:
            return "sampling/createMessage"
        if self is InputKind.ROOTS:
            return "roots/list"
        return "elicitation/create"


class NoteLevel(enum.IntEnum):
    """``ELICIT_NOTE_*``: a note's log level (the values are ``logging``'s)."""

    DEBUG = 10
    INFO = 20


class Result(enum.IntEnum):
    """``elicit_result`` codes (``ELICIT_OK`` and ``ELICIT_ERR_*``)."""

    OK = 0
    ERR_NULL = 100
    ERR_UTF8 = 101
    ERR_BUFFER_TOO_SMALL = 102
    ERR_WRONG_STEP = 103
    ERR_WORKSPACE_FULL = 104
    ERR_INDEX = 105
    ERR_INVALID_ARGUMENT = 106
    ERR_NOT_FOUND = 107
    ERR_TOO_LARGE = 108
    ERR_RESOLVER_ANSWER = 109
    ERR_WRONG_TYPE = 110
    ERR_MEMORY_TOO_SMALL = 111
    ERR_MEMORY_ALIGN = 112
    ERR_BUSY = 113
    ERR_INPUT_SCHEMA = 114
    ERR_DECLARATION_JSON = 200
    ERR_DECLARATION = 201
    ERR_DUPLICATE_NAME = 202
    ERR_UNKNOWN_NEED = 203
    ERR_CYCLE = 204
    ERR_DECLARED_TYPE_MISMATCH = 205
    ERR_MIXED_WITH_INPUT_REQUIRED = 206
    ERR_UNSUPPORTED_SCHEMA = 207
    ERR_CAPACITY = 208
    ERR_ARGUMENTS = 300
    ERR_MISSING_ARGUMENT = 301
    ERR_INPUT_RESPONSES = 302
    ERR_REQUEST_STATE = 303
    ERR_MISSING_CAPABILITY = 304
    ERR_WRONG_REPLY = 400
    ERR_ACCEPTED_WITHOUT_CONTENT = 401
    ERR_SCHEMA_MISMATCH = 402
    ERR_DECLINED = 403
    ERR_CANCELLED = 404
    ERR_RESOLVER_DEPENDENCY = 405
    ERR_PANIC = 900
    ERR_POISONED = 901
    ERR_OTHER = 999
