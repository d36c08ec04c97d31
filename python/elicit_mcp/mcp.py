"""elicit on the official MCP Python SDK (``mcp`` 2.3, ``pip install elicit-mcp[mcp]``).

:class:`Elicitation` serves functions declared on their signature
(:mod:`elicit_mcp.declare`) from a low-level ``mcp.server.lowlevel.Server`` or an
``mcp.server.mcpserver.MCPServer``::

    mcp = MCPServer("booking")
    elicit = Elicitation(mcp, keys=KeyRing.from_env())

    @elicit.tool(title="Greet")
    async def greet(name: Annotated[str, Elicit("Enter your name:")]) -> str:
        return f"Hello, {name}"

    mcp.run()

It registers ``tools/list``/``tools/call``, ``prompts/list``/``prompts/get`` and
``resources/list``/``resources/read`` around the server's own handlers (a name it does
not serve goes to the handler that was there), and replaces the SDK's
``RequestStateBoundary`` with one that seals through elicit (the same tokens: servers
sharing keys and audience serve each other's rounds, SDK tools included). One call per
request then does everything: the era switch (``elicit_form``, URL mode, sampling and
roots over the back-channel on the handshake era; an ``InputRequiredResult`` with sealed
state on 2026-07-28), the argument check before any resolver runs, and every error in its
JSON-RPC form (``-32602``, ``-32021`` with ``requiredCapabilities``, ``isError`` results).

On a low-level ``Server`` whose ``on_call_tool`` you write yourself, call
:meth:`Elicitation.call_tool` from it for the names :meth:`Elicitation.serves`.
"""

from __future__ import annotations

import inspect
import logging
import sys
import typing
from dataclasses import replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Union, overload

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata, func_metadata
from mcp.server.request_state import RequestStateBoundary, authenticated_principal
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ._seal import KeyRing, Sealer
from .constants import DEFAULT_TTL_SECS, INTERNAL_ERROR_CODE, Result
from .declare import ArgumentsError, Declared, Decorator, Elicit, FallbackResult, Finished, Pending, context_class
from .errors import DeclarationError, ElicitError, RequestStateError, ResolutionError

__all__ = ["ClientError", "Elicitation", "SealingMiddleware", "mcp_error"]

logger = logging.getLogger("elicit_mcp.mcp")

#: The methods whose results may carry ``requestState``.
_MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_CAPS_META = "io.modelcontextprotocol/clientCapabilities"
#: A prompt or resource whose round ends at the declared fallback (the engine's call
#: level says the same): only a tool has a result to tell the model what to ask.
_FALLBACK_TOOLS_ONLY = (
    "The client cannot be asked for what this request needs, and the declared fallback serves tools/call only"
)


def mcp_error(error: ElicitError) -> MCPError:
    """The SDK's ``MCPError`` for an elicit exception (its :attr:`~ElicitError.jsonrpc_error`)."""
    e = error.jsonrpc_error
    if e["code"] == INTERNAL_ERROR_CODE:
        logger.error("elicit: %s", error)
    return MCPError(code=e["code"], message=e["message"], data=e.get("data"))


class ClientError(Exception):
    """Handshake era: the client answered a form or URL elicitation with an error; the
    tool call fails with its message (an ``isError`` result)."""


class SealingMiddleware:
    """Seals and verifies ``requestState`` with elicit's :class:`~elicit_mcp.Sealer`, in
    place of the SDK's ``RequestStateBoundary`` (the same tokens, byte for byte).

    Inbound state is verified and replaced by its plaintext before any handler runs (a
    rejected token is the SDK's frozen ``-32602``, the reason logged); an outbound
    ``input_required`` result's state is sealed for the request it answers. The
    principal is the SDK's (``authenticated_principal``).
    """

    def __init__(self, sealer: Sealer) -> None:
        self.sealer = sealer

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method not in _MRTR_METHODS:
            return await call_next(ctx)
        params = ctx.params
        principal = authenticated_principal(ctx)
        if params is not None and params.get("requestState") is not None:
            if not isinstance(params["requestState"], str):
                logger.warning("requestState rejected (non-string requestState) on %s", ctx.method)
                raise mcp_error(RequestStateError("non-string requestState"))
            try:
                plain = self.sealer.unseal(ctx.method, params, principal=principal)
            except RequestStateError as e:
                logger.warning("requestState rejected (%s) on %s", e.reason, ctx.method)
                raise mcp_error(e) from None
            ctx = replace(ctx, params={**params, "requestState": plain})
        result = await call_next(ctx)
        return self._seal(ctx.method, params, principal, result)

    def _seal(self, method: str, params: Optional[Mapping[str, Any]], principal: Optional[str], result: HandlerResult) -> HandlerResult:
        if isinstance(result, Mapping):
            if result.get("resultType") != "input_required" or not isinstance(result.get("requestState"), str):
                return result
            token = self.sealer.seal(method, params or {}, result["requestState"], principal=principal)
            return {**result, "requestState": token}
        if isinstance(result, types.InputRequiredResult) and result.request_state is not None:
            token = self.sealer.seal(method, params or {}, result.request_state, principal=principal)
            return result.model_copy(update={"request_state": token})
        return result


