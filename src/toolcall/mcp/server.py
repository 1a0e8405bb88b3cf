"""The MCP server itself: the SDK's low-level ``Server`` with toolcall's two handlers.

Everything a request needs is prepared when the server is built: ``tools/list`` answers with
the precomputed MCP variant (``Toolbox.emit("mcp")``, or the strict one), so no schema is
rendered per request, and ``tools/call`` goes through ``Toolbox.run``/``arun`` under the
bounds of :mod:`toolcall.mcp.calls`. The SDK's low-level server does not validate arguments
against ``inputSchema`` (only the request's JSON-RPC shape), so a call is validated once, by
toolcall.

Results (:mod:`toolcall.mcp.results`). A ``str`` is sent as itself, media as content blocks,
anything else as :func:`toolcall.encode_result` JSON text. When the function's return
annotation is an object type (a ``dict``, ``TypedDict``, dataclass, ``msgspec.Struct``,
``Mapping``, pydantic model) the tool also declares an ``outputSchema`` and the result carries
the same JSON as ``structuredContent``. Other return types (lists, scalars, ``X | None``,
unions) are text only: MCP requires an output schema to describe an object. The
output schema describes what ``encode_result`` writes (a ``Decimal`` as a number, a naive
``datetime`` without an offset, a renamed Struct under its encoded names); a type written as
an array (``NamedTuple``, ``array_like`` Struct) or one toolcall cannot describe is text
only. A value that does not encode, or an object-annotated tool that returns something else,
is reported as an error result; the value is otherwise not checked against the annotation.

Errors. A call that ``run`` refuses (unknown tool, bad arguments), a tool that raises
(anything, ``BaseException`` included) or a call refused by a limit comes back as an error
result (``isError: true``) whose text is the ``ToolError.message`` a model can act on, never
as a protocol error; with ``brief_errors`` the text is only the kind and the request id.
"""

from __future__ import annotations

import dataclasses
import logging
import types
import uuid
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Generic, Literal, TypeVar, get_args

import anyio
import mcp.types as mcp_types
import msgspec
from mcp.server import Server, ServerRequestContext
from mcp.server.elicitation import CancelledElicitation, DeclinedElicitation
from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map
from mcp.shared.message import ServerMessageMetadata

import toolcall
from toolcall import ir
from toolcall.adapters._common import specs
from toolcall.mcp.calls import DEPARTURE, CallLimits, Calls, Departure, Watching, watch_beside
from toolcall.mcp.results import sends_content, tool_result

__all__ = [
    "REQUEST_ID_HEADER",
    "AcceptedElicitation",
    "CancelledElicitation",
    "ClientLacks",
    "Context",
    "DeclinedElicitation",
    "Member",
    "build_server",
    "calls_of",
]

Member = types.ModuleType | str | Callable[..., Any]

REQUEST_ID_HEADER = "x-request-id"
"""The header the HTTP layer stamps on every request: the id its access log names."""

_log = logging.getLogger("toolcall")


