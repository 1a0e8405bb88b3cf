"""Work measured in function calls rather than seconds.

A call count is the same on a loaded 2-core machine as on an idle one, so a test can pin
that an operation is O(1) or O(n) without a flaky wall-clock threshold (timings live in
``perf/``). Calls made inside C (msgspec decoding, regex matching) are one call each, which
is the point: work done there is the cheap kind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


class OverBudget(BaseException):
    """Raised inside the measured code once it makes more calls than allowed, so a runaway
    walk fails its test instead of hanging it. A BaseException, so that the code under
    test's own ``except Exception`` cannot swallow it."""


def count_calls(
    fn: Callable[[], T], *, limit: Callable[[], int] | None = None, after: int = 0
) -> tuple[T, int]:
    """``fn()`` and the number of Python and builtin function calls it made on this thread.

    Generator and coroutine resumptions count as calls too, so a lazy walk over n items
    still shows up as n. With ``limit``, once ``after`` calls have been made, ``limit()`` is
    asked (once, unmeasured, so a costly bound is only computed when needed) for the most
    calls allowed, and `OverBudget` is raised in ``fn`` past it.
    """
    count = 0
    allowed: int | None = None

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count, allowed
        if event not in ("call", "c_call"):
            return
        count += 1
        if limit is None or count <= after:
            return
        if allowed is None:
            allowed = limit()
        if count > allowed:
            raise OverBudget(f"more than {allowed} calls")

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = fn()
    finally:
        sys.setprofile(previous)
    return result, count
