"""Declarations on the signature: :func:`tool` reads a function's type hints and compiles
them to a :class:`~elicit_mcp.Plan`, with the tool's ``inputSchema`` from the same
signature.

A plain parameter is a model argument (listed in ``inputSchema``, checked against its
type before anything runs). A parameter annotated ``Annotated[T, Elicit(...)]`` is asked
of the user instead: a literal question (``Elicit("Which date?")``), a resolver
(``Elicit(resolver=fn)``: ``fn``'s parameters name what it needs, it returns a value or a
:class:`Question`; sync or async), a URL-mode, sampling or roots request. The
parameter's default (``= None``) is taken when the user declines or cancels::

    def airport(destination: str) -> Union[str, Question]:
        return "LHR" if destination == "London" else Question(f"Which airport in {destination}?")

    @tool(title="Book Flight")
    async def book_flight(
        destination: Annotated[str, Elicit("Where would you like to fly?")],
        airport: Annotated[str, Elicit(resolver=airport)],
        seat: Annotated[Optional[Literal["window", "aisle"]], Elicit("Window or aisle?")] = None,
    ) -> str: ...

Every declaration mistake is raised when the decorator runs
(:class:`~elicit_mcp.DeclarationError`). :meth:`Declared.run` drives one round in either
era with no SDK involved; :mod:`elicit_mcp.mcp` serves it from the MCP Python SDK.
"""

from __future__ import annotations

import enum
import inspect
import sys
import typing
from dataclasses import dataclass
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Tuple,
    Union,
)

from ._engine import Ask, Capabilities, Done, Fallback, InputRequired, Plan, Resolve, Round
from .constants import Result
from .errors import CallInputError, DeclarationError, InternalError, ResolutionError

__all__ = [
    "ArgumentsError",
    "Asked",
    "Declared",
    "Elicit",
    "FallbackResult",
    "Finished",
    "Pending",
    "Question",
    "ResolverValueError",
    "context_class",
    "default_title",
    "prompt",
    "resource",
    "tool",
]

_KINDS = ("form", "url", "sampling", "roots")


@dataclass(frozen=True)
class Elicit:
    """How an ``Annotated[T, Elicit(...)]`` parameter is asked.

    Give exactly one of: ``message`` (a form question, optional ``title`` and
    ``description``; with ``url``, a URL-mode request), ``sampling`` (a
    CreateMessageRequest's params), ``roots`` (a ListRootsRequest's params, usually
    ``{}``) or ``resolver`` (a function run on every round: its parameters name the
    arguments and elicited parameters it needs, it returns a value, asking nothing, or
    a :class:`Question`; ``kind`` says which kind of question it may ask, ``"form"`` by
    default). ``schema`` gives a form's ``requestedSchema`` verbatim (the parameter
    settles to the accepted content object) instead of deriving it from ``T``.
    ``outcome=True`` settles the parameter to the outcome itself
    (``{"action": "accept", "value": ...}``, ``{"action": "decline"}``, ...).
    ``fallback=False`` keeps the parameter out of a tool's declared fallback
    (``@tool(fallback="arguments")``, docs/fallback.md): what only the user may answer (a
    confirmation, a secret) is never taken from the model, and a client that cannot be
    asked it gets -32021.
    """

    message: Optional[str] = None
    resolver: Optional[Callable[..., Any]] = None
    kind: Optional[str] = None
    url: Optional[str] = None
    sampling: Optional[Mapping[str, Any]] = None
    roots: Optional[Mapping[str, Any]] = None
    title: Optional[str] = None
    description: Optional[str] = None
    outcome: bool = False
    schema: Optional[Mapping[str, Any]] = None
    fallback: bool = True


