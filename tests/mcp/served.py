"""`toolcall serve-mcp` as a real process on loopback, and the SDK's client pointed at it.

Every wait is bounded: a server that does not announce itself, a call that never answers or
a process that does not exit fails the test after a fixed number of seconds, never hangs it.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import subproc

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
_ANNOUNCED = re.compile(r"toolcall: serving \d+ tools? at (http://\S+)")


class Served:
    """A running server: its URL, process and every stderr line so far."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self.url = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    @property
    def base(self) -> str:
        return self.url.rsplit("/", 1)[0]

    def wait_for(self, found: Callable[[list[str]], bool], seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while not found(self.lines):
            if time.monotonic() > deadline:
                raise AssertionError("\n".join(["server output:", *self.lines]))
            time.sleep(0.02)

    def announced(self, seconds: float = 60) -> str:
        def ready(lines: list[str]) -> bool:
            if self.process.poll() is not None:
                self._reader.join(5)
                raise AssertionError("\n".join(["server exited:", *self.lines]))
            return any(_ANNOUNCED.match(line) for line in lines)

        self.wait_for(ready, seconds)
        match = next(m for m in map(_ANNOUNCED.match, self.lines) if m)
        self.url = match.group(1)
        return self.url

    def stop(self, sig: int = signal.SIGTERM, seconds: float = 60) -> int:
        """Send ``sig`` and wait for the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            status = self.process.wait(seconds)
        finally:
            self._reader.join(5)
        return status

    def wait(self, seconds: float = 60) -> int:
        """The exit status of a server already told to stop (a second signal could land
        while the interpreter finalizes, where it kills)."""
        try:
            return self.process.wait(seconds)
        finally:
            self._reader.join(5)

    def access(self, kind: str) -> list[str]:
        """The access log's lines of ``kind`` (``request`` or ``call``)."""
        return [line for line in self.lines if f"toolcall.access {kind} " in line]


def until(found: Callable[[], Any], seconds: float = 40) -> Any:
    """``found()``'s first true value, asked every 20 ms; fails the test after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (value := found()):
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        time.sleep(0.02)
    return value


def start(
    *args: str,
    env: Mapping[str, str | None] | None = None,
    flags: Sequence[str] = (),
    cwd: Path = HERE,
    paths: Sequence[str | Path] = (HERE, ROOT),
    program: str | None = None,
) -> Served:
    """``serve-mcp ARGS``, or ``python -c PROGRAM ARGS`` (a program serving by itself, which
    announces its URL as serve-mcp does)."""
    run = ["-m", "toolcall.cli.main", "serve-mcp"] if program is None else ["-c", program]
    command = [sys.executable, *flags, *run, *args]
    process = subprocess.Popen(
        command,
        env=subproc.environment(paths, env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers are killed with it when a test fails
    )
    return Served(process)


@contextlib.contextmanager
def serving(
    *args: str,
    env: Mapping[str, str | None] | None = None,
    flags: Sequence[str] = (),
    cwd: Path = HERE,
    paths: Sequence[str | Path] = (HERE, ROOT),
    http: bool = True,
    program: str | None = None,
) -> Iterator[Served]:
    """``serve-mcp ARGS`` (over HTTP on a free loopback port unless ``http=False``), or a
    ``program`` (see :func:`start`)."""
    extra = ("--transport", "http", "--port", "0") if http and program is None else ()
    served = start(*args, *extra, env=env, flags=flags, cwd=cwd, paths=paths, program=program)
    try:
        served.announced()
        yield served
    finally:
        with contextlib.suppress(ProcessLookupError):  # the process and any worker left
            os.killpg(served.process.pid, signal.SIGKILL)
        if served.process.poll() is None:
            served.process.wait(10)
        served._reader.join(5)


def client(url: str, token: str | None = None, **options: Any) -> Client:
    """The SDK's client over streamable HTTP, with a bearer token when given."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0))
    return Client(streamable_http_client(url, http_client=http), **options)


JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc(method: str, params: dict[str, Any] | None = None, id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def modern_headers(method: str = "tools/call", name: str | None = None) -> dict[str, str]:
    """The 2026 protocol's headers: one POST answers one call, no session to open first."""
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def modern_call(name: str, arguments: dict[str, Any], id: Any = 1) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return rpc("tools/call", {"name": name, "arguments": arguments, "_meta": meta}, id)
