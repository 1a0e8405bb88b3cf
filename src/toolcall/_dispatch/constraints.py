"""The constraints of SPEC section 3's ``Annotated`` row, as dispatch enforces them.

Numeric bounds and ``multipleOf`` (``out_of_range``), string length and ``pattern``
(``too_short``, ``too_long``, ``pattern_mismatch``) and container sizes. Each builder looks
at the type once and returns None when the type has nothing to check, so an unconstrained
value pays nothing. A failed check names the rule it enforces (``Invalid.rule``), so the
message can say the bound: a model cannot fix "out of range" without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from toolcall import ir
from toolcall._scalars import Invalid

__all__ = ["ecma_regex", "in_range", "sized", "string_checks", "tightest"]

Coercer = Callable[[Any], Any]


def _as_decimal(number: Any) -> Decimal:
    # repr() of a float is its shortest round-tripping decimal, so 0.3 is a multiple of 0.1
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def _is_multiple(number: Any, step: int | float) -> bool:
    if isinstance(number, int) and isinstance(step, int):
        return number % step == 0
    try:
        return _as_decimal(number) % _as_decimal(step) == 0
    except ArithmeticError:
        return False


def in_range(coerce: Coercer, t: ir.Type) -> Coercer:
    """Wraps a coercer whose result is a number with the type's numeric constraints."""
    checks: list[tuple[str, Any, Callable[[Any], bool]]] = []
    if (low := t.minimum) is not None:
        checks.append(("minimum", low, lambda n: n >= low))
    if (high := t.maximum) is not None:
        checks.append(("maximum", high, lambda n: n <= high))
    if (above := t.exclusive_minimum) is not None:
        checks.append(("exclusive_minimum", above, lambda n: n > above))
    if (below := t.exclusive_maximum) is not None:
        checks.append(("exclusive_maximum", below, lambda n: n < below))
    if (step := t.multiple_of) is not None:
        checks.append(("multiple_of", step, lambda n: _is_multiple(n, step)))
    if not checks:
        return coerce

    def ranged(value: Any) -> Any:
        number = coerce(value)
        for keyword, bound, check in checks:
            if not check(number):
                raise Invalid("out_of_range", value, rule=(keyword, bound))
        return number

    return ranged


# ECMA-262's \s, which is not Python's (no \x1c-\x1f or \x85; \ufeff is in it)
_ECMA_SPACE = r"\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def ecma_regex(pattern: str) -> re.Pattern[str]:
    r"""A schema ``pattern`` read as JSON Schema says (ECMA-262), not as Python would read it.

    The differences that matter for patterns people write: ``\d``, ``\w`` and ``\b`` are
    ASCII (``re.ASCII``), ``\s`` is ECMA's set, and ``$`` matches at the very end only
    (Python's also matches before a final newline, so ``^\d+$`` would take "5\n").
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i : i + 2]
            if escape == "\\s":
                escape = _ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]"
            elif escape == "\\S" and not in_class:
                escape = f"[^{_ECMA_SPACE}]"
            out.append(escape)
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            char = "\\Z"
        out.append(char)
        i += 1
    return re.compile("".join(out), re.ASCII)


def string_checks(t: ir.Type) -> Callable[[str, Any], None] | None:
    """The constraints a wire string must meet (length in code points, pattern), if any."""
    shortest, longest = t.min_length, t.max_length
    pattern = ecma_regex(t.pattern) if t.pattern else None
    if shortest is None and longest is None and pattern is None:
        return None

    def check(text: str, value: Any) -> None:
        if shortest is not None and len(text) < shortest:
            raise Invalid("too_short", value, rule=(shortest, len(text)))
        if longest is not None and len(text) > longest:
            raise Invalid("too_long", value, rule=(longest, len(text)))
        if pattern is not None and pattern.search(text) is None:
            raise Invalid("pattern_mismatch", value, rule=t.pattern)

    return check


def sized(low: int | None, high: int | None) -> Callable[[Any], None] | None:
    """The check of a container's length, if it has bounds."""
    if low is None and high is None:
        return None

    def check(value: Any) -> None:
        if low is not None and len(value) < low:
            raise Invalid("too_short", value, rule=(low, len(value)))
        if high is not None and len(value) > high:
            raise Invalid("too_long", value, rule=(high, len(value)))

    return check


def tightest(bound: Callable[..., int], *limits: int | None) -> int | None:
    given = [limit for limit in limits if limit is not None]
    return bound(given) if given else None