@dataclass(frozen=True)
class Question:
    """What a resolver returns to ask: a form question (``message``, optional ``title``
    and ``description``), a URL-mode request (``message`` and ``url``), a sampling
    request (``sampling``, CreateMessageRequest params) or a roots request (``roots``)."""

    message: Optional[str] = None
    title: Optional[str] = None
    description: Optional[str] = None
    url: Optional[str] = None
    sampling: Optional[Mapping[str, Any]] = None
    roots: Optional[Mapping[str, Any]] = None

    def wire(self) -> Dict[str, Any]:
        """The question object the engine takes."""
        if self.sampling is not None:
            return {"sampling": dict(self.sampling)}
        if self.roots is not None:
            return {"roots": dict(self.roots)}
        q: Dict[str, Any] = {"message": self.message}
        for key in ("title", "description", "url"):
            value = getattr(self, key)
            if value is not None:
                q[key] = value
        return q


class ArgumentsError(CallInputError):
    """A model argument is missing or not of its declared type (``ELICIT_ERR_ARGUMENTS``,
    JSON-RPC ``-32602``); nothing was resolved or asked. A tool answers it as an
    ``isError`` result (the model can correct its call, as the MCP spec advises for
    input validation); ``prompts/get`` answers :attr:`jsonrpc_error`."""

    def __init__(self, message: str) -> None:
        super().__init__(int(Result.ERR_ARGUMENTS), message)

    def __reduce__(self) -> Any:
        return (type(self), (self.message,))


def _declaration_error(where: str, problem: str) -> DeclarationError:
    return DeclarationError(int(Result.ERR_DECLARATION), f"{where}: {problem}")


class ResolverValueError(InternalError):
    """A resolver returned a value outside its parameter's type or enum (a server bug,
    ``ELICIT_ERR_RESOLVER_ANSWER``): :attr:`message` names the resolver and the value
    for the log; the client reads JSON-RPC ``-32603 "Internal error"``."""

    def __init__(self, message: str) -> None:
        super().__init__(int(Result.ERR_RESOLVER_ANSWER), message)

    def __reduce__(self) -> Any:
        return (type(self), (self.message,))


def default_title(name: str) -> str:
    """A literal question's default field title: the parameter's name, titled as
    ``party_size`` -> ``"Party size"`` (the Rust derive's default too)."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else "Value"


def context_class() -> Any:
    """``mcp.server.mcpserver.Context`` when the SDK's module is loaded, else ``None``
    (an annotation can name it only once it is imported, so nothing is imported here)."""
    module = sys.modules.get("mcp.server.mcpserver.context")
    return getattr(module, "Context", None) if module is not None else None


def _is_context(annotation: Any) -> bool:
    """Whether a parameter takes the SDK's ``Context``, found as ``MCPServer`` finds it
    (``find_context_parameter``): a ``Context`` hint, or one inside a generic such as
    ``Optional[Context]``."""
    ctx = context_class()
    if ctx is None:
        return False
    if inspect.isclass(annotation) and issubclass(annotation, ctx):
        return True
    if typing.get_origin(annotation) is not None:
        return any(inspect.isclass(a) and issubclass(a, ctx) for a in typing.get_args(annotation))
    return False


#: The MCP Python SDK's own markers (mcp.server.mcpserver.resolve) and what to write instead.
_SDK_MARKERS = {
    "Resolve": "Annotated[T, Elicit(resolver=fn)] (from elicit_mcp import Elicit), fn returning a value or elicit_mcp.Question(...)",
    "Elicit": 'Annotated[T, Elicit("your question")] (from elicit_mcp import Elicit)',
    "Sample": "Annotated[T, Elicit(sampling={...})] (CreateMessageRequest params)",
    "ListRoots": "Annotated[T, Elicit(roots={})]",
}


def _sdk_marker(m: Any) -> Optional[str]:
    """The SDK marker's name when ``m`` is one of mcp's (an instance or the class)."""
    cls = m if isinstance(m, type) else type(m)
    if cls.__module__.startswith("mcp.") and cls.__name__ in _SDK_MARKERS:
        return cls.__name__
    origin = typing.get_origin(m)
    if origin is not None and isinstance(origin, type) and origin.__module__.startswith("mcp."):
        return _sdk_marker(origin)
    return None


# ------------------------------------------------------------------------------ types


def _strip_optional(t: Any) -> Tuple[Any, bool]:
    """``Optional[T]`` → ``(T, True)``; anything else → ``(t, False)``."""
    if typing.get_origin(t) is Union or type(t).__name__ == "UnionType":
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(t)) == 2:
            return args[0], True
    return t, False


def _literal_strings(t: Any) -> Optional[List[str]]:
    if typing.get_origin(t) is Literal:
        values = list(typing.get_args(t))
        if values and all(isinstance(v, str) for v in values):
            return values
    if isinstance(t, type) and issubclass(t, enum.Enum):
        values = [m.value for m in t]
        if values and all(isinstance(v, str) for v in values):
            return values
    return None


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and hasattr(t, "model_validate") and hasattr(t, "model_json_schema")


def _answer_type(t: Any, where: str) -> Any:
    """The engine's answer type (declaration JSON) for a form parameter of type ``t``."""
    if t is str:
        return "string"
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "number"
    choices = _literal_strings(t)
    if choices is not None:
        return {"enum": choices}
    if typing.get_origin(t) in (list, List, typing.Sequence, tuple) or t is list:
        args = typing.get_args(t)
        items = _literal_strings(args[0]) if args else None
        if items is not None:
            return {"type": "array", "items": {"enum": items}}
    if _is_model(t):
        schema = t.model_json_schema()
        props = dict(schema.get("properties", {}))
        return {"type": "object", "title": schema.get("title", t.__name__), "properties": props}
    raise _declaration_error(
        where,
        f"{_type_name(t)} cannot be asked in a form; use str, int, float, bool, "
        "Literal[...] or an Enum of strings, list[Literal[...]], or a pydantic model of "
        "such fields",
    )


