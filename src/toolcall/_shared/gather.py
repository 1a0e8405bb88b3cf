"""Awaiting a model's parallel tool calls together, for ``Toolbox.arun_many`` and the async
provider helpers alike, so the two cannot drift on what an exception does to the others."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import TypeVar

__all__ = ["gather"]

T = TypeVar("T")


async def gather(calls: Iterable[Awaitable[T]]) -> list[T]:
    """Await ``calls`` concurrently, their results in the calls' order.

    A call's failure is its own ``Err``; an exception (the program's mistake) is raised once
    every call has finished, so no call is left running unawaited.
    """
    import asyncio  # here, not at the top: a process that never runs calls at once does not pay

    answered: list[T] = []
    for result in await asyncio.gather(*calls, return_exceptions=True):
        if isinstance(result, BaseException):
            raise result
        answered.append(result)
    return answered
