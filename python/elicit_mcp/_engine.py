"""Plan, Round and the step objects: a typed, memory-safe layer over the C ABI."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from ctypes import byref, c_bool, c_double, c_int64, c_size_t, c_uint32
from typing import (
    Any,
    Callable,
    ClassVar,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Tuple,
    Type,
    Union,
)

from . import _ffi
from ._calls import OK as _OK
from ._calls import Buffer, JsonText, call_reporting, dumps, json_input, text_input
from .constants import (
    MESSAGE_CAP,
    NO_PARAM,
    REQUESTS_CLIENT_VIEW,
    InputKind,
    NoteLevel,
    Result,
    StepKind,
)
from .errors import (
    ClosedError,
    ElicitError,
    MissingCapabilityError,
    NotFoundError,
    UsageError,
    WrongStepError,
    error_for,
    python_message,
)

__all__ = [
    "Ask",
    "Done",
    "Fallback",
    "InputRequired",
    "JsonText",
    "Note",
    "Param",
    "Plan",
    "Resolve",
    "Round",
    "Step",
    "dumps",
]

#: The client's ClientCapabilities: a mapping, a pydantic model (``ClientCapabilities``),
#: raw JSON text, or ``None`` (form elicitation only, the engine's default).
Capabilities = Union[Mapping[str, Any], JsonText, Any, None]

_MISSING_CAPABILITY = int(Result.ERR_MISSING_CAPABILITY)


@dataclass(frozen=True)
class Param:
    """One parameter of a plan, in signature order."""

    index: int
    name: str
    #: asked of the user (left out of the tool's ``inputSchema``) rather than supplied
    elicited: bool
    #: filled by a resolver the host runs on a :class:`Resolve` step
    has_resolver: bool
    #: how it is asked (``elicit_plan_param_kind``); ``None`` for a model-supplied
    #: argument
    kind: Optional[InputKind] = None


class Note(NamedTuple):
    """An event a host may log (``elicit_round_note``)."""

    level: NoteLevel
    param: int
    name: str
    message: str


# ------------------------------------------------------------------------------ Plan


class Plan:
    """A compiled tool declaration (``elicit_plan``): immutable and thread-safe.

    ``declaration`` is a mapping (serialized with :func:`dumps`) or raw JSON text.
    Raises :class:`~elicit_mcp.DeclarationError` (``2xx``) when the engine rejects it.

    Use it as a context manager or call :meth:`close`; after that every method raises
    :class:`~elicit_mcp.ClosedError`. Rounds already created stay valid (they hold their own
    reference in the library). One plan may start rounds from many threads at once;
    closing it waits for no one: calls in flight finish first, then it is freed.
    """

    def __init__(self, declaration: Union[Mapping[str, Any], JsonText]) -> None:
        self._handle: Any = None
        self._lock = threading.Lock()
        self._users = 0
        self._closing = False
        lib = _ffi.load()
        self._lib = lib
        text = json_input(declaration, "declaration")
        out = _ffi.PlanPtr()
        call_reporting(lib.elicit_plan_new, text, len(text), byref(out))
        self._handle = out
        try:
            self._tool_name, self._params = self._describe(out)
        except BaseException:
            self.close()
            raise
        self._names: Tuple[str, ...] = tuple(p.name for p in self._params)
        self._kinds: Tuple[Optional[InputKind], ...] = tuple(p.kind for p in self._params)

    def _describe(self, h: Any) -> Tuple[str, Tuple[Param, ...]]:
        lib = self._lib
        names = Buffer(64)

        def fail(rc: int) -> ElicitError:
            return error_for(rc, f"plan call failed: {lib.result_str(rc)}")

        tool = names.read(lambda b, c, n: lib.elicit_plan_tool_name(h, b, c, n), fail).decode("utf-8")
        count = c_size_t(0)
        self._check(lib.elicit_plan_param_count(h, byref(count)))
        params = []
        for i in range(int(count.value)):
            name = names.read(lambda b, c, n: lib.elicit_plan_param_name(h, i, b, c, n), fail).decode("utf-8")
            elicited = c_bool(False)
            resolver = c_bool(False)
            self._check(lib.elicit_plan_param_is_elicited(h, i, byref(elicited)))
            self._check(lib.elicit_plan_param_has_resolver(h, i, byref(resolver)))
            kind: Optional[InputKind] = None
            if elicited.value:
                code = c_uint32(0)
                self._check(lib.elicit_plan_param_kind(h, i, byref(code)))
                kind = InputKind(code.value)
            params.append(Param(i, name, bool(elicited.value), bool(resolver.value), kind))
        return tool, tuple(params)

    @staticmethod
    def _check(rc: Any) -> None:
        code = int(rc)
        if code != _OK:
            raise error_for(code, f"plan call failed: {_ffi.load().result_str(code)}")

    # ------------------------------------------------------------- handle lifetime

    def _acquire(self) -> Any:
        with self._lock:
            if self._closing or self._handle is None:
                raise ClosedError("plan")
            self._users += 1
            return self._handle

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._closing and self._users == 0:
                self._free_locked()

    def _free_locked(self) -> None:
        h, self._handle = self._handle, None
        if h is not None:
            self._lib.elicit_plan_free(h)

    def close(self) -> None:
        """Release the plan (idempotent). Rounds created from it stay valid."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the lock existed
            return
        with lock:
            self._closing = True
            if self._users == 0:
                self._free_locked()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closing

    def __enter__(self) -> "Plan":
        if self._closing:
            raise ClosedError("plan")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closing else "open"
        name = getattr(self, "_tool_name", "?")
        return f"<elicit_mcp.Plan {name!r} {state}>"

    # --------------------------------------------------------------- description

    def _open(self) -> None:
        if self._closing:
            raise ClosedError("plan")

    @property
    def tool_name(self) -> str:
        """The declaration's ``tool`` name."""
        self._open()
        return self._tool_name

    @property
    def params(self) -> Tuple[Param, ...]:
        """Every parameter (model-supplied and elicited) in signature order."""
        self._open()
        return self._params

    @property
    def elicited(self) -> Tuple[str, ...]:
        """The names of the elicited parameters (left out of the tool's inputSchema)."""
        self._open()
        return tuple(p.name for p in self._params if p.elicited)

    def index_of(self, name: str) -> int:
        """The index of parameter ``name`` (``elicit_plan_param_index``).

        :class:`~elicit_mcp.NotFoundError` (also a ``KeyError``) when there is none.
        """
        raw = name.encode("utf-8")
        index = c_size_t(0)
        h = self._acquire()
        try:
            rc = int(self._lib.elicit_plan_param_index(h, raw, len(raw), byref(index)))
        finally:
            self._release()
        if rc != _OK:
            raise error_for(rc, f"no parameter is called {name!r}")
        return int(index.value)

    def param(self, key: Union[int, str]) -> Param:
        """A parameter by index or by name."""
        self._open()
        if isinstance(key, str):
            return self._params[self.index_of(key)]
        if not 0 <= key < len(self._params):
            raise UsageError(int(Result.ERR_INDEX), f"parameter index {key} is out of range")
        return self._params[key]

    def input_schema(
        self, input_schema: Union[Mapping[str, Any], JsonText], capabilities: Capabilities = None
    ) -> Tuple[dict[str, Any], bool]:
        """The tool's ``inputSchema`` as listed for one client (``elicit_plan_input_schema``,
        docs/fallback.md) and whether the listing differs by client.

        ``input_schema`` is the schema of the model's arguments (what a client that can
        be asked is listed); ``capabilities`` the client's ClientCapabilities as
        :meth:`modern` takes them (``None``: form elicitation only). For a tool declared
        with ``"fallback": "arguments"`` and a client that cannot be asked, every
        parameter that falls back is added as an optional property. The flag is true
        when the tool declares the fallback at all: list it with ``cacheScope:
        "private"`` on 2026-07-28. :class:`~elicit_mcp.UsageError`
        (``ELICIT_ERR_INPUT_SCHEMA``) when ``input_schema`` is not a JSON object.
        """
        schema = json_input(input_schema, "input_schema")
        caps = None if capabilities is None else json_input(capabilities, "capabilities")
        private = c_bool(False)
        out = Buffer(max(256, 2 * len(schema)))
        h = self._acquire()
        try:
            text = out.read(
                lambda buf, cap, out_len: self._lib.elicit_plan_input_schema(
                    h, schema, len(schema), caps, 0 if caps is None else len(caps), byref(private), buf, cap, out_len
                ),
                lambda rc: error_for(rc, f"input_schema: {_ffi.load().result_str(rc)}"),
            )
        finally:
            self._release()
        value: dict[str, Any] = json.loads(text)
        return value, bool(private.value)

    # -------------------------------------------------------------------- rounds

    def modern(
        self,
        arguments: Union[Mapping[str, Any], JsonText, None] = None,
        *,
        request_state: Optional[JsonText] = None,
        input_responses: Union[Mapping[str, Any], JsonText, None] = None,
        capabilities: Capabilities = None,
        workspace_size: int = 0,
    ) -> "Round":
        """Start a 2026-07-28 round (``elicit_round_new_modern``).

        ``arguments`` (default ``{}``) and ``input_responses`` are mappings or raw JSON
        text; ``request_state`` is the plaintext state the client sent back (already
        unsealed), or ``None``. ``capabilities`` is the client's ClientCapabilities
        (``_meta["io.modelcontextprotocol/clientCapabilities"]``) as a mapping or JSON
        text; ``None`` means form elicitation only. Raises
        :class:`~elicit_mcp.CallInputError` for bad arguments and
        :class:`~elicit_mcp.InputResponsesError` (JSON-RPC ``-32602``) for a malformed
        ``inputResponses``; polling raises :class:`~elicit_mcp.MissingCapabilityError`
        (JSON-RPC ``-32021``) before any question of a kind the client did not declare
        is shown.
        """
        args = b"{}" if arguments is None else json_input(arguments, "arguments")
        state = None if request_state is None else text_input(request_state, "request_state")
        replies = (
            None if input_responses is None else json_input(input_responses, "input_responses")
        )
        caps = None if capabilities is None else json_input(capabilities, "capabilities")
        return self._start(
            "modern",
            workspace_size,
            arguments=args,
            request_state=state,
            input_responses=replies,
            client_capabilities=caps,
        )

    def handshake(
        self,
        arguments: Union[Mapping[str, Any], JsonText, None] = None,
        *,
        capabilities: Capabilities = None,
        workspace_size: int = 0,
    ) -> "Round":
        """Start a handshake-era round (requests one at a time, :class:`Ask` steps).

        ``capabilities``: the ClientCapabilities the client sent in ``initialize`` (a
        mapping or JSON text; ``None`` means form elicitation only).
        """
        args = b"{}" if arguments is None else json_input(arguments, "arguments")
        caps = None if capabilities is None else json_input(capabilities, "capabilities")
        return self._start("handshake", workspace_size, arguments=args, client_capabilities=caps)

    def _start(self, era: str, workspace_size: int, **texts: Optional[bytes]) -> "Round":
        """``elicit_round_new_<era>`` over the round's input texts (an ``ElicitRoundInput``)."""
        size = _workspace(workspace_size)
        out = _ffi.RoundPtr()
        h = self._acquire()
        try:
            new = getattr(self._lib, f"elicit_round_new_{era}")
            call_reporting(new, h, byref(_ffi.texts(_ffi.ElicitRoundInput, **texts)), size, byref(out))
        finally:
            self._release()
        return Round(self._lib, out, self._names, self._kinds, era)


