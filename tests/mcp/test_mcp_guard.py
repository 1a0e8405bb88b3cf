"""No client can stop, stall or trick ``serve-mcp``, each attack a red team found run on loopback
(issue 24).

Counts and outcomes only: a wait is bounded (it fails the test when it runs out), never a
measure of speed.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
import anyio.to_thread
import httpx2
import pytest
from served import (
    JSON_HEADERS,
    Served,
    client,
    modern_call,
    modern_headers,
    rpc,
    serving,
    until,
)

from toolcall.mcp import HttpOptions, is_loopback
from toolcall.mcp import http as mcp_http

GUARD_ARGS = (
    *("--threads", "1", "--call-timeout", "4", "--access-log", "--brief-errors"),
    *("--max-sessions", "2", "--session-idle-timeout", "2", "--body-timeout", "1"),
    *("--header-timeout", "3", "--max-connections", "4"),
)


@pytest.fixture(scope="module")
def guard() -> Iterator[Served]:
    with serving("prodtools", *GUARD_ARGS) as served:
        yield served


@pytest.fixture(scope="module")
def streaming() -> Iterator[Served]:
    """The guard's tools answered on SSE streams (``guard`` answers with JSON: no tool there
    takes a Context), where the SDK notices a 2026-protocol client leaving by itself."""
    with serving("prodtools", "--response", "sse", "--access-log") as served:
        yield served


@pytest.fixture(scope="module")
def sessionless() -> Iterator[Served]:
    with serving("prodtools", "--stateless", "--access-log") as served:
        yield served


@pytest.fixture(params=["guard", "streaming", "sessionless"])
def answering(request: pytest.FixtureRequest) -> Served:
    """Each way a call is answered: JSON, an SSE stream, JSON without sessions."""
    return request.getfixturevalue(request.param)


def release(marker: Path) -> None:
    """End a running ``hold``/``ahold`` (see prodtools)."""
    marker.with_name(marker.name + ".release").touch()


def call(served: Served, name: str, arguments: dict[str, Any], id: Any = 1) -> tuple[bool, str]:
    answer = httpx2.post(
        served.url,
        headers=modern_headers(name=name),
        json=modern_call(name, arguments, id),
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    return result["isError"], result["content"][0]["text"]


def raw(
    served: Served, data: bytes, headers: dict[str, str], length: int | None = None
) -> socket.socket:
    """A POST to the MCP path sent by hand, left open (the caller closes it)."""
    parts = urlsplit(served.url)
    assert parts.hostname is not None
    assert parts.port is not None
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    fields = {
        "Host": parts.netloc,
        **JSON_HEADERS,
        **headers,
        "Content-Length": str(len(data) if length is None else length),
    }
    head = "POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    sock.sendall(head.encode() + b"\r\n" + data)
    return sock


def calls_logged(served: Served, tool: str, outcome: str) -> list[str]:
    return [line for line in served.access("call") if f"tool={tool} outcome={outcome}" in line]


# -- a tool cannot stop or break the server ---------------------------------------------


def test_no_exception_stops_or_breaks_the_server(guard: Served) -> None:
    """Whatever a tool raises, KeyboardInterrupt and SystemExit included, the caller gets the
    error's kind and request id, the log keeps its text, and the server serves on."""
    outcomes = {
        (tool, kind): call(guard, tool, {"kind": kind})
        for tool in ("explode", "aexplode")
        for kind in ("keyboard", "generator", "custom", "exit", "secret")
    }
    kinds = {key: text.split()[1] for key, (error, text) in outcomes.items() if error}
    expected = {"keyboard": "raised", "generator": "raised", "custom": "raised"}
    expected |= {"exit": "exited", "secret": "raised"}
    assert kinds == {(tool, kind): expected[kind] for tool, kind in outcomes}
    assert call(guard, "add", {"a": 2}) == (False, "3")
    assert guard.process.poll() is None
    # callers get the kind and the request id only; the log keeps the text
    _error, text = outcomes["explode", "secret"]
    assert "hunter2" not in text
    request_id = text.rsplit(" ", 1)[1].rstrip(")")
    (line,) = [line for line in guard.access("call") if f"id={request_id} " in line]
    assert "outcome=raised" in line
    assert "password=hunter2" in line


def test_a_call_over_its_time_gets_timeout(guard: Served) -> None:
    """A call running past its time limit is answered with a timeout error."""
    error, text = call(guard, "anap", {"seconds": 60})
    assert (error, text.split()[1]) == (True, "timeout")


