"""Serve tool modules as a Model Context Protocol server, on the official ``mcp`` SDK (2.x).

>>> from toolcall.mcp import serve
>>> serve("myapp.tools.weather", "myapp.tools.orders")                   # doctest: +SKIP
>>> serve("myapp.tools.weather", transport="http", port=8000)            # doctest: +SKIP

or from a shell: ``toolcall serve-mcp myapp.tools.weather --transport http``.

Everything a request needs is prepared when the server is built: ``tools/list`` answers with
the precomputed MCP variant (``Toolbox.emit("mcp")``), so no schema is rendered per request,
and ``tools/call`` goes through ``Toolbox.arun``, which runs a plain function inline on the
event loop (no thread hop; pass ``run_sync_in_thread=True`` for tools that block).

Results. A successful call's value is encoded with :func:`toolcall.encode_result` and sent as
text. When the function's return annotation is an object type (a ``dict``, ``TypedDict``,
dataclass, ``msgspec.Struct``, ``Mapping``) the tool also declares an ``outputSchema`` and the
result carries the same JSON as
``structuredContent``. Other return types (lists, scalars, ``X | None``, unions) are text only:
MCP requires an output schema to describe an object. The output schema describes what
``encode_result`` writes (a ``Decimal`` as a number, a naive ``datetime`` without an offset, a
renamed Struct under its encoded names); a type written as an array (``NamedTuple``,
``array_like`` Struct) or one toolcall cannot describe is text only. A value that does not
encode, or
an object-annotated tool that returns something else, is reported as an error result; the
value is otherwise not checked against the annotation.

Context. A parameter annotated :class:`Context` (or FastMCP's ``Context``, for code written for
FastMCP) is left out of the schema and receives the request's context, through which an
``async def`` tool reports progress (``await ctx.report_progress(3, 10)``) and logs to the
client (``await ctx.info("...")``), as FastMCP tools do.

Errors. A call that ``run`` refuses (unknown tool, bad arguments) or a tool that raises comes
back as an error result (``isError: true``) whose text is the ``ToolError.message`` a model can
act on, never as a protocol error.
"""

from __future__ import annotations

import importlib
import logging
import socket
import types
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

import msgspec

try:
    import anyio
    import anyio.to_thread
    import mcp.types as mcp_types
    from mcp.server import Server, ServerRequestContext
    from mcp.server.stdio import stdio_server
except ImportError as exc:
    if exc.name == "mcp":
        msg = "toolcall.mcp needs the mcp package: pip install 'pytoolcall[mcp]'"
    else:
        msg = f"toolcall.mcp needs mcp 2 or later ({exc}): pip install -U 'pytoolcall[mcp]'"
    raise ImportError(msg) from exc

import toolcall
from toolcall import ir
from toolcall._pipeline import lookup
from toolcall.adapters._common import specs

__all__ = ["Context", "build_server", "run_server", "serve"]

