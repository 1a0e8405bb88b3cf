"""Streamable HTTP as a network service: the SDK's app, with the settings and the edges it lacks.

What the SDK provides is used as it is: ``Server.streamable_http_app`` gives the transport,
stateless mode and JSON responses, the session cap and idle time, the body size limit, the
Host/Origin check (``TransportSecuritySettings``) and bearer authentication
(``AuthSettings``, ``TokenVerifier``, protected-resource metadata); uvicorn gives the socket,
keep-alive, the connection limit and the worker processes. What is added here, around the
SDK's app and never inside it:

- Host/Origin lists for every loopback spelling (the SDK turns its check on only for exactly
  ``127.0.0.1``, ``localhost`` and ``::1``), and the refusal to serve a public address
  without authentication;
- ``GET /healthz``;
- a request id per request (the ``x-request-id`` header, answered back), the access log, a
  body read timeout, and a JSON-RPC error for a request whose ``id`` is neither a string
  nor an integer (the SDK takes it for a notification and answers nothing);
- uvicorn's h11 protocol with a header read timeout, Nagle off and departures
  (``protocol``);
- the graceful shutdown: on SIGTERM or SIGINT, stop accepting at once (``UvicornServer``)
  and answer ``/healthz`` with 503; serve the calls the accepted connections send, each
  answer closing its connection, until no call runs and no connection could send one, or
  the grace period ends; then refuse new calls, answer the running ones with an error and
  close the streams (sse-starlette's own drain would end them at once, cancelling the
  calls). Nothing is refused while the server still accepts: a load balancer retries a
  refused connection on another replica, never an answered call.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolcall.mcp.auth import Auth
from toolcall.mcp.calls import Calls, access_log
from toolcall.mcp.protocol import ACCEPT_BURST, CONNECTIONS, TimedProtocol, UvicornServer
from toolcall.mcp.server import REQUEST_ID_HEADER, calls_of

__all__ = ["HttpOptions", "Unprotected", "build_app", "is_loopback", "serve_http"]

_log = logging.getLogger("toolcall")


class Unprotected(ValueError):
    """Serving a non-loopback address without authentication, and not asked to."""


@dataclass
class HttpOptions:
    """The HTTP service's settings; every default is safe for a public server.

    ``json_response`` (None) answers with JSON unless a tool takes a ``Context``, with or
    without sessions: only such a tool sends messages while it runs (progress, logs), and only
    an SSE stream carries them; otherwise a stream carries the one answer JSON does, at more
    cost to the client. ``True`` with such a tool drops its messages, and serving says so.
    ``allowed_hosts``/``allowed_origins`` (``"mcp.example.com"``, ``"https://app.example"``;
    a port may follow, ``:*`` for any) turn the Host/Origin check on for any bind; on
    loopback it is always on. ``max_connections`` is uvicorn's ``limit_concurrency`` (503
    beyond it), lowered to what the descriptor limit allows (:func:`descriptor_budget`).
    ``grace`` is how long a shutdown serves the calls of accepted connections.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    auth: Auth | None = None
    allow_unauthenticated: bool = False
    stateless: bool = False
    json_response: bool | None = None
    allowed_hosts: Sequence[str] = ()
    allowed_origins: Sequence[str] = ()
    max_body: int = 4 * 1024 * 1024
    max_sessions: int = 1000
    session_idle_timeout: float | None = 300.0
    max_connections: int = 512
    header_timeout: float | None = 10.0
    body_timeout: float | None = 30.0
    keep_alive: int = 5
    grace: float = 10.0
    access_log: bool = False
    workers: int = 1
    extra_routes: list[Route] = field(default_factory=list)

    def check(self) -> None:
        """Raise :class:`Unprotected` (one line) for a public bind without authentication."""
        if self.auth is None and not self.allow_unauthenticated and not is_loopback(self.host):
            msg = (
                f"refusing to serve {self.host} without authentication: give a token "
                "(--auth-token-file, --auth-token-env) or a JWT key (--jwt-jwks-url, "
                "--jwt-public-key-file), or --allow-unauthenticated"
            )
            raise Unprotected(msg)