# -- calls whose client left; a full pool --------------------------------------------


def _leave_after_start(guard: Served, tool: str, marker: Path, seconds: float) -> None:
    body = json.dumps(modern_call(tool, {"marker": str(marker), "seconds": seconds})).encode()
    sock = raw(guard, body, modern_headers(name=tool))
    until(marker.exists)
    sock.close()


def test_an_async_call_whose_client_left_is_cancelled(answering: Served, tmp_path: Path) -> None:
    """An async call whose client disconnects is cancelled, and the tool's own cleanup runs."""
    marker = tmp_path / "async-running"
    _leave_after_start(answering, "ahold", marker, 60)
    until(lambda: calls_logged(answering, "ahold", "cancelled"))
    assert not marker.exists()  # the tool's own finally ran: it was cancelled, not left


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_session_call_whose_client_left_is_cancelled(
    answering: Served, tmp_path: Path, anyio_backend: str
) -> None:
    """The 2025 protocol (a session, the answer as JSON or on an SSE stream): the client
    leaves."""
    guard = answering
    marker = tmp_path / "streamed-running"
    before = len(calls_logged(guard, "ahold", "cancelled"))

    async def leave_when_started(group: anyio.abc.TaskGroup) -> None:
        while not marker.exists():
            await anyio.sleep(0.05)
        group.cancel_scope.cancel()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(leave_when_started, group)
            async with client(guard.url, mode="legacy") as session:
                await session.call_tool("ahold", {"marker": str(marker), "seconds": 60})
    await anyio.to_thread.run_sync(
        until, lambda: len(calls_logged(guard, "ahold", "cancelled")) > before
    )
    assert not marker.exists()


def test_a_thread_keeps_its_slot_until_it_ends(guard: Served, tmp_path: Path) -> None:
    """A cancelled sync call keeps its thread's slot until it ends: calls meanwhile are told
    busy."""
    marker = tmp_path / "thread-running"
    _leave_after_start(guard, "hold", marker, 120)
    until(lambda: calls_logged(guard, "hold", "cancelled"))
    error, text = call(guard, "add", {"a": 1})  # the one thread still runs `hold`
    assert (error, text.split()[1]) == (True, "busy")
    assert marker.exists()
    release(marker)
    until(lambda: call(guard, "add", {"a": 1}) == (False, "2"))
    assert not marker.exists()


# -- bounded resources -------------------------------------------------------------------


def _initialize(url: str) -> httpx2.Response:
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "tests", "version": "0"},
    }
    return httpx2.post(url, headers=JSON_HEADERS, json=rpc("initialize", params), timeout=30)


def test_sessions_are_capped_and_expire(guard: Served) -> None:
    """No more sessions than the cap are open at once, and idle ones expire to make room."""

    def capped() -> bool:
        statuses = [_initialize(guard.url).status_code for _ in range(3)]
        if statuses == [200, 200, 503]:
            return True
        assert statuses[-1] == 503, statuses  # never more than two
        time.sleep(2.5)  # the sessions an earlier test (or this try) made expire: try again
        return False

    until(capped)
    until(lambda: _initialize(guard.url).status_code == 200)  # idle ones expired


def test_connections_are_capped(guard: Served) -> None:
    """Past the connection cap the server answers 503, and serves again once connections close."""
    parts = urlsplit(guard.url)
    assert parts.hostname is not None
    assert parts.port is not None
    silent = [socket.create_connection((parts.hostname, parts.port), timeout=30) for _ in range(4)]
    try:
        assert httpx2.get(f"{guard.base}/healthz", timeout=30).status_code == 503
    finally:
        for sock in silent:
            sock.close()
    until(lambda: httpx2.get(f"{guard.base}/healthz", timeout=30).status_code == 200)


def test_a_silent_connection_is_closed(guard: Served) -> None:
    """A connection that stops sending mid-request is closed by the server."""
    parts = urlsplit(guard.url)
    assert parts.hostname is not None
    assert parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")  # and never the rest
        assert sock.recv(1024) == b""  # closed by the server, within the socket's 30 s


def test_a_large_body_gets_413(guard: Served) -> None:
    """A body past the size limit gets 413, and the server serves on."""
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "' + b"x" * (5 << 20)
    answer = httpx2.post(guard.url, headers=modern_headers("tools/list"), content=body + b'"}')
    assert answer.status_code == 413
    assert call(guard, "add", {"a": 1}) == (False, "2")


