"""Stand-ins shared by the tests that build dispatch plans from hand-written IR."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


class FakeResolver:
    """Classes and providers from dicts; anything else is unresolvable (objects stay dicts)."""

    def __init__(
        self, classes: dict[str, type] | None = None, providers: dict[str, Any] | None = None
    ) -> None:
        self.classes = classes or {}
        self.providers = providers or {}

    def cls(self, ref: str) -> type:
        try:
            return self.classes[ref]
        except KeyError:
            raise LookupError(ref) from None

    def provider(self, ref: str) -> Any:
        try:
            return self.providers[ref]
        except KeyError:
            raise LookupError(ref) from None


def near_stack_limit(call: Callable[[], R], frames: int = 150, headroom: int = 200) -> R:
    """``call()`` made ``frames`` calls deep with the recursion limit only ``headroom``
    frames above where this helper starts (xdist workers start deeper than plain pytest)."""

    def nested(depth: int) -> R:
        return call() if depth == 0 else nested(depth - 1)

    limit = sys.getrecursionlimit()
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    sys.setrecursionlimit(depth + headroom)
    try:
        return nested(frames)
    finally:
        sys.setrecursionlimit(limit)