def build_server(
    *members: Member,
    name: str = "toolcall",
    version: str | None = None,
    instructions: str | None = None,
    run_sync_in_thread: bool = False,
    strict: bool = False,
    limits: CallLimits | None = None,
    tool_search: bool = False,
    pinned: Sequence[str] = (),
    search_k: int = 5,
) -> Server[Any]:
    """An MCP server (the SDK's low-level ``mcp.server.Server``) for the tools of ``members``.

    ``members`` are what :class:`toolcall.Toolbox` takes: marked modules, their dotted names,
    plain functions; a duplicate tool name raises ``ValueError``. ``tools/list`` follows the
    order of ``members``, tools in definition order. Run the server with
    :func:`~toolcall.mcp.run_server`, or with any transport of the SDK (``server.run(read,
    write, server.create_initialization_options())``, ``server.streamable_http_app()``).

    ``strict=True`` lists the strict variant (``emit(..., strict=True)``), for clients that
    decode with a grammar; calls are dispatched the same way (a ``null`` for an optional
    argument means "absent"). ``run_sync_in_thread=True`` runs plain (non-``async``) tools on
    a bounded pool of daemon threads (``limits.threads``, 16 unless set), for tools that
    block; by default they run inline, which is fastest for tools that do not. ``limits``
    bounds concurrent calls and their duration (see :class:`~toolcall.mcp.CallLimits`).
    ``version`` (the ``serverInfo`` version clients see) defaults to toolcall's own.

    ``tool_search=True`` lists only the ``pinned`` tools and a ``search_tools`` tool, whose
    result is the definitions (as ``tools/list`` gives them) of the ``search_k`` tools that
    best fit the client's query, among the tools this server serves; ``tools/call`` still
    reaches every tool by name. A search is a ``tools/call``, under the same authentication
    and limits as any other.
    """
    box = toolcall.Toolbox(*members)
    tools = {tool.name: tool for tool in box.tools()}
    structured: set[str] = set()
    listing: list[mcp_types.Tool] = []
    for definition in box.emit("mcp", strict=strict):
        tool = tools.get(definition["name"])
        schema = _output_schema(tool) if tool is not None else None
        if schema is not None:
            structured.add(definition["name"])
        listing.append(mcp_types.Tool.model_validate({**definition, "outputSchema": schema}))
        dropped = find_invalid_x_mcp_header(definition["inputSchema"])
        if dropped is not None:
            warnings.warn(
                f"{definition['name']}: {dropped}; clients of the 2026 MCP protocol drop this "
                "tool from the listing (fix or remove the x-mcp-header)",
                toolcall.ToolcallWarning,
                stacklevel=2,
            )
    search = None
    if tool_search:
        search = toolcall.ToolSearch(box, pinned=pinned, k=search_k)
        served = {tool.name: tool for tool in listing}
        found_tool = mcp_types.Tool.model_validate(_search_tool(search, strict))
        listing = [*(served[name] for name in search.pinned), found_tool]
        finder = _Finder(search, served)
    elif pinned:
        msg = "pinned tools are the ones listed beside search_tools: give tool_search=True too"
        raise ValueError(msg)
    limits = limits or CallLimits()
    if run_sync_in_thread and limits.threads is None:
        limits.threads = 16
    threaded = frozenset(
        name for name, tool in tools.items() if run_sync_in_thread and not tool.is_async
    )
    contexts = {
        spec.name: spec.contexts
        for spec in specs(box, "mcp", False, _is_context, None)
        if spec.contexts
    }
    calls = Calls(limits, streams=tuple(contexts))
    handlers = _Handlers(
        box,
        listing,
        frozenset(structured),
        threaded,
        contexts,
        calls,
        finder if search is not None else None,
    )
    # what the 2026 protocol checks Mcp-Param headers against, for the tools whose schema
    # declares one (x-mcp-header): without it the SDK runs the whole tools/list handler for
    # every tools/call, and a schema that declares none it walks for nothing
    schemas = {
        tool.name: tool.input_schema for tool in listing if x_mcp_header_map(tool.input_schema)
    }
    server: Server[Any] = Server(
        name,
        version=toolcall.__version__ if version is None else version,
        instructions=instructions,
        get_tool_input_schema=schemas.get,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )
    # registered after construction: the constructor's keyword warns that the 2026-07-28
    # protocol deprecates logging, which older clients (all of them, today) still use
    server.add_request_handler("logging/setLevel", mcp_types.SetLevelRequestParams, _set_level)
    server.toolcall_calls = calls  # type: ignore[attr-defined]  # read by calls_of
    return server


class _Finder(msgspec.Struct, frozen=True):
    """Answers ``search_tools``: the listed definitions of the tools found, so a search
    returns nothing ``tools/list`` would not have shown."""

    search: toolcall.ToolSearch
    served: dict[str, mcp_types.Tool]

    def find(self, args: Any) -> toolcall.Ok[Any] | toolcall.Err:
        found = self.search.find(args)
        if isinstance(found, toolcall.Err):
            return found
        return toolcall.Ok(
            [
                self.served[name].model_dump(mode="json", by_alias=True, exclude_none=True)
                for name in found.value
            ]
        )

    async def afind(self, args: Any) -> toolcall.Ok[Any] | toolcall.Err:
        return self.find(args)


def _search_tool(search: toolcall.ToolSearch, strict: bool) -> dict[str, Any]:
    """``search_tools`` as ``tools/list`` shows it: the entry after the pinned tools."""
    definition: dict[str, Any] = search.emit("mcp", strict)[len(search.pinned)]
    return definition


def calls_of(server: Server[Any]) -> Calls | None:
    """The call accounting of a server :func:`build_server` made (None for another)."""
    found = getattr(server, "toolcall_calls", None)
    return found if isinstance(found, Calls) else None