def test_a_slow_body_gets_408(guard: Served) -> None:
    """A body that does not arrive in full gets 408."""
    with raw(guard, b'{"jsonrpc"', modern_headers(name="add"), length=200) as sock:
        answer = sock.recv(1024)
    assert answer.startswith(b"HTTP/1.1 408 ")


@pytest.mark.parametrize("bad", [{"a": 1}, 1.5, True, [1]])
def test_a_request_id_that_is_not_a_string_or_integer_gets_an_error(
    guard: Served, bad: Any
) -> None:
    """A JSON-RPC id that is neither a string nor an integer gets 400 Invalid Request."""
    answer = httpx2.post(
        guard.url, headers=modern_headers(name="add"), json=modern_call("add", {"a": 1}, bad)
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: id must be a string or an integer"},
    }
    assert call(guard, "add", {"a": 1}, "a-string") == (False, "2")


def test_every_request_gets_an_id_and_a_log_line(guard: Served) -> None:
    """Every HTTP request gets an X-Request-Id header and an access-log line under that id."""
    answer = httpx2.get(f"{guard.base}/healthz", timeout=30)
    request_id = answer.headers["x-request-id"]
    guard.wait_for(lambda lines: any(f"id={request_id} " in line for line in lines))
    (line,) = [line for line in guard.access("request") if f"id={request_id} " in line]
    assert "method=GET path=/healthz status=200" in line


def test_the_access_log_never_shows_arguments(guard: Served) -> None:
    """The access log records a call's tool and outcome, never its arguments."""
    assert call(guard, "tag", {"n": 987654321})[0] is False
    guard.wait_for(lambda lines: any("tool=tag outcome=ok" in line for line in lines))
    assert not [line for line in guard.lines if "987654321" in line]


# -- DNS rebinding, however loopback is spelled ------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("127.1", True),
        ("127.255.255.254", True),
        ("::1", True),
        ("0:0:0:0:0:0:0:1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.1", False),
        ("128.0.0.1", False),
        ("example.com", False),
    ],
)
def test_every_loopback_spelling_is_loopback(host: str, loopback: bool) -> None:
    """Every spelling of a loopback address turns DNS-rebinding protection on; any other host
    leaves it off."""
    assert is_loopback(host) is loopback
    settings = mcp_http._security(HttpOptions(host=host))
    assert settings.enable_dns_rebinding_protection is loopback


def test_allowed_hosts_turn_the_check_on_elsewhere() -> None:
    """Allowed hosts turn the Host check on for a public address, with exactly those hosts."""
    settings = mcp_http._security(HttpOptions(host="0.0.0.0", allowed_hosts=["mcp.example.com"]))
    assert settings.enable_dns_rebinding_protection
    assert settings.allowed_hosts == ["mcp.example.com"]