def _type_name(t: Any) -> str:
    return getattr(t, "__name__", None) or repr(t)


def _arg_schema(t: Any) -> Dict[str, Any]:
    """A model argument's JSON Schema for ``inputSchema``."""
    inner, optional = _strip_optional(t)
    if optional:
        return {"anyOf": [_arg_schema(inner), {"type": "null"}]}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number", dict: "object", list: "array"}
    if inner in simple:
        return {"type": simple[inner]}
    choices = _literal_strings(inner)
    if choices is not None:
        return {"enum": choices, "type": "string"}
    origin = typing.get_origin(inner)
    if origin in (list, tuple, typing.Sequence):
        args = typing.get_args(inner)
        return {"type": "array", "items": _arg_schema(args[0])} if args else {"type": "array"}
    if origin in (dict, typing.Mapping):
        return {"type": "object"}
    if _is_model(inner):
        schema: Dict[str, Any] = inner.model_json_schema()
        return schema
    if inner is Any or inner is inspect.Parameter.empty:
        return {}
    try:
        import pydantic

        adapted: Dict[str, Any] = pydantic.TypeAdapter(inner).json_schema()
        return adapted
    except Exception:
        return {}


def _expected(t: Any) -> str:
    """What a form answer of type ``t`` must be, in words (for a mismatch message)."""
    words = {str: "a string", bool: "a boolean (true or false)", int: "an integer", float: "a number"}
    if t in words:
        return words[t]
    choices = _literal_strings(t)
    if choices is not None:
        return "one of " + ", ".join(repr(c) for c in choices)
    args = typing.get_args(t)
    items = _literal_strings(args[0]) if args else None
    if items is not None:
        return "a list of " + ", ".join(repr(c) for c in items)
    return f"a {_type_name(t)}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _check_arg(t: Any, value: Any, name: str) -> Any:
    """``value`` checked against ``t`` strictly by JSON type (``"4"`` is not an int);
    the value the tool body gets (a model built from an object)."""
    inner, optional = _strip_optional(t)
    if value is None and optional:
        return None

    def wrong(expected: str) -> ArgumentsError:
        return ArgumentsError(f"argument {name!r} must be {expected}, got {_json_type(value)}")

    if inner is str:
        if not isinstance(value, str):
            raise wrong("a string")
        return value
    if inner is bool:
        if not isinstance(value, bool):
            raise wrong("a boolean")
        return value
    if inner is int:
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        ):
            raise wrong("an integer")
        return int(value)
    if inner is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong("a number")
        return float(value)
    choices = _literal_strings(inner)
    if choices is not None:
        if value not in choices:
            raise ArgumentsError(f"argument {name!r} must be one of {choices}, got {value!r}")
        return inner(value) if isinstance(inner, type) else value
    origin = typing.get_origin(inner)
    if inner is list or origin in (list, typing.Sequence):
        if not isinstance(value, list):
            raise wrong("an array")
        args = typing.get_args(inner)
        return [_check_arg(args[0], v, f"{name}[{i}]") for i, v in enumerate(value)] if args else value
    if inner is dict or origin in (dict, typing.Mapping):
        if not isinstance(value, dict):
            raise wrong("an object")
        return value
    if _is_model(inner):
        try:
            return inner.model_validate(value)
        except Exception as e:
            raise ArgumentsError(f"argument {name!r} does not fit {inner.__name__}: {e}") from None
    return value