class _Handlers(msgspec.Struct, frozen=True):
    """The two request handlers, closed over what was prepared at construction."""

    box: toolcall.Toolbox
    listing: list[mcp_types.Tool]
    structured: frozenset[str]
    threaded: frozenset[str]
    contexts: dict[str, tuple[str, ...]]
    calls: Calls
    finder: _Finder | None

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=self.listing)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        name = params.name
        args = {} if params.arguments is None else params.arguments
        names = self.contexts.get(name)
        inject = dict.fromkeys(names, Context(ctx)) if names else None
        box = self.box
        request = ctx.request
        headers = getattr(request, "headers", None)
        request_id = None if headers is None else headers.get(REQUEST_ID_HEADER)
        if request_id is None:
            request_id = uuid.uuid4().hex[:16]
        finder = self.finder
        if finder is not None and name == toolcall.ToolSearch.SEARCH_TOOL:
            run: Callable[[], Any] = partial(finder.find, args)
            arun: Callable[[], Any] = partial(finder.afind, args)
        else:
            run = partial(box.run, name, args, inject=inject)
            arun = partial(box.arun, name, args, inject=inject)
        result = await self.calls.run(
            name,
            request_id,
            name in self.threaded,
            run,
            arun,
            None if headers is None else _departure(request),
        )
        if isinstance(result, toolcall.Err):
            return self._error(result.error, request_id)
        answer = tool_result(name, result.value, name in self.structured)
        if isinstance(answer, toolcall.ToolError):
            return self._error(answer, request_id)
        return answer

    def _error(self, error: toolcall.ToolError, request_id: str) -> mcp_types.CallToolResult:
        if self.calls.limits.brief_errors:
            text = f"error: {error.kind} (request {request_id})"
        else:
            text = error.message
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=text)], is_error=True)


def _departure(request: Any) -> Watching | None:
    """How a call over HTTP learns that its client left, to be cancelled: the SDK notices it
    only for a 2026-protocol answer it streams, so every HTTP call is watched here.

    serve-mcp's protocol tells the request's :class:`Departure`; under another ASGI server
    the request's ``receive`` is read (a second reader of a finished request's messages only
    ever sees its disconnect).
    """
    scope = getattr(request, "scope", None)
    departure = scope.get(DEPARTURE) if isinstance(scope, dict) else None
    if isinstance(departure, Departure):
        return departure.watching
    receive = getattr(request, "receive", None)
    return None if receive is None else partial(watch_beside, partial(_watch_disconnect, receive))