def _protocols(app: Any, options: HttpOptions) -> tuple[list[Any], Callable[[], Any]]:
    """serve-mcp's protocol for ``app`` as ``create_server`` wants it, and each one made."""
    from uvicorn.server import ServerState

    from toolcall.mcp.http import uvicorn_config
    from toolcall.mcp.protocol import TimedProtocol

    config = uvicorn_config(app, options)
    config.load()
    made: list[TimedProtocol] = []

    def protocol() -> TimedProtocol:
        made.append(TimedProtocol(config=config, server_state=ServerState(), app_state={}))
        return made[-1]

    return made, protocol


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_connections_are_accepted_with_nagle_off(host: str) -> None:
    """The listening socket serve-mcp binds (and uvicorn's supervisor) has ``proto`` 0, so
    asyncio leaves Nagle on; each call then waited for the client's delayed ACK."""
    from toolcall.mcp.http import bind

    options = HttpOptions(host=host, port=0)
    made, protocol = _protocols(lambda scope, receive, send: None, options)

    async def accept_one() -> int:
        with bind(options) as sock:
            server = await asyncio.get_running_loop().create_server(protocol, sock=sock)
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            async with asyncio.timeout(30):
                while not made:
                    await asyncio.sleep(0.01)
            accepted = made[0].transport.get_extra_info("socket")
            nodelay = int(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()
            server.close()
            return nodelay

    assert asyncio.run(accept_one()) == 1


@pytest.mark.parametrize("close", [False, True])
def test_a_response_leaves_in_one_write(close: bool) -> None:
    """uvicorn writes a response's head and body apart; with Nagle off that was two segments
    and two reads for the client. Both now go out in one write, and a connection closed
    after its response (``Connection: close``) still sends all of it first."""
    from asyncio.selector_events import _SelectorSocketTransport

    from toolcall.mcp.http import bind

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b'{"ok": true}'
        headers = [(b"content-type", b"application/json"), (b"content-length", b"12")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    options = HttpOptions(host="127.0.0.1", port=0)
    _, protocol = _protocols(app, options)
    writes: list[bytes] = []
    port: list[int] = []

    async def ask() -> bytes:
        with bind(options) as sock:
            port.append(sock.getsockname()[1])
            server = await asyncio.get_running_loop().create_server(protocol, sock=sock)
            reader, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            ending = b"Connection: close\r\n" if close else b""
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n" + ending + b"\r\n")
            async with asyncio.timeout(30):
                answer = await (reader.read() if close else reader.readuntil(b"true}"))
            writer.close()
            server.close()
            return answer

    real = _SelectorSocketTransport.write

    def write(transport: Any, data: Any) -> None:
        if transport.get_extra_info("sockname")[1] == port[0]:  # the server's end
            writes.append(bytes(data))
        real(transport, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_SelectorSocketTransport, "write", write)
        answer = asyncio.run(ask())
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b'\r\n\r\n{"ok": true}')
    assert writes == [answer]


def test_held_bytes_keep_their_order_whatever_writes_them() -> None:
    """Everything written in one turn leaves together and in order, a reused buffer as it
    was when written; ending the write side or closing sends what is held first."""
    from toolcall.mcp.protocol import _Coalescing

    class Inner:
        def __init__(self) -> None:
            self.done: list[object] = []

        def write(self, data: bytes) -> None:
            self.done.append(data)

        def write_eof(self) -> None:
            self.done.append("eof")

        def close(self) -> None:
            self.done.append("close")

        def is_closing(self) -> bool:
            return "close" in self.done

    async def turns() -> list[object]:
        inner = Inner()
        out = _Coalescing(inner, asyncio.get_running_loop())  # type: ignore[arg-type]
        buffer = bytearray(b"head ")
        out.write(buffer)
        buffer[:] = b"XXXX "
        out.writelines([b"body ", b"more"])
        await asyncio.sleep(0)
        out.write(b"tail")
        out.write_eof()
        out.write(b"late")
        out.close()
        await asyncio.sleep(0)
        return inner.done

    assert asyncio.run(turns()) == [b"head body more", b"tail", "eof", b"late", "close"]


@pytest.fixture(scope="module", params=["127.0.0.2", "0:0:0:0:0:0:0:1"])
def spelled(request: pytest.FixtureRequest) -> Iterator[Served]:
    with serving("prodtools", "--host", request.param) as served:
        yield served


def test_rebinding_is_refused_on_any_loopback_spelling(spelled: Served) -> None:
    """A foreign Host gets 421 and a foreign Origin 403 on every loopback spelling; the server's
    own pass."""
    headers = modern_headers(name="add")
    body = modern_call("add", {"a": 1})
    own = urlsplit(spelled.url).netloc

    def status(**extra: str) -> int:
        sent = {**headers, **extra}
        return httpx2.post(spelled.url, headers=sent, json=body, timeout=30).status_code

    assert status(Host="evil.example") == 421
    assert status(Host="evil.example", Origin="http://evil.example") == 421
    assert status(Origin="http://evil.example") == 403
    assert status(Host=own) == 200
    assert status(Host=own, Origin=f"http://{own}") == 200


@pytest.fixture(scope="module")
def declaring() -> Iterator[Served]:
    with serving("headertools") as served:
        yield served


@pytest.mark.parametrize(
    ("tool", "arguments", "header", "status"),
    [
        ("forecast", {"region": "eu"}, "eu", 200),
        ("forecast", {"region": "eu"}, "us", 400),
        ("forecast", {"region": "eu"}, None, 400),
        ("add", {"a": 1, "b": 2}, "us", 200),  # declares no header: nothing to check
    ],
)
def test_mcp_param_headers_are_checked_where_a_schema_declares_them(
    declaring: Served, tool: str, arguments: dict[str, Any], header: str | None, status: int
) -> None:
    """An Mcp-Param header a tool's schema declares must be sent and match its argument (else
    400); a tool declaring none is not checked."""
    headers = modern_headers(name=tool)
    if header is not None:
        headers["Mcp-Param-Region"] = header
    answer = httpx2.post(
        declaring.url, headers=headers, json=modern_call(tool, arguments), timeout=60
    )
    assert answer.status_code == status, answer.text
    if status == 400:
        assert "Mcp-Param-Region header" in answer.json()["error"]["message"]
