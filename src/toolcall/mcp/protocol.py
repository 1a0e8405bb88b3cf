"""serve-mcp's HTTP/1.1 protocol: uvicorn's h11 one, with the edges a network service needs.

- a header read timeout (uvicorn has none: a silent connection stays open forever);
- Nagle's algorithm off on every connection, and what one turn of the event loop writes
  sent as one write (a response's head and body leave in one segment);
- each request's :class:`~toolcall.mcp.calls.Departure` in its ASGI scope, told when the
  connection closes, so a call whose client left is cancelled without a task per call
  reading the request's ``receive`` for its ``http.disconnect``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

from toolcall.mcp.calls import DEPARTURE, Departure

__all__ = ["TimedProtocol"]


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

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # a peer already gone: the read will say so
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        coalescing = _Coalescing(transport, self.loop)  # type: ignore[arg-type]
        super().connection_made(coalescing)  # type: ignore[arg-type]
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
        if DEPARTURE not in cycle.scope:
            cycle.scope[DEPARTURE] = Departure()  # type: ignore[typeddict-unknown-key]
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._header_timer is None and not self.transport.is_closing():
            self._arm()

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
