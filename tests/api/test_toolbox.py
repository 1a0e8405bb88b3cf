"""Toolbox construction: what a clash says when both members are one and the same function."""

from __future__ import annotations

import asyncio
import logging
import threading
import types
from collections.abc import Callable

import pytest
from examples import weather

import toolcall


def test_module_and_its_own_function_are_named_as_such() -> None:
    """A module and one of its functions: not "defined by both X and X", but what happened."""
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, weather.get_weather)
    assert str(info.value) == (
        "duplicate tool name 'get_weather': module examples.weather and function "
        "examples.weather.get_weather are the same tool; pass each module or function once"
    )


def test_member_given_twice() -> None:
    """The same module twice (object and dotted name) is named once, as given twice."""
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, "examples.weather")
    assert str(info.value) == (
        "duplicate tool name 'get_weather': module examples.weather is given twice; "
        "pass each module or function once"
    )


def test_two_functions_sharing_a_name_still_name_both(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """Different functions with one tool name: both owners, each with its kind."""
    other = make_module("__toolcall__ = True\ndef get_weather(city: str) -> None: pass\n")
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, other.get_weather)
    assert str(info.value) == (
        "duplicate tool name 'get_weather': defined by both module examples.weather and "
        f"function {other.__name__}.get_weather; rename one of them"
    )


# Retries, timeouts and parallel calls (SPEC 5).

_CONCURRENT = """
__toolcall__ = True
import asyncio, threading
from typing import Annotated
import toolcall

started: dict[str, asyncio.Event] = {}
release = threading.Event()
finished = threading.Event()
cancelled: list[str] = []
active = [0, 0]  # running now, most at once


async def wait_for(name: str, other: str) -> str:
    started[name].set()
    await started[other].wait()
    return name


async def hang(name: str) -> str:
    started[name].set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancelled.append(name)
        raise
    return name


async def counted(name: str) -> str:
    active[0] += 1
    active[1] = max(active)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    active[0] -= 1
    return name


def block(name: str) -> str:
    started_in = threading.get_ident()
    release.wait()
    finished.set()
    return f"{name} {started_in}"


def fix(city: str) -> str:
    raise toolcall.ToolRetry(f"no city called {city}; use a capital")


async def afix(city: str) -> str:
    raise toolcall.ToolRetry("try a capital")


def whoami(session: Annotated[dict, toolcall.Injected]) -> str:
    return session["user"]


def boom() -> None:
    raise ValueError("boom")
"""