def _workspace(size: int) -> int:
    if not isinstance(size, int) or size < 0:
        raise ValueError(f"workspace_size must be a non-negative int, got {size!r}")
    return size


# ----------------------------------------------------------------------------- steps


class Step:
    """What the round needs next (from :meth:`Round.poll` or :meth:`Round.steps`)."""

    kind: ClassVar[StepKind]
    #: the parameter the step concerns (``None`` for :class:`Done`/:class:`InputRequired`)
    param: Optional[int]
    name: Optional[str]

    def __init__(self, round_: "Round", param: Optional[int], name: Optional[str]) -> None:
        self.round = round_
        self.param = param
        self.name = name
        #: set once the step was answered successfully (Resolve, Ask)
        self.answered = False

    @property
    def terminal(self) -> bool:
        """True for :class:`Done`, :class:`InputRequired` and :class:`Fallback`."""
        return self.kind in (StepKind.DONE, StepKind.INPUT_REQUIRED, StepKind.FALLBACK)

    def __repr__(self) -> str:
        if self.name is None:
            return f"<{type(self).__name__}>"
        return f"<{type(self).__name__} {self.name!r} (#{self.param})>"


class Resolve(Step):
    """Run the resolver of :attr:`name` with :meth:`inputs`, then answer with
    :meth:`value`, :meth:`question` or :meth:`fail`."""

    kind = StepKind.RESOLVE
    param: int
    name: str

    def inputs(self) -> dict[str, Any]:
        """The resolver's inputs ``{need: value}``."""
        value: dict[str, Any] = json.loads(self.round.resolve_inputs_bytes())
        return value

    def inputs_bytes(self) -> bytes:
        """The resolver's inputs as the engine's JSON bytes."""
        return self.round.resolve_inputs_bytes()

    def value(self, value: Any) -> None:
        """The resolver returned a value (nothing is asked)."""
        self.round.resolve_value(value)
        self.answered = True

    def value_json(self, text: JsonText) -> None:
        """The resolver returned a value, given as raw JSON text."""
        self.round.resolve_value_json(text)
        self.answered = True

    def input(self, name: str) -> Any:
        """One input by name, parsed (:class:`~elicit_mcp.NotFoundError` when the resolver
        has no input called ``name``)."""
        return self.round.resolve_input(name)

    def input_text(self, name: str) -> str:
        """A string input (:class:`~elicit_mcp.WrongTypeError` for any other JSON type)."""
        return self.round.resolve_input_text(name)

    def input_int(self, name: str) -> int:
        """An integer input (``3`` and ``3.0``; within int64)."""
        return self.round.resolve_input_int(name)

    def input_number(self, name: str) -> float:
        """A number input, as the nearest float."""
        return self.round.resolve_input_number(name)

    def input_bool(self, name: str) -> bool:
        """A boolean input."""
        return self.round.resolve_input_bool(name)

    def question(
        self,
        question: Union[str, Mapping[str, Any]],
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
    ) -> None:
        """The resolver asks: a message (plain text, with an optional title and
        description), or a question object in the shape of the parameter's kind
        (:attr:`Param.kind`): form ``{"message", "type"?, "title"?, "description"?}``,
        URL ``{"message", "url"}``, sampling ``{"sampling": {CreateMessageRequest
        params}}``, roots ``{"roots": {}}``. Plain text is for form parameters only."""
        self.round.resolve_question(question, title=title, description=description)
        self.answered = True

    def question_json(self, text: JsonText) -> None:
        """The resolver asks, with a question object given as raw JSON text."""
        self.round.resolve_question_json(text)
        self.answered = True

    def fail(self, dependency: str) -> None:
        """The resolver's own dependency could not be built: the round fails
        (:class:`~elicit_mcp.ResolutionError`, raised here)."""
        self.round.resolve_failed(dependency)