def is_loopback(host: str) -> bool:
    """``localhost``, or an address in ``127.0.0.0/8`` or ``::1`` however it is spelled
    (``127.1``, ``0:0:0:0:0:0:0:1``, ``[::1]``)."""
    host = host.strip("[]")
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        found = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError, ValueError):
        return False
    return all(
        ipaddress.ip_address(str(item[4][0]).partition("%")[0]).is_loopback for item in found
    )


def _security(options: HttpOptions) -> TransportSecuritySettings:
    hosts = [*options.allowed_hosts]
    origins = [*options.allowed_origins]
    if is_loopback(options.host):
        bare = options.host.strip("[]")
        names = {"127.0.0.1", "localhost", "[::1]", f"[{bare}]" if ":" in bare else bare}
        for spelling in sorted(names):
            hosts += [spelling, f"{spelling}:*"]
            origins += [
                f"{scheme}://{spelling}{port}"
                for scheme in ("http", "https")
                for port in ("", ":*")
            ]
    enabled = bool(hosts)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=enabled, allowed_hosts=hosts, allowed_origins=origins
    )


def served_url(options: HttpOptions, port: int) -> str:
    host = options.host
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}{options.path}"


def build_app(server: Server[Any], options: HttpOptions, url: str) -> Front:
    """The ASGI app serving ``server`` at ``url`` under ``options``."""
    calls = calls_of(server)
    if calls is None:
        msg = "serve_http needs a server made by toolcall.mcp.build_server"
        raise TypeError(msg)
    auth = options.auth

    async def healthz(request: Request) -> JSONResponse:
        if front.stopping:
            return JSONResponse({"status": "draining"}, status_code=503)
        return JSONResponse({"status": "ok"})

    app = server.streamable_http_app(
        streamable_http_path=options.path,
        json_response=calls.answers_json(options.json_response),
        stateless_http=options.stateless,
        max_request_body_size=options.max_body,
        session_idle_timeout=options.session_idle_timeout,
        max_sessions=options.max_sessions,
        transport_security=_security(options),
        host=options.host,
        auth=None if auth is None else auth.settings(url),
        token_verifier=None if auth is None else auth.verifier,
        custom_starlette_routes=[
            Route("/healthz", healthz, methods=["GET"]),
            *options.extra_routes,
        ],
    )
    front = Front(app, calls, options)
    return front


