"""``workers=N``: N processes serving one socket, uvicorn's own worker model.

The parent binds the socket, spawns the workers, restarts one that dies, and on SIGTERM or
SIGINT closes its copy of the socket, tells the workers and waits for each to drain. A
worker is a fresh interpreter (same flags, ``-OO`` included): it imports the modules by
name, which reads the cache entries the parent's import wrote or found (a warm start),
and rebuilds the server from a description in an environment variable, which holds where
the token is, never the token.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import msgspec
from mcp.server import Server
from uvicorn.config import STARTUP_FAILURE

from toolcall.mcp.auth import AuthSource
from toolcall.mcp.calls import CallLimits
from toolcall.mcp.http import (
    Front,
    HttpOptions,
    bind,
    build_app,
    fit_connections,
    log_to_stderr,
    served_url,
    uvicorn_config,
)
from toolcall.mcp.protocol import UvicornServer
from toolcall.mcp.server import build_server, calls_of

__all__ = ["WorkerSpec", "serve_workers", "worker_app"]

ENV = "TOOLCALL_MCP_WORKER"
_log = logging.getLogger("toolcall")


class WorkerSpec(msgspec.Struct, kw_only=True):
    """What a worker needs to build the same server as its parent."""

    modules: list[str]
    name: str = "toolcall"
    strict: bool = False
    run_sync_in_thread: bool = True
    max_calls: int | None = None
    threads: int | None = None
    timeout: float | None = None
    brief_errors: bool = False
    auth: dict[str, Any] | None = None
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    sys_path: list[str] = msgspec.field(default_factory=list)
    url: str = ""


def _options_dict(options: HttpOptions) -> dict[str, Any]:
    skip = {"auth", "extra_routes"}
    return {
        f.name: getattr(options, f.name) for f in dataclasses.fields(options) if f.name not in skip
    }


def serve_workers(
    spec: WorkerSpec, options: HttpOptions, source: AuthSource | None, on_listening: Any = None
) -> int:
    """Serve with ``options.workers`` processes until SIGTERM or SIGINT; 0, or 1 if a
    worker lost a call (or died)."""
    options.check()
    fit_connections(options)  # the workers inherit the descriptor limit
    if options.json_response:  # only then can an answer drop a Context tool's messages
        calls = calls_of(_server(spec))
        dropped = "" if calls is None else calls.dropped(True)
        if dropped:  # said once, here: every worker answers alike
            _log.warning("%s", dropped)
    with bind(options) as sock:
        spec.url = served_url(options, sock.getsockname()[1])
        spec.options = {**_options_dict(options), "port": sock.getsockname()[1]}
        spec.auth = None if source is None else dataclasses.asdict(source)
        spec.sys_path = [*sys.path]
        os.environ[ENV] = msgspec.json.encode(spec).decode()
        config = uvicorn_config(
            "toolcall.mcp.workers:worker_app", options, factory=True, workers=options.workers
        )
        url = spec.url
        announce = (lambda: on_listening(url)) if on_listening is not None else None
        return _Supervisor(config, sock, options.workers).run(announce)


class _Supervisor:
    """uvicorn's worker model, with the stop in the order a load balancer needs.

    uvicorn's supervisor keeps its copy of the socket until every worker has exited: the
    kernel still completed connections no process would accept any more, and reset them
    when it closed, requests sent included. Here the copy is closed first, then the workers
    are told; each closes its own at once (``UvicornServer``), so the socket stops listening
    as the last worker stops accepting. The signal handler only notes the signal (a lock
    taken there could be the one the interrupted code holds); the loop acts within 50 ms.
    """

    def __init__(self, config: Any, sock: socket.socket, count: int) -> None:
        self.config = config
        self.sock = sock
        self.count = count
        self.stopping = False
        self.workers: list[_Worker] = []

    def run(self, announce: Callable[[], None] | None = None) -> int:
        """Serve until told to stop; ``announce`` says the server listens, once the signal
        handlers are in place (a SIGTERM sent on reading it would otherwise kill the process)."""
        signals = (signal.SIGTERM, signal.SIGINT)
        previous = {number: signal.signal(number, self._stop) for number in signals}
        try:
            if announce is not None:
                announce()
            while len(self.workers) < self.count and not self.stopping:
                self.workers.append(_Worker(self.config, self.sock))
            while not self.stopping:
                time.sleep(0.05)
                self._replace_dead()
            self.sock.close()
            while not self._all_told():
                time.sleep(0.05)  # one still starting is told once it serves
            for worker in self.workers:
                worker.process.join()
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
        statuses = [worker.process.exitcode for worker in self.workers]
        for worker, status in zip(self.workers, statuses, strict=True):
            if status not in (0, 1):  # 1: it said what it cut off
                _log.error("toolcall: worker %s ended with status %s", worker.process.pid, status)
        return 0 if all(status == 0 for status in statuses) else 1

    def _stop(self, sig: int, frame: FrameType | None) -> None:
        self.stopping = True

    def _all_told(self) -> bool:
        told = [worker.tell() for worker in self.workers]  # each, not up to the first
        return all(told)

    def _replace_dead(self) -> None:
        for index, worker in enumerate(self.workers):
            process = worker.process
            if process.is_alive() or self.stopping:
                continue
            if process.exitcode == STARTUP_FAILURE:  # every replacement would fail alike
                _log.error("toolcall: a worker failed to start; stopping")
                self.stopping = True
                return
            _log.error(
                "toolcall: worker %s exited (%s); starting another", process.pid, process.exitcode
            )
            self.workers[index] = _Worker(self.config, self.sock)


class _Worker:
    """A worker process, and whether it serves yet: a SIGTERM sent before its server takes
    the signal kills it (status -15), so it is told only then."""

    __slots__ = ("process", "serving", "told")

    def __init__(self, config: Any, sock: socket.socket) -> None:
        context = multiprocessing.get_context("spawn")
        self.serving = context.Event()
        self.process = context.Process(target=_work, args=(config, [sock], self.serving))
        self.process.start()
        self.told = False

    def tell(self) -> bool:
        """Send SIGTERM if it serves; whether it has been told (or has ended)."""
        process = self.process
        if not self.told and process.exitcode is None and self.serving.is_set():
            assert process.pid is not None
            os.kill(process.pid, signal.SIGTERM)
            self.told = True
        return self.told or process.exitcode is not None


def _work(config: Any, sockets: list[socket.socket], serving: Any) -> None:
    """A worker process: uvicorn's server on the parent's socket."""
    config.configure_logging()
    UvicornServer(config, serving=serving.set).run(sockets=sockets)


def worker_app() -> Front:
    """uvicorn's app factory in a worker: the parent's server, rebuilt."""
    spec = msgspec.json.decode(os.environ[ENV], type=WorkerSpec)
    sys.path[:0] = [entry for entry in spec.sys_path if entry not in sys.path]
    server = _server(spec)
    options = HttpOptions(**spec.options)
    options.auth = None if spec.auth is None else AuthSource(**spec.auth).build()
    if options.access_log:
        log_to_stderr()
    front = build_app(server, options, spec.url)
    front.exit_when_done = True
    return front


def _server(spec: WorkerSpec) -> Server[Any]:
    modules = [importlib.import_module(name) for name in spec.modules]
    limits = CallLimits(
        max_calls=spec.max_calls,
        threads=spec.threads,
        timeout=spec.timeout,
        brief_errors=spec.brief_errors,
        log=bool(spec.options.get("access_log")),
    )
    return build_server(
        *modules,
        name=spec.name,
        strict=spec.strict,
        run_sync_in_thread=spec.run_sync_in_thread,
        limits=limits,
    )