# ------------------------------------------------------------------------ declaration


@dataclass
class _Resolver:
    fn: Callable[..., Any]
    needs: Tuple[str, ...]
    is_async: bool
    #: the parameter taking the SDK's Context, if any
    context: Optional[str]
    #: the parameter's type (checked against the values the resolver returns)
    annotation: Any
    has_default: bool


@dataclass
class _Param:
    name: str
    annotation: Any
    elicit: Optional[Elicit]
    has_default: bool
    default: Any


@dataclass(frozen=True)
class Asked:
    """Handshake era: the round sends ``method`` with ``params`` to the client."""

    name: str
    method: str
    params: Dict[str, Any]


@dataclass(frozen=True)
class Pending:
    """Modern era: answer the request with an InputRequiredResult of ``input_requests``
    and ``request_state`` (plaintext: seal it, or let the SDK's boundary seal it)."""

    input_requests: Dict[str, Any]
    request_state: str

    def result(self) -> Dict[str, Any]:
        """The result as a wire mapping (``resultType: "input_required"``)."""
        return {
            "resultType": "input_required",
            "inputRequests": self.input_requests,
            "requestState": self.request_state,
        }


@dataclass(frozen=True)
class FallbackResult:
    """A tool declared with ``fallback="arguments"`` called by a client that cannot be
    asked (docs/fallback.md): answer the call with ``result``, the tool result for the
    model (``isError: true``; the questions under ``_meta["elicit/askUser"]``)."""

    result: Dict[str, Any]


@dataclass(frozen=True)
class Finished:
    """Every parameter is settled: ``value`` is what the function returned."""

    value: Any


#: The handshake era's back-channel: ``ask(method, params)`` sends one request to the
#: client and returns its result (a mapping or the SDK's result model).
AskClient = Callable[[str, Dict[str, Any]], Awaitable[Any]]