def _declared(
    f: Callable[..., Any],
    *,
    name: Optional[str],
    title: Optional[str],
    description: Optional[str],
    fallback: Optional[str] = None,
) -> Declared:
    """``f`` if it is declared already, else its declaration with these options."""
    if isinstance(f, Declared):
        return f
    return Declared(f, name=name, title=title, description=description, fallback=fallback)


def _capabilities(ctx: ServerRequestContext[Any, Any]) -> Any:
    """The client's ClientCapabilities as this request declares them: on 2026-07-28 the
    request's ``_meta`` (the session's when it carries none), on the handshake era the
    session's from ``initialize``; ``{}`` (nothing) when there are none."""
    caps: Any = None
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        meta = (ctx.params or {}).get("_meta") or {}
        caps = meta.get(_CAPS_META) if isinstance(meta, Mapping) else None
    if caps is None:
        caps = ctx.session.client_capabilities
    return caps if caps is not None else {}


def _lowlevel(server: Any) -> Server[Any]:
    if isinstance(server, Server):
        return server
    inner = getattr(server, "_lowlevel_server", None)
    if isinstance(inner, Server):  # MCPServer (and FastMCP-style wrappers of a Server)
        return inner
    raise TypeError(
        f"server: expected mcp.server.lowlevel.Server or mcp.server.mcpserver.MCPServer, "
        f"got {type(server).__name__}"
    )


def _mcpserver(server: Any) -> bool:
    """Whether ``server`` is an ``MCPServer`` (its module is loaded if it is one)."""
    module = sys.modules.get("mcp.server.mcpserver.server")
    cls = getattr(module, "MCPServer", None) if module is not None else None
    return cls is not None and isinstance(server, cls)


def _output(declared: Declared) -> FuncMetadata:
    """What ``MCPServer`` publishes and returns for the function's return type: the
    SDK's own ``func_metadata`` (``outputSchema``; ``convert_result`` builds the content
    and ``structuredContent``), every parameter left to elicit."""
    try:
        return func_metadata(declared.fn, skip_names=list(inspect.signature(declared.fn).parameters))
    except Exception as e:
        raise DeclarationError(int(Result.ERR_DECLARATION), f"{declared.name}: its return type: {e}") from None


