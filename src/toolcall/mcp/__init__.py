"""Serve tool modules as a Model Context Protocol server, on the official ``mcp`` SDK (2.x).

>>> from toolcall.mcp import serve
>>> serve("myapp.tools.weather", "myapp.tools.orders")                   # doctest: +SKIP
>>> serve("myapp.tools.weather", transport="http", port=8000)            # doctest: +SKIP

or from a shell: ``toolcall serve-mcp myapp.tools.weather --transport http``.

The package is the SDK, wired: :mod:`toolcall.mcp.server` (the low-level ``Server`` and its
two handlers), :mod:`toolcall.mcp.calls` (limits, the thread pool, error isolation),
:mod:`toolcall.mcp.auth` (token verifiers for the SDK's ``TokenVerifier``),
:mod:`toolcall.mcp.http` (streamable HTTP as a network service) and
:mod:`toolcall.mcp.workers` (N processes on one socket). It uses toolcall's public API only.

Context. A parameter annotated :class:`Context` (or FastMCP's ``Context``, for code written for
FastMCP) is left out of the schema and receives the request's context, through which an
``async def`` tool reports progress (``await ctx.report_progress(3, 10)``), logs to the
client (``await ctx.info("...")``, filtered by the client's ``logging/setLevel``), asks the
user (``await ctx.elicit("Which city?", str)``) and the client's model (``await
ctx.sample("Summarize: ...")``), as FastMCP tools do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal

try:
    import anyio
    import mcp.types  # noqa: F401  # the SDK, or the install hint below
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
except ImportError as exc:
    if exc.name == "mcp":
        msg = "toolcall.mcp needs the mcp package: pip install 'pytoolcall[mcp]'"
    else:
        msg = f"toolcall.mcp needs mcp 2 or later ({exc}): pip install -U 'pytoolcall[mcp]'"
    raise ImportError(msg) from exc

from toolcall.mcp.auth import Auth, JWTVerifier, StaticTokenVerifier
from toolcall.mcp.calls import CallLimits
from toolcall.mcp.http import HttpOptions, Unprotected, is_loopback, serve_http
from toolcall.mcp.server import (
    AcceptedElicitation,
    CancelledElicitation,
    ClientLacks,
    Context,
    DeclinedElicitation,
    Member,
    build_server,
)

__all__ = [
    "AcceptedElicitation",
    "Auth",
    "CallLimits",
    "CancelledElicitation",
    "ClientLacks",
    "Context",
    "DeclinedElicitation",
    "HttpOptions",
    "JWTVerifier",
    "StaticTokenVerifier",
    "Unprotected",
    "build_server",
    "is_loopback",
    "run_server",
    "serve",
]

Transport = Literal["stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "http")


async def run_server(
    server: Server[Any],
    transport: Transport = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    on_listening: Callable[[str], object] | None = None,
    options: HttpOptions | None = None,
) -> int:
    """Serve ``server`` until the client leaves (stdio) or SIGTERM/SIGINT (http); the exit
    status (0, or 1 when a shutdown cut off a call).

    ``transport="stdio"`` speaks on the process's stdin/stdout (the SDK points fd 1 at stderr
    meanwhile, so a stray ``print`` in a tool cannot corrupt the stream). ``"http"`` serves
    streamable HTTP at ``http://host:port/path`` with uvicorn under ``options`` (which, when
    given, replaces ``host``, ``port`` and ``path``); ``port=0`` picks a free port. The socket
    is bound before serving, so a taken port raises ``OSError`` here, and ``on_listening`` is
    then called with the URL (the real port included). A non-loopback ``host`` without
    ``options.auth`` raises :class:`Unprotected` unless ``options.allow_unauthenticated``.
    """
    if transport == "stdio":
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return 0
    _check_transport(transport)
    if options is None:
        options = HttpOptions(host=host, port=port, path=path)
    return await serve_http(server, options, on_listening)


def serve(
    *members: Member,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str = "toolcall",
    run_sync_in_thread: bool | None = None,
    strict: bool = False,
    limits: CallLimits | None = None,
    options: HttpOptions | None = None,
    on_listening: Callable[[str], object] | None = None,
    tool_search: bool = False,
    pinned: Sequence[str] = (),
    search_k: int = 5,
) -> int:
    """Build a server for ``members`` (see :func:`build_server`) and serve it (see
    :func:`run_server`); blocks until the server stops and returns the exit status.

    Over HTTP plain tools run on the bounded thread pool unless ``run_sync_in_thread=False``
    (over stdio they run inline unless ``True``).
    """
    _check_transport(transport)
    threaded = transport == "http" if run_sync_in_thread is None else run_sync_in_thread
    server = build_server(
        *members,
        name=name,
        run_sync_in_thread=threaded,
        strict=strict,
        limits=limits,
        tool_search=tool_search,
        pinned=pinned,
        search_k=search_k,
    )
    serving = partial(
        run_server,
        server,
        transport,
        host=host,
        port=port,
        path=path,
        on_listening=on_listening,
        options=options,
    )
    return anyio.run(serving)


def _check_transport(transport: str) -> None:
    if transport not in TRANSPORTS:
        msg = f"unknown transport {transport!r}; expected one of: {', '.join(TRANSPORTS)}"
        raise ValueError(msg)