class Declared:
    """A function compiled by :func:`tool` (or :func:`prompt`, :func:`resource`): its
    :attr:`plan`, :attr:`input_schema` and the resolvers; call it like the function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        fallback: Optional[str] = None,
    ) -> None:
        self.fn = fn
        self.name: str = name or fn.__name__
        self.title = title
        self.description: Optional[str] = description if description is not None else inspect.getdoc(fn)
        self.is_async = inspect.iscoroutinefunction(fn)
        self.context_param: Optional[str] = None
        """The parameter taking the MCP Python SDK's ``Context`` (found as ``MCPServer``
        finds it; never a model argument), or ``None``."""
        self._params = self._read_signature(fn)
        self._resolvers: Dict[str, _Resolver] = {}
        self._kinds: Dict[str, Optional[str]] = {}
        self._converters: Dict[str, Callable[[Any], Any]] = {}
        # Resolver parameters whose values are checked against their type (a form with
        # a derived schema; not schema= or outcome=).
        self._checked: set[str] = set()
        parameters = [self._declare(p) for p in self._params]
        declaration: Dict[str, Any] = {"tool": self.name, "parameters": parameters}
        if fallback is not None:
            declaration["fallback"] = fallback
        self.fallback = fallback
        """The declared fallback (``"arguments"``, docs/fallback.md), or ``None``."""
        self.declaration: Dict[str, Any] = declaration
        """The declaration JSON the plan was compiled from."""
        self.plan = Plan(declaration)
        """The compiled :class:`~elicit_mcp.Plan` (shared by every call)."""
        self._args = [p for p in self._params if p.elicit is None]
        self.input_schema: Dict[str, Any] = {
            "type": "object",
            "properties": {p.name: self._arg_property(p) for p in self._args},
            "required": [p.name for p in self._args if not p.has_default],
        }
        """The ``inputSchema`` to list: the model arguments only."""

    # ------------------------------------------------------------------ reading

    def _where(self, pname: str) -> str:
        return f"{self.name}({pname})"

    def _read_signature(self, fn: Callable[..., Any]) -> List[_Param]:
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except Exception as e:
            raise _declaration_error(
                self.name,
                f"its type hints cannot be read ({e}); with `from __future__ import annotations`, "
                "an annotation may name only module-level objects",
            ) from None
        out = []
        for pname, p in inspect.signature(fn).parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise _declaration_error(self._where(pname), "*args and **kwargs cannot be declared")
            annotation = hints.get(pname, inspect.Parameter.empty)
            marker: Optional[Elicit] = None
            sdk = _sdk_marker(annotation)
            if sdk is not None:
                raise _declaration_error(
                    self._where(pname),
                    f"mcp's {sdk} is the SDK's own declared elicitation, which elicit does not "
                    f"run; write {_SDK_MARKERS[sdk]}",
                )
            if typing.get_origin(annotation) is typing.Annotated:
                base, *meta = typing.get_args(annotation)
                for m in meta:
                    sdk = _sdk_marker(m)
                    if sdk is not None:
                        raise _declaration_error(
                            self._where(pname),
                            f"mcp's {sdk}(...) marker belongs to the SDK's own declared "
                            f"elicitation, which elicit does not run; write {_SDK_MARKERS[sdk]}",
                        )
                markers = [m for m in meta if isinstance(m, Elicit)]
                if len(markers) > 1:
                    raise _declaration_error(self._where(pname), "more than one Elicit(...)")
                if markers:
                    marker = markers[0]
                annotation = base
            if _is_context(annotation):
                if marker is not None:
                    raise _declaration_error(
                        self._where(pname), "a Context parameter is injected by the SDK; it cannot be elicited"
                    )
                if self.context_param is not None:
                    raise _declaration_error(
                        self._where(pname), f"a second Context parameter (the first is {self.context_param!r})"
                    )
                self.context_param = pname
                continue
            has_default = p.default is not inspect.Parameter.empty
            out.append(_Param(pname, annotation, marker, has_default, p.default if has_default else None))
        return out

    def _declare(self, p: _Param) -> Dict[str, Any]:
        where = self._where(p.name)
        entry: Dict[str, Any] = {"name": p.name}
        if p.elicit is None:
            if p.has_default:
                entry["default"] = p.default
            return entry
        e = p.elicit
        given = [k for k in ("message", "sampling", "roots", "resolver") if getattr(e, k) is not None]
        if len(given) != 1:
            raise _declaration_error(
                where,
                "Elicit(...) takes exactly one of a message, sampling=, roots= or resolver= "
                f"(got {', '.join(given) or 'none'})",
            )
        if e.kind is not None and e.kind not in _KINDS:
            raise _declaration_error(where, f"kind={e.kind!r}; use one of {', '.join(_KINDS)}")
        if e.kind is not None and e.resolver is None:
            raise _declaration_error(where, "kind= belongs to a resolver; a literal question's shape gives its kind")
        if e.url is not None and e.message is None:
            raise _declaration_error(where, "url= needs a message")
        kind = (
            "sampling"
            if e.sampling is not None
            else "roots"
            if e.roots is not None
            else "url"
            if e.url is not None
            else (e.kind or "form")
        )
        self._kinds[p.name] = kind
        t, _optional = _strip_optional(p.annotation)
        if e.schema is not None:
            if kind != "form":
                raise _declaration_error(where, "schema= belongs to a form question")
            entry["type"] = {"schema": dict(e.schema)}
        elif kind == "form":
            entry["type"] = _answer_type(t, where)
            if _is_model(t):
                model = t
                self._converters[p.name] = lambda v: model.model_validate(v)
            elif isinstance(t, type) and issubclass(t, enum.Enum):
                enum_type = t
                self._converters[p.name] = lambda v: enum_type(v)
        if e.outcome:
            entry["outcome"] = True
        elif kind == "form" and e.schema is None:
            self._checked.add(p.name)
        if p.has_default:
            entry["default"] = p.default.value if isinstance(p.default, enum.Enum) else p.default
        if e.resolver is not None:
            if e.title is not None or e.description is not None:
                raise _declaration_error(where, "a resolver's questions carry their own title and description")
            needs, context = self._resolver_needs(e.resolver, where)
            self._resolvers[p.name] = _Resolver(
                e.resolver, needs, inspect.iscoroutinefunction(e.resolver), context, p.annotation, p.has_default
            )
            ask: Dict[str, Any] = {"needs": list(needs)}
            if kind != "form":
                ask["kind"] = kind
            entry["elicit"] = ask
        elif e.sampling is not None:
            entry["elicit"] = {"sampling": dict(e.sampling)}
        elif e.roots is not None:
            entry["elicit"] = {"roots": dict(e.roots)}
        elif e.url is not None:
            entry["elicit"] = {"message": e.message, "url": e.url}
        else:
            # The field's title defaults to the parameter's name, titled ("Party size"),
            # as the MCP Python SDK's own Elicit[T] shows a model's field titles; title="Value"
            # keeps the reference's (FastMCP's) rendering.
            q: Dict[str, Any] = {"message": e.message}
            if e.title is not None:
                q["title"] = e.title
            elif e.schema is None and not _is_model(t):
                q["title"] = default_title(p.name)
            if e.description is not None:
                q["description"] = e.description
            entry["elicit"] = q
        if not e.fallback:
            entry["elicit"]["fallback"] = False
        return entry

    def _resolver_needs(self, fn: Callable[..., Any], where: str) -> Tuple[Tuple[str, ...], Optional[str]]:
        """What the resolver needs (its parameters' names) and the one taking the SDK's
        ``Context``, if any (found as ``MCPServer`` finds it)."""
        if not callable(fn):
            raise _declaration_error(where, f"resolver= must be a function, got {type(fn).__name__}")
        try:
            hints = typing.get_type_hints(fn)
        except Exception:
            hints = {}
        needs = []
        context: Optional[str] = None
        for rname, rp in inspect.signature(fn).parameters.items():
            if rp.kind in (rp.VAR_POSITIONAL, rp.VAR_KEYWORD):
                raise _declaration_error(
                    where, f"resolver {_type_name(fn)}: *args and **kwargs cannot name what it needs"
                )
            if context is None and _is_context(hints.get(rname)):
                context = rname
                continue
            needs.append(rname)
        return tuple(needs), context

    def _arg_property(self, p: _Param) -> Dict[str, Any]:
        schema = _arg_schema(p.annotation)
        if p.has_default and p.default is not None:
            schema = dict(schema, default=p.default)
        return schema

    # ---------------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<elicit_mcp.Declared {self.name!r}>"

    @property
    def elicited(self) -> Tuple[str, ...]:
        """The names of the elicited parameters (left out of :attr:`input_schema`)."""
        return tuple(p.name for p in self._params if p.elicit is not None)

    def listed_schema(self, capabilities: Capabilities) -> Tuple[Dict[str, Any], bool]:
        """The ``inputSchema`` to list for a client with these ClientCapabilities
        (:meth:`Plan.input_schema <elicit_mcp.Plan.input_schema>`) and whether the listing
        differs by client (then list with ``cacheScope: "private"`` on 2026-07-28). A
        tool without a declared fallback is :attr:`input_schema` for every client (the
        engine would write it back unchanged: no call is made)."""
        if self.fallback is None:
            return self.input_schema, False
        return self.plan.input_schema(self.input_schema, capabilities)

    def check_arguments(self, arguments: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
        """The model arguments checked against their declared types (:class:`ArgumentsError`
        naming the first one at fault), as the function body takes them. Arguments the
        signature does not have are ignored, as FastMCP ignores them."""
        given = dict(arguments or {})
        out: Dict[str, Any] = {}
        for p in self._args:
            if p.name not in given:
                if p.has_default:
                    out[p.name] = p.default
                    continue
                raise ArgumentsError(f"Missing required argument {p.name!r}")
            out[p.name] = _check_arg(p.annotation, given[p.name], p.name)
        return out

    @property
    def needs_context(self) -> bool:
        """Whether the function or one of its resolvers takes the SDK's ``Context``."""
        return self.context_param is not None or any(r.context is not None for r in self._resolvers.values())

    def context_users(self) -> List[str]:
        """Where a ``Context`` is taken: ``"tool(ctx)"`` for the function, ``"tool(param)
        resolver fn(ctx)"`` for a resolver (for a :class:`~elicit_mcp.DeclarationError`
        on a server that has no ``Context`` to give)."""
        out = [f"{self.name}({self.context_param})"] if self.context_param is not None else []
        out += [
            f"{self._where(n)}'s resolver {_type_name(r.fn)}({r.context})"
            for n, r in self._resolvers.items()
            if r.context is not None
        ]
        return out

    async def _resolve(self, step: Resolve, context: Any) -> None:
        r = self._resolvers[step.name]
        inputs = step.inputs()
        kwargs = {n: inputs[n] for n in r.needs}
        if r.context is not None:
            kwargs[r.context] = context
        answer = r.fn(**kwargs)
        if r.is_async or inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Question):
            step.question(answer.wire())
            return
        sdk = _sdk_marker(answer)
        if sdk is not None:
            raise self._bad_value(
                step.name, r, answer, f"mcp's {sdk}(...) is the SDK's request marker; return elicit_mcp.Question(...) to ask"
            )
        value = _plain(answer)
        if step.name in self._checked:
            self._check_value(step.name, r, value)
        step.value(value)

    def _bad_value(self, name: str, r: _Resolver, value: Any, problem: str) -> ResolverValueError:
        return ResolverValueError(f"{self._where(name)}: resolver {_type_name(r.fn)} returned {value!r}: {problem}")

    def _check_value(self, name: str, r: _Resolver, value: Any) -> None:
        """A resolver's value against its parameter's type and enum (a default ``None``
        is allowed where the parameter has one)."""
        if value is None and r.has_default:
            return
        t, _optional = _strip_optional(r.annotation)
        if value is None and _optional:
            return
        if _is_model(t):
            if not isinstance(value, dict):
                raise self._bad_value(name, r, value, f"it is not a {t.__name__} (or a mapping of its fields)")
            return
        try:
            _check_arg(t, value, name)
        except ArgumentsError as e:
            expected = e.message.split(" must be ", 1)[-1].split(", got", 1)[0]
            raise self._bad_value(name, r, value, f"the parameter must be {expected}") from None

    async def _finish(self, args: Dict[str, Any], values: Dict[str, Any], context: Any) -> Finished:
        kwargs = dict(args)
        for name, value in values.items():
            convert = self._converters.get(name)
            kwargs[name] = convert(value) if convert is not None and value is not None else value
        if self.context_param is not None:
            kwargs[self.context_param] = context
        result = self.fn(**kwargs)
        if self.is_async or inspect.isawaitable(result):
            result = await result
        return Finished(result)

    async def run(
        self,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        era: str,
        request_state: Optional[str] = None,
        input_responses: Any = None,
        capabilities: Any = None,
        ask: Optional[AskClient] = None,
        context: Any = None,
    ) -> Union[Finished, Pending, FallbackResult]:
        """Drive one round with no SDK involved: ``era`` ``"modern"`` (2026-07-28: the
        plaintext ``request_state`` and the client's ``input_responses``; returns
        :class:`Pending` or :class:`Finished`) or ``"handshake"`` (``ask`` sends each
        request over the back-channel; returns :class:`Finished`). A tool declared with
        ``fallback="arguments"`` returns :class:`FallbackResult` in either era while a
        client that cannot be asked must still be asked something (its arguments are
        the answers).

        Raises :class:`ArgumentsError` before any resolver runs, and the engine's
        errors (:class:`~elicit_mcp.MissingCapabilityError`,
        :class:`~elicit_mcp.ResolutionError`, ...), each with its ``jsonrpc_error``.
        ``context`` is what a ``Context`` parameter of the function or a resolver gets
        (:mod:`elicit_mcp.mcp` builds it as ``MCPServer`` does).
        """
        args = self.check_arguments(arguments)
        raw = {k: v for k, v in (arguments or {}).items()}
        if era == "modern":
            rnd = self.plan.modern(
                raw,
                request_state=request_state,
                input_responses=input_responses,
                capabilities=capabilities,
            )
        elif era == "handshake":
            if ask is None:
                raise TypeError("run(era='handshake') needs ask=, the back-channel")
            rnd = self.plan.handshake(raw, capabilities=capabilities)
        else:
            raise ValueError(f"era must be 'modern' or 'handshake', got {era!r}")
        with rnd:
            try:
                return await self._drive(rnd, args, ask, context)
            except ResolutionError as e:
                if e.code == Result.ERR_SCHEMA_MISMATCH:
                    raise self._mismatch(e) from None
                raise

    def _mismatch(self, e: ResolutionError) -> ResolutionError:
        """The engine's answer-mismatch error ("The answer for 'x' does not match the
        requested schema") with what the question expected, from the parameter's type."""
        for p in self._params:
            if p.elicit is None or p.name not in self._checked:
                continue
            if e.message == f"The answer for {p.name!r} does not match the requested schema":
                t, _optional = _strip_optional(p.annotation)
                return ResolutionError(e.code, f"{e.message}: expected {_expected(t)}")
        return e

    async def _drive(
        self, rnd: Round, args: Dict[str, Any], ask: Optional[AskClient], context: Any
    ) -> Union[Finished, Pending, FallbackResult]:
        while True:
            step = rnd.poll()
            if isinstance(step, Resolve):
                await self._resolve(step, context)
            elif isinstance(step, Ask):
                assert ask is not None
                step.answer(await ask(step.method, step.request()))
            elif isinstance(step, InputRequired):
                return Pending(step.input_requests(), step.request_state())
            elif isinstance(step, Fallback):
                return FallbackResult(step.result())
            else:
                assert isinstance(step, Done)
                return await self._finish(args, step.values(), context)


