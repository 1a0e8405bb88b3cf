"""A served module shuts down without losing a call, spreads over workers and bears a bounded load
(issues 22.2-4, 24.4).

Real processes on loopback and the SDK's client; counts and outcomes, never timings.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.types import CallToolResult
from served import Served, client, serving
from starlette.types import Message
from test_mcp_guard import call, release, until

import subproc

pytestmark = pytest.mark.anyio


def _in_threads(
    served: Served, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[Any], list[threading.Thread]]:
    results: list[Any] = [None] * len(calls)

    def one(index: int, name: str, arguments: dict[str, Any]) -> None:
        try:
            results[index] = call(served, name, arguments)
        except Exception as exc:  # recorded, asserted on below
            results[index] = exc

    threads = [
        threading.Thread(target=one, args=(i, name, arguments), daemon=True)
        for i, (name, arguments) in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    return results, threads


def _refused(served: Served) -> bool:
    try:
        return httpx2.get(f"{served.base}/healthz", timeout=5).status_code == 503
    except httpx2.TransportError:
        return True


def test_sigterm_lets_running_calls_finish_and_refuses_new_ones(tmp_path: Path) -> None:
    """On SIGTERM running calls, sync and async, finish and are answered, new connections
    are refused, and the exit status is 0."""
    markers = [tmp_path / f"running-{i}" for i in range(4)]
    with serving("prodtools", "--grace", "60") as served:
        calls = [
            ("hold" if i % 2 else "ahold", {"marker": str(marker), "seconds": 120})
            for i, marker in enumerate(markers)
        ]
        results, threads = _in_threads(served, calls)
        until(lambda: all(marker.exists() for marker in markers))
        served.process.send_signal(signal.SIGTERM)
        until(lambda: _refused(served))
        still_running = sum(marker.exists() for marker in markers)
        for marker in markers:
            release(marker)
        for thread in threads:
            thread.join(60)
        status = served.wait()
    assert still_running == 4  # refused while every call was in flight
    assert results == [(False, "done")] * 4
    assert status == 0


@pytest.mark.long
def test_calls_past_the_grace_period_are_answered_and_the_exit_says_so(tmp_path: Path) -> None:
    """Calls still running when the grace period ends are answered as cut off, and the exit
    status is 1."""
    threaded, awaited = tmp_path / "threaded", tmp_path / "awaited"
    with serving("prodtools", "--grace", "1", "--max-calls", "2") as served:
        calls = [
            ("hold", {"marker": str(threaded), "seconds": 120}),
            ("ahold", {"marker": str(awaited), "seconds": 120}),
        ]
        results, threads = _in_threads(served, calls)
        until(lambda: threaded.exists() and awaited.exists())
        busy = call(served, "add", {"a": 1})
        status = served.stop(signal.SIGTERM)
        for thread in threads:
            thread.join(30)
    assert busy == (True, "the server is running 2 calls already; retry later")
    cut = (True, "the server shut down before the call finished")
    assert results == [cut, cut]
    assert status == 1  # something was lost; a blocked thread did not hold the process


async def test_the_lifespan_shutdown_waits_for_the_drain_to_count_what_it_cut_off() -> None:
    """uvicorn ends the lifespan once the cut-off callers have their answers; the exit status
    read then must already count them (it was 0 when uvicorn got there first). uvicorn puts
    back the signal handlers the lifespan took, and so does this test, driving it alone."""
    import signal

    import toolcall
    from toolcall.mcp.calls import CallLimits, Calls
    from toolcall.mcp.http import Front, HttpOptions

    async def lifespan(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "lifespan.startup"
        await send({"type": "lifespan.startup.complete"})
        assert (await receive())["type"] == "lifespan.shutdown"
        await send({"type": "lifespan.shutdown.complete"})

    calls = Calls(CallLimits())
    front = Front(lifespan, calls, HttpOptions(grace=0.01))
    to_app: list[Message] = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    failed_at_completion: list[bool] = []

    async def receive() -> Message:
        return to_app.pop(0)

    async def send(message: Message) -> None:
        if message["type"] == "lifespan.shutdown.complete":
            failed_at_completion.append(front.failed)

    async def forever() -> toolcall.Ok:
        await anyio.sleep_forever()
        raise AssertionError

    def unused() -> toolcall.Ok:
        raise AssertionError

    answers: list[Any] = []
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    async with anyio.create_task_group() as group:

        async def running() -> None:
            answers.append(await calls.run("hold", "1", False, unused, forever, None))

        group.start_soon(running)
        await anyio.wait_all_tasks_blocked()
        front._start_drain()
        await front({"type": "lifespan"}, receive, send)
    for number, handler in before.items():
        signal.signal(number, handler)
    assert failed_at_completion == [True]
    assert answers[0].error.message == "the server shut down before the call finished"


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


async def _load(served: Served, sessions: int, calls: int) -> tuple[list[int], set[int], int]:
    """``sessions`` SDK clients making ``calls`` calls each; (wrong answers, pids, errors)."""
    wrong: list[int] = []
    pids: set[int] = set()
    errors = 0

    async def session(k: int) -> None:
        nonlocal errors
        async with client(served.url) as opened:
            for i in range(calls):
                n = k * 1000 + i
                result = await opened.call_tool("tag", {"n": n})
                if not isinstance(result, CallToolResult) or result.is_error:
                    errors += 1
                    continue
                content = result.structured_content or {}
                if content.get("n") != n:
                    wrong.append(n)
                pids.add(int(content.get("pid", 0)))

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for k in range(sessions):
                group.start_soon(session, k)
    return wrong, pids, errors


@pytest.mark.long
async def test_stateless_workers_lose_no_call_across_workers_and_a_sigterm() -> None:
    """Stateless workers answer every call, each once and right, across workers and through a
    SIGTERM."""
    with serving("prodtools", "--stateless", "--workers", "2") as served:
        wrong, pids, errors = await _load(served, 8, 20)
        assert (wrong, errors) == ([], 0)
        assert pids
        assert all(_parent_of(pid) == served.process.pid for pid in pids)
        stop = anyio.Event()
        started = answered = 0
        failures: list[Any] = []

        async def until_stopped(k: int) -> None:
            nonlocal started, answered
            async with client(served.url) as opened:
                i = 0
                while not stop.is_set():
                    i += 1
                    started += 1
                    result = await opened.call_tool("slow_tag", {"n": i, "seconds": 0.2})
                    content = result.structured_content or {}
                    if result.is_error or content.get("n") != i:
                        failures.append(result)
                    answered += 1

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                for k in range(8):
                    group.start_soon(until_stopped, k)
                while answered < 40:
                    await anyio.sleep(0.05)
                stop.set()  # no new call from here: each one in flight must be answered
                served.process.send_signal(signal.SIGTERM)
        status = await anyio.to_thread.run_sync(served.wait)
    assert failures == []
    assert answered == started
    assert status == 0


# -- the deployment recipe of docs/production.md ----------------------------------------

_TOOLS = '''
__toolcall__ = True


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
        days: how many days ahead (1-7)
    """
    return {"city": city, "days": days, "temp": 21.5}


