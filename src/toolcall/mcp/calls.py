"""How one ``tools/call`` runs: bounded, timed, isolated, and counted for a graceful shutdown.

A network server must not let one tool decide for everyone. So every call here:

- is refused with kind ``busy`` when the process already runs ``max_calls`` calls, or when a
  plain tool finds every pool thread taken (it never queues without bound);
- runs a plain tool on a daemon thread of a bounded pool (or inline, on request): a thread
  cannot be stopped, so a call that timed out or whose client left gets its answer (or none)
  at once, while its pool slot stays taken until the thread really ends;
- gets a ``timeout`` result after the default per-call limit;
- turns whatever the tool raises, ``BaseException`` included (``KeyboardInterrupt``,
  ``GeneratorExit``, ``SystemExit``, a custom one), into that call's error result, except the
  cancellation of the call itself (its client left, or the server stops), which propagates as
  the SDK expects;
- is counted, so a shutdown can wait for the calls in flight, refuse new ones (kind
  ``shutting_down``) and cut off, with an error answer, those still running after the grace
  period.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any, Final

import anyio
import msgspec

import toolcall
from toolcall._dispatch.result import check_timeout, tool_raised

__all__ = ["DEPARTURE", "CallLimits", "Calls", "Departure", "ThreadPool"]

_log = logging.getLogger("toolcall")
access_log: Final = logging.getLogger("toolcall.access")
"""One line per tool call (and, over HTTP, per request) when ``access_log`` is on."""

_Result = toolcall.Ok[Any] | toolcall.Err

DEPARTURE: Final = "toolcall.departure"
"""The ASGI scope key of a request's :class:`Departure` (set by serve-mcp's protocol)."""


class Departure:
    """The calls one HTTP request is running, cancelled when its connection closes.

    serve-mcp's protocol puts one in each request's scope and calls :meth:`leave` when the
    connection is lost. Another ASGI server sets none; a call there watches its request's
    ``receive`` for the ``http.disconnect``, which takes a task per call.
    """

    __slots__ = ("_scopes", "left")

    def __init__(self) -> None:
        self.left = False
        self._scopes: set[anyio.CancelScope] = set()

    def leave(self) -> None:
        self.left = True
        for scope in self._scopes:
            scope.cancel()

    def watch(self, scope: anyio.CancelScope) -> None:
        if self.left:
            scope.cancel()
        self._scopes.add(scope)

    def unwatch(self, scope: anyio.CancelScope) -> None:
        self._scopes.discard(scope)

    @contextlib.asynccontextmanager
    async def watching(self, scope: anyio.CancelScope) -> AsyncIterator[None]:
        """:meth:`watch` ``scope`` for as long as its call runs."""
        self.watch(scope)
        try:
            yield
        finally:
            self.unwatch(scope)


Watching = Callable[[anyio.CancelScope], AbstractAsyncContextManager[object]]
"""Cancels the scope it is given, while its call runs, when the call's client leaves."""

Watcher = Callable[[anyio.CancelScope], Coroutine[Any, Any, None]]
"""Cancels the scope it is given when the call's client leaves (run as a task)."""


@contextlib.asynccontextmanager
async def watch_beside(watcher: Watcher, scope: anyio.CancelScope) -> AsyncIterator[None]:
    """Run ``watcher`` as a task beside the call, for as long as the call runs: the
    :data:`Watching` of a client that tells of its leaving only to a reader."""
    async with anyio.create_task_group() as group:
        group.start_soon(watcher, scope)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


def _unwatched(scope: anyio.CancelScope) -> AbstractAsyncContextManager[object]:
    return contextlib.nullcontext()


class _Call(msgspec.Struct, frozen=True):
    """One ``tools/call`` on its way from admission to the tool."""

    name: str
    request_id: str
    threaded: bool
    sync: Callable[[], _Result]
    coroutine: Callable[[], Awaitable[_Result]]
    watching: Watching


class CallLimits:
    """The per-process bounds on calls (see :func:`toolcall.mcp.build_server`)."""

    __slots__ = ("brief_errors", "log", "max_calls", "threads", "timeout")

    def __init__(
        self,
        *,
        max_calls: int | None = None,
        threads: int | None = None,
        timeout: float | None = None,
        brief_errors: bool = False,
        log: bool = False,
    ) -> None:
        for label, number in (("max_calls", max_calls), ("threads", threads)):
            if number is not None and (isinstance(number, bool) or number < 1):
                msg = f"{label} must be a positive number or None, not {number!r}"
                raise ValueError(msg)
        check_timeout(timeout)
        self.max_calls = max_calls
        self.threads = threads
        self.timeout = timeout
        self.brief_errors = brief_errors
        self.log = log


class ThreadPool:
    """``size`` daemon threads for plain tools; a job is admitted only when one is free.

    Daemon threads, so a tool that never returns cannot hold the process at exit; a slot is
    counted free when its thread finishes the job, not when the caller stops waiting.
    """

    __slots__ = ("_busy", "_jobs", "_lock", "_started", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._busy = 0
        self._started = 0
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    @property
    def busy(self) -> int:
        """Threads running a job now (abandoned jobs included)."""
        return self._busy

    def submit(
        self, job: Callable[[], _Result], failed: Callable[[BaseException], _Result]
    ) -> asyncio.Future[_Result] | None:
        """Run ``job`` on a pool thread; None (start nothing) when every thread is busy.

        Whatever ``job`` raises becomes ``failed(exc)`` there, in the thread: an exception
        thrown into the awaiting task would be a ``KeyboardInterrupt`` or ``SystemExit``
        for the event loop itself, or a ``GeneratorExit`` the coroutine may not survive.
        """
        with self._lock:
            if self._busy >= self.size:
                return None
            self._busy += 1
            start = self._started < self._busy
            if start:
                self._started += 1
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_Result] = loop.create_future()

        def work() -> None:
            try:
                result = job()
            except BaseException as exc:  # the tool's: this call's error result
                result = failed(exc)
            finally:
                with self._lock:
                    self._busy -= 1
            loop.call_soon_threadsafe(settle, result)

        def settle(result: _Result) -> None:
            if not future.done():  # the caller may have left
                future.set_result(result)

        self._jobs.put(work)
        if start:
            threading.Thread(target=self._serve, name="toolcall-mcp", daemon=True).start()
        return future

    def _serve(self) -> None:
        while True:
            self._jobs.get()()


