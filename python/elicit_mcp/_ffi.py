"""Low level: locating and loading ``libelicit_ffi``, and the ctypes prototypes.

Every function of ``include/elicit.h`` is listed in :data:`SIGNATURES` with its
``restype`` and ``argtypes``; :func:`load` applies them to the loaded library, so a
call with a wrong argument type fails in ctypes (``ctypes.ArgumentError``) instead of
reaching C.

Type mapping (C → ctypes):

=============================  ============================================
``elicit_result``, ``uint32_t``  ``c_uint32``
``size_t``                     ``c_size_t``
``const char *`` (text in),    ``c_char_p``: ``bytes`` pass without a copy,
``const uint8_t *`` (bytes in) ``None`` is NULL (the length says how many
                               bytes are read: no NUL terminator is needed)
``char *`` (output buffer)     ``POINTER(c_char)``: a ``c_char`` array
``uint8_t *`` (random bytes)   ``POINTER(c_uint8)``
``const elicit_request *``     ``POINTER(ElicitRequest)``, built by :func:`texts`
``const elicit_round_input *`` ``POINTER(ElicitRoundInput)``, likewise
``size_t *``                   ``POINTER(c_size_t)``
``uint32_t *``                 ``POINTER(c_uint32)``
``bool *``                     ``POINTER(c_bool)``
``[const] struct elicit_plan *``   ``POINTER(ElicitPlan)``
``struct elicit_plan **``      ``POINTER(POINTER(ElicitPlan))``
(the same for ``elicit_round``, ``elicit_key_ring``, ``elicit_sealer``)
``const char *`` (return)      ``c_char_p`` (static, NUL-terminated)
``const char **``              ``POINTER(c_char_p)`` (receives a static string)
``const uint8_t *const *``     ``POINTER(c_char_p)`` (an array of inputs)
``const size_t *``             ``POINTER(c_size_t)``
``int64_t *``, ``double *``    ``POINTER(c_int64)``, ``POINTER(c_double)``
``double``                     ``c_double``
=============================  ============================================
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from ctypes import POINTER, c_bool, c_char, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_void_p
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "ABI_MAJOR",
    "ABI_MINOR",
    "ElicitKeyRing",
    "ElicitPlan",
    "ElicitRequest",
    "ElicitRoundInput",
    "ElicitRound",
    "ElicitSealer",
    "LIB_ENV",
    "Lib",
    "LibraryError",
    "LibraryNotFoundError",
    "SIGNATURES",
    "find_library",
    "library_filename",
    "load",
    "texts",
]

#: The environment variable that names the library file (or the folder holding it).
LIB_ENV = "ELICIT_LIB"

#: The C ABI this binding is written against: the library must have the same major
#: version and at least this minor version.
ABI_MAJOR = 0
ABI_MINOR = 5

BUILD_HINT = (
    "install the elicit wheel (pip install elicit-*.whl, or pip install ./python from a "
    "checkout), build it with cargo build --release -p elicit-ffi, or set ELICIT_LIB"
)


class ElicitPlan(ctypes.Structure):
    """``struct elicit_plan`` (opaque: only pointers to it are used)."""


class ElicitRound(ctypes.Structure):
    """``struct elicit_round`` (opaque: only pointers to it are used)."""


class ElicitKeyRing(ctypes.Structure):
    """``struct elicit_key_ring`` (opaque: only pointers to it are used)."""


class ElicitSealer(ctypes.Structure):
    """``struct elicit_sealer`` (opaque: only pointers to it are used)."""


class ElicitRequest(ctypes.Structure):
    """``struct elicit_request``: one request as the transport received it (the call
    level reads all of it, the sealers ``method``, ``params``, ``principal``, ``now``
    and, to seal, ``random``). Build it with :func:`texts`."""

    _fields_ = [
        ("id", c_char_p),
        ("id_len", c_size_t),
        ("method", c_char_p),
        ("method_len", c_size_t),
        ("params", c_char_p),
        ("params_len", c_size_t),
        ("principal", c_char_p),
        ("principal_len", c_size_t),
        ("protocol_version", c_char_p),
        ("protocol_version_len", c_size_t),
        ("client_capabilities", c_char_p),
        ("client_capabilities_len", c_size_t),
        ("now", c_double),
        ("random", c_char_p),
        ("random_len", c_size_t),
    ]


class ElicitRoundInput(ctypes.Structure):
    """``struct elicit_round_input``: the texts a round starts from. Build it with
    :func:`texts`."""

    _fields_ = [
        ("arguments", c_char_p),
        ("arguments_len", c_size_t),
        ("request_state", c_char_p),
        ("request_state_len", c_size_t),
        ("input_responses", c_char_p),
        ("input_responses_len", c_size_t),
        ("client_capabilities", c_char_p),
        ("client_capabilities_len", c_size_t),
    ]


def texts(struct: Any, **fields: Any) -> Any:
    """``struct`` (:class:`ElicitRequest` or :class:`ElicitRoundInput`) with each text
    field set from ``bytes`` (its ``_len`` field to the length) or ``None`` (NULL with
    length 0), and any other field (``now``) as given. The struct keeps the ``bytes``
    alive; pass it with ``byref``."""
    out = struct()
    for name, value in fields.items():
        if name == "now":
            out.now = value
            continue
        setattr(out, name, value)
        setattr(out, name + "_len", 0 if value is None else len(value))
    return out


PlanPtr = POINTER(ElicitPlan)
RoundPtr = POINTER(ElicitRound)
KeyRingPtr = POINTER(ElicitKeyRing)
SealerPtr = POINTER(ElicitSealer)


class ElicitServer(ctypes.Structure):
    """``struct elicit_server`` (opaque: only pointers to it are used)."""


class ElicitCall(ctypes.Structure):
    """``struct elicit_call`` (opaque: only pointers to it are used)."""


ServerPtr = POINTER(ElicitServer)
CallPtr = POINTER(ElicitCall)
# The call level's reader: (call, char *buf, cap, out_len). This binding serves its
# calls through the round API (elicit_mcp.mcp builds the envelopes with the MCP SDK's
# own types); the call level is bound so every header function has its types.
_CALL_READER: List[Any] = [CallPtr, POINTER(c_char), c_size_t, POINTER(c_size_t)]
_CALL_TEXT_IN: List[Any] = [CallPtr, c_char_p, c_size_t]

_result = c_uint32
_u8_in = c_char_p
_u8_out = POINTER(c_char)
_size_out = POINTER(c_size_t)

# A reader: (round, buf, cap, out_len).
_READER: List[Any] = [RoundPtr, _u8_out, c_size_t, _size_out]
# (round, text, text_len).
_TEXT_IN: List[Any] = [RoundPtr, _u8_in, c_size_t]
# A named input reader: (round, name, name_len, buf, cap, out_len).
_NAMED_READER: List[Any] = [RoundPtr, _u8_in, c_size_t, _u8_out, c_size_t, _size_out]
_REQUEST = POINTER(ElicitRequest)
_ROUND_NEW: List[Any] = [PlanPtr, POINTER(ElicitRoundInput), c_size_t, POINTER(RoundPtr), _u8_out, c_size_t, _size_out]

#: name → (restype, argtypes), for every function of include/elicit.h.
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "elicit_abi_version": (c_uint32, []),
    "elicit_result_str": (c_char_p, [_result]),
    "elicit_result_name": (c_char_p, [_result]),
    "elicit_plan_new": (
        _result,
        [_u8_in, c_size_t, POINTER(PlanPtr), _u8_out, c_size_t, _size_out],
    ),
    "elicit_plan_free": (None, [PlanPtr]),
    "elicit_plan_tool_name": (_result, [PlanPtr, _u8_out, c_size_t, _size_out]),
    "elicit_plan_param_count": (_result, [PlanPtr, _size_out]),
    "elicit_plan_param_name": (_result, [PlanPtr, c_size_t, _u8_out, c_size_t, _size_out]),
    "elicit_plan_param_index": (_result, [PlanPtr, _u8_in, c_size_t, _size_out]),
    "elicit_plan_param_is_elicited": (_result, [PlanPtr, c_size_t, POINTER(c_bool)]),
    "elicit_plan_param_has_resolver": (_result, [PlanPtr, c_size_t, POINTER(c_bool)]),
    "elicit_plan_param_kind": (_result, [PlanPtr, c_size_t, POINTER(c_uint32)]),
    "elicit_plan_input_schema": (
        _result,
        [PlanPtr, _u8_in, c_size_t, _u8_in, c_size_t, POINTER(c_bool), _u8_out, c_size_t, _size_out],
    ),
    "elicit_round_new_modern": (_result, _ROUND_NEW),
    "elicit_round_new_handshake": (_result, _ROUND_NEW),
    "elicit_round_free": (None, [RoundPtr]),
    "elicit_round_poll": (_result, [RoundPtr, POINTER(c_uint32), _size_out]),
    "elicit_round_resolve_inputs": (_result, _READER),
    "elicit_round_resolve_value": (_result, _TEXT_IN),
    "elicit_round_resolve_question": (_result, _TEXT_IN),
    "elicit_round_resolve_failed": (_result, _TEXT_IN),
    "elicit_round_ask": (_result, _READER),
    "elicit_round_answer": (_result, _TEXT_IN),
    "elicit_round_values": (_result, _READER),
    "elicit_round_value_of": (_result, [RoundPtr, c_size_t, _u8_out, c_size_t, _size_out]),
    "elicit_round_input_requests": (
        _result,
        [RoundPtr, c_uint32, _u8_out, c_size_t, _size_out],
    ),
    "elicit_round_request_state": (_result, _READER),
    "elicit_round_required_capabilities": (_result, _READER),
    "elicit_round_fallback_result": (_result, _READER),
    "elicit_round_note_count": (_result, [RoundPtr, _size_out]),
    "elicit_round_note": (
        _result,
        [RoundPtr, c_size_t, POINTER(c_uint32), _size_out, _u8_out, c_size_t, _size_out],
    ),
    "elicit_round_last_error": (_result, _READER),
    "elicit_round_resolve_question_text": (
        _result,
        [RoundPtr, _u8_in, c_size_t, _u8_in, c_size_t, _u8_in, c_size_t],
    ),
    "elicit_round_resolve_input": (_result, _NAMED_READER),
    "elicit_round_resolve_input_text": (_result, _NAMED_READER),
    "elicit_round_resolve_input_int": (_result, [RoundPtr, _u8_in, c_size_t, POINTER(c_int64)]),
    "elicit_round_resolve_input_number": (
        _result,
        [RoundPtr, _u8_in, c_size_t, POINTER(c_double)],
    ),
    "elicit_round_resolve_input_bool": (_result, [RoundPtr, _u8_in, c_size_t, POINTER(c_bool)]),
    "elicit_key_ring_new": (
        _result,
        [
            POINTER(c_char_p),
            POINTER(c_size_t),
            c_size_t,
            POINTER(KeyRingPtr),
            _u8_out,
            c_size_t,
            _size_out,
        ],
    ),
    "elicit_key_ring_free": (None, [KeyRingPtr]),
    "elicit_sealer_new": (
        _result,
        [KeyRingPtr, _u8_in, c_size_t, c_double, POINTER(SealerPtr), _u8_out, c_size_t, _size_out],
    ),
    "elicit_sealer_free": (None, [SealerPtr]),
    "elicit_sealer_seal": (
        _result,
        [SealerPtr, _REQUEST, _u8_in, c_size_t, _u8_out, c_size_t, _size_out, POINTER(c_char_p)],
    ),
    "elicit_sealer_unseal": (
        _result,
        [SealerPtr, _REQUEST, POINTER(c_bool), _u8_out, c_size_t, _size_out, POINTER(c_char_p)],
    ),
    "elicit_os_time": (_result, [POINTER(c_double)]),
    "elicit_os_random": (_result, [POINTER(c_uint8), c_size_t]),
    # The call level (the server's config struct goes as a pointer to it).
    "elicit_server_new": (
        _result,
        [c_void_p, POINTER(ServerPtr), POINTER(c_char), c_size_t, POINTER(c_size_t)],
    ),
    "elicit_server_free": (None, [ServerPtr]),
    "elicit_call_new": (
        _result,
        [ServerPtr, _REQUEST, POINTER(CallPtr), POINTER(c_char), c_size_t, POINTER(c_size_t)],
    ),
    "elicit_call_free": (None, [CallPtr]),
    "elicit_call_next": (_result, [CallPtr, POINTER(c_uint32), POINTER(c_size_t)]),
    "elicit_call_resolve_value": (_result, _CALL_TEXT_IN),
    "elicit_call_resolve_question": (_result, _CALL_TEXT_IN),
    "elicit_call_resolve_question_text": (_result, _CALL_TEXT_IN),
    "elicit_call_resolve_input_text": (_result, [*_CALL_TEXT_IN, POINTER(c_char), c_size_t, POINTER(c_size_t)]),
    "elicit_call_answer": (_result, _CALL_TEXT_IN),
    "elicit_call_finish": (_result, [*_CALL_TEXT_IN, c_bool]),
    "elicit_call_reply": (_result, _CALL_READER),
    "elicit_call_reply_code": (_result, [CallPtr, POINTER(c_int32)]),
    "elicit_call_request": (_result, _CALL_READER),
    "elicit_call_param_name": (_result, _CALL_READER),
    "elicit_call_resolve_inputs": (_result, _CALL_READER),
    "elicit_call_values": (_result, _CALL_READER),
    "elicit_call_last_error": (_result, _CALL_READER),
}


class LibraryError(OSError):
    """The library could not be found or loaded, or its ABI version does not fit."""


class LibraryNotFoundError(LibraryError):
    """No ``libelicit_ffi`` was found (see :func:`find_library`)."""


def library_filename(platform: Optional[str] = None) -> str:
    """The cdylib's file name on this platform (``libelicit_ffi.so`` on Linux)."""
    plat = sys.platform if platform is None else platform
    if plat == "darwin":
        return "libelicit_ffi.dylib"
    if plat.startswith("win") or plat == "cygwin":
        return "elicit_ffi.dll"
    return "libelicit_ffi.so"