async def _watch_disconnect(receive: Callable[[], Any], scope: anyio.CancelScope) -> None:
    """Cancel ``scope`` when the HTTP client that sent the call disconnects."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            scope.cancel()
            return


class Context:
    """The request a tool is serving: progress, logs, and questions to the client's user and
    model, for an ``async def`` tool.

    Annotate a parameter with it (``ctx: toolcall.mcp.Context``): it is not in the schema,
    and each call receives the context of its request. The methods mirror FastMCP's
    ``Context``, so tools written for FastMCP report progress, log, elicit and sample the
    same way here.

    Examples
    --------
    >>> from toolcall.mcp import Context
    >>> async def index(path: str, ctx: Context) -> int:
    ...     await ctx.report_progress(1, 2, "halfway")
    ...     await ctx.info(f"indexed {path}")
    ...     return 2
    """

    __slots__ = ("_request",)

    def __init__(self, request: ServerRequestContext[Any]) -> None:
        self._request = request

    @property
    def request_id(self) -> str | None:
        """The id of the ``tools/call`` request, as text (None outside a request)."""
        found = self._request.request_id
        return None if found is None else str(found)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send progress for this request; nothing when the client asked for none."""
        await self._request.session.report_progress(progress, total, message)

    async def log(
        self, level: mcp_types.LoggingLevel, message: Any, *, logger_name: str | None = None
    ) -> None:
        """Send ``notifications/message`` at ``level`` (``"info"``, ``"warning"``, ...),
        unless the client asked (``logging/setLevel``) for a higher level only.

        The 2026-07-28 protocol deprecates client logging (the SDK warns) and delivers it only
        to requests that opt in with a log level; older clients get it as before.
        """
        session = self._request.session
        if _LEVELS.index(level) < _LEVELS.index(_client_level(session)):
            return
        await session.send_log_message(
            level, message, logger_name, related_request_id=self._request.request_id
        )

    async def debug(self, message: Any) -> None:
        await self.log("debug", message)

    async def info(self, message: Any) -> None:
        await self.log("info", message)

    async def warning(self, message: Any) -> None:
        await self.log("warning", message)

    async def error(self, message: Any) -> None:
        await self.log("error", message)

    async def elicit(
        self,
        message: str,
        response_type: Any = None,
        *,
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> AcceptedElicitation[Any] | DeclinedElicitation | CancelledElicitation:
        """Ask the client's user for ``response_type`` (``elicitation/create``), as FastMCP's
        ``Context.elicit`` does.

        ``response_type`` is a type toolcall reads arguments as: an object type (dataclass,
        TypedDict, pydantic model, Struct) asks for its fields; a scalar, ``Literal`` or
        ``Enum`` asks for one ``value``. FastMCP's shorthands work too: a list of strings
        (one choice), ``{"key": {"title": ...}}`` (titled choices), and either inside a
        one-item list (several choices). ``None`` asks for a confirmation with no data; a dict
        with ``"type": "object"`` is sent as the requested schema itself. An accepted answer
        is validated and converted like a tool's arguments (a bad one raises ``ValueError``
        naming what is wrong); ``response_title`` and ``response_description`` label the
        ``value`` of the wrapped forms.

        Raises :class:`ClientLacks` when the client did not declare the ``elicitation``
        capability or the connection cannot carry a request to it.
        """
        asking = _asking(response_type, response_title, response_description)
        self._require("elicitation", mcp_types.ClientCapabilities(elicitation=_ELICITATION))
        request = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message=message, requested_schema=asking.schema
            )
        )
        answer = await self._request.session.send_request(
            request, mcp_types.ElicitResult, metadata=self._related()
        )
        if answer.action == "decline":
            return DeclinedElicitation()
        if answer.action == "cancel":
            return CancelledElicitation()
        return AcceptedElicitation(data=asking.read(answer.content or {}))

    async def sample(
        self,
        messages: str | Sequence[str | mcp_types.SamplingMessage],
        system_prompt: str | None = None,
        include_context: mcp_types.IncludeContext | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        model_preferences: mcp_types.ModelPreferences | str | list[str] | None = None,
    ) -> mcp_types.SamplingContent:
        """Ask the client's model for a completion (``sampling/createMessage``), as
        FastMCP's ``Context.sample`` does; the answer's content block (``.text`` for text).

        A string message is the user's; ``model_preferences`` given as names become hints;
        ``max_tokens`` defaults to 512, as FastMCP's. Raises :class:`ClientLacks` when the
        client did not declare the ``sampling`` capability or the connection cannot carry a
        request to it.
        """
        self._require("sampling", mcp_types.ClientCapabilities(sampling=_SAMPLING))
        listed = [messages] if isinstance(messages, str) else list(messages)
        request = mcp_types.CreateMessageRequest(
            params=mcp_types.CreateMessageRequestParams(
                messages=[_sampling_message(item) for item in listed],
                system_prompt=system_prompt,
                include_context=include_context,
                temperature=temperature,
                max_tokens=512 if max_tokens is None else max_tokens,
                model_preferences=_preferences(model_preferences),
            )
        )
        answer = await self._request.session.send_request(
            request, mcp_types.CreateMessageResult, metadata=self._related()
        )
        return answer.content

    async def close_sse_stream(self) -> None:
        """Close this request's SSE stream so the client reconnects and resumes (streamable
        HTTP with an event store); nothing on another transport."""
        close = self._request.close_sse_stream
        if close is not None:
            await close()

    def _related(self) -> ServerMessageMetadata:
        # the request travels on the stream of the call that asks it
        return ServerMessageMetadata(related_request_id=self._request.request_id)

    def _require(self, capability: str, declared: mcp_types.ClientCapabilities) -> None:
        # the channel first: a stateless connection knows no capabilities either, and
        # blaming the client for them would send its user looking in the wrong place
        session = self._request.session
        if not session.can_send_request:
            msg = (
                f"{capability} needs a channel back to the MCP client, which this connection "
                "lacks (stateless HTTP, or the 2026-07-28 protocol)"
            )
            raise ClientLacks(msg)
        if not session.check_client_capability(declared):
            msg = f"the MCP client does not support {capability} (it declared no such capability)"
            raise ClientLacks(msg)

    def __getattr__(self, name: str) -> Any:
        # A tool written for FastMCP may use more of its Context (resources, state) than a
        # toolcall server offers: the call fails saying so, not with a bare "no attribute".
        if name.startswith("__"):
            raise AttributeError(name)
        # the way out first: a tool's error text is cut at 200 characters
        msg = (
            f"toolcall's Context has no {name!r}: FastMCP's Context.{name} must be served by "
            "FastMCP (toolcall.adapters.fastmcp); serve-mcp offers request_id, "
            "report_progress, log, debug, info, warning, error, elicit, sample and "
            "close_sse_stream"
        )
        raise AttributeError(msg)


