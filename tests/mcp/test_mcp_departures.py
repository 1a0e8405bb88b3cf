"""A call whose HTTP client leaves is cancelled, by serve-mcp's protocol without a task per
call, and by any other ASGI server through the request's ``receive``.

Servers run in a thread of this process (uvicorn on loopback), so the test can count the
watcher tasks a call starts. Waits are bounded; nothing is timed.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from served import modern_call, modern_headers, until

import toolcall.mcp.server as server_module
from toolcall.mcp import HttpOptions, build_server
from toolcall.mcp.calls import Departure
from toolcall.mcp.http import bind, build_app, served_url, uvicorn_config
from toolcall.mcp.server import calls_of


@pytest.fixture
def watchers(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every task started to read a request's ``receive`` for its client leaving."""
    started: list[object] = []
    original = server_module._watch_disconnect

    async def counted(receive: Callable[[], Any], scope: Any) -> None:
        started.append(scope)
        await original(receive, scope)

    monkeypatch.setattr(server_module, "_watch_disconnect", counted)
    return started


@contextlib.contextmanager
def serving(ours: bool) -> Iterator[tuple[str, Any]]:
    """``prodtools`` served by serve-mcp's app and protocol, or by the SDK's app under plain
    uvicorn, as a program embedding ``build_server`` would; yields its URL and server."""
    server = build_server("prodtools")
    options = HttpOptions(port=0, json_response=True)
    with bind(options) as sock:
        url = served_url(options, sock.getsockname()[1])
        if ours:
            config = uvicorn_config(build_app(server, options, url), options)
        else:
            app = server.streamable_http_app(json_response=True, host="127.0.0.1")
            config = uvicorn.Config(app, http="h11", lifespan="on", log_level="warning")
        runner = uvicorn.Server(config)
        thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            until(lambda: runner.started)
            yield url, server
        finally:
            runner.should_exit = True
            thread.join(30)


def leave_during(url: str, marker: Path) -> None:
    """POST an ``ahold`` call by hand and close the connection once the tool runs."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    body = json.dumps(
        modern_call("ahold", {"marker": str(marker), "seconds": 60}),
    ).encode()
    fields = {"Host": f"{host}:{port}", **modern_headers(name="ahold")}
    fields["Content-Length"] = str(len(body))
    head = "POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.encode() + b"\r\n" + body)
        until(marker.exists)


@pytest.mark.parametrize("ours", [True, False], ids=["serve-mcp", "another ASGI server"])
def test_a_call_whose_client_left_is_cancelled(
    ours: bool, watchers: list[object], tmp_path: Path
) -> None:
    """A call whose client left is cancelled, under serve-mcp and under another ASGI server."""
    marker = tmp_path / "running"
    with serving(ours) as (url, server):
        leave_during(url, marker)
        until(lambda: not marker.exists())  # the tool's own finally ran: it was cancelled
        calls = calls_of(server)
        assert calls is not None
        until(lambda: calls.running == 0)
    assert len(watchers) == (0 if ours else 1)


def test_a_departure_cancels_what_it_watches_even_once_left() -> None:
    """A departure cancels a call admitted after its client left, as well as the ones before."""
    import anyio

    async def watched() -> tuple[bool, bool]:
        departure = Departure()
        first, second = anyio.CancelScope(), anyio.CancelScope()
        departure.watch(first)
        departure.leave()
        departure.watch(second)  # a call admitted after its client left
        return first.cancel_called, second.cancel_called

    assert anyio.run(watched) == (True, True)