def convert(celsius: float) -> float:
    """Convert a temperature to Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius
    """
    return round(celsius * 9 / 5 + 32, 1)
'''


def _snapshot(*roots: Path) -> dict[str, tuple[int, int, int]]:
    found: dict[str, tuple[int, int, int]] = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            info = path.lstat()
            found[str(path)] = (info.st_size, info.st_mtime_ns, info.st_mode)
    return found


def _run(*args: str, cwd: Path, env: dict[str, str | None]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=subproc.environment([cwd], env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.long
async def test_the_production_recipe(tmp_path: Path) -> None:
    """Build as one user (entries, bytecode), serve under ``-OO`` from a read-only tree and
    cache, stateless with two workers: every description served, nothing written."""
    app, cache = tmp_path / "app", tmp_path / "cache"
    (app / "myapp").mkdir(parents=True)
    (app / "myapp" / "__init__.py").write_text("")
    (app / "myapp" / "tools.py").write_text(textwrap.dedent(_TOOLS))
    env: dict[str, str | None] = {"TOOLCALL_CACHE_DIR": str(cache)}
    # build time
    built = _run("-m", "toolcall.cli.cache", "build", "myapp", cwd=app, env=env)
    assert built.returncode == 0, built.stderr
    compiled = _run("-OO", "-m", "compileall", "-q", "myapp", cwd=app, env=env)
    assert compiled.returncode == 0, compiled.stderr
    exported = _run(
        "-m", "toolcall.cli.main", "export", "myapp.tools", "--format", "mcp", cwd=app, env=env
    )
    assert exported.returncode == 0, exported.stderr
    expected_tools = json.loads(exported.stdout)
    # run time: nothing may be written (root can write anyway, so it is checked, not trusted)
    for path in [app, cache, *app.rglob("*"), *cache.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    before = _snapshot(app, cache)
    try:
        with serving(
            "myapp.tools",
            "--stateless",
            "--workers",
            "2",
            flags=("-OO",),
            cwd=app,
            paths=(app,),
            env=env,
        ) as served:
            async with client(served.url) as session:
                listed = [
                    tool.model_dump(by_alias=True, exclude_none=True, mode="json")
                    for tool in (await session.list_tools()).tools
                ]
                result = await session.call_tool("convert", {"celsius": 21.5})
            status = await anyio.to_thread.run_sync(served.stop)
        after = _snapshot(app, cache)
    finally:
        for path in [app, cache, *app.rglob("*"), *cache.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    for tool in listed:
        tool.pop("outputSchema", None)
    assert listed == expected_tools
    assert (
        listed[0]["inputSchema"]["properties"]["days"]["description"] == "how many days ahead (1-7)"
    )
    assert isinstance(result, CallToolResult)
    assert not result.is_error
    assert status == 0, served.lines
    assert after == before
    assert not [line for line in served.lines if "warning" in line.lower()]


@pytest.mark.parametrize("timeout", [0, -1, "1", True, float("nan")])
def test_call_limits_take_a_timeout_by_the_rule_of_every_timeout(timeout: object) -> None:
    """serve-mcp's per-call limit is refused as ``arun``'s is: a bool, a string or NaN is no
    number of seconds (``True`` was taken as one second)."""
    from toolcall.mcp.calls import CallLimits

    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        CallLimits(timeout=timeout)  # type: ignore[arg-type]