class Ask(Step):
    """Handshake era: send :meth:`request` to the client with method :attr:`method`
    and pass its result to :meth:`answer`."""

    kind = StepKind.ASK
    param: int
    name: str

    @property
    def input_kind(self) -> InputKind:
        """How the parameter is asked (form, URL mode, sampling, roots)."""
        kind = self.round.param_kind(self.param)
        assert kind is not None  # an asked parameter is elicited
        return kind

    @property
    def method(self) -> str:
        """The JSON-RPC method to send: ``elicitation/create``,
        ``sampling/createMessage`` or ``roots/list``."""
        return self.input_kind.method

    def request(self) -> dict[str, Any]:
        """The request's params: ``{"mode": "form", "message", "requestedSchema"}``;
        URL mode ``{"mode": "url", "message", "url", "elicitationId"}`` (send
        ``notifications/elicitation/complete`` with the id when the flow is done);
        sampling and roots: the declared params."""
        value: dict[str, Any] = json.loads(self.round.ask_bytes())
        return value

    def request_bytes(self) -> bytes:
        """The request's params as the engine's JSON bytes."""
        return self.round.ask_bytes()

    def answer(self, result: Mapping[str, Any]) -> None:
        """The client's result for the request's kind: an ElicitResult
        (``{"action": ..., "content"?: ...}``; URL mode: the action alone), a
        CreateMessageResult (sampling) or a ListRootsResult (roots). A client that
        refused a sampling or roots request: ``{"action": "decline"}``."""
        self.round.answer(result)
        self.answered = True

    def answer_json(self, text: JsonText) -> None:
        """Answer with the client's ElicitResult as raw JSON text."""
        self.round.answer_json(text)
        self.answered = True

    def accept(self, value: Any) -> None:
        """``{"action": "accept", "content": {"value": value}}`` (a form answer; a URL
        answer is ``answer({"action": "accept"})``)."""
        self.answer({"action": "accept", "content": {"value": value}})

    def decline(self) -> None:
        """The user declined (``{"action": "decline"}``)."""
        self.answer({"action": "decline"})

    def cancel(self) -> None:
        """The user cancelled (``{"action": "cancel"}``)."""
        self.answer({"action": "cancel"})