class Calls:
    """The calls of one server process: admission, running, accounting, shutdown."""

    __slots__ = (
        "_scopes",
        "draining",
        "limits",
        "lost",
        "pool",
        "running",
        "streams",
    )

    def __init__(self, limits: CallLimits, *, streams: tuple[str, ...] = ()) -> None:
        self.limits = limits
        # the tools that can send messages while they run (progress, logs): their answers
        # need a stream
        self.streams = streams
        self.pool = None if limits.threads is None else ThreadPool(limits.threads)
        self.running = 0
        self.draining = False
        self.lost = 0
        self._scopes: set[anyio.CancelScope] = set()

    def answers_json(self, requested: bool | None) -> bool:
        """Whether HTTP answers are JSON: as ``requested``, else unless a tool can stream."""
        return not self.streams if requested is None else requested

    def dropped(self, requested: bool | None) -> str:
        """The line saying that JSON answers drop the ``Context`` tools' messages, or ""."""
        if not self.streams or not self.answers_json(requested):
            return ""
        return (
            f"toolcall: answers are JSON (--response json), so the progress and log messages "
            f"of {', '.join(self.streams)} are dropped; leave --response out to stream them"
        )

    async def run(
        self,
        name: str,
        request_id: str,
        threaded: bool,
        sync: Callable[[], _Result],
        coroutine: Callable[[], Awaitable[_Result]],
        watching: Watching | None,
    ) -> _Result:
        """Run one call under the limits; ``watching`` cancels it when its client leaves."""
        call = _Call(name, request_id, threaded, sync, coroutine, watching or _unwatched)
        started = time.perf_counter()
        try:
            result = await self._admit(call)
        except anyio.get_cancelled_exc_class():  # the SDK cancelled it: its client left
            if self.limits.log:
                _log_call(call, "cancelled", started, "")
            raise
        if self.limits.log:
            if isinstance(result, toolcall.Ok):
                _log_call(call, "ok", started, "")
            else:
                error = result.error
                _log_call(call, error.kind, started, f" message={error.message!r}")
        return result

    async def _admit(self, call: _Call) -> _Result:
        if self.draining:
            return toolcall.Err(toolcall.ToolError.shutting_down())
        limit = self.limits.max_calls
        if limit is not None and self.running >= limit:
            return toolcall.Err(
                toolcall.ToolError.busy(f"the server is running {limit} calls already")
            )
        self.running += 1
        try:
            return await self._guarded(call)
        finally:
            self.running -= 1

    async def _guarded(self, call: _Call) -> _Result:
        timeout = self.limits.timeout
        with anyio.CancelScope() as scope:
            self._scopes.add(scope)
            try:
                async with call.watching(scope):
                    with anyio.fail_after(timeout):
                        result = await self._call(call)
                return result
            except BaseException as exc:
                found = _first(exc) if isinstance(exc, BaseExceptionGroup) else exc
                if isinstance(found, TimeoutError) and timeout is not None:
                    return toolcall.Err(toolcall.ToolError.timeout(timeout))
                if isinstance(found, anyio.get_cancelled_exc_class()) and _being_cancelled():
                    raise
                return tool_raised(call.name, found)
            finally:
                self._scopes.discard(scope)
        # this call's own scope was cancelled: its client left, or the shutdown cut it off
        if self.draining:
            self.lost += 1
            return toolcall.Err(toolcall.ToolError.shutting_down(started=True))
        return toolcall.Err(toolcall.ToolError.cancelled())

    async def _call(self, call: _Call) -> _Result:
        if not call.threaded:
            return await call.coroutine()
        assert self.pool is not None
        future = self.pool.submit(call.sync, partial(tool_raised, call.name))
        if future is None:
            size = self.pool.size
            return toolcall.Err(toolcall.ToolError.busy(f"all {size} tool threads are busy"))
        return await future

    async def drain(self) -> None:
        """Refuse new calls and cut off the running ones (their callers get a
        ``shutting_down`` error; each counts as lost). The HTTP server calls it once its
        grace period is over: until then it serves every call it accepted."""
        self.draining = True
        for scope in list(self._scopes):
            scope.cancel()
        while self.running:
            await anyio.sleep(0.01)

    @property
    def stuck_threads(self) -> int:
        """Pool threads still running a tool (which nothing can stop)."""
        return 0 if self.pool is None else self.pool.busy


def _log_call(call: _Call, outcome: str, started: float, detail: str) -> None:
    elapsed = (time.perf_counter() - started) * 1000
    access_log.info(
        "call id=%s tool=%s outcome=%s ms=%.1f%s",
        call.request_id,
        call.name,
        outcome,
        elapsed,
        detail,
    )


def _being_cancelled() -> bool:
    """True when the current task is being cancelled from outside (not by the tool itself)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return True
    return task is None or task.cancelling() > 0


def _first(group: BaseExceptionGroup[Any]) -> BaseException:
    found: BaseException = group
    while isinstance(found, BaseExceptionGroup) and found.exceptions:
        found = found.exceptions[0]
    return found