def _repo_roots(starts: Sequence[Path]) -> List[Path]:
    """Ancestors of ``starts`` that look like the cargo workspace (``Cargo.toml``)."""
    roots: List[Path] = []
    for start in starts:
        for d in [start, *start.parents]:
            if (d / "Cargo.toml").is_file() and d not in roots:
                roots.append(d)
    return roots


def candidate_paths(
    env: Optional[Mapping[str, str]] = None, starts: Optional[Sequence[Path]] = None
) -> List[Path]:
    """Where :func:`find_library` looks, in order (``ELICIT_LIB`` alone when it is set).

    Without ``ELICIT_LIB``: first beside this package (where the wheel puts the
    library), then ``$CARGO_TARGET_DIR/{release,debug}`` when that is set, then
    ``target/release`` and ``target/debug`` of every enclosing cargo workspace (a folder
    with a ``Cargo.toml``) of this package's folder and of the working directory.
    """
    env = os.environ if env is None else env
    name = library_filename()
    explicit = env.get(LIB_ENV)
    if explicit:
        p = Path(explicit)
        return [p / name if p.is_dir() else p]
    here = Path(__file__).resolve().parent
    if starts is None:
        starts = [here, Path.cwd().resolve()]
    out: List[Path] = [here / name]
    target_dir = env.get("CARGO_TARGET_DIR")
    if target_dir:
        t = Path(target_dir)
        out += [t / "release" / name, t / "debug" / name]
    for root in _repo_roots(starts):
        out += [root / "target" / "release" / name, root / "target" / "debug" / name]
    return out