def _plain(value: Any) -> Any:
    """A resolver's value as JSON (an Enum member as its value, a model dumped)."""
    if isinstance(value, enum.Enum):
        return value.value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(mode="json")
    return value


#: What a decorator called with its options (``@tool(title=...)``) returns: the decorator
#: that compiles the function into a :class:`Declared`.
Decorator = Callable[[Callable[..., Any]], Declared]


# jscpd:ignore-start: typing.overload signatures (scripts/test-duplicates.sh)
@typing.overload
def tool(fn: Callable[..., Any]) -> Declared: ...


@typing.overload
def tool(
    fn: None = None,
    *,
    name: Optional[str] = None,
    title: Optional[str] = None,
    description: Optional[str] = None,
    fallback: Optional[str] = None,
) -> Decorator: ...


def tool(
    fn: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    title: Optional[str] = None,
    description: Optional[str] = None,
    fallback: Optional[str] = None,
) -> Union[Declared, Decorator]:
    # jscpd:ignore-end
    """Compile ``fn``'s signature into a :class:`Declared` (``@tool`` or
    ``@tool(name=..., title=..., description=..., fallback=...)``; the description
    defaults to the docstring). ``fallback="arguments"`` declares the fallback through
    the model for clients that cannot be asked (docs/fallback.md). Declaration mistakes
    raise :class:`~elicit_mcp.DeclarationError` here."""

    def wrap(f: Callable[..., Any]) -> Declared:
        return Declared(f, name=name, title=title, description=description, fallback=fallback)

    return wrap(fn) if fn is not None else wrap


prompt = tool
"""The same as :func:`tool`, for a prompt (its arguments are the model arguments)."""
resource = tool
"""The same as :func:`tool`, for a resource (it has no model arguments)."""