class Done(Step):
    """Every elicited parameter is settled: read :meth:`values`, run the tool body."""

    kind = StepKind.DONE

    def values(self) -> dict[str, Any]:
        """The elicited values ``{name: value}``, in resolution order."""
        return self.round.values()

    def values_bytes(self) -> bytes:
        """The elicited values as the engine's JSON bytes."""
        return self.round.values_bytes()

    def value_of(self, key: Union[int, str]) -> Any:
        """One parameter's value, by index or name."""
        return self.round.value_of(key)


class InputRequired(Step):
    """Modern era: answer the call with an InputRequiredResult built from
    :meth:`input_requests` and (sealed) :meth:`request_state`."""

    kind = StepKind.INPUT_REQUIRED

    def input_requests(self, client_view: bool = False) -> dict[str, Any]:
        """The ``inputRequests`` object, parsed (``client_view``: as the SDK's client model renders it)."""
        return self.round.input_requests(client_view)

    def input_requests_bytes(self, client_view: bool = False) -> bytes:
        """The ``inputRequests`` object as the engine's JSON bytes."""
        return self.round.input_requests_bytes(client_view)

    def request_state(self) -> str:
        """The plaintext ``requestState`` to seal (:meth:`~elicit_mcp.Sealer.seal`) and send."""
        return self.round.request_state()

    def request_state_bytes(self) -> bytes:
        """The plaintext ``requestState`` as bytes (ASCII JSON)."""
        return self.round.request_state_bytes()