def find_library(
    env: Optional[Mapping[str, str]] = None, starts: Optional[Sequence[Path]] = None
) -> Path:
    """The path of the library to load; :class:`LibraryNotFoundError` when there is none."""
    env = os.environ if env is None else env
    candidates = candidate_paths(env, starts)
    for p in candidates:
        if p.is_file():
            return p
    if env.get(LIB_ENV):
        raise LibraryNotFoundError(
            f"{LIB_ENV}={env[LIB_ENV]!r} does not name an existing {library_filename()}; "
            f"{BUILD_HINT}"
        )
    where = "looked in: " + ", ".join(str(p) for p in candidates)
    raise LibraryNotFoundError(f"{library_filename()} not found ({where}); {BUILD_HINT}")


class Lib:
    """The loaded library, with every function of the header typed.

    Attributes named after the C functions are the ctypes function objects (their
    ``argtypes``/``restype`` set from :data:`SIGNATURES`).
    """

    elicit_abi_version: Callable[..., Any]
    elicit_result_str: Callable[..., Any]
    elicit_result_name: Callable[..., Any]
    elicit_plan_new: Callable[..., Any]
    elicit_plan_free: Callable[..., Any]
    elicit_plan_tool_name: Callable[..., Any]
    elicit_plan_param_count: Callable[..., Any]
    elicit_plan_param_name: Callable[..., Any]
    elicit_plan_param_index: Callable[..., Any]
    elicit_plan_param_is_elicited: Callable[..., Any]
    elicit_plan_param_has_resolver: Callable[..., Any]
    elicit_plan_param_kind: Callable[..., Any]
    elicit_plan_input_schema: Callable[..., Any]
    elicit_round_new_modern: Callable[..., Any]
    elicit_round_new_handshake: Callable[..., Any]
    elicit_round_free: Callable[..., Any]
    elicit_round_poll: Callable[..., Any]
    elicit_round_resolve_inputs: Callable[..., Any]
    elicit_round_resolve_value: Callable[..., Any]
    elicit_round_resolve_question: Callable[..., Any]
    elicit_round_resolve_failed: Callable[..., Any]
    elicit_round_ask: Callable[..., Any]
    elicit_round_answer: Callable[..., Any]
    elicit_round_values: Callable[..., Any]
    elicit_round_value_of: Callable[..., Any]
    elicit_round_input_requests: Callable[..., Any]
    elicit_round_request_state: Callable[..., Any]
    elicit_round_required_capabilities: Callable[..., Any]
    elicit_round_fallback_result: Callable[..., Any]
    elicit_round_note_count: Callable[..., Any]
    elicit_round_note: Callable[..., Any]
    elicit_round_last_error: Callable[..., Any]
    elicit_round_resolve_question_text: Callable[..., Any]
    elicit_round_resolve_input: Callable[..., Any]
    elicit_round_resolve_input_text: Callable[..., Any]
    elicit_round_resolve_input_int: Callable[..., Any]
    elicit_round_resolve_input_number: Callable[..., Any]
    elicit_round_resolve_input_bool: Callable[..., Any]
    elicit_key_ring_new: Callable[..., Any]
    elicit_key_ring_free: Callable[..., Any]
    elicit_sealer_new: Callable[..., Any]
    elicit_sealer_free: Callable[..., Any]
    elicit_sealer_seal: Callable[..., Any]
    elicit_sealer_unseal: Callable[..., Any]
    elicit_os_time: Callable[..., Any]
    elicit_os_random: Callable[..., Any]
    elicit_server_new: Callable[..., Any]
    elicit_server_free: Callable[..., Any]
    elicit_call_new: Callable[..., Any]
    elicit_call_free: Callable[..., Any]
    elicit_call_next: Callable[..., Any]
    elicit_call_resolve_value: Callable[..., Any]
    elicit_call_resolve_question: Callable[..., Any]
    elicit_call_resolve_question_text: Callable[..., Any]
    elicit_call_resolve_input_text: Callable[..., Any]
    elicit_call_answer: Callable[..., Any]
    elicit_call_finish: Callable[..., Any]
    elicit_call_reply: Callable[..., Any]
    elicit_call_reply_code: Callable[..., Any]
    elicit_call_request: Callable[..., Any]
    elicit_call_param_name: Callable[..., Any]
    elicit_call_resolve_inputs: Callable[..., Any]
    elicit_call_values: Callable[..., Any]
    elicit_call_last_error: Callable[..., Any]

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.cdll = ctypes.CDLL(str(path))
        except OSError as e:
            raise LibraryError(f"cannot load {path}: {e}; {BUILD_HINT}") from e
        for name, (restype, argtypes) in SIGNATURES.items():
            try:
                fn = getattr(self.cdll, name)
            except AttributeError as e:
                raise LibraryError(f"{path} has no function {name}; {BUILD_HINT}") from e
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        version = int(self.elicit_abi_version())
        self.abi_version = version
        major, minor = version >> 16, (version >> 8) & 0xFF
        if major != ABI_MAJOR or minor < ABI_MINOR:
            raise LibraryError(
                f"{path} has C ABI {major}.{minor}.{version & 0xFF}; this binding needs "
                f"{ABI_MAJOR}.{ABI_MINOR}.x or a later minor version; {BUILD_HINT}"
            )

    def result_str(self, code: int) -> str:
        """``elicit_result_str(code)`` as text."""
        raw = self.elicit_result_str(code)
        return bytes(raw).decode("utf-8", "replace") if raw else ""

    def result_name(self, code: int) -> str:
        """``elicit_result_name(code)`` as text (the name alone)."""
        raw = self.elicit_result_name(code)
        return bytes(raw).decode("utf-8", "replace") if raw else ""


_loaded: Optional[Lib] = None
_load_lock = threading.Lock()


def load() -> Lib:
    """The library, loaded (once per process) from :func:`find_library`'s path."""
    global _loaded
    lib = _loaded
    if lib is not None:
        return lib
    with _load_lock:
        if _loaded is None:
            _loaded = Lib(find_library())
        return _loaded
