"""Tools for the production-server tests: quick, slow, failing in every way a tool can."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import anyio

__toolcall__ = True


class Custom(BaseException):
    """A BaseException a library might define."""


def tag(n: int) -> dict[str, int]:
    """Echo a number with the serving process id.

    Args:
        n: the number to echo back
    """
    return {"n": n, "pid": os.getpid()}


def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


def nap(seconds: float) -> str:
    """Sleep in a plain function (blocks its thread)."""
    time.sleep(seconds)
    return "slept"


async def anap(seconds: float) -> str:
    """Sleep in an async function."""
    await anyio.sleep(seconds)
    return "slept"


def hold(marker: str, seconds: float) -> str:
    """Block its thread until ``<marker>.release`` exists or ``seconds`` pass; the marker file
    exists while it runs."""
    open(marker, "w").close()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not os.path.exists(marker + ".release"):
            time.sleep(0.02)
    finally:
        os.remove(marker)
    return "done"


async def ahold(marker: str, seconds: float) -> str:
    """Wait until ``<marker>.release`` exists or ``seconds`` pass; the marker file exists while
    it runs (a cancel removes it too)."""
    open(marker, "w").close()
    try:
        with anyio.move_on_after(seconds):
            while not os.path.exists(marker + ".release"):
                await anyio.sleep(0.02)
    finally:
        os.remove(marker)
    return "done"


def explode(kind: str) -> str:
    """Raise a BaseException of the kind named."""
    errors: dict[str, BaseException] = {
        "keyboard": KeyboardInterrupt(),
        "generator": GeneratorExit(),
        "custom": Custom("custom"),
        "exit": SystemExit(3),
        "secret": ValueError("password=hunter2"),
    }
    raise errors[kind]


async def aexplode(kind: str) -> str:
    """Raise a BaseException of the kind named, from an async tool."""
    return explode(kind)


async def slow_tag(n: int, seconds: float) -> dict[str, int]:
    """Echo a number with the serving process id, after a wait."""
    await anyio.sleep(seconds)
    return {"n": n, "pid": os.getpid()}


async def stall_loop(marker: str) -> str:
    """Hold the event loop, with no call running, from when ``<marker>.go`` exists until
    ``<marker>.release`` does; the marker file exists while it is held."""
    loop = asyncio.get_running_loop()

    def armed() -> None:
        while not os.path.exists(marker + ".go"):
            time.sleep(0.02)
        loop.call_soon_threadsafe(hold, marker, 120)

    threading.Thread(target=armed, daemon=True).start()
    return "armed"