@pytest.fixture
def concurrent(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    return make_module(_CONCURRENT)


def _events(module: types.ModuleType, *names: str) -> None:
    module.started.update((name, asyncio.Event()) for name in names)


def test_tool_retry_is_an_error_the_model_reads_and_is_not_logged(
    concurrent: types.ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """ToolRetry: kind retry, the tool's own message, nothing logged (a plain raise is)."""
    toolcall.describe(concurrent)  # the cache may log at DEBUG on first use: not our concern
    caplog.set_level(logging.DEBUG, logger="toolcall")
    err = toolcall.run(concurrent, "fix", {"city": "Atlantis"}).error
    assert (err.kind, err.message, err.value) == (
        "retry",
        "no city called Atlantis; use a capital",
        "no city called Atlantis; use a capital",
    )
    err = asyncio.run(toolcall.arun(concurrent, "afix", {"city": "x"})).error
    assert (err.kind, err.message) == ("retry", "try a capital")
    assert caplog.records == []
    assert toolcall.run(concurrent, "boom", {}).error.kind == "raised"
    assert [r.levelname for r in caplog.records] == ["ERROR"]


def test_async_timeout_cancels_the_tool(concurrent: types.ModuleType) -> None:
    """An async tool past its timeout is cancelled and the call is a timeout error naming the
    limit."""
    _events(concurrent, "h")
    result = asyncio.run(toolcall.arun(concurrent, "hang", {"name": "h"}, timeout=0.05))
    assert (result.error.kind, result.error.value) == ("timeout", 0.05)
    assert result.error.message == "the tool did not finish within 0.05 seconds"
    assert concurrent.cancelled == ["h"]


def test_sync_timeout_runs_in_a_thread_that_finishes_on_its_own(
    concurrent: types.ModuleType,
) -> None:
    """The caller gets its answer while the tool still blocks; the thread then runs to its end
    (``asyncio.run`` waits for it when it closes the loop's executor)."""
    box = toolcall.Toolbox(concurrent)

    async def main() -> None:
        result = await box.arun("block", {"name": "b"}, timeout=0.05)
        assert (result.error.kind, result.error.value) == ("timeout", 0.05)
        assert not concurrent.finished.is_set()
        concurrent.release.set()
        # given time, a sync tool with a timeout answers, from a worker thread
        value = (await box.arun("block", {"name": "b"}, timeout=30)).value
        assert value.split()[0] == "b"
        assert int(value.split()[1]) != threading.get_ident()

    asyncio.run(main())
    assert concurrent.finished.is_set()


def test_timeout_leaves_errors_and_values_alone(concurrent: types.ModuleType) -> None:
    """A timeout that is not reached changes no error a call gives."""
    box = toolcall.Toolbox(concurrent)
    assert asyncio.run(box.arun("fix", {"city": "x"}, timeout=30)).error.kind == "retry"
    assert asyncio.run(box.arun("fix", {}, timeout=30)).error.kind == "missing_argument"
    assert asyncio.run(box.arun("nope", {}, timeout=30)).error.kind == "unknown_tool"


@pytest.mark.parametrize("timeout", [0, -1, "1", True, float("nan")])
def test_timeout_must_be_positive_seconds(concurrent: types.ModuleType, timeout: object) -> None:
    """A timeout that is not a positive number of seconds is refused before any call."""
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        asyncio.run(toolcall.arun(concurrent, "fix", {"city": "x"}, timeout=timeout))  # type: ignore[arg-type]


def test_arun_many_runs_at_once_and_keeps_order(concurrent: types.ModuleType) -> None:
    """Each tool waits for the other to start: they can only finish if both run at once."""
    _events(concurrent, "a", "b")
    box = toolcall.Toolbox(concurrent)
    calls = [
        ("wait_for", {"name": "a", "other": "b"}),
        ("wait_for", {"name": "b", "other": "a"}),
    ]
    results = asyncio.run(box.arun_many(calls, timeout=30))
    assert [r.value for r in results] == ["a", "b"]


def test_arun_many_one_failure_never_affects_the_others(concurrent: types.ModuleType) -> None:
    """In arun_many each call's failure is its own result: the others run and answer in order."""
    _events(concurrent, "a", "b", "h")
    box = toolcall.Toolbox(concurrent)
    calls = [
        ("wait_for", {"name": "a", "other": "b"}),
        ("boom", {}),
        ("hang", {"name": "h"}),
        ("fix", {"city": 3}),
        ("nope", {}),
        ("wait_for", {"name": "b", "other": "a"}),
    ]
    results = asyncio.run(box.arun_many(calls, timeout=0.5))
    assert [r.value if isinstance(r, toolcall.Ok) else r.error.kind for r in results] == [
        "a",
        "raised",
        "timeout",
        "invalid_argument",
        "unknown_tool",
        "b",
    ]


def test_arun_many_limit(concurrent: types.ModuleType) -> None:
    """arun_many runs at most ``limit`` calls at once, all of them without a limit, and keeps the
    order."""
    box = toolcall.Toolbox(concurrent)
    calls = [("counted", {"name": str(i)}) for i in range(5)]
    results = asyncio.run(box.arun_many(calls, limit=2))
    assert [r.value for r in results] == ["0", "1", "2", "3", "4"]
    assert concurrent.active[1] == 2
    concurrent.active[1] = 0
    asyncio.run(box.arun_many(calls, limit=1))
    assert concurrent.active[1] == 1
    concurrent.active[1] = 0
    asyncio.run(box.arun_many(calls))
    assert concurrent.active[1] == 5
    assert asyncio.run(box.arun_many([])) == []


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_arun_many_limit_must_be_positive(concurrent: types.ModuleType, limit: object) -> None:
    """A limit that is not a positive integer is refused."""
    box = toolcall.Toolbox(concurrent)
    with pytest.raises(ValueError, match="limit must be a positive integer"):
        asyncio.run(box.arun_many([("boom", {})], limit=limit))  # type: ignore[arg-type]


def test_arun_many_raises_a_program_error_after_every_call_finished(
    concurrent: types.ModuleType,
) -> None:
    """A missing injected value is the program's bug: raised, but only once the rest ran."""
    _events(concurrent, "a", "b")
    box = toolcall.Toolbox(concurrent)
    calls = [
        ("whoami", {}),
        ("wait_for", {"name": "a", "other": "b"}),
        ("wait_for", {"name": "b", "other": "a"}),
    ]
    with pytest.raises(TypeError, match="injected parameter 'session'"):
        asyncio.run(box.arun_many(calls))
    assert concurrent.started["a"].is_set()
    assert concurrent.started["b"].is_set()


def test_toolbox_inject(concurrent: types.ModuleType) -> None:
    """Injected values reach the tool on run and arun; a missing one is a TypeError naming it."""
    box = toolcall.Toolbox(concurrent)
    assert box.run("whoami", {}, inject={"session": {"user": "ada"}}).value == "ada"
    result = asyncio.run(box.arun("whoami", {}, inject={"session": {"user": "bo"}}, timeout=30))
    assert result.value == "bo"
    with pytest.raises(TypeError, match="injected parameter 'session'"):
        box.run("whoami", {})


def test_toolbox_of_toolboxes(concurrent: types.ModuleType) -> None:
    """A Toolbox member stands for its members: names, emit order and clashes carry over."""
    inner = toolcall.Toolbox(weather)
    box = toolcall.Toolbox(inner, concurrent)
    assert box.tool_names() == (*weather_box_names(), *toolcall.tool_names(concurrent))
    assert box.emit("mcp") == [*inner.emit("mcp"), *toolcall.emit(concurrent, "mcp")]
    assert [t.name for t in box.tools()] == list(box.tool_names())
    assert box.function("boom") is concurrent.boom
    with pytest.raises(ValueError, match=r"module examples\.weather is given twice"):
        toolcall.Toolbox(inner, weather)


def weather_box_names() -> tuple[str, ...]:
    return toolcall.tool_names(weather)
