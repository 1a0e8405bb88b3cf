"""How many examples a property test draws on the interpreter running it.

scripts/test runs the suite on several interpreters and tells each, through
``TOOLCALL_TESTS_EXAMPLE_SHARE``, what share of a property's full count to draw: with five
interpreters each draws a fifth, so one run of the command still draws the full count of every
property (random examples differ from one interpreter to the next) without paying five times
for it. A run of pytest on its own draws the full count. The floor keeps a
small property from drawing only a handful anywhere.
"""

from __future__ import annotations

import os

FLOOR = 20


def examples(full: int) -> int:
    share = max(1, int(os.environ.get("TOOLCALL_TESTS_EXAMPLE_SHARE") or 1))
    return max(full // share, min(full, FLOOR))