def _elicit_markers(fn: Callable[..., Any]) -> List[str]:
    """The parameters of a plain SDK tool annotated with elicit's ``Elicit`` (which the
    SDK would take for model arguments)."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:
        return []
    return [
        name
        for name, hint in hints.items()
        if typing.get_origin(hint) is typing.Annotated and any(isinstance(m, Elicit) for m in typing.get_args(hint)[1:])
    ]


class _Entry:
    def __init__(
        self,
        declared: Declared,
        *,
        meta: Optional[Dict[str, Any]],
        output_schema: Optional[Dict[str, Any]],
        uri: Optional[str],
        output: Optional[FuncMetadata] = None,
    ) -> None:
        self.declared = declared
        self.meta = meta
        self.output = output
        self.output_schema = output_schema if output_schema is not None or output is None else output.output_schema
        self.uri = uri


class Elicitation:
    """Declared elicitation for an MCP Python SDK server (``Server`` or ``MCPServer``).

    ``keys`` is the sealing :class:`~elicit_mcp.KeyRing` (:meth:`KeyRing.from_env`);
    ``audience`` the service identity tokens are bound to (default: the server's name,
    as ``MCPServer`` binds them); ``ttl`` the token lifetime in seconds. The SDK's
    ``RequestStateBoundary`` is replaced by :class:`SealingMiddleware` on these keys.
    """

    def __init__(
        self,
        server: Any,
        *,
        keys: KeyRing,
        audience: Optional[str] = None,
        ttl: float = float(DEFAULT_TTL_SECS),
    ) -> None:
        if keys is None:
            raise TypeError(
                "Elicitation(keys=None): keys= is the KeyRing that seals requestState; pass "
                "KeyRing.from_env() (hex keys in ELICIT_STATE_KEYS, the first seals) or, for "
                "a process that serves its calls alone, KeyRing([os.urandom(32)])"
            )
        self.server = server
        self.lowlevel = _lowlevel(server)
        self.sealer = Sealer(keys, audience if audience is not None else self.lowlevel.name, ttl)
        self.tools: Dict[str, _Entry] = {}
        self.prompts: Dict[str, _Entry] = {}
        self.resources: Dict[str, _Entry] = {}
        # The SDK's own tools already checked for elicit's markers (by function).
        self._checked: Set[int] = set()
        self._check_sdk_tools()
        mw = self.lowlevel.middleware
        mw[:] = [m for m in mw if not isinstance(m, (RequestStateBoundary, SealingMiddleware))]
        mw.append(SealingMiddleware(self.sealer))
        _install(self)

    def _check_sdk_tools(self) -> None:
        """The reverse trap: elicit's ``Elicit`` on a plain ``@mcp.tool()`` parameter
        (the SDK would list it as a required model argument) is a
        :class:`~elicit_mcp.DeclarationError` naming the tool. Run when the adapter is
        installed and on every ``tools/list`` (for tools added later)."""
        manager = getattr(self.server, "_tool_manager", None)
        if manager is None:
            return
        for t in manager.list_tools():
            fn = getattr(t, "fn", None)
            if fn is None or id(fn) in self._checked:
                continue
            names = _elicit_markers(fn)
            if names:
                raise DeclarationError(
                    int(Result.ERR_DECLARATION),
                    f"tool {t.name!r}: parameter {', '.join(map(repr, names))} carries elicit_mcp.Elicit "
                    "but the tool is registered with the SDK's @mcp.tool(), which takes it for a model "
                    "argument; register it with @elicit.tool() instead",
                )
            self._checked.add(id(fn))

    def _register(self, d: Declared) -> None:
        """A declaration that takes ``Context`` needs a server that builds one."""
        if d.needs_context and not _mcpserver(self.server):
            raise DeclarationError(
                int(Result.ERR_DECLARATION),
                f"{', '.join(d.context_users())}: takes the SDK's Context, which only MCPServer "
                "builds; on a low-level Server, drop the Context parameter (the request context "
                "is the handler's ctx)",
            )

    # ------------------------------------------------------------ registration

    # jscpd:ignore-start: typing.overload signatures (scripts/test-duplicates.sh)
    @overload
    def tool(self, fn: Callable[..., Any]) -> Declared: ...

    @overload
    def tool(
        self,
        fn: None = None,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        meta: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        fallback: Optional[str] = None,
    ) -> Decorator: ...

    def tool(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        meta: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        fallback: Optional[str] = None,
    ) -> Union[Declared, Decorator]:
        # jscpd:ignore-end
        """Declare and serve a tool (``@elicit.tool`` or ``@elicit.tool(...)``); a
        :class:`~elicit_mcp.declare.Declared` is also taken as it is.

        ``fallback="arguments"`` serves clients that cannot be asked through the model
        (docs/fallback.md): ``tools/list`` shows them the parameters that fall back as
        optional arguments, and a call takes those arguments as the answers or returns
        an ``isError`` result naming the questions for the model to ask the user. A
        parameter with ``Elicit(..., fallback=False)`` stays -32021 for such a client."""

        def wrap(f: Callable[..., Any]) -> Declared:
            d = _declared(f, name=name, title=title, description=description, fallback=fallback)
            self._register(d)
            self.tools[d.name] = _Entry(d, meta=meta, output_schema=output_schema, uri=None, output=_output(d))
            return d

        return wrap(fn) if fn is not None else wrap

    # jscpd:ignore-start: typing.overload signatures (scripts/test-duplicates.sh)
    @overload
    def prompt(self, fn: Callable[..., Any]) -> Declared: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
    ) -> Decorator: ...

    def prompt(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
    ) -> Union[Declared, Decorator]:
        # jscpd:ignore-end
        """Declare and serve a prompt: the function returns the prompt's text (a user
        message), a list of messages or a ``GetPromptResult``."""

        def wrap(f: Callable[..., Any]) -> Declared:
            d = _declared(f, name=name, title=title, description=description)
            self._register(d)
            self.prompts[d.name] = _Entry(d, meta=None, output_schema=None, uri=None)
            return d

        return wrap(fn) if fn is not None else wrap

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
    ) -> Decorator:
        """Declare and serve the resource at ``uri``: the function returns its text (or
        a ``ReadResourceResult``)."""

        def wrap(f: Callable[..., Any]) -> Declared:
            d = _declared(f, name=name, title=title, description=description)
            self._register(d)
            entry = _Entry(d, meta={"mimeType": mime_type} if mime_type else None, output_schema=None, uri=uri)
            self.resources[uri] = entry
            return d

        return wrap

    def serves(self, method: str, params: Any) -> bool:
        """Whether this adapter serves the request (a tool, prompt or resource it declared)."""
        if method == "tools/call":
            return getattr(params, "name", None) in self.tools
        if method == "prompts/get":
            return getattr(params, "name", None) in self.prompts
        if method == "resources/read":
            return str(getattr(params, "uri", "")) in self.resources
        return False

    # --------------------------------------------------------------- listings

    def list_tools(self, capabilities: Any = None) -> List[types.Tool]:
        """The declared tools (``inputSchema`` from each signature, ``outputSchema`` from
        the return type as ``MCPServer`` derives it, unless ``output_schema=`` was given).

        ``capabilities``: the ClientCapabilities of the client asking (``None``: form
        elicitation only). A tool declared with ``fallback="arguments"`` lists, for a
        client that cannot be asked, its parameters that fall back as optional
        arguments (:meth:`~elicit_mcp.declare.Declared.listed_schema`); the
        ``tools/list`` handler reads the client's capabilities as calls do."""
        self._check_sdk_tools()
        out = []
        for name, e in self.tools.items():
            d = e.declared
            schema, _private = d.listed_schema(capabilities)
            tool = types.Tool(name=name, title=d.title, description=d.description, input_schema=schema, output_schema=e.output_schema)
            if e.meta is not None:
                tool = tool.model_copy(update={"meta": e.meta})
            out.append(tool)
        return out

    def list_prompts(self) -> List[types.Prompt]:
        """The declared prompts (their model arguments as prompt arguments)."""
        out = []
        for name, e in self.prompts.items():
            d = e.declared
            required = set(d.input_schema["required"])
            args = [types.PromptArgument(name=a, required=a in required) for a in d.input_schema["properties"]]
            out.append(types.Prompt(name=name, title=d.title, description=d.description, arguments=args or None))
        return out

    def list_resources(self) -> List[types.Resource]:
        """The declared resources."""
        out = []
        for uri, e in self.resources.items():
            d = e.declared
            mime = (e.meta or {}).get("mimeType")
            out.append(types.Resource(uri=uri, name=d.name, title=d.title, description=d.description, mime_type=mime))
        return out

    # ----------------------------------------------------------------- serving

    async def call_tool(self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> HandlerResult:
        """Serve ``tools/call`` for a declared tool: the one call a handler makes."""
        entry = self.tools.get(params.name)
        if entry is None:
            return _tool_error(f"Unknown tool: {params.name!r}")
        try:
            outcome = await self._run(entry.declared, ctx, params.arguments, params)
        except (ArgumentsError, ResolutionError) as e:
            return _complete(ctx, _tool_error(e.message))
        except ClientError as e:
            # FastMCP's wording for a tool whose elicitation the client failed.
            return _complete(ctx, _tool_error(f"Error calling tool {params.name!r}: {e}"))
        if isinstance(outcome, Pending):
            return outcome.result()
        if isinstance(outcome, FallbackResult):
            return _complete(ctx, outcome.result)
        # As MCPServer converts a tool's return value (content, structuredContent; a
        # CallToolResult as it is).
        assert entry.output is not None
        converted: HandlerResult = entry.output.convert_result(outcome.value)
        return converted

    async def get_prompt(self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> HandlerResult:
        """Serve ``prompts/get`` for a declared prompt."""
        entry = self.prompts.get(params.name)
        if entry is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {params.name!r}")
        outcome = await self._run_not_a_tool(entry, ctx, params.arguments, params)
        if isinstance(outcome, Pending):
            return outcome.result()
        return _complete(ctx, _prompt_result(outcome.value, entry.declared.description))

    async def read_resource(self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams) -> HandlerResult:
        """Serve ``resources/read`` for a declared resource."""
        uri = str(params.uri)
        entry = self.resources.get(uri)
        if entry is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}", data={"uri": uri})
        outcome = await self._run_not_a_tool(entry, ctx, None, params)
        if isinstance(outcome, Pending):
            return outcome.result()
        mime = (entry.meta or {}).get("mimeType")
        return _complete(ctx, _resource_result(outcome.value, uri, mime))

    async def _run_not_a_tool(
        self, entry: _Entry, ctx: ServerRequestContext[Any, Any], arguments: Optional[Mapping[str, Any]], params: Any
    ) -> Union[Finished, Pending]:
        """:meth:`_run` for ``prompts/get`` and ``resources/read``: the client's error on a
        question, and a declared fallback (a tool's only), are ``-32602``."""
        try:
            outcome = await self._run(entry.declared, ctx, arguments, params)
        except ClientError as e:
            raise MCPError(code=types.INVALID_PARAMS, message=str(e)) from None
        if isinstance(outcome, FallbackResult):
            raise MCPError(code=types.INVALID_PARAMS, message=_FALLBACK_TOOLS_ONLY)
        return outcome

    def _context(self, ctx: ServerRequestContext[Any, Any], params: Any) -> Any:
        """The SDK's ``Context`` for this request, built as ``MCPServer`` builds it for
        its own tools (only for a declaration that takes one)."""
        cls = context_class()
        assert cls is not None  # a declaration takes Context only once its module is loaded
        return cls(
            request_context=ctx,
            mcp_server=self.server,
            input_params=params,
            subscriptions=getattr(self.server, "_subscriptions", None),
        )

    async def _run(
        self,
        declared: Declared,
        ctx: ServerRequestContext[Any, Any],
        arguments: Optional[Mapping[str, Any]],
        params: Any,
    ) -> Union[Finished, Pending, FallbackResult]:
        raw = ctx.params or {}
        context = self._context(ctx, params) if declared.needs_context else None
        caps = _capabilities(ctx)
        try:
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                return await declared.run(
                    arguments,
                    era="modern",
                    request_state=raw.get("requestState"),
                    input_responses=raw.get("inputResponses"),
                    capabilities=caps,
                    context=context,
                )
            return await declared.run(
                arguments,
                era="handshake",
                capabilities=caps,
                ask=lambda method, request: self._ask(ctx, method, request),
                context=context,
            )
        except (ArgumentsError, ResolutionError) as e:
            if ctx.method == "tools/call":
                raise  # an isError result
            raise mcp_error(e) from None
        except ElicitError as e:
            raise mcp_error(e) from None


    async def url_flow(self, elicitation_id: str, request: Dict[str, Any]) -> None:
        """Handshake era: the user accepted the URL-mode ``request``; return once its
        out-of-band flow is done (then ``notifications/elicitation/complete`` names
        ``elicitation_id``), or raise to fail the call and complete nothing. By default
        the flow counts as done at once: override it to wait for your payment or sign-in
        callback. (On 2026-07-28 the client's retry carrying the accept is the completion.)"""

    async def _ask(self, ctx: ServerRequestContext[Any, Any], method: str, params: Dict[str, Any]) -> Any:
        """Handshake era: one request over the back-channel; the client's result."""
        session = ctx.session
        if method == "elicitation/create" and params.get("mode") == "url":
            try:
                result = await session.send_request(
                    types.ElicitRequest(params=types.ElicitRequestURLParams.model_validate(params)),
                    types.ElicitResult,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
                )
            except MCPError as e:
                raise ClientError(e.message) from None
            if result.action == "accept":
                try:
                    await self.url_flow(params["elicitationId"], params)
                except Exception as e:
                    raise ClientError(f"the URL flow failed: {e}") from None
                await session.send_elicit_complete(params["elicitationId"], related_request_id=ctx.request_id)
            return result
        return await _ask(ctx, method, params)


async def _ask(ctx: ServerRequestContext[Any, Any], method: str, params: Dict[str, Any]) -> Any:
    """Handshake era: one form, sampling or roots request over the back-channel; the
    client's result."""
    session = ctx.session
    related = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        if method == "elicitation/create":
            return await session.elicit_form(params["message"], params["requestedSchema"], related_request_id=ctx.request_id)
        if method == "sampling/createMessage":
            return await session.send_request(
                types.CreateMessageRequest(params=types.CreateMessageRequestParams.model_validate(params)),
                types.CreateMessageResult,
                metadata=related,
            )
        return await session.send_request(types.ListRootsRequest(), types.ListRootsResult, metadata=related)
    except MCPError as e:
        if method == "elicitation/create":
            raise ClientError(e.message) from None
        # A refused sampling or roots request counts as declined.
        return {"action": "decline"}


def _complete(ctx: ServerRequestContext[Any, Any], result: HandlerResult) -> HandlerResult:
    """A wire mapping on a 2026-07-28 connection carries ``resultType: "complete"``."""
    if isinstance(result, dict) and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        result.setdefault("resultType", "complete")
    return result


def _tool_error(message: str) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _prompt_result(value: Any, description: Optional[str]) -> HandlerResult:
    if isinstance(value, (types.GetPromptResult, dict)):
        return value
    if isinstance(value, str):
        value = [value]
    messages = [
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=m))
        if isinstance(m, str)
        else types.PromptMessage.model_validate(m)
        for m in value
    ]
    return types.GetPromptResult(messages=messages, description=description)