class Fallback(Step):
    """A tool declared with ``"fallback": "arguments"`` called by a client that cannot be
    asked (docs/fallback.md): answer the call with :meth:`result`, the tool result
    (``isError: true``) telling the model which parameters to ask the user for and to
    call again with the answers as arguments. No state travels."""

    kind = StepKind.FALLBACK

    def result(self) -> dict[str, Any]:
        """The tool result for the model (``content``, ``isError``, ``_meta``), parsed."""
        return self.round.fallback_result()

    def result_bytes(self) -> bytes:
        """The tool result for the model as the engine's JSON bytes."""
        return self.round.fallback_result_bytes()


_STEP_TYPES: dict[int, Type[Step]] = {
    int(StepKind.RESOLVE): Resolve,
    int(StepKind.ASK): Ask,
    int(StepKind.DONE): Done,
    int(StepKind.INPUT_REQUIRED): InputRequired,
    int(StepKind.FALLBACK): Fallback,
}

# ----------------------------------------------------------------------------- Round

_Reader = Callable[..., Any]


class Round:
    """One round of one tool call (``elicit_round``), created by :meth:`Plan.modern`
    or :meth:`Plan.handshake`.

    Use it as a context manager or call :meth:`close`; afterwards every method raises
    :class:`~elicit_mcp.ClosedError`. A round is used by one thread at a time: calls from
    several threads are serialized by a lock (never a crash, but no parallelism).
    Outputs of any size are read whole (a too-small buffer is grown and the read
    retried).
    """

    #: The first output buffer's size; it grows to fit as needed.
    initial_buffer_size: ClassVar[int] = 1024

    def __init__(
        self,
        lib: _ffi.Lib,
        handle: Any,
        names: Tuple[str, ...],
        kinds: Tuple[Optional[InputKind], ...],
        era: str,
    ) -> None:
        self._lib = lib
        self._handle: Any = handle
        self._names = names
        self._kinds = kinds
        self._lock = threading.RLock()
        self._out = Buffer(self.initial_buffer_size)
        self._answers = 0  # successful answers so far (for steps())
        #: ``"modern"`` or ``"handshake"``
        self.era = era

    # ------------------------------------------------------------- handle lifetime

    def close(self) -> None:
        """Free the round (idempotent)."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            h, self._handle = self._handle, None
            if h is not None:
                self._lib.elicit_round_free(h)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._handle is None

    def __enter__(self) -> "Round":
        self._live()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<elicit_mcp.Round {self.era} {'closed' if self.closed else 'open'}>"

    def _live(self) -> Any:
        h = self._handle
        if h is None:
            raise ClosedError("round")
        return h

    def _fail(self, h: Any, rc: int) -> ElicitError:
        try:
            message = self._last_error(h).decode("utf-8", "replace")
        except ElicitError:
            message = ""
        if rc == _MISSING_CAPABILITY:
            required = json.loads(self._read(h, self._lib.elicit_round_required_capabilities))
            return MissingCapabilityError(rc, python_message(message), required)
        return error_for(rc, message)

    def _read(self, h: Any, fn: _Reader, *lead: Any) -> bytes:
        """A reader call (``..., buf, cap, out_len``), growing the buffer as needed."""
        return self._out.read(
            lambda buf, cap, out_len: fn(h, *lead, buf, cap, out_len),
            lambda rc: self._fail(h, rc),
        )

    def _last_error(self, h: Any) -> bytes:
        return self._out.read(
            lambda buf, cap, out_len: self._lib.elicit_round_last_error(h, buf, cap, out_len),
            lambda rc: error_for(rc, ""),
        )

    def _output(self, fn: _Reader, *lead: Any) -> bytes:
        with self._lock:
            return self._read(self._live(), fn, *lead)

    def _input(self, fn: _Reader, text: bytes) -> None:
        with self._lock:
            h = self._live()
            rc = int(fn(h, text, len(text)))
            if rc != _OK:
                raise self._fail(h, rc)
            self._answers += 1

    def _index(self, key: Union[int, str]) -> int:
        if isinstance(key, str):
            try:
                return self._names.index(key)
            except ValueError:
                raise NotFoundError(
                    int(Result.ERR_NOT_FOUND), f"no parameter is called {key!r}"
                ) from None
        return key

    def param_name(self, index: int) -> str:
        """The name of parameter ``index`` (signature order)."""
        return self._names[index]

    def param_kind(self, key: Union[int, str]) -> Optional[InputKind]:
        """How parameter ``key`` (index or name) is asked; ``None`` for a
        model-supplied argument."""
        return self._kinds[self._index(key)]

    # ---------------------------------------------------------------------- steps

    def poll_raw(self) -> Tuple[StepKind, int]:
        """``elicit_round_poll``: ``(step kind, param index or NO_PARAM)``.

        A failed round raises its error (``3xx`` :class:`~elicit_mcp.CallInputError`,
        ``4xx`` :class:`~elicit_mcp.ResolutionError`) on this and every later call.
        """
        with self._lock:
            h = self._live()
            step = c_uint32(0)
            param = c_size_t(0)
            rc = int(self._lib.elicit_round_poll(h, byref(step), byref(param)))
            if rc != _OK:
                raise self._fail(h, rc)
            return StepKind(step.value), int(param.value)

    def poll(self) -> Step:
        """The current step as a :class:`Resolve`, :class:`Ask`, :class:`Done` or
        :class:`InputRequired` object (polling again without answering gives it again)."""
        kind, param = self.poll_raw()
        if param == NO_PARAM:
            return _STEP_TYPES[kind](self, None, None)
        return _STEP_TYPES[kind](self, param, self._names[param])

    def steps(self) -> Iterator[Step]:
        """Drive the round: yields each step until a terminal one (Done or
        InputRequired), which is yielded last.

        Every :class:`Resolve` and :class:`Ask` must be answered (through the step
        object or the round) before the loop asks for the next one, else
        :class:`~elicit_mcp.WrongStepError`. The round's failure (``3xx``/``4xx``) is
        raised from the loop, also when an answer that failed it was caught.
        """
        while True:
            step = self.poll()
            answers = self._answers
            yield step
            if step.terminal:
                return
            if self._answers == answers:
                # Nothing was answered: a failed round raises its error here.
                self.poll_raw()
                raise WrongStepError(
                    int(Result.ERR_WRONG_STEP),
                    f"the {step.kind.name} step for {step.name!r} was not answered "
                    "before the next step was requested",
                )

    # -------------------------------------------------------------------- readers

    def resolve_inputs_bytes(self) -> bytes:
        """During RESOLVE: the resolver's inputs as the engine's JSON bytes."""
        return self._output(self._lib.elicit_round_resolve_inputs)

    def resolve_inputs(self) -> dict[str, Any]:
        """During RESOLVE: the resolver's inputs ``{need: value}``, parsed."""
        value: dict[str, Any] = json.loads(self.resolve_inputs_bytes())
        return value

    def ask_bytes(self) -> bytes:
        """During ASK: the request's params (see :meth:`Ask.request`), JSON bytes."""
        return self._output(self._lib.elicit_round_ask)

    def ask(self) -> dict[str, Any]:
        """During ASK: the request's params, parsed."""
        value: dict[str, Any] = json.loads(self.ask_bytes())
        return value

    def values_bytes(self) -> bytes:
        """After DONE: the elicited values, compact UTF-8 JSON in resolution order."""
        return self._output(self._lib.elicit_round_values)

    def values(self) -> dict[str, Any]:
        """After DONE: the elicited values, parsed."""
        value: dict[str, Any] = json.loads(self.values_bytes())
        return value

    def value_of_bytes(self, key: Union[int, str]) -> bytes:
        """After DONE: one parameter's value (by index or name), JSON bytes."""
        index = self._index(key)
        if index < 0:
            raise UsageError(int(Result.ERR_INDEX), f"parameter index {index} is out of range")
        return self._output(self._lib.elicit_round_value_of, index)

    def value_of(self, key: Union[int, str]) -> Any:
        """After DONE: one parameter's value (by index or name), parsed."""
        return json.loads(self.value_of_bytes(key))

    def input_requests_bytes(self, client_view: bool = False, *, flags: Optional[int] = None) -> bytes:
        """After INPUT_REQUIRED: the ``inputRequests`` object, JSON bytes.

        ``client_view`` renders them as the MCP SDK's client-side model does
        (``ELICIT_REQUESTS_CLIENT_VIEW``); ``flags`` passes raw flag bits instead.
        """
        bits = (REQUESTS_CLIENT_VIEW if client_view else 0) if flags is None else flags
        return self._output(self._lib.elicit_round_input_requests, bits)

    def input_requests(self, client_view: bool = False) -> dict[str, Any]:
        """After INPUT_REQUIRED: the ``inputRequests`` object, parsed."""
        value: dict[str, Any] = json.loads(self.input_requests_bytes(client_view))
        return value

    def request_state_bytes(self) -> bytes:
        """After INPUT_REQUIRED: the plaintext ``requestState`` (ASCII JSON) to seal."""
        return self._output(self._lib.elicit_round_request_state)

    def request_state(self) -> str:
        """After INPUT_REQUIRED: the plaintext ``requestState`` to seal."""
        return self.request_state_bytes().decode("ascii")

    def fallback_result_bytes(self) -> bytes:
        """After FALLBACK: the tool result for the model (docs/fallback.md), JSON bytes."""
        return self._output(self._lib.elicit_round_fallback_result)

    def fallback_result(self) -> dict[str, Any]:
        """After FALLBACK: the tool result for the model, parsed."""
        value: dict[str, Any] = json.loads(self.fallback_result_bytes())
        return value

    def required_capabilities(self) -> dict[str, Any]:
        """After :class:`~elicit_mcp.MissingCapabilityError`: the ``requiredCapabilities``
        object (also on the exception). :class:`~elicit_mcp.WrongStepError` when the round
        has not failed that way."""
        value: dict[str, Any] = json.loads(
            self._output(self._lib.elicit_round_required_capabilities)
        )
        return value

    def note_count(self) -> int:
        """How many notes the round has made so far."""
        with self._lock:
            h = self._live()
            count = c_size_t(0)
            rc = int(self._lib.elicit_round_note_count(h, byref(count)))
            if rc != _OK:
                raise self._fail(h, rc)
            return int(count.value)

    def note(self, index: int) -> Note:
        """Note ``index`` (in the order they happened)."""
        with self._lock:
            h = self._live()
            level = c_uint32(0)
            param = c_size_t(0)
            text = self._read(h, self._lib.elicit_round_note, index, byref(level), byref(param))
            p = int(param.value)
            name = self._names[p] if p < len(self._names) else ""
            return Note(NoteLevel(level.value), p, name, text.decode("utf-8"))

    def notes(self) -> List[Note]:
        """Every note so far (available in every state, failed rounds included)."""
        with self._lock:
            return [self.note(i) for i in range(self.note_count())]

    def last_error_bytes(self) -> bytes:
        """The message of the most recent failed call on this round (empty if none)."""
        with self._lock:
            return self._last_error(self._live())

    def last_error(self) -> str:
        """The message of the most recent failed call on this round (empty if none)."""
        return self.last_error_bytes().decode("utf-8", "replace")

    # -------------------------------------------------------------------- answers

    def resolve_value(self, value: Any) -> None:
        """Answer RESOLVE with the value the resolver returned (any JSON value)."""
        self._input(self._lib.elicit_round_resolve_value, dumps(value))

    def resolve_value_json(self, text: JsonText) -> None:
        """Answer RESOLVE with a value given as raw JSON text."""
        self._input(self._lib.elicit_round_resolve_value, text_input(text, "value"))

    def resolve_question(
        self,
        question: Union[str, Mapping[str, Any]],
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
    ) -> None:
        """Answer RESOLVE with a question: a message as plain text (the library writes
        the question, ``elicit_round_resolve_question_text``; ``title`` and
        ``description`` optional), or a question object (``type`` too)."""
        if not isinstance(question, str):
            if title is not None or description is not None:
                raise TypeError("title and description go inside a question object")
            self._input(self._lib.elicit_round_resolve_question, dumps(question))
            return
        texts = [question.encode("utf-8")]
        texts += [b"" if t is None else t.encode("utf-8") for t in (title, description)]
        args: List[Any] = []
        for text, given in zip(texts, (True, title is not None, description is not None)):
            args += [text if given else None, len(text)]
        with self._lock:
            h = self._live()
            rc = int(self._lib.elicit_round_resolve_question_text(h, *args))
            if rc != _OK:
                raise self._fail(h, rc)
            self._answers += 1

    def resolve_input_bytes(self, name: str) -> bytes:
        """During RESOLVE: input ``name`` as the engine's JSON bytes."""
        n = name.encode("utf-8")
        return self._output(self._lib.elicit_round_resolve_input, n, len(n))

    def resolve_input(self, name: str) -> Any:
        """During RESOLVE: input ``name``, parsed."""
        return json.loads(self.resolve_input_bytes(name))

    def resolve_input_text(self, name: str) -> str:
        """During RESOLVE: string input ``name``, decoded."""
        n = name.encode("utf-8")
        return self._output(self._lib.elicit_round_resolve_input_text, n, len(n)).decode("utf-8")

    def _scalar(self, fn: Callable[..., Any], name: str, out: Any) -> Any:
        n = name.encode("utf-8")
        with self._lock:
            h = self._live()
            rc = int(fn(h, n, len(n), byref(out)))
            if rc != _OK:
                raise self._fail(h, rc)
            return out.value

    def resolve_input_int(self, name: str) -> int:
        """During RESOLVE: integer input ``name`` (an integral JSON number in int64)."""
        return int(self._scalar(self._lib.elicit_round_resolve_input_int, name, c_int64(0)))

    def resolve_input_number(self, name: str) -> float:
        """During RESOLVE: number input ``name``, as the nearest float."""
        return float(self._scalar(self._lib.elicit_round_resolve_input_number, name, c_double(0)))

    def resolve_input_bool(self, name: str) -> bool:
        """During RESOLVE: boolean input ``name``."""
        return bool(self._scalar(self._lib.elicit_round_resolve_input_bool, name, c_bool(False)))

    def resolve_question_json(self, text: JsonText) -> None:
        """Answer RESOLVE with a question object given as raw JSON text."""
        self._input(self._lib.elicit_round_resolve_question, text_input(text, "question"))

    def resolve_failed(self, dependency: str) -> None:
        """Fail RESOLVE: the resolver's dependency could not be built. The round
        fails: this raises :class:`~elicit_mcp.ResolutionError` with the reference message."""
        self._input(self._lib.elicit_round_resolve_failed, dependency.encode("utf-8"))

    def answer(self, result: Mapping[str, Any]) -> None:
        """Answer ASK with the client's result for the request's kind (see
        :meth:`Ask.answer`)."""
        self._input(self._lib.elicit_round_answer, json_input(result, "result"))

    def answer_json(self, text: JsonText) -> None:
        """Answer ASK with the client's result as raw JSON text."""
        self._input(self._lib.elicit_round_answer, text_input(text, "result"))