Member = types.ModuleType | str | Callable[..., Any]
Transport = Literal["stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "http")

_log = logging.getLogger("toolcall")


def build_server(
    *members: Member,
    name: str = "toolcall",
    version: str | None = None,
    instructions: str | None = None,
    run_sync_in_thread: bool = False,
) -> Server[Any]:
    """An MCP server (the SDK's low-level ``mcp.server.Server``) for the tools of ``members``.

    ``members`` are what :class:`toolcall.Toolbox` takes: marked modules, their dotted names,
    plain functions; a duplicate tool name raises ``ValueError``. Run the server with
    :func:`run_server`, or with any transport of the SDK (``server.run(read, write,
    server.create_initialization_options())``, ``server.streamable_http_app()``).
    ``run_sync_in_thread=True`` runs plain (non-``async``) tools in a worker thread, for
    tools that block; by default they run inline, which is faster for tools that do not.
    ``version`` (the ``serverInfo`` version clients see) defaults to toolcall's own.
    """
    box = toolcall.Toolbox(*members)
    tools = _tools(members)
    structured: set[str] = set()
    listing: list[mcp_types.Tool] = []
    for definition in box.emit("mcp"):
        tool = tools.get(definition["name"])
        schema = _output_schema(tool) if tool is not None else None
        if schema is not None:
            structured.add(definition["name"])
        listing.append(mcp_types.Tool.model_validate({**definition, "outputSchema": schema}))
    threaded = frozenset(
        name for name, tool in tools.items() if run_sync_in_thread and not tool.is_async
    )
    contexts = {
        spec.name: spec.contexts
        for spec in specs(box, "mcp", False, _is_context, None)
        if spec.contexts
    }
    handlers = _Handlers(box, listing, frozenset(structured), threaded, contexts)
    return Server(
        name,
        version=toolcall.__version__ if version is None else version,
        instructions=instructions,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )


async def run_server(
    server: Server[Any],
    transport: Transport = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    on_listening: Callable[[str], object] | None = None,
) -> None:
    """Serve ``server`` until the client leaves (stdio) or the process is interrupted (http).

    ``transport="stdio"`` speaks on the process's stdin/stdout (the SDK points fd 1 at stderr
    meanwhile, so a stray ``print`` in a tool cannot corrupt the stream). ``"http"`` serves
    streamable HTTP at ``http://host:port/path`` with uvicorn; ``port=0`` picks a free port.
    The socket is bound before serving, so a taken port raises ``OSError`` here, and
    ``on_listening`` is then called with the URL (the real port included).
    """
    if transport == "stdio":
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    _check_transport(transport)
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.create_server((host, port), family=family) as sock:
        bound = sock.getsockname()[1]
        app = server.streamable_http_app(streamable_http_path=path, host=host)
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
        if on_listening is not None:
            shown = f"[{host}]" if family == socket.AF_INET6 else host
            on_listening(f"http://{shown}:{bound}{path}")
        await uvicorn.Server(config).serve(sockets=[sock])


def serve(
    *members: Member,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str = "toolcall",
    run_sync_in_thread: bool = False,
    on_listening: Callable[[str], object] | None = None,
) -> None:
    """Build a server for ``members`` (see :func:`build_server`) and serve it (see
    :func:`run_server`); blocks until the server stops."""
    _check_transport(transport)
    server = build_server(*members, name=name, run_sync_in_thread=run_sync_in_thread)
    serving = partial(
        run_server, server, transport, host=host, port=port, path=path, on_listening=on_listening
    )
    anyio.run(serving)


def _check_transport(transport: str) -> None:
    if transport not in TRANSPORTS:
        msg = f"unknown transport {transport!r}; expected one of: {', '.join(TRANSPORTS)}"
        raise ValueError(msg)


class _Handlers:
    """The two request handlers, closed over what was prepared at construction."""

    __slots__ = ("_box", "_contexts", "_listing", "_structured", "_threaded")

    def __init__(
        self,
        box: toolcall.Toolbox,
        listing: list[mcp_types.Tool],
        structured: frozenset[str],
        threaded: frozenset[str],
        contexts: dict[str, tuple[str, ...]],
    ) -> None:
        self._box = box
        self._listing = listing
        self._structured = structured
        self._threaded = threaded
        self._contexts = contexts

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=self._listing)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        name = params.name
        args = {} if params.arguments is None else params.arguments
        names = self._contexts.get(name)
        inject = dict.fromkeys(names, Context(ctx)) if names else None
        if name in self._threaded:
            run = partial(self._box.run, name, args, inject=inject)
            result = await anyio.to_thread.run_sync(run)
        else:
            result = await self._box.arun(name, args, inject=inject)
        if isinstance(result, toolcall.Err):
            return _error(result.error.message)
        value = result.value
        try:
            text = toolcall.encode_result(value)
        except Exception as exc:  # the tool's own value: anything can fail to encode
            _log.error("toolcall: the result of %s cannot be encoded as JSON", name, exc_info=True)
            return _error(f"the tool's result cannot be encoded as JSON: {exc}")
        content: list[mcp_types.ContentBlock] = [mcp_types.TextContent(text=text)]
        if name not in self._structured:
            return mcp_types.CallToolResult(content=content)
        structured = msgspec.json.decode(text)
        if type(structured) is not dict:
            _log.error("toolcall: %s returned %s, not an object", name, type(value).__name__)
            return _error(
                f"the tool returned {type(value).__name__}, but its return annotation declares "
                "an object"
            )
        return mcp_types.CallToolResult(content=content, structured_content=structured)


class Context:
    """The request a tool is serving, for an ``async def`` tool to report progress and log.

    Annotate a parameter with it (``ctx: toolcall.mcp.Context``): it is not in the schema,
    and each call receives the context of its request. The methods mirror FastMCP's
    ``Context``, so tools written for FastMCP report progress the same way here.

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
        """Send ``notifications/message`` at ``level`` (``"info"``, ``"warning"``, ...).

        The 2026-07-28 protocol deprecates client logging (the SDK warns) and delivers it only
        to requests that opt in with a log level; older clients get it as before.
        """
        await self._request.session.send_log_message(
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


def _error(message: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=message)], is_error=True)


def _tools(members: tuple[Member, ...]) -> dict[str, ir.Tool]:
    """Each tool's IR, by tool name, for what the served definitions do not carry: the
    return type and whether it is ``async``."""
    found: dict[str, ir.Tool] = {}
    for member in members:
        if isinstance(member, types.ModuleType | str):
            module = importlib.import_module(member) if isinstance(member, str) else member
            found.update((tool.name, tool) for tool in lookup(module).ir.tools)
        else:
            with warnings.catch_warnings():  # the Toolbox has issued them already
                warnings.simplefilter("ignore", toolcall.ToolcallWarning)
                tool = toolcall.derive(member)
            found[tool.name] = tool
    return found


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
    schema = output_schema(value_type)
    # a NamedTuple or an array_like Struct is written as an array; {} means nothing certain
    return schema if schema.get("type") == "object" else None