def _resource_result(value: Any, uri: str, mime: Optional[str]) -> HandlerResult:
    # A model, not a mapping: the 2026-07-28 result carries cache fields its defaults fill.
    if isinstance(value, (types.ReadResourceResult, dict)):
        return value
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=str(value), mime_type=mime)])


# Registration around the server's own handlers.


def _install(self: Elicitation) -> None:
    """Register the six handlers around the server's own (a request this adapter does
    not serve goes to the handler that was registered before)."""
    low = self.lowlevel

    def wrap_list(
        method: str, key: str, listing: Callable[[ServerRequestContext[Any, Any]], List[Any]], result_type: Any
    ) -> None:
        previous = low.get_request_handler(method)

        async def handler(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
            try:
                items = listing(ctx)
            except ElicitError as e:  # a server bug (an SDK tool carrying elicit's marker)
                raise mcp_error(e) from None
            if previous is not None:
                before = await previous.handler(ctx, params)
                if isinstance(before, Mapping):
                    before = result_type.model_validate(before)
                ours = {str(getattr(i, "uri", None) or i.name) for i in items}
                theirs = getattr(before, key, None) or []
                items += [i for i in theirs if str(getattr(i, "uri", None) or i.name) not in ours]
            fields: Dict[str, Any] = {key: items}
            if key == "tools" and any(e.declared.fallback is not None for e in self.tools.values()):
                # The listing differs by client (a declared fallback): never a shared
                # cache's, whatever the server's cache hints say.
                fields["cache_scope"] = "private"
            result: HandlerResult = result_type(**fields)
            return result

        low.add_request_handler(method, types.PaginatedRequestParams, handler)

    def wrap_call(method: str, params_type: Any, serve: Callable[..., Any]) -> None:
        previous = low.get_request_handler(method)

        async def handler(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
            if previous is not None and not self.serves(method, params):
                result: HandlerResult = await previous.handler(ctx, params)
                return result
            served: HandlerResult = await serve(ctx, params)
            return served

        low.add_request_handler(method, params_type, handler)

    wrap_list("tools/list", "tools", lambda ctx: self.list_tools(_capabilities(ctx)), types.ListToolsResult)
    wrap_call("tools/call", types.CallToolRequestParams, self.call_tool)
    wrap_list("prompts/list", "prompts", lambda ctx: self.list_prompts(), types.ListPromptsResult)
    wrap_call("prompts/get", types.GetPromptRequestParams, self.get_prompt)
    wrap_list("resources/list", "resources", lambda ctx: self.list_resources(), types.ListResourcesResult)
    wrap_call("resources/read", types.ReadResourceRequestParams, self.read_resource)


