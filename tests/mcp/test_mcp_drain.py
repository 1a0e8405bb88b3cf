"""A rolling restart loses no call: calls keep coming while a replica drains (issue 39).

A real server process, one or with two workers, is sent SIGTERM while clients keep calling
it: some on a new connection per call (as nginx proxies by default), some on kept-alive
connections. A connection refused at connect time is fine (a load balancer retries it on
another replica); a call sent and then reset, or answered with the shutdown error while the
grace period runs, is lost. Counts, never timings.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from served import JSON_HEADERS, Served, modern_call, modern_headers, rpc, serving, until

pytestmark = [pytest.mark.anyio, pytest.mark.long]


@dataclass
class Tally:
    """What the clients saw, call by call."""

    answered: int = 0
    answered_after_signal: int = 0
    in_flight_at_signal: int = 0
    refused: int = 0  # at connect: retried elsewhere by a load balancer
    lost: list[str] = field(default_factory=list)
    signalled: bool = False


async def _client(served: Served, tally: Tally, k: int, fresh: bool) -> None:
    """Call until a connection is refused; each answer must be right."""
    headers = {**modern_headers("tools/call", "slow_tag")}
    if fresh:
        headers["Connection"] = "close"
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(60.0)) as http:
        i = 0
        while True:
            i += 1
            n = k * 100_000 + i
            seconds = 0.2 if i % 5 == 0 else 0.0
            message = modern_call("slow_tag", {"n": n, "seconds": seconds}, id=n)
            before = tally.signalled
            try:
                answer = await http.post(served.url, json=message, headers=headers)
            except httpx2.ConnectError:
                tally.refused += 1
                return
            except httpx2.TransportError as exc:  # sent, then reset or closed unanswered
                tally.lost.append(f"{n}: {exc!r}")
                return
            finally:
                if tally.signalled and not before:
                    tally.in_flight_at_signal += 1
            result: dict[str, Any] = answer.json().get("result", {}) if answer.is_success else {}
            if result.get("structuredContent", {}).get("n") != n or result.get("isError"):
                tally.lost.append(f"{n}: {answer.status_code} {answer.text[:200]}")
                return
            tally.answered += 1
            if tally.signalled:
                tally.answered_after_signal += 1


async def _restart_under_load(served: Served, clients: int) -> tuple[Tally, int]:
    tally = Tally()
    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for k in range(clients):
                group.start_soon(_client, served, tally, k, k % 2 == 0)
            while tally.answered < 30 * clients:
                await anyio.sleep(0.01)
            tally.signalled = True
            served.process.send_signal(signal.SIGTERM)
        status = await anyio.to_thread.run_sync(served.wait)
    return tally, status


@pytest.mark.parametrize("workers", [(), ("--workers", "2")], ids=["one process", "two workers"])
async def test_calls_during_the_drain_are_served_or_refused_at_connect(
    workers: tuple[str, ...],
) -> None:
    """Every call sent during the drain is answered right; the replica then refuses
    connections, and nothing is lost."""
    with serving("prodtools", "--stateless", "--grace", "60", *workers) as served:
        tally, status = await _restart_under_load(served, 8)
    assert tally.lost == []
    assert tally.refused == 8  # each client, once the socket was closed
    assert tally.in_flight_at_signal > 0  # the drain was exercised, under load
    assert status == 0


async def test_healthz_turns_unhealthy_on_a_connection_accepted_before_the_signal() -> None:
    """A load balancer probing on a kept-alive connection reads 503 (and the connection
    closes); a new connection is refused."""
    with serving("prodtools", "--stateless", "--grace", "60") as served:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
            before = await http.get(f"{served.base}/healthz")
            served.process.send_signal(signal.SIGTERM)
            after = await http.get(f"{served.base}/healthz")
            with pytest.raises(httpx2.ConnectError):
                await http.get(f"{served.base}/healthz")
        status = await anyio.to_thread.run_sync(served.wait)
    assert before.status_code == 200
    assert (after.status_code, after.json()) == (503, {"status": "draining"})
    assert after.headers["connection"] == "close"
    assert status == 0


async def test_a_session_stream_does_not_hold_the_drain_for_the_grace_period() -> None:
    """A session's GET stream carries no call: the drain ends without waiting for it (a
    --grace far past the test's wait for the exit), and the stream is ended."""
    with serving("prodtools", "--grace", "600") as served:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(60.0)) as http:
            hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
            hello["clientInfo"] = {"name": "tests", "version": "0"}
            opened = await http.post(
                served.url, json=rpc("initialize", hello), headers=JSON_HEADERS
            )
            session = {**JSON_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post(served.url, json=initialized, headers=session)
            stream = {**session, "Accept": "text/event-stream"}
            async with http.stream("GET", served.url, headers=stream) as listening:
                assert listening.status_code == 200
                served.process.send_signal(signal.SIGTERM)
                status = await anyio.to_thread.run_sync(served.wait, 60)
                async for _ in listening.aiter_bytes():  # ends: the server closed it
                    pass
    assert status == 0


def test_a_sigterm_while_the_workers_start_ends_each_cleanly() -> None:
    """The supervisor announces before its workers serve: one told before it takes the
    signal would be killed by it (status -15); it is told once it serves, and drains."""
    with serving("prodtools", "--stateless", "--workers", "2") as served:
        status = served.stop()
    assert not [line for line in served.lines if "ended with status" in line]
    assert status == 0, served.lines


def test_connections_the_kernel_completed_before_the_signal_are_served(tmp_path: Path) -> None:
    """Requests sent on connections the kernel completed while the event loop was busy (a
    plain tool run --inline holds it) are answered right once it is free, not reset with the
    socket nor refused: the server accepts them as it stops accepting."""
    marker = tmp_path / "running"
    with serving("prodtools", "--stateless", "--inline", "--grace", "60") as served:
        parts = urlsplit(served.url)
        assert parts.hostname is not None
        assert parts.port is not None
        holding = threading.Thread(
            target=httpx2.post,
            args=(served.url,),
            kwargs={
                "json": modern_call("hold", {"marker": str(marker), "seconds": 120}),
                "headers": modern_headers("tools/call", "hold"),
                "timeout": 60,
            },
            daemon=True,
        )
        holding.start()
        until(marker.exists)  # the event loop is held from here
        waiting = [socket.create_connection((parts.hostname, parts.port)) for _ in range(4)]
        for n, sock in enumerate(waiting):
            sock.sendall(_request(parts.path, parts.netloc, n))
        served.process.send_signal(signal.SIGTERM)
        (tmp_path / "running.release").touch()
        answers = [_read_all(sock) for sock in waiting]
        holding.join(60)
        status = served.wait()
    for n, answer in enumerate(answers):
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        result = json.loads(answer.split(b"\r\n\r\n", 1)[1])["result"]
        assert result["structuredContent"]["n"] == n
    assert status == 0


def test_a_connection_accepted_as_the_server_stops_accepting_holds_the_drain(
    tmp_path: Path,
) -> None:
    """A replica with no connection and no call when the signal comes still serves the
    request on a connection the kernel completed just before: the drain looks for calls only
    once the connections accepted by then are open (it found none, and refused the call)."""
    marker = tmp_path / "stalled"
    with serving("prodtools", "--stateless", "--grace", "60") as served:
        parts = urlsplit(served.url)
        assert parts.hostname is not None
        assert parts.port is not None
        armed = httpx2.post(
            served.url,
            json=modern_call("stall_loop", {"marker": str(marker)}),
            headers={**modern_headers("tools/call", "stall_loop"), "Connection": "close"},
            timeout=60,
        )
        assert armed.json()["result"]["content"][0]["text"] == "armed"
        (tmp_path / "stalled.go").touch()
        until(marker.exists)  # the event loop is held from here, and nothing is open
        waiting = socket.create_connection((parts.hostname, parts.port))
        waiting.sendall(_request(parts.path, parts.netloc, 7))
        served.process.send_signal(signal.SIGTERM)
        (tmp_path / "stalled.release").touch()
        answer = _read_all(waiting)
        status = served.wait()
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    result = json.loads(answer.split(b"\r\n\r\n", 1)[1])["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"]["n"] == 7
    assert status == 0


def _request(path: str, host: str, n: int) -> bytes:
    """A raw HTTP request calling ``tag(n)``."""
    body = json.dumps(modern_call("tag", {"n": n}, id=n)).encode()
    head = [f"POST {path} HTTP/1.1", f"Host: {host}"]
    head += [f"{name}: {value}" for name, value in modern_headers("tools/call", "tag").items()]
    head += [f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(head).encode() + body


def _read_all(sock: socket.socket) -> bytes:
    sock.settimeout(60)
    chunks = []
    with sock:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)
