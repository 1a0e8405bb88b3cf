"""The calls the generated fast path writes out: the tool's, and each class constructor's.

A call through ``**kwargs`` makes Python match every keyword against the signature, about a
third of a small call. Where the callee's own code binds each position to the very name the
argument is declared under, passing it by position binds it exactly as the keyword would,
so these calls pass arguments by position as far as that holds, and by keyword after.
Omitted optional arguments are left out, as the general path leaves them out of its
``**kwargs``: one literal call per combination of given optionals (at most ``2**4``), the
rest passed through a dict.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["ABSENT", "Argument", "call_tree", "class_positions", "function_positions"]

ABSENT: Final = object()
"""An optional argument that was not given: the generated code's ``_ABSENT``."""


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a written-out call: the local holding it (``_ABSENT`` when an
    optional one was not given) and how it may be passed."""

    name: str
    local: str
    required: bool
    positional: bool
    positional_only: bool = False


def _names(code: types.CodeType, skip: int) -> tuple[str, ...]:
    return code.co_varnames[skip : code.co_argcount]


def function_positions(names: Sequence[str], fn: Callable[..., Any]) -> list[bool]:
    """Per name: does ``fn``'s own code bind that position to that name? (A wrapper taking
    ``*args, **kwargs``, or any callable that is not a plain function, gets keywords.)"""
    code = fn.__code__ if isinstance(fn, types.FunctionType) else None
    bound = _names(code, 0) if code is not None else ()
    return [i < len(bound) and bound[i] == name for i, name in enumerate(names)]


def class_positions(names: Sequence[str], cls: Any) -> list[bool]:
    """Per field name: may ``cls(...)`` take it by position?

    Only for a plain class (metaclass ``type``: no ``__call__`` of its own) whose
    ``__new__`` and ``__init__`` are each ``object``'s or a plain function binding that
    position to that name: a dataclass's generated ``__init__``, a NamedTuple's ``__new__``.
    """
    if type(cls) is not type:
        return [False] * len(names)
    bound: list[tuple[str, ...]] = []
    plain: Any = cls  # a plain class, whatever its fields
    for method, base in ((plain.__new__, object.__new__), (plain.__init__, object.__init__)):
        if method is base:
            continue
        if not isinstance(method, types.FunctionType):
            return [False] * len(names)
        bound.append(_names(method.__code__, 1))
    if not bound:
        return [False] * len(names)
    return [all(i < len(b) and b[i] == name for b in bound) for i, name in enumerate(names)]


def call_tree(
    assign: str,
    arguments: Sequence[Argument],
    branching: Sequence[int],
    pooled: str | None,
    indent: str,
) -> list[str]:
    """Lines running ``{assign}(...)`` with the given arguments, nested on ``is _ABSENT``.

    ``branching`` are the indices of the optional arguments branched on; ``pooled`` the
    local of a dict holding the other given optionals (None: there are none). Positional-only
    optionals are given as a prefix (the caller checks it), so once one is absent the later
    ones are not branched on. In each call the arguments go by position up to the first one
    that is not passed or may not go by position, and by keyword after.
    """

    def call(given: frozenset[int], indent: str) -> list[str]:
        passed: list[str] = []
        by_position = True
        for i, a in enumerate(arguments):
            if not (a.required or i in given):
                by_position = False
                continue
            by_position = by_position and a.positional
            passed.append(a.local if by_position or a.positional_only else f"{a.name}={a.local}")
        if pooled is not None:
            passed.append(f"**{pooled}")
        return [f"{indent}{assign}({', '.join(passed)})"]

    def tree(at: int, given: frozenset[int], closed: bool, indent: str) -> list[str]:
        if at == len(branching):
            return call(given, indent)
        i = branching[at]
        positional_only = arguments[i].positional_only
        if positional_only and closed:
            return tree(at + 1, given, closed, indent)
        deeper = indent + "    "
        return [
            f"{indent}if {arguments[i].local} is _ABSENT:",
            *tree(at + 1, given, closed or positional_only, deeper),
            f"{indent}else:",
            *tree(at + 1, given | {i}, closed, deeper),
        ]

    return tree(0, frozenset(), False, indent)