class Front:
    """The outermost ASGI layer: request ids, the access log, body checks, the shutdown."""

    def __init__(self, app: ASGIApp, calls: Calls, options: HttpOptions) -> None:
        self.app = app
        self.calls = calls
        self.options = options
        self.failed = False
        self.stopping = False  # a signal came: every answer closes its connection
        self.exit_when_done = False  # a worker process ends itself (see serve_http)
        self._draining: asyncio.Task[None] | None = None
        self._connections: Collection[object] = ()  # the server's, when it tells them
        _quiet_sse_drain()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            self._connections = scope.get("state", {}).get(CONNECTIONS, ())
            await self.app(scope, self._lifespan(receive), self._finished(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        scope["headers"] = [
            *(item for item in scope["headers"] if item[0] != REQUEST_ID_HEADER.encode()),
            (REQUEST_ID_HEADER.encode(), request_id.encode()),
        ]
        started = time.perf_counter()
        status = 0

        async def stamped(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", ()),
                    (REQUEST_ID_HEADER.encode(), request_id.encode()),
                    *(_CLOSE if self.stopping else ()),
                ]
            await send(message)

        try:
            if scope["method"] == "POST" and scope["path"] == self.options.path:
                await self._post(scope, receive, stamped)
            else:
                await self.app(scope, receive, stamped)
        finally:
            if self.options.access_log:
                access_log.info(
                    "request id=%s method=%s path=%s status=%s ms=%.1f",
                    request_id,
                    scope["method"],
                    scope["path"],
                    status,
                    (time.perf_counter() - started) * 1000,
                )

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body (bounded in size and time), refuse a bad ``id``, replay it."""
        chunks: list[bytes] = []
        size = 0
        trailing: list[Message] = []
        try:
            async with asyncio.timeout(self.options.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        trailing.append(message)
                        break
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.options.max_body:
                        await _plain(send, 413, b"Request body too large")
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _plain(send, 408, b"Request body not received in time")
            return
        body = b"".join(chunks)
        refused = _refusal(body)
        if refused:
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": refused}}
            await _send(send, 400, "application/json", msgspec.json.encode(error))
            return
        replay: list[Message] = [
            {"type": "http.request", "body": body, "more_body": False},
            *trailing,
        ]

        async def replayed() -> Message:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, replayed, send)

    # -- the shutdown -----------------------------------------------------------------

    def _lifespan(self, receive: Receive) -> Receive:
        async def watched() -> Message:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._take_signals()
            elif message["type"] == "lifespan.shutdown" and self._draining is not None:
                # uvicorn shuts down as soon as the cut-off callers have their answers and
                # closed: the exit status is only known once the drain has counted them
                await self._draining
            return message

        return watched

    def _finished(self, send: Send) -> Send:
        async def watched(message: Message) -> None:
            await send(message)
            if message["type"] == "lifespan.shutdown.complete" and self.exit_when_done:
                # a uvicorn worker would otherwise re-raise SIGTERM on itself after serving
                # (status -15); its supervisor reads this status instead
                sys.stderr.flush()
                os._exit(1 if self.failed else 0)

        return watched

    def _take_signals(self) -> None:
        """Run the drain first, then uvicorn's own handler (which stops accepting)."""
        loop = asyncio.get_running_loop()
        if _early:  # a signal came while uvicorn was starting: stop now
            loop.call_soon(self._start_drain)
            signal.raise_signal(_early.pop())
        for number in (signal.SIGTERM, signal.SIGINT):
            previous = signal.getsignal(number)
            if not callable(previous):
                continue

            def handler(sig: int, frame: Any, previous: Callable[..., Any] = previous) -> None:
                loop.call_soon_threadsafe(self._start_drain)
                previous(sig, frame)

            try:
                signal.signal(number, handler)
            except ValueError:  # not the main thread: the embedding program handles signals
                return

    def _start_drain(self) -> None:
        self.stopping = True
        if self._draining is None:
            self._draining = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        # the accepted connections may still send calls: each is served, and its answer
        # closes its connection; polled, as uvicorn's own shutdown polls its connections.
        # The first look waits one poll: a connection accepted up to the signal (by asyncio,
        # or by the server as it stops accepting) is open only a turn or two of the loop
        # later, and a look before then found nothing and refused the call it carried.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.options.grace):
                await asyncio.sleep(_POLL)
                while self.calls.running or any(map(_may_call, self._connections)):
                    await asyncio.sleep(_POLL)
        await self.calls.drain()
        if self.calls.lost:
            _log.error("toolcall: %d call(s) cut off by the shutdown", self.calls.lost)
            self.failed = True
        if self.calls.stuck_threads:
            _log.error(
                "toolcall: %d tool thread(s) still running at exit", self.calls.stuck_threads
            )
        _end_sse_streams()


_CLOSE = ((b"connection", b"close"),)
_POLL = 0.05  # seconds between the drain's looks at the calls and connections


def _may_call(connection: object) -> bool:
    return not isinstance(connection, TimedProtocol) or connection.may_call


_MAX_DEPTH = 512
"""JSON nesting refused (the parsers' own limits depend on the interpreter and the stack:
about 1,000 levels on 3.11, where they fail with an HTTP 500 and a traceback)."""


def _refusal(body: bytes) -> str:
    """Why the SDK must not see ``body``, or "": JSON nested deeper than
    :data:`_MAX_DEPTH` levels, or a JSON-RPC request (it has a ``method``) whose ``id`` is
    not a string or an integer."""
    too_deep = f"Invalid Request: JSON nested deeper than {_MAX_DEPTH} levels"
    try:
        decoded = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return ""  # the SDK answers a parse error itself
    except RecursionError:
        return too_deep
    # no deeper than the brackets it holds: the walk is for the rare body with many
    if body.count(b"[") + body.count(b"{") > _MAX_DEPTH and _deeper(decoded, _MAX_DEPTH):
        return too_deep
    items = decoded if isinstance(decoded, list) else [decoded]
    for item in items:
        if isinstance(item, dict) and "method" in item and "id" in item:
            found = item["id"]
            if found is not None and (type(found) is bool or not isinstance(found, str | int)):
                return "Invalid Request: id must be a string or an integer"
    return ""


def _deeper(value: object, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack += [(child, depth + 1) for child in children]
    return False


async def _plain(send: Send, status: int, text: bytes) -> None:
    await _send(send, status, "text/plain; charset=utf-8", text)


async def _send(send: Send, status: int, kind: str, body: bytes) -> None:
    headers = [(b"content-type", kind.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _quiet_sse_drain() -> None:
    """sse-starlette ends every stream the moment uvicorn sees a signal; the drain ends
    them itself, after the calls answered."""
    from sse_starlette.sse import AppStatus

    AppStatus.should_exit = False
    AppStatus.enable_automatic_graceful_drain = False


def _end_sse_streams() -> None:
    from sse_starlette.sse import AppStatus

    AppStatus.should_exit = True


_RESERVED_DESCRIPTORS = 64
"""Kept for the server itself: stdio, the listening socket, the event loop, log files,
what the tools open, and the connections accepted in one burst before the protocol closes
those past the budget (``ACCEPT_BURST``)."""


def descriptor_budget() -> int:
    """How many connections the process's descriptor limit (``RLIMIT_NOFILE``) leaves room
    for: past it, ``accept`` fails (EMFILE) and nobody new gets in, a normal client neither."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return sys.maxsize
    return max(1, soft - _RESERVED_DESCRIPTORS)


def fit_connections(options: HttpOptions) -> None:
    """Lower ``options.max_connections`` to :func:`descriptor_budget`, saying so (once, by
    the process that starts serving)."""
    budget = descriptor_budget()
    if options.max_connections > budget:
        _log.warning(
            "toolcall: at most %d connections, not %d: the descriptor limit (ulimit -n) is "
            "%d and the server keeps %d for itself; raise the limit to allow more",
            budget,
            options.max_connections,
            budget + _RESERVED_DESCRIPTORS,
            _RESERVED_DESCRIPTORS,
        )
        options.max_connections = budget


def uvicorn_config(app: Any, options: HttpOptions, **extra: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        http=TimedProtocol,
        lifespan="on",
        timeout_keep_alive=options.keep_alive,
        limit_concurrency=options.max_connections,
        backlog=ACCEPT_BURST,
        timeout_graceful_shutdown=int(options.grace) + 3,
        access_log=False,
        **extra,
    )
    config.toolcall_header_timeout = options.header_timeout  # type: ignore[attr-defined]
    # one under the budget: from max_connections connections on, uvicorn answers 503
    config.toolcall_open_limit = descriptor_budget() - 1  # type: ignore[attr-defined]
    return config


def bind(options: HttpOptions) -> socket.socket:
    """The listening socket (``OSError`` when the port is taken)."""
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.create_server((options.host.strip("[]"), options.port), family=family)
    sock.set_inheritable(True)
    return sock


async def serve_http(
    server: Server[Any],
    options: HttpOptions,
    on_listening: Callable[[str], object] | None = None,
) -> int:
    """Serve ``server`` in this process until SIGTERM or SIGINT; 0, or 1 if the shutdown
    cut off a call."""
    options.check()
    if options.workers != 1:
        msg = (
            "workers > 1 rebuild the server in each process: use toolcall.mcp.workers.serve_workers"
        )
        raise ValueError(msg)
    fit_connections(options)
    with bind(options) as sock:
        url = served_url(options, sock.getsockname()[1])
        front = build_app(server, options, url)
        dropped = front.calls.dropped(options.json_response)
        if dropped:  # said once, by the serving process
            _log.warning("%s", dropped)
        if options.access_log:
            log_to_stderr()
        config = uvicorn_config(front, options)
        # uvicorn re-raises a caught signal after serving: let it land on a no-op here; and
        # one sent on reading the announcement below is kept for the drain, not fatal
        _early.clear()
        previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
        try:
            for number in previous:
                signal.signal(number, _ignore)
        except ValueError:  # not the main thread
            previous = {}
        try:
            if on_listening is not None:
                on_listening(url)
            await UvicornServer(config).serve(sockets=[sock])
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
    return 1 if front.failed else 0


_early: list[int] = []


def _ignore(sig: int, frame: Any) -> None:
    """A signal before uvicorn takes them is kept for the drain; its re-raise after serving
    stops nothing more."""
    _early.append(sig)


def log_to_stderr() -> None:
    if not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s toolcall.access %(message)s"))
        access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False