class ClientLacks(RuntimeError):
    """The MCP client cannot do what the tool asked of it (elicitation, sampling): the
    call's error result says which, and the tool may catch it to carry on without."""


T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class AcceptedElicitation(Generic[T]):
    """The user answered: ``data`` is the answer, as the ``response_type`` asked for it."""

    data: T
    action: Literal["accept"] = "accept"


_ELICITATION = mcp_types.ElicitationCapability()
_SAMPLING = mcp_types.SamplingCapability()
_LEVELS: tuple[mcp_types.LoggingLevel, ...] = get_args(mcp_types.LoggingLevel)
_LEVEL_KEY = "toolcall.log_level"
"""Where a connection's ``logging/setLevel`` is kept, in the SDK's per-connection state."""


def _connection_state(session: Any) -> dict[str, Any] | None:
    """The per-connection scratch state of the SDK (``Connection.state``): the session a
    handler gets is built per request, the connection it belongs to is not. FastMCP keeps
    its log level there too; None when a future SDK moves it."""
    state = getattr(getattr(session, "_connection", None), "state", None)
    return state if isinstance(state, dict) else None


def _client_level(session: Any) -> mcp_types.LoggingLevel:
    state = _connection_state(session)
    level = None if state is None else state.get(_LEVEL_KEY)
    return level if level in _LEVELS else "debug"


async def _set_level(
    ctx: ServerRequestContext[Any], params: mcp_types.SetLevelRequestParams
) -> mcp_types.EmptyResult:
    """``logging/setLevel``: later log messages of this connection below ``level`` are not
    sent (a stateless server has no connection to remember it on)."""
    state = _connection_state(ctx.session)
    if state is not None:
        state[_LEVEL_KEY] = params.level
    return mcp_types.EmptyResult()


def _sampling_message(item: str | mcp_types.SamplingMessage) -> mcp_types.SamplingMessage:
    if isinstance(item, str):
        return mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(text=item))
    return item


def _preferences(
    given: mcp_types.ModelPreferences | str | list[str] | None,
) -> mcp_types.ModelPreferences | None:
    if given is None or isinstance(given, mcp_types.ModelPreferences):
        return given
    names = [given] if isinstance(given, str) else given
    return mcp_types.ModelPreferences(hints=[mcp_types.ModelHint(name=name) for name in names])


class _Asking(msgspec.Struct, frozen=True):
    """One elicitation: the schema sent, and how an accepted answer is read back."""

    schema: dict[str, Any]
    read: Callable[[dict[str, Any]], Any]


def _asking(response_type: Any, title: str | None, description: str | None) -> _Asking:
    """The requested schema for ``response_type`` and the reader of its answer."""
    labels = {
        key: value for key, value in (("title", title), ("description", description)) if value
    }
    if response_type is None or (
        isinstance(response_type, dict) and response_type.get("type") == "object"
    ):
        if labels:
            msg = "response_title and response_description label a single value only"
            raise TypeError(msg)
        schema = {"type": "object", "properties": {}} if response_type is None else response_type
        return _Asking(schema, dict)
    choices = _choices(response_type)
    if choices is not None:
        return _value_asking({**choices[0], **labels}, choices[1])
    return _typed_asking(response_type, labels)


def _choices(response_type: Any) -> tuple[dict[str, Any], Callable[[Any], Any]] | None:
    """FastMCP's shorthands: the property schema and the check of what was chosen."""
    several = (
        isinstance(response_type, list)
        and len(response_type) == 1
        and isinstance(response_type[0], list | dict)
    )
    options = response_type[0] if several else response_type
    if isinstance(options, dict):
        keys = [str(key) for key in options]
        one: dict[str, Any] = {
            "oneOf": [{"const": key, "title": _title(options[key], key)} for key in keys]
        }
    elif isinstance(options, list) and all(isinstance(item, str) for item in options):
        keys = list(options)
        one = {"type": "string", "enum": keys}
    else:
        return None
    if several:
        items = {"anyOf": one["oneOf"]} if "oneOf" in one else one
        return {"type": "array", "items": items}, partial(_chosen_many, keys)
    return {"type": "string", **one}, partial(_chosen, keys)


