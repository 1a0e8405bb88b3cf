"""serve-mcp's HTTP/1.1 protocol: uvicorn's h11 one, with the edges a network service needs.

- a header read timeout (uvicorn has none: a silent connection stays open forever);
- Nagle's algorithm off on every connection, and what one turn of the event loop writes
  sent as one write (a response's head and body leave in one segment);
- each request's :class:`~toolcall.mcp.calls.Departure` in its ASGI scope, told when the
  connection closes, so a call whose client left is cancelled without a task per call
  reading the request's ``receive`` for its ``http.disconnect``;
- a shutdown that leaves a connection between requests open (its client may be sending
  one at this moment: closing would reset it), to close after its next answer or when idle;

and uvicorn's server, stopping accepting the moment a signal arrives (:class:`UvicornServer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from collections.abc import Callable
from types import FrameType
from typing import Final

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from toolcall.mcp.calls import DEPARTURE, Departure

__all__ = ["ACCEPT_BURST", "CONNECTIONS", "TimedProtocol", "UvicornServer"]

CONNECTIONS: Final = "toolcall.connections"
"""The lifespan state key of the server's open connections (read by the shutdown)."""


class TimedProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers do not arrive
    within ``config.toolcall_header_timeout`` seconds (a first request or a next one), with
    Nagle's algorithm off, telling each request's calls when its connection closes.

    asyncio turns Nagle off only on sockets whose ``proto`` is ``IPPROTO_TCP``; a listening
    socket from ``socket.create_server`` (ours) or uvicorn's supervisor has ``proto`` 0, and so
    have the connections it accepts. With Nagle on, a response written in parts waits for the
    client's delayed ACK: about 40 ms on every call.
    """

    _header_timer: asyncio.TimerHandle | None = None
    _opened = 0.0
    _requested = False  # its first request came

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # a peer already gone: the read will say so
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        coalescing = _Coalescing(transport, self.loop)  # type: ignore[arg-type]
        super().connection_made(coalescing)  # type: ignore[arg-type]
        self._opened = self.loop.time()
        limit = getattr(self.config, "toolcall_open_limit", None)
        if limit is not None and len(self.server_state.connections) > limit:
            # past what the descriptor limit allows: the connection silent the longest makes
            # room (a client sends its request as it connects), else this one goes
            silent = [
                other
                for other in self.server_state.connections
                if isinstance(other, TimedProtocol)
                and not other._requested
                and not other.transport.is_closing()
            ]
            oldest = min(silent, key=lambda other: other._opened)
            oldest.transport.close()
            if oldest is self:
                return
        self._arm()

    def _arm(self) -> None:
        timeout = getattr(self.config, "toolcall_header_timeout", None)
        if timeout:
            self._header_timer = self.loop.call_later(timeout, self._expire)

    def _expire(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return
        # the request's task is created, not yet run: it reads its scope afterwards
        self._requested = True
        if DEPARTURE not in cycle.scope:
            cycle.scope[DEPARTURE] = Departure()  # type: ignore[typeddict-unknown-key]
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._header_timer is None and not self.transport.is_closing():
            self._arm()

    def shutdown(self) -> None:
        if self.cycle is None or self.cycle.response_complete:
            return  # the answer to its next request says ``Connection: close``
        super().shutdown()

    @property
    def may_call(self) -> bool:
        """Whether a call may still come on this connection: it is between requests or
        in one, but not holding a GET (a stream of the server's messages)."""
        cycle = self.cycle
        return cycle is None or cycle.response_complete or cycle.scope["method"] != "GET"

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        cycle = self.cycle
        super().connection_lost(exc)
        if cycle is not None and not cycle.response_complete:
            departure = cycle.scope.get(DEPARTURE)
            if isinstance(departure, Departure):
                departure.leave()


ACCEPT_BURST: Final = 16
"""uvicorn's ``backlog``, which asyncio also takes for how many connections it accepts at
one wake-up before any reaches a protocol (which closes those past the descriptor budget):
with 2,048, a burst of silent connections took every descriptor (EMFILE)."""

_QUEUE = 2048  # uvicorn's default backlog, for the kernel's queue of completed connections


class UvicornServer(uvicorn.Server):
    """uvicorn's server, closing its listening sockets as soon as SIGTERM or SIGINT arrives.

    uvicorn closes them on the next tick of its main loop, up to 100 ms later: connections
    accepted meanwhile arrive to a server that is shutting down. The connections the kernel
    has completed by then are accepted and served (closing the socket would reset them,
    requests sent included); any later one is refused at connect, which a load balancer
    retries on another replica.
    """

    _loop: asyncio.AbstractEventLoop | None = None
    _listening: tuple[socket.socket, ...] = ()

    def __init__(self, config: uvicorn.Config, serving: Callable[[], object] | None = None):
        """``serving`` is called once the server serves and takes the signals."""
        super().__init__(config)
        self._serving = serving
        self._handing: set[asyncio.Task[None]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._listening = tuple(sockets or ())
        self.lifespan.state[CONNECTIONS] = self.server_state.connections
        await super().startup(sockets)
        for sock in self._listening:
            sock.listen(_QUEUE)  # the kernel's queue; uvicorn's backlog bounds each burst
        if self._serving is not None:
            self._serving()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit and self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop_accepting)
        super().handle_exit(sig, frame)

    def _stop_accepting(self) -> None:
        if not self.started:
            return  # the servers do not exist yet: uvicorn's shutdown follows the startup
        accepted: list[socket.socket] = []
        for sock in self._listening:
            with contextlib.suppress(OSError):  # BlockingIOError: nothing more is waiting
                while True:
                    accepted.append(sock.accept()[0])
        for server in self.servers:
            server.close()
        for sock in self._listening:
            sock.close()
        protocol = functools.partial(
            TimedProtocol,
            config=self.config,
            server_state=self.server_state,
            app_state=self.lifespan.state,
        )
        assert self._loop is not None
        for connection in accepted:
            connection.setblocking(False)
            task = self._loop.create_task(_serve_accepted(self._loop, protocol, connection))
            self._handing.add(task)  # the loop holds a task weakly
            task.add_done_callback(self._handing.discard)


async def _serve_accepted(
    loop: asyncio.AbstractEventLoop,
    protocol: functools.partial[TimedProtocol],
    connection: socket.socket,
) -> None:
    try:
        await loop.connect_accepted_socket(protocol, connection)
    except OSError:  # its client already left
        connection.close()


class _Coalescing:
    """A connection's transport that sends what one turn of the event loop writes as one
    write. uvicorn writes a response's head and its body apart: with Nagle off they left as
    two segments, so the client woke and read twice per answer, and the server made two
    system calls. Held bytes go out at the end of the turn, or before the transport closes or
    ends its side; everything else is the transport's own."""

    __slots__ = ("_held", "_loop", "inner")

    def __init__(self, inner: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.inner = inner
        self._loop = loop
        self._held: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if not data:
            return
        if type(data) is not bytes:  # a caller may reuse its buffer once write returns
            data = bytes(data)
        held = self._held
        if held is None:
            self._held = [data]
            self._loop.call_soon(self._flush)
        else:
            held.append(data)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held and not self.inner.is_closing():
            self.inner.write(held[0] if len(held) == 1 else b"".join(held))

    def writelines(self, lines: list[bytes]) -> None:
        for data in lines:
            self.write(data)

    def write_eof(self) -> None:
        self._flush()
        self.inner.write_eof()

    def close(self) -> None:
        self._flush()
        self.inner.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