def _title(option: Any, key: str) -> str:
    found = option.get("title") if isinstance(option, dict) else None
    return found if isinstance(found, str) else key


def _chosen(keys: list[str], value: Any) -> str:
    if value not in keys:
        msg = f"the answer {value!r} is not one of the choices: {', '.join(keys)}"
        raise ValueError(msg)
    return str(value)


def _chosen_many(keys: list[str], value: Any) -> list[str]:
    if not isinstance(value, list):
        msg = f"the answer {value!r} is not a list of choices"
        raise ValueError(msg)
    return [_chosen(keys, item) for item in value]


def _value_asking(schema: dict[str, Any], read: Callable[[Any], Any]) -> _Asking:
    """A single value, sent as the object ``{"value": ...}`` elicitation requires."""
    wrapped = {"type": "object", "properties": {"value": schema}, "required": ["value"]}
    return _Asking(wrapped, partial(_unwrap, read))


def _unwrap(read: Callable[[Any], Any], content: dict[str, Any]) -> Any:
    if "value" not in content:
        msg = "the answer has no 'value'"
        raise ValueError(msg)
    return read(content["value"])


def _typed_asking(response_type: Any, labels: dict[str, str]) -> _Asking:
    """A type: its schema and its conversion are the ones toolcall reads a tool's argument
    of that type with (a one-parameter function in a Toolbox of its own)."""

    def value(value: Any) -> Any:
        """The user's answer."""
        return value

    value.__annotations__ = {"value": response_type, "return": Any}
    box = toolcall.Toolbox(value)
    schema = _elicitable(box.emit("mcp")[0]["inputSchema"]["properties"]["value"])
    if schema.get("type") == "object":
        if labels:
            msg = "response_title and response_description label a single value only"
            raise TypeError(msg)
        return _Asking(schema, partial(_converted, box, response_type))
    return _value_asking({**schema, **labels}, partial(_converted, box, response_type))


def _converted(box: toolcall.Toolbox, response_type: Any, answer: Any) -> Any:
    result = box.run("value", {"value": answer})
    if isinstance(result, toolcall.Err):
        name = getattr(response_type, "__name__", None) or repr(response_type)
        msg = f"the user's answer does not fit {name}: {result.error.message}"
        raise ValueError(msg)
    return result.value


def _elicitable(schema: dict[str, Any]) -> dict[str, Any]:
    """The shape elicitation takes: no ``additionalProperties``, an optional field as its
    plain type (a form field left empty is simply absent)."""
    shaped = {key: value for key, value in schema.items() if key != "additionalProperties"}
    kinds = shaped.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        rest = [kind for kind in kinds if kind != "null"]
        shaped["type"] = rest[0] if len(rest) == 1 else rest
    properties = shaped.get("properties")
    if isinstance(properties, dict):
        shaped["properties"] = {name: _elicitable(field) for name, field in properties.items()}
    return shaped


def _is_context(hint: Any) -> bool:
    """This module's Context, FastMCP's, or the MCP SDK's: each gets a :class:`Context`."""
    if isinstance(hint, str):
        return hint.rpartition(".")[2] == "Context"
    if not isinstance(hint, type):
        return False
    return any(
        klass.__name__ == "Context"
        and (klass.__module__ or "").partition(".")[0] in ("toolcall", "fastmcp", "mcp")
        for klass in hint.__mro__
    )


def _output_schema(tool: ir.Tool) -> dict[str, Any] | None:
    """The schema of what ``encode_result`` writes for the tool's return type, when MCP can
    declare it (an object), else None.

    It is the output schema (``toolcall._render.output``), not the schema arguments are read
    with: a naive ``datetime`` is written without an offset, a ``Decimal`` as a number, so a
    client validating ``structuredContent`` against it (the TypeScript SDK does) accepts
    what the tool returns.
    """
    from toolcall._render.output import output_schema

    value_type = tool.returns
    if value_type is None or value_type.kind != "object" or value_type.nullable:
        return None
    if sends_content(value_type):
        return None
    schema = output_schema(value_type)
    # a NamedTuple or an array_like Struct is written as an array; {} means nothing certain
    return schema if schema.get("type") == "object" else None
